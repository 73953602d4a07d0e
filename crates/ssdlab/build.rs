//! Names the simulator's source: `SSDLAB_SOURCE_HASH`, an FNV-1a hash of every file under
//! this crate's `src/` and `ssdlab-trace`'s (paths and contents, in path order). Reports carry
//! it (`ssdlab_source`), so a sweep does not reuse a report made by other code.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dirs = [root.join("src"), root.join("../ssdlab-trace/src")];
    let mut all = Vec::new();
    for dir in &dirs {
        println!("cargo:rerun-if-changed={}", dir.display());
        files(dir, &mut all);
    }
    all.sort();
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for path in &all {
        let name = path.strip_prefix(&root).unwrap_or(path).to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap_or_default();
        for b in name.bytes().chain([0]).chain(bytes) {
            hash = (hash ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=SSDLAB_SOURCE_HASH={hash:016x}");
}
