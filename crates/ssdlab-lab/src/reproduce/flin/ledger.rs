//! FLIN's headline claims for the claims ledger ([`crate::reproduce::claims`]): the rows of
//! REPORT.md's claims table, on the main setting's mixes (open loop, feasible load). The
//! seed copy of the paper is the talk slides, with no figure numbers: each claim names the
//! evaluation ("Eval."). Fairness, weighted speedup and throughput are, as in the report, the
//! ratio of FLIN's mean over the mixes to the baseline's, with the linearised 95% interval of
//! that ratio over the mixes ([`ratio_interval`]); worst slowdowns are the largest over the
//! mixes (no interval).

use super::report::{mix_mean, mix_worst};
use super::Row;
use crate::reproduce::claims::{ratio_interval, Bound, Claim, Kind};

type Measure = fn(&Row) -> f64;

const MAIN: &str = "mix";

/// The paper's claims with this run's values.
pub fn claims(rows: &[Row]) -> Vec<Claim> {
    let fairness: Measure = |r| r.fairness;
    let speedup: Measure = |r| r.weighted_speedup;
    let iops: Measure = |r| r.iops;
    vec![
        vs(rows, "Eval. fairness, FLIN vs Sprinkler+Fairness", "sprinkler_fairness", fairness, 0.70),
        vs(rows, "Eval. weighted speedup, FLIN vs Sprinkler+Fairness", "sprinkler_fairness", speedup, 0.47),
        worst(rows, "Eval. worst slowdown, FLIN (< 80×)", "flin", 80.0, Bound::AtMost),
        worst(rows, "Eval. worst slowdown, Sprinkler (> 500×)", "sprinkler", 500.0, Bound::AtLeast),
        worst(rows, "Eval. worst slowdown, Sprinkler+Fairness (> 500×)", "sprinkler_fairness", 500.0, Bound::AtLeast),
        vs(rows, "Eval. throughput, FLIN vs Sprinkler (about equal)", "sprinkler", iops, 0.0),
        vs(rows, "Eval. throughput, FLIN vs Sprinkler+Fairness (about equal)", "sprinkler_fairness", iops, 0.0),
    ]
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
fn vs(rows: &[Row], what: &str, other: &str, f: Measure, value: f64) -> Claim {
    let pairs: Vec<(f64, f64)> =
        mixes(rows, "flin").filter_map(|a| mixes(rows, other).find(|b| b.mix == a.mix).map(|b| (f(a), f(b)))).collect();
    let n = mixes(rows, "flin").count();
    let over = format!("ratio of the means over {n} mixes (main setting)");
    let mut c = claim(what, Kind::Change, value, Bound::Value, over);
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
