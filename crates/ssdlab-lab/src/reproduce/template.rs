//! A reproduction's REPORT.md prose lives in a template, `experiments/<paper>/report.md`:
//! Markdown in which `{{name}}` marks a value the run computes. The code computes values
//! and tables; the template holds the sentences around them, so rewording the prose touches
//! no Rust and no stored run.
//!
//! - A line holding only `{{name}}` takes the value as a block: the value brings its own
//!   line ends (a table and the blank line after it), and an empty value removes the line.
//! - Anywhere else the value goes inline.
//!
//! Templates are compiled in, so a name without a value, a value the template never uses or
//! a name set twice is a bug in the program, not bad input: rendering panics naming the
//! template, its line and the name, and each paper's unit test renders its template once.

use std::collections::BTreeMap;
use std::fmt::Display;

/// The values of one rendering, by name.
#[derive(Default)]
pub struct Values {
    by_name: BTreeMap<&'static str, String>,
}

impl Values {
    pub fn new() -> Values {
        Values::default()
    }

    /// Give `name` its value; a name is set once.
    pub fn set(&mut self, name: &'static str, value: impl Display) {
        let old = self.by_name.insert(name, value.to_string());
        assert!(old.is_none(), "report template value `{name}` set twice");
    }
}

impl Values {
    /// The values of the line every report opens with: `mode` (quick or full) and `smoke` (a
    /// quick run's warning, a block), the number of
    /// runs under `count` ("runs", "cases"), `wall_s` and `threads` ("1 thread", "2 threads").
    pub fn run_line(&mut self, opts: &super::Options, count: &'static str, n: usize, wall_s: f64) {
        self.set("mode", if opts.quick { "quick" } else { "full" });
        // Quick grids are too small to carry a headline (issue 33: a quick run either agrees
        // in sign with the full run on every headline or says it is a smoke run).
        let smoke = "> **Smoke run.** `--quick` runs a smaller grid to check that everything works; its numbers are not evidence and may differ in sign from the full run's. Cite the full run (`docs/reproductions/`).\n\n";
        self.set("smoke", if opts.quick { smoke } else { "" });
        self.set(count, n);
        self.set("wall_s", format!("{wall_s:.0}"));
        let threads = if opts.threads == 1 { "1 thread".to_string() } else { format!("{} threads", opts.threads) };
        // A resumed run reuses the stored runs: its wall time covers only the runs it made.
        let reused = super::REUSED.load(std::sync::atomic::Ordering::Relaxed);
        let resumed = match (opts.resume, reused) {
            (false, _) => String::new(),
            (true, 0) => "; `--resume` found no stored run of the same config to reuse".to_string(),
            (true, r) => {
                format!("; with `--resume`, {r} stored runs were reused, so the wall time covers only the runs made")
            }
        };
        self.set("threads", format!("{threads}{resumed}"));
    }

    /// The drive's geometry: `channels`, `chips` (per channel), `dies` (per chip), `planes`
    /// (per die), `blocks` (per plane) and `pages` (per block).
    pub fn geometry(&mut self, n: &ssdlab::nand::config::NandConfig) {
        self.set("channels", n.channels);
        self.set("chips", n.chips_per_channel);
        self.set("dies", n.dies_per_chip);
        self.set("planes", n.planes_per_die);
        self.set("blocks", n.blocks_per_plane);
        self.set("pages", n.pages_per_block);
    }
}

/// `template` (the file `file`, for messages) with every `{{name}}` replaced by its value.
pub fn render(file: &str, template: &str, values: &Values) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut used = std::collections::BTreeSet::new();
    for (i, line) in template.split_inclusive('\n').enumerate() {
        let mut lookup = |name: &str| -> &str {
            let Some((key, value)) = values.by_name.get_key_value(name) else {
                panic!("{file}:{}: `{{{{{name}}}}}` has no value", i + 1)
            };
            used.insert(*key);
            value
        };
        match block_name(line) {
            Some(name) => out.push_str(lookup(name)),
            None => inline(line, &mut out, &mut lookup),
        }
    }
    let unused: Vec<&str> = values.by_name.keys().filter(|k| !used.contains(*k)).copied().collect();
    assert!(unused.is_empty(), "{file}: values never used by the template: {}", unused.join(", "));
    out
}

/// The part of `template` from the line `heading` to the next `## ` heading (or the end):
/// one section, to render alone (a reproduction's claims table, printed by `ssdlab reproduce`).
pub fn section<'t>(template: &'t str, heading: &str) -> &'t str {
    let start = template
        .find(&format!("{heading}\n"))
        .filter(|&at| at == 0 || template[..at].ends_with('\n'))
        .unwrap_or_else(|| panic!("report template has no line `{heading}`"));
    let rest = &template[start + heading.len() + 1..];
    let end = rest.find("\n## ").map_or(template.len(), |at| start + heading.len() + 1 + at + 1);
    &template[start..end]
}

/// The name of a line that is exactly `{{name}}` (and its line end).
fn block_name(line: &str) -> Option<&str> {
    let inner = line.trim_end_matches('\n').strip_prefix("{{")?.strip_suffix("}}")?;
    (!inner.contains("{{") && !inner.contains("}}")).then_some(inner)
}

/// Copy `line` to `out`, each `{{name}}` replaced by `lookup(name)`.
fn inline<'v>(mut line: &str, out: &mut String, lookup: &mut impl FnMut(&str) -> &'v str) {
    while let Some(start) = line.find("{{") {
        let Some(len) = line[start + 2..].find("}}") else { break };
        out.push_str(&line[..start]);
        out.push_str(lookup(&line[start + 2..start + 2 + len]));
        line = &line[start + 2 + len + 2..];
    }
    out.push_str(line);
}

#[cfg(test)]
mod tests {
    use super::{render, section, Values};

    #[test]
    fn values_go_inline_and_whole_lines_take_blocks() {
        let mut v = Values::new();
        v.set("mode", "quick");
        v.set("n", 12);
        v.set("table", "| a |\n|---|\n\n");
        v.set("absent", "");
        let text = "# Title\n\nMode **{{mode}}** ({{n}} runs, {{n}} again).\n\n{{table}}\n{{absent}}\nEnd.\n";
        assert_eq!(
            render("t.md", text, &v),
            "# Title\n\nMode **quick** (12 runs, 12 again).\n\n| a |\n|---|\n\nEnd.\n"
        );
    }

    #[test]
    fn a_section_runs_from_its_heading_to_the_next() {
        let text = "# T\n\n## One\n\na\n\n## Two\n\nb\n";
        assert_eq!(section(text, "## One"), "## One\n\na\n\n");
        assert_eq!(section(text, "## Two"), "## Two\n\nb\n");
    }

    #[test]
    #[should_panic(expected = "t.md:2: `{{missing}}` has no value")]
    fn a_name_without_a_value_names_its_line() {
        render("t.md", "ok\nsee {{missing}}\n", &Values::new());
    }

    #[test]
    #[should_panic(expected = "t.md: values never used by the template: spare")]
    fn a_value_the_template_never_uses_is_a_bug() {
        let mut v = Values::new();
        v.set("spare", 1);
        render("t.md", "nothing here\n", &v);
    }
}
