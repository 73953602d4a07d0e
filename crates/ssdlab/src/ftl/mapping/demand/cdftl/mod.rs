//! CDFTL (Qin, Wang, Liu, Shao, RTAS 2011; docs/techniques.md §5.3): two cache levels in one
//! RAM budget. The CMT holds hot single entries; the CTP holds whole translation pages.
//!
//! A CMT miss that hits the CTP copies the entry up without flash I/O; a miss in both reads
//! the page into the CTP (evicting its LRU page, written back if dirty). A dirty CMT
//! eviction whose page is in the CTP merges into it; otherwise the page is read, merged and
//! written (batched). Updates dirty CMT entries, merged into the CTP copy when flushed
//! (FMMU's comparison, `update_target = "cmt"`); `update_target = "ctp"` is CDFTL on its
//! own: while a page is in the CTP, updates to its entries go to the CTP copy in place.
//! Without a dirty list, a watermark flush writes the page of the least recently used dirty
//! CMT entry, found by scanning the CMT [I]. Default split [I]: two translation pages of CTP, the rest CMT
//! (`ftl.map_cache.cmt_bytes`). Mechanism: [`super`].

use super::blocks::Replacement;
use super::config::{GcUpdate, SchemeDefaults, UpdateOrder};

pub const DEFAULTS: SchemeDefaults = SchemeDefaults {
    cmt_bytes: Some(0),
    block_entries: 1,
    ways: 0,
    replacement: Replacement::Lru,
    clean_first: false,
    low_watermark: 0.0,
    high_watermark: 0.0,
    update_order: UpdateOrder::TranslateFirst,
    gc_update: GcUpdate::Batch,
    dirty_links: false,
    tp_nodes: None,
};
