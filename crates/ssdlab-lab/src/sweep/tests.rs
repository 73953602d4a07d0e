//! The sweep engine: grid names and order, the store's reuse rule, resuming a stopped sweep,
//! and the table.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::grid::{Grid, Source};
use super::table::Table;
use super::{execute, Finished, Item, Progress, Quiet, Store, Stored};
use crate::table::{Frame, Values};
use ssdlab::{Config, Report, WorkloadSpec};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn preset() -> String {
    repo().join("presets/mqsim-default.toml").display().to_string()
}

/// The preset on a drive small enough to fill in milliseconds.
const SMALL: [&str; 3] = ["nand.blocks_per_plane=128", "nand.pages_per_block=64", "ftl.overprovisioning_ratio=0.25"];

fn small_config() -> Config {
    Config::load(Path::new(&preset()), &SMALL.map(String::from)).unwrap()
}

/// [`small_config`] as a file in `dir`.
fn small_config_file(dir: &Path) -> String {
    let path = dir.join("small.toml");
    std::fs::write(&path, small_config().to_toml()).unwrap();
    path.display().to_string()
}

/// A fresh folder under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-sweep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const WORKLOAD: &str = "seed = 7\n[[flows]]\nname = \"mix\"\ntype = \"synthetic\"\nread_ratio = 0.5\naddress = \"uniform\"\nrequest_bytes = 4096\nqueue_depth = 4\nrequests = 300\n";

/// `n` small runs: the preset on a small drive, seeds 1..=n.
fn items(n: u64) -> Vec<Item> {
    let config = small_config();
    let workload = WorkloadSpec::from_toml_str(WORKLOAD, "w", Path::new(".")).unwrap();
    (1..=n)
        .map(|s| Item { name: format!("run-{s}"), config: config.clone(), workload: workload.clone(), seed: Some(s) })
        .collect()
}

/// A report's JSON without `run` (wall time, memory: the machine's).
fn outside_run(r: &Report) -> String {
    let mut v = serde_json::to_value(r).unwrap();
    v.as_object_mut().unwrap().remove("run");
    v.to_string()
}

fn grid(dir: &Path, text: &str) -> ssdlab::Result<Grid> {
    let path = dir.join("grid.toml");
    std::fs::write(&path, text).unwrap();
    Grid::load(&path)
}

#[test]
fn the_grid_is_the_product_in_order_named_by_its_values() {
    let dir = scratch("grid");
    std::fs::write(dir.join("w.toml"), WORKLOAD).unwrap();
    let text = format!(
        "config = \"{}\"\nworkload = \"w.toml\"\nseed = [1, 2]\n[set]\n\"nand.channels\" = [2, 4, 8]\n\"hil.scheduler\" = [\"direct\", \"spk3\"]\n",
        preset()
    );
    let g = grid(&dir, &text).unwrap();
    // 1 config × 1 workload × 2 seeds × 3 × 2 = 12, the last key fastest.
    assert_eq!(g.points.len(), 12);
    let names: Vec<&str> = g.points.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names[0], "mqsim-default__w__seed-1__nand.channels-2__hil.scheduler-direct");
    assert_eq!(names[1], "mqsim-default__w__seed-1__nand.channels-2__hil.scheduler-spk3");
    assert_eq!(names[2], "mqsim-default__w__seed-1__nand.channels-4__hil.scheduler-direct");
    assert_eq!(names[11], "mqsim-default__w__seed-2__nand.channels-8__hil.scheduler-spk3");
    // The workload is found beside the grid file; overrides are `--set` text.
    assert!(matches!(&g.points[0].workload.source, Source::Path(p) if p == &dir.join("w.toml")));
    assert_eq!(g.points[11].overrides(), ["nand.channels=8", "hil.scheduler=\"spk3\""]);
    let item = g.points[11].item().unwrap();
    assert_eq!((item.config.nand.channels, item.seed(), item.workload.flows.len()), (8, 2, 1));
}

#[test]
fn unquoted_dotted_keys_and_single_values_are_accepted() {
    let dir = scratch("dotted");
    let text = format!("config = \"{}\"\nworkload = \"{}\"\n[set]\nnand.channels = 4\n", preset(), "x.toml");
    let g = grid(&dir, &text).unwrap();
    assert_eq!(g.points.len(), 1);
    assert_eq!(g.points[0].name, "mqsim-default__x__nand.channels-4");
    assert_eq!(g.points[0].seed, None);
}

#[test]
fn bad_grids_are_named_errors() {
    let dir = scratch("bad");
    let e = grid(&dir, "config = \"a.toml\"\nworkload = \"w.toml\"\nseeds = [1]\n").unwrap_err().to_string();
    assert!(e.contains("grid.toml:3") && e.contains("unknown field `seeds`"), "{e}");
    let e = grid(&dir, "workload = \"w.toml\"\n").unwrap_err().to_string();
    assert!(e.contains("missing field `config`"), "{e}");
    let e = grid(&dir, "config = \"a.toml\"\nworkload = \"w.toml\"\nseed = [1, -2]\n").unwrap_err().to_string();
    assert!(e.contains("seed: -2 is not a seed"), "{e}");
    let e = grid(&dir, "config = []\nworkload = \"w.toml\"\n").unwrap_err().to_string();
    assert!(e.contains("config: an empty list"), "{e}");
    let e = grid(&dir, "config = [\"a/x.toml\", \"b/x.toml\"]\nworkload = \"w.toml\"\n").unwrap_err().to_string();
    assert!(e.contains("both be named `x__w`"), "{e}");
    let e = grid(&dir, "config = 3\nworkload = \"w.toml\"\n").unwrap_err().to_string();
    assert!(e.contains("grid.toml:1: config: a path, a table or TOML text"), "{e}");
    // A missing trace fails when the grid's inputs are read, before any run.
    let g = grid(&dir, &format!("config = \"{}\"\nworkload = \"gone.trace\"\n", preset())).unwrap();
    let e = g.items().err().expect("no such trace").to_string();
    assert!(e.starts_with("gone.trace: No such file"), "{e}");
}

/// FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector); the label keeps its
/// top 48 bits.
#[test]
fn inline_inputs_are_named_by_a_stable_hash() {
    assert_eq!(super::grid::inline_label("a"), "inline-af63dc4c8601");
    let g = Grid::from_json(r#"{"config": "a\n", "workload": {"seed": 1}}"#, "<grid>").unwrap();
    // FNV-1a 64 of "a\n" >> 16, from a separate implementation (Python).
    assert_eq!(g.points[0].config.label, "inline-089bdc07b544");
    assert!(matches!(&g.points[0].config.source, Source::Toml(t) if t == "a\n"));
    assert!(g.points[0].name.starts_with("inline-089bdc07b544__inline-"));
}

#[test]
fn a_report_reads_back_exactly() {
    let r = ssdlab::run(&items(1)[0].config, &items(1)[0].workload, Some(3), &Default::default()).unwrap();
    let text = r.to_json();
    let back: Report = serde_json::from_str(&text).unwrap();
    assert_eq!(back.to_json(), text);
}

/// A progress that stops the sweep after `after` runs and records the names that ran.
struct StopAfter {
    after: usize,
    ran: Mutex<Vec<String>>,
    reused: AtomicUsize,
}

impl Progress for StopAfter {
    fn start(&self, _: usize, reused: usize) {
        self.reused.store(reused, Ordering::Relaxed);
    }
    fn finished(&self, run: &Finished) -> bool {
        self.ran.lock().unwrap().push(run.name.to_string());
        run.done < self.after
    }
}

#[test]
fn a_stopped_sweep_resumes_running_each_run_once() {
    let dir = scratch("resume");
    let items = items(4);
    let store = Store::open(&dir).unwrap();
    let first = StopAfter { after: 2, ran: Mutex::default(), reused: AtomicUsize::new(0) };
    assert!(execute(&items, Some(&store), 1, &first).unwrap().is_err(), "stopped");
    assert_eq!(*first.ran.lock().unwrap(), ["run-1", "run-2"]);
    // One sweep at a time: the store is locked while open.
    let e = Store::open(&dir).err().expect("locked").to_string();
    assert!(e.contains(".lock: another sweep or reproduction is writing to this folder"), "{e}");
    drop(store);
    // A killed sweep's half-written report is removed when the store opens again.
    std::fs::write(dir.join(".run-3.json.tmp-1"), "{").unwrap();
    let store = Store::open(&dir).unwrap();
    assert!(!dir.join(".run-3.json.tmp-1").exists());
    let second = StopAfter { after: usize::MAX, ran: Mutex::default(), reused: AtomicUsize::new(0) };
    let resumed: Vec<Report> =
        execute(&items, Some(&store), 2, &second).unwrap().unwrap().into_iter().map(Result::unwrap).collect();
    assert_eq!(second.reused.load(Ordering::Relaxed), 2);
    let mut ran = second.ran.lock().unwrap().clone();
    ran.sort();
    assert_eq!(ran, ["run-3", "run-4"]);
    // The same reports as a sweep that was never stopped, in item order.
    let fresh = execute(&items, None, 2, &Quiet).unwrap().unwrap();
    for (a, b) in resumed.iter().zip(&fresh) {
        assert_eq!(outside_run(a), outside_run(b.as_ref().unwrap()));
    }
    assert_eq!(resumed.iter().map(|r| r.seed).collect::<Vec<_>>(), [1, 2, 3, 4]);
}

#[test]
fn a_stored_report_is_reused_only_for_the_same_inputs() {
    let dir = scratch("reuse");
    let items = items(1);
    let store = Store::open(&dir).unwrap();
    execute(&items, Some(&store), 1, &Quiet).unwrap().unwrap();
    assert!(store.reusable(&items[0]).unwrap().is_some());
    assert!(store.reusing(false).reusable(&items[0]).unwrap().is_none());
    let store = Store::open(&dir).unwrap();
    let why = |store: &Store, item: &Item| match store.lookup(item).unwrap() {
        Stored::Other(why) => why,
        Stored::Same(_) => "same".into(),
        Stored::Missing => "missing".into(),
    };
    let mut other = Item {
        name: items[0].name.clone(),
        config: items[0].config.clone(),
        workload: items[0].workload.clone(),
        seed: Some(99),
    };
    assert_eq!(why(&store, &other), "made with seed 1, not 99");
    other.seed = Some(1);
    other.config.nand.channels = 4;
    assert_eq!(why(&store, &other), "made from another config");
    // Made by other code: another source hash.
    let path = dir.join("run-1.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let source = format!("\"ssdlab_source\": \"{}\"", ssdlab::SOURCE_HASH);
    std::fs::write(&path, text.replace(&source, "\"ssdlab_source\": \"0123\"")).unwrap();
    assert!(why(&store, &items[0]).starts_with("made by other ssdlab code (source 0123"), "{}", why(&store, &items[0]));
    std::fs::write(&path, "{\"not\": \"a report\"}").unwrap();
    assert_eq!(why(&store, &items[0]), "not a report of this version of ssdlab");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(why(&store, &items[0]), "missing");
}

/// A trace written after the report: the report is not that trace's.
#[test]
fn a_report_older_than_its_trace_is_not_reused() {
    let dir = scratch("trace");
    let trace = dir.join("t.trace");
    std::fs::write(&trace, "0 0 100 8 1\n10000 0 200 8 1\n").unwrap();
    let item =
        Item { name: "t".into(), config: small_config(), workload: WorkloadSpec::load(&trace).unwrap(), seed: None };
    let store = Store::open(&dir.join("runs")).unwrap();
    execute(std::slice::from_ref(&item), Some(&store), 1, &Quiet).unwrap().unwrap();
    assert!(store.reusable(&item).unwrap().is_some());
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options().write(true).open(&trace).unwrap().set_modified(later).unwrap();
    match store.lookup(&item).unwrap() {
        Stored::Other(why) => assert_eq!(why, format!("{} changed since", trace.display())),
        _ => panic!("reused a report older than its trace"),
    }
}

#[test]
fn set_keys_are_config_keys_given_once_and_names_are_never_hidden_files() {
    let dir = scratch("keys");
    let head = "config = \".mine.toml\"\nworkload = \"w.toml\"\n[set]\n";
    let e = grid(&dir, &format!("{head}\"nand.channels\" = [2]\nnand.channels = [4]\n")).unwrap_err().to_string();
    assert!(e.contains("set.nand.channels: set twice"), "{e}");
    let e = grid(&dir, &format!("{head}\"nand.channels=8 #\" = [4]\n")).unwrap_err().to_string();
    assert!(e.contains("grid.toml: set.nand.channels=8 #: not a config key"), "{e}");
    let e = grid(&dir, &format!("{head}hil = {{}}\n")).unwrap_err().to_string();
    assert!(e.contains("set.hil: an empty list or table"), "{e}");
    let g = grid(&dir, &format!("{head}\"hil.scheduler\" = \"spk3\"\nnand.channels = 4\n")).unwrap();
    // File order, the quoted and the dotted key alike; the config's leading dot replaced.
    assert_eq!(g.points[0].name, "_mine__w__hil.scheduler-spk3__nand.channels-4");
    // A name too long for a file name: cut, with a hash of the whole.
    let long = "x".repeat(300);
    let g = grid(&dir, &format!("{head}\"host.a\" = [\"{long}\", \"{long}y\"]\n")).unwrap();
    let names: Vec<&str> = g.points.iter().map(|p| p.name.as_str()).collect();
    assert!(names.iter().all(|n| n.len() == 200 && n.as_bytes()[187] == b'~'), "{names:?}");
    assert_ne!(names[0], names[1]);
}

#[test]
fn the_table_is_the_parameters_then_the_summary() {
    let dir = scratch("table");
    let w = dir.join("w.toml");
    std::fs::write(&w, WORKLOAD).unwrap();
    let json = format!(
        r#"{{"config": "{}", "workload": "{}", "seed": [5], "set": {{"nand.blocks_per_plane": [128], "hil.scheduler": ["spk3"]}}}}"#,
        small_config_file(&dir),
        w.display()
    );
    let g = Grid::from_json(&json, "<grid>").unwrap();
    let item = g.points[0].item().unwrap();
    let r = ssdlab::run(&item.config, &item.workload, item.seed, &Default::default()).unwrap();
    let t = Table::of(&g.points, std::slice::from_ref(&r));
    assert_eq!(
        t.columns[..8],
        ["run", "config", "workload", "seed", "nand.blocks_per_plane", "hil.scheduler", "scheduler", "tsu"]
    );
    assert!(!t.columns.iter().any(|c| c == "wall_s"));
    let at = |c: &str| &t.rows[0][t.columns.iter().position(|x| x == c).unwrap()];
    assert_eq!(at("run"), "small__w__seed-5__nand.blocks_per_plane-128__hil.scheduler-spk3");
    assert_eq!(at("seed"), 5);
    assert_eq!((at("hil.scheduler"), at("scheduler")), (&"spk3".into(), &"spk3".into()));
    assert_eq!(at("requests_completed"), 300);
    assert_eq!(at("read_latency_p99_us").as_f64().unwrap(), r.sim.latency_us.read.p99);
    let csv = t.to_csv();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap().split(',').count(), t.columns.len());
    assert!(lines.next().unwrap().starts_with("small__w__seed-5__nand.blocks_per_plane-128__hil.scheduler-spk3,"));
    // Written as results.csv and results.parquet: the same columns and values, typed.
    t.write(&dir).unwrap();
    let frame = crate::table::parquet::read(std::fs::File::open(dir.join("results.parquet")).unwrap()).unwrap();
    let from_csv = Frame::from_csv(&std::fs::read_to_string(dir.join("results.csv")).unwrap()).unwrap();
    assert_eq!(frame, from_csv);
    let column = |c: &str| &frame.columns.iter().find(|x| x.name == c).unwrap().values;
    assert_eq!(column("hil.scheduler"), &Values::Text(vec![Some("spk3".into())]));
    assert_eq!(column("seed"), &Values::Int(vec![Some(5)]));
    assert_eq!(column("nand.blocks_per_plane"), &Values::Int(vec![Some(128)]));
    assert_eq!(column("requests_completed"), &Values::Int(vec![Some(300)]));
    assert_eq!(column("read_latency_p99_us"), &Values::Float(vec![Some(r.sim.latency_us.read.p99)]));
    let quoted =
        Table { columns: vec!["a,b".into()], rows: vec![vec!["say \"hi\"".into()], vec![serde_json::Value::Null]] };
    assert_eq!(quoted.to_csv(), "\"a,b\"\n\"say \"\"hi\"\"\"\n\n");
}
