//! The `[ftl]` section: overprovisioning, the allocation scheme, the mapping, reads of
//! unwritten pages, garbage collection (`[ftl.gc]`), wear levelling (`[ftl.wear_leveling]`)
//! and firmware time (`[ftl.firmware]`), with the checks that need only these keys.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[ftl]` and its
//! subsections. Whether GC has room to work in the drive's geometry relates `[ftl]` to
//! `[nand]`, so `config::Config` (the composed drive, above the layers) checks it.

use serde::{Deserialize, Serialize};

pub use super::firmware::FirmwareConfig;
pub use super::mapping::demand::config::MapCacheConfig;
use super::{AllocationScheme, BlockAlignment, GcUnit, MappingKind, UnwrittenRead};
use crate::error::Result;
use crate::ftl::alloc::pacp::PartitionConfig;
pub use crate::ftl::gc::config::GcConfig;
use crate::ftl::gc::die_gc::DieLeftover;
use crate::nand::config::NandConfig;
use crate::nand::Geometry;
use crate::validate::{reject, require_nonzero, require_times};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Fraction of physical pages not exposed as logical pages.
    pub overprovisioning_ratio: f64,
    /// One of the 24 static orders (CWDP, ...), its first 1 to 3 letters (hybrid), or `dynamic`.
    pub allocation: AllocationScheme,
    /// none | die: whether the planes of a die open blocks of the same index for user data.
    pub block_alignment: BlockAlignment,
    /// What each map entry covers: `"page"` (the default), or bytes dividing
    /// `nand.page_bytes`, a whole number of sectors. Below the page, units of different
    /// logical addresses pack into one flash page (docs/config.md, `ftl.mapping_unit_bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping_unit_bytes: Option<MappingUnit>,
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

/// `ftl.mapping_unit_bytes`: the flash page whatever its size (a preset that states its
/// source's rule, "one entry per page", keeps it when the page size is changed), or a size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MappingUnit {
    Page,
    Bytes(u32),
}

impl Serialize for MappingUnit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            MappingUnit::Page => s.serialize_str("page"),
            MappingUnit::Bytes(b) => s.serialize_u32(*b),
        }
    }
}

impl<'de> Deserialize<'de> for MappingUnit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Unit;
        impl serde::de::Visitor<'_> for Unit {
            type Value = MappingUnit;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"page\" or a size in bytes")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<MappingUnit, E> {
                match v {
                    "page" => Ok(MappingUnit::Page),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<MappingUnit, E> {
                u32::try_from(v)
                    .map(MappingUnit::Bytes)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<MappingUnit, E> {
                u32::try_from(v)
                    .map(MappingUnit::Bytes)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
        }
        d.deserialize_any(Unit)
    }
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

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            overprovisioning_ratio: 0.07,
            allocation: AllocationScheme::CWDP,
            block_alignment: BlockAlignment::None,
            mapping_unit_bytes: None,
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

impl Default for WearLevelingConfig {
    fn default() -> Self {
        WearLevelingConfig { dynamic: true, static_threshold: 0 }
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
                "applies to a demand-based ftl.mapping (dftl, cdftl, tpftl, fmmu), not full: remove the table (from the command line: --unset ftl.map_cache)",
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
        let why = "is PACP's idle-time migration (Lv et al. migrate only when GC moves a page)";
        if !p.lv_region_bytes.is_power_of_two() {
            return reject(file, "ftl.partition.lv_region_bytes", p.lv_region_bytes, "must be a power of two (bytes)");
        }
        if p.lv_window == 0 {
            return reject(file, "ftl.partition.lv_window", 0, "must be at least 1 host page access");
        }
        let d = PartitionConfig::default();
        if !lv && (p.lv_window, p.lv_region_bytes) != (d.lv_window, d.lv_region_bytes) {
            let key =
                if p.lv_window != d.lv_window { "ftl.partition.lv_window" } else { "ftl.partition.lv_region_bytes" };
            return reject(
                file,
                key,
                "(set)",
                "is Lv et al.'s classification: applies to ftl.allocation = \"lv_partition\"",
            );
        }
        if p.placement != crate::ftl::alloc::pacp::Placement::default() && lv {
            let why = "is PACP's: Lv et al. place every host write on the Write channels already";
            return reject(file, "ftl.partition.placement", "write_channels", why);
        }
        if p.idle_migration == Some(true) && lv {
            return reject(file, "ftl.partition.idle_migration", true, why);
        }
        if p.idle_victims != crate::ftl::alloc::pacp::IdleVictims::default() && lv {
            return reject(file, "ftl.partition.idle_victims", "any", why);
        }
        if p.idle_search_blocks != PartitionConfig::default().idle_search_blocks && lv {
            return reject(file, "ftl.partition.idle_search_blocks", p.idle_search_blocks, why);
        }
        require_times(file, &[("ftl.partition.idle_us", p.idle_us)])?;
        require_nonzero(
            file,
            &[("ftl.partition.idle_pages", p.idle_pages), ("ftl.partition.idle_search_blocks", p.idle_search_blocks)],
        )
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

impl FtlConfig {
    /// The mapping unit on a drive of `page_bytes` pages.
    pub fn unit_bytes(&self, page_bytes: u32) -> u32 {
        match self.mapping_unit_bytes {
            Some(MappingUnit::Bytes(b)) => b,
            _ => page_bytes,
        }
    }

    /// The drive's addressing as the layers above the PHY see it: in mapping units.
    pub fn geometry(&self, nand: &NandConfig) -> Geometry {
        let geo = Geometry::from_config(nand);
        match self.unit_bytes(nand.page_bytes) {
            u if u < nand.page_bytes => geo.with_units(u),
            _ => geo,
        }
    }

    /// `ftl.mapping_unit_bytes` against the page and sector of a valid `[nand]`, and the
    /// parts built for whole pages only. The error names the key and its value.
    pub fn validate_mapping_unit(&self, file: &str, nand: &NandConfig) -> Result<()> {
        let Some(MappingUnit::Bytes(unit)) = self.mapping_unit_bytes else { return Ok(()) };
        let key = "ftl.mapping_unit_bytes";
        if unit == 0 || !nand.page_bytes.is_multiple_of(unit) || !unit.is_multiple_of(nand.sector_bytes) {
            let why = format!(
                "must divide nand.page_bytes ({}) and be a whole number of sectors ({} bytes)",
                nand.page_bytes, nand.sector_bytes
            );
            return reject(file, key, unit, &why);
        }
        let k = nand.page_bytes / unit;
        if k == 1 {
            return Ok(());
        }
        if !k.is_power_of_two() {
            let why = format!(
                "must leave a power-of-two number of units per page (nand.page_bytes {} / {unit} = {k})",
                nand.page_bytes
            );
            return reject(file, key, unit, &why);
        }
        if nand.pages_per_block as u64 * k as u64 > u16::MAX as u64 {
            return reject(file, key, unit, "gives more than 65,535 unit slots per block: use larger units");
        }
        let why = if self.gc.copyback {
            "packs units of several pages into one: copyback moves whole pages, set ftl.gc.copyback = false"
        } else if self.gc.unit == GcUnit::Die {
            "is not built for Die-GC (ftl.gc.unit = \"die\"), whose moves go out in groups of whole pages, one per plane"
        } else {
            return Ok(());
        };
        reject(file, key, unit, why)
    }

    /// Write points a plane keeps open: user and GC data, and with a demand-based map its
    /// translation pages.
    pub fn frontiers(&self) -> u32 {
        if self.mapping.defaults().is_some() {
            3
        } else {
            2
        }
    }

    /// The GC thresholds in blocks of a plane of `blocks_per_plane` blocks.
    pub fn limits(&self, blocks_per_plane: u32) -> crate::ftl::gc::Limits {
        crate::ftl::gc::Limits::new(&self.gc, blocks_per_plane, self.frontiers())
    }
}
