//! The warm-up exclusion (`ramp_ms`): requests arriving before it run on the drive but are in
//! no statistic of requests, and the report counts them. Worked on a one-plane drive with
//! requests far enough apart that each runs alone.

mod common;

use common::{one_plane_drive, trace_file, trace_workload};
use ssdlab::host::Replay;
use ssdlab::{Report, RunOptions};

/// Two 4 KiB writes at 0 and 0.5 ms, then three 4 KiB reads at 1, 2 and 3 ms (MQSim format,
/// times in ns). With `ramp_ms = 1` the writes arrive before it and the read at exactly 1 ms
/// does not, so: 2 excluded, 3 counted, all of them reads, no write in any statistic.
#[test]
fn requests_arriving_before_the_ramp_are_simulated_but_not_counted() {
    let lines = [
        (0, 0, 8, false),
        (500_000, 8, 8, false),
        (1_000_000, 0, 8, true),
        (2_000_000, 8, 8, true),
        (3_000_000, 0, 8, true),
    ];
    let path = trace_file("ramp", &lines);
    let mut wl = trace_workload(path, Replay::Timestamps, 8);
    let whole =
        Report::from_outcome(&ssdlab::run_outcome(&one_plane_drive(), &wl, None, &RunOptions::default()).unwrap());
    wl.ramp_ms = 1.0;
    let o = ssdlab::run_outcome(&one_plane_drive(), &wl, None, &RunOptions::default()).unwrap();
    let r = Report::from_outcome(&o);
    let h = &r.sim.host;
    assert_eq!((h.ramp_excluded, h.requests_completed), (2, 3));
    assert_eq!((r.sim.latency_us.read.count, r.sim.latency_us.write.count), (3, 0));
    assert_eq!(r.sim.flows[0].requests_completed, 3);
    // The writes still ran: the drive programmed their pages, and the reads found them.
    assert_eq!(r.sim.ftl.user_pages_programmed, whole.sim.ftl.user_pages_programmed);
    assert_eq!(r.sim.sim_time_ps, whole.sim.sim_time_ps);
    // The reads alone: the same latencies as in the run without a warm-up.
    assert_eq!(r.sim.latency_us.read.mean, whole.sim.latency_us.read.mean);
    // IOPS over the time after the warm-up: 3 requests / (end − 1 ms).
    let measured_s = r.sim.sim_time_ps as f64 / 1e12 - 1e-3;
    assert!((h.iops - 3.0 / measured_s).abs() < 1e-9 * h.iops, "{} vs {}", h.iops, 3.0 / measured_s);
    // Bytes: 3 reads of 4 KiB, no write.
    assert_eq!(h.write_bandwidth_mb_s, 0.0);
    assert!((h.read_bandwidth_mb_s - 3.0 * 4096.0 / 1e6 / measured_s).abs() < 1e-9);
    assert!(r.summary().contains("warm-up: 2 requests arriving in the first 1 ms"), "{}", r.summary());
}

/// A warm-up past every arrival leaves nothing to measure: an error naming `ramp_ms`.
#[test]
fn a_ramp_that_excludes_every_request_is_an_error() {
    let path = trace_file("ramp-all", &[(0, 0, 8, true), (1_000_000, 8, 8, true)]);
    let mut wl = trace_workload(path, Replay::Timestamps, 8);
    wl.ramp_ms = 5.0;
    let err = ssdlab::run_outcome(&one_plane_drive(), &wl, None, &RunOptions::default()).err().expect("an error");
    let text = err.to_string();
    assert!(text.contains("ramp_ms = 5.0") && text.contains("all 2 arrived before it"), "{text}");
}

/// `ramp_ms` is validated: negative, NaN-like and huge values are rejected naming the key.
#[test]
fn ramp_ms_out_of_range_is_rejected() {
    for bad in ["-1", "1e10", "nan"] {
        let text = format!("ramp_ms = {bad}\n[[flows]]\nrequests = 1\n");
        let err = ssdlab::WorkloadSpec::from_toml_str(&text, "w.toml", std::path::Path::new(".")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("w.toml:1") && text.contains("ramp_ms = ") && text.contains("between 0 and 1e9"),
            "{text}"
        );
    }
}
