//! The `[stats]` section: the time series' sampling interval, with its check.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[stats]`.

use serde::{Deserialize, Serialize};

use crate::config::require_times;
use crate::error::Result;

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
    /// The interval is a time the engine can hold in picoseconds. The error names the key and
    /// its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_times(file, &[("stats.interval_us", self.interval_us)])
    }
}
