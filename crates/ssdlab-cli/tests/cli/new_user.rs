//! The defects a new user met (issue 34, "Why"): each now a clean error (exit code 2, the
//! first line naming file, line, key and value) or a correct result, asserted here by its
//! exit code and its first line of output. Expected values are worked from the inputs: the
//! mqsim-default drive (8 × 4 × 2 × 2 planes, 2,048 blocks of 256 pages of 8 KiB, tR 75 µs)
//! and traces written by the tests.

#[allow(unused_imports)]
use super::*;

/// The first line of `text` ("" when there is none).
fn first(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// Runs `ssdlab args`, which must be refused as bad input (exit code 2) with a first line of
/// error output that starts with `want`; returns that line.
#[track_caller]
fn refused_starting<I, S>(args: I, want: &str) -> String
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let out = ssdlab(args);
    out.assert_input_error(&[]);
    let line = first(&out.stderr);
    assert!(line.starts_with(want), "the first line should start with `{want}`\n{}", out.describe());
    line.to_string()
}

/// Runs `ssdlab args`, which must be refused as bad input (exit code 2) with `want` as its
/// first line of error output.
#[track_caller]
fn refused<I, S>(args: I, want: &str)
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    assert_eq!(refused_starting(args, want), want);
}

/// A workload of one synthetic flow `s` of 200 requests with `extra` keys (one per line,
/// from line 4 on).
fn flow_with(dir: &TempDir, extra: &str) -> PathBuf {
    dir.write("w.toml", &format!("[[flows]]\nname = \"s\"\nrequests = 200\n{extra}\n"))
}

#[test]
fn hotcold_without_a_hot_set_is_rejected() {
    let dir = TempDir::new("hot0");
    let wl = flow_with(&dir, "read_ratio = 0.5\naddress = \"hotcold\"\nhot_fraction = 0");
    let want = format!(
        "error: {}:6: flow `s`: hot_fraction = 0: address = \"hotcold\" needs a hot set: with none, hot_access of the requests would all go to one slot; give the hot share of the footprint (e.g. 0.2), or use address = \"uniform\"",
        p(&wl)
    );
    refused(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)], &want);
    // A hot set under one slot does the same: 1e-12 of the drive's ~10^8 slots of 4 KiB.
    let wl = flow_with(&dir, "address = \"hotcold\"\nhot_fraction = 1e-12");
    let want =
        format!("error: {}:5: flow `s`: hot_fraction = 0.000000000001: the hot set would be less than one", p(&wl));
    refused_starting(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)], &want);
}

/// 1,000 trims on an empty drive change only the map: no simulated time passes. They are
/// counted in a trim row (and in `all`), and a warning says why the rates are 0.
#[test]
fn trims_are_counted_in_their_own_row() {
    let dir = TempDir::new("trims");
    let wl = dir.write("w.toml", "[[flows]]\nname = \"t\"\nrequests = 1000\nread_ratio = 0\ntrim_ratio = 1\n");
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--json"]);
    out.assert_success();
    let r: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(uint(&r, "sim.latency_us.trim.count"), 1000);
    assert_eq!(uint(&r, "sim.latency_us.all.count"), 1000);
    assert_eq!(
        at(&r, "warnings.0").as_str(),
        Some("the run took no simulated time: 1000 of its 1000 requests were trims, which change only the map and take no simulated time, so IOPS and bandwidth are 0 (see the trim row)")
    );
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)]);
    out.assert_success();
    let trim_row: Vec<&str> = field_after(&out.stdout, "  trim");
    assert_eq!(trim_row[0], "1000", "{}", out.stdout);
    assert!(out.stdout.contains("\nwarning: the run took no simulated time: 1000 of its 1000"), "{}", out.stdout);
    // Mixed: the read, write and trim rows add up to `all`.
    let wl = dir.write("m.toml", "[[flows]]\nname = \"m\"\nrequests = 2000\nread_ratio = 0.5\ntrim_ratio = 0.2\n");
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--json"]);
    out.assert_success();
    let r: Value = serde_json::from_str(&out.stdout).expect("JSON");
    let rows: u64 = ["read", "write", "trim"].iter().map(|c| uint(&r, &format!("sim.latency_us.{c}.count"))).sum();
    assert_eq!(rows, 2000);
    assert!(uint(&r, "sim.latency_us.trim.count") > 0);
}

/// `--skip-lines` past the end leaves no request: an error naming the file and the count.
#[test]
fn skipping_every_line_is_an_empty_trace_error() {
    let dir = TempDir::new("skip");
    let t = p(&dir.write("t.trace", "0 0 0 8 1\n1000 0 8 8 0\n2000 0 16 8 1\n"));
    let map = ["--columns", "time=1:ns,offset=3:sectors,size=4:sectors,op=5", "--ops", "1=read,0=write"];
    let tail = ["--separator", "blanks", "--skip-lines", "100"];
    let want =
        format!("error: {t}: no requests: --skip-lines (skip_lines) drops the first 100 lines, and the file's last line with content is line 3");
    let mut run = vec!["run", "--config", MQSIM_DEFAULT, "--workload", &t];
    run.extend(map.iter().chain(&tail));
    refused(run, &want);
    let mut info = vec!["trace", "info", &t];
    info.extend(map.iter().chain(&tail));
    refused(info, &want);
}

#[test]
fn reproduce_on_zero_threads_is_rejected() {
    let dir = TempDir::new("threads0");
    let out_dir = dir.path("out");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let want = format!("error: reproduce: threads = 0 (--threads 0): a reproduction needs at least 1 thread; leave it out to use all {cores} cores");
    refused(["reproduce", "sprinkler", "--quick", "--threads", "0", "--out", &p(&out_dir)], &want);
    assert!(!out_dir.exists(), "nothing written");
}

/// 2^63 − 1 bytes are 2^50 − 1 pages of 8 KiB, past the 2^32 − 1 pages the cache can count;
/// 2^45 bytes, 2^32 pages, used to wrap to a cache of no page (an assertion, exit 134).
#[test]
fn a_cache_past_the_page_count_is_rejected() {
    refused(
        ["validate", "--config", MQSIM_DEFAULT, "--set", "cache.capacity_bytes=9223372036854775807"],
        "error: --set: cache.capacity_bytes = 9223372036854775807: 1125899906842623 pages of 8192 bytes; at most 2^32 - 1 pages",
    );
    let dir = TempDir::new("cache");
    let wl = synthetic_workload(&dir, 10);
    let sets = ["--set", "cache.enabled=true", "--set", "cache.capacity_bytes=35184372088832"];
    let mut args = vec!["run", "--config", MQSIM_DEFAULT];
    args.extend(sets);
    let wl = p(&wl);
    args.extend(["--workload", &wl]);
    refused(
        args,
        "error: --set: cache.capacity_bytes = 35184372088832: 4294967296 pages of 8192 bytes; at most 2^32 - 1 pages",
    );
}

/// tpcc's times are nanoseconds; tencent keeps whole seconds. The requests whose time (from
/// the first request) is not a whole second are counted here from the text.
#[test]
fn converting_to_whole_seconds_needs_truncate_times() {
    let trace = shared_trace("mqsim/tpcc-small.trace");
    let text = std::fs::read_to_string(&trace).unwrap();
    let times: Vec<u64> = text.lines().filter_map(|l| l.split_whitespace().next()?.parse().ok()).collect();
    let start = *times.iter().min().unwrap();
    let changed = times.iter().filter(|&&t| !(t - start).is_multiple_of(1_000_000_000)).count();
    let out = ssdlab(["trace", "convert", &p(&trace), "--to", "tencent"]);
    out.assert_input_error(&["--truncate-times"]);
    let want = format!("error: --to tencent keeps times in steps of 1 s: {changed} of the 6999 requests' arrival times would be truncated (the first at line ");
    assert!(first(&out.stderr).starts_with(&want), "{}", out.describe());
    assert!(out.stdout.is_empty(), "nothing converted");
    let out = ssdlab(["trace", "convert", &p(&trace), "--to", "tencent", "--truncate-times"]);
    out.assert_success();
    assert!(first(&out.stderr).starts_with(&want.replacen("error: ", "warning: ", 1)), "{}", out.describe());
    assert_eq!(out.stdout.lines().count(), 6999);
    // Lossless targets convert without a word.
    let out = ssdlab(["trace", "convert", &p(&trace), "--to", "csv"]);
    out.assert_success();
    assert_eq!(out.stderr, "");
}

/// A reader that stops early (`| head -1`) ends the conversion quietly, with exit code 0.
#[test]
fn convert_into_a_closed_pipe_exits_quietly() {
    use std::io::BufRead;
    let trace = shared_trace("mqsim/tpcc-small.trace");
    let io = TempDir::new("pipe");
    let err_path = io.path("stderr");
    let mut child = Command::new(BIN)
        .args(["trace", "convert", &p(&trace), "--to", "csv"])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("spawn");
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert_eq!(line, "time_ns,device,op,offset_bytes,size_bytes\n");
    drop(reader); // 6,999 lines (about 200 KB) do not fit the pipe: the writer meets EPIPE
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{:?}", std::fs::read_to_string(&err_path));
    assert_eq!(std::fs::read_to_string(&err_path).unwrap(), "");
}

/// A headered CSV read without a column map: the error names the columns and gives the map
/// they imply; that map, with its units filled in, reads it.
#[test]
fn a_headered_csv_gets_a_columns_hint() {
    let dir = TempDir::new("header");
    let f = p(&dir.write("h.csv", "Timestamp,Op,Offset,Size\n0.001,R,4096,4096\n0.002,W,8192,4096\n0.003,R,0,8192\n"));
    let want = format!("error: {f}:1: `Timestamp,Op,Offset,Size` is a header line naming columns (Timestamp, Op, Offset, Size), and only a column map reads a headered trace: read it with --header --columns \"time=Timestamp:UNIT,op=Op,offset=Offset:UNIT,size=Size:UNIT\" (in a workload file: header = true, columns = ");
    for args in [vec!["trace", "info", &f], vec!["run", "--config", MQSIM_DEFAULT, "--workload", &f]] {
        refused_starting(args, &want);
    }
    // Given a built-in format, the first line fails as a request: the same hint.
    refused_starting(["trace", "info", "--format", "tencent", &f], &want);
    let out = ssdlab([
        "trace",
        "info",
        &f,
        "--header",
        "--columns",
        "time=Timestamp:s,op=Op,offset=Offset:bytes,size=Size:bytes",
    ]);
    out.assert_success();
    assert_eq!(field_after(&out.stdout, "requests")[0], "3");
}

/// 1,000 requests 100 apart: microseconds (10,000/s), but read as mqsim's nanoseconds they
/// arrive at (1000 − 1) / 99.9 µs = 10^7/s, above the drive's 128 planes × 1 / 75 µs =
/// 1.707 × 10^6 page reads/s.
#[test]
fn arrivals_faster_than_the_drive_are_warned_about() {
    let dir = TempDir::new("unit");
    let text: String = (0..1000u64).map(|i| format!("{} 0 {} 8 1\n", i * 100, (i % 64) * 8)).collect();
    let t = p(&dir.write("fast.trace", &text));
    // The format given, so no line says which was detected.
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t, "--format", "mqsim", "--json"]);
    out.assert_success();
    let want = "warning: flow `fast.trace`: its 1000 requests arrive within 99.900 us (a mean of 1.000e7 requests/s), faster than the drive could serve even if each were a one-page read on an idle plane (1.707e6/s: 128 planes, tR 75 us): they can only queue, and the latencies measure that backlog. The trace's times were read in ns; if they count another unit, read it with the --format or --columns time=N:UNIT that says so (`ssdlab trace info` shows its span and arrivals)";
    assert_eq!(first(&out.stderr), want, "{}", out.describe());
    let r: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(at(&r, "warnings.0").as_str(), Some(&want["warning: ".len()..]));
    // Several seeds: the warning once, under the table.
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t, "--format", "mqsim", "--seeds", "1..2"]);
    out.assert_success();
    assert_eq!(out.stdout.matches("\nwarning: ").count(), 1, "{}", out.stdout);
    assert!(out.stdout.contains(&format!("\n{want}\n")), "{}", out.stdout);
    // Closed-loop replay ignores the times: no warning.
    let out =
        ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t, "--format", "mqsim", "--replay", "closed_loop"]);
    out.assert_success();
    assert_eq!(out.stderr, "");
}

/// Arrivals 30, 0, 10, 0 ns: three distinct times, two of four requests share one; gaps 0,
/// 10, 20 ns: mean 10 ns = 0.010 µs, CV √(200/3) / 10 = 0.82.
#[test]
fn trace_info_shows_distinct_times_and_burstiness() {
    let dir = TempDir::new("bursty");
    let t = p(&dir.write("b.trace", "30 0 0 8 1\n0 0 8 8 1\n10 0 16 8 1\n0 0 24 8 0\n"));
    let out = ssdlab(["trace", "info", &t]);
    out.assert_success();
    let line = |label: &str| out.stdout.lines().find(|l| l.starts_with(label)).unwrap_or("").to_string();
    assert_eq!(line("timestamps"), "timestamps     3 distinct, 50.0% of requests share theirs with another");
    assert_eq!(
        line("inter-arrival"),
        "inter-arrival  mean 0.010 us, coefficient of variation 0.82 (Poisson arrivals: 1; above 1: bursty)"
    );
}

/// The report says how many requests wrap and scale moved: of the two requests, the one past
/// the 4 GiB drive (see `trace_past_the_drive_runs_with_wrap_or_scale`).
#[test]
fn wrap_and_scale_report_the_requests_they_moved() {
    let dir = TempDir::new("moved");
    dir.write("far.trace", "0 0 0 8 1\n1000 0 8000000000 8 1\n");
    for mode in ["wrap", "scale"] {
        let wl = dir.write(
            &format!("w-{mode}.toml"),
            &format!("[[flows]]\nname = \"t\"\ntype = \"trace\"\npath = \"far.trace\"\nformat = \"mqsim\"\naddress_mode = \"{mode}\"\n"),
        );
        let wl = p(&wl);
        let small_drive = [
            "--config",
            MQSIM_DEFAULT,
            "--set",
            "nand.blocks_per_plane=16",
            "--set",
            "ftl.overprovisioning_ratio=0.3",
            "--workload",
            &wl,
        ];
        let out = ssdlab([&["run"][..], &small_drive, &["--json"]].concat());
        out.assert_success();
        let r: Value = serde_json::from_str(&out.stdout).expect("JSON");
        let w = at(&r, "warnings.0").as_str().unwrap_or("");
        let want = format!("flow `t`: address_mode = \"{mode}\" moved 1 of its 2 requests (50.0%), ");
        assert!(w.starts_with(&want), "{mode}: {w}");
        assert_eq!(first(&out.stderr), format!("warning: {w}"));
        // `validate` says the same, and passes.
        let out = ssdlab([&["validate"][..], &small_drive].concat());
        out.assert_success();
        assert_eq!(first(&out.stderr), format!("warning: {w}"));
    }
}

/// 2^31 channels × 4 × 2 × 2 × 2,048 × 256 = 2^54 pages: the largest count is named.
#[test]
fn too_many_pages_names_the_largest_count() {
    refused(
        ["validate", "--config", MQSIM_DEFAULT, "--set", "nand.channels=2147483648"],
        "error: --set: nand.channels = 2147483648: the drive would have 2147483648 × 4 × 2 × 2 × 2048 × 256 = 18014398509481984 pages (channels × chips_per_channel × dies_per_chip × planes_per_die × blocks_per_plane × pages_per_block); at most 2^32 - 2: lower nand.channels, the largest count, or another (or use larger pages)",
    );
}

#[test]
fn huge_values_are_echoed_in_scientific_notation() {
    refused(
        ["validate", "--config", MQSIM_DEFAULT, "--set", "nand.channels=1e300"],
        "error: --set: nand.channels=1e300: invalid type: floating point `1e300`, expected u32",
    );
    let dir = TempDir::new("1e300");
    let wl = flow_with(&dir, "read_ratio = 1e300");
    let want = format!("error: {}:4: flow `s`: read_ratio = 1e300: must be in [0, 1]", p(&wl));
    refused(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)], &want);
}

#[test]
fn a_missing_column_says_which_and_how_many_fields() {
    let dir = TempDir::new("fields");
    let f = p(&dir.write("few.csv", "Timestamp,Op,Offset,Size\n0.001,R,4096\n"));
    let want =
        format!("error: {f}:2: expected at least 4 fields (the size column is column 4), found 3 in `0.001,R,4096`");
    refused(["trace", "info", &f, "--header", "--columns", "time=1:s,op=2,offset=3,size=4"], &want);
}

#[test]
fn a_start_past_the_drive_names_start_bytes() {
    let dir = TempDir::new("start");
    let wl = flow_with(&dir, "start_bytes = 9223372036854775807");
    let want =
        format!("error: {}:4: flow `s`: start_bytes = 9223372036854775807: past the end of the drive's ", p(&wl));
    let line = refused_starting(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl)], &want);
    assert!(line.ends_with(" logical bytes"), "{line}");
}
