//! Paper reproductions: each runs a paper's evaluation (a grid of simulations), writes one
//! CSV row per run, a PNG per figure and a REPORT.md that sets every result beside the
//! paper's number.
//!
//! Runs are independent and go in parallel on the machine's cores; each one is itself
//! deterministic, and rows are written in the grid's order, so the CSV does not depend on
//! which core finished first.

pub mod flin;
pub mod fmmu;
pub mod pacp;
pub mod plot;
pub mod spd;
pub mod sprinkler;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::{Config, Report, RunOptions, WorkloadSpec};

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
            "trace not found: pass --traces DIR, the folder holding msr/, mqsim/ and umass/ (default ../shared/traces)",
        ));
    }
    Ok(path)
}

/// Write DIR/results.csv: `header`, then one line per row.
fn write_results_csv(out: &Path, header: &str, rows: impl Iterator<Item = String>) -> Result<()> {
    let mut csv = format!("{header}\n");
    for r in rows {
        csv += &r;
        csv.push('\n');
    }
    let path = out.join("results.csv");
    std::fs::write(&path, csv).map_err(|e| io_err(&path, e))
}

/// Write DIR/REPORT.md.
fn write_report(out: &Path, md: String) -> Result<()> {
    let path = out.join("REPORT.md");
    std::fs::write(&path, md).map_err(|e| io_err(&path, e))
}

/// One simulation of a reproduction grid.
pub struct Job {
    pub config: Config,
    pub workload: WorkloadSpec,
}

/// Run every job, on up to `threads` cores, returning reports in job order. Progress goes to
/// stderr.
pub fn run_all(label: &str, jobs: Vec<Job>, threads: usize) -> Result<Vec<Report>> {
    run_jobs(jobs, threads, None, Some(label))
}

/// Run every job (with `seed` overriding the workloads' seeds when given), on up to `threads`
/// cores, returning reports in job order; with a `label`, progress goes to stderr.
pub fn run_jobs(jobs: Vec<Job>, threads: usize, seed: Option<u64>, label: Option<&str>) -> Result<Vec<Report>> {
    let n = jobs.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Report>>>> = Mutex::new((0..n).map(|_| None).collect());
    // On a terminal the count rewrites one line; into a log, a line per tenth of the runs.
    let tty = std::io::stderr().is_terminal();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(n.max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let job = &jobs[i];
                let r = crate::run(&job.config, &job.workload, seed, &RunOptions::default());
                results.lock().expect("no worker panicked")[i] = Some(r);
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(label) = label {
                    if tty {
                        eprint!("\r  {label}: {d}/{n} runs   ");
                    } else if d * 10 / n != (d - 1) * 10 / n {
                        eprintln!("  {label}: {d}/{n} runs");
                    }
                }
            });
        }
    });
    if label.is_some() && tty {
        eprintln!();
    }
    results.into_inner().expect("no worker panicked").into_iter().map(|r| r.expect("every job ran")).collect()
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
