//! `ssdlab import mqsim`: MQSim's `ssdconfig.xml` (and a workload XML) as an ssdlab drive
//! TOML (and workload TOMLs, one per `IO_Scenario`).
//!
//! The drive is `presets/mqsim-compat.toml` — the choices MQSim makes that its tags do not
//! state (NV-DDR2 command timing, read data first on the channel, whole-request reads, its
//! map entry sizes, ...) — with every value the XML gives put over it. Every tag either
//! sets keys (each key's comment names the tag, its value and the conversion), is ignored
//! with the reason written in the file's header, or is an error: a tag this table does not
//! know, or a value ssdlab cannot express (`docs/mqsim-import.md` lists them all).
//!
//! - [`drive`]: the tags of `ssdconfig.xml` (`Host_Parameter_Set`, `Device_Parameter_Set`,
//!   `Flash_Parameter_Set`).
//! - [`workload`]: `IO_Scenario`s and their synthetic and trace-based flows.

mod drive;
mod workload;

use std::path::Path;

use super::{Kind, Output};

/// One leaf element of an MQSim XML file: `<name>text</name>` on `line`.
#[derive(Debug, Clone)]
pub struct Tag {
    pub name: String,
    pub text: String,
    pub line: u32,
}

impl Tag {
    /// `<name>text</name> (line N)`, how comments and errors name the tag.
    fn shown(&self) -> String {
        format!("<{0}>{1}</{0}> (line {2})", self.name, self.text.trim(), self.line)
    }
}

/// Every problem an import found, one line each (`file:line: <Tag>: why`).
#[derive(Debug)]
pub struct ImportError(pub Vec<String>);

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.len();
        if n > 1 {
            writeln!(f, "{n} problems:")?;
        }
        write!(f, "{}", self.0.join("\n"))
    }
}

/// Problems gathered while reading one file.
struct Problems<'a> {
    file: &'a str,
    list: Vec<String>,
}

impl Problems<'_> {
    fn at(&mut self, line: u32, tag: &str, why: &str) {
        self.list.push(format!("{}:{line}: <{tag}>: {why}", self.file));
    }
}

/// The largest XML file read (MQSim's are a few KiB).
const MAX_XML_BYTES: u64 = 16 << 20;

/// Import `config` (MQSim's `ssdconfig.xml`) and, if given, `workload`: the files for the
/// output folder (`drive.toml`; `workload.toml`, or `workload-N.toml` per scenario when
/// there are several), not yet written (see [`super::write_checked`]).
pub fn import(config: &Path, workload: Option<&Path>) -> Result<Output, ImportError> {
    let file = config.display().to_string();
    let text = read(config)?;
    let doc = parse(&text, &file)?;
    let tags = leaves(
        &doc,
        "Execution_Parameter_Set",
        &["Host_Parameter_Set", "Device_Parameter_Set", "Flash_Parameter_Set"],
        &file,
    )?;
    let drive = drive::import(&tags, &file)?;
    let drive_text = drive.render();
    let cfg = ssdlab::Config::from_toml_str(&drive_text, "drive.toml", &[])
        .map_err(|e| ImportError(vec![format!("{file}: its values make a drive ssdlab rejects: {e}")]))?;
    let mut files = vec![("drive.toml".to_string(), drive_text, Kind::Drive)];
    if let Some(w) = workload {
        let wfile = w.display().to_string();
        let wtext = read(w)?;
        let wdoc = parse(&wtext, &wfile)?;
        let scenarios = workload::import(&wdoc, &wfile, &tags, &cfg)?;
        let several = scenarios.len() > 1;
        for (i, s) in scenarios.into_iter().enumerate() {
            let name = if several { format!("workload-{}.toml", i + 1) } else { "workload.toml".to_string() };
            files.push((name, s.render(), Kind::Workload));
        }
    }
    Ok(Output { files })
}

/// The file's text, bounded.
fn read(path: &Path) -> Result<String, ImportError> {
    let fail = |e: &dyn std::fmt::Display| ImportError(vec![format!("{}: {e}", path.display())]);
    let len = std::fs::metadata(path).map_err(|e| fail(&e))?.len();
    if len > MAX_XML_BYTES {
        return Err(fail(&format!("{len} bytes, more than the {MAX_XML_BYTES} an MQSim file may have")));
    }
    std::fs::read_to_string(path).map_err(|e| fail(&e))
}

fn parse<'a>(text: &'a str, file: &str) -> Result<roxmltree::Document<'a>, ImportError> {
    roxmltree::Document::parse(text).map_err(|e| {
        let pos = e.pos();
        ImportError(vec![format!("{file}:{}: not well-formed XML: {e}", pos.row)])
    })
}

fn line_of(doc: &roxmltree::Document, node: roxmltree::Node) -> u32 {
    doc.text_pos_at(node.range().start).row
}

/// The leaf tags under the root `root`, walking down through the `containers` (in any
/// nesting); any other element holding elements is an error naming it.
fn leaves(doc: &roxmltree::Document, root: &str, containers: &[&str], file: &str) -> Result<Vec<Tag>, ImportError> {
    let top = doc.root_element();
    let mut p = Problems { file, list: Vec::new() };
    if top.tag_name().name() != root {
        p.at(line_of(doc, top), top.tag_name().name(), &format!("expected <{root}> as the root element"));
        return Err(ImportError(p.list));
    }
    let mut out = Vec::new();
    walk(doc, top, containers, &mut out, &mut p);
    if p.list.is_empty() {
        Ok(out)
    } else {
        Err(ImportError(p.list))
    }
}

fn walk(doc: &roxmltree::Document, node: roxmltree::Node, containers: &[&str], out: &mut Vec<Tag>, p: &mut Problems) {
    for child in node.children().filter(|c| c.is_element()) {
        let name = child.tag_name().name();
        if containers.contains(&name) {
            walk(doc, child, containers, out, p);
        } else if let Some(tag) = leaf(doc, child, p) {
            out.push(tag);
        }
    }
}

/// `node` as a tag, or a problem if it holds elements (a section this importer does not
/// know).
fn leaf(doc: &roxmltree::Document, node: roxmltree::Node, p: &mut Problems) -> Option<Tag> {
    let name = node.tag_name().name().to_string();
    let line = line_of(doc, node);
    if node.children().any(|c| c.is_element()) {
        p.at(line, &name, "unknown section (it holds elements): MQSim has no such parameter set");
        return None;
    }
    let text: String = node.children().filter_map(|c| c.text()).collect();
    Some(Tag { name, text: text.trim().to_string(), line })
}
