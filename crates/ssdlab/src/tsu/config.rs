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
    /// after_reads | first | hold: what urgent GC goes ahead of under `ooo` (`hold`: of
    /// everything, and the chip runs nothing else while GC is urgent).
    pub urgent_gc: UrgentGc,
    /// User reads and programs may join a GC command of the same operation on planes it
    /// leaves free (MQSim's rule).
    pub user_joins_gc: bool,
    pub flin: FlinConfig,
}

/// FLIN's parameters (ISCA 2018; docs/techniques.md §1). Where the paper is silent, the
/// defaults are the authors' code's or, where that code's rule cannot act on a real drive,
/// our choice, each marked in docs/config.md.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlinConfig {
    /// Length of the epoch over which flow intensity is measured.
    pub epoch_us: f64,
    /// How the intensity threshold is stated: `chip_share` or `drive_bytes`.
    pub intensity: FlinIntensity,
    /// Under `chip_share`: a flow is low-intensity for reads (writes) on a chip if it enqueued
    /// fewer than this share of the reads (writes) the chip can serve in an epoch (default 0.25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intensity_share: Option<f64>,
    /// Under `drive_bytes`: a flow is low-intensity for reads on a chip if it enqueued fewer
    /// reads there in an epoch than this many bytes of the whole drive's worth, per chip, in
    /// pages (the authors' code: 32 MiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha_read_bytes: Option<u64>,
    /// The same for writes (256 KiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha_write_bytes: Option<u64>,
    /// Below this fairness (min / max mean slowdown) in the high-intensity segment, its most
    /// slowed-down flow's new transaction jumps to the segment's front.
    pub fairness_threshold: f64,
    /// Flows start low-intensity (before their first epoch ends).
    pub start_low_intensity: bool,
    /// Stage 3: which proportional waits the GC work before a write is added to.
    pub gc_in_waits: GcInWaits,
    /// When GC runs ahead of a chosen user write.
    pub gc_before_write: GcBeforeWrite,
    /// Slowdown estimates count the chip's remaining busy time in every queued transaction's
    /// shared time.
    pub chip_busy_in_slowdown: bool,
    /// How many of FLIN's stages run, in order (the ablation: 1, 1+2, 1+2+3): 1 = fairness-aware
    /// insertion with plain round robin over the priority classes and read-first selection;
    /// 2 = with the weighted round robin; 3 = all three (FLIN).
    pub stages: u8,
}

/// How FLIN's intensity threshold is stated (`tsu.flin.intensity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlinIntensity {
    /// A share (`intensity_share`) of what a chip serves in an epoch, one command's service
    /// time at a time: reachable on every drive [I].
    ChipShare,
    /// The authors' code: α bytes per epoch for the whole drive, divided over the chips and
    /// into pages (`alpha_read_bytes`, `alpha_write_bytes`) [C].
    DriveBytes,
}

/// Stage 3's proportional waits that count the GC work a write would bring
/// (`tsu.flin.gc_in_waits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GcInWaits {
    /// Both the read's and the write's, as the public port of FLIN onto MQSim does [C port].
    Both,
    /// The read's only (our earlier reading; it makes stage 3 read-first) [I].
    ReadOnly,
}

/// When FLIN runs GC ahead of the write it chose (`tsu.flin.gc_before_write`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GcBeforeWrite {
    /// N_GC page moves (GC read and write pairs) whenever GC is queued on the chip, N_GC being
    /// the queued GC reads times the writing flow's share of the chip's writes since its last
    /// erase: each flow pays for the GC it causes [C port; P describes the charge].
    Share,
    /// Only when a plane is at the hard threshold, and then all queued GC first (ssdlab's
    /// earlier rule) [I].
    Urgent,
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
            intensity: FlinIntensity::ChipShare,
            intensity_share: None,
            alpha_read_bytes: None,
            alpha_write_bytes: None,
            fairness_threshold: 0.6,
            start_low_intensity: true,
            gc_in_waits: GcInWaits::Both,
            gc_before_write: GcBeforeWrite::Share,
            chip_busy_in_slowdown: true,
            stages: 3,
        }
    }
}

/// The default share of a chip's epoch above which a flow is high-intensity: one flow's fair
/// share in the paper's four-flow mixes [I].
pub const DEFAULT_INTENSITY_SHARE: f64 = 0.25;
/// The authors' code's α_read and α_write, bytes per epoch for the drive [C].
pub const DEFAULT_ALPHA_BYTES: [u64; 2] = [32 << 20, 256 << 10];

impl TsuConfig {
    /// The builder looks at one transaction at least; FLIN's parameters are usable. The error
    /// names the key and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_nonzero(file, &[("tsu.scan_limit", self.scan_limit)])?;
        self.validate_hold(file)?;
        self.flin.validate(file)
    }

    /// `tsu.urgent_gc = "hold"` is a rule of `ooo`'s pick (`fifo` and `flin` order GC by
    /// rules of their own), and a held chip carries no user work in GC commands.
    fn validate_hold(&self, file: &str) -> Result<()> {
        if self.urgent_gc != UrgentGc::Hold {
            return Ok(());
        }
        if self.policy != TsuPolicyKind::Ooo {
            let why = format!("\"hold\" applies under tsu.policy = \"ooo\" (it is \"{}\")", self.policy);
            return reject(file, "tsu.urgent_gc", "hold", &why);
        }
        if self.user_joins_gc {
            let why = "a chip held by GC runs no user work: set tsu.user_joins_gc = false, or another tsu.urgent_gc";
            return reject(file, "tsu.urgent_gc", "hold", why);
        }
        Ok(())
    }
}

impl FlinConfig {
    /// An epoch has a length, the fairness threshold is a fairness (in [0, 1]), a share is in
    /// (0, 1], each threshold key belongs to the `intensity` that reads it, and 1 to 3 stages run.
    pub fn validate(&self, file: &str) -> Result<()> {
        self.validate_intensity(file)?;
        if !(self.epoch_us.is_finite() && self.epoch_us > 0.0) {
            return reject(file, "tsu.flin.epoch_us", self.epoch_us, "must be a positive number of microseconds");
        }
        if !(self.fairness_threshold.is_finite() && (0.0..=1.0).contains(&self.fairness_threshold)) {
            return reject(file, "tsu.flin.fairness_threshold", self.fairness_threshold, "must be in [0, 1]");
        }
        if !(1..=3).contains(&self.stages) {
            return reject(file, "tsu.flin.stages", self.stages, "must be 1 (stage 1), 2 (stages 1+2) or 3 (all)");
        }
        Ok(())
    }
}

impl FlinConfig {
    fn validate_intensity(&self, file: &str) -> Result<()> {
        let is = self.intensity_name();
        let wrong = |key: &str, value: &dyn std::fmt::Debug, reads: &str| {
            reject(file, key, value, &format!("applies with tsu.flin.intensity = \"{reads}\" (it is \"{is}\")"))
        };
        match self.intensity {
            FlinIntensity::ChipShare => {
                if let Some(a) = self.alpha_read_bytes {
                    return wrong("tsu.flin.alpha_read_bytes", &a, "drive_bytes");
                }
                if let Some(a) = self.alpha_write_bytes {
                    return wrong("tsu.flin.alpha_write_bytes", &a, "drive_bytes");
                }
                let share = self.share();
                if !(share.is_finite() && share > 0.0 && share <= 1.0) {
                    return reject(file, "tsu.flin.intensity_share", share, "must be in (0, 1]");
                }
            }
            FlinIntensity::DriveBytes => {
                if let Some(s) = self.intensity_share {
                    return wrong("tsu.flin.intensity_share", &s, "chip_share");
                }
            }
        }
        Ok(())
    }

    fn intensity_name(&self) -> &'static str {
        match self.intensity {
            FlinIntensity::ChipShare => "chip_share",
            FlinIntensity::DriveBytes => "drive_bytes",
        }
    }

    /// The share of a chip's epoch under `chip_share`.
    pub fn share(&self) -> f64 {
        self.intensity_share.unwrap_or(DEFAULT_INTENSITY_SHARE)
    }

    /// α_read and α_write in bytes per epoch for the drive, under `drive_bytes`.
    pub fn alpha_bytes(&self) -> [u64; 2] {
        [
            self.alpha_read_bytes.unwrap_or(DEFAULT_ALPHA_BYTES[0]),
            self.alpha_write_bytes.unwrap_or(DEFAULT_ALPHA_BYTES[1]),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::{FlinConfig, FlinIntensity};

    /// Each threshold key belongs to the intensity rule that reads it; a key of the other rule
    /// is an error naming it, never ignored. Shares are in (0, 1].
    #[test]
    fn intensity_keys_belong_to_their_rule() {
        let chip = FlinConfig { alpha_read_bytes: Some(1 << 20), ..FlinConfig::default() };
        let e = chip.validate("d.toml").unwrap_err().to_string();
        assert!(e.contains("tsu.flin.alpha_read_bytes") && e.contains("\"drive_bytes\""), "{e}");
        let bytes =
            FlinConfig { intensity: FlinIntensity::DriveBytes, intensity_share: Some(0.5), ..FlinConfig::default() };
        let e = bytes.validate("d.toml").unwrap_err().to_string();
        assert!(e.contains("tsu.flin.intensity_share") && e.contains("\"chip_share\""), "{e}");
        let zero = FlinConfig { intensity_share: Some(0.0), ..FlinConfig::default() };
        assert!(zero.validate("d.toml").unwrap_err().to_string().contains("(0, 1]"));
        let ok =
            FlinConfig { intensity: FlinIntensity::DriveBytes, alpha_write_bytes: Some(1), ..FlinConfig::default() };
        assert!(ok.validate("d.toml").is_ok());
        assert_eq!(ok.alpha_bytes(), [32 << 20, 1]);
    }

    /// FLIN has three stages: 1, 2 and 3 are accepted (3 by default), 0 and 4 are errors
    /// naming the key.
    #[test]
    fn one_to_three_stages_run() {
        assert_eq!(FlinConfig::default().stages, 3);
        for stages in 1..=3 {
            assert!(FlinConfig { stages, ..FlinConfig::default() }.validate("d.toml").is_ok());
        }
        for stages in [0, 4] {
            let e = FlinConfig { stages, ..FlinConfig::default() }.validate("d.toml").unwrap_err().to_string();
            assert!(e.contains("tsu.flin.stages") && e.contains("must be 1"), "{e}");
        }
    }
}
