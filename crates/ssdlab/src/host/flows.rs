//! The flows a workload builds, as the simulation runs them: where each flow's requests come
//! from (a synthetic generator or a trace, replayed once or looped), and the drive-dependent
//! checks and conversions that turn a [`WorkloadSpec`] into them ([`build_flows`]).

use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;
use ssdlab_trace::Op;

use super::*;

/// Where a flow's requests come from.
pub enum Source {
    Synthetic(Synthetic),
    /// Requests loaded from a trace, replayed in order.
    Trace {
        requests: Vec<IoRequest>,
        next: usize,
        timestamps: bool,
        /// `loop`: start again at the first request when the last one has been taken.
        looping: bool,
        /// Timestamps replay of a looping trace: how much later each pass starts than the
        /// one before ([`loop_period_ps`]).
        period_ps: Ps,
        /// Passes completed before the current one.
        pass: u64,
    },
}

impl Source {
    /// Bytes of a trace's requests.
    pub fn request_bytes(&self) -> u64 {
        match self {
            Source::Trace { requests, .. } => crate::mem::bytes_of::<IoRequest>(requests.capacity()),
            Source::Synthetic(_) => 0,
        }
    }

    /// Bytes of a synthetic flow's table of request sizes.
    pub fn table_bytes(&self) -> u64 {
        match self {
            Source::Synthetic(s) => crate::mem::bytes_of::<(u32, f64)>(s.sizes_sectors.capacity()),
            Source::Trace { .. } => 0,
        }
    }
}

/// How far apart two passes of a looping trace start, for timestamps replay: the span of its
/// (sped-up) arrivals plus their mean gap, `(last − first) + (last − first) / (n − 1)` rounded
/// to the nearest picosecond. The gap between a pass's last request and the next pass's first
/// is then the trace's mean gap, so the looped flow keeps the trace's mean rate:
/// n requests every period. None when the trace has fewer than two requests or they all
/// arrive at once (no rate to keep).
pub fn loop_period_ps(requests: &[IoRequest]) -> Option<Ps> {
    let first = requests.iter().map(|r| r.arrival_ps).min()?;
    let last = requests.iter().map(|r| r.arrival_ps).max()?;
    let (span, gaps) = (last - first, requests.len() as u64 - 1);
    if gaps == 0 || span == 0 {
        return None;
    }
    Some(span + (span + gaps / 2) / gaps)
}

pub struct Synthetic {
    rng: Pcg64Mcg,
    read_ratio: f64,
    trim_ratio: f64,
    fua_ratio: f64,
    address: Address,
    hot_fraction: f64,
    hot_access: f64,
    sizes_sectors: Vec<(u32, f64)>,
    align_sectors: u64,
    start_sector: u64,
    span_sectors: u64,
    next_seq: u64,
    arrival: Option<Exp<f64>>,
    rate_iops: f64,
    last_arrival_ps: Ps,
}

/// A flow at run time.
pub struct Flow {
    pub name: String,
    /// 0 urgent, 1 high, 2 medium, 3 low.
    pub priority: u8,
    pub queue_depth: u32,
    pub source: Source,
    pub limit: u64,
    pub end_ps: Ps,
    pub issued: u64,
}

impl Flow {
    fn exhausted(&self, at_ps: Ps) -> bool {
        (self.limit > 0 && self.issued >= self.limit) || (self.end_ps > 0 && at_ps >= self.end_ps)
    }

    /// Arrival time of the next request, if there will be one. Closed-loop flows return
    /// `now` (their next request exists as soon as there is room for it).
    pub fn peek_arrival(&self, now: Ps) -> Option<Ps> {
        let t = match &self.source {
            Source::Trace { requests, next, timestamps, looping, period_ps, pass } => {
                let (r, pass) = match requests.get(*next) {
                    Some(r) => (r, *pass),
                    None if *looping => (requests.first()?, *pass + 1),
                    None => return None,
                };
                if *timestamps {
                    r.arrival_ps.saturating_add(period_ps.saturating_mul(pass))
                } else {
                    now
                }
            }
            Source::Synthetic(s) => match &s.arrival {
                Some(_) => s.last_arrival_ps,
                None => now,
            },
        };
        (!self.exhausted(t)).then_some(t)
    }

    /// Take the next request (its arrival is `peek_arrival`).
    pub fn take(&mut self, now: Ps) -> Option<IoRequest> {
        let arrival = self.peek_arrival(now)?;
        self.issued += 1;
        match &mut self.source {
            Source::Trace { requests, next, pass, .. } => {
                if *next == requests.len() {
                    // Only a looping trace gets here: peek_arrival found its next pass.
                    *next = 0;
                    *pass += 1;
                }
                let mut r = requests[*next];
                *next += 1;
                r.arrival_ps = arrival;
                Some(r)
            }
            Source::Synthetic(s) => {
                let mut r = s.generate();
                r.arrival_ps = arrival;
                if let Some(exp) = &s.arrival {
                    let gap_s: f64 = exp.sample(&mut s.rng);
                    s.last_arrival_ps = arrival + (gap_s * 1e12).round() as Ps;
                }
                Some(r)
            }
        }
    }
}

impl Synthetic {
    fn generate(&mut self) -> IoRequest {
        let u: f64 = self.rng.random();
        let op = if u < self.read_ratio {
            IoOp::Read
        } else if u < self.read_ratio + self.trim_ratio {
            IoOp::Trim
        } else {
            IoOp::Write
        };
        let fua = op == IoOp::Write && self.fua_ratio > 0.0 && self.rng.random::<f64>() < self.fua_ratio;
        let sectors = if self.sizes_sectors.len() == 1 {
            self.sizes_sectors[0].0
        } else {
            let x: f64 = self.rng.random();
            self.sizes_sectors
                .iter()
                .find(|&&(_, c)| x < c)
                .map(|&(s, _)| s)
                .unwrap_or(self.sizes_sectors.last().expect("non-empty").0)
        };
        // Number of aligned slots where a request of this size fits in the footprint.
        let slots = ((self.span_sectors.saturating_sub(sectors as u64)) / self.align_sectors + 1).max(1);
        let slot = match self.address {
            Address::Sequential => {
                let s = self.next_seq % slots;
                self.next_seq = self.next_seq.wrapping_add((sectors as u64).div_ceil(self.align_sectors));
                s
            }
            Address::HotCold => {
                let hot_slots = ((slots as f64 * self.hot_fraction) as u64).clamp(1, slots);
                if self.rng.random::<f64>() < self.hot_access || hot_slots == slots {
                    self.rng.random_range(0..hot_slots)
                } else {
                    self.rng.random_range(hot_slots..slots)
                }
            }
            Address::Uniform => self.rng.random_range(0..slots),
        };
        IoRequest { arrival_ps: 0, op, lba: self.start_sector + slot * self.align_sectors, sectors, fua }
    }
}

/// The seed of flow `i` that has none of its own, derived from the run's seed.
pub fn flow_seed(seed: u64, i: usize) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i as u64 + 1)
}

/// Build run-time flows. `logical_sectors` is the drive's exposed size; flows without a seed
/// of their own derive one from `seed`.
pub fn build_flows(spec: &WorkloadSpec, seed: u64, logical_sectors: u64, sector_bytes: u32) -> Result<Vec<Flow>> {
    build_flows_limited(spec, seed, logical_sectors, sector_bytes, None)
}

/// [`build_flows`], each trace read holding at most `trace_limit`'s count of requests (and
/// why, for the message; see [`ssdlab_trace::read_limited`]).
pub fn build_flows_limited(
    spec: &WorkloadSpec,
    seed: u64,
    logical_sectors: u64,
    sector_bytes: u32,
    trace_limit: Option<(usize, &str)>,
) -> Result<Vec<Flow>> {
    let file = if spec.source.is_empty() { "workload" } else { spec.source.as_str() };
    let mut flows = Vec::with_capacity(spec.flows.len());
    for (i, f) in spec.flows.iter().enumerate() {
        let name = if f.name.is_empty() { format!("flow{i}") } else { f.name.clone() };
        let source = match f.kind {
            FlowKind::Trace => trace_source(f, logical_sectors, sector_bytes, trace_limit).and_then(|s| match s {
                Source::Trace { looping: true, timestamps: true, period_ps: 0, .. } => Err(Error::config(
                    file,
                    0,
                    &format!("flows[{i}].loop"),
                    &format!(
                        "flow `{name}`: loop = true with replay = \"timestamps\" needs a trace of at least two requests whose arrivals span a positive time (a pass is shifted by that span plus the mean gap)"
                    ),
                )),
                s => Ok(s),
            })?,
            FlowKind::Synthetic => {
                let seed = f.seed.unwrap_or(flow_seed(seed, i));
                let synthetic = Synthetic::new(f, seed, logical_sectors, sector_bytes).map_err(|b| {
                    Error::config(file, 0, &format!("flows[{i}].{}", b.key), &format!("flow `{name}`: {}", b.message))
                })?;
                Source::Synthetic(synthetic)
            }
        };
        flows.push(Flow {
            name,
            priority: f.priority.class(),
            queue_depth: f.queue_depth.unwrap_or(if f.open_loop() { 1024 } else { 32 }),
            source,
            limit: f.requests,
            end_ps: (f.duration_ms * 1e9).round() as Ps,
            issued: 0,
        });
    }
    Ok(flows)
}

/// Logical pages (of `sectors_per_page` sectors, on a drive of `logical_pages`) the flows may
/// touch: each distinct page a trace's requests cover, every page of a synthetic flow's
/// address range.
pub fn footprint_pages(flows: &[Flow], sectors_per_page: u64, logical_pages: u64) -> u64 {
    let mut seen = PageSet::new(sectors_per_page, logical_pages);
    for f in flows {
        match &f.source {
            Source::Trace { requests, .. } => requests.iter().for_each(|r| seen.mark(r.lba, r.sectors as u64)),
            Source::Synthetic(s) => seen.mark_range(s.start_sector, s.span_sectors),
        }
    }
    seen.count()
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
}

/// One flow's part of a [`Demand`].
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
    let mut d = Demand { footprint: footprint_pages(flows, spp, logical_pages), ..Demand::default() };
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
        }
    }
    (read, write)
}

/// A trace flow's requests: the trace read, converted to sectors of the drive.
fn trace_source(f: &FlowSpec, logical_sectors: u64, sector_bytes: u32, limit: Option<(usize, &str)>) -> Result<Source> {
    let path = f.path.as_ref().expect("validated: a trace flow has a path");
    let map = f.column_map().expect("validated: the column map parses");
    let mut trace = ssdlab_trace::read_limited(path, f.format, map.as_ref(), limit)?;
    if let Some(device) = f.device {
        keep_device(&mut trace, device, path)?;
    }
    let requests = convert_trace(&trace, path, f.address_mode, logical_sectors, sector_bytes, f.speedup)?;
    let period_ps = if f.loop_trace { loop_period_ps(&requests).unwrap_or(0) } else { 0 };
    Ok(Source::Trace {
        requests,
        next: 0,
        timestamps: f.replay == Replay::Timestamps,
        looping: f.loop_trace,
        period_ps,
        pass: 0,
    })
}

impl Synthetic {
    /// The generator of synthetic flow `f` on a drive of `logical_sectors`. Fails if a
    /// request size or the alignment is not whole sectors, or the largest request does not
    /// fit the footprint.
    fn new(f: &FlowSpec, seed: u64, logical_sectors: u64, sector_bytes: u32) -> std::result::Result<Synthetic, Bad> {
        let sb = sector_bytes as u64;
        let start_sector = f.start_bytes / sb;
        let span = ((logical_sectors as f64 * f.footprint) as u64).min(logical_sectors.saturating_sub(start_sector));
        let sizes_sectors = size_table(f, sb)?;
        let max_sectors = sizes_sectors.iter().map(|s| s.0 as u64).max().unwrap_or(1);
        if max_sectors > span {
            return Err(Bad {
                key: "footprint",
                message: format!("requests of {max_sectors} sectors do not fit a footprint of {span} sectors"),
            });
        }
        if !f.align_bytes.is_multiple_of(sb) {
            return Err(Bad {
                key: "align_bytes",
                message: format!("align_bytes {} is not a multiple of the {sb}-byte sector", f.align_bytes),
            });
        }
        let arrival = if f.rate_iops > 0.0 { Some(Exp::new(f.rate_iops).expect("positive rate")) } else { None };
        Ok(Synthetic {
            rng: Pcg64Mcg::seed_from_u64(seed),
            read_ratio: f.read_ratio,
            trim_ratio: f.trim_ratio,
            fua_ratio: f.fua_ratio,
            address: f.address,
            hot_fraction: f.hot_fraction,
            hot_access: f.hot_access,
            sizes_sectors,
            align_sectors: f.align_bytes / sb,
            start_sector,
            span_sectors: span,
            next_seq: 0,
            arrival,
            rate_iops: f.rate_iops,
            last_arrival_ps: 0,
        })
    }
}

/// A synthetic flow's request sizes in sectors of `sb` bytes, each with the cumulative
/// probability of it and the sizes before it (`request_bytes_choices`, or `request_bytes`).
fn size_table(f: &FlowSpec, sb: u64) -> std::result::Result<Vec<(u32, f64)>, Bad> {
    let sizes: Vec<(u64, f64)> =
        if f.request_bytes_choices.is_empty() { vec![(f.request_bytes, 1.0)] } else { f.request_bytes_choices.clone() };
    let total: f64 = sizes.iter().map(|s| s.1).sum();
    let mut acc = 0.0;
    let mut table = Vec::with_capacity(sizes.len());
    for (bytes, w) in sizes {
        if !bytes.is_multiple_of(sb) {
            return Err(Bad {
                key: "request_bytes",
                message: format!("request_bytes {bytes} is not a multiple of the {sb}-byte sector"),
            });
        }
        let sectors = u32::try_from(bytes / sb).map_err(|_| Bad {
            key: "request_bytes",
            message: format!(
                "request_bytes {bytes} is more than {} sectors of {sb} bytes, the most one request can carry",
                u32::MAX
            ),
        })?;
        acc += w / total;
        table.push((sectors, acc));
    }
    Ok(table)
}

/// Only `device`'s requests of `trace`; none is an error listing the devices there are.
fn keep_device(trace: &mut ssdlab_trace::Trace, device: u32, path: &Path) -> Result<()> {
    let mut devices: Vec<u32> = trace.records.iter().map(|r| r.device).collect();
    let keep: Vec<bool> = devices.iter().map(|&d| d == device).collect();
    let mut k = keep.iter();
    trace.records.retain(|_| *k.next().expect("one flag per record"));
    let mut k = keep.iter();
    trace.lines.retain(|_| *k.next().expect("one flag per line"));
    if trace.records.is_empty() {
        devices.sort_unstable();
        devices.dedup();
        let shown: Vec<String> = devices.iter().take(20).map(|d| d.to_string()).collect();
        let more = if devices.len() > 20 { format!(" and {} more", devices.len() - 20) } else { String::new() };
        return Err(Error::Request {
            file: path.display().to_string(),
            line: 0,
            message: format!(
                "device = {device}: no request of that device; the trace has devices {}{more}",
                shown.join(", ")
            ),
        });
    }
    Ok(())
}

/// Trace records to device requests in sectors, applying the address mode.
fn convert_trace(
    trace: &ssdlab_trace::Trace,
    path: &Path,
    mode: AddressMode,
    logical_sectors: u64,
    sector_bytes: u32,
    speedup: f64,
) -> Result<Vec<IoRequest>> {
    let records = &trace.records;
    let sb = sector_bytes as u64;
    let max_end = records.iter().map(|r| r.offset_bytes + r.size_bytes).max().unwrap_or(0);
    let cap_bytes = logical_sectors * sb;
    let mut out = Vec::with_capacity(records.len());
    for (i, r) in records.iter().enumerate() {
        let (offset, size) = (r.offset_bytes, r.size_bytes);
        let first = offset / sb;
        let sectors = (offset + size).div_ceil(sb) - first;
        if sectors > logical_sectors {
            return Err(Error::Request {
                file: path.display().to_string(),
                line: trace.lines[i],
                message: format!("request of {size} bytes is larger than the drive"),
            });
        }
        let lba = match mode {
            AddressMode::Wrap => {
                if first + sectors <= logical_sectors {
                    first
                } else {
                    first % (logical_sectors - sectors + 1)
                }
            }
            AddressMode::Scale => {
                let scaled = (first as u128 * cap_bytes as u128 / max_end.max(1) as u128) as u64;
                scaled.min(logical_sectors - sectors)
            }
            AddressMode::Reject => {
                if first + sectors > logical_sectors {
                    return Err(Error::Request {
                        file: path.display().to_string(),
                        line: trace.lines[i],
                        message: format!(
                            "request at offset {offset} bytes ({size} bytes) ends past the drive's {cap_bytes} logical bytes; the trace reaches {max_end} bytes. Choose address_mode = \"wrap\" or \"scale\" on the flow (in a workload file, or --address-mode with a trace given directly), or use a larger drive"
                        ),
                    });
                }
                first
            }
        };
        // IoRequest counts sectors in 32 bits; the trace reader caps sizes at 2^32 - 1 sectors
        // of 512 B, but an unaligned start or smaller drive sectors can still exceed that.
        let sectors = u32::try_from(sectors.max(1)).map_err(|_| Error::Request {
            file: path.display().to_string(),
            line: trace.lines[i],
            message: format!("request of {size} bytes at offset {offset} spans {sectors} sectors of {sb} bytes, more than the {} sectors one request can carry", u32::MAX),
        })?;
        let op = match r.op {
            Op::Read => IoOp::Read,
            Op::Write => IoOp::Write,
            Op::Trim => IoOp::Trim,
        };
        let arrival_ps = if speedup == 1.0 { r.arrival_ps } else { (r.arrival_ps as f64 / speedup).round() as Ps };
        out.push(IoRequest { arrival_ps, op, lba, sectors, fua: false });
    }
    Ok(out)
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
            flows: vec![FlowSpec { read_ratio: 0.7, requests: 100, ..FlowSpec::default() }],
        };
        let mut flows = build_flows(&spec, 1, 8000, 512).unwrap();
        let req = |op, lba, sectors| IoRequest { arrival_ps: 0, op, lba, sectors, fua: false };
        let requests = vec![req(IoOp::Write, 0, 8), req(IoOp::Write, 4, 8), req(IoOp::Read, 80, 16)];
        let source = Source::Trace { requests, next: 0, timestamps: false, looping: false, period_ps: 0, pass: 0 };
        flows.push(Flow { name: "t".into(), priority: 1, queue_depth: 1, source, limit: 0, end_ps: 0, issued: 0 });
        let d = demand(&flows, 8, 1000);
        assert_eq!(d.requests, vec![[70, 30, 0], [1, 2, 0]]);
        assert_eq!((d.written_pages, d.footprint, d.write_footprint), (Some(33), 1000, 33));
        assert_eq!((d.partial_pages, d.held_requests, d.largest_request_pages), (2, 3, 2));
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

    fn arrivals_ns(ns: &[u64]) -> Vec<IoRequest> {
        ns.iter().map(|&t| IoRequest { arrival_ps: t * 1000, op: IoOp::Read, lba: 0, sectors: 1, fua: false }).collect()
    }

    #[test]
    fn a_looped_pass_is_shifted_by_the_span_plus_the_mean_gap() {
        // span 40 ns over 2 gaps: mean gap 20 ns, period 60 ns.
        assert_eq!(loop_period_ps(&arrivals_ns(&[0, 10, 40])), Some(60_000));
        // The first arrival need not be 0: span 10 ns, one gap, period 20 ns.
        assert_eq!(loop_period_ps(&arrivals_ns(&[5, 15])), Some(20_000));
        // span 11 ps over 2 gaps: mean gap 5.5 ps rounds to 6, period 17 ps.
        let ps = |v: &[u64]| v.iter().map(|&t| IoRequest { arrival_ps: t, ..arrivals_ns(&[0])[0] }).collect::<Vec<_>>();
        assert_eq!(loop_period_ps(&ps(&[0, 5, 11])), Some(17));
        // No rate to keep: one request, or all at once.
        assert_eq!(loop_period_ps(&arrivals_ns(&[7])), None);
        assert_eq!(loop_period_ps(&arrivals_ns(&[3, 3, 3])), None);
        assert_eq!(loop_period_ps(&[]), None);
    }

    #[test]
    fn a_looping_trace_flow_replays_its_passes_shifted_until_its_end_time() {
        let requests = arrivals_ns(&[0, 10, 40]);
        let mut flow = Flow {
            name: "t".into(),
            priority: 1,
            queue_depth: 8,
            source: Source::Trace { requests, next: 0, timestamps: true, looping: true, period_ps: 60_000, pass: 0 },
            limit: 0,
            // Stops before 130 ns: passes at 0, 60 and 120 ns give 0, 10, 40, 60, 70, 100, 120.
            end_ps: 130_000,
            issued: 0,
        };
        let mut got = Vec::new();
        while let Some(r) = flow.take(0) {
            got.push(r.arrival_ps / 1000);
        }
        assert_eq!(got, [0, 10, 40, 60, 70, 100, 120]);
        assert_eq!(flow.issued, 7);
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
        };
        let first = read_first_pages(&[flow], 8, 100, 1);
        assert_eq!(first.read_first, vec![1 << 3 | 1 << 7 | 1 << 9, 0]);
        assert_eq!((first.reads, first.writes), (3, 2));
    }
}
