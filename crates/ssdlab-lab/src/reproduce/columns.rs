//! Columns of a reproduction's results.csv taken from the run's report by name, as the sweep
//! table takes them: a column is a header, a path into the report's JSON (`sim.gc.waf`) and
//! a format. A reproduction lists its columns once ([`Field`]s in a `const` table), so
//! adding a counter to its results.csv is one line in that table. Every reproduction's table
//! is written twice, as results.csv and as results.parquet, the same rows ([`write_csv`]).

use std::fmt::Write as _;

use crate::table::{parquet, Frame};
use ssdlab::error::{Error, Result};
use ssdlab::Report;

/// How a column's number is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    /// A whole number.
    Int,
    /// A float with this many decimals.
    Fixed(usize),
}

/// Where a column's number comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// A dotted path into the report's JSON (`sim.latency_us.read.mean`).
    Path(&'static str),
    /// A number computed from the report (a unit conversion, a ratio).
    Derived(fn(&Report) -> f64),
    /// A whole number computed from the report.
    DerivedInt(fn(&Report) -> u64),
    /// A dotted path to a count in a part of the report that may be absent (0 then).
    PathOrZero(&'static str),
    /// Text computed from the report (a value that may be left empty).
    Text(fn(&Report) -> String),
}

/// One results.csv column read from the report.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The column's header.
    pub name: &'static str,
    pub source: Source,
    pub fmt: Fmt,
}

impl Field {
    pub const fn int(name: &'static str, path: &'static str) -> Field {
        Field { name, source: Source::Path(path), fmt: Fmt::Int }
    }

    pub const fn fixed(name: &'static str, path: &'static str, decimals: usize) -> Field {
        Field { name, source: Source::Path(path), fmt: Fmt::Fixed(decimals) }
    }

    pub const fn derived(name: &'static str, f: fn(&Report) -> f64, decimals: usize) -> Field {
        Field { name, source: Source::Derived(f), fmt: Fmt::Fixed(decimals) }
    }

    pub const fn derived_int(name: &'static str, f: fn(&Report) -> u64) -> Field {
        Field { name, source: Source::DerivedInt(f), fmt: Fmt::Int }
    }

    /// Text computed from the report, written as it is.
    pub const fn text(name: &'static str, f: fn(&Report) -> String) -> Field {
        Field { name, source: Source::Text(f), fmt: Fmt::Int }
    }

    /// A count under a part of the report that may be absent (a map cache's): 0 without it.
    pub const fn int_or_zero(name: &'static str, path: &'static str) -> Field {
        Field { name, source: Source::PathOrZero(path), fmt: Fmt::Int }
    }
}

/// The header: the reproduction's own columns (what a run is), then the fields'.
pub fn header(own: &[&str], fields: &[Field]) -> String {
    own.iter().copied().chain(fields.iter().map(|f| f.name)).collect::<Vec<_>>().join(",")
}

/// A run's line of results.csv: its own columns (`own`, already joined), then the fields'.
pub fn line(own: &str, report: &Report, fields: &[Field]) -> Result<String> {
    Ok(format!("{own},{}", values(report, fields)?))
}

/// Write `out`/results.csv: the header of `own` and `fields`, then each run's line.
pub fn write_table<'a>(
    out: &std::path::Path,
    own: &[&str],
    fields: &[Field],
    lines: impl Iterator<Item = &'a str>,
) -> Result<()> {
    let mut csv = header(own, fields);
    csv.push('\n');
    for l in lines {
        csv += l;
        csv.push('\n');
    }
    write_csv(out, &csv)
}

/// A results.csv column computed from a reproduction's own row type, for rows that combine
/// several runs (FLIN's: a shared run and its flows' alone runs).
pub struct RowColumn<R> {
    pub name: &'static str,
    pub value: fn(&R) -> String,
}

impl<R> RowColumn<R> {
    pub const fn new(name: &'static str, value: fn(&R) -> String) -> RowColumn<R> {
        RowColumn { name, value }
    }
}

/// Write `out`/results.csv from rows of `R`: the columns' names, then each row's values.
pub fn write_rows<R>(out: &std::path::Path, columns: &[RowColumn<R>], rows: &[R]) -> Result<()> {
    let mut csv = columns.iter().map(|c| c.name).collect::<Vec<_>>().join(",");
    csv.push('\n');
    for r in rows {
        csv += &columns.iter().map(|c| (c.value)(r)).collect::<Vec<_>>().join(",");
        csv.push('\n');
    }
    write_csv(out, &csv)
}

/// Write `out`/results.csv, then `out`/results.parquet: the same table, each column typed as
/// pandas reads the CSV's ([`Frame::from_csv`]), so that both read as the same DataFrame.
fn write_csv(out: &std::path::Path, csv: &str) -> Result<()> {
    crate::sweep::write_atomic(&out.join("results.csv"), csv.as_bytes())?;
    let frame = Frame::from_csv(csv).map_err(|e| internal(format!("results.csv as written: {e}")))?;
    crate::sweep::write_atomic(&out.join("results.parquet"), &parquet::to_bytes(&frame))
}

/// The fields' values of one report, comma-separated (after the reproduction's own ones).
/// A path the report does not have is an internal error naming it.
pub fn values(report: &Report, fields: &[Field]) -> Result<String> {
    let json = serde_json::to_value(report).map_err(|e| internal(format!("report to JSON: {e}")))?;
    values_with(&json, Some(report), fields)
}

fn internal(message: String) -> Error {
    Error::Internal { run: "results.csv".into(), message }
}

/// [`values`] of a report already in JSON (`report`: the same report typed, for derived
/// columns).
fn values_with(json: &serde_json::Value, report: Option<&Report>, fields: &[Field]) -> Result<String> {
    let mut out = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let typed = || report.ok_or_else(|| internal(format!("column {}: derived from no report", f.name)));
        let (path, or_zero) = match f.source {
            Source::Path(p) => (p, false),
            Source::PathOrZero(p) => (p, true),
            Source::Derived(g) => {
                let _ = write!(out, "{:.*}", if let Fmt::Fixed(d) = f.fmt { d } else { 0 }, g(typed()?));
                continue;
            }
            Source::DerivedInt(g) => {
                let _ = write!(out, "{}", g(typed()?));
                continue;
            }
            Source::Text(g) => {
                out.push_str(&g(typed()?));
                continue;
            }
        };
        let missing = || internal(format!("column {}: the report has no number at {path}", f.name));
        let found = path.split('.').try_fold(json, |v, key| v.get(key)).filter(|v| !v.is_null());
        let zero = serde_json::Value::from(0u64);
        let v = match found {
            Some(v) => v,
            None if or_zero => &zero,
            None => return Err(missing()),
        };
        let _ = match f.fmt {
            Fmt::Int => write!(out, "{}", v.as_u64().ok_or_else(missing)?),
            Fmt::Fixed(d) => write!(out, "{:.*}", d, v.as_f64().ok_or_else(missing)?),
        };
    }
    Ok(out)
}

/// [`values`] of a report already in JSON (path columns only).
pub fn values_of(json: &serde_json::Value, fields: &[Field]) -> Result<String> {
    values_with(json, None, fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The columns read the numbers at their paths and write them in their format.
    #[test]
    fn fields_read_report_numbers_by_path() {
        let r = serde_json::json!({ "sim": { "gc": { "invocations": 7, "waf": 1.23456 } } });
        let fields = [Field::int("gc", "sim.gc.invocations"), Field::fixed("waf", "sim.gc.waf", 2)];
        assert_eq!(header(&["trace"], &fields), "trace,gc,waf");
        assert_eq!(values_of(&r, &fields).unwrap(), "7,1.23");
        let bad = [Field::int("x", "sim.gc.no_such_counter")];
        let e = values_of(&r, &bad).unwrap_err().to_string();
        assert!(e.contains("sim.gc.no_such_counter"), "{e}");
    }
}
