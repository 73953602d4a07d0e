//! End-to-end tests of the `ssdlab` binary.
//!
//! Expected values come from outside the simulator: the request counts, read percentages and
//! average sizes of the shipped traces are those of `traces/README.md`, the drive
//! geometry is that of `presets/mqsim-default.toml`, and trace spans are computed here from the
//! trace text. Bad input must exit with code 2 (never 101 = panic, never a signal such as
//! SIGABRT = 134) and say on stderr which file, line and value are wrong.
//!
//! Tests marked `#[ignore = "bug: ..."]` assert the correct behaviour of a known bug; run them
//! with `cargo test -p ssdlab-cli -- --ignored`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_ssdlab");
const MQSIM_DEFAULT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/mqsim-default.toml");
const SPRINKLER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/sprinkler-64chip.toml");
const EXAMPLE_READ_QD16: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/read-qd16.toml");
const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces");
/// A child running longer than this is treated as hung.
const TIMEOUT: Duration = Duration::from_secs(300);

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A scratch directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ssdlab-cli-test-{}-{n}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Write `text` to `name` in this directory and return its path.
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, text).expect("write temp file");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Output {
    /// `None` when the process was killed by a signal (e.g. SIGABRT from `panic = "abort"`).
    code: Option<i32>,
    stdout: String,
    stderr: String,
    cmdline: String,
}

impl Output {
    fn describe(&self) -> String {
        format!(
            "command: {}\nexit code: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.cmdline, self.code, self.stdout, self.stderr
        )
    }

    #[track_caller]
    fn assert_success(&self) {
        assert_eq!(self.code, Some(0), "expected success\n{}", self.describe());
    }

    /// Bad input: exit code 2 and every needle on stderr.
    #[track_caller]
    fn assert_input_error(&self, needles: &[&str]) {
        let kind = match self.code {
            Some(2) => "",
            Some(101) => " (101 = panic)",
            None => " (killed by a signal: abort / crash)",
            Some(_) => " (unexpected code)",
        };
        assert_eq!(
            self.code,
            Some(2),
            "bad input must exit with code 2, got {:?}{kind}\n{}",
            self.code,
            self.describe()
        );
        for n in needles {
            assert!(self.stderr.contains(n), "stderr should contain `{n}`\n{}", self.describe());
        }
    }
}

/// Run the binary with `args`; stdout and stderr go to files (no pipe deadlock), with a timeout.
fn ssdlab<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cmdline = std::iter::once("ssdlab".to_string())
        .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(" ");
    let io = TempDir::new("io");
    let (out_path, err_path) = (io.path("stdout"), io.path("stderr"));
    let mut child = Command::new(BIN)
        .args(&args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("spawn ssdlab");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for ssdlab") {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("timed out after {TIMEOUT:?}: {cmdline}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        code: status.code(),
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
        cmdline,
    }
}

fn p(path: &Path) -> String {
    path.display().to_string()
}

fn shared_trace(rel: &str) -> PathBuf {
    Path::new(TRACES).join(rel)
}

/// A small closed-loop synthetic workload (mixed reads and writes).
fn synthetic_workload(dir: &TempDir, requests: u64) -> PathBuf {
    dir.write(
        "synthetic.toml",
        &format!("seed = 3\n\n[[flows]]\nname = \"mix\"\ntype = \"synthetic\"\nread_ratio = 0.7\naddress = \"uniform\"\nrequest_bytes = 4096\nqueue_depth = 8\nrequests = {requests}\n"),
    )
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// `v` at a dotted path; panics naming the path when it is missing.
#[track_caller]
fn at<'a>(v: &'a Value, path: &str) -> &'a Value {
    let mut cur = v;
    for part in path.split('.') {
        cur = match part.parse::<usize>() {
            Ok(i) => cur.get(i),
            Err(_) => cur.get(part),
        }
        .unwrap_or_else(|| panic!("JSON report has no `{path}` (missing `{part}`)"));
    }
    cur
}

#[track_caller]
fn num(v: &Value, path: &str) -> f64 {
    at(v, path).as_f64().unwrap_or_else(|| panic!("`{path}` is not a number: {}", at(v, path)))
}

#[track_caller]
fn uint(v: &Value, path: &str) -> u64 {
    at(v, path).as_u64().unwrap_or_else(|| panic!("`{path}` is not an unsigned integer: {}", at(v, path)))
}

// ---------------------------------------------------------------------------------------------
// 1. `trace info` against the README table of the shipped traces
// ---------------------------------------------------------------------------------------------

/// One row of the table in `traces/README.md`.
struct TraceRow {
    file: &'static str,
    requests: u64,
    read_pct: f64,
    /// Decimal places of `read_pct` in the table.
    read_pct_decimals: i32,
    avg_kib: f64,
}

fn field_after<'a>(stdout: &'a str, label: &str) -> Vec<&'a str> {
    let line =
        stdout.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no `{label}` line in:\n{stdout}"));
    line[label.len()..].split_whitespace().collect()
}

fn check_trace_info(row: TraceRow) {
    let path = shared_trace(row.file);
    let out = ssdlab(["trace".into(), "info".into(), path.clone().into_os_string()]);
    out.assert_success();
    let s = &out.stdout;

    let requests: u64 = field_after(s, "requests")[0].parse().expect("requests count");
    assert_eq!(requests, row.requests, "{}: request count\n{s}", row.file);

    // `reads  N (x.y%)`: the count gives the percentage at the table's precision; the printed
    // percentage must agree with the table to its own one decimal.
    let reads_fields = field_after(s, "reads");
    let reads: u64 = reads_fields[0].parse().expect("read count");
    let pct = reads as f64 * 100.0 / requests as f64;
    let half_ulp = 0.5 * 10f64.powi(-row.read_pct_decimals) + 1e-9;
    assert!(
        (pct - row.read_pct).abs() <= half_ulp,
        "{}: read % {pct} from {reads}/{requests}, README says {}\n{s}",
        row.file,
        row.read_pct
    );
    let printed_pct: f64 = reads_fields[1]
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim_end_matches('%')
        .parse()
        .expect("printed read %");
    assert!(
        (printed_pct - row.read_pct).abs() <= 0.05 + 1e-9,
        "{}: printed read % {printed_pct}, README says {}\n{s}",
        row.file,
        row.read_pct
    );

    let avg_fields = field_after(s, "avg size");
    assert_eq!(avg_fields[1], "KiB", "{}: average size unit\n{s}", row.file);
    let avg: f64 = avg_fields[0].parse().expect("average size");
    assert!(
        (avg - row.avg_kib).abs() <= 0.05 + 1e-9,
        "{}: average size {avg} KiB, README says {} KiB\n{s}",
        row.file,
        row.avg_kib
    );
}

#[test]
fn trace_info_msr_hm_0() {
    check_trace_info(TraceRow {
        file: "msr/hm_0.sample1000.csv",
        requests: 1_000,
        read_pct: 50.8,
        read_pct_decimals: 1,
        avg_kib: 9.5,
    });
}

#[test]
fn trace_info_replayer_rw_20_80() {
    check_trace_info(TraceRow {
        file: "msr/msr.cut.per_10k.rw_20_80.105.trace",
        requests: 10_000,
        read_pct: 20.2,
        read_pct_decimals: 1,
        avg_kib: 5.4,
    });
}

#[test]
fn trace_info_replayer_rw_40_60() {
    check_trace_info(TraceRow {
        file: "msr/msr.cut.per_10k.rw_40_60.1370.trace",
        requests: 10_000,
        read_pct: 40.5,
        read_pct_decimals: 1,
        avg_kib: 4.8,
    });
}

#[test]
fn trace_info_replayer_most_thpt_rand_iops() {
    check_trace_info(TraceRow {
        file: "msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
        requests: 10_000,
        read_pct: 83.2,
        read_pct_decimals: 1,
        avg_kib: 12.7,
    });
}

#[test]
fn trace_info_ssdsim_financial1() {
    check_trace_info(TraceRow {
        file: "umass/Financial1.first10k.ssdsim.ascii",
        requests: 10_000,
        read_pct: 40.8,
        read_pct_decimals: 1,
        avg_kib: 5.4,
    });
}

#[test]
fn trace_info_mqsim_tpcc() {
    check_trace_info(TraceRow {
        file: "mqsim/tpcc-small.trace",
        requests: 6_999,
        read_pct: 62.6,
        read_pct_decimals: 1,
        avg_kib: 8.3,
    });
}

#[test]
fn trace_info_mqsim_wsrch_no_final_newline() {
    check_trace_info(TraceRow {
        file: "mqsim/wsrch-small.trace",
        requests: 24_783,
        read_pct: 99.98,
        read_pct_decimals: 2,
        avg_kib: 15.1,
    });
}

#[test]
fn trace_info_tencent_unsorted() {
    check_trace_info(TraceRow {
        file: "tencent/cloud_storage-sample.csv",
        requests: 50_000,
        read_pct: 49.0,
        read_pct_decimals: 1,
        avg_kib: 29.7,
    });
}

// ---------------------------------------------------------------------------------------------
// 2. Bad input: exit code 2, message names file, line and value
// ---------------------------------------------------------------------------------------------

/// Write `text` as a config file and check that both `validate` and `run` reject it with exit
/// code 2 and a message naming the file and every needle.
#[track_caller]
fn check_bad_config(text: &str, needles: &[&str]) {
    let dir = TempDir::new("badcfg");
    let cfg = dir.write("drive.toml", text);
    let wl = synthetic_workload(&dir, 100);
    let cfg_s = p(&cfg);
    let mut all = vec![cfg_s.as_str()];
    all.extend_from_slice(needles);
    ssdlab(["validate", "--config", &cfg_s]).assert_input_error(&all);
    ssdlab(["run", "--config", &cfg_s, "--workload", &p(&wl)]).assert_input_error(&all);
}

#[test]
fn config_unknown_key_names_file_line_and_key() {
    let dir = TempDir::new("unknown-key");
    let cfg = dir.write("drive.toml", "[nand]\nchanels = 8\n");
    let out = ssdlab(["validate", "--config", &p(&cfg)]);
    out.assert_input_error(&[&p(&cfg), "chanels"]);
    let named_line = out.stderr.contains(&format!("{}:2", p(&cfg))) || out.stderr.contains("line 2");
    assert!(named_line, "message should name line 2\n{}", out.describe());
}

#[test]
fn config_zero_channels() {
    check_bad_config("[nand]\nchannels = 0\n", &["nand.channels", "0"]);
}

#[test]
fn config_page_not_multiple_of_sector() {
    check_bad_config("[nand]\npage_bytes = 4000\nsector_bytes = 512\n", &["nand.page_bytes", "4000"]);
}

#[test]
fn config_read_latency_count_does_not_match_cell_type() {
    // TLC has three page types; two read latencies are one too few.
    check_bad_config(
        "[nand]\ncell = \"tlc\"\nt_read_us = [50.0, 60.0]\nt_program_us = [500.0, 1000.0, 2000.0]\n",
        &["nand.t_read_us", "50", "60"],
    );
}

#[test]
fn config_unknown_allocation_scheme() {
    check_bad_config("[ftl]\nallocation = \"CWXP\"\n", &["CWXP"]);
}

#[test]
fn config_unknown_gc_policy() {
    check_bad_config("[ftl.gc]\npolicy = \"lru\"\n", &["lru"]);
}

#[test]
fn config_unknown_tsu_policy() {
    check_bad_config("[tsu]\npolicy = \"bogus\"\n", &["bogus"]);
}

#[test]
fn config_unknown_hil_scheduler() {
    check_bad_config("[hil]\nscheduler = \"bogus\"\n", &["bogus"]);
}

#[test]
fn config_unknown_allocation_scheme_names_key() {
    check_bad_config("[ftl]\nallocation = \"CWXP\"\n", &["ftl.allocation", "CWXP"]);
}

#[test]
fn config_unknown_gc_policy_names_key() {
    check_bad_config("[ftl.gc]\npolicy = \"lru\"\n", &["ftl.gc.policy", "lru"]);
}

#[test]
fn config_unknown_tsu_policy_names_key() {
    check_bad_config("[tsu]\npolicy = \"bogus\"\n", &["tsu.policy", "bogus"]);
}

#[test]
fn config_unknown_hil_scheduler_names_key() {
    check_bad_config("[hil]\nscheduler = \"bogus\"\n", &["hil.scheduler", "bogus"]);
}

#[test]
fn config_negative_latency_names_key() {
    check_bad_config("[nand]\nt_erase_us = -1.0\n", &["nand.t_erase_us", "-1"]);
}

#[test]
fn config_bad_value_names_line() {
    let dir = TempDir::new("value-line");
    let cfg = dir.write("drive.toml", "[nand]\nchannels = 0\n");
    let out = ssdlab(["validate", "--config", &p(&cfg)]);
    out.assert_input_error(&[&format!("{}:2", p(&cfg)), "channels", "0"]);
}

/// Values that pass validation but cannot be simulated must be rejected with exit code 2
/// naming the key, by `validate` and by `run` (instead of an arithmetic panic in the run).
#[track_caller]
fn check_bad_override(set: &str, key: &str) {
    let dir = TempDir::new("bad-override");
    let wl = synthetic_workload(&dir, 100);
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--set", set]).assert_input_error(&[key]);
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--set", set]).assert_input_error(&[key]);
}

#[test]
fn config_latency_beyond_picosecond_range() {
    check_bad_override("nand.t_read_us=[1e20,1e20]", "nand.t_read_us");
}

#[test]
fn config_vanishing_link_bandwidth() {
    check_bad_override("hif.pcie.lane_gb_s=1e-300", "hif.pcie.lane_gb_s");
}

#[test]
fn config_vanishing_bus_rate() {
    check_bad_override("nand.bus.rate_mt_s=1e-300", "nand.bus.rate_mt_s");
}

#[test]
fn config_huge_command_cycle() {
    check_bad_override("nand.bus.cmd_addr_cycle_ns=1e30", "nand.bus.cmd_addr_cycle_ns");
}

#[test]
fn set_unknown_key_is_rejected() {
    let out = ssdlab(["validate", "--config", MQSIM_DEFAULT, "--set", "nand.chanels=8"]);
    out.assert_input_error(&["chanels", "nand"]);
    let dir = TempDir::new("set-unknown");
    let wl = synthetic_workload(&dir, 100);
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--set", "nand.chanels=8"])
        .assert_input_error(&["chanels", "nand"]);
}

#[test]
fn set_impossible_value_is_rejected() {
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--set", "nand.channels=0"])
        .assert_input_error(&["nand.channels", "0"]);
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--set", "nand.channels=abc"])
        .assert_input_error(&["nand.channels", "abc"]);
}

#[test]
fn set_without_equals_is_rejected() {
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--set", "nand.channels"]).assert_input_error(&["--set"]);
}

#[test]
fn set_without_equals_names_the_argument() {
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--set", "nand.channels"]).assert_input_error(&["nand.channels"]);
}

#[test]
fn workload_unknown_key_names_file_line_and_key() {
    let dir = TempDir::new("wl-unknown");
    let wl = dir.write("w.toml", "[[flows]]\ntype = \"synthetic\"\nrequests = 10\nread_ration = 0.5\n");
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]);
    out.assert_input_error(&[&p(&wl), "read_ration"]);
    let named_line = out.stderr.contains(&format!("{}:4", p(&wl))) || out.stderr.contains("line 4");
    assert!(named_line, "message should name line 4\n{}", out.describe());
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)])
        .assert_input_error(&[&p(&wl), "read_ration"]);
}

#[test]
fn workload_trace_flow_without_path() {
    let dir = TempDir::new("wl-nopath");
    let wl = dir.write("w.toml", "[[flows]]\nname = \"t\"\ntype = \"trace\"\n");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&[&p(&wl), "path"]);
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&[&p(&wl), "path"]);
}

#[test]
fn workload_read_ratio_above_one() {
    let dir = TempDir::new("wl-ratio");
    let wl = dir.write("w.toml", "[[flows]]\nname = \"s\"\ntype = \"synthetic\"\nrequests = 10\nread_ratio = 1.5\n");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&[
        &p(&wl),
        "read_ratio",
        "1.5",
    ]);
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&[
        &p(&wl),
        "read_ratio",
        "1.5",
    ]);
}

#[test]
fn workload_bad_value_names_line() {
    let dir = TempDir::new("wl-ratio-line");
    let wl = dir.write("w.toml", "[[flows]]\nname = \"s\"\ntype = \"synthetic\"\nrequests = 10\nread_ratio = 1.5\n");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)])
        .assert_input_error(&[&format!("{}:5", p(&wl)), "1.5"]);
}

#[test]
fn workload_request_size_not_multiple_of_sector_names_file() {
    let dir = TempDir::new("wl-513");
    let wl = dir.write("w.toml", "[[flows]]\nname = \"f\"\ntype = \"synthetic\"\nrequests = 10\nrequest_bytes = 513\n");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&[
        &p(&wl),
        "request_bytes",
        "513",
    ]);
}

#[test]
fn workload_vanishing_rate_is_rejected() {
    let dir = TempDir::new("wl-rate");
    let wl = dir.write("w.toml", "[[flows]]\nname = \"f\"\ntype = \"synthetic\"\nrequests = 100\nrate_iops = 1e-300\n");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&[&p(&wl), "rate_iops"]);
}

#[test]
fn workload_vanishing_speedup_is_rejected() {
    let dir = TempDir::new("wl-speedup");
    dir.write("t.trace", "0 0 0 8 1\n1000 0 8 8 1\n2000 0 16 8 1\n");
    let wl = dir.write(
        "w.toml",
        "[[flows]]\nname = \"t\"\ntype = \"trace\"\npath = \"t.trace\"\nreplay = \"timestamps\"\nspeedup = 1e-300\n",
    );
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&[&p(&wl), "speedup"]);
}

#[test]
fn workload_bad_choice_names_file_line_key_and_value() {
    let dir = TempDir::new("wl-choice");
    dir.write("t.trace", "0 0 0 8 1\n1000 0 8 8 1\n");
    for (key, value) in [
        ("type", "bogus"),
        ("priority", "bogus"),
        ("address", "bogus"),
        ("replay", "bogus"),
        ("address_mode", "bogus"),
        ("format", "bogus"),
    ] {
        let text = format!("[[flows]]\nname = \"t\"\npath = \"t.trace\"\n{key} = \"{value}\"\n");
        let wl = dir.write(&format!("w-{key}.toml"), &text);
        let (at_line_4, dotted) = (format!("{}:4", p(&wl)), format!("flows[0].{key}"));
        let needles = [at_line_4.as_str(), dotted.as_str(), value];
        ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&needles);
        ssdlab(["validate", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&needles);
    }
}

#[test]
fn run_rejects_a_bad_trace_option() {
    let dir = TempDir::new("bad-trace-option");
    let t = p(&dir.write("t.trace", "0 0 0 8 1\n1000 0 8 8 1\n"));
    for (option, choice) in [("--address-mode", "wrap"), ("--replay", "closed_loop"), ("--format", "mqsim")] {
        ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t, option, "bogus"])
            .assert_input_error(&[option, "bogus", choice]);
    }
}

/// A three-line trace in `format` whose line 3 holds `bad`; the file name's extension is the
/// one detection expects. The trace must be rejected directly (`--workload FILE`, format
/// detected), through a workload file (format named) and by `trace info`.
fn check_malformed_trace(format: &str, file_name: &str, text: &str, bad: &str) {
    let dir = TempDir::new(&format!("bad-{format}"));
    let trace = dir.write(file_name, text);
    let t = p(&trace);
    let at_line_3 = format!("{t}:3");
    let needles = [at_line_3.as_str(), bad];

    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t]).assert_input_error(&needles);

    let wl = dir.write(
        "w.toml",
        &format!("[[flows]]\nname = \"t\"\ntype = \"trace\"\nformat = \"{format}\"\npath = \"{file_name}\"\n"),
    );
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&needles);
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&needles);

    ssdlab(["trace", "info", &t]).assert_input_error(&needles);
    ssdlab(["trace", "info", "--format", format, &t]).assert_input_error(&needles);
}

#[test]
fn malformed_trace_mqsim() {
    check_malformed_trace("mqsim", "bad.trace", "0 0 0 8 1\n1000 0 8 8 0\n2000 0 16 x8 1\n", "x8");
}

#[test]
fn malformed_trace_msr() {
    check_malformed_trace(
        "msr",
        "bad.csv",
        "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514878,hm,0,Read,11855351808,512,2617\n128166385295515175,hm,0,Write,5548077056,2k,2320\n",
        "2k",
    );
}

#[test]
fn malformed_trace_replayer() {
    check_malformed_trace(
        "replayer",
        "bad.trace",
        "0.000 0 200626176 4096 0\n0.250 0 3159347200 8192 1\n0.500 0 31x93 4096 0\n",
        "31x93",
    );
}

#[test]
fn malformed_trace_ssdsim() {
    check_malformed_trace("ssdsim", "bad.ascii", "0 0 303567 7 0\n1000 1 55590 6 1\n2000 0 lsn9 7 0\n", "lsn9");
}

#[test]
fn malformed_trace_disksim() {
    check_malformed_trace("disksim", "bad.disksim", "0.000 0 1000 8 1\n1.500 0 2000 8 0\n2.000 0 3000 q7 1\n", "q7");
}

#[test]
fn malformed_trace_umass() {
    check_malformed_trace(
        "umass",
        "bad.spc",
        "0,303567,3584,w,0.000000\n1,55590,3072,r,0.001000\n0,303574,3584,q,0.002000\n",
        "`q`",
    );
}

#[test]
fn malformed_trace_tencent() {
    check_malformed_trace(
        "tencent",
        "bad.csv",
        "1538323200,4247200,128,1,1058\n1538323199,13896880,128,0,1063\n1538323199,49413280,16,7,1063\n",
        "`7`",
    );
}

#[test]
fn malformed_trace_blkparse() {
    check_malformed_trace(
        "blkparse",
        "bad.blktrace",
        "  8,0    0        1     0.000000000  1234  Q   W 2048 + 8 [dd]\n  8,0    0        2     0.000100000  1234  Q   R 4096 + 8 [dd]\n  8,0    0        3     0.000200000  1234  Q   W zz + 8 [dd]\n",
        "zz",
    );
}

/// A drive of 8 ch x 4 chips x 2 dies x 2 planes x 16 blocks x 256 pages x 8 KiB = 4 GiB raw.
/// 16-block planes (a 4 GiB drive); GC's reserve then needs 30% spare.
const SMALL_DRIVE: &str = "nand.blocks_per_plane=16";
const SMALL_DRIVE_SPARE: &str = "ftl.overprovisioning_ratio=0.3";
/// LBA 8,000,000,000 sectors = 3.7 TiB, far past the 4 GiB drive.
const FAR_LBA_SECTOR: u64 = 8_000_000_000;

#[test]
fn trace_past_the_drive_is_rejected_and_explains_wrap_and_scale() {
    let dir = TempDir::new("far");
    let trace = dir.write("far.trace", &format!("0 0 0 8 1\n1000 0 {FAR_LBA_SECTOR} 8 1\n"));
    let t = p(&trace);
    let out =
        ssdlab(["run", "--config", MQSIM_DEFAULT, "--set", SMALL_DRIVE, "--set", SMALL_DRIVE_SPARE, "--workload", &t]);
    out.assert_input_error(&[&t, "wrap", "scale"]);
    // The offending address is named (in sectors or in bytes).
    let bytes = (FAR_LBA_SECTOR * 512).to_string();
    assert!(
        out.stderr.contains(&bytes) || out.stderr.contains(&FAR_LBA_SECTOR.to_string()),
        "message should name the address\n{}",
        out.describe()
    );

    let wl = dir.write("w.toml", "[[flows]]\nname = \"t\"\ntype = \"trace\"\npath = \"far.trace\"\n");
    ssdlab([
        "validate",
        "--config",
        MQSIM_DEFAULT,
        "--set",
        SMALL_DRIVE,
        "--set",
        SMALL_DRIVE_SPARE,
        "--workload",
        &p(&wl),
    ])
    .assert_input_error(&[&t, "wrap", "scale"]);
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--set", SMALL_DRIVE, "--set", SMALL_DRIVE_SPARE, "--workload", &p(&wl)])
        .assert_input_error(&[&t, "wrap", "scale"]);
}

#[test]
fn trace_past_the_drive_runs_with_wrap_or_scale() {
    let dir = TempDir::new("far-ok");
    dir.write("far.trace", &format!("0 0 0 8 1\n1000 0 {FAR_LBA_SECTOR} 8 1\n"));
    for mode in ["wrap", "scale"] {
        let wl = dir.write(
            &format!("w-{mode}.toml"),
            &format!("[[flows]]\nname = \"t\"\ntype = \"trace\"\npath = \"far.trace\"\naddress_mode = \"{mode}\"\n"),
        );
        let out = ssdlab([
            "run",
            "--config",
            MQSIM_DEFAULT,
            "--set",
            SMALL_DRIVE,
            "--set",
            SMALL_DRIVE_SPARE,
            "--workload",
            &p(&wl),
            "--json",
        ]);
        out.assert_success();
        let report: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("--json output is not JSON: {e}\n{}", out.describe()));
        assert_eq!(uint(&report, "sim.host.requests_completed"), 2, "address_mode = {mode}");
    }
}

#[test]
fn trace_past_the_drive_names_the_line() {
    let dir = TempDir::new("far-line");
    // Line 1 is a comment, so the bad request is request #2 but line 3.
    let trace =
        dir.write("far.trace", &format!("# arrival_ns device lba size type\n0 0 0 8 1\n1000 0 {FAR_LBA_SECTOR} 8 1\n"));
    let t = p(&trace);
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--set", SMALL_DRIVE, "--set", SMALL_DRIVE_SPARE, "--workload", &t])
        .assert_input_error(&[&format!("{t}:3")]);
}

#[test]
fn overcommitted_small_drive_is_rejected_or_runs() {
    let dir = TempDir::new("overcommit");
    let wl = dir.write("w.toml", "seed = 1\n\n[[flows]]\nname = \"w\"\ntype = \"synthetic\"\nread_ratio = 0.0\nrequest_bytes = 8192\nalign_bytes = 8192\naddress = \"uniform\"\nrequests = 5000\n");
    let sets = [
        "nand.channels=1",
        "nand.chips_per_channel=1",
        "nand.dies_per_chip=1",
        "nand.planes_per_die=1",
        "nand.blocks_per_plane=16",
        "nand.pages_per_block=64",
    ];
    let mut args = vec!["run".to_string(), "--config".into(), MQSIM_DEFAULT.into(), "--workload".into(), p(&wl)];
    for s in sets {
        args.push("--set".into());
        args.push(s.into());
    }
    let out = ssdlab(args);
    match out.code {
        Some(0) => {}
        Some(2) => {
            let names_cause = out.stderr.contains("overprovisioning_ratio") || out.stderr.contains("blocks_per_plane");
            assert!(
                names_cause,
                "rejection should name ftl.overprovisioning_ratio or nand.blocks_per_plane\n{}",
                out.describe()
            );
        }
        _ => panic!("must either run (exit 0) or reject the config (exit 2)\n{}", out.describe()),
    }
}

#[test]
fn validate_good_presets() {
    for preset in [MQSIM_DEFAULT, SPRINKLER] {
        let out = ssdlab(["validate", "--config", preset]);
        out.assert_success();
        assert!(out.stdout.contains("ok"), "{}", out.describe());
    }
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--workload", EXAMPLE_READ_QD16]).assert_success();
    let out = ssdlab(["validate", "--config", MQSIM_DEFAULT, "--print"]);
    out.assert_success();
    assert!(out.stdout.contains("channels = 8"), "--print should show the resolved config\n{}", out.describe());
}

#[test]
fn validate_bad_config() {
    let dir = TempDir::new("validate-bad");
    let cfg = dir.write("bad.toml", "[nand]\nchannels = 0\n");
    ssdlab(["validate", "--config", &p(&cfg)]).assert_input_error(&[&p(&cfg)]);
    let missing = dir.path("missing.toml");
    ssdlab(["validate", "--config", &p(&missing)]).assert_input_error(&[&p(&missing)]);
}

#[test]
fn timeline_window_errors() {
    let dir = TempDir::new("window");
    let wl = synthetic_workload(&dir, 10);
    let tl = dir.path("tl.json");
    ssdlab([
        "run",
        "--config",
        MQSIM_DEFAULT,
        "--workload",
        &p(&wl),
        "--timeline",
        &p(&tl),
        "--timeline-window",
        "5:1",
    ])
    .assert_input_error(&["5:1"]);
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--timeline-window", "0:5"])
        .assert_input_error(&["--timeline"]);
}

// ---------------------------------------------------------------------------------------------
// 3. A trace run end to end, JSON report
// ---------------------------------------------------------------------------------------------

/// First and last arrival (ns) of an MQSim trace, read here from the text.
fn mqsim_span_ns(path: &Path) -> u64 {
    let text = std::fs::read_to_string(path).expect("read trace");
    let times: Vec<u64> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    times.iter().max().unwrap() - times.iter().min().unwrap()
}

#[test]
fn run_tpcc_trace_writes_full_report() {
    let trace = shared_trace("mqsim/tpcc-small.trace");
    let dir = TempDir::new("tpcc");
    let out_json = dir.path("report.json");
    let out =
        ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&trace), "--seed", "5", "--out", &p(&out_json)]);
    out.assert_success();
    assert!(out.stdout.contains("6999"), "summary should report the 6999 requests\n{}", out.describe());
    assert!(out.stdout.contains("latency"), "summary should show latencies\n{}", out.describe());

    let r = read_json(&out_json);
    assert!(!at(&r, "ssdlab_version").as_str().expect("version is a string").is_empty());
    assert_eq!(uint(&r, "seed"), 5);
    // The config is the preset's.
    assert_eq!(uint(&r, "config.nand.channels"), 8);
    assert_eq!(uint(&r, "config.nand.blocks_per_plane"), 2048);

    // Every request of the trace completes; the read share is the README's 62.6 %.
    assert_eq!(uint(&r, "sim.host.requests_completed"), 6999);
    assert_eq!(uint(&r, "sim.latency_us.all.count"), 6999);
    let reads = uint(&r, "sim.latency_us.read.count");
    assert!((reads as f64 * 100.0 / 6999.0 - 62.6).abs() <= 0.05, "{reads} reads of 6999 is not 62.6 %");

    // Timestamp replay: simulated time covers at least the trace's span.
    let span_ps = mqsim_span_ns(&trace) * 1000;
    let sim_time = uint(&r, "sim.sim_time_ps");
    assert!(sim_time >= span_ps, "sim_time_ps {sim_time} shorter than the trace span {span_ps} ps");

    // Latencies: ordered, and no request finishes faster than the preset's 75 us page read.
    let (mean, p50, p99, p999, max) = (
        num(&r, "sim.latency_us.all.mean"),
        num(&r, "sim.latency_us.all.p50"),
        num(&r, "sim.latency_us.all.p99"),
        num(&r, "sim.latency_us.all.p999"),
        num(&r, "sim.latency_us.all.max"),
    );
    assert!(p50 >= 75.0, "p50 {p50} us below tR = 75 us");
    assert!(p50 <= p99 && p99 <= p999 && p999 <= max, "quantiles out of order: {p50} {p99} {p999} {max}");
    assert!(mean >= 75.0 && mean <= max, "mean {mean} outside [75, max {max}]");

    assert_eq!(at(&r, "sim.flows").as_array().expect("flows array").len(), 1, "a trace is one flow");
    assert!(at(&r, "sim.flows.0.name").as_str().expect("flow name").contains("tpcc"));

    for key in ["chip_utilization", "inter_chip_idleness", "intra_chip_idleness"] {
        let v = num(&r, &format!("sim.flash.{key}"));
        assert!((0.0..=1.0).contains(&v), "sim.flash.{key} = {v} not in [0, 1]");
    }
    let memory_requests = uint(&r, "sim.flash.memory_requests");
    let transactions = uint(&r, "sim.flash.transactions");
    assert!(transactions > 0, "a run with I/O issues flash transactions");
    assert!(memory_requests >= transactions, "{transactions} transactions for {memory_requests} page operations");
    let reduction = num(&r, "sim.flash.transaction_reduction");
    assert!(
        (reduction - (1.0 - transactions as f64 / memory_requests as f64)).abs() < 1e-9,
        "transaction_reduction {reduction}"
    );
    let flp: Vec<f64> = ["single", "die_interleave", "multi_plane", "both"]
        .iter()
        .map(|k| num(&r, &format!("sim.flash.flp.{k}")))
        .collect();
    assert!(flp.iter().all(|f| (0.0..=1.0).contains(f)), "FLP fractions {flp:?}");
    assert!((flp.iter().sum::<f64>() - 1.0).abs() <= 1e-9, "FLP fractions {flp:?} do not sum to 1");

    for key in ["invocations", "pages_moved", "erases"] {
        uint(&r, &format!("sim.gc.{key}"));
    }
    // tpcc writes, so WAF = (user + GC pages) / user pages is at least 1.
    assert!(num(&r, "sim.gc.waf") >= 1.0);
    let sf = num(&r, "sim.gc.effective_spare_factor");
    assert!(sf > 0.0 && sf < 1.0, "effective spare factor {sf} of a 7 % over-provisioned 512 GiB drive");

    assert!(num(&r, "run.wall_s") >= 0.0);
    assert!(uint(&r, "run.events") > 0);
    assert!(num(&r, "run.events_per_s") >= 0.0);
    assert!(num(&r, "run.requests_per_s") >= 0.0);
    uint(&r, "run.peak_rss_bytes");
}

#[test]
fn json_flag_prints_the_same_report_as_out() {
    let dir = TempDir::new("json-flag");
    let wl = synthetic_workload(&dir, 2000);
    let out_json = dir.path("report.json");
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--out", &p(&out_json), "--json"]);
    out.assert_success();
    let mut printed: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("--json output is not JSON: {e}\n{}", out.describe()));
    let mut written = read_json(&out_json);
    assert_eq!(uint(&printed, "sim.host.requests_completed"), 2000);
    printed.as_object_mut().unwrap().remove("run");
    written.as_object_mut().unwrap().remove("run");
    assert_eq!(printed, written);
}

#[test]
fn csv_appends_rows_under_one_header() {
    let dir = TempDir::new("csv");
    let wl = synthetic_workload(&dir, 2000);
    let csv = dir.path("table.csv");
    for _ in 0..2 {
        ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", &p(&csv)]).assert_success();
    }
    let text = std::fs::read_to_string(&csv).expect("csv written");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "one header and two rows:\n{text}");
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = header.iter().position(|h| *h == "requests").expect("requests column");
    for row in &lines[1..] {
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!(fields.len(), header.len(), "row {row}");
        assert_eq!(fields[col], "2000");
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Determinism
// ---------------------------------------------------------------------------------------------

fn report_without_run(config: &str, workload: &Path, seed: &str, extra: &[&str], dir: &TempDir, name: &str) -> String {
    let out_json = dir.path(name);
    let mut args = vec!["run", "--config", config, "--seed", seed, "--out"];
    let (o, w) = (p(&out_json), p(workload));
    args.push(o.as_str());
    args.extend(["--workload", w.as_str()]);
    args.extend_from_slice(extra);
    ssdlab(args).assert_success();
    let mut v = read_json(&out_json);
    assert!(v.as_object_mut().expect("report is an object").remove("run").is_some(), "report has a `run` object");
    serde_json::to_string(&v).unwrap()
}

#[test]
fn same_inputs_give_identical_reports() {
    let dir = TempDir::new("determinism");
    let wl = synthetic_workload(&dir, 2000);
    let a = report_without_run(MQSIM_DEFAULT, &wl, "42", &[], &dir, "a.json");
    let b = report_without_run(MQSIM_DEFAULT, &wl, "42", &[], &dir, "b.json");
    assert!(a == b, "two runs with the same config, workload and seed differ");
    // The seed matters: another seed draws other addresses.
    let c = report_without_run(MQSIM_DEFAULT, &wl, "43", &[], &dir, "c.json");
    assert!(a != c, "runs with seeds 42 and 43 are identical");
}

#[test]
fn same_trace_run_gives_identical_reports() {
    let dir = TempDir::new("determinism-trace");
    let trace = shared_trace("msr/hm_0.sample1000.csv");
    let a = report_without_run(MQSIM_DEFAULT, &trace, "7", &["--set", "tsu.policy=fifo"], &dir, "a.json");
    let b = report_without_run(MQSIM_DEFAULT, &trace, "7", &["--set", "tsu.policy=fifo"], &dir, "b.json");
    assert!(a == b, "two runs of the same trace differ");
}

// ---------------------------------------------------------------------------------------------
// 5. Timeline
// ---------------------------------------------------------------------------------------------

fn complete_events(timeline: &Value) -> Vec<&Value> {
    at(timeline, "traceEvents")
        .as_array()
        .expect("traceEvents is an array")
        .iter()
        .filter(|e| e.get("ph").and_then(Value::as_str) == Some("X"))
        .collect()
}

#[test]
fn timeline_is_chrome_trace_json() {
    let dir = TempDir::new("timeline");
    let wl = synthetic_workload(&dir, 2000);
    let tl = dir.path("timeline.json");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--timeline", &p(&tl)]).assert_success();
    let v = read_json(&tl);
    let xs = complete_events(&v);
    assert!(!xs.is_empty(), "no complete (ph = X) events");
    for e in &xs {
        let ts = e.get("ts").and_then(Value::as_f64).expect("X event has ts");
        let dur = e.get("dur").and_then(Value::as_f64).expect("X event has dur");
        assert!(ts >= 0.0 && dur > 0.0, "event {e}");
    }
    // A read of a 75 us array time appears as a tR slice of 75 us.
    assert!(
        xs.iter()
            .any(|e| e.get("name").and_then(Value::as_str) == Some("tR")
                && (e["dur"].as_f64().unwrap() - 75.0).abs() < 1e-6),
        "no 75 us tR slice"
    );
}

#[test]
fn timeline_window_limits_events() {
    let dir = TempDir::new("timeline-window");
    let wl = synthetic_workload(&dir, 2000);
    let tl = dir.path("timeline.json");
    ssdlab([
        "run",
        "--config",
        MQSIM_DEFAULT,
        "--workload",
        &p(&wl),
        "--timeline",
        &p(&tl),
        "--timeline-window",
        "0:200",
    ])
    .assert_success();
    let v = read_json(&tl);
    let xs = complete_events(&v);
    assert!(!xs.is_empty(), "no complete (ph = X) events in the first 200 us");
    for e in &xs {
        let ts = e["ts"].as_f64().expect("ts");
        assert!(ts < 200.0, "event outside the 0:200 us window: {e}");
    }
}

// ---------------------------------------------------------------------------------------------
// Sprinkler: schedulers, hazards, reproduction, bench overrides
// ---------------------------------------------------------------------------------------------

#[test]
fn config_bad_hazard_rule_names_key_and_value() {
    check_bad_config("[hil]\nhazards = \"loose\"\n", &["hil.hazards", "loose"]);
}

#[test]
fn check_mode_needs_strict_hazards() {
    let dir = TempDir::new("check-war");
    let wl = synthetic_workload(&dir, 100);
    ssdlab(["run", "--config", SPRINKLER, "--workload", &p(&wl), "--check"])
        .assert_input_error(&["hil.hazards", "strict"]);
}

#[test]
fn every_scheduler_runs_a_trace_to_completion() {
    let trace = format!("{TRACES}/msr/hm_0.sample1000.csv");
    for s in ["direct", "vas", "pas", "spk1", "spk2", "spk3"] {
        let set = format!("hil.scheduler={s}");
        let out = ssdlab([
            "run",
            "--config",
            SPRINKLER,
            "--workload",
            &trace,
            "--set",
            &set,
            "--replay",
            "closed_loop",
            "--queue-depth",
            "64",
            "--address-mode",
            "wrap",
            "--json",
        ]);
        out.assert_success();
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["sim"]["host"]["requests_completed"], 1000, "{s}");
        assert_eq!(v["config"]["hil"]["scheduler"], s);
    }
}

#[test]
fn reproduce_unknown_paper_is_an_input_error() {
    let dir = TempDir::new("repro-unknown");
    ssdlab(["reproduce", "nopaper", "--out", &p(&dir.path("out"))]).assert_input_error(&["nopaper", "sprinkler"]);
}

#[test]
fn reproduce_without_traces_names_the_missing_file() {
    let dir = TempDir::new("repro-notraces");
    let out = dir.path("out");
    let missing = dir.path("no-traces");
    ssdlab(["reproduce", "sprinkler", "--quick", "--out", &p(&out), "--traces", &p(&missing)])
        .assert_input_error(&["hm_0.sample1000.csv", "--traces"]);
}

/// `reproduce fmmu` checks its traces before any run: a folder without them is an input
/// error (exit 2) naming the first trace it needs and the flag.
#[test]
fn reproduce_fmmu_without_traces_names_the_missing_file() {
    let dir = TempDir::new("repro-fmmu-notraces");
    let out = dir.path("out");
    let missing = dir.path("no-traces");
    ssdlab(["reproduce", "fmmu", "--quick", "--out", &p(&out), "--traces", &p(&missing)])
        .assert_input_error(&["msr.cut.per_10k.rw_20_80.105.trace", "--traces"]);
}

#[test]
fn bench_rejects_a_bad_override() {
    ssdlab(["bench", "--only", "fresh", "--set", "hil.scheduler=bogus"])
        .assert_input_error(&["hil.scheduler", "bogus"]);
}

/// The quick reproduction on the shipped MSR traces, at the paper's setup: SPK3 at least the
/// paper's 2.2× VAS in bandwidth and above PAS, chips busier than under VAS, on every trace,
/// and the files the report promises.
#[test]
fn reproduce_sprinkler_quick_shows_the_papers_direction() {
    let dir = TempDir::new("repro-quick");
    let out = dir.path("out");
    ssdlab(["reproduce", "sprinkler", "--quick", "--out", &p(&out), "--traces", TRACES]).assert_success();
    for f in ["results.csv", "REPORT.md", "fig10a_bandwidth.png", "fig15_chip_utilization_1024.png", "fig17_gc.png"] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<String>> = csv.lines().skip(1).map(|l| l.split(',').map(String::from).collect()).collect();
    let get = |w: &str, s: &str, c: &str| -> f64 {
        rows.iter()
            .find(|r| {
                r[col("experiment")] == "workloads"
                    && r[col("workload")] == w
                    && r[col("scheduler")] == s
                    && r[col("chips")] == "64"
            })
            .unwrap_or_else(|| panic!("no row for {w} {s}"))[col(c)]
        .parse()
        .unwrap()
    };
    for w in ["msr-hm0", "msr-rw20", "msr-rw40", "msr-rd83"] {
        let (vas, pas, spk3) =
            (get(w, "vas", "bandwidth_mb_s"), get(w, "pas", "bandwidth_mb_s"), get(w, "spk3", "bandwidth_mb_s"));
        assert!(spk3 >= 2.2 * vas, "{w}: spk3 {spk3} vas {vas}");
        assert!(spk3 > pas, "{w}: spk3 {spk3} pas {pas}");
        assert!(get(w, "spk3", "chip_utilization") > get(w, "vas", "chip_utilization"), "{w}");
        assert!(get(w, "spk3", "plane_utilization") > get(w, "vas", "plane_utilization"), "{w}");
        // VAS and PAS never over-commit: one page per command.
        assert_eq!(get(w, "vas", "transaction_reduction"), 0.0, "{w}");
    }
}

#[test]
fn fairness_flag_adds_slowdowns_and_the_summary() {
    let dir = TempDir::new("fairness");
    let wl = dir.write(
        "two.toml",
        "seed = 5\n[[flows]]\nname = \"w\"\nread_ratio = 0.0\nrequest_bytes = 65536\nqueue_depth = 16\nrequests = 500\n\n[[flows]]\nname = \"r\"\nread_ratio = 1.0\nrequest_bytes = 4096\nqueue_depth = 2\nrequests = 500\n",
    );
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--fairness", "--json"]);
    out.assert_success();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let f = &v["sim"]["fairness"];
    let s: Vec<f64> = v["sim"]["flows"].as_array().unwrap().iter().map(|f| f["slowdown"].as_f64().unwrap()).collect();
    let (max, min) = (s[0].max(s[1]), s[0].min(s[1]));
    assert!((f["unfairness"].as_f64().unwrap() - max / min).abs() < 1e-9);
    assert!((f["fairness"].as_f64().unwrap() - min / max).abs() < 1e-9);
    assert!((f["weighted_speedup"].as_f64().unwrap() - (1.0 / s[0] + 1.0 / s[1])).abs() < 1e-9);
    assert_eq!(f["max_slowdown"].as_f64().unwrap(), max);
    // Without the flag the keys are absent.
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--json"]);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(v["sim"].get("fairness").is_none() && v["sim"]["flows"][0].get("slowdown").is_none());
}

/// The quick FLIN reproduction: at least 20 mixes under FLIN, Sprinkler and
/// Sprinkler+Fairness, and FLIN's worst slowdown below Sprinkler's.
#[test]
fn reproduce_flin_quick_covers_twenty_mixes() {
    let dir = TempDir::new("repro-flin");
    let out = dir.path("out");
    ssdlab(["reproduce", "flin", "--quick", "--out", &p(&out), "--traces", TRACES]).assert_success();
    assert!(out.join("REPORT.md").exists() && out.join("fairness.png").exists());
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let worst = |policy: &str| {
        rows.iter()
            .filter(|r| r[0] == "mix" && r[3] == policy)
            .map(|r| r[7].parse::<f64>().unwrap())
            .fold(0.0, f64::max)
    };
    for policy in ["flin", "sprinkler", "sprinkler_fairness"] {
        assert!(rows.iter().filter(|r| r[0] == "mix" && r[3] == policy).count() >= 20, "{policy}");
    }
    assert!(worst("flin") < worst("sprinkler"), "flin {} sprinkler {}", worst("flin"), worst("sprinkler"));
}

// ---------------------------------------------------------------------------------------------
// 8. Input and output defects a new user hits: each bad input exits 2 naming file, line, value
// ---------------------------------------------------------------------------------------------

/// 2^32 − 1 sectors of 512 B: the largest request a 32-bit sector count holds.
const MAX_REQUEST_BYTES: u64 = 4_294_967_295 * 512;
/// A drive past 2 TiB (8 ch × 4 chips × 2 dies × 2 planes × 100,000 blocks × 256 pages × 8 KiB
/// = 26.8 TB raw), so a 2 TiB request is not simply "larger than the drive".
const HUGE_DRIVE: &str = "nand.blocks_per_plane=100000";

#[test]
fn request_of_2_pow_41_bytes_is_rejected_in_every_trace_format() {
    let dir = TempDir::new("huge-request");
    // 2^32 sectors = 2^41 bytes, one sector more than a request can carry; on line 2.
    let cases = [
        ("m.trace", "0 0 0 8 1\n1000 0 0 4294967296 1\n", "`4294967296`"),
        ("r.trace", "0.000 0 0 4096 1\n0.500 0 0 2199023255552 1\n", "`2199023255552`"),
        ("m.csv", "1,h,0,Read,0,512,0\n2,h,0,Read,0,2199023255552,0\n", "`2199023255552`"),
    ];
    for (name, text, value) in cases {
        let t = p(&dir.write(name, text));
        let limit = MAX_REQUEST_BYTES.to_string();
        ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t]).assert_input_error(&[
            &format!("{t}:2"),
            value,
            &limit,
        ]);
        ssdlab(["run", "--config", MQSIM_DEFAULT, "--set", HUGE_DRIVE, "--workload", &t]).assert_input_error(&[
            &format!("{t}:2"),
            value,
            &limit,
        ]);
        ssdlab(["trace", "info", &t]).assert_input_error(&[&format!("{t}:2"), value]);
    }
    // A byte-unit request of exactly the limit, starting 1 byte into a sector, spans 2^32
    // sectors: the conversion to sectors rejects it instead of wrapping the count to 0.
    let t = p(&dir.write("u.csv", &format!("1,h,0,Read,1,{MAX_REQUEST_BYTES},0\n")));
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--set", HUGE_DRIVE, "--workload", &t]).assert_input_error(&[
        &format!("{t}:1"),
        "4294967296 sectors",
        "4294967295",
    ]);
}

#[test]
fn synthetic_request_bytes_past_u32_sectors_is_rejected_naming_line_and_value() {
    let dir = TempDir::new("huge-synthetic");
    // 2^41 + 4096 bytes: as 32-bit sectors it used to wrap to 8 sectors and run silently.
    let wl = dir.write("w.toml", "[[flows]]\nname = \"big\"\nrequests = 10\nrequest_bytes = 2199023259648\n");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]).assert_input_error(&[
        &format!("{}:4", p(&wl)),
        "request_bytes",
        "2199023259648",
        &MAX_REQUEST_BYTES.to_string(),
    ]);
}

#[test]
fn stats_interval_below_a_microsecond_is_rejected() {
    let dir = TempDir::new("interval");
    let t = p(&dir.write("t.trace", "0 0 0 8 1\n1000 0 8 8 1\n"));
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--set", "stats.interval_us=0.001", "--workload", &t])
        .assert_input_error(&["stats.interval_us = 0.001", "at least 1 µs"]);
    let cfg = std::fs::read_to_string(MQSIM_DEFAULT).unwrap() + "\n[stats]\ninterval_us = 0.5\n";
    let line = cfg.lines().count();
    let c = p(&dir.write("c.toml", &cfg));
    ssdlab(["run", "--config", &c, "--workload", &t])
        .assert_input_error(&[&format!("{c}:{line}"), "stats.interval_us = 0.5"]);
}

#[test]
fn time_series_stops_at_a_million_rows() {
    let dir = TempDir::new("series-cap");
    // Requests 2 s apart (mqsim times in ns), 1 µs windows: 2,000,000 windows, 1,000,000 kept.
    let t = p(&dir.write("t.trace", "0 0 0 8 1\n2000000000 0 8 8 1\n"));
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--set", "stats.interval_us=1", "--workload", &t]);
    out.assert_success();
    assert!(out.stderr.contains("kept its first 1000000 samples"), "{}", out.describe());
    // 0.5 s at 1 ms windows: 500 whole windows, and the last request's completion a few µs
    // after 0.5 s closes a partial 501st; no warning.
    let t = p(&dir.write("s.trace", "0 0 0 8 1\n500000000 0 8 8 1\n"));
    let r = dir.path("r.json");
    let out = ssdlab([
        "run",
        "--config",
        MQSIM_DEFAULT,
        "--set",
        "stats.interval_us=1000",
        "--workload",
        &t,
        "--out",
        &p(&r),
    ]);
    out.assert_success();
    assert!(!out.stderr.contains("samples"), "{}", out.describe());
    assert_eq!(at(&read_json(&r), "sim.time_series").as_array().unwrap().len(), 501);
}

#[test]
fn endless_line_is_rejected_after_64_kib() {
    let dir = TempDir::new("endless");
    let start = Instant::now();
    ssdlab(["trace", "info", "/dev/zero"]).assert_input_error(&["/dev/zero:1", "exceeds 65536 bytes", "\\u{0}"]);
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", "/dev/zero", "--format", "mqsim"])
        .assert_input_error(&["/dev/zero:1", "exceeds 65536 bytes"]);
    // A binary-looking file with no newline, on line 3 after two good lines.
    let t = p(&dir.write("b.trace", &format!("0 0 0 8 1\n1000 0 8 8 1\n{}", "\u{1}x".repeat(40_000))));
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t])
        .assert_input_error(&[&format!("{t}:3"), "exceeds 65536 bytes"]);
    // Reading /dev/zero whole would never end; the bound makes these take well under a minute.
    assert!(start.elapsed() < Duration::from_secs(60), "{:?}", start.elapsed());
}

/// `sh -c` that ignores SIGXFSZ and limits files the process writes to 2 blocks (1 or 2 KiB),
/// then runs the binary: writes past that fail with EFBIG, as on a full disk.
fn ssdlab_with_small_file_limit(args: &[&str]) -> Output {
    let script = "trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\"";
    let mut all = vec!["-c", script, BIN];
    all.extend_from_slice(args);
    let cmdline = all.join(" ");
    let out = Command::new("sh").args(&all).env("RUST_BACKTRACE", "0").output().expect("run sh");
    Output {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        cmdline,
    }
}

#[test]
fn failed_output_write_leaves_the_old_file_and_no_partial_one() {
    let dir = TempDir::new("full-disk");
    // TPC-C: a 6 KB report and a 3 MB timeline, both past the 2-block file limit.
    let t = p(&shared_trace("mqsim/tpcc-small.trace"));
    // The report and the timeline are several KiB; the CSV, rewritten whole to append a row,
    // is given 1,500 bytes already.
    for (option, old) in [("--out", "old\n".to_string()), ("--timeline", "old\n".into()), ("--csv", "x".repeat(1500))] {
        let target = dir.write("old.txt", &old);
        let args = ["run", "--config", MQSIM_DEFAULT, "--workload", &t, option, &p(&target)];
        ssdlab_with_small_file_limit(&args).assert_input_error(&[&p(&target), "writing failed", "left unchanged"]);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), old, "{option}");
        let left: Vec<_> = std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![OsString::from("old.txt")], "{option}: no temporary file left");
    }
    // A device is written in place: /dev/full fails with ENOSPC, named.
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t, "--out", "/dev/full"])
        .assert_input_error(&["/dev/full: writing failed", "No space left on device"]);
}

#[test]
fn unwritable_output_is_reported_before_simulating() {
    let dir = TempDir::new("unwritable");
    // Line 3 of the trace is bad: an error naming the output proves the output was checked
    // before the trace was even read, and no report appears.
    let t = p(&dir.write("t.trace", "0 0 0 8 1\n1000 0 8 8 0\n2000 0 16 x8 1\n"));
    let file = dir.write("plain", "");
    let bad_paths = [
        (dir.path("no/such/dir/r.json"), "No such file or directory"),
        (dir.0.clone(), "is a directory"),
        (file.join("r.json"), "Not a directory"),
    ];
    for option in ["--out", "--timeline", "--csv"] {
        for (path, why) in &bad_paths {
            let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t, option, &p(path)]);
            out.assert_input_error(&[&p(path), why]);
            assert!(!out.stderr.contains("x8"), "{option}: checked after the trace\n{}", out.describe());
        }
    }
    let out = dir.path("no/dir/c.trace");
    ssdlab(["trace", "convert", &t, "--to", "msr", "--out", &p(&out)]).assert_input_error(&[&p(&out)]);
}

#[test]
fn replayer_in_sectors_is_its_own_format() {
    let dir = TempDir::new("replayer-sectors");
    // Offsets 16 and 1024 sectors, sizes 8 and 16 sectors (4 and 8 KiB), ms times.
    let t = p(&dir.write("s.trace", "0.000 0 16 8 1\n0.250 0 1024 16 0\n"));
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t, "--format", "replayer"]).assert_input_error(&[
        &format!("{t}:1"),
        "offset_bytes `16`",
        "not a multiple of 512",
        "replayer_sectors",
    ]);
    ssdlab(["trace", "info", &t]).assert_input_error(&[&format!("{t}:1"), "ambiguous", "disksim", "replayer_sectors"]);
    let out = ssdlab(["trace", "info", "--format", "replayer_sectors", &t]);
    out.assert_success();
    // Average (8 + 16) / 2 sectors = 6 KiB; the largest address (1024 + 16) × 512 = 532,480 bytes.
    assert_eq!(field_after(&out.stdout, "avg size")[0], "6.0", "{}", out.stdout);
    assert_eq!(field_after(&out.stdout, "max address")[0], "532480", "{}", out.stdout);
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t, "--format", "replayer_sectors"]).assert_success();
    // Whole-sector values are read as bytes, and detection says so and how to override.
    let b = p(&dir.write("b.trace", "0.000 0 8192 4096 1\n0.250 0 524288 8192 0\n"));
    let out = ssdlab(["trace", "info", &b]);
    out.assert_success();
    assert_eq!(field_after(&out.stdout, "format")[0], "replayer", "{}", out.stdout);
    assert!(out.stdout.contains("multiple of 512") && out.stdout.contains("replayer_sectors"), "{}", out.stdout);
    let run = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &b]);
    run.assert_success();
    assert!(run.stderr.contains(&format!("{b}: read as replayer: ")), "{}", run.describe());
}

#[test]
fn echoed_lines_are_cut_and_escaped() {
    let dir = TempDir::new("echo");
    // Line 2: 5,000 characters with control bytes; the message shows 120 and the length.
    let garbage = "\u{7}x".repeat(2500);
    let t = p(&dir.write("g.trace", &format!("0 0 0 8 1\n{garbage}\n")));
    let out = ssdlab(["trace", "info", "--format", "mqsim", &t]);
    out.assert_input_error(&[&format!("{t}:2"), "\\u{7}x", "… (5000 bytes in all)"]);
    assert!(out.stderr.len() < 400, "{} bytes of stderr\n{}", out.stderr.len(), out.describe());
    assert!(!out.stderr.contains('\u{7}'), "raw control byte echoed\n{}", out.describe());
    // A UTF-8 byte-order mark at the start of the file is named.
    let t = p(&dir.write("bom.trace", "\u{feff}0 0 0 8 1\n1000 0 8 8 1\n"));
    ssdlab(["trace", "info", &t]).assert_input_error(&[&format!("{t}:1"), "\\u{feff}", "byte-order mark"]);
}

/// A reader of stdout that has gone away (`ssdlab validate --print ... | head -0`) ends the
/// program quietly with exit 0, not with a panic (exit 134 under `panic = "abort"`).
#[test]
fn closed_stdout_ends_quietly() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(BIN)
        .args(["validate", "--config", MQSIM_DEFAULT, "--print"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `sweep` is the Python package's engine: without an interpreter that has it, it says how to
/// get one and exits 2. (The sweep itself is tested by python/tests/test_sweep.py.)
#[test]
fn sweep_without_the_python_package_says_how_to_install_it() {
    let out = Command::new(BIN)
        .args(["sweep", "experiments/scheduler-channels.toml", "--out", "unused"])
        .env("SSDLAB_PYTHON", "/nonexistent/python3")
        .output()
        .expect("run ssdlab");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pip install ./python"), "{stderr}");
    assert!(stderr.contains("/nonexistent/python3"), "{stderr}");
}
