//! TPFTL (Zhou et al., EuroSys 2015; TECHNIQUES.md §5.4): cached entries clustered by
//! translation page, clean-first replacement, and batch update on a dirty eviction.
//!
//! What ssdlab models so far: entry-level LRU with clean-first victims and batch update on
//! the shared engine ([`super::demand`]). Request-level prefetch comes for free: every page
//! of a request is looked up at once, so its misses on one translation page share one read.
//! Not modelled yet: the page-level hotness list (the two-level LRU over translation-page
//! nodes), compressed entries, and selective prefetch on sequential runs.

use super::demand::blocks::Replacement;
use super::demand::config::{SchemeDefaults, UpdateOrder};

pub const DEFAULTS: SchemeDefaults = SchemeDefaults {
    cmt_bytes: None,
    block_entries: 1,
    ways: 0,
    replacement: Replacement::Lru,
    clean_first: true,
    low_watermark: 0.0,
    high_watermark: 0.0,
    update_order: UpdateOrder::TranslateFirst,
};
