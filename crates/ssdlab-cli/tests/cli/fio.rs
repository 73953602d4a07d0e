//! fio iologs at the command line: a shipped trace converted to one and read back, fio itself
//! replaying what `trace convert --to fio_iolog` wrote (skipped where fio is not installed),
//! bad lines, and a version 2 log without waits replayed at its timestamps.

use super::*;

/// Reads and writes of an mqsim trace, each as (requests, bytes), counted from its text:
/// `arrival_ns device lba size_sectors type`, type 1 = read.
fn mqsim_counts(text: &str) -> [(u64, u64); 2] {
    let mut counts = [(0, 0); 2];
    for fields in text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).filter(|f| f.len() == 5) {
        let bytes = fields[3].parse::<u64>().expect("size") * 512;
        let c = &mut counts[usize::from(fields[4] != "1")];
        *c = (c.0 + 1, c.1 + bytes);
    }
    counts
}

/// `ssdlab trace convert tpcc-small --to fio_iolog` into `dir`; the log's path and text.
fn tpcc_iolog(dir: &TempDir) -> (PathBuf, String) {
    let log = dir.path("tpcc.iolog");
    let trace = shared_trace("mqsim/tpcc-small.trace");
    let out = ssdlab(["trace", "convert", &p(&trace), "--to", "fio_iolog", "--out", &p(&log)]);
    out.assert_success();
    assert_eq!(out.stderr, "", "tpcc's times are whole microseconds: nothing to truncate");
    let text = std::fs::read_to_string(&log).expect("the iolog");
    (log, text)
}

/// The first two tpcc lines, `938513000 4 264719034 16 0` and `938828000 3 197570570 16 0`,
/// become writes at 0 and (938828000 − 938513000) / 1000 = 315 µs, at 264719034 × 512 and
/// 197570570 × 512 bytes, of 16 × 512 bytes, after the version line and an add and an open
/// line for each of the 16 devices; the log reads back as the trace's own requests.
#[test]
fn tpcc_converted_to_an_iolog_reads_back_as_the_same_requests() {
    let dir = TempDir::new("iolog");
    let (log, text) = tpcc_iolog(&dir);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 16 * 3 + 6999);
    assert_eq!(lines[0], "fio version 3 iolog");
    assert_eq!((lines[1], lines[17]), ("0 /dev/ssdlab0 add", "0 /dev/ssdlab0 open"));
    assert_eq!(lines[33], "0 /dev/ssdlab4 write 135536145408 8192");
    assert_eq!(lines[34], "315 /dev/ssdlab3 write 101156131840 8192");
    let original = ssdlab_trace::read(&shared_trace("mqsim/tpcc-small.trace"), None).expect("tpcc");
    let back = ssdlab_trace::read(&log, None).expect("the iolog");
    assert_eq!(back.format, ssdlab_trace::Format::FioIolog);
    assert_eq!(back.records, original.records);
    let info = ssdlab(["trace", "info", &p(&log)]);
    info.assert_success();
    assert!(
        info.stdout.contains("format         fio_iolog (detected: first line `fio version N iolog`)"),
        "{}",
        info.stdout
    );
    assert!(info.stdout.contains("requests       6999\nreads          4381 (62.6%)"), "{}", info.stdout);
}

/// fio replays the converted log on its null engine (no device needed) and issues every read
/// and write of the trace, with their bytes, as counted from tpcc's text.
#[test]
fn fio_replays_the_iolog_trace_convert_writes() {
    if Command::new("fio").arg("--version").output().is_err() {
        eprintln!("skipped: fio not installed");
        return;
    }
    let dir = TempDir::new("fio");
    let (log, _) = tpcc_iolog(&dir);
    let json = dir.path("fio.json");
    let args = [
        "--name=replay".to_string(),
        "--ioengine=null".to_string(),
        format!("--read_iolog={}", p(&log)),
        "--output-format=json".to_string(),
        format!("--output={}", p(&json)),
    ];
    run_program("fio", "fio", &args).assert_success();
    let report = read_json(&json);
    let job = at(&report, "jobs.0");
    assert_eq!(uint(job, "error"), 0, "{job}");
    let tpcc = std::fs::read_to_string(shared_trace("mqsim/tpcc-small.trace")).expect("tpcc");
    let [(reads, read_bytes), (writes, write_bytes)] = mqsim_counts(&tpcc);
    assert_eq!((reads, writes), (4381, 2618), "traces/README.md: 6,999 requests, 62.6% reads");
    assert_eq!((uint(job, "read.total_ios"), uint(job, "read.io_bytes")), (reads, read_bytes));
    assert_eq!((uint(job, "write.total_ios"), uint(job, "write.io_bytes")), (writes, write_bytes));
}

#[test]
fn a_bad_iolog_line_exits_2_naming_file_line_and_value() {
    let dir = TempDir::new("badlog");
    let v3 = "fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n10 /dev/sdb read 0 4096\n";
    let log = dir.write("wait.iolog", &format!("{v3}20 /dev/sdb wait 5 0\n"));
    let want = format!("{}:5: action `wait` is not allowed in a version 3 iolog", p(&log));
    ssdlab(["trace", "info", &p(&log)]).assert_input_error(&[&want]);
    let log = dir.write("closed.iolog", &format!("{v3}30 /dev/sdb close\n40 /dev/sdb write 8192 4096\n"));
    let want = format!("{}:6: file `/dev/sdb` is not open", p(&log));
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&log)]).assert_input_error(&[&want]);
    let log = dir.write("v1.iolog", "fio version 1 iolog\n0, 0, 4096\n");
    let want = format!("{}:1: iolog version `1` is not read", p(&log));
    ssdlab(["trace", "head", &p(&log)]).assert_input_error(&[&want]);
}

/// A version 2 log without `wait` lines has no times: every request arrives at 0, and a
/// trace given directly to `--workload` (replayed at its timestamps) draws the warning every
/// time-less trace gets. Its sync line is no request.
#[test]
fn a_version_2_log_without_waits_replays_with_the_time_less_warning() {
    let dir = TempDir::new("v2");
    let log = dir.write(
        "v2.iolog",
        "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb write 0 4096\n/dev/sdb write 4096 4096\n\
         /dev/sdb sync 0 0\n/dev/sdb read 0 8192\n/dev/sdb close\n",
    );
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&log)]);
    out.assert_success();
    assert!(out.stderr.contains("all 3 requests arrive at the same time"), "{}", out.describe());
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&log), "--replay", "closed_loop"]);
    out.assert_success();
    assert!(!out.stderr.contains("at the same time"), "{}", out.describe());
}

/// msr times are 100 ns ticks and an iolog keeps whole microseconds: the requests whose time
/// from the first is not a multiple of 10 ticks, counted here from the text, would change.
#[test]
fn converting_finer_times_to_an_iolog_needs_truncate_times() {
    let trace = shared_trace("msr/hm_0.sample1000.csv");
    let text = std::fs::read_to_string(&trace).expect("hm_0");
    let ticks: Vec<u64> = text.lines().filter_map(|l| l.split(',').next()?.parse().ok()).collect();
    let start = *ticks.iter().min().expect("requests");
    let changed = ticks.iter().filter(|&&t| !(t - start).is_multiple_of(10)).count();
    assert!(changed > 0, "hm_0 has sub-microsecond times");
    let out = ssdlab(["trace", "convert", &p(&trace), "--to", "fio_iolog"]);
    let want = format!(
        "--to fio_iolog keeps times in steps of 1 us: {changed} of the 1000 requests' arrival times would be truncated"
    );
    out.assert_input_error(&[&want, "--truncate-times"]);
    let out = ssdlab(["trace", "convert", &p(&trace), "--to", "fio_iolog", "--truncate-times"]);
    out.assert_success();
    assert!(out.stderr.starts_with(&format!("warning: {want}")), "{}", out.describe());
    // The version line, an add, an open and a close line for its one device, 1000 requests.
    assert_eq!(out.stdout.lines().count(), 1 + 3 + 1000);
}
