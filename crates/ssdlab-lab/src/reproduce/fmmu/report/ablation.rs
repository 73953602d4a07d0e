//! The report's ablation section (issue 33 item 1): FMMU with each of its three mechanisms
//! removed in turn — hardware automation, the CTP, the dirty list's `next` links (at each
//! scan cost of [`SCAN_PS`]) — against ideal, and the counters that explain each row. The
//! sentences say what each mechanism is worth, computed from the rows.

use std::fmt::Write as _;

use super::super::{
    ablation_config, main_traces, pick, software_costs, Ablation, Kind, Removed, Row, ABLATIONS, NO_HW_CORES, SCAN_PS,
    SYNTHETIC,
};
use super::{elapsed_ratio, of_ideal, opt, synthetic};
use crate::reproduce::geomean;
use crate::reproduce::template::Values;
use ssdlab::Config;

/// Within this share of FMMU's speed on every workload, a mechanism shows no effect.
const NO_EFFECT: f64 = 0.02;

/// A run whose busiest firmware server was booked past this share of the run
/// ([`super::super::firmware_booked`]) ended with firmware work undone (map updates after
/// their program, flushes and their translation-page I/O): its speed is an upper bound (the
/// table marks it †).
const OVERBOOKED: f64 = 1.01;

/// Whether `scheme`'s run of `workload` ended with firmware work booked past its end.
fn overbooked(rows: &[Row], workload: &str, scheme: &str) -> Option<f64> {
    run(rows, workload, scheme).map(|r| r.fw_booked).filter(|&b| b > OVERBOOKED)
}

/// A workload of the ablation: a synthetic run or a trace, by its experiment and name.
#[derive(Debug, Clone, Copy)]
struct Workload {
    experiment: &'static str,
    name: &'static str,
}

/// The synthetic workloads, then Figure 13's main workloads.
fn workloads() -> Vec<Workload> {
    let synthetic = SYNTHETIC.iter().map(|w| Workload { experiment: "synthetic", name: w.name() });
    synthetic.chain(main_traces().map(|t| Workload { experiment: "trace", name: t.name })).collect()
}

/// How fast `scheme` ran `w`: throughput for a synthetic workload (as Figure 11 measures
/// it), 1 / time to finish for a trace.
fn speed(rows: &[Row], w: Workload, scheme: &str) -> Option<f64> {
    if w.experiment == "synthetic" {
        let s = SYNTHETIC.iter().find(|s| s.name() == w.name)?;
        synthetic(rows, *s, scheme).filter(|&x| x > 0.0)
    } else {
        pick(rows, "trace", w.name, scheme).filter(|r| r.sim_time_s > 0.0).map(|r| 1.0 / r.sim_time_s)
    }
}

/// What removing a mechanism costs FMMU: its speed over FMMU's, as a geometric mean over
/// the workloads both ran, the workloads where it lost and gained most, and those where
/// either run ended with firmware work undone (its ratio there an upper bound).
#[derive(Debug, Clone, PartialEq)]
pub struct Worth {
    pub geomean: f64,
    pub workloads: usize,
    pub worst: &'static str,
    pub worst_ratio: f64,
    pub best: &'static str,
    pub best_ratio: f64,
    /// Every workload within [`NO_EFFECT`] of FMMU.
    pub no_effect: bool,
    /// Workloads whose firmware was booked past the run's end (workload, booked share).
    pub overbooked: Vec<(&'static str, f64)>,
}

/// `scheme`'s worth against FMMU, if a workload ran both.
pub fn worth(rows: &[Row], scheme: &str) -> Option<Worth> {
    let mut overbooked = Vec::new();
    let mut ratios: Vec<(&'static str, f64)> = Vec::new();
    for w in workloads() {
        let Some(x) = speed(rows, w, scheme).zip(speed(rows, w, "fmmu")).map(|(a, f)| a / f) else { continue };
        if let Some(b) = overbooked_pair(rows, w.name, scheme) {
            overbooked.push((w.name, b));
        }
        ratios.push((w.name, x));
    }
    let worst = ratios.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let best = ratios.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let xs: Vec<f64> = ratios.iter().map(|r| r.1).collect();
    Some(Worth {
        geomean: geomean(&xs),
        workloads: xs.len(),
        worst: worst.0,
        worst_ratio: worst.1,
        best: best.0,
        best_ratio: best.1,
        no_effect: xs.iter().all(|x| (x - 1.0).abs() <= NO_EFFECT),
        overbooked,
    })
}

/// The larger booked share of `scheme`'s and FMMU's runs of `workload`, if either was
/// overbooked.
fn overbooked_pair(rows: &[Row], workload: &str, scheme: &str) -> Option<f64> {
    match (overbooked(rows, workload, scheme), overbooked(rows, workload, "fmmu")) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn pct1(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The row of `scheme` on `workload` (synthetic or trace).
fn run<'a>(rows: &'a [Row], workload: &str, scheme: &str) -> Option<&'a Row> {
    pick(rows, "synthetic", workload, scheme).or_else(|| pick(rows, "trace", workload, scheme))
}

/// Per 1,000 requests.
fn per_k(x: u64, r: &Row) -> f64 {
    x as f64 * 1000.0 / r.requests.max(1) as f64
}

/// CMT blocks a flush visited on average (scanned, or along the links).
fn per_flush(r: &Row) -> f64 {
    if r.flushes == 0 {
        0.0
    } else {
        r.flush_blocks_scanned as f64 / r.flushes as f64
    }
}

/// What a row removes, for the table.
fn removed(a: &Ablation) -> String {
    match a.removed {
        Removed::Hardware => format!("hardware automation ({NO_HW_CORES} cores)"),
        Removed::Ctp => "the CTP (one level)".into(),
        Removed::NextLinks { scan_ps } => format!("the next links ({} ns a scanned block)", ns(scan_ps)),
    }
}

/// Picoseconds as ns, without trailing zeros (375, 37.5, 2.5).
fn ns(ps: u32) -> String {
    format!("{}", ps as f64 / 1000.0)
}

/// The section's values.
pub fn values(v: &mut Values, rows: &[Row], base: &Config) {
    setup(v, base);
    v.set("ablation_rows", table(rows));
    v.set("ablation_counter_rows", counters(rows));
    v.set("ablation_summary", summary(rows));
}

/// What the rows run with: the software costs, the one level's size, the scan costs.
fn setup(v: &mut Values, base: &Config) {
    let k = software_costs(Kind::Cdftl, false);
    v.set(
        "abl_hw_costs",
        format!(
            "lookup {:.0} ns, issue {:.0} ns, {:.0} ns per CMT block a flush visits",
            k.hit_ns, k.issue_ns, k.flush_block_ns
        ),
    );
    let blocks = |a: &Ablation| {
        let c = ablation_config(a, base).ok()?;
        let p = c.ftl.map_cache.resolve("", c.ftl.mapping, c.nand.page_bytes).ok()?;
        // The slots of whole sets: a scan tests each.
        Some(p.cmt_blocks.checked_div(p.ways).map_or(p.cmt_blocks, |sets| sets * p.ways))
    };
    v.set("abl_ram_kib", base.ftl.map_cache.ram_bytes.unwrap_or(0) / 1024);
    v.set("abl_map_queue", base.ftl.firmware.map_queue);
    v.set("abl_hw_cores", NO_HW_CORES);
    v.set("abl_overbooked", format!("{:.0}%", OVERBOOKED * 100.0));
    v.set("abl_one_level_blocks", opt(blocks(&ABLATIONS[1]).map(f64::from), |b| format!("{b:.0}")));
    v.set("abl_cmt_blocks", opt(blocks(&ABLATIONS[2]).map(f64::from), |b| format!("{b:.0}")));
    v.set("abl_scan_main", ns(SCAN_PS[0]));
    v.set("abl_scan_sweep", SCAN_PS[1..].iter().map(|&p| format!("{} ns", ns(p))).collect::<Vec<_>>().join(" and "));
}

/// The ablation table: FMMU, each row with a mechanism removed, CDFTL-4 for reference;
/// throughput over ideal's per synthetic workload, time to finish over ideal's per trace.
fn table(rows: &[Row]) -> String {
    let mut lines: Vec<(&str, String)> = vec![("fmmu", "none (FMMU)".into())];
    lines.extend(ABLATIONS.iter().map(|a| (a.name, removed(a))));
    lines.push(("cdftl-4", "reference: hardware, links and dirty list (CDFTL-4)".into()));
    let mut m = String::new();
    for (scheme, what) in lines {
        let _ = write!(m, "| {scheme} | {what} |");
        let mark = |w: &str| if overbooked(rows, w, scheme).is_some() { " †" } else { "" };
        for w in SYNTHETIC {
            let share = opt(of_ideal(rows, w, scheme), |x| format!("{:.0}%", x * 100.0));
            let _ = write!(m, " {share}{} |", mark(w.name()));
        }
        for t in main_traces().map(|t| t.name) {
            let _ = write!(m, " {}{} |", opt(elapsed_ratio(rows, t, scheme), |x| format!("{x:.2}×")), mark(t));
        }
        m.push('\n');
    }
    m
}

/// The counters behind each row, per workload: FTL utilisation, flushes, blocks a flush
/// visits, CTP hits, map hit ratio.
fn counters(rows: &[Row]) -> String {
    let mut m = String::new();
    for w in workloads() {
        let schemes = std::iter::once("fmmu").chain(ABLATIONS.iter().map(|a| a.name)).chain(["cdftl-4"]);
        for scheme in schemes {
            let Some(r) = run(rows, w.name, scheme) else { continue };
            let _ = writeln!(
                m,
                "| {} | {scheme} | {} | {} | {} | {:.1} | {:.1} | {:.0} | {:.3} | {:.0} | {:.0} |",
                w.name,
                pct1(r.util_ftl),
                pct1(r.fw_booked),
                pct1(r.queue_wait_share),
                per_k(r.flushes, r),
                per_flush(r),
                per_k(r.ctp_hits, r),
                r.map_hit_ratio,
                per_k(r.tp_reads, r),
                per_k(r.tp_writes, r)
            );
        }
    }
    m
}

/// The computed sentences: each mechanism's worth, the counters of its worst workload, the
/// scan-cost sweep, the largest, and the mechanisms with no effect.
fn summary(rows: &[Row]) -> String {
    let mut m = String::new();
    let mut largest: Option<(&str, f64)> = None;
    let mut none = Vec::new();
    for a in ABLATIONS.iter().take(3) {
        let Some(w) = worth(rows, a.name) else { continue };
        let (label, name) = match a.removed {
            Removed::Hardware => ("Hardware automation", "hardware automation"),
            Removed::Ctp => ("The CTP", "the CTP"),
            Removed::NextLinks { .. } => ("The next links", "the next links"),
        };
        let _ = write!(
            m,
            "- **{label}.** Without it ({}) FMMU runs at {} of its own speed, geometric mean over {} workloads; least on {} ({}){}.",
            a.name,
            pct1(w.geomean),
            w.workloads,
            w.worst,
            pct1(w.worst_ratio),
            explain(rows, a, w.worst)
        );
        m.push_str(&faster(rows, a, &w));
        m.push_str(&overbooked_note(&w));
        if let Removed::NextLinks { .. } = a.removed {
            m.push_str(&sweep(rows));
        }
        m.push('\n');
        if largest.is_none_or(|l| w.geomean < l.1) {
            largest = Some((name, w.geomean));
        }
        if w.no_effect {
            none.push(name);
        }
    }
    m.push_str(&fmmu_queue(rows));
    if let Some((label, g)) = largest {
        let _ = writeln!(m, "- **Largest:** {label} ({} of FMMU's speed without it).", pct1(g));
    }
    if none.is_empty() {
        let _ = writeln!(m, "- Every mechanism moves at least one workload by more than {:.0}%.", NO_EFFECT * 100.0);
    } else {
        let _ = writeln!(
            m,
            "- No effect (every workload within {:.0}% of FMMU): {}; the counters above say why.",
            NO_EFFECT * 100.0,
            none.join(", ")
        );
    }
    m
}

/// How much FMMU's own runs waited for a full map-unit queue (the bound its rows run with):
/// the most over the workloads, as a list item.
fn fmmu_queue(rows: &[Row]) -> String {
    let most = workloads()
        .into_iter()
        .filter_map(|w| run(rows, w.name, "fmmu").map(|r| (w.name, r.queue_wait_share)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let Some((w, share)) = most else { return String::new() };
    format!(
        "- **FMMU's own queue.** With its map unit's queue bounded (`ftl.firmware.map_queue`), FMMU's issuing core waited for room at most {} of a run ({w}).\n",
        pct1(share)
    )
}

/// The workloads where a worth's runs ended with firmware work undone, as a sentence.
fn overbooked_note(w: &Worth) -> String {
    if w.overbooked.is_empty() {
        return String::new();
    }
    let list: Vec<String> = w.overbooked.iter().map(|(n, b)| format!("{n} ({b:.2}×)")).collect();
    format!(
        " On {} (†) the busiest firmware server was booked for that multiple of the run: it could not keep up, the run ended with map work undone, and the speed there is an upper bound.",
        list.join(", ")
    )
}

/// Where `a`'s row ran faster than FMMU by more than [`NO_EFFECT`], its translation traffic
/// against FMMU's there, as a clause.
fn faster(rows: &[Row], a: &Ablation, w: &Worth) -> String {
    if w.best_ratio <= 1.0 + NO_EFFECT {
        return String::new();
    }
    let (Some(x), Some(f)) = (run(rows, w.best, a.name), run(rows, w.best, "fmmu")) else { return String::new() };
    format!(
        " It is faster on {} ({}), where it reads {:.0} and writes {:.0} translation pages per 1,000 requests against FMMU's {:.0} and {:.0}, {:.0} misses per 1,000 requests joining a read in flight against {:.0}.",
        w.best,
        pct1(w.best_ratio),
        per_k(x.tp_reads, x),
        per_k(x.tp_writes, x),
        per_k(f.tp_reads, f),
        per_k(f.tp_writes, f),
        per_k(x.merges, x),
        per_k(f.merges, f)
    )
}

/// The counters of `a`'s row against FMMU's on `workload`, as a clause.
fn explain(rows: &[Row], a: &Ablation, workload: &str) -> String {
    let (Some(x), Some(f)) = (run(rows, workload, a.name), run(rows, workload, "fmmu")) else {
        return String::new();
    };
    match a.removed {
        Removed::Hardware => format!(
            ", where its {NO_HW_CORES} cores are {} busy, against {} for FMMU's core and map unit",
            pct1(x.util_ftl),
            pct1(f.util_ftl)
        ),
        Removed::Ctp => format!(
            ", where {} of lookups are answered from RAM against FMMU's {} ({:.0} CTP hits per 1,000 requests), and it reads {:.0} translation pages per 1,000 requests against {:.0}",
            pct1(x.map_hit_ratio),
            pct1(f.map_hit_ratio),
            per_k(f.ctp_hits, f),
            per_k(x.tp_reads, x),
            per_k(f.tp_reads, f)
        ),
        Removed::NextLinks { .. } => format!(
            ", where a flush visits {:.0} blocks against {:.1} along the links, {:.1} flushes per 1,000 requests, and the firmware is {} busy against {}",
            per_flush(x),
            per_flush(f),
            per_k(x.flushes, x),
            pct1(x.util_ftl),
            pct1(f.util_ftl)
        ),
    }
}

/// The scan-cost sweep of the no-links rows after the first, as sentences.
fn sweep(rows: &[Row]) -> String {
    let mut m = String::new();
    for a in ABLATIONS.iter().skip(3) {
        let (Removed::NextLinks { scan_ps }, Some(w)) = (a.removed, worth(rows, a.name)) else { continue };
        let left: Vec<String> = w.overbooked.iter().map(|(n, b)| format!("{n} {b:.2}×")).collect();
        let left = if left.is_empty() {
            String::new()
        } else {
            format!("; booked past the run (†, an upper bound there): {}", left.join(", "))
        };
        let _ = write!(
            m,
            " At {} ns per scanned block: {}, least on {} ({}){left}.",
            ns(scan_ps),
            pct1(w.geomean),
            w.worst,
            pct1(w.worst_ratio)
        );
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::fmmu::{tests::row, Synthetic};

    /// A trace at ideal 1 s, FMMU 1 s, without the CTP 2 s, and a synthetic workload at
    /// FMMU 4 GB/s, without the CTP 2 GB/s: without the CTP FMMU runs at 0.5 of its speed on
    /// both, geometric mean 50.0%, worst the first in order of equal ones (the synthetic).
    #[test]
    fn worth_is_the_geometric_mean_of_speed_over_fmmus() {
        let trace = |scheme: &'static str, t: f64| Row {
            experiment: "trace",
            workload: "websearch".into(),
            sim_time_s: t,
            ..row(Synthetic::SeqWrite, scheme, 0.0)
        };
        let rows = [
            row(Synthetic::SeqWrite, "fmmu", 4.0),
            row(Synthetic::SeqWrite, "fmmu-no-ctp", 2.0),
            trace("ideal", 1.0),
            trace("fmmu", 1.0),
            trace("fmmu-no-ctp", 2.0),
        ];
        let w = worth(&rows, "fmmu-no-ctp").expect("two workloads");
        assert_eq!((w.workloads, w.worst, w.no_effect), (2, "seq_write_64k", false));
        assert!(w.overbooked.is_empty());
        assert!((w.geomean - 0.5).abs() < 1e-12 && (w.worst_ratio - 0.5).abs() < 1e-12);
        assert_eq!(worth(&rows, "fmmu-no-hw"), None);
        let t = table(&rows);
        assert!(t.contains("| fmmu-no-ctp | the CTP (one level) | – | – | – | – | – | – | – | 2.00× |\n"), "{t}");
    }
}
