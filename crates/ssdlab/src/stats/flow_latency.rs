//! A flow's latency histogram whose memory grows with the values recorded.
//!
//! A dense [`Latency`] histogram (1 ns to 10^13 ns at 3 significant digits) holds 35,840
//! counters, 280 KiB; a flow kept three of them and a fourth for their sum, 1.1 MiB a flow,
//! so 4,000 flows took 4.5 GB. [`FlowLatency`] uses the same buckets (the counter index
//! HdrHistogram gives a value) but allocates its counters a page of [`PAGE`] at a time, when a
//! value lands in it: a flow's latencies fill a few pages (a page covers 1/16 of a doubling),
//! so a flow costs kilobytes. [`FlowLatency::add_to`] hands its counts to a dense histogram
//! when the report needs one: quantiles, minimum and maximum are then exactly those of a dense
//! histogram that recorded the same values.

use super::Latency;
use crate::engine::Ps;

/// Counters per page: 64 (512 bytes).
const PAGE_BITS: u32 = 6;
pub const PAGE: usize = 1 << PAGE_BITS;

// HdrHistogram's layout for a lowest value of 1 and 3 significant digits: 2048 sub-buckets
// (the power of two above 2 × 10^3), of which buckets past the first use the upper half.
const SUB_BUCKET_COUNT_MAGNITUDE: u32 = 11;
const SUB_BUCKET_HALF_COUNT_MAGNITUDE: u32 = SUB_BUCKET_COUNT_MAGNITUDE - 1;
const SUB_BUCKET_HALF_COUNT: usize = 1 << SUB_BUCKET_HALF_COUNT_MAGNITUDE;
const SUB_BUCKET_MASK: u64 = (1 << SUB_BUCKET_COUNT_MAGNITUDE) - 1;
const LEADING_ZERO_COUNT_BASE: u32 = 64 - SUB_BUCKET_COUNT_MAGNITUDE;
/// Counters of the dense histogram ([`Latency::HIGHEST_NS`] needs 34 buckets): an index past
/// them is clamped to the highest value's, as `saturating_record` does.
pub const COUNTS: usize = 35 * SUB_BUCKET_HALF_COUNT;

/// HdrHistogram's counter index for `ns`.
#[inline(always)]
fn index_of(ns: u64) -> usize {
    let bucket = LEADING_ZERO_COUNT_BASE - (ns | SUB_BUCKET_MASK).leading_zeros();
    let sub_bucket = (ns >> bucket) as usize;
    ((bucket as usize + 1) << SUB_BUCKET_HALF_COUNT_MAGNITUDE) + sub_bucket - SUB_BUCKET_HALF_COUNT
}

/// The lowest value whose counter is `index` (HdrHistogram's `value_for`).
fn value_of(index: usize) -> u64 {
    let bucket = (index >> SUB_BUCKET_HALF_COUNT_MAGNITUDE) as i64 - 1;
    let sub_bucket = (index & (SUB_BUCKET_HALF_COUNT - 1)) + SUB_BUCKET_HALF_COUNT;
    match bucket {
        b if b < 0 => (sub_bucket - SUB_BUCKET_HALF_COUNT) as u64,
        b => (sub_bucket as u64) << b,
    }
}

#[derive(Default)]
pub struct FlowLatency {
    /// Per page of counters: 0 if none was recorded there, else k for `pages[k - 1]`.
    slots: Vec<u16>,
    pages: Vec<[u64; PAGE]>,
    /// Exact sum of the recorded latencies.
    pub sum_ps: u128,
    count: u64,
}

impl FlowLatency {
    #[inline]
    pub fn record(&mut self, ps: Ps) {
        let ns = ps.div_ceil(1000).max(1);
        let mut index = index_of(ns);
        if index >= COUNTS {
            index = index_of(Latency::HIGHEST_NS);
        }
        let page = index >> PAGE_BITS;
        let slot = match self.slots.get(page) {
            Some(&s) if s != 0 => s as usize - 1,
            _ => self.new_page(page),
        };
        self.pages[slot][index & (PAGE - 1)] += 1;
        self.sum_ps += ps as u128;
        self.count += 1;
    }

    #[cold]
    fn new_page(&mut self, page: usize) -> usize {
        if self.slots.len() <= page {
            self.slots.resize(page + 1, 0);
        }
        self.pages.push([0; PAGE]);
        self.slots[page] = self.pages.len() as u16;
        self.pages.len() - 1
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Add the recorded values to the dense histogram `l`.
    pub fn add_to(&self, l: &mut Latency) {
        for (page, &slot) in self.slots.iter().enumerate().filter(|(_, &s)| s != 0) {
            for (i, &n) in self.pages[slot as usize - 1].iter().enumerate().filter(|(_, &n)| n > 0) {
                l.hist.saturating_record_n(value_of(page << PAGE_BITS | i), n);
            }
        }
        l.sum_ps += self.sum_ps;
    }

    /// Bytes held: the page table and the pages.
    pub fn bytes(&self) -> u64 {
        (self.slots.capacity() * 2 + self.pages.capacity() * PAGE * 8) as u64
    }

    /// Bytes a histogram holding `values` values will use at most: a page per value up to
    /// the pages of `doublings` doublings of latency (a doubling spans 1024 counters, 16
    /// pages), and a page table reaching the page of `highest_ns`. Growth doubles the
    /// pages' room, so up to twice the pages used.
    pub fn estimate_bytes(values: u64, doublings: u64, highest_ns: u64) -> u64 {
        if values == 0 {
            return 0;
        }
        let pages = values.min(doublings * (SUB_BUCKET_HALF_COUNT / PAGE) as u64);
        let table = (index_of(highest_ns).min(COUNTS - 1) >> PAGE_BITS) as u64 + 1;
        pages.next_power_of_two() * (PAGE * 8) as u64 + table * 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Index and value by hand: below 2048 ns the counter is the value itself; 2048..4096 ns
    /// is bucket 1 (2 ns per counter) at index 2048 + (v - 2048) / 2; 10^6 ns is in bucket 9
    /// (512 ns per counter): index (10 << 10) + (10^6 >> 9) - 1024 = 11169, whose lowest
    /// value is 1953 × 512 = 999,936 ns.
    #[test]
    fn counters_are_hdr_histograms_by_hand() {
        assert_eq!((index_of(1), index_of(2047)), (1, 2047));
        assert_eq!((index_of(2048), index_of(2049), index_of(4095)), (2048, 2048, 3071));
        assert_eq!(index_of(1_000_000), 11169);
        assert_eq!(value_of(11169), 999_936);
        assert_eq!(value_of(3071), 4094);
        // The dense histogram's length is the same.
        assert_eq!(Latency::default().hist.distinct_values(), COUNTS);
    }

    /// The same values recorded directly into a dense histogram and through a flow's give the
    /// same count, sum, minimum, maximum and quantiles, including a value past the top.
    #[test]
    fn a_flow_histogram_gives_the_dense_histograms_answers() {
        let (mut dense, mut flow) = (Latency::default(), FlowLatency::default());
        let mut x = 7u64;
        for i in 0..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Spread over 1 ns .. 2^50 ps, many decades, some past the top (10^13 ns).
            let ps = match i {
                0 => 1,
                1 => u64::MAX / 2,
                _ => (x >> 14) >> ((x >> 5) % 50),
            };
            dense.record(ps);
            flow.record(ps);
        }
        let mut rebuilt = Latency::default();
        flow.add_to(&mut rebuilt);
        assert_eq!((rebuilt.count(), rebuilt.sum_ps), (dense.count(), dense.sum_ps));
        assert_eq!((rebuilt.hist.min(), rebuilt.hist.max()), (dense.hist.min(), dense.hist.max()));
        for q in [0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 0.99999, 1.0] {
            assert_eq!(rebuilt.hist.value_at_quantile(q), dense.hist.value_at_quantile(q), "q {q}");
        }
        assert_eq!(rebuilt.cdf_us(), dense.cdf_us());
    }

    /// 20 latencies from 100 µs to 1.905 ms take at most 20 pages of 512 bytes and a table of
    /// 2 bytes per page up to the largest's (bucket 10, index (11 << 10) + (1,905,000 >> 10)
    /// − 1024 = 12100, page 189): about 10 KiB, not the 280 KiB of a dense histogram.
    #[test]
    fn a_flow_costs_kilobytes() {
        let mut flow = FlowLatency::default();
        for i in 0..20u64 {
            flow.record((100_000 + i * 95_000) * 1000);
        }
        assert!(flow.pages.len() <= 20);
        assert_eq!(flow.slots.len(), 190);
        assert!(flow.bytes() <= 32 * 512 + 2 * 2 * 190, "{} bytes", flow.bytes());
        // The estimate for 20 values up to 2 ms (index (11 << 10) + (2·10^6 >> 10) − 1024 =
        // 12193, page 190): 32 pages (room doubles) and 191 table entries.
        assert_eq!(FlowLatency::estimate_bytes(20, 6, 2_000_000), 32 * 512 + 191 * 2);
    }
}
