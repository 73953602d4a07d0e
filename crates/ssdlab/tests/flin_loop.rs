//! Looping trace flows (`loop = true`), as the FLIN reproduction runs them: a short trace
//! replayed at its timestamps keeps issuing for the whole run, and issues the same requests
//! whether it runs alone or beside a flow that loads the drive, so a slowdown (mean response
//! time shared / alone) compares the same requests.

mod common;

use common::{preset, trace_file};
use ssdlab::host::{Address, FlowKind, FlowSpec, Replay, WorkloadSpec};
use ssdlab::tsu::TsuPolicyKind;
use ssdlab::{Config, Report, RunOptions};

/// 2 channels × 2 chips × 2 dies × 2 planes of 64 blocks × 32 pages, FLIN in the TSU.
fn small_flin() -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 2;
    cfg.nand.chips_per_channel = 2;
    cfg.nand.blocks_per_plane = 64;
    cfg.nand.pages_per_block = 32;
    cfg.ftl.overprovisioning_ratio = 0.2;
    cfg.tsu.policy = TsuPolicyKind::Flin;
    cfg
}

fn run(cfg: &Config, flows: Vec<FlowSpec>) -> Report {
    cfg.validate("test").expect("valid test config");
    let wl = WorkloadSpec { source: String::new(), seed: 3, precondition: None, ramp_ms: 0.0, flows };
    Report::from_outcome(&ssdlab::run_outcome(cfg, &wl, None, &RunOptions::default()).expect("run succeeds"))
}

/// Four 4 KiB reads at 0, 30, 50 and 200 µs, looped at their timestamps for 2 ms.
fn looped_trace(name: &str) -> FlowSpec {
    let lines = [(0, 0, 8, true), (30_000, 64, 8, true), (50_000, 128, 8, true), (200_000, 192, 8, true)];
    FlowSpec {
        name: "looped".into(),
        kind: FlowKind::Trace,
        path: Some(trace_file(name, &lines)),
        replay: Replay::Timestamps,
        loop_trace: true,
        duration_ms: 2.0,
        ..FlowSpec::default()
    }
}

/// A closed-loop writer of 64 KiB at 32 outstanding for the same 2 ms: it keeps every chip busy.
fn hog() -> FlowSpec {
    FlowSpec {
        name: "hog".into(),
        read_ratio: 0.0,
        request_bytes: 65536,
        align_bytes: 65536,
        address: Address::Uniform,
        queue_depth: Some(32),
        duration_ms: 2.0,
        ..FlowSpec::default()
    }
}

/// The period is span 200 µs + mean gap 200/3 µs = 266.666667 µs (266_666_667 ps, the gap
/// rounded to the nearest ps). Passes 0..=6 start before 2 ms - 200 µs and issue all four
/// requests (28); pass 7 starts at 1866.67 µs and issues those at +0, +30 and +50 µs
/// (1866.67, 1896.67, 1916.67 µs) but not +200 µs (2066.67 µs, past 2 ms): 31 requests.
const LOOPED_REQUESTS: u64 = 31;

#[test]
fn a_looped_trace_flow_issues_the_same_requests_alone_and_shared() {
    let cfg = small_flin();
    let alone = run(&cfg, vec![looped_trace("loop-alone")]);
    let shared = run(&cfg, vec![looped_trace("loop-shared"), hog()]);
    assert_eq!(alone.sim.flows[0].requests_completed, LOOPED_REQUESTS);
    assert_eq!(shared.sim.flows[0].requests_completed, LOOPED_REQUESTS);
    // The last request arrives at 1916.67 µs: both runs last at least that long.
    for r in [&alone, &shared] {
        assert!(r.sim.sim_time_ps >= 1_916_666_669, "ended at {} ps", r.sim.sim_time_ps);
    }
    // The hog is there: the looped flow's reads wait behind its writes.
    assert!(shared.sim.flows[1].requests_completed > 0);
    assert!(shared.sim.flows[0].latency_us.mean > alone.sim.flows[0].latency_us.mean);
}

#[test]
fn without_loop_the_trace_flow_stops_after_one_pass() {
    let cfg = small_flin();
    let once = FlowSpec { loop_trace: false, ..looped_trace("loop-once") };
    let alone = run(&cfg, vec![once.clone()]);
    let shared = run(&cfg, vec![once, hog()]);
    assert_eq!(alone.sim.flows[0].requests_completed, 4);
    assert_eq!(shared.sim.flows[0].requests_completed, 4);
}

#[test]
fn a_looped_closed_loop_trace_runs_until_its_duration() {
    // Closed loop at one outstanding: one 4 KiB read at a time on an idle drive, each well
    // under 200 µs, so 2 ms takes more than 10 reads — more than two passes of the trace.
    let cfg = small_flin();
    let f = FlowSpec { replay: Replay::ClosedLoop, queue_depth: Some(1), ..looped_trace("loop-closed") };
    let r = run(&cfg, vec![f]);
    let n = r.sim.flows[0].requests_completed;
    let mean_ps = r.sim.flows[0].latency_us.mean * 1e6;
    // Back to back: requests = the 2 ms divided by one read's latency, rounded up (the one
    // that starts before 2 ms and ends after it also counts).
    assert_eq!(n, (2e9 / mean_ps).ceil() as u64, "{n} reads of {mean_ps} ps");
    assert!(n > 8);
}
