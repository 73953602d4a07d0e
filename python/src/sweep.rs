//! The sweep engine for Python (`python/ssdlab/sweep.py`): the grid's runs, the local backend
//! on the library's thread pool, storing a report a Ray task made, and the results table.
//! Every function takes the grid again, as ("path", a grid file) or ("json", a dict's JSON),
//! and `out`, the sweep's folder: the engine keeps no state between calls.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use pyo3::prelude::*;
use serde_json::{json, Value};
use ssdlab::sweep::grid::{Grid, Point, Source};
use ssdlab::sweep::table::Table;
use ssdlab::sweep::{self, Finished, Item, Progress, Store};

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

/// ("path", p) or ("toml", text): what `run_json` takes.
fn source(s: &Source) -> Value {
    match s {
        Source::Path(p) => json!(["path", p.display().to_string()]),
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
struct Lines {
    tx: mpsc::Sender<String>,
    stop: AtomicBool,
}

impl Progress for Lines {
    fn finished(&self, run: &Finished) -> bool {
        let head = format!("  [{}/{}] {}", run.done, run.todo, run.name);
        let line = match run.error {
            None => format!("{head} ({:.1} s)", run.elapsed_s),
            Some(e) => format!("{head} FAILED: {e}"),
        };
        let _ = self.tx.send(line); // the receiver gone: the sweep is stopping
        !self.stop.load(Ordering::Relaxed)
    }
}

/// The local backend: every run not already stored, on `workers` threads of the library's
/// pool, the GIL released. Each finished run's line is passed to `progress`; Ctrl-C (or an
/// exception from `progress`) lets the runs under way finish and be stored, then raises.
/// Returns the failed runs as JSON pairs (name, message), in grid order.
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
    let lines = Lines { tx, stop: AtomicBool::new(false) };
    std::thread::scope(|s| {
        let engine = s.spawn(|| sweep::execute(&items, Some(&store), workers, &lines));
        let mut raised: Option<PyErr> = None;
        loop {
            let finished = engine.is_finished(); // then every line is in the channel already
            let wait = if finished { Duration::ZERO } else { Duration::from_millis(100) };
            match py.detach(|| rx.lock().expect("one reader").recv_timeout(wait)) {
                Ok(line) if raised.is_none() => raised = progress.call1(py, (line,)).err(),
                Ok(_) => {}
                Err(_) if finished => break,
                Err(_) => {}
            }
            if raised.is_none() {
                raised = py.check_signals().err();
            }
            if raised.is_some() {
                lines.stop.store(true, Ordering::Relaxed);
            }
        }
        let done = py.detach(move || engine.join()).expect("the sweep engine does not panic").map_err(err)?;
        if let Some(e) = raised {
            return Err(e);
        }
        let results = done.expect("only an exception stops the engine");
        let failed: Vec<Value> = items
            .iter()
            .zip(results)
            .filter_map(|(item, r)| r.err().map(|e| json!([item.name, e.to_string()])))
            .collect();
        Ok(Value::Array(failed).to_string())
    })
}

/// Store the report a Ray task made for the run `name`.
#[pyfunction]
fn sweep_save(out: &str, name: &str, report_json: &str) -> PyResult<()> {
    store(out)?.save(name, report_json).map_err(err)
}

/// The results table from the stored reports, as JSON {columns, rows}; also written to
/// `out/results.csv`. Raises if a run has no report (from the same inputs).
#[pyfunction]
fn sweep_table(kind: &str, value: &str, out: &str) -> PyResult<String> {
    let (grid, items) = read(kind, value)?;
    let store = store(out)?;
    let mut reports = Vec::with_capacity(items.len());
    for item in &items {
        match store.reusable(item).map_err(err)? {
            Some(r) => reports.push(r),
            None => {
                let path = store.path(&item.name);
                return Err(SsdlabError::new_err(format!("{}: no report of this run", path.display())));
            }
        }
    }
    let table = Table::of(&grid.points, &reports);
    let csv = PathBuf::from(out).join("results.csv");
    sweep::write_atomic(&csv, table.to_csv().as_bytes()).map_err(err)?;
    Ok(serde_json::to_string(&table).expect("JSON values serialise"))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sweep_plan, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_local, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_save, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_table, m)?)?;
    Ok(())
}
