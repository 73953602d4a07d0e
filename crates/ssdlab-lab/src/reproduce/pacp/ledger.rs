//! PACP's headline claims for the claims ledger ([`crate::reproduce::claims`]), on the
//! stand-ins (the main rows): Figure 10's means over the channel counts with their 95%
//! interval over the channel counts, Figure 8's migration shares, Figure 6's accuracies and
//! Figure 7's single workloads at the figures' drive (no interval: one run each). Figure 9's
//! claims (at which channel counts Lv is ahead) are sets, not numbers; REPORT.md lists them.

use super::{fig7_ratio, grid, pick, pick_bits, workloads_in, Row, Scheme};
use crate::reproduce::claims::{explain, geomean_interval, mean_interval, Bound, Claim, Kind};

type Measure = fn(&Row) -> f64;
const READ: Measure = |r| r.read_us;
const WRITE: Measure = |r| r.write_us;

/// The paper's claims with this run's values; `rho` is the stand-ins' mixed pages'
/// persistence (`type_persistence`).
pub fn claims(rows: &[Row], rho: f64) -> Vec<Claim> {
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
    explain(&mut c, |claim| cause(rows, &claim.claim, rho));
    c
}

/// The measured cause of a claim not reproduced, from the run's counters (None where the run
/// lacks the rows).
fn cause(rows: &[Row], claim: &str, rho: f64) -> Option<String> {
    if let Some(rest) = claim.strip_prefix("Fig. 7 ") {
        return fig7_cause(rows, rest.split(' ').next()?);
    }
    if claim.contains("TRH accuracy") {
        return Some(accuracy_cause(rho));
    }
    if claim.contains("write latency") {
        return write_cause(rows);
    }
    if claim.contains("migration") {
        return migration_cause(rows);
    }
    if claim.contains("read latency, PACP vs Lv") {
        return lv_cause(rows);
    }
    None
}

/// A share as a percentage, one decimal.
fn pc(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// A read-latency ratio on one stand-in at the figures' drive (seed 1, aged) as a change.
fn vs(rows: &[Row], w: &str, a: Scheme, b: Scheme) -> String {
    let ch = grid().figure_channels;
    let r = pick(rows, w, a, ch).zip(pick(rows, w, b, ch)).filter(|(_, y)| y.read_us > 0.0);
    r.map_or("–".into(), |(x, y)| format!("{:+.1}%", (x.read_us / y.read_us - 1.0) * 100.0))
}

/// Figure 7 on `w`: the interference there was to remove (Ideal, chips busy), what the
/// partition alone and TRH's placement gave, where the writes went, and the other drives.
fn fig7_cause(rows: &[Row], w: &str) -> Option<String> {
    use Scheme::*;
    let ch = grid().figure_channels;
    let (base, nomig, pacp) = (pick(rows, w, Baseline, ch)?, pick(rows, w, PacpNoMig, ch)?, pick(rows, w, Pacp, ch)?);
    let share = |r: &Row, n: u64| if r.host_page_writes == 0 { 0.0 } else { n as f64 / r.host_page_writes as f64 };
    let on_read = |r: Option<&Row>| r.and_then(|r| r.writes_on_read).map_or("–".into(), pc);
    let fresh = super::RunOf { drive: super::Drive::Fresh, ..super::MAIN };
    let fresh_nomig = super::pick_run(rows, w, PacpNoMig, ch, fresh).zip(super::pick_run(rows, w, Baseline, ch, fresh));
    let fresh = fresh_nomig.map_or("–".into(), |(x, y)| format!("{:+.1}%", (x.read_us / y.read_us - 1.0) * 100.0));
    Some(format!(
        "seed 1 at {ch} ch: the baseline's chips are busy {} and Ideal reads {}: that is the interference to remove; the partition alone gives {}, TRH's placement {} (it puts {} of page writes on Read channels against {} for the partition alone: {} have no history, {} are predicted read); migration {} ({} pages by GC, {} at idle); preloaded {}, fresh drive {}",
        pc(base.chip_util),
        vs(rows, w, Ideal, Baseline),
        vs(rows, w, PacpPartition, Baseline),
        vs(rows, w, PacpNoMig, Baseline),
        on_read(Some(nomig)),
        on_read(pick(rows, w, PacpPartition, ch)),
        pc(share(nomig, nomig.writes_no_history)),
        pc(share(nomig, nomig.writes_predicted_read)),
        vs(rows, w, Pacp, Baseline),
        pacp.migrated_gc,
        pacp.migrated_idle,
        vs(rows, w, PacpNoMigPreload, Baseline),
        fresh,
    ))
}

/// TRH accuracy: what the stand-ins' page classes and the mixed pages' persistence set it
/// at (with a 1-bit history).
fn accuracy_cause(rho: f64) -> String {
    let right = super::mixed_right(rho);
    format!(
        "set by the stand-ins' page classes: a read-only or write-only page is always predicted right once it has a history, a mixed page ({} of requests, half reads, persistence ρ = {rho:.3} fitted to the shipped MSR excerpts) {} of the time with a 1-bit history, so accuracy ≈ {}",
        pc(super::MIXED_SHARE),
        pc(right),
        pc(1.0 - super::MIXED_SHARE * (1.0 - right))
    )
}

/// Migration shares: how much GC ran and how many pages it moved.
fn migration_cause(rows: &[Row]) -> Option<String> {
    let ch = grid().figure_channels;
    let per: Vec<String> = workloads_in(rows, true)
        .iter()
        .filter_map(|w| {
            let p = pick(rows, w, Scheme::Pacp, ch)?;
            Some(format!(
                "{w} {} GC invocations, {} + {} pages migrated",
                p.gc_invocations, p.migrated_gc, p.migrated_idle
            ))
        })
        .collect();
    (!per.is_empty()).then(|| format!("PACP at {ch} ch (GC / idle): {}", per.join("; ")))
}

/// Write latency: GC programs under each scheme (concentrating writes on fewer channels).
fn write_cause(rows: &[Row]) -> Option<String> {
    let ch = grid().figure_channels;
    let gc = |s| -> Option<u64> {
        let v: Vec<u64> =
            workloads_in(rows, true).iter().filter_map(|w| Some(pick(rows, w, s, ch)?.gc_programs)).collect();
        (!v.is_empty()).then(|| v.iter().sum())
    };
    let (b, n, l, p) = (gc(Scheme::Baseline)?, gc(Scheme::PacpNoMig)?, gc(Scheme::Lv)?, gc(Scheme::Pacp)?);
    Some(format!(
        "GC programs over the stand-ins at {ch} ch: baseline {b}, Lv {l}, PACP without migration {n}, PACP {p}"
    ))
}

/// PACP against Lv: the ratio at each channel count.
fn lv_cause(rows: &[Row]) -> Option<String> {
    let chans = super::channels_in(rows);
    let per: Vec<String> = chans
        .iter()
        .filter_map(|&c| {
            let (x, y) = (
                super::mean_over(rows, true, Scheme::Pacp, c, READ)?,
                super::mean_over(rows, true, Scheme::Lv, c, READ)?,
            );
            Some(format!("{c} ch {:+.1}%", (x / y - 1.0) * 100.0))
        })
        .collect();
    (!per.is_empty()).then(|| format!("PACP vs Lv, stand-ins' mean read latency: {}", per.join(", ")))
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

/// Figure 7: `a`'s read latency over `b`'s on one stand-in at the figures' drive, mean over
/// the seeds ([`fig7_ratio`]).
fn one(rows: &[Row], w: &str, a: Scheme, b: Scheme, value: f64) -> Claim {
    let ch = grid().figure_channels;
    let what = format!("Fig. 7 {w} read latency, {} vs {}", a.name(), b.name());
    let Some(r) = fig7_ratio(rows, w, a, b) else {
        return claim(what, Kind::Change, value, Bound::Value, format!("at {ch} channels"));
    };
    let over = format!("mean over {} seed(s) at {ch} channels", r.seeds);
    let mut c = claim(what, Kind::Change, value, Bound::Value, over);
    c.measured = Some(r.mean - 1.0);
    c.interval = r.interval.map(|(lo, hi)| (lo - 1.0, hi - 1.0));
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
