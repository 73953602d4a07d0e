//! REPORT.md and the figures of `reproduce sprinkler`: rows picked, figures drawn, and the
//! values and tables of the report's template, `experiments/sprinkler/report.md`.

use super::*;
use crate::reproduce::template::{render, section, Values};

pub(super) fn pick<'a>(rows: &'a [Row], exp: &str, workload: &str, sched: &str, chips: u32) -> Option<&'a Row> {
    rows.iter().find(|r| r.experiment == exp && r.workload == workload && r.scheduler == sched && r.chips == chips)
}

pub(super) fn workload_names(rows: &[Row], exp: &str, chips: u32) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| r.experiment == exp && r.chips == chips) {
        if !names.contains(&r.workload) {
            names.push(r.workload.clone());
        }
    }
    names
}

/// Per workload at `chips`: the value of `f` for each scheduler.
pub(super) fn per_scheduler(
    rows: &[Row],
    chips: u32,
    f: impl Fn(&Row) -> f64,
) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let names = workload_names(rows, "workloads", chips);
    let series = SCHEDULERS
        .iter()
        .map(|s| {
            let v = names.iter().map(|w| pick(rows, "workloads", w, s, chips).map_or(0.0, &f)).collect();
            (s.to_uppercase(), v)
        })
        .collect();
    (names, series)
}

/// The transfer sizes Figure 15 ran at `chips`, in run order.
pub(super) fn transfer_sizes(rows: &[Row], chips: u32) -> Vec<u64> {
    let mut sizes: Vec<u64> =
        rows.iter().filter(|r| r.experiment == "transfer_size" && r.chips == chips).map(|r| r.transfer_bytes).collect();
    sizes.dedup();
    sizes
}

/// Figure 15's run of `scheduler` at `chips` and transfer size `bytes`.
pub(super) fn transfer_run<'a>(rows: &'a [Row], chips: u32, bytes: u64, scheduler: &str) -> Option<&'a Row> {
    rows.iter().find(|r| {
        r.experiment == "transfer_size" && r.chips == chips && r.transfer_bytes == bytes && r.scheduler == scheduler
    })
}

/// Figure 16's measure: 1 − transactions / VAS's transactions on the same workload, chips and
/// host (the same requests, so the same page operations).
pub(super) fn reduction_vs_vas(rows: &[Row], r: &Row) -> Option<f64> {
    let vas = rows.iter().find(|v| {
        v.experiment == r.experiment
            && v.workload == r.workload
            && v.chips == r.chips
            && v.variant == r.variant
            && v.scheduler == "vas"
    })?;
    (vas.transactions > 0).then(|| 1.0 - r.transactions as f64 / vas.transactions as f64)
}

/// A figure written: (file, caption).
type Figure = (String, String);

/// Draw every figure; returns (file, caption) of those written.
pub(super) fn figures(out: &Path, rows: &[Row]) -> Vec<Figure> {
    let mut done = Vec::new();
    workload_figures(out, rows, &mut done);
    flp_figure(out, rows, &mut done);
    transfer_size_figures(out, rows, &mut done);
    gc_figure(out, rows, &mut done);
    done
}

/// Figures 10, 11 and 16: one bar per workload and scheduler.
pub(super) fn workload_figures(out: &Path, rows: &[Row], done: &mut Vec<Figure>) {
    let mut bar = |file: &str, caption: &str, y: &str, f: &dyn Fn(&Row) -> f64, chips: u32| {
        let (names, series) = per_scheduler(rows, chips, f);
        let axes = plot::Axes { title: caption, x: "workload", y };
        if plot::bar_chart(&out.join(file), axes, &names, &series, None).is_ok() {
            done.push((file.to_string(), caption.to_string()));
        }
    };
    bar("fig10a_bandwidth.png", "Fig. 10a: bandwidth (64 chips)", "MB/s", &|r| r.bandwidth_mb_s, 64);
    bar("fig10b_iops.png", "Fig. 10b: IOPS (64 chips)", "IOPS", &|r| r.iops, 64);
    bar(
        "fig10c_latency.png",
        "Fig. 10c: mean device-level latency, fetch to completion (64 chips)",
        "µs",
        &|r| r.device_latency_us,
        64,
    );
    let stall_norm = |r: &Row| {
        let vas = pick(rows, "workloads", &r.workload, "vas", r.chips).map_or(0.0, |v| v.queue_stall_s);
        if vas > 0.0 {
            r.queue_stall_s / vas
        } else {
            0.0
        }
    };
    bar("fig10d_queue_stall.png", "Fig. 10d: queue stall time, normalised to VAS", "× VAS", &stall_norm, 64);
    bar("fig11a_inter_chip_idleness.png", "Fig. 11a: inter-chip idleness", "fraction", &|r| r.inter_chip_idleness, 64);
    bar("fig11b_intra_chip_idleness.png", "Fig. 11b: intra-chip idleness", "fraction", &|r| r.intra_chip_idleness, 64);
    let vs_vas = |r: &Row| reduction_vs_vas(rows, r).unwrap_or(0.0);
    bar(
        "fig16a_transaction_reduction.png",
        "Fig. 16a: transactions saved against VAS (64 chips)",
        "fraction",
        &vs_vas,
        64,
    );
    if rows.iter().any(|r| r.experiment == "workloads" && r.chips == 1024) {
        let caption = "Fig. 16b: transactions saved against VAS (1024 chips)";
        bar("fig16b_transaction_reduction.png", caption, "fraction", &vs_vas, 1024);
    }
}

/// Fig. 14: FLP breakdown per scheduler (mean over workloads at 64 chips, with its 95%
/// interval over the workloads).
pub(super) fn flp_figure(out: &Path, rows: &[Row], done: &mut Vec<Figure>) {
    let kinds = ["single", "die interleave", "multi-plane", "both"];
    let cats: Vec<String> = SCHEDULERS.iter().map(|s| s.to_uppercase()).collect();
    let mut series: Vec<(String, Vec<f64>)> = Vec::new();
    let mut errors: Vec<Vec<Option<(f64, f64)>>> = Vec::new();
    for (k, name) in kinds.iter().enumerate() {
        let stats: Vec<_> = SCHEDULERS
            .iter()
            .map(|s| {
                let runs = rows.iter().filter(|r| r.experiment == "workloads" && r.chips == 64 && r.scheduler == *s);
                crate::reproduce::claims::mean_interval(&runs.map(|r| r.flp_pages[k]).collect::<Vec<_>>())
            })
            .collect();
        series.push((name.to_string(), stats.iter().map(|m| m.map_or(0.0, |m| m.0)).collect()));
        errors.push(stats.iter().map(|m| m.and_then(|m| m.1)).collect());
    }
    let caption = "Fig. 14: FLP breakdown (mean over workloads, 95% interval)";
    let axes = plot::Axes { title: caption, x: "scheduler", y: "fraction of pages served" };
    if plot::bar_chart(&out.join("fig14_flp_breakdown.png"), axes, &cats, &series, Some(&errors)).is_ok() {
        done.push(("fig14_flp_breakdown.png".into(), "Fig. 14: FLP breakdown".into()));
    }
}

/// Fig. 15: chip utilization against transfer size.
pub(super) fn transfer_size_figures(out: &Path, rows: &[Row], done: &mut Vec<Figure>) {
    for chips in [64, 256, 1024] {
        let sizes = transfer_sizes(rows, chips);
        let xs: Vec<f64> = sizes.iter().map(|&b| b as f64).collect();
        let series: Vec<(String, Vec<f64>)> = SCHEDULERS
            .iter()
            .map(|s| {
                let u = sizes.iter().map(|&b| transfer_run(rows, chips, b, s).map_or(0.0, |r| r.plane_utilization));
                (s.to_uppercase(), u.collect())
            })
            .collect();
        let file = format!("fig15_chip_utilization_{chips}.png");
        let caption = format!("Fig. 15: plane-weighted chip utilization, {chips} chips");
        if plot::lines_log2(&out.join(&file), &caption, "transfer size", "plane-weighted utilization", &xs, &series)
            .is_ok()
        {
            done.push((file, caption));
        }
    }
}

/// Fig. 17: bandwidth pristine against fragmented.
pub(super) fn gc_figure(out: &Path, rows: &[Row], done: &mut Vec<Figure>) {
    let gc: Vec<&Row> = rows.iter().filter(|r| r.experiment == "gc").collect();
    let mut labels: Vec<String> = Vec::new();
    for r in &gc {
        let l = format!("{}{}", r.scheduler.to_uppercase(), if r.readdressing { "" } else { " (no readdr.)" });
        if !labels.contains(&l) {
            labels.push(l);
        }
    }
    let mut series = Vec::new();
    for state in ["pristine", "fragmented"] {
        let v = labels
            .iter()
            .map(|l| {
                let xs: Vec<f64> = gc
                    .iter()
                    .filter(|r| {
                        r.state == state
                            && format!(
                                "{}{}",
                                r.scheduler.to_uppercase(),
                                if r.readdressing { "" } else { " (no readdr.)" }
                            ) == *l
                    })
                    .map(|r| r.bandwidth_mb_s)
                    .collect();
                mean(&xs)
            })
            .collect();
        series.push((if state == "pristine" { "pristine" } else { "95% filled" }.to_string(), v));
    }
    let axes = plot::Axes { title: "Fig. 17: bandwidth with GC (95% filled)", x: "scheduler", y: "MB/s" };
    if plot::bar_chart(&out.join("fig17_gc.png"), axes, &labels, &series, None).is_ok() {
        done.push(("fig17_gc.png".into(), "Fig. 17: GC and readdressing".into()));
    }
}

/// REPORT.md's prose: `experiments/sprinkler/report.md`, its values set by [`report_md`].
const TEMPLATE: &str = include_str!("../../../../../experiments/sprinkler/report.md");
const TEMPLATE_NAME: &str = "experiments/sprinkler/report.md";

/// The heading of the template's section that holds the floors table.
const FLOORS: &str = "## The paper's floors, per workload";

/// Said after the list of figures when they were drawn without text. It is in the report
/// only on a machine without a font, so it is a value rather than template text.
const NO_FONT: &str = "(No TrueType font was found on this machine, so the figures have no text.)\n\n";

/// The paper's floors, per main workload at 64 chips: SPK3 / VAS bandwidth ≥ 2.2× and
/// SPK3 / PAS ≥ 1.8× (printed after a run, and in the report): the template's floors table
/// with this run's rows.
pub fn msr_check(rows: &[Row]) -> String {
    let mut v = Values::new();
    v.set("floor_rows", floor_rows(rows));
    render(TEMPLATE_NAME, floors_table(), &v)
}

/// The floors table of the template: from its header line to the blank line after it.
fn floors_table() -> &'static str {
    let s = section(TEMPLATE, FLOORS);
    let start = s.find("\n|").expect("the floors section holds a table") + 1;
    let len = s[start..].find("\n\n").expect("a blank line ends the floors table") + 1;
    &s[start..start + len]
}

/// The floors table's rows: each main workload at 64 chips with its VAS, PAS and SPK3 runs.
fn floor_rows(rows: &[Row]) -> String {
    let mut s = String::new();
    // The floors have two significant digits; compare at the precision printed.
    let mark = |x: f64, floor: f64| if (x * 100.0).round() >= floor * 100.0 { "" } else { " (below)" };
    for w in workload_names(rows, "workloads", 64) {
        let get = |sched: &str| pick(rows, "workloads", &w, sched, 64);
        let (Some(v), Some(p), Some(k)) = (get("vas"), get("pas"), get("spk3")) else { continue };
        let (kv, kp) = (k.bandwidth_mb_s / v.bandwidth_mb_s, k.bandwidth_mb_s / p.bandwidth_mb_s);
        let _ = writeln!(
            s,
            "| {w} | {kv:.2}×{} | {kp:.2}×{} | {:.2}× | {} → {} | {} |",
            mark(kv, 2.2),
            mark(kp, 1.8),
            p.bandwidth_mb_s / v.bandwidth_mb_s,
            pct(v.plane_utilization),
            pct(k.plane_utilization),
            reduction_vs_vas(rows, k).map_or("–".into(), pct)
        );
    }
    s
}

/// The sensitivity table's rows on the MSR traces: for each trace the preset's runs, then
/// each variant's.
fn sensitivity_rows(rows: &[Row]) -> String {
    let mut s = String::new();
    for (_, name) in MSR_TRACES {
        let mut settings: Vec<(&str, &str)> = vec![("preset", "workloads")];
        settings.extend(grid().variant.iter().map(|v| (v.name.as_str(), "sensitivity")));
        for (variant, exp) in settings {
            let get = |sched: &str| setting_run(rows, exp, variant, name, sched);
            let (Some(v), Some(p), Some(k1), Some(k)) = (get("vas"), get("pas"), get("spk1"), get("spk3")) else {
                continue;
            };
            let _ = writeln!(
                s,
                "| {name} | {variant} | {:.2}× | {:.2}× | {:.2}× | {} | {} | {} / {} / {} |",
                k.bandwidth_mb_s / v.bandwidth_mb_s,
                k.bandwidth_mb_s / p.bandwidth_mb_s,
                k1.bandwidth_mb_s / p.bandwidth_mb_s,
                reduction_vs_vas(rows, k).map_or("–".into(), pct),
                pct(k.transaction_reduction),
                pct(k.flp_pages[1]),
                pct(k.flp_pages[2]),
                pct(k.flp_pages[3])
            );
        }
    }
    s
}

/// The run of workload `w` under scheduler `s` at 64 chips in experiment `exp`: the main runs
/// (`workloads`, the preset) or the sensitivity runs of the setting named `variant`.
fn setting_run<'a>(rows: &'a [Row], exp: &str, variant: &str, w: &str, s: &str) -> Option<&'a Row> {
    rows.iter().find(|r| {
        r.experiment == exp
            && r.workload == w
            && r.scheduler == s
            && r.chips == 64
            && (exp == "workloads" || r.variant == variant)
    })
}

/// The headlines on the MSR traces under the preset and under each sensitivity setting, side
/// by side (issue 33: a setting that moves a headline shows its column beside the main one).
fn headline_settings(rows: &[Row]) -> String {
    let mut settings: Vec<(&str, &str)> = vec![("preset", "workloads")];
    settings.extend(grid().variant.iter().map(|v| (v.name.as_str(), "sensitivity")));
    let run = |exp: &str, variant: &str, w: &str, s: &str| setting_run(rows, exp, variant, w, s);
    let ratio = |exp: &str, variant: &str, a: &str, b: &str| -> Vec<f64> {
        MSR_TRACES
            .iter()
            .filter_map(|(_, w)| {
                Some(run(exp, variant, w, a)?.bandwidth_mb_s / run(exp, variant, w, b)?.bandwidth_mb_s)
            })
            .collect()
    };
    let saved = |exp: &str, variant: &str| -> Vec<f64> {
        MSR_TRACES.iter().filter_map(|(_, w)| reduction_vs_vas(rows, run(exp, variant, w, "spk3")?)).collect()
    };
    let mut s = format!(
        "| headline (MSR traces) | {} |\n|---|{}\n",
        settings.iter().map(|x| x.0).collect::<Vec<_>>().join(" | "),
        "---|".repeat(settings.len())
    );
    type Cell<'a> = &'a dyn Fn(&str, &str) -> String;
    let lines: [(&str, Cell); 4] = [
        ("SPK3 / VAS bandwidth, geometric mean", &|e, v| format!("{:.2}×", geomean(&ratio(e, v, "spk3", "vas")))),
        ("SPK3 / PAS bandwidth, geometric mean", &|e, v| format!("{:.2}×", geomean(&ratio(e, v, "spk3", "pas")))),
        ("SPK1 / PAS bandwidth, least", &|e, v| format!("{:.2}×", min_max(&ratio(e, v, "spk1", "pas")).0)),
        ("SPK3 transactions saved vs VAS, mean", &|e, v| pct(mean(&saved(e, v)))),
    ];
    for (name, f) in lines {
        let cells: Vec<String> = settings.iter().map(|(v, e)| f(e, v)).collect();
        let _ = writeln!(s, "| {name} | {} |", cells.join(" | "));
    }
    s
}

/// "lo–hi" of `xs` shown by `show` (one value when they print alike, "–" for none).
fn span(xs: &[f64], show: impl Fn(f64) -> String) -> String {
    if xs.is_empty() {
        return "–".into();
    }
    let (lo, hi) = min_max(xs);
    let (lo, hi) = (show(lo), show(hi));
    if lo == hi {
        lo
    } else {
        format!("{lo}–{hi}")
    }
}

/// A list of names, or "no workload".
fn listed(names: &[String]) -> String {
    if names.is_empty() {
        "no workload".into()
    } else {
        names.join(", ")
    }
}

/// The numbers of "Where ssdlab and the paper differ": each from this run's rows.
fn differences(v: &mut Values, rows: &[Row]) {
    let times = |x: f64| format!("{x:.2}×");
    let run = |exp: &str, variant: &str, w: &str, s: &str| setting_run(rows, exp, variant, w, s);
    let msr = |exp: &str, variant: &str, f: &dyn Fn(&Row, &Row, &Row) -> f64| -> Vec<f64> {
        MSR_TRACES
            .iter()
            .filter_map(|(_, w)| {
                Some(f(run(exp, variant, w, "vas")?, run(exp, variant, w, "pas")?, run(exp, variant, w, "spk3")?))
            })
            .collect()
    };
    let over_vas = |v: &Row, _: &Row, k: &Row| k.bandwidth_mb_s / v.bandwidth_mb_s;
    let over_pas = |_: &Row, p: &Row, k: &Row| k.bandwidth_mb_s / p.bandwidth_mb_s;
    let saved = |_: &Row, _: &Row, k: &Row| reduction_vs_vas(rows, k).unwrap_or(0.0);
    v.set("cw256_vas_range", span(&msr("sensitivity", "CW/256", &over_vas), times));
    v.set("preset_vas_range", span(&msr("workloads", "", &over_vas), times));
    v.set("msr_saved_range", span(&msr("workloads", "", &saved), pct));
    v.set("msr_saved_mean", pct(mean(&msr("workloads", "", &saved))));
    v.set("guard_pas_range", span(&msr("sensitivity", "guard 32", &over_pas), times));
    v.set("preset_pas_range", span(&msr("workloads", "", &over_pas), times));
    v.set("cw32_saved_range", span(&msr("sensitivity", "CW/32", &saved), pct));
    v.set("cw32_pas_range", span(&msr("sensitivity", "CW/32", &over_pas), times));
    let requests: Vec<f64> =
        MSR_TRACES.iter().filter_map(|(_, w)| run("workloads", "", w, "vas")).map(|r| r.requests as f64).collect();
    v.set("msr_requests_range", span(&requests, |x| format!("{x:.0}")));
    floors_and_busiest(v, rows);
}

/// The workloads below the paper's floors, and the one where VAS keeps the planes busiest.
fn floors_and_busiest(v: &mut Values, rows: &[Row]) {
    let r = fig10_ratios(rows);
    let below = |xs: &[f64], floor: f64| -> Vec<usize> { (0..xs.len()).filter(|&i| xs[i] < floor).collect() };
    v.set("below_vas", listed(&below(&r.vas, 2.2).iter().map(|&i| r.names[i].clone()).collect::<Vec<_>>()));
    let short = below(&r.pas, 1.8);
    v.set("short_pas_vas", span(&short.iter().map(|&i| r.pas_vas[i]).collect::<Vec<_>>(), |x| format!("{x:.2}×")));
    v.set("short_list", listed(&short.iter().map(|&i| r.names[i].clone()).collect::<Vec<_>>()));
    let vas: Vec<&Row> =
        rows.iter().filter(|x| x.experiment == "workloads" && x.chips == 64 && x.scheduler == "vas").collect();
    let busiest = vas.iter().copied().max_by(|a, b| a.plane_utilization.total_cmp(&b.plane_utilization));
    let name = busiest.map(|b| b.workload.as_str());
    let others: Vec<f64> =
        vas.iter().filter(|x| Some(x.workload.as_str()) != name).map(|x| x.plane_utilization).collect();
    v.set("busiest", busiest.map_or("–".into(), |b| b.workload.clone()));
    v.set("busiest_util", busiest.map_or("–".into(), |b| pct(b.plane_utilization)));
    v.set("others_util_range", span(&others, pct));
    let k3 = busiest
        .and_then(|b| pick(rows, "workloads", &b.workload, "spk3", 64).map(|k| k.bandwidth_mb_s / b.bandwidth_mb_s));
    v.set("busiest_vas", k3.map_or("–".into(), |x| format!("{x:.2}×")));
}

/// Open loop: each workload at the grid's `open_loop_load` of VAS's closed-loop IOPS (the
/// table's rows), and the range of SPK3's device latency below VAS's.
fn open_loop(v: &mut Values, rows: &[Row]) {
    v.set("open_loop_load", format!("{:.0}", grid().open_loop_load * 100.0));
    let mut table = String::new();
    let mut lower = Vec::new();
    for w in workload_names(rows, "open_loop", 64) {
        let get = |sched: &str| pick(rows, "open_loop", &w, sched, 64);
        let (Some(v), Some(p), Some(k)) = (get("vas"), get("pas"), get("spk3")) else { continue };
        lower.push(1.0 - k.device_latency_us / v.device_latency_us);
        let _ = writeln!(
            table,
            "| {w} | {:.0} | {:.0} / {:.0} / {:.0} | {:.0} / {:.0} / {:.0} | {:+.1}% | {:.3} / {:.3} |",
            v.offered_iops,
            v.device_latency_us,
            p.device_latency_us,
            k.device_latency_us,
            v.latency_mean_us,
            p.latency_mean_us,
            k.latency_mean_us,
            (k.device_latency_us / v.device_latency_us - 1.0) * 100.0,
            v.queue_stall_s,
            k.queue_stall_s
        );
    }
    v.set("open_loop_rows", table);
    let (lo, hi) = min_max(&lower);
    v.set("open_loop_lower_min", format!("{:.1}", lo * 100.0));
    v.set("open_loop_lower_max", format!("{:.1}", hi * 100.0));
}

pub(super) fn min_max(xs: &[f64]) -> (f64, f64) {
    (xs.iter().copied().fold(f64::INFINITY, f64::min), xs.iter().copied().fold(f64::NEG_INFINITY, f64::max))
}

pub(super) fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// REPORT.md: the template with this run's values and tables.
pub(super) fn report_md(opts: &Options, rows: &[Row], figures: &[Figure], wall_s: f64, base: &Config) -> String {
    let mut v = Values::new();
    header(&mut v, opts, rows, figures, wall_s, base);
    fig10(&mut v, rows);
    open_loop(&mut v, rows);
    fig11_14(&mut v, rows);
    super::ablation::ablation(&mut v, rows);
    fig15(&mut v, rows);
    v.set("gc_rows", gc_rows(rows));
    v.set("floor_rows", floor_rows(rows));
    v.set("sensitivity_rows", sensitivity_rows(rows));
    v.set("headline_settings", headline_settings(rows));
    differences(&mut v, rows);
    setup(&mut v, base, opts.quick);
    render(TEMPLATE_NAME, TEMPLATE, &v)
}

/// Where each setting comes from, and the dated log of main-row changes:
/// `experiments/sprinkler/provenance.toml`, against the preset (the scheduler set per run).
fn setup(v: &mut Values, base: &Config, quick: bool) {
    const FILE: &str = include_str!("../../../../../experiments/sprinkler/provenance.toml");
    const NAME: &str = "experiments/sprinkler/provenance.toml";
    let g = grid();
    let constant = |name: &str| {
        Some(match name {
            "MAIN_CHIPS" => {
                let chips = if quick { &g.quick_main_chips } else { &g.main_chips };
                chips.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")
            }
            "HOST_QUEUE_DEPTH" => g.host_queue_depth.to_string(),
            "OPEN_LOOP_LOAD" => g.open_loop_load.to_string(),
            "ABLATION_ADDRESSING" => super::ABLATION_ADDRESSING.to_string(),
            "SYNTHETIC_REQUESTS" => (if quick { g.quick_synthetic_requests } else { g.synthetic_requests }).to_string(),
            _ => return None,
        })
    };
    crate::reproduce::provenance::set(v, NAME, FILE, base, &constant);
}

/// The setup: the mode, the drive, the host and the list of figures.
fn header(v: &mut Values, opts: &Options, rows: &[Row], figures: &[Figure], wall_s: f64, base: &Config) {
    let n = &base.nand;
    v.run_line(opts, "runs", rows.len(), wall_s);
    v.set("preset", PRESET_NAME);
    v.geometry(n);
    v.set("page_bytes", n.page_bytes);
    v.set("program_min_us", n.t_program_us.first().copied().unwrap_or(0.0));
    v.set("program_max_us", n.t_program_us.last().copied().unwrap_or(0.0));
    v.set("read_us", n.t_read_us.first().copied().unwrap_or(0.0));
    v.set("onfi_mt_s", n.bus.rate_mt_s);
    v.set("tags", base.hil.queue_depth);
    v.set("allocation", &base.ftl.allocation);
    v.set("host_queue_depth", grid().host_queue_depth);
    v.set("plane_slots", base.hil.plane_slots);
    v.set("figures", figures.iter().map(|f| format!("`{}`", f.0)).collect::<Vec<_>>().join(", "));
    v.set("font_note", if plot::have_font() { "" } else { NO_FONT });
}

/// Figure 10's per-workload ratios, gathered for its claims table (and the claims ledger).
#[derive(Default)]
pub(super) struct Fig10Ratios {
    /// SPK3 / VAS bandwidth.
    pub(super) vas: Vec<f64>,
    /// SPK3 / PAS bandwidth.
    pub(super) pas: Vec<f64>,
    /// SPK3's mean device latency below VAS's, as a fraction.
    pub(super) latency: Vec<f64>,
    /// SPK3's mean response time below VAS's, as a fraction.
    pub(super) response: Vec<f64>,
    /// SPK3 / VAS queue stall, where VAS stalls at all.
    pub(super) stall: Vec<f64>,
    /// Workloads where SPK1 has less bandwidth than PAS.
    pub(super) spk1_below_pas: Vec<String>,
    /// SPK1 / PAS bandwidth.
    pub(super) spk1_pas: Vec<f64>,
    /// PAS / VAS bandwidth per workload.
    pub(super) pas_vas: Vec<f64>,
    /// The workloads of the per-workload vectors, in their order.
    pub(super) names: Vec<String>,
    /// Workloads where SPK2 has more bandwidth than both VAS and PAS.
    pub(super) spk2_best: usize,
    /// SPK2's bandwidth over the larger of VAS's and PAS's.
    pub(super) spk2_over_best: Vec<f64>,
    pub(super) workloads: usize,
}

/// The main workloads at 64 chips that ran under all five schedulers, with their runs in
/// the order of [`SCHEDULERS`].
fn fig10_runs(rows: &[Row]) -> Vec<(String, [&Row; 5])> {
    let mut runs = Vec::new();
    for w in workload_names(rows, "workloads", 64) {
        let get = |s: &str| pick(rows, "workloads", &w, s, 64);
        if let (Some(v), Some(p), Some(k1), Some(k2), Some(k3)) =
            (get("vas"), get("pas"), get("spk1"), get("spk2"), get("spk3"))
        {
            runs.push((w, [v, p, k1, k2, k3]));
        }
    }
    runs
}

/// Figure 10's per-workload ratios.
pub(super) fn fig10_ratios(rows: &[Row]) -> Fig10Ratios {
    let workloads = workload_names(rows, "workloads", 64).len();
    let mut ratios = Fig10Ratios { workloads, ..Fig10Ratios::default() };
    for (w, [v, p, k1, k2, k3]) in fig10_runs(rows) {
        ratios.vas.push(k3.bandwidth_mb_s / v.bandwidth_mb_s);
        ratios.pas.push(k3.bandwidth_mb_s / p.bandwidth_mb_s);
        ratios.latency.push(1.0 - k3.device_latency_us / v.device_latency_us);
        ratios.response.push(1.0 - k3.latency_mean_us / v.latency_mean_us);
        if v.queue_stall_s > 0.0 {
            ratios.stall.push(k3.queue_stall_s / v.queue_stall_s);
        }
        ratios.spk1_pas.push(k1.bandwidth_mb_s / p.bandwidth_mb_s);
        ratios.pas_vas.push(p.bandwidth_mb_s / v.bandwidth_mb_s);
        if k1.bandwidth_mb_s < p.bandwidth_mb_s {
            ratios.spk1_below_pas.push(w.clone());
        }
        ratios.names.push(w);
        ratios.spk2_over_best.push(k2.bandwidth_mb_s / v.bandwidth_mb_s.max(p.bandwidth_mb_s));
        if k2.bandwidth_mb_s > v.bandwidth_mb_s && k2.bandwidth_mb_s > p.bandwidth_mb_s {
            ratios.spk2_best += 1;
        }
    }
    ratios
}

/// Fig. 10: bandwidth, IOPS, latency and queue stall per workload (the table's rows), then
/// the values of its claims table.
fn fig10(v: &mut Values, rows: &[Row]) {
    let mut table = String::new();
    for (w, [v, p, k1, k2, k3]) in fig10_runs(rows) {
        let _ = writeln!(
            table,
            "| {w} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2}× | {:.2}× | {:+.1}% | {:+.1}% | {:.2} |",
            v.bandwidth_mb_s,
            p.bandwidth_mb_s,
            k1.bandwidth_mb_s,
            k2.bandwidth_mb_s,
            k3.bandwidth_mb_s,
            k3.bandwidth_mb_s / v.bandwidth_mb_s,
            k3.bandwidth_mb_s / p.bandwidth_mb_s,
            (k3.device_latency_us / v.device_latency_us - 1.0) * 100.0,
            (k3.latency_mean_us / v.latency_mean_us - 1.0) * 100.0,
            if v.queue_stall_s > 0.0 { k3.queue_stall_s / v.queue_stall_s } else { 0.0 }
        );
    }
    v.set("fig10_rows", table);
    fig10_claims(v, &fig10_ratios(rows));
}

/// Fig. 10's claims: this run's side of the table (the template holds the paper's numbers).
fn fig10_claims(v: &mut Values, ratios: &Fig10Ratios) {
    let (vmin, vmax) = min_max(&ratios.vas);
    let (pmin, pmax) = min_max(&ratios.pas);
    let (lmin, lmax) = min_max(&ratios.latency);
    let (rmin, rmax) = min_max(&ratios.response);
    v.set("vas_ratio_geomean", format!("{:.2}", geomean(&ratios.vas)));
    v.set("vas_ratio_min", format!("{vmin:.2}"));
    v.set("vas_ratio_max", format!("{vmax:.2}"));
    v.set("pas_ratio_geomean", format!("{:.2}", geomean(&ratios.pas)));
    v.set("pas_ratio_min", format!("{pmin:.2}"));
    v.set("pas_ratio_max", format!("{pmax:.2}"));
    v.set("latency_lower_min", format!("{:.1}", lmin * 100.0));
    v.set("latency_lower_max", format!("{:.1}", lmax * 100.0));
    v.set("response_lower_min", format!("{:.1}", rmin * 100.0));
    v.set("response_lower_max", format!("{:.1}", rmax * 100.0));
    v.set("stall_lower", format!("{:.1}", (1.0 - mean(&ratios.stall)) * 100.0));
    let below = &ratios.spk1_below_pas;
    v.set("spk1_below_pas", below.len());
    v.set("workloads", ratios.workloads);
    v.set("spk1_below_pas_list", if below.is_empty() { String::new() } else { format!(": {}", below.join(", ")) });
    v.set("spk2_best", ratios.spk2_best);
}

/// The mean of `f` over the main workloads at 64 chips under scheduler `s`.
pub(super) fn workload_mean(rows: &[Row], s: &str, f: &dyn Fn(&Row) -> f64) -> f64 {
    let xs: Vec<f64> =
        rows.iter().filter(|r| r.experiment == "workloads" && r.chips == 64 && r.scheduler == s).map(f).collect();
    mean(&xs)
}

/// Fig. 11 and 13/14: idleness and flash-level parallelism per scheduler (the table's
/// rows), then the values of its claims table.
fn fig11_14(v: &mut Values, rows: &[Row]) {
    let avg = |s: &str, f: &dyn Fn(&Row) -> f64| workload_mean(rows, s, f);
    let vs_vas = |r: &Row| reduction_vs_vas(rows, r).unwrap_or(0.0);
    let flp = |s: &str, k: usize| format!("{} ({})", pct(avg(s, &|r| r.flp_pages[k])), pct(avg(s, &|r| r.flp[k])));
    let mut table = String::new();
    for s in SCHEDULERS {
        let _ = writeln!(
            table,
            "| {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} ({}) |",
            s.to_uppercase(),
            pct(avg(s, &|r| r.chip_utilization)),
            pct(avg(s, &|r| r.plane_utilization)),
            pct(avg(s, &|r| r.inter_chip_idleness)),
            pct(avg(s, &|r| r.intra_chip_idleness)),
            flp(s, 0),
            flp(s, 1),
            flp(s, 2),
            flp(s, 3),
            pct(avg(s, &vs_vas)),
            pct(avg(s, &|r| r.transaction_reduction)),
        );
    }
    v.set("scheduler_rows", table);
    let inter = 1.0 - avg("spk3", &|r| r.inter_chip_idleness) / avg("vas", &|r| r.inter_chip_idleness);
    let intra = 1.0 - avg("spk3", &|r| r.intra_chip_idleness) / avg("vas", &|r| r.intra_chip_idleness);
    v.set("inter_chip_change", format!("{:+.1}%", -inter * 100.0));
    v.set("intra_chip_change", format!("{:+.1}%", -intra * 100.0));
    v.set("spk3_saved_vs_vas", pct(avg("spk3", &vs_vas)));
    v.set("spk3_saved_vs_page_ops", pct(avg("spk3", &|r| r.transaction_reduction)));
    v.set("vas_multi_plane", pct(avg("vas", &|r| r.flp_pages[2])));
    v.set("vas_die_interleaved", pct(avg("vas", &|r| r.flp_pages[1])));
    v.set("vas_both", pct(avg("vas", &|r| r.flp_pages[3])));
}

/// Figure 15's chip counts, each with the template's names of SPK3's and VAS's mean
/// utilization over the transfer sizes (plane-weighted, chip-busy), beside the paper's.
const FIG15_CHIPS: [(u32, [&str; 4]); 3] = [
    (64, ["spk3_plane_64", "spk3_chip_64", "vas_plane_64", "vas_chip_64"]),
    (256, ["spk3_plane_256", "spk3_chip_256", "vas_plane_256", "vas_chip_256"]),
    (1024, ["spk3_plane_1024", "spk3_chip_1024", "vas_plane_1024", "vas_chip_1024"]),
];

/// Fig. 15: utilization per transfer size (plane-weighted, chip-busy in brackets; the
/// table's rows), then at each chip count SPK3's and VAS's mean over the transfer sizes.
fn fig15(v: &mut Values, rows: &[Row]) {
    let mut table = String::new();
    for (chips, [spk3_plane, spk3_chip, vas_plane, vas_chip]) in FIG15_CHIPS {
        for b in transfer_sizes(rows, chips) {
            let mut line = format!("| {chips} | {} KiB |", b >> 10);
            for s in SCHEDULERS {
                let r = transfer_run(rows, chips, b, s);
                let (plane, chip) = r.map_or((0.0, 0.0), |r| (r.plane_utilization, r.chip_utilization));
                line += &format!(" {} ({}) |", pct(plane), pct(chip));
            }
            let _ = writeln!(table, "{line}");
        }
        let u = |s: &str, f: &dyn Fn(&Row) -> f64| {
            let xs: Vec<f64> = rows
                .iter()
                .filter(|r| r.experiment == "transfer_size" && r.chips == chips && r.scheduler == s)
                .map(f)
                .collect();
            mean(&xs)
        };
        let plane = |r: &Row| r.plane_utilization;
        let chip = |r: &Row| r.chip_utilization;
        v.set(spk3_plane, pct(u("spk3", &plane)));
        v.set(spk3_chip, pct(u("spk3", &chip)));
        v.set(vas_plane, pct(u("vas", &plane)));
        v.set(vas_chip, pct(u("vas", &chip)));
    }
    v.set("transfer_rows", table);
}

/// Fig. 17's rows: each fragmented run against its pristine one.
fn gc_rows(rows: &[Row]) -> String {
    let mut s = String::new();
    for r in rows.iter().filter(|r| r.experiment == "gc" && r.state == "fragmented") {
        let pristine = rows
            .iter()
            .find(|p| {
                p.experiment == "gc" && p.state == "pristine" && p.workload == r.workload && p.scheduler == r.scheduler
            })
            .map_or(0.0, |p| p.bandwidth_mb_s);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1} | {:.1} | {:.1}% | {} | {:.2} | {} |",
            r.workload,
            r.scheduler.to_uppercase(),
            if r.readdressing { "on" } else { "off" },
            pristine,
            r.bandwidth_mb_s,
            (1.0 - r.bandwidth_mb_s / pristine) * 100.0,
            r.gc_invocations,
            r.waf,
            pct(r.gc_chip_time_fraction)
        );
    }
    s
}
