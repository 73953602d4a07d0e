//! A sweep's reports on disk: `DIR/<name>.json`, one per run, each written whole or not at all.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::Item;
use crate::error::{Error, Result};
use crate::Report;

/// The folder of a sweep's reports. One sweep at a time may write to it.
pub struct Store {
    dir: PathBuf,
    reuse: bool,
}

impl Store {
    /// Open `dir` (created if absent), removing the temporary files of a sweep that was killed
    /// while writing a report.
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let path = entry.map_err(|e| Error::io(dir, e))?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with('.') && name.contains(".tmp-") {
                std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            }
        }
        Ok(Store { dir: dir.to_path_buf(), reuse: true })
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

    /// Whether a report is stored under `name` (made from any inputs).
    pub fn has(&self, name: &str) -> bool {
        self.path(name).exists()
    }

    /// The stored report of `item`, if there is one made by this version of ssdlab from the
    /// same config, workload and seed. A report made from other inputs (a preset edited since,
    /// a `--quick` grid where a full one is asked) is not reused: the run is done again and
    /// its report replaces it.
    pub fn reusable(&self, item: &Item) -> Result<Option<Report>> {
        if !self.reuse {
            return Ok(None);
        }
        let path = self.path(&item.name);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        // A report of another shape (an older ssdlab) does not parse: made again.
        let Ok(report) = serde_json::from_str::<Report>(&text) else { return Ok(None) };
        let same = report.ssdlab_version == env!("CARGO_PKG_VERSION")
            && report.seed == item.seed()
            && json(&report.config) == json(&item.config)
            && json(&report.workload) == json(&item.workload);
        Ok(same.then_some(report))
    }

    /// Store `json` as the report of `name`: written to a temporary file beside it, flushed
    /// to disk, then renamed over it, so a report present is a report complete.
    pub fn save(&self, name: &str, json: &str) -> Result<()> {
        write_atomic(&self.path(name), json.as_bytes())
    }
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
    write().map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

fn json<T: serde::Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).expect("configs and workloads serialise")
}
