//! The flows a workload builds, as the simulation runs them: where each flow's requests come
//! from (a synthetic generator or a trace, replayed once or looped), and the drive-dependent
//! checks and conversions that turn a [`WorkloadSpec`] into them ([`build_flows`]).
//!
//! The synthetic generator is in `synthetic.rs`; what the built flows will ask of the drive
//! (pages, requests, first accesses) in `demand.rs`.

use std::collections::VecDeque;

use rand_distr::Distribution;
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
    /// Requests handed in from outside as they arrive (`type = "live"`, [`Flow::push_live`]),
    /// taken in order. `open` until the outside closes it: an empty open flow waits.
    Live {
        queue: VecDeque<IoRequest>,
        open: bool,
    },
}

impl Source {
    /// Bytes of a trace's requests.
    pub fn request_bytes(&self) -> u64 {
        match self {
            Source::Trace { requests, .. } => crate::mem::bytes_of::<IoRequest>(requests.capacity()),
            Source::Synthetic(_) | Source::Live { .. } => 0,
        }
    }

    /// Bytes of a synthetic flow's table of request sizes.
    pub fn table_bytes(&self) -> u64 {
        match self {
            Source::Synthetic(s) => crate::mem::bytes_of::<(u32, f64)>(s.sizes_sectors.capacity()),
            Source::Trace { .. } | Source::Live { .. } => 0,
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
            Source::Live { queue, .. } => queue.front()?.arrival_ps,
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
            Source::Live { queue, .. } => queue.pop_front(),
        }
    }

    /// A live flow that may still be handed requests.
    pub fn is_open_live(&self) -> bool {
        matches!(self.source, Source::Live { open: true, .. })
    }

    /// Hand a live flow a request. Requests are taken in the order handed in, so the k-th
    /// handed in (from 0) is the one issued k-th. Panics on a flow that is
    /// not live and open.
    pub fn push_live(&mut self, req: IoRequest) {
        let Source::Live { queue, open: true } = &mut self.source else {
            panic!("{}: not an open live flow", self.name)
        };
        assert!(queue.back().is_none_or(|b| b.arrival_ps <= req.arrival_ps), "live requests arrive in order");
        queue.push_back(req);
    }

    /// No more requests for a live flow.
    pub fn close_live(&mut self) {
        if let Source::Live { open, .. } = &mut self.source {
            *open = false;
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
        FlowKind::Live => (Source::Live { queue: VecDeque::new(), open: true }, Vec::new(), ""),
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
}
