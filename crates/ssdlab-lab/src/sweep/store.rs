//! A sweep's reports on disk: `DIR/<name>.json`, one per run, each written whole or not at all.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::Item;
use ssdlab::error::{Error, Result};
use ssdlab::Report;

/// The folder of a sweep's reports, locked (`DIR/.lock`) while open: one sweep at a time.
pub struct Store {
    dir: PathBuf,
    reuse: bool,
    /// Held open for its lock.
    _lock: std::fs::File,
}

/// What the store holds for a run.
pub enum Stored {
    Missing,
    /// A report of this name made from other inputs, and which.
    Other(String),
    /// A report made by this code from the run's inputs.
    Same(Box<Report>),
}

impl Store {
    /// Open `dir` (created if absent) and lock it, then remove the temporary files of a sweep
    /// that was killed while writing a report. Another sweep holding it is an error.
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let lock = lock(dir)?;
        for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let path = entry.map_err(|e| Error::io(dir, e))?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with('.') && name.contains(".tmp-") {
                std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            }
        }
        Ok(Store { dir: dir.to_path_buf(), reuse: true, _lock: lock })
    }

    /// With `false`, no stored report is reused: every run is done again and its report
    /// replaces the stored one.
    pub fn reusing(self, reuse: bool) -> Store {
        Store { reuse, ..self }
    }

    /// Where the report of the run `name` is kept.
    pub fn path(&self, name: &str) -> PathBuf {
        assert!(
            !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\']),
            "a run's name is a plain file name: {name:?}"
        );
        self.dir.join(format!("{name}.json"))
    }

    /// The stored report of `item`, if there is one made by this code (the same
    /// `ssdlab_source`) from the same config, workload and seed, and newer than the workload's
    /// trace files. Any other is not reused: the run is done again and its report replaces it.
    pub fn reusable(&self, item: &Item) -> Result<Option<Report>> {
        match self.lookup(item)? {
            Stored::Same(r) if self.reuse => Ok(Some(*r)),
            _ => Ok(None),
        }
    }

    /// What the store holds for `item` (reuse allowed or not).
    pub fn lookup(&self, item: &Item) -> Result<Stored> {
        let path = self.path(&item.name);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Stored::Missing),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let written = std::fs::metadata(&path).and_then(|m| m.modified()).map_err(|e| Error::io(&path, e))?;
        Ok(match serde_json::from_str::<Report>(&text) {
            // A report of another shape (an older ssdlab) does not parse.
            Err(_) => Stored::Other("not a report of this version of ssdlab".into()),
            Ok(report) => match difference(&report, item).or_else(|| trace_changed(item, written)) {
                Some(why) => Stored::Other(why),
                None => Stored::Same(Box::new(report)),
            },
        })
    }

    /// Store `json` as the report of `name` ([`write_atomic`]).
    pub fn save(&self, name: &str, json: &str) -> Result<()> {
        write_atomic(&self.path(name), json.as_bytes())
    }
}

/// How `report` was not made from `item`'s inputs by this code, if it was not.
pub fn difference(report: &Report, item: &Item) -> Option<String> {
    if report.ssdlab_source != ssdlab::SOURCE_HASH {
        Some(format!("made by other ssdlab code (source {}, this is {})", report.ssdlab_source, ssdlab::SOURCE_HASH))
    } else if report.seed != item.seed() {
        Some(format!("made with seed {}, not {}", report.seed, item.seed()))
    } else if json(&report.config) != json(&item.config) {
        Some("made from another config".into())
    } else if json(&report.workload) != json(&item.workload) {
        Some("made from another workload".into())
    } else {
        None
    }
}

/// A trace file of `item` modified after `written`, the time its report was written.
fn trace_changed(item: &Item, written: std::time::SystemTime) -> Option<String> {
    item.workload.flows.iter().filter_map(|f| f.path.as_deref()).find_map(|p| {
        let modified = std::fs::metadata(p).and_then(|m| m.modified()).ok()?;
        (modified > written).then(|| format!("{} changed since", p.display()))
    })
}

/// Write `bytes` to `path` whole or not at all: to a temporary file beside it (`.NAME.tmp-PID`,
/// which [`Store::open`] removes if a kill left it), flushed to disk, then renamed over it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).expect("a file name");
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    };
    let done = write()
        .map_err(|e| Error::io(&tmp, e))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e)));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// An exclusive lock on `dir/.lock`, or an error if another process holds it.
fn lock(dir: &Path) -> Result<std::fs::File> {
    use std::os::fd::AsRawFd;
    let path = dir.join(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    // SAFETY: flock on a descriptor this function owns; no memory is passed.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let e = std::io::Error::last_os_error();
        let message = if e.kind() == std::io::ErrorKind::WouldBlock {
            "another sweep or reproduction is writing to this folder; one at a time".to_string()
        } else {
            format!("cannot lock it: {e}")
        };
        return Err(Error::config(&path.display().to_string(), 0, "", &message));
    }
    Ok(file)
}

fn json<T: serde::Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).expect("configs and workloads serialise")
}
