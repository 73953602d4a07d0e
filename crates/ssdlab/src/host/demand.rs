//! What a workload asks of the drive, counted before the run: the logical pages its flows may
//! touch ([`footprint_pages`]), the requests, written pages and footprints the memory
//! estimate sizes from ([`demand`]), the pages it reads before writing them
//! ([`read_first_pages`], for `ftl.partition.preload`) and the pages it reads and writes
//! ([`read_write_pages`]).

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::*;

/// Logical pages (of `sectors_per_page` sectors, on a drive of `logical_pages`) the flows may
/// touch: each distinct page a trace's requests cover, every page of a synthetic flow's
/// address range.
pub fn footprint_pages(flows: &[Flow], sectors_per_page: u64, logical_pages: u64) -> u64 {
    footprint_set(flows, sectors_per_page, logical_pages).count()
}

/// The pages of [`footprint_pages`], marked.
fn footprint_set(flows: &[Flow], sectors_per_page: u64, logical_pages: u64) -> PageSet {
    let mut seen = PageSet::new(sectors_per_page, logical_pages);
    for f in flows {
        match &f.source {
            Source::Trace { requests, .. } => requests.iter().for_each(|r| seen.mark(r.lba, r.sectors as u64)),
            Source::Synthetic(s) => seen.mark_range(s.start_sector, s.span_sectors),
            // A client may touch any page.
            Source::Live { .. } => seen.mark_range(0, logical_pages * sectors_per_page),
        }
    }
    seen
}

/// Logical pages, each counted once however often it is marked: a synthetic flow's span as an
/// interval (a thousand flows over the whole drive cost a thousand intervals, not a thousand
/// passes over it), a trace's requests' pages in a bitmap made when first needed.
struct PageSet {
    spp: u64,
    pages: u64,
    ranges: Vec<(u64, u64)>,
    bits: Vec<u64>,
}

impl PageSet {
    fn new(spp: u64, pages: u64) -> PageSet {
        PageSet { spp, pages, ranges: Vec::new(), bits: Vec::new() }
    }

    /// The pages sectors `first .. first + n` cover, as an interval.
    fn mark_range(&mut self, first: u64, n: u64) {
        if n > 0 {
            self.ranges.push((first / self.spp, (first + n).div_ceil(self.spp).min(self.pages)));
        }
    }

    /// The pages sectors `first .. first + n` cover, in the bitmap.
    fn mark(&mut self, first: u64, n: u64) {
        if n == 0 {
            return;
        }
        if self.bits.is_empty() {
            self.bits = vec![0; self.pages.div_ceil(64) as usize];
        }
        for p in first / self.spp..(first + n).div_ceil(self.spp).min(self.pages) {
            self.bits[(p / 64) as usize] |= 1 << (p % 64);
        }
    }

    /// The bitmap's bytes (resident, address space): its 4 KiB pages holding a mark are
    /// resident, the rest only mapped (it is allocated zeroed).
    fn bitmap_bytes(&self) -> (u64, u64) {
        const WORDS_PER_PAGE: usize = 4096 / 8;
        let marked = self.bits.chunks(WORDS_PER_PAGE).filter(|c| c.iter().any(|&w| w != 0)).count() as u64;
        let address = crate::mem::bytes_of::<u64>(self.bits.len());
        ((marked * 4096).min(address), address)
    }

    /// Distinct pages marked: the merged intervals' lengths, and the bitmap's pages outside
    /// them.
    fn count(mut self) -> u64 {
        self.ranges.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for &(a, b) in &self.ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        let mut count: u64 = merged.iter().map(|&(a, b)| b.saturating_sub(a)).sum();
        if !self.bits.is_empty() {
            for &(a, b) in &merged {
                for p in a..b.min(a.div_ceil(64) * 64) {
                    self.bits[(p / 64) as usize] &= !(1 << (p % 64));
                }
                for w in a.div_ceil(64)..b / 64 {
                    self.bits[w as usize] = 0;
                }
                for p in (b / 64 * 64).max(a)..b {
                    self.bits[(p / 64) as usize] &= !(1 << (p % 64));
                }
            }
            count += self.bits.iter().map(|w| w.count_ones() as u64).sum::<u64>();
        }
        count
    }
}

/// What the flows will ask of the drive, for the run's memory estimate.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Demand {
    /// Per flow: the requests of each operation (read, write, trim) it completes; `u64::MAX`
    /// for an operation it issues without a bound (a flow that runs for a duration, or loops).
    pub requests: Vec<[u64; 3]>,
    /// Pages the flows write; None without a bound.
    pub written_pages: Option<u64>,
    /// Logical pages the requests may touch, and the writes alone.
    pub footprint: u64,
    pub write_footprint: u64,
    /// Pages a write covers only in part (their sectors then hold different versions), at
    /// most.
    pub partial_pages: u64,
    /// Requests the trace flows hold in memory.
    pub held_requests: u64,
    /// Pages of the largest request.
    pub largest_request_pages: u64,
    /// The trace pages' bitmap counting the footprint takes (resident, address space),
    /// before the run: the largest of the bitmaps made one at a time.
    pub bitmap_bytes: (u64, u64),
}

/// One flow's part of a [`Demand`].
/// The largest request a live flow's client may send, for the estimate: `ssdlab serve`'s
/// 32 MiB (the NBD block-size maximum it advertises), counted in 512-byte sectors (the
/// smallest a drive has, so a bound).
pub const LIVE_LARGEST_BYTES: u64 = 32 << 20;

struct FlowDemand {
    ops: [u64; 3],
    written: Option<u64>,
    partial: u64,
    largest: u64,
}

/// The flows' [`Demand`] on a drive of `logical_pages` pages of `spp` sectors: a synthetic
/// flow's requests (its `requests`, or its rate × duration) split by its ratios, each write
/// the pages its largest size covers at its alignment; a trace's requests counted.
pub fn demand(flows: &[Flow], spp: u64, logical_pages: u64) -> Demand {
    let all = footprint_set(flows, spp, logical_pages);
    let bitmap_bytes = all.bitmap_bytes();
    let mut d = Demand { footprint: all.count(), bitmap_bytes, ..Demand::default() };
    let mut written = Some(0u64);
    let mut writes_seen = PageSet::new(spp, logical_pages);
    for f in flows {
        let fd = match &f.source {
            Source::Synthetic(s) => {
                let fd = synthetic_demand(f, s, spp);
                if fd.ops[1] > 0 {
                    writes_seen.mark_range(s.start_sector, s.span_sectors);
                }
                fd
            }
            Source::Trace { requests, looping, .. } => {
                d.held_requests += requests.len() as u64;
                trace_demand(requests, *looping, f.limit, spp, &mut writes_seen)
            }
            Source::Live { .. } => {
                writes_seen.mark_range(0, logical_pages * spp);
                FlowDemand {
                    ops: [u64::MAX; 3],
                    written: None,
                    partial: u64::MAX,
                    largest: (LIVE_LARGEST_BYTES / 512).div_ceil(spp),
                }
            }
        };
        written = written.zip(fd.written).map(|(a, b)| a.saturating_add(b));
        d.partial_pages = d.partial_pages.saturating_add(fd.partial);
        d.largest_request_pages = d.largest_request_pages.max(fd.largest);
        d.requests.push(fd.ops);
    }
    d.write_footprint = writes_seen.count();
    d.written_pages = written;
    if let Some(w) = d.written_pages {
        d.write_footprint = d.write_footprint.min(w);
    }
    d.partial_pages = d.partial_pages.min(d.write_footprint);
    d
}

/// A synthetic flow's demand: its requests (`requests`, or rate × duration; none: no bound)
/// split by its ratios, each share rounded up (a bound, not the draw); each write the pages
/// its largest size covers at its alignment, two of them partial if sizes or alignment are
/// not whole pages.
fn synthetic_demand(f: &Flow, s: &Synthetic, spp: u64) -> FlowDemand {
    let largest_sectors = s.sizes_sectors.iter().map(|&(n, _)| n as u64).max().unwrap_or(1);
    let aligned = s.align_sectors.is_multiple_of(spp) && s.start_sector.is_multiple_of(spp);
    let largest = (largest_sectors + if aligned { 0 } else { spp - 1 }).div_ceil(spp);
    let partial_sizes = !aligned || s.sizes_sectors.iter().any(|&(n, _)| !(n as u64).is_multiple_of(spp));
    let n = match f.limit {
        0 if f.end_ps > 0 && s.rate_iops > 0.0 => Some((f.end_ps as f64 / 1e12 * s.rate_iops).ceil() as u64),
        0 => None,
        n => Some(n),
    };
    let ratios = [s.read_ratio, 1.0 - s.read_ratio - s.trim_ratio, s.trim_ratio];
    let Some(n) = n else {
        let ops = ratios.map(|r| if r > 0.0 { u64::MAX } else { 0 });
        return FlowDemand { ops, written: None, partial: u64::MAX, largest };
    };
    // Rounded up, past the last bits of a product such as 100 × 0.3.
    let ops = ratios.map(|r| (n as f64 * r.max(0.0) - 1e-9).ceil().max(0.0) as u64);
    let partial = if partial_sizes { ops[1].saturating_mul(2) } else { 0 };
    FlowDemand { ops, written: Some(ops[1].saturating_mul(largest)), partial, largest }
}

/// A trace's demand: its requests by operation (a looping one's `limit` requests in passes
/// over it, none without a bound), the pages its writes cover, marked in `seen`, and their
/// partial pages.
fn trace_demand(requests: &[IoRequest], looping: bool, limit: u64, spp: u64, seen: &mut PageSet) -> FlowDemand {
    let (mut ops, mut pages, mut partial, mut largest) = ([0u64; 3], 0u64, 0u64, 0u64);
    for r in requests {
        ops[r.op as usize] += 1;
        let (first, end) = (r.lba / spp, (r.lba + r.sectors as u64).div_ceil(spp));
        largest = largest.max(end - first);
        if r.op == IoOp::Write {
            pages += end - first;
            partial +=
                u64::from(!r.lba.is_multiple_of(spp)) + u64::from(!(r.lba + r.sectors as u64).is_multiple_of(spp));
            seen.mark(r.lba, r.sectors as u64);
        }
    }
    if !looping {
        return FlowDemand { ops, written: Some(pages), partial, largest };
    }
    let passes = |n: u64| match limit {
        0 => u64::MAX,
        l => ((n as u128 * l as u128).div_ceil(requests.len().max(1) as u128)).min(u64::MAX as u128) as u64,
    };
    FlowDemand { ops: ops.map(passes), written: (limit > 0).then(|| passes(pages)), partial: passes(partial), largest }
}

/// The pages a workload reads before writing them (`ftl.partition.preload`).
pub struct FirstAccess {
    /// Bitmap over the logical pages: read first.
    pub read_first: Vec<u64>,
    /// Pages read first, and pages written first.
    pub reads: u64,
    pub writes: u64,
}

/// Logical pages the workload reads before it writes them, as a bitmap over `logical_pages`
/// (`ftl.partition.preload`): a trace's requests in order, each page judged by its first
/// request; a synthetic flow's pages, each read first with the flow's read ratio (seeded).
/// A page the flows share is judged by the first flow that covers it.
pub fn read_first_pages(flows: &[Flow], sectors_per_page: u64, logical_pages: u64, seed: u64) -> FirstAccess {
    let words = logical_pages.div_ceil(64) as usize;
    let (mut seen, mut read_first) = (vec![0u64; words], vec![0u64; words]);
    let (mut reads, mut writes) = (0, 0);
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x7265_6164_6669);
    let mut first = |p: u64, read: bool| {
        let (w, bit) = ((p / 64) as usize, 1u64 << (p % 64));
        if w < words && seen[w] & bit == 0 {
            seen[w] |= bit;
            if read {
                read_first[w] |= bit;
                reads += 1;
            } else {
                writes += 1;
            }
        }
    };
    let pages = |first_sector: u64, sectors: u64| {
        (first_sector / sectors_per_page)..(first_sector + sectors).div_ceil(sectors_per_page)
    };
    for f in flows {
        match &f.source {
            Source::Trace { requests, .. } => {
                for r in requests.iter().filter(|r| r.op != IoOp::Trim) {
                    pages(r.lba, r.sectors as u64).for_each(|p| first(p, r.op == IoOp::Read));
                }
            }
            Source::Synthetic(s) => {
                for p in pages(s.start_sector, s.span_sectors) {
                    let read = rng.random_bool(s.read_ratio.clamp(0.0, 1.0));
                    first(p, read);
                }
            }
            // What a client will read is not known before it does.
            Source::Live { .. } => {}
        }
    }
    FirstAccess { read_first, reads, writes }
}

/// Pages the flows read and write (trim excluded): counted over a trace's requests; for a
/// synthetic flow, its requests (1 if unlimited) × mean request pages, split by its read
/// ratio.
pub fn read_write_pages(flows: &[Flow], sectors_per_page: u64) -> (f64, f64) {
    let pages = |sectors: u64| sectors.div_ceil(sectors_per_page) as f64;
    let (mut read, mut write) = (0.0, 0.0);
    for f in flows {
        match &f.source {
            Source::Trace { requests, .. } => {
                for r in requests {
                    match r.op {
                        IoOp::Read => read += pages(r.sectors as u64),
                        IoOp::Write => write += pages(r.sectors as u64),
                        IoOp::Trim => {}
                    }
                }
            }
            Source::Synthetic(s) => {
                let total: f64 = s.sizes_sectors.iter().map(|&(_, w)| w).sum();
                let mean: f64 = s.sizes_sectors.iter().map(|&(n, w)| pages(n as u64) * w).sum::<f64>() / total;
                let n = f.limit.max(1) as f64 * mean;
                read += n * s.read_ratio;
                write += n * (1.0 - s.read_ratio - s.trim_ratio).max(0.0);
            }
            Source::Live { .. } => {}
        }
    }
    (read, write)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A drive of 1,000 pages of 8 sectors. A synthetic flow of 100 requests of 4 KiB (one
    /// aligned page), 70 % reads: 70 reads, 30 writes of one page, over the whole drive. A
    /// trace of a whole-page write at sector 0, a write of 8 sectors at sector 4 (pages 0 and
    /// 1, both in part) and a read of 16 sectors at 80 (pages 10, 11). Written: 30 + 1 + 2 =
    /// 33 pages; footprint 1,000; writes fall on at most 33 distinct pages; 2 partial; 3
    /// requests held; the largest request 2 pages.
    #[test]
    fn the_demand_counts_what_the_flows_ask() {
        let spec = WorkloadSpec {
            source: String::new(),
            seed: 1,
            precondition: None,
            ramp_ms: 0.0,
            flows: vec![FlowSpec { read_ratio: 0.7, requests: 100, ..FlowSpec::default() }],
        };
        let mut flows = build_flows(&spec, 1, 8000, 512).unwrap();
        let req = |op, lba, sectors| IoRequest { arrival_ps: 0, op, lba, sectors, fua: false };
        let requests = vec![req(IoOp::Write, 0, 8), req(IoOp::Write, 4, 8), req(IoOp::Read, 80, 16)];
        let source = Source::Trace { requests, next: 0, timestamps: false, looping: false, period_ps: 0, pass: 0 };
        flows.push(Flow {
            name: "t".into(),
            priority: 1,
            queue_depth: 1,
            source,
            limit: 0,
            end_ps: 0,
            issued: 0,
            warnings: Vec::new(),
            time_unit: "",
        });
        let d = demand(&flows, 8, 1000);
        assert_eq!(d.requests, vec![[70, 30, 0], [1, 2, 0]]);
        assert_eq!((d.written_pages, d.footprint, d.write_footprint), (Some(33), 1000, 33));
        assert_eq!((d.partial_pages, d.held_requests, d.largest_request_pages), (2, 3, 2));
        // The trace's bitmap over 1,000 pages: 16 words, 128 bytes, smaller than a page.
        assert_eq!(d.bitmap_bytes, (128, 128));
        // Over 2^20 pages (128 KiB, 32 pages of 4 KiB) with marks in pages 0 (pages 0, 1,
        // 10, 11) and one 4 KiB page further (page 40,000: bit 40,000 in word 625, byte
        // 5,000): two pages resident.
        let far = IoRequest { arrival_ps: 0, op: IoOp::Read, lba: 40_000 * 8, sectors: 8, fua: false };
        if let Source::Trace { requests, .. } = &mut flows[1].source {
            requests.push(far);
        }
        assert_eq!(demand(&flows, 8, 1 << 20).bitmap_bytes, (2 * 4096, 128 * 1024));
        // A flow without a bound (no request count, no rate) writes without a bound.
        flows[0].limit = 0;
        assert_eq!(demand(&flows, 8, 1000).written_pages, None);
    }

    /// Pages of 4 sectors on a drive of 1000: spans [0, 100) and [50, 130) sectors are pages
    /// 0..25 and 12..33 (33 pages together); requests at sectors 8 (4 sectors: page 2, inside
    /// the spans), 398 (4 sectors: pages 99 and 100) and 4000 (none: past the drive) add 2.
    /// A request of no sectors marks nothing.
    #[test]
    fn a_page_set_counts_each_page_once() {
        let mut s = PageSet::new(4, 1000);
        s.mark_range(0, 100);
        s.mark_range(50, 80);
        s.mark(8, 4);
        s.mark(398, 4);
        s.mark(4000, 4);
        s.mark(401, 0);
        assert_eq!(s.count(), 33 + 2);
        let mut only_ranges = PageSet::new(4, 1000);
        (0..1000).for_each(|_| only_ranges.mark_range(0, 4000));
        assert_eq!(only_ranges.count(), 1000);
    }

    /// Pages of 8 sectors. In trace order: read page 3 (sectors 24..32), write page 3, write
    /// pages 5–6 (sectors 40..56), read pages 6–7 (48..64), trim page 9, read page 9: read
    /// first are 3, 7 and 9 (a trim is no first access); 5 and 6 were written first.
    #[test]
    fn a_trace_page_is_read_first_when_its_first_request_reads_it() {
        let req = |op, lba, sectors| IoRequest { arrival_ps: 0, op, lba, sectors, fua: false };
        let requests = vec![
            req(IoOp::Read, 24, 8),
            req(IoOp::Write, 24, 8),
            req(IoOp::Write, 40, 16),
            req(IoOp::Read, 48, 16),
            req(IoOp::Trim, 72, 8),
            req(IoOp::Read, 72, 8),
        ];
        let flow = Flow {
            name: "t".into(),
            priority: 1,
            queue_depth: 8,
            source: Source::Trace { requests, next: 0, timestamps: false, looping: false, period_ps: 0, pass: 0 },
            limit: 0,
            end_ps: 0,
            issued: 0,
            warnings: Vec::new(),
            time_unit: "ns",
        };
        let first = read_first_pages(&[flow], 8, 100, 1);
        assert_eq!(first.read_first, vec![1 << 3 | 1 << 7 | 1 << 9, 0]);
        assert_eq!((first.reads, first.writes), (3, 2));
    }
}
