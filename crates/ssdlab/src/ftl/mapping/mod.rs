//! Logical-to-physical mapping.
//!
//! [`Mapping`] is the extension point for mapping schemes: the full page table
//! ([`page::PageMap`]) today; demand-based schemes (DFTL, CDFTL, TPFTL, FMMU), whose
//! translation pages live in flash, each in a folder of its own here. A translation may
//! answer [`Translation::Pending`] when its entry must first be read from flash.

pub mod page;

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

/// Which [`Mapping`] the FTL keeps (`ftl.mapping`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MappingKind {
    /// The full page table, [`page::PageMap`].
    Page,
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
