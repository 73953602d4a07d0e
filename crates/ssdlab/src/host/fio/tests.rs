use super::*;
use crate::host::{build_flows, Flow, IoOp};

fn spec(text: &str) -> WorkloadSpec {
    from_fio_str(text, "j.fio").unwrap_or_else(|e| panic!("{e}"))
}

/// The one flow of a job file of one job.
fn flow(text: &str) -> FlowSpec {
    let s = spec(text);
    assert_eq!(s.flows.len(), 1);
    s.flows[0].clone()
}

fn error(text: &str) -> String {
    match from_fio_str(text, "j.fio") {
        Err(e) => e.to_string(),
        Ok(s) => panic!("expected an error, got {:?}", s.flows),
    }
}

/// A job `[j]` ended by a runtime, with `extra` options.
fn job(extra: &str) -> String {
    format!("[j]\nruntime=1\n{extra}\n")
}

/// The built flows of a job file on a drive of 8,000 sectors of 512 B (1,000 pages of
/// 4 KiB).
fn built(text: &str) -> Vec<Flow> {
    build_flows(&spec(text), 1, 8_000, 512).unwrap_or_else(|e| panic!("{e}"))
}

/// `n` requests of a closed-loop flow, all taken at time 0.
fn draws(f: &mut Flow, n: usize) -> Vec<crate::host::IoRequest> {
    (0..n).map(|_| f.take(0).expect("a request")).collect()
}

/// Whether `share` of `n` draws is within five binomial standard errors of `p`.
fn near(share: f64, p: f64, n: usize) -> bool {
    (share - p).abs() <= 5.0 * (p * (1.0 - p) / n as f64).sqrt()
}

#[test]
fn rw_sets_the_address_pattern_and_the_shares() {
    // (rw, address, read_ratio, trim_ratio); fio's default is read; mixes are 50/50.
    let cases = [
        ("read", Address::Sequential, 1.0, 0.0),
        ("write", Address::Sequential, 0.0, 0.0),
        ("trim", Address::Sequential, 0.0, 1.0),
        ("randread", Address::Uniform, 1.0, 0.0),
        ("randwrite", Address::Uniform, 0.0, 0.0),
        ("randtrim", Address::Uniform, 0.0, 1.0),
        ("rw", Address::Sequential, 0.5, 0.0),
        ("readwrite", Address::Sequential, 0.5, 0.0),
        ("randrw", Address::Uniform, 0.5, 0.0),
    ];
    for (rw, address, read, trim) in cases {
        let f = flow(&job(&format!("rw={rw}")));
        assert_eq!((f.address, f.read_ratio, f.trim_ratio), (address, read, trim), "rw={rw}");
    }
    let f = flow(&job("readwrite=randrw"));
    assert_eq!((f.address, f.read_ratio), (Address::Uniform, 0.5));
    let f = flow(&job(""));
    assert_eq!((f.address, f.read_ratio), (Address::Sequential, 1.0));
    assert_eq!(error(&job("rw=randread:8")), "j.fio:3: rw = \"randread:8\": expected one of read, write, trim, randread, randwrite, randtrim, rw (readwrite), randrw; fio's `:N` offset modifiers and trimwrite are not read");
}

#[test]
fn rwmix_sets_the_read_share_of_a_mixed_job() {
    assert_eq!(flow(&job("rw=randrw\nrwmixread=70")).read_ratio, 0.7);
    assert_eq!(flow(&job("rw=randrw\nrwmixwrite=30")).read_ratio, 0.7);
    // fio: no effect on a job of one direction.
    assert_eq!(flow(&job("rw=randwrite\nrwmixread=70")).read_ratio, 0.0);
    assert!(error(&job("rw=rw\nrwmixread=101")).contains("rwmixread = \"101\": expected a percentage"));
}

#[test]
fn rwmixread_70_gives_a_read_share_of_0_7_over_many_draws() {
    let n = 100_000;
    let mut flows = built(&job("rw=randrw\nrwmixread=70"));
    let reads = draws(&mut flows[0], n).iter().filter(|r| r.op == IoOp::Read).count();
    // σ = sqrt(0.7 × 0.3 / 100,000) = 0.00145; within 5σ.
    assert!(near(reads as f64 / n as f64, 0.7, n), "{reads} reads of {n}");
}

#[test]
fn sizes_read_with_fios_suffixes() {
    // fio's default kb_base=1024: k, kb and K are 1024; kib is 1000 (backwards from IEC).
    let cases = [
        ("4096", 4096),
        ("4k", 4096),
        ("4K", 4096),
        ("4kb", 4096),
        ("4KB", 4096),
        ("1m", 1 << 20),
        ("2g", 2 << 30),
        ("1t", 1 << 40),
        ("1000kib", 1_000_000),
        ("1mib", 1_000_000),
        ("0x1000", 4096),
        ("512b", 512),
    ];
    for (text, bytes) in cases {
        assert_eq!(parse_size(text), Some(bytes), "{text}");
    }
    assert_eq!(parse_size("4q"), None);
    assert_eq!(parse_size("k"), None);
}

#[test]
fn times_count_seconds_unless_suffixed() {
    assert_eq!(flow(&job("")).duration_ms, 1000.0);
    let ms = |t: &str| flow(&format!("[j]\nruntime={t}\n")).duration_ms;
    assert_eq!(
        [ms("2"), ms("1m"), ms("1h"), ms("250ms"), ms("1500us"), ms("3s")],
        [2e3, 60e3, 3600e3, 250.0, 1.5, 3e3]
    );
    assert!(error("[j]\nruntime=5x\n").starts_with("j.fio:2: runtime = \"5x\": expected a time"));
}

#[test]
fn bs_and_blocksize_set_the_request_size_and_the_alignment() {
    let f = flow(&job("bs=16k"));
    assert_eq!((f.request_bytes, f.align_bytes), (16384, 16384));
    assert_eq!(flow(&job("blocksize=8k")).request_bytes, 8192);
    // fio's default bs is 4 KiB.
    assert_eq!((flow(&job("")).request_bytes, flow(&job("")).align_bytes), (4096, 4096));
    assert!(error(&job("bs=4k,8k")).contains("one size for every direction"));
}

#[test]
fn bssplit_gives_the_size_choices() {
    let f = flow(&job("bssplit=4k/50:8k/50"));
    assert_eq!(f.request_bytes_choices, vec![(4096, 50.0), (8192, 50.0)]);
    // The alignment defaults to the smallest size (fio: blockalign defaults to the
    // minimum block size).
    assert_eq!(f.align_bytes, 4096);
    // Sizes without a percentage share what is left equally: (100 − 40) / 2 = 30.
    let f = flow(&job("bssplit=64k/40:4k:16k/"));
    assert_eq!(f.request_bytes_choices, vec![(65536, 40.0), (4096, 30.0), (16384, 30.0)]);
    assert!(error(&job("bssplit=4k/50:8k/40")).contains("percentages adding up to 100"));
    assert!(error(&job("bssplit=4k/50:8k/60")).contains("percentages adding up to 100"));
}

#[test]
fn bssplit_4k_8k_half_each_draws_half_of_each() {
    let n = 100_000;
    let mut flows = built(&job("rw=randread\nbssplit=4k/50:8k/50"));
    let small = draws(&mut flows[0], n).iter().filter(|r| r.sectors == 8).count();
    assert!(near(small as f64 / n as f64, 0.5, n), "{small} 4 KiB requests of {n}");
}

#[test]
fn blockalign_sets_the_alignment() {
    let f = flow(&job("bs=4k\nblockalign=64k"));
    assert_eq!((f.request_bytes, f.align_bytes), (4096, 65536));
}

#[test]
fn iodepth_sets_the_queue_depth_and_defaults_to_one() {
    assert_eq!(flow(&job("iodepth=32")).queue_depth, Some(32));
    assert_eq!(flow(&job("")).queue_depth, Some(1));
    assert!(error(&job("iodepth=0")).contains("iodepth = \"0\": expected 1 to 65536"));
}

#[test]
fn numjobs_3_gives_three_flows() {
    let s = spec("[w]\nrw=randwrite\nruntime=1\nnumjobs=3\n[r]\nruntime=1\n");
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["w.0", "w.1", "w.2", "r"]);
    assert!(s.flows[..3].iter().all(|f| f.read_ratio == 0.0 && f.seed.is_none()));
}

#[test]
fn size_sets_the_footprint_and_the_requests() {
    // size=1m of 4 KiB requests: 1,048,576 / 4,096 = 256 requests.
    let f = flow("[j]\nsize=1m\n");
    assert_eq!((f.footprint_bytes, f.requests, f.duration_ms), (1 << 20, 256, 0.0));
    // With bssplit, the mean size: 0.5 × 4 KiB + 0.5 × 12 KiB = 8 KiB, so 128.
    assert_eq!(flow("[j]\nsize=1m\nbssplit=4k/50:12k/50\n").requests, 128);
    // A percentage is a share of the drive; it ends no job.
    let f = flow(&job("size=25%"));
    assert_eq!((f.footprint, f.footprint_bytes, f.requests), (0.25, 0, 0));
    assert!(error("[j]\nsize=25%\n").contains("job `j`: the job has no end"));
    // time_based: the runtime alone ends the job.
    assert_eq!(flow(&job("size=1m\ntime_based")).requests, 0);
}

#[test]
fn size_bounds_the_generated_offsets() {
    let mut flows = built("[j]\nrw=randread\nsize=64k\noffset=1m\nruntime=1\ntime_based\n");
    // 64 KiB from 1 MiB: sectors 2048 .. 2176, in 4 KiB slots.
    for r in draws(&mut flows[0], 1000) {
        assert!(r.lba >= 2048 && r.lba + 8 <= 2176 && (r.lba - 2048) % 8 == 0, "{r:?}");
    }
}

#[test]
fn offset_sets_the_start() {
    assert_eq!(flow(&job("offset=1g")).start_bytes, 1 << 30);
    assert!(error(&job("offset=10%")).contains("offset = \"10%\": expected bytes"));
}

#[test]
fn time_based_needs_a_runtime() {
    assert_eq!(error("[j]\ntime_based\nsize=1m\n"), "j.fio:2: job `j`: time_based needs a runtime");
    assert_eq!(flow(&job("time_based=1\nsize=1m")).requests, 0);
    assert_eq!(flow(&job("time_based=0\nsize=1m")).requests, 256);
}

#[test]
fn number_ios_sets_the_requests() {
    let f = flow("[j]\nnumber_ios=1234\nsize=1m\n");
    assert_eq!(f.requests, 1234);
    assert_eq!(flow(&job("number_ios=7\ntime_based")).requests, 7);
}

#[test]
fn rate_iops_sets_an_open_loop_rate_for_one_direction() {
    let f = flow(&job("rw=randwrite\nrate_iops=2000"));
    assert_eq!((f.rate_iops, f.queue_depth), (2000.0, Some(1)));
    assert!(error(&job("rw=randrw\nrate_iops=2000")).contains("fio caps reads and writes each"));
}

#[test]
fn ramp_time_sets_the_warm_up_after_the_start_delay() {
    let s = spec("[global]\nramp_time=2\nstartdelay=500ms\nruntime=10\n[a]\n[b]\n");
    // Warm-up from 0.5 s to 2.5 s; each flow issues from 0.5 s to 0.5 + 2 + 10 s.
    assert_eq!(s.ramp_ms, 2500.0);
    assert!(s.flows.iter().all(|f| f.start_ms == 500.0 && f.duration_ms == 12_500.0));
    let e = error("[a]\nruntime=1\nramp_time=1\n[b]\nruntime=1\nramp_time=2\n");
    assert!(e.starts_with("j.fio:6: job `b`: startdelay + ramp_time = 2000 ms, but another job's is 1000 ms"), "{e}");
    assert!(error("[a]\nruntime=1\nramp_time=1\n[b]\nruntime=1\n").starts_with("j.fio:4: job `b` has no ramp_time"));
}

#[test]
fn startdelay_holds_the_first_arrival_back() {
    let f = flow(&job("startdelay=5ms"));
    assert_eq!((f.start_ms, f.duration_ms), (5.0, 1005.0));
    // Closed loop: nothing before 5 ms, then as soon as asked.
    let flows = built(&job("startdelay=5ms"));
    assert_eq!(flows[0].peek_arrival(0), Some(5_000_000_000));
    assert_eq!(flows[0].peek_arrival(6_000_000_000), Some(6_000_000_000));
    // Open loop: the first arrival is at the delay, the next one an exponential gap later.
    let mut flows = built(&job("rw=randread\nrate_iops=1000\nstartdelay=5ms"));
    assert_eq!(flows[0].take(0).map(|r| r.arrival_ps), Some(5_000_000_000));
    assert!(flows[0].peek_arrival(0).is_some_and(|t| t > 5_000_000_000));
}

#[test]
fn random_distribution_picks_the_address_pattern_of_random_jobs() {
    let f = flow(&job("rw=randread\nrandom_distribution=zipf:1.2"));
    assert_eq!((f.address, f.zipf_theta), (Address::Zipf, 1.2));
    assert_eq!(flow(&job("rw=randread\nrandom_distribution=random")).address, Address::Uniform);
    // zoned: 80 % of accesses to the first 20 % of the region: hotcold.
    let f = flow(&job("rw=randread\nrandom_distribution=zoned:80/20:20/80"));
    assert_eq!((f.address, f.hot_access, f.hot_fraction), (Address::HotCold, 0.8, 0.2));
    // fio applies it to random I/O only.
    assert_eq!(flow(&job("rw=read\nrandom_distribution=zipf:1.2")).address, Address::Sequential);
    for d in ["pareto:0.5", "normal", "gauss:10", "zoned_abs:50/10m:50/20m"] {
        assert!(error(&job(&format!("random_distribution={d}"))).contains("no pareto or normal"), "{d}");
    }
    assert!(error(&job("random_distribution=zoned:60/10:30/20:10/70")).contains("two zones"));
    assert!(error(&job("random_distribution=zipf:0")).contains("zipf:θ with θ in (0, 100]"));
}

#[test]
fn zipf_1_2_over_ten_blocks_gives_the_rank_one_share_in_closed_form() {
    // 10 slots of 4 KiB; slot k (from 0) has rank k + 1, drawn with probability
    // (k + 1)^−1.2 / H(10, 1.2). By hand: H = 1 + 0.43528 + 0.26758 + 0.18946 + 0.14495
    // + 0.11647 + 0.09686 + 0.08247 + 0.07160 + 0.06310 = 2.46777, so rank 1 has
    // 1 / 2.46777 = 0.40523 of the draws and rank 2 0.43528 / 2.46777 = 0.17639.
    let h: f64 = (1..=10).map(|k| (k as f64).powf(-1.2)).sum();
    assert!((h - 2.46777).abs() < 1e-4, "{h}");
    let n = 200_000;
    let mut flows = built("[j]\nrw=randread\nsize=40k\nrandom_distribution=zipf:1.2\nruntime=1\ntime_based\n");
    let slots: Vec<u64> = draws(&mut flows[0], n).iter().map(|r| r.lba / 8).collect();
    assert!(slots.iter().all(|&s| s < 10));
    let share = |k: u64| slots.iter().filter(|&&s| s == k).count() as f64 / n as f64;
    // σ = sqrt(0.405 × 0.595 / 200,000) = 0.0011; within 5σ.
    assert!(near(share(0), 1.0 / h, n), "rank 1: {}", share(0));
    assert!(near(share(1), 2f64.powf(-1.2) / h, n), "rank 2: {}", share(1));
}

#[test]
fn zoned_80_20_sends_80_percent_to_the_first_fifth() {
    let n = 100_000;
    let mut flows =
        built("[j]\nrw=randread\nsize=400k\nrandom_distribution=zoned:80/20:20/80\nruntime=1\ntime_based\n");
    // 100 slots of 4 KiB; the hot set is the first 20.
    let hot = draws(&mut flows[0], n).iter().filter(|r| r.lba / 8 < 20).count();
    assert!(near(hot as f64 / n as f64, 0.8, n), "{hot} of {n}");
}

#[test]
fn thinktime_fsync_and_fdatasync_are_read_at_zero_only() {
    assert_eq!(flow(&job("thinktime=0\nfsync=0\nfdatasync=0")), flow(&job("")));
    assert!(error(&job("thinktime=100")).contains("thinktime = \"100\": expected 0 only: ssdlab's flows issue"));
    assert!(
        error(&job("fsync=1")).starts_with("j.fio:3: fsync = \"1\": expected 0 only: ssdlab models no flush command")
    );
    assert!(error(&job("fdatasync=8")).contains("no flush command"));
}

#[test]
fn global_options_apply_to_the_jobs_below_them() {
    let s = spec("[global]\nbs=8k\nruntime=1\n[a]\nbs=16k\n[b]\n[global]\nbs=64k\n[c]\n");
    let sizes: Vec<u64> = s.flows.iter().map(|f| f.request_bytes).collect();
    // a overrides; b inherits the first global; c the second.
    assert_eq!(sizes, [16384, 8192, 65536]);
    assert!(s.flows.iter().all(|f| f.duration_ms == 1000.0));
}

#[test]
fn an_unknown_option_is_an_error_naming_its_line() {
    let e = error("; a comment\n[global]\nbs=4k\n[j]\n# another\nioengine=libaio\n");
    assert!(e.starts_with("j.fio:6: fio option `ioengine` is not read by ssdlab (it reads only rw, "), "{e}");
    assert_eq!(error("bs=4k\n[j]\n"), "j.fio:1: an option before any [section]");
    assert!(error("[global]\nbs=4k\n").contains("needs at least one job section"));
}

#[test]
fn job_files_are_told_from_traces_by_their_first_line() {
    assert!(is_job_text("; comment\n\n[global]\nbs=4k\n"));
    assert!(is_job_text("[job1]\n"));
    assert!(!is_job_text("0 0 1024 8 1\n"));
    assert!(!is_job_text("128166372003061629,hm,0,Read,383000576,65536,2426\n"));
    assert!(!is_job_text("[]\n"));
}

#[test]
fn the_equivalent_toml_reads_back_as_the_same_workload() {
    // docs/workload.md's example: every option ssdlab reads.
    let text = "[global]\nbs=4k\niodepth=16\nsize=1g\noffset=64m\nruntime=20ms\nramp_time=100ms\nstartdelay=5ms\ntime_based\nthinktime=0\nfsync=0\nfdatasync=0\n[oltp]\nrw=randrw\nrwmixread=70\nbssplit=4k/50:8k/50\nblockalign=4k\nrandom_distribution=zipf:1.2\nnumjobs=2\n[scan]\nreadwrite=read\nbs=128k\nnumber_ios=5000\ntime_based=0\n[hot]\nrw=randwrite\nrwmixwrite=100\nrandom_distribution=zoned:80/20:20/80\nrate_iops=2000\n[trimmer]\nrw=randtrim\nsize=10%\nrandom_distribution=random\n";
    let s = spec(text);
    let back = WorkloadSpec::from_toml_str(&equivalent_toml(&s), "w.toml", std::path::Path::new("."))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((back.flows, back.ramp_ms, back.seed), (s.flows.clone(), 105.0, 1));
    // By hand: 5 ms delay + 100 ms ramp + 20 ms runtime.
    assert!(s.flows.iter().all(|f| f.duration_ms == 125.0 && f.start_ms == 5.0));
    assert_eq!(s.flows[2].requests, 5000);
}
