//! The sweep engine for Python (`python/ssdlab/sweep.py`): the grid's runs, the local backend
//! on the library's thread pool, storing a report a Ray task made, and the results table
//! (written by the lab, as `ssdlab sweep` writes it).
//! Every function takes the grid again, as ("path", a grid file) or ("json", a dict's JSON),
//! and `out`, the sweep's folder: the engine keeps no state between calls.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use pyo3::prelude::*;
use serde_json::{json, Value};
use ssdlab_lab::sweep::grid::{Grid, Point, Source};
use ssdlab_lab::sweep::table::Table;
use ssdlab_lab::sweep::{self, Finished, Item, Progress, Store, Stored};

use crate::SsdlabError;

fn err(e: ssdlab::Error) -> PyErr {
    SsdlabError::new_err(e.to_string())
}

fn grid(kind: &str, value: &str) -> PyResult<Grid> {
    match kind {
        "path" => Grid::load(Path::new(value)).map_err(err),
        "json" => Grid::from_json(value, "<grid>").map_err(err),
        other => Err(SsdlabError::new_err(format!("<grid>: unknown source kind `{other}`"))),
    }
}

fn store(out: &str) -> PyResult<Store> {
    Store::open(&PathBuf::from(out).join("runs")).map_err(err)
}

/// The grid and every run's config and workload, read now (a bad one raises here, before any
/// run starts).
fn read(kind: &str, value: &str) -> PyResult<(Grid, Vec<Item>)> {
    let grid = grid(kind, value)?;
    let items = grid.items().map_err(err)?;
    Ok((grid, items))
}

/// ("path", p) or ("toml", text): what `run_json` takes. Paths absolute, so that a task on
/// another machine of a cluster (with the same shared file system) finds them.
fn source(s: &Source) -> Value {
    match s {
        Source::Path(p) => json!(["path", std::path::absolute(p).unwrap_or_else(|_| p.clone()).display().to_string()]),
        Source::Toml(text) => json!(["toml", text]),
    }
}

fn plan_entry(p: &Point, done: bool) -> Value {
    let set: Vec<Value> =
        p.set.iter().map(|(k, v)| json!([k, serde_json::to_value(v).expect("TOML values are JSON")])).collect();
    json!({
        "name": p.name,
        "config_label": p.config.label,
        "workload_label": p.workload.label,
        "config": source(&p.config.source),
        "workload": source(&p.workload.source),
        "seed": p.seed,
        "set": set,
        "overrides": p.overrides(),
        "done": done,
    })
}

/// The grid's runs in order, as JSON: each one's name, labels, sources, seed, `set` pairs,
/// `--set` overrides and whether its report is already stored under `out` (from the same
/// inputs). With `out`, opens the store, removing a killed sweep's temporary files.
#[pyfunction]
#[pyo3(signature = (kind, value, out=None))]
fn sweep_plan(kind: &str, value: &str, out: Option<&str>) -> PyResult<String> {
    let (grid, items) = read(kind, value)?;
    let store = out.map(store).transpose()?;
    let mut plan = Vec::with_capacity(items.len());
    for (p, item) in grid.points.iter().zip(&items) {
        let done = match &store {
            Some(s) => s.reusable(item).map_err(err)?.is_some(),
            None => false,
        };
        plan.push(plan_entry(p, done));
    }
    Ok(Value::Array(plan).to_string())
}

/// Progress of the local backend: each finished run's line goes to the Python thread, which
/// alone may call Python; `stop` is set when that thread saw Ctrl-C or a failing callback.
struct Lines<'a> {
    tx: mpsc::Sender<String>,
    stop: &'a AtomicBool,
}

impl Progress for Lines<'_> {
    fn finished(&self, run: &Finished) -> bool {
        let _ = self.tx.send(run.line()); // the receiver is there until the engine has ended
        !self.stop.load(Ordering::Relaxed)
    }
}

/// The local backend: every run not already stored, on `workers` threads of the library's
/// pool, the GIL released. Each finished run's line is passed to `progress`. Ctrl-C (or an
/// exception from `progress`) lets the runs under way finish and be stored (their lines still
/// passed on after Ctrl-C), then raises. Returns the failed runs as JSON pairs (name,
/// message), in grid order.
#[pyfunction]
fn sweep_local(
    py: Python<'_>,
    kind: &str,
    value: &str,
    out: &str,
    workers: usize,
    progress: Py<PyAny>,
) -> PyResult<String> {
    let (_, items) = read(kind, value)?;
    let store = store(out)?;
    let (tx, rx) = mpsc::channel();
    let rx = std::sync::Mutex::new(rx); // borrowed by the GIL-free waits, which must be Send
    let stop = AtomicBool::new(false);
    let (interrupt, callback_error, done) = std::thread::scope(|s| {
        // The engine owns the sender: the channel disconnects when the engine has ended.
        let engine = s.spawn(|| {
            let lines = Lines { tx, stop: &stop };
            sweep::execute(&items, Some(&store), workers, &lines)
        });
        let (mut interrupt, mut callback_error) = (None, None);
        loop {
            match py.detach(|| rx.lock().expect("one reader").recv_timeout(Duration::from_millis(100))) {
                Ok(line) if callback_error.is_none() => callback_error = progress.call1(py, (line,)).err(),
                Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if interrupt.is_none() {
                interrupt = py.check_signals().err();
            }
            if interrupt.is_some() || callback_error.is_some() {
                stop.store(true, Ordering::Relaxed);
            }
        }
        let done = py.detach(move || engine.join()).expect("the sweep engine catches the runs' panics");
        (interrupt, callback_error, done)
    });
    if let Some(e) = interrupt.or(callback_error) {
        return Err(e);
    }
    let results = done.map_err(err)?.expect("only Ctrl-C or an exception stops the engine");
    let failed: Vec<Value> =
        items.iter().zip(results).filter_map(|(item, r)| r.err().map(|e| json!([item.name, e.to_string()]))).collect();
    Ok(Value::Array(failed).to_string())
}

/// Store the report a Ray task made for the run `name`, after checking that it is that run's
/// (a worker with other ssdlab code, or other files under the same paths, would make another).
#[pyfunction]
fn sweep_save(kind: &str, value: &str, out: &str, name: &str, report_json: &str) -> PyResult<()> {
    let (_, items) = read(kind, value)?;
    let Some(item) = items.iter().find(|i| i.name == name) else {
        return Err(SsdlabError::new_err(format!("sweep: no run named `{name}` in the grid")));
    };
    let report: ssdlab::Report = serde_json::from_str(report_json)
        .map_err(|e| SsdlabError::new_err(format!("{name}: the task's report does not read: {e}")))?;
    if let Some(why) = sweep::difference(&report, item) {
        return Err(SsdlabError::new_err(format!("{name}: the task's report was {why}")));
    }
    store(out)?.save(name, report_json).map_err(err)
}

/// Write `out`/results.csv and `out`/results.parquet from the stored reports, with the
/// writer `ssdlab sweep` uses (`Table::write`: the same files from the command and from
/// Python). Raises if a run has no report made from its inputs, saying why.
#[pyfunction]
fn sweep_write_table(kind: &str, value: &str, out: &str) -> PyResult<()> {
    let (grid, items) = read(kind, value)?;
    let store = store(out)?;
    let mut reports = Vec::with_capacity(items.len());
    for item in &items {
        let path = store.path(&item.name);
        match store.lookup(item).map_err(err)? {
            Stored::Same(r) => reports.push(*r),
            Stored::Missing => return Err(SsdlabError::new_err(format!("{}: no report of this run", path.display()))),
            Stored::Other(why) => return Err(SsdlabError::new_err(format!("{}: {why}", path.display()))),
        }
    }
    Table::of(&grid.points, &reports).write(Path::new(out)).map_err(err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sweep_plan, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_local, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_save, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_write_table, m)?)?;
    Ok(())
}
