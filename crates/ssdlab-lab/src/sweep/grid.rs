//! A sweep's grid: config × workload × seed × `set` overrides, from a TOML file
//! (`experiments/*.toml`) or, from Python, the same shape as JSON:
//!
//! ```toml
//! config = ["presets/mqsim-default.toml"]   # a value or a list of values
//! workload = "examples/read-qd16.toml"      # a workload TOML, or a trace replayed as one flow
//! seed = [1, 2, 3]                          # optional (default: the workload's own)
//! [set]                                     # optional: config keys, each a value or a list
//! "hil.scheduler" = ["direct", "spk3"]
//! "nand.channels" = [4, 8]
//! ```
//!
//! A config or workload is a path, or written inline: a table, or TOML text (a string with a
//! newline). A relative path is taken from the grid file's folder when the file is there,
//! else from the working directory (as a workload's trace paths are).
//!
//! The runs are the product of the lists, in the order above, with the `set` keys in the
//! grid's order and the last one varying fastest. Each run is named by its values: a path by
//! its file name without extension, an inline value by `inline-` and a hash of its text, any
//! other by its text, joined by `__` (`mqsim-default__read-qd16__seed-1__hil.scheduler-spk3`),
//! other characters than letters, digits and `._+-` replaced by `_`.

use std::path::{Path, PathBuf};

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::Item;
use ssdlab::error::{Error, Result};
use ssdlab::{Config, WorkloadSpec};

/// A config or a workload of the grid.
#[derive(Debug, Clone)]
pub struct Input {
    /// As the table shows it: the path as the grid writes it, or `inline-<hash>`.
    pub label: String,
    pub source: Source,
}

#[derive(Debug, Clone)]
pub enum Source {
    Path(PathBuf),
    /// TOML text.
    Toml(String),
}

/// One run of the grid.
#[derive(Debug, Clone)]
pub struct Point {
    pub name: String,
    pub config: Input,
    pub workload: Input,
    pub seed: Option<u64>,
    /// The `set` overrides, in the grid's order.
    pub set: Vec<(String, toml::Value)>,
}

impl Point {
    /// The overrides as `ssdlab run --set` takes them (`hil.scheduler="spk3"`).
    pub fn overrides(&self) -> Vec<String> {
        self.set.iter().map(|(k, v)| format!("{k}={v}")).collect()
    }

    /// The run's config and workload, read as `ssdlab run` reads them.
    pub fn item(&self) -> Result<Item> {
        let overrides = self.overrides();
        let config = match &self.config.source {
            Source::Path(p) => Config::load(p, &overrides)?,
            Source::Toml(text) => Config::from_toml_str(text, &self.config.label, &overrides)?,
        };
        let workload = match &self.workload.source {
            Source::Path(p) => WorkloadSpec::load(p)?,
            Source::Toml(text) => WorkloadSpec::from_toml_str(text, &self.workload.label, Path::new("."))?,
        };
        // A missing trace would otherwise fail only when its run starts.
        for path in workload.flows.iter().filter_map(|f| f.path.as_deref()) {
            std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        }
        Ok(Item { name: self.name.clone(), config, workload, seed: self.seed })
    }

    /// The table's parameter columns: `config`, `workload`, `seed` (null for the workload's
    /// own) and each `set` key.
    pub fn params(&self) -> Vec<(String, serde_json::Value)> {
        let mut p = vec![
            ("config".to_string(), self.config.label.clone().into()),
            ("workload".to_string(), self.workload.label.clone().into()),
            ("seed".to_string(), self.seed.into()),
        ];
        for (k, v) in &self.set {
            p.push((k.clone(), serde_json::to_value(v).expect("TOML values are JSON values")));
        }
        p
    }
}

/// A grid's runs, in order.
#[derive(Debug, Clone)]
pub struct Grid {
    pub points: Vec<Point>,
}

impl Grid {
    /// A grid file.
    pub fn load(path: &Path) -> Result<Grid> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let file = path.display().to_string();
        let raw: RawGrid = toml::from_str(&text).map_err(|e| Error::toml(&file, &text, e))?;
        Grid::build(raw, &file, path.parent(), Some(&text))
    }

    /// A grid as JSON (the Python package's dicts); relative paths from the working directory.
    pub fn from_json(text: &str, name: &str) -> Result<Grid> {
        let raw: RawGrid = serde_json::from_str(text).map_err(|e| Error::config(name, 0, "", &e.to_string()))?;
        Grid::build(raw, name, None, None)
    }

    /// `text`: the grid file's, for line numbers and the order of `set`'s keys.
    fn build(raw: RawGrid, file: &str, base: Option<&Path>, text: Option<&str>) -> Result<Grid> {
        let line = |key: &str| text.map_or(0, |t| ssdlab::error::line_of_key(t, key));
        let bad = |key: &str, message: &str| Error::config(file, line(key), key, &format!("{key}: {message}"));
        let input =
            |key: &str, v: &toml::Value| Input::of(v, base).ok_or_else(|| bad(key, "a path, a table or TOML text"));
        let configs = raw.config.into_vec().iter().map(|v| input("config", v)).collect::<Result<Vec<_>>>()?;
        let workloads = raw.workload.into_vec().iter().map(|v| input("workload", v)).collect::<Result<Vec<_>>>()?;
        let seeds: Vec<Option<u64>> = match raw.seed {
            Some(s) => s
                .into_vec()
                .iter()
                .map(|v| seed(v).map(Some).ok_or_else(|| bad("seed", &format!("{v} is not a seed (an integer ≥ 0)"))))
                .collect::<Result<_>>()?,
            None => vec![None],
        };
        let mut set = Vec::new();
        for (key, values) in raw.set.0 {
            flatten(key, values, &mut set);
        }
        // The TOML reader hands tables over in key order: put `set` back in the file's.
        if text.is_some() {
            set.sort_by_key(|(k, _)| match line(&format!("set.{k}")) {
                0 => usize::MAX,
                n => n,
            });
        }
        check_set_keys(&set, &|key, message| bad(&format!("set.{key}"), message))?;
        let lists = [("config", configs.len()), ("workload", workloads.len()), ("seed", seeds.len())];
        let set_lists = set.iter().map(|(k, v)| (format!("set.{k}"), v.len()));
        for (key, n) in lists.into_iter().map(|(k, n)| (k.to_string(), n)).chain(set_lists) {
            if n == 0 {
                return Err(bad(&key, "an empty list or table: the grid would have no run"));
            }
        }
        let points = points(&configs, &workloads, &seeds, &set);
        let mut names: Vec<&str> = points.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            let message = format!(
                "two runs would both be named `{}`: configs or workloads of the same file name in different folders, or values that differ only in characters a name replaces by `_`",
                w[0]
            );
            return Err(Error::config(file, 0, "", &message));
        }
        Ok(Grid { points })
    }

    /// Every run's config and workload, read now: a bad one fails before any run starts.
    pub fn items(&self) -> Result<Vec<Item>> {
        self.points.iter().map(Point::item).collect()
    }
}

/// The product, in order: config, workload, seed, then the `set` keys, the last fastest.
fn points(
    configs: &[Input],
    workloads: &[Input],
    seeds: &[Option<u64>],
    set: &[(String, Vec<toml::Value>)],
) -> Vec<Point> {
    let mut points = Vec::new();
    for config in configs {
        for workload in workloads {
            for &seed in seeds {
                for combo in product(set) {
                    points.push(Point::new(config, workload, seed, combo));
                }
            }
        }
    }
    points
}

/// Each `set` key a config key (dotted names of letters, digits and `_`), and each once.
fn check_set_keys(set: &[(String, Vec<toml::Value>)], bad: &dyn Fn(&str, &str) -> Error) -> Result<()> {
    for (i, (key, _)) in set.iter().enumerate() {
        let part_ok = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !key.split('.').all(part_ok) {
            return Err(bad(&ssdlab_trace::echo(key), "not a config key (dotted names of letters, digits and `_`)"));
        }
        if set[..i].iter().any(|(k, _)| k == key) {
            return Err(bad(key, "set twice (a quoted key and the same key unquoted, or a table and a dotted key)"));
        }
    }
    Ok(())
}

impl Point {
    fn new(config: &Input, workload: &Input, seed: Option<u64>, set: Vec<(String, toml::Value)>) -> Point {
        let mut parts = vec![config.label_stem(), workload.label_stem()];
        if let Some(s) = seed {
            parts.push(format!("seed-{s}"));
        }
        parts.extend(set.iter().map(|(k, v)| format!("{}-{}", safe(k), value_stem(v))));
        Point { name: bounded(parts.join("__")), config: config.clone(), workload: workload.clone(), seed, set }
    }
}

impl Input {
    fn of(value: &toml::Value, base: Option<&Path>) -> Option<Input> {
        match value {
            toml::Value::Table(t) => {
                let text = toml::to_string(t).expect("a TOML table serialises");
                Some(Input { label: inline_label(&text), source: Source::Toml(text) })
            }
            toml::Value::String(s) if s.contains('\n') => {
                Some(Input { label: inline_label(s), source: Source::Toml(s.clone()) })
            }
            toml::Value::String(s) => Some(Input { label: s.clone(), source: Source::Path(resolve(s, base)) }),
            _ => None,
        }
    }

    /// The input's part of a run's name.
    fn label_stem(&self) -> String {
        match self.source {
            Source::Toml(_) => self.label.clone(),
            Source::Path(_) => path_stem(&self.label),
        }
    }
}

/// A seed: an integer ≥ 0.
fn seed(value: &toml::Value) -> Option<u64> {
    value.as_integer().and_then(|i| u64::try_from(i).ok())
}

/// `[set]` with its keys dotted: `hil.scheduler = [..]` unquoted is a table `hil` in TOML.
fn flatten(key: String, values: OneOrMany<toml::Value>, out: &mut Vec<(String, Vec<toml::Value>)>) {
    match values {
        OneOrMany::One(toml::Value::Table(t)) if t.is_empty() => out.push((key, Vec::new())),
        OneOrMany::One(toml::Value::Table(t)) => {
            for (k, v) in t {
                let v = match v {
                    toml::Value::Array(a) => OneOrMany::Many(a),
                    v => OneOrMany::One(v),
                };
                flatten(format!("{key}.{k}"), v, out);
            }
        }
        values => out.push((key, values.into_vec())),
    }
}

/// Characters of a run's name kept whole: its file, `<name>.json` and the temporary
/// `.<name>.json.tmp-<pid>`, stays within the 255 bytes a file name may have.
const NAME_CHARS: usize = 200;

/// `name`, or past [`NAME_CHARS`] its first 187 characters, `~` and a hash of the whole (the
/// name is ASCII: [`safe`] kept nothing else).
fn bounded(name: String) -> String {
    if name.len() <= NAME_CHARS {
        return name;
    }
    let hash = inline_label(&name);
    format!("{}~{}", &name[..NAME_CHARS - 13], &hash["inline-".len()..])
}

/// A relative path from the grid's folder when the file is there, else as written.
fn resolve(path: &str, base: Option<&Path>) -> PathBuf {
    match base {
        Some(base) if Path::new(path).is_relative() && base.join(path).exists() => base.join(path),
        _ => PathBuf::from(path),
    }
}

/// `inline-` and 12 hex digits of the text's FNV-1a hash (stable across builds and platforms).
pub(super) fn inline_label(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    format!("inline-{:012x}", hash >> 16)
}

/// A path's file name without its extensions of config, workload and trace files.
fn path_stem(path: &str) -> String {
    let mut name = Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or(path);
    while let Some(stripped) = [".gz", ".bz2", ".zst", ".xz", ".toml", ".trace", ".csv"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext).filter(|s| !s.is_empty()))
    {
        name = stripped;
    }
    safe(name)
}

/// A `set` value's part of a run's name: a string as written, a path by its stem, any other
/// value as its JSON text.
fn value_stem(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) if s.contains('/') || s.ends_with(".toml") => path_stem(s),
        toml::Value::String(s) => safe(s),
        other => safe(&serde_json::to_string(other).expect("TOML values are JSON values")),
    }
}

/// Letters, digits and `._+-` kept; any other character becomes `_`.
/// A name's first character is never `.` (a hidden file, which the store keeps for itself).
fn safe(text: &str) -> String {
    let keep = |(i, c): (usize, char)| {
        if c.is_ascii_alphanumeric() || (i > 0 && c == '.') || "_+-".contains(c) {
            c
        } else {
            '_'
        }
    };
    text.chars().enumerate().map(keep).collect()
}

/// Every combination of the `set` lists, the last key varying fastest.
fn product(set: &[(String, Vec<toml::Value>)]) -> Vec<Vec<(String, toml::Value)>> {
    let mut combos = vec![Vec::new()];
    for (key, values) in set {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push((key.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    combos
}

/// The grid as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrid {
    config: OneOrMany<toml::Value>,
    workload: OneOrMany<toml::Value>,
    #[serde(default)]
    seed: Option<OneOrMany<toml::Value>>,
    #[serde(default)]
    set: Ordered,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany<T> {
    Many(Vec<T>),
    One(T),
}

impl<T> OneOrMany<T> {
    fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::Many(v) => v,
            OneOrMany::One(v) => vec![v],
        }
    }
}

/// `[set]`, its keys in the order written.
#[derive(Default)]
struct Ordered(Vec<(String, OneOrMany<toml::Value>)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table of config keys, each a value or a list of values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Ordered(entries))
            }
        }
        d.deserialize_map(V)
    }
}
