//! Demand-based maps (`ftl.mapping` = dftl, cdftl, tpftl, fmmu) and firmware time, at the
//! simulation level, against values worked out by hand: a cache that holds the whole map
//! changes nothing, a cold miss costs one translation-page read, a flush batches a page's
//! dirty entries, misses on one page share its read, a GC move that lost the race to a host
//! write is dropped, the map survives `--check` with translation blocks collected, and
//! firmware cores queue as M/D/k.

mod common;

use common::{bus_ps, pcie_ps, preset, trace_file, trace_workload};
use ssdlab::ftl::firmware::Charges;
use ssdlab::ftl::mapping::demand::config::UpdateTarget;
use ssdlab::ftl::precondition::Pattern;
use ssdlab::ftl::{MapStats, MappingKind, UnwrittenRead};
use ssdlab::host::{Address, FlowSpec, PreconditionSpec, Replay, WorkloadSpec};
use ssdlab::sim::Outcome;
use ssdlab::{Config, Report, RunOptions};

const DEMAND: [MappingKind; 4] = [MappingKind::Dftl, MappingKind::Cdftl, MappingKind::Tpftl, MappingKind::Fmmu];

/// mqsim-default's NAND and bus: 7 command cycles of 10 ns, tR 75 µs, tPROG 750 µs, 333 MT/s
/// on 8 bits; PCIe 4 GB/s.
const CMD_PS: u64 = 70_000;
const T_R_PS: u64 = 75_000_000;
const T_PROG_PS: u64 = 750_000_000;
const LINK_B_S: u64 = 4_000_000_000;
const SECTORS_PER_PAGE: u64 = 16;

fn run(cfg: &Config, wl: &WorkloadSpec, check: bool) -> Outcome {
    cfg.validate("test").expect("valid test config");
    let opts = RunOptions { check, ..RunOptions::default() };
    ssdlab::run_outcome(cfg, wl, None, &opts).expect("run succeeds")
}

fn map(o: &Outcome) -> &MapStats {
    o.map.as_ref().expect("a demand-based map reports its cache")
}

/// A trace of (arrival ns, lpn, sectors, read) on 8 KiB pages (16 sectors), replayed at its
/// timestamps with `qd` requests in flight at most.
fn trace(name: &str, lines: &[(u64, u64, u32, bool)], qd: u32) -> WorkloadSpec {
    let sectors: Vec<_> = lines.iter().map(|&(t, lpn, n, read)| (t, lpn * SECTORS_PER_PAGE, n, read)).collect();
    trace_workload(trace_file(&format!("map-cache-{name}"), &sectors), Replay::Timestamps, qd)
}

fn preconditioned(mut wl: WorkloadSpec, occupancy: f64, pattern: Pattern) -> WorkloadSpec {
    wl.precondition = Some(PreconditionSpec { occupancy, pattern });
    wl
}

/// One channel, one chip, one die, one plane: every flash operation runs on the same chip,
/// one after another, so a request's latency is a sum of its parts. 64 blocks of 64 pages of
/// 8 KiB, 20% spare: 3,276 logical pages. With 64-byte map entries a translation page holds
/// 8192 / 64 = 128 entries: 26 translation pages.
fn one_chip(mapping: MappingKind) -> Config {
    let mut cfg = common::one_plane_drive();
    cfg.ftl.mapping = mapping;
    if mapping != MappingKind::Full {
        cfg.ftl.map_cache.entry_bytes = Some(64);
    }
    cfg
}

// 1. A cache that holds the whole map --------------------------------------------------

/// 2 channels × 2 chips × 2 dies × 2 planes × 32 blocks × 32 pages of 8 KiB, 20% spare:
/// 13,107 logical pages, 7 translation pages of 2,048 entries.
fn small_drive() -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 2;
    cfg.nand.chips_per_channel = 2;
    cfg.nand.blocks_per_plane = 32;
    cfg.nand.pages_per_block = 32;
    cfg.ftl.overprovisioning_ratio = 0.2;
    cfg
}

fn mixed_random(requests: u64) -> WorkloadSpec {
    let flow = FlowSpec {
        name: "mix".into(),
        read_ratio: 0.4,
        address: Address::Uniform,
        request_bytes_choices: vec![(4096, 3.0), (8192, 2.0), (16384, 1.0)],
        align_bytes: 4096,
        queue_depth: Some(16),
        requests,
        ..FlowSpec::default()
    };
    WorkloadSpec { source: String::new(), seed: 5, precondition: None, ramp_ms: 0.0, flows: vec![flow] }
}

/// The report's `sim` section without the map cache's own counters (which `full` lacks).
fn sim_without_map_cache(o: &Outcome) -> serde_json::Value {
    let mut v = serde_json::to_value(Report::from_outcome(o).sim).expect("report serialises");
    v["ftl"].as_object_mut().expect("ftl section").remove("map_cache");
    v
}

/// A fresh drive (no preconditioning: no translation page is on flash) under 40,000 mixed
/// random requests, 60% writes of 4–16 KiB: the drive fills and GC runs. 4 MiB of map RAM
/// holds every entry of the 13,107 (DFTL: 8 bytes per entry-level block, 524,288 blocks;
/// FMMU: 64 KiB of 68-byte blocks of 16 entries, 963 blocks, 240 sets of 4 ways for 820
/// tags, at most 4 tags per set (tag mod 240); its low watermark, 60 clean blocks of 960,
/// would need 900 dirty) and nothing is ever evicted: every miss is
/// answered from RAM, no translation page is read or written, and the runs are the same as
/// `full` to the last counter — latencies, IOPS, page operations, WAF, GC, utilization —
/// but one: a demand map keeps a third write frontier per plane (its translation block), so
/// the effective spare factor (T − L) / T counts one block less per plane in T, the pages
/// GC can fill: T_demand = T_full − 16 planes × 32 pages.
#[test]
fn a_cache_holding_the_whole_map_gives_the_full_map_report() {
    let cfg = small_drive();
    let wl = mixed_random(40_000);
    let full = run(&cfg, &wl, false);
    assert!(full.stats.gc_invocations > 500, "GC must run: {} invocations", full.stats.gc_invocations);
    let (expect, spare_full) = without_spare_factor(sim_without_map_cache(&full));
    let pages_gc_can_fill = |spare: f64| 13_107.0 / (1.0 - spare);
    for kind in DEMAND {
        let mut c = cfg.clone();
        c.ftl.mapping = kind;
        c.ftl.map_cache.ram_bytes = Some(4 << 20);
        let o = run(&c, &wl, false);
        let m = map(&o);
        assert_eq!((m.tp_reads, m.tp_writes, m.flushes), (0, 0, 0), "{kind:?}: {m:?}");
        assert_eq!(m.buffer_hits, m.cmt_misses, "{kind:?}: every miss is answered from RAM");
        let (sim, spare) = without_spare_factor(sim_without_map_cache(&o));
        assert_eq!(sim, expect, "{kind:?} differs from full");
        let one_block_per_plane = pages_gc_can_fill(spare_full) - pages_gc_can_fill(spare);
        assert!((one_block_per_plane - 16.0 * 32.0).abs() < 1e-6, "{kind:?}: {one_block_per_plane}");
    }
}

/// The report without `gc.effective_spare_factor`, and that factor.
fn without_spare_factor(mut v: serde_json::Value) -> (serde_json::Value, f64) {
    let gc = v["gc"].as_object_mut().expect("gc section");
    let spare = gc.remove("effective_spare_factor").and_then(|s| s.as_f64()).expect("spare factor");
    (v, spare)
}

/// Why the same comparison cannot hold on a preconditioned drive: the cache starts cold, so
/// the first lookup of an entry on a translation page in flash reads that page (MQSim instead
/// fills its CMT while preconditioning); and the translation pages written at
/// preconditioning sit in translation blocks left open, a block less for GC on each plane
/// holding one (measured: with the workload kept to translation pages never written, so no
/// translation I/O at all, GC still runs and moves more than with `full`). What is exact:
/// with a CTP that holds every translation page (FMMU, 4 MiB of RAM: 64 KiB of CMT and
/// (4 MiB − 64 KiB) / 8 KiB = 504 CTP pages for 7 translation pages), each translation page
/// on flash is read exactly once and none is written. Preconditioning writes lpns
/// 0..round(0.9 × 13,107) = 0..11,796, so pages 0..=5 (11,795 / 2,048 = 5.76) are on flash
/// and page 6 is not: 6 reads.
#[test]
fn a_preconditioned_drive_reads_each_translation_page_once_into_a_whole_ctp() {
    let mut cfg = small_drive();
    cfg.ftl.mapping = MappingKind::Fmmu;
    cfg.ftl.map_cache.ram_bytes = Some(4 << 20);
    let wl = preconditioned(mixed_random(20_000), 0.9, Pattern::Random);
    let o = run(&cfg, &wl, false);
    let m = map(&o);
    assert!(o.stats.gc_invocations > 100);
    assert_eq!(m.tp_reads, 6, "{m:?}");
    assert_eq!((m.tp_writes, m.flushes), (0, 0), "{m:?}");
    assert_eq!(o.stats.map_pages_programmed, 0);
}

// 2. A cold miss costs one translation-page read ----------------------------------------

/// QD1 reads 10 ms apart (an idle drive each time) of lpns 0, 1, 640 and 1280, on a drive
/// preconditioned sequentially to half (lpns 0..1,638: translation pages 0..=12 on flash).
/// With `full` each read is its command, tR, 4 KiB out on the bus and 4 KiB over PCIe
/// (16 packets of 256 bytes with 24 bytes of overhead each): 70 ns, 75 µs, 12,300,301 ps and
/// 1,120 ns, 88,490,301 ps in all. With a cold map cache, lpns 0, 640 and 1280 (translation
/// pages 0, 5 and 10) first read their translation page on the same chip: 70 ns + 75 µs + a
/// whole 8 KiB page out (24,600,601 ps) = 99,670,601 ps, then the data read as above. lpn 1
/// shares page 0 with lpn 0: DFTL and TPFTL cache single entries and read page 0 again;
/// CDFTL finds the page in its CTP, FMMU the entry in lpn 0's 16-entry CMT block.
#[test]
fn b_a_cold_read_costs_one_translation_read_plus_the_data_read() {
    let lines = [(0, 0, 8, true), (10_000_000, 1, 8, true), (20_000_000, 640, 8, true), (30_000_000, 1280, 8, true)];
    let wl = preconditioned(trace("cold", &lines, 1), 0.5, Pattern::Sequential);
    let read = CMD_PS + T_R_PS + bus_ps(4096, 333, 8) + pcie_ps(4096, LINK_B_S);
    let tp_read = CMD_PS + T_R_PS + bus_ps(8192, 333, 8);
    assert_eq!(read, 88_490_301);
    assert_eq!(tp_read, 99_670_601);
    let full = run(&one_chip(MappingKind::Full), &wl, false);
    assert_eq!(full.stats.read.sum_ps, 4 * read as u128);
    for (kind, misses) in
        [(MappingKind::Dftl, 4), (MappingKind::Cdftl, 3), (MappingKind::Tpftl, 4), (MappingKind::Fmmu, 3)]
    {
        let o = run(&one_chip(kind), &wl, false);
        assert_eq!(map(&o).tp_reads, misses, "{kind:?}");
        assert_eq!(o.stats.read.sum_ps, (4 * read + misses * tp_read) as u128, "{kind:?}");
        assert_eq!(o.sim_time_ps, 30_000_000_000 + tp_read + read, "{kind:?}: the last read misses");
    }
}

/// Firmware time on the same cold read (DFTL, one core): the miss holds the core for
/// `miss_ns` (the victim search and the read's issue, docs/techniques.md §9.7: "each step holds
/// its core for the table's cost, then emits flash transactions"), then the translation page
/// is read, and the request goes on when it arrives: 4.5 µs + 99,670,601 ps on top of the
/// full-map read (each lookup charged once, `charges = "once"`). The earlier `with_fill`
/// charged the fill that answers the request `hit_ns` again: 1.5 µs more. The hit of a
/// second lookup of the same entry costs 1.5 µs either way.
#[test]
fn b_a_cold_read_pays_the_miss_on_the_core() {
    let lines = [(0, 0, 8, true), (10_000_000, 0, 8, true)];
    let wl = preconditioned(trace("cold-fw", &lines, 1), 0.5, Pattern::Sequential);
    let read = CMD_PS + T_R_PS + bus_ps(4096, 333, 8) + pcie_ps(4096, LINK_B_S);
    let tp_read = CMD_PS + T_R_PS + bus_ps(8192, 333, 8);
    let (miss, hit) = (4_500_000, 1_500_000);
    for (charges, fill) in [(Charges::Once, 0), (Charges::WithFill, hit)] {
        let mut cfg = one_chip(MappingKind::Dftl);
        cfg.ftl.firmware.miss_ns = 4500.0;
        cfg.ftl.firmware.hit_ns = 1500.0;
        cfg.ftl.firmware.charges = charges;
        let o = run(&cfg, &wl, false);
        assert_eq!(map(&o).tp_reads, 1);
        assert_eq!(o.sim_time_ps, 10_000_000_000 + read + hit, "{charges:?}: the second read hits");
        assert_eq!(o.stats.read.sum_ps, (miss + tp_read + fill + read + hit + read) as u128, "{charges:?}");
    }
}

/// What a lookup joining a translation page's read costs (docs/techniques.md §9.7,
/// "Charges"): DFTL, one core, hit 1.5 µs, miss 4.5 µs; three reads at time 0 of lpn 0,
/// lpn 0 again and lpn 1 (both in translation page 0, on flash). The first misses and
/// starts the read (4.5 µs); the second joins lpn 0's transient entry (a hit, 1.5 µs); the
/// third is a CMT miss of its own on the page being read (4.5 µs), with no second read. Core
/// busy: 10.5 µs. The earlier `with_fill`: both joins a hit, and each of the three requests
/// a hit again at the fill: 4.5 + 1.5 + 1.5 + 3 × 1.5 = 12 µs. One read either way.
#[test]
fn b_a_join_of_a_waiting_entry_costs_a_hit_and_another_entry_of_the_page_a_miss() {
    let lines = [(0, 0, 8, true), (0, 0, 8, true), (0, 1, 8, true)];
    let wl = preconditioned(trace("join-fw", &lines, 3), 0.5, Pattern::Sequential);
    for (charges, busy_ns) in [(Charges::Once, 10_500u128), (Charges::WithFill, 12_000)] {
        let mut cfg = one_chip(MappingKind::Dftl);
        cfg.ftl.firmware.miss_ns = 4500.0;
        cfg.ftl.firmware.hit_ns = 1500.0;
        cfg.ftl.firmware.charges = charges;
        let o = run(&cfg, &wl, false);
        let m = map(&o);
        assert_eq!((m.tp_reads, m.cmt_misses, m.merges, m.block_merges), (1, 3, 2, 1), "{charges:?}");
        assert_eq!(o.firmware.2, busy_ns * 1000, "{charges:?}");
    }
}

// 3. A batch flush writes one translation page for its dirty entries --------------------

/// DFTL with a CMT of 4 entries (272 bytes of RAM: 4 blocks of one 64-byte entry and a
/// 4-byte tag), a fresh drive, reads of never-written pages answered without flash. QD1,
/// 10 ms apart: writes of lpns 0..=3 (all in translation page 0) fill the CMT with 4 dirty
/// entries; reads of lpns 128, 256, 384, 512 (pages 1..=4, never written: answered from RAM)
/// each evict the least recent entry. The first evicts lpn 0, dirty: page 0 is flushed, and
/// the batch update cleans lpns 1..=3 with it — page 0 was never on flash, so no read: one
/// translation write for 4 dirty entries. The next three evict clean entries: nothing.
/// Without batching each eviction flushes its own entry: 4 writes, and every flush after the
/// first reads the page back first (it is on flash by then): 3 reads. A last read of lpn
/// 512 (a hit) at 80 ms keeps the run going until the last of them is done.
#[test]
fn c_a_batch_flush_writes_one_translation_page_for_its_dirty_entries() {
    let mut lines: Vec<(u64, u64, u32, bool)> = (0..4).map(|i| (i * 10_000_000, i, 16, false)).collect();
    lines.extend((1..=4).map(|k| ((3 + k) * 10_000_000, 128 * k, 16, true)));
    lines.push((80_000_000, 512, 16, true));
    let wl = trace("batch", &lines, 1);
    for (batch, writes, reads, cleaned) in [(true, 1, 0, 4), (false, 4, 3, 4)] {
        let mut cfg = one_chip(MappingKind::Dftl);
        cfg.ftl.map_cache.ram_bytes = Some(4 * 68);
        cfg.ftl.map_cache.batch_on_evict = Some(batch);
        cfg.ftl.unwritten_read = UnwrittenRead::Zero;
        let o = run(&cfg, &wl, true);
        let m = map(&o);
        assert_eq!(m.flushes, writes, "batch {batch}: {m:?}");
        assert_eq!(m.tp_writes, writes, "batch {batch}: {m:?}");
        assert_eq!(m.tp_reads, reads, "batch {batch}: {m:?}");
        assert_eq!(m.flush_blocks_cleaned, cleaned, "batch {batch}: {m:?}");
        assert_eq!(o.stats.map_pages_programmed, writes, "batch {batch}");
        assert_eq!(o.check.as_ref().expect("checked").violations, 0);
    }
}

// 4. Misses on one translation page share its read --------------------------------------

/// Two reads arrive together (QD2) on a cold cache, preconditioned as in (2). lpns 0 and 1
/// share translation page 0: the second miss joins the first one's read (a merge), one
/// flash read. The chip then reads both pages one after another: the first completes one
/// translation read, one data read and its PCIe transfer after arrival; the second one data
/// read later. lpns 0 and 128 (pages 0 and 1): two translation reads, no merge.
#[test]
fn d_two_misses_on_one_translation_page_cause_one_flash_read() {
    let read_flash = CMD_PS + T_R_PS + bus_ps(4096, 333, 8);
    let tp_read = CMD_PS + T_R_PS + bus_ps(8192, 333, 8);
    let link = pcie_ps(4096, LINK_B_S);
    for kind in DEMAND {
        let wl = preconditioned(trace("merge", &[(0, 0, 8, true), (0, 1, 8, true)], 2), 0.5, Pattern::Sequential);
        let o = run(&one_chip(kind), &wl, false);
        let m = map(&o);
        assert_eq!((m.tp_reads, m.merges), (1, 1), "{kind:?}: {m:?}");
        let first = tp_read + read_flash + link;
        assert_eq!(o.stats.read.sum_ps, (first + first + read_flash) as u128, "{kind:?}");
        let wl = preconditioned(trace("apart", &[(0, 0, 8, true), (0, 128, 8, true)], 2), 0.5, Pattern::Sequential);
        let m = map(&run(&one_chip(kind), &wl, false)).clone();
        assert_eq!((m.tp_reads, m.merges), (2, 0), "{kind:?}: {m:?}");
    }
}

// 5. CondUpdate: a GC move that lost the race to a host write is dropped ----------------

/// One plane of 16 blocks of 4 pages of 8 KiB, 45% spare: floor(64 × 0.55) = 35 logical
/// pages, fewer than the 36 pages of the 9 blocks GC can keep filled (16 − 4 kept free − 3
/// open: user, GC and, with a demand map, translation frontiers). GC starts when
/// opening a block leaves fewer than ceil(16 × 0.25) = 4 free; it turns critical (GC before
/// user work) only at ≤ user reserve (ceil(16 × 0.05) = 1) + 1 = 2 free, so at 3 free the
/// chip still serves user writes before GC (`ooo`). DFTL with its default RAM (every entry
/// fits).
fn race_drive() -> Config {
    let mut cfg = one_chip(MappingKind::Dftl);
    cfg.nand.blocks_per_plane = 16;
    cfg.nand.pages_per_block = 4;
    cfg.ftl.overprovisioning_ratio = 0.45;
    cfg.ftl.gc.threshold = 0.25;
    cfg.ftl.gc.hard_threshold = 0.05;
    cfg
}

/// 8 KiB writes 2 ms apart, each alone on the drive (`write`: PCIe, command, page in,
/// tPROG). Blocks fill in order: block 0 lpns 0..=3; block 1 lpns 0, 1, 2, 4 (block 0 keeps
/// only lpn 3); blocks 2..=8 lpns 5..=32; block 9 lpns 33, 34, 0, 1; block 10 lpns 5, 6, 9,
/// 10; block 11 lpns 13, 17, 21, 25. Valid pages then: block 0 one (lpn 3), blocks 1, 2, 3
/// two each ({2, 4}, {7, 8}, {11, 12}), blocks 4..=7 three, the rest four — 35 in all.
/// Write 49 (lpn 14, at 96 ms) opens block 12: 3 free, GC starts; the greedy victim is
/// block 0 (the only one with a single valid page; block 4 drops to two), one move: lpn 3. The GC read starts when write 49's
/// program ends, at E = 96 ms + `write`. A host write W of lpn 3 arrives at `w_ns`; a read
/// of lpn 3 at 116 ms must return W's data (the integrity oracle checks it). Returns the
/// outcome and W's latency.
fn race(w_ns: u64) -> (Outcome, u64) {
    race_on(&race_drive(), w_ns)
}

fn race_on(drive: &Config, w_ns: u64) -> (Outcome, u64) {
    let write = pcie_ps(8192, LINK_B_S) + CMD_PS + bus_ps(8192, 333, 8) + T_PROG_PS;
    let mut lpns: Vec<u64> = vec![0, 1, 2, 3, 0, 1, 2, 4];
    lpns.extend(5..=32);
    lpns.extend([33, 34, 0, 1, 5, 6, 9, 10, 13, 17, 21, 25, 14]);
    assert_eq!(lpns.len(), 49);
    let mut lines: Vec<(u64, u64, u32, bool)> =
        lpns.iter().enumerate().map(|(i, &lpn)| (i as u64 * 2_000_000, lpn, 16, false)).collect();
    lines.push((w_ns, 3, 16, false));
    lines.push((116_000_000, 3, 16, true));
    let name = format!("race{w_ns}-{:?}", drive.ftl.gc.read_victim);
    let o = run(drive, &trace(&name, &lines, 8), true);
    let c = o.check.as_ref().expect("checked");
    assert_eq!(c.violations, 0, "{:?}", c.first_violation);
    assert_eq!(c.reads_checked, 1 + 35, "the read, then every mapped page at the end");
    assert_eq!(o.stats.write.count(), 50);
    let w_latency = o.stats.write.sum_ps - 49 * write as u128;
    (o, w_latency as u64)
}

/// E = 96 ms + 2.24 µs + 70 ns + 24,600,601 ps + 750 µs = 96,776,910,601 ps.
///
/// W arrives about 5 µs into the GC read, at 96,781,911 ns (its data is in after 2.24 µs;
/// the read lasts 99.67 µs): the read finds lpn 3 live and becomes the move's program; the
/// chip serves W first (user writes before GC), whose program remaps lpn 3; when the move's
/// program is built its page no longer holds lpn 3 and it is dropped (`gc.moves_dropped`):
/// nothing moved, the victim erased, the map at W's copy. W waited for the GC read:
/// latency = E + gc_read − its arrival + its own command, page in and tPROG.
///
/// Against it: W at 96,676,911 ns (during write 49's program) is programmed before the GC
/// read, which then finds the page dead — dropped at the read, not at the program; W waits
/// only for write 49 (E − its arrival + its own flash time). W at 112 ms finds GC done: the
/// move of lpn 3 opened a GC block, so after block 0's erase (E + 99.67 µs + 774.67 µs +
/// 3.8 ms ≈ 101.45 ms) 3 blocks are free and GC runs again, on block 1 (two valid pages,
/// the lowest of the two-page blocks), until ≈ 107 ms: 3 pages moved, 2 erases; W then
/// takes the plain write time.
#[test]
fn e_a_gc_move_that_lost_the_race_to_a_host_write_is_dropped() {
    let gc_read = CMD_PS + T_R_PS + bus_ps(8192, 333, 8);
    let w_flash = CMD_PS + bus_ps(8192, 333, 8) + T_PROG_PS;
    let write = pcie_ps(8192, LINK_B_S) + w_flash;
    let e = 96_000_000_000 + write;
    assert_eq!(e, 96_776_910_601);
    let (o, w) = race(96_781_911);
    assert_eq!((o.stats.gc_invocations, o.stats.erases), (1, 1));
    assert_eq!((o.stats.gc_pages_moved, o.stats.gc_moves_dropped), (0, 1), "the move's program was dropped");
    assert_eq!(w, e + gc_read - 96_781_911_000 + w_flash, "W waited for the GC read");
    let (o, w) = race(96_676_911);
    assert_eq!((o.stats.gc_invocations, o.stats.erases), (1, 1));
    assert_eq!((o.stats.gc_pages_moved, o.stats.gc_moves_dropped), (0, 0), "the GC read found the page dead");
    assert_eq!(w, e - 96_676_911_000 + w_flash, "W waited for write 49 only");
    let (o, w) = race(112_000_000);
    assert_eq!((o.stats.gc_invocations, o.stats.erases), (2, 2));
    assert_eq!((o.stats.gc_pages_moved, o.stats.gc_moves_dropped), (3, 0), "GC moved the page first");
    assert_eq!(w, write);
}

/// FMMU's GC manager reads every page of its victim, looks up the logical page its spare
/// area names, and moves the page only if the map still points at it (Woo & Min 2017, §3;
/// `ftl.gc.read_victim = "all_pages"`). In `race(112 ms)`'s run GC collects block 0 (lpns
/// 0, 1, 2, 3 written, only 3 valid) and then block 1 (lpns 0, 1, 2, 4 written, 2 and 4
/// valid). Valid pages only: 1 + 2 = 3 reads and no lookup. Every page: 4 + 4 = 8 reads
/// and 8 lookups (lpns 0, 1, 2, 3 and 0, 1, 2, 4). Both move the same 3 pages and erase 2
/// blocks, the oracle finds every page where the map says, and the 5 extra reads (about
/// 0.5 ms) still end before W at 112 ms, which takes the plain write time.
#[test]
fn e_gc_reading_every_victim_page_looks_each_up_and_moves_the_valid_ones() {
    let write = pcie_ps(8192, LINK_B_S) + CMD_PS + bus_ps(8192, 333, 8) + T_PROG_PS;
    let (o, _) = race(112_000_000);
    assert_eq!((o.stats.gc_pages_read, o.stats.gc_lookups), (3, 0));
    let mut drive = race_drive();
    drive.ftl.gc.read_victim = ssdlab::ftl::VictimRead::AllPages;
    let (o, w) = race_on(&drive, 112_000_000);
    assert_eq!((o.stats.gc_pages_read, o.stats.gc_lookups), (8, 8));
    assert_eq!((o.stats.gc_invocations, o.stats.erases, o.stats.gc_pages_moved), (2, 2, 3));
    assert_eq!(w, write);
}

/// A victim with no valid page is erased without a read under either rule: FMMU's block
/// manager keeps valid counts and erases such blocks itself (§3). Three sequential passes
/// over the race drive's 35 logical pages, 2 ms apart: each pass fills 9 blocks of 4 pages
/// in order and empties the previous pass's blocks in the same order, so the greedy victim
/// always holds no valid page (GC starts at 3 free blocks, when pass 2 has emptied blocks 0
/// to 3). Every GC is an erase alone: no page read, looked up or moved.
#[test]
fn e_a_victim_without_valid_pages_is_erased_unread() {
    let lines: Vec<(u64, u64, u32, bool)> = (0..3 * 35).map(|i| (i * 2_000_000, i % 35, 16, false)).collect();
    let mut erases = Vec::new();
    for rule in [ssdlab::ftl::VictimRead::ValidOnly, ssdlab::ftl::VictimRead::AllPages] {
        let mut drive = race_drive();
        drive.ftl.gc.read_victim = rule;
        let o = run(&drive, &trace(&format!("seq-passes-{rule:?}"), &lines, 8), true);
        assert_eq!((o.stats.gc_pages_read, o.stats.gc_lookups, o.stats.gc_pages_moved), (0, 0, 0), "{rule:?}");
        erases.push(o.stats.erases);
    }
    assert!(erases[0] > 0 && erases[0] == erases[1], "{erases:?}");
}

// 6. `--check` on the map with translation blocks collected -----------------------------

/// 2 channels × 1 chip × 1 die × 2 planes × 64 blocks × 32 pages of 8 KiB, 20% spare: 6,553
/// logical pages; 64-byte entries, 128 per translation page: 52 translation pages. Map RAM
/// for 64 single entries (DFTL, TPFTL); the same CMT and a CTP of 2 pages (CDFTL); 8 CMT
/// blocks of 16 entries in 4-way sets and 2 CTP pages, with its watermarks (FMMU).
fn tiny_cache(kind: MappingKind) -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 2;
    cfg.nand.chips_per_channel = 1;
    cfg.nand.dies_per_chip = 1;
    cfg.nand.blocks_per_plane = 64;
    cfg.nand.pages_per_block = 32;
    cfg.ftl.overprovisioning_ratio = 0.2;
    cfg.ftl.mapping = kind;
    let mc = &mut cfg.ftl.map_cache;
    mc.entry_bytes = Some(64);
    let (cmt, ctp) = match kind {
        MappingKind::Dftl | MappingKind::Tpftl => (64 * 68, 0),
        MappingKind::Cdftl => (64 * 68, 2 * 8192),
        _ => (8 * (16 * 64 + 4), 2 * 8192),
    };
    mc.ram_bytes = Some(cmt + ctp);
    if ctp > 0 {
        mc.cmt_bytes = Some(cmt);
    }
    cfg
}

/// 30,000 mixed random requests (30% reads, 2% TRIMs, 4–16 KiB, QD16) on that drive
/// preconditioned randomly to 90%, under `--check`: the map cache misses, evicts and flushes
/// all the time and GC runs, on data blocks and on translation blocks (translation pages
/// moved by GC). Every read must return the last version written (the oracle), the
/// translation pages must never hold an entry older than the true map's unless a cache
/// holds the newer one (`DemandMap::check` at the end), and no entry may enter the cache
/// stale. Again with firmware time on two cores (DFTL's costs, docs/techniques.md §9.7: hit
/// 1.5 µs, miss 4.5 µs, flush 10 µs + 10 ns per block scanned), so translation reads and
/// writes leave after the firmware work that asked for them. Again for the two-level schemes
/// under the earlier update rule (`update_target = "ctp"`: in the CTP copy in place), and
/// for DFTL and CDFTL with FMMU's watermarks (1/16, 1/8: flushes of the least recently used
/// dirty entry's page, found without a dirty list).
#[test]
fn f_check_holds_through_misses_evictions_flushes_and_translation_gc() {
    let flow = FlowSpec {
        name: "mix".into(),
        read_ratio: 0.3,
        trim_ratio: 0.02,
        address: Address::Uniform,
        request_bytes_choices: vec![(4096, 3.0), (8192, 2.0), (16384, 1.0)],
        align_bytes: 4096,
        queue_depth: Some(16),
        requests: 30_000,
        ..FlowSpec::default()
    };
    let wl = WorkloadSpec {
        source: String::new(),
        seed: 9,
        precondition: Some(PreconditionSpec { occupancy: 0.9, pattern: Pattern::Random }),
        ramp_ms: 0.0,
        flows: vec![flow],
    };
    let variants = ["plain", "firmware", "update in the CTP", "watermarks"];
    for (kind, variant) in DEMAND.iter().flat_map(|&k| variants.map(|v| (k, v))) {
        let two_levels = matches!(kind, MappingKind::Cdftl | MappingKind::Fmmu);
        let mut cfg = tiny_cache(kind);
        match variant {
            "firmware" => {
                let f = &mut cfg.ftl.firmware;
                (f.cores, f.hit_ns, f.miss_ns, f.flush_ns, f.flush_block_ns) = (2, 1500.0, 4500.0, 10_000.0, 10.0);
            }
            "update in the CTP" if two_levels => cfg.ftl.map_cache.update_target = Some(UpdateTarget::Ctp),
            "watermarks" if matches!(kind, MappingKind::Dftl | MappingKind::Cdftl) => {
                (cfg.ftl.map_cache.low_watermark, cfg.ftl.map_cache.high_watermark) = (Some(1.0 / 16.0), Some(0.125));
            }
            "plain" => {}
            _ => continue,
        }
        let o = run(&cfg, &wl, true);
        let c = o.check.as_ref().expect("checked");
        let m = map(&o);
        let what = format!("{kind:?}, {variant}");
        eprintln!(
            "(f) {what}: {} reads checked; GC {} runs, {} pages moved, {} translation pages; {m:?}",
            c.reads_checked, o.stats.gc_invocations, o.stats.gc_pages_moved, o.stats.gc_map_pages_moved
        );
        assert_eq!(c.violations, 0, "{what}: {:?}", c.first_violation);
        assert!(c.reads_checked > 10_000, "{what}");
        assert_eq!(m.stale_entries, 0, "{what}");
        assert!(m.tp_reads > 1000 && m.tp_writes > 1000, "{what}: {m:?}");
        assert!(o.stats.gc_invocations > 100, "{what}");
        assert!(o.stats.gc_map_pages_moved > 0, "{what}: translation blocks must be collected");
    }
}

// 7. Firmware cores queue as M/D/k ------------------------------------------------------

/// mqsim-default (8 channels × 4 chips), full map, map lookups of D = 100 µs on k cores;
/// reads of never-written lpns 0..=9 arrive every T = 40 µs (open loop). Each lookup goes to
/// the core that frees first (lowest index on ties); the read then goes to flash on its own
/// chip (CWDP: lpn n on channel n mod 8, chip n / 8; channels 0 and 1 get their second read
/// at least 320 µs after their first, long done) and its own moment on PCIe (core ends are
/// at least 40 µs apart), with nothing to wait for: latency = wait for a core + D + the idle
/// read (70 ns + 75 µs + 4 KiB out + 4 KiB over PCIe). With k = 4 no read waits: each costs
/// exactly D more than without firmware time.
///
/// k = 2, starts on the cores: 0, 40, 100, 140, 200, 240, 300, 340, 400, 440 µs against
/// arrivals 0, 40, …, 360: waits 0, 0, 20, 20, 40, 40, 60, 60, 80, 80 — 400 µs in all.
/// k = 1: starts every 100 µs, waits 0, 60, 120, …, 540 — 2,700 µs. k = 4: capacity 4 per
/// 100 µs against 2.5 arrivals: no wait. A hardware map unit (`map_unit = "hardware"`) is
/// one server whatever the cores: as k = 1.
#[test]
fn g_map_lookups_on_k_cores_queue_as_m_d_k() {
    let lines: Vec<(u64, u64, u32, bool)> = (0..10).map(|i| (i * 40_000, i, 8, true)).collect();
    let wl = trace("mdk", &lines, 16);
    let read = CMD_PS + T_R_PS + bus_ps(4096, 333, 8) + pcie_ps(4096, LINK_B_S);
    let d = 100_000_000u64;
    for (cores, hardware, waits_us) in [(1, false, 2700u64), (2, false, 400), (4, false, 0), (4, true, 2700)] {
        let mut cfg = preset("mqsim-default.toml");
        cfg.ftl.firmware.cores = cores;
        cfg.ftl.firmware.hit_ns = 100_000.0;
        if hardware {
            cfg.ftl.firmware.map_unit = ssdlab::ftl::firmware::MapUnit::Hardware;
        }
        let o = run(&cfg, &wl, false);
        assert_eq!(o.stats.read.count(), 10);
        let expect = waits_us * 1_000_000 + 10 * (d + read);
        assert_eq!(o.stats.read.sum_ps, expect as u128, "{cores} cores, hardware {hardware}");
        let busy = if hardware { o.firmware.3 } else { o.firmware.2 };
        assert_eq!(busy, 10 * d as u128);
    }
}

// 8. GC on a plane whose pages other planes invalidate ----------------------------------

/// Regression (issue 17): dynamic allocation writes an overwrite wherever a chip is least
/// busy, so a plane can fill with valid pages: GC finds no victim there, and the writes
/// queued on it wait. Before the fix GC looked again only when a block opened or a victim
/// was erased, so once every other plane had moved on nothing woke that plane, and the run
/// ended with writes unfinished (8 of 24,000 on this drive). Now an invalidation on a plane
/// whose GC found no victim starts it again.
///
/// 2 channels × 2 chips × 2 planes × 16 blocks × 32 pages of 4 KiB, 32% spare: 2,785
/// logical pages; DFTL with 2 KiB of map RAM (so translation pages are written all the time,
/// into a third open block per plane); filled randomly to 100%, then 24,000 uniform 4 KiB
/// writes at QD8 under `--check`: every request finishes, nothing read is stale.
#[test]
fn h_gc_wakes_a_plane_once_other_planes_invalidate_its_pages() {
    let text = "[nand]\nchannels = 2\nchips_per_channel = 2\ndies_per_chip = 1\nplanes_per_die = 2\n\
                blocks_per_plane = 16\npages_per_block = 32\npage_bytes = 4096\n\
                [ftl]\noverprovisioning_ratio = 0.32\nallocation = \"dynamic\"\nmapping = \"dftl\"\n\
                [ftl.map_cache]\nram_bytes = 2048\n";
    let cfg = Config::from_toml_str(text, "test", &[]).expect("valid test config");
    let flow = FlowSpec {
        name: "w".into(),
        read_ratio: 0.0,
        address: Address::Uniform,
        request_bytes_choices: vec![(4096, 1.0)],
        align_bytes: 4096,
        queue_depth: Some(8),
        requests: 24_000,
        ..FlowSpec::default()
    };
    let precondition = Some(PreconditionSpec { occupancy: 1.0, pattern: Pattern::Random });
    let wl = WorkloadSpec { source: String::new(), seed: 1, precondition, ramp_ms: 0.0, flows: vec![flow] };
    let o = run(&cfg, &wl, true);
    let c = o.check.as_ref().expect("checked");
    assert_eq!(o.stats.completed, 24_000);
    assert_eq!(c.violations, 0, "{:?}", c.first_violation);
    assert!(o.stats.gc_invocations > 1000, "GC ran: {}", o.stats.gc_invocations);
}
