//! The `[cache]` section: whether the DRAM write cache is on, its size and its access time,
//! with the check that needs only these keys.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[cache]`.
//! That the cache holds at least one page relates it to `nand.page_bytes`, so
//! [`crate::config::Config`] checks it.

use serde::{Deserialize, Serialize};

use crate::config::require_times;
use crate::error::Result;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    pub enabled: bool,
    pub capacity_bytes: u64,
    /// DRAM time to serve one page from the cache.
    pub dram_access_ns: f64,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig { enabled: false, capacity_bytes: 256 << 20, dram_access_ns: 0.0 }
    }
}

impl CacheConfig {
    /// The DRAM time is one the engine can hold in picoseconds. The error names the key and
    /// its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_times(file, &[("cache.dram_access_ns", self.dram_access_ns)])
    }
}
