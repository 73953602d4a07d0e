//! A trace's summary: request counts, the read/write/trim mix, mean sizes, span and highest
//! address ([`Summary`], [`summarize`], [`Trace::summary`]), and how its arrivals spread over
//! time: distinct timestamps and the inter-arrival gaps' mean and coefficient of variation
//! ([`Arrivals`], which `ssdlab`'s warning about shared arrival times uses too). The numbers
//! only: `ssdlab trace info` (in `ssdlab-cli`) prints them.

use crate::{Op, Record, Trace};

/// Request counts, mix and sizes of a trace, and how its arrivals spread over time.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Summary {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    /// Reads as a percentage of all requests.
    pub read_pct: f64,
    pub avg_size_bytes: f64,
    pub avg_read_bytes: f64,
    pub avg_write_bytes: f64,
    /// Last arrival minus first arrival.
    pub span_ps: u64,
    /// Largest `offset_bytes + size_bytes`.
    pub max_address_bytes: u64,
    pub arrivals: Arrivals,
}

/// How a trace's arrival times spread: how many differ, and how bursty the gaps between
/// them are.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Arrivals {
    /// Different arrival times.
    pub distinct: u64,
    /// Share of the requests whose arrival time another request shares (0 to 1).
    pub shared_share: f64,
    /// Mean gap between consecutive arrivals (in time order), ps: span / (requests − 1).
    pub mean_gap_ps: f64,
    /// Coefficient of variation of those gaps (standard deviation / mean, the population
    /// deviation): 1 for Poisson arrivals, 0 for evenly spaced ones, above 1 for bursts.
    /// None with fewer than two requests or all at one time.
    pub gap_cv: Option<f64>,
}

impl Arrivals {
    /// Of arrival times in any order.
    pub fn of(arrivals_ps: impl Iterator<Item = u64>) -> Arrivals {
        let mut t: Vec<u64> = arrivals_ps.collect();
        t.sort_unstable();
        let n = t.len();
        let (mut distinct, mut shared) = (0u64, 0u64);
        let mut i = 0;
        while i < n {
            let run = t[i..].iter().take_while(|&&x| x == t[i]).count();
            distinct += 1;
            shared += if run > 1 { run as u64 } else { 0 };
            i += run;
        }
        let gaps = n.saturating_sub(1) as f64;
        let span = if n == 0 { 0 } else { t[n - 1] - t[0] };
        let mean = if n < 2 { 0.0 } else { span as f64 / gaps };
        let var = t.windows(2).map(|w| ((w[1] - w[0]) as f64 - mean).powi(2)).sum::<f64>() / gaps.max(1.0);
        Arrivals {
            distinct,
            shared_share: if n == 0 { 0.0 } else { shared as f64 / n as f64 },
            mean_gap_ps: mean,
            gap_cv: (mean > 0.0).then(|| var.sqrt() / mean),
        }
    }
}

/// The [`Summary`] of `records`.
pub fn summarize(records: &[Record]) -> Summary {
    let mut s = Summary::default();
    let (mut total, mut read, mut written) = (0u128, 0u128, 0u128);
    let (mut first_ps, mut last_ps) = (u64::MAX, 0);
    for r in records {
        let size = u128::from(r.size_bytes);
        match r.op {
            Op::Read => (s.reads, read) = (s.reads + 1, read + size),
            Op::Write => (s.writes, written) = (s.writes + 1, written + size),
            Op::Trim => s.trims += 1,
        }
        total += size;
        first_ps = first_ps.min(r.arrival_ps);
        last_ps = last_ps.max(r.arrival_ps);
        s.max_address_bytes = s.max_address_bytes.max(r.offset_bytes.saturating_add(r.size_bytes));
    }
    let avg = |bytes: u128, n: u64| if n == 0 { 0.0 } else { bytes as f64 / n as f64 };
    s.requests = records.len() as u64;
    s.read_pct = avg(u128::from(s.reads) * 100, s.requests);
    s.avg_size_bytes = avg(total, s.requests);
    s.avg_read_bytes = avg(read, s.reads);
    s.avg_write_bytes = avg(written, s.writes);
    s.span_ps = last_ps.saturating_sub(first_ps);
    s.arrivals = Arrivals::of(records.iter().map(|r| r.arrival_ps));
    s
}

impl Trace {
    pub fn summary(&self) -> Summary {
        summarize(&self.records)
    }
}

#[cfg(test)]
mod tests {
    use super::Arrivals;

    /// Arrivals 30, 0, 10, 0 ns: three times (0, 10, 30), two of the four requests share 0.
    /// Gaps in time order 0, 10, 20 ns: mean 10 ns (span 30 over 3 gaps), population
    /// variance ((0 − 10)² + 0 + (20 − 10)²) / 3 = 200/3 ns², CV √(200/3) / 10 = 0.8165.
    #[test]
    fn arrivals_count_distinct_times_and_the_spread_of_the_gaps() {
        let a = Arrivals::of([30_000u64, 0, 10_000, 0].into_iter());
        assert_eq!((a.distinct, a.shared_share, a.mean_gap_ps), (3, 0.5, 10_000.0));
        assert!((a.gap_cv.unwrap() - (200.0f64 / 3.0).sqrt() / 10.0).abs() < 1e-12, "{a:?}");
        // Evenly spaced: CV 0; all at one time or a single request: no CV.
        assert_eq!(Arrivals::of([0u64, 5, 10].into_iter()).gap_cv, Some(0.0));
        let same = Arrivals::of([7u64, 7, 7].into_iter());
        assert_eq!((same.distinct, same.shared_share, same.gap_cv), (1, 1.0, None));
        assert_eq!(Arrivals::of([7u64].into_iter()).gap_cv, None);
    }
}
