//! Paper reproductions: each runs a paper's evaluation (a grid of simulations), writes one
//! CSV row per run, a PNG per figure and a REPORT.md that sets every result beside the
//! paper's number.
//!
//! Runs are independent and go on the sweep engine ([`crate::sweep`]) in parallel on the
//! machine's cores, each one's report kept in `OUT/runs` as it ends (`--resume` picks an
//! interrupted reproduction up from there). Each run is deterministic, and rows are written
//! in the grid's order, so the CSV does not depend on which core finished first.

pub mod claims;
pub mod columns;
pub mod flin;
pub mod fmmu;
pub mod pacp;
pub mod plot;
pub mod provenance;
pub mod spd;
pub mod sprinkler;
pub mod template;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use crate::sweep::{self, Item, Store};
use ssdlab::error::{Error, Result};
use ssdlab::{Config, Report, WorkloadSpec};

/// What every reproduction takes.
pub struct Options {
    /// Folder for results.csv, the figures and REPORT.md.
    pub out: PathBuf,
    /// The smaller grid.
    pub quick: bool,
    /// Folder holding the shared traces (`msr/`, `mqsim/`, `umass/`, ...).
    pub traces: PathBuf,
    /// Parallel runs.
    pub threads: usize,
    /// Use the reports already in `out/runs` that were made from the same inputs (a
    /// reproduction interrupted and started again).
    pub resume: bool,
    /// Set from another thread to stop: no run starts after it, and the reproduction returns
    /// [`Error::Interrupted`] once the runs under way have ended (and are kept).
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// The papers `reproduce` knows.
pub const PAPERS: [&str; 5] = ["sprinkler", "flin", "fmmu", "spd", "pacp"];

/// What a reproduction ended with: its check table (the paper's claims beside ours, the
/// text `ssdlab reproduce` prints) and a line saying where the results are.
pub struct Done {
    pub check: String,
    pub summary: String,
}

/// Run the reproduction of `paper` (one of [`PAPERS`]): `opts.out` gets results.csv and results.parquet, a PNG
/// per figure, REPORT.md and `runs/`. The one entry of the command line and of Python.
pub fn run(paper: &str, opts: &Options) -> Result<Done> {
    if opts.threads == 0 {
        let why = format!(
            "threads = 0 (--threads 0): a reproduction needs at least 1 thread; leave it out to use all {} cores",
            default_threads()
        );
        return Err(Error::config("reproduce", 0, "threads", &why));
    }
    let out = opts.out.display();
    let (check, rows, unit) = match paper {
        "flin" => {
            let rows = flin::reproduce(opts)?;
            (flin::check_table(&rows), rows.len(), "cases")
        }
        "sprinkler" => {
            let rows = sprinkler::reproduce(opts)?;
            (sprinkler::msr_check(&rows), rows.len(), "runs")
        }
        "fmmu" => {
            let rows = fmmu::reproduce(opts)?;
            (fmmu::check_table(&rows), rows.len(), "runs")
        }
        "spd" => {
            let rows = spd::reproduce(opts)?;
            (spd::check_table(&rows), rows.len(), "runs")
        }
        "pacp" => {
            let rows = pacp::reproduce(opts)?;
            (pacp::check_table(&rows), rows.len(), "runs")
        }
        _ => {
            let message = format!("unknown paper `{paper}`; known: {}", PAPERS.join(", "));
            return Err(Error::config("reproduce", 0, paper, &message));
        }
    };
    let summary =
        format!("{rows} {unit}; results in {out}: results.csv, results.parquet, REPORT.md, *.png, runs/*.json");
    Ok(Done { check, summary })
}

/// A paper's grid file (`text`, compiled in from `name`), parsed once into `cell`. The file
/// ships with the binary and a unit test per paper reads it, so a bad one is a bug: panic,
/// naming the file, line and key.
fn grid_from<T: serde::de::DeserializeOwned>(
    cell: &'static std::sync::OnceLock<T>,
    text: &str,
    name: &str,
) -> &'static T {
    cell.get_or_init(|| toml::from_str(text).unwrap_or_else(|e| panic!("{}", Error::toml(name, text, e))))
}

/// A file error of a reproduction's output or inputs.
fn io_err(path: &Path, e: std::io::Error) -> Error {
    Error::Io { file: path.display().to_string(), source: e }
}

/// `file` under the traces folder, or an input error saying how to point `--traces` at it.
fn shared_trace(opts: &Options, file: &str) -> Result<PathBuf> {
    let path = opts.traces.join(file);
    if !path.exists() {
        return Err(Error::config(
            &path.display().to_string(),
            0,
            "--traces",
            "trace not found: pass --traces DIR, the folder holding msr/, mqsim/ and umass/ (default traces)",
        ));
    }
    Ok(path)
}

/// Write DIR/REPORT.md.
fn write_report(out: &Path, md: String) -> Result<()> {
    sweep::write_atomic(&out.join("REPORT.md"), md.as_bytes())
}

/// One simulation of a reproduction grid.
pub struct Job {
    pub config: Config,
    pub workload: WorkloadSpec,
}

/// Run every job of the reproduction `label` ("reproduce sprinkler") on the sweep engine
/// ([`crate::sweep`]), on `opts.threads` cores, returning reports in job order. Each report
/// is kept in `OUT/runs/<label>-<index>.json` as its run ends ("sprinkler-0007"); with
/// `opts.resume`, a report already there from the same config, workload and seed is used
/// instead of running again (without it, every job runs and its report replaces the one
/// there). Progress goes to stderr.
pub fn run_all(label: &str, jobs: Vec<Job>, opts: &Options) -> Result<Vec<Report>> {
    let dir = opts.out.join("runs");
    let store = Store::open(&dir)?.reusing(opts.resume);
    let paper = label.trim_start_matches("reproduce ").replace(' ', "-");
    let items = items(jobs, &paper, None);
    let progress = Counter {
        label: Some(label),
        dir: Some(&dir),
        tty: std::io::stderr().is_terminal(),
        stop: opts.stop.as_deref(),
    };
    match sweep::execute(&items, Some(&store), opts.threads, &progress)? {
        Ok(reports) => reports.into_iter().collect(),
        Err(sweep::Stopped) => Err(Error::Interrupted { dir: dir.display().to_string() }),
    }
}

/// Run every job (with `seed` overriding the workloads' seeds when given), on up to `threads`
/// cores, returning reports in job order; with a `label`, progress goes to stderr. Nothing
/// is stored.
pub fn run_jobs(jobs: Vec<Job>, threads: usize, seed: Option<u64>, label: Option<&str>) -> Result<Vec<Report>> {
    let items = items(jobs, "job", seed);
    let progress = Counter { label, dir: None, tty: std::io::stderr().is_terminal(), stop: None };
    let done = sweep::execute(&items, None, threads, &progress)?;
    done.expect("a progress without a stop flag never stops").into_iter().collect()
}

/// The jobs as sweep items named `<prefix>-<index>` (`sprinkler-0007`).
fn items(jobs: Vec<Job>, prefix: &str, seed: Option<u64>) -> Vec<Item> {
    let item =
        |(i, j): (usize, Job)| Item { name: format!("{prefix}-{i:04}"), config: j.config, workload: j.workload, seed };
    jobs.into_iter().enumerate().map(item).collect()
}

/// A reproduction's progress on stderr: on a terminal the count rewrites one line; into a
/// log, a line per tenth of the runs.
struct Counter<'a> {
    label: Option<&'a str>,
    dir: Option<&'a Path>,
    tty: bool,
    stop: Option<&'a std::sync::atomic::AtomicBool>,
}

/// Runs the last reproduction's `--resume` took from its store instead of making (a
/// reproduction runs once per process; its report's header says how many were reused).
pub static REUSED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl sweep::Progress for Counter<'_> {
    fn start(&self, items: usize, reused: usize) {
        if self.dir.is_some() {
            REUSED.store(reused, std::sync::atomic::Ordering::Relaxed);
        }
        if let (Some(label), Some(dir), true) = (self.label, self.dir, reused > 0) {
            eprintln!("  {label}: {reused} of {items} runs already done in {}", dir.display());
        }
    }

    fn finished(&self, run: &sweep::Finished) -> bool {
        let go_on = !self.stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed));
        let Some(label) = self.label else { return go_on };
        let (d, n) = (run.done, run.todo);
        if self.tty {
            eprint!("\r  {label}: {d}/{n} runs   ");
            if d == n {
                eprintln!();
            }
        } else if d * 10 / n != (d - 1) * 10 / n {
            eprintln!("  {label}: {d}/{n} runs");
        }
        go_on
    }
}

/// Cores to use: all the machine has.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Arithmetic mean (0 for none).
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// Geometric mean of positive values (0 for none).
pub fn geomean(xs: &[f64]) -> f64 {
    if xs.is_empty() || xs.iter().any(|&x| x <= 0.0) {
        0.0
    } else {
        (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::{run_all, Job, Options};
    use ssdlab::{Config, WorkloadSpec};
    use std::path::Path;

    fn jobs() -> Vec<Job> {
        let preset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../presets/mqsim-default.toml");
        let small = ["nand.blocks_per_plane=128", "nand.pages_per_block=64", "ftl.overprovisioning_ratio=0.25"];
        let config = Config::load(&preset, &small.map(String::from)).unwrap();
        (1..=2)
            .map(|seed| {
                let text =
                    format!("seed = {seed}\n[[flows]]\ntype = \"synthetic\"\nread_ratio = 0.5\nrequests = 200\n");
                Job {
                    config: config.clone(),
                    workload: WorkloadSpec::from_toml_str(&text, "w", Path::new(".")).unwrap(),
                }
            })
            .collect()
    }

    /// Reports are kept as `runs/<label>-NNNN.json`; `--resume` reuses them (a stored report
    /// marked by hand comes back as it is), and without it every job runs again.
    #[test]
    fn reproductions_keep_their_reports_and_resume_from_them() {
        let out = std::env::temp_dir().join(format!("ssdlab-reproduce-resume-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let mut opts =
            Options { out: out.clone(), quick: true, traces: out.clone(), threads: 2, resume: false, stop: None };
        let first = run_all("reproduce test two", jobs(), &opts).unwrap();
        assert_eq!(first.iter().map(|r| r.seed).collect::<Vec<_>>(), [1, 2]);
        let stored = out.join("runs/test-two-0001.json");
        let marked =
            std::fs::read_to_string(&stored).unwrap().replacen("\"wall_s\": ", "\"wall_s\": 12345.0, \"was\": ", 1);
        std::fs::write(&stored, marked).unwrap();
        assert!(out.join("runs/test-two-0000.json").exists());

        opts.resume = true;
        let resumed = run_all("reproduce test two", jobs(), &opts).unwrap();
        assert_eq!(resumed[1].run.wall_s, 12345.0, "reused");
        assert_eq!(resumed[1].sim.host.requests_completed, 200);
        opts.resume = false;
        let again = run_all("reproduce test two", jobs(), &opts).unwrap();
        assert_ne!(again[1].run.wall_s, 12345.0, "run again");
        std::fs::remove_dir_all(&out).unwrap();
    }

    /// No thread would run nothing: 0 is an error naming the key, before any work.
    #[test]
    fn zero_threads_is_an_error() {
        let out = std::env::temp_dir().join(format!("ssdlab-reproduce-threads-{}", std::process::id()));
        let opts =
            Options { out: out.clone(), quick: true, traces: out.clone(), threads: 0, resume: false, stop: None };
        let Err(e) = super::run("sprinkler", &opts) else { panic!("0 threads accepted") };
        assert!(
            e.to_string().starts_with("reproduce: threads = 0 (--threads 0): a reproduction needs at least 1 thread"),
            "{e}"
        );
        assert!(!out.exists(), "nothing written");
    }
}
