//! REPORT.md and the figures of `reproduce flin`: the figures, and the tables and values of
//! REPORT.md, whose prose is the template `experiments/flin/report.md`.

use super::*;
use crate::reproduce::template::{render, Values};

/// A policy's name in a figure's legend.
fn policy_label(p: &str) -> String {
    match p {
        "flin" => "FLIN".into(),
        "sprinkler" => "Sprinkler".into(),
        "sprinkler_fairness" => "Sprinkler+Fairness".into(),
        "ooo" => "ooo (MQSim)".into(),
        "fifo" => "FIFO".into(),
        other => other.into(),
    }
}

pub(super) fn figures(out: &Path, rows: &[Row], policies: &[&str]) -> Vec<String> {
    let mut done = Vec::new();
    let mixes: Vec<String> = {
        let mut m: Vec<String> = Vec::new();
        for r in rows.iter().filter(|r| r.experiment == "mix") {
            if !m.contains(&r.mix) {
                m.push(r.mix.clone());
            }
        }
        m
    };
    let mut bar =
        |file: &str, (title, x, y): (&str, &str, &str), exp: &str, cats: &[String], f: &dyn Fn(&Row) -> f64| {
            let series: Vec<(String, Vec<f64>)> = policies
                .iter()
                .map(|p| {
                    let v = cats
                        .iter()
                        .map(|c| {
                            rows.iter().find(|r| r.experiment == exp && r.mix == *c && r.policy == *p).map_or(0.0, f)
                        })
                        .collect();
                    (policy_label(p), v)
                })
                .collect();
            if plot::bar_chart(&out.join(file), plot::Axes { title, x, y }, cats, &series, None).is_ok() {
                done.push(file.to_string());
            }
        };
    let mix = "mix of four flows";
    bar("fairness.png", ("Fairness per mix (min / max slowdown)", mix, "fairness"), "mix", &mixes, &|r| r.fairness);
    let ws = ("Weighted speedup per mix", mix, "weighted speedup");
    bar("weighted_speedup.png", ws, "mix", &mixes, &|r| r.weighted_speedup);
    let slow = ("Maximum slowdown per mix", mix, "max slowdown (×)");
    bar("max_slowdown.png", slow, "mix", &mixes, &|r| r.max_slowdown);
    let chars: Vec<String> =
        ["intensity", "access_pattern", "read_write_ratio", "gc_demand"].iter().map(|s| s.to_string()).collect();
    bar(
        "characterization_unfairness.png",
        ("Unfairness per source of interference", "source of interference", "unfairness (max / min slowdown)"),
        "characterization",
        &chars,
        &|r| r.unfairness,
    );
    group_figures(out, rows, policies, &mut done);
    done
}

/// Mean fairness and weighted speedup per group of mixes (main setting), each with its 95%
/// interval over the group's mixes.
pub(super) fn group_figures(out: &Path, rows: &[Row], policies: &[&str], done: &mut Vec<String>) {
    let groups: Vec<String> = (0..=4).map(|k| format!("{}%", k * 25)).collect();
    let group_stats = |f: &dyn Fn(&Row) -> f64| {
        let mut series = Vec::new();
        let mut errors = Vec::new();
        for p in policies {
            let stats: Vec<_> = (0..=4u32)
                .map(|k| {
                    let runs = rows.iter().filter(|r| r.experiment == "mix" && r.policy == *p && r.high_flows == k);
                    crate::reproduce::claims::mean_interval(&runs.map(f).collect::<Vec<f64>>())
                })
                .collect();
            series.push((policy_label(p), stats.iter().map(|m| m.map_or(0.0, |m| m.0)).collect::<Vec<f64>>()));
            errors.push(stats.iter().map(|m| m.and_then(|m| m.1)).collect::<Vec<_>>());
        }
        (series, errors)
    };
    let x = "high-interference flows in the mix";
    for (file, title, y, f) in [
        (
            "fairness_by_group.png",
            "Mean fairness per group (main setting, 95% interval)",
            "fairness",
            &(|r: &Row| r.fairness) as &dyn Fn(&Row) -> f64,
        ),
        (
            "weighted_speedup_by_group.png",
            "Mean weighted speedup per group (main setting, 95% interval)",
            "weighted speedup",
            &|r: &Row| r.weighted_speedup,
        ),
    ] {
        let (series, errors) = group_stats(f);
        if plot::bar_chart(&out.join(file), plot::Axes { title, x, y }, &groups, &series, Some(&errors)).is_ok() {
            done.push(file.to_string());
        }
    }
}

/// REPORT.md's prose: `experiments/flin/report.md`, its values set by [`report_md`].
const TEMPLATE: &str = include_str!("../../../../../experiments/flin/report.md");
const TEMPLATE_NAME: &str = "experiments/flin/report.md";

/// The section of the sensitivity run with `hil.hazards = "strict"`, which only the full
/// reproduction has: `experiments/flin/report-strict.md`, the template's `{{strict}}`.
const STRICT_TEMPLATE: &str = include_str!("../../../../../experiments/flin/report-strict.md");
const STRICT_TEMPLATE_NAME: &str = "experiments/flin/report-strict.md";

/// REPORT.md: the template with this run's values and tables.
pub(super) fn report_md(
    opts: &Options,
    rows: &[Row],
    pools: &Pools,
    policies: &[&str],
    figures: &[String],
    wall_s: f64,
) -> String {
    let mut v = Values::new();
    v.run_line(opts, "cases", rows.len(), wall_s);
    let duration_ms = if opts.quick { 100.0 } else { 400.0 };
    v.set("duration_ms", duration_ms);
    v.set("figures", figures.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", "));
    pacing(&mut v, pools);
    v.set("characterization", characterization_rows(rows));
    v.set("mix_groups", group_rows(rows, "mix", policies));
    v.set("mix_summary", summary_rows(rows, "mix", policies));
    claims(&mut v, rows);
    super::ablation::ablation(&mut v, rows, &pools.main);
    super::regime::regime(&mut v, rows);
    super::prose::prose(&mut v, rows, pools, duration_ms);
    v.set("mix_same", same_requests(rows, "mix"));
    sensitivity(&mut v, rows);
    v.set("every_mix", every_mix_rows(rows));
    flin_rules(&mut v);
    setup(&mut v, opts.quick);
    render(TEMPLATE_NAME, TEMPLATE, &v)
}

/// Where each setting comes from, and the dated log of main-row changes:
/// `experiments/flin/provenance.toml`, against the preset as FLIN's rows run it.
fn setup(v: &mut Values, quick: bool) {
    const FILE: &str = include_str!("../../../../../experiments/flin/provenance.toml");
    const NAME: &str = "experiments/flin/provenance.toml";
    let base = Config::from_toml_str(PRESET, PRESET_NAME, &policy_sets("flin")).expect("the shipped preset");
    let g = grid();
    let constant = |name: &str| {
        Some(match name {
            "THRESHOLDS" => {
                let [reads, writes] = ssdlab::tsu::flin::Flin::thresholds(&base.nand, &base.tsu.flin);
                format!("{reads} reads, {writes} writes")
            }
            "FLOWS_PER_MIX" => g.flows_per_mix.to_string(),
            "GROUPS" => format!("0 to {} of {}", g.max_high_per_mix, g.flows_per_mix),
            "MIXES_PER_GROUP" => format!("{} ({} quick)", g.mixes_per_group, g.quick_mixes_per_group),
            "MIX_SEED" => g.mix_seed.to_string(),
            "FEASIBLE_LOAD" => g.feasible_load.to_string(),
            "LOW_FRACTION" => g.low_fraction.to_string(),
            "INTENSITIES" => {
                let (h, l) = Load::Feasible.intensities();
                format!("{h:.3}, {l:.4}")
            }
            "DURATION" => format!("{} ms", if quick { 100 } else { 400 }),
            name if name.starts_with("REGIME_") => regime_constant(name)?,
            _ => return None,
        })
    };
    crate::reproduce::provenance::set(v, NAME, FILE, &base, &constant);
}

/// The regime column's settings by name, read from its config as the runs used it.
fn regime_constant(name: &str) -> Option<String> {
    let cfg = regime_config("flin").expect("the grid's regime is a valid config");
    let (r, c, n) = (&grid().regime, &cfg.cache, &cfg.nand);
    let d = &c.ddr;
    let page_us = ssdlab::cache::dram::Dram::from_config(c).access(0, n.page_bytes as u64) as f64 / 1e6;
    use super::regime::ser;
    Some(match name {
        "REGIME_PRECONDITION" => format!("{} of the logical space, `{}`", r.occupancy, ser(&r.pattern)),
        "REGIME_BLOCKS" => format!("`nand.blocks_per_plane = {}`", n.blocks_per_plane),
        "REGIME_CACHE" => format!(
            "`cache.enabled = {}`, {} MiB, `destage = \"{}\"`, `write_admission = \"{}\"`",
            c.enabled,
            c.capacity_bytes >> 20,
            ser(&c.destage),
            ser(&c.write_admission)
        ),
        "REGIME_DESTAGE_LIMIT" => format!("`cache.max_destaging_pages = {}`", c.max_destaging_pages),
        "REGIME_DRAM" => format!(
            "`{}`: {} MT/s, {}-byte bursts, tRCD {} ns, tCL {} ns, tRP {} ns, {} B rows ({page_us:.1} µs per {} KiB page)",
            ser(&c.dram_model),
            d.data_rate_mt_s,
            d.burst_bytes,
            d.t_rcd_ns,
            d.t_cl_ns,
            d.t_rp_ns,
            d.row_bytes,
            n.page_bytes / 1024
        ),
        "REGIME_SUSPENSION" => {
            let s = &n.suspension;
            format!(
                "`nand.suspension.enabled = {}`, `t_suspend_us = {}`, `t_resume_us = {}`, `max_per_op = {}`",
                s.enabled, s.t_suspend_us, s.t_resume_us, s.max_per_op
            )
        }
        "REGIME_POLICIES" => REGIME_POLICIES.join(", "),
        _ => return None,
    })
}

/// FLIN's rules as the preset sets them: the intensity thresholds (per chip and epoch, as
/// FLIN computes them on this drive) and the stage-3, GC and slowdown rules.
fn flin_rules(v: &mut Values) {
    use ssdlab::tsu::config::{FlinIntensity, GcBeforeWrite, GcInWaits};
    let cfg = ssdlab::Config::from_toml_str(super::PRESET, super::PRESET_NAME, &[]).expect("the shipped preset");
    let f = &cfg.tsu.flin;
    let [reads, writes] = ssdlab::tsu::flin::Flin::thresholds(&cfg.nand, f);
    let epoch_ms = f.epoch_us / 1000.0;
    let rule = match f.intensity {
        FlinIntensity::ChipShare => format!(
            "`tsu.flin.intensity = \"chip_share\"`: a flow is low-intensity for reads (writes) on a chip while it enqueues fewer than {} of what the chip can serve in an epoch, one command at a time; on this drive **{reads} reads and {writes} writes per chip per {epoch_ms} ms epoch**. (The authors' code's whole-drive bytes, `drive_bytes`, would be 128 reads per chip, more than a chip behind a shared channel serves.)",
            f.share()
        ),
        FlinIntensity::DriveBytes => format!(
            "`tsu.flin.intensity = \"drive_bytes\"`, as the authors' code: {} and {} bytes per epoch for the whole drive, divided over the chips and into pages: **{reads} reads and {writes} writes per chip per {epoch_ms} ms epoch**.",
            f.alpha_bytes()[0],
            f.alpha_bytes()[1]
        ),
    };
    v.set("intensity_rule", rule);
    let waits = match f.gc_in_waits {
        GcInWaits::Both => "T_GC in both proportional waits",
        GcInWaits::ReadOnly => "T_GC in the read's proportional wait only",
    };
    let before = match f.gc_before_write {
        GcBeforeWrite::Share => "N_GC page moves charged to the writing flow before each write while GC is queued",
        GcBeforeWrite::Urgent => "GC ahead of writes only at the hard threshold",
    };
    let busy = if f.chip_busy_in_slowdown { "with" } else { "without" };
    v.set("flin_rules", format!("{waits}; {before}; slowdown estimates {busy} the chip's remaining busy time"));
}

/// The sensitivity sections' values: overloaded, light, closed loop, and (when the run has
/// it) the strict-hazards section, rendered from its own template.
pub(super) fn sensitivity(v: &mut Values, rows: &[Row]) {
    let main3 = &POLICIES[..3];
    for (experiment, [groups, summary, same]) in [
        ("mix_overloaded", ["mix_overloaded_groups", "mix_overloaded_summary", "mix_overloaded_same"]),
        ("mix_light", ["mix_light_groups", "mix_light_summary", "mix_light_same"]),
        ("mix_closed", ["mix_closed_groups", "mix_closed_summary", "mix_closed_same"]),
    ] {
        v.set(groups, group_rows(rows, experiment, main3));
        v.set(summary, summary_rows(rows, experiment, main3));
        v.set(same, same_requests(rows, experiment));
    }
    let (h, l) = Load::Light.intensities();
    v.set("light_high", format!("{h:.3}"));
    v.set("light_low", format!("{l:.3}"));
    let mut strict = String::new();
    if rows.iter().any(|r| r.experiment == "mix_strict") {
        let mut s = Values::new();
        s.set("mix_strict_groups", group_rows(rows, "mix_strict", main3));
        s.set("mix_strict_summary", summary_rows(rows, "mix_strict", main3));
        strict = render(STRICT_TEMPLATE_NAME, STRICT_TEMPLATE, &s);
    }
    v.set("strict", strict);
}

/// What each group of mixes offers the drive at `load`: k = 0..=4 high-interference flows.
pub(super) fn group_loads(load: Load) -> String {
    let g = grid();
    let flows_per_mix = g.flows_per_mix;
    let max_high_per_mix = g.max_high_per_mix;
    let loads = (0..=max_high_per_mix).map(|k| intensity::mix_load(flows_per_mix, k, load.intensities()));
    loads.map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(", ")
}

/// How each flow of the pool is paced: the load rule's numbers, the intensities per class,
/// what each group offers at each load, and the table of each flow's pace (the α unit is
/// the template's).
pub(super) fn pacing(v: &mut Values, pools: &Pools) {
    let g = grid();
    let (h, l) = Load::Feasible.intensities();
    let (oh, ol) = Load::Overloaded.intensities();
    v.set("feasible_load", g.feasible_load);
    v.set("low_fraction", g.low_fraction);
    v.set("flows_per_mix", g.flows_per_mix);
    v.set("max_high_per_mix", g.max_high_per_mix);
    v.set("high_intensity", format!("{h:.3}"));
    v.set("low_intensity", format!("{l:.4}"));
    v.set("overloaded_high", oh);
    v.set("overloaded_low", ol);
    v.set("feasible_group_loads", group_loads(Load::Feasible));
    v.set("overloaded_group_loads", group_loads(Load::Overloaded));
    v.set("light_group_loads", group_loads(Load::Light));
    v.set("pacing", pacing_rows(pools));
}

/// The rows of the pacing table: each flow's speedup or rate in the main and the overloaded
/// open loop and in the regime column, and its queue depth closed loop.
pub(super) fn pacing_rows(pools: &Pools) -> String {
    let pace = |f: &PoolFlow, target: f64, at_one_shown: bool| match f.pace {
        Pace::Trace { at_one } if at_one_shown => {
            format!("timestamps × {:.4} (intensity {at_one:.4} at × 1)", target / at_one)
        }
        Pace::Trace { at_one } => format!("timestamps × {:.4}", target / at_one),
        Pace::Synthetic { iops_per_unit: r } => format!("Poisson, {:.0} requests/s", target * r),
    };
    let mut m = String::new();
    for (f, r) in pools.main.iter().zip(&pools.regime) {
        let (t, to) = (Load::Feasible.target(f.high), Load::Overloaded.target(f.high));
        let (main, over, regime) = (pace(f, t, true), pace(f, to, false), pace(r, t, false));
        let class = if f.high { "high" } else { "low" };
        let qd = f.closed.queue_depth.unwrap_or(32);
        let _ = writeln!(m, "| {} | {class} | {main} | {over} | {regime} | {qd} |", f.name);
    }
    m
}

/// Means per group of mixes with k high-interference flows, per policy (the table's rows).
pub(super) fn group_rows(rows: &[Row], experiment: &str, policies: &[&str]) -> String {
    let mut m = String::new();
    for k in 0..=4 {
        for &p in policies {
            let r: Vec<&Row> =
                rows.iter().filter(|r| r.experiment == experiment && r.policy == p && r.high_flows == k).collect();
            let col = |f: &dyn Fn(&Row) -> f64| mean(&r.iter().map(|r| f(r)).collect::<Vec<_>>());
            let _ = writeln!(
                m,
                "| {k} ({}%) | {p} | {:.3} | {:.3} | {:.2} | {:.2} | {:.1} / {:.1} |",
                k * 25,
                col(&|r| r.fairness),
                col(&|r| r.weighted_speedup),
                col(&|r| r.max_slowdown),
                r.iter().map(|r| r.max_slowdown).fold(0.0, f64::max),
                col(&|r| r.drain_ms),
                col(&|r| r.alone_drain_ms)
            );
        }
    }
    m
}

/// The mean of `f` over the mixes of `experiment` run under policy `p`.
pub(super) fn mix_mean(rows: &[Row], experiment: &str, p: &str, f: &dyn Fn(&Row) -> f64) -> f64 {
    let xs: Vec<f64> = rows.iter().filter(|r| r.experiment == experiment && r.policy == p).map(f).collect();
    mean(&xs)
}

/// The largest slowdown of any flow in the mixes of `experiment` run under policy `p`.
pub(super) fn mix_worst(rows: &[Row], experiment: &str, p: &str) -> f64 {
    rows.iter().filter(|r| r.experiment == experiment && r.policy == p).map(|r| r.max_slowdown).fold(0.0, f64::max)
}

/// The summary over all mixes of `experiment`, per policy (the table's rows).
pub(super) fn summary_rows(rows: &[Row], experiment: &str, policies: &[&str]) -> String {
    let mut m = String::new();
    let avg = |p: &str, f: &dyn Fn(&Row) -> f64| mix_mean(rows, experiment, p, f);
    for &p in policies {
        let _ = writeln!(
            m,
            "| {p} | {:.3} | {:.3} | {:.2} | {:.2} | {:.0} |",
            avg(p, &|r| r.fairness),
            avg(p, &|r| r.weighted_speedup),
            avg(p, &|r| r.max_slowdown),
            mix_worst(rows, experiment, p),
            avg(p, &|r| r.iops)
        );
    }
    m
}

/// ssdlab's means over the main setting's mixes for the paper's claims (the template holds
/// the claims and the paper's numbers).
pub(super) fn claims(v: &mut Values, rows: &[Row]) {
    let avg = |p: &str, f: &dyn Fn(&Row) -> f64| mix_mean(rows, "mix", p, f);
    let worst = |p: &str| format!("{:.1}×", mix_worst(rows, "mix", p));
    let iops = |p: &str| format!("{:.0} IOPS", avg(p, &|r| r.iops));
    let (ff, fs) = (avg("flin", &|r| r.fairness), avg("sprinkler_fairness", &|r| r.fairness));
    let (wf, ws) = (avg("flin", &|r| r.weighted_speedup), avg("sprinkler_fairness", &|r| r.weighted_speedup));
    v.set("claim_fairness", format!("{:+.1}%", (ff / fs - 1.0) * 100.0));
    v.set("claim_weighted_speedup", format!("{:+.1}%", (wf / ws - 1.0) * 100.0));
    v.set("claim_worst_flin", worst("flin"));
    v.set("claim_worst_sprinkler", worst("sprinkler"));
    v.set("claim_worst_sprinkler_fairness", worst("sprinkler_fairness"));
    v.set("claim_iops_flin", iops("flin"));
    v.set("claim_iops_sprinkler", iops("sprinkler"));
    v.set("claim_iops_sprinkler_fairness", iops("sprinkler_fairness"));
    // FLIN against MQSim's plain out-of-order scheduler, which the paper does not run.
    let (fo, wo) = (avg("ooo", &|r| r.fairness), avg("ooo", &|r| r.weighted_speedup));
    let change = |a: f64, b: f64| if b > 0.0 { format!("{:+.1}%", (a / b - 1.0) * 100.0) } else { "–".into() };
    v.set("claim_fairness_ooo", change(ff, fo));
    v.set("claim_weighted_speedup_ooo", change(wf, wo));
    let paired: Vec<(f64, f64)> = rows
        .iter()
        .filter(|a| a.experiment == "mix" && a.policy == "flin")
        .filter_map(|a| {
            rows.iter()
                .find(|b| b.experiment == "mix" && b.policy == "ooo" && b.mix == a.mix)
                .map(|b| (a.fairness, b.fairness))
        })
        .collect();
    let ooo_fairer = paired.iter().filter(|(f, o)| o > f).count();
    v.set("claim_ooo_fairer", format!("{ooo_fairer} of {}", paired.len()));
}

/// How many flows of `experiment` completed as many requests shared as alone, of all its
/// flows ("n of m").
pub(super) fn same_requests(rows: &[Row], experiment: &str) -> String {
    let r = rows.iter().filter(|r| r.experiment == experiment);
    let (same, all) = r.fold((0, 0), |(s, a), r| (s + r.same_requests, a + r.slowdowns.len()));
    format!("{same} of {all}")
}

/// Every mix of the main setting under every policy (the table's rows).
pub(super) fn every_mix_rows(rows: &[Row]) -> String {
    let mut m = String::new();
    for r in rows.iter().filter(|r| r.experiment == "mix") {
        let worst = (0..r.slowdowns.len()).max_by(|&a, &b| r.slowdowns[a].total_cmp(&r.slowdowns[b]));
        let _ = writeln!(
            m,
            "| {} | {} | {} | {:.3} | {:.3} | {:.2} | {} | {:.0} | {:.1} / {:.1} |",
            r.mix,
            r.high_flows,
            r.policy,
            r.fairness,
            r.weighted_speedup,
            r.max_slowdown,
            worst.map_or("", |k| r.flow_names[k].as_str()),
            r.iops,
            r.drain_ms,
            r.alone_drain_ms
        );
    }
    m
}

/// The characterization experiments' slowdowns per policy (the table's rows).
pub(super) fn characterization_rows(rows: &[Row]) -> String {
    let mut m = String::new();
    for r in rows.iter().filter(|r| r.experiment == "characterization") {
        let _ = writeln!(
            m,
            "| {} | {} | {} | {:.2} | {:.3} |",
            r.mix,
            r.policy,
            r.slowdowns.iter().map(|s| format!("{s:.2}")).collect::<Vec<_>>().join(", "),
            r.unfairness,
            r.weighted_speedup
        );
    }
    m
}

/// The done-when check: over the main setting's mixes, mean fairness, mean weighted speedup, mean
/// and worst max slowdown for FLIN and the two Sprinkler baselines, and FLIN's change against
/// Sprinkler+Fairness.
pub fn check_table(rows: &[Row]) -> String {
    let stat = |p: &str| {
        let avg = |f: &dyn Fn(&Row) -> f64| mix_mean(rows, "mix", p, f);
        (avg(&|r| r.fairness), avg(&|r| r.weighted_speedup), avg(&|r| r.max_slowdown), mix_worst(rows, "mix", p))
    };
    let mut s = String::from(
        "| policy (main: open loop, feasible load) | mean fairness | mean weighted speedup | mean max slowdown | worst slowdown |\n|---|---|---|---|---|\n",
    );
    for p in ["flin", "sprinkler_fairness", "sprinkler"] {
        let (f, w, x, worst) = stat(p);
        let _ = writeln!(s, "| {p} | {f:.3} | {w:.3} | {x:.2} | {worst:.2} |");
    }
    let ((ff, wf, xf, _), (fs, ws, xs, _)) = (stat("flin"), stat("sprinkler_fairness"));
    let _ = writeln!(
        s,
        "| FLIN vs Sprinkler+Fairness | {:+.1}% | {:+.1}% | {:+.1}% | |",
        (ff / fs - 1.0) * 100.0,
        (wf / ws - 1.0) * 100.0,
        (xf / xs - 1.0) * 100.0
    );
    s
}
