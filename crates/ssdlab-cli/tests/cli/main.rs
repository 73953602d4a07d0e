//! End-to-end tests of the `ssdlab` binary.
//!
//! Expected values come from outside the simulator: the request counts, read percentages and
//! average sizes of the shipped traces are those of `traces/README.md`, the drive
//! geometry is that of `presets/mqsim-default.toml`, and trace spans are computed here from the
//! trace text. Bad input must exit with code 2 (never 101 = panic, never a signal such as
//! SIGABRT = 134) and say on stderr which file, line and value are wrong.
//!
//! Tests marked `#[ignore = "long: ..."]` take a minute or more (the quick reproductions); CI
//! runs them with `cargo test -- --ignored`. A test marked `#[ignore = "bug: ..."]` would
//! assert the correct behaviour of a known bug, run the same way.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

mod docs;
mod fio;
mod import;
mod memory;
mod new_user;
mod outputs;
mod runs;
mod serve;
#[allow(unused_imports)]
use runs::*;

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
    run_program(BIN, "ssdlab", args)
}

/// Run `program` (named `name` in messages) as [`ssdlab`] runs the binary.
fn run_program<I, S>(program: &str, name: &str, args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cmdline = std::iter::once(name.to_string())
        .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(" ");
    let io = TempDir::new("io");
    let (out_path, err_path) = (io.path("stdout"), io.path("stderr"));
    let mut child = Command::new(program)
        .args(&args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {name}: {e}"));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for the child") {
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

/// A fio job file runs as a workload, told by its content whatever its name, and validate
/// prints the flows it became; an option ssdlab does not read exits 2 naming file, line and
/// option.
#[test]
fn fio_job_files_are_workloads() {
    let dir = TempDir::new("fio");
    let job = dir
        .write("job.ini", "; two jobs\n[global]\nbs=8k\nruntime=1ms\n[w]\nrw=randwrite\nnumjobs=2\n[r]\nrw=randread\n");
    let out = ssdlab(["validate", "--config", MQSIM_DEFAULT, "--workload", &p(&job)]);
    out.assert_success();
    for needle in ["name = \"w.0\"", "name = \"w.1\"", "name = \"r\"", "request_bytes = 8192", "duration_ms = 1.0"] {
        assert!(out.stdout.contains(needle), "{needle}\n{}", out.describe());
    }
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&job)]);
    out.assert_success();
    assert!(out.stdout.contains("w.1") && out.stdout.contains("r "), "{}", out.describe());
    let bad = dir.write("bad.fio", "[j]\nrw=randread\nruntime=1\ndirect=1\n");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&bad)])
        .assert_input_error(&[&format!("{}:4: fio option `direct` is not read", p(&bad))]);
    let bad = dir.write("bad2.fio", "[j]\nrw=randread\nruntime=1\nbs=4x\n");
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--workload", &p(&bad)])
        .assert_input_error(&[&format!("{}:4: bs = \"4x\": expected a positive size", p(&bad))]);
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

/// `ssdlab ledger` gathers reproductions' claims.json files: two claims, one reproduced
/// (−40% against the paper's −48.6%: within 25% of its magnitude) and one opposite, give those
/// counts and one row each. A folder without claims.json, or a claims.json that is not one,
/// is an input error naming the file, and writes no ledger.
#[test]
fn ledger_gathers_claims_and_names_a_bad_folder() {
    let dir = TempDir::new("ledger");
    let claim = |value: f64, measured: f64| {
        format!(
            r#"{{"paper":"P","claim":"c{value}","kind":"change","paper_value":{value},"bound":"value","measured":{measured},"interval":null,"over":"5 traces","cause":null}}"#
        )
    };
    std::fs::create_dir_all(dir.path("a")).unwrap();
    dir.write("a/claims.json", &format!("[{}, {}]", claim(-0.486, -0.40), claim(-0.2, 0.1)));
    let out = dir.path("claims.md");
    let o = ssdlab(["ledger", &p(&dir.path("a")), "--out", &p(&out)]);
    o.assert_success();
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.contains("| reproduced | 1 |") && md.contains("| opposite | 1 |"), "{md}");
    assert!(md.contains("| P | c-0.486 | -48.6% | -40.0% | – | 5 traces | reproduced | – |"), "{md}");
    std::fs::create_dir_all(dir.path("empty")).unwrap();
    let bad_out = dir.path("bad.md");
    let o = ssdlab(["ledger", &p(&dir.path("a")), &p(&dir.path("empty")), "--out", &p(&bad_out)]);
    o.assert_input_error(&["claims.json"]);
    assert!(!bad_out.exists(), "no half-made ledger");
    std::fs::create_dir_all(dir.path("junk")).unwrap();
    dir.write("junk/claims.json", "[{\"paper\": 1}]");
    let o = ssdlab(["ledger", &p(&dir.path("junk")), "--out", &p(&bad_out)]);
    o.assert_input_error(&["junk", "claims.json", "not a reproduction's claims.json"]);
}
