//! The ablation section of REPORT.md (issue 33 item 1): PACP built up one mechanism at a
//! time ([`ABLATION`]: the partition alone, + TRH, + GC-piggybacked migration, + idle-time
//! migration) beside the baseline and Lv et al., at the figures' channel count — read
//! latency against the baseline per workload, the counters that show what each step changed,
//! and which step contributes what over the stand-ins.

use std::fmt::Write as _;

use super::report::{change, pct, pct2};
use super::{grid, pick, vs_baseline, workloads_in, Row, Scheme, ABLATION};
use crate::reproduce::template::Values;
use crate::reproduce::{geomean, mean};

/// A step moving the stand-ins' geometric-mean read latency by less than this (a share of
/// the baseline's) shows no effect, and the report gives the counter that says why [I, set
/// before the first run with the ablation].
pub const NO_EFFECT: f64 = 0.01;

/// The steps' names in the report.
const STEPS: [&str; 4] = ["(a) partition alone", "(b) + TRH", "(c) + GC-piggybacked migration", "(d) + idle migration"];

/// Read latency against the baseline of `s` on `w` at the figures' channel count.
fn ratio(rows: &[Row], w: &str, s: Scheme) -> Option<f64> {
    vs_baseline(rows, w, s, grid().figure_channels, |r| r.read_us)
}

/// Geometric mean over the workloads (`synthetic`: the stand-ins, else the excerpts) of
/// `s`'s read latency against the baseline.
fn over(rows: &[Row], synthetic: bool, s: Scheme) -> Option<f64> {
    let v: Vec<f64> = workloads_in(rows, synthetic).iter().filter_map(|w| ratio(rows, w, s)).collect();
    (!v.is_empty()).then(|| geomean(&v))
}

/// Mean over the stand-ins of `f` of `s`'s row.
fn mean_of(rows: &[Row], s: Scheme, f: impl Fn(&Row) -> Option<f64>) -> Option<f64> {
    let ch = grid().figure_channels;
    let v: Vec<f64> = workloads_in(rows, true).iter().filter_map(|w| f(pick(rows, w, s, ch)?)).collect();
    (!v.is_empty()).then(|| mean(&v))
}

/// A share of the host's page writes (None without any).
fn of_writes(r: &Row, n: u64) -> Option<f64> {
    (r.host_page_writes > 0).then(|| n as f64 / r.host_page_writes as f64)
}

/// Every page programmed: host, GC and idle-time migration.
fn programs(r: &Row) -> f64 {
    (r.user_programs + r.gc_programs + r.migrated_idle) as f64
}

pub fn section(v: &mut Values, rows: &[Row]) {
    v.set("ablation_rows", latency_table(rows));
    v.set("ablation_counters", counter_table(rows));
    v.set("ablation_summary", summary(rows));
}

/// Read latency against the baseline per workload, then the geometric means.
fn latency_table(rows: &[Row]) -> String {
    let ch = grid().figure_channels;
    let mut m = format!("| workload | baseline µs | lv | {} |\n|---|---|---|---|---|---|---|\n", STEPS.join(" | "));
    for synthetic in [true, false] {
        for w in workloads_in(rows, synthetic) {
            let Some(b) = pick(rows, w, Scheme::Baseline, ch) else { continue };
            let steps: Vec<String> = ABLATION.iter().map(|&s| change(ratio(rows, w, s))).collect();
            let _ = writeln!(
                m,
                "| {w} | {:.0} | {} | {} |",
                b.read_us,
                change(ratio(rows, w, Scheme::Lv)),
                steps.join(" | ")
            );
        }
    }
    for (synthetic, name) in [(true, "stand-ins, geometric mean"), (false, "excerpts, geometric mean")] {
        if workloads_in(rows, synthetic).is_empty() {
            continue;
        }
        let steps: Vec<String> = ABLATION.iter().map(|&s| change(over(rows, synthetic, s))).collect();
        let _ = writeln!(m, "| {name} | | {} | {} |", change(over(rows, synthetic, Scheme::Lv)), steps.join(" | "));
    }
    m.push('\n');
    m
}

/// Per workload, each step's counters.
fn counter_table(rows: &[Row]) -> String {
    let ch = grid().figure_channels;
    let mut m = String::from(
        "| workload | writes on Read channels (a / b / c / d) | writes without history / predicted read | reads on Read channels | TRH accuracy | migrated by GC (c / d) | migrated at idle (d) | Read channels at the end |\n|---|---|---|---|---|---|---|---|\n",
    );
    let all = |w: &str, f: &dyn Fn(&Row) -> String, steps: &[Scheme]| -> String {
        let cells: Vec<String> = steps.iter().map(|&s| pick(rows, w, s, ch).map_or("–".into(), f)).collect();
        cells.join(" / ")
    };
    let share = |x: Option<f64>| x.map_or("–".into(), pct);
    for w in workloads_in(rows, true).into_iter().chain(workloads_in(rows, false)) {
        let by_history = |r: &Row| {
            format!("{} / {}", share(of_writes(r, r.writes_no_history)), share(of_writes(r, r.writes_predicted_read)))
        };
        let _ = writeln!(
            m,
            "| {w} | {} | {} | {} | {} | {} | {} | {} |",
            all(w, &|r| share(r.writes_on_read), &ABLATION),
            all(w, &by_history, &ABLATION[1..2]),
            all(w, &|r| share(r.reads_on_read), &ABLATION),
            all(w, &|r| share(r.trh_accuracy), &ABLATION),
            all(w, &|r| r.migrated_gc.to_string(), &ABLATION[2..]),
            all(w, &|r| r.migrated_idle.to_string(), &ABLATION[3..]),
            all(w, &|r| r.read_channels_end.map_or("–".into(), |n| n.to_string()), &ABLATION),
        );
    }
    m.push('\n');
    m
}

/// Which step contributes what over the stand-ins, and for a step without effect the
/// counter that says why.
fn summary(rows: &[Row]) -> String {
    let ratios: Vec<Option<f64>> = ABLATION.iter().map(|&s| over(rows, true, s)).collect();
    let Some(ratios) = ratios.into_iter().collect::<Option<Vec<f64>>>() else { return String::new() };
    let cells: Vec<String> = STEPS.iter().zip(&ratios).map(|(n, &r)| format!("{n} {}", change(Some(r)))).collect();
    let lv = change(over(rows, true, Scheme::Lv));
    let mut out = format!(
        "Over the stand-ins (geometric mean of read latency against the baseline): {}; Lv {lv}.",
        cells.join(", ")
    );
    // Each step's move in points of the baseline's read latency, from the step before (the
    // first from the baseline).
    let moves: Vec<f64> = (0..4).map(|i| ratios[i] - if i == 0 { 1.0 } else { ratios[i - 1] }).collect();
    let by_move = |a: &(usize, &f64), b: &(usize, &f64)| a.1.total_cmp(b.1);
    let (best, lowest) = moves.iter().enumerate().min_by(by_move).expect("four steps");
    let (worst, highest) = moves.iter().enumerate().max_by(by_move).expect("four steps");
    if *lowest <= -NO_EFFECT {
        let _ = write!(
            out,
            " The step that lowers it most is {} ({:+.1} points): {}.",
            STEPS[best],
            lowest * 100.0,
            why(rows, best)
        );
    } else {
        out.push_str(" No step lowers it by a point or more.");
    }
    if *highest >= NO_EFFECT {
        let _ = write!(
            out,
            " The step that raises it most is {} ({:+.1} points): {}.",
            STEPS[worst],
            highest * 100.0,
            why(rows, worst)
        );
    }
    for (i, m) in moves.iter().enumerate().filter(|(_, m)| m.abs() < NO_EFFECT) {
        let _ = write!(out, " {} moves it by {:+.1} points: {}.", STEPS[i], m * 100.0, why(rows, i));
    }
    out.push('\n');
    out
}

/// The counter behind step `i`'s (lack of) effect, as means over the stand-ins.
fn why(rows: &[Row], i: usize) -> String {
    let share = |s: Scheme, f: fn(&Row) -> Option<f64>| mean_of(rows, s, f).map_or("–".into(), pct);
    let moved = |s: Scheme, f: fn(&Row) -> u64| {
        let pages = mean_of(rows, s, |r| Some(f(r) as f64)).unwrap_or(0.0);
        let of = mean_of(rows, s, |r| (programs(r) > 0.0).then(|| f(r) as f64 / programs(r))).unwrap_or(0.0);
        format!("{pages:.0} pages per stand-in, {} of all programs", pct2(of))
    };
    match i {
        0 => format!(
            "the partition keeps host writes off the Read channels ({} of page writes reach one) and serves {} of page reads there",
            share(Scheme::PacpPartition, |r| r.writes_on_read),
            share(Scheme::PacpPartition, |r| r.reads_on_read)
        ),
        1 => format!(
            "placing writes by their history takes the share of page writes on Read channels from {} to {} ({} of page writes have no history, which Algorithm 1 places on any channel, and {} are predicted read) and of page reads served there from {} to {}",
            share(Scheme::PacpPartition, |r| r.writes_on_read),
            share(Scheme::PacpNoMig, |r| r.writes_on_read),
            share(Scheme::PacpNoMig, |r| of_writes(r, r.writes_no_history)),
            share(Scheme::PacpNoMig, |r| of_writes(r, r.writes_predicted_read)),
            share(Scheme::PacpPartition, |r| r.reads_on_read),
            share(Scheme::PacpNoMig, |r| r.reads_on_read)
        ),
        2 => format!("GC-piggybacked migration moves {}", moved(Scheme::PacpGcMig, |r| r.migrated_gc)),
        _ => format!("idle-time migration moves {}", moved(Scheme::Pacp, |r| r.migrated_idle)),
    }
}
