//! The report's cost sweep (issue 33 item 4): the per-block flush costs the paper does not
//! give — a CMT block tested by DFTL's and CDFTL's scan, a dirty block FMMU's flush visits —
//! each at every value of [`SCAN_PS`], CDFTL-4 and FMMU on the random writes, as shares of
//! ideal. The main rows' values are assumptions; the sweep shows what hangs on them.

use std::fmt::Write as _;

use super::super::{cost_run, pick, Row, Synthetic, PER_BLOCK_NS, SCAN_PS, SWEEP_WORKLOADS, SWEPT, WAYS};
use super::{of_ideal_interval, pct, with_half};
use crate::reproduce::fmmu::seeds::Interval;
use crate::reproduce::template::Values;
use ssdlab::Config;

/// The paper's CDFTL-4 random-write share of ideal (§5.3).
pub const PAPER_CDFTL4: f64 = 0.88;

/// Picoseconds as ns, without trailing zeros (375, 37.5, 2.5).
fn ns(ps: u32) -> String {
    format!("{}", ps as f64 / 1000.0)
}

/// `scheme`'s throughput on `w` at `block_ps` per block over ideal's, with its interval.
pub fn share(rows: &[Row], base: &Config, scheme: &str, block_ps: u32, w: Synthetic) -> Option<Interval> {
    of_ideal_interval(rows, w, cost_run(scheme, block_ps, base)?)
}

/// Whether `block_ps` is `scheme`'s main-row cost.
fn is_main(scheme: &str, block_ps: u32, base: &Config) -> bool {
    cost_run(scheme, block_ps, base) == Some(scheme)
}

/// The section's values.
pub fn values(v: &mut Values, rows: &[Row], means: &[Row], base: &Config) {
    let costs: Vec<String> = SCAN_PS.iter().map(|&p| ns(p)).collect();
    v.set("sweep_costs", format!("{} and {}", costs[..costs.len() - 1].join(", "), costs[costs.len() - 1]));
    v.set("sweep_main_scan", PER_BLOCK_NS);
    v.set("ways", WAYS);
    v.set("sweep_main_fmmu", base.ftl.firmware.flush_block_ns);
    v.set("sweep_rows", table(rows, means, base));
    v.set("sweep_summary", summary(rows, base));
}

/// A row per swept scheme and cost: shares of ideal on each random-write workload, and the
/// flushes' counters before GC.
fn table(rows: &[Row], means: &[Row], base: &Config) -> String {
    let mut m = String::new();
    for scheme in SWEPT {
        for &p in &SCAN_PS {
            let main = if is_main(scheme, p, base) { " (main row, assumed)" } else { "" };
            let _ = write!(m, "| {scheme} | {} ns{main} |", ns(p));
            for w in SWEEP_WORKLOADS {
                let cell = share(rows, base, scheme, p, w).map_or("–".into(), |i| {
                    let pct = (i.0 * 100.0, i.1.map(|(lo, hi)| (lo * 100.0, hi * 100.0)));
                    with_half(&pct, 1, "%")
                });
                let _ = write!(m, " {cell} |");
            }
            let run = cost_run(scheme, p, base).and_then(|s| pick(means, "synthetic", Synthetic::RandWrite.name(), s));
            match run {
                Some(r) => {
                    let per_flush = r.flush_blocks_scanned as f64 / r.flushes.max(1) as f64;
                    let per_k = r.flushes as f64 * 1000.0 / r.requests.max(1) as f64;
                    let _ = writeln!(m, " {per_flush:.1} | {per_k:.0} | {} |", pct(r.util_ftl));
                }
                None => m.push_str(" – | – | – |\n"),
            }
        }
    }
    m
}

/// The computed sentences: each scheme's share before GC across the sweep, and where the
/// paper's 88% for CDFTL-4 falls among the sweep's points.
fn summary(rows: &[Row], base: &Config) -> String {
    let w = Synthetic::RandWrite;
    let shares = |scheme: &str| -> Vec<(u32, f64)> {
        SCAN_PS.iter().filter_map(|&p| share(rows, base, scheme, p, w).map(|i| (p, i.0))).collect()
    };
    let list = |xs: &[(u32, f64)]| {
        xs.iter().map(|(p, x)| format!("{} at {} ns", pct(*x), ns(*p))).collect::<Vec<_>>().join(", ")
    };
    let (c, f) = (shares("cdftl-4"), shares("fmmu"));
    if c.is_empty() || f.is_empty() {
        return String::new();
    }
    let mut m = format!(
        "Before GC, CDFTL-4 keeps {} of ideal's throughput (paper ≈{}); FMMU {}. ",
        list(&c),
        pct(PAPER_CDFTL4),
        list(&f)
    );
    let below: Vec<&(u32, f64)> = c.iter().filter(|x| x.1 < PAPER_CDFTL4).collect();
    let above: Vec<&(u32, f64)> = c.iter().filter(|x| x.1 >= PAPER_CDFTL4).collect();
    let _ = match (below.iter().min_by_key(|x| x.0), above.iter().max_by_key(|x| x.0)) {
        (Some(b), Some(a)) => write!(
            m,
            "The paper's {} for CDFTL-4 lies between the sweep's {} ns ({}) and {} ns ({}): a per-block cost the paper does not give decides it, so the main rows keep {} ns as an assumption rather than a value fitted to it.",
            pct(PAPER_CDFTL4), ns(b.0), pct(b.1), ns(a.0), pct(a.1), PER_BLOCK_NS
        ),
        (Some(_), None) => write!(m, "CDFTL-4 stays below the paper's {} at every cost swept.", pct(PAPER_CDFTL4)),
        _ => write!(m, "CDFTL-4 reaches the paper's {} at every cost swept.", pct(PAPER_CDFTL4)),
    };
    m.push('\n');
    m
}
