//! The regime column (issue 33 item 4): the main setting's mixes, paced by the same load rule,
//! on a preconditioned drive with MQSim's default write cache and erase suspension (the grid's
//! `[regime]`), under the ablation's five schedulers. The report shows each scheduler's means
//! on the empty drive (the main rows) beside the regime's, the ablation's steps and decision
//! counts in the regime, and the GC counters that say whether GC, and stage 3's GC charging,
//! acted: erases, pages moved, moves charged to writers, suspensions, and the user pages a
//! plane programmed against the block it must fill before its GC starts.

use super::ablation::{decided, decision_rows, finding, pairs, stage3_counter, step_rows, VARIANTS};
use super::report::group_rows;
use super::*;
use crate::reproduce::claims::mean_interval;
use crate::reproduce::template::Values;

/// The values of the template's regime section.
pub(super) fn regime(v: &mut Values, rows: &[Row]) {
    let cfg = regime_config("flin").expect("the grid's regime is a valid config");
    v.set("regime_setup", setup(&cfg));
    v.set("regime_table", side_by_side(rows));
    v.set("regime_change", format!("{}\n", change_sentence(rows)));
    v.set("regime_groups", group_rows(rows, REGIME, &REGIME_POLICIES));
    v.set("regime_steps", step_rows(rows, REGIME));
    v.set("regime_finding", finding(rows, REGIME));
    v.set("regime_decisions", decision_rows(rows, REGIME));
    // Blocks of the template: each brings its line end.
    v.set("regime_stage3", format!("{}\n", stage3_counter(rows, REGIME)));
    v.set("regime_gc", gc_rows(rows, &cfg));
    v.set("regime_gc_finding", format!("{}\n", gc_finding(rows, &cfg)));
}

/// The regime's drive and preconditioning, as the runs used them.
fn setup(cfg: &Config) -> String {
    let r = &grid().regime;
    let (c, s, n) = (&cfg.cache, &cfg.nand.suspension, &cfg.nand);
    let page_us = ssdlab::cache::dram::Dram::from_config(c).access(0, n.page_bytes as u64) as f64 / 1e6;
    let pattern = match r.pattern {
        Pattern::Random => "`random`, the steady state of uniform random overwrites",
        Pattern::Sequential => "`sequential`",
    };
    format!(
        "preconditioned to {} of the logical space ({pattern}) on a drive of {} blocks per plane; a write cache of {} MiB (`cache.destage = \"{}\"`, at most {} pages on their way to flash, `cache.write_admission = \"{}\"`, `cache.dram_model = \"{}\"`: {page_us:.1} µs of DRAM per {} KiB page); suspension `nand.suspension.enabled = {}` with `t_suspend_us = {}`, `t_resume_us = {}`, at most {} per operation",
        r.occupancy,
        n.blocks_per_plane,
        c.capacity_bytes >> 20,
        ser(&c.destage),
        c.max_destaging_pages,
        ser(&c.write_admission),
        ser(&c.dram_model),
        n.page_bytes / 1024,
        s.enabled,
        s.t_suspend_us,
        s.t_resume_us,
        s.max_per_op,
    )
}

/// A config enum as the config file writes it.
pub(super) fn ser<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_value(x).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

/// "0.421 (0.380 … 0.462)", or "–" without mixes.
fn mean_with_interval(xs: &[f64]) -> String {
    match mean_interval(xs) {
        None => "–".into(),
        Some((m, None)) => format!("{m:.3}"),
        Some((m, Some((lo, hi)))) => format!("{m:.3} ({lo:.3} … {hi:.3})"),
    }
}

/// Per scheduler: mean fairness and weighted speedup with their intervals and the worst
/// slowdown, on the empty drive (the main rows) and in the regime.
fn side_by_side(rows: &[Row]) -> String {
    let mut m = String::new();
    for (policy, label) in VARIANTS {
        let of = |exp: &str, f: fn(&Row) -> f64| -> Vec<f64> {
            rows.iter().filter(|r| r.experiment == exp && r.policy == policy).map(f).collect()
        };
        let worst = |exp: &str| {
            let n = of(exp, |r| r.max_slowdown).len();
            if n == 0 {
                "–".to_string()
            } else {
                format!("{:.1}×", report::mix_worst(rows, exp, policy))
            }
        };
        let _ = writeln!(
            m,
            "| {label} | {} | {} | {} | {} | {} / {} |",
            mean_with_interval(&of("mix", |r| r.fairness)),
            mean_with_interval(&of(REGIME, |r| r.fairness)),
            mean_with_interval(&of("mix", |r| r.weighted_speedup)),
            mean_with_interval(&of(REGIME, |r| r.weighted_speedup)),
            worst("mix"),
            worst(REGIME),
        );
    }
    m
}

/// FLIN's mean fairness over `ooo`'s and over Sprinkler+Fairness's, on the empty drive and in
/// the regime.
fn change_sentence(rows: &[Row]) -> String {
    let change = |exp: &str, other: &str| {
        let (a, b) =
            (report::mix_mean(rows, exp, "flin", &|r| r.fairness), report::mix_mean(rows, exp, other, &|r| r.fairness));
        if b > 0.0 {
            format!("{:+.1}%", (a / b - 1.0) * 100.0)
        } else {
            "–".into()
        }
    };
    let fairer = |exp: &str| {
        let p = pairs(rows, exp, "flin", "ooo");
        format!("{} of {}", p.iter().filter(|(f, o)| f.fairness > o.fairness).count(), p.len())
    };
    format!(
        "FLIN's mean fairness over `ooo`'s is {} on the empty drive and {} in the regime (FLIN fairer on {} and {} mixes); over Sprinkler+Fairness's, {} and {}.",
        change("mix", "ooo"),
        change(REGIME, "ooo"),
        fairer("mix"),
        fairer(REGIME),
        change("mix", "sprinkler_fairness"),
        change(REGIME, "sprinkler_fairness"),
    )
}

/// User pages a shared run programmed per plane of `cfg`'s drive.
fn per_plane(r: &Row, cfg: &Config) -> f64 {
    let n = &cfg.nand;
    r.user_pages_programmed as f64 / (n.channels * n.chips_per_channel * n.dies_per_chip * n.planes_per_die) as f64
}

/// Whether a shared run did GC work: moved a page or erased a block.
fn did_gc(r: &Row) -> bool {
    r.gc_pages_moved > 0 || r.gc_erases > 0
}

/// Per scheduler in the regime, summed over its shared runs: runs with GC work, erases,
/// pages GC moved, GC moves charged to a write's flow first (FLIN's stage 3), suspensions,
/// and the user pages programmed per plane (mean and largest over the runs).
fn gc_rows(rows: &[Row], cfg: &Config) -> String {
    let mut m = String::new();
    for (policy, label) in VARIANTS {
        let runs: Vec<&Row> = rows.iter().filter(|r| r.experiment == REGIME && r.policy == policy).collect();
        let sum = |f: fn(&Row) -> u64| runs.iter().map(|r| f(r)).sum::<u64>();
        let with_gc = runs.iter().filter(|r| did_gc(r)).count();
        let planes: Vec<f64> = runs.iter().map(|r| per_plane(r, cfg)).collect();
        let charged = decided(rows, REGIME, policy, "stage3_gc_moves_charged");
        let _ = writeln!(
            m,
            "| {label} | {with_gc} of {} | {} | {} | {charged} | {} | {:.1} / {:.1} |",
            runs.len(),
            sum(|r| r.gc_erases),
            sum(|r| r.gc_pages_moved),
            sum(|r| r.suspensions),
            mean(&planes),
            planes.iter().copied().fold(0.0, f64::max),
        );
    }
    m
}

/// Whether GC and stage 3's GC charging acted in the regime, and why as far as the counters
/// say: a preconditioned plane starts GC once its user writes have filled a block.
fn gc_finding(rows: &[Row], cfg: &Config) -> String {
    let runs: Vec<&Row> = rows.iter().filter(|r| r.experiment == REGIME).collect();
    let flin: Vec<&Row> = runs.iter().copied().filter(|r| r.policy == "flin").collect();
    let with_gc = runs.iter().filter(|r| did_gc(r)).count();
    let erased = runs.iter().filter(|r| r.gc_erases > 0).count();
    let charged = decided(rows, REGIME, "flin", "stage3_gc_moves_charged");
    let flin_gc = flin.iter().filter(|r| did_gc(r)).count();
    let ppb = cfg.nand.pages_per_block;
    let planes: Vec<f64> = runs.iter().map(|r| per_plane(r, cfg)).collect();
    let most = planes.iter().copied().fold(0.0, f64::max);
    let acted = if charged > 0 {
        format!("stage 3 charged writes' flows {charged} GC page moves before their writes, in FLIN's runs with GC work ({flin_gc} of {})", flin.len())
    } else if flin_gc > 0 {
        format!("yet stage 3 charged no GC move before a write in FLIN's {flin_gc} runs with GC work")
    } else {
        "so stage 3's GC charging never acts here either".to_string()
    };
    let unfinished =
        if with_gc > 0 && erased == 0 { " (GC started, but no victim was emptied before the run ended)" } else { "" };
    let spread = if most < ppb as f64 {
        "below a block in every run, so GC can start only on planes that took more than their share of the writes"
    } else {
        "a block or more in some runs"
    };
    format!(
        "GC moved pages or erased blocks in {with_gc} of the regime's {} shared runs and erased a block in {erased}{unfinished}; {acted}. After preconditioning, a plane starts GC only once its user writes have filled a block ({ppb} pages): its free blocks sit one above the GC trigger until then (`crates/ssdlab/src/ftl/precondition.rs`). The regime's shared runs programmed {:.1} user pages per plane on average, at most {most:.1} in a run: {spread}. Erase suspension needs an erase to suspend; the suspensions counted are of {}.",
        runs.len(),
        mean(&planes),
        if erased == 0 { "programs (with more than `t_suspend_us` left)" } else { "programs and GC erases" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(policy: &'static str, mix: &str, fairness: f64, gc_erases: u64, user_pages: u64) -> Row {
        Row {
            experiment: REGIME,
            mix: mix.into(),
            high_flows: 1,
            policy,
            fairness,
            unfairness: 1.0 / fairness,
            weighted_speedup: 2.0,
            max_slowdown: 1.0 / fairness,
            slowdowns: vec![1.0, 1.0 / fairness],
            flow_names: vec!["a".into(), "b".into()],
            iops: 1000.0,
            same_requests: 2,
            drain_ms: 1.0,
            alone_drain_ms: 1.0,
            gc_erases,
            gc_pages_moved: 10 * gc_erases,
            user_pages_programmed: user_pages,
            suspensions: 3,
            alone_drains_ms: vec![1.0, 1.0],
            read_us: 100.0,
            write_us: 1000.0,
            decisions: Default::default(),
        }
    }

    /// Two mixes in the regime, by hand. The regime's drive has 8 × 4 × 1 × 2 = 64 planes:
    /// FLIN's runs programmed 6,400 and 19,200 user pages, 100 and 300 per plane (mean 200,
    /// largest 300, above a 256-page block); one has 2 GC erases, 20 pages moved, and stage 3
    /// charged 7 moves. `ooo`'s runs, 1,280 pages each (20 per plane), erased nothing. FLIN
    /// 0.6 and 0.4 against `ooo`'s 0.5 and 0.5: −0% over `ooo` (0.5 / 0.5), fairer on 1 of 2.
    #[test]
    fn the_regime_gc_counters_by_hand() {
        let cfg = regime_config("flin").unwrap();
        let mut rows = vec![
            row("flin", "m0", 0.6, 0, 6_400),
            row("flin", "m1", 0.4, 2, 19_200),
            row("ooo", "m0", 0.5, 0, 1_280),
            row("ooo", "m1", 0.5, 0, 1_280),
        ];
        rows[1].decisions = [("stage3_gc_moves_charged".to_string(), 7)].into();
        let table = gc_rows(&rows, &cfg);
        assert!(table.contains("| FLIN, stages 1+2+3 | 1 of 2 | 2 | 20 | 7 | 6 | 200.0 / 300.0 |\n"), "{table}");
        assert!(
            table.contains("| `ooo` (MQSim's out-of-order, reads first) | 0 of 2 | 0 | 0 | 0 | 6 | 20.0 / 20.0 |\n"),
            "{table}"
        );
        let f = gc_finding(&rows, &cfg);
        assert!(f.starts_with("GC moved pages or erased blocks in 1 of the regime's 4 shared runs and erased a block in 1; stage 3 charged writes' flows 7 GC page moves before their writes, in FLIN's runs with GC work (1 of 2)."), "{f}");
        assert!(
            f.contains("(256 pages)")
                && f.contains(
                    "110.0 user pages per plane on average, at most 300.0 in a run: a block or more in some runs."
                ),
            "{f}"
        );
        let c = change_sentence(&rows);
        assert!(
            c.contains("is – on the empty drive and +0.0% in the regime (FLIN fairer on 0 of 0 and 1 of 2 mixes)"),
            "{c}"
        );
    }
}
