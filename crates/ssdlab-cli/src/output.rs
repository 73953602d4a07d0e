//! The files `run` writes: the JSON report (`--out`), the timeline, the CSV table (`--csv`),
//! the same table in Parquet (`--parquet`) and the latency log (`--lat-log`). All are checked
//! before the simulation (creatable, no two of them nor an input the same file, an existing
//! table's columns the ones this run writes), and none is ever left half-written: a report,
//! log or Parquet table goes to a temporary file renamed over the target when complete; a CSV
//! row is appended by a single write, undone if it fails.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::InputError;

/// An output file, checked before the work that fills it and written whole or not at all: a
/// regular file is written to a temporary file in the same directory and renamed over the
/// target when complete, so a full disk or a crash never leaves a truncated report. A device
/// or pipe (`/dev/stdout`) is written in place, since it cannot be renamed over.
pub(crate) struct OutputFile {
    pub(crate) path: PathBuf,
    in_place: bool,
}

impl OutputFile {
    /// Fails, naming the path, if the file cannot be created (no such directory, a directory
    /// in the way, no permission); probes by creating and removing the temporary file.
    pub(crate) fn check(path: &Path) -> Result<OutputFile, InputError> {
        let fail = |e: std::io::Error| InputError(format!("{}: cannot write this output: {e}", path.display()));
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => return Err(InputError(format!("{}: is a directory, not a file", path.display()))),
            Ok(m) if !m.is_file() => {
                std::fs::OpenOptions::new().write(true).open(path).map_err(fail)?;
                return Ok(OutputFile { path: path.to_path_buf(), in_place: true });
            }
            _ => {}
        }
        let file = OutputFile { path: path.to_path_buf(), in_place: false };
        let tmp = file.temporary();
        std::fs::File::create(&tmp).map_err(fail)?;
        std::fs::remove_file(&tmp).map_err(fail)?;
        Ok(file)
    }

    /// `.NAME.tmp-PID` beside the target: same directory, so the rename cannot cross devices.
    fn temporary(&self) -> PathBuf {
        let name = self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        self.path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
    }

    /// The error of a failed write, naming the file.
    fn failed(&self, e: impl std::fmt::Display) -> InputError {
        let kept = if self.in_place { "" } else { ", file left unchanged" };
        InputError(format!("{}: writing failed{kept}: {e}", self.path.display()))
    }

    /// Writes the file with `fill`; on any failure the target is left as it was and the
    /// temporary file removed.
    pub(crate) fn write(
        &self,
        fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> Result<(), InputError> {
        let stream = self.stream()?;
        let mut w = std::io::BufWriter::new(stream.file.try_clone().map_err(|e| self.failed(e))?);
        fill(&mut w).and_then(|()| w.flush()).map_err(|e| self.failed(e))?;
        drop(w);
        stream.commit()
    }

    /// Opens the file to be written over a while (the latency log, as the run goes): the
    /// temporary file, renamed over the target by [`Stream::commit`], or removed if the
    /// stream is dropped uncommitted.
    pub(crate) fn stream(&self) -> Result<Stream<'_>, InputError> {
        if self.in_place {
            let file = std::fs::OpenOptions::new().write(true).open(&self.path).map_err(|e| self.failed(e))?;
            return Ok(Stream { target: self, file, tmp: None });
        }
        let tmp = self.temporary();
        let file = std::fs::File::create(&tmp).map_err(|e| self.failed(e))?;
        Ok(Stream { target: self, file, tmp: Some(tmp) })
    }
}

/// An output being written: see [`OutputFile::stream`].
pub(crate) struct Stream<'a> {
    target: &'a OutputFile,
    file: std::fs::File,
    /// The temporary file, until renamed over the target.
    tmp: Option<PathBuf>,
}

impl Stream<'_> {
    /// A buffered writer into the stream (its own handle of the file).
    pub(crate) fn writer(&self) -> Result<Box<dyn Write + Send>, InputError> {
        let file = self.file.try_clone().map_err(|e| self.target.failed(e))?;
        Ok(Box::new(std::io::BufWriter::with_capacity(1 << 16, file)))
    }

    /// The content is complete (every writer flushed and dropped): to disk, then in place.
    pub(crate) fn commit(mut self) -> Result<(), InputError> {
        let Some(tmp) = self.tmp.take() else { return Ok(()) };
        let done = self.file.sync_all().and_then(|()| std::fs::rename(&tmp, &self.target.path));
        if let Err(e) = done {
            let _ = std::fs::remove_file(&tmp);
            return Err(self.target.failed(e));
        }
        Ok(())
    }
}

impl Drop for Stream<'_> {
    fn drop(&mut self) {
        if let Some(tmp) = &self.tmp {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// What a path refers to, to tell whether two paths are one file: an existing file by its
/// device and inode (symbolic links, `..` and hard links resolved), a new one by its folder's
/// canonical path and its name. A device or pipe has none: writes to `/dev/stdout` from two
/// options interleave, but neither overwrites the other.
#[derive(PartialEq)]
enum Identity {
    Existing(u64, u64),
    New(PathBuf),
}

fn identity(path: &Path) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    if let Ok(m) = std::fs::metadata(path) {
        return m.is_file().then(|| Identity::Existing(m.dev(), m.ino()));
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir = parent.canonicalize().unwrap_or_else(|_| parent.to_path_buf());
    Some(Identity::New(dir.join(path.file_name().unwrap_or_default())))
}

/// Fails if an output is the same file as another output or as an input, naming both
/// options: `(option, path)` pairs, inputs first.
pub(crate) fn reject_same_files(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> Result<(), InputError> {
    let ids: Vec<Option<Identity>> = inputs.iter().chain(outputs).map(|(_, p)| identity(p)).collect();
    let all: Vec<&(&str, &Path)> = inputs.iter().chain(outputs).collect();
    for j in inputs.len()..all.len() {
        if let Some(i) = (0..j).find(|&i| ids[i].is_some() && ids[i] == ids[j]) {
            let ((a, pa), (b, pb)) = (all[i], all[j]);
            let what = if i < inputs.len() { "an input" } else { "another output" };
            let same = if pa == pb { String::new() } else { format!(" (as {})", pa.display()) };
            return Err(InputError(format!(
                "{b} {} is the same file as {a}{same}: an output may not overwrite {what}; give each its own file",
                pb.display()
            )));
        }
    }
    Ok(())
}

/// A CSV table rows are appended to (`--csv`): a new file gets the header with its first row;
/// an existing one must begin with the header this run writes.
pub(crate) struct CsvTable {
    path: PathBuf,
    header: String,
    /// A device or pipe: written, never read (`/dev/stdout`; reading `/dev/zero` would not end).
    device: bool,
}

/// Bytes of an existing table read to find its header line.
const HEADER_LIMIT: u64 = 1 << 16;

impl CsvTable {
    /// Fails, naming the file, if it cannot be written or is a table of other columns.
    pub(crate) fn check(path: &Path, header: String) -> Result<CsvTable, InputError> {
        let device = std::fs::metadata(path).is_ok_and(|m| !m.is_dir() && !m.is_file());
        let table = CsvTable { path: path.to_path_buf(), header, device };
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() && m.len() > 0 => {
                let fail = |e: std::io::Error| InputError(format!("{}: cannot append to it: {e}", path.display()));
                std::fs::OpenOptions::new().append(true).open(path).map_err(fail)?;
                table.check_header(&std::fs::File::open(path).map_err(fail)?)?;
            }
            _ => {
                OutputFile::check(path)?;
            }
        }
        Ok(table)
    }

    /// The file's first line against this run's header: the first column that differs.
    fn check_header(&self, file: &std::fs::File) -> Result<(), InputError> {
        use std::io::{BufRead, Read};
        let mut first = String::new();
        let read = std::io::BufReader::new(file).take(HEADER_LIMIT).read_line(&mut first);
        read.map_err(|e| InputError(format!("{}: cannot read its header: {e}", self.path.display())))?;
        let found: Vec<&str> = first.trim_end_matches(['\n', '\r']).split(',').collect();
        let want: Vec<&str> = self.header.split(',').collect();
        let Some(i) = (0..found.len().max(want.len())).find(|&i| found.get(i) != want.get(i)) else {
            return Ok(());
        };
        let show = |c: Option<&&str>| c.map_or("(nothing)".to_string(), |c| format!("`{}`", ssdlab_trace::echo(c)));
        Err(InputError(format!(
            "{}: not a table of this run's columns: column {} of its header is {} where this run writes {}; append to a new file",
            self.path.display(),
            i + 1,
            show(found.get(i)),
            show(want.get(i))
        )))
    }

    /// Appends `rows` (each a line without its newline), with the header first if the file is
    /// new or empty, in one write; a write that fails or is cut short is undone.
    pub(crate) fn append(&self, rows: &[String]) -> Result<(), InputError> {
        let failed = |e: &dyn std::fmt::Display, kept: bool| {
            let kept = if kept { ", file left unchanged" } else { "" };
            InputError(format!("{}: writing failed{kept}: {e}", self.path.display()))
        };
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .create(!self.device)
            .open(&self.path)
            .map_err(|e| failed(&e, true))?;
        let old_len = if self.device { 0 } else { file.metadata().map_err(|e| failed(&e, true))?.len() };
        if old_len > 0 {
            // Checked again: another run may have made the file since the check before ours.
            self.check_header(&std::fs::File::open(&self.path).map_err(|e| failed(&e, true))?)?;
        }
        let mut text = String::new();
        if old_len == 0 {
            text += &self.header;
            text.push('\n');
        }
        for row in rows {
            text += row;
            text.push('\n');
        }
        match file.write(text.as_bytes()) {
            Ok(n) if n == text.len() => Ok(()),
            written => {
                let why: Box<dyn std::fmt::Display> = match written {
                    Err(e) => Box::new(e),
                    Ok(n) => Box::new(format!("only {n} of {} bytes written", text.len())),
                };
                if self.device {
                    return Err(failed(&why, false));
                }
                let undone = file.set_len(old_len);
                Err(failed(&why, undone.is_ok()))
            }
        }
    }
}

/// The columns that say which run a table row is: `RUN_COLUMNS`, then the report's.
pub(crate) const RUN_COLUMNS: &str = "config,workload,workload_options,seed,set,unset";

/// The table's header: [`RUN_COLUMNS`], then the report's columns.
pub(crate) fn csv_header() -> String {
    format!("{RUN_COLUMNS},{}", ssdlab::Report::CSV_HEADER)
}

/// Which run a row is, as the command line said it: the config and workload files, the
/// options that change the workload, and the config's `--set`s and `--unset`s (each list
/// joined by `;`); the seed is the report's.
pub(crate) struct RunColumns {
    /// `config`, `workload`, `workload_options`.
    fields: [String; 3],
    set: String,
    unset: String,
}

impl RunColumns {
    pub(crate) fn of(args: &crate::RunArgs) -> RunColumns {
        let shown = |p: &Path| p.display().to_string();
        RunColumns {
            fields: [shown(&args.config), shown(&args.workload), workload_options(args).join(" ")],
            set: args.set.join(";"),
            unset: args.unset.join(";"),
        }
    }

    /// The CSV table row of `report`.
    pub(crate) fn row(&self, report: &ssdlab::Report) -> String {
        let [config, workload, options] = self.fields.each_ref().map(|f| csv_field(f));
        let (set, unset) = (csv_field(&self.set), csv_field(&self.unset));
        format!("{config},{workload},{options},{},{set},{unset},{}", report.seed, report.csv_row())
    }

    /// The table's rows of `reports`, typed: [`RUN_COLUMNS`] (text, and the seed as an
    /// unsigned 64-bit integer), then the report's ([`ssdlab_lab::table::report_columns`]).
    pub(crate) fn frame(&self, reports: &[ssdlab::Report]) -> Frame {
        let text = |name: &str, value: &str| Column {
            name: name.to_string(),
            values: Values::Text(vec![Some(value.to_string()); reports.len()]),
        };
        let [config, workload, options] = &self.fields;
        let mut columns = vec![text("config", config), text("workload", workload), text("workload_options", options)];
        columns
            .push(Column { name: "seed".into(), values: Values::UInt(reports.iter().map(|r| Some(r.seed)).collect()) });
        columns.extend([text("set", &self.set), text("unset", &self.unset)]);
        columns.extend(ssdlab_lab::table::report_columns(reports));
        Frame::new(columns)
    }
}

/// A Parquet table a run's rows are added to (`--parquet`). Parquet cannot be appended to, so
/// the file is read, checked to hold this run's columns, and written again whole with the new
/// rows after its own (through a temporary file). A device or pipe gets this run's rows only.
pub(crate) struct ParquetTable {
    file: OutputFile,
    /// This run's columns, with no rows: what an existing file must hold.
    columns: Frame,
}

impl ParquetTable {
    /// Fails, naming the file, if it cannot be written, or exists and is not a Parquet table
    /// of this run's columns and types.
    pub(crate) fn check(path: &Path, columns: Frame) -> Result<ParquetTable, InputError> {
        let table = ParquetTable { file: OutputFile::check(path)?, columns };
        table.existing()?;
        Ok(table)
    }

    /// The rows the file holds (none if it is new, empty or a device), checked to be of this
    /// run's columns.
    fn existing(&self) -> Result<Frame, InputError> {
        let path = self.file.path.display();
        if self.file.in_place {
            return Ok(self.columns.clone());
        }
        let file = match std::fs::File::open(&self.file.path) {
            Ok(f) if f.metadata().is_ok_and(|m| m.len() == 0) => return Ok(self.columns.clone()),
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(self.columns.clone()),
            Err(e) => return Err(InputError(format!("{path}: cannot read its rows to add this run's: {e}"))),
        };
        let mut rows = parquet::read(file)
            .map_err(|e| InputError(format!("{path}: cannot add this run's rows: {e}; write to a new file")))?;
        rows.append(self.columns.clone())
            .map_err(|e| InputError(format!("{path}: not a table of this run's columns: {e}; write to a new file")))?;
        Ok(rows)
    }

    /// Writes the file's rows (read again: another run may have added some since the check),
    /// then `rows`.
    pub(crate) fn add(&self, rows: Frame) -> Result<(), InputError> {
        let mut all = self.existing()?;
        all.append(rows).expect("the run's rows have the run's columns");
        let bytes = parquet::to_bytes(&all);
        self.file.write(|w| w.write_all(&bytes))
    }
}

/// The command line's options that change the workload, as typed options with their values.
fn workload_options(args: &crate::RunArgs) -> Vec<String> {
    let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let mut o = Vec::new();
    if let Some(m) = args.address_mode {
        o.push(format!("--address-mode {}", name(serde_json::json!(m))));
    }
    if let Some(r) = args.replay {
        o.push(format!("--replay {}", name(serde_json::json!(r))));
    }
    if let Some(q) = args.queue_depth {
        o.push(format!("--queue-depth {q}"));
    }
    if let Some(f) = args.format {
        o.push(format!("--format {}", f.name()));
    }
    let c = &args.columns;
    if let Some(map) = &c.columns {
        o.push(format!("--columns {map}"));
        o.extend(c.ops.as_ref().map(|x| format!("--ops {x}")));
        o.extend(c.separator.as_ref().map(|x| format!("--separator {x}")));
        o.extend(c.header.then(|| "--header".to_string()));
        o.extend((c.skip_lines > 0).then(|| format!("--skip-lines {}", c.skip_lines)));
    }
    o.extend(args.device.map(|d| format!("--device {d}")));
    o.extend(args.ramp_ms.map(|ms| format!("--ramp-ms {ms}")));
    o
}

use ssdlab::stats::latency_log::csv_field;
use ssdlab_lab::table::{parquet, Column, Frame, Values};

/// The files one `run` writes, checked before it simulates.
pub(crate) struct Outputs {
    pub(crate) out: Option<OutputFile>,
    pub(crate) timeline: Option<OutputFile>,
    csv: Option<CsvTable>,
    parquet: Option<ParquetTable>,
    lat_log: Option<OutputFile>,
    columns: RunColumns,
}

impl Outputs {
    /// Every output creatable, none the same file as another or as an input, an existing
    /// table's header this run's.
    pub(crate) fn check(args: &crate::RunArgs) -> Result<Outputs, InputError> {
        let named = [
            ("--out", &args.out),
            ("--csv", &args.csv),
            ("--parquet", &args.parquet),
            ("--timeline", &args.timeline),
            ("--lat-log", &args.lat_log),
        ];
        let outputs: Vec<(&str, &Path)> = named.iter().filter_map(|(o, p)| Some((*o, p.as_deref()?))).collect();
        reject_same_files(&[("--config", &args.config), ("--workload", &args.workload)], &outputs)?;
        let columns = RunColumns::of(args);
        Ok(Outputs {
            out: args.out.as_deref().map(OutputFile::check).transpose()?,
            timeline: args.timeline.as_deref().map(OutputFile::check).transpose()?,
            csv: args.csv.as_deref().map(|p| CsvTable::check(p, csv_header())).transpose()?,
            parquet: args.parquet.as_deref().map(|p| ParquetTable::check(p, columns.frame(&[]))).transpose()?,
            lat_log: args.lat_log.as_deref().map(OutputFile::check).transpose()?,
            columns,
        })
    }

    /// Runs the simulation, writing the latency log (if asked for) as it goes.
    pub(crate) fn run(
        &self,
        cfg: &ssdlab::Config,
        wl: &ssdlab::WorkloadSpec,
        seed: Option<u64>,
        opts: &ssdlab::RunOptions,
    ) -> Result<ssdlab::sim::Outcome, InputError> {
        let sim = ssdlab::Simulation::new(cfg, wl, seed.unwrap_or(wl.seed), opts)?;
        let Some(file) = &self.lat_log else { return Ok(sim.run()?) };
        let stream = file.stream()?;
        let name = file.path.display().to_string();
        let outcome = sim.with_latency_log(stream.writer()?, &name).run().map_err(|e| match e {
            ssdlab::Error::Io { file: f, source } if f == name => file.failed(source),
            other => other.into(),
        })?;
        stream.commit()?;
        Ok(outcome)
    }

    /// Writes `json` to `--out` and a table row per report to `--csv` and `--parquet`.
    pub(crate) fn write(&self, json: &str, reports: &[ssdlab::Report]) -> Result<(), InputError> {
        if let Some(file) = &self.out {
            file.write(|w| w.write_all(json.as_bytes()))?;
        }
        if let Some(table) = &self.csv {
            let rows: Vec<String> = reports.iter().map(|r| self.columns.row(r)).collect();
            table.append(&rows)?;
        }
        if let Some(table) = &self.parquet {
            table.add(self.columns.frame(reports))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--parquet`'s columns are `--csv`'s, in its order.
    #[test]
    fn the_parquet_table_has_the_csv_columns() {
        let columns = RunColumns { fields: Default::default(), set: String::new(), unset: String::new() };
        let frame = columns.frame(&[]);
        let names: Vec<&str> = frame.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names.join(","), csv_header());
    }
}
