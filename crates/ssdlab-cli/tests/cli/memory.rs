//! Memory, never an abort (issue 34): `validate`'s capacity and estimate, runs refused above
//! a limit, address-space limits (`ulimit -v` through `sh -c`), readers that never end, and
//! outputs that cannot be written. Each ends in success or exit 2 with a message, never in
//! an abort (exit 134).

#[allow(unused_imports)]
use super::*;

const SPRINKLER_TRACE: &str = "msr/hm_0.sample1000.csv";

/// Run the binary through `sh -c` with `setup` first (a `ulimit`, a FIFO): `$BIN` is the
/// binary. None where there is no `sh` (the test then says so and passes).
fn through_sh(setup: &str, args: &str) -> Option<Output> {
    if Command::new("sh").arg("-c").arg("true").status().map_or(true, |s| !s.success()) {
        eprintln!("skipped: no sh to set a limit with");
        return None;
    }
    let script = format!("{setup}\nexec \"$BIN\" {args}");
    let io = TempDir::new("sh");
    let (out_path, err_path) = (io.path("stdout"), io.path("stderr"));
    let status = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .env("BIN", BIN)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .status()
        .expect("run sh");
    Some(Output {
        code: status.code(),
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
        cmdline: script,
    })
}

/// Whether `ulimit -v` can be set here (some containers forbid it).
fn ulimit_works() -> bool {
    let ok = Command::new("sh").arg("-c").arg("ulimit -v 4000000").status().is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: `ulimit -v` is not allowed here");
    }
    ok
}

/// The first line of stderr.
fn first_line(out: &Output) -> &str {
    out.stderr.lines().next().unwrap_or("")
}

/// mqsim-default's capacity from its geometry, worked here: 8 × 4 × 2 × 2 × 2048 blocks of
/// 256 pages = 67,108,864 pages of 8 KiB = 549,755,813,888 bytes (512 GiB) in 262,144
/// blocks; 7% over-provisioning leaves floor(67,108,864 × 0.93) = 62,411,243 logical pages,
/// 511,272,902,656 bytes.
#[test]
fn validate_prints_capacity_and_the_memory_estimate_by_part() {
    let out = ssdlab(["validate", "--config", MQSIM_DEFAULT]);
    out.assert_success();
    for line in [
        "capacity: 512 GiB physical (549755813888 bytes), 476 GiB logical (511272902656 bytes)",
        "pages: 67108864 physical, 262144 blocks",
        "mapped: 62411243 logical pages of 8192 bytes (67108864 physical)",
    ] {
        assert!(out.stdout.lines().any(|l| l == line), "missing `{line}`\n{}", out.describe());
    }
    assert!(out.stdout.contains("memory estimate (peak, no workload"), "{}", out.describe());
    for part in ["mapping table", "block and page state", "per-flow state", "latency histograms and time series"] {
        assert!(out.stdout.contains(&format!("  {part} ")), "missing part `{part}`\n{}", out.describe());
    }
    assert!(!out.stdout.contains("integrity oracle"), "no oracle without --check\n{}", out.describe());
    let with = ssdlab(["validate", "--config", MQSIM_DEFAULT, "--workload", EXAMPLE_READ_QD16, "--check"]);
    with.assert_success();
    assert!(with.stdout.contains("memory estimate (peak, this workload, with --check)"), "{}", with.describe());
    assert!(with.stdout.contains("  integrity oracle "), "{}", with.describe());
    let timeline = ssdlab(["validate", "--config", MQSIM_DEFAULT, "--timeline"]);
    assert!(timeline.stdout.contains("  timeline "), "{}", timeline.describe());
    // --print stays a TOML file.
    let print = ssdlab(["validate", "--config", MQSIM_DEFAULT, "--print"]);
    assert!(!print.stdout.contains("memory estimate"), "{}", print.describe());
}

/// A limit below the estimate refuses the run before it starts, with exit 2, the estimate
/// and the limit.
#[test]
fn run_refuses_a_run_above_max_memory() {
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", EXAMPLE_READ_QD16, "--max-memory", "1M"]);
    out.assert_input_error(&["more than 1.00 MiB: the limit --max-memory sets"]);
    assert!(first_line(&out).starts_with("error: this run needs about "), "{}", out.describe());
    assert!(out.stdout.is_empty(), "nothing ran\n{}", out.describe());
    let bad = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", EXAMPLE_READ_QD16, "--max-memory", "lots"]);
    assert_eq!(bad.code, Some(2), "{}", bad.describe());
    assert!(bad.stderr.contains("expected a size such as 8G"), "{}", bad.describe());
}

/// The issue's case: `run --check` on mqsim-default under a 2 GB address space needed about
/// 4 GB (a dense oracle of every sector of the drive) and aborted; the oracle now grows with
/// what is written, and the run ends in success or a clean refusal.
#[test]
fn check_on_mqsim_default_under_2_gb_of_address_space_never_aborts() {
    if !ulimit_works() {
        return;
    }
    let args = format!("run --config {MQSIM_DEFAULT} --workload {EXAMPLE_READ_QD16} --check");
    let Some(out) = through_sh("ulimit -v 2000000", &args) else { return };
    match out.code {
        Some(0) => assert!(out.stdout.contains("0 integrity violations"), "{}", out.describe()),
        Some(2) => assert!(first_line(&out).starts_with("error: this run needs about"), "{}", out.describe()),
        _ => panic!("must end in success or exit 2\n{}", out.describe()),
    }
}

/// A preconditioned drive under --check whose estimate passes the address space left: the
/// refusal names the estimate and `ulimit -v`.
#[test]
fn a_run_above_the_address_space_limit_is_refused_naming_it() {
    if !ulimit_works() {
        return;
    }
    let dir = TempDir::new("as-limit");
    let wl = dir.write(
        "w.toml",
        "seed = 1\n[precondition]\noccupancy = 0.9\n[[flows]]\ntype = \"synthetic\"\nread_ratio = 0.5\nrequest_bytes = 4096\nrequests = 100\n",
    );
    let args = format!("run --config {MQSIM_DEFAULT} --workload {} --check --set nand.blocks_per_plane=8192", p(&wl));
    let Some(out) = through_sh("ulimit -v 2000000", &args) else { return };
    out.assert_input_error(&["ulimit -v 2000000"]);
    assert!(first_line(&out).starts_with("error: this run needs about"), "{}", out.describe());
}

/// The issue's geometry, 1024 channels × 16 chips × 16 dies × 16 planes × 64 blocks: a chip
/// of 256 planes, past the 64 a chip's plane mask holds (it was an abort in the TSU).
#[test]
fn the_issue_geometry_is_a_clean_error() {
    let sets = [
        "nand.channels=1024",
        "nand.chips_per_channel=16",
        "nand.dies_per_chip=16",
        "nand.planes_per_die=16",
        "nand.blocks_per_plane=64",
    ];
    let mut args = vec!["run", "--config", MQSIM_DEFAULT, "--workload", EXAMPLE_READ_QD16];
    sets.iter().for_each(|s| args.extend(["--set", s]));
    let out = ssdlab(args);
    out.assert_input_error(&["has 256 planes; at most 64"]);
    assert!(first_line(&out).starts_with("error: --set: nand.planes_per_die = 16: a chip of 16 dies × 16 planes"));
}

/// A drive of 2^29 pages (Sprinkler's at 256 chips), whose reverse map alone was a 2 GiB
/// zeroed allocation taking that much address space whatever was written (what made
/// `reproduce sprinkler --quick` abort under a 4 GB limit with two runs at once), runs under
/// a 2 GB address-space limit: its tables grow with what is written.
#[test]
fn a_large_drive_barely_written_runs_under_a_small_address_space() {
    if !ulimit_works() {
        return;
    }
    let trace = shared_trace(SPRINKLER_TRACE);
    let args = format!(
        "run --config {SPRINKLER} --set nand.chips_per_channel=32 --workload {} --address-mode wrap --replay closed_loop",
        p(&trace)
    );
    let Some(out) = through_sh("ulimit -v 2000000", &args) else { return };
    out.assert_success();
}

/// 2,000 flows: each cost about 1.1 MB (four dense latency histograms), 2.2 GB in all; a
/// flow's histograms now grow with its latencies, and the run fits in 1 GB of address space.
#[test]
fn a_flow_costs_kilobytes() {
    if !ulimit_works() {
        return;
    }
    let dir = TempDir::new("flows");
    let mut text = String::from("seed = 1\n");
    for i in 0..2000 {
        text += &format!("[[flows]]\nname = \"f{i}\"\ntype = \"synthetic\"\nread_ratio = 0.5\nrequest_bytes = 4096\nqueue_depth = 1\nrequests = 5\n");
    }
    let wl = dir.write("flows.toml", &text);
    let out_json = dir.path("r.json");
    let args = format!("run --config {MQSIM_DEFAULT} --workload {} --out {}", p(&wl), p(&out_json));
    let Some(out) = through_sh("ulimit -v 1000000", &args) else { return };
    out.assert_success();
    let r = read_json(&out_json);
    assert_eq!(uint(&r, "sim.host.requests_completed"), 10_000);
}

/// `--config /dev/zero` read until memory ran out; a config is read up to 64 MiB.
#[test]
fn a_config_that_never_ends_is_refused_at_its_size_limit() {
    if !Path::new("/dev/zero").exists() {
        eprintln!("skipped: no /dev/zero");
        return;
    }
    let out = ssdlab(["run", "--config", "/dev/zero", "--workload", EXAMPLE_READ_QD16]);
    out.assert_input_error(&[]);
    assert_eq!(
        first_line(&out),
        "error: /dev/zero: longer than 64.0 MiB, the most a config file may hold (is it the right file?)"
    );
}

/// A workload TOML fed by a pipe that never ends stops at the same limit; a trace that never
/// ends stops at the requests the memory limit holds.
#[test]
fn workloads_that_never_end_are_refused() {
    let dir = TempDir::new("fifo");
    let fifo = dir.path("w.toml");
    let setup = format!("mkfifo {0} || exit 77\n(yes '# more' > {0} 2>/dev/null &)", p(&fifo));
    let Some(out) = through_sh(&setup, &format!("validate --config {MQSIM_DEFAULT} --workload {}", p(&fifo))) else {
        return;
    };
    if out.code == Some(77) {
        eprintln!("skipped: no mkfifo");
        return;
    }
    out.assert_input_error(&[]);
    assert!(
        first_line(&out).ends_with("longer than 64.0 MiB, the most a workload file may hold (is it the right file?)")
    );
    let trace = dir.path("t.csv");
    let setup = format!(
        "mkfifo {0} || exit 77\n(yes '128166385295514663,hm,0,Write,9056014336,4096,2833' > {0} 2>/dev/null &)",
        p(&trace)
    );
    let args = format!("run --config {MQSIM_DEFAULT} --workload {} --format msr --max-memory 32M", p(&trace));
    let Some(out) = through_sh(&setup, &args) else { return };
    out.assert_input_error(&["the limit --max-memory sets"]);
    assert!(
        first_line(&out).contains(" requests, the most this run can hold in memory (32.0 MiB"),
        "{}",
        out.describe()
    );
}

/// `--csv /dev/full`: read back, /dev/full never ends; now it is only written, and fails.
#[test]
fn csv_to_a_full_device_is_a_write_error() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", EXAMPLE_READ_QD16, "--csv", "/dev/full"]);
    out.assert_input_error(&[]);
    assert!(
        first_line(&out).starts_with("error: /dev/full: writing failed: No space left on device"),
        "{}",
        out.describe()
    );
}
