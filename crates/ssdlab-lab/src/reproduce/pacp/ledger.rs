//! PACP's headline claims for the claims ledger ([`crate::reproduce::claims`]), on the
//! stand-ins (the main rows): Figure 10's means over the channel counts with their 95%
//! interval over the channel counts, Figure 8's migration shares, Figure 6's accuracies and
//! Figure 7's single workloads at the figures' drive (no interval: one run each). Figure 9's
//! claims (at which channel counts Lv is ahead) are sets, not numbers; REPORT.md lists them.

use super::{grid, pick, pick_bits, workloads_in, Row, Scheme};
use crate::reproduce::claims::{geomean_interval, mean_interval, Bound, Claim, Kind};

type Measure = fn(&Row) -> f64;
const READ: Measure = |r| r.read_us;
const WRITE: Measure = |r| r.write_us;

/// The paper's claims with this run's values.
pub fn claims(rows: &[Row]) -> Vec<Claim> {
    use Scheme::*;
    let mut c = vec![
        over_channels(rows, "Fig. 10a read latency, PACP vs Lv", Pacp, Lv, READ, -0.116),
        over_channels(rows, "Fig. 10b write latency, PACP vs Lv", Pacp, Lv, WRITE, -0.060),
        over_channels(rows, "write latency, PACP vs baseline", Pacp, Baseline, WRITE, 0.025),
        over_channels(rows, "write latency, PACP vs PACP without migration", Pacp, PacpNoMig, WRITE, 0.027),
    ];
    c.extend(migration(rows));
    for (bits, value) in [(1, 0.964), (2, 0.946), (3, 0.969)] {
        c.push(accuracy(rows, bits, value));
    }
    let fig7 = [
        ("hm_0", PacpNoMig, Baseline, -0.319),
        ("prn_0", PacpNoMig, Baseline, -0.326),
        ("web_0", PacpNoMig, Baseline, -0.493),
        ("src1_2", PacpNoMig, Baseline, 0.190),
        ("src1_2", Pacp, PacpNoMig, -0.219),
        ("hm_1", Pacp, Baseline, -0.129),
        ("hm_1", Ideal, Baseline, -0.16),
    ];
    c.extend(fig7.into_iter().map(|(w, a, b, value)| one(rows, w, a, b, value)));
    c.push(read_vs_nomig(rows));
    c
}

fn claim(claim: String, kind: Kind, paper_value: f64, bound: Bound, over: String) -> Claim {
    Claim::new("PACP", claim, kind, paper_value, bound, over)
}

/// `a` against `b` on `f`: at each channel count the stand-ins' mean under `a` over that
/// under `b`, then the mean of those ratios (as REPORT.md's Figure 10 claims), as a change.
fn over_channels(rows: &[Row], what: &str, a: Scheme, b: Scheme, f: Measure, value: f64) -> Claim {
    let ratios = super::report::channel_ratios(rows, true, a, b, f);
    let over = format!("mean over {} channel counts of the stand-ins' mean", ratios.len());
    let mut c = claim(what.into(), Kind::Change, value, Bound::Value, over);
    if let Some((m, i)) = mean_interval(&ratios) {
        c.measured = Some(m - 1.0);
        c.interval = i.map(|(lo, hi)| (lo - 1.0, hi - 1.0));
    }
    c
}

/// Figure 8: PACP's migration share at the figures' drive, largest (at most 2.7%) and mean
/// (about 1.0%) over the stand-ins.
fn migration(rows: &[Row]) -> [Claim; 2] {
    let ch = grid().figure_channels;
    let shares: Vec<f64> = workloads_in(rows, true)
        .iter()
        .filter_map(|w| pick(rows, w, Scheme::Pacp, ch))
        .map(Row::migration_share)
        .collect();
    let over = format!("{} stand-ins at {ch} channels", shares.len());
    let mut max = claim(
        "Fig. 8 migration programs / all programs, largest".into(),
        Kind::Level,
        0.027,
        Bound::AtMost,
        over.clone(),
    );
    max.measured = shares.iter().copied().reduce(f64::max);
    let mut mean =
        claim("Fig. 8 migration programs / all programs, mean".into(), Kind::Level, 0.010, Bound::Value, over);
    if let Some((m, i)) = mean_interval(&shares) {
        mean.measured = Some(m);
        mean.interval = i;
    }
    [max, mean]
}

/// Figure 6: TRH accuracy with `bits` history bits, mean over the stand-ins.
fn accuracy(rows: &[Row], bits: u8, value: f64) -> Claim {
    let acc: Vec<f64> =
        workloads_in(rows, true).iter().filter_map(|w| pick_bits(rows, w, bits)?.trh_accuracy).collect();
    let over = format!("mean over {} stand-ins at {} channels", acc.len(), grid().figure_channels);
    let mut c = claim(format!("Fig. 6 TRH accuracy, {bits}-bit history"), Kind::Level, value, Bound::Value, over);
    if let Some((m, i)) = mean_interval(&acc) {
        c.measured = Some(m);
        c.interval = i;
    }
    c
}

/// Figure 7: `a`'s read latency over `b`'s on one stand-in at the figures' drive.
fn one(rows: &[Row], w: &str, a: Scheme, b: Scheme, value: f64) -> Claim {
    let ch = grid().figure_channels;
    let what = format!("Fig. 7 {w} read latency, {} vs {}", a.name(), b.name());
    let mut c = claim(what, Kind::Change, value, Bound::Value, format!("one run at {ch} channels"));
    c.measured = pick(rows, w, a, ch)
        .zip(pick(rows, w, b, ch))
        .filter(|(_, y)| y.read_us > 0.0)
        .map(|(x, y)| x.read_us / y.read_us - 1.0);
    c
}

/// PACP against PACP without migration, read latency, geometric mean over the stand-ins at
/// the figures' drive (−7.8%).
fn read_vs_nomig(rows: &[Row]) -> Claim {
    let ch = grid().figure_channels;
    let ratios: Vec<f64> = workloads_in(rows, true)
        .iter()
        .filter_map(|w| {
            let (x, y) = (pick(rows, w, Scheme::Pacp, ch)?, pick(rows, w, Scheme::PacpNoMig, ch)?);
            (x.read_us > 0.0 && y.read_us > 0.0).then(|| x.read_us / y.read_us)
        })
        .collect();
    let over = format!("geometric mean over {} stand-ins at {ch} channels", ratios.len());
    let mut c = claim("read latency, PACP vs PACP without migration".into(), Kind::Change, -0.078, Bound::Value, over);
    if let Some((g, i)) = geomean_interval(&ratios) {
        c.measured = Some(g - 1.0);
        c.interval = i.map(|(lo, hi)| (lo - 1.0, hi - 1.0));
    }
    c
}
