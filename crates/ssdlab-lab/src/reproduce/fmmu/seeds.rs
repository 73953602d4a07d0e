//! Runs over seeds (issue 33 item 3): the report's tables take the mean of each run over its
//! seeds ([`mean_rows`]); its headlines take 95% intervals over the seeds' values
//! ([`amount`], [`ratio`]), as the claims ledger does.

use super::Row;
use crate::reproduce::claims::{mean_interval, ratio_interval};

/// A value with its 95% interval over seeds (none from one seed).
pub type Interval = (f64, Option<(f64, f64)>);

/// Whether two rows are the same run at different seeds.
fn same_run(a: &Row, b: &Row) -> bool {
    a.experiment == b.experiment
        && a.workload == b.workload
        && a.scheme == b.scheme
        && a.channels == b.channels
        && a.ways == b.ways
}

/// One row per run: the mean over its seeds of every value (counts rounded), seed 0, in the
/// order the runs first appear.
pub fn mean_rows(rows: &[Row]) -> Vec<Row> {
    let mut groups: Vec<Vec<&Row>> = Vec::new();
    for r in rows {
        match groups.iter_mut().find(|g| same_run(g[0], r)) {
            Some(g) => g.push(r),
            None => groups.push(vec![r]),
        }
    }
    groups.iter().map(|g| mean_of(g)).collect()
}

/// The mean row of one run's seeds.
fn mean_of(g: &[&Row]) -> Row {
    let n = g.len() as f64;
    let f = |get: fn(&Row) -> f64| g.iter().map(|r| get(r)).sum::<f64>() / n;
    let u = |get: fn(&Row) -> u64| (g.iter().map(|r| get(r) as f64).sum::<f64>() / n).round() as u64;
    Row {
        csv: String::new(),
        seed: 0,
        workload: g[0].workload.clone(),
        requests: u(|r| r.requests),
        sim_time_s: f(|r| r.sim_time_s),
        iops: f(|r| r.iops),
        bandwidth_gb_s: f(|r| r.bandwidth_gb_s),
        steady_iops: f(|r| r.steady_iops),
        util_host_link: f(|r| r.util_host_link),
        util_nand_bus: f(|r| r.util_nand_bus),
        util_chips: f(|r| r.util_chips),
        util_ftl: f(|r| r.util_ftl),
        fw_booked: f(|r| r.fw_booked),
        queue_wait_share: f(|r| r.queue_wait_share),
        map_hit_ratio: f(|r| r.map_hit_ratio),
        cmt_hits: u(|r| r.cmt_hits),
        cmt_misses: u(|r| r.cmt_misses),
        ctp_hits: u(|r| r.ctp_hits),
        tp_reads: u(|r| r.tp_reads),
        tp_writes: u(|r| r.tp_writes),
        merges: u(|r| r.merges),
        flushes: u(|r| r.flushes),
        flush_blocks_scanned: u(|r| r.flush_blocks_scanned),
        data_reads: u(|r| r.data_reads),
        data_programs: u(|r| r.data_programs),
        map_programs: u(|r| r.map_programs),
        gc_invocations: u(|r| r.gc_invocations),
        waf: f(|r| r.waf),
        ..*g[0]
    }
}

/// The seeds of `rows`, in order of first appearance.
pub fn seeds(rows: &[Row]) -> Vec<u64> {
    let mut s: Vec<u64> = Vec::new();
    for r in rows {
        if !s.contains(&r.seed) {
            s.push(r.seed);
        }
    }
    s
}

/// The runs of `scheme` on `workload` in `experiment`, one per seed.
pub fn runs<'a>(rows: &'a [Row], experiment: &str, workload: &str, scheme: &str) -> Vec<&'a Row> {
    rows.iter().filter(|r| r.experiment == experiment && r.workload == workload && r.scheme == scheme).collect()
}

/// `f` of `scheme`'s runs of `workload`: their mean with its 95% interval over the seeds.
pub fn amount(
    rows: &[Row],
    experiment: &str,
    workload: &str,
    scheme: &str,
    f: impl Fn(&Row) -> f64,
) -> Option<Interval> {
    let xs: Vec<f64> = runs(rows, experiment, workload, scheme).into_iter().map(f).collect();
    mean_interval(&xs)
}

/// `f` of `a`'s runs of `workload` over `f` of `b`'s, seed by seed: the ratio of their means
/// (Σ a / Σ b, what the mean rows give) with its 95% interval ([`ratio_interval`]). None
/// without a seed both ran or when `b`'s sum to 0.
pub fn ratio(
    rows: &[Row],
    experiment: &str,
    workload: &str,
    a: &str,
    b: &str,
    f: impl Fn(&Row) -> f64,
) -> Option<Interval> {
    let bs = runs(rows, experiment, workload, b);
    let pairs: Vec<(f64, f64)> = runs(rows, experiment, workload, a)
        .into_iter()
        .filter_map(|x| bs.iter().find(|y| y.seed == x.seed).map(|y| (f(x), f(y))))
        .collect();
    ratio_interval(&pairs)
}

/// Half the width of an interval, if there is one.
pub fn half_width(i: &Interval) -> Option<f64> {
    i.1.map(|(lo, hi)| (hi - lo) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::fmmu::{tests::row, Synthetic};

    fn at(seed: u64, scheme: &'static str, gb_s: f64) -> Row {
        Row { seed, ..row(Synthetic::SeqWrite, scheme, gb_s) }
    }

    /// Seeds 1, 2, 3 of FMMU at 5, 6, 7 GB/s and of ideal at 10, 10, 10: the mean row has
    /// 6 GB/s; the amount's interval is 6 ± 4.303 × 1 / √3 = 6 ± 2.484; FMMU over ideal is
    /// 18 / 30 = 0.6, residuals −1, 0, 1 over the mean 10: 0.6 ± 0.2484. A seed only one of
    /// them ran is left out of the ratio.
    #[test]
    fn means_and_intervals_over_seeds_by_hand() {
        let rows = [at(1, "fmmu", 5.0), at(2, "fmmu", 6.0), at(3, "fmmu", 7.0), at(1, "ideal", 10.0)]
            .into_iter()
            .chain([at(2, "ideal", 10.0), at(3, "ideal", 10.0), at(4, "ideal", 99.0)])
            .collect::<Vec<Row>>();
        let means = mean_rows(&rows);
        assert_eq!(means.len(), 2);
        assert_eq!((means[0].scheme, means[0].seed, means[0].bandwidth_gb_s), ("fmmu", 0, 6.0));
        assert_eq!(seeds(&rows), [1, 2, 3, 4]);
        let w = Synthetic::SeqWrite.name();
        let (m, i) = amount(&rows, "synthetic", w, "fmmu", |r| r.bandwidth_gb_s).unwrap();
        let (lo, hi) = i.unwrap();
        assert!((m - 6.0).abs() < 1e-12 && (lo - 3.5157).abs() < 1e-3 && (hi - 8.4843).abs() < 1e-3);
        let r = ratio(&rows, "synthetic", w, "fmmu", "ideal", |r| r.bandwidth_gb_s).unwrap();
        assert!((r.0 - 0.6).abs() < 1e-12 && (half_width(&r).unwrap() - 0.24843).abs() < 1e-4, "{r:?}");
        assert_eq!(ratio(&rows, "synthetic", w, "fmmu", "dftl-1", |r| r.bandwidth_gb_s), None);
    }
}
