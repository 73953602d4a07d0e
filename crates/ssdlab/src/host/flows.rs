//! The flows a workload builds, as the simulation runs them: where each flow's requests come
//! from (a synthetic generator or a trace, replayed once or looped), and the drive-dependent
//! checks and conversions that turn a [`WorkloadSpec`] into them ([`build_flows`]).

use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Exp, Zipf};
use rand_pcg::Pcg64Mcg;
use ssdlab_trace::Op;

use super::warnings::{moved_warning, shared_time_warning, TraceNotes};
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
    /// `start_ms`: no request arrives before this.
    start_ps: Ps,
    /// `address = "zipf"`: θ, and the distribution of ranks over the slot count last drawn
    /// for (a flow's sizes give few slot counts, so it is rarely rebuilt); boxed, so flows
    /// without it stay as small as before.
    zipf_theta: f64,
    zipf: Option<Box<(u64, Zipf<f64>)>>,
    /// `type_persistence` > 0: each slot's last type.
    history: Option<TypeHistory>,
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
    /// What building the flow found worth saying about its input (a report's `warnings`):
    /// requests `address_mode` moved, arrival times many requests share.
    pub warnings: Vec<String>,
    /// A trace flow: the unit its timestamps were read in (`ssdlab_trace::Format::time_unit`),
    /// for the arrival-rate warning; "" for a synthetic flow.
    pub time_unit: &'static str,
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
                None => now.max(s.start_ps),
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
        if self.history.is_some() {
            return self.generate_persistent();
        }
        // Without type_persistence: the type, FUA, size and slot, drawn in that order.
        let op = self.draw_op();
        let fua = self.draw_fua(op);
        let sectors = self.draw_sectors();
        let slot = self.draw_slot(sectors);
        IoRequest { arrival_ps: 0, op, lba: self.start_sector + slot * self.align_sectors, sectors, fua }
    }

    /// `type_persistence` ρ: the size and slot first, then the type. The type is drawn as
    /// without ρ; a read or write whose slot has a history is then replaced, with probability
    /// ρ, by the slot's last type (docs/techniques.md §10.10 item 6: PACP's TRH needs pages
    /// whose types come in runs). A trim keeps its own share whatever the history and clears
    /// the slot's history, so the read, write and trim shares stay `read_ratio`,
    /// 1 − `read_ratio` − `trim_ratio` and `trim_ratio`.
    fn generate_persistent(&mut self) -> IoRequest {
        let sectors = self.draw_sectors();
        let slot = self.draw_slot(sectors);
        let mut op = self.draw_op();
        let history = self.history.as_mut().expect("called with a history");
        if op != IoOp::Trim {
            if let Some(last) = history.last(slot) {
                if self.rng.random::<f64>() < history.rho {
                    op = last;
                }
            }
        }
        history.record(slot, op);
        let fua = self.draw_fua(op);
        IoRequest { arrival_ps: 0, op, lba: self.start_sector + slot * self.align_sectors, sectors, fua }
    }

    fn draw_op(&mut self) -> IoOp {
        let u: f64 = self.rng.random();
        if u < self.read_ratio {
            IoOp::Read
        } else if u < self.read_ratio + self.trim_ratio {
            IoOp::Trim
        } else {
            IoOp::Write
        }
    }

    fn draw_fua(&mut self, op: IoOp) -> bool {
        op == IoOp::Write && self.fua_ratio > 0.0 && self.rng.random::<f64>() < self.fua_ratio
    }

    fn draw_sectors(&mut self) -> u32 {
        if self.sizes_sectors.len() == 1 {
            return self.sizes_sectors[0].0;
        }
        let x: f64 = self.rng.random();
        self.sizes_sectors
            .iter()
            .find(|&&(_, c)| x < c)
            .map(|&(s, _)| s)
            .unwrap_or(self.sizes_sectors.last().expect("non-empty").0)
    }

    /// The aligned slot (from the footprint's start) of a request of `sectors`.
    fn draw_slot(&mut self, sectors: u32) -> u64 {
        // Number of aligned slots where a request of this size fits in the footprint.
        let slots = ((self.span_sectors.saturating_sub(sectors as u64)) / self.align_sectors + 1).max(1);
        match self.address {
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
            Address::Zipf => {
                let theta = self.zipf_theta;
                let zipf = match &self.zipf {
                    Some(cached) if cached.0 == slots => &cached.1,
                    _ => &self.zipf.insert(Box::new((slots, Zipf::new(slots as f64, theta).expect("θ checked > 0")))).1,
                };
                // Ranks 1..=slots; rank r is slot r − 1.
                (zipf.sample(&mut self.rng) as u64).clamp(1, slots) - 1
            }
        }
    }
}

/// The most memory a synthetic flow's [`TypeHistory`] may take: 1 GiB, two bits per slot,
/// so 2^32 slots (16 TiB of footprint at 4 KiB alignment).
pub const MAX_TYPE_HISTORY_BYTES: u64 = 1 << 30;

/// A synthetic flow's per-slot type history, kept only with `type_persistence` > 0: two
/// bitmaps over the flow's aligned slots, one bit saying the slot was read or written since
/// its last trim, one that its last such access read. Two bits per slot, allocated when the
/// flow is built (bounded by [`MAX_TYPE_HISTORY_BYTES`]); a request costs two bit reads and
/// two bit writes.
struct TypeHistory {
    /// `type_persistence`: probability that a read or write repeats its slot's last type.
    rho: f64,
    seen: Vec<u64>,
    read: Vec<u64>,
}

impl TypeHistory {
    /// The history of `slots` slots, or an error when its bitmaps would pass
    /// [`MAX_TYPE_HISTORY_BYTES`].
    fn new(rho: f64, slots: u64, align_bytes: u64) -> std::result::Result<TypeHistory, Bad> {
        let words = slots.div_ceil(64);
        let bytes = 2 * words * 8;
        if bytes > MAX_TYPE_HISTORY_BYTES {
            return Err(Bad {
                key: "type_persistence",
                message: format!(
                    "type_persistence keeps 2 bits per slot: {slots} slots of {align_bytes} bytes need {bytes} bytes, more than the {MAX_TYPE_HISTORY_BYTES}-byte limit; raise align_bytes or lower footprint"
                ),
            });
        }
        Ok(TypeHistory { rho, seen: vec![0; words as usize], read: vec![0; words as usize] })
    }

    /// The last type of `slot` (read or write), None when it has none since its last trim.
    fn last(&self, slot: u64) -> Option<IoOp> {
        let (w, bit) = ((slot / 64) as usize, 1u64 << (slot % 64));
        if self.seen[w] & bit == 0 {
            return None;
        }
        Some(if self.read[w] & bit != 0 { IoOp::Read } else { IoOp::Write })
    }

    /// `op` on `slot`: a read or write becomes its last type; a trim clears its history.
    fn record(&mut self, slot: u64, op: IoOp) {
        let (w, bit) = ((slot / 64) as usize, 1u64 << (slot % 64));
        match op {
            IoOp::Trim => self.seen[w] &= !bit,
            IoOp::Read => {
                self.seen[w] |= bit;
                self.read[w] |= bit;
            }
            IoOp::Write => {
                self.seen[w] |= bit;
                self.read[w] &= !bit;
            }
        }
    }
}

/// The seed of flow `i` that has none of its own, derived from the run's seed.
pub fn flow_seed(seed: u64, i: usize) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i as u64 + 1)
}

/// Build run-time flows. `logical_sectors` is the drive's exposed size; flows without a seed
/// of their own derive one from `seed`. An error names the workload file, and its line when
/// the workload is a file.
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
    let drive = FlowDrive { logical_sectors, sector_bytes, trace_limit };
    let flows = spec.flows.iter().enumerate().map(|(i, f)| build_flow(spec, i, f, seed, &drive));
    flows.collect::<Result<Vec<Flow>>>().map_err(|e| spec.with_line(e))
}

/// What a flow is built for: the drive's exposed size and sector, and the requests a trace
/// may hold in memory.
struct FlowDrive<'a> {
    logical_sectors: u64,
    sector_bytes: u32,
    trace_limit: Option<(usize, &'a str)>,
}

/// Flow `i` of `spec` (`f`) on `drive`.
fn build_flow(spec: &WorkloadSpec, i: usize, f: &FlowSpec, seed: u64, drive: &FlowDrive) -> Result<Flow> {
    let file = if spec.source.is_empty() { "workload" } else { spec.source.as_str() };
    let name = if f.name.is_empty() { format!("flow{i}") } else { f.name.clone() };
    let (logical_sectors, sector_bytes) = (drive.logical_sectors, drive.sector_bytes);
    let (source, warnings, time_unit) = match f.kind {
        FlowKind::Trace => {
            let (source, notes) = trace_source(f, &name, logical_sectors, sector_bytes, drive.trace_limit)?;
            if let Source::Trace { looping: true, timestamps: true, period_ps: 0, .. } = source {
                return Err(Error::config(
                    file,
                    0,
                    &format!("flows[{i}].loop"),
                    &format!(
                        "flow `{name}`: loop = true with replay = \"timestamps\" needs a trace of at least two requests whose arrivals span a positive time (a pass is shifted by that span plus the mean gap)"
                    ),
                ));
            }
            (source, notes.warnings, notes.time_unit)
        }
        FlowKind::Synthetic => {
            let seed = f.seed.unwrap_or(flow_seed(seed, i));
            let synthetic = Synthetic::new(f, seed, logical_sectors, sector_bytes).map_err(|b| {
                Error::config(file, 0, &format!("flows[{i}].{}", b.key), &format!("flow `{name}`: {}", b.message))
            })?;
            (Source::Synthetic(synthetic), Vec::new(), "")
        }
    };
    Ok(Flow {
        name,
        priority: f.priority.class(),
        queue_depth: f.queue_depth.unwrap_or(if f.open_loop() { 1024 } else { 32 }),
        source,
        limit: f.requests,
        end_ps: (f.duration_ms * 1e9).round() as Ps,
        issued: 0,
        warnings,
        time_unit,
    })
}

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

/// A trace flow's requests: the trace read (holding at most `limit`'s count of requests),
/// converted to sectors of the drive, with what the conversion and the arrival times are worth
/// warning about.
fn trace_source(
    f: &FlowSpec,
    name: &str,
    logical_sectors: u64,
    sector_bytes: u32,
    limit: Option<(usize, &str)>,
) -> Result<(Source, TraceNotes)> {
    let path = f.path.as_ref().expect("validated: a trace flow has a path");
    let map = f.column_map().expect("validated: the column map parses");
    let mut trace = ssdlab_trace::read_limited(path, f.format, map.as_ref(), limit)?;
    if let Some(device) = f.device {
        keep_device(&mut trace, device, path)?;
    }
    let (requests, moved) = convert_trace(&trace, path, f.address_mode, logical_sectors, sector_bytes, f.speedup)?;
    let time_unit = match &map {
        Some(m) => m.time_unit().map_or("none (no time column: every request arrives at 0)", |u| u.name()),
        None => trace.format.time_unit().unwrap_or("ns"),
    };
    let mut warnings = Vec::new();
    warnings.extend(moved_warning(name, f.address_mode, moved, requests.len(), logical_sectors * sector_bytes as u64));
    if f.replay == Replay::Timestamps {
        warnings.extend(shared_time_warning(name, &trace.records, time_unit));
    }
    let period_ps = if f.loop_trace { loop_period_ps(&requests).unwrap_or(0) } else { 0 };
    let source = Source::Trace {
        requests,
        next: 0,
        timestamps: f.replay == Replay::Timestamps,
        looping: f.loop_trace,
        period_ps,
        pass: 0,
    };
    Ok((source, TraceNotes { warnings, time_unit }))
}

impl Synthetic {
    /// The generator of synthetic flow `f` on a drive of `logical_sectors`. Fails if a
    /// request size or the alignment is not whole sectors, or the largest request does not
    /// fit the footprint.
    fn new(f: &FlowSpec, seed: u64, logical_sectors: u64, sector_bytes: u32) -> std::result::Result<Synthetic, Bad> {
        let sb = sector_bytes as u64;
        let start_sector = f.start_bytes / sb;
        if start_sector >= logical_sectors {
            let drive_bytes = logical_sectors * sb;
            return Err(Bad {
                key: "start_bytes",
                message: format!(
                    "start_bytes = {}: past the end of the drive's {drive_bytes} logical bytes",
                    f.start_bytes
                ),
            });
        }
        let wanted = match f.footprint_bytes {
            0 => (logical_sectors as f64 * f.footprint) as u64,
            bytes => bytes / sb,
        };
        let span = wanted.min(logical_sectors - start_sector);
        let sizes_sectors = size_table(f, sb)?;
        let max_sectors = sizes_sectors.iter().map(|s| s.0 as u64).max().unwrap_or(1);
        if max_sectors > span {
            let room = if span < wanted {
                format!(" (what is left of the drive after start_bytes = {})", f.start_bytes)
            } else {
                String::new()
            };
            return Err(Bad {
                key: "footprint",
                message: format!("requests of {max_sectors} sectors do not fit a footprint of {span} sectors{room}"),
            });
        }
        if !f.align_bytes.is_multiple_of(sb) {
            return Err(Bad {
                key: "align_bytes",
                message: format!("align_bytes {} is not a multiple of the {sb}-byte sector", f.align_bytes),
            });
        }
        if f.address == Address::HotCold {
            // The largest request has the fewest slots.
            check_hot_slots(f, span, max_sectors, sb)?;
        }
        let arrival = if f.rate_iops > 0.0 { Some(Exp::new(f.rate_iops).expect("positive rate")) } else { None };
        let start_ps = (f.start_ms * 1e9).round() as Ps;
        let align_sectors = f.align_bytes / sb;
        let history = match f.type_persistence > 0.0 {
            // The slots of the smallest request: every slot a request can start at.
            true => Some(TypeHistory::new(f.type_persistence, span / align_sectors + 1, f.align_bytes)?),
            false => None,
        };
        Ok(Synthetic {
            rng: Pcg64Mcg::seed_from_u64(seed),
            read_ratio: f.read_ratio,
            trim_ratio: f.trim_ratio,
            fua_ratio: f.fua_ratio,
            address: f.address,
            hot_fraction: f.hot_fraction,
            hot_access: f.hot_access,
            sizes_sectors,
            align_sectors,
            start_sector,
            span_sectors: span,
            next_seq: 0,
            arrival,
            rate_iops: f.rate_iops,
            last_arrival_ps: start_ps,
            start_ps,
            zipf_theta: f.zipf_theta,
            zipf: None,
            history,
        })
    }
}

/// `address = "hotcold"`: the hot set holds at least one slot of the footprint (`span`
/// sectors) for a request of `sectors`; a smaller `hot_fraction` would send `hot_access` of
/// the requests to a single slot, which is no hot set.
fn check_hot_slots(f: &FlowSpec, span: u64, sectors: u64, sb: u64) -> std::result::Result<(), Bad> {
    let slots = (span.saturating_sub(sectors) / (f.align_bytes / sb) + 1).max(1);
    if (slots as f64 * f.hot_fraction) < 1.0 {
        return Err(Bad {
            key: "hot_fraction",
            message: format!(
                "hot_fraction = {}: the hot set would be less than one of the footprint's {slots} slots, so hot_access of the requests would go to a single slot; raise it to at least {:.3e}",
                f.hot_fraction,
                1.0 / slots as f64
            ),
        });
    }
    Ok(())
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

/// Trace records to device requests in sectors, applying the address mode; with the number
/// of requests it moved (started elsewhere than the trace says).
fn convert_trace(
    trace: &ssdlab_trace::Trace,
    path: &Path,
    mode: AddressMode,
    logical_sectors: u64,
    sector_bytes: u32,
    speedup: f64,
) -> Result<(Vec<IoRequest>, u64)> {
    let records = &trace.records;
    let sb = sector_bytes as u64;
    let max_end = records.iter().map(|r| r.offset_bytes + r.size_bytes).max().unwrap_or(0);
    let cap_bytes = logical_sectors * sb;
    let mut out = Vec::with_capacity(records.len());
    let mut moved = 0;
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
        moved += u64::from(lba != first);
        out.push(IoRequest { arrival_ps, op, lba, sectors, fua: false });
    }
    Ok((out, moved))
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
            warnings: Vec::new(),
            time_unit: "ns",
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
            warnings: Vec::new(),
            time_unit: "ns",
        };
        let first = read_first_pages(&[flow], 8, 100, 1);
        assert_eq!(first.read_first, vec![1 << 3 | 1 << 7 | 1 << 9, 0]);
        assert_eq!((first.reads, first.writes), (3, 2));
    }

    /// A synthetic flow's generator on a drive of 1,000 pages of 4 KiB (512-byte sectors).
    fn generator(f: FlowSpec, seed: u64) -> Synthetic {
        Synthetic::new(&FlowSpec { requests: 1, ..f }, seed, 8_000, 512).unwrap_or_else(|b| panic!("{}", b.message))
    }

    /// 20 slots of 4 KiB, so nearly every request finds its slot with a history.
    fn persistent(read_ratio: f64, rho: f64) -> Synthetic {
        generator(FlowSpec { read_ratio, type_persistence: rho, footprint: 0.02, ..FlowSpec::default() }, 7)
    }

    /// Each request's slot and whether it reads (no trims in these flows).
    fn stream(g: &mut Synthetic, n: usize) -> Vec<(u64, bool)> {
        (0..n).map(|_| g.generate()).map(|r| (r.lba / 8, r.op == IoOp::Read)).collect()
    }

    /// Per slot, its reads and writes in order.
    fn per_slot(requests: &[(u64, bool)]) -> std::collections::BTreeMap<u64, Vec<bool>> {
        let mut slots = std::collections::BTreeMap::<u64, Vec<bool>>::new();
        requests.iter().for_each(|&(slot, read)| slots.entry(slot).or_default().push(read));
        slots
    }

    /// Each slot is a two-state Markov chain, read → write with probability (1 − ρ)(1 − r)
    /// and write → read with (1 − ρ)r, started from its first draw (read with r): its
    /// stationary read share b / (a + b) is r, so every request reads with probability r.
    /// The share over n requests has the binomial variance r(1 − r)/n inflated by the
    /// chain's (1 + λ)/(1 − λ), λ = 1 − a − b = ρ the lag-one correlation: r = 0.3,
    /// ρ = 0.8, n = 200,000 give a standard error of √(0.21 × 9 / 200,000) = 0.0031; the test
    /// allows 4 of them.
    #[test]
    fn type_persistence_keeps_the_read_share() {
        let requests = stream(&mut persistent(0.3, 0.8), 200_000);
        let share = requests.iter().filter(|r| r.1).count() as f64 / requests.len() as f64;
        assert!((share - 0.3).abs() < 4.0 * 0.0031, "read share {share}");
    }

    /// A request repeats its slot's previous type with ρ + (1 − ρ)(r² + (1 − r)²): r = 0.5,
    /// ρ = 0.6 gives 0.6 + 0.4 × 0.5 = 0.8 (without persistence it would be 0.5). With
    /// r = 0.5 each step of a slot's chain keeps its type independently of the others, so
    /// the repeats are Bernoulli(0.8): over about 200,000 pairs the standard error is
    /// √(0.16 / 200,000) = 0.0009; the test allows 4 of them.
    #[test]
    fn type_persistence_sets_the_repeat_probability() {
        let slots = per_slot(&stream(&mut persistent(0.5, 0.6), 200_020));
        let pairs: Vec<bool> = slots.values().flat_map(|ops| ops.windows(2).map(|w| w[0] == w[1])).collect();
        let repeat = pairs.iter().filter(|&&same| same).count() as f64 / pairs.len() as f64;
        assert!((repeat - 0.8).abs() < 4.0 * 0.0009, "repeat share {repeat} over {} pairs", pairs.len());
    }

    /// A read stays a read with ρ + (1 − ρ)r, so a slot's runs of reads are geometric with
    /// mean 1 / ((1 − ρ)(1 − r)): r = 0.3, ρ = 0.8 give 1 / (0.2 × 0.7) = 7.143 (1.43 without
    /// persistence). The runs' standard deviation is √(1 − p) / p = 6.6, p = 0.14; a million
    /// requests hold about 42,000 finished runs (300,000 reads / 7.143), a standard error of
    /// 0.032; the test allows 4 of them. A slot's last run is cut by the end and left out.
    #[test]
    fn type_persistence_sets_the_mean_read_run() {
        let slots = per_slot(&stream(&mut persistent(0.3, 0.8), 1_000_000));
        let mut runs = Vec::new();
        for ops in slots.values() {
            let mut run = 0u64;
            for &read in ops {
                match (read, run) {
                    (true, _) => run += 1,
                    (false, 0) => {}
                    (false, _) => {
                        runs.push(run);
                        run = 0;
                    }
                }
            }
        }
        let mean = runs.iter().sum::<u64>() as f64 / runs.len() as f64;
        assert!((mean - 1.0 / (0.2 * 0.7)).abs() < 4.0 * 0.032, "mean read run {mean} over {} runs", runs.len());
    }

    /// The generator before `type_persistence`, copied: type, FUA, size, slot.
    fn old_rule(f: &FlowSpec, seed: u64, n: usize) -> Vec<(IoOp, u64, u32, bool)> {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let (span, align) = ((8_000.0 * f.footprint) as u64, f.align_bytes / 512);
        let sizes = [(8u32, 0.5), (32, 1.0)];
        let mut out = Vec::new();
        for _ in 0..n {
            let u: f64 = rng.random();
            let op = match u {
                u if u < f.read_ratio => IoOp::Read,
                u if u < f.read_ratio + f.trim_ratio => IoOp::Trim,
                _ => IoOp::Write,
            };
            let fua = op == IoOp::Write && rng.random::<f64>() < f.fua_ratio;
            let x: f64 = rng.random();
            let sectors = sizes.iter().find(|&&(_, c)| x < c).map_or(32, |&(s, _)| s);
            let slots = (span - sectors as u64) / align + 1;
            let hot = ((slots as f64 * f.hot_fraction) as u64).clamp(1, slots);
            let slot = match rng.random::<f64>() < f.hot_access {
                true => rng.random_range(0..hot),
                false => rng.random_range(hot..slots),
            };
            out.push((op, slot * align, sectors, fua));
        }
        out
    }

    #[test]
    fn without_type_persistence_the_stream_is_the_old_rules() {
        let f = FlowSpec {
            read_ratio: 0.3,
            trim_ratio: 0.1,
            fua_ratio: 0.2,
            address: Address::HotCold,
            request_bytes_choices: vec![(4096, 1.0), (16384, 1.0)],
            footprint: 0.5,
            ..FlowSpec::default()
        };
        let mut g = generator(f.clone(), 11);
        let got: Vec<_> = (0..20_000).map(|_| g.generate()).map(|r| (r.op, r.lba, r.sectors, r.fua)).collect();
        assert_eq!(got, old_rule(&f, 11, 20_000));
    }

    /// Slot 5 read, then written: its last type follows; a trim clears it, and slot 6 (same
    /// word) and 70 (next word) are untouched.
    #[test]
    fn a_slot_history_keeps_the_last_read_or_write_until_a_trim() {
        let mut h = TypeHistory::new(0.5, 128, 4096).unwrap_or_else(|b| panic!("{}", b.message));
        assert_eq!(h.last(5), None);
        h.record(5, IoOp::Read);
        h.record(70, IoOp::Write);
        assert_eq!((h.last(5), h.last(6), h.last(70)), (Some(IoOp::Read), None, Some(IoOp::Write)));
        h.record(5, IoOp::Write);
        assert_eq!(h.last(5), Some(IoOp::Write));
        h.record(5, IoOp::Trim);
        assert_eq!((h.last(5), h.last(70)), (None, Some(IoOp::Write)));
    }

    /// A trim is drawn at its own share whatever the history: with r = 0.5, trims 0.2 and
    /// ρ = 0.9 on 20 slots, trims stay 0.2 of 100,000 requests (binomial standard error
    /// √(0.16 / 100,000) = 0.0013, trims being drawn independently; 4 allowed), and a read
    /// or write right after a trim on its slot is drawn afresh: read with 0.5 / 0.8 = 0.625.
    #[test]
    fn type_persistence_leaves_trims_at_their_share() {
        let f =
            FlowSpec { read_ratio: 0.5, trim_ratio: 0.2, type_persistence: 0.9, footprint: 0.02, ..Default::default() };
        let mut g = generator(f, 3);
        let ops: Vec<(u64, IoOp)> = (0..100_000).map(|_| g.generate()).map(|r| (r.lba / 8, r.op)).collect();
        let trims = ops.iter().filter(|o| o.1 == IoOp::Trim).count() as f64 / ops.len() as f64;
        assert!((trims - 0.2).abs() < 4.0 * 0.0013, "trim share {trims}");
        let mut last = std::collections::HashMap::new();
        let (mut after_trim, mut reads) = (0u64, 0u64);
        for &(slot, op) in &ops {
            if last.insert(slot, op) == Some(IoOp::Trim) && op != IoOp::Trim {
                after_trim += 1;
                reads += u64::from(op == IoOp::Read);
            }
        }
        // About 100,000 × 0.2 × 0.8 = 16,000 such requests: standard error √(0.625 × 0.375 /
        // 16,000) = 0.0038; 4 allowed.
        let share = reads as f64 / after_trim as f64;
        assert!((share - 0.625).abs() < 4.0 * 0.0038, "read share after a trim {share} over {after_trim}");
    }

    /// 2^34 slots of 512 bytes (an 8 TiB footprint) need 2 × 2^34 / 8 = 4 GiB of bitmap,
    /// past the 1 GiB limit: the flow is rejected naming the key and the flow.
    #[test]
    fn a_type_history_past_its_memory_limit_is_rejected() {
        let f = FlowSpec { requests: 1, align_bytes: 512, type_persistence: 0.5, ..FlowSpec::default() };
        let spec = WorkloadSpec { source: "w.toml".into(), seed: 1, precondition: None, ramp_ms: 0.0, flows: vec![f] };
        let Err(Error::Config { key, message, .. }) = build_flows(&spec, 1, 1 << 34, 512) else {
            panic!("a 4 GiB history was accepted");
        };
        assert_eq!(key, "flows[0].type_persistence");
        assert!(message.starts_with("flow `flow0`: type_persistence keeps 2 bits per slot: 17179869185 slots of 512 bytes need 4294967312 bytes"), "{message}");
    }
}
