//! The `[tsu]` section: the transaction scheduling policy, how far the command builder looks
//! into a queue, and FLIN's parameters (`[tsu.flin]`), with their checks.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[tsu]`.

use serde::{Deserialize, Serialize};

use super::{TsuPolicyKind, UrgentGc};
use crate::error::Result;
use crate::validate::{reject, require_nonzero};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TsuConfig {
    /// fifo | ooo | flin
    pub policy: TsuPolicyKind,
    /// How many queued transactions per queue the builder looks at when coalescing.
    pub scan_limit: u32,
    /// after_reads | first: what urgent GC goes ahead of under `ooo`.
    pub urgent_gc: UrgentGc,
    /// User reads and programs may join a GC command of the same operation on planes it
    /// leaves free (MQSim's rule).
    pub user_joins_gc: bool,
    pub flin: FlinConfig,
}

/// FLIN's parameters (ISCA 2018; defaults from its authors' code, docs/techniques.md §1).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlinConfig {
    /// Length of the epoch over which flow intensity is measured.
    pub epoch_us: f64,
    /// A flow is low-intensity for reads on a chip if it enqueued fewer reads there in an
    /// epoch than this many bytes of the whole drive's worth, per chip, in pages.
    pub alpha_read_bytes: u64,
    /// The same for writes.
    pub alpha_write_bytes: u64,
    /// Below this fairness (min / max mean slowdown) in the high-intensity segment, its most
    /// slowed-down flow's new transaction jumps to the segment's front.
    pub fairness_threshold: f64,
    /// Flows start low-intensity (before their first epoch ends).
    pub start_low_intensity: bool,
}

impl Default for TsuConfig {
    fn default() -> Self {
        TsuConfig {
            policy: TsuPolicyKind::Ooo,
            scan_limit: 64,
            urgent_gc: UrgentGc::AfterReads,
            user_joins_gc: false,
            flin: FlinConfig::default(),
        }
    }
}

impl Default for FlinConfig {
    fn default() -> Self {
        FlinConfig {
            epoch_us: 10_000.0,
            alpha_read_bytes: 32 << 20,
            alpha_write_bytes: 256 << 10,
            fairness_threshold: 0.6,
            start_low_intensity: true,
        }
    }
}

impl TsuConfig {
    /// The builder looks at one transaction at least; FLIN's parameters are usable. The error
    /// names the key and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_nonzero(file, &[("tsu.scan_limit", self.scan_limit)])?;
        self.flin.validate(file)
    }
}

impl FlinConfig {
    /// An epoch has a length and the fairness threshold is a fairness (in [0, 1]).
    pub fn validate(&self, file: &str) -> Result<()> {
        if !(self.epoch_us.is_finite() && self.epoch_us > 0.0) {
            return reject(file, "tsu.flin.epoch_us", self.epoch_us, "must be a positive number of microseconds");
        }
        if !(self.fairness_threshold.is_finite() && (0.0..=1.0).contains(&self.fairness_threshold)) {
            return reject(file, "tsu.flin.fairness_threshold", self.fairness_threshold, "must be in [0, 1]");
        }
        Ok(())
    }
}
