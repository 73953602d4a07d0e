//! `ssdlab sweep`: a grid of runs on the lab's sweep engine (`ssdlab_lab::sweep`). The
//! `local` backend runs here, on the engine's thread pool, and writes results.csv and
//! results.parquet itself: no Python needed. The `ray` backend is the Python package's
//! (`python -m ssdlab sweep`), which runs each simulation as a Ray task on the same engine.
//! Both print the same progress on stderr and write the same files.

use std::path::Path;
use std::sync::atomic::Ordering;

use ssdlab_lab::sweep::grid::Grid;
use ssdlab_lab::sweep::table::Table;
use ssdlab_lab::sweep::{self, Finished, Progress, Store};

use crate::InputError;

/// Where a sweep's runs go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Backend {
    /// This process, on the lab's thread pool.
    Local,
    /// A Ray task each, through the Python package.
    Ray,
}

/// `ssdlab sweep GRID --out DIR`'s options.
pub(crate) struct SweepArgs<'a> {
    pub(crate) grid: &'a Path,
    pub(crate) out: &'a Path,
    pub(crate) backend: Backend,
    pub(crate) address: Option<String>,
    pub(crate) workers: Option<u64>,
}

/// Exit code of a sweep stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
const INTERRUPTED_EXIT: i32 = 130;

pub(crate) fn sweep(args: SweepArgs) -> Result<(), InputError> {
    if args.backend == Backend::Ray {
        return in_python(&args);
    }
    if args.address.is_some() {
        return Err(InputError(
            "--address is the Ray cluster of --backend ray; the local backend runs in this process".into(),
        ));
    }
    let workers = args.workers.map_or_else(ssdlab_lab::reproduce::default_threads, |w| w as usize);
    // Every config and workload is read before the first run: bad input fails here.
    let grid = Grid::load(args.grid)?;
    let items = grid.items()?;
    let store = Store::open(&args.out.join("runs"))?;
    // The table of an earlier sweep in OUT is not this one's: gone until this one is built.
    for old in ["results.csv", "results.parquet"] {
        let path = args.out.join(old);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(ssdlab::Error::io(&path, e).into()),
            _ => {}
        }
    }
    // The first Ctrl-C lets the runs under way end and be stored, then stops the sweep (as in
    // Python); a second one ends the process at once.
    crate::signals::catch(&[libc::SIGINT]);
    let lines = Lines { out: args.out };
    let Ok(results) = sweep::execute(&items, Some(&store), workers, &lines)? else {
        let runs = args.out.join("runs");
        eprintln!("interrupted: the runs that ended are kept in {}; run again to resume", runs.display());
        std::process::exit(INTERRUPTED_EXIT);
    };
    let failed: Vec<String> = items
        .iter()
        .zip(&results)
        .filter_map(|(item, r)| r.as_ref().err().map(|e| format!("{}: {e}", item.name)))
        .collect();
    if !failed.is_empty() {
        return Err(InputError(format!("{} runs failed:\n  {}", failed.len(), failed.join("\n  "))));
    }
    let reports: Vec<ssdlab::Report> = results.into_iter().map(|r| r.expect("failures returned above")).collect();
    Table::of(&grid.points, &reports).write(args.out)?;
    outln!("{} runs; results in {}: results.csv, results.parquet, runs/*.json", reports.len(), args.out.display());
    Ok(())
}

/// Progress on stderr, the lines the Python package prints: what will run, then a line per
/// finished run; stops the sweep after Ctrl-C.
struct Lines<'a> {
    out: &'a Path,
}

impl Progress for Lines<'_> {
    fn start(&self, items: usize, reused: usize) {
        if reused > 0 {
            let out = self.out.display();
            eprintln!("sweep: {reused} of {items} runs already done in {out}; running {}", items - reused);
        } else {
            eprintln!("sweep: {items} runs, backend local");
        }
    }

    fn finished(&self, run: &Finished) -> bool {
        eprintln!("{}", run.line());
        !crate::signals::stop_flag().load(Ordering::Relaxed)
    }
}

/// `--backend ray`: hands over to `python -m ssdlab sweep` (the interpreter in
/// `$SSDLAB_PYTHON`, else `python3`), whose exit code is this command's.
fn in_python(args: &SweepArgs) -> Result<(), InputError> {
    let python = std::env::var_os("SSDLAB_PYTHON").unwrap_or_else(|| "python3".into());
    let has_package = std::process::Command::new(&python)
        .args(["-c", "import ssdlab.sweep"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_package {
        return Err(InputError(format!(
            "sweep --backend ray needs the ssdlab Python package (and Ray) in {}: pip install './python[ray]' (README, Python), or set SSDLAB_PYTHON; --backend local needs neither",
            python.to_string_lossy()
        )));
    }
    let mut cmd = std::process::Command::new(&python);
    cmd.args(["-m", "ssdlab", "sweep"]).arg(args.grid).arg("--out").arg(args.out).args(["--backend", "ray"]);
    if let Some(a) = &args.address {
        cmd.args(["--address", a]);
    }
    if let Some(w) = args.workers {
        cmd.args(["--workers", &w.to_string()]);
    }
    let status = cmd.status()?;
    match status.code() {
        Some(0) => Ok(()),
        Some(code) => std::process::exit(code),
        None => Err(InputError(format!("sweep: python ended by a signal ({status})"))),
    }
}
