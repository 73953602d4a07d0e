//! SPD's die lists, aligned block choice and the buffer policies, on schedules worked by hand.

use super::*;
use crate::cache::config::{CacheConfig, CachePolicy, SpdFallback};
use crate::cache::{WriteCache, Writeback};
use crate::ftl::blocks::aligned_block;
use crate::ftl::gc::die_gc;
use crate::ftl::AllocationScheme;
use crate::nand::Geometry;

/// The config sections these tests set (the whole `Config` is composed above this layer).
#[derive(Default)]
struct Sections {
    pub nand: crate::nand::config::NandConfig,
}

fn geometry(chips: u32, planes: u32) -> Geometry {
    let mut cfg = Sections::default();
    cfg.nand.channels = 1;
    cfg.nand.chips_per_channel = chips;
    cfg.nand.dies_per_chip = 1;
    cfg.nand.planes_per_die = planes;
    cfg.nand.blocks_per_plane = 8;
    cfg.nand.pages_per_block = 4;
    Geometry::from_config(&cfg.nand)
}

fn cache(policy: CachePolicy, geo: &Geometry, allocation: &str, pages: u32) -> WriteCache {
    let config = CacheConfig { policy, ..CacheConfig::default() };
    let order = AllocationScheme::parse(allocation).expect("a scheme").placement_order();
    WriteCache::new(pages, 0).with_die_lists(&config, geo, order)
}

fn evict(c: &mut WriteCache) -> Vec<(u32, Option<u32>)> {
    let mut out = Vec::new();
    c.start_writeback(&mut out);
    out.iter().map(|w: &Writeback| (w.lpn, w.plane)).collect()
}

#[test]
fn die_lists_keep_lru_order_per_die_and_serve_dies_in_turn() {
    let mut l = DieLists::new(3);
    for (slot, die) in [(0, 1), (1, 0), (2, 1), (3, 1)] {
        l.insert(slot, die);
    }
    l.touch(0);
    assert_eq!(l.lru_first(1).collect::<Vec<_>>(), [2, 3, 0]);
    assert_eq!(l.next_die(2), Some(1), "die 0 lists one page, die 1 three");
    assert_eq!(l.next_die(1), Some(0), "after die 1 the queue wraps to die 0 (die 2 is empty)");
    l.remove(3);
    assert_eq!((l.len(0), l.len(1), l.len(2)), (1, 2, 0));
    assert_eq!(l.next_die(3), None);
}

/// Die 0 of two planes (planes 0 and 1) on 8 blocks per plane. Plane 1 already opened block
/// 5: plane 0 takes 5 if it can. If it cannot, the first of its free indices free on plane 1.
#[test]
fn an_aligned_die_opens_the_index_its_sibling_opened() {
    let geo = geometry(1, 2);
    let free = |free0: &'static [u32], free1: &'static [u32]| {
        move |p: u32, i: u32| if p == 0 { free0.contains(&i) } else { free1.contains(&i) }
    };
    let f = free(&[2, 5, 7], &[7]);
    assert_eq!(aligned_block(&geo, 0, Some(5), [2, 5, 7].into_iter(), f), Some(5));
    let f = free(&[2, 7], &[2, 7]);
    assert_eq!(
        aligned_block(&geo, 0, Some(5), [7, 2].into_iter(), f),
        Some(7),
        "5 is taken here: 7 comes first in plane 0's order"
    );
    let f = free(&[2], &[3]);
    assert_eq!(aligned_block(&geo, 0, None, [2].into_iter(), f), None, "no index free on both planes");
}

/// Two chips of one die of two planes; `CWD` puts lpn x on die x mod 2 (one channel, two
/// chips: the chip level varies fastest after the single channel). A buffer of 4 pages
/// (more than (2 − 1) × 2 dies). Writes 0, 2, 1, 4, then 0 again: die 0 lists 2, 4, 0
/// (least recent first), die 1 lists 1. The die queue starts at die 0, which holds two or
/// more: its two least recently used pages, 2 and 4, go to planes 0 and 1 of die 0 (flat
/// planes 0 and 1). Next, the queue starts at die 1 (one page) and wraps to die 0 (one
/// page, lpn 0): no die holds two, nothing goes.
#[test]
fn die_write_evicts_the_n_least_recently_used_pages_of_the_die_at_the_queue_head() {
    let geo = geometry(2, 2);
    let mut c = cache(CachePolicy::Spd, &geo, "CWD", 4);
    for lpn in [0, 2, 1, 4, 0] {
        c.write(lpn, 0xffff);
    }
    assert_eq!(evict(&mut c), [(2, Some(0)), (4, Some(1))]);
    assert_eq!(evict(&mut c), []);
    c.writeback_done(2);
    c.writeback_done(4);
    c.write(3, 0xffff);
    c.write(2, 0xffff);
    assert_eq!(evict(&mut c), [(1, Some(2)), (3, Some(3))], "die 1 now holds 1 and 3: planes 2 and 3");
    assert_eq!(evict(&mut c), [(0, Some(0)), (2, Some(1))]);
}

/// One chip, one die of two planes, static `CWDP`: lpn x on plane x mod 2. Writes 0, 2, 4,
/// 1 (least recent first). Baseline-P takes 0 (plane 0), skips 2 and 4 (plane 0 again) and
/// takes 1 (plane 1); Baseline-D takes 0 alone; SPD would take 0 and 2 (planes chosen).
#[test]
fn baselines_evict_one_page_or_one_page_per_plane() {
    let geo = geometry(1, 2);
    for (policy, expect) in
        [(CachePolicy::BaselineP, vec![(0, None), (1, None)]), (CachePolicy::BaselineD, vec![(0, None)])]
    {
        let mut c = cache(policy, &geo, "CWDP", 4);
        for lpn in [0, 2, 4, 1] {
            c.write(lpn, 0xffff);
        }
        assert_eq!(evict(&mut c), expect, "{policy:?}");
    }
    let mut c = cache(CachePolicy::Spd, &geo, "CWD", 4);
    for lpn in [0, 2, 4, 1] {
        c.write(lpn, 0xffff);
    }
    assert_eq!(evict(&mut c), [(0, Some(0)), (2, Some(1))]);
}

/// A page written again while its write-back runs stays dirty and goes back into its die's
/// list (as most recently used); a trimmed page leaves it.
#[test]
fn rewritten_pages_return_to_their_die_list_and_trimmed_ones_leave() {
    let geo = geometry(1, 2);
    let mut c = cache(CachePolicy::Spd, &geo, "CWD", 4);
    for lpn in [0, 1, 2] {
        c.write(lpn, 0xffff);
    }
    assert_eq!(evict(&mut c), [(0, Some(0)), (1, Some(1))]);
    c.write(0, 0xffff);
    c.writeback_done(0);
    c.writeback_done(1);
    c.trim(2);
    c.write(3, 0xffff);
    assert_eq!(evict(&mut c), [(0, Some(0)), (3, Some(1))]);
}

/// One die of two planes, 8 blocks of 4 pages. Closed sets: index 0 holds 3 + 0 valid
/// pages, index 1 holds 1 + 1, index 2 holds 0 + 4 (a full block beside an empty one);
/// index 3 is closed on plane 0 only. The victim is the set with the fewest valid pages in
/// all: index 1 (2), not index 0 (3) nor 3 (not closed on plane 1).
#[test]
fn die_gc_takes_the_closed_aligned_set_with_the_fewest_valid_pages() {
    use crate::ftl::Blocks;
    use crate::nand::NONE;
    let geo = geometry(1, 2);
    let mut b = Blocks::new(&geo, false).unwrap();
    let pages = |valid: u32| -> Vec<u32> { (0..4).map(|i| if i < valid { i } else { NONE }).collect() };
    for (index, v0, v1) in [(0, 3, 0), (1, 1, 1), (2, 0, 4)] {
        b.fill_block(index, &pages(v0), 1);
        b.fill_block(8 + index, &pages(v1), 1);
    }
    b.fill_block(3, &[0, 1, 2, 3], 1);
    assert_eq!(die_gc::aligned_victim(&geo, 0, &b, 7), Some(1));
}

/// Moves leave in groups of N = 2: two live reads make a group; a dead read in between
/// changes nothing; the set's last live read goes alone (its partner plane gets a pad), and
/// a dead last read sends the staged one.
#[test]
fn die_gc_moves_go_in_groups_of_n_and_the_last_one_alone() {
    let mut m = die_gc::DieGcMoves::new(1, 2);
    let mut g = Vec::new();
    m.started(0, 5);
    m.read_live(0, 10, &mut g);
    assert!(g.is_empty());
    m.read_dead(0, &mut g);
    assert!(g.is_empty());
    m.read_live(0, 11, &mut g);
    assert_eq!(g, [10, 11]);
    m.read_live(0, 12, &mut g);
    assert!(g.is_empty(), "one read still to come");
    m.read_dead(0, &mut g);
    assert_eq!(g, [12], "the last read was dead: the staged move goes alone");
    m.started(0, 1);
    m.read_live(0, 13, &mut g);
    assert_eq!(g, [13]);
}

/// Two dies of two planes, a buffer of 2 pages holding lpn 0 (die 0) and lpn 1 (die 1): no
/// die holds two. With `stall` nothing leaves; with `pad` the die queue's first die with a
/// page, die 0, writes lpn 0 to its plane 0 and a dummy page to its plane 1.
#[test]
fn spd_pads_a_partial_group_when_asked_and_stalls_otherwise() {
    let geo = geometry(2, 2);
    let mut stall = cache(CachePolicy::Spd, &geo, "CWD", 2);
    let config = CacheConfig { policy: CachePolicy::Spd, spd_fallback: SpdFallback::Pad, ..CacheConfig::default() };
    let order = AllocationScheme::parse("CWD").expect("a scheme").placement_order();
    let mut pad = WriteCache::new(2, 0).with_die_lists(&config, &geo, order);
    for c in [&mut stall, &mut pad] {
        c.write(0, 0xffff);
        c.write(1, 0xffff);
    }
    assert_eq!(evict(&mut stall), []);
    assert_eq!(evict(&mut pad), [(0, Some(0)), (crate::nand::NONE, Some(1))]);
}

/// Die-GC with its last group padded collects a set only if it frees a page: of 2 planes ×
/// 4 pages, a set of 7 valid pages becomes ⌈7 / 2⌉ = 4 padded groups, 8 pages, so the most
/// it may hold is 6. TwinBlk and Die-GC into the buffer move the pages 1 for 1: 7.
#[test]
fn die_gc_with_padding_passes_over_a_set_it_would_rewrite_just_as_full() {
    use crate::ftl::{Blocks, GcUnit};
    use crate::nand::NONE;
    let geo = geometry(1, 2);
    let pad = die_gc::max_valid(&geo, GcUnit::Die, die_gc::DieLeftover::Pad);
    assert_eq!(pad, 6);
    assert_eq!(die_gc::max_valid(&geo, GcUnit::Die, die_gc::DieLeftover::Buffer), 7);
    assert_eq!(die_gc::max_valid(&geo, GcUnit::Twin, die_gc::DieLeftover::Pad), 7);
    let mut b = Blocks::new(&geo, false).unwrap();
    b.fill_block(0, &[0, 1, 2, 3], 1);
    b.fill_block(8, &[4, 5, 6, NONE], 1);
    assert_eq!(die_gc::aligned_victim(&geo, 0, &b, pad), None);
    assert_eq!(die_gc::aligned_victim(&geo, 0, &b, 7), Some(0));
    b.fill_block(1, &[7, 8, 9, NONE], 1);
    b.fill_block(9, &[10, 11, 12, NONE], 1);
    assert_eq!(die_gc::aligned_victim(&geo, 0, &b, pad), Some(1));
}
