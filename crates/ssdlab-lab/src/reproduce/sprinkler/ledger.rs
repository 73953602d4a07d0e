//! Sprinkler's headline claims for the claims ledger ([`crate::reproduce::claims`]): the rows
//! of REPORT.md's two claims tables and its floors table (the check `reproduce` prints), on
//! the main workloads at 64 chips, each computed as the report computes it: bandwidth ratios
//! as geometric means over the workloads, latency, stall and transaction reductions and VAS's
//! FLP share as arithmetic means, idleness as the ratio of SPK3's mean to VAS's, and the
//! "every workload" and "sometimes" claims on the least ratio over the workloads.

use super::report::{fig10_ratios, min_max, reduction_vs_vas, workload_mean, Fig10Ratios};
use super::{geomean, pick, workload_names, Row};
use crate::reproduce::claims::{explain, geomean_interval, mean_interval, ratio_interval, Bound, Claim, Kind};

/// The claim on FARO's share: SPK3 (RIOS + FARO) above SPK2 (RIOS alone).
const FARO: &str = "Fig. 10 bandwidth, SPK3 (RIOS + FARO) above SPK2 (RIOS alone)";

/// The paper's claims with this run's values, each not reproduced with its measured cause.
pub fn claims(rows: &[Row]) -> Vec<Claim> {
    let mut claims = measured(rows);
    explain(&mut claims, |c| cause(rows, c));
    claims
}

/// The paper's claims with this run's values.
fn measured(rows: &[Row]) -> Vec<Claim> {
    let r = fig10_ratios(rows);
    let faro: Vec<f64> = workload_names(rows, "workloads", 64)
        .iter()
        .filter_map(|w| {
            let (k3, k2) = (pick(rows, "workloads", w, "spk3", 64)?, pick(rows, "workloads", w, "spk2", 64)?);
            (k2.bandwidth_mb_s > 0.0).then(|| k3.bandwidth_mb_s / k2.bandwidth_mb_s)
        })
        .collect();
    vec![
        bandwidth(&r.vas, "Fig. 10 bandwidth, SPK3 vs VAS", 2.2, Bound::AtLeast),
        bandwidth(&r.pas, "Fig. 10 bandwidth, SPK3 vs PAS", 1.8, Bound::Value),
        latency(&r),
        stall(&r),
        least(&r.spk1_pas, "Fig. 10 SPK1 below PAS on some workloads (SPK1 / PAS bandwidth)", 1.0, Bound::Below),
        least(&r.spk2_over_best, "Fig. 10 SPK2 above VAS and PAS on every workload (bandwidth)", 1.0, Bound::Above),
        least(&r.vas, "Fig. 10 bandwidth, SPK3 vs VAS, every workload (≥ 2.2×)", 2.2, Bound::Above),
        least(&r.pas, "Fig. 10 bandwidth, SPK3 vs PAS, every workload (≥ 1.8×)", 1.8, Bound::Above),
        idleness(rows, "Fig. 11a inter-chip idleness, SPK3 vs VAS", |r| r.inter_chip_idleness, -0.461),
        idleness(rows, "Fig. 11b intra-chip idleness, SPK3 vs VAS", |r| r.intra_chip_idleness, -0.235),
        transactions(rows),
        vas_flp(rows),
        bandwidth(&faro, FARO, 1.0, Bound::Above),
    ]
}

/// Why a claim is not reproduced, from the run's counters (the main workloads at 64 chips).
fn cause(rows: &[Row], c: &Claim) -> Option<String> {
    let avg = |s: &str, f: &dyn Fn(&Row) -> f64| workload_mean(rows, s, f);
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    let multi = |r: &Row| r.flp_pages[2] + r.flp_pages[3];
    let spk2 = main_runs(rows, "spk2").filter(|r| r.requests > 0);
    let per_request: Vec<f64> = spk2.map(|r| r.page_ops as f64 / r.requests as f64).collect();
    let pages = format!(
        "requests have {:.1} pages on average against 64 chips, so under the channel-first static allocation a request rarely holds two pages of one chip",
        crate::reproduce::mean(&per_request)
    );
    let r = fig10_ratios(rows);
    let least_of = |xs: &[f64]| xs.iter().zip(&r.names).min_by(|a, b| a.0.total_cmp(b.0)).map(|(x, w)| (*x, w.clone()));
    let bw = |w: &str, s: &str| pick(rows, "workloads", w, s, 64).map_or(0.0, |r| r.bandwidth_mb_s);
    Some(match c.claim.as_str() {
        "Fig. 10 bandwidth, SPK3 vs PAS" => {
            format!("PAS reaches {:.2}× VAS (geometric mean), where the paper's floors (2.2× / 1.8×) put it near 1.22×", geomean(&r.pas_vas))
        }
        "Fig. 10 SPK1 below PAS on some workloads (SPK1 / PAS bandwidth)" => format!(
            "SPK1 serves {} of its pages in multi-plane commands against PAS's {}; its smallest gain over PAS is {:.2}× ({})",
            pct(avg("spk1", &multi)),
            pct(avg("pas", &multi)),
            min_max(&r.spk1_pas).0,
            least_of(&r.spk1_pas).map_or(String::new(), |(_, w)| w)
        ),
        "Fig. 10 bandwidth, SPK3 vs VAS, every workload (≥ 2.2×)" => {
            let (x, w) = least_of(&r.vas)?;
            let u = |s: &str| pick(rows, "workloads", &w, s, 64).map_or(0.0, |r| r.plane_utilization);
            format!("least on {w} ({x:.2}×): VAS already keeps {} of the planes busy there, SPK3 {}", pct(u("vas")), pct(u("spk3")))
        }
        "Fig. 10 bandwidth, SPK3 vs PAS, every workload (≥ 1.8×)" => {
            let (x, w) = least_of(&r.pas)?;
            format!("least on {w} ({x:.2}×), where PAS already reaches {:.2}× VAS", bw(&w, "pas") / bw(&w, "vas"))
        }
        "Fig. 11b intra-chip idleness, SPK3 vs VAS" | "Fig. 16 transactions, SPK3 vs VAS" | FARO => format!(
            "multi-plane commands serve {} of SPK3's pages (SPK2, RIOS alone: {}); {pages}",
            pct(avg("spk3", &multi)),
            pct(avg("spk2", &multi))
        ),
        "Fig. 14 VAS pages served with FLP (PAL1 only)" => format!(
            "VAS's requests committed in queue order still meet on a chip: die-interleaved {}, multi-plane {}, both {} of its pages",
            pct(avg("vas", &|r| r.flp_pages[1])),
            pct(avg("vas", &|r| r.flp_pages[2])),
            pct(avg("vas", &|r| r.flp_pages[3]))
        ),
        _ => return None,
    })
}

fn claim(what: &str, kind: Kind, paper_value: f64, bound: Bound, over: String) -> Claim {
    Claim::new("Sprinkler", what, kind, paper_value, bound, over)
}

/// A bandwidth ratio: the geometric mean over the workloads (the report's [`geomean`]), with
/// its interval where every ratio is a positive number.
fn bandwidth(ratios: &[f64], what: &str, value: f64, bound: Bound) -> Claim {
    let over = format!("geometric mean over {} workloads", ratios.len());
    let mut c = claim(what, Kind::Ratio, value, bound, over);
    if ratios.iter().all(|r| r.is_finite() && *r > 0.0) {
        if let Some((g, i)) = geomean_interval(ratios) {
            c.measured = Some(g);
            c.interval = i;
        }
    } else {
        c.measured = Some(geomean(ratios));
    }
    c
}

/// The least of `ratios` over the workloads: a claim on every workload (above the paper's
/// value on each) or on some (below it on one at least).
fn least(ratios: &[f64], what: &str, value: f64, bound: Bound) -> Claim {
    let mut c = claim(what, Kind::Ratio, value, bound, format!("least over {} workloads", ratios.len()));
    c.measured = (!ratios.is_empty()).then(|| min_max(ratios).0);
    c
}

/// SPK3's device latency against VAS's, paper 59.1–92.3% lower over its workloads: the mean
/// over ours, with their range.
fn latency(r: &Fig10Ratios) -> Claim {
    let changes: Vec<f64> = r.latency.iter().map(|l| -l).collect();
    let (lo, hi) = min_max(&changes);
    let over = if changes.is_empty() {
        "mean over 0 workloads".into()
    } else {
        format!("mean over {} workloads ({:+.1}% to {:+.1}%)", changes.len(), hi * 100.0, lo * 100.0)
    };
    let range = Bound::Range { lo: -0.591, hi: -0.923 };
    let mut c = claim("Fig. 10 device latency, SPK3 vs VAS", Kind::Change, -0.757, range, over);
    if let Some((m, i)) = mean_interval(&changes) {
        c.measured = Some(m);
        c.interval = i;
    }
    c
}

/// SPK3's queue stall over VAS's, mean over the workloads where VAS stalls (the report's
/// "% lower (mean)").
fn stall(r: &Fig10Ratios) -> Claim {
    let over = format!("mean over {} workloads where VAS stalls", r.stall.len());
    let mut c = claim("Fig. 10 queue stall, SPK3 vs VAS", Kind::Change, -0.86, Bound::Value, over);
    if let Some((m, i)) = mean_interval(&r.stall) {
        c.measured = Some(m - 1.0);
        c.interval = i.map(|(lo, hi)| (lo - 1.0, hi - 1.0));
    }
    c
}

/// SPK3's mean of `f` over the workloads against VAS's (the report's [`workload_mean`]s), as
/// a change, with the interval of that ratio over the workloads.
fn idleness(rows: &[Row], what: &str, f: fn(&Row) -> f64, value: f64) -> Claim {
    let pairs: Vec<(f64, f64)> = workload_names(rows, "workloads", 64)
        .iter()
        .filter_map(|w| Some((f(pick(rows, "workloads", w, "spk3", 64)?), f(pick(rows, "workloads", w, "vas", 64)?))))
        .collect();
    let over = format!("ratio of the means over {} workloads", pairs.len());
    let mut c = claim(what, Kind::Change, value, Bound::Value, over);
    let vas = workload_mean(rows, "vas", &f);
    if !pairs.is_empty() && vas > 0.0 {
        c.measured = Some(workload_mean(rows, "spk3", &f) / vas - 1.0);
        c.interval = ratio_interval(&pairs).and_then(|(_, i)| i).map(|(lo, hi)| (lo - 1.0, hi - 1.0));
    }
    c
}

/// The main runs at 64 chips under scheduler `s`: the rows [`workload_mean`] averages.
fn main_runs<'a>(rows: &'a [Row], s: &'a str) -> impl Iterator<Item = &'a Row> {
    rows.iter().filter(move |r| r.experiment == "workloads" && r.chips == 64 && r.scheduler == s)
}

/// Figure 16: SPK3's transactions against VAS's on the same workload, mean over the workloads
/// (the report's "transactions saved vs VAS"), as a change.
fn transactions(rows: &[Row]) -> Claim {
    let saved = |r: &Row| reduction_vs_vas(rows, r).unwrap_or(0.0);
    let changes: Vec<f64> = main_runs(rows, "spk3").map(|r| -saved(r)).collect();
    let over = format!("mean over {} workloads", changes.len());
    let mut c = claim("Fig. 16 transactions, SPK3 vs VAS", Kind::Change, -0.502, Bound::Value, over);
    if let Some((_, i)) = mean_interval(&changes) {
        c.measured = Some(-workload_mean(rows, "spk3", &saved));
        c.interval = i;
    }
    c
}

/// Figure 14: the share of the pages VAS serves in any FLP transaction (die-interleaved,
/// multi-plane or both: the report's three values, summed), mean over the workloads; the
/// paper has PAL1 only, 1–3%.
fn vas_flp(rows: &[Row]) -> Claim {
    let flp = |r: &Row| r.flp_pages[1] + r.flp_pages[2] + r.flp_pages[3];
    let shares: Vec<f64> = main_runs(rows, "vas").map(flp).collect();
    let over = format!("mean over {} workloads (die-interleaved + multi-plane + both)", shares.len());
    let range = Bound::Range { lo: 0.01, hi: 0.03 };
    let mut c = claim("Fig. 14 VAS pages served with FLP (PAL1 only)", Kind::Level, 0.02, range, over);
    if let Some((_, i)) = mean_interval(&shares) {
        let avg = |k: usize| workload_mean(rows, "vas", &|r| r.flp_pages[k]);
        c.measured = Some(avg(1) + avg(2) + avg(3));
        c.interval = i;
    }
    c
}
