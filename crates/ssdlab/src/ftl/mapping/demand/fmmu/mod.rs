//! FMMU (Woo & Min, arXiv 1704.03168, 2017; docs/techniques.md §9): the map cache as hardware.
//!
//! Two levels as CDFTL's, organised as the paper's Figures 5–7: a set-associative CMT of
//! multi-entry blocks (4 ways, §5.2 Fig. 10; 16 entries per block [I]) and a CTP of whole
//! translation pages, both with second-chance replacement among non-dirty blocks (§4.4).
//! Misses do not block (in-cache MSHRs, §4.2): requests missing on one translation page
//! wait on it together and cause one flash read. Dirty blocks are registered on the dirty
//! translation list (DTL, §4.2) and flushed by translation page when the non-dirty blocks
//! fall to the low watermark, until the high watermark (§4.5; 1/16 and 1/8 [I]), the page
//! chosen by cost-benefit over greedy, oldest-update-first and least-recently-updated [I].
//! Writes are programmed first and their Update follows (HRM, §4.1). The time it takes is
//! the firmware model's `map_unit = "hardware"` (`ftl::firmware`). Mechanism:
//! [`super`].

use super::blocks::Replacement;
use super::config::{GcUpdate, SchemeDefaults, UpdateOrder};

/// The paper's CMT share: 64 KB of the 1,088 KB (§5.1).
pub const CMT_BYTES: u64 = 64 * 1024;

pub const DEFAULTS: SchemeDefaults = SchemeDefaults {
    cmt_bytes: Some(CMT_BYTES),
    block_entries: 16,
    ways: 4,
    replacement: Replacement::SecondChance,
    clean_first: true,
    low_watermark: 1.0 / 16.0,
    high_watermark: 1.0 / 8.0,
    update_order: UpdateOrder::ProgramFirst,
    gc_update: GcUpdate::Cache,
    dirty_links: true,
    tp_nodes: None,
};
