//! The `[cache]` section: whether the DRAM write cache is on, its size and its access time,
//! with the check that needs only these keys.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[cache]`.
//! That the cache holds at least one page relates it to `nand.page_bytes`, so
//! `config::Config` (the composed drive, above the layers) checks it.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::validate::{reject, require_nonzero, require_range, require_times};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    pub enabled: bool,
    pub capacity_bytes: u64,
    /// When > 0: the capacity is this fraction of the workload's footprint (whole pages,
    /// rounded down, at least [`CacheConfig::footprint_floor`]) and `capacity_bytes` is not
    /// used.
    pub capacity_footprint_fraction: f64,
    /// fixed | ddr: how DRAM access time is modelled (`dram.rs`).
    pub dram_model: DramModel,
    /// `fixed`: DRAM time to serve one page from the cache.
    pub dram_access_ns: f64,
    /// `ddr`: the DRAM's rows, rate, bursts and timings.
    pub ddr: DdrConfig,
    /// when_full | eager: when dirty pages go to flash.
    pub destage: Destage,
    /// Eager destaging: at most this many pages on their way to flash at once.
    pub max_destaging_pages: u32,
    /// always | below_destage_limit: whether a host write waits for destaging to drain.
    pub write_admission: WriteAdmission,
    /// lru | spd | baseline_d | baseline_p: which dirty pages leave together.
    pub policy: CachePolicy,
    /// stall | pad: SPD when no die holds N dirty pages.
    pub spd_fallback: SpdFallback,
    /// programmed | evicted: when a written-back page's slot takes new data.
    pub slot_release: SlotRelease,
}

/// When the slot of a page being written back may take new data (`cache.slot_release`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SlotRelease {
    /// When its program ends: until then the page counts against the capacity, and a write
    /// that finds the cache full waits for a write-back to end. The page then stays, clean.
    #[default]
    Programmed,
    /// When it is evicted, as SSDsim's buffer does: the slot takes the write that evicted at
    /// once, and that write completes only when the pages it evicted are programmed. An
    /// evicted page stays readable until its program ends, then leaves the cache.
    Evicted,
}

/// What SPD's eviction does when no die list holds N pages (`cache.spd_fallback`;
/// docs/techniques.md §11.3 item 3).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SpdFallback {
    /// Nothing leaves until a die holds N (a write that finds the cache full waits for a
    /// write-back to end); `validate` requires a cache that, full, always has such a die.
    #[default]
    Stall,
    /// The die queue's next die with any dirty page writes them with dummy pages on its
    /// other planes, so the program is still an aligned N-plane one (the "space is wasted"
    /// alignment of slide s.11); the dummy pages are counted (`cache.pad_pages`).
    Pad,
}

/// Which dirty pages a write-back takes (`cache.policy`). All but `lru` keep the dirty pages
/// in per-die lists (`crate::cache::spd`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CachePolicy {
    /// The least recently used dirty page, alone.
    #[default]
    Lru,
    /// SPD's Die-Write: the N least recently used pages of the die queue's first die with N,
    /// page i to plane i (N = planes per die).
    Spd,
    /// Baseline-D: the least recently used page of the die queue's next die, alone.
    BaselineD,
    /// Baseline-P: the least recently used page of the die queue's next die, with the least
    /// recently used page bound to each other plane of that die.
    BaselineP,
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

/// When a host write may enter the cache (`cache.write_admission`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WriteAdmission {
    /// Whenever it finds room: with eager destaging it completes at DRAM speed however far
    /// flash is behind.
    #[default]
    Always,
    /// Only while fewer than `max_destaging_pages` pages are on their way to flash; else it
    /// waits, in arrival order, for a write-back to end (MQSim's back-pressure buffer,
    /// docs/techniques.md §12). Needs `destage = "eager"`.
    BelowDestageLimit,
}

/// How DRAM access time is modelled (`cache.dram_model`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DramModel {
    /// Every access takes `dram_access_ns`; accesses overlap.
    #[default]
    Fixed,
    /// MQSim's: one channel, accesses in turn, each row opened (tRCD + tCL) and its bytes
    /// moved in bursts at the data rate.
    Ddr,
}

/// The `[cache.ddr]` table; defaults are MQSim's `ssdconfig.xml`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DdrConfig {
    pub row_bytes: u32,
    /// Transfers per second, in millions.
    pub data_rate_mt_s: f64,
    /// Bytes one burst moves.
    pub burst_bytes: u32,
    pub t_rcd_ns: f64,
    pub t_cl_ns: f64,
    pub t_rp_ns: f64,
}

impl Default for DdrConfig {
    fn default() -> Self {
        DdrConfig {
            row_bytes: 8192,
            data_rate_mt_s: 100.0,
            burst_bytes: 1,
            t_rcd_ns: 13.0,
            t_cl_ns: 13.0,
            t_rp_ns: 13.0,
        }
    }
}

impl DdrConfig {
    /// Rows and bursts hold bytes, the rate gives a transfer time the engine can hold, and
    /// the timings are times.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_nonzero(file, &[("cache.ddr.row_bytes", self.row_bytes), ("cache.ddr.burst_bytes", self.burst_bytes)])?;
        require_range(file, &[("cache.ddr.data_rate_mt_s", self.data_rate_mt_s, 1.0, 1e6)])?;
        require_times(
            file,
            &[
                ("cache.ddr.t_rcd_ns", self.t_rcd_ns),
                ("cache.ddr.t_cl_ns", self.t_cl_ns),
                ("cache.ddr.t_rp_ns", self.t_rp_ns),
            ],
        )
    }
}

impl CachePolicy {
    /// The name a config spells it with.
    pub fn name(self) -> &'static str {
        match self {
            CachePolicy::Lru => "lru",
            CachePolicy::Spd => "spd",
            CachePolicy::BaselineD => "baseline_d",
            CachePolicy::BaselineP => "baseline_p",
        }
    }
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            enabled: false,
            capacity_bytes: 256 << 20,
            capacity_footprint_fraction: 0.0,
            dram_model: DramModel::Fixed,
            dram_access_ns: 0.0,
            ddr: DdrConfig::default(),
            destage: Destage::WhenFull,
            max_destaging_pages: 256,
            write_admission: WriteAdmission::Always,
            policy: CachePolicy::Lru,
            spd_fallback: SpdFallback::Stall,
            slot_release: SlotRelease::Programmed,
        }
    }
}

impl CacheConfig {
    /// The DRAM time is one the engine can hold in picoseconds and eager destaging may have
    /// a page in flight. The error names the key and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_times(file, &[("cache.dram_access_ns", self.dram_access_ns)])?;
        require_nonzero(file, &[("cache.max_destaging_pages", self.max_destaging_pages)])?;
        let f = self.capacity_footprint_fraction;
        if !(0.0..=1.0).contains(&f) {
            return reject(
                file,
                "cache.capacity_footprint_fraction",
                f,
                "must be a fraction in [0, 1] (0: use cache.capacity_bytes)",
            );
        }
        if self.write_admission == WriteAdmission::BelowDestageLimit && self.destage != Destage::Eager {
            let why = "holds writes while max_destaging_pages pages are on their way to flash, which only eager destaging sends: set cache.destage = \"eager\"";
            return reject(file, "cache.write_admission", "below_destage_limit", why);
        }
        if self.slot_release == SlotRelease::Evicted && self.destage == Destage::Eager {
            let why = "makes the write that evicts wait for the pages it evicted, and eager destaging evicts without such a write: use cache.destage = \"when_full\"";
            return reject(file, "cache.slot_release", "evicted", why);
        }
        self.ddr.validate(file)
    }
}

impl CacheConfig {
    /// The least a footprint-sized cache holds [I]: SPD's floor of (planes per die − 1) ×
    /// dies plus one pages (docs/techniques.md §11.3 item 3), whatever the policy, so that schemes
    /// compared at one fraction get one size.
    pub fn footprint_floor(planes_per_die: u32, dies: u32) -> u64 {
        (planes_per_die as u64 - 1) * dies as u64 + 1
    }

    /// Pages a cache of `capacity_footprint_fraction` holds for a workload touching
    /// `footprint` pages: the fraction, rounded down (docs/techniques.md §11.1 item 4), at least
    /// `floor` pages.
    pub fn footprint_pages(&self, footprint: u64, floor: u64) -> u64 {
        ((footprint as f64 * self.capacity_footprint_fraction).floor() as u64).max(floor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8 dies of 2 planes: the floor is (2 − 1) × 8 + 1 = 9 pages. 4,500 pages of footprint
    /// give 4.5 → 4 pages at 1/1000 (the floor wins) and 18 at 4/1000; 4 planes raise the
    /// floor to 3 × 8 + 1 = 25.
    #[test]
    fn a_footprint_sized_cache_is_the_fraction_rounded_down_but_never_below_the_floor() {
        let floor = CacheConfig::footprint_floor(2, 8);
        assert_eq!(floor, 9);
        let at = |f: f64| CacheConfig { capacity_footprint_fraction: f, ..CacheConfig::default() };
        assert_eq!(at(0.001).footprint_pages(4500, floor), 9);
        assert_eq!(at(0.004).footprint_pages(4500, floor), 18);
        assert_eq!(at(0.0041).footprint_pages(4500, floor), 18, "18.45 rounds down");
        assert_eq!(at(0.001).footprint_pages(4500, CacheConfig::footprint_floor(4, 8)), 25);
    }
}
