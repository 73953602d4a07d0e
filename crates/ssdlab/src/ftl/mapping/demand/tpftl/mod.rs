//! TPFTL (Zhou, Wu, Huang, He, Xie, Zhou, EuroSys 2015; docs/techniques.md §5.4): a demand-based
//! map whose cached entries are clustered by translation page, with clean-first replacement,
//! batch update, compressed entries and selective prefetch.
//!
//! What ssdlab models, on the shared engine ([`super`]: translation pages in flash,
//! non-blocking misses, read-modify-write flushes):
//!
//! - **TP nodes** ([`nodes`]): the CMT's single entries are grouped by translation page; each
//!   node orders its entries by recency (the entry-level LRU list), and the nodes are ordered
//!   by page-level hotness, the average of their entries' access stamps [S; the stamp as an
//!   entry's hotness is I]. The victim node is the coldest (not the node the new entry joins,
//!   unless it is the only one [I]).
//! - **Clean-first** inside the victim node: its least recent clean entry goes; if the node
//!   holds only dirty entries, its least recent one goes dirty, and the engine's batch update
//!   writes every dirty entry of that page in one translation-page write and marks them clean
//!   (`ftl.map_cache.clean_first`, `batch_on_evict`, both on by default). The write is a
//!   read-modify-write (the page's uncached entries come from flash), as DFTL's.
//! - **Compressed entries** (`ftl.map_cache.compressed_entries`, default on [S]): an entry in
//!   RAM stores its offset in its translation page (`offset_bytes` = 2 [I]) and its PPN
//!   (`entry_bytes`, 4), 6 bytes where DFTL's stores a 4-byte tag and the PPN, 8. The cache
//!   holds `ram_bytes / 6` entries; the nodes' own headers (vtpn, hotness, list links) are not
//!   charged to the map RAM [I].
//! - **Request-level prefetch**: implicit (every page of a request is looked up at once, and
//!   their misses on one page share its read).
//! - **Selective prefetch** (`ftl.map_cache.prefetch`, default on; [`prefetch`]): a miss that
//!   continues a sequential run of lookups (followed per stream, up to 8 streams [I]) also
//!   loads the run's length of following entries from the page it reads, up to the page's
//!   end, with no extra flash read [S/I]. Prefetching stops early rather than evict an entry
//!   of its own page. The report counts the entries so loaded (`prefetched`).
//! - **Flush cost**: a flush visits only its page's node (`flush_blocks_scanned` grows by the
//!   node's cached entries), where DFTL and CDFTL test every CMT block (FMMU §6 credits
//!   TPFTL's clustering with this).
//! - GC: as DFTL's (lazy update of cached entries, batched translation-page updates).
//!
//! Not modelled: the firmware cost of keeping the two LRU levels ordered (the firmware model
//! charges TPFTL's lookups as any software map cache's); the paper's exact hotness measure
//! and sequential-detection rule, which docs/techniques.md gives only from secondary sources.

pub mod nodes;
pub mod prefetch;

use super::blocks::Replacement;
use super::config::{GcUpdate, SchemeDefaults, TpNodeDefaults, UpdateOrder};

pub const DEFAULTS: SchemeDefaults = SchemeDefaults {
    cmt_bytes: None,
    block_entries: 1,
    ways: 0,
    replacement: Replacement::Lru,
    clean_first: true,
    low_watermark: 0.0,
    high_watermark: 0.0,
    update_order: UpdateOrder::TranslateFirst,
    gc_update: GcUpdate::Batch,
    dirty_links: false,
    tp_nodes: Some(TpNodeDefaults {
        // Compressed entries [S]; selective prefetch [P]; a 2-byte offset [I] addresses the
        // entries of any page up to 65,536.
        compressed_entries: true,
        prefetch: true,
        offset_bytes: 2,
    }),
};

#[cfg(test)]
mod tests;
