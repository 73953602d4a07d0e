//! The `[stats]` section: the time series' sampling interval, with its check.
//!
//! The series costs one row (72 bytes) per interval of simulated time, so the interval
//! has a floor, [`MIN_INTERVAL_US`], and the series a ceiling, [`MAX_SAMPLES`] rows: at most
//! 72 MB however long the run and however the interval was chosen. Without them an interval of
//! a picosecond grows memory by 72 MB per simulated microsecond.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[stats]`.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::validate::{reject, require_times};

/// Finest time-series interval: 1 µs. No host request completes faster than that (a PCIe
/// round trip and the shortest flash read take microseconds), so a finer window holds no
/// completion, or one, and its IOPS jumps between 0 and 10^6.
pub const MIN_INTERVAL_US: f64 = 1.0;

/// Most rows the time series keeps; later windows are not recorded (`Stats::close_window`).
/// 10^6 rows is 1 s of simulated time at the finest interval, or 17 simulated minutes at 1 ms.
pub const MAX_SAMPLES: usize = 1_000_000;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct StatsConfig {
    /// Time-series interval; 0 turns the time series off.
    pub interval_us: f64,
}

impl Default for StatsConfig {
    fn default() -> Self {
        StatsConfig { interval_us: 0.0 }
    }
}

impl StatsConfig {
    /// The interval is 0 (off) or at least [`MIN_INTERVAL_US`], and a time the engine can hold
    /// in picoseconds. The error names the key and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_times(file, &[("stats.interval_us", self.interval_us)])?;
        if self.interval_us > 0.0 && self.interval_us < MIN_INTERVAL_US {
            let why = format!(
                "must be 0 (off) or at least {MIN_INTERVAL_US} µs: a finer window holds at most one completion and costs a time-series row (72 bytes) per window"
            );
            return reject(file, "stats.interval_us", self.interval_us, &why);
        }
        Ok(())
    }
}
