//! The write buffer from SPD's floor up (issue 33 item 4): Baseline-D and SPD at 1, 2, 4, …
//! times the floor of (N − 1) × dies + 1 pages, the same size on every trace, with a buffer
//! slot freed at eviction (SSDsim, the main rows) and held until programmed (real buffers),
//! with blocking GC and without GC: where SPD's sign against Baseline-D settles.

use std::fmt::Write as _;

use super::ledger::{ratios, Measure};
use super::{pick, traces_in, Row, Scheme};
use crate::reproduce::claims::FLAT;
use crate::reproduce::geomean;

/// One regime of the sweep: its experiment with slots freed at eviction, the one with slots
/// held, its heading and its name in a sentence.
pub struct Regime {
    pub evicted: &'static str,
    pub held: &'static str,
    pub heading: &'static str,
    pub name: &'static str,
}

pub const WITH_GC: Regime = Regime {
    evicted: "floor-gc",
    held: "floor-gc-held",
    heading: "With GC (blocking, as the main with-GC rows)",
    name: "with blocking GC",
};
pub const WITHOUT_GC: Regime =
    Regime { evicted: "floor-nogc", held: "floor-nogc-held", heading: "Without GC", name: "without GC" };

const WRITE: Measure = |r| r.write_us;

/// One buffer size: SPD's write latency over Baseline-D's (geometric mean over the traces)
/// with slots freed at eviction and held.
pub struct Step {
    /// The size in floors.
    pub factor: f64,
    pub pages: u64,
    pub evicted: Option<f64>,
    pub held: Option<f64>,
}

/// The sizes of `regime`'s sweep, smallest first.
fn factors(rows: &[Row], regime: &Regime) -> Vec<f64> {
    let mut f: Vec<f64> = rows.iter().filter(|r| r.experiment == regime.evicted).map(|r| r.buffer_factor).collect();
    f.sort_by(f64::total_cmp);
    f.dedup();
    f
}

/// Each size of `regime`'s sweep, smallest first; empty when the run has no such rows.
pub fn steps(rows: &[Row], regime: &Regime) -> Vec<Step> {
    let ratio = |exp: &str, f: f64| ratios(rows, exp, Scheme::BaselineD, WRITE, f).mean().map(|m| m.0);
    factors(rows, regime)
        .into_iter()
        .map(|factor| {
            let pages = rows
                .iter()
                .find(|r| r.experiment == regime.evicted && r.buffer_factor == factor)
                .map_or(0, |r| r.buffer_pages);
            Step { factor, pages, evicted: ratio(regime.evicted, factor), held: ratio(regime.held, factor) }
        })
        .collect()
}

/// The sign of a ratio's change: 0 within ±[`FLAT`].
fn sign(x: Option<f64>) -> Option<i32> {
    let c = x? - 1.0;
    Some(if c.abs() < FLAT { 0 } else { c.signum() as i32 })
}

/// The first size from which, at every size on, both semantics are measured and give SPD
/// one sign against Baseline-D; None when they disagree at the largest.
pub fn agree_from(steps: &[Step]) -> Option<&Step> {
    let agree = |s: &Step| matches!((sign(s.evicted), sign(s.held)), (Some(a), Some(b)) if a == b);
    match steps.iter().rposition(|s| !agree(s)) {
        None => steps.first(),
        Some(i) => steps.get(i + 1),
    }
}

/// A ratio as a signed change.
fn change(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{:+.1}%", (x - 1.0) * 100.0))
}

/// Geometric mean over the traces of `scheme`'s write latency in `exp` at `factor`, µs.
fn write_us(rows: &[Row], exp: &str, scheme: Scheme, factor: f64) -> Option<f64> {
    let v: Vec<f64> = traces_in(rows).iter().filter_map(|t| pick(rows, exp, t, scheme, factor)).map(WRITE).collect();
    (!v.is_empty()).then(|| geomean(&v))
}

/// The section: per regime a table and the sentences under it; nothing without the sweep.
pub fn section(rows: &[Row]) -> String {
    let mut m = String::new();
    for regime in [WITH_GC, WITHOUT_GC] {
        let steps = steps(rows, &regime);
        if steps.is_empty() {
            continue;
        }
        let _ = writeln!(m, "### {}\n", regime.heading);
        m.push_str(&table(rows, &regime, &steps));
        m.push('\n');
        m.push_str(&summary(rows, &regime, &steps));
        m.push_str("\n\n");
    }
    m
}

/// One regime's table: per size, Baseline-D's and SPD's write latency (geometric mean, µs)
/// and SPD's change with its 95% interval, under each semantics.
fn table(rows: &[Row], regime: &Regime, steps: &[Step]) -> String {
    let mut m = String::from("| buffer pages | × floor | freed at eviction: Baseline-D µs | SPD µs | SPD vs Baseline-D | held until programmed: Baseline-D µs | SPD µs | SPD vs Baseline-D |\n|---|---|---|---|---|---|---|---|\n");
    let us = |exp: &str, s: Scheme, f: f64| write_us(rows, exp, s, f).map_or("–".into(), |x| format!("{x:.0}"));
    for s in steps {
        let cells: Vec<String> = [regime.evicted, regime.held]
            .iter()
            .map(|exp| {
                let vs = ratios(rows, exp, Scheme::BaselineD, WRITE, s.factor).show();
                format!("{} | {} | {vs}", us(exp, Scheme::BaselineD, s.factor), us(exp, Scheme::Spd, s.factor))
            })
            .collect();
        let _ = writeln!(m, "| {} | {} | {} |", s.pages, s.factor, cells.join(" | "));
    }
    m
}

/// The sentences under a regime's table: both semantics at the floor and at the largest size,
/// where they agree, and what holding slots does to each scheme at the floor.
fn summary(rows: &[Row], regime: &Regime, steps: &[Step]) -> String {
    let (first, last) = (&steps[0], &steps[steps.len() - 1]);
    let mut m = format!(
        "At {} pages SPD against Baseline-D is {} with slots freed at eviction and {} with slots held; at {} pages {} and {}.",
        first.pages,
        change(first.evicted),
        change(first.held),
        last.pages,
        change(last.evicted),
        change(last.held)
    );
    match agree_from(steps) {
        Some(a) if a.factor == first.factor => m += " The two semantics give SPD the same sign at every size.",
        Some(a) => {
            let _ = write!(m, " They agree in sign from {} pages ({}× the floor) on.", a.pages, a.factor);
        }
        None => {
            let _ = write!(m, " They still differ in sign at {} pages.", last.pages);
        }
    }
    let held_over_evicted = |s: Scheme| {
        let h = write_us(rows, regime.held, s, first.factor)?;
        Some(h / write_us(rows, regime.evicted, s, first.factor)?)
    };
    let _ = write!(
        m,
        " Holding slots changes Baseline-D's write latency by {} and SPD's by {} at {} pages (geometric means over the traces).",
        change(held_over_evicted(Scheme::BaselineD)),
        change(held_over_evicted(Scheme::Spd)),
        first.pages
    );
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::spd::tests::row;

    /// SPD over Baseline-D, evicted / held, by hand: 1× 0.5 / 1.4 (signs −, +), 2× 0.6 /
    /// 0.995 (−, flat: within ±1%), 4× 0.5 / 0.8 (−, −), 8× 0.5 / 0.7: they agree from 4× on,
    /// not from 2× (a flat change is no sign).
    #[test]
    fn the_semantics_agree_from_the_first_size_where_every_larger_one_agrees() {
        let step = |factor: f64, evicted: f64, held: f64| Step {
            factor,
            pages: (9.0 * factor) as u64,
            evicted: Some(evicted),
            held: Some(held),
        };
        let steps = [step(1.0, 0.5, 1.4), step(2.0, 0.6, 0.995), step(4.0, 0.5, 0.8), step(8.0, 0.5, 0.7)];
        assert_eq!(agree_from(&steps).map(|s| s.pages), Some(36));
        assert_eq!(agree_from(&steps[..2]).map(|s| s.pages), None, "they differ at the largest");
        assert_eq!(agree_from(&steps[2..]).map(|s| s.pages), Some(36), "all agree: the first");
    }

    /// One trace at 9 and 18 pages: Baseline-D 1,000 µs held and evicted at both; SPD 500
    /// evicted at both, 1,500 held at 9 and 800 at 18. SPD −50.0% / +50.0% at 9, −50.0% /
    /// −20.0% at 18: agree from 18 pages; holding slots changes Baseline-D's latency by
    /// +0.0%, SPD's by 1500 / 500 = +200.0% at 9 pages.
    #[test]
    fn the_section_shows_both_semantics_per_size() {
        let at = |experiment: &str, scheme, factor, pages, write_us| Row {
            experiment: experiment.into(),
            buffer_factor: factor,
            buffer_pages: pages,
            ..row(scheme, write_us)
        };
        let mut rows = Vec::new();
        for (factor, pages, held) in [(1.0, 9, 1500.0), (2.0, 18, 800.0)] {
            rows.push(at("floor-gc", Scheme::BaselineD, factor, pages, 1000.0));
            rows.push(at("floor-gc", Scheme::Spd, factor, pages, 500.0));
            rows.push(at("floor-gc-held", Scheme::BaselineD, factor, pages, 1000.0));
            rows.push(at("floor-gc-held", Scheme::Spd, factor, pages, held));
        }
        let s = section(&rows);
        assert!(s.starts_with("### With GC (blocking, as the main with-GC rows)\n\n| buffer pages |"), "{s}");
        assert!(s.contains("| 9 | 1 | 1000 | 500 | -50.0% | 1000 | 1500 | +50.0% |\n"), "{s}");
        assert!(s.contains("| 18 | 2 | 1000 | 500 | -50.0% | 1000 | 800 | -20.0% |\n"), "{s}");
        assert!(s.contains("At 9 pages SPD against Baseline-D is -50.0% with slots freed at eviction and +50.0% with slots held; at 18 pages -50.0% and -20.0%. They agree in sign from 18 pages (2× the floor) on. Holding slots changes Baseline-D's write latency by +0.0% and SPD's by +200.0% at 9 pages"), "{s}");
        assert!(!s.contains("Without GC"), "{s}");
    }
}
