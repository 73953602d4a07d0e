//! The engine's rules worked by hand on a map of 32 logical pages, 8 entries per
//! translation page (4 pages), every page on flash holding the true map (lpn → 100 + lpn).

use super::blocks::Replacement;
use super::config::{FlushFind, FlushVictim, GcUpdate, Params, TpRead, UpdateOrder, UpdateTarget};
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
        update_target: UpdateTarget::Cmt,
        gc_update: GcUpdate::Batch,
        dirty_links: false,
        flush_find: FlushFind::Scan,
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

/// Three misses on one translation page cause one flash read: lpn 0 starts it (a miss),
/// lpn 3 is another CMT block of the page being read (a CMT miss of its own that joins the
/// read: `MissOnRead`), and a second lookup of lpn 0 joins lpn 0's transient block
/// (`Merged`, a hit's work). All resume when the page arrives, in order; the entries then
/// hit. Merges: 2, of which 1 on a transient block.
#[test]
fn two_misses_on_one_translation_page_cause_one_read() {
    let (mut d, truth) = setup(params(4));
    assert_eq!(d.lookup(0, Waiter::Read(10), &truth), Lookup::Miss);
    assert_eq!(d.lookup(3, Waiter::Read(11), &truth), Lookup::MissOnRead);
    assert_eq!(d.lookup(0, Waiter::Read(12), &truth), Lookup::Merged);
    assert_eq!(ios(&mut d), vec![MapIo::Read(0)]);
    let mut resumed = Vec::new();
    d.tp_read_done(0, &mut resumed, &truth);
    assert_eq!(resumed, vec![Waiter::Read(10), Waiter::Read(11), Waiter::Read(12)]);
    let s = &d.stats;
    assert_eq!((s.tp_reads, s.merges, s.block_merges, s.cmt_misses), (1, 2, 1, 3));
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

/// Two levels, CDFTL's own update rule (`update_target = "ctp"`): a page read goes into the
/// CTP; a CMT miss that hits the CTP needs no flash; an update while the page is in the CTP
/// dirties the CTP copy, and evicting that page from the CTP writes it (no read: the whole
/// page is in RAM).
#[test]
fn ctp_serves_misses_and_writes_back_its_dirty_page_whole() {
    let mut p = params(2);
    p.ctp_pages = 1;
    p.update_target = UpdateTarget::Ctp;
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

/// Two levels with a CMT of 2 entries and a CTP of 1 page, FMMU's update rule
/// (`update_target = "cmt"`, FMMU §4.2, Fig. 8). Page 0 is read (lpn 0 enters the CMT, the
/// page the CTP). Updating lpn 7, whose page is in the CTP, is a CMT miss answered from the
/// CTP (`RamHit`): lpn 7 enters the CMT dirty and the CTP copy stays clean. Lookups of 1
/// and 2 (CTP hits) evict 0 (clean), then 7 (dirty): its flush goes into the CTP copy, which
/// becomes dirty — 1 flush, no flash I/O, the flash copy still says 107. Reading page 1
/// evicts page 0 from the CTP, dirty: it is written (no read) and the flash copy says 400.
/// Flash: 2 reads, 1 write; flushes: the CMT's into the CTP and the CTP's write-back.
#[test]
fn an_update_of_a_page_in_the_ctp_dirties_the_cmt_and_reaches_the_ctp_at_the_flush() {
    let mut p = params(2);
    p.ctp_pages = 1;
    let (mut d, mut truth) = setup(p);
    load(&mut d, &truth, 0, &[0]);
    truth.set(7, 400);
    assert_eq!(d.update(7, &truth), Lookup::RamHit);
    assert!(d.cmt.is_dirty(7), "the update dirtied a CMT block");
    assert!(!d.ctp.as_ref().unwrap().is_dirty(0), "the CTP copy is unchanged");
    assert_eq!((d.stats.flushes, d.image.get(7)), (0, 107));
    d.check(&truth);
    assert_eq!(d.lookup(1, Waiter::Read(1), &truth), Lookup::RamHit);
    assert!(d.cmt.contains(7) && !d.cmt.contains(0), "the clean LRU entry went first");
    assert_eq!(d.lookup(2, Waiter::Read(2), &truth), Lookup::RamHit);
    assert!(ios(&mut d).is_empty(), "the flush went into the CTP copy");
    assert!(d.ctp.as_ref().unwrap().is_dirty(0));
    assert_eq!((d.stats.flushes, d.stats.flush_blocks_cleaned, d.image.get(7)), (1, 1, 107));
    d.check(&truth);
    load(&mut d, &truth, 1, &[8]);
    assert_eq!(ios(&mut d), vec![MapIo::Write(0)]);
    assert_eq!(d.image.get(7), 400);
    let s = &d.stats;
    assert_eq!((s.tp_reads, s.tp_writes, s.flushes), (2, 1, 2));
    d.tp_programmed(0);
    d.check(&truth);
}

/// Where a page read into the CTP leaves the CMT's dirty entries. CMT of 4, CTP of 1 page:
/// page 0 is read (lpn 0), lpn 0 updated, page 1 read (lpn 8) — page 0 leaves the CTP —,
/// then a lookup of lpn 1 reads page 0 again.
/// - `cmt`: the update dirtied CMT entry 0; the CTP copy of page 0 was clean, so it leaves
///   without a write; reading page 0 back for a lookup merges nothing: entry 0 stays dirty,
///   the CTP copy clean. 3 reads, 0 writes.
/// - `ctp`: the update went to the CTP copy, which leaves dirty: written (1 write). Once
///   programmed, page 0 is read back; entry 0 was never dirty. 3 reads, 1 write.
#[test]
fn a_page_read_for_a_lookup_leaves_the_cmts_dirty_entries_in_the_cmt() {
    for (target, writes, cmt_dirty) in [(UpdateTarget::Cmt, 0, true), (UpdateTarget::Ctp, 1, false)] {
        let mut p = params(4);
        p.ctp_pages = 1;
        p.update_target = target;
        let (mut d, mut truth) = setup(p);
        load(&mut d, &truth, 0, &[0]);
        truth.set(0, 600);
        assert_eq!(d.update(0, &truth), Lookup::Hit);
        load(&mut d, &truth, 1, &[8]);
        let written = ios(&mut d);
        assert_eq!(written.len(), writes, "{target:?}: {written:?}");
        for io in written {
            assert_eq!(io, MapIo::Write(0));
            d.tp_programmed(0);
        }
        load(&mut d, &truth, 0, &[1]);
        assert!(ios(&mut d).is_empty(), "{target:?}");
        assert_eq!(d.cmt.is_dirty(0), cmt_dirty, "{target:?}");
        assert!(!d.ctp.as_ref().unwrap().is_dirty(0), "{target:?}");
        assert_eq!((d.stats.tp_reads, d.stats.tp_writes), (3, writes as u64), "{target:?}");
        d.check(&truth);
    }
}

/// A watermark flush without a dirty list (DFTL, CDFTL: FMMU §5.1). CMT of 8 entries (LRU),
/// CTP of 2 pages holding pages 0 and 1, watermarks 1/4 and 1/2 (2 and 4 non-dirty
/// entries). Access order (stamps): load 0 (1), load 8 (2), update 8 (3), update 0 (4),
/// update 1 (5), update 2 (6), update 9 (7), lookup 8 (8), update 10 (9). After update 10
/// six entries are dirty: 2 non-dirty, at the low watermark. The least recently used dirty
/// entry is 0 (stamp 4): page 0 is flushed into the CTP, one scan of the CMT's 8 blocks
/// cleaning 0, 1, 2 — 5 non-dirty, past the high watermark: done. Page 1's 8, 9, 10 stay
/// dirty. FMMU's DTL would pick page 1 instead: both pages have 3 dirty blocks of 8 and
/// were updated since the last scan; page 1, registered first, scores 3/8 + 1 = 1.375
/// against page 0's 3/8 + 15/16 = 1.3125 — and its flush visits only its 3 dirty blocks
/// along the links; without the links (`flush_find = "scan"`, FMMU's ablation) the DTL still
/// picks page 1, but finding its blocks tests all 8 of the CMT.
#[test]
fn a_watermark_flush_without_a_dirty_list_writes_the_page_of_the_lru_dirty_block() {
    let cases = [(false, FlushFind::Scan, 0, 8), (true, FlushFind::Links, 1, 3), (true, FlushFind::Scan, 1, 8)];
    for (links, find, flushed, scanned) in cases {
        let mut p = params(8);
        (p.ctp_pages, p.low_watermark, p.high_watermark, p.dirty_links) = (2, 0.25, 0.5, links);
        p.flush_find = find;
        let (mut d, mut truth) = setup(p);
        load(&mut d, &truth, 0, &[0]);
        load(&mut d, &truth, 1, &[8]);
        for (l, update) in [(8, true), (0, true), (1, true), (2, true), (9, true), (8, false), (10, true)] {
            if update {
                truth.set(l, 700 + l);
                d.update(l, &truth);
            } else {
                assert_eq!(d.lookup(l, Waiter::Read(l), &truth), Lookup::Hit);
            }
        }
        let s = &d.stats;
        assert_eq!((s.flushes, s.flush_blocks_scanned, s.flush_blocks_cleaned), (1, scanned, 3), "{links} {find:?}");
        assert!(ios(&mut d).is_empty(), "the flush went into the CTP");
        let ctp = d.ctp.as_ref().unwrap();
        assert!(ctp.is_dirty(flushed) && !ctp.is_dirty(1 - flushed), "links {links}");
        let kept: [Lpn; 3] = if flushed == 0 { [8, 9, 10] } else { [0, 1, 2] };
        assert!(kept.iter().all(|&l| d.cmt.is_dirty(l)), "links {links}");
        assert_eq!(d.cmt.dirty_blocks(), 3);
        d.check(&truth);
    }
}

/// A dirty eviction's flush with and without FMMU's `next` links: a CMT of 4 single-entry
/// blocks under LRU, no CTP, no watermarks. Updates 0, 1 (page 0) and 8, 9 (page 1) fill
/// it with dirty blocks; an update of 16 (page 2, never written: no read) evicts the least
/// recent, 0. Page 0 is on flash, so its flush reads it first, and when the read arrives
/// the copy takes the evicted 0 and the still-dirty 1: 2 blocks cleaned. Following links
/// visits those 2; scanning tests every block of the CMT, 4. Page 1's 8 and 9 stay dirty.
#[test]
fn an_eviction_flush_visits_its_dirty_blocks_along_links_or_the_whole_cmt_by_scan() {
    for (find, scanned) in [(FlushFind::Links, 2), (FlushFind::Scan, 4)] {
        let mut p = params(4);
        (p.dirty_links, p.flush_find) = (true, find);
        let mut truth = PageMap::new(32);
        let mut d = DemandMap::new(p, 32, 1);
        for t in 0..2 {
            for l in t * 8..(t + 1) * 8 {
                truth.set(l, 100 + l);
            }
            d.preconditioned(t, &truth);
        }
        // Pages 0 and 1 are read once, then every update hits.
        load(&mut d, &truth, 0, &[0, 1]);
        load(&mut d, &truth, 1, &[8, 9]);
        for l in [0, 1, 8, 9, 16] {
            truth.set(l, 700 + l);
            d.update(l, &truth);
        }
        assert_eq!(ios(&mut d), vec![MapIo::Read(0)], "{find:?}");
        d.tp_read_done(0, &mut Vec::new(), &truth);
        assert_eq!(ios(&mut d), vec![MapIo::Write(0)], "{find:?}");
        let s = &d.stats;
        assert_eq!((s.flushes, s.flush_blocks_scanned, s.flush_blocks_cleaned), (1, scanned, 2), "{find:?}");
        assert!(d.cmt.is_dirty(8) && d.cmt.is_dirty(9) && d.cmt.is_dirty(16) && !d.cmt.is_dirty(1));
        d.tp_programmed(0);
        d.check(&truth);
    }
}
