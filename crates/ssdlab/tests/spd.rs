//! SPD (`cache.policy = "spd"`) at the simulation level, against what its rules imply: every
//! program a die receives is one aligned multi-plane program, where a static buffer policy
//! leaves single-plane ones.

mod common;

use common::{preset, trace_file, trace_workload};
use ssdlab::cache::config::CachePolicy;
use ssdlab::ftl::{AllocationScheme, BlockAlignment, GcUnit};
use ssdlab::host::{Address, FlowSpec, WorkloadSpec};
use ssdlab::sim::Outcome;
use ssdlab::stats::{FLP_DIE_INTERLEAVE, FLP_SINGLE};
use ssdlab::{Config, RunOptions};

/// 2 channels × 2 chips × 1 die × 2 planes of 64 blocks of 32 pages of 8 KiB, 20% spare;
/// a write cache of 64 pages (more than (2 − 1) × 4 dies).
fn drive(policy: CachePolicy, allocation: &str) -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 2;
    cfg.nand.chips_per_channel = 2;
    cfg.nand.dies_per_chip = 1;
    cfg.nand.planes_per_die = 2;
    cfg.nand.blocks_per_plane = 64;
    cfg.nand.pages_per_block = 32;
    cfg.ftl.overprovisioning_ratio = 0.2;
    cfg.ftl.allocation = AllocationScheme::parse(allocation).expect("a scheme");
    cfg.ftl.block_alignment = BlockAlignment::Die;
    cfg.cache.enabled = true;
    cfg.cache.capacity_bytes = 64 * 8192;
    cfg.cache.policy = policy;
    cfg
}

/// 4,000 whole-page (8 KiB) writes, uniform over the drive, 16 outstanding: 4,000 / 8
/// planes = 500 pages a plane at most (16 of 64 blocks), so GC never starts.
fn writes() -> WorkloadSpec {
    let flow = FlowSpec {
        name: "w".into(),
        read_ratio: 0.0,
        address: Address::Uniform,
        request_bytes_choices: vec![(8192, 1.0)],
        align_bytes: 8192,
        queue_depth: Some(16),
        requests: 4000,
        ..FlowSpec::default()
    };
    WorkloadSpec { source: String::new(), seed: 3, precondition: None, ramp_ms: 0.0, flows: vec![flow] }
}

fn run(cfg: &Config, check: bool) -> Outcome {
    cfg.validate("test").expect("valid test config");
    let opts = RunOptions { check, ..RunOptions::default() };
    ssdlab::run_outcome(cfg, &writes(), None, &opts).expect("run succeeds")
}

/// With SPD each write-back is two pages of one die, given planes 0 and 1, whose write
/// points are equal (aligned block sets, every program two pages): every command is a
/// two-plane program — none single-plane, none die-interleaved (one die per chip) — and
/// commands × 2 = pages programmed. (Write-backs still queued when the last request
/// completes are not programmed: at most the cache's 64 pages.)
#[test]
fn under_spd_every_program_is_an_aligned_multi_plane_program() {
    let o = run(&drive(CachePolicy::Spd, "CWD"), true);
    let s = &o.stats;
    assert_eq!(s.gc_invocations, 0);
    assert!(s.cache_writebacks > 1000, "the cache must write back: {}", s.cache_writebacks);
    assert_eq!((s.flp_commands[FLP_SINGLE], s.flp_commands[FLP_DIE_INTERLEAVE]), (0, 0), "{:?}", s.flp_commands);
    assert_eq!(s.page_ops, 2 * s.commands);
    assert_eq!(s.page_ops, s.user_pages_programmed, "only programs ran");
    let [single, mixed, unaligned, aligned] = s.write_cases.user;
    assert_eq!((single, mixed, unaligned), (0, 0, 0), "case 4 is 100% of the host's die-level programs");
    assert_eq!(aligned, s.commands);
    assert!(s.cache_writebacks - s.user_pages_programmed <= 64);
    assert_eq!(o.check.as_ref().expect("checked").violations, 0);
}

/// The contrast: Baseline-P on static CWDP pairs pages bound for the two planes of a die,
/// but the planes' write points drift apart (one plane gets more pages than the other), so
/// some of its programs run single-plane.
#[test]
fn baseline_p_leaves_single_plane_programs() {
    let o = run(&drive(CachePolicy::BaselineP, "CWDP"), false);
    let s = &o.stats;
    assert!(s.flp_commands[FLP_SINGLE] > 100, "{:?}", s.flp_commands);
}

/// `validate` names the key and why: SPD needs the plane left open, and a buffer of more
/// than (N − 1) × dies pages.
#[test]
fn spd_rejects_a_static_plane_and_a_buffer_without_an_eligible_die() {
    let err = drive(CachePolicy::Spd, "CWDP").validate("t.toml").expect_err("static plane").to_string();
    assert!(err.contains("ftl.allocation") && err.contains("CWD"), "{err}");
    let mut cfg = drive(CachePolicy::Spd, "CWD");
    cfg.cache.capacity_bytes = 4 * 8192;
    let err = cfg.validate("t.toml").expect_err("4 pages for 4 dies of 2 planes").to_string();
    assert!(err.contains("cache.capacity_bytes") && err.contains("= 4 pages"), "{err}");
    cfg.cache.capacity_bytes = 5 * 8192;
    cfg.validate("t.toml").expect("5 pages always hold a die with 2");
}

/// The drive of [`drive`] (`CWD`) with 16 blocks a plane and 30% spare, 20,000 random
/// whole-page writes on a fresh drive, `--check` on.
fn gc_run(policy: CachePolicy, unit: GcUnit) -> Outcome {
    let mut cfg = drive(policy, "CWD");
    cfg.nand.blocks_per_plane = 16;
    cfg.ftl.overprovisioning_ratio = 0.3;
    cfg.ftl.gc.unit = unit;
    let mut wl = writes();
    wl.flows[0].requests = 20_000;
    cfg.validate("test").expect("valid test config");
    let opts = RunOptions { check: true, ..RunOptions::default() };
    ssdlab::run_outcome(&cfg, &wl, None, &opts).expect("run succeeds")
}

/// The same drive with 16 blocks a plane and 30% spare (2,867 logical pages) under SPD with
/// Die-GC, 20,000 random whole-page writes on a fresh drive: GC runs hundreds of times.
/// Die-GC collects aligned block sets, so every GC erase is one two-plane erase command
/// (erases = 2 × erase commands), and an invocation erases both blocks of its set (at most
/// the last set is unfinished when the run ends); every program, the host's and GC's, is an
/// aligned two-plane program (case 4 = 100%), so the write points stay equal. Moves and host
/// data survive `--check`.
#[test]
fn die_gc_erases_whole_aligned_sets_with_one_command() {
    let o = gc_run(CachePolicy::Spd, GcUnit::Die);
    let s = &o.stats;
    assert!(s.gc_invocations > 100, "{}", s.gc_invocations);
    assert_eq!(s.erases, 2 * s.erase_commands);
    assert!(2 * s.gc_invocations - s.erases <= 2 * 4, "at most one set per die unfinished");
    // Every program a die received, the host's and GC's (moves and pads), covered both
    // planes: from equal write points (a fresh drive), they stay equal.
    for (who, cases) in [("user", s.write_cases.user), ("gc", s.write_cases.gc)] {
        assert_eq!(cases[0] + cases[1] + cases[2], 0, "{who}: {cases:?}");
        assert!(cases[3] > 100, "{who}: {cases:?}");
    }
    assert_eq!(o.check.as_ref().expect("checked").violations, 0);
}

/// `ftl.gc.die_leftover = "buffer"` on the run above: a Die-GC's last group is partial
/// only when an odd number of its pages is live (N = 2), so each invocation leaves at most
/// one page, which goes into the die's buffer list instead of beside a dummy page (a page
/// whose write-back is in flight still goes the padded way): buffered moves + GC pads ≤
/// invocations, and buffered moves > 0. The buffer writes those pages in two-plane
/// Die-Writes with host pages, so every program is still aligned; each set is still erased
/// with one command; the moved data survives `--check`; and a buffered page's program
/// counts as a GC program.
#[test]
fn die_gc_leftovers_go_through_the_buffer_lists() {
    let mut cfg = drive(CachePolicy::Spd, "CWD");
    cfg.nand.blocks_per_plane = 16;
    cfg.ftl.overprovisioning_ratio = 0.3;
    cfg.ftl.gc.unit = GcUnit::Die;
    cfg.ftl.gc.die_leftover = ssdlab::ftl::gc::die_gc::DieLeftover::Buffer;
    let mut wl = writes();
    wl.flows[0].requests = 20_000;
    cfg.validate("test").expect("valid test config");
    let opts = RunOptions { check: true, ..RunOptions::default() };
    let o = ssdlab::run_outcome(&cfg, &wl, None, &opts).expect("run succeeds");
    let s = &o.stats;
    assert!(s.gc_invocations > 100, "{}", s.gc_invocations);
    assert!(s.gc_buffered_moves > 0);
    assert!(s.gc_buffered_moves + s.gc_pad_pages <= s.gc_invocations, "{} {}", s.gc_buffered_moves, s.gc_pad_pages);
    assert_eq!(s.erases, 2 * s.erase_commands);
    for (who, cases) in [("user", s.write_cases.user), ("gc", s.write_cases.gc)] {
        assert_eq!(cases[0] + cases[1] + cases[2], 0, "{who}: {cases:?}");
    }
    assert_eq!(s.gc_pages_moved, s.gc_pages_programmed, "no translation pages here");
    assert_eq!(o.check.as_ref().expect("checked").violations, 0);
    // The key is Die-GC's and the buffer lists' only.
    cfg.cache.policy = CachePolicy::Lru;
    let err = cfg.validate("t.toml").expect_err("needs spd").to_string();
    assert!(err.contains("ftl.gc.die_leftover"), "{err}");
}

/// Die-GC needs aligned blocks, and moves that may change plane.
#[test]
fn die_gc_rejects_unaligned_blocks_and_copyback() {
    let mut cfg = drive(CachePolicy::Spd, "CWD");
    cfg.ftl.gc.unit = GcUnit::Die;
    cfg.ftl.block_alignment = BlockAlignment::None;
    let err = cfg.validate("t.toml").expect_err("unaligned").to_string();
    assert!(err.contains("ftl.gc.unit") && err.contains("block_alignment"), "{err}");
    cfg.ftl.block_alignment = BlockAlignment::Die;
    cfg.ftl.gc.copyback = true;
    let err = cfg.validate("t.toml").expect_err("copyback").to_string();
    assert!(err.contains("copyback"), "{err}");
}

/// One chip, one die of two planes of 8 blocks of 4 pages of 8 KiB, 55% spare (28 logical
/// pages), static `CWDP`: lpn x on plane x mod 2. Writes 1 ms apart: lpns 1, 3, 5, 7 twice
/// (plane 1: block 0 all invalid, block 1 full of valid pages, 6 blocks free — it never
/// needs GC), then lpns 0, 2, 4, 6 twelve times (plane 0: 12 blocks' worth; GC keeps 2
/// blocks free, so it collects blocks holding only invalid pages, k times). Plane GC
/// collects plane 0 only: k invocations. ParaGC also collects plane 1 the first time plane 0
/// starts (its block 0, no valid page); after that plane 1 has no block with an invalid page:
/// k + 1 invocations, and one erase more.
#[test]
fn paragc_collects_the_other_planes_of_the_die_with_the_one_that_needs_it() {
    let mut lines: Vec<(u64, u64, u32, bool)> = Vec::new();
    let lpns = [1u64, 3, 5, 7, 1, 3, 5, 7].into_iter().chain((0..12).flat_map(|_| [0u64, 2, 4, 6]));
    for (i, lpn) in lpns.enumerate() {
        lines.push((i as u64 * 1_000_000, lpn * 16, 16, false));
    }
    let wl = common::trace_workload(common::trace_file("paragc", &lines), ssdlab::host::Replay::Timestamps, 1);
    let run_with = |unit: GcUnit| {
        let mut cfg = preset("mqsim-default.toml");
        cfg.nand.channels = 1;
        cfg.nand.chips_per_channel = 1;
        cfg.nand.dies_per_chip = 1;
        cfg.nand.planes_per_die = 2;
        cfg.nand.blocks_per_plane = 8;
        cfg.nand.pages_per_block = 4;
        cfg.ftl.overprovisioning_ratio = 0.55;
        cfg.ftl.gc.unit = unit;
        cfg.validate("test").expect("valid");
        let opts = RunOptions { check: true, ..RunOptions::default() };
        ssdlab::run_outcome(&cfg, &wl, None, &opts).expect("run succeeds")
    };
    let plane = run_with(GcUnit::Plane);
    let para = run_with(GcUnit::Para);
    let k = plane.stats.gc_invocations;
    assert!(k >= 5, "plane 0 is collected repeatedly: {k}");
    assert_eq!((para.stats.gc_invocations, para.stats.erases), (k + 1, plane.stats.erases + 1));
    assert_eq!(para.check.as_ref().expect("checked").violations, 0);
}

/// TwinBlk on the Die-GC drive, without SPD's buffer: twin sets are erased together (erases
/// = 2 × erase commands), their moves stay on their planes (no pad pages).
#[test]
fn twinblk_erases_twin_blocks_together() {
    let o = gc_run(CachePolicy::Lru, GcUnit::Twin);
    let s = &o.stats;
    assert!(s.gc_invocations > 100, "{}", s.gc_invocations);
    assert_eq!(s.erases, 2 * s.erase_commands);
    assert_eq!(s.gc_pad_pages, 0);
    assert_eq!(o.check.as_ref().expect("checked").violations, 0);
}

/// The preset runs SPD as §3 describes it: Die-Write on a plane-dynamic allocation, aligned
/// blocks and Die-GC, with a buffer above the (N − 1) × dies = 8-page floor.
#[test]
fn the_spd_preset_is_spd() {
    let cfg = preset("spd.toml");
    assert_eq!(cfg.cache.policy, CachePolicy::Spd);
    assert_eq!(
        (cfg.ftl.allocation.to_string().as_str(), cfg.ftl.block_alignment, cfg.ftl.gc.unit),
        ("CWD", BlockAlignment::Die, GcUnit::Die)
    );
    let dies = cfg.nand.channels * cfg.nand.chips_per_channel * cfg.nand.dies_per_chip;
    assert_eq!((cfg.nand.planes_per_die - 1) * dies, 8);
    assert!(cfg.cache.capacity_bytes / cfg.nand.page_bytes as u64 > 8);
}

/// Steady state on the preset: a drive filled to 95% with random writes, then 60,000 mixed
/// requests (30% reads; 4, 8 and 32 KiB, so partial pages are read-modified-written) with
/// GC running throughout, `--check` on. The host's programs are all aligned two-plane
/// programs; GC's are too but for moves the host overtook between their read and their
/// program while their partner went ahead (each such move becomes a pad, and its partner
/// may have run alone): at most one in a thousand.
#[test]
fn check_holds_through_die_gc_at_steady_state() {
    let cfg = preset("spd.toml");
    let flow = FlowSpec {
        name: "mix".into(),
        read_ratio: 0.3,
        address: Address::Uniform,
        request_bytes_choices: vec![(4096, 1.0), (8192, 2.0), (32768, 1.0)],
        align_bytes: 4096,
        queue_depth: Some(32),
        requests: 60_000,
        ..FlowSpec::default()
    };
    let precondition =
        Some(ssdlab::host::PreconditionSpec { occupancy: 0.95, pattern: ssdlab::ftl::precondition::Pattern::Random });
    let wl = WorkloadSpec { source: String::new(), seed: 7, precondition, ramp_ms: 0.0, flows: vec![flow] };
    let opts = RunOptions { check: true, ..RunOptions::default() };
    let o = ssdlab::run_outcome(&cfg, &wl, None, &opts).expect("run succeeds");
    let s = &o.stats;
    assert!(s.gc_invocations > 1000, "{}", s.gc_invocations);
    let [single, mixed, unaligned, _] = s.write_cases.user;
    assert_eq!(single + mixed + unaligned, 0, "{:?}", s.write_cases.user);
    let gc: u64 = s.write_cases.gc.iter().sum();
    assert!(s.write_cases.gc[3] * 1000 >= gc * 999, "{:?}", s.write_cases.gc);
    assert_eq!(o.check.as_ref().expect("checked").violations, 0);
}

/// With `cache.spd_fallback = "pad"` a buffer below the floor is accepted (4 pages for 4
/// dies of 2 planes): when no die holds two dirty pages, a die writes its one with a dummy
/// page beside it, so every program is still an aligned two-plane program; the dummy pages
/// are counted and the data survives `--check`.
#[test]
fn spd_pads_partial_groups_below_the_floor() {
    let mut cfg = drive(CachePolicy::Spd, "CWD");
    cfg.cache.capacity_bytes = 4 * 8192;
    cfg.cache.spd_fallback = ssdlab::cache::config::SpdFallback::Pad;
    let o = run(&cfg, true);
    let s = &o.stats;
    assert!(s.cache_pad_pages > 100, "{}", s.cache_pad_pages);
    let [single, mixed, unaligned, _] = s.write_cases.user;
    assert_eq!(single + mixed + unaligned, 0, "{:?}", s.write_cases.user);
    assert_eq!(s.page_ops, 2 * s.commands);
    assert_eq!(o.check.as_ref().expect("checked").violations, 0);
    cfg.cache.policy = CachePolicy::BaselineD;
    cfg.ftl.allocation = AllocationScheme::parse("CWDP").expect("a scheme");
    let err = cfg.validate("t.toml").expect_err("pad is SPD's").to_string();
    assert!(err.contains("cache.spd_fallback"), "{err}");
}

/// `cache.slot_release` worked by hand on one die of two planes with SPD and a 2-page cache,
/// four sequential one-page writes, two outstanding. Writes 0 and 1 fill the cache at DRAM
/// speed; writes 2 and 3 then arrive together and the first of them evicts pages 0 and 1 as
/// one two-plane program (t_PROG = 750 µs).
/// - `programmed`: the slots free when that program ends, so both wait for it: two writes
///   take at least 750 µs.
/// - `evicted` (SSDsim): the slots free at once; the evicting write completes with the
///   program, the other finds a free slot and completes at DRAM speed: one write does.
#[test]
fn slot_release_decides_whether_a_second_write_waits_for_the_eviction() {
    use ssdlab::cache::config::SlotRelease;
    let mut cfg = drive(CachePolicy::Spd, "CWD");
    (cfg.nand.channels, cfg.nand.chips_per_channel) = (1, 1);
    cfg.cache.capacity_bytes = 2 * 8192;
    let flow = FlowSpec {
        name: "w".into(),
        read_ratio: 0.0,
        address: Address::Sequential,
        request_bytes_choices: vec![(8192, 1.0)],
        align_bytes: 8192,
        queue_depth: Some(2),
        requests: 4,
        ..FlowSpec::default()
    };
    let wl = WorkloadSpec { source: String::new(), seed: 3, precondition: None, ramp_ms: 0.0, flows: vec![flow] };
    let waited = |release: SlotRelease| {
        let mut cfg = cfg.clone();
        cfg.cache.slot_release = release;
        cfg.validate("test").expect("valid");
        let opts = RunOptions { check: true, ..RunOptions::default() };
        let o = ssdlab::run_outcome(&cfg, &wl, None, &opts).expect("run succeeds");
        assert_eq!(o.check.as_ref().expect("checked").violations, 0);
        assert_eq!(o.stats.write.count(), 4);
        o.stats.write.hist.count_between(750_000, u64::MAX)
    };
    assert_eq!(waited(SlotRelease::Programmed), 2);
    assert_eq!(waited(SlotRelease::Evicted), 1);
    // Eager destaging evicts with no write to wait for it.
    let mut lru = preset("mqsim-default.toml");
    lru.cache.enabled = true;
    lru.cache.destage = ssdlab::cache::config::Destage::Eager;
    lru.cache.slot_release = SlotRelease::Evicted;
    let err = lru.validate("t.toml").expect_err("evicted needs when_full").to_string();
    assert!(err.contains("cache.slot_release = \"evicted\"") && err.contains("when_full"), "{err}");
}

/// `cache.capacity_footprint_fraction`, worked by hand on the drive of [`drive`] (4 dies of
/// 2 planes: floor (2 − 1) × 4 + 1 = 5 pages; 16 sectors a page). The trace writes pages
/// 0..40 one at a time, then 0..40 again as 8 KiB writes starting half a page in (each
/// covering pages p and p + 1, so page 40 is new), then reads 0..10: 41 distinct pages.
/// Half of them is 20.5 → 20 pages; a tenth is 4.1 → 4, below the floor, so 5.
#[test]
fn a_footprint_fraction_sizes_the_buffer_from_the_pages_the_trace_touches() {
    use ssdlab::host::Replay;
    let mut lines = Vec::new();
    for p in 0..40u64 {
        lines.push((p * 1000, p * 16, 16, false));
    }
    for p in 0..40u64 {
        lines.push((50_000 + p * 1000, p * 16 + 8, 16, false));
    }
    for p in 0..10u64 {
        lines.push((100_000 + p * 1000, p * 16, 16, true));
    }
    let wl = trace_workload(trace_file("footprint", &lines), Replay::ClosedLoop, 4);
    let pages = |fraction: f64| {
        let mut cfg = drive(CachePolicy::Spd, "CWD");
        cfg.cache.capacity_bytes = 0;
        cfg.cache.capacity_footprint_fraction = fraction;
        cfg.validate("test").expect("the fraction replaces capacity_bytes");
        let o = ssdlab::run_outcome(&cfg, &wl, None, &RunOptions::default()).expect("run succeeds");
        assert_eq!(o.stats.completed, 90);
        o.stats.cache_capacity_pages
    };
    assert_eq!(pages(0.5), 20);
    assert_eq!(pages(0.1), 5);
    let mut bad = drive(CachePolicy::Spd, "CWD");
    bad.cache.capacity_footprint_fraction = 1.5;
    let err = bad.validate("t.toml").expect_err("a fraction").to_string();
    assert!(err.contains("cache.capacity_footprint_fraction"), "{err}");
}

/// SSDsim's blocking GC (`tsu.urgent_gc = "hold"` with `ftl.gc.urgent_when = "collecting"`;
/// docs/techniques.md §11.3b item 3) against reads going first, on one plane of 12 blocks of
/// 4 pages of 8 KiB (35% spare, 31 logical pages; GC runs below 2 free blocks), MQSim's
/// default timing. Writes 1 ms apart (each done in under 0.8 ms): lpns 0-3 fill block 0,
/// 0, 1, 4, 5 block 1 (block 0 keeps 2 valid pages), then blocks 2-9 each take a, a, a+1,
/// a+2 (3 valid; a = 6, 9, ..., 27); the 41st write (lpn 30, at t_w = 40 ms) opens block
/// 10, leaving 1 free: GC starts as its program launches (t_w + P, the 8 KiB link transfer),
/// and runs three times: block 0 (2 moves, opening block 11), block 2 (3 moves, the last
/// opening block 0), block 3 (3 moves, no block opened), then 2 blocks are free. A read of
/// lpn 4 arrives at t_r = t_w + 1 ms, during the first move's program. With B the 8 KiB bus
/// transfer, a read takes R = 70 ns + 75 µs + B, a program W = 70 ns + B + 750 µs, an erase
/// 50 ns + 3.8 ms; the write frees the chip at E0 = t_w + P + W. Held: the read starts after
/// the third erase, E0 + 8 (R + W) + 3 erases, and completes R + P later. Reads first: it
/// goes after the program under way, at E0 + R + W.
#[test]
fn blocking_gc_holds_its_chip_until_the_erase() {
    let mut lpns = vec![0u64, 1, 2, 3, 0, 1, 4, 5];
    for a in (6..30).step_by(3) {
        lpns.extend([a, a, a + 1, a + 2]);
    }
    lpns.push(30);
    let mut lines: Vec<(u64, u64, u32, bool)> =
        lpns.iter().enumerate().map(|(i, &lpn)| (i as u64 * 1_000_000, lpn * 16, 16, false)).collect();
    let (t_w, t_r) = (40_000_000_000u64, 41_000_000_000u64);
    lines.push((t_r / 1000, 4 * 16, 16, true));
    let wl = trace_workload(trace_file("hold", &lines), ssdlab::host::Replay::Timestamps, 64);
    let run_with = |urgent: ssdlab::tsu::UrgentGc| {
        let mut cfg = common::one_plane_drive();
        (cfg.nand.blocks_per_plane, cfg.nand.pages_per_block) = (12, 4);
        cfg.ftl.overprovisioning_ratio = 0.35;
        cfg.ftl.gc.urgent_when = ssdlab::ftl::gc::UrgentWhen::Collecting;
        cfg.tsu.urgent_gc = urgent;
        cfg.validate("test").expect("valid");
        let opts = RunOptions { check: true, ..RunOptions::default() };
        ssdlab::run_outcome(&cfg, &wl, None, &opts).expect("run succeeds")
    };
    let b = common::bus_ps(8192, 333, 8);
    let p = common::pcie_ps(8192, 4_000_000_000);
    let (r, w, erase) = (70_000 + 75_000_000 + b, 70_000 + b + 750_000_000, 50_000 + 3_800_000_000);
    let e0 = t_w + p + w;
    let held = run_with(ssdlab::tsu::UrgentGc::Hold);
    assert_eq!((held.stats.gc_invocations, held.stats.gc_pages_moved), (3, 8));
    assert_eq!(held.stats.read.sum_ps, (e0 + 8 * (r + w) + 3 * erase + r + p - t_r) as u128);
    let reads_first = run_with(ssdlab::tsu::UrgentGc::AfterReads);
    assert_eq!(reads_first.stats.read.sum_ps, (e0 + r + w + r + p - t_r) as u128);
    assert_eq!(held.check.as_ref().expect("checked").violations, 0);
}

/// `hold` is `ooo`'s rule, and a held chip carries no user work nor suspends for it.
#[test]
fn hold_is_rejected_where_it_cannot_hold() {
    let mut cfg = common::one_plane_drive();
    cfg.tsu.urgent_gc = ssdlab::tsu::UrgentGc::Hold;
    cfg.validate("t.toml").expect("ooo holds");
    cfg.tsu.policy = ssdlab::tsu::TsuPolicyKind::Fifo;
    let err = cfg.validate("t.toml").expect_err("fifo").to_string();
    assert!(err.contains("tsu.urgent_gc") && err.contains("\"ooo\""), "{err}");
    cfg.tsu.policy = ssdlab::tsu::TsuPolicyKind::Ooo;
    cfg.tsu.user_joins_gc = true;
    let err = cfg.validate("t.toml").expect_err("joins").to_string();
    assert!(err.contains("tsu.urgent_gc") && err.contains("user_joins_gc"), "{err}");
    cfg.tsu.user_joins_gc = false;
    cfg.nand.suspension.enabled = true;
    let err = cfg.validate("t.toml").expect_err("suspension").to_string();
    assert!(err.contains("tsu.urgent_gc") && err.contains("nand.suspension"), "{err}");
}

/// ParaGC on the GC drive of [`gc_run`] with static `CWDP`, per-plane blocks and a part
/// that needs one block for a multi-plane command: with aligned GC write points
/// (`ftl.gc.para_align`: `catch_up`, the default, or `pad`, which programs more dummy
/// pages) the planes that start together reach one write point in blocks of one index and
/// program their k-th moves together, so GC programs pair into two-plane programs (case
/// 4); with `none`, a GC program pairs only where the planes' GC blocks happen to have one
/// index and offset: more than five times fewer. Data moved and padded around survives
/// `--check`.
#[test]
fn paragc_aligned_write_points_pair_its_moves() {
    use ssdlab::ftl::gc::paragc::ParaAlign;
    let run_with = |align: ParaAlign| {
        let mut cfg = drive(CachePolicy::Lru, "CWDP");
        (cfg.nand.blocks_per_plane, cfg.ftl.overprovisioning_ratio) = (16, 0.3);
        cfg.nand.multiplane_same_block = true;
        cfg.ftl.block_alignment = BlockAlignment::None;
        (cfg.ftl.gc.unit, cfg.ftl.gc.para_align) = (GcUnit::Para, align);
        let mut wl = writes();
        wl.flows[0].requests = 20_000;
        cfg.validate("test").expect("valid test config");
        let opts = RunOptions { check: true, ..RunOptions::default() };
        ssdlab::run_outcome(&cfg, &wl, None, &opts).expect("run succeeds")
    };
    let unaligned = run_with(ParaAlign::None);
    let gc_pairs = |o: &Outcome| o.stats.write_cases.gc[3];
    let mut pads = Vec::new();
    for align in [ParaAlign::CatchUp, ParaAlign::Pad] {
        let aligned = run_with(align);
        assert!(aligned.stats.gc_invocations > 100, "{}", aligned.stats.gc_invocations);
        let cases = (aligned.stats.write_cases.gc, unaligned.stats.write_cases.gc);
        assert!(gc_pairs(&unaligned) * 5 < gc_pairs(&aligned), "{align:?} {cases:?}");
        assert_eq!(aligned.check.as_ref().expect("checked").violations, 0);
        pads.push(aligned.stats.gc_pad_pages);
    }
    // catch_up programs a dummy page only where a paired move went stale (it keeps its place).
    assert!(pads[0] < pads[1], "{pads:?}");
    assert_eq!(unaligned.stats.gc_pad_pages, 0);
    assert_eq!(unaligned.check.as_ref().expect("checked").violations, 0);
}
