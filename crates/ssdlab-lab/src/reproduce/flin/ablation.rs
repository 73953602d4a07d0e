//! The ablation of FLIN's stages (issue 33 item 1), on the main setting's mixes: FLIN with
//! stage 1 only, stages 1+2 and all three (`tsu.flin.stages`), beside `ooo` (MQSim's
//! read-first scheduler, what FLIN's stages 2 and 3 fall back to) and Sprinkler+Fairness
//! (the paper's baseline). Each variant's slowdowns are against its own alone runs, as every
//! policy's. Means over the mixes carry a 95% t interval ([`mean_interval`]); each stage's
//! step is the mean of its paired per-mix differences, with the same interval.

use super::report::mix_worst;
use super::*;
use crate::reproduce::claims::{geomean_interval, mean_interval};
use crate::reproduce::template::Values;

const MAIN: &str = "mix";

/// The ablation table's rows, in order: the reference, the paper's baseline, FLIN's stages
/// cumulatively.
pub const VARIANTS: [(&str, &str); 5] = [
    ("ooo", "`ooo` (MQSim's out-of-order, reads first)"),
    ("sprinkler_fairness", "Sprinkler+Fairness"),
    ("flin_stage1", "FLIN, stage 1"),
    ("flin_stages12", "FLIN, stages 1+2"),
    ("flin", "FLIN, stages 1+2+3"),
];

/// Each step adds one stage: its name, the policy before it, the policy with it.
pub(super) const STEPS: [(&str, &str, &str); 3] = [
    ("stage 1 (over `ooo`)", "ooo", "flin_stage1"),
    ("stage 2", "flin_stage1", "flin_stages12"),
    ("stage 3", "flin_stages12", "flin"),
];

type Measure = fn(&Row) -> f64;

/// The mixes of experiment `exp` run under `policy`, in run order.
fn mixes<'a>(rows: &'a [Row], exp: &'a str, policy: &'a str) -> impl Iterator<Item = &'a Row> {
    rows.iter().filter(move |r| r.experiment == exp && r.policy == policy)
}

/// `(a's row, b's row)` for every mix of `exp` both policies ran, in a's order.
pub(super) fn pairs<'a>(rows: &'a [Row], exp: &'a str, a: &'a str, b: &'a str) -> Vec<(&'a Row, &'a Row)> {
    mixes(rows, exp, a).filter_map(|x| mixes(rows, exp, b).find(|y| y.mix == x.mix).map(|y| (x, y))).collect()
}

/// "0.421 (0.380 … 0.462)", the mean of `xs` with its 95% interval; "–" for none.
fn with_interval(xs: &[f64], signed: bool) -> String {
    let fmt = |x: f64| if signed { format!("{x:+.3}") } else { format!("{x:.3}") };
    match mean_interval(xs) {
        None => "–".into(),
        Some((m, None)) => fmt(m),
        Some((m, Some((lo, hi)))) => format!("{} ({} … {})", fmt(m), fmt(lo), fmt(hi)),
    }
}

/// The values of the template's ablation section.
pub(super) fn ablation(v: &mut Values, rows: &[Row], pool: &[PoolFlow]) {
    v.set("ablation", variant_rows(rows, MAIN));
    v.set("ablation_steps", step_rows(rows, MAIN));
    v.set("ablation_finding", finding(rows, MAIN));
    v.set("ablation_decisions", decision_rows(rows, MAIN));
    v.set("ablation_stage2", stage2_counter(rows, pool));
    v.set("ablation_stage3", stage3_counter(rows, MAIN));
    v.set("ablation_gc", gc_counter(rows, MAIN));
}

/// FLIN's variants, in stage order.
const FLIN_VARIANTS: [&str; 3] = ["flin_stage1", "flin_stages12", "flin"];

/// The sum of decision count `name` over `policy`'s shared runs of the mixes of `exp`.
pub(super) fn decided(rows: &[Row], exp: &str, policy: &str, name: &str) -> u64 {
    mixes(rows, exp, policy).map(|r| r.decisions.get(name).copied().unwrap_or(0)).sum()
}

/// "a of b (p%)".
fn share(a: u64, b: u64) -> String {
    if b == 0 {
        format!("{a} of 0")
    } else {
        format!("{a} of {b} ({:.1}%)", 100.0 * a as f64 / b as f64)
    }
}

/// Per FLIN variant, summed over its shared runs: how often each stage had a choice and how
/// often it changed what a first-come, read-first scheduler would do.
pub(super) fn decision_rows(rows: &[Row], exp: &str) -> String {
    let mut m = String::new();
    for policy in FLIN_VARIANTS {
        let label = VARIANTS.iter().find(|v| v.0 == policy).map_or(policy, |v| v.1);
        let d = |name: &str| decided(rows, exp, policy, name);
        let _ = writeln!(
            m,
            "| {label} | {} | {} | {} | {} |",
            share(d("stage1_inserted_ahead"), d("stage1_inserted")),
            share(d("stage2_candidates_contested"), d("stage2_candidates")),
            share(d("stage3_write_first"), d("stage3_both_candidates")),
            d("stage3_gc_moves_charged")
        );
    }
    m
}

/// Per variant: mixes, mean fairness and weighted speedup with intervals, the worst slowdown,
/// and on how many mixes it is fairer than `ooo`.
fn variant_rows(rows: &[Row], exp: &str) -> String {
    let mut m = String::new();
    for (policy, label) in VARIANTS {
        let f: Vec<f64> = mixes(rows, exp, policy).map(|r| r.fairness).collect();
        let ws: Vec<f64> = mixes(rows, exp, policy).map(|r| r.weighted_speedup).collect();
        let worst = if f.is_empty() { "–".into() } else { format!("{:.1}×", mix_worst(rows, exp, policy)) };
        let fairer = if policy == "ooo" {
            "–".to_string()
        } else {
            let p = pairs(rows, exp, policy, "ooo");
            format!("{} of {}", p.iter().filter(|(x, o)| x.fairness > o.fairness).count(), p.len())
        };
        let (fi, wi) = (with_interval(&f, false), with_interval(&ws, false));
        let _ = writeln!(m, "| {label} | {} | {fi} | {wi} | {worst} | {fairer} |", f.len());
    }
    m
}

/// Per-mix differences of `f` over a step's pairs in `exp` (with the stage minus without).
pub(super) fn step_deltas(rows: &[Row], exp: &str, before: &str, after: &str, f: Measure) -> Vec<f64> {
    pairs(rows, exp, after, before).iter().map(|(a, b)| f(a) - f(b)).collect()
}

/// Per step: the paired change in mean fairness and weighted speedup, and on how many mixes
/// the stage raised, lowered or left fairness.
pub(super) fn step_rows(rows: &[Row], exp: &str) -> String {
    let mut m = String::new();
    for (name, before, after) in STEPS {
        let df = step_deltas(rows, exp, before, after, |r| r.fairness);
        let dw = step_deltas(rows, exp, before, after, |r| r.weighted_speedup);
        let up = df.iter().filter(|&&d| d > 0.0).count();
        let down = df.iter().filter(|&&d| d < 0.0).count();
        let (fi, wi) = (with_interval(&df, true), with_interval(&dw, true));
        let _ = writeln!(m, "| {name} | {} | {fi} | {wi} | {up} / {down} / {} |", df.len(), df.len() - up - down);
    }
    m
}

/// Whether a mean's 95% interval leaves out 0 (`Some(true)`), includes it (`Some(false)`),
/// or there is none.
fn clear_of_zero(interval: Option<(f64, f64)>) -> Option<bool> {
    interval.map(|(lo, hi)| lo > 0.0 || hi < 0.0)
}

/// A step's paired change in one measure: the mean over the mixes and its 95% interval.
#[derive(Debug, Clone, Copy)]
struct Step {
    name: &'static str,
    change: f64,
    interval: Option<(f64, f64)>,
}

/// The computed sentences: per measure, the step that moves its mean most, any other step
/// that moves it the other way clear of 0, and FLIN's whole change over `ooo`.
pub(super) fn finding(rows: &[Row], exp: &str) -> String {
    let say = |what: &str, f: Measure| {
        let steps: Vec<Step> = STEPS
            .iter()
            .filter_map(|&(name, before, after)| {
                let x = mean_interval(&step_deltas(rows, exp, before, after, f));
                x.map(|(change, interval)| Step { name, change, interval })
            })
            .collect();
        let Some(&largest) = steps.iter().max_by(|a, b| a.change.abs().total_cmp(&b.change.abs())) else {
            return format!("No mix ran every variant, so no step of mean {what} is measured.");
        };
        let sure = match clear_of_zero(largest.interval) {
            Some(true) => "its 95% interval leaves out 0",
            Some(false) => "its 95% interval includes 0",
            None => "one mix, no interval",
        };
        let against: Vec<String> = steps
            .iter()
            .filter(|s| s.name != largest.name && s.change * largest.change < 0.0)
            .filter(|s| clear_of_zero(s.interval) == Some(true))
            .map(|s| format!("{} moves it the other way, {:+.3} (its interval leaves out 0)", s.name, s.change))
            .collect();
        let against = if against.is_empty() { String::new() } else { format!("; {}", against.join("; ")) };
        let total = mean_interval(&step_deltas(rows, exp, "ooo", "flin", f)).map_or(0.0, |x| x.0);
        let (name, d) = (largest.name, largest.change);
        format!("The largest step in mean {what} is {name}, {d:+.3} ({sure}){against}; FLIN's whole change over `ooo` is {total:+.3}.")
    };
    // A block of the template: it brings its line end.
    format!("{} {}\n", say("fairness", |r| r.fairness), say("weighted speedup", |r| r.weighted_speedup))
}

/// Why stage 2 can or cannot act: the NVMe priority classes of the mixes' flows, how often
/// its candidates came from a choice between classes, and on how many mixes stages 1 and
/// 1+2 gave identical rows.
fn stage2_counter(rows: &[Row], pool: &[PoolFlow]) -> String {
    let mut classes: Vec<u8> = pool.iter().map(|f| f.open.priority.class()).collect();
    classes.sort_unstable();
    classes.dedup();
    let p = pairs(rows, MAIN, "flin_stage1", "flin_stages12");
    let same =
        p.iter().filter(|(a, b)| a.slowdowns == b.slowdowns && a.iops == b.iops && a.drain_ms == b.drain_ms).count();
    let names = ["urgent", "high", "medium", "low"];
    let listed: Vec<&str> = classes.iter().map(|&c| names[c as usize]).collect();
    let contested = decided(rows, MAIN, "flin_stages12", "stage2_candidates_contested");
    let candidates = decided(rows, MAIN, "flin_stages12", "stage2_candidates");
    let why = if classes.len() == 1 {
        format!("Every flow of the pool is in one NVMe priority class (`{}`)", listed[0])
    } else {
        format!("The pool's flows are in {} NVMe priority classes ({})", classes.len(), listed.join(", "))
    };
    format!(
        "{why}, and stage 2's weights can matter only when two classes have work on a chip: that held for {} candidates of stages 1+2; stages 1 and 1+2 gave identical slowdowns, IOPS and drains on **{same} of {} mixes**.",
        share(contested, candidates),
        p.len()
    )
}

/// Whether stage 3's GC part can act: in how many of the FLIN variants' shared runs GC erased
/// a block.
fn gc_counter(rows: &[Row], exp: &str) -> String {
    let runs: Vec<&Row> = FLIN_VARIANTS.iter().flat_map(|p| mixes(rows, exp, p)).collect();
    let with_gc = runs.iter().filter(|r| r.gc_erases > 0).count();
    let what = if with_gc == 0 {
        "so stage 3's GC charging (a write's flow pays N_GC page moves first) never acts here; only its wait balancing between reads and writes does"
    } else {
        "so stage 3's GC charging acts in those runs beside its wait balancing"
    };
    format!("GC erased a block in {with_gc} of the {} shared runs of FLIN's variants, {what}.", runs.len())
}

/// "×0.95 (0.90 … 1.01)": the geometric mean of `ratios` with its 95% interval.
fn times(ratios: &[f64]) -> String {
    match geomean_interval(ratios) {
        None => "– (no mix)".into(),
        Some((g, None)) => format!("×{g:.3}"),
        Some((g, Some((lo, hi)))) => format!("×{g:.3} ({lo:.3} … {hi:.3})"),
    }
}

/// What stage 3 did: how often it served a write over a waiting read, and what that did to
/// reads' and writes' mean response times (per mix, with the stage over without it), beside
/// a read's and a program's array time on the drive.
pub(super) fn stage3_counter(rows: &[Row], exp: &str) -> String {
    let d = |name: &str| decided(rows, exp, "flin", name);
    let (first, both) = (d("stage3_write_first"), d("stage3_both_candidates"));
    let p = pairs(rows, exp, "flin", "flin_stages12");
    let ratio = |f: Measure| -> Vec<f64> {
        p.iter().filter(|(a, b)| f(a) > 0.0 && f(b) > 0.0).map(|(a, b)| f(a) / f(b)).collect()
    };
    let nand = Config::from_toml_str(PRESET, PRESET_NAME, &[]).expect("the shipped preset").nand;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    format!(
        "Stage 3 served the write's side over a waiting read on {} picks that had both; each such pick puts a program ({:.0} µs of array time on this drive) ahead of reads of {:.0} µs. With stage 3, the shared runs' mean read response time is {} and the mean write response time {} of what they are without it (geometric means of the per-mix ratios, 95% intervals).",
        share(first, both),
        mean(&nand.t_program_us),
        mean(&nand.t_read_us),
        times(&ratio(|r| r.read_us)),
        times(&ratio(|r| r.write_us))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(mix: &str, policy: &'static str, fairness: f64, ws: f64, read_us: f64, write_us: f64) -> Row {
        Row {
            experiment: "mix",
            mix: mix.into(),
            high_flows: 1,
            policy,
            fairness,
            unfairness: 1.0 / fairness,
            weighted_speedup: ws,
            max_slowdown: 1.0 / fairness,
            slowdowns: vec![1.0, 1.0 / fairness],
            flow_names: vec!["a".into(), "b".into()],
            iops: 1000.0,
            same_requests: 2,
            drain_ms: 1.0,
            alone_drain_ms: 1.0,
            gc_erases: 0,
            gc_pages_moved: 0,
            user_pages_programmed: 0,
            suspensions: 0,
            alone_drains_ms: vec![1.0, 1.0],
            read_us,
            write_us,
            decisions: Default::default(),
        }
    }

    /// Three mixes worked by hand. Fairness: `ooo` 0.4, 0.5, 0.6 (mean 0.5, sd 0.1, t(2) =
    /// 4.303: ± 4.303 × 0.1 / √3 = 0.248); stage 1 and stages 1+2 0.6, 0.7, 0.8; all three
    /// 0.5, 0.6, 0.7; Sprinkler+Fairness 0.2. Weighted speedup 2.0, 2.2, 2.2, 2.1 in every mix.
    /// Steps: stage 1 +0.2 in each mix, stage 2 0, stage 3 −0.1: stage 1 is the largest, stage
    /// 3 goes the other way, FLIN over `ooo` +0.1. Stage 2 had 0 of 10 candidates with a choice
    /// of class (one class in the pool) and left all 3 mixes identical; stage 3 served the
    /// write first on 5 of 50 picks, reads ×1.3 and writes ×0.99 (130 against 100 µs, 990
    /// against 1000 µs in each mix).
    #[test]
    fn the_ablation_tables_and_sentences_by_hand() {
        let mut rows = Vec::new();
        for (k, mix) in ["m0", "m1", "m2"].into_iter().enumerate() {
            let x = 0.1 * k as f64;
            rows.push(row(mix, "ooo", 0.4 + x, 2.0, 100.0, 1000.0));
            rows.push(row(mix, "sprinkler_fairness", 0.2, 1.5, 100.0, 1000.0));
            rows.push(row(mix, "flin_stage1", 0.6 + x, 2.2, 100.0, 1000.0));
            let mut s12 = row(mix, "flin_stages12", 0.6 + x, 2.2, 100.0, 1000.0);
            s12.decisions = [("stage2_candidates".to_string(), if k == 0 { 10 } else { 0 })].into();
            rows.push(s12);
            let mut all = row(mix, "flin", 0.5 + x, 2.1, 130.0, 990.0);
            let first = [("stage3_write_first", 5), ("stage3_both_candidates", 50)];
            if k == 0 {
                all.decisions = first.iter().map(|&(n, v)| (n.to_string(), v)).collect();
            }
            rows.push(all);
        }
        let table = variant_rows(&rows, MAIN);
        assert!(table.contains("| `ooo` (MQSim's out-of-order, reads first) | 3 | 0.500 (0.252 … 0.748) | 2.000 (2.000 … 2.000) | 2.5× | – |\n"), "{table}");
        assert!(
            table.contains(
                "| Sprinkler+Fairness | 3 | 0.200 (0.200 … 0.200) | 1.500 (1.500 … 1.500) | 5.0× | 0 of 3 |\n"
            ),
            "{table}"
        );
        assert!(
            table.contains(
                "| FLIN, stages 1+2+3 | 3 | 0.600 (0.352 … 0.848) | 2.100 (2.100 … 2.100) | 2.0× | 3 of 3 |\n"
            ),
            "{table}"
        );
        let steps = step_rows(&rows, MAIN);
        assert!(
            steps.contains(
                "| stage 1 (over `ooo`) | 3 | +0.200 (+0.200 … +0.200) | +0.200 (+0.200 … +0.200) | 3 / 0 / 0 |\n"
            ),
            "{steps}"
        );
        assert!(
            steps.contains("| stage 2 | 3 | +0.000 (+0.000 … +0.000) | +0.000 (+0.000 … +0.000) | 0 / 0 / 3 |\n"),
            "{steps}"
        );
        assert!(
            steps.contains("| stage 3 | 3 | -0.100 (-0.100 … -0.100) | -0.100 (-0.100 … -0.100) | 0 / 3 / 0 |\n"),
            "{steps}"
        );
        let f = finding(&rows, MAIN);
        assert!(f.starts_with("The largest step in mean fairness is stage 1 (over `ooo`), +0.200 (its 95% interval leaves out 0); stage 3 moves it the other way, -0.100 (its interval leaves out 0); FLIN's whole change over `ooo` is +0.100."), "{f}");
        let pool = [PoolFlow {
            name: "a",
            high: true,
            open: FlowSpec::default(),
            closed: FlowSpec::default(),
            pace: Pace::Synthetic { iops_per_unit: 1.0 },
            shape: None,
        }];
        let s2 = stage2_counter(&rows, &pool);
        assert!(s2.starts_with("Every flow of the pool is in one NVMe priority class (`high`)"), "{s2}");
        assert!(s2.contains("0 of 10 (0.0%) candidates") && s2.contains("**3 of 3 mixes**"), "{s2}");
        let s3 = stage3_counter(&rows, MAIN);
        assert!(s3.contains("on 5 of 50 (10.0%) picks"), "{s3}");
        assert!(s3.contains("read response time is ×1.300 (1.300 … 1.300)"), "{s3}");
        assert!(s3.contains("write response time ×0.990 (0.990 … 0.990)"), "{s3}");
        assert!(s3.contains("(750 µs of array time on this drive) ahead of reads of 75 µs"), "{s3}");
        assert!(gc_counter(&rows, MAIN).starts_with("GC erased a block in 0 of the 9 shared runs"));
    }
}
