//! Sprinkler's schedulers in the whole simulator, on a five-request example worked by hand
//! (in the manner of the paper's Figures 4, 5, 7 and 8).
//!
//! Drive: the `sprinkler-64chip` preset cut down to 3 channels × 3 chips (2 dies × 2 planes
//! each, 2 KiB pages). Never-written pages are read where static CWDP allocation puts them:
//! logical page l is on channel l % 3, chip (l / 3) % 3 of that channel, die (l / 9) % 2,
//! plane (l / 18) % 2, at page offset l / 36 — so all pages below have offset 0, and two of
//! them on one die can always share a multi-plane command. Chip C = channel × 3 + way.
//!
//! | request | pages | memory requests (chip, plane in chip: die × 2 + plane) |
//! |---|---|---|
//! | #1 | 0–3 | C0 p0, C3 p0, C6 p0, C1 p0 |
//! | #2 | 18–20 | C0 p1, C3 p1, C6 p1 |
//! | #3 | 4–6 | C4 p0, C7 p0, C2 p0 |
//! | #4 | 9–10 | C0 p2, C3 p2 |
//! | #5 | 27–28 | C0 p3, C3 p3 |
//!
//! All five arrive at t = 0. Committing whole requests to clear chips (VAS, PAS) gives a chip
//! one request's work at a time, and each request has one page per chip: 14 single-page
//! commands. With FARO (SPK1, SPK3) everything is committed at once, one request per plane;
//! with RIOS alone (SPK2) every clear chip receives all the work waiting for it in one visit
//! (Figure 7), which here, all five being queued before the first visit, is the same: C0 and
//! C3 each run one command over both planes of both dies ("both"), C6 one two-plane command
//! (p0, p1 of die 0), C1, C2, C4, C7 one page each: 7 commands, a 50 % reduction. (SPK2 and
//! SPK3 differ when work arrives for a chip that is busy: FARO over-commits it, RIOS waits.)

mod common;

use common::{preset, trace_file, trace_workload};
use ssdlab::hil::SchedulerKind;
use ssdlab::host::Replay;
use ssdlab::{Config, Report, RunOptions};

fn drive(scheduler: SchedulerKind) -> Config {
    let mut cfg = preset("sprinkler-64chip.toml");
    cfg.nand.channels = 3;
    cfg.nand.chips_per_channel = 3;
    cfg.nand.blocks_per_plane = 64;
    cfg.hil.scheduler = scheduler;
    cfg
}

/// The five requests of the table above: (arrival ns, first sector, sectors, read), 4
/// sectors per page.
const EXAMPLE: [(u64, u64, u32, bool); 5] =
    [(0, 0, 16, true), (0, 72, 12, true), (0, 16, 12, true), (0, 36, 8, true), (0, 108, 8, true)];

fn run(scheduler: SchedulerKind) -> Report {
    let path = trace_file(&format!("spk-{scheduler}"), &EXAMPLE);
    let wl = trace_workload(path, Replay::Timestamps, 32);
    ssdlab::run(&drive(scheduler), &wl, None, &RunOptions::default()).unwrap()
}

#[test]
fn whole_request_commits_make_every_page_its_own_command() {
    for s in [SchedulerKind::Vas, SchedulerKind::Pas] {
        let r = run(s);
        let f = &r.sim.flash;
        assert_eq!(r.sim.host.requests_completed, 5, "{s}");
        assert_eq!(f.memory_requests, 14, "{s}");
        assert_eq!(f.transactions, 14, "{s}: one command per page");
        assert_eq!(f.transaction_reduction, 0.0, "{s}");
        assert_eq!(f.flp.single, 1.0, "{s}");
        // Every command uses one of a chip's four planes: a quarter of the chip time.
        assert!((f.plane_utilization - f.chip_utilization / 4.0).abs() < 1e-12, "{s}: {f:?}");
    }
}

#[test]
fn per_chip_commits_build_the_widest_commands_the_example_allows() {
    for s in [SchedulerKind::Spk1, SchedulerKind::Spk2, SchedulerKind::Spk3] {
        let r = run(s);
        let f = &r.sim.flash;
        assert_eq!(f.memory_requests, 14, "{s}");
        assert_eq!(f.transactions, 7, "{s}");
        assert!((f.transaction_reduction - 0.5).abs() < 1e-12, "{s}: {}", f.transaction_reduction);
        assert!((f.flp.single - 4.0 / 7.0).abs() < 1e-12, "{s}: {:?}", f.flp);
        assert!((f.flp.multi_plane - 1.0 / 7.0).abs() < 1e-12, "{s}: {:?}", f.flp);
        assert!((f.flp.both - 2.0 / 7.0).abs() < 1e-12, "{s}: {:?}", f.flp);
        assert_eq!(f.flp.die_interleave, 0.0, "{s}");
        // By pages served (Figure 14's measure): 4 single pages, 2 in the two-plane command,
        // 8 in the two four-plane ones, of 14.
        assert!((f.flp_pages.single - 4.0 / 14.0).abs() < 1e-12, "{s}: {:?}", f.flp_pages);
        assert!((f.flp_pages.multi_plane - 2.0 / 14.0).abs() < 1e-12, "{s}: {:?}", f.flp_pages);
        assert!((f.flp_pages.both - 8.0 / 14.0).abs() < 1e-12, "{s}: {:?}", f.flp_pages);
    }
}

/// C0 and C3 hold four pages each: one page per command (VAS, PAS) needs four array reads in
/// turn there, one four-plane command (SPK2, SPK3) needs one (the data still leaves one page
/// at a time over the shared channel). The last request completes sooner with SPK3 than with
/// PAS, and SPK2 builds the same commands as SPK3 here.
#[test]
fn over_commitment_shortens_the_example() {
    let time = |s| run(s).sim.sim_time_ps;
    let (vas, pas, spk2, spk3) =
        (time(SchedulerKind::Vas), time(SchedulerKind::Pas), time(SchedulerKind::Spk2), time(SchedulerKind::Spk3));
    // At least one 20 µs array read saved on C0 and C3.
    assert!(spk3 + 20_000_000 <= vas, "spk3 {spk3} vas {vas}");
    assert!(spk3 + 20_000_000 <= pas, "spk3 {spk3} pas {pas}");
    assert_eq!(spk2, spk3);
}

/// VAS and the device queue's depth (issue 31 item 7). VAS commits requests in arrival order
/// and stalls at the first one that collides (Sprinkler §3, Figure 4(a)): #1 goes, #2
/// collides with #1 on C0 and waits; once #2 goes, #3 (C4, C7, C2: no collision) follows at
/// once if it is already in the device, and #4 then stalls on C0 behind #2, #5 behind #4.
/// So VAS gains from a tag only up to the request after the stalled one: 2 tags leave #3
/// outside until #1 completes; 3 tags hold it, and every tag beyond holds requests behind a
/// stall — 3, 4, 5 and 32 tags end at the same time. This is why 32 and 256 tags give VAS
/// the same throughput on the paper's workloads: its first collision always falls within
/// the first few requests.
#[test]
fn vas_gains_nothing_from_tags_beyond_the_request_after_its_stall() {
    let time = |tags: u32| {
        let mut cfg = drive(SchedulerKind::Vas);
        cfg.hil.queue_depth = tags;
        let wl = trace_workload(trace_file(&format!("depth-vas-{tags}"), &EXAMPLE), Replay::Timestamps, 32);
        ssdlab::run(&cfg, &wl, None, &RunOptions::default()).unwrap().sim.sim_time_ps
    };
    let three = time(3);
    assert!(three < time(2), "the third tag lets #3 follow #2 at once");
    for tags in [4, 5, 32] {
        assert_eq!(time(tags), three, "{tags} tags");
    }
}
