//! The report's ablation section (issue 33 item 1): SPD's three parts — Die-Write, Die-Read,
//! Die-GC — each alone on Baseline-D, against Baseline-D with none of them, without and with
//! GC, with the counters that explain each row and sentences on what each part is worth.

use std::fmt::Write as _;

use super::super::{traces_in, vs, Row, Scheme};
use super::{change, pct};
use crate::reproduce::{geomean, mean};

/// Within this change of the reference on the geometric mean, a part shows no effect.
const NO_EFFECT: f64 = 0.02;

/// The rows of the table: the reference first, then each part alone, then all three.
const ROWS: [(Scheme, &str); 5] = [
    (Scheme::AblNone, "none: Baseline-D without multi-plane reads (reference)"),
    (Scheme::AblDieWrite, "Die-Write alone"),
    (Scheme::BaselineD, "Die-Read alone (= the main rows' Baseline-D)"),
    (Scheme::AblDieGc, "Die-GC alone"),
    (Scheme::Spd, "all three (= SPD)"),
];

/// The two regimes the ablation runs in: (experiment, heading).
const REGIMES: [(&str, &str); 2] = [("nogc", "Without GC"), ("gc", "With GC (blocking, the main with-GC rows)")];

/// Geometric mean over the traces of `scheme`'s `f` over the reference's (positive ratios).
fn vs_none(rows: &[Row], exp: &str, scheme: Scheme, f: fn(&Row) -> f64) -> Option<f64> {
    let v: Vec<f64> = traces_in(rows)
        .iter()
        .filter_map(|t| vs(rows, exp, t, (scheme, Scheme::AblNone), 1.0, f))
        .filter(|&x| x > 0.0)
        .collect();
    (!v.is_empty()).then(|| geomean(&v))
}

/// `scheme`'s runs in `exp` (the 1× buffer).
fn runs<'a>(rows: &'a [Row], exp: &'a str, scheme: Scheme) -> impl Iterator<Item = &'a Row> + 'a {
    rows.iter().filter(move |r| r.experiment == exp && r.scheme == scheme && r.buffer_factor == 1.0)
}

/// Mean over the traces of a share.
fn mean_of(rows: &[Row], exp: &str, scheme: Scheme, f: fn(&Row) -> f64) -> f64 {
    mean(&runs(rows, exp, scheme).map(f).collect::<Vec<_>>())
}

/// Mean share of aligned GC programs over the runs where GC ran ("–" without).
fn gc_aligned(rows: &[Row], exp: &str, scheme: Scheme) -> String {
    let v: Vec<f64> = runs(rows, exp, scheme).filter(|r| r.gc_invocations > 0).map(|r| r.gc_aligned).collect();
    if v.is_empty() {
        "–".into()
    } else {
        pct(mean(&v))
    }
}

/// The section: a table per regime and the sentences under each; nothing when the run has
/// no ablation rows.
pub fn section(rows: &[Row]) -> String {
    let mut m = String::new();
    for (exp, heading) in REGIMES {
        if runs(rows, exp, Scheme::AblNone).next().is_none() {
            continue;
        }
        let _ = writeln!(m, "### {heading}\n");
        m.push_str(&table(rows, exp));
        m.push('\n');
        m.push_str(&summary(rows, exp));
        m.push('\n');
    }
    m
}

/// One regime's table: latency changes against the reference (geometric mean over the
/// traces) and the shares that explain them (means over the traces).
fn table(rows: &[Row], exp: &str) -> String {
    let mut m = String::from(
        "| variant | parts | write latency | read latency | host programs aligned | pages read multi-plane | GC programs aligned | GC invocations | GC chip time |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for (s, parts) in ROWS {
        let gc: u64 = runs(rows, exp, s).map(|r| r.gc_invocations).sum();
        let _ = writeln!(
            m,
            "| {} | {parts} | {} | {} | {} | {} | {} | {gc} | {} |",
            s.name(),
            change(vs_none(rows, exp, s, |r| r.write_us)),
            change(vs_none(rows, exp, s, |r| r.read_us)),
            pct(mean_of(rows, exp, s, |r| r.user_cases[3])),
            pct(mean_of(rows, exp, s, |r| r.multiplane_reads)),
            gc_aligned(rows, exp, s),
            change(vs_none(rows, exp, s, |r| r.gc_cost_s)),
        );
    }
    m
}

/// A part's name for the sentences.
fn part(s: Scheme) -> &'static str {
    match s {
        Scheme::AblDieWrite => "Die-Write",
        Scheme::BaselineD => "Die-Read",
        Scheme::AblDieGc => "Die-GC",
        _ => "all three",
    }
}

/// The sentences under a regime's table: each part's change of write latency, the largest,
/// the three together against their product, and for a part within [`NO_EFFECT`], the counter
/// that says why.
fn summary(rows: &[Row], exp: &str) -> String {
    let write = |s: Scheme| vs_none(rows, exp, s, |r| r.write_us);
    let parts = [Scheme::AblDieWrite, Scheme::BaselineD, Scheme::AblDieGc];
    let alone: Vec<String> = parts.iter().map(|&s| format!("{} alone {}", part(s), change(write(s)))).collect();
    let mut m = format!(
        "Write latency against none of the parts: {}; all three {}.",
        alone.join(", "),
        change(write(Scheme::Spd))
    );
    let measured: Vec<(Scheme, f64)> = parts.iter().filter_map(|&s| Some((s, write(s)?))).collect();
    if let Some(&(s, x)) = measured.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
        let _ = write!(m, " The largest single part is {} ({}).", part(s), change(Some(x)));
    }
    if measured.len() == parts.len() {
        let product: f64 = measured.iter().map(|p| p.1).product();
        let _ = write!(
            m,
            " Alone, the three multiply to {}, against {} together.",
            change(Some(product)),
            change(write(Scheme::Spd))
        );
    }
    for &(s, x) in &measured {
        if (x - 1.0).abs() <= NO_EFFECT {
            let _ =
                write!(m, " {} shows no effect (within {:.0}%): {}.", part(s), NO_EFFECT * 100.0, why(rows, exp, s));
        } else if x > 1.0 {
            let _ = write!(
                m,
                " {} alone makes writes slower ({}, reads {}): GC chip time {}, {} of GC programs aligned, {} of host programs.",
                part(s),
                change(Some(x)),
                change(vs_none(rows, exp, s, |r| r.read_us)),
                change(vs_none(rows, exp, s, |r| r.gc_cost_s)),
                gc_aligned(rows, exp, s),
                pct(mean_of(rows, exp, s, |r| r.user_cases[3]))
            );
        }
    }
    m.push('\n');
    m
}

/// The counter behind a part that shows no effect.
fn why(rows: &[Row], exp: &str, s: Scheme) -> String {
    match s {
        Scheme::BaselineD => format!(
            "multi-plane reads serve {} of the pages read with it, against {} without (under all three: {}), and reads change by {}",
            pct(mean_of(rows, exp, s, |r| r.multiplane_reads)),
            pct(mean_of(rows, exp, Scheme::AblNone, |r| r.multiplane_reads)),
            pct(mean_of(rows, exp, Scheme::Spd, |r| r.multiplane_reads)),
            change(vs_none(rows, exp, s, |r| r.read_us))
        ),
        Scheme::AblDieGc => {
            let gc: u64 = runs(rows, exp, s).map(|r| r.gc_invocations).sum();
            format!(
                "{gc} Die-GC invocations over the traces, {} of GC programs aligned, against {} without it",
                gc_aligned(rows, exp, s),
                gc_aligned(rows, exp, Scheme::AblNone)
            )
        }
        _ => format!(
            "{} of host programs aligned, against {} without it",
            pct(mean_of(rows, exp, s, |r| r.user_cases[3])),
            pct(mean_of(rows, exp, Scheme::AblNone, |r| r.user_cases[3]))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::spd::tests::row;

    /// One trace without GC: none writes in 200 µs, Die-Write alone 100 (−50.0%), Die-Read
    /// alone 198 (−1.0%, no effect: it served 10% of the pages read multi-plane, none 0%),
    /// Die-GC alone 200 (+0.0%, no effect: no GC ran), all three 90 (−55.0%). Product of the
    /// three alone: 0.5 × 0.99 × 1 = 0.495, −50.5%.
    #[test]
    fn the_section_computes_each_part_against_none() {
        let mut read = row(Scheme::BaselineD, 198.0);
        read.multiplane_reads = 0.1;
        let rows = [
            row(Scheme::AblNone, 200.0),
            row(Scheme::AblDieWrite, 100.0),
            read,
            row(Scheme::AblDieGc, 200.0),
            row(Scheme::Spd, 90.0),
        ];
        let s = section(&rows);
        assert!(s.starts_with("### Without GC\n\n| variant |"), "{s}");
        assert!(
            s.contains("| abl-die-write | Die-Write alone | -50.0% | +0.0% | 100.0% | 0.0% | – | 0 | – |\n"),
            "{s}"
        );
        assert!(
            s.contains("Die-Write alone -50.0%, Die-Read alone -1.0%, Die-GC alone +0.0%; all three -55.0%."),
            "{s}"
        );
        assert!(s.contains("The largest single part is Die-Write (-50.0%)."), "{s}");
        assert!(s.contains("Alone, the three multiply to -50.5%, against -55.0% together."), "{s}");
        assert!(s.contains("Die-Read shows no effect (within 2%): multi-plane reads serve 10.0% of the pages read with it, against 0.0% without (under all three: 0.0%)"), "{s}");
        assert!(s.contains("Die-GC shows no effect (within 2%): 0 Die-GC invocations"), "{s}");
        assert!(!s.contains("With GC"), "no gc rows: {s}");
    }
}
