//! Typed results tables, and their Parquet files: the one place ssdlab writes Parquet.
//!
//! A [`Frame`] is a table by columns, each column of one type ([`Values`]): whole numbers
//! (Parquet INT64; a column with a number above 2^63 − 1 is unsigned: INT64 annotated as an
//! unsigned 64-bit integer), floats (DOUBLE), booleans (BOOLEAN) or text (BYTE_ARRAY annotated
//! as a UTF-8 string). A value may be missing (null); a column is nullable in the file only if
//! it holds a null. Frames come from:
//!
//! - a sweep's table ([`Frame::from_json`]: each column typed by its JSON values, text if
//!   they mix numbers and text), written as `OUT/results.parquet` by `ssdlab sweep` and the
//!   Python package ([`crate::sweep::write_results`]);
//! - a reproduction's results.csv ([`Frame::from_csv`]: each column typed as pandas'
//!   `read_csv` types it, so results.parquet reads as results.csv does;
//!   [`crate::reproduce::columns`]);
//! - `ssdlab run --parquet`'s rows: the command's columns (which run it is), then
//!   [`report_columns`], the columns of `--csv` typed.
//!
//! [`parquet::to_bytes`] writes a frame as one Parquet file (one row group, snappy pages);
//! [`parquet::read`] reads back a file of these types (`run --parquet` rewrites a file with
//! its old rows and the new one: Parquet cannot be appended to). Not for large data: a frame
//! is held in memory whole, as tables of a few thousand rows are.

pub mod parquet;

#[cfg(test)]
mod tests;

use serde_json::Value;
use ssdlab::Report;

/// One column's values, all of one type; `None` is a missing value.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Int(Vec<Option<i64>>),
    UInt(Vec<Option<u64>>),
    Float(Vec<Option<f64>>),
    Bool(Vec<Option<bool>>),
    Text(Vec<Option<String>>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::UInt(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Text(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a value is missing (the column is then nullable in the file).
    pub fn has_null(&self) -> bool {
        match self {
            Values::Int(v) => v.iter().any(Option::is_none),
            Values::UInt(v) => v.iter().any(Option::is_none),
            Values::Float(v) => v.iter().any(Option::is_none),
            Values::Bool(v) => v.iter().any(Option::is_none),
            Values::Text(v) => v.iter().any(Option::is_none),
        }
    }

    /// The type's name in messages: the Parquet type it is written as.
    pub fn type_name(&self) -> &'static str {
        match self {
            Values::Int(_) => "INT64",
            Values::UInt(_) => "INT64 (unsigned)",
            Values::Float(_) => "DOUBLE",
            Values::Bool(_) => "BOOLEAN",
            Values::Text(_) => "UTF8 string",
        }
    }

    /// `other`'s values after these, if both are of one type.
    fn extend(&mut self, other: Values) -> bool {
        match (self, other) {
            (Values::Int(a), Values::Int(b)) => a.extend(b),
            (Values::UInt(a), Values::UInt(b)) => a.extend(b),
            (Values::Float(a), Values::Float(b)) => a.extend(b),
            (Values::Bool(a), Values::Bool(b)) => a.extend(b),
            (Values::Text(a), Values::Text(b)) => a.extend(b),
            _ => return false,
        }
        true
    }
}

/// A named column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub values: Values,
}

/// A table by columns, every column as long as the others.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Frame {
    pub columns: Vec<Column>,
}

impl Frame {
    /// The frame of `columns`; panics if they differ in length (a bug of the caller).
    pub fn new(columns: Vec<Column>) -> Frame {
        if let Some(first) = columns.first() {
            let n = first.values.len();
            assert!(columns.iter().all(|c| c.values.len() == n), "every column of a frame has {n} values");
        }
        Frame { columns }
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.values.len())
    }

    /// The columns' names and types, as a message shows them: `name (TYPE)`.
    fn described(&self, i: usize) -> Option<String> {
        self.columns.get(i).map(|c| format!("`{}` ({})", c.name, c.values.type_name()))
    }

    /// `other`'s rows after these, if both have the same columns (names, types, order);
    /// otherwise the first column that differs, as "column N is X where the new rows have Y".
    pub fn append(&mut self, other: Frame) -> Result<(), String> {
        let same = |i: usize| {
            let (a, b) = (&self.columns[i], &other.columns[i]);
            a.name == b.name && std::mem::discriminant(&a.values) == std::mem::discriminant(&b.values)
        };
        let n = self.columns.len().max(other.columns.len());
        if let Some(i) = (0..n).find(|&i| i >= self.columns.len() || i >= other.columns.len() || !same(i)) {
            let show = |f: &Frame| f.described(i).unwrap_or_else(|| "(nothing)".into());
            return Err(format!("column {} is {} where the new rows have {}", i + 1, show(self), show(&other)));
        }
        for (a, b) in self.columns.iter_mut().zip(other.columns) {
            assert!(a.values.extend(b.values), "types checked above");
        }
        Ok(())
    }

    /// The frame of a sweep's table: `columns` and rows of JSON values, each column typed by
    /// its values ([`json_column`]).
    pub fn from_json(columns: &[String], rows: &[Vec<Value>]) -> Frame {
        assert!(rows.iter().all(|r| r.len() == columns.len()), "a value per column in every row");
        let columns = columns
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let cells: Vec<&Value> = rows.iter().map(|r| &r[i]).collect();
                Column { name: name.clone(), values: json_column(&cells) }
            })
            .collect();
        Frame::new(columns)
    }

    /// The frame of CSV text (a header line, then rows; cells quoted as RFC 4180 quotes them),
    /// each column typed by its cells ([`text_column`]). A row with another number of cells
    /// than the header is an error naming its line.
    pub fn from_csv(text: &str) -> Result<Frame, String> {
        let mut lines = csv_records(text);
        let Some(header) = lines.next() else { return Ok(Frame::default()) };
        let mut cells: Vec<Vec<String>> = vec![Vec::new(); header.len()];
        for (i, row) in lines.enumerate() {
            if row.len() != header.len() {
                return Err(format!("line {}: {} cells where the header has {}", i + 2, row.len(), header.len()));
            }
            for (column, cell) in cells.iter_mut().zip(row) {
                column.push(cell);
            }
        }
        let columns = header.into_iter().zip(cells).map(|(name, c)| Column { name, values: text_column(&c) });
        Ok(Frame::new(columns.collect()))
    }
}

/// A column of JSON values, typed by them: nulls are missing values; booleans alone are
/// [`Values::Bool`]; whole numbers alone [`Values::Int`] (or [`Values::UInt`] if one is
/// above `i64::MAX` and none below 0); numbers [`Values::Float`]; anything else
/// [`Values::Text`], each value as the CSV shows it (a string as it is, a number or list as
/// JSON). A column of nulls only is a float column (as pandas reads an empty CSV column).
pub fn json_column(cells: &[&Value]) -> Values {
    let present = || cells.iter().filter(|v| !v.is_null());
    let each = |f: &dyn Fn(&Value) -> bool| present().all(|v| f(v));
    let opt = |f: &dyn Fn(&Value) -> Option<f64>| cells.iter().map(|v| f(v)).collect();
    if present().next().is_none() {
        return Values::Float(opt(&|_| None));
    }
    if each(&|v| v.is_boolean()) {
        return Values::Bool(cells.iter().map(|v| v.as_bool()).collect());
    }
    if each(&|v| v.is_i64()) {
        return Values::Int(cells.iter().map(|v| v.as_i64()).collect());
    }
    if each(&|v| v.is_u64()) {
        return Values::UInt(cells.iter().map(|v| v.as_u64()).collect());
    }
    if each(&|v| v.is_number()) {
        return Values::Float(opt(&|v| v.as_f64()));
    }
    Values::Text(
        cells
            .iter()
            .map(|v| match v {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            })
            .collect(),
    )
}

/// A column of CSV cells, typed as pandas' `read_csv` types one: an empty cell is missing;
/// whole numbers alone are [`Values::Int`] (or [`Values::UInt`] above `i64::MAX`); numbers
/// (`1.5`, `1e3`, `inf`, `nan`) [`Values::Float`]; `true`/`false` alone (any of pandas'
/// spellings: `True`, `TRUE`) [`Values::Bool`]; anything else [`Values::Text`], each cell as
/// written. A column of empty cells only is a float column.
pub fn text_column(cells: &[String]) -> Values {
    let present = || cells.iter().filter(|c| !c.is_empty());
    fn opt(c: &str) -> Option<&str> {
        (!c.is_empty()).then_some(c)
    }
    if present().next().is_none() {
        return Values::Float(vec![None; cells.len()]);
    }
    if present().all(|c| c.parse::<i64>().is_ok()) {
        return Values::Int(cells.iter().map(|c| opt(c).and_then(|c| c.parse().ok())).collect());
    }
    if present().all(|c| c.parse::<u64>().is_ok()) {
        return Values::UInt(cells.iter().map(|c| opt(c).and_then(|c| c.parse().ok())).collect());
    }
    if present().all(|c| c.parse::<f64>().is_ok()) {
        return Values::Float(cells.iter().map(|c| opt(c).and_then(|c| c.parse().ok())).collect());
    }
    let boolean = |c: &str| match c {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    };
    if present().all(|c| boolean(c).is_some()) {
        return Values::Bool(cells.iter().map(|c| opt(c).and_then(boolean)).collect());
    }
    Values::Text(cells.iter().map(|c| opt(c).map(str::to_string)).collect())
}

/// The records of CSV text: cells split at commas outside quotes, `""` in a quoted cell a
/// quote, a line break in one part of the cell; records end at a line break (`\n` or
/// `\r\n`) outside quotes. Blank lines are skipped.
fn csv_records(text: &str) -> impl Iterator<Item = Vec<String>> + '_ {
    let mut chars = text.chars().peekable();
    std::iter::from_fn(move || loop {
        chars.peek()?;
        let (mut record, mut cell, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
        while let Some(c) = chars.next() {
            any = true;
            match c {
                '"' if quoted && chars.peek() == Some(&'"') => {
                    chars.next();
                    cell.push('"');
                }
                '"' => quoted = !quoted,
                ',' if !quoted => record.push(std::mem::take(&mut cell)),
                '\r' if !quoted && chars.peek() == Some(&'\n') => {}
                '\n' if !quoted => break,
                c => cell.push(c),
            }
        }
        if !(any && record.is_empty() && cell.is_empty()) {
            record.push(cell);
            return Some(record);
        }
    })
}

/// Where a column of [`report_columns`] comes from.
enum Get {
    Text(fn(&Report) -> String),
    Count(fn(&Report) -> u64),
    Number(fn(&Report) -> f64),
}

/// The columns of [`Report::CSV_HEADER`], in its order, read from the report as
/// [`Report::csv_row`] reads them (a test checks both).
const REPORT_COLUMNS: [(&str, Get); 18] = [
    ("scheduler", Get::Text(|r| r.config.hil.scheduler.to_string())),
    ("tsu", Get::Text(|r| r.config.tsu.policy.to_string())),
    ("requests", Get::Count(|r| r.sim.host.requests_completed)),
    ("iops", Get::Number(|r| r.sim.host.iops)),
    ("bandwidth_mb_s", Get::Number(|r| r.sim.host.bandwidth_mb_s)),
    ("latency_mean_us", Get::Number(|r| r.sim.latency_us.all.mean)),
    ("latency_p99_us", Get::Number(|r| r.sim.latency_us.all.p99)),
    ("read_latency_mean_us", Get::Number(|r| r.sim.latency_us.read.mean)),
    ("write_latency_mean_us", Get::Number(|r| r.sim.latency_us.write.mean)),
    ("chip_utilization", Get::Number(|r| r.sim.flash.chip_utilization)),
    ("inter_chip_idleness", Get::Number(|r| r.sim.flash.inter_chip_idleness)),
    ("intra_chip_idleness", Get::Number(|r| r.sim.flash.intra_chip_idleness)),
    ("transaction_reduction", Get::Number(|r| r.sim.flash.transaction_reduction)),
    ("queue_stall_s", Get::Number(|r| r.sim.host.queue_stall_s)),
    ("waf", Get::Number(|r| r.sim.gc.waf)),
    ("gc_invocations", Get::Count(|r| r.sim.gc.invocations)),
    ("sim_time_s", Get::Number(|r| r.sim.sim_time_ps as f64 / 1e12)),
    ("ramp_excluded", Get::Count(|r| r.sim.host.ramp_excluded)),
];

/// The main table's columns of `reports` (those of `ssdlab run --csv` after the run's own),
/// typed: text, counts as INT64 and the rest as DOUBLE, at full precision (the CSV rounds
/// them to 3 to 9 decimals).
pub fn report_columns(reports: &[Report]) -> Vec<Column> {
    let count = |n: u64| i64::try_from(n).expect("a count below 2^63");
    REPORT_COLUMNS
        .iter()
        .map(|(name, get)| {
            let values = match get {
                Get::Text(f) => Values::Text(reports.iter().map(|r| Some(f(r))).collect()),
                Get::Count(f) => Values::Int(reports.iter().map(|r| Some(count(f(r)))).collect()),
                Get::Number(f) => Values::Float(reports.iter().map(|r| Some(f(r))).collect()),
            };
            Column { name: name.to_string(), values }
        })
        .collect()
}
