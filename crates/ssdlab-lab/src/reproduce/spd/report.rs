//! REPORT.md of `reproduce spd`: every table beside the slides' numbers (docs/techniques.md §11.2),
//! computed from this run's rows.

use std::fmt::Write as _;

mod ablation;

use super::{pick, traces_in, vs_baseline, Row, Scheme, GC_FILL, SCHEMES};
use crate::reproduce::template::{render, section, Values};
use crate::reproduce::{geomean, Options};
use ssdlab::Config;

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Change against 1 as a signed percentage ("−48.6%").
fn change(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{:+.1}%", (x - 1.0) * 100.0))
}

/// Geometric mean over the traces of `scheme`'s ratio to Baseline-D, over the traces where
/// the ratio is positive (a scheme that ran no GC on a trace has no ratio to average).
pub fn mean_ratio(rows: &[Row], exp: &str, scheme: Scheme, factor: f64, f: fn(&Row) -> f64) -> Option<f64> {
    let v = positive_ratios(rows, exp, scheme, factor, f);
    (!v.is_empty()).then(|| geomean(&v))
}

/// `scheme`'s positive ratios to Baseline-D over the traces.
fn positive_ratios(rows: &[Row], exp: &str, scheme: Scheme, factor: f64, f: fn(&Row) -> f64) -> Vec<f64> {
    traces_in(rows).iter().filter_map(|t| vs_baseline(rows, exp, t, scheme, factor, f)).filter(|&x| x > 0.0).collect()
}

/// REPORT.md's prose: `experiments/spd/report.md`, its values set by [`report_md`].
const TEMPLATE: &str = include_str!("../../../../../experiments/spd/report.md");
const TEMPLATE_NAME: &str = "experiments/spd/report.md";

type Measure<'a> = (&'a str, fn(&Row) -> f64);

const NO_GC: &[Measure<'static>] = &[
    ("write latency", |r| r.write_us),
    ("read latency", |r| r.read_us),
    ("plane util (busy)", |r| r.plane_util_busy),
    ("plane util (time)", |r| r.plane_util_time),
];
const WITH_GC: &[Measure<'static>] = &[
    ("write latency", |r| r.write_us),
    ("read latency", |r| r.read_us),
    ("total GC cost", |r| r.gc_cost_s),
    ("GC count", |r| r.gc_invocations as f64),
    ("GC erases", |r| r.erases as f64),
];
const LATENCIES: &[Measure<'static>] = &[("write latency", |r| r.write_us), ("read latency", |r| r.read_us)];

pub fn report_md(opts: &Options, rows: &[Row], figures: &[(String, String)], wall_s: f64, base: &Config) -> String {
    let mut v = Values::new();
    header(&mut v, opts, rows, figures, wall_s, base);
    let nogc = "Slides s.23–24: without GC — write latency, read latency and plane utilization against Baseline-D";
    v.set("nogc_ratios", ratio_table(rows, "nogc", nogc, NO_GC));
    v.set("nogc_runs", absolute_rows(rows, "nogc"));
    v.set("gc_ratios", ratio_table(rows, "gc", "Slides s.26–28: with GC — against Baseline-D", WITH_GC));
    v.set("gc_runs", absolute_rows(rows, "gc"));
    v.set("cases", cases(rows));
    v.set("buffer_sweep", buffer_sweep(rows));
    let planes4 = "Slide s.30: 4 planes per die, with GC — against Baseline-D";
    v.set("planes4_ratios", ratio_table(rows, "planes4", planes4, LATENCIES));
    let held = "Sensitivity: without GC, a slot freed when its program ends (`cache.slot_release = \"programmed\"`) — against Baseline-D";
    v.set("nogc_held_ratios", ratio_table(rows, "nogc-held", held, LATENCIES));
    let held = "Sensitivity: with GC, a slot freed when its program ends — against Baseline-D";
    v.set("gc_held_ratios", ratio_table(rows, "gc-held", held, LATENCIES));
    v.set("gc_held_runs", absolute_rows(rows, "gc-held"));
    let idle = "Sensitivity: with GC in chip idle time (`tsu.urgent_gc = \"after_reads\"`, `ftl.gc.urgent_when = \"paced\"`) — against Baseline-D";
    v.set("gc_idle_ratios", ratio_table(rows, "gc-idle", idle, WITH_GC));
    v.set("gc_idle_runs", absolute_rows(rows, "gc-idle"));
    claims(&mut v, rows);
    v.set("ablation", ablation::section(rows));
    differences(&mut v, rows);
    setup(&mut v, base);
    render(TEMPLATE_NAME, TEMPLATE, &v)
}

/// Where each setting comes from, and the dated log of main-row changes:
/// `experiments/spd/provenance.toml`.
fn setup(v: &mut Values, base: &Config) {
    const FILE: &str = include_str!("../../../../../experiments/spd/provenance.toml");
    const NAME: &str = "experiments/spd/provenance.toml";
    let constant = |name: &str| (name == "GC_FILL").then(|| pct(GC_FILL));
    crate::reproduce::provenance::set(v, NAME, FILE, base, &constant);
}

/// Where this run and the slides differ: the values of the template's last section.
fn differences(v: &mut Values, rows: &[Row]) {
    let ratio = |exp: &str, s: Scheme, f: fn(&Row) -> f64| change(mean_ratio(rows, exp, s, 1.0, f));
    let total = |s: Scheme, f: fn(&Row) -> u64| {
        rows.iter().filter(|r| r.experiment == "gc" && r.scheme == s).map(f).sum::<u64>()
    };
    let mean_of = |exp: &str, s: Scheme, f: fn(&Row) -> f64| {
        let v: Vec<f64> = rows.iter().filter(|r| r.experiment == exp && r.scheme == s).map(f).collect();
        crate::reproduce::mean(&v)
    };
    v.set("floor", rows.iter().filter(|r| r.experiment == "gc").map(|r| r.buffer_pages).min().unwrap_or(0));
    v.set("spd_gc_write", ratio("gc", Scheme::Spd, |r| r.write_us));
    v.set("spd_gc_held_write", ratio("gc-held", Scheme::Spd, |r| r.write_us));
    v.set("spd_nogc_write", ratio("nogc", Scheme::Spd, |r| r.write_us));
    v.set("spd_nogc_held_write", ratio("nogc-held", Scheme::Spd, |r| r.write_us));
    v.set("sweep", buffer_steps(rows));
    v.set("spd_pad_held_write", ratio("gc-held", Scheme::SpdPad, |r| r.write_us));
    v.set("spd_pad_pages", total(Scheme::SpdPad, |r| r.cache_pad_pages));
    v.set("busy_baseline_d", pct(mean_of("nogc", Scheme::BaselineD, |r| r.plane_util_busy)));
    v.set("busy_spd", pct(mean_of("nogc", Scheme::Spd, |r| r.plane_util_busy)));
    v.set("aligned_spd", pct(mean_of("nogc", Scheme::Spd, |r| r.user_cases[3])));
    v.set("aligned_baseline_d", pct(mean_of("nogc", Scheme::BaselineD, |r| r.user_cases[3])));
    v.set("time_baseline_d", pct(mean_of("nogc", Scheme::BaselineD, |r| r.plane_util_time)));
    v.set("per_trace", per_trace_reads(rows));
    v.set("gc_count", ratio("gc", Scheme::Spd, |r| r.gc_invocations as f64));
    v.set("gc_erases", ratio("gc", Scheme::Spd, |r| r.erases as f64));
    v.set("twinblk_gc_count", ratio("gc", Scheme::TwinBlk, |r| r.gc_invocations as f64));
    v.set("gc_cost", ratio("gc", Scheme::Spd, |r| r.gc_cost_s));
    v.set("gc_aligned", pct(gc_aligned_mean(rows, Scheme::Spd)));
    v.set("gc_pads", total(Scheme::Spd, |r| r.pad_pages));
    v.set("buffered_moves", total(Scheme::Spd, |r| r.buffered_moves));
    v.set("gcpad_write", ratio("gc", Scheme::SpdGcPad, |r| r.write_us));
    v.set("waf_spd", format!("{:.2}", mean_of("gc", Scheme::Spd, |r| r.waf)));
    v.set("waf_baseline_d", format!("{:.2}", mean_of("gc", Scheme::BaselineD, |r| r.waf)));
    v.set("hits", hit_ratios(rows));
    v.set("vs_twinblk", change(mean_vs(rows, "gc", Scheme::TwinBlk)));
    v.set("vs_paragc", change(mean_vs(rows, "gc", Scheme::ParaGc)));
    v.set("paragc_gc_count", ratio("gc", Scheme::ParaGc, |r| r.gc_invocations as f64));
    v.set("paragc_write", ratio("gc", Scheme::ParaGc, |r| r.write_us));
    v.set("paragc_unaligned_write", ratio("gc", Scheme::ParaGcUnaligned, |r| r.write_us));
    v.set("paragc_gc_aligned", pct(gc_aligned_mean(rows, Scheme::ParaGc)));
    v.set("paragc_unaligned_gc_aligned", pct(gc_aligned_mean(rows, Scheme::ParaGcUnaligned)));
    v.set("blocking_baseline_d", change(blocking_over_idle(rows, Scheme::BaselineD)));
    v.set("blocking_spd", change(blocking_over_idle(rows, Scheme::Spd)));
    v.set("idle_spd_write", ratio("gc-idle", Scheme::Spd, |r| r.write_us));
}

/// Geometric mean over the traces of `scheme`'s write latency under blocking GC (`gc`) over
/// its write latency with GC in idle time (`gc-idle`).
fn blocking_over_idle(rows: &[Row], scheme: Scheme) -> Option<f64> {
    let v: Vec<f64> = traces_in(rows)
        .iter()
        .filter_map(|t| {
            let idle = pick(rows, "gc-idle", t, scheme, 1.0)?.write_us;
            let blocking = pick(rows, "gc", t, scheme, 1.0)?.write_us;
            (idle > 0.0).then(|| blocking / idle)
        })
        .collect();
    (!v.is_empty()).then(|| geomean(&v))
}

/// SPD against Baseline-D with GC at each buffer size: "1× (9/9/16): −41.3%; ...".
fn buffer_steps(rows: &[Row]) -> String {
    let step = |&f: &f64| {
        let exp = if f == 1.0 { "gc" } else { "buffer" };
        let pages: Vec<String> = traces_in(rows)
            .iter()
            .filter_map(|t| pick(rows, exp, t, Scheme::Spd, f))
            .map(|r| r.buffer_pages.to_string())
            .collect();
        format!("{f}× ({} pages): {}", pages.join("/"), change(mean_ratio(rows, exp, Scheme::Spd, f, |r| r.write_us)))
    };
    sweep_factors(rows).iter().map(step).collect::<Vec<_>>().join("; ")
}

/// Per trace without GC: Baseline-D's plane-busy time beside SPD's change of each latency.
fn per_trace_reads(rows: &[Row]) -> String {
    let one = |t: &&str| {
        let b = pick(rows, "nogc", t, Scheme::BaselineD, 1.0)?;
        let w = change(vs_baseline(rows, "nogc", t, Scheme::Spd, 1.0, |r| r.write_us));
        let rd = change(vs_baseline(rows, "nogc", t, Scheme::Spd, 1.0, |r| r.read_us));
        Some(format!("{t}: planes busy {} of the time, SPD writes {w}, reads {rd}", pct(b.plane_util_time)))
    };
    traces_in(rows).iter().filter_map(one).collect::<Vec<_>>().join("; ")
}

/// Per trace without GC: Baseline-D's buffer hit ratio → SPD's.
fn hit_ratios(rows: &[Row]) -> String {
    let one = |t: &&str| {
        let d = pick(rows, "nogc", t, Scheme::BaselineD, 1.0)?.hit_ratio;
        let s = pick(rows, "nogc", t, Scheme::Spd, 1.0)?.hit_ratio;
        Some(format!("{t} {d:.4} → {s:.4}"))
    };
    traces_in(rows).iter().filter_map(one).collect::<Vec<_>>().join(", ")
}

/// The buffer factors of the sweep, with the main runs' 1.
fn sweep_factors(rows: &[Row]) -> Vec<f64> {
    let mut factors: Vec<f64> = rows.iter().filter(|r| r.experiment == "buffer").map(|r| r.buffer_factor).collect();
    factors.push(1.0);
    factors.sort_by(f64::total_cmp);
    factors.dedup();
    factors
}

fn header(v: &mut Values, opts: &Options, rows: &[Row], figures: &[(String, String)], wall_s: f64, base: &Config) {
    let n = &base.nand;
    v.run_line(opts, "runs", rows.len(), wall_s);
    v.geometry(n);
    v.set("page_kib", n.page_bytes / 1024);
    v.set("op", base.ftl.overprovisioning_ratio);
    v.set("gc_fill", pct(GC_FILL));
    let files: Vec<String> = figures.iter().map(|(f, _)| format!("`{f}`")).collect();
    v.set("figures", files.join(", "));
    v.set("buffers", buffers(rows));
}

fn buffers(rows: &[Row]) -> String {
    traces_in(rows)
        .iter()
        .filter_map(|t| pick(rows, "nogc", t, Scheme::Spd, 1.0).map(|r| format!("{t} {}", r.buffer_pages)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// For each measure, each scheme's geometric-mean ratio to Baseline-D, and per trace, under
/// the heading `title`; nothing when the run has no experiment `exp`.
fn ratio_table(rows: &[Row], exp: &str, title: &str, measures: &[Measure<'_>]) -> String {
    let mut m = String::new();
    if !rows.iter().any(|r| r.experiment == exp) {
        return m;
    }
    let _ = writeln!(m, "## {title}\n");
    let traces = traces_in(rows);
    let _ = writeln!(m, "| measure | scheme | mean | {} |", traces.join(" | "));
    let _ = writeln!(m, "|---|---|---|{}", "---|".repeat(traces.len()));
    for &(name, f) in measures {
        for s in SCHEMES.iter().skip(1) {
            let per: Vec<String> = traces.iter().map(|t| change(vs_baseline(rows, exp, t, *s, 1.0, f))).collect();
            let mut mean = change(mean_ratio(rows, exp, *s, 1.0, f));
            let n = positive_ratios(rows, exp, *s, 1.0, f).len();
            if n < traces.len() {
                let _ = write!(mean, " ({n} of {} traces)", traces.len());
            }
            let _ = writeln!(m, "| {name} | {} | {mean} | {} |", s.name(), per.join(" | "));
        }
    }
    m.push('\n');
    m
}

/// Every run of `exp`: a table and the blank line after it.
fn absolute_rows(rows: &[Row], exp: &str) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "| trace | scheme | write µs | read µs | plane util busy / time | aligned user programs | buffer hit ratio | GC count | erases | GC cost ms | avg GC cost µs | pads | WAF |");
    let _ = writeln!(m, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for t in traces_in(rows) {
        for s in SCHEMES {
            let Some(r) = pick(rows, exp, t, s, 1.0) else { continue };
            let _ = writeln!(
                m,
                "| {t} | {} | {:.0} | {:.0} | {} / {} | {} | {:.3} | {} | {} | {:.1} | {:.0} | {} | {:.2} |",
                s.name(),
                r.write_us,
                r.read_us,
                pct(r.plane_util_busy),
                pct(r.plane_util_time),
                pct(r.user_cases[3]),
                r.hit_ratio,
                r.gc_invocations,
                r.erases,
                r.gc_cost_s * 1e3,
                r.gc_cost_avg_us(),
                r.pad_pages,
                r.waf
            );
        }
    }
    m.push('\n');
    m
}

/// Slide s.10: each scheme's shares of the four cases among the host's die-level programs,
/// with GC (the table's rows; its heading is in the template).
fn cases(rows: &[Row]) -> String {
    let mut m = String::new();
    for s in SCHEMES {
        let rs: Vec<&Row> = rows.iter().filter(|r| r.experiment == "gc" && r.scheme == s).collect();
        if rs.is_empty() {
            continue;
        }
        let avg = |f: &dyn Fn(&Row) -> f64| rs.iter().map(|r| f(r)).sum::<f64>() / rs.len() as f64;
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {} |",
            s.name(),
            pct(avg(&|r| r.user_cases[0])),
            pct(avg(&|r| r.user_cases[1])),
            pct(avg(&|r| r.user_cases[2])),
            pct(avg(&|r| r.user_cases[3])),
            pct(gc_aligned_mean(rows, s))
        );
    }
    m
}

/// Mean over the runs with GC of `scheme`'s share of aligned GC programs (a run without GC
/// has no share to average).
fn gc_aligned_mean(rows: &[Row], scheme: Scheme) -> f64 {
    let v: Vec<f64> = rows
        .iter()
        .filter(|r| r.experiment == "gc" && r.scheme == scheme && r.gc_invocations > 0)
        .map(|r| r.gc_aligned)
        .collect();
    crate::reproduce::mean(&v)
}

/// Slide s.29: mean write latency against Baseline-D's at each buffer size (the table and
/// the blank line after it).
fn buffer_sweep(rows: &[Row]) -> String {
    let mut m = String::new();
    let factors = sweep_factors(rows);
    let head: Vec<String> = factors.iter().map(|f| format!("{f} × footprint/1000")).collect();
    let _ = writeln!(m, "| scheme | {} |\n|---|{}", head.join(" | "), "---|".repeat(factors.len()));
    let exp = |f: f64| if f == 1.0 { "gc" } else { "buffer" };
    for s in SCHEMES {
        let cells: Vec<String> = factors
            .iter()
            .map(|&f| {
                let v: Vec<f64> =
                    traces_in(rows).iter().filter_map(|t| pick(rows, exp(f), t, s, f)).map(|r| r.write_us).collect();
                format!("{:.0}", geomean(&v))
            })
            .collect();
        let _ = writeln!(m, "| {} | {} |", s.name(), cells.join(" | "));
    }
    let spd: Vec<String> =
        factors.iter().map(|&f| change(mean_ratio(rows, exp(f), Scheme::Spd, f, |r| r.write_us))).collect();
    let _ = writeln!(m, "| spd vs baseline-d | {} |\n", spd.join(" | "));
    m
}

/// The template's claims section, with this run's numbers.
pub fn claims_section(rows: &[Row]) -> String {
    let mut v = Values::new();
    claims(&mut v, rows);
    render(TEMPLATE_NAME, section(TEMPLATE, "## The slides' claims"), &v)
}

/// This run's numbers for the slides' headline claims (the template holds the slides').
fn claims(v: &mut Values, rows: &[Row]) {
    let r = |exp: &str, s: Scheme, f: fn(&Row) -> f64| change(mean_ratio(rows, exp, s, 1.0, f));
    v.set("claim_write_nogc", r("nogc", Scheme::Spd, |x| x.write_us));
    v.set("claim_read_nogc", r("nogc", Scheme::Spd, |x| x.read_us));
    v.set("claim_util_busy", r("nogc", Scheme::Spd, |x| x.plane_util_busy));
    v.set("claim_util_time", r("nogc", Scheme::Spd, |x| x.plane_util_time));
    v.set("claim_hit", r("nogc", Scheme::Spd, |x| x.hit_ratio));
    v.set("claim_vs_baseline_d", change(mean_vs(rows, "gc", Scheme::BaselineD)));
    v.set("claim_vs_baseline_p", change(mean_vs(rows, "gc", Scheme::BaselineP)));
    v.set("claim_vs_twinblk", change(mean_vs(rows, "gc", Scheme::TwinBlk)));
    v.set("claim_vs_paragc", change(mean_vs(rows, "gc", Scheme::ParaGc)));
    // The GC claims as the ledger computes them: a trace where a scheme ran no GC has no
    // ratio, and is named rather than pulling the geometric mean to zero.
    let ledger = super::ledger::claims(rows);
    let gc = |claim: &str| {
        let c = ledger.iter().find(|c| c.claim == claim).expect("a claim of the ledger");
        let left_out = c.over.split_once(" (").map_or(String::new(), |(_, note)| format!(" ({note}"));
        format!("{}{left_out}", change(c.measured.map(|m| m + 1.0)))
    };
    v.set("claim_gc_cost", gc("s.26 total GC cost, SPD vs Baseline-D"));
    v.set("claim_gc_count", gc("s.28 GC count, SPD vs Baseline-D"));
    v.set("claim_erases_twinblk", gc("s.28 GC erases, SPD vs TwinBlk"));
    v.set("claim_erases_paragc", gc("s.28 GC erases, SPD vs ParaGC"));
    v.set("claim_planes4", r("planes4", Scheme::Spd, |x| x.write_us));
}

/// Geometric mean over the traces of SPD's write latency over `other`'s in `exp`.
fn mean_vs(rows: &[Row], exp: &str, other: Scheme) -> Option<f64> {
    let v: Vec<f64> = traces_in(rows)
        .iter()
        .filter_map(|t| {
            let o = pick(rows, exp, t, other, 1.0)?.write_us;
            let s = pick(rows, exp, t, Scheme::Spd, 1.0)?.write_us;
            (o > 0.0).then(|| s / o)
        })
        .collect();
    (!v.is_empty()).then(|| geomean(&v))
}
