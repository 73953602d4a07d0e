//! DFTL (Gupta, Kim, Urgaonkar, ASPLOS 2009; docs/techniques.md §5.2): one cache level, the
//! cached mapping table (CMT) of single entries under LRU, over translation pages kept in
//! flash and located through the global translation directory (GTD).
//!
//! A miss reads the entry's translation page; evicting a dirty entry reads its translation
//! page, merges and writes it back, and with `batch_on_evict` (default, as MQSim and
//! FlashSim do) cleans every other dirty entry of that page in the same write. The
//! mechanism is the shared demand-map engine ([`super`]); this folder holds DFTL's
//! defaults. The paper's segmented LRU is not modelled (plain LRU, as FlashSim and MQSim).

use super::blocks::Replacement;
use super::config::{GcUpdate, SchemeDefaults, UpdateOrder};

pub const DEFAULTS: SchemeDefaults = SchemeDefaults {
    cmt_bytes: None,
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
