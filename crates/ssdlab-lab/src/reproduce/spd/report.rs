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
    v.set("floor_sweep", super::floor::section(rows));
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
    v.set("floor_agree", floor_agree(rows));
    v.set("time_spd", pct(mean_of("nogc", Scheme::Spd, |r| r.plane_util_time)));
    v.set("read_cause", super::ledger::cause_of(rows, super::ledger::READ_NOGC).unwrap_or_else(|| "–".into()));
    hits(v, rows);
    v.set("twinblk_aligned", pct(mean_of("gc", Scheme::TwinBlk, |r| r.user_cases[3])));
    v.set("twinblk_gc_aligned", pct(gc_aligned_mean(rows, Scheme::TwinBlk)));
    v.set("waf_twinblk", format!("{:.2}", mean_of("gc", Scheme::TwinBlk, |r| r.waf)));
    v.set("waf_paragc", format!("{:.2}", mean_of("gc", Scheme::ParaGc, |r| r.waf)));
    v.set("gc_over_nogc", gc_over_nogc(rows));
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

/// Per regime of the floor sweep, both semantics at the floor and the size from which they
/// agree in sign.
fn floor_agree(rows: &[Row]) -> String {
    use super::floor::{agree_from, steps, WITHOUT_GC, WITH_GC};
    let one = |regime: &super::floor::Regime| {
        let steps = steps(rows, regime);
        let first = steps.first()?;
        let agree = match agree_from(&steps) {
            Some(a) => format!("one sign from {} pages on", a.pages),
            None => format!("still different signs at {} pages", steps.last()?.pages),
        };
        Some(format!(
            "{}, {} (freed at eviction) and {} (held) at {} pages, {agree}",
            regime.name,
            change(first.evicted),
            change(first.held),
            first.pages
        ))
    };
    let all: Vec<String> = [WITH_GC, WITHOUT_GC].iter().filter_map(one).collect();
    if all.is_empty() {
        "not run".into()
    } else {
        all.join("; ")
    }
}

/// Hit ratios without GC: on how many traces SPD's is lower, the largest change and the mean
/// without that trace.
fn hits(v: &mut Values, rows: &[Row]) {
    let r = super::ledger::ratios(rows, "nogc", Scheme::BaselineD, |r| r.hit_ratio, 1.0);
    let lower = r.per_trace.iter().filter(|p| p.1 < 1.0).count();
    v.set("hit_lower", format!("{lower} of {} traces", r.per_trace.len()));
    let largest = r.furthest().map_or("–".into(), |(t, x)| {
        let d = pick(rows, "nogc", t, Scheme::BaselineD, 1.0).map_or(0.0, |r| r.hit_ratio);
        let s = pick(rows, "nogc", t, Scheme::Spd, 1.0).map_or(0.0, |r| r.hit_ratio);
        format!("{t}'s ({}: {d:.4} → {s:.4})", change(Some(x)))
    });
    v.set("hit_largest", largest);
    v.set("hit_rest", change(r.furthest().and_then(|(t, _)| r.without(t))));
}

/// Per trace, Baseline-D's write latency with GC in idle time and with blocking GC against
/// its own without GC: "msr-rw20 +7.5% / +257.6%".
fn gc_over_nogc(rows: &[Row]) -> String {
    let vs = |t: &str, exp: &str| {
        let nogc = pick(rows, "nogc", t, Scheme::BaselineD, 1.0)?.write_us;
        let with = pick(rows, exp, t, Scheme::BaselineD, 1.0)?.write_us;
        (nogc > 0.0).then(|| with / nogc)
    };
    let each: Vec<String> =
        traces_in(rows).iter().map(|t| format!("{t} {} / {}", change(vs(t, "gc-idle")), change(vs(t, "gc")))).collect();
    each.join(", ")
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
    v.set("buffers", buffers(rows, "nogc"));
    v.set("die_count", n.channels * n.chips_per_channel * n.dies_per_chip);
}

/// Buffer pages per trace in `exp`: "msr-rw20 9, msr-rw40 9".
fn buffers(rows: &[Row], exp: &str) -> String {
    traces_in(rows)
        .iter()
        .filter_map(|t| pick(rows, exp, t, Scheme::Spd, 1.0).map(|r| format!("{t} {}", r.buffer_pages)))
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

/// A headline cell: its name with slots freed at eviction (the main rows), its name with
/// slots held, the main experiment (the held one is it with `-held`), the other scheme and
/// the measure.
type ClaimCell = (&'static str, &'static str, &'static str, Scheme, fn(&Row) -> f64);

const CLAIM_CELLS: [ClaimCell; 15] = [
    ("claim_write_nogc", "held_write_nogc", "nogc", Scheme::BaselineD, |r| r.write_us),
    ("claim_read_nogc", "held_read_nogc", "nogc", Scheme::BaselineD, |r| r.read_us),
    ("claim_util_busy", "held_util_busy", "nogc", Scheme::BaselineD, |r| r.plane_util_busy),
    ("claim_util_time", "held_util_time", "nogc", Scheme::BaselineD, |r| r.plane_util_time),
    ("claim_hit", "held_hit", "nogc", Scheme::BaselineD, |r| r.hit_ratio),
    ("claim_vs_baseline_d", "held_vs_baseline_d", "gc", Scheme::BaselineD, |r| r.write_us),
    ("claim_vs_baseline_p", "held_vs_baseline_p", "gc", Scheme::BaselineP, |r| r.write_us),
    ("claim_vs_twinblk", "held_vs_twinblk", "gc", Scheme::TwinBlk, |r| r.write_us),
    ("claim_vs_paragc", "held_vs_paragc", "gc", Scheme::ParaGc, |r| r.write_us),
    ("claim_gc_cost", "held_gc_cost", "gc", Scheme::BaselineD, |r| r.gc_cost_s),
    ("claim_gc_count", "held_gc_count", "gc", Scheme::BaselineD, |r| r.gc_invocations as f64),
    ("claim_erases_twinblk", "held_erases_twinblk", "gc", Scheme::TwinBlk, |r| r.erases as f64),
    ("claim_erases_paragc", "held_erases_paragc", "gc", Scheme::ParaGc, |r| r.erases as f64),
    ("claim_planes4", "held_planes4", "planes4", Scheme::BaselineD, |r| r.write_us),
    ("claim_read_gc", "held_read_gc", "gc", Scheme::BaselineD, |r| r.read_us),
];

/// This run's numbers for the slides' headline claims (the template holds the slides'), as
/// the ledger computes them: SPD's geometric mean over the traces against the other scheme
/// with its 95% interval, a trace where either value is 0 named rather than pulling the
/// mean to zero; with slots freed at eviction and held.
fn claims(v: &mut Values, rows: &[Row]) {
    let sized = |exp: &str| {
        let planes = rows.iter().find(|r| r.experiment == exp)?.planes;
        Some(format!("with {planes} planes per die {} pages", buffers(rows, exp)))
    };
    let sizes: Vec<String> = ["nogc", "planes4"].iter().filter_map(|e| sized(e)).collect();
    v.set("claim_buffers", sizes.join("; "));
    for (name, held, exp, other, f) in CLAIM_CELLS {
        v.set(name, super::ledger::ratios(rows, exp, other, f, 1.0).show());
        v.set(held, super::ledger::ratios(rows, &format!("{exp}-held"), other, f, 1.0).show());
    }
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
