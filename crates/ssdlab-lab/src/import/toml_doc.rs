//! A TOML document written key by key, each key under the comment lines that say where its
//! value came from: what the importers write. Tables keep the order they were first named
//! in; `[[name]]` tables (a workload's flows) are one table each.

use toml::Value;

/// One `key = value`, under its comment lines.
struct Entry {
    key: String,
    value: Value,
    comments: Vec<String>,
}

/// One table: its header line (`[nand.bus]`, `[[flows]]`, or empty for the top level).
struct Table {
    header: String,
    entries: Vec<Entry>,
}

/// The document: header comment lines, then its tables in order.
#[derive(Default)]
pub struct Doc {
    header: Vec<String>,
    tables: Vec<Table>,
}

impl Doc {
    /// A comment line at the top of the file.
    pub fn header_line(&mut self, line: &str) {
        self.header.push(line.to_string());
    }

    /// Name tables in the order they are to be written, before any key is set.
    pub fn declare(&mut self, names: &[&str]) {
        for n in names {
            self.table_mut(n);
        }
    }

    /// The table `name` (a dotted path, `""` for the top level), created at the end if new.
    fn table_mut(&mut self, name: &str) -> &mut Table {
        let header = if name.is_empty() { String::new() } else { format!("[{name}]") };
        match self.tables.iter().position(|t| t.header == header) {
            Some(i) => &mut self.tables[i],
            None => {
                self.tables.push(Table { header, entries: Vec::new() });
                self.tables.last_mut().expect("just pushed")
            }
        }
    }

    /// Set `path` (`table.key`): a key already there takes the new value and, with `replace`,
    /// only the new comment; otherwise the comment is added under the earlier ones.
    pub fn set(&mut self, path: &str, value: Value, comment: &str, replace: bool) {
        let (table, key) = path.rsplit_once('.').unwrap_or(("", path));
        let t = self.table_mut(table);
        match t.entries.iter_mut().find(|e| e.key == key) {
            Some(e) => {
                e.value = value;
                if replace {
                    e.comments.clear();
                }
                e.comments.push(comment.to_string());
            }
            None => t.entries.push(Entry { key: key.to_string(), value, comments: vec![comment.to_string()] }),
        }
    }

    /// Remove the table `name` and every table under it.
    pub fn remove_table(&mut self, name: &str) {
        let (exact, under) = (format!("[{name}]"), format!("[{name}."));
        self.tables.retain(|t| t.header != exact && !t.header.starts_with(&under));
    }

    /// Start a new `[[name]]` table; [`Doc::put_last`] fills it.
    pub fn push_array_table(&mut self, name: &str) {
        self.tables.push(Table { header: format!("[[{name}]]"), entries: Vec::new() });
    }

    /// Set `key` in the last table.
    pub fn put_last(&mut self, key: &str, value: Value, comment: &str) {
        let t = self.tables.last_mut().expect("push_array_table first");
        t.entries.push(Entry { key: key.to_string(), value, comments: vec![comment.to_string()] });
    }

    /// A comment line in the last table, after its keys so far.
    pub fn note_last(&mut self, comment: &str) {
        let t = self.tables.last_mut().expect("push_array_table first");
        t.entries.push(Entry { key: String::new(), value: Value::Boolean(false), comments: vec![comment.to_string()] });
    }

    /// Every table from a parsed TOML tree, each key under `comment`.
    pub fn load_tree(&mut self, prefix: &str, table: &toml::Table, comment: &str) {
        for (key, value) in table {
            let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
            match value {
                Value::Table(t) => self.load_tree(&path, t, comment),
                v => self.set(&path, v.clone(), comment, true),
            }
        }
    }

    /// The TOML text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for line in &self.header {
            out.push_str(&comment_line(line));
        }
        for t in self.tables.iter().filter(|t| !t.entries.is_empty() || t.header.starts_with("[[")) {
            out.push('\n');
            if !t.header.is_empty() {
                out.push_str(&t.header);
                out.push('\n');
            }
            for e in &t.entries {
                for c in &e.comments {
                    out.push_str(&comment_line(c));
                }
                if !e.key.is_empty() {
                    out.push_str(&format!("{} = {}\n", e.key, e.value));
                }
            }
        }
        out
    }
}

/// `line` as a comment, control characters (a newline in an XML value) shown escaped.
fn comment_line(line: &str) -> String {
    let clean: String =
        line.chars().flat_map(|c| if c.is_control() { c.escape_default().collect() } else { vec![c] }).collect();
    if clean.is_empty() {
        "#\n".to_string()
    } else {
        format!("# {clean}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_render_under_their_comments_in_table_order() {
        let mut d = Doc::default();
        d.header_line("head");
        d.set("nand.channels", Value::Integer(8), "preset", true);
        d.set("hif.lanes", Value::Integer(4), "x", true);
        d.set("nand.channels", Value::Integer(4), "<A>4</A>", true);
        d.set("nand.channels", Value::Integer(4), "<B>4</B>", false);
        let text = d.render();
        assert_eq!(text, "# head\n\n[nand]\n# <A>4</A>\n# <B>4</B>\nchannels = 4\n\n[hif]\n# x\nlanes = 4\n");
        let _: toml::Table = toml::from_str(&text).expect("valid TOML");
    }

    #[test]
    fn removing_a_table_removes_its_subtables() {
        let mut d = Doc::default();
        d.set("ftl.map_cache.ram_bytes", Value::Integer(1), "c", true);
        d.set("ftl.mapping", Value::String("dftl".into()), "c", true);
        d.remove_table("ftl.map_cache");
        assert_eq!(d.render(), "\n[ftl]\n# c\nmapping = \"dftl\"\n");
    }
}
