//! Importers of other simulators' configurations: each reads another tool's files and writes
//! an ssdlab drive TOML and workload TOML, every key under a comment naming where its value
//! came from, and refuses what ssdlab cannot express instead of dropping it.
//!
//! - [`mqsim`]: MQSim's `ssdconfig.xml` and workload XML (`ssdlab import mqsim`); its tag
//!   table is `docs/mqsim-import.md`.
//!
//! Start at [`mqsim::import`]. The output is written through [`write_checked`]: every file
//! is loaded back as a `Config` or `WorkloadSpec` before any of them replaces what `DIR`
//! held, so a failed import leaves no half-written folder.

pub mod mqsim;
mod toml_doc;

use std::path::{Path, PathBuf};

pub use toml_doc::Doc;

/// What an importer makes: files for `DIR`, by name, with whether each is a drive (else a
/// workload).
pub struct Output {
    pub files: Vec<(String, String, Kind)>,
}

/// Which loader checks a written file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Drive,
    Workload,
}

/// Write `out`'s files into `dir` (created if missing): each to a temporary name first,
/// loaded back with `Config::load` or `WorkloadSpec::load`, and renamed into place only when
/// all of them load. Returns the paths written.
pub fn write_checked(dir: &Path, out: &Output) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut temps = Vec::new();
    let result = stage(dir, out, &mut temps);
    if result.is_err() {
        for (tmp, _) in &temps {
            let _ = std::fs::remove_file(tmp);
        }
        return result.map(|_| Vec::new());
    }
    let mut written = Vec::new();
    for (tmp, dest) in temps {
        std::fs::rename(&tmp, &dest).map_err(|e| format!("{}: {e}", dest.display()))?;
        written.push(dest);
    }
    Ok(written)
}

/// Write each file under a temporary name in `dir` and load it back; `temps` gets
/// (temporary, final) paths as they are written.
fn stage(dir: &Path, out: &Output, temps: &mut Vec<(PathBuf, PathBuf)>) -> Result<(), String> {
    for (name, text, kind) in &out.files {
        // The temporary name keeps the `.toml` ending: `WorkloadSpec::load` reads by it.
        let tmp = dir.join(format!(".import-{}-{name}", std::process::id()));
        std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
        temps.push((tmp.clone(), dir.join(name)));
        let loaded = match kind {
            Kind::Drive => ssdlab::Config::load(&tmp, &[]).map(|_| ()),
            Kind::Workload => ssdlab::WorkloadSpec::load(&tmp).map(|_| ()),
        };
        loaded.map_err(|e| format!("the imported {name} does not load back (a bug of the importer): {e}"))?;
    }
    Ok(())
}
