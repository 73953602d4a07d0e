//! Behaviour: each policy and mechanism of the drive against an expectation derived from its
//! definition — a rule (a read after a write to the same page waits for it), a bound (one
//! firmware core serves at most 1 / op_cost requests per second), or a relation between two
//! runs that differ in one setting (suspension on / off, ooo / fifo, greedy / random).
//! Every drive here is small: the whole file runs in about a second at the test profile.

mod common;

use std::path::PathBuf;

use common::{lrw_waf, preset, trace_file, trace_workload};
use ssdlab::ftl::precondition::Pattern;
use ssdlab::ftl::{AllocationScheme, Ftl, Stream, VictimPolicy};
use ssdlab::hif::{Arbitration, Interface};
use ssdlab::hil::Hazards;
use ssdlab::host::{Address, FlowSpec, PreconditionSpec, Priority, Replay, WorkloadSpec};
use ssdlab::sim::Outcome;
use ssdlab::tsu::TsuPolicyKind;
use ssdlab::{Config, Report, RunOptions};

// ---------------------------------------------------------------------------------- helpers

fn run(cfg: &Config, wl: &WorkloadSpec) -> Outcome {
    cfg.validate("test").expect("valid test config");
    ssdlab::run_outcome(cfg, wl, None, &RunOptions::default()).expect("run succeeds")
}

fn report(cfg: &Config, wl: &WorkloadSpec) -> Report {
    Report::from_outcome(&run(cfg, wl))
}

fn flow(read_ratio: f64, address: Address, bytes: u64, qd: u32, requests: u64) -> FlowSpec {
    FlowSpec {
        name: "f".into(),
        read_ratio,
        address,
        request_bytes: bytes,
        align_bytes: bytes,
        queue_depth: Some(qd),
        requests,
        ..FlowSpec::default()
    }
}

fn workload(seed: u64, precondition: Option<(f64, Pattern)>, flows: Vec<FlowSpec>) -> WorkloadSpec {
    WorkloadSpec {
        source: String::new(),
        seed,
        precondition: precondition.map(|(occupancy, pattern)| PreconditionSpec { occupancy, pattern }),
        flows,
    }
}

/// 2 channels × 2 chips × 2 dies × 2 planes = 16 planes of 64 blocks × 32 pages of 8 KiB
/// (256 MiB raw). GC keeps 4 of 64 blocks free plus two open frontiers, so 20%
/// over-provisioning leaves an effective spare factor of about 0.12.
fn small() -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 2;
    cfg.nand.chips_per_channel = 2;
    cfg.nand.blocks_per_plane = 64;
    cfg.nand.pages_per_block = 32;
    cfg.ftl.overprovisioning_ratio = 0.2;
    cfg
}

/// One chip, one die, two planes of 128 blocks × 32 pages: a GC laboratory where every
/// write amplification difference comes from the victim choice.
fn gc_lab(policy: VictimPolicy) -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 1;
    cfg.nand.chips_per_channel = 1;
    cfg.nand.dies_per_chip = 1;
    cfg.nand.planes_per_die = 2;
    cfg.nand.blocks_per_plane = 128;
    cfg.nand.pages_per_block = 32;
    cfg.ftl.overprovisioning_ratio = 0.2;
    cfg.ftl.gc.policy = policy;
    cfg
}

fn logical_pages(cfg: &Config) -> u64 {
    let n = &cfg.nand;
    let physical =
        n.channels * n.chips_per_channel * n.dies_per_chip * n.planes_per_die * n.blocks_per_plane * n.pages_per_block;
    (physical as f64 * (1.0 - cfg.ftl.overprovisioning_ratio)).floor() as u64
}

/// Write amplification over the samples after `warmup` requests had completed.
fn windowed_waf(r: &Report, warmup: u64) -> f64 {
    let mut done = 0;
    let start = r
        .sim
        .time_series
        .iter()
        .find(|s| {
            done += s.requests;
            done >= warmup
        })
        .expect("warm-up ends inside the run");
    let end = r.sim.time_series.last().unwrap();
    let user = (end.user_pages_programmed - start.user_pages_programmed) as f64;
    let gc = (end.gc_pages_programmed - start.gc_pages_programmed) as f64;
    assert!(user > 0.0, "no user pages programmed after the warm-up");
    (user + gc) / user
}

/// A deterministic pseudo-random sequence for hand-written traces (SplitMix64).
struct Mix(u64);

impl Mix {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % below
    }
}

// ------------------------------------------------------------- 1. program/erase suspension

/// Mixed 8 KiB random reads and writes (page-sized: no read-modify-writes) on a filled drive.
fn mixed_workload(requests: u64) -> WorkloadSpec {
    workload(11, Some((0.8, Pattern::Random)), vec![flow(0.5, Address::Uniform, 8192, 16, requests)])
}

#[test]
fn suspension_lets_reads_overtake_long_programs() {
    let mut off = small();
    off.nand.suspension.enabled = false;
    let mut on = small();
    on.nand.suspension.enabled = true;
    let wl = mixed_workload(20_000);
    let a = report(&off, &wl);
    let b = report(&on, &wl);
    assert_eq!(a.sim.flash.suspensions, 0, "suspension off must never suspend");
    assert!(b.sim.flash.suspensions > 0, "suspension on must suspend programs under a mixed load");
    // Without suspension a read that finds its chip programming waits for the rest of
    // tPROG (750 us, 10× tR); with it, for t_suspend (20 us).
    let (ra, rb) = (a.sim.latency_us.read.mean, b.sim.latency_us.read.mean);
    assert!(rb < 0.8 * ra, "mean read latency with suspension {rb:.1} us vs without {ra:.1} us");
    // An operation is suspended only if more than t_suspend of it is left: with t_suspend
    // above tPROG (750 us) and no GC erase (3.8 ms) in a run that does not fill the drive,
    // nothing qualifies and the run is the suspension-off run.
    let mut slow = on.clone();
    slow.nand.suspension.t_suspend_us = 800.0;
    let light = workload(11, Some((0.5, Pattern::Sequential)), vec![flow(0.5, Address::Uniform, 8192, 16, 5_000)]);
    let c = report(&slow, &light);
    let d = report(&off, &light);
    assert_eq!(c.sim.gc.erases, 0);
    assert_eq!(c.sim.flash.suspensions, 0);
    assert_eq!(c.sim.latency_us.read.mean, d.sim.latency_us.read.mean);
}

/// Picoseconds `bytes` take on the default ONFI bus (333 MT/s × 8 bits), rounded up.
fn bus_ps(bytes: u64) -> u64 {
    common::bus_ps(bytes, 333, 8)
}

#[test]
fn a_suspended_program_lets_one_read_through_and_resumes_with_the_time_it_had_left() {
    // A page write to lpn 0 (chip 0, die 0) at 0; at 100 us, well into its 750 us tPROG, a
    // 4 KiB read of never-written lpn 4 (chip 0, die 1 under CWDP: read where it would be).
    let cfg = small();
    let write_alone = run(&cfg, &trace_workload(trace_file("sus-w", &[(0, 0, 16, false)]), Replay::Timestamps, 8));
    let read_alone = run(&cfg, &trace_workload(trace_file("sus-r", &[(0, 4 * 16, 8, true)]), Replay::Timestamps, 8));
    let (w0, r0) = (write_alone.stats.write.sum_ps, read_alone.stats.read.sum_ps);
    assert_eq!(r0, (70_000 + 75_000_000 + bus_ps(4096) + pcie_ps(4096)) as u128, "idle 4 KiB read");
    let path = trace_file("sus", &[(0, 0, 16, false), (100_000, 4 * 16, 8, true)]);
    let wl = trace_workload(path, Replay::Timestamps, 8);
    let mut on = cfg.clone();
    on.nand.suspension.enabled = true;
    let o = run(&on, &wl);
    assert_eq!(o.stats.phy.suspensions, 1);
    // The read waits t_suspend (20 us), then runs as on an idle chip.
    let t_suspend = 20_000_000u128;
    assert_eq!(o.stats.read.sum_ps, t_suspend + r0, "suspended-for read");
    // The program is held from the suspend request until the read's data is off the chip
    // (t_suspend + command + tR + 4 KiB on the bus), then pays t_resume (20 us).
    let held = t_suspend + (70_000 + 75_000_000 + bus_ps(4096)) as u128;
    assert_eq!(o.stats.write.sum_ps, w0 + held + 20_000_000, "suspended program");
    // Without suspension the read waits for the whole program.
    let off = run(&cfg, &wl);
    assert!(off.stats.read.sum_ps > (w0 - 100_000_000 - pcie_ps(8192) as u128), "read behind the program");
    assert_eq!(off.stats.write.sum_ps, w0);
}

#[test]
fn programs_following_one_multi_plane_read_start_as_one_multi_plane_program() {
    // One die, two planes; a sequential fill puts lpn 0 and lpn 1 at page 0 of planes 0 and
    // 1, lpn 2 at page 1 of plane 0. A page read of lpn 2 holds the chip while two 4 KiB
    // writes to the first halves of lpn 0 and 1 arrive: their read-modify-write reads (same
    // offset, two planes) run as one command, and when it ends both programs must run as one
    // multi-plane program — three commands, two of them multi-plane, one tPROG.
    let mut cfg = gc_lab(VictimPolicy::Greedy);
    cfg.hil.hazards = Hazards::FuaOnly;
    let path = trace_file("rmw-mp", &[(0, 2 * 16, 16, true), (0, 0, 8, false), (0, 16, 8, false)]);
    let mut wl = trace_workload(path, Replay::Timestamps, 8);
    wl.precondition = Some(PreconditionSpec { occupancy: 0.5, pattern: Pattern::Sequential });
    let o = run(&cfg, &wl);
    assert_eq!(o.stats.rmw_reads, 2);
    assert_eq!(o.stats.commands, 3, "page read, two-plane read, two-plane program");
    assert_eq!(o.stats.flp_commands[ssdlab::stats::FLP_MULTI_PLANE], 2);
    // Both writes end within read + read + one program (+ bus and link time, < 100 us);
    // programs one after the other would take a second tPROG of 750 us.
    let (t_read, t_prog) = (75_000_000u64, 750_000_000u64);
    let bound = 2 * t_read + t_prog + 100_000_000;
    assert!(o.sim_time_ps < bound, "last write done at {} ps, bound {bound}", o.sim_time_ps);
}

// ---------------------------------------------------------------------- 2. TSU policy

#[test]
fn out_of_order_tsu_serves_reads_before_queued_writes() {
    let mut fifo = small();
    fifo.tsu.policy = TsuPolicyKind::Fifo;
    let mut ooo = small();
    ooo.tsu.policy = TsuPolicyKind::Ooo;
    let wl = mixed_workload(20_000);
    let f = report(&fifo, &wl);
    let o = report(&ooo, &wl);
    let (rf, ro) = (f.sim.latency_us.read.mean, o.sim.latency_us.read.mean);
    assert!(ro < 0.9 * rf, "ooo read mean {ro:.1} us must beat fifo {rf:.1} us");
}

// ---------------------------------------------------------------- 3. GC victim policies

/// Every GC invocation ends in one erase; at the end of a run each plane may have one
/// invocation under way. WAF is (user + GC pages) / user pages; a GC program is a move.
fn gc_books_balance(r: &Report) {
    let g = &r.sim.gc;
    let c = &r.config.nand;
    let planes = (c.channels * c.chips_per_channel * c.dies_per_chip * c.planes_per_die) as u64;
    assert!(
        g.erases <= g.invocations && g.invocations <= g.erases + planes,
        "{} invocations, {} erases",
        g.invocations,
        g.erases
    );
    assert_eq!(g.pages_moved, r.sim.ftl.gc_pages_programmed);
    let f = &r.sim.ftl;
    let waf = (f.user_pages_programmed + f.gc_pages_programmed) as f64 / f.user_pages_programmed as f64;
    assert!((g.waf - waf).abs() < 1e-12);
}

fn steady_state_waf(policy: VictimPolicy) -> (f64, Report) {
    let mut cfg = gc_lab(policy);
    cfg.stats.interval_us = 1000.0;
    let u = logical_pages(&cfg);
    let wl = workload(5, Some((1.0, Pattern::Sequential)), vec![flow(0.0, Address::Uniform, 8192, 8, 4 * u)]);
    let r = report(&cfg, &wl);
    (windowed_waf(&r, u), r)
}

#[test]
fn gc_policies_all_run_and_greedy_amplifies_least_under_uniform_writes() {
    let (greedy, _) = steady_state_waf(VictimPolicy::Greedy);
    let mut others = Vec::new();
    for policy in [VictimPolicy::CostBenefit, VictimPolicy::Fifo, VictimPolicy::Random, VictimPolicy::DChoices] {
        let (waf, r) = steady_state_waf(policy);
        assert!(r.sim.gc.invocations > 0 && r.sim.gc.erases > 0, "{policy:?}: GC must run");
        assert!(waf > 1.0, "{policy:?}: WAF {waf}");
        gc_books_balance(&r);
        others.push((policy, waf));
    }
    // Under uniform random writes every valid page is equally likely to be invalidated next,
    // so the block with the fewest valid pages is always the cheapest to clean: no policy
    // can do better than greedy (1% slack for the finite run).
    for &(policy, waf) in &others {
        assert!(greedy <= waf * 1.01, "greedy WAF {greedy:.3} vs {policy:?} {waf:.3}");
    }
    let random = others.iter().find(|o| o.0 == VictimPolicy::Random).unwrap().1;
    assert!(random > greedy * 1.05, "random WAF {random:.3} must be clearly above greedy {greedy:.3}");
}

// ------------------------------------------------------------------------- 4. copyback

#[test]
fn copyback_moves_the_same_pages_without_bus_transfers() {
    // A slow bus (100 MT/s: 82 us per 8 KiB page) makes a GC move's two page transfers
    // (data out, data in) expensive; copyback moves a page inside its plane.
    let mut base = small();
    base.nand.bus.rate_mt_s = 100.0;
    let u = logical_pages(&base);
    let wl = workload(9, Some((1.0, Pattern::Random)), vec![flow(0.0, Address::Uniform, 8192, 32, u)]);
    let mut cb = base.clone();
    cb.ftl.gc.copyback = true;
    let a = report(&base, &wl);
    let b = report(&cb, &wl);
    for r in [&a, &b] {
        gc_books_balance(r);
        assert_eq!(r.sim.ftl.user_pages_programmed, u, "every 8 KiB write programs one page");
        assert_eq!(r.sim.flash.read_modify_writes, 0);
        assert!(r.sim.gc.pages_moved > u / 2, "the run must be GC-heavy");
    }
    // Same victim policy, same writes: the same amount of data moved (timing shifts which
    // pages are still valid when a victim is chosen, so allow 5%).
    let (ma, mb) = (a.sim.gc.pages_moved as f64, b.sim.gc.pages_moved as f64);
    assert!((mb / ma - 1.0).abs() < 0.05, "pages moved {ma} (read + program) vs {mb} (copyback)");
    // Page operations: a copyback is one operation per page moved, read + program two.
    // Programs and moves are counted when their command starts, erases when they finish:
    // up to one erase per plane (16) may still be running when the last request completes.
    let ops =
        |r: &Report, per_move: u64| r.sim.ftl.user_pages_programmed + per_move * r.sim.gc.pages_moved + r.sim.gc.erases;
    let (mb_ops, mb_expect) = (b.sim.flash.memory_requests, ops(&b, 1));
    assert!(
        (mb_expect..=mb_expect + 16).contains(&mb_ops),
        "copyback: {mb_ops} page operations vs user programs + moves + erases = {mb_expect}"
    );
    // Without copyback a GC read whose page is overwritten meanwhile is not followed by a
    // program, so reads may exceed moves a little.
    let (ma_ops, ma_expect) = (a.sim.flash.memory_requests, ops(&a, 2));
    assert!(
        (ma_expect..=ma_expect + 16 + a.sim.gc.pages_moved / 20).contains(&ma_ops),
        "read + program: {ma_ops} page operations vs user programs + 2 × moves + erases = {ma_expect}"
    );
    assert!(
        b.sim.host.write_bandwidth_mb_s > a.sim.host.write_bandwidth_mb_s,
        "copyback write bandwidth {:.2} MB/s vs {:.2} MB/s",
        b.sim.host.write_bandwidth_mb_s,
        a.sim.host.write_bandwidth_mb_s
    );
}

// ---------------------------------------------------------------------- 5. background GC

/// Bursts of page-sized random overwrites of logical pages `0 .. span`, each burst arriving
/// at one instant, bursts `gap_ns` apart (the first at 0).
fn bursty_trace(cfg: &Config, name: &str, span: u64, bursts: u64, per_burst: u64, gap_ns: u64) -> PathBuf {
    let spp = (cfg.nand.page_bytes / cfg.nand.sector_bytes) as u64;
    let mut mix = Mix(17);
    let mut lines = Vec::new();
    for b in 0..bursts {
        for _ in 0..per_burst {
            lines.push((b * gap_ns, mix.next(span) * spp, spp as u32, false));
        }
    }
    trace_file(name, &lines)
}

#[test]
fn background_gc_cleans_in_idle_time_and_shortens_bursts() {
    // 85% occupancy: each plane holds 43.5 blocks of data, so up to 18 of its 64 blocks can
    // be free. Foreground GC keeps 4 (ceil(64 × 0.05)); background GC on an idle chip
    // cleans up to 13 (ceil(64 × 0.2)).
    let mut fg = small();
    fg.stats.interval_us = 100_000.0;
    let mut bg = fg.clone();
    bg.ftl.gc.background_threshold = 0.2;
    let occupancy = 0.85;
    let span = (logical_pages(&fg) as f64 * occupancy) as u64;
    // A burst of 3072 pages takes 6 blocks from each of the 16 planes; 2 s gaps.
    let path = bursty_trace(&fg, "bg", span, 4, 3072, 2_000_000_000);
    let mut wl = trace_workload(path, Replay::Timestamps, 1024);
    wl.precondition = Some(PreconditionSpec { occupancy, pattern: Pattern::Random });
    let a = report(&fg, &wl);
    let b = report(&bg, &wl);
    let most_free = |r: &Report| r.sim.time_series.iter().map(|s| s.free_blocks_min).max().unwrap();
    // Preconditioning leaves G + 2 = 6 blocks free; foreground GC alone never frees more
    // than it needs to get back to G = 4.
    assert!(most_free(&a) <= 6, "foreground GC alone left {} free blocks", most_free(&a));
    assert!(most_free(&b) >= 13, "background GC reached only {} free blocks on every plane", most_free(&b));
    let (wa, wb) = (a.sim.latency_us.write.mean, b.sim.latency_us.write.mean);
    assert!(wb < 0.8 * wa, "burst write latency with background GC {wb:.1} us vs without {wa:.1} us");
}

// ----------------------------------------------------------------------- 6. wear levelling

/// Erase-count spread of the FTL alone (its public API, GC done synchronously) under hot/cold
/// page overwrites: 90% of writes to the first 10% of the logical pages. The simulator's
/// outcome does not expose erase counts, so the policy is checked on the FTL directly.
fn erase_spread(static_threshold: u32) -> (u32, u64) {
    let mut cfg = gc_lab(VictimPolicy::Greedy);
    cfg.ftl.wear_leveling.static_threshold = static_threshold;
    let mut ftl = Ftl::new(&cfg.nand, &cfg.ftl, 1);
    let u = ftl.logical_pages() as u64;
    let hot = u / 10;
    let mut moved = 0u64;
    let mut pages = Vec::new();
    let mut gc = |ftl: &mut Ftl, plane: u32, moved: &mut u64| {
        if ftl.start_gc(plane, &mut pages).is_none() {
            return false;
        }
        for page in &pages {
            let (ppn, _) = ftl.allocate(plane, Stream::Gc).expect("GC has room");
            ftl.commit_write(page.lpn, ppn, 0);
            *moved += 1;
        }
        ftl.finish_gc(plane);
        true
    };
    let mut mix = Mix(3);
    let load = vec![0u32; 1];
    for i in 0..u * 12 {
        // Fill every page once, then overwrite hot/cold.
        let lpn = if i < u {
            i
        } else if mix.next(10) < 9 {
            mix.next(hot)
        } else {
            hot + mix.next(u - hot)
        } as u32;
        let plane = ftl.write_plane(lpn, &load, 0);
        let ppn = loop {
            if let Some((ppn, _)) = ftl.allocate(plane, Stream::User) {
                break ppn;
            }
            assert!(gc(&mut ftl, plane, &mut moved), "no victim while user writes wait");
        };
        ftl.commit_write(lpn, ppn, 0);
        while ftl.needs_gc(plane) {
            if !gc(&mut ftl, plane, &mut moved) {
                break;
            }
        }
    }
    ftl.check();
    let counts = ftl.erase_counts();
    (counts.iter().max().unwrap() - counts.iter().min().unwrap(), moved)
}

#[test]
fn static_wear_levelling_narrows_the_erase_count_spread() {
    let (spread_off, moved_off) = erase_spread(0);
    let (spread_on, moved_on) = erase_spread(4);
    // Hot/cold writes wear the blocks that hold hot data while cold blocks keep their erase
    // count; static WL recycles the coldest block whenever the spread exceeds 4.
    assert!(spread_off > 10, "hot/cold writes must skew wear without static WL: spread {spread_off}");
    assert!(spread_on < spread_off, "static WL spread {spread_on} vs {spread_off} without");
    assert!(spread_on <= 4 + 2, "static WL must keep the spread near its threshold: {spread_on}");
    // The price: cold data is moved that greedy would have left alone.
    assert!(moved_on > moved_off, "pages moved with static WL {moved_on} vs {moved_off} without");
}

#[test]
fn static_wear_levelling_moves_cold_data_in_the_simulator() {
    // What the simulator's report can show of static WL: it costs extra GC moves under a
    // hot/cold load (cold full blocks are collected), and runs to completion.
    let mut off = gc_lab(VictimPolicy::Greedy);
    off.ftl.wear_leveling.static_threshold = 0;
    let mut on = off.clone();
    on.ftl.wear_leveling.static_threshold = 4;
    let u = logical_pages(&off);
    let mut f = flow(0.0, Address::HotCold, 8192, 8, 8 * u);
    f.hot_fraction = 0.1;
    f.hot_access = 0.9;
    let wl = workload(21, Some((1.0, Pattern::Sequential)), vec![f]);
    let a = report(&off, &wl);
    let b = report(&on, &wl);
    assert_eq!(b.sim.host.requests_completed, 8 * u);
    gc_books_balance(&a);
    gc_books_balance(&b);
    assert!(
        b.sim.gc.pages_moved > a.sim.gc.pages_moved,
        "static WL must move cold pages: {} moved with it, {} without",
        b.sim.gc.pages_moved,
        a.sim.gc.pages_moved
    );
}

// ------------------------------------------------------------------------ 7. allocation

/// Sequential page-sized (4 KiB pages) writes at queue depth `qd` on a fresh drive.
fn sequential_write_iops(allocation: &str, qd: u32) -> f64 {
    let mut cfg = small();
    cfg.nand.page_bytes = 4096;
    cfg.nand.pages_per_block = 64;
    cfg.ftl.allocation = AllocationScheme::parse(allocation).unwrap();
    let wl = workload(1, None, vec![flow(0.0, Address::Sequential, 4096, qd, 4000)]);
    report(&cfg, &wl).sim.host.iops
}

#[test]
fn allocation_order_decides_how_many_chips_a_sequential_stream_uses() {
    // QD 1: one write at a time on an idle drive costs the same wherever it lands.
    let one: Vec<f64> = ["CWDP", "PDWC", "dynamic"].iter().map(|a| sequential_write_iops(a, 1)).collect();
    for x in &one {
        assert!((x / one[0] - 1.0).abs() < 0.001, "QD1 IOPS must not depend on allocation: {one:?}");
    }
    // QD 2: CWDP puts consecutive pages on different channels (lpn mod 2), so the two writes
    // in flight always program in parallel: twice the QD1 rate. Dynamic allocation sends the
    // second write to an idle chip: the same. PDWC fills the four planes of one chip (two
    // planes × two dies) before moving to the next chip: the second write in flight finds
    // its chip programming the first and waits, except when the pair straddles two chips —
    // one of every four writes overlaps, so four writes take three program times.
    let cwdp = sequential_write_iops("CWDP", 2);
    let pdwc = sequential_write_iops("PDWC", 2);
    let dynamic = sequential_write_iops("dynamic", 2);
    let near = |x: f64, want: f64| (x / want - 1.0).abs() < 0.03;
    assert!(near(cwdp, 2.0 * one[0]), "CWDP at QD2: {cwdp:.0} IOPS, QD1 {:.0}", one[0]);
    assert!(near(dynamic, 2.0 * one[0]), "dynamic at QD2: {dynamic:.0} IOPS, QD1 {:.0}", one[0]);
    assert!(near(pdwc, 4.0 / 3.0 * one[0]), "PDWC at QD2: {pdwc:.0} IOPS, QD1 {:.0}", one[0]);
}

// --------------------------------------------------------------------- 8. host interface

fn three_tenants(cfg: &mut Config) -> Report {
    cfg.hil.queue_depth = 16;
    let mut flows = Vec::new();
    for (name, priority) in [("high", Priority::High), ("medium", Priority::Medium), ("low", Priority::Low)] {
        let mut f = flow(1.0, Address::Uniform, 4096, 32, 0);
        f.name = name.into();
        f.priority = priority;
        f.duration_ms = 100.0;
        flows.push(f);
    }
    report(cfg, &workload(2, Some((1.0, Pattern::Random)), flows))
}

#[test]
fn weighted_round_robin_shares_the_device_by_weight() {
    let mut cfg = small();
    cfg.hif.arbitration = Arbitration::WeightedRoundRobin;
    cfg.hif.wrr_weights = vec![4, 2, 1];
    let r = three_tenants(&mut cfg);
    let n: Vec<f64> = r.sim.flows.iter().map(|f| f.requests_completed as f64).collect();
    // 96 requests outstanding for 16 tags: every queue always has a command waiting, so
    // fetches (and completions) follow the weights.
    for (k, w) in [(1, 2.0), (2, 4.0)] {
        let ratio = n[0] / n[k];
        assert!((ratio / w - 1.0).abs() < 0.15, "high/flow{k} = {ratio:.3}, weights say {w}: {n:?}");
    }
}

#[test]
fn round_robin_shares_the_device_equally() {
    let mut cfg = small();
    cfg.hif.arbitration = Arbitration::RoundRobin;
    let r = three_tenants(&mut cfg);
    let n: Vec<f64> = r.sim.flows.iter().map(|f| f.requests_completed as f64).collect();
    for k in 1..3 {
        assert!((n[0] / n[k] - 1.0).abs() < 0.15, "round robin must share equally: {n:?}");
    }
}

#[test]
fn sata_holds_at_most_32_commands() {
    let wl = workload(4, Some((1.0, Pattern::Random)), vec![flow(1.0, Address::Uniform, 4096, 64, 20_000)]);
    let mut nvme = small();
    nvme.hil.queue_depth = 64;
    let mut sata = nvme.clone();
    sata.hif.interface = Interface::Sata;
    let a = report(&nvme, &wl);
    let b = report(&sata, &wl);
    // Little's law: commands in the device on average = throughput × device time.
    let in_device = |r: &Report| r.sim.host.iops * r.sim.host.device_us_mean / 1e6;
    assert!(in_device(&b) <= 32.0 * 1.001, "SATA device holds {:.2} commands on average", in_device(&b));
    assert!(in_device(&a) > 60.0, "NVMe with 64 tags holds all 64: {:.2}", in_device(&a));
    assert!(b.sim.host.queue_stall_s > 0.0 && b.sim.host.host_wait_us_mean > 0.0);
    assert_eq!(a.sim.host.queue_stall_s, 0.0, "64 tags for 64 outstanding requests never stall");
}

// ------------------------------------------------------------------------ 9. write cache

#[test]
fn write_cache_absorbs_rewrites_of_a_hot_set() {
    // 64 hot pages rewritten 10,000 times through a 256-page cache: only the first write of
    // each page inserts it, every later one is absorbed, and with the cache never full
    // nothing needs writing back.
    let mut cfg = small();
    cfg.cache.enabled = true;
    cfg.cache.capacity_bytes = 256 * 8192;
    let mut f = flow(0.0, Address::Uniform, 8192, 8, 10_000);
    f.footprint = 64.0 / logical_pages(&cfg) as f64;
    let r = report(&cfg, &workload(6, None, vec![f]));
    assert!(r.sim.cache.write_hits >= 10_000 - 64, "{} write hits", r.sim.cache.write_hits);
    assert!(r.sim.ftl.user_pages_programmed <= 64, "{} user pages programmed", r.sim.ftl.user_pages_programmed);
    // Writes complete at link + DRAM speed, far below one tPROG (750 us).
    assert!(r.sim.latency_us.write.mean < 75.0, "cached write mean {:.1} us", r.sim.latency_us.write.mean);
}

/// Picoseconds `bytes` take on the default PCIe link (4 × 1 GB/s, 256 B payloads + 24 B).
fn pcie_ps(bytes: u64) -> u64 {
    common::pcie_ps(bytes, 4_000_000_000)
}

#[test]
fn reads_of_just_written_data_hit_the_cache() {
    let mut cfg = small();
    cfg.cache.enabled = true;
    cfg.cache.capacity_bytes = 256 * 8192;
    // Write 64 pages 10 us apart, then read them back 10 us apart: 10 us is more than a
    // page's 2.24 us on the link, so nothing queues.
    let spp = 16;
    let mut lines: Vec<(u64, u64, u32, bool)> = (0..64).map(|p| (p * 10_000, p * spp, 16, false)).collect();
    lines.extend((0..64).map(|p| (1_000_000 + p * 10_000, p * spp, 16, true)));
    let o = run(&cfg, &trace_workload(trace_file("cache-hit", &lines), Replay::Timestamps, 64));
    assert_eq!((o.stats.cache_read_hits, o.stats.cache_read_misses), (64, 0));
    assert_eq!(o.stats.user_pages_programmed, 0, "nothing is written back from a cache with room");
    // A cached write completes when its data is in DRAM (access time 0): one page over the
    // link. A hit costs its page over the link back, and nothing else.
    let page = pcie_ps(8192) as u128;
    assert_eq!(o.stats.write.sum_ps, 64 * page, "cached writes complete at link speed");
    assert_eq!(o.stats.read.sum_ps, 64 * page, "cache hits complete at link speed");
    // Reads of pages never written miss and go to flash (at least tR each).
    lines.extend((0..64).map(|p| (2_000_000 + p * 1_000_000, (1000 + p) * spp, 16, true)));
    let o = run(&cfg, &trace_workload(trace_file("cache-miss", &lines), Replay::Timestamps, 64));
    assert_eq!((o.stats.cache_read_hits, o.stats.cache_read_misses), (64, 64));
    assert!(o.stats.read.sum_ps >= 64 * page + 64 * (75_000_000 + page));
}

// ------------------------------------------------------------------------------ 10. TRIM

#[test]
fn trims_lower_write_amplification() {
    // The same request stream twice: once 25% of it are TRIMs, once those 25% are reads
    // (the generator draws the same numbers, so writes hit the same pages in both). With
    // trims, at equilibrium only 75% of the logical pages hold data (writes map a page with
    // probability 3/4, trims unmap one with 1/4): victims hold fewer valid pages.
    let cfg = gc_lab(VictimPolicy::Greedy);
    let u = logical_pages(&cfg);
    let mk = |trim: f64| {
        let mut f = flow(0.25 - trim, Address::Uniform, 8192, 8, 4 * u);
        f.trim_ratio = trim;
        workload(8, Some((1.0, Pattern::Random)), vec![f])
    };
    let with = report(&cfg, &mk(0.25));
    let without = report(&cfg, &mk(0.0));
    assert_eq!(with.sim.ftl.user_pages_programmed, without.sim.ftl.user_pages_programmed);
    assert!(
        with.sim.gc.waf < 0.8 * without.sim.gc.waf,
        "WAF with trims {:.3} vs without {:.3}",
        with.sim.gc.waf,
        without.sim.gc.waf
    );
}

// ---------------------------------------------------------------------------- 11. replay

/// 200 4 KiB reads 1 ms apart (each is served in ~0.1 ms: the drive is idle for each).
fn light_trace(name: &str, gap_ns: u64) -> PathBuf {
    let lines: Vec<_> = (0..200u64).map(|i| (i * gap_ns, (i * 37 % 1000) * 16, 8, true)).collect();
    trace_file(name, &lines)
}

#[test]
fn timestamps_replay_divides_arrival_times_by_the_speedup() {
    let cfg = small();
    let path = light_trace("speed", 1_000_000);
    let mut wl = trace_workload(path, Replay::Timestamps, 64);
    let one = run(&cfg, &wl);
    wl.flows[0].speedup = 2.0;
    let two = run(&cfg, &wl);
    // Each read finds the drive idle, so its latency does not depend on the speedup, and the
    // run ends one latency after the last arrival: 199 ms or 99.5 ms.
    let last_latency = one.stats.read.sum_ps / 200;
    assert_eq!(one.stats.read.sum_ps, two.stats.read.sum_ps, "latencies of an idle drive do not change");
    assert!(
        one.sim_time_ps >= 199_000_000_000 && one.sim_time_ps < 199_000_000_000 + 2 * last_latency as u64,
        "speedup 1: {} ps",
        one.sim_time_ps
    );
    assert!(
        two.sim_time_ps >= 99_500_000_000 && two.sim_time_ps < 99_500_000_000 + 2 * last_latency as u64,
        "speedup 2: {} ps",
        two.sim_time_ps
    );
}

#[test]
fn closed_loop_replay_ignores_timestamps() {
    let cfg = small();
    let slow = run(&cfg, &trace_workload(light_trace("cl-slow", 1_000_000), Replay::ClosedLoop, 1));
    let fast = run(&cfg, &trace_workload(light_trace("cl-fast", 10), Replay::ClosedLoop, 1));
    assert_eq!(slow.sim_time_ps, fast.sim_time_ps, "closed loop must not look at trace times");
    assert_eq!(slow.stats.read.sum_ps, fast.stats.read.sum_ps);
    // Back to back at QD1: the run is the sum of 200 idle read latencies, far below the 199 ms
    // the timestamps span.
    assert_eq!(slow.sim_time_ps as u128, slow.stats.read.sum_ps);
    assert!(slow.sim_time_ps < 50_000_000_000);
}

#[test]
fn open_loop_rate_sets_the_arrival_rate() {
    // 4000 Poisson arrivals at 2000 per second span 2 s (standard deviation 1.6%); a light
    // load completes each request ~0.1 ms after it arrives, so the run lasts ~2 s.
    let mut f = flow(1.0, Address::Uniform, 4096, 64, 4000);
    f.rate_iops = 2000.0;
    let r = report(&small(), &workload(14, None, vec![f]));
    let secs = r.sim.sim_time_ps as f64 / 1e12;
    assert!((secs / 2.0 - 1.0).abs() < 0.05, "4000 requests at 2000 IOPS took {secs:.3} s");
    assert!(r.sim.latency_us.read.mean < 200.0, "light load: mean {:.1} us", r.sim.latency_us.read.mean);
}

// --------------------------------------------------------------------------- 12. hazards

#[test]
fn a_read_after_a_write_to_the_same_page_waits_for_it() {
    let cfg = small();
    // lpn 0 is on channel 0, lpn 1 on channel 1 (CWDP): different chips.
    let same =
        run(&cfg, &trace_workload(trace_file("raw", &[(0, 0, 16, false), (0, 0, 16, true)]), Replay::Timestamps, 8));
    let other = run(
        &cfg,
        &trace_workload(trace_file("raw-other", &[(0, 0, 16, false), (0, 16, 16, true)]), Replay::Timestamps, 8),
    );
    let idle_read = run(&cfg, &trace_workload(trace_file("raw-idle", &[(0, 16, 16, true)]), Replay::Timestamps, 8));
    let w = same.stats.write.sum_ps;
    let r = same.stats.read.sum_ps;
    // The read may start only when the write completed, then it reads the page (tR 75 us).
    assert!(r >= w + 75_000_000, "read {r} ps vs write {w} ps");
    assert_eq!(other.stats.write.sum_ps, w, "the write is unaffected by a read elsewhere");
    assert_eq!(
        other.stats.read.sum_ps, idle_read.stats.read.sum_ps,
        "a read of another page on another chip does not wait"
    );
}

#[test]
fn a_write_after_a_read_of_the_same_page_waits_for_it() {
    let cfg = small();
    let war =
        run(&cfg, &trace_workload(trace_file("war", &[(0, 0, 16, true), (0, 0, 16, false)]), Replay::Timestamps, 8));
    let alone = run(&cfg, &trace_workload(trace_file("war-alone", &[(0, 0, 16, false)]), Replay::Timestamps, 8));
    let (r, w) = (war.stats.read.sum_ps, war.stats.write.sum_ps);
    // The write starts (sends its data, programs) only once the read has completed.
    assert_eq!(w, r + alone.stats.write.sum_ps, "write {w} ps must start when the read ({r} ps) is done");
}

#[test]
fn with_hazards_none_a_read_does_not_wait_for_a_write_to_its_page() {
    // NVMe (and MQSim) leave overlapping commands to the host: the read of page 0 issued
    // with a write to it is served as if the write were not there (it reaches the idle
    // chip while the write's data is still crossing the link), where `strict` makes it
    // wait for the write.
    let mut cfg = small();
    cfg.hil.hazards = Hazards::FuaOnly;
    let both = run(
        &cfg,
        &trace_workload(trace_file("none-raw", &[(0, 0, 16, false), (0, 0, 16, true)]), Replay::Timestamps, 8),
    );
    let read_alone = run(&cfg, &trace_workload(trace_file("none-read", &[(0, 0, 16, true)]), Replay::Timestamps, 8));
    assert_eq!(both.stats.read.sum_ps, read_alone.stats.read.sum_ps);
    assert!(both.stats.read.sum_ps < both.stats.write.sum_ps, "the read finishes before the write");
}

#[test]
fn hazards_are_judged_per_page_not_per_sector() {
    // A 4 KiB write of sectors 0-7 and a 4 KiB read of sectors 8-15 share no sector but
    // share the 8 KiB page the write rewrites: the read waits for the write.
    let cfg = small();
    let o =
        run(&cfg, &trace_workload(trace_file("page-raw", &[(0, 0, 8, false), (0, 8, 8, true)]), Replay::Timestamps, 8));
    let (w, r) = (o.stats.write.sum_ps, o.stats.read.sum_ps);
    assert!(r >= w + 75_000_000, "read {r} ps vs write {w} ps");
}

#[test]
fn fua_writes_are_never_overlapped() {
    // Every write FUA: each waits for everything before it and everything after waits for
    // it, so a queue of 16 sequential writes runs one at a time, as at queue depth 1.
    let cfg = small();
    let mk = |qd: u32, fua: f64| {
        let mut f = flow(0.0, Address::Sequential, 8192, qd, 500);
        f.fua_ratio = fua;
        report(&cfg, &workload(1, None, vec![f])).sim.host.iops
    };
    let (qd1, fua16, plain16) = (mk(1, 0.0), mk(16, 1.0), mk(16, 0.0));
    assert!((fua16 / qd1 - 1.0).abs() < 0.01, "FUA at QD16 {fua16:.0} IOPS vs QD1 {qd1:.0}");
    assert!(plain16 > 4.0 * qd1, "without FUA QD16 overlaps: {plain16:.0} IOPS");
}

// ---------------------------------------------------------------------- 13. time series

fn time_series_run() -> Report {
    let mut cfg = small();
    cfg.stats.interval_us = 700.0; // not a divisor of anything in the run
    let wl = workload(12, Some((0.9, Pattern::Random)), vec![flow(0.6, Address::Uniform, 8192, 16, 30_000)]);
    report(&cfg, &wl)
}

#[test]
fn time_series_counters_are_cumulative() {
    let r = time_series_run();
    let ts = &r.sim.time_series;
    assert!(ts.len() > 100);
    for pair in ts.windows(2) {
        assert!(pair[1].user_pages_programmed >= pair[0].user_pages_programmed);
        assert!(pair[1].gc_pages_programmed >= pair[0].gc_pages_programmed);
    }
    // Full windows every interval; the last one is the partial window up to the end.
    let (last, full) = ts.split_last().unwrap();
    for pair in full.windows(2) {
        assert!((pair[1].t_us - pair[0].t_us - 700.0).abs() < 1e-6, "samples every interval");
    }
    let tail_us = last.t_us - full.last().unwrap().t_us;
    assert!(tail_us > 0.0 && tail_us <= 700.0 + 1e-6, "final partial window of {tail_us} us");
    for s in full {
        assert!(s.user_pages_programmed <= r.sim.ftl.user_pages_programmed);
        assert!((s.iops - s.requests as f64 / 700e-6).abs() < 1e-6 * s.iops.max(1.0));
    }
    assert!((last.iops - last.requests as f64 / (tail_us * 1e-6)).abs() < 1e-6 * last.iops.max(1.0));
}

#[test]
fn time_series_accounts_for_every_request() {
    let r = time_series_run();
    let ts = &r.sim.time_series;
    let total: u64 = ts.iter().map(|s| s.requests).sum();
    assert_eq!(total, r.sim.host.requests_completed, "per-interval requests must add up to the run's");
    let last = ts.last().unwrap();
    assert_eq!(last.user_pages_programmed, r.sim.ftl.user_pages_programmed, "the last sample must hold the totals");
    assert_eq!(last.gc_pages_programmed, r.sim.ftl.gc_pages_programmed);
}

#[test]
fn time_series_of_a_short_run_is_not_empty() {
    let mut cfg = small();
    cfg.stats.interval_us = 1_000_000.0; // 1 s; the run below takes ~0.1 s
    let r = report(&cfg, &workload(12, None, vec![flow(1.0, Address::Uniform, 4096, 16, 5_000)]));
    assert!(r.sim.sim_time_ps < 1_000_000_000_000);
    let total: u64 = r.sim.time_series.iter().map(|s| s.requests).sum();
    assert_eq!(total, 5_000, "{} samples", r.sim.time_series.len());
}

#[test]
fn outcome_and_report_agree_on_page_operations() {
    let o = run(&small(), &mixed_workload(2_000));
    let r = Report::from_outcome(&o);
    assert!(r.sim.flash.memory_requests > 0);
    assert_eq!(o.stats.page_ops, r.sim.flash.memory_requests);
}

#[test]
fn effective_spare_factor_governs_steady_state_waf_at_the_default_gc_threshold() {
    // S_f = (D − L) / D with D counting all blocks but the free blocks GC actually keeps
    // (measured while GC runs) and the two frontiers. The fidelity test checks Desnoyers'
    // model with threshold 0.005 (G = 2); here the default 0.05 (G = 13 of 256 blocks),
    // hard threshold 0.001 (R = 1), where a saturating load keeps fewer than G blocks free.
    let mut cfg = gc_lab(VictimPolicy::Fifo);
    cfg.nand.planes_per_die = 1;
    cfg.nand.blocks_per_plane = 256;
    cfg.nand.pages_per_block = 64;
    cfg.nand.page_bytes = 4096;
    cfg.ftl.gc.threshold = 0.05;
    cfg.ftl.gc.hard_threshold = 0.001;
    cfg.stats.interval_us = 1000.0;
    let u = logical_pages(&cfg);
    let wl = workload(7, Some((1.0, Pattern::Sequential)), vec![flow(0.0, Address::Uniform, 4096, 8, 8 * u)]);
    let r = report(&cfg, &wl);
    let waf = windowed_waf(&r, 4 * u);
    let sf = r.sim.gc.effective_spare_factor;
    let tail = &r.sim.time_series[r.sim.time_series.len() / 2..];
    let free = tail.iter().map(|s| s.free_blocks_min as f64).sum::<f64>() / tail.len() as f64;
    assert!(
        (waf / lrw_waf(sf) - 1.0).abs() < 0.03,
        "S_f {sf:.4}: measured WAF {waf:.3}, model {:.3}; free blocks average {free:.2} (G = 13)",
        lrw_waf(sf)
    );
}

// ---------------------------------------------------------------------- 14. firmware cores

#[test]
fn more_firmware_cores_serve_more_requests_when_firmware_is_the_bottleneck() {
    // 100 us of firmware per memory request: one core serves at most 10,000 per second,
    // well below what 4 chips read (each reads a page in ~0.1 ms, several planes at once).
    let wl = workload(13, Some((1.0, Pattern::Random)), vec![flow(1.0, Address::Uniform, 4096, 32, 10_000)]);
    let mut one = small();
    one.ftl.firmware.op_cost_ns = 100_000.0;
    one.ftl.firmware.cores = 1;
    let mut two = one.clone();
    two.ftl.firmware.cores = 2;
    let a = report(&one, &wl);
    let b = report(&two, &wl);
    assert!(a.sim.host.iops <= 10_000.0 * 1.001, "one core: {:.0} IOPS", a.sim.host.iops);
    assert!(a.sim.host.iops > 10_000.0 * 0.97, "one core must be the bottleneck: {:.0} IOPS", a.sim.host.iops);
    assert!(b.sim.host.iops <= 20_000.0 * 1.001, "two cores: {:.0} IOPS", b.sim.host.iops);
    assert!(b.sim.host.iops > 1.8 * a.sim.host.iops, "{:.0} IOPS with two cores", b.sim.host.iops);
    let (ma, mb) = (a.sim.latency_us.all.mean, b.sim.latency_us.all.mean);
    assert!(mb < 0.6 * ma, "mean latency {mb:.1} us with two cores vs {ma:.1} us with one");
}

// ------------------------------------------------------------------------------- extras

#[test]
fn urgent_submission_queues_are_served_strictly_first() {
    // An urgent and a low flow, each with more requests outstanding than the device has
    // tags: while the urgent queue has a command waiting the low queue is never fetched, so
    // the low flow completes only what it has outstanding once the urgent flow stops.
    let mut cfg = small();
    cfg.hif.arbitration = Arbitration::WeightedRoundRobin;
    cfg.hil.queue_depth = 16;
    let mut urgent = flow(1.0, Address::Uniform, 4096, 32, 0);
    urgent.priority = Priority::Urgent;
    urgent.duration_ms = 50.0;
    let mut low = flow(1.0, Address::Uniform, 4096, 32, 0);
    low.priority = Priority::Low;
    low.duration_ms = 50.0;
    let r = report(&cfg, &workload(2, Some((1.0, Pattern::Random)), vec![urgent, low]));
    let (u, l) = (r.sim.flows[0].requests_completed, r.sim.flows[1].requests_completed);
    assert!(u > 1000, "urgent completed {u}");
    assert!(l <= 32, "low completed {l} while urgent had work waiting");
}

#[test]
fn d_choices_spans_random_to_greedy() {
    // One candidate is a random victim; many candidates approach the fewest-valid block.
    let waf = |policy: VictimPolicy, d: u32| {
        let mut cfg = gc_lab(policy);
        cfg.ftl.gc.d = d;
        let u = logical_pages(&cfg);
        report(&cfg, &workload(5, Some((1.0, Pattern::Random)), vec![flow(0.0, Address::Uniform, 8192, 8, 3 * u)]))
            .sim
            .gc
    };
    let random = waf(VictimPolicy::Random, 4);
    let d1 = waf(VictimPolicy::DChoices, 1);
    assert_eq!((d1.pages_moved, d1.erases), (random.pages_moved, random.erases), "d = 1 is the random policy");
    let greedy = waf(VictimPolicy::Greedy, 4).waf;
    let d4 = waf(VictimPolicy::DChoices, 4).waf;
    let d64 = waf(VictimPolicy::DChoices, 64).waf;
    assert!(
        random.waf > d4 && d4 > d64,
        "more choices, less amplification: d=1 {:.3}, d=4 {d4:.3}, d=64 {d64:.3}",
        random.waf
    );
    assert!(d64 <= greedy * 1.02, "d = 64 of ~119 blocks is nearly greedy: {d64:.3} vs {greedy:.3}");
}

/// `--fairness`: a flow that runs alone anyway has slowdown exactly 1 (its alone run is the
/// same simulation: same config, seed, preconditioning and flow seed), so fairness and
/// weighted speedup are 1. With a second, write-heavy flow added, the read flow is slowed down.
#[test]
fn fairness_compares_each_flow_with_itself_alone() {
    let cfg = small();
    let reader = flow(1.0, Address::Uniform, 4096, 2, 2000);
    let single = workload(7, None, vec![reader.clone()]);
    let r = ssdlab::run_with_fairness(&cfg, &single, None, &RunOptions::default(), 2).unwrap();
    let f = r.sim.fairness.as_ref().unwrap();
    assert_eq!(r.sim.flows[0].slowdown, Some(1.0));
    assert_eq!((f.fairness, f.unfairness, f.weighted_speedup, f.max_slowdown), (1.0, 1.0, 1.0, 1.0));

    let writer = flow(0.0, Address::Uniform, 65536, 32, 2000);
    let both = workload(7, None, vec![reader, writer]);
    let r = ssdlab::run_with_fairness(&cfg, &both, None, &RunOptions::default(), 2).unwrap();
    let reader_slowdown = r.sim.flows[0].slowdown.unwrap();
    assert!(reader_slowdown > 1.5, "reads behind 64 KiB writes: slowdown {reader_slowdown}");
    let f = r.sim.fairness.as_ref().unwrap();
    let s: Vec<f64> = r.sim.flows.iter().map(|f| f.slowdown.unwrap()).collect();
    assert_eq!(f.max_slowdown, s[0].max(s[1]));
    assert!((f.weighted_speedup - (1.0 / s[0] + 1.0 / s[1])).abs() < 1e-12);
}

/// FLIN under GC, with the integrity oracle: every request completes, every read returns
/// the last data written, and all GC is charged to the flow that writes — none to a flow
/// that only reads (it wrote nothing on any chip since any erase).
#[test]
fn flin_keeps_data_under_gc_and_charges_gc_to_the_writer() {
    let mut cfg = small();
    cfg.tsu.policy = TsuPolicyKind::Flin;
    let mut writer = flow(0.3, Address::Uniform, 4096, 32, 40_000);
    writer.name = "writer".into();
    let mut reader = flow(1.0, Address::Uniform, 16384, 4, 10_000);
    reader.name = "reader".into();
    reader.priority = Priority::Urgent;
    let wl = workload(9, Some((0.9, Pattern::Random)), vec![writer, reader]);
    let opts = RunOptions { check: true, ..RunOptions::default() };
    let o = ssdlab::run_outcome(&cfg, &wl, None, &opts).unwrap();
    let r = Report::from_outcome(&o);
    let c = r.check.as_ref().unwrap();
    assert_eq!(c.violations, 0, "{:?}", c.first_violation);
    assert!(r.sim.gc.invocations > 100, "GC ran: {}", r.sim.gc.invocations);
    assert_eq!(r.sim.flows[0].requests_completed, 40_000);
    assert_eq!(r.sim.flows[1].requests_completed, 10_000);
    assert!(r.sim.flows[0].gc_charged_us.unwrap() > 0.0);
    assert_eq!(r.sim.flows[1].gc_charged_us, Some(0.0));
}
