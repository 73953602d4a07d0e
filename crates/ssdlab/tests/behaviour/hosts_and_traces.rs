//! Allocation, the host interface, the write cache, TRIM, replay, hazards, the time series, firmware cores.

#[allow(unused_imports)]
use super::*;

// ------------------------------------------------------------------------ 7. allocation

/// Sequential page-sized (4 KiB pages) writes at queue depth `qd` on a fresh drive.
pub(super) fn sequential_write_iops(allocation: &str, qd: u32) -> f64 {
    let mut cfg = small();
    cfg.nand.page_bytes = 4096;
    cfg.nand.pages_per_block = 64;
    cfg.ftl.allocation = AllocationScheme::parse(allocation).unwrap();
    let wl = workload(1, None, vec![flow(0.0, Address::Sequential, 4096, qd, 4000)]);
    report(&cfg, &wl).sim.host.iops
}

#[test]
pub(super) fn allocation_order_decides_how_many_chips_a_sequential_stream_uses() {
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

pub(super) fn three_tenants(cfg: &mut Config) -> Report {
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
pub(super) fn weighted_round_robin_shares_the_device_by_weight() {
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
pub(super) fn round_robin_shares_the_device_equally() {
    let mut cfg = small();
    cfg.hif.arbitration = Arbitration::RoundRobin;
    let r = three_tenants(&mut cfg);
    let n: Vec<f64> = r.sim.flows.iter().map(|f| f.requests_completed as f64).collect();
    for k in 1..3 {
        assert!((n[0] / n[k] - 1.0).abs() < 0.15, "round robin must share equally: {n:?}");
    }
}

#[test]
pub(super) fn sata_holds_at_most_32_commands() {
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
pub(super) fn write_cache_absorbs_rewrites_of_a_hot_set() {
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
pub(super) fn pcie_ps(bytes: u64) -> u64 {
    common::pcie_ps(bytes, 4_000_000_000)
}

#[test]
pub(super) fn reads_of_just_written_data_hit_the_cache() {
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
pub(super) fn trims_lower_write_amplification() {
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
pub(super) fn light_trace(name: &str, gap_ns: u64) -> PathBuf {
    let lines: Vec<_> = (0..200u64).map(|i| (i * gap_ns, (i * 37 % 1000) * 16, 8, true)).collect();
    trace_file(name, &lines)
}

#[test]
pub(super) fn timestamps_replay_divides_arrival_times_by_the_speedup() {
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
pub(super) fn closed_loop_replay_ignores_timestamps() {
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
pub(super) fn open_loop_rate_sets_the_arrival_rate() {
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
pub(super) fn a_read_after_a_write_to_the_same_page_waits_for_it() {
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
pub(super) fn a_write_after_a_read_of_the_same_page_waits_for_it() {
    let cfg = small();
    let war =
        run(&cfg, &trace_workload(trace_file("war", &[(0, 0, 16, true), (0, 0, 16, false)]), Replay::Timestamps, 8));
    let alone = run(&cfg, &trace_workload(trace_file("war-alone", &[(0, 0, 16, false)]), Replay::Timestamps, 8));
    let (r, w) = (war.stats.read.sum_ps, war.stats.write.sum_ps);
    // The write starts (sends its data, programs) only once the read has completed.
    assert_eq!(w, r + alone.stats.write.sum_ps, "write {w} ps must start when the read ({r} ps) is done");
}

#[test]
pub(super) fn with_hazards_none_a_read_does_not_wait_for_a_write_to_its_page() {
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
pub(super) fn hazards_are_judged_per_page_not_per_sector() {
    // A 4 KiB write of sectors 0-7 and a 4 KiB read of sectors 8-15 share no sector but
    // share the 8 KiB page the write rewrites: the read waits for the write.
    let cfg = small();
    let o =
        run(&cfg, &trace_workload(trace_file("page-raw", &[(0, 0, 8, false), (0, 8, 8, true)]), Replay::Timestamps, 8));
    let (w, r) = (o.stats.write.sum_ps, o.stats.read.sum_ps);
    assert!(r >= w + 75_000_000, "read {r} ps vs write {w} ps");
}

#[test]
pub(super) fn fua_writes_are_never_overlapped() {
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

pub(super) fn time_series_run() -> Report {
    let mut cfg = small();
    cfg.stats.interval_us = 700.0; // not a divisor of anything in the run
    let wl = workload(12, Some((0.9, Pattern::Random)), vec![flow(0.6, Address::Uniform, 8192, 16, 30_000)]);
    report(&cfg, &wl)
}

#[test]
pub(super) fn time_series_counters_are_cumulative() {
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
pub(super) fn time_series_accounts_for_every_request() {
    let r = time_series_run();
    let ts = &r.sim.time_series;
    let total: u64 = ts.iter().map(|s| s.requests).sum();
    assert_eq!(total, r.sim.host.requests_completed, "per-interval requests must add up to the run's");
    let last = ts.last().unwrap();
    assert_eq!(last.user_pages_programmed, r.sim.ftl.user_pages_programmed, "the last sample must hold the totals");
    assert_eq!(last.gc_pages_programmed, r.sim.ftl.gc_pages_programmed);
}

#[test]
pub(super) fn time_series_of_a_short_run_is_not_empty() {
    let mut cfg = small();
    cfg.stats.interval_us = 1_000_000.0; // 1 s; the run below takes ~0.1 s
    let r = report(&cfg, &workload(12, None, vec![flow(1.0, Address::Uniform, 4096, 16, 5_000)]));
    assert!(r.sim.sim_time_ps < 1_000_000_000_000);
    let total: u64 = r.sim.time_series.iter().map(|s| s.requests).sum();
    assert_eq!(total, 5_000, "{} samples", r.sim.time_series.len());
}

#[test]
pub(super) fn outcome_and_report_agree_on_page_operations() {
    let o = run(&small(), &mixed_workload(2_000));
    let r = Report::from_outcome(&o);
    assert!(r.sim.flash.memory_requests > 0);
    assert_eq!(o.stats.page_ops, r.sim.flash.memory_requests);
}

#[test]
pub(super) fn effective_spare_factor_governs_steady_state_waf_at_the_default_gc_threshold() {
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
pub(super) fn more_firmware_cores_serve_more_requests_when_firmware_is_the_bottleneck() {
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
pub(super) fn urgent_submission_queues_are_served_strictly_first() {
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
pub(super) fn d_choices_spans_random_to_greedy() {
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
pub(super) fn fairness_compares_each_flow_with_itself_alone() {
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
pub(super) fn flin_keeps_data_under_gc_and_charges_gc_to_the_writer() {
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
