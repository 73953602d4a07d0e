//! Where each setting of a reproduction comes from, and when its main rows changed:
//! `experiments/<paper>/provenance.toml`, rendered into REPORT.md as two tables.
//!
//! - `[[setting]]`: one row of the provenance table — the setting, its value and its source.
//!   The value comes from one place only: a dotted `key` of the reproduction's preset (read
//!   from the config the run used, so the table cannot drift from it), a `constant` of the
//!   reproduction's code (the paper's module supplies it by name), or a literal `value` for
//!   what is neither (a workload's shape, say). The source carries a provenance tag: `[P]` the
//!   paper, `[S]` slides or a secondary source, `[C]` a simulator's code, `[D]` a datasheet of
//!   the paper's generation, `[I]` ssdlab's own choice (then a sensitivity row should show it).
//! - `[[log]]`: the dated log of changes to the main-row settings, with the reason; each was
//!   set from its source before any run with it.
//!
//! The files are compiled in; each paper's unit test renders its file against its preset, so a
//! key that does not resolve, a constant the code does not supply or a source without a tag
//! fails `cargo test`.

use std::fmt::Write as _;

use serde::Deserialize;

use super::template::Values;

/// One `experiments/<paper>/provenance.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    pub setting: Vec<Setting>,
    #[serde(default)]
    pub log: Vec<LogEntry>,
}

/// A row of the provenance table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setting {
    pub setting: String,
    /// A dotted key of the preset's config, whose value the run used.
    pub key: Option<String>,
    /// A constant of the reproduction's code, by the name its module gives it.
    pub constant: Option<String>,
    /// Literal text, for a setting that is neither a key nor a constant.
    pub value: Option<String>,
    pub source: String,
}

/// A dated change to a main-row setting.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogEntry {
    pub date: String,
    pub change: String,
    pub reason: String,
}

/// The tags a source may carry.
const TAGS: [&str; 6] = ["[P", "[S", "[C", "[D", "[I", "[R"];

/// A report's two values from the file `name` (its `text`): `provenance`, the table against
/// `config`, and `provenance_log`, the dated log.
pub fn set(v: &mut Values, name: &str, text: &str, config: &ssdlab::Config, constant: &dyn Fn(&str) -> Option<String>) {
    let p = parse(name, text);
    v.set("provenance", p.table(name, config, constant));
    v.set("provenance_log", p.log_table());
}

/// Parse `text` (the file `name`, for messages); a malformed file is a bug in the program.
pub fn parse(name: &str, text: &str) -> Provenance {
    toml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

impl Provenance {
    /// The provenance table (with the blank line after it). `config` is the preset as the
    /// runs used it; `constant` gives the reproduction's constants by name.
    pub fn table(&self, name: &str, config: &ssdlab::Config, constant: &dyn Fn(&str) -> Option<String>) -> String {
        let tree = toml::Value::try_from(config).expect("a config serialises");
        let mut m = String::from("| setting | value | source |\n|---|---|---|\n");
        for s in &self.setting {
            let value = match (&s.key, &s.constant, &s.value) {
                (Some(key), None, None) => format!("`{key} = {}`", lookup(&tree, key, name)),
                (None, Some(c), None) => {
                    constant(c).unwrap_or_else(|| panic!("{name}: `{}`: no constant `{c}`", s.setting))
                }
                (None, None, Some(v)) => v.clone(),
                _ => panic!("{name}: `{}` needs exactly one of key, constant, value", s.setting),
            };
            assert!(TAGS.iter().any(|t| s.source.contains(t)), "{name}: `{}`: its source has no tag", s.setting);
            let _ = writeln!(m, "| {} | {value} | {} |", s.setting, s.source);
        }
        m.push('\n');
        m
    }

    /// The dated log of main-row changes (with the blank line after it), oldest first.
    pub fn log_table(&self) -> String {
        let mut m = String::from("| date | main-row change | reason |\n|---|---|---|\n");
        for e in &self.log {
            let _ = writeln!(m, "| {} | {} | {} |", e.date, e.change, e.reason);
        }
        m.push('\n');
        m
    }
}

/// The value of dotted `key` in `tree`, as TOML writes it.
fn lookup(tree: &toml::Value, key: &str, name: &str) -> String {
    let mut v = tree;
    for part in key.split('.') {
        v = v.get(part).unwrap_or_else(|| panic!("{name}: no key `{key}` in the preset's config"));
    }
    match v {
        toml::Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key's value is the config's (the default's 64-tag queue prints as 64), a constant's
    /// the code's, a literal as written; the log keeps its order.
    #[test]
    fn rows_take_their_values_from_the_config_the_code_or_the_file() {
        let p = parse(
            "t.toml",
            r#"
            [[setting]]
            setting = "Queue"
            key = "hil.queue_depth"
            source = "[P §4]"
            [[setting]]
            setting = "Fill"
            constant = "GC_FILL"
            source = "[I]"
            [[setting]]
            setting = "Arrivals"
            value = "Poisson"
            source = "[I] stand-in"
            [[log]]
            date = "2026-11-27"
            change = "a"
            reason = "b"
            "#,
        );
        let mut cfg = ssdlab::Config::default();
        cfg.hil.queue_depth = 64;
        let t = p.table("t.toml", &cfg, &|c| (c == "GC_FILL").then(|| "90%".to_string()));
        assert_eq!(
            t,
            "| setting | value | source |\n|---|---|---|\n| Queue | `hil.queue_depth = 64` | [P §4] |\n\
             | Fill | 90% | [I] |\n| Arrivals | Poisson | [I] stand-in |\n\n"
        );
        assert_eq!(p.log_table(), "| date | main-row change | reason |\n|---|---|---|\n| 2026-11-27 | a | b |\n\n");
    }

    #[test]
    #[should_panic(expected = "its source has no tag")]
    fn a_source_without_a_tag_is_a_bug() {
        let p = parse("t.toml", "[[setting]]\nsetting = \"x\"\nvalue = \"1\"\nsource = \"somewhere\"\n");
        p.table("t.toml", &ssdlab::Config::default(), &|_| None);
    }
}
