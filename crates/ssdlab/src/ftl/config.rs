//! The `[ftl]` section: overprovisioning, the allocation scheme, the mapping, reads of
//! unwritten pages, garbage collection (`[ftl.gc]`), wear levelling (`[ftl.wear_leveling]`)
//! and firmware time (`[ftl.firmware]`), with the checks that need only these keys.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[ftl]` and its
//! subsections. Whether GC has room to work in the drive's geometry relates `[ftl]` to
//! `[nand]`, so [`crate::config::Config`] checks it.

use serde::{Deserialize, Serialize};

use super::firmware::MapUnit;
pub use super::mapping::demand::config::MapCacheConfig;
use super::{AllocationScheme, BlockAlignment, GcUnit, MappingKind, UnwrittenRead, VictimPolicy};
use crate::error::Result;
use crate::ftl::alloc::pacp::PartitionConfig;
use crate::ftl::gc::die_gc::DieLeftover;
use crate::validate::{reject, require_at_most, require_nonzero, require_times};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Fraction of physical pages not exposed as logical pages.
    pub overprovisioning_ratio: f64,
    /// One of the 24 static orders (CWDP, ...), its first 1 to 3 letters (hybrid), or `dynamic`.
    pub allocation: AllocationScheme,
    /// none | die: whether the planes of a die open blocks of the same index for user data.
    pub block_alignment: BlockAlignment,
    /// full (the whole table in RAM) | dftl | cdftl | tpftl | fmmu (translation pages in
    /// flash, a cache of entries in RAM: `[ftl.map_cache]`).
    pub mapping: MappingKind,
    pub map_cache: MapCacheConfig,
    /// What a read of a never-written page does: `flash` reads the page static allocation
    /// would have given it (so a fresh drive has realistic read timing), `zero` completes
    /// without touching flash.
    pub unwritten_read: UnwrittenRead,
    pub gc: GcConfig,
    pub wear_leveling: WearLevelingConfig,
    pub firmware: FirmwareConfig,
    /// Read/write channel partitioning (`allocation = "lv_partition"` or `"pacp"`).
    pub partition: PartitionConfig,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct GcConfig {
    /// greedy | cost_benefit | random | fifo | d_choices
    pub policy: VictimPolicy,
    /// GC starts on a plane when its free blocks fall below this fraction of its blocks.
    pub threshold: f64,
    /// User writes to a plane wait when its free blocks fall to this fraction (foreground GC);
    /// at least one block is always kept for GC.
    pub hard_threshold: f64,
    /// Background GC: while a chip is idle, clean planes whose free fraction is below this.
    /// 0 turns background GC off.
    pub background_threshold: f64,
    /// Move valid pages with copyback (no data over the bus) instead of read + program.
    pub copyback: bool,
    /// Number of random candidates for `d_choices`.
    pub d: u32,
    /// plane | die: what one GC collects (die: SPD's Die-GC over an aligned block set).
    pub unit: GcUnit,
    /// pad | buffer: where Die-GC's last partial group of moves goes.
    pub die_leftover: DieLeftover,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WearLevelingConfig {
    /// Dynamic: a plane opens its least-erased free block.
    pub dynamic: bool,
    /// Static: when the erase-count spread of a plane exceeds this, its least-erased full
    /// block is cleaned so cold data moves to a worn block. 0 turns it off.
    pub static_threshold: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FirmwareConfig {
    pub cores: u32,
    /// Time to issue a memory request's flash command, on a core.
    pub op_cost_ns: f64,
    /// A map lookup or update answered from RAM; also the fill that answers a request
    /// waiting for its translation page.
    pub hit_ns: f64,
    /// A map lookup or update that must read its translation page (victim search and the
    /// read's issue).
    pub miss_ns: f64,
    /// A flush: fixed part ...
    pub flush_ns: f64,
    /// ... plus this per CMT block scanned.
    pub flush_block_ns: f64,
    /// cores | hardware (FMMU): where map work runs.
    pub map_unit: MapUnit,
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            overprovisioning_ratio: 0.07,
            allocation: AllocationScheme::CWDP,
            block_alignment: BlockAlignment::None,
            mapping: MappingKind::Full,
            map_cache: MapCacheConfig::default(),
            unwritten_read: UnwrittenRead::Flash,
            gc: GcConfig::default(),
            wear_leveling: WearLevelingConfig::default(),
            firmware: FirmwareConfig::default(),
            partition: PartitionConfig::default(),
        }
    }
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig {
            policy: VictimPolicy::Greedy,
            threshold: 0.05,
            hard_threshold: 0.005,
            background_threshold: 0.0,
            unit: GcUnit::Plane,
            die_leftover: DieLeftover::Pad,
            copyback: false,
            d: 4,
        }
    }
}

impl Default for WearLevelingConfig {
    fn default() -> Self {
        WearLevelingConfig { dynamic: true, static_threshold: 0 }
    }
}

impl Default for FirmwareConfig {
    fn default() -> Self {
        FirmwareConfig {
            cores: 1,
            op_cost_ns: 0.0,
            hit_ns: 0.0,
            miss_ns: 0.0,
            flush_ns: 0.0,
            flush_block_ns: 0.0,
            map_unit: MapUnit::Cores,
        }
    }
}

impl FtlConfig {
    /// Check the firmware, the overprovisioning ratio and GC's thresholds. The error names
    /// the key and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        self.firmware.validate(file)?;
        if self.mapping == MappingKind::Full && self.map_cache.is_set() {
            return reject(
                file,
                "ftl.map_cache",
                "(set)",
                "applies to a demand-based ftl.mapping (dftl, cdftl, tpftl, fmmu), not full",
            );
        }
        let op = self.overprovisioning_ratio;
        if !(0.0..0.9).contains(&op) {
            return reject(file, "ftl.overprovisioning_ratio", op, "must be in [0, 0.9)");
        }
        self.gc.validate(file)?;
        self.validate_partition(file)?;
        self.validate_die_gc(file)
    }

    /// `[ftl.partition]` is for the partitioned schemes, with 1 to 3 history bits and a
    /// period of at least one request; the channel count is checked with the geometry
    /// (`Config::validate`).
    fn validate_partition(&self, file: &str) -> Result<()> {
        let p = &self.partition;
        if self.allocation.partition().is_none() && *p != PartitionConfig::default() {
            return reject(file, "ftl.partition", "(set)", "applies to ftl.allocation = \"lv_partition\" or \"pacp\"");
        }
        if !(1..=3).contains(&p.trh_bits) {
            return reject(file, "ftl.partition.trh_bits", p.trh_bits, "must be 1, 2 or 3 (requests kept per page)");
        }
        if p.period == 0 {
            return reject(file, "ftl.partition.period", 0, "must be at least one request");
        }
        let lv = self.allocation == AllocationScheme::LvPartition;
        let why = "is built for pacp only (Lv et al.'s page classification is not)";
        if p.gc_migration == Some(true) && lv {
            return reject(file, "ftl.partition.gc_migration", true, why);
        }
        if p.idle_migration == Some(true) && lv {
            return reject(file, "ftl.partition.idle_migration", true, why);
        }
        require_times(file, &[("ftl.partition.idle_us", p.idle_us)])?;
        require_nonzero(file, &[("ftl.partition.idle_pages", p.idle_pages)])
    }

    /// Die-GC and TwinBlk collect aligned block sets: they need aligned blocks, and are built
    /// for the full map without static wear levelling; Die-GC's moves change plane, which
    /// copyback cannot.
    fn validate_die_gc(&self, file: &str) -> Result<()> {
        let unit = self.gc.unit;
        if self.gc.die_leftover == DieLeftover::Buffer && unit != GcUnit::Die {
            return reject(file, "ftl.gc.die_leftover", "buffer", "applies to ftl.gc.unit = \"die\" only");
        }
        if !unit.aligned_set() {
            return Ok(());
        }
        let name = if unit == GcUnit::Die { "die" } else { "twin" };
        let why = if self.block_alignment != BlockAlignment::Die {
            "collects aligned block sets: set ftl.block_alignment = \"die\""
        } else if unit == GcUnit::Die && self.gc.copyback {
            "moves pages across the planes of a die, which copyback cannot: set ftl.gc.copyback = false"
        } else if self.mapping != MappingKind::Full {
            "is built for ftl.mapping = \"full\" only (translation-page moves are not staged)"
        } else if self.wear_leveling.static_threshold > 0 {
            "does not pick victims for static wear levelling: set ftl.wear_leveling.static_threshold = 0"
        } else {
            return Ok(());
        };
        reject(file, "ftl.gc.unit", name, why)
    }
}

impl GcConfig {
    /// Thresholds are fractions of a plane's blocks, ordered hard ≤ start < background (or
    /// background off), and `d_choices` has a candidate.
    pub fn validate(&self, file: &str) -> Result<()> {
        for (key, v) in [
            ("ftl.gc.threshold", self.threshold),
            ("ftl.gc.hard_threshold", self.hard_threshold),
            ("ftl.gc.background_threshold", self.background_threshold),
        ] {
            if !(0.0..0.5).contains(&v) {
                return reject(file, key, v, "must be a fraction of a plane's blocks in [0, 0.5)");
            }
        }
        if self.hard_threshold > self.threshold {
            return reject(
                file,
                "ftl.gc.hard_threshold",
                self.hard_threshold,
                &format!("must not exceed ftl.gc.threshold ({})", self.threshold),
            );
        }
        if self.background_threshold > 0.0 && self.background_threshold <= self.threshold {
            return reject(
                file,
                "ftl.gc.background_threshold",
                self.background_threshold,
                &format!(
                    "background GC only acts above ftl.gc.threshold ({}): set it higher, or 0 to turn it off",
                    self.threshold
                ),
            );
        }
        require_nonzero(file, &[("ftl.gc.d", self.d)])
    }
}

impl FirmwareConfig {
    /// At least one core, a bounded number of them, and a time per request the engine can
    /// hold in picoseconds.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_nonzero(file, &[("ftl.firmware.cores", self.cores)])?;
        require_at_most(file, &[("ftl.firmware.cores", self.cores, 1024)])?;
        require_times(
            file,
            &[
                ("ftl.firmware.op_cost_ns", self.op_cost_ns),
                ("ftl.firmware.hit_ns", self.hit_ns),
                ("ftl.firmware.miss_ns", self.miss_ns),
                ("ftl.firmware.flush_ns", self.flush_ns),
                ("ftl.firmware.flush_block_ns", self.flush_block_ns),
            ],
        )
    }
}
