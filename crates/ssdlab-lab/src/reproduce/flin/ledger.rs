//! FLIN's headline claims for the claims ledger ([`crate::reproduce::claims`]): the rows of
//! REPORT.md's claims table, on the main setting's mixes (open loop, feasible load). The
//! seed copy of the paper is the talk slides, with no figure numbers: each claim names the
//! evaluation ("Eval."). Fairness, weighted speedup and throughput are, as in the report, the
//! ratio of FLIN's mean over the mixes to the baseline's, with the linearised 95% interval of
//! that ratio over the mixes ([`ratio_interval`]); worst slowdowns are the largest over the
//! mixes (no interval).
//!
//! The paper does not run `ooo` (MQSim's scheduler, which FLIN replaces); its claim to beat
//! the state of the art is read as "FLIN fairer than `ooo`" ([`VS_OOO`]), whose cause row says
//! what the stage ablation measured whatever the verdict. Every other claim not reproduced
//! gets its measured cause ([`cause`]).

use super::ablation::{decided, pairs, step_deltas, STEPS};
use super::report::{mix_mean, mix_worst};
use super::Row;
use crate::reproduce::claims::{explain, geomean_interval, mean_interval, ratio_interval, Bound, Claim, Kind};

type Measure = fn(&Row) -> f64;

const MAIN: &str = "mix";

/// FLIN against MQSim's `ooo`: fairer, the paper's claim to beat its baselines.
pub const VS_OOO: &str = "Eval. fairness, FLIN above `ooo` (MQSim's scheduler, which FLIN replaces)";

/// The paper's claims with this run's values, each not reproduced with its measured cause,
/// and FLIN against `ooo` with what the ablation measured.
pub fn claims(rows: &[Row]) -> Vec<Claim> {
    let mut claims = measured(rows);
    explain(&mut claims, |c| cause(rows, c));
    if let Some(c) = claims.iter_mut().find(|c| c.claim == VS_OOO) {
        c.cause = ooo_cause(rows);
    }
    claims
}

/// The paper's claims with this run's values.
fn measured(rows: &[Row]) -> Vec<Claim> {
    let fairness: Measure = |r| r.fairness;
    let speedup: Measure = |r| r.weighted_speedup;
    let iops: Measure = |r| r.iops;
    let value = Bound::Value;
    vec![
        vs(rows, "Eval. fairness, FLIN vs Sprinkler+Fairness", "sprinkler_fairness", fairness, 0.70, value),
        vs(rows, "Eval. weighted speedup, FLIN vs Sprinkler+Fairness", "sprinkler_fairness", speedup, 0.47, value),
        worst(rows, "Eval. worst slowdown, FLIN (< 80×)", "flin", 80.0, Bound::AtMost),
        worst(rows, "Eval. worst slowdown, Sprinkler (> 500×)", "sprinkler", 500.0, Bound::AtLeast),
        worst(rows, "Eval. worst slowdown, Sprinkler+Fairness (> 500×)", "sprinkler_fairness", 500.0, Bound::AtLeast),
        vs(rows, "Eval. throughput, FLIN vs Sprinkler (about equal)", "sprinkler", iops, 0.0, value),
        vs(rows, "Eval. throughput, FLIN vs Sprinkler+Fairness (about equal)", "sprinkler_fairness", iops, 0.0, value),
        vs(rows, VS_OOO, "ooo", fairness, 0.0, Bound::Above),
    ]
}

/// "below" or "above" (or "equal to") for `a` against `b`.
pub(super) fn compared(a: f64, b: f64) -> &'static str {
    if a < b {
        "below"
    } else if a > b {
        "above"
    } else {
        "equal to"
    }
}

/// Why a claim is not reproduced, from the main setting's rows.
fn cause(rows: &[Row], c: &Claim) -> Option<String> {
    let avg = |p: &str, f: Measure| mix_mean(rows, MAIN, p, &f);
    let levels = |what: &str, f: Measure| {
        let (sf, spk, ooo, flin) = (avg("sprinkler_fairness", f), avg("sprinkler", f), avg("ooo", f), avg("flin", f));
        format!(
            "Sprinkler+Fairness's own mean {what} is {sf:.3}, {} plain Sprinkler's {spk:.3} and {} `ooo`'s {ooo:.3}; FLIN's is {flin:.3}",
            compared(sf, spk),
            compared(sf, ooo)
        )
    };
    Some(match c.claim.as_str() {
        "Eval. fairness, FLIN vs Sprinkler+Fairness" => levels("fairness", |r| r.fairness),
        "Eval. weighted speedup, FLIN vs Sprinkler+Fairness" => levels("weighted speedup", |r| r.weighted_speedup),
        "Eval. worst slowdown, FLIN (< 80×)" => worst_cause(rows, "flin")?,
        "Eval. worst slowdown, Sprinkler (> 500×)" => worst_cause(rows, "sprinkler")?,
        "Eval. worst slowdown, Sprinkler+Fairness (> 500×)" => worst_cause(rows, "sprinkler_fairness")?,
        "Eval. throughput, FLIN vs Sprinkler (about equal)" => throughput_cause(rows, "sprinkler"),
        "Eval. throughput, FLIN vs Sprinkler+Fairness (about equal)" => throughput_cause(rows, "sprinkler_fairness"),
        _ => return None,
    })
}

/// The mix with `policy`'s worst slowdown: its flow, its group, and its drain against its
/// flows' drains alone (a backlog that grows with the run marks an overloaded mix).
fn worst_cause(rows: &[Row], policy: &str) -> Option<String> {
    let r = mixes(rows, policy).max_by(|a, b| a.max_slowdown.total_cmp(&b.max_slowdown))?;
    let k = (0..r.slowdowns.len()).max_by(|&a, &b| r.slowdowns[a].total_cmp(&r.slowdowns[b]))?;
    let group: Vec<&Row> = mixes(rows, policy).filter(|x| x.high_flows == r.high_flows).collect();
    let drain = |f: fn(&Row) -> f64| group.iter().map(|x| f(x)).sum::<f64>() / group.len() as f64;
    let verdict = if r.drain_ms > 2.0 * r.alone_drain_ms {
        "more than twice its flows' own: the mix asked for more than the drive served, so its backlog, and the slowdowns of the flows behind it, grow with the run's length"
    } else {
        "within twice its flows' own"
    };
    Some(format!(
        "{} slowed {:.1}× in {} ({} of {} flows high-interference), where the shared run left a backlog of {:.1} ms when its flows stopped against {:.1} ms for its flows alone (its group's mixes: {:.1} ms against {:.1} ms), {verdict}",
        r.flow_names[k],
        r.slowdowns[k],
        r.mix,
        r.high_flows,
        r.slowdowns.len(),
        r.drain_ms,
        r.alone_drain_ms,
        drain(|x| x.drain_ms),
        drain(|x| x.alone_drain_ms),
    ))
}

/// FLIN's IOPS against `other`'s: open loop every flow issues the same requests under both,
/// so the difference is in when the runs end.
fn throughput_cause(rows: &[Row], other: &str) -> String {
    let p = pairs(rows, MAIN, "flin", other);
    let flows: usize = p.iter().map(|(a, _)| a.slowdowns.len()).sum();
    let same: usize = p.iter().map(|(a, b)| a.same_requests.min(b.same_requests)).sum();
    let avg = |pol: &str, f: Measure| mix_mean(rows, MAIN, pol, &f);
    format!(
        "mean IOPS {:.0} under FLIN against {:.0} ({:.3}×); open loop the flows issue the same requests under both ({same} of {flows} flows completed as many shared as alone under both), so no flow gains requests: IOPS differ by when the runs end, a mean drain of {:.1} ms under FLIN against {:.1} ms",
        avg("flin", |r| r.iops),
        avg(other, |r| r.iops),
        avg("flin", |r| r.iops) / avg(other, |r| r.iops),
        avg("flin", |r| r.drain_ms),
        avg(other, |r| r.drain_ms),
    )
}

/// What the stage ablation measured of FLIN against `ooo`: each stage's paired change in
/// fairness, and stage 3's write-first picks and their cost to reads.
fn ooo_cause(rows: &[Row]) -> Option<String> {
    let steps: Vec<String> = STEPS
        .iter()
        .filter_map(|&(name, before, after)| {
            let (m, i) = mean_interval(&step_deltas(rows, MAIN, before, after, |r| r.fairness))?;
            let i = i.map_or(String::new(), |(lo, hi)| format!(" ({lo:+.3} … {hi:+.3})"));
            Some(format!("{name} {m:+.3}{i}"))
        })
        .collect();
    if steps.is_empty() {
        return None;
    }
    let d = |name: &str| decided(rows, MAIN, "flin", name);
    let (first, both) = (d("stage3_write_first"), d("stage3_both_candidates"));
    let ratios: Vec<f64> = pairs(rows, MAIN, "flin", "flin_stages12")
        .iter()
        .filter(|(a, b)| a.read_us > 0.0 && b.read_us > 0.0)
        .map(|(a, b)| a.read_us / b.read_us)
        .collect();
    let reads = geomean_interval(&ratios).map_or("–".into(), |(g, _)| format!("×{g:.2}"));
    let share = if both > 0 { 100.0 * first as f64 / both as f64 } else { 0.0 };
    let contested = decided(rows, MAIN, "flin_stages12", "stage2_candidates_contested");
    let total = mean_interval(&step_deltas(rows, MAIN, "ooo", "flin", |r| r.fairness)).map_or(0.0, |x| x.0);
    Some(format!(
        "the stage ablation's paired changes in fairness per mix: {}, together {total:+.3} over `ooo`; stage 2 had a choice of priority class for {contested} candidates; stage 3 served the write's side over a waiting read on {share:.1}% of {both} picks with both, making reads' mean response time {reads} (geometric mean over the mixes)",
        steps.join(", ")
    ))
}

fn claim(what: &str, kind: Kind, paper_value: f64, bound: Bound, over: String) -> Claim {
    Claim::new("FLIN", what, kind, paper_value, bound, over)
}

/// The main setting's mixes run under `policy`, in run order.
fn mixes<'a>(rows: &'a [Row], policy: &'a str) -> impl Iterator<Item = &'a Row> {
    rows.iter().filter(move |r| r.experiment == MAIN && r.policy == policy)
}

/// FLIN against `other` on `f`: the mean of `f` over the mixes under FLIN over that under
/// `other` (the report's [`mix_mean`]s), as a change; the interval over the mixes both ran.
fn vs(rows: &[Row], what: &str, other: &str, f: Measure, value: f64, bound: Bound) -> Claim {
    let pairs: Vec<(f64, f64)> =
        mixes(rows, "flin").filter_map(|a| mixes(rows, other).find(|b| b.mix == a.mix).map(|b| (f(a), f(b)))).collect();
    let n = mixes(rows, "flin").count();
    let over = format!("ratio of the means over {n} mixes (main setting)");
    let mut c = claim(what, Kind::Change, value, bound, over);
    let (a, b) = (mix_mean(rows, MAIN, "flin", &f), mix_mean(rows, MAIN, other, &f));
    if n > 0 && mixes(rows, other).count() > 0 && b > 0.0 {
        c.measured = Some(a / b - 1.0);
        c.interval = ratio_interval(&pairs).and_then(|(_, i)| i).map(|(lo, hi)| (lo - 1.0, hi - 1.0));
    }
    c
}

/// The largest slowdown of any flow in the main setting's mixes under `policy`
/// (the report's [`mix_worst`]): an amount (a bound on it, with no direction), not a change.
fn worst(rows: &[Row], what: &str, policy: &str, value: f64, bound: Bound) -> Claim {
    let n = mixes(rows, policy).count();
    let mut c = claim(what, Kind::Amount, value, bound, format!("largest over {n} mixes (main setting)"));
    c.unit = "×".into();
    c.measured = (n > 0).then(|| mix_worst(rows, MAIN, policy));
    c
}
