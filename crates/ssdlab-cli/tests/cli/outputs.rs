//! Comparable outputs (issue 34, items 4 and 5): CSV rows that say which run they are, under
//! a checked header; no two outputs (nor an output and an input) the same file; the latency
//! log; the warm-up exclusion; several seeds with a t interval; `--unset` and the full map on
//! every preset. Expected values are derived here: the header's columns are written out, the
//! warm-up's count comes from the trace text (awk), the interval from the t table.

#[allow(unused_imports)]
use super::*;

/// The table's columns, written out here rather than taken from the code.
const CSV_COLUMNS: [&str; 24] = [
    "config",
    "workload",
    "workload_options",
    "seed",
    "set",
    "unset",
    "scheduler",
    "tsu",
    "requests",
    "iops",
    "bandwidth_mb_s",
    "latency_mean_us",
    "latency_p99_us",
    "read_latency_mean_us",
    "write_latency_mean_us",
    "chip_utilization",
    "inter_chip_idleness",
    "intra_chip_idleness",
    "transaction_reduction",
    "queue_stall_s",
    "waf",
    "gc_invocations",
    "sim_time_s",
    "ramp_excluded",
];

/// A CSV line split into fields (quoted fields with doubled quotes, as the tool writes them).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

#[test]
pub(super) fn csv_rows_say_which_run_they_are() {
    let dir = TempDir::new("csv-columns");
    // A comma in the workload's name: the field is quoted.
    let wl = dir.write("mix,small.toml", &std::fs::read_to_string(synthetic_workload(&dir, 1000)).unwrap());
    let csv = dir.path("table.csv");
    let base = ["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", &p(&csv)];
    ssdlab(base).assert_success();
    let second = ["--seed", "9", "--set", "hil.scheduler=vas", "--set", "tsu.policy=fifo", "--unset", "hil.scheduler"];
    ssdlab(base.iter().chain(&second).copied()).assert_success();
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "a header and two rows:\n{text}");
    assert_eq!(lines[0], CSV_COLUMNS.join(","));
    let rows: Vec<Vec<String>> = lines[1..].iter().map(|l| fields(l)).collect();
    let col = |name: &str| CSV_COLUMNS.iter().position(|c| *c == name).unwrap();
    for row in &rows {
        assert_eq!(row.len(), CSV_COLUMNS.len(), "{row:?}");
        assert_eq!((row[col("config")].as_str(), row[col("workload")].as_str()), (MQSIM_DEFAULT, p(&wl).as_str()));
        assert_eq!(row[col("requests")], "1000");
    }
    // The workload's seed (3), then --seed 9 with the sets and the unset as given.
    let [a, b] = [&rows[0], &rows[1]];
    assert_eq!((a[col("seed")].as_str(), a[col("set")].as_str(), a[col("unset")].as_str()), ("3", "", ""));
    assert_eq!(b[col("seed")], "9");
    assert_eq!(b[col("set")], "hil.scheduler=vas;tsu.policy=fifo");
    assert_eq!(b[col("unset")], "hil.scheduler");
    assert_eq!((b[col("scheduler")].as_str(), b[col("tsu")].as_str()), ("vas", "fifo"));
    assert!(lines[1].contains(&format!("\"{}\"", p(&wl))), "quoted: {}", lines[1]);
    // Options that change the workload, as typed.
    let t = p(&shared_trace("mqsim/tpcc-small.trace"));
    let traced = dir.path("trace.csv");
    ssdlab([
        "run",
        "--config",
        MQSIM_DEFAULT,
        "--workload",
        &t,
        "--csv",
        &p(&traced),
        "--queue-depth",
        "4",
        "--ramp-ms",
        "0.5",
    ])
    .assert_success();
    let row = fields(std::fs::read_to_string(&traced).unwrap().lines().nth(1).unwrap());
    assert_eq!(row[col("workload_options")], "--queue-depth 4 --ramp-ms 0.5");
}

#[test]
pub(super) fn csv_with_another_header_is_refused_before_the_run() {
    let dir = TempDir::new("csv-header");
    let wl = synthetic_workload(&dir, 500);
    // Column 5 renamed: the error names the file and that column.
    let mut other = CSV_COLUMNS.map(String::from);
    other[4] = "overrides".into();
    let old = format!("{}\nrow\n", other.join(","));
    let csv = dir.write("t.csv", &old);
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", &p(&csv)]);
    out.assert_input_error(&[&p(&csv), "column 5 of its header is `overrides` where this run writes `set`"]);
    assert!(out.stdout.is_empty(), "refused before the run:\n{}", out.describe());
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), old);
    // A table from before the run columns (the old header of 17 columns): column 1.
    let csv = dir.write("old.csv", &format!("{}\n", CSV_COLUMNS[6..23].join(",")));
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", &p(&csv)])
        .assert_input_error(&["column 1 of its header is `scheduler` where this run writes `config`"]);
    // One column fewer at the end.
    let csv = dir.write("short.csv", &format!("{}\n", CSV_COLUMNS[..23].join(",")));
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", &p(&csv)])
        .assert_input_error(&["column 24 of its header is (nothing) where this run writes `ramp_excluded`"]);
    // An empty file is a new table: it gets the header.
    let csv = dir.write("empty.csv", "");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", &p(&csv)]).assert_success();
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().next().unwrap(), CSV_COLUMNS.join(","));
}

#[test]
pub(super) fn csv_write_errors_are_clean() {
    let dir = TempDir::new("csv-full");
    let wl = synthetic_workload(&dir, 500);
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", "/dev/full"]);
    out.assert_input_error(&["/dev/full: writing failed", "No space left on device"]);
    let out = ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--lat-log", "/dev/full"]);
    out.assert_input_error(&["/dev/full: writing failed", "No space left on device"]);
    // A row cut short (bash's `ulimit -f 2` is 2,048 bytes; the table holds 2,000 and a row is
    // about 200) is undone: the table is as it was.
    let csv = dir.path("t.csv");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", &p(&csv)]).assert_success();
    let header = std::fs::read_to_string(&csv).unwrap().lines().next().unwrap().to_string();
    let old = format!("{header}\n{}\n", "x".repeat(1999 - header.len() - 1));
    std::fs::write(&csv, &old).unwrap();
    assert_eq!(old.len(), 2000);
    let script = "trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\"";
    let out = Command::new("bash")
        .args(["-c", script, BIN, "run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", &p(&csv)])
        .output()
        .expect("run bash");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("writing failed, file left unchanged: only 48 of"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), old);
}

#[test]
pub(super) fn one_file_for_two_outputs_is_refused_before_the_run() {
    let dir = TempDir::new("same-path");
    // Line 3 of the trace is bad: an error naming the outputs proves the check came first.
    let t = p(&dir.write("t.trace", "0 0 0 8 1\n1000 0 8 8 0\n2000 0 16 x8 1\n"));
    std::fs::create_dir(dir.path("sub")).unwrap();
    let x = p(&dir.path("x"));
    let other_spelling = p(&dir.path("sub/../x"));
    let cases: [(&[&str], &str); 5] = [
        (&["--out", &x, "--csv", &x], "--csv"),
        (&["--out", &x, "--timeline", &other_spelling], "--timeline"),
        (&["--lat-log", &x, "--csv", &other_spelling], "--csv"),
        (&["--out", &t], "is the same file as --workload"),
        (&["--lat-log", MQSIM_DEFAULT], "is the same file as --config"),
    ];
    for (outputs, needle) in cases {
        let mut args = vec!["run", "--config", MQSIM_DEFAULT, "--workload", &t];
        args.extend_from_slice(outputs);
        let out = ssdlab(args);
        out.assert_input_error(&[needle, "is the same file as"]);
        assert!(!out.stderr.contains("x8"), "checked after the trace\n{}", out.describe());
    }
    assert!(!dir.path("x").exists(), "nothing written");
    // An existing file, reached through a symbolic link, is the same file too.
    let real = dir.write("real.json", "{}");
    std::os::unix::fs::symlink(&real, dir.path("link.json")).unwrap();
    ssdlab([
        "run",
        "--config",
        MQSIM_DEFAULT,
        "--workload",
        &t,
        "--out",
        &p(&real),
        "--csv",
        &p(&dir.path("link.json")),
    ])
    .assert_input_error(&["is the same file as --out"]);
}

/// The log's latency column, parsed: `arrival_us`, `completion_us`, `latency_us` per row.
struct LogRow {
    flow: String,
    op: String,
    bytes: u64,
    arrival_us: f64,
    completion_us: f64,
    latency_us: f64,
}

fn read_log(path: &Path) -> Vec<LogRow> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("flow,op,lba,bytes,arrival_us,completion_us,latency_us"));
    lines
        .map(|l| {
            let f = fields(l);
            assert_eq!(f.len(), 7, "{l}");
            LogRow {
                flow: f[0].clone(),
                op: f[1].clone(),
                bytes: f[3].parse().unwrap(),
                arrival_us: f[4].parse().unwrap(),
                completion_us: f[5].parse().unwrap(),
                latency_us: f[6].parse().unwrap(),
            }
        })
        .collect()
}

#[test]
pub(super) fn latency_log_has_a_row_per_request_and_the_reports_mean() {
    let dir = TempDir::new("lat-log");
    let wl = synthetic_workload(&dir, 3000);
    let (r, log) = (dir.path("r.json"), dir.path("lat.csv"));
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--out", &p(&r), "--lat-log", &p(&log)])
        .assert_success();
    let report = read_json(&r);
    let rows = read_log(&log);
    assert_eq!(rows.len() as u64, uint(&report, "sim.host.requests_completed"));
    let reads = rows.iter().filter(|x| x.op == "read").count() as u64;
    let writes = rows.iter().filter(|x| x.op == "write").count() as u64;
    assert_eq!(
        (reads, writes),
        (uint(&report, "sim.latency_us.read.count"), uint(&report, "sim.latency_us.write.count"))
    );
    assert!(rows.iter().all(|x| x.flow == "mix" && x.bytes == 4096));
    let mean = rows.iter().map(|x| x.latency_us).sum::<f64>() / rows.len() as f64;
    let want = num(&report, "sim.latency_us.all.mean");
    assert!((mean - want).abs() <= 1e-9 * want, "log mean {mean} µs, report {want} µs");
    for x in &rows {
        assert!(
            (x.arrival_us + x.latency_us - x.completion_us).abs() < 1e-6,
            "{} {} {}",
            x.arrival_us,
            x.latency_us,
            x.completion_us
        );
    }
    let last = rows.iter().map(|x| x.completion_us).fold(0.0, f64::max);
    assert!((last - num(&report, "sim.sim_time_ps") / 1e6).abs() < 1e-6, "the last completion ends the run");
}

/// Requests of an MQSim trace (ns times, re-based on the earliest) arriving before `ms`,
/// counted by awk from the text.
fn arrivals_before(trace: &Path, ms: f64) -> u64 {
    let script = format!(
        "{{ t[NR] = $1; if (NR == 1 || $1 < m) m = $1 }} END {{ for (i in t) if (t[i] - m < {}) c++; print c + 0 }}",
        ms * 1e6
    );
    let out = Command::new("awk").arg(script).arg(trace).output().expect("awk");
    String::from_utf8(out.stdout).unwrap().trim().parse().expect("awk prints a count")
}

#[test]
pub(super) fn warm_up_leaves_out_the_requests_arriving_in_it() {
    let dir = TempDir::new("ramp");
    let trace = shared_trace("mqsim/tpcc-small.trace");
    let total = std::fs::read_to_string(&trace).unwrap().lines().count() as u64;
    let before = arrivals_before(&trace, 50.0);
    assert!(before > 0 && before < total, "{before} of {total}: the test needs both kinds");
    let (r, log) = (dir.path("r.json"), dir.path("lat.csv"));
    let t = p(&trace);
    let out = ssdlab([
        "run",
        "--config",
        MQSIM_DEFAULT,
        "--workload",
        &t,
        "--ramp-ms",
        "50",
        "--out",
        &p(&r),
        "--lat-log",
        &p(&log),
    ]);
    out.assert_success();
    assert!(out.stdout.contains(&format!("warm-up: {before} requests arriving in the first 50 ms")), "{}", out.stdout);
    let report = read_json(&r);
    assert_eq!(uint(&report, "sim.host.ramp_excluded"), before);
    assert_eq!(uint(&report, "sim.host.requests_completed"), total - before);
    assert_eq!(uint(&report, "sim.latency_us.all.count"), total - before);
    let rows = read_log(&log);
    assert_eq!(rows.len() as u64, total - before);
    assert!(rows.iter().all(|x| x.arrival_us >= 50_000.0));
    // IOPS over the time after the warm-up.
    let measured_s = num(&report, "sim.sim_time_ps") / 1e12 - 0.05;
    let iops = num(&report, "sim.host.iops");
    assert!((iops - (total - before) as f64 / measured_s).abs() < 1e-6 * iops);
    // The workload file's key does the same.
    let w = dir.write(
        "w.toml",
        &format!("ramp_ms = 50\n\n[[flows]]\ntype = \"trace\"\npath = \"{t}\"\nreplay = \"timestamps\"\n"),
    );
    let r2 = dir.path("r2.json");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&w), "--out", &p(&r2)]).assert_success();
    assert_eq!(uint(&read_json(&r2), "sim.host.ramp_excluded"), before);
    // Out of range, or past every arrival.
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t, "--ramp-ms", "-1"])
        .assert_input_error(&["ramp_ms = -1.0", "between 0 and 1e9"]);
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &t, "--ramp-ms", "1000"]).assert_input_error(&[
        "ramp_ms = 1000.0 leaves no request to measure",
        &format!("all {total} arrived before it"),
    ]);
}

/// Student's t for a two-sided 95% interval with 2 degrees of freedom (any t table).
const T95_DF2: f64 = 4.303;

#[test]
pub(super) fn seeds_report_each_seed_and_a_t_interval() {
    let dir = TempDir::new("seeds");
    let wl = synthetic_workload(&dir, 1500);
    let (s, csv) = (dir.path("s.json"), dir.path("t.csv"));
    let args = ["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--seeds", "1..3", "--threads", "2"];
    let (s_arg, csv_arg) = (p(&s), p(&csv));
    let out = ssdlab(args.iter().chain(&["--out", s_arg.as_str(), "--csv", csv_arg.as_str()]).copied());
    out.assert_success();
    assert!(out.stdout.starts_with(&format!("seeds 1..3: 3 runs of {MQSIM_DEFAULT}")), "{}", out.stdout);
    let all = read_json(&s);
    assert_eq!(at(&all, "seeds"), &serde_json::json!([1, 2, 3]));
    let reports = at(&all, "reports").as_array().unwrap();
    for (stat, path) in [
        ("iops", "sim.host.iops"),
        ("latency_mean_us", "sim.latency_us.all.mean"),
        ("latency_p99_us", "sim.latency_us.all.p99"),
        ("bandwidth_mb_s", "sim.host.bandwidth_mb_s"),
    ] {
        let x: Vec<f64> = reports.iter().map(|r| num(r, path)).collect();
        let mean = x.iter().sum::<f64>() / 3.0;
        let sd = (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
        let half = T95_DF2 * sd / 3f64.sqrt();
        let got = |k: &str| num(&all, &format!("summary.{stat}.{k}"));
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(close(got("mean"), mean), "{stat} mean");
        assert!(close(got("ci95_low"), mean - half) && close(got("ci95_high"), mean + half), "{stat} interval");
    }
    // Each report is the single run of its seed.
    let single = dir.path("2.json");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--seed", "2", "--out", &p(&single)])
        .assert_success();
    assert_eq!(at(&read_json(&single), "sim"), at(&reports[1], "sim"));
    // A table row per seed.
    let text = std::fs::read_to_string(&csv).unwrap();
    let seeds: Vec<String> = text.lines().skip(1).map(|l| fields(l)[3].clone()).collect();
    assert_eq!(seeds, ["1", "2", "3"]);
    // Options a set of runs cannot take, and bad ranges.
    ssdlab(args.iter().chain(&["--seed", "4"]).copied()).assert_input_error(&["cannot be used with"]);
    ssdlab(args.iter().chain(&["--lat-log", "x.csv"]).copied()).assert_input_error(&["cannot be used with"]);
    let mut bad = args;
    bad[6] = "3..1";
    ssdlab(bad).assert_input_error(&["the last seed is below the first"]);
}

/// Each preset in presets/, by path.
fn presets() -> Vec<PathBuf> {
    let dir = Path::new(MQSIM_DEFAULT).parent().unwrap();
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    all.sort();
    all
}

#[test]
pub(super) fn the_full_map_can_be_set_on_every_preset() {
    let presets = presets();
    assert!(presets.len() >= 8, "{presets:?}");
    for preset in &presets {
        let text = std::fs::read_to_string(preset).unwrap();
        let has_table = text.lines().any(|l| l.trim() == "[ftl.map_cache]");
        let out = ssdlab(["validate", "--config", &p(preset), "--set", "ftl.mapping=full", "--print"]);
        out.assert_success();
        assert!(out.stdout.contains("mapping = \"full\""), "{}", out.describe());
        assert_eq!(
            out.stderr.contains("[ftl.map_cache] of"),
            has_table,
            "a note where the table was dropped\n{}",
            out.describe()
        );
        // Dropping the table by hand resolves to the same config, with no note.
        let by_hand = ssdlab([
            "validate",
            "--config",
            &p(preset),
            "--unset",
            "ftl.map_cache",
            "--set",
            "ftl.mapping=full",
            "--print",
        ]);
        by_hand.assert_success();
        assert_eq!(by_hand.stdout, out.stdout, "{}", preset.display());
        assert!(by_hand.stderr.is_empty(), "{}", by_hand.describe());
    }
    let fmmu = presets.iter().find(|p| p.ends_with("fmmu.toml")).unwrap();
    // Without a --set of the map, the table is kept, and the error says how to drop it.
    ssdlab(["validate", "--config", &p(fmmu), "--unset", "ftl.mapping"])
        .assert_input_error(&["ftl.map_cache", "--unset ftl.map_cache"]);
}

#[test]
pub(super) fn unset_removes_a_key_or_a_table() {
    let dir = TempDir::new("unset");
    // A whole table: the resolved cache is the default's (off).
    let out = ssdlab(["validate", "--config", MQSIM_DEFAULT, "--unset", "cache", "--print"]);
    out.assert_success();
    let cache = out.stdout.split("[cache]").nth(1).unwrap().split("\n[").next().unwrap();
    assert!(cache.contains("enabled = false"), "{cache}");
    // A key: hil.scheduler back to its default, then a --set wins over the unset.
    let c = dir.write(
        "c.toml",
        &format!(
            "{}\n",
            std::fs::read_to_string(MQSIM_DEFAULT).unwrap().replace("scheduler = \"direct\"", "scheduler = \"vas\"")
        ),
    );
    let printed = |extra: &[&str]| {
        let mut args = vec!["validate", "--config", c.to_str().unwrap(), "--print"];
        args.extend_from_slice(extra);
        let out = ssdlab(args);
        out.assert_success();
        out.stdout.lines().find(|l| l.starts_with("scheduler = ")).unwrap().to_string()
    };
    assert_eq!(printed(&[]), "scheduler = \"vas\"");
    assert_eq!(printed(&["--unset", "hil.scheduler"]), "scheduler = \"direct\"");
    assert_eq!(printed(&["--unset", "hil.scheduler", "--set", "hil.scheduler=spk3"]), "scheduler = \"spk3\"");
    // A key the file lacks but the config has: nothing to remove, no error.
    assert_eq!(printed(&["--unset", "ftl.map_cache"]), "scheduler = \"vas\"");
    // A misspelled key, or a path through a value: exit 2 naming it.
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--unset", "hil.schedular"]).assert_input_error(&[
        "--unset",
        "hil.schedular",
        "not a config key",
    ]);
    ssdlab(["validate", "--config", MQSIM_DEFAULT, "--unset", "hil.scheduler.x"])
        .assert_input_error(&["scheduler is a value, not a table"]);
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", EXAMPLE_READ_QD16, "--unset", "nand.nope"])
        .assert_input_error(&["nand.nope"]);
}

/// The Parquet file at `path`, read with the lab's reader (itself tested against the parquet
/// crate's reader).
fn read_parquet(path: &Path) -> ssdlab_lab::table::Frame {
    ssdlab_lab::table::parquet::read(std::fs::File::open(path).unwrap()).unwrap()
}

/// `--parquet`: the CSV table's columns, typed, a row per run: a second run rewrites the file
/// with both rows; the values are the CSV row's before its rounding.
#[test]
pub(super) fn parquet_rows_are_the_csv_rows_typed() {
    use ssdlab_lab::table::Values;
    let dir = TempDir::new("parquet-rows");
    let wl = synthetic_workload(&dir, 1000);
    let (csv, pq) = (dir.path("t.csv"), dir.path("t.parquet"));
    let base = ["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", &p(&csv), "--parquet", &p(&pq)];
    ssdlab(base).assert_success();
    assert_eq!(read_parquet(&pq).rows(), 1);
    ssdlab(base.iter().chain(&["--seed", "9", "--set", "hil.scheduler=vas"]).copied()).assert_success();
    let frame = read_parquet(&pq);
    let names: Vec<&str> = frame.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, CSV_COLUMNS);
    let col = |name: &str| &frame.columns[CSV_COLUMNS.iter().position(|c| *c == name).unwrap()].values;
    // The workload's seed (3), then --seed 9; text as given; counts as the workload asks.
    assert_eq!(col("seed"), &Values::UInt(vec![Some(3), Some(9)]));
    assert_eq!(col("set"), &Values::Text(vec![Some(String::new()), Some("hil.scheduler=vas".into())]));
    assert_eq!(col("scheduler"), &Values::Text(vec![Some("direct".into()), Some("vas".into())]));
    assert_eq!(col("requests"), &Values::Int(vec![Some(1000), Some(1000)]));
    assert_eq!(col("workload"), &Values::Text(vec![Some(p(&wl)); 2]));
    // Each float rounds to the CSV's cell (iops has 3 decimals there).
    let text = std::fs::read_to_string(&csv).unwrap();
    let Values::Float(iops) = col("iops") else { panic!("iops is {:?}", col("iops")) };
    for (line, value) in text.lines().skip(1).zip(iops) {
        assert_eq!(fields(line)[col_index("iops")], format!("{:.3}", value.unwrap()));
    }
}

fn col_index(name: &str) -> usize {
    CSV_COLUMNS.iter().position(|c| *c == name).unwrap()
}

/// An existing file that is not a Parquet table of the run's columns is refused before the
/// run (exit 2, naming the file and why) and left as it was; so is the same file as --csv.
#[test]
pub(super) fn parquet_of_other_columns_is_refused_before_the_run() {
    use ssdlab_lab::table::{parquet, Column, Frame, Values};
    let dir = TempDir::new("parquet-refused");
    let wl = synthetic_workload(&dir, 500);
    let run = |file: &Path| ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--parquet", &p(file)]);
    let text = dir.write("t.parquet", "config,workload\n");
    let out = run(&text);
    out.assert_input_error(&[&p(&text), "cannot add this run's rows: not a Parquet file ssdlab reads"]);
    assert!(out.stdout.is_empty(), "refused before the run:\n{}", out.describe());
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "config,workload\n");
    // A table whose first column is another: named, with both types.
    let other = Frame::new(vec![Column { name: "config".into(), values: Values::Int(vec![Some(1)]) }]);
    let bytes = parquet::to_bytes(&other);
    let file = dir.path("other.parquet");
    std::fs::write(&file, &bytes).unwrap();
    run(&file).assert_input_error(&[
        &p(&file),
        "not a table of this run's columns: column 1 is `config` (INT64) where the new rows have `config` (UTF8 string)",
    ]);
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
    // An empty file is a new table.
    let empty = dir.write("empty.parquet", "");
    run(&empty).assert_success();
    assert_eq!(read_parquet(&empty).rows(), 1);
    let csv = p(&dir.path("x"));
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--csv", &csv, "--parquet", &csv])
        .assert_input_error(&["--parquet", "is the same file as --csv"]);
}
