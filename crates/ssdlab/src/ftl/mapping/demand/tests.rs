//! The engine's rules worked by hand on a map of 32 logical pages, 8 entries per
//! translation page (4 pages), every page on flash holding the true map (lpn → 100 + lpn).

use super::blocks::Replacement;
use super::config::{FlushVictim, GcUpdate, Params, TpRead, UpdateOrder};
use super::*;

fn params(cmt_blocks: u32) -> Params {
    Params {
        entries_per_tp: 8,
        cmt_blocks,
        block_entries: 1,
        ways: 0,
        replacement: Replacement::Lru,
        clean_first: false,
        ctp_pages: 0,
        batch_on_evict: true,
        low_watermark: 0.0,
        high_watermark: 0.0,
        flush_victim: FlushVictim::CostBenefit,
        max_outstanding_misses: 16,
        update_order: UpdateOrder::TranslateFirst,
        gc_update: GcUpdate::Batch,
        dirty_links: false,
        tp_nodes: false,
        prefetch: false,
        tp_read: TpRead::Page,
        on_flash_at_start: false,
    }
}

fn setup(p: Params) -> (DemandMap, PageMap) {
    let mut truth = PageMap::new(32);
    for l in 0..32 {
        truth.set(l, 100 + l);
    }
    let mut d = DemandMap::new(p, 32, 1);
    for t in 0..4 {
        d.preconditioned(t, &truth);
    }
    (d, truth)
}

fn ios(d: &mut DemandMap) -> Vec<MapIo> {
    std::iter::from_fn(|| d.take_io()).collect()
}

/// Bring `lpns` (all of translation page `vtpn`) into the cache with one read.
fn load(d: &mut DemandMap, truth: &PageMap, vtpn: u32, lpns: &[Lpn]) {
    for &l in lpns {
        d.lookup(l, Waiter::Read(l), truth);
    }
    assert_eq!(ios(d), vec![MapIo::Read(vtpn)]);
    let mut resumed = Vec::new();
    d.tp_read_done(vtpn, &mut resumed, truth);
    assert_eq!(resumed.len(), lpns.len());
}

/// Two misses on one translation page cause one flash read; both requests resume when it
/// arrives, in order; the entries then hit.
#[test]
fn two_misses_on_one_translation_page_cause_one_read() {
    let (mut d, truth) = setup(params(4));
    assert_eq!(d.lookup(0, Waiter::Read(10), &truth), Lookup::Miss);
    assert_eq!(d.lookup(3, Waiter::Read(11), &truth), Lookup::Merged);
    assert_eq!(ios(&mut d), vec![MapIo::Read(0)]);
    let mut resumed = Vec::new();
    d.tp_read_done(0, &mut resumed, &truth);
    assert_eq!(resumed, vec![Waiter::Read(10), Waiter::Read(11)]);
    assert_eq!((d.stats.tp_reads, d.stats.merges, d.stats.cmt_misses), (1, 1, 2));
    assert_eq!(d.lookup(3, Waiter::Read(12), &truth), Lookup::Hit);
    d.check(&truth);
}

/// A CMT of 3 entries holds lpns 0, 1, 2 of page 0, all updated (dirty). A miss on lpn 8
/// (page 1) evicts the LRU entry, lpn 0, dirty: page 0 is read, merged with all three dirty
/// entries (batch update) and written once. Flash: 2 reads (pages 1 and 0), 1 write for 3
/// dirty entries; the written copy equals the true map.
#[test]
fn batch_flush_writes_one_translation_page_for_its_dirty_entries() {
    let (mut d, mut truth) = setup(params(3));
    load(&mut d, &truth, 0, &[0, 1, 2]);
    for l in 0..3 {
        truth.set(l, 200 + l);
        d.update(l, &truth);
    }
    assert_eq!(d.cmt.dirty_blocks(), 3);
    assert_eq!(d.lookup(8, Waiter::Read(8), &truth), Lookup::Miss);
    assert_eq!(ios(&mut d), vec![MapIo::Read(1)]);
    let mut resumed = Vec::new();
    d.tp_read_done(1, &mut resumed, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Read(0)], "read-modify-write of page 0");
    d.tp_read_done(0, &mut resumed, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Write(0)]);
    assert_eq!((d.stats.tp_reads, d.stats.tp_writes, d.stats.flushes), (1 + 2, 1, 1));
    assert_eq!(d.cmt.dirty_blocks(), 0);
    assert_eq!([0, 1, 2].map(|l| d.image.get(l)), [200, 201, 202]);
    d.tp_programmed(0);
    d.check(&truth);
}

/// Without batching only the evicted entry is written; the other dirty entries stay dirty
/// and the check still holds (the cache has their newer values).
#[test]
fn without_batching_a_flush_writes_only_the_evicted_entry() {
    let mut p = params(3);
    p.batch_on_evict = false;
    let (mut d, mut truth) = setup(p);
    load(&mut d, &truth, 0, &[0, 1, 2]);
    for l in 0..3 {
        truth.set(l, 200 + l);
        d.update(l, &truth);
    }
    d.lookup(8, Waiter::Read(8), &truth);
    ios(&mut d);
    let mut resumed = Vec::new();
    d.tp_read_done(1, &mut resumed, &truth);
    ios(&mut d);
    d.tp_read_done(0, &mut resumed, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Write(0)]);
    assert_eq!([0, 1, 2].map(|l| d.image.get(l)), [200, 101, 102]);
    assert_eq!(d.cmt.dirty_blocks(), 2);
    d.check(&truth);
}

/// An update that misses (program first) is logged on its page's read and applied when the
/// page arrives: the entry is then cached dirty, and a lookup logged behind it resumes.
#[test]
fn an_update_that_misses_waits_on_its_page_and_then_is_dirty() {
    let (mut d, mut truth) = setup(params(4));
    truth.set(5, 300);
    assert_eq!(d.update(5, &truth), Lookup::Miss);
    assert_eq!(d.lookup(5, Waiter::Read(1), &truth), Lookup::Merged);
    assert_eq!(ios(&mut d), vec![MapIo::Read(0)]);
    let mut resumed = Vec::new();
    d.tp_read_done(0, &mut resumed, &truth);
    assert_eq!(resumed, vec![Waiter::Read(1)]);
    assert!(d.cmt.is_dirty(5));
    assert_eq!(d.stats.stale_entries, 0);
    d.check(&truth);
}

/// A translation page never written holds no mapping: a lookup is answered from RAM.
#[test]
fn a_never_written_translation_page_needs_no_read() {
    let truth = PageMap::new(32);
    let mut d = DemandMap::new(params(4), 32, 1);
    assert_eq!(d.lookup(9, Waiter::Read(1), &truth), Lookup::RamHit);
    assert!(ios(&mut d).is_empty());
}

/// With one read slot, a miss on a second page waits for the first read to finish.
#[test]
fn misses_past_the_bound_wait_in_order() {
    let mut p = params(4);
    p.max_outstanding_misses = 1;
    let (mut d, truth) = setup(p);
    d.lookup(0, Waiter::Read(1), &truth);
    d.lookup(8, Waiter::Read(2), &truth);
    d.lookup(9, Waiter::Read(3), &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Read(0)]);
    assert_eq!((d.stats.stalled_misses, d.stats.merges), (1, 1));
    let mut resumed = Vec::new();
    d.tp_read_done(0, &mut resumed, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Read(1)]);
    resumed.clear();
    d.tp_read_done(1, &mut resumed, &truth);
    assert_eq!(resumed, vec![Waiter::Read(2), Waiter::Read(3)]);
    assert_eq!(d.stats.peak_outstanding, 1);
}

/// Two levels (CDFTL): a page read goes into the CTP; a CMT miss that hits the CTP needs no
/// flash; an update while the page is in the CTP dirties the CTP copy, and evicting that
/// page from the CTP writes it (no read: the whole page is in RAM).
#[test]
fn ctp_serves_misses_and_writes_back_its_dirty_page_whole() {
    let mut p = params(2);
    p.ctp_pages = 1;
    let (mut d, mut truth) = setup(p);
    load(&mut d, &truth, 0, &[0]);
    assert_eq!(d.lookup(7, Waiter::Read(7), &truth), Lookup::RamHit);
    truth.set(7, 400);
    d.update(7, &truth);
    assert_eq!(d.cmt.dirty_blocks(), 0, "the CTP copy took the change");
    assert!(d.ctp.as_ref().unwrap().is_dirty(0));
    load(&mut d, &truth, 1, &[8]);
    assert_eq!(ios(&mut d), vec![MapIo::Write(0)]);
    assert_eq!(d.image.get(7), 400);
    assert_eq!((d.stats.tp_reads, d.stats.tp_writes, d.stats.ctp_hits), (2, 1, 1));
    d.check(&truth);
}

/// Watermarks on a CMT of 4 blocks (low 1/4, high 1/2): lpns 0, 1, 2 of page 0 are loaded
/// and updated; the third update leaves 1 non-dirty block, at the low watermark. The flush
/// that follows must read page 0 first (it is on flash and not in RAM), so nothing is clean
/// until the read arrives: the flush stops there (it used to pick page 0 again forever).
/// When the page arrives its 3 dirty entries are written back in one program.
#[test]
fn a_watermark_flush_that_must_read_its_page_waits_for_the_read() {
    let mut p = params(4);
    p.low_watermark = 0.25;
    p.high_watermark = 0.5;
    let (mut d, mut truth) = setup(p);
    load(&mut d, &truth, 0, &[0, 1, 2]);
    for l in 0..3 {
        truth.set(l, 300 + l);
        d.update(l, &truth);
    }
    assert_eq!(ios(&mut d), vec![MapIo::Read(0)]);
    assert_eq!((d.stats.flushes, d.cmt.dirty_blocks()), (1, 3));
    let mut resumed = Vec::new();
    d.tp_read_done(0, &mut resumed, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Write(0)]);
    assert_eq!(d.cmt.dirty_blocks(), 0);
    assert_eq!((d.stats.tp_reads, d.stats.tp_writes, d.stats.flush_blocks_cleaned), (2, 1, 3));
    d.check(&truth);
}

/// A CMT of 2 entries holds lpn 8 (page 1) and, least recent, lpn 0 of page 0, dirty. A
/// miss on lpn 1 reads page 0; entering lpn 1 evicts lpn 0, dirty, of the very page that
/// just arrived: its copy is in RAM, so the flush is its one write — no second read.
#[test]
fn evicting_a_dirty_entry_of_the_page_being_replayed_writes_it_without_reading_again() {
    let (mut d, mut truth) = setup(params(2));
    load(&mut d, &truth, 0, &[0]);
    truth.set(0, 500);
    d.update(0, &truth);
    load(&mut d, &truth, 1, &[8]);
    assert_eq!(d.lookup(1, Waiter::Read(1), &truth), Lookup::Miss);
    assert_eq!(ios(&mut d), vec![MapIo::Read(0)]);
    let mut resumed = Vec::new();
    d.tp_read_done(0, &mut resumed, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Write(0)]);
    assert_eq!(d.image.get(0), 500);
    assert_eq!((d.stats.tp_reads, d.stats.tp_writes), (3, 1));
    d.tp_programmed(0);
    d.check(&truth);
}

/// DFTL's GC rule (`gc_update = "batch"`, docs/techniques.md §5.2). lpn 1 is in the CMT; GC
/// moves lpns 1, 2, 3 (page 0) and 9 (page 1). lpn 1 is updated in place and dirty (lazy
/// copying); 2, 3 and 9 stay out of the cache, and nothing goes to flash while the victim
/// is being moved. When it is done, pages 0 and 1 are read once each and, when they
/// arrive, written once each — 2 reads and 2 writes for 4 moves. Page 0's write also
/// carries lpn 1's dirty entry (batch on evict cleans it). Meanwhile the translation
/// pages may point at the victim (the check allows the pending moves); afterwards every
/// entry on flash is the true one.
#[test]
fn gc_moves_update_cached_entries_and_batch_the_rest_by_page() {
    let (mut d, mut truth) = setup(params(4));
    load(&mut d, &truth, 0, &[1]);
    for l in [1, 2, 3, 9] {
        truth.set(l, 500 + l);
        d.gc_moved(l, 0, &truth);
    }
    assert!(ios(&mut d).is_empty(), "no translation I/O before the victim is done");
    assert!(d.cmt.is_dirty(1));
    assert!(!d.cmt.contains(2) && !d.cmt.contains(3) && !d.cmt.contains(9));
    let s = &d.stats;
    assert_eq!((s.gc_lazy_updates, s.gc_batched_entries, s.gc_batch_pages), (1, 3, 0));
    d.check(&truth);
    d.gc_victim_done(0, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Read(0), MapIo::Read(1)]);
    let mut resumed = Vec::new();
    d.tp_read_done(0, &mut resumed, &truth);
    d.tp_read_done(1, &mut resumed, &truth);
    assert!(resumed.is_empty());
    assert_eq!(ios(&mut d), vec![MapIo::Write(0), MapIo::Write(1)]);
    d.tp_programmed(0);
    d.tp_programmed(1);
    for l in [1, 2, 3, 9] {
        assert_eq!(d.image.get(l), 500 + l, "lpn {l}");
    }
    assert!(!d.cmt.is_dirty(1), "page 0's write cleaned lpn 1");
    let s = &d.stats;
    assert_eq!((s.tp_reads, s.tp_writes, s.gc_batch_pages), (1 + 2, 2, 2));
    d.check(&truth);
}

/// A page whose pending moves another write carried (here a dirty eviction of the same
/// page, before the victim is done) is not written again for them.
#[test]
fn a_batched_page_written_meanwhile_is_not_written_again() {
    let (mut d, mut truth) = setup(params(1));
    truth.set(4, 504);
    d.gc_moved(4, 0, &truth);
    // lpn 5 (page 0) is loaded and dirtied, then evicted by lpn 16 (page 2): page 0 is
    // read, and its write takes lpn 5 and the pending move of lpn 4.
    load(&mut d, &truth, 0, &[5]);
    truth.set(5, 505);
    d.update(5, &truth);
    assert_eq!(d.lookup(16, Waiter::Read(16), &truth), Lookup::Miss);
    assert_eq!(ios(&mut d), vec![MapIo::Read(2)]);
    let mut resumed = Vec::new();
    d.tp_read_done(2, &mut resumed, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Read(0)], "the flush of page 0 reads it first");
    d.tp_read_done(0, &mut resumed, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Write(0)]);
    assert_eq!((d.image.get(4), d.image.get(5)), (504, 505));
    d.gc_victim_done(0, &truth);
    assert!(ios(&mut d).is_empty());
    assert_eq!(d.stats.gc_batch_pages, 0);
    d.tp_programmed(0);
    d.check(&truth);
}
