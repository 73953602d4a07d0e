//! The figures of `reproduce fmmu` (issue 33 item 6, figures fit for a paper): the paper's
//! Figures 11–14 as bar charts ([`plot::bar_chart`]) with both axes labelled, the schemes
//! under the paper's names, each bar the mean over the run's seeds with its 95% interval
//! where it has more than one seed.
//!
//! The figures show the paper's schemes ([`paper_schemes`]); the pooled and whole-map rows
//! (sensitivity and reference) are in REPORT.md's tables.

use std::path::Path;

use super::report::{elapsed_interval, merit};
use super::seeds::{self, Interval};
use super::{Kind, Row, Scheme, Synthetic, TraceRun, TraceSource, SCHEMES, SYNTHETIC, TRACES};
use crate::reproduce::claims::mean_interval;
use crate::reproduce::plot::{self, Axes};

/// A figure written: (file, caption).
pub type Figure = (String, String);

/// A named series of bars, one per category: the mean over seeds with its 95% interval
/// (None: not run, drawn as 0).
struct Series {
    name: String,
    bars: Vec<Option<Interval>>,
}

/// A series' name and what it reads from a run.
type Measure<T> = (&'static str, fn(&Row) -> T);

/// The x axis of the figures with a bar per scheme.
const SCHEME_AXIS: &str = "map cache scheme";

/// The schemes of the paper's figures: ideal, DFTL and CDFTL at 1, 2 and 4 cores, FMMU.
fn paper_schemes() -> impl Iterator<Item = &'static Scheme> {
    SCHEMES.iter().filter(|s| !s.pooled && s.kind != Kind::Full)
}

fn scheme_labels() -> Vec<String> {
    paper_schemes().map(|s| s.label.to_string()).collect()
}

/// How a figure's bars were made, for its title.
fn over_seeds(seeds: usize) -> String {
    if seeds > 1 {
        format!("mean of {seeds} seeds, 95% interval")
    } else {
        "one seed".into()
    }
}

/// The values of `xs`, each once, in order of first appearance.
fn distinct<T: PartialEq>(xs: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for x in xs {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// The seeds ideal ran `workload` of `experiment` at.
fn seeds_of(rows: &[Row], experiment: &str, workload: &str) -> usize {
    seeds::runs(rows, experiment, workload, "ideal").len()
}

/// Draw every figure from `rows` (a row per run and seed); returns those written.
pub fn figures(out: &Path, rows: &[Row]) -> Vec<Figure> {
    let mut done = Vec::new();
    for w in SYNTHETIC {
        throughput(out, rows, w, &mut done);
        utilization(out, rows, w, &mut done);
    }
    elapsed(out, rows, true, &mut done);
    elapsed(out, rows, false, &mut done);
    for t in &TRACES {
        flash_ops(out, rows, t, &mut done);
    }
    scaling(out, rows, &mut done);
    done
}

/// Draw `series` over `categories` into `out/file`, with error bars where a bar has an
/// interval; on success add the figure to `done`.
fn draw(out: &Path, file: String, axes: Axes, categories: &[String], series: &[Series], done: &mut Vec<Figure>) {
    let values: Vec<(String, Vec<f64>)> =
        series.iter().map(|s| (s.name.clone(), s.bars.iter().map(|b| b.map_or(0.0, |b| b.0)).collect())).collect();
    let errors: Vec<Vec<Option<(f64, f64)>>> =
        series.iter().map(|s| s.bars.iter().map(|b| b.and_then(|b| b.1)).collect()).collect();
    let any = errors.iter().flatten().any(Option::is_some);
    if plot::bar_chart(&out.join(&file), axes, categories, &values, any.then_some(errors.as_slice())).is_ok() {
        done.push((file, axes.title.to_string()));
    }
}

/// Figure 11: throughput per scheme on one synthetic workload (GB/s sequential, KIOPS
/// random).
fn throughput(out: &Path, rows: &[Row], w: Synthetic, done: &mut Vec<Figure>) {
    let bars = paper_schemes().map(|s| seeds::amount(rows, "synthetic", w.name(), s.name, |r| merit(r, w))).collect();
    let y = if w.sequential() { "throughput (GB/s)" } else { "throughput (KIOPS)" };
    let title = format!("Fig. 11: {} ({})", w.label(), over_seeds(seeds_of(rows, "synthetic", w.name())));
    let series = [Series { name: "throughput".into(), bars }];
    let axes = Axes { title: &title, x: SCHEME_AXIS, y };
    draw(out, format!("fig11_{}.png", w.name()), axes, &scheme_labels(), &series, done);
}

/// Figure 12: the host link's, NAND buses', chips' and firmware's busy time per scheme on
/// one synthetic workload.
fn utilization(out: &Path, rows: &[Row], w: Synthetic, done: &mut Vec<Figure>) {
    let parts: [Measure<f64>; 4] = [
        ("host link", |r| r.util_host_link),
        ("NAND bus", |r| r.util_nand_bus),
        ("chips", |r| r.util_chips),
        ("FTL", |r| r.util_ftl),
    ];
    let series: Vec<Series> = parts
        .iter()
        .map(|&(name, f)| Series {
            name: name.into(),
            bars: paper_schemes()
                .map(|s| seeds::amount(rows, "synthetic", w.name(), s.name, |r| f(r) * 100.0))
                .collect(),
        })
        .collect();
    let title = format!("Fig. 12: utilization, {} ({})", w.label(), over_seeds(seeds_of(rows, "synthetic", w.name())));
    let axes = Axes { title: &title, x: SCHEME_AXIS, y: "busy time (% of elapsed)" };
    draw(out, format!("fig12_{}.png", w.name()), axes, &scheme_labels(), &series, done);
}

/// Figure 13: time to finish over ideal's per trace, a bar per scheme: the main workloads
/// (`main`), or the looped excerpts (sensitivity rows).
fn elapsed(out: &Path, rows: &[Row], main: bool, done: &mut Vec<Figure>) {
    let traces: Vec<&TraceRun> = TRACES.iter().filter(|t| t.main == main).collect();
    if traces.is_empty() {
        return;
    }
    let categories: Vec<String> = traces.iter().map(|t| t.label()).collect();
    let series: Vec<Series> = paper_schemes()
        .map(|s| Series {
            name: s.label.into(),
            bars: traces.iter().map(|t| elapsed_interval(rows, t.name, s.name)).collect(),
        })
        .collect();
    // The stand-ins run at every seed, the shipped traces at the first (`plan_traces`).
    let standin = |t: &&&TraceRun| matches!(t.source, TraceSource::StandIn(_));
    let seeds = |t: &&TraceRun| seeds_of(rows, "trace", t.name);
    let (file, title) = match (traces.iter().find(standin).map(seeds), traces.iter().filter(|t| !standin(t)).count()) {
        (Some(n), 0) => ("fig13_elapsed.png", format!("Fig. 13: time to finish ({})", over_seeds(n))),
        (Some(n), _) => ("fig13_elapsed.png", format!("Fig. 13: time to finish (stand-ins: {})", over_seeds(n))),
        (None, _) => {
            let n = traces.iter().map(seeds).max().unwrap_or(0);
            ("fig13_elapsed_excerpts.png", format!("Fig. 13, sensitivity: MSR excerpts ({})", over_seeds(n)))
        }
    };
    let axes = Axes { title: &title, x: "trace", y: "time to finish (× ideal)" };
    draw(out, file.into(), axes, &categories, &series, done);
}

/// Figure 13: flash page operations per scheme on one trace, data and map, reads and
/// programs.
fn flash_ops(out: &Path, rows: &[Row], t: &TraceRun, done: &mut Vec<Figure>) {
    let kinds: [Measure<u64>; 4] = [
        ("data reads", |r| r.data_reads),
        ("map reads", |r| r.tp_reads),
        ("data programs", |r| r.data_programs),
        ("map programs", |r| r.map_programs),
    ];
    let series: Vec<Series> = kinds
        .iter()
        .map(|&(name, f)| Series {
            name: name.into(),
            bars: paper_schemes()
                .map(|s| seeds::amount(rows, "trace", t.name, s.name, |r| f(r) as f64 / 1e3))
                .collect(),
        })
        .collect();
    let title = format!("Fig. 13: flash operations, {} ({})", t.label(), over_seeds(seeds_of(rows, "trace", t.name)));
    let axes = Axes { title: &title, x: SCHEME_AXIS, y: "page operations (thousands)" };
    draw(out, format!("fig13_flash_ops_{}.png", t.name), axes, &scheme_labels(), &series, done);
}

/// Figure 14: FMMU's and ideal's 4 KiB random reads with the whole map in RAM, per drive
/// (channels × ways).
fn scaling(out: &Path, rows: &[Row], done: &mut Vec<Figure>) {
    let fmmu = || rows.iter().filter(|r| r.experiment == "scaling" && r.scheme == "fmmu");
    let points = distinct(fmmu().map(|r| (r.channels, r.ways)));
    let categories: Vec<String> = points.iter().map(|(c, w)| format!("{c} × {w}")).collect();
    let miops = |scheme: &str| -> Vec<Option<Interval>> {
        let at = |&(c, w): &(u32, u32)| {
            let runs = rows.iter().filter(|r| r.experiment == "scaling" && r.scheme == scheme);
            mean_interval(&runs.filter(|r| (r.channels, r.ways) == (c, w)).map(|r| r.iops / 1e6).collect::<Vec<_>>())
        };
        points.iter().map(at).collect()
    };
    let series: Vec<Series> = paper_schemes()
        .filter(|s| matches!(s.kind, Kind::Fmmu | Kind::Ideal))
        .map(|s| Series { name: s.label.into(), bars: miops(s.name) })
        .collect();
    let seeds = distinct(fmmu().map(|r| r.seed)).len();
    let lanes = super::grid().scaling_pcie_lanes;
    let title = format!("Fig. 14: 4 KiB random read, whole map in RAM, PCIe 3.0 x{lanes} ({})", over_seeds(seeds));
    let axes = Axes { title: &title, x: "channels × ways", y: "throughput (MIOPS)" };
    draw(out, "fig14_scaling.png".into(), axes, &categories, &series, done);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures' schemes and traces under the paper's names (§5.3, Figures 11 and 13),
    /// the sensitivity and reference schemes left to the tables.
    #[test]
    fn figures_name_schemes_and_traces_as_the_paper_does() {
        let schemes = ["ideal", "DFTL-1", "DFTL-2", "DFTL-4", "CDFTL-1", "CDFTL-2", "CDFTL-4", "FMMU"];
        assert_eq!(scheme_labels(), schemes);
        let traces: Vec<String> = TRACES.iter().map(|t| t.label()).collect();
        let want =
            ["MSR_proj stand-in", "MSR_hm stand-in", "WebSearch", "MSR_proj excerpt, looped", "MSR_hm excerpt, looped"];
        assert_eq!(traces, want);
        assert_eq!((over_seeds(3).as_str(), over_seeds(1).as_str()), ("mean of 3 seeds, 95% interval", "one seed"));
        assert_eq!(distinct([(1, 1), (4, 4), (1, 1)].into_iter()), [(1, 1), (4, 4)]);
    }
}
