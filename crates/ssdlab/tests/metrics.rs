//! The metrics SPD's evaluation needs (docs/techniques.md §11.4), each against values worked out
//! by hand on a tiny drive: the write cases of die-level programs (§3.1, slide 9), plane
//! utilization weighted by array time, GC cost and GC-induced erases, the cache hit ratio.
//!
//! The drives have one chip of one die with two planes, so static CWDP allocation puts logical
//! page `lpn` on plane `lpn mod 2`, and a plane's write point is the number of pages programmed
//! on it (mod the pages of a block). Array times (mqsim-default): tR 75 µs, tPROG 750 µs,
//! tBERS 3.8 ms; an erase's command phase is 5 cycles of 10 ns per plane.

mod common;

use common::{preset, trace_file, trace_workload};
use ssdlab::ftl::precondition::Pattern;
use ssdlab::ftl::{UrgentWhen, VictimPolicy};
use ssdlab::hil::Hazards;
use ssdlab::host::{Address, FlowSpec, PreconditionSpec, Replay, WorkloadSpec};
use ssdlab::tsu::TsuPolicyKind;
use ssdlab::{Config, Report, RunOptions};

fn report(cfg: &Config, wl: &WorkloadSpec) -> Report {
    cfg.validate("test").expect("valid test config");
    let o = ssdlab::run_outcome(cfg, wl, None, &RunOptions::default()).expect("run succeeds");
    Report::from_outcome(&o)
}

/// One channel, one chip, one die, two planes of `blocks` blocks × `pages` pages of 8 KiB,
/// half of them spare (a drive this small keeps a large share of its blocks free or open).
fn one_die(blocks: u32, pages: u32) -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 1;
    cfg.nand.chips_per_channel = 1;
    cfg.nand.dies_per_chip = 1;
    cfg.nand.planes_per_die = 2;
    cfg.nand.blocks_per_plane = blocks;
    cfg.nand.pages_per_block = pages;
    cfg.ftl.overprovisioning_ratio = 0.5;
    cfg
}

/// A page write (`read` false) or read of logical page `lpn` at `t_ns` (16 sectors = 8 KiB).
fn page(t_ns: u64, lpn: u64, read: bool) -> (u64, u64, u32, bool) {
    (t_ns, lpn * 16, 16, read)
}

/// Counts as [single, mixed, unaligned, aligned].
fn cases(c: &ssdlab::report::WriteCaseCounts) -> [u64; 4] {
    [c.single, c.mixed, c.unaligned, c.aligned]
}

/// A hand-built schedule under FIFO (a program ~775 µs: command, 8 KiB in, tPROG):
/// - A: lpn 0 at 0 runs alone, nothing queued: single. Planes' write points now 1, 0.
/// - lpn 2 (plane 0) and lpn 1 (plane 1) arrive during A. B: lpn 2 at offset 1 leads; lpn 1
///   (offset 0) cannot join, and waits: unaligned. C: lpn 1 alone: single. Points 2, 1.
/// - D: lpn 3 at 3 ms (plane 1) alone: single. Points 2, 2.
/// - lpn 4 (plane 0) and 5 (plane 1) arrive during D. E: both at offset 2: aligned.
/// - F: lpn 6 at 5 ms alone: single. During F, lpn 8 (plane 0) and a read of lpn 1 (plane 1)
///   arrive; FIFO serves the older write first. G: lpn 8 while plane 1 holds a read: mixed.
///   H: the read.
///
/// User die-level programs: single 4 (A, C, D, F), mixed 1 (G), unaligned 1 (B), aligned 1
/// (E); 8 pages. Busy plane utilization: six one-plane programs (½ × 750 µs each), one
/// two-plane program (1 × 750 µs) and one one-plane read (½ × 75 µs) over 7 × 750 + 75 µs of
/// array time: (2250 + 750 + 37.5) / 5325.
#[test]
fn write_cases_and_busy_plane_utilization_of_a_hand_built_schedule() {
    let mut cfg = one_die(16, 8);
    cfg.tsu.policy = TsuPolicyKind::Fifo;
    let lines = [
        page(0, 0, false),
        page(100_000, 2, false),
        page(110_000, 1, false),
        page(3_000_000, 3, false),
        page(3_100_000, 4, false),
        page(3_110_000, 5, false),
        page(5_000_000, 6, false),
        page(5_100_000, 8, false),
        page(5_110_000, 1, true),
    ];
    let r = report(&cfg, &trace_workload(trace_file("write-cases", &lines), Replay::Timestamps, 16));
    let wc = &r.sim.flash.write_cases;
    assert_eq!(cases(&wc.user), [4, 1, 1, 1]);
    assert_eq!(wc.user.dies, 7);
    assert_eq!(wc.user.share.single, 4.0 / 7.0);
    assert_eq!(wc.user.share.aligned, 1.0 / 7.0);
    assert_eq!((wc.gc.dies, wc.gc.share.single), (0, 0.0), "no GC ran");
    assert_eq!(r.sim.ftl.user_pages_programmed, 8);
    let busy = (6.0 * 0.5 * 750.0 + 750.0 + 0.5 * 75.0) / (7.0 * 750.0 + 75.0);
    assert!((r.sim.flash.plane_utilization_busy - busy).abs() < 1e-12, "{}", r.sim.flash.plane_utilization_busy);
    assert_eq!((r.sim.cache.writes, r.sim.cache.hit_ratio), (0, 0.0), "the cache is off");
}

/// Logical pages 0 and 1 rewritten over and over on a drive of 8 blocks × 4 pages per plane
/// (hazards off, so a rewrite need not wait for the previous one). lpn 0 alone at 0, lpn 1
/// alone at 1 ms (single, single), then 47 pairs (lpn 0, lpn 1) arriving while the chip is
/// busy: each pair goes as one aligned two-plane program, so both planes always open a block
/// in the same command. GC starts when a plane opens a block with fewer than 2 free (8 × 5%,
/// at least the user reserve of 1 plus one): openings at programs 1, 5, …, 45 of 48 leave 7,
/// 6, … free, so the 7th opening (program 25) and the five after it start GC, 6 per plane.
/// Every closed block holds only stale copies, so each GC is one erase (no moves); the two
/// planes' erases, queued together and urgent (1 free block, `ftl.gc.urgent_when =
/// "near_reserve"`), go as one two-plane erase.
/// So: 12 invocations, 12 blocks erased in 6 commands, each 2 × 5 × 10 ns + 3.8 ms of chip
/// time: GC cost 6 × 3,800,100 ns, per invocation half of one erase command.
#[test]
fn gc_cost_and_erases_count_blocks_of_multi_plane_erases() {
    let mut cfg = one_die(8, 4);
    cfg.ftl.overprovisioning_ratio = 0.6;
    cfg.ftl.gc.urgent_when = UrgentWhen::NearReserve;
    cfg.hil.hazards = Hazards::FuaOnly;
    cfg.hil.queue_depth = 128;
    let mut lines = vec![page(0, 0, false), page(1_000_000, 1, false)];
    for j in 0..47 {
        let t = 1_100_000 + j * 20_000;
        lines.extend([page(t, 0, false), page(t + 10_000, 1, false)]);
    }
    let r = report(&cfg, &trace_workload(trace_file("gc-erase", &lines), Replay::Timestamps, 128));
    let g = &r.sim.gc;
    assert_eq!(cases(&r.sim.flash.write_cases.user), [2, 0, 0, 47]);
    assert_eq!((g.invocations, g.pages_moved), (12, 0));
    assert_eq!((g.erases, g.erase_commands), (12, 6), "a two-plane erase counts its two blocks");
    let erase_ps = 2 * 5 * 10_000 + 3_800_000_000u64;
    assert_eq!(g.cost_s, (6 * erase_ps) as f64 / 1e12);
    assert_eq!(g.cost_per_invocation_us, (6 * erase_ps) as f64 / 1e6 / 12.0);
    // Array time: two one-plane programs, 47 two-plane programs, 6 two-plane erases.
    let busy = (2.0 * 0.5 * 750.0 + 47.0 * 750.0 + 6.0 * 3800.0) / (49.0 * 750.0 + 6.0 * 3800.0);
    assert!((r.sim.flash.plane_utilization_busy - busy).abs() < 1e-12, "{}", r.sim.flash.plane_utilization_busy);
}

/// With two planes per die a die-level program is aligned exactly when it programs both, so
/// on a one-die chip the pages programmed are 2 × aligned + the other cases, for the host's
/// programs and GC's apart. Checked on a random-write run at steady state, where GC moves
/// pages (by read and program) while the host writes.
#[test]
fn write_cases_account_for_every_page_programmed_by_host_and_gc() {
    let mut cfg = one_die(64, 32);
    cfg.ftl.overprovisioning_ratio = 0.2;
    cfg.ftl.gc.policy = VictimPolicy::Greedy;
    let flow = FlowSpec {
        name: "w".into(),
        read_ratio: 0.3,
        address: Address::Uniform,
        request_bytes: 8192,
        align_bytes: 8192,
        queue_depth: Some(16),
        requests: 20_000,
        ..FlowSpec::default()
    };
    let precondition = Some(PreconditionSpec { occupancy: 1.0, pattern: Pattern::Random });
    let wl = WorkloadSpec { source: String::new(), seed: 3, precondition, ramp_ms: 0.0, flows: vec![flow] };
    let r = report(&cfg, &wl);
    let (wc, f) = (&r.sim.flash.write_cases, &r.sim.ftl);
    let pages = |c: &ssdlab::report::WriteCaseCounts| 2 * c.aligned + c.single + c.mixed + c.unaligned;
    assert!(wc.gc.dies > 0 && wc.user.dies > 0, "host and GC both program");
    assert_eq!(pages(&wc.user), f.user_pages_programmed);
    assert_eq!(pages(&wc.gc), f.gc_pages_programmed);
    let share = &wc.gc.share;
    assert!((share.single + share.mixed + share.unaligned + share.aligned - 1.0).abs() < 1e-12);
    // GC cost is GC's chip time: its fraction of all chip time, in seconds.
    let g = &r.sim.gc;
    assert!((g.cost_s - g.chip_time_fraction * r.sim.sim_time_ps as f64 / 1e12).abs() < 1e-12);
    assert!((g.cost_per_invocation_us - g.cost_s * 1e6 / g.invocations as f64).abs() < 1e-6);
    // Every array operation uses one or both planes of its die.
    assert!((0.5..=1.0).contains(&r.sim.flash.plane_utilization_busy));
}

/// Cache on, writes and reads 10 µs apart (each done before the next arrives): lpns 0..=3
/// written (4 inserted), 0 and 1 written again (2 absorbed), 0..=2 read (3 hits), lpn 10 read
/// (never written: a miss). Hits 2 + 3 of 6 + 4 page accesses: hit ratio 0.5.
#[test]
fn cache_hit_ratio_counts_page_hits_of_reads_and_writes() {
    let mut cfg = one_die(16, 8);
    cfg.cache.enabled = true;
    cfg.cache.capacity_bytes = 64 * 8192;
    let (lpns, reads) = ([0, 1, 2, 3, 0, 1, 0, 1, 2, 10], 6);
    let lines: Vec<_> = lpns.iter().enumerate().map(|(i, &l)| page(i as u64 * 10_000, l, i >= reads)).collect();
    let r = report(&cfg, &trace_workload(trace_file("cache-ratio", &lines), Replay::Timestamps, 16));
    let c = &r.sim.cache;
    assert_eq!((c.writes, c.write_hits, c.read_hits, c.read_misses), (6, 2, 3, 1));
    assert_eq!(c.hit_ratio, 0.5);
}
