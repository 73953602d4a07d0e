//! What the command line changes in a config file before it is typed: `--unset KEY` removes
//! a key or a whole table, then `--set KEY=VALUE` assigns (so a preset's table can be dropped
//! and rebuilt), then one rule follows a switch of map: a `--set ftl.mapping` to `full` drops
//! the file's `[ftl.map_cache]`, which applies to demand-based maps only, and says so in a
//! note, so that `--set ftl.mapping=full` works on every preset.

use serde::Deserialize;

use super::{apply_override, Config};
use crate::error::{Error, Result};
use crate::ftl::MappingKind;

/// The command line's edits of a config file, applied in this order.
#[derive(Debug, Clone, Copy, Default)]
pub struct Edits<'a> {
    /// Dotted keys or tables to remove (`--unset`).
    pub unset: &'a [String],
    /// `key=value` assignments (`--set`).
    pub set: &'a [String],
}

impl Edits<'_> {
    pub fn is_empty(&self) -> bool {
        self.unset.is_empty() && self.set.is_empty()
    }

    /// The edits as typed, for messages: the `--set` values alone (`a=1 b=2`) as before
    /// `--unset` existed, else `--unset a --set b=c`.
    pub fn describe(&self) -> String {
        if self.unset.is_empty() {
            return self.set.join(" ");
        }
        let unset = self.unset.iter().map(|k| format!("--unset {k}"));
        let set = self.set.iter().map(|s| format!("--set {s}"));
        unset.chain(set).collect::<Vec<_>>().join(" ")
    }

    /// Applies the edits to the file's tree; the notes to show the user (tables dropped).
    pub fn apply(&self, root: &mut toml::Table, file: &str) -> Result<Vec<String>> {
        for key in self.unset {
            unset(root, key, file)?;
        }
        for o in self.set {
            apply_override(root, o)?;
        }
        Ok(self.follow_map_switch(root, file).into_iter().collect())
    }

    /// `--set ftl.mapping=full` on a file with `[ftl.map_cache]`: the table goes, with a note.
    /// Not when the file alone asks for both (that stays an error), nor when a `--set` also
    /// writes the table.
    fn follow_map_switch(&self, root: &mut toml::Table, file: &str) -> Option<String> {
        let keys: Vec<&str> = self.set.iter().filter_map(|s| s.split_once('=')).map(|(k, _)| k.trim()).collect();
        let sets_map_cache = keys.iter().any(|k| *k == "ftl.map_cache" || k.starts_with("ftl.map_cache."));
        if !keys.contains(&"ftl.mapping") || sets_map_cache {
            return None;
        }
        let ftl = root.get_mut("ftl")?.as_table_mut()?;
        let mapping = MappingKind::deserialize(ftl.get("mapping")?.clone()).ok()?;
        if mapping != MappingKind::Full {
            return None;
        }
        ftl.remove("map_cache")?;
        Some(format!(
            "--set ftl.mapping=full: [ftl.map_cache] of {file} dropped (it applies to demand-based maps only)"
        ))
    }
}

/// Removes dotted `key` (a value or a whole table) from `root`. A key the file does not hold
/// is fine when it is a key of the config (its default applies anyway); any other is an
/// error, so a misspelled `--unset` does not pass unnoticed.
fn unset(root: &mut toml::Table, key: &str, file: &str) -> Result<()> {
    let parts: Vec<&str> = key.trim().split('.').collect();
    let fail = |why: &str| Err(Error::config("--unset", 0, key, &format!("{key}: {why}")));
    if parts.iter().any(|p| p.is_empty()) {
        return fail("empty component in key");
    }
    let (last, path) = parts.split_last().expect("split gives at least one part");
    let mut table = &mut *root;
    for part in path {
        match table.get_mut(*part) {
            Some(toml::Value::Table(t)) => table = t,
            Some(_) => return fail(&format!("{part} is a value, not a table")),
            None => return known_key(&parts, key, file),
        }
    }
    if table.remove(*last).is_none() {
        return known_key(&parts, key, file);
    }
    Ok(())
}

/// Ok when dotted `parts` name a key or table of the resolved default config.
fn known_key(parts: &[&str], key: &str, file: &str) -> Result<()> {
    let defaults = toml::Value::try_from(Config::default()).expect("the default config serialises");
    let mut at = &defaults;
    for part in parts {
        match at.get(part) {
            Some(v) => at = v,
            None => {
                let why = format!("{key}: not in {file}, and not a config key (docs/config.md)");
                return Err(Error::config("--unset", 0, key, &why));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn unset_removes_a_key_or_a_table_before_sets_apply() {
        let mut t = tree("[ftl]\nmapping = \"dftl\"\n[ftl.map_cache]\nram_bytes = 4096\n[ftl.gc]\npolicy = \"fifo\"\n");
        let (unset, set) =
            (["ftl.map_cache".to_string(), "ftl.gc.policy".into()], ["ftl.gc.policy=greedy".to_string()]);
        let notes = Edits { unset: &unset, set: &set }.apply(&mut t, "c.toml").unwrap();
        assert!(notes.is_empty());
        assert_eq!(t, tree("[ftl]\nmapping = \"dftl\"\n[ftl.gc]\npolicy = \"greedy\"\n"));
    }

    /// An absent key of the config is a no-op; a key of no config is an error naming it; a
    /// path through a value is an error.
    #[test]
    fn unset_of_a_missing_key_is_checked_against_the_config() {
        let mut t = tree("[nand]\nchannels = 4\n");
        unset(&mut t, "ftl.map_cache", "c.toml").unwrap();
        unset(&mut t, "cache.capacity_bytes", "c.toml").unwrap();
        let e = unset(&mut t, "ftl.map_cach", "c.toml").unwrap_err().to_string();
        assert!(e.contains("--unset: ftl.map_cach: not in c.toml, and not a config key"), "{e}");
        let e = unset(&mut t, "nand.channels.x", "c.toml").unwrap_err().to_string();
        assert!(e.contains("channels is a value, not a table"), "{e}");
        assert_eq!(t, tree("[nand]\nchannels = 4\n"));
    }

    /// The map switch: dropped only for a `--set` to full (any spelling the enum reads, such
    /// as the alias `page`), kept when the file alone says full or a set writes the table.
    #[test]
    fn setting_the_full_map_drops_the_files_map_cache() {
        let file = "[ftl]\nmapping = \"fmmu\"\n[ftl.map_cache]\ncmt_bytes = 65536\n";
        for (sets, dropped) in [
            (vec!["ftl.mapping=full"], true),
            (vec!["ftl.mapping=page"], true),
            (vec!["ftl.mapping=dftl"], false),
            (vec!["ftl.mapping=full", "ftl.map_cache.cmt_bytes=4096"], false),
            (vec!["ftl.gc.policy=fifo"], false),
        ] {
            let set: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            let mut t = tree(file);
            let notes = Edits { unset: &[], set: &set }.apply(&mut t, "f.toml").unwrap();
            let ftl = t["ftl"].as_table().unwrap();
            assert_eq!(!ftl.contains_key("map_cache"), dropped, "{sets:?}");
            assert_eq!(notes.len(), dropped as usize, "{sets:?}");
        }
        let mut t = tree(file);
        let set = ["ftl.mapping=full".to_string()];
        let notes = Edits { unset: &[], set: &set }.apply(&mut t, "f.toml").unwrap();
        assert_eq!(
            notes,
            ["--set ftl.mapping=full: [ftl.map_cache] of f.toml dropped (it applies to demand-based maps only)"]
        );
    }
}
