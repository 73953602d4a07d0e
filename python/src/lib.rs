//! Python bindings of ssdlab: the `ssdlab._ssdlab` extension module, under the `ssdlab`
//! Python package (`python/ssdlab/__init__.py`, which is where to start reading).
//!
//! Thin on purpose: it turns Python's inputs into a [`Config`] and a [`WorkloadSpec`] the way
//! the CLI's `run` does, runs the library with the GIL released, and hands back the report's
//! JSON (the same serde serialisation `ssdlab run --out` writes). Sweeps run on the library's
//! sweep engine ([`ssdlab_lab::sweep`], see `sweep.rs`), the one `ssdlab reproduce` uses.
//! DataFrames, the Ray backend and plots live in Python. Bad input raises
//! `ssdlab.SsdlabError` with the library's message, the text the CLI prints after `error: `.

mod sweep;

use std::path::{Path, PathBuf};

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use ssdlab::{Config, RunOptions, WorkloadSpec};

create_exception!(
    ssdlab,
    SsdlabError,
    PyValueError,
    "Bad input (a config, workload or trace): the message names the file, line, key and value, as the CLI's does."
);

create_exception!(
    ssdlab,
    MemoryLimitError,
    SsdlabError,
    "A run whose memory estimate is above what the process may take (or `max_memory`), refused before it starts, or a large table that could not be allocated: the message gives the estimate, the limit and the largest parts, as the CLI's does."
);

/// A library error as a Python exception: memory ones as [`MemoryLimitError`].
fn py_error(e: ssdlab::Error) -> PyErr {
    match e {
        ssdlab::Error::MemoryLimit { .. } | ssdlab::Error::OutOfMemory { .. } => {
            MemoryLimitError::new_err(e.to_string())
        }
        e => SsdlabError::new_err(e.to_string()),
    }
}

/// Where a config or a workload comes from, as the Python side resolved it.
enum Source {
    /// A file: a config, a workload TOML, or a trace replayed at its timestamps.
    Path(PathBuf),
    /// TOML text, named `name` in messages.
    Toml { text: String, name: &'static str },
}

impl Source {
    /// `kind` is "path", "toml" or "json" (a dict, serialised by the Python side).
    fn new(kind: &str, value: String, name: &'static str) -> Result<Source, String> {
        match kind {
            "path" => Ok(Source::Path(PathBuf::from(value))),
            "toml" => Ok(Source::Toml { text: value, name }),
            "json" => {
                let json: serde_json::Value = serde_json::from_str(&value).map_err(|e| format!("{name}: {e}"))?;
                // TOML has no null: a None in the dict is named here rather than dropped.
                let table = toml::Table::try_from(json).map_err(|e| format!("{name}: not a TOML table: {e}"))?;
                let text = toml::to_string(&table).map_err(|e| format!("{name}: {e}"))?;
                Ok(Source::Toml { text, name })
            }
            other => Err(format!("{name}: unknown source kind `{other}`")),
        }
    }
}

/// The config, with `--set` overrides, as `ssdlab run --config` reads it.
fn config(source: &Source, overrides: &[String]) -> ssdlab::Result<Config> {
    match source {
        Source::Path(p) => Config::load(p, overrides),
        Source::Toml { text, name } => Config::from_toml_str(text, name, overrides),
    }
}

/// The workload, as `ssdlab run --workload` reads it: a TOML file, or any other file as a
/// trace replayed at its timestamps. Trace paths in TOML text are relative to the working
/// directory.
fn workload(source: &Source) -> ssdlab::Result<WorkloadSpec> {
    match source {
        Source::Path(p) => WorkloadSpec::load(p),
        Source::Toml { text, name } => WorkloadSpec::from_toml_str(text, name, Path::new(".")),
    }
}

/// Everything one run needs, checked before the GIL is released.
struct Job {
    config: Config,
    workload: WorkloadSpec,
    seed: Option<u64>,
    check: bool,
    fairness: bool,
    /// `max_memory`, in bytes.
    max_memory: Option<u64>,
}

impl Job {
    /// What `ssdlab run` does after reading its inputs, returning the JSON report: refused
    /// when its memory estimate is above what the process may still take or `max_memory`.
    fn run(&self) -> Result<String, PyErr> {
        let mut memory_limits = ssdlab::mem::limits();
        if let Some(b) = self.max_memory {
            memory_limits.insert(0, ssdlab::mem::Limit::on_process(b, "the limit max_memory sets"));
        }
        let opts = RunOptions { check: self.check, memory_limits, ..RunOptions::default() };
        let report = if self.fairness {
            let threads = ssdlab_lab::reproduce::default_threads();
            ssdlab::run_with_fairness(&self.config, &self.workload, self.seed, &opts, threads)
        } else {
            ssdlab::run(&self.config, &self.workload, self.seed, &opts)
        }
        .map_err(py_error)?;
        match &report.check {
            Some(c) if c.violations > 0 => {
                Err(SsdlabError::new_err(format!("--check found {} integrity violations", c.violations)))
            }
            _ => Ok(report.to_json()),
        }
    }
}

/// Run one simulation (`overrides`: the `--set` pairs, `key=value`); returns the report as
/// JSON text.
#[pyfunction]
#[pyo3(signature = (config_kind, config_value, workload_kind, workload_value, seed=None, overrides=Vec::new(), check=false, fairness=false, max_memory=None))]
#[allow(clippy::too_many_arguments)]
fn run_json(
    py: Python<'_>,
    config_kind: &str,
    config_value: String,
    workload_kind: &str,
    workload_value: String,
    seed: Option<u64>,
    overrides: Vec<String>,
    check: bool,
    fairness: bool,
    max_memory: Option<String>,
) -> PyResult<String> {
    let err = |m: String| SsdlabError::new_err(m);
    let max_memory =
        max_memory.map(|m| ssdlab::mem::parse_size(&m).map_err(|e| err(format!("max_memory: {e}")))).transpose()?;
    let config_source = Source::new(config_kind, config_value, "<config>").map_err(err)?;
    let workload_source = Source::new(workload_kind, workload_value, "<workload>").map_err(err)?;
    // Read in the order the CLI reads them, so the first error is the CLI's first error.
    let config = config(&config_source, &overrides).map_err(|e| err(e.to_string()))?;
    let workload = workload(&workload_source).map_err(|e| err(e.to_string()))?;
    let job = Job { config, workload, seed, check, fairness, max_memory };
    // The simulation touches no Python object: other Python threads run meanwhile.
    py.detach(|| job.run())
}

/// The fully resolved config (every key with its value) as TOML, like `ssdlab validate
/// --print`.
#[pyfunction]
#[pyo3(signature = (config_kind, config_value, overrides=Vec::new()))]
fn resolve_config(config_kind: &str, config_value: String, overrides: Vec<String>) -> PyResult<String> {
    let err = |m: String| SsdlabError::new_err(m);
    let source = Source::new(config_kind, config_value, "<config>").map_err(err)?;
    Ok(config(&source, &overrides).map_err(|e| err(e.to_string()))?.to_toml())
}

/// A report's main numbers ([`ssdlab_lab::sweep::table::summary`]) as JSON pairs, in order.
#[pyfunction]
fn summary(report_json: &str) -> PyResult<String> {
    let report: ssdlab::Report =
        serde_json::from_str(report_json).map_err(|e| SsdlabError::new_err(format!("not an ssdlab report: {e}")))?;
    Ok(serde_json::to_string(&ssdlab_lab::sweep::table::summary(&report)).expect("JSON values serialise"))
}

/// Run a paper's reproduction (`ssdlab reproduce`) with the GIL released; returns its check
/// table and the line saying where the results are, as `ssdlab reproduce` prints them.
/// Ctrl-C lets the runs under way end (kept in `out/runs`, for `resume`), then raises.
#[pyfunction]
#[pyo3(signature = (paper, out, quick=false, traces="traces".to_string(), threads=None, resume=false))]
fn reproduce(
    py: Python<'_>,
    paper: &str,
    out: String,
    quick: bool,
    traces: String,
    threads: Option<usize>,
    resume: bool,
) -> PyResult<(String, String)> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let threads = threads.unwrap_or_else(ssdlab_lab::reproduce::default_threads);
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let opts = ssdlab_lab::reproduce::Options {
        out: out.into(),
        quick,
        traces: traces.into(),
        threads,
        resume,
        stop: Some(stop.clone()),
    };
    let (interrupt, done) = std::thread::scope(|s| {
        let worker = s.spawn(|| ssdlab_lab::reproduce::run(paper, &opts));
        let mut interrupt = None;
        while !worker.is_finished() {
            py.detach(|| std::thread::sleep(std::time::Duration::from_millis(100)));
            if interrupt.is_none() {
                interrupt = py.check_signals().err();
                if interrupt.is_some() {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        (interrupt, py.detach(move || worker.join()))
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    let done = match done {
        Ok(done) => done.map_err(py_error)?,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    Ok((done.check, done.summary))
}

#[pymodule]
fn _ssdlab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Large tables stay lazily committed, as the memory estimate assumes.
    ssdlab::mem::keep_large_allocations_lazy();
    m.add("SsdlabError", m.py().get_type::<SsdlabError>())?;
    m.add("MemoryLimitError", m.py().get_type::<MemoryLimitError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(summary, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce, m)?)?;
    sweep::register(m)?;
    Ok(())
}
