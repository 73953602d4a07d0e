//! The computed sentences of REPORT.md's "How this differs from the paper's setup, and what the
//! numbers mean" (issue 33 item 6): every number there, and every comparison the run could
//! contradict ("the fairest policy", "below plain Sprinkler"), is computed from this run's
//! rows, the pool's traces and the preset.
//!
//! Which groups the drive keeps up with is a stated rule [I]: a group *keeps up* when its mean
//! drain (how long the shared runs went on after the flows stopped issuing) exceeds its flows'
//! drains alone by at most [`KEEPS_UP`] of the run's length, under every main policy. A mix
//! that asks for ρ > 1 of the drive ends a run of length T with about (ρ − 1) T of work
//! queued beyond what its bursts leave alone, so the rule admits an overload of at most 10%.

use super::ablation::{step_deltas, STEPS};
use super::report::{group_loads, mix_mean, mix_worst};
use super::*;
use crate::reproduce::claims::mean_interval;
use crate::reproduce::template::Values;

/// A group keeps up when its mean drain exceeds its flows' drains alone by at most this share
/// of the run's length, under every main policy [I].
pub const KEEPS_UP: f64 = 0.1;

/// The values of the section.
pub(super) fn prose(v: &mut Values, rows: &[Row], pools: &Pools, duration_ms: f64) {
    let g = grid();
    v.set("mixes_per_group", mixes_per_group(rows));
    v.set(
        "group_percents",
        (0..=g.max_high_per_mix).map(|k| format!("{}%", k * 100 / g.max_high_per_mix)).collect::<Vec<_>>().join(", "),
    );
    traces(v, &pools.main);
    overloaded(v, rows);
    v.set("burstiest", burstiest(&pools.main));
    v.set("worst_alone", worst_alone(rows));
    let (kept, over): (Vec<u32>, Vec<u32>) =
        groups_run(rows).into_iter().partition(|&k| keeps_up(rows, k, duration_ms));
    v.set("overload_groups", overload_groups(rows, &over, duration_ms));
    v.set("kept_up", kept_up(rows, &kept, &over, duration_ms));
    v.set("sprinkler_fairness_levels", sprinkler_fairness_levels(rows));
    v.set("reference_schedulers", reference_schedulers(rows));
    v.set("strict_change", strict_change(rows));
    v.set("gc_main", gc_main(rows));
    v.set("stage_matters", stage_matters(rows));
    let cfg = Config::from_toml_str(PRESET, PRESET_NAME, &[]).expect("the shipped preset");
    v.set("epoch_ms", cfg.tsu.flin.epoch_us / 1000.0);
    v.set("fairness_threshold", cfg.tsu.flin.fairness_threshold);
    v.set("chips_total", cfg.nand.channels * cfg.nand.chips_per_channel);
}

/// "8": the mixes per group of the main setting (the largest group's count).
fn mixes_per_group(rows: &[Row]) -> usize {
    let n = |k: u32| rows.iter().filter(|r| r.experiment == "mix" && r.policy == "flin" && r.high_flows == k).count();
    (0..=grid().max_high_per_mix as u32).map(n).max().unwrap_or(0)
}

/// The pool's trace excerpts (each file once): the range of their loop periods and of their
/// request counts.
fn traces(v: &mut Values, pool: &[PoolFlow]) {
    let mut shapes: Vec<TraceShape> = Vec::new();
    let mut seen: Vec<&std::path::Path> = Vec::new();
    for f in pool {
        let (Some(s), Some(path)) = (f.shape, f.open.path.as_deref()) else { continue };
        if !seen.contains(&path) {
            seen.push(path);
            shapes.push(s);
        }
    }
    let (lo, hi) = range(shapes.iter().map(|s| s.period_s));
    let (rlo, rhi) = range(shapes.iter().map(|s| s.requests as f64));
    v.set("trace_count", shapes.len());
    v.set("trace_periods", format!("{} s to {} s", seconds(lo), seconds(hi)));
    v.set("trace_requests", format!("{rlo:.0} to {rhi:.0}"));
}

/// The least and largest of `xs` (0, 0 for none).
fn range(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    if lo.is_finite() {
        (lo, hi)
    } else {
        (0.0, 0.0)
    }
}

/// Seconds to two significant figures ("0.14", "260").
fn seconds(s: f64) -> String {
    if s >= 10.0 {
        format!("{s:.0}")
    } else if s >= 1.0 {
        format!("{s:.1}")
    } else {
        format!("{s:.2}")
    }
}

/// The overloaded sensitivity run: what the groups of two or more high-interference flows
/// offer, and FLIN's worst slowdown there.
fn overloaded(v: &mut Values, rows: &[Row]) {
    let loads: Vec<String> = group_loads(Load::Overloaded).split(", ").skip(2).map(String::from).collect();
    let over = match (loads.first(), loads.last()) {
        (Some(a), Some(b)) => format!("{a} to {b}"),
        _ => "–".into(),
    };
    v.set("overloaded_over_one", over);
    v.set("overloaded_worst_flin", format!("{:.1}×", mix_worst(rows, "mix_overloaded", "flin")));
}

/// The high-interference trace flow whose 10 ms windows at the main pace spread furthest
/// above its intensity, with their range.
fn burstiest(pool: &[PoolFlow]) -> String {
    let target = Load::Feasible.target(true);
    let most = pool
        .iter()
        .filter(|f| f.high)
        .filter_map(|f| f.shape.and_then(|s| s.windows).map(|w| (f.name, w)))
        .max_by(|a, b| a.1 .1.total_cmp(&b.1 .1));
    match most {
        Some((name, (lo, hi))) => format!(
            "at the main pace {name}'s 10 ms windows range from {lo:.2} to {hi:.2} of the drive around its intensity of {target:.2}"
        ),
        None => "no trace excerpt spans a 10 ms window at its pace".into(),
    }
}

/// The flow that left the largest backlog alone at the end of the main setting's run (FLIN's
/// alone runs).
fn worst_alone(rows: &[Row]) -> String {
    let most = rows
        .iter()
        .filter(|r| r.experiment == "mix" && r.policy == "flin")
        .flat_map(|r| r.flow_names.iter().zip(&r.alone_drains_ms))
        .max_by(|a, b| a.1.total_cmp(b.1));
    match most {
        Some((name, ms)) => format!("{name} alone leaves a backlog of {ms:.1} ms when it stops issuing requests"),
        None => "no flow ran alone".into(),
    }
}

/// The main policies' group means of `f` for group `k`.
fn group_mean(rows: &[Row], exp: &str, p: &str, k: u32, f: fn(&Row) -> f64) -> Option<f64> {
    let xs: Vec<f64> =
        rows.iter().filter(|r| r.experiment == exp && r.policy == p && r.high_flows == k).map(f).collect();
    (!xs.is_empty()).then(|| mean(&xs))
}

/// The main setting's policies that ran group `k`.
fn main_policies_of(rows: &[Row], k: u32) -> Vec<&'static str> {
    POLICIES.iter().copied().filter(|p| group_mean(rows, "mix", p, k, |r| r.fairness).is_some()).collect()
}

/// The groups the main setting ran.
fn groups_run(rows: &[Row]) -> Vec<u32> {
    (0..=grid().max_high_per_mix as u32).filter(|&k| !main_policies_of(rows, k).is_empty()).collect()
}

/// Whether the drive keeps up with group `k`: under every main policy, the mean drain
/// exceeds the mean drain alone by at most [`KEEPS_UP`] of the run.
fn keeps_up(rows: &[Row], k: u32, duration_ms: f64) -> bool {
    let excess = |p: &str| group_mean(rows, "mix", p, k, |r| r.drain_ms - r.alone_drain_ms).unwrap_or(0.0);
    let p = main_policies_of(rows, k);
    !p.is_empty() && p.iter().all(|p| excess(p) <= KEEPS_UP * duration_ms)
}

/// "0%, 25% and 50%".
fn group_names(ks: &[u32]) -> String {
    let g = grid();
    let names: Vec<String> = ks.iter().map(|k| format!("{}%", *k as usize * 100 / g.max_high_per_mix)).collect();
    match names.len() {
        0 => "none".into(),
        1 => names[0].clone(),
        n => format!("{} and {}", names[..n - 1].join(", "), names[n - 1]),
    }
}

/// "the 0% group", "the 0% and 25% groups".
fn the_groups(ks: &[u32]) -> String {
    format!("the {} group{}", group_names(ks), if ks.len() == 1 { "" } else { "s" })
}

/// The groups the drive does not keep up with, and their drains under FLIN against alone.
fn overload_groups(rows: &[Row], over: &[u32], duration_ms: f64) -> String {
    if over.is_empty() {
        return format!(
            "In this run every group's mean drain exceeds its flows' drains alone by at most {:.0}% of the run's {duration_ms:.0} ms under every policy: the drive keeps up with every group.",
            KEEPS_UP * 100.0
        );
    }
    let drains: Vec<String> = over
        .iter()
        .map(|&k| {
            let d = group_mean(rows, "mix", "flin", k, |r| r.drain_ms).unwrap_or(0.0);
            let a = group_mean(rows, "mix", "flin", k, |r| r.alone_drain_ms).unwrap_or(0.0);
            format!("{d:.1} ms against {a:.1} ms alone")
        })
        .collect();
    format!(
        "In this run the mixes of {} overload in practice: under FLIN their shared runs drain for {} (in group order; the tables' last column), and under some policy the excess over alone is more than {:.0}% of the run's {duration_ms:.0} ms.",
        the_groups(over),
        drains.join(", "),
        KEEPS_UP * 100.0
    )
}

/// Where the drive keeps up: the fairest policy and the one with the highest weighted speedup
/// per group, the mean max slowdowns' ranges; where it does not, the range of every policy's
/// mean fairness and the smallest worst slowdown.
fn kept_up(rows: &[Row], kept: &[u32], over: &[u32], duration_ms: f64) -> String {
    let best = |k: u32, f: fn(&Row) -> f64| {
        main_policies_of(rows, k)
            .into_iter()
            .filter_map(|p| group_mean(rows, "mix", p, k, f).map(|x| (p, x)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map_or("–".into(), |(p, _)| format!("{}: {p}", group_names(&[k])))
    };
    let show = |p: &str| {
        let xs: Vec<f64> = kept.iter().filter_map(|&k| group_mean(rows, "mix", p, k, |r| r.max_slowdown)).collect();
        let (lo, hi) = range(xs.iter().copied());
        if xs.is_empty() {
            "–".to_string()
        } else {
            format!("{lo:.1}–{hi:.1}×")
        }
    };
    let first = if kept.is_empty() {
        "The drive keeps up with no group of this run.".to_string()
    } else {
        format!(
            "In {} (mean drain at most {:.0}% of the run's {duration_ms:.0} ms above the flows' drains alone, under every policy) the fairest policy by mean fairness is, per group, {}; the highest mean weighted speedup {}; the mean max slowdown over those groups is {} under FLIN, {} under Sprinkler and {} under Sprinkler+Fairness.",
            the_groups(kept),
            KEEPS_UP * 100.0,
            kept.iter().map(|&k| best(k, |r| r.fairness)).collect::<Vec<_>>().join("; "),
            kept.iter().map(|&k| best(k, |r| r.weighted_speedup)).collect::<Vec<_>>().join("; "),
            show("flin"),
            show("sprinkler"),
            show("sprinkler_fairness"),
        )
    };
    let second = if over.is_empty() {
        String::new()
    } else {
        let cells = over.iter().flat_map(|&k| main_policies_of(rows, k).into_iter().map(move |p| (k, p)));
        let (lo, hi) = range(cells.clone().filter_map(|(k, p)| group_mean(rows, "mix", p, k, |r| r.fairness)));
        let worst = |p: &str| {
            rows.iter()
                .filter(|r| r.experiment == "mix" && r.policy == p && over.contains(&r.high_flows))
                .map(|r| r.max_slowdown)
                .fold(0.0, f64::max)
        };
        let mut by: Vec<(&str, f64)> = POLICIES.iter().map(|&p| (p, worst(p))).filter(|x| x.1 > 0.0).collect();
        by.sort_by(|a, b| a.1.total_cmp(&b.1));
        let order: Vec<String> = by.iter().map(|(p, w)| format!("{p} {w:.1}×")).collect();
        format!(
            " In {} every policy's mean fairness is {lo:.3}–{hi:.3}; the worst slowdowns there, smallest first: {}. FLIN's worst slowdown over all mixes is {:.1}× (the paper: below 80×).",
            the_groups(over),
            order.join(", "),
            mix_worst(rows, "mix", "flin")
        )
    };
    first + &second
}

/// Sprinkler+Fairness's mean fairness against plain Sprinkler's, open loop (main) and closed
/// loop.
fn sprinkler_fairness_levels(rows: &[Row]) -> String {
    let f = |exp: &str, p: &str| mix_mean(rows, exp, p, &|r| r.fairness);
    let (so, po) = (f("mix", "sprinkler_fairness"), f("mix", "sprinkler"));
    let (sc, pc) = (f("mix_closed", "sprinkler_fairness"), f("mix_closed", "sprinkler"));
    format!(
        "Open loop (the main setting) its mean fairness is {so:.3}, {} plain Sprinkler's {po:.3}; closed loop {sc:.3}, {} Sprinkler's {pc:.3}.",
        super::ledger::compared(so, po),
        super::ledger::compared(sc, pc)
    )
}

/// In the 0% group: FLIN's, `ooo`'s and Sprinkler's mean fairness, and which of FLIN and
/// Sprinkler is further from `ooo`.
fn reference_schedulers(rows: &[Row]) -> String {
    let f = |p: &str| group_mean(rows, "mix", p, 0, |r| r.fairness);
    let (Some(flin), Some(ooo), Some(spk)) = (f("flin"), f("ooo"), f("sprinkler")) else {
        return "This run has no 0% group under FLIN, `ooo` and Sprinkler.".into();
    };
    let which = if (spk - ooo).abs() > (flin - ooo).abs() {
        "Sprinkler is further from `ooo` than FLIN is, so there the device-level scheduler makes the larger difference, not the TSU"
    } else {
        "FLIN is at least as far from `ooo` as Sprinkler is, so there the TSU makes the larger difference"
    };
    format!("In the 0% group (no high-interference flow) the mean fairness is {flin:.3} under FLIN, {ooo:.3} under `ooo` and {spk:.3} under Sprinkler: {which}.")
}

/// FLIN's mean fairness over Sprinkler+Fairness's with `strict` hazards and in the main
/// setting.
fn strict_change(rows: &[Row]) -> String {
    let change = |exp: &str| {
        let (a, b) =
            (mix_mean(rows, exp, "flin", &|r| r.fairness), mix_mean(rows, exp, "sprinkler_fairness", &|r| r.fairness));
        (b > 0.0).then(|| format!("{:+.1}%", (a / b - 1.0) * 100.0))
    };
    match (change("mix_strict"), change("mix")) {
        (Some(s), Some(m)) => {
            format!("FLIN's mean fairness over Sprinkler+Fairness's is {s} there, against {m} in the main setting.")
        }
        _ => "This run has no `strict` table (it is a full-mode sensitivity run).".into(),
    }
}

/// GC in the main setting's shared runs.
fn gc_main(rows: &[Row]) -> String {
    let runs: Vec<&Row> = rows.iter().filter(|r| r.experiment == "mix").collect();
    let with = runs.iter().filter(|r| r.gc_erases > 0).count();
    format!("GC erased a block in {with} of the main setting's {} shared runs (an empty drive, no write cache, no suspension)", runs.len())
}

/// One sentence: each stage's paired change in mean fairness, and the largest.
fn stage_matters(rows: &[Row]) -> String {
    let said: Vec<(&str, f64, String)> = STEPS
        .iter()
        .filter_map(|&(name, before, after)| {
            let d = step_deltas(rows, "mix", before, after, |r| r.fairness);
            let (m, i) = mean_interval(&d)?;
            let verb = match i {
                Some((lo, hi)) if lo > 0.0 => {
                    format!("raises mean fairness by {:.3} (95% interval {lo:+.3} … {hi:+.3})", m.abs())
                }
                Some((lo, hi)) if hi < 0.0 => format!("lowers it by {:.3} (95% interval {lo:+.3} … {hi:+.3})", m.abs()),
                Some((lo, hi)) if lo == 0.0 && hi == 0.0 => "leaves it unchanged on every mix".to_string(),
                Some((lo, hi)) => format!("changes it by {m:+.3}, an interval ({lo:+.3} … {hi:+.3}) that includes 0"),
                None => format!("changes it by {m:+.3} (one mix)"),
            };
            Some((name, m, format!("{name} {verb}")))
        })
        .collect();
    let Some(largest) = said.iter().max_by(|a, b| a.1.abs().total_cmp(&b.1.abs())) else {
        return "No mix ran every FLIN variant, so the ablation says nothing here.".into();
    };
    let parts: Vec<&str> = said.iter().map(|s| s.2.as_str()).collect();
    let way = if largest.1 < 0.0 { "lowering" } else { "raising" };
    format!(
        "Per mix of the main setting, {}: the ablation shows {} to matter most for fairness, {way} it.",
        parts.join("; "),
        largest.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(exp: &'static str, policy: &'static str, k: u32, fairness: f64, drain_ms: f64) -> Row {
        Row {
            experiment: exp,
            mix: format!("mix{}-0", k * 25),
            high_flows: k,
            policy,
            fairness,
            unfairness: 1.0 / fairness,
            weighted_speedup: 2.0 * fairness,
            max_slowdown: 1.0 / fairness,
            slowdowns: vec![1.0, 1.0 / fairness],
            flow_names: vec!["a".into(), "b".into()],
            iops: 1000.0,
            same_requests: 2,
            drain_ms,
            alone_drain_ms: 1.0,
            gc_erases: 0,
            gc_pages_moved: 0,
            user_pages_programmed: 0,
            suspensions: 0,
            alone_drains_ms: vec![1.0, 3.0],
            read_us: 100.0,
            write_us: 1000.0,
            decisions: Default::default(),
        }
    }

    /// Two groups by hand, a 400 ms run, every flow alone draining 1 ms: group 0 drains 2 ms
    /// under every policy (keeps up: 1 ms above alone, at most 40 ms), group 4 100 ms (99 ms
    /// above: overloaded). In group 0 FLIN's
    /// fairness 0.75 beats `ooo`'s 0.7 and Sprinkler's 0.5, and so does its weighted speedup
    /// (2 × fairness); FLIN's max slowdown there is 1 / 0.75 = 1.3×. In group 4 the mean
    /// fairness ranges 0.05 (Sprinkler) to 0.2 (FLIN); worst slowdowns 5×, 10×, 20×.
    #[test]
    fn the_groups_the_drive_keeps_up_with_by_hand() {
        let mut rows = Vec::new();
        for (p, f0, f4) in [("flin", 0.75, 0.2), ("ooo", 0.7, 0.1), ("sprinkler", 0.5, 0.05)] {
            rows.push(row("mix", p, 0, f0, 2.0));
            rows.push(row("mix", p, 4, f4, 100.0));
        }
        assert!(keeps_up(&rows, 0, 400.0) && !keeps_up(&rows, 4, 400.0));
        assert_eq!(groups_run(&rows), [0, 4]);
        let s = kept_up(&rows, &[0], &[4], 400.0);
        assert!(s.starts_with("In the 0% group (mean drain at most 10% of the run's 400 ms above the flows' drains alone, under every policy) the fairest policy by mean fairness is, per group, 0%: flin; the highest mean weighted speedup 0%: flin; the mean max slowdown over those groups is 1.3–1.3× under FLIN, 2.0–2.0× under Sprinkler and – under Sprinkler+Fairness."), "{s}");
        assert!(s.contains(" In the 100% group every policy's mean fairness is 0.050–0.200; the worst slowdowns there, smallest first: flin 5.0×, ooo 10.0×, sprinkler 20.0×."), "{s}");
        let o = overload_groups(&rows, &[4], 400.0);
        assert!(o.contains("the 100% group overload in practice: under FLIN their shared runs drain for 100.0 ms against 1.0 ms alone"), "{o}");
        assert_eq!(worst_alone(&rows), "b alone leaves a backlog of 3.0 ms when it stops issuing requests");
        let r = reference_schedulers(&rows);
        assert!(r.ends_with("0.750 under FLIN, 0.700 under `ooo` and 0.500 under Sprinkler: Sprinkler is further from `ooo` than FLIN is, so there the device-level scheduler makes the larger difference, not the TSU."), "{r}");
    }
}
