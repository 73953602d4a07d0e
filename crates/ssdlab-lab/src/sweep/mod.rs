//! Sweeps: many independent simulations, each one's report kept on disk as it finishes, so
//! that a sweep stopped at any moment (Ctrl-C, a kill, a crash) resumes without redoing a
//! finished run. The one engine behind `ssdlab sweep` (whose `local` backend is [`execute`],
//! in the command itself), the Python package's `ssdlab.sweep` (the same `local` backend,
//! and a `ray` backend that runs the same [`grid::Point`]s as Ray tasks and stores their
//! reports with [`Store::save`]) and `ssdlab reproduce`.
//!
//! - [`grid`]: a grid file (`experiments/*.toml`) → its runs, each named by its parameters.
//! - [`Store`]: `OUT/runs/<name>.json`, written atomically; a report there is reused only if
//!   it was made from the same config, workload and seed.
//! - [`execute`]: runs the items not already stored, on up to `threads` cores, and hands back
//!   every item's report in item order.
//! - [`table`]: one row per run, the grid's parameters then [`table::summary`], written as
//!   `OUT/results.csv` and `OUT/results.parquet` ([`table::Table::write`]).
//!
//! Each run is deterministic and the results come back in item order, so the table does not
//! depend on which core finished first, nor on whether a run was resumed.

pub mod grid;
mod store;
pub mod table;

#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

pub use store::{difference, write_atomic, Store, Stored};

use ssdlab::error::Result;
use ssdlab::{Config, Report, RunOptions, WorkloadSpec};

/// One simulation of a sweep.
pub struct Item {
    /// The name its report is stored under (`OUT/runs/<name>.json`).
    pub name: String,
    pub config: Config,
    pub workload: WorkloadSpec,
    /// Overrides the workload's seed.
    pub seed: Option<u64>,
}

impl Item {
    /// The seed the run uses.
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or(self.workload.seed)
    }
}

/// A run that just ended, as progress sees it.
pub struct Finished<'a> {
    /// Runs ended so far in this call, this one included, and runs this call had to do.
    pub done: usize,
    pub todo: usize,
    pub name: &'a str,
    /// The run's error (bad input found only while running, such as a trace's bad line).
    pub error: Option<&'a ssdlab::Error>,
    /// Seconds since the first run started.
    pub elapsed_s: f64,
}

impl Finished<'_> {
    /// The run's progress line, as `ssdlab sweep` prints it: `  [3/12] NAME (1.4 s)`, or
    /// `  [3/12] NAME FAILED: message`.
    pub fn line(&self) -> String {
        let head = format!("  [{}/{}] {}", self.done, self.todo, self.name);
        match self.error {
            None => format!("{head} ({:.1} s)", self.elapsed_s),
            Some(e) => format!("{head} FAILED: {e}"),
        }
    }
}

/// What [`execute`] tells its caller as it goes.
pub trait Progress: Sync {
    /// Before any run: `reused` of the items' reports were already in the store.
    fn start(&self, _items: usize, _reused: usize) {}
    /// A run ended. Returning false stops the sweep: no run starts after it, the runs under
    /// way finish and are stored, and [`execute`] returns [`Stopped`].
    fn finished(&self, run: &Finished) -> bool;
}

/// A sweep stopped by its progress (for instance on Ctrl-C): the runs that ended are stored.
#[derive(Debug)]
pub struct Stopped;

/// Run every item whose report `store` does not already hold (all of them without a store),
/// on up to `threads` cores, saving each report to the store as soon as it is made. Returns
/// each item's report, or the error of its run, in item order.
pub fn execute(
    items: &[Item],
    store: Option<&Store>,
    threads: usize,
    progress: &dyn Progress,
) -> Result<std::result::Result<Vec<Result<Report>>, Stopped>> {
    let mut results: Vec<Option<Result<Report>>> = Vec::with_capacity(items.len());
    for item in items {
        results.push(match store {
            Some(s) => s.reusable(item)?.map(Ok),
            None => None,
        });
    }
    let todo: Vec<usize> = (0..items.len()).filter(|&i| results[i].is_none()).collect();
    progress.start(items.len(), items.len() - todo.len());
    let made = run_pending(items, &todo, store, threads, progress);
    let stopped = made.len() < todo.len();
    for (i, r) in made {
        results[i] = Some(r);
    }
    if stopped {
        return Ok(Err(Stopped));
    }
    Ok(Ok(results.into_iter().map(|r| r.expect("every item ran or was reused")).collect()))
}

/// The runs `todo` (indices into `items`) on a pool of threads, each report saved as it is
/// made; returns (index, result) for the runs that ran, all of them unless progress stopped
/// the sweep.
fn run_pending(
    items: &[Item],
    todo: &[usize],
    store: Option<&Store>,
    threads: usize,
    progress: &dyn Progress,
) -> Vec<(usize, Result<Report>)> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let made = Mutex::new(Vec::with_capacity(todo.len()));
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(todo.len().max(1)) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= todo.len() || stop.load(Ordering::Relaxed) {
                    break;
                }
                let item = &items[todo[k]];
                let result = run_one(item, store, threads.max(1));
                let finished = Finished {
                    done: done.fetch_add(1, Ordering::Relaxed) + 1,
                    todo: todo.len(),
                    name: &item.name,
                    error: result.as_ref().err(),
                    elapsed_s: start.elapsed().as_secs_f64(),
                };
                if !progress.finished(&finished) {
                    stop.store(true, Ordering::Relaxed);
                }
                made.lock().expect("no worker panicked").push((todo[k], result));
            });
        }
    });
    made.into_inner().expect("no worker panicked")
}

/// One simulation, its report saved to the store. Where panics unwind (the Python
/// extension), a broken invariant fails this run alone ([`ssdlab::Error::Internal`]). The run
/// is refused ([`ssdlab::Error::MemoryLimit`]) if its memory estimate is above its share of
/// what the process may still take (`threads` runs at once).
fn run_one(item: &Item, store: Option<&Store>, threads: usize) -> Result<Report> {
    let memory_limits = ssdlab::mem::limits().into_iter().map(|l| l.shared_by(threads)).collect();
    let opts = RunOptions { memory_limits, ..RunOptions::default() };
    let run = || ssdlab::run(&item.config, &item.workload, item.seed, &opts);
    let report = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
        .map_err(|panic| {
            let message = match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
                (Some(s), _) => s.to_string(),
                (_, Some(s)) => s.clone(),
                _ => "a panic without a message".to_string(),
            };
            ssdlab::Error::Internal { run: item.name.clone(), message }
        })?
        .map_err(|e| match e {
            ssdlab::Error::MemoryLimit { estimate, limit, limit_source, parts, .. } => {
                ssdlab::Error::MemoryLimit { run: item.name.clone(), estimate, limit, limit_source, parts }
            }
            e => e,
        })?;
    if let Some(store) = store {
        store.save(&item.name, &report.to_json())?;
    }
    Ok(report)
}

/// Progress that says nothing and never stops.
pub struct Quiet;

impl Progress for Quiet {
    fn finished(&self, _: &Finished) -> bool {
        true
    }
}
