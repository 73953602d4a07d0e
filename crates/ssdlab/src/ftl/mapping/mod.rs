//! Logical-to-physical mapping.
//!
//! The FTL always keeps the true map, [`page::PageMap`] (`ftl.mapping = "full"` is that
//! table alone, all in RAM). The demand-based schemes keep their translation pages in flash
//! and cache entries in a bounded RAM: the shared engine is [`demand`], and each scheme's
//! folder ([`dftl`], [`cdftl`], [`tpftl`], [`fmmu`]) holds its defaults and its paper's
//! citation. A translation answers [`Translation::Pending`] when its entry must first be
//! read from flash.

pub mod demand;
pub mod page;

use demand::config::SchemeDefaults;

use serde::{Deserialize, Serialize};

use crate::nand::{Lpn, Ppn};

/// Where a read of a logical page goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Translation {
    /// Read this physical page (for a never-written page under `ftl.unwritten_read =
    /// "flash"`, the page static allocation would have given it).
    Flash(Ppn),
    /// A never-written page under `ftl.unwritten_read = "zero"`: no flash access.
    Unwritten,
    /// The translation is not in memory: a map cache is reading it from flash, and the
    /// request resumes when it arrives. The full page map never answers this.
    Pending,
}

/// Which map the FTL keeps (`ftl.mapping`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MappingKind {
    /// The full page table in RAM, [`page::PageMap`].
    #[serde(alias = "page")]
    Full,
    Dftl,
    Cdftl,
    Tpftl,
    Fmmu,
}

impl MappingKind {
    /// The name a config spells it with.
    pub fn name(self) -> &'static str {
        match self {
            MappingKind::Full => "full",
            MappingKind::Dftl => "dftl",
            MappingKind::Cdftl => "cdftl",
            MappingKind::Tpftl => "tpftl",
            MappingKind::Fmmu => "fmmu",
        }
    }

    /// A demand-based scheme's defaults; None for the full table.
    pub fn defaults(self) -> Option<&'static SchemeDefaults> {
        match self {
            MappingKind::Full => None,
            MappingKind::Dftl => Some(&demand::dftl::DEFAULTS),
            MappingKind::Cdftl => Some(&demand::cdftl::DEFAULTS),
            MappingKind::Tpftl => Some(&demand::tpftl::DEFAULTS),
            MappingKind::Fmmu => Some(&demand::fmmu::DEFAULTS),
        }
    }
}

/// A logical-to-physical page map.
pub trait Mapping {
    /// The physical page holding `lpn`, or [`NONE`](crate::nand::NONE) if it was never written (or trimmed).
    fn get(&self, lpn: Lpn) -> Ppn;
    /// Point `lpn` at `ppn`.
    fn set(&mut self, lpn: Lpn, ppn: Ppn);
    /// Forget `lpn` (TRIM).
    fn clear(&mut self, lpn: Lpn);
    /// Bytes of memory the map uses now.
    fn state_bytes(&self) -> u64;
}
