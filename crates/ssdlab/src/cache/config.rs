//! The `[cache]` section: whether the DRAM write cache is on, its size and its access time,
//! with the check that needs only these keys.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[cache]`.
//! That the cache holds at least one page relates it to `nand.page_bytes`, so
//! [`crate::config::Config`] checks it.

use serde::{Deserialize, Serialize};

use crate::config::{require_nonzero, require_times};
use crate::error::Result;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    pub enabled: bool,
    pub capacity_bytes: u64,
    /// DRAM time to serve one page from the cache.
    pub dram_access_ns: f64,
    /// when_full | eager: when dirty pages go to flash.
    pub destage: Destage,
    /// Eager destaging: at most this many pages on their way to flash at once.
    pub max_destaging_pages: u32,
}

/// When the cache writes dirty pages to flash (`cache.destage`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Destage {
    /// Write back the least recently used dirty page only when a write finds no room: the
    /// cache absorbs rewrites and bursts up to its size.
    WhenFull,
    /// Send every written page to flash at once, up to `max_destaging_pages` in flight
    /// (MQSim's destage buffer): the cache keeps written data readable while it drains.
    Eager,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            enabled: false,
            capacity_bytes: 256 << 20,
            dram_access_ns: 0.0,
            destage: Destage::WhenFull,
            max_destaging_pages: 256,
        }
    }
}

impl CacheConfig {
    /// The DRAM time is one the engine can hold in picoseconds and eager destaging may have
    /// a page in flight. The error names the key and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_times(file, &[("cache.dram_access_ns", self.dram_access_ns)])?;
        require_nonzero(file, &[("cache.max_destaging_pages", self.max_destaging_pages)])
    }
}
