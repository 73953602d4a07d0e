//! The dependency rules of docs/architecture.md, read from the source: every `crate::` (and
//! `super::`) path is an edge from the module that writes it to the module it names. The
//! order and the config rule read every line, test modules, comments and doc links included
//! (a doc link is a dependency of the docs); the technique rule and the check for circles
//! among sibling modules read the simulator's code only (a test may build what it checks). A forbidden edge fails naming the
//! file, the edge and the rule it breaks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The top-level modules from the bottom of the stack up. A module may name only modules
/// before it ("calls go down"): a strict order, so no two modules can import each other,
/// directly or through others.
const ORDER: &[&str] = &[
    "error", "validate", "engine", "slab", "mem",   // leaves: no layer
    "nand",  // geometry, timing, the PHY; sees commands through `nand::phy::PageOps`
    "tsu",   // transaction scheduling, the command builder
    "ftl",   // mapping, allocation, blocks, GC
    "cache", // the write cache
    "hil",   // device queue, device-level scheduler
    "hif",   // host interface: queues, arbitration, link
    "host",  // workloads and flows
    "stats", // metrics
    "check", // the integrity oracle, over the FTL's map
    "config", "sim", "report",
];

/// Layers, which validate their own config section with `validate` and never import
/// `config` (which composes the sections and so imports every layer).
const LAYERS: &[&str] = &["nand", "tsu", "ftl", "cache", "hil", "hif", "host", "stats"];

/// Technique folders: only their own layer names them (its registry of choices and its
/// config section); no other layer, nor `sim`, `report` or `config`.
const TECHNIQUES: &[&str] = &[
    "hil::sprinkler",
    "hil::vas",
    "hil::pas",
    "hil::wa_bc",
    "tsu::flin",
    "ftl::mapping::demand::dftl",
    "ftl::mapping::demand::cdftl",
    "ftl::mapping::demand::tpftl",
    "ftl::mapping::demand::fmmu",
    "ftl::alloc::pacp",
    "ftl::gc::die_gc",
    "ftl::gc::paragc",
    "ftl::gc::twinblk",
    "cache::spd",
];

/// Edges that break a rule today, each with the open work that removes it. The list only
/// shrinks: an edge not in it fails, and an entry that no longer occurs fails too.
const KNOWN: &[(&str, &str)] = &[];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's code without comments and without its `#[cfg(test)] mod tests { .. }` block
/// (tests may compose a whole `Config`; the rules are about the simulator).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(k) => &text[..k],
        None => text,
    };
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// Every `crate::a::b::c` path a file names (as `a::b::c`, lower-case segments only), and
/// every `super::x` path resolved against `module` (the file's module).
fn paths(code: &str, module: &str) -> Vec<String> {
    let mut out = named(code, "crate::", "");
    let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
    let prefix = if parent.is_empty() { String::new() } else { format!("{parent}::") };
    for p in named(code, "super::", &prefix) {
        if !p.split("::").any(|seg| seg == "super") {
            out.push(p);
        }
    }
    out
}

/// The paths after each `marker` in `code`, each with `prefix` before it.
fn named(code: &str, marker: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(k) = rest.find(marker) {
        let word_before =
            rest[..k].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
        rest = &rest[k + marker.len()..];
        if word_before {
            continue;
        }
        let segs: Vec<&str> = rest
            .split("::")
            .map(|s| s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or(""))
            .take_while(|s| !s.is_empty() && s.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
            .collect();
        if !segs.is_empty() {
            out.push(format!("{prefix}{}", segs.join("::")));
        }
    }
    out
}

/// The file's module path relative to `src` (`ftl/gc/mod.rs` → `ftl::gc`).
fn module_of(rel: &str) -> String {
    let stem = rel.trim_end_matches(".rs");
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    stem.replace('/', "::")
}

struct Edge {
    file: String,
    from: String,
    to: String,
}

/// Every edge: of all text (comments, doc links and test modules included) with `whole`,
/// else of the simulator's code only.
fn edges(whole: bool) -> Vec<Edge> {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&root).expect("under src").to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&f).expect("a source file");
        let from = module_of(&rel);
        if !whole && rel.ends_with("tests.rs") {
            continue;
        }
        let text = if whole { text } else { code(&text) };
        for to in paths(&text, &from) {
            out.push(Edge { file: rel.clone(), from: from.clone(), to });
        }
    }
    out
}

fn top(path: &str) -> &str {
    path.split("::").next().unwrap_or(path)
}

fn rank(module: &str) -> Option<usize> {
    ORDER.iter().position(|m| *m == module)
}

/// Every broken rule, as (file, the module named, the rule's words).
fn violations() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let whole = edges(true);
    let code = edges(false);
    for e in whole.iter().map(|e| (e, false)).chain(code.iter().map(|e| (e, true))) {
        let (e, technique_rule) = e;
        let (from, to) = (top(&e.from), top(&e.to));
        if technique_rule {
            if let Some(t) = TECHNIQUES.iter().find(|t| e.to == **t || e.to.starts_with(&format!("{t}::"))) {
                let inside = e.from == *t || e.from.starts_with(&format!("{t}::"));
                if !inside && from != top(t) {
                    let rule = format!("a technique is named only by its own layer: `{from}` names `{t}`");
                    out.push((e.file.clone(), t.to_string(), rule));
                }
            }
            continue;
        }
        if from == "lib" || from == to {
            // The crate root re-exports; a module naming itself or its children is inside it.
        } else if let (Some(a), Some(b)) = (rank(from), rank(to)) {
            if b > a {
                let rule = format!("calls go down: `{from}` may not name `{to}`, which sits above it");
                out.push((e.file.clone(), to.to_string(), rule));
            }
        } else if rank(to).is_some() || rank(from).is_none() {
            let missing = if rank(from).is_none() { from } else { to };
            let rule = format!("every module has a place in the order: add `{missing}` to ORDER");
            out.push((e.file.clone(), e.to.clone(), rule));
        }
        if LAYERS.contains(&from) && to == "config" {
            let rule = format!("a layer validates its own section: `{from}` uses `validate`, not `config`");
            out.push((e.file.clone(), "config".into(), rule));
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn module_dependencies_follow_the_rules_of_docs_architecture_md() {
    let found = violations();
    let mut unexpected = Vec::new();
    for (file, to, rule) in &found {
        if !KNOWN.iter().any(|(f, t)| f == file && t == to) {
            unexpected.push(format!("{file}: names `{to}`: {rule}"));
        }
    }
    let mut stale = Vec::new();
    for (f, t) in KNOWN {
        if !found.iter().any(|(file, to, _)| file == f && to == t) {
            stale.push(format!("{f} → {t}"));
        }
    }
    assert!(unexpected.is_empty(), "dependency rules broken:\n  {}", unexpected.join("\n  "));
    assert!(
        stale.is_empty(),
        "known exceptions that no longer occur (remove them from KNOWN):\n  {}",
        stale.join("\n  ")
    );
}

/// The module graph has no circle at any depth of the layers' own sub-modules either: two
/// sibling modules (`ftl::gc` and `ftl::blocks`, ...) may not name each other, through any
/// chain. A parent naming its child (or the reverse, through a re-export) is not a circle.
#[test]
fn no_circle_among_sibling_modules() {
    let mut graph: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in edges(false) {
        // Compare at the first segment where the two paths part.
        let a: Vec<&str> = e.from.split("::").collect();
        let b: Vec<&str> = e.to.split("::").collect();
        let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        if common >= a.len() || common >= b.len() || a[0] == "lib" {
            continue; // into a child or out to an ancestor
        }
        let from = a[..=common].join("::");
        let to = b[..=common].join("::");
        graph.entry(from).or_default().push(to);
    }
    for v in graph.values_mut() {
        v.sort();
        v.dedup();
    }
    // Depth-first search for a back edge; report the circle found.
    fn visit(
        n: &str,
        g: &BTreeMap<String, Vec<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let k = stack.iter().position(|s| s == m).expect("on the stack");
                    let mut circle = stack[k..].to_vec();
                    circle.push(m.clone());
                    return Some(circle);
                }
                0 => {
                    if let Some(c) = visit(m, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(n, &graph, &mut state, &mut stack) {
                panic!("import circle: {}", c.join(" → "));
            }
        }
    }
}

/// The checker itself, on a hand-made file: paths are read through `use` lists' first
/// segment, comments and test modules are skipped.
#[test]
fn paths_are_read_from_code_only() {
    let text = "use crate::nand::{Geometry, Lpn};\n// crate::sim in a comment\nfn f() { crate::tsu::flin::x(); }\n#[cfg(test)]\nmod tests {\n use crate::config::Config;\n}\n";
    assert_eq!(paths(&code(text), "ftl::gc"), vec!["nand".to_string(), "tsu::flin::x".to_string()]);
    let text = "use super::blocks::Evicted;\nuse super::*;\nfn f() { a_super::x(); }\n";
    assert_eq!(paths(&code(text), "ftl::mapping::demand::tpftl"), vec!["ftl::mapping::demand::blocks".to_string()]);
    assert_eq!(module_of("ftl/gc/mod.rs"), "ftl::gc");
    assert_eq!(module_of("sim/flash_path.rs"), "sim::flash_path");
}
