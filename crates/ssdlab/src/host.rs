//! Host: workloads and the flows (tenants) that issue them.
//!
//! Owns what the host asks of the drive and when: the workload file (flows, replay mode,
//! preconditioning), synthetic generators and trace replay. A flow issues requests either
//! closed-loop (keep `queue_depth` requests outstanding, as fast as the device allows) or
//! open-loop (at trace timestamps, or at a Poisson rate); requests that find the flow's
//! submission queue full wait in the host and their wait counts in their response time.

pub mod tenants;

use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use crate::engine::Ps;
use crate::error::{Error, Result};
use crate::ftl::precondition::Pattern;
use ssdlab_trace::{Format, Op};

/// A host request as the device sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoRequest {
    pub arrival_ps: Ps,
    pub op: IoOp,
    /// First sector.
    pub lba: u64,
    pub sectors: u32,
    /// Force unit access: never reordered.
    pub fua: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IoOp {
    Read,
    Write,
    Trim,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// Where the workload came from, for messages.
    #[serde(skip)]
    pub source: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub precondition: Option<PreconditionSpec>,
    pub flows: Vec<FlowSpec>,
}

fn default_seed() -> u64 {
    1
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PreconditionSpec {
    /// Fraction of the logical space written before measuring.
    pub occupancy: f64,
    /// random | sequential
    #[serde(default)]
    pub pattern: Pattern,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlowSpec {
    pub name: String,
    /// synthetic | trace
    #[serde(rename = "type")]
    pub kind: String,
    /// NVMe priority class: urgent | high | medium | low.
    pub priority: String,
    /// Closed loop: requests kept outstanding (default 32). Open loop (timestamps, a rate):
    /// the capacity of the flow's submission queue (default 1024, NVMe's usual size);
    /// requests that find it full wait in the host.
    pub queue_depth: Option<u32>,
    /// Stop after this many requests (0: the whole trace, or required for synthetic flows
    /// without `duration_ms`).
    pub requests: u64,
    /// Stop issuing after this much simulated time (0: no limit).
    pub duration_ms: f64,
    pub seed: Option<u64>,

    // Synthetic flows.
    pub read_ratio: f64,
    /// uniform | sequential | hotcold
    pub address: String,
    /// hotcold: fraction of the footprint that is hot, and fraction of accesses it gets.
    pub hot_fraction: f64,
    pub hot_access: f64,
    pub request_bytes: u64,
    /// Request size distribution, [[bytes, weight], ...]; overrides `request_bytes`.
    pub request_bytes_choices: Vec<(u64, f64)>,
    /// Offsets are multiples of this.
    pub align_bytes: u64,
    /// Fraction of the logical space the flow touches, starting at `start_bytes`.
    pub footprint: f64,
    pub start_bytes: u64,
    /// Open loop: mean arrival rate (Poisson); 0 means closed loop at `queue_depth`.
    pub rate_iops: f64,
    /// Fraction of requests that are TRIMs (taken out of the write share).
    pub trim_ratio: f64,
    /// Fraction of writes marked FUA.
    pub fua_ratio: f64,

    // Trace flows.
    pub path: Option<PathBuf>,
    pub format: Option<String>,
    /// closed_loop | timestamps
    pub replay: String,
    /// Timestamps replay: arrival times are divided by this.
    pub speedup: f64,
    /// Requests past the drive: reject | wrap | scale.
    pub address_mode: String,
}

impl Default for FlowSpec {
    fn default() -> Self {
        FlowSpec {
            name: String::new(),
            kind: "synthetic".into(),
            priority: "high".into(),
            queue_depth: None,
            requests: 0,
            duration_ms: 0.0,
            seed: None,
            read_ratio: 1.0,
            address: "uniform".into(),
            hot_fraction: 0.2,
            hot_access: 0.8,
            request_bytes: 4096,
            request_bytes_choices: Vec::new(),
            align_bytes: 4096,
            footprint: 1.0,
            start_bytes: 0,
            rate_iops: 0.0,
            trim_ratio: 0.0,
            fua_ratio: 0.0,
            path: None,
            format: None,
            replay: "closed_loop".into(),
            speedup: 1.0,
            address_mode: "reject".into(),
        }
    }
}

impl WorkloadSpec {
    /// Load a workload file, or a trace file as a single timestamps-replay flow.
    pub fn load(path: &Path) -> Result<WorkloadSpec> {
        let is_toml = path.extension().is_some_and(|e| e == "toml");
        if !is_toml {
            return Ok(WorkloadSpec::single_trace(path, "timestamps"));
        }
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let file = path.display().to_string();
        let mut spec: WorkloadSpec = toml::from_str(&text).map_err(|e| Error::toml(&file, &text, e))?;
        // Trace paths are relative to the workload file, unless that does not exist and the
        // path does relative to the working directory.
        let dir = path.parent().unwrap_or(Path::new("."));
        for f in &mut spec.flows {
            if let Some(p) = &f.path {
                let rel = dir.join(p);
                if p.is_relative() && rel.exists() {
                    f.path = Some(rel);
                }
            }
        }
        spec.source = file.clone();
        spec.validate(&file).map_err(|e| match e {
            Error::Config { file, key, message, .. } => {
                Error::Config { line: crate::error::line_of_key(&text, &key), file, key, message }
            }
            other => other,
        })?;
        Ok(spec)
    }

    pub fn single_trace(path: &Path, replay: &str) -> WorkloadSpec {
        WorkloadSpec {
            source: path.display().to_string(),
            seed: 1,
            precondition: None,
            flows: vec![FlowSpec {
                name: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                kind: "trace".into(),
                path: Some(path.to_path_buf()),
                replay: replay.into(),
                ..FlowSpec::default()
            }],
        }
    }

    pub fn validate(&self, file: &str) -> Result<()> {
        let bad = |key: &str, why: String| Err(Error::config(file, 0, key, &why));
        if self.flows.is_empty() {
            return bad("flows", "a workload needs at least one [[flows]] entry".into());
        }
        if self.flows.len() > 65535 {
            return bad("flows", "at most 65535 flows".into());
        }
        if let Some(p) = &self.precondition {
            if !(0.0..=1.0).contains(&p.occupancy) {
                return bad(
                    "precondition.occupancy",
                    format!("precondition.occupancy = {}: must be in [0, 1]", p.occupancy),
                );
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            let name = if f.name.is_empty() { format!("flows[{i}]") } else { format!("flow `{}`", f.name) };
            let key = |k: &str| format!("{name}: {k}");
            let bad = |k: &str, why: String| Err(Error::config(file, 0, &format!("flows[{i}].{k}"), &why));
            if !["urgent", "high", "medium", "low"].contains(&f.priority.as_str()) {
                return bad(
                    "priority",
                    format!("{} = {:?}: use urgent, high, medium or low", key("priority"), f.priority),
                );
            }
            if f.queue_depth.is_some_and(|q| q == 0 || q > 65536) {
                return bad(
                    "queue_depth",
                    format!("{} = {:?}: must be 1..65536", key("queue_depth"), f.queue_depth.unwrap_or(0)),
                );
            }
            if !(f.duration_ms.is_finite() && (0.0..=1e9).contains(&f.duration_ms)) {
                return bad(
                    "duration_ms",
                    format!("{} = {}: must be between 0 and 1e9", key("duration_ms"), f.duration_ms),
                );
            }
            match f.kind.as_str() {
                "synthetic" => {
                    if f.requests == 0 && f.duration_ms == 0.0 {
                        return bad("requests", format!("{name}: a synthetic flow needs requests or duration_ms"));
                    }
                    for (k, v) in [
                        ("read_ratio", f.read_ratio),
                        ("footprint", f.footprint),
                        ("hot_fraction", f.hot_fraction),
                        ("hot_access", f.hot_access),
                        ("trim_ratio", f.trim_ratio),
                        ("fua_ratio", f.fua_ratio),
                    ] {
                        if !(0.0..=1.0).contains(&v) {
                            return bad(k, format!("{} = {v}: must be in [0, 1]", key(k)));
                        }
                    }
                    if f.footprint == 0.0 {
                        return bad("footprint", format!("{} = 0: must be positive", key("footprint")));
                    }
                    if f.read_ratio + f.trim_ratio > 1.0 + 1e-12 {
                        return bad("trim_ratio", format!("{name}: read_ratio + trim_ratio exceeds 1"));
                    }
                    if Address::parse(&f.address).is_none() {
                        return bad(
                            "address",
                            format!("{} = {:?}: use uniform, sequential or hotcold", key("address"), f.address),
                        );
                    }
                    if f.request_bytes == 0 && f.request_bytes_choices.is_empty() {
                        return bad("request_bytes", format!("{} = 0: must be positive", key("request_bytes")));
                    }
                    if f.request_bytes_choices.iter().any(|&(b, w)| b == 0 || !(w.is_finite() && w >= 0.0))
                        || (!f.request_bytes_choices.is_empty()
                            && f.request_bytes_choices.iter().all(|&(_, w)| w == 0.0))
                    {
                        return bad(
                            "request_bytes_choices",
                            format!(
                                "{}: sizes must be positive and weights non-negative, not all zero",
                                key("request_bytes_choices")
                            ),
                        );
                    }
                    if f.align_bytes == 0 {
                        return bad("align_bytes", format!("{} = 0: must be positive", key("align_bytes")));
                    }
                    if !(f.rate_iops == 0.0 || (f.rate_iops.is_finite() && (1e-3..=1e10).contains(&f.rate_iops))) {
                        return bad(
                            "rate_iops",
                            format!(
                                "{} = {}: must be 0 (closed loop) or between 1e-3 and 1e10",
                                key("rate_iops"),
                                f.rate_iops
                            ),
                        );
                    }
                    if f.path.is_some() || f.format.is_some() {
                        return bad("path", format!("{name}: path/format are for type = \"trace\""));
                    }
                }
                "trace" => {
                    if f.path.is_none() {
                        return bad("path", format!("{name}: a trace flow needs path"));
                    }
                    if let Some(fmt) = &f.format {
                        if fmt.parse::<Format>().is_err() {
                            return bad("format", format!("{} = {fmt:?}: use msr, replayer, ssdsim, disksim, mqsim, umass, tencent or blkparse", key("format")));
                        }
                    }
                    if !["closed_loop", "timestamps"].contains(&f.replay.as_str()) {
                        return bad(
                            "replay",
                            format!("{} = {:?}: use closed_loop or timestamps", key("replay"), f.replay),
                        );
                    }
                    if !(f.speedup.is_finite() && (1e-6..=1e9).contains(&f.speedup)) {
                        return bad(
                            "speedup",
                            format!("{} = {}: must be between 1e-6 and 1e9", key("speedup"), f.speedup),
                        );
                    }
                }
                other => return bad("type", format!("{} = {other:?}: use synthetic or trace", key("type"))),
            }
            if !["reject", "wrap", "scale"].contains(&f.address_mode.as_str()) {
                return bad(
                    "address_mode",
                    format!("{} = {:?}: use reject, wrap or scale", key("address_mode"), f.address_mode),
                );
            }
        }
        Ok(())
    }
}

/// Where a flow's requests come from.
pub enum Source {
    Synthetic(Synthetic),
    /// Requests loaded from a trace, replayed in order.
    Trace {
        requests: Vec<IoRequest>,
        next: usize,
        timestamps: bool,
    },
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
            Source::Trace { requests, next, timestamps } => {
                let r = requests.get(*next)?;
                if *timestamps {
                    r.arrival_ps
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
            Source::Trace { requests, next, .. } => {
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

/// A synthetic flow's address pattern (`address`, validated when the workload is read).
#[derive(Debug, Clone, Copy)]
enum Address {
    Uniform,
    Sequential,
    HotCold,
}

impl Address {
    fn parse(s: &str) -> Option<Address> {
        match s {
            "uniform" => Some(Address::Uniform),
            "sequential" => Some(Address::Sequential),
            "hotcold" => Some(Address::HotCold),
            _ => None,
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
    let file = if spec.source.is_empty() { "workload" } else { spec.source.as_str() };
    let mut flows = Vec::with_capacity(spec.flows.len());
    for (i, f) in spec.flows.iter().enumerate() {
        let seed = f.seed.unwrap_or(flow_seed(seed, i));
        let priority = match f.priority.as_str() {
            "urgent" => 0,
            "high" => 1,
            "medium" => 2,
            _ => 3,
        };
        let end_ps = (f.duration_ms * 1e9).round() as Ps;
        let name = if f.name.is_empty() { format!("flow{i}") } else { f.name.clone() };
        let source = if f.kind == "trace" {
            let path = f.path.as_ref().expect("validated");
            let format = f.format.as_deref().map(|s| s.parse::<Format>().expect("validated"));
            let trace = ssdlab_trace::read(path, format)?;
            let requests = convert_trace(&trace, path, &f.address_mode, logical_sectors, sector_bytes, f.speedup)?;
            Source::Trace { requests, next: 0, timestamps: f.replay == "timestamps" }
        } else {
            let sb = sector_bytes as u64;
            let start_sector = f.start_bytes / sb;
            let span =
                ((logical_sectors as f64 * f.footprint) as u64).min(logical_sectors.saturating_sub(start_sector));
            let sizes: Vec<(u64, f64)> = if f.request_bytes_choices.is_empty() {
                vec![(f.request_bytes, 1.0)]
            } else {
                f.request_bytes_choices.clone()
            };
            let total: f64 = sizes.iter().map(|s| s.1).sum();
            let mut acc = 0.0;
            let mut sizes_sectors = Vec::new();
            for (bytes, w) in sizes {
                if bytes % sb != 0 {
                    return Err(Error::config(
                        file,
                        0,
                        &format!("flows[{i}].request_bytes"),
                        &format!("flow `{name}`: request_bytes {bytes} is not a multiple of the {sb}-byte sector"),
                    ));
                }
                acc += w / total;
                sizes_sectors.push(((bytes / sb) as u32, acc));
            }
            let max_sectors = sizes_sectors.iter().map(|s| s.0 as u64).max().unwrap_or(1);
            if max_sectors > span {
                return Err(Error::config(
                    file,
                    0,
                    &format!("flows[{i}].footprint"),
                    &format!(
                        "flow `{name}`: requests of {max_sectors} sectors do not fit a footprint of {span} sectors"
                    ),
                ));
            }
            if f.align_bytes % sb != 0 {
                return Err(Error::config(
                    file,
                    0,
                    &format!("flows[{i}].align_bytes"),
                    &format!("flow `{name}`: align_bytes {} is not a multiple of the {sb}-byte sector", f.align_bytes),
                ));
            }
            let arrival = if f.rate_iops > 0.0 { Some(Exp::new(f.rate_iops).expect("positive rate")) } else { None };
            Source::Synthetic(Synthetic {
                rng: Pcg64Mcg::seed_from_u64(seed),
                read_ratio: f.read_ratio,
                trim_ratio: f.trim_ratio,
                fua_ratio: f.fua_ratio,
                address: Address::parse(&f.address).expect("validated"),
                hot_fraction: f.hot_fraction,
                hot_access: f.hot_access,
                sizes_sectors,
                align_sectors: f.align_bytes / sb,
                start_sector,
                span_sectors: span,
                next_seq: 0,
                arrival,
                last_arrival_ps: 0,
            })
        };
        let open_loop = f.rate_iops > 0.0 || (f.kind == "trace" && f.replay == "timestamps");
        let queue_depth = f.queue_depth.unwrap_or(if open_loop { 1024 } else { 32 });
        flows.push(Flow { name, priority, queue_depth, source, limit: f.requests, end_ps, issued: 0 });
    }
    Ok(flows)
}

/// Trace records to device requests in sectors, applying the address mode.
fn convert_trace(
    trace: &ssdlab_trace::Trace,
    path: &Path,
    mode: &str,
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
        let mut sectors = (offset + size).div_ceil(sb) - first;
        if sectors > logical_sectors {
            return Err(Error::Request {
                file: path.display().to_string(),
                line: trace.lines[i],
                message: format!("request of {size} bytes is larger than the drive"),
            });
        }
        let lba = match mode {
            "wrap" => {
                if first + sectors <= logical_sectors {
                    first
                } else {
                    first % (logical_sectors - sectors + 1)
                }
            }
            "scale" => {
                let scaled = (first as u128 * cap_bytes as u128 / max_end.max(1) as u128) as u64;
                scaled.min(logical_sectors - sectors)
            }
            _ => {
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
        sectors = sectors.max(1);
        let op = match r.op {
            Op::Read => IoOp::Read,
            Op::Write => IoOp::Write,
            Op::Trim => IoOp::Trim,
        };
        let arrival_ps = if speedup == 1.0 { r.arrival_ps } else { (r.arrival_ps as f64 / speedup).round() as Ps };
        out.push(IoRequest { arrival_ps, op, lba, sectors: sectors as u32, fua: false });
    }
    Ok(out)
}
