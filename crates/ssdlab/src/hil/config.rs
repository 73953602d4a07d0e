//! The `[hil]` section: the device-level scheduler, the device queue's depth, hazards,
//! readdressing and the fairness layer (WA-BC), with their checks.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[hil]`.

use serde::{Deserialize, Serialize};

use super::{Fairness, FaroPriority, Hazards, SchedulerKind};
use crate::error::Result;
use crate::validate::{reject, require_at_most, require_nonzero};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HilConfig {
    /// Device-level scheduler: direct | vas | pas | spk1 | spk2 | spk3
    pub scheduler: SchedulerKind,
    /// Device-level queue depth (tags).
    pub queue_depth: u32,
    /// PAS and SPK1: times the oldest request may be overtaken before it goes first (0: never,
    /// no guard).
    pub max_bypass: u32,
    /// Sprinkler's readdressing callback: update the targets of uncommitted requests when
    /// their data moves to another plane.
    pub readdressing: bool,
    /// Which overlapping requests the drive keeps in order: strict (RAW, WAR, WAW) | war
    /// (only a write after a read, Sprinkler §4.4; the host orders the rest).
    pub hazards: Hazards,
    /// Fairness layer over the device queue: none | wa_bc (budgets with GC compensation,
    /// Jun & Shin 2015: FLIN's "Sprinkler+Fairness").
    pub fairness: Fairness,
    /// WA-BC: each flow's budget per round, in device time per chip.
    pub wa_bc_round_us: f64,
    /// `spk1`, `spk3`: committed requests that may wait per plane for their command (FARO
    /// fills one slot per plane; more leaves the TSU a choice, e.g. for FLIN).
    pub plane_slots: u32,
    /// `spk1`, `spk3`: what FARO ranks by: overlap_depth (the chip's overlap depth across all
    /// queued requests, Sprinkler §4.2 and Algorithm 1) | within_request (ssdlab's rule before
    /// issue 32: nothing across requests is counted).
    pub faro_priority: FaroPriority,
}

impl Default for HilConfig {
    fn default() -> Self {
        HilConfig {
            scheduler: SchedulerKind::Direct,
            queue_depth: 32,
            max_bypass: 32,
            readdressing: true,
            hazards: Hazards::Strict,
            fairness: Fairness::None,
            wa_bc_round_us: 10_000.0,
            plane_slots: 1,
            faro_priority: FaroPriority::OverlapDepth,
        }
    }
}

impl HilConfig {
    /// The device queue has tags (a bounded number) and a WA-BC round has a length. The error
    /// names the key and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_nonzero(file, &[("hil.queue_depth", self.queue_depth), ("hil.plane_slots", self.plane_slots)])?;
        require_at_most(
            file,
            &[("hil.queue_depth", self.queue_depth, 65536), ("hil.plane_slots", self.plane_slots, 65536)],
        )?;
        if self.plane_slots != 1 && !matches!(self.scheduler, SchedulerKind::Spk1 | SchedulerKind::Spk3) {
            return reject(
                file,
                "hil.plane_slots",
                self.plane_slots,
                "applies to hil.scheduler = \"spk1\" or \"spk3\" (FARO)",
            );
        }
        let faro = matches!(self.scheduler, SchedulerKind::Spk1 | SchedulerKind::Spk3);
        if self.faro_priority != FaroPriority::OverlapDepth && !faro {
            return reject(
                file,
                "hil.faro_priority",
                "within_request",
                "applies to hil.scheduler = \"spk1\" or \"spk3\" (FARO)",
            );
        }
        if !(self.wa_bc_round_us.is_finite() && self.wa_bc_round_us > 0.0) {
            return reject(
                file,
                "hil.wa_bc_round_us",
                self.wa_bc_round_us,
                "must be a positive number of microseconds",
            );
        }
        Ok(())
    }
}
