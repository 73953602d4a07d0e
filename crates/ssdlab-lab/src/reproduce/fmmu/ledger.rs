//! FMMU's headline claims for the claims ledger ([`crate::reproduce::claims`]), computed as
//! REPORT.md's claims table computes them ([`super::report`]). Random writes are taken before
//! GC triggers, the regime the paper's "limited by NAND chips" fits (REPORT.md gives the
//! GC-active value beside it). One run per scheme and workload: no intervals.

use super::report::{elapsed_ratio, of_ideal, synthetic};
use super::{pick, Row, Synthetic, SYNTHETIC};
use crate::reproduce::claims::{Bound, Claim, Kind};

fn claim(what: &str, kind: Kind, paper_value: f64, bound: Bound, measured: Option<f64>, over: &str) -> Claim {
    Claim { measured, ..Claim::new("FMMU", what, kind, paper_value, bound, over) }
}

fn amount(what: &str, value: f64, unit: &str, measured: Option<f64>) -> Claim {
    Claim { unit: unit.into(), ..claim(what, Kind::Amount, value, Bound::Value, measured, "ideal's run") }
}

/// The paper's claims with this run's values.
pub fn claims(rows: &[Row]) -> Vec<Claim> {
    use Synthetic::*;
    let ideal = |w| synthetic(rows, w, "ideal");
    let mut c = vec![
        amount("Fig. 11 ideal sequential write", 5.5, "GB/s", ideal(SeqWrite)),
        amount("Fig. 11 ideal sequential read", 9.2, "GB/s", ideal(SeqRead)),
        amount("Fig. 11 ideal random write (before GC)", 283.0, "KIOPS", ideal(RandWrite)),
        amount("Fig. 11 ideal random read", 1165.0, "KIOPS", ideal(RandRead)),
    ];
    for family in ["dftl", "cdftl"] {
        let what =
            format!("Fig. 11 {} gains from 1 to 4 cores, smallest gain over the workloads", family.to_uppercase());
        c.push(claim(&what, Kind::Ratio, 1.0, Bound::Above, smallest_gain(rows, family), "5 synthetic workloads"));
    }
    let cdftl4 = of_ideal(rows, RandWrite, "cdftl-4");
    c.push(claim(
        "Fig. 11 CDFTL-4 random write (before GC), share of ideal",
        Kind::Level,
        0.88,
        Bound::Value,
        cdftl4,
        "one run each",
    ));
    let fmmu_least = SYNTHETIC.iter().map(|&w| of_ideal(rows, w, "fmmu")).collect::<Option<Vec<f64>>>();
    let least = fmmu_least.and_then(|v| v.into_iter().reduce(f64::min));
    c.push(claim(
        "Fig. 11 FMMU against ideal, least share over the workloads",
        Kind::Level,
        0.90,
        Bound::AtLeast,
        least,
        "5 synthetic workloads",
    ));
    let util = pick(rows, "synthetic", RandRead.name(), "fmmu").map(|r| r.util_ftl);
    c.push(claim("Fig. 12 FMMU's FTL utilization on random read", Kind::Level, 0.17, Bound::Value, util, "one run"));
    let seq = |s: &str| synthetic(rows, SeqRead, s);
    let over = |a: Option<f64>, b: Option<f64>| a.zip(b).filter(|(_, b)| *b > 0.0).map(|(a, b)| a / b);
    c.push(claim(
        "Fig. 11 sequential read, DFTL over CDFTL at 1 core",
        Kind::Ratio,
        1.0,
        Bound::Above,
        over(seq("dftl-1"), seq("cdftl-1")),
        "one run each",
    ));
    c.push(claim(
        "Fig. 11 sequential read, DFTL over CDFTL at 4 cores",
        Kind::Ratio,
        1.0,
        Bound::Below,
        over(seq("dftl-4"), seq("cdftl-4")),
        "one run each",
    ));
    let traces = [
        ("msr-rw20", "dftl-1", 10.63, "Fig. 13 MSR_proj (msr-rw20 here), DFTL-1 time vs ideal"),
        ("msr-rw20", "cdftl-4", 1.47, "Fig. 13 MSR_proj (msr-rw20 here), CDFTL-4 time vs ideal"),
        ("msr-rw20", "fmmu", 1.0, "Fig. 13 MSR_proj (msr-rw20 here), FMMU time vs ideal"),
        ("msr-hm0", "dftl-4", 3.35, "Fig. 13 MSR_hm (msr-hm0 here), DFTL-4 time vs ideal"),
        ("msr-hm0", "cdftl-4", 1.32, "Fig. 13 MSR_hm (msr-hm0 here), CDFTL-4 time vs ideal"),
    ];
    for (t, s, value, what) in traces {
        c.push(claim(what, Kind::Ratio, value, Bound::Value, elapsed_ratio(rows, t, s), "one replay each"));
    }
    let reads = |s: &str| pick(rows, "trace", "websearch", s).map(|r| (r.data_reads + r.tp_reads) as f64);
    for s in ["cdftl-1", "fmmu"] {
        let what = format!("Fig. 13 WebSearch, DFTL-1's flash reads vs {s}");
        let more = reads("dftl-1").zip(reads(s)).filter(|(_, x)| *x > 0.0).map(|(d, x)| d / x - 1.0);
        c.push(claim(&what, Kind::Change, 0.08, Bound::Value, more, "one replay each"));
    }
    let top =
        rows.iter().filter(|r| r.experiment == "scaling" && r.scheme == "fmmu").max_by_key(|r| r.channels * r.ways);
    let top = Claim {
        unit: "MIOPS".into(),
        ..claim(
            "Fig. 14 FMMU at 32 × 8, map hits",
            Kind::Amount,
            4.3,
            Bound::Value,
            top.map(|r| r.iops / 1e6),
            "the largest drive run",
        )
    };
    c.push(top);
    c
}

/// The smallest 4-core over 1-core gain of `family` over the synthetic workloads (None unless
/// every workload ran both).
fn smallest_gain(rows: &[Row], family: &str) -> Option<f64> {
    SYNTHETIC
        .iter()
        .map(|&w| {
            let (one, four) =
                (synthetic(rows, w, &format!("{family}-1"))?, synthetic(rows, w, &format!("{family}-4"))?);
            (one > 0.0).then(|| four / one)
        })
        .collect::<Option<Vec<f64>>>()
        .and_then(|v| v.into_iter().reduce(f64::min))
}
