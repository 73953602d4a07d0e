//! TPFTL's rules worked by hand. Maps of 32 logical pages, 8 entries per translation page
//! (pages 0..3 hold lpns 0-7, 8-15, 16-23, 24-31); stamps count accesses from 1.

use super::nodes::TpNodes;
use super::prefetch::Prefetch;
use crate::ftl::mapping::demand::blocks::{Evicted, Replacement};
use crate::ftl::mapping::demand::config::{
    FlushFind, FlushVictim, GcUpdate, MapCacheConfig, Params, UpdateOrder, UpdateTarget,
};
use crate::ftl::mapping::demand::{DemandMap, Lookup, MapIo, Waiter};
use crate::ftl::mapping::page::PageMap;
use crate::ftl::mapping::{Mapping, MappingKind};

fn clean(tag: u32) -> Option<Evicted> {
    Some(Evicted { tag, dirty: false })
}

/// Inserts 0, 8, 16, 1 take stamps 1, 2, 3, 4: node 0 averages (1 + 4) / 2 = 2.5, node 1
/// 2, node 2 3. Inserting 24 evicts node 1's only entry, 8, although plain LRU would take 0
/// (stamp 1). Then node 3 = 5; inserting 25 (joining node 3) evicts from node 0, the coldest
/// at 2.5, its least recent entry 0. A touch of 1 (stamp 7) makes node 0 = 7 the hottest:
/// inserting 26 evicts 16 (node 2 at 3).
#[test]
fn the_victim_node_is_the_coldest_by_average_hotness() {
    let mut n = TpNodes::new(4, 8, true);
    for l in [0, 8, 16, 1] {
        assert_eq!(n.insert(l), None);
    }
    assert_eq!(n.insert(24), clean(8), "node 1 (2) is colder than node 0 (2.5)");
    assert_eq!(n.nodes(), 3);
    assert_eq!(n.insert(25), clean(0), "node 0 (2.5) is colder than node 2 (3); 0 is its LRU");
    n.touch(1);
    assert_eq!(n.insert(26), clean(16), "node 0 is now 7, node 2 is 3");
    assert!(n.contains(1) && n.contains(24) && n.contains(25) && n.contains(26));
}

/// Averages are compared exactly. Inserts 0, 8, 9, 16, 10, 1 take stamps 1..6: node 0 =
/// (1 + 6) / 2 = 3.5, node 1 = (2 + 3 + 5) / 3 = 3.33..., node 2 = 4. Node 1 is the
/// coldest and its LRU entry 8 goes (integer averages, 3 and 3, would tie and take node 0).
#[test]
fn averages_compare_as_fractions() {
    let mut n = TpNodes::new(6, 8, true);
    for l in [0, 8, 9, 16, 10, 1] {
        n.insert(l);
    }
    assert_eq!(n.insert(24), clean(8));
}

/// Clean-first inside the victim node: node 0 holds 0 (stamp 1, dirty) and 1 (stamp 2,
/// clean), node 1 holds 8 (stamp 3). Node 0 (1.5) is the victim; its LRU entry is 0, but
/// clean-first takes 1. Without clean-first, 0 goes, dirty.
#[test]
fn clean_first_inside_the_victim_node() {
    for (clean_first, want) in [(true, Evicted { tag: 1, dirty: false }), (false, Evicted { tag: 0, dirty: true })] {
        let mut n = TpNodes::new(3, 8, clean_first);
        for l in [0, 1, 8] {
            n.insert(l);
        }
        n.set_dirty(0, true);
        assert_eq!(n.dirty_blocks(), 1);
        assert_eq!(n.insert(16), Some(want), "clean_first = {clean_first}");
        assert_eq!(n.dirty_blocks(), if clean_first { 1 } else { 0 });
    }
}

/// An insertion never evicts from the node it joins while another node exists: node 0
/// (stamps 1, 2) is colder than node 1 (3), but inserting 2 into node 0 evicts 8.
#[test]
fn an_insert_spares_its_own_node_unless_it_is_alone() {
    let mut n = TpNodes::new(3, 8, true);
    for l in [0, 1, 8] {
        n.insert(l);
    }
    assert_eq!(n.victim_for(0), Some(Evicted { tag: 8, dirty: false }));
    assert_eq!(n.insert(2), clean(8));
    assert_eq!(n.insert(3), clean(0), "node 0 alone: its LRU entry goes");
}

fn params(capacity: u32, prefetch: bool) -> Params {
    Params {
        entries_per_tp: 8,
        cmt_blocks: capacity,
        block_entries: 1,
        ways: 0,
        replacement: Replacement::Lru,
        clean_first: true,
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
        tp_nodes: true,
        prefetch,
        tp_read: crate::ftl::mapping::demand::config::TpRead::Page,
        on_flash_at_start: false,
    }
}

/// Every translation page on flash, holding lpn → 100 + lpn.
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

/// Look `lpns` up (distinct, all missing on page `vtpn`), then deliver the page. The first
/// starts the read; each other entry is a CMT miss of its own that joins it.
fn miss(d: &mut DemandMap, truth: &PageMap, vtpn: u32, lpns: &[u32]) {
    for (i, &l) in lpns.iter().enumerate() {
        let want = if i == 0 { Lookup::Miss } else { Lookup::MissOnRead };
        assert_eq!(d.lookup(l, Waiter::Read(l), truth), want, "lpn {l}");
    }
    assert_eq!(ios(d), vec![MapIo::Read(vtpn)]);
    let mut resumed = Vec::new();
    d.tp_read_done(vtpn, &mut resumed, truth);
}

/// Capacity 3. Page 0's entries 0 and 1 are read (stamps 1, 2) and updated (dirty; stamps
/// 3, 4); 8 is read (stamp 5): node 0 = 3.5, node 1 = 5. A miss on 16 evicts from node 0,
/// the coldest; it holds only dirty entries, so its LRU entry 0 goes dirty and page 0 is
/// read and written once with both dirty entries (batch), which leaves 1 cached and clean
/// (node 0 = 4 < node 1 = 5 < node 2 = 6): the next eviction (for 24) takes 1 with no write.
/// Flash: reads of pages 0, 1, 2, 0, then 3; one write. The flush visits node 0's one
/// remaining entry.
#[test]
fn an_all_dirty_node_is_written_back_in_one_translation_page_write() {
    let (mut d, mut truth) = setup(params(3, false));
    miss(&mut d, &truth, 0, &[0, 1]);
    for l in [0, 1] {
        truth.set(l, 200 + l);
        d.update(l, &truth);
    }
    miss(&mut d, &truth, 1, &[8]);
    assert_eq!(d.lookup(16, Waiter::Read(16), &truth), Lookup::Miss);
    assert_eq!(ios(&mut d), vec![MapIo::Read(2)]);
    let mut resumed = Vec::new();
    d.tp_read_done(2, &mut resumed, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Read(0)], "read-modify-write of page 0");
    d.tp_read_done(0, &mut resumed, &truth);
    assert_eq!(ios(&mut d), vec![MapIo::Write(0)]);
    d.tp_programmed(0);
    let s = &d.stats;
    assert_eq!((s.tp_reads, s.tp_writes, s.flushes, s.flush_blocks_cleaned), (4, 1, 1, 2));
    assert_eq!(s.flush_blocks_scanned, 1);
    d.check(&truth);
    miss(&mut d, &truth, 3, &[24]);
    assert!(ios(&mut d).is_empty(), "1 was cleaned by the batch: its eviction writes nothing");
    assert_eq!(d.stats.tp_writes, 1);
    assert_eq!(d.lookup(1, Waiter::Read(1), &truth), Lookup::Miss, "1 was the victim");
    d.check(&truth);
}

/// Prefetch on a sequential run, capacity 16. Lookups 5, 6, 7 miss on page 0: the first to
/// wait (5) has run 1, so nothing is prefetched. 8 continues the run (5..8, length 4) and is
/// the first to wait on page 1: entries 9..=12 come with page 1's read. 9..12 then hit with
/// no flash I/O; 13 (run 9) asks for 14..=22, cut at page 1's end: 14, 15. A jump to 20 (run
/// 1) prefetches nothing. Flash: 3 reads, 6 entries prefetched.
#[test]
fn prefetch_loads_the_runs_length_from_the_page_read_with_no_extra_read() {
    let (mut d, truth) = setup(params(16, true));
    miss(&mut d, &truth, 0, &[5, 6, 7]);
    assert_eq!(d.stats.prefetched, 0, "the run began in the request that missed");
    miss(&mut d, &truth, 1, &[8]);
    assert_eq!((d.stats.tp_reads, d.stats.prefetched), (2, 4));
    for l in 9..=12 {
        assert_eq!(d.lookup(l, Waiter::Read(l), &truth), Lookup::Hit, "lpn {l} was prefetched");
    }
    assert!(ios(&mut d).is_empty());
    miss(&mut d, &truth, 1, &[13]);
    assert_eq!(d.stats.prefetched, 6);
    for l in 14..=15 {
        assert_eq!(d.lookup(l, Waiter::Read(l), &truth), Lookup::Hit);
    }
    miss(&mut d, &truth, 2, &[20]);
    assert_eq!((d.stats.tp_reads, d.stats.prefetched, d.stats.tp_writes), (4, 6, 0));
    d.check(&truth);
}

/// Without prefetch the same run misses on 9: one more read.
#[test]
fn without_prefetch_the_run_misses_again() {
    let (mut d, truth) = setup(params(16, false));
    miss(&mut d, &truth, 0, &[5, 6, 7]);
    miss(&mut d, &truth, 1, &[8]);
    assert_eq!(d.lookup(9, Waiter::Read(9), &truth), Lookup::Miss);
    assert_eq!(d.stats.prefetched, 0);
}

/// RAM rule: 6,000 bytes hold 6,000 / (4 + 2) = 1,000 compressed entries, or 6,000 / (4 +
/// 4) = 750 without compression (DFTL's rule). Prefetch and compression are TPFTL's keys:
/// other schemes reject them, and TPFTL rejects set-associative or multi-entry blocks.
#[test]
fn compressed_entries_and_tpftl_keys_resolve() {
    let cfg = |f: fn(&mut MapCacheConfig)| {
        let mut c = MapCacheConfig { ram_bytes: Some(6000), ..MapCacheConfig::default() };
        f(&mut c);
        c
    };
    let p = cfg(|_| {}).resolve("t", MappingKind::Tpftl, 4096).expect("valid");
    assert_eq!((p.cmt_blocks, p.tp_nodes, p.prefetch), (1000, true, true));
    let p = cfg(|c| c.compressed_entries = Some(false)).resolve("t", MappingKind::Tpftl, 4096).expect("valid");
    assert_eq!(p.cmt_blocks, 750);
    let p = cfg(|_| {}).resolve("t", MappingKind::Dftl, 4096).expect("valid");
    assert_eq!((p.cmt_blocks, p.tp_nodes, p.prefetch), (750, false, false));
    let e = cfg(|c| c.prefetch = Some(true)).resolve("t", MappingKind::Dftl, 4096).unwrap_err();
    assert!(e.to_string().contains("ftl.map_cache.prefetch"), "{e}");
    let e = cfg(|c| c.ways = Some(4)).resolve("t", MappingKind::Tpftl, 4096).unwrap_err();
    assert!(e.to_string().contains("ftl.map_cache.ways"), "{e}");
}

/// Two interleaved sequential streams (5, 6, 7 and 37, 38, 39) keep their own runs: the
/// miss on 8 has run 4 and asks for 9..=12, the miss on 40 for 41..=44. A repeat of 8 leaves
/// its run at 4. A random two-page request (20, 21) asks for nothing: 20, the first to wait
/// on page 2, has run 1, and 21 only widens a range that exists.
#[test]
fn prefetch_follows_interleaved_streams_and_skips_random_requests() {
    let mut p = Prefetch::new(64, 8);
    for l in [5, 37, 6, 38, 7, 39] {
        p.looked_up(l);
    }
    assert_eq!(p.run(), 3);
    p.looked_up(8);
    p.missed(8);
    p.looked_up(8);
    assert_eq!(p.run(), 4, "a repeat neither extends nor breaks the run");
    p.looked_up(40);
    p.missed(40);
    assert_eq!((p.take(1), p.take(5)), (9..13, 41..45));
    p.looked_up(20);
    p.missed(20);
    p.looked_up(21);
    p.missed(21);
    assert_eq!(p.take(2), 0..0);
}
