//! Fidelity: the simulator against values derived independently of it — closed-form
//! latencies, bandwidth bounds, Desnoyers' write-amplification model, hand-worked command
//! counts, the integrity oracle and determinism.

mod common;

use common::{bus_ps, lrw_waf, pcie_ps, preset, trace_file, trace_workload};
use ssdlab::ftl::precondition::Pattern;
use ssdlab::ftl::{AllocationScheme, VictimPolicy};
use ssdlab::host::{Address, FlowSpec, PreconditionSpec, Replay, WorkloadSpec};
use ssdlab::sim::Outcome;
use ssdlab::tsu::TsuPolicyKind;
use ssdlab::{Config, Report, RunOptions};

fn run(cfg: &Config, wl: &WorkloadSpec, check: bool) -> Outcome {
    cfg.validate("test").expect("valid test config");
    let opts = RunOptions { check, ..RunOptions::default() };
    ssdlab::run_outcome(cfg, wl, None, &opts).expect("run succeeds")
}

fn synthetic(read_ratio: f64, address: Address, bytes: u64, qd: u32, requests: u64) -> FlowSpec {
    FlowSpec {
        name: "f".into(),
        read_ratio,
        address,
        request_bytes: bytes,
        align_bytes: bytes.min(4096),
        queue_depth: Some(qd),
        requests,
        ..FlowSpec::default()
    }
}

// (a) ----------------------------------------------------------------------------------

#[test]
fn a_idle_4k_read_latency_is_the_sum_of_its_parts_at_any_bus_rate() {
    for rate in [333u64, 800, 1600, 3600] {
        let mut cfg = preset("mqsim-default.toml");
        cfg.nand.bus.rate_mt_s = rate as f64;
        cfg.nand.t_read_us = vec![50.0, 85.0]; // LSB, MSB: the page type must matter
                                               // Never-written pages are read where CWDP would have put them: with 128 planes,
                                               // lpn 0 is page 0 (LSB) and lpn 128 page 1 (MSB) of block 0. Requests 10 ms apart
                                               // find the drive idle; 4 KiB = 8 sectors of a 16-sector page.
        let spp = 16;
        let path = trace_file(&format!("a{rate}"), &[(0, 0, 8, true), (10_000_000, 128 * spp, 8, true)]);
        let o = run(&cfg, &trace_workload(path, Replay::Timestamps, 1), false);
        let cmd_ps = 7 * 10_000; // 7 command/address cycles of 10 ns
        let fixed = cmd_ps + bus_ps(4096, rate, 8) + pcie_ps(4096, 4_000_000_000);
        let lsb = fixed + 50_000_000;
        let msb = fixed + 85_000_000;
        assert_eq!(o.stats.read.count(), 2);
        assert_eq!(o.stats.read.sum_ps, (lsb + msb) as u128, "rate {rate} MT/s");
        assert_eq!(o.sim_time_ps, 10_000_000_000 + msb, "the MSB read completes {msb} ps after it arrives");
    }
}

#[test]
fn a_firmware_cost_adds_to_the_idle_read() {
    let mut cfg = preset("mqsim-default.toml");
    cfg.ftl.firmware.op_cost_ns = 1500.0;
    let path = trace_file("afw", &[(0, 0, 8, true)]);
    let o = run(&cfg, &trace_workload(path, Replay::Timestamps, 1), false);
    let expect = 70_000 + 75_000_000 + bus_ps(4096, 333, 8) + pcie_ps(4096, 4_000_000_000) + 1_500_000;
    assert_eq!(o.stats.read.sum_ps, expect as u128);
}

// (b) ----------------------------------------------------------------------------------

fn small_drive() -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 4;
    cfg.nand.chips_per_channel = 2;
    cfg.nand.blocks_per_plane = 64;
    cfg.nand.pages_per_block = 64;
    // 64-block planes: GC's 4 reserved blocks need more than 7% spare.
    cfg.ftl.overprovisioning_ratio = 0.15;
    cfg
}

/// Bandwidth of one closed-loop sequential flow, checked within 3% of `bound` (B/s).
fn assert_sequential_bandwidth(
    cfg: &Config,
    read_ratio: f64,
    bytes: u64,
    qd: u32,
    requests: u64,
    bound: f64,
    what: &str,
) -> Report {
    let wl = WorkloadSpec {
        source: String::new(),
        seed: 1,
        precondition: None,
        flows: vec![synthetic(read_ratio, Address::Sequential, bytes, qd, requests)],
    };
    let r = Report::from_outcome(&run(cfg, &wl, false));
    let bw = r.sim.host.bandwidth_mb_s * 1e6;
    eprintln!("(b) {what}: {bw:.4e} B/s vs bound {bound:.4e} ({:+.2}%)", (bw / bound - 1.0) * 100.0);
    assert!((bw / bound - 1.0).abs() < 0.03, "{what}: {bw:.4e} B/s vs bound {bound:.4e}");
    r
}

#[test]
fn b_sequential_read_bandwidth_meets_the_channel_bound() {
    let cfg = small_drive();
    // 4 channels × 333 MT/s × 1 byte; PCIe (4 GB/s) is not the limit.
    let bound = 4.0 * 333e6;
    assert_sequential_bandwidth(&cfg, 1.0, 256 * 1024, 32, 3000, bound, "sequential read, channel bound");
}

#[test]
fn b_sequential_read_bandwidth_meets_the_host_link_bound() {
    let mut cfg = small_drive();
    cfg.nand.bus.rate_mt_s = 3600.0;
    cfg.hif.pcie.lanes = 2; // 2 GB/s of wire bandwidth, 256/280 of it payload
    let bound = 2e9 * 256.0 / 280.0;
    assert_sequential_bandwidth(&cfg, 1.0, 256 * 1024, 32, 3000, bound, "sequential read, link bound");
}

#[test]
fn b_sequential_write_bandwidth_meets_the_program_bound() {
    let mut cfg = small_drive();
    // A fast bus so data-in is not the limit; then every plane programs a page per tPROG.
    cfg.nand.bus.rate_mt_s = 3600.0;
    let planes = 4.0 * 2.0 * 2.0 * 2.0;
    let bound = planes * 8192.0 / 750e-6;
    // 1 MiB requests cover all 32 planes four times; 500 of them fill about half the drive.
    let r = assert_sequential_bandwidth(&cfg, 0.0, 1 << 20, 16, 500, bound, "sequential write, program bound");
    assert_eq!(r.sim.gc.invocations, 0);
    assert_eq!(r.sim.gc.chip_time_fraction, 0.0);
}

// (c) ----------------------------------------------------------------------------------

fn one_die_two_planes() -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 1;
    cfg.nand.chips_per_channel = 1;
    cfg.nand.dies_per_chip = 1;
    cfg.nand.planes_per_die = 2;
    cfg.nand.blocks_per_plane = 32;
    cfg.nand.pages_per_block = 64;
    cfg.ftl.overprovisioning_ratio = 0.2;
    cfg
}

#[test]
fn c_same_offset_reads_on_two_planes_are_one_cell_operation() {
    let cfg = one_die_two_planes();
    // With one die of two planes, lpn n sits on plane n % 2 at page (n / 2) % 64.
    // lpn 4 (plane 0, page 2) keeps the chip busy while lpn 0 (plane 0, page 0) and
    // lpn 1 (plane 1, page 0) arrive: they share page offset 0 → one multi-plane command.
    let spp = 16;
    let path = trace_file("c-same", &[(0, 4 * spp, 16, true), (1000, 0, 16, true), (1000, spp, 16, true)]);
    let r = Report::from_outcome(&run(&cfg, &trace_workload(path, Replay::Timestamps, 8), false));
    assert_eq!(r.sim.flash.memory_requests, 3);
    assert_eq!(r.sim.flash.transactions, 2);
    assert!((r.sim.flash.flp.multi_plane - 0.5).abs() < 1e-12);
    // The pair costs one tR: it finishes one tR and two page transfers (bus, then link)
    // after the first read frees the chip.
    let page_out = bus_ps(8192, 333, 8);
    let cmd = 70_000;
    let first = cmd + 75_000_000 + page_out;
    let pair_done = first + 2 * cmd + 75_000_000 + 2 * page_out + 2 * pcie_ps(8192, 4_000_000_000);
    assert_eq!(r.sim.sim_time_ps, pair_done);
}

#[test]
fn c_different_offsets_are_two_cell_operations() {
    let cfg = one_die_two_planes();
    // lpn 0 (plane 0, page 0) and lpn 3 (plane 1, page 1): different offsets.
    let spp = 16;
    let path = trace_file("c-diff", &[(0, 4 * spp, 16, true), (1000, 0, 16, true), (1000, 3 * spp, 16, true)]);
    let r = Report::from_outcome(&run(&cfg, &trace_workload(path, Replay::Timestamps, 8), false));
    assert_eq!(r.sim.flash.memory_requests, 3);
    assert_eq!(r.sim.flash.transactions, 3);
    assert_eq!(r.sim.flash.flp.multi_plane, 0.0);
}

// (d) ----------------------------------------------------------------------------------

#[test]
fn d_lrw_formula_itself_matches_the_published_table() {
    for (sf, waf) in [(0.07, 7.318), (0.125, 4.182), (0.20, 2.693), (0.28, 1.992)] {
        assert!((lrw_waf(sf) - waf).abs() < 0.001);
    }
}

/// One plane of 256 blocks × 64 pages of 4 KiB; GC keeps 2 blocks free.
fn waf_drive(overprovisioning: f64, policy: VictimPolicy) -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 1;
    cfg.nand.chips_per_channel = 1;
    cfg.nand.dies_per_chip = 1;
    cfg.nand.planes_per_die = 1;
    cfg.nand.blocks_per_plane = 256;
    cfg.nand.pages_per_block = 64;
    cfg.nand.page_bytes = 4096;
    cfg.ftl.overprovisioning_ratio = overprovisioning;
    cfg.ftl.gc.policy = policy;
    cfg.ftl.gc.threshold = 0.005;
    cfg.ftl.gc.hard_threshold = 0.001;
    cfg
}

/// Steady-state WAF of uniform random 4 KiB overwrites after a sequential fill: 4 U of
/// warm-up, then 4 U measured. Returns (WAF, effective spare factor).
fn measured_waf(cfg: &mut Config) -> (f64, f64) {
    let logical = (256.0 * 64.0 * (1.0 - cfg.ftl.overprovisioning_ratio)).floor() as u64;
    cfg.stats.interval_us = 1000.0;
    let wl = WorkloadSpec {
        source: String::new(),
        seed: 7,
        precondition: Some(PreconditionSpec { occupancy: 1.0, pattern: Pattern::Sequential }),
        flows: vec![synthetic(0.0, Address::Uniform, 4096, 8, 8 * logical)],
    };
    let o = run(cfg, &wl, false);
    let r = Report::from_outcome(&o);
    let samples = &r.sim.time_series;
    // The sample where 4 U requests had completed, and the last one.
    let mut done = 0;
    let start = samples
        .iter()
        .find(|s| {
            done += s.requests;
            done >= 4 * logical
        })
        .expect("warm-up ends");
    let end = samples.last().unwrap();
    let user = (end.user_pages_programmed - start.user_pages_programmed) as f64;
    let gc = (end.gc_pages_programmed - start.gc_pages_programmed) as f64;
    ((user + gc) / user, r.sim.gc.effective_spare_factor)
}

#[test]
fn d_fifo_gc_write_amplification_matches_desnoyers_at_two_spare_factors() {
    for op in [0.14, 0.21] {
        let mut cfg = waf_drive(op, VictimPolicy::Fifo);
        let (waf, sf) = measured_waf(&mut cfg);
        let model = lrw_waf(sf);
        eprintln!(
            "(d) fifo, op {op}: S_f {sf:.4}, WAF {waf:.3} vs Desnoyers {model:.3} ({:+.2}%)",
            (waf / model - 1.0) * 100.0
        );
        assert!((waf / model - 1.0).abs() < 0.03, "op {op}: S_f {sf:.4}, measured WAF {waf:.3}, model {model:.3}");
    }
}

#[test]
fn d_greedy_amplifies_less_than_fifo() {
    let (fifo, _) = measured_waf(&mut waf_drive(0.14, VictimPolicy::Fifo));
    let (greedy, _) = measured_waf(&mut waf_drive(0.14, VictimPolicy::Greedy));
    eprintln!("(d) op 0.14: greedy WAF {greedy:.3}, fifo {fifo:.3}");
    assert!(greedy < fifo * 0.99, "greedy {greedy:.3} vs fifo {fifo:.3}");
}

// (e) ----------------------------------------------------------------------------------

fn integrity_workload(requests: u64) -> WorkloadSpec {
    let flow = FlowSpec {
        name: "mix".into(),
        read_ratio: 0.25,
        trim_ratio: 0.02,
        fua_ratio: 0.01,
        request_bytes_choices: vec![(512, 1.0), (4096, 4.0), (8192, 2.0), (12288, 1.0), (32768, 1.0)],
        align_bytes: 512,
        queue_depth: Some(32),
        requests,
        ..FlowSpec::default()
    };
    WorkloadSpec {
        source: String::new(),
        seed: 3,
        precondition: Some(PreconditionSpec { occupancy: 0.9, pattern: Pattern::Random }),
        flows: vec![flow],
    }
}

fn integrity_drive() -> Config {
    let mut cfg = preset("mqsim-default.toml");
    cfg.nand.channels = 2;
    cfg.nand.chips_per_channel = 2;
    cfg.nand.blocks_per_plane = 64;
    cfg.nand.pages_per_block = 32;
    cfg.ftl.overprovisioning_ratio = 0.15;
    cfg.ftl.wear_leveling.static_threshold = 8;
    cfg
}

fn assert_intact(o: &Outcome) {
    let c = o.check.as_ref().expect("check ran");
    eprintln!(
        "(e) {} requests, {} reads verified, {} violations, {} GC invocations, {} erases",
        o.stats.completed, c.reads_checked, c.violations, o.stats.gc_invocations, o.stats.erases
    );
    assert_eq!(c.violations, 0, "first violation: {:?}", c.first_violation);
    assert!(c.reads_checked > 100_000, "only {} reads checked", c.reads_checked);
    assert!(o.stats.gc_invocations > 1000, "GC must be working: {} invocations", o.stats.gc_invocations);
    // GC commands took chip time, but not more than chips were busy.
    assert!(o.stats.gc_chip_ps > 0 && o.stats.gc_chip_ps <= o.stats.busy_chip_ps);
}

#[test]
fn e_random_writes_keep_their_data_through_gc() {
    // 6.9 M requests, 73% of them writes: 5 M random writes at steady state.
    let o = run(&integrity_drive(), &integrity_workload(6_900_000), true);
    assert!(o.stats.bytes_written > 0);
    assert_intact(&o);
    assert!(o.stats.rmw_reads > 0);
}

#[test]
fn e_copyback_and_fifo_gc_keep_data() {
    let mut cfg = integrity_drive();
    cfg.ftl.gc.copyback = true;
    cfg.ftl.gc.policy = VictimPolicy::Fifo;
    cfg.tsu.policy = TsuPolicyKind::Fifo;
    cfg.ftl.allocation = AllocationScheme::Dynamic;
    let o = run(&cfg, &integrity_workload(1_600_000), true);
    assert_intact(&o);
}

#[test]
fn e_write_cache_keeps_data() {
    let mut cfg = integrity_drive();
    cfg.cache.enabled = true;
    cfg.cache.capacity_bytes = 256 * 8192;
    cfg.nand.suspension.enabled = true;
    cfg.ftl.allocation = AllocationScheme::Dynamic;
    // 5 M random writes, as above, through the cache.
    let o = run(&cfg, &integrity_workload(6_900_000), true);
    assert_intact(&o);
    assert!(o.stats.cache_write_hits > 0 && o.stats.cache_read_hits > 0);
    assert!(o.stats.suspensions > 0, "suspension must fire");
}

// (g) ----------------------------------------------------------------------------------

fn without_run(r: &Report) -> String {
    let mut v = serde_json::to_value(r).unwrap();
    v.as_object_mut().unwrap().remove("run");
    serde_json::to_string(&v).unwrap()
}

#[test]
fn g_same_inputs_give_the_same_report() {
    let mut cfg = integrity_drive();
    cfg.cache.enabled = true;
    cfg.cache.capacity_bytes = 64 * 8192;
    cfg.stats.interval_us = 500.0;
    cfg.ftl.gc.policy = VictimPolicy::DChoices;
    let mut wl = integrity_workload(30_000);
    wl.flows.push(FlowSpec {
        name: "reader".into(),
        read_ratio: 1.0,
        queue_depth: Some(4),
        requests: 20_000,
        ..FlowSpec::default()
    });
    let a = without_run(&Report::from_outcome(&run(&cfg, &wl, false)));
    let b = without_run(&Report::from_outcome(&run(&cfg, &wl, false)));
    assert_eq!(a, b);
    wl.seed = 4;
    let c = without_run(&Report::from_outcome(&run(&cfg, &wl, false)));
    assert_ne!(a, c, "a different seed must change the run");
}
