//! REPORT.md and the figures of `reproduce sprinkler`: rows picked, tables and prose.

use super::*;

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
        if plot::bars(&out.join(file), caption, y, &names, &series).is_ok() {
            done.push((file.to_string(), caption.to_string()));
        }
    };
    bar("fig10a_bandwidth.png", "Fig. 10a: bandwidth (64 chips)", "MB/s", &|r| r.bandwidth_mb_s, 64);
    bar("fig10b_iops.png", "Fig. 10b: IOPS (64 chips)", "IOPS", &|r| r.iops, 64);
    bar(
        "fig10c_latency.png",
        "Fig. 10c: mean device-level latency, fetch to completion (64 chips)",
        "us",
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
    bar("fig10d_queue_stall.png", "Fig. 10d: queue stall time, normalised to VAS", "x VAS", &stall_norm, 64);
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

/// Fig. 14: FLP breakdown per scheduler (mean over workloads at 64 chips).
pub(super) fn flp_figure(out: &Path, rows: &[Row], done: &mut Vec<Figure>) {
    let kinds = ["single", "die interleave", "multi-plane", "both"];
    let cats: Vec<String> = SCHEDULERS.iter().map(|s| s.to_uppercase()).collect();
    let series: Vec<(String, Vec<f64>)> = kinds
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let v = SCHEDULERS
                .iter()
                .map(|s| {
                    let xs: Vec<f64> = rows
                        .iter()
                        .filter(|r| r.experiment == "workloads" && r.chips == 64 && r.scheduler == *s)
                        .map(|r| r.flp_pages[k])
                        .collect();
                    mean(&xs)
                })
                .collect();
            (name.to_string(), v)
        })
        .collect();
    if plot::bars(
        &out.join("fig14_flp_breakdown.png"),
        "Fig. 14: FLP breakdown (mean over workloads)",
        "fraction of pages served",
        &cats,
        &series,
    )
    .is_ok()
    {
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
        if plot::lines_log2(&out.join(&file), &caption, "transfer size", "utilization", &xs, &series).is_ok() {
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
        series.push((state.to_string(), v));
    }
    if plot::bars(&out.join("fig17_gc.png"), "Fig. 17: bandwidth with GC (95% filled)", "MB/s", &labels, &series)
        .is_ok()
    {
        done.push(("fig17_gc.png".into(), "Fig. 17: GC and readdressing".into()));
    }
}

/// The paper's floors, per main workload at 64 chips: SPK3 / VAS bandwidth ≥ 2.2× and
/// SPK3 / PAS ≥ 1.8× (printed after a run, and in the report).
pub fn msr_check(rows: &[Row]) -> String {
    let mut s = String::from(
        "| workload | SPK3 / VAS bandwidth (paper ≥ 2.2×) | SPK3 / PAS bandwidth (paper 1.8×) | PAS / VAS | plane utilization VAS → SPK3 | SPK3 transactions saved vs VAS |\n|---|---|---|---|---|---|\n",
    );
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

/// The sensitivity rows on the MSR traces: each variant against the preset's own setting.
pub(super) fn sensitivity_table(rows: &[Row], base: &Config) -> String {
    let main = format!("preset ({}/{}, no guard)", base.ftl.allocation, base.hil.queue_depth);
    let mut s = format!(
        "### Sensitivity: device queue depth, write placement, starvation guard\n\n\
         `allocation/tags` rows are the MSR traces with `--set ftl.allocation=... --set hil.queue_depth=...`; \
         `guard 32` sets `hil.max_bypass=32` (PAS and SPK1 let the oldest request go first after 32 bypasses). \
         The first row of each trace is the preset ({main}).\n\n\
         | trace | setting | SPK3 / VAS | SPK3 / PAS | SPK1 / PAS | SPK3 transactions saved vs VAS | SPK3 reduction vs page ops | SPK3 pages in die-interleaved / multi-plane / both |\n\
         |---|---|---|---|---|---|---|---|\n"
    );
    for (_, name) in MSR_TRACES {
        let mut settings: Vec<(&str, &str)> = vec![("preset", "workloads")];
        settings.extend(grid().variant.iter().map(|v| (v.name.as_str(), "sensitivity")));
        for (variant, exp) in settings {
            let get = |sched: &str| {
                rows.iter().find(|r| {
                    r.experiment == exp
                        && r.workload == name
                        && r.scheduler == sched
                        && r.chips == 64
                        && (exp == "workloads" || r.variant == variant)
                })
            };
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

/// Open loop: each workload at the grid's `open_loop_load` of VAS's closed-loop IOPS.
pub(super) fn report_open_loop(m: &mut String, rows: &[Row]) {
    let _ = writeln!(
        m,
        "## Open-loop host: the same workloads at {:.0}% of VAS's closed-loop throughput (64 chips)\n\n\
         Arrivals follow each trace's timestamps (the synthetics': Poisson), sped up so the offered load is \
         {:.0}% of what VAS sustained closed-loop on that workload. Every scheduler keeps up, so bandwidth is the \
         offered load; latency and queue stall show what scheduling does at equal load.\n",
        grid().open_loop_load * 100.0,
        grid().open_loop_load * 100.0
    );
    let _ = writeln!(m, "| workload | offered IOPS | device latency µs VAS / PAS / SPK3 | response time µs VAS / PAS / SPK3 | SPK3 device latency vs VAS | queue stall s VAS / SPK3 |\n|---|---|---|---|---|---|");
    let mut lower = Vec::new();
    for w in workload_names(rows, "open_loop", 64) {
        let get = |sched: &str| pick(rows, "open_loop", &w, sched, 64);
        let (Some(v), Some(p), Some(k)) = (get("vas"), get("pas"), get("spk3")) else { continue };
        lower.push(1.0 - k.device_latency_us / v.device_latency_us);
        let _ = writeln!(
            m,
            "| {w} | {:.0} | {:.0} / {:.0} / {:.0} | {:.0} / {:.0} / {:.0} | −{:.1}% | {:.3} / {:.3} |",
            v.offered_iops,
            v.device_latency_us,
            p.device_latency_us,
            k.device_latency_us,
            v.latency_mean_us,
            p.latency_mean_us,
            k.latency_mean_us,
            (1.0 - k.device_latency_us / v.device_latency_us) * 100.0,
            v.queue_stall_s,
            k.queue_stall_s
        );
    }
    let (lo, hi) = min_max(&lower);
    let _ = writeln!(
        m,
        "\nSPK3's device latency is {:.1}–{:.1}% below VAS's at equal load (paper, closed: 59.1–92.3%).\n",
        lo * 100.0,
        hi * 100.0
    );
}

pub(super) fn min_max(xs: &[f64]) -> (f64, f64) {
    (xs.iter().copied().fold(f64::INFINITY, f64::min), xs.iter().copied().fold(f64::NEG_INFINITY, f64::max))
}

pub(super) fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

pub(super) fn report_md(opts: &Options, rows: &[Row], figures: &[Figure], wall_s: f64, base: &Config) -> String {
    let mut m = String::new();
    report_header(&mut m, opts, rows, figures, wall_s, base);
    report_fig10(&mut m, rows);
    report_open_loop(&mut m, rows);
    report_fig11_14(&mut m, rows);
    report_fig15(&mut m, rows);
    report_fig17(&mut m, rows);
    let _ = writeln!(m, "## The paper's floors, per workload\n\n{}", msr_check(rows));
    let _ = writeln!(m, "\n{}", sensitivity_table(rows, base));
    m += ANALYSIS;
    m
}

/// The title, the setup and the list of figures.
pub(super) fn report_header(
    m: &mut String,
    opts: &Options,
    rows: &[Row],
    figures: &[Figure],
    wall_s: f64,
    base: &Config,
) {
    let host_queue_depth = grid().host_queue_depth;
    let mode = if opts.quick { "quick" } else { "full" };
    let _ = writeln!(m, "# Sprinkler (HPCA 2014) reproduced with ssdlab\n");
    let _ = writeln!(
        m,
        "Mode: **{mode}** ({} runs, {:.0} s wall on {} threads). Drive: `{PRESET_NAME}` — {} channels × {} chips, {} dies × {} planes, {} blocks per plane, {} pages of {} B, MLC program {}–{} µs by page, read {} µs, ONFI {} MT/s, device queue {} tags, allocation `{}`, no starvation guard, scheduler set per run. Host: closed loop, {host_queue_depth} requests outstanding (the device queue stays full), and open loop in its own section. Latency is the paper's device-level latency (fetch → completion) unless a column says response time (host arrival → completion). 256 chips = 16 channels × 16 chips; 1024 chips = 32 × 32.\n",
        rows.len(),
        wall_s,
        opts.threads,
        base.nand.channels,
        base.nand.chips_per_channel,
        base.nand.dies_per_chip,
        base.nand.planes_per_die,
        base.nand.blocks_per_plane,
        base.nand.pages_per_block,
        base.nand.page_bytes,
        base.nand.t_program_us.first().copied().unwrap_or(0.0),
        base.nand.t_program_us.last().copied().unwrap_or(0.0),
        base.nand.t_read_us.first().copied().unwrap_or(0.0),
        base.nand.bus.rate_mt_s,
        base.hil.queue_depth,
        base.ftl.allocation,
    );
    let _ = writeln!(
        m,
        "Every number below is in `results.csv` (one row per run). Figures: {}.\n",
        figures.iter().map(|f| format!("`{}`", f.0)).collect::<Vec<_>>().join(", ")
    );
    if !plot::have_font() {
        let _ = writeln!(m, "(No TrueType font was found on this machine, so the figures have no text.)\n");
    }
}

/// Figure 10's per-workload ratios, gathered for its claims table.
#[derive(Default)]
pub(super) struct Fig10Ratios {
    /// SPK3 / VAS bandwidth.
    vas: Vec<f64>,
    /// SPK3 / PAS bandwidth.
    pas: Vec<f64>,
    /// SPK3's mean device latency below VAS's, as a fraction.
    latency: Vec<f64>,
    /// SPK3's mean response time below VAS's, as a fraction.
    response: Vec<f64>,
    /// SPK3 / VAS queue stall, where VAS stalls at all.
    stall: Vec<f64>,
    /// Workloads where SPK1 has less bandwidth than PAS.
    spk1_below_pas: Vec<String>,
    /// Workloads where SPK2 has more bandwidth than both VAS and PAS.
    spk2_best: usize,
    workloads: usize,
}

/// Fig. 10: bandwidth, IOPS, latency and queue stall per workload, then the paper's claims.
pub(super) fn report_fig10(m: &mut String, rows: &[Row]) {
    let names = workload_names(rows, "workloads", 64);
    let _ = writeln!(m, "## Figure 10: bandwidth, IOPS, latency, queue stall (64 chips)\n");
    let _ = writeln!(m, "| workload | VAS MB/s | PAS | SPK1 | SPK2 | SPK3 | SPK3/VAS | SPK3/PAS | SPK3 device latency vs VAS | SPK3 response time vs VAS | SPK3 stall / VAS |\n|---|---|---|---|---|---|---|---|---|---|---|");
    let mut ratios = Fig10Ratios { workloads: names.len(), ..Fig10Ratios::default() };
    for w in &names {
        let get = |s: &str| pick(rows, "workloads", w, s, 64);
        let (Some(v), Some(p), Some(k1), Some(k2), Some(k3)) =
            (get("vas"), get("pas"), get("spk1"), get("spk2"), get("spk3"))
        else {
            continue;
        };
        ratios.vas.push(k3.bandwidth_mb_s / v.bandwidth_mb_s);
        ratios.pas.push(k3.bandwidth_mb_s / p.bandwidth_mb_s);
        ratios.latency.push(1.0 - k3.device_latency_us / v.device_latency_us);
        ratios.response.push(1.0 - k3.latency_mean_us / v.latency_mean_us);
        if v.queue_stall_s > 0.0 {
            ratios.stall.push(k3.queue_stall_s / v.queue_stall_s);
        }
        if k1.bandwidth_mb_s < p.bandwidth_mb_s {
            ratios.spk1_below_pas.push(w.clone());
        }
        if k2.bandwidth_mb_s > v.bandwidth_mb_s && k2.bandwidth_mb_s > p.bandwidth_mb_s {
            ratios.spk2_best += 1;
        }
        let _ = writeln!(
            m,
            "| {w} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2}× | {:.2}× | −{:.1}% | −{:.1}% | {:.2} |",
            v.bandwidth_mb_s,
            p.bandwidth_mb_s,
            k1.bandwidth_mb_s,
            k2.bandwidth_mb_s,
            k3.bandwidth_mb_s,
            k3.bandwidth_mb_s / v.bandwidth_mb_s,
            k3.bandwidth_mb_s / p.bandwidth_mb_s,
            (1.0 - k3.device_latency_us / v.device_latency_us) * 100.0,
            (1.0 - k3.latency_mean_us / v.latency_mean_us) * 100.0,
            if v.queue_stall_s > 0.0 { k3.queue_stall_s / v.queue_stall_s } else { 0.0 }
        );
    }
    report_fig10_claims(m, &ratios);
}

/// Fig. 10's claims table: the paper's numbers against ssdlab's.
pub(super) fn report_fig10_claims(m: &mut String, ratios: &Fig10Ratios) {
    let (vmin, vmax) = min_max(&ratios.vas);
    let (pmin, pmax) = min_max(&ratios.pas);
    let (lmin, lmax) = min_max(&ratios.latency);
    let (rmin, rmax) = min_max(&ratios.response);
    let _ = writeln!(m, "\n| claim | paper | ssdlab |\n|---|---|---|");
    let _ =
        writeln!(m, "| SPK3 bandwidth / VAS | ≥ 2.2× | {:.2}× geomean ({vmin:.2}–{vmax:.2}×) |", geomean(&ratios.vas));
    let _ =
        writeln!(m, "| SPK3 bandwidth / PAS | 1.8× | {:.2}× geomean ({pmin:.2}–{pmax:.2}×) |", geomean(&ratios.pas));
    let _ = writeln!(
        m,
        "| SPK3 device latency vs VAS | 59.1–92.3% lower | {:.1}–{:.1}% lower (response time: {:.1}–{:.1}%) |",
        lmin * 100.0,
        lmax * 100.0,
        rmin * 100.0,
        rmax * 100.0
    );
    let _ = writeln!(
        m,
        "| SPK3 queue stall vs VAS | ~86% lower | {:.1}% lower (mean) |",
        (1.0 - mean(&ratios.stall)) * 100.0
    );
    let below = &ratios.spk1_below_pas;
    let _ = writeln!(
        m,
        "| SPK1 below PAS | sometimes (cfs3, proj0, proj1 latency) | on {} of {} workloads{} |",
        below.len(),
        ratios.workloads,
        if below.is_empty() { String::new() } else { format!(": {}", below.join(", ")) }
    );
    let _ = writeln!(
        m,
        "| SPK2 above VAS and PAS | always | on {} of {} workloads |\n",
        ratios.spk2_best, ratios.workloads
    );
}

/// The mean of `f` over the main workloads at 64 chips under scheduler `s`.
pub(super) fn workload_mean(rows: &[Row], s: &str, f: &dyn Fn(&Row) -> f64) -> f64 {
    let xs: Vec<f64> =
        rows.iter().filter(|r| r.experiment == "workloads" && r.chips == 64 && r.scheduler == s).map(f).collect();
    mean(&xs)
}

/// Fig. 11 and 13/14: idleness and flash-level parallelism per scheduler, then the claims.
pub(super) fn report_fig11_14(m: &mut String, rows: &[Row]) {
    let avg = |s: &str, f: &dyn Fn(&Row) -> f64| workload_mean(rows, s, f);
    let _ =
        writeln!(m, "## Figures 11, 13, 14: idleness and flash-level parallelism (64 chips, mean over workloads)\n");
    let _ = writeln!(m, "FLP columns: share of the pages served (Figure 14's measure), then in brackets the share of commands. Transactions saved: against VAS's transactions on the same workload (Figure 16's measure), then against page operations.\n");
    let _ = writeln!(m, "| scheduler | chip utilization (plane-weighted) | inter-chip idleness | intra-chip idleness | single | die-interleaved | multi-plane | both | transactions saved vs VAS (vs page ops) |\n|---|---|---|---|---|---|---|---|---|");
    let vs_vas = |r: &Row| reduction_vs_vas(rows, r).unwrap_or(0.0);
    let flp = |s: &str, k: usize| format!("{} ({})", pct(avg(s, &|r| r.flp_pages[k])), pct(avg(s, &|r| r.flp[k])));
    for s in SCHEDULERS {
        let _ = writeln!(
            m,
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
    let inter = 1.0 - avg("spk3", &|r| r.inter_chip_idleness) / avg("vas", &|r| r.inter_chip_idleness);
    let intra = 1.0 - avg("spk3", &|r| r.intra_chip_idleness) / avg("vas", &|r| r.intra_chip_idleness);
    let _ = writeln!(m, "\n| claim | paper | ssdlab |\n|---|---|---|");
    let _ = writeln!(m, "| SPK3 inter-chip idleness vs VAS | −46.1% | −{:.1}% |", inter * 100.0);
    let _ = writeln!(m, "| SPK3 intra-chip idleness vs VAS | −23.5% | −{:.1}% |", intra * 100.0);
    let _ = writeln!(
        m,
        "| SPK3 transaction reduction (Fig. 16, against VAS) | 50.2% | {} (against page ops: {}) |",
        pct(avg("spk3", &vs_vas)),
        pct(avg("spk3", &|r| r.transaction_reduction))
    );
    let _ = writeln!(
        m,
        "| VAS FLP (pages served) | PAL1 only, 1–3% | multi-plane {}, die-interleaved {}, both {} |\n",
        pct(avg("vas", &|r| r.flp_pages[2])),
        pct(avg("vas", &|r| r.flp_pages[1])),
        pct(avg("vas", &|r| r.flp_pages[3]))
    );
}

/// Fig. 15: utilization per transfer size (plane-weighted, chip-busy in brackets), then the
/// mean against the paper's.
pub(super) fn report_fig15(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "## Figure 15: chip utilization against transfer size\n");
    let _ = writeln!(m, "Plane-weighted utilization (a command on one of a chip's four planes counts a quarter), chip-busy utilization in brackets. The paper's utilization rises with FLP, which only the plane-weighted measure can show.\n");
    let paper = [(64, 0.712, 0.37), (256, 0.615, 0.212), (1024, 0.449, 0.139)];
    let _ = writeln!(m, "| chips | transfer | VAS | PAS | SPK1 | SPK2 | SPK3 |\n|---|---|---|---|---|---|---|");
    let mut overall = Vec::new();
    for (chips, p3, pv) in paper {
        for b in transfer_sizes(rows, chips) {
            let mut line = format!("| {chips} | {} KiB |", b >> 10);
            for s in SCHEDULERS {
                let r = transfer_run(rows, chips, b, s);
                let (plane, chip) = r.map_or((0.0, 0.0), |r| (r.plane_utilization, r.chip_utilization));
                line += &format!(" {} ({}) |", pct(plane), pct(chip));
            }
            let _ = writeln!(m, "{line}");
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
        overall.push((chips, p3, pv, (u("spk3", &plane), u("spk3", &chip)), (u("vas", &plane), u("vas", &chip))));
    }
    let _ = writeln!(m, "\n| chips | paper SPK3 | ssdlab SPK3 plane-weighted (chip-busy) | paper VAS | ssdlab VAS plane-weighted (chip-busy) |\n|---|---|---|---|---|");
    for (chips, p3, pv, s3, sv) in overall {
        let _ = writeln!(
            m,
            "| {chips} | {} | {} ({}) | {} | {} ({}) |",
            pct(p3),
            pct(s3.0),
            pct(s3.1),
            pct(pv),
            pct(sv.0),
            pct(sv.1)
        );
    }
}

/// Fig. 17: each fragmented run against its pristine one.
pub(super) fn report_fig17(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "\n## Figure 17: garbage collection and readdressing\n");
    let _ = writeln!(m, "| workload | scheduler | readdressing | pristine MB/s | 95% filled MB/s | degradation | GC invocations | WAF | chip time in GC |\n|---|---|---|---|---|---|---|---|---|");
    for r in rows.iter().filter(|r| r.experiment == "gc" && r.state == "fragmented") {
        let pristine = rows
            .iter()
            .find(|p| {
                p.experiment == "gc" && p.state == "pristine" && p.workload == r.workload && p.scheduler == r.scheduler
            })
            .map_or(0.0, |p| p.bandwidth_mb_s);
        let _ = writeln!(
            m,
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
    let _ = writeln!(m, "\nPaper: SPK3 degrades 33–78%, VAS 11–28%; under GC SPK3 stays about 2× VAS.\n");
    let _ = writeln!(
        m,
        "This figure runs on a drive 16× smaller (256 blocks per plane, 16 GiB) so that each run writes several \
         times the free blocks a busy drive may use up before GC must run (see below).\n"
    );
}

/// What differs from the paper and why (kept with the code so every run's report carries it).
pub(super) const ANALYSIS: &str = r#"
## Where ssdlab and the paper differ, and why

- **The setup is the paper's; earlier versions of this report used ours.** The preset now has
  a 32-tag native command queue (the paper's 256 KB layout table is exactly 32 tags × 4 MB /
  2 KB pages × 4 bytes), static `CWDP` allocation (Table 1's transactional locality is computed
  from the static chip layout; §4.3 moves data only for GC, wear levelling and bad blocks) and
  no starvation guard in PAS and SPK1 (the paper describes none). The sensitivity table shows
  the earlier defaults: with 256 tags and `CW` (the controller picks a chip's die and plane per
  write) SPK3 reaches 6–12× VAS on the MSR traces, several times the paper's ≥ 2.2×, because
  both settings help only schedulers that over-commit; each alone is a row of its own.
- **What "commit" means is ssdlab's model, stated in code.** The paper does not give its
  simulator's commit rules. VAS and PAS commit whole host requests to chips with no committed
  work of another request; RIOS without FARO (SPK2) gives a clear chip every memory request
  waiting for it, of every host request, in one visit (Figure 7); FARO (SPK1, SPK3) also
  over-commits a busy chip, one waiting memory request per plane. The TSU builds a command from
  what is waiting when the chip frees. `crates/ssdlab/src/hil/` documents each rule; the unit
  tests work the paper-style examples by hand.
- **Where a workload is below a floor (the floors table), and why.** SPK3 / PAS is SPK3 / VAS
  divided by PAS / VAS. SPK3 clears 2.2× VAS on every workload but msnfs3; where it falls short
  of 1.8× PAS, PAS itself already reaches about 1.9–2.8× VAS (msr-hm0, msr-rw20, msr-rw40,
  hm1, msnfs2, proj3). Our PAS commits any queued request whose chips are clear, out of order
  and without a guard, and with small random requests (1–6 pages) a request seldom collides,
  so PAS already takes most of the inter-chip parallelism that RIOS adds. What Sprinkler adds
  beyond that is flash-level parallelism, and at 32 tags under static `CWDP` it is small: a
  chip rarely holds two waiting memory requests for different planes at one page offset, and
  SPK3 saves 5–16 % of VAS's transactions on these workloads (the paper: 50.2 % on average).
  Two rows of the sensitivity table are the evidence: with the starvation guard (`guard 32`)
  PAS loses bandwidth and SPK3 / PAS rises (1.3–2.6× on the MSR traces); with placement of a
  chip's writes on its die and plane (`CW/32`) FARO finds multi-plane pairs (17–47 % saved)
  and SPK3 / PAS is 2.3–3.4×. Two workloads differ: **proj4** is the fastest workload (SPK3
  moves 1.15 GB/s, 72 % of the eight 200 MB/s channels' 1.6 GB/s), where channel transfer
  rather than chip idleness bounds every scheduler, so SPK3 / PAS is 1.77× and SPK3 / VAS
  2.25×; **msnfs3** is few huge writes (477 KB on average): each spans every chip, VAS already
  keeps chips busier than on any other workload (plane utilization 27 % against 2–8 %), and
  FARO's spreading of commits over several requests makes each finish later (SPK3 below SPK2:
  the contention §4.2 warns of), so SPK3 / VAS is 1.37×.
- **SPK2 and SPK3 are close.** Both commit all the work a clear chip has waiting; SPK3 adds
  over-commitment of busy chips, which pays when more work for a busy chip arrives than one
  command takes. With 32 tags that is rare; with 256 tags (sensitivity) it is not.
- **Latency is the paper's device-level latency** (fetch → completion), with response time
  (host arrival → completion, host queue wait included) beside it. Closed-loop, both are
  mostly the bandwidth ratio restated (Little's law with a full queue), so the open-loop
  section measures latency at equal offered load. The open-loop load (80 % of VAS's
  closed-loop throughput) is our choice; MSR timestamps keep their burstiness, so VAS's
  response time there includes bursts queued in the host.
- **Figure 15's utilization is plane-weighted.** A chip-busy fraction counts a one-plane
  command as a busy chip, so it cannot rise with FLP as the paper's does; weighting each
  command by the planes it uses can. Both are shown.
- **Traces.** Table 1's traces are not shipped; the synthetic workloads match their read
  share, mean request sizes (drawn from an exponential distribution of that mean, cut at 16×
  the mean) and randomness, but not their burstiness, address correlation or real size mix.
  The four MSR excerpts are real but short (1,000–10,000 requests).
- **SPK1 is never below PAS here.** ssdlab's SPK1 is PAS's request-granular, out-of-order walk
  with FARO's over-commitment and priority added, so it keeps every advantage PAS has.
- **Figure 17: GC from the first write.** ssdlab's random precondition starts the drive at
  GC's steady state (valid pages per Desnoyers' model, free blocks one under the GC
  threshold), and GC is paced against host writes (`ftl.gc.urgent_when = "paced"`), so every
  scheduler pays steady-state GC from the first request. The paper fills the drive with 1 MB
  random writes "just before the GC begins", a fresher state: its degradations (SPK3 33–78 %,
  VAS 11–28 %) are of GC's onset, these of its steady state, which is heavier (issue 33 is to
  source this setup).
- **Figure 17: readdressing.** ssdlab's GC and wear levelling move data within a plane, and
  under static `CWDP` an overwrite stays on its plane, so no uncommitted request ever changes
  target and "readdressing off" equals "on" (under `CW` an overwrite may move to another
  plane of its chip and a held read is readdressed). The paper's fill uses 1 MB random
  writes; ssdlab's precondition writes pages at random and then brings the valid-page
  distribution to GC's steady state, which fragments more.
"#;
