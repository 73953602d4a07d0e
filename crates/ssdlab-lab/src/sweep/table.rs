//! A sweep's results table: one row per run, the grid's parameters then the report's main
//! numbers ([`summary`]), the same table from every backend, written as `OUT/results.csv` and
//! `OUT/results.parquet` ([`Table::write`]).

use std::path::Path;

use serde_json::Value;

use super::grid::Point;
use crate::table::{parquet, Frame};
use ssdlab::error::Result;
use ssdlab::Report;

/// A report's main numbers, flat, in this order:
///
/// `scheduler`, `tsu`, `seed`, `sim_time_s`; `requests_completed`, `iops`,
/// `bandwidth_mb_s`, `read_bandwidth_mb_s`, `write_bandwidth_mb_s`, `host_wait_us_mean`,
/// `device_us_mean`, `queue_stall_s` (`sim.host`); `latency_{mean,p50,p99,p999,max}_us` then
/// `read_latency_…` and `write_latency_…` (`sim.latency_us`); `chip_utilization`,
/// `plane_utilization`, `inter_chip_idleness`, `intra_chip_idleness`,
/// `transaction_reduction` (`sim.flash`); `waf`, `gc_invocations`, `gc_pages_moved`,
/// `gc_erases` (`sim.gc`); `cache_hit_ratio`; `wall_s` (`run`, the only one that depends on
/// the machine).
pub fn summary(r: &Report) -> Vec<(String, Value)> {
    let s = &r.sim;
    let h = &s.host;
    let mut out: Vec<(String, Value)> = Vec::with_capacity(40);
    let mut put = |k: &str, v: Value| out.push((k.to_string(), v));
    put("scheduler", json(&r.config.hil.scheduler));
    put("tsu", json(&r.config.tsu.policy));
    put("seed", r.seed.into());
    put("sim_time_s", (s.sim_time_ps as f64 / 1e12).into());
    put("requests_completed", h.requests_completed.into());
    put("iops", h.iops.into());
    put("bandwidth_mb_s", h.bandwidth_mb_s.into());
    put("read_bandwidth_mb_s", h.read_bandwidth_mb_s.into());
    put("write_bandwidth_mb_s", h.write_bandwidth_mb_s.into());
    put("host_wait_us_mean", h.host_wait_us_mean.into());
    put("device_us_mean", h.device_us_mean.into());
    put("queue_stall_s", h.queue_stall_s.into());
    let l = &s.latency_us;
    for (prefix, c) in [("", &l.all), ("read_", &l.read), ("write_", &l.write)] {
        for (q, v) in [("mean", c.mean), ("p50", c.p50), ("p99", c.p99), ("p999", c.p999), ("max", c.max)] {
            put(&format!("{prefix}latency_{q}_us"), v.into());
        }
    }
    let f = &s.flash;
    put("chip_utilization", f.chip_utilization.into());
    put("plane_utilization", f.plane_utilization.into());
    put("inter_chip_idleness", f.inter_chip_idleness.into());
    put("intra_chip_idleness", f.intra_chip_idleness.into());
    put("transaction_reduction", f.transaction_reduction.into());
    put("waf", s.gc.waf.into());
    put("gc_invocations", s.gc.invocations.into());
    put("gc_pages_moved", s.gc.pages_moved.into());
    put("gc_erases", s.gc.erases.into());
    put("cache_hit_ratio", s.cache.hit_ratio.into());
    put("wall_s", r.run.wall_s.into());
    out
}

fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("config values serialise")
}

/// The results: `columns`, then one row of values per run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

impl Table {
    /// The rows of `points` from their reports: `run` (the name), the parameters
    /// ([`Point::params`], with `seed` the seed the run used), then [`summary`] without
    /// `seed` and `wall_s`, so that the same grid gives the same table on every backend.
    pub fn of(points: &[Point], reports: &[Report]) -> Table {
        assert_eq!(points.len(), reports.len(), "a report per run");
        let mut columns = Vec::new();
        let mut rows = Vec::with_capacity(points.len());
        for (p, r) in points.iter().zip(reports) {
            let mut row = vec![("run".to_string(), Value::from(p.name.clone()))];
            for (k, v) in p.params() {
                row.push((k.clone(), if k == "seed" { r.seed.into() } else { v }));
            }
            row.extend(summary(r).into_iter().filter(|(k, _)| k != "seed" && k != "wall_s"));
            if columns.is_empty() {
                columns = row.iter().map(|(k, _)| k.clone()).collect();
            }
            assert!(row.iter().map(|(k, _)| k).eq(columns.iter()), "every run of a grid has the same columns");
            rows.push(row.into_iter().map(|(_, v)| v).collect());
        }
        Table { columns, rows }
    }

    /// The table with each column typed by its values ([`crate::table::json_column`]), as
    /// results.parquet holds it.
    pub fn frame(&self) -> Frame {
        Frame::from_json(&self.columns, &self.rows)
    }

    /// Write `out/results.csv` ([`Table::to_csv`]) and `out/results.parquet` ([`Table::frame`]),
    /// each whole or not at all ([`super::write_atomic`]). Both files hold the same rows and
    /// columns; the numbers in the CSV are the shortest text that reads back to the same value.
    pub fn write(&self, out: &Path) -> Result<()> {
        super::write_atomic(&out.join("results.csv"), self.to_csv().as_bytes())?;
        super::write_atomic(&out.join("results.parquet"), &parquet::to_bytes(&self.frame()))
    }

    /// The table as CSV: a header line, then a line per run; strings quoted when they hold a
    /// comma, a quote or a line break.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let line = |out: &mut String, cells: &mut dyn Iterator<Item = String>| {
            let cells: Vec<String> = cells.map(|c| csv_cell(&c)).collect();
            out.push_str(&cells.join(","));
            out.push('\n');
        };
        line(&mut out, &mut self.columns.iter().cloned());
        for row in &self.rows {
            line(&mut out, &mut row.iter().map(cell));
        }
        out
    }
}

/// A value as a CSV cell: a string unquoted, null empty, a number as JSON writes it (the
/// shortest text that reads back to the same number).
fn cell(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}
