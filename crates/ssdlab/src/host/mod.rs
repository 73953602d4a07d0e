//! Host: workloads and the flows (tenants) that issue them.
//!
//! Owns what the host asks of the drive and when: the workload file (flows, replay mode,
//! preconditioning), synthetic generators and trace replay. A flow issues requests either
//! closed-loop (keep `queue_depth` requests outstanding, as fast as the device allows) or
//! open-loop (at trace timestamps, or at a Poisson rate); requests that find the flow's
//! submission queue full wait in the host and their wait counts in their response time. A
//! trace flow with `loop` starts its trace again when it ends ([`loop_period_ps`] says how
//! far each timestamps pass is shifted), so a short excerpt lasts a whole run.
//!
//! The workload file's choices (`type`, `priority`, `address`, `format`, `replay`,
//! `address_mode`) are enums spelled as in the file, so a misspelled one fails when the file
//! is read, naming its line, key and value; [`WorkloadSpec::validate`] checks the ranges
//! serde cannot, and [`build_flows`] what needs the drive (whole sectors, the footprint).

mod demand;
pub mod fio;
mod flows;
mod synthetic;
pub mod tenants;
mod warnings;

pub use demand::{demand, footprint_pages, read_first_pages, read_write_pages, Demand, FirstAccess};
pub use flows::*;
pub use synthetic::{Synthetic, MAX_TYPE_HISTORY_BYTES};
pub use warnings::{arrival_rate_warning, PeakRate};

use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::de::value::StrDeserializer;
use serde::de::{DeserializeOwned, IntoDeserializer};
use serde::{Deserialize, Serialize};

use crate::engine::Ps;
use crate::error::{Error, Result};
use crate::ftl::precondition::Pattern;
use ssdlab_trace::Format;

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
    /// Warm-up: requests arriving before this much simulated time (ms) are simulated but
    /// left out of every statistic of requests (counts, latencies, IOPS, bandwidth, the time
    /// series, the latency log); the report counts them. 0: none.
    #[serde(default, skip_serializing_if = "is_zero_ms")]
    pub ramp_ms: f64,
    pub flows: Vec<FlowSpec>,
}

/// A report's copy of a workload without a warm-up leaves `ramp_ms` out, as it was before
/// the key existed.
fn is_zero_ms(ms: &f64) -> bool {
    *ms == 0.0
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
    /// Where requests come from: synthetic | trace.
    #[serde(rename = "type")]
    pub kind: FlowKind,
    /// NVMe priority class: urgent | high | medium | low.
    pub priority: Priority,
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
    pub address: Address,
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
    /// The footprint in bytes (cut at the drive's end); 0: `footprint` says it as a fraction.
    #[serde(skip_serializing_if = "is_zero_u64")]
    pub footprint_bytes: u64,
    pub start_bytes: u64,
    /// `address = "zipf"`: the exponent θ (> 0); 0 when unset.
    #[serde(skip_serializing_if = "is_zero_f64")]
    pub zipf_theta: f64,
    /// No request of the flow arrives before this simulated time (ms); 0: from the start.
    #[serde(skip_serializing_if = "is_zero_f64")]
    pub start_ms: f64,
    /// Open loop: mean arrival rate (Poisson); 0 means closed loop at `queue_depth`.
    pub rate_iops: f64,
    /// Fraction of requests that are TRIMs (taken out of the write share).
    pub trim_ratio: f64,
    /// Fraction of writes marked FUA.
    pub fua_ratio: f64,
    /// Probability that a read or write repeats the last type of its first page (the slot it
    /// starts at), so pages keep runs of reads and of writes (docs/workload.md); 0 draws every
    /// request's type independently.
    #[serde(skip_serializing_if = "is_zero_f64")]
    pub type_persistence: f64,

    // Trace flows.
    pub path: Option<PathBuf>,
    /// The trace's format; detected when omitted.
    #[serde(with = "format_name")]
    pub format: Option<Format>,
    /// closed_loop | timestamps
    pub replay: Replay,
    /// Timestamps replay: arrival times are divided by this.
    pub speedup: f64,
    /// Requests past the drive: reject | wrap | scale.
    pub address_mode: AddressMode,
    /// Replay the trace again from its start when it ends, until `duration_ms` or `requests`
    /// stops the flow; with timestamps, pass k is shifted by k × [`loop_period_ps`].
    #[serde(rename = "loop", skip_serializing_if = "is_false")]
    pub loop_trace: bool,
    /// Column-mapped text: which column holds what (`--columns` text, or a built-in
    /// format's name); see `ssdlab_trace::ColumnMap`. Implies `format = "csv"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub columns: Option<String>,
    /// Column-mapped text: op codes, `code=read|write|trim,...`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ops: Option<String>,
    /// Column-mapped text: the separator (one character, `tab` or `blanks`; default `,`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
    /// Column-mapped text: the first content line names the columns.
    #[serde(skip_serializing_if = "is_false")]
    pub header: bool,
    /// Column-mapped text: lines dropped at the start of the file.
    #[serde(skip_serializing_if = "is_zero")]
    pub skip_lines: usize,
    /// Replay only this device's (volume's) requests; every device when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<u32>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

fn is_zero_f64(x: &f64) -> bool {
    *x == 0.0
}

/// Keys that are off by default are left out of a report's copy of the workload, so that
/// reports of workloads that do not use them stay as they were.
fn is_false(b: &bool) -> bool {
    !*b
}

/// Where a flow's requests come from (`type`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowKind {
    /// A generator ([`Synthetic`]).
    #[default]
    Synthetic,
    /// A trace file, replayed in order.
    Trace,
    /// Requests from outside the simulation, as they come: a client of `ssdlab serve` (one
    /// NBD connection). Takes `name`, `priority` and `queue_depth` only.
    Live,
}

/// A flow's NVMe priority class (`priority`): the class of its submission queue under
/// weighted round-robin arbitration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Served strictly before the others.
    Urgent,
    #[default]
    High,
    Medium,
    Low,
}

impl Priority {
    /// The class as the layers number it: 0 urgent, 1 high, 2 medium, 3 low.
    pub fn class(self) -> u8 {
        match self {
            Priority::Urgent => 0,
            Priority::High => 1,
            Priority::Medium => 2,
            Priority::Low => 3,
        }
    }
}

/// A synthetic flow's address pattern over its footprint (`address`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Address {
    /// Uniformly random aligned slots.
    #[default]
    Uniform,
    /// Consecutive slots, wrapping at the end of the footprint.
    Sequential,
    /// `hot_access` of the requests go to the first `hot_fraction` of the slots.
    HotCold,
    /// Zipf over the slots with exponent `zipf_theta`: slot k (from 0) has rank k + 1 and
    /// is drawn with probability (k + 1)^−θ / H(n, θ), so the first slots are the hottest.
    Zipf,
}

/// How a trace flow's requests arrive (`replay`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Replay {
    /// Trace times ignored; `queue_depth` requests kept outstanding, in trace order.
    #[default]
    ClosedLoop,
    /// Open loop: each request arrives at its trace time divided by `speedup`.
    Timestamps,
}

/// What a trace flow does with requests that end past the drive (`address_mode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressMode {
    /// An error naming the request.
    #[default]
    Reject,
    /// A request that does not fit starts at its first sector modulo the room left.
    Wrap,
    /// Every start is rescaled from the trace's address space onto the drive's.
    Scale,
}

/// Command-line spellings (`--replay`, `--address-mode`): those of the workload file.
impl FromStr for Replay {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_choice(s)
    }
}

impl FromStr for AddressMode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_choice(s)
    }
}

/// A choice spelled as in the workload file, through its serde derive so that the two
/// spellings cannot drift apart; the error lists the choices.
fn parse_choice<T: DeserializeOwned>(s: &str) -> std::result::Result<T, String> {
    let value: StrDeserializer<'_, serde::de::value::Error> = s.into_deserializer();
    T::deserialize(value).map_err(|e| e.to_string())
}

/// `format`: a trace format by name, case-insensitive, through ssdlab-trace's `FromStr`
/// (that crate has no serde); written back as the lower-case name.
mod format_name {
    use serde::{Deserialize, Deserializer, Serializer};
    use ssdlab_trace::Format;

    pub fn serialize<S: Serializer>(format: &Option<Format>, s: S) -> Result<S::Ok, S::Error> {
        match format {
            Some(f) => s.serialize_some(f.name()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Format>, D::Error> {
        let name = Option::<String>::deserialize(d)?;
        name.map(|n| n.parse().map_err(serde::de::Error::custom)).transpose()
    }
}

impl Default for FlowSpec {
    fn default() -> Self {
        FlowSpec {
            name: String::new(),
            kind: FlowKind::Synthetic,
            priority: Priority::High,
            queue_depth: None,
            requests: 0,
            duration_ms: 0.0,
            seed: None,
            read_ratio: 1.0,
            address: Address::Uniform,
            hot_fraction: 0.2,
            hot_access: 0.8,
            request_bytes: 4096,
            request_bytes_choices: Vec::new(),
            align_bytes: 4096,
            footprint: 1.0,
            footprint_bytes: 0,
            start_bytes: 0,
            zipf_theta: 0.0,
            start_ms: 0.0,
            rate_iops: 0.0,
            trim_ratio: 0.0,
            fua_ratio: 0.0,
            type_persistence: 0.0,
            path: None,
            format: None,
            replay: Replay::ClosedLoop,
            speedup: 1.0,
            address_mode: AddressMode::Reject,
            loop_trace: false,
            columns: None,
            ops: None,
            separator: None,
            header: false,
            skip_lines: 0,
            device: None,
        }
    }
}

impl WorkloadSpec {
    /// Load a workload file, a fio job file (told by its content: [`fio::is_job_text`]), or
    /// a trace file as a single timestamps-replay flow.
    pub fn load(path: &Path) -> Result<WorkloadSpec> {
        let is_toml = path.extension().is_some_and(|e| e == "toml");
        if !is_toml {
            let file = path.display().to_string();
            if fio::is_job_file(path) {
                return fio::from_fio_str(&crate::mem::read_text(path, "fio job file")?, &file);
            }
            if path.extension().is_some_and(|e| e == "fio") {
                let why = "named .fio but not a fio job file: its first line that is not blank or a comment should be a section header such as [global] or [job]";
                return Err(Error::config(&file, 0, "", why));
            }
            return Ok(WorkloadSpec::single_trace(path, Replay::Timestamps));
        }
        let text = crate::mem::read_text(path, "workload")?;
        let dir = path.parent().unwrap_or(Path::new("."));
        WorkloadSpec::from_toml_str(&text, &path.display().to_string(), dir)
    }

    /// A workload from TOML text; `file` names it in messages. Trace paths are relative to
    /// `dir` (the workload file's folder), unless that does not exist and the path does
    /// relative to the working directory.
    pub fn from_toml_str(text: &str, file: &str, dir: &Path) -> Result<WorkloadSpec> {
        let mut spec: WorkloadSpec = toml::from_str(text).map_err(|e| Error::toml(file, text, e))?;
        for f in &mut spec.flows {
            if let Some(p) = &f.path {
                let rel = dir.join(p);
                if p.is_relative() && rel.exists() {
                    f.path = Some(rel);
                }
            }
        }
        spec.source = file.to_string();
        spec.validate(file).map_err(|e| match e {
            Error::Config { file, key, message, .. } => {
                Error::Config { line: crate::error::line_of_key(text, &key), file, key, message }
            }
            other => other,
        })?;
        Ok(spec)
    }

    /// `e` with the line of its key in the workload file, when it names none and the workload
    /// came from a file (errors found when the flows are built for the drive).
    pub fn with_line(&self, e: Error) -> Error {
        match e {
            Error::Config { file, line: 0, key, message } if file == self.source && file.ends_with(".toml") => {
                let line = std::fs::read_to_string(&file).map_or(0, |text| crate::error::line_of_key(&text, &key));
                Error::Config { file, line, key, message }
            }
            other => other,
        }
    }

    pub fn single_trace(path: &Path, replay: Replay) -> WorkloadSpec {
        WorkloadSpec {
            source: path.display().to_string(),
            seed: 1,
            precondition: None,
            ramp_ms: 0.0,
            flows: vec![FlowSpec {
                name: path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                kind: FlowKind::Trace,
                path: Some(path.to_path_buf()),
                replay,
                ..FlowSpec::default()
            }],
        }
    }

    /// Check the values serde cannot: ranges, and the keys a flow's type requires. Choices
    /// are enums, checked when the file is read.
    pub fn validate(&self, file: &str) -> Result<()> {
        let bad = |key: &str, why: String| Err(Error::config(file, 0, key, &why));
        if self.flows.is_empty() {
            return bad("flows", "a workload needs at least one [[flows]] entry".into());
        }
        if self.flows.len() > 65535 {
            return bad("flows", "at most 65535 flows".into());
        }
        if !(self.ramp_ms.is_finite() && (0.0..=1e9).contains(&self.ramp_ms)) {
            return bad("ramp_ms", format!("ramp_ms = {:?}: must be between 0 and 1e9", self.ramp_ms));
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
            let label = if f.name.is_empty() { format!("flows[{i}]") } else { format!("flow `{}`", f.name) };
            f.check(&label).map_err(|b| Error::config(file, 0, &format!("flows[{i}].{}", b.key), &b.message))?;
        }
        Ok(())
    }
}

/// A flow's value that cannot be used: its key within the flow, and the message.
struct Bad {
    key: &'static str,
    message: String,
}

type Check = std::result::Result<(), Bad>;

fn bad(key: &'static str, message: String) -> Check {
    Err(Bad { key, message })
}

impl FlowSpec {
    /// Checks of every flow, then those of its type. `label` names the flow in messages.
    fn check(&self, label: &str) -> Check {
        let key = |k: &str| format!("{label}: {k}");
        if self.queue_depth.is_some_and(|q| q == 0 || q > 65536) {
            return bad(
                "queue_depth",
                format!("{} = {:?}: must be 1..65536", key("queue_depth"), self.queue_depth.unwrap_or(0)),
            );
        }
        if !(self.duration_ms.is_finite() && (0.0..=1e9).contains(&self.duration_ms)) {
            return bad(
                "duration_ms",
                format!("{} = {}: must be between 0 and 1e9", key("duration_ms"), self.duration_ms),
            );
        }
        if !(self.start_ms.is_finite() && (0.0..=1e9).contains(&self.start_ms)) {
            return bad("start_ms", format!("{} = {}: must be between 0 and 1e9", key("start_ms"), self.start_ms));
        }
        match self.kind {
            FlowKind::Synthetic => self.check_synthetic(label),
            FlowKind::Trace => self.check_trace(label),
            FlowKind::Live => self.check_live(label),
        }
    }

    /// A live flow's requests come from its client: only its name, priority and queue depth
    /// are its own.
    fn check_live(&self, label: &str) -> Check {
        let own = FlowSpec {
            name: self.name.clone(),
            kind: FlowKind::Live,
            priority: self.priority,
            queue_depth: self.queue_depth,
            ..FlowSpec::default()
        };
        if *self != own {
            return bad(
                "type",
                format!("{label}: type = \"live\" takes name, priority and queue_depth only (its requests come from a client of ssdlab serve)"),
            );
        }
        Ok(())
    }

    fn check_synthetic(&self, label: &str) -> Check {
        let key = |k: &str| format!("{label}: {k}");
        if self.requests == 0 && self.duration_ms == 0.0 {
            return bad("requests", format!("{label}: a synthetic flow needs requests or duration_ms"));
        }
        self.check_fractions(label)?;
        self.check_sizes(label)?;
        let rate = self.rate_iops;
        if !(rate == 0.0 || (rate.is_finite() && (1e-3..=1e10).contains(&rate))) {
            return bad(
                "rate_iops",
                format!("{} = {rate}: must be 0 (closed loop) or between 1e-3 and 1e10", key("rate_iops")),
            );
        }
        if self.path.is_some() || self.format.is_some() {
            return bad("path", format!("{label}: path/format are for type = \"trace\""));
        }
        if self.loop_trace {
            return bad(
                "loop",
                format!("{label}: loop is for type = \"trace\" (a synthetic flow never ends on its own)"),
            );
        }
        Ok(())
    }

    /// The ratios and fractions of a synthetic flow.
    fn check_fractions(&self, label: &str) -> Check {
        let key = |k: &str| format!("{label}: {k}");
        for (k, v) in [
            ("read_ratio", self.read_ratio),
            ("footprint", self.footprint),
            ("hot_fraction", self.hot_fraction),
            ("hot_access", self.hot_access),
            ("trim_ratio", self.trim_ratio),
            ("fua_ratio", self.fua_ratio),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return bad(k, format!("{} = {v}: must be in [0, 1]", key(k)));
            }
        }
        if self.footprint == 0.0 {
            return bad("footprint", format!("{} = 0: must be positive", key("footprint")));
        }
        if self.address == Address::HotCold && self.hot_fraction == 0.0 {
            let why = "address = \"hotcold\" needs a hot set: with none, hot_access of the requests would all go to one slot; give the hot share of the footprint (e.g. 0.2), or use address = \"uniform\"";
            return bad("hot_fraction", format!("{} = 0: {why}", key("hot_fraction")));
        }
        let theta = self.zipf_theta;
        if self.address == Address::Zipf && !(theta.is_finite() && theta > 0.0 && theta <= 100.0) {
            return bad(
                "zipf_theta",
                format!("{} = {theta}: address = \"zipf\" needs an exponent in (0, 100]", key("zipf_theta")),
            );
        }
        if self.address != Address::Zipf && theta != 0.0 {
            return bad("zipf_theta", format!("{}: zipf_theta is for address = \"zipf\"", key("zipf_theta")));
        }
        if self.read_ratio + self.trim_ratio > 1.0 + 1e-12 {
            return bad("trim_ratio", format!("{label}: read_ratio + trim_ratio exceeds 1"));
        }
        let rho = self.type_persistence;
        if rho == 1.0 {
            let why = "every page would keep its first type forever (reads and writes would never mix on a page)";
            return bad("type_persistence", format!("{} = 1: must be below 1; {why}", key("type_persistence")));
        }
        if !(0.0..1.0).contains(&rho) {
            return bad("type_persistence", format!("{} = {rho}: must be in [0, 1)", key("type_persistence")));
        }
        Ok(())
    }

    /// A synthetic flow's request sizes and alignment, before the drive is known (the sector
    /// size is checked in [`build_flows`]).
    fn check_sizes(&self, label: &str) -> Check {
        let key = |k: &str| format!("{label}: {k}");
        let choices = &self.request_bytes_choices;
        if self.request_bytes == 0 && choices.is_empty() {
            return bad("request_bytes", format!("{} = 0: must be positive", key("request_bytes")));
        }
        let max = ssdlab_trace::MAX_REQUEST_BYTES;
        let (k, sizes) = match choices.is_empty() {
            true => ("request_bytes", vec![self.request_bytes]),
            false => ("request_bytes_choices", choices.iter().map(|c| c.0).collect()),
        };
        if let Some(b) = sizes.into_iter().find(|&b| b > max) {
            let why = "the most one request can carry (2^32 - 1 sectors of 512 B)";
            return bad(k, format!("{}: a size of {b} bytes is more than {max} bytes, {why}", key(k)));
        }
        if choices.iter().any(|&(b, w)| b == 0 || !(w.is_finite() && w >= 0.0))
            || (!choices.is_empty() && choices.iter().all(|&(_, w)| w == 0.0))
        {
            return bad(
                "request_bytes_choices",
                format!(
                    "{}: sizes must be positive and weights non-negative, not all zero",
                    key("request_bytes_choices")
                ),
            );
        }
        if self.align_bytes == 0 {
            return bad("align_bytes", format!("{} = 0: must be positive", key("align_bytes")));
        }
        Ok(())
    }

    fn check_trace(&self, label: &str) -> Check {
        if self.path.is_none() {
            return bad("path", format!("{label}: a trace flow needs path"));
        }
        if self.start_ms != 0.0 {
            let why = "a trace's requests keep their own times; shift them with the trace";
            return bad("start_ms", format!("{label}: start_ms is for type = \"synthetic\" ({why})"));
        }
        if self.type_persistence != 0.0 {
            return bad(
                "type_persistence",
                format!(
                    "{label}: type_persistence is for type = \"synthetic\" (a trace's requests keep their own types)"
                ),
            );
        }
        self.column_map().map_err(|(key, m)| Bad { key, message: format!("{label}: {m}") })?;
        if !(self.speedup.is_finite() && (1e-6..=1e9).contains(&self.speedup)) {
            return bad("speedup", format!("{label}: speedup = {}: must be between 1e-6 and 1e9", self.speedup));
        }
        if self.loop_trace && self.requests == 0 && self.duration_ms == 0.0 {
            return bad("loop", format!("{label}: loop = true needs duration_ms or requests to stop the flow"));
        }
        Ok(())
    }

    /// The column map of a column-mapped trace flow (None: a built-in format). The error
    /// names the key.
    pub fn column_map(&self) -> std::result::Result<Option<ssdlab_trace::ColumnMap>, (&'static str, String)> {
        let Some(columns) = &self.columns else {
            let extras = self.ops.is_some() || self.separator.is_some() || self.header || self.skip_lines > 0;
            if extras {
                return Err(("columns", "ops, separator, header and skip_lines need columns (a column map)".into()));
            }
            return Ok(None);
        };
        if self.format.is_some_and(|f| f != Format::Csv) {
            return Err((
                "format",
                format!(
                    "format = {:?} and columns exclude each other (columns means csv)",
                    self.format.map(|f| f.name()).unwrap_or("")
                ),
            ));
        }
        let map = ssdlab_trace::ColumnMap::parse(
            columns,
            self.ops.as_deref(),
            self.separator.as_deref(),
            self.header,
            self.skip_lines,
        );
        map.map(Some).map_err(|m| ("columns", format!("columns = {columns:?}: {m}")))
    }

    /// Whether requests arrive on their own (a rate, or trace timestamps) rather than as
    /// earlier ones complete; it sets the default queue depth.
    fn open_loop(&self) -> bool {
        self.rate_iops > 0.0 || (self.kind == FlowKind::Trace && self.replay == Replay::Timestamps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workload of the one flow `f`.
    fn one_flow(f: FlowSpec) -> WorkloadSpec {
        WorkloadSpec { source: String::new(), seed: 1, precondition: None, ramp_ms: 0.0, flows: vec![f] }
    }

    /// What validating a workload of the one flow `f` says: "key: message" for a config
    /// error, else the result as debugged (`Ok(())`).
    fn validation(f: FlowSpec) -> String {
        match one_flow(f).validate("w.toml") {
            Err(Error::Config { key, message, .. }) => format!("{key}: {message}"),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn choices_read_and_write_with_the_workload_file_spellings() {
        let text = "[[flows]]\ntype = \"trace\"\npath = \"t\"\nformat = \"MQSim\"\nreplay = \"timestamps\"\naddress_mode = \"scale\"\npriority = \"urgent\"\n[[flows]]\naddress = \"hotcold\"\npriority = \"low\"\nrequests = 1\n";
        let spec: WorkloadSpec = toml::from_str(text).unwrap();
        let (t, s) = (&spec.flows[0], &spec.flows[1]);
        assert_eq!(
            (t.kind, t.format, t.replay, t.address_mode),
            (FlowKind::Trace, Some(Format::Mqsim), Replay::Timestamps, AddressMode::Scale)
        );
        assert_eq!((t.priority.class(), s.priority.class()), (0, 3));
        assert_eq!(
            (s.kind, s.address, s.replay, s.address_mode, s.format),
            (FlowKind::Synthetic, Address::HotCold, Replay::ClosedLoop, AddressMode::Reject, None)
        );
        // Reports embed the spec as JSON: the file's spellings (a format by its lower-case name).
        let json = serde_json::to_value(&spec).unwrap();
        let keys = ["type", "format", "replay", "address_mode", "priority", "address"];
        let values = |f: usize| keys.map(|k| json["flows"][f][k].clone());
        assert_eq!(
            values(0),
            ["trace", "mqsim", "timestamps", "scale", "urgent", "uniform"].map(serde_json::Value::from)
        );
        assert_eq!(values(1)[0..2], [serde_json::Value::from("synthetic"), serde_json::Value::Null]);
        assert_eq!(values(1)[2..], ["closed_loop", "reject", "low", "hotcold"].map(serde_json::Value::from));
        let back: WorkloadSpec = serde_json::from_value(json).unwrap();
        assert_eq!(back.flows, spec.flows);
    }

    #[test]
    fn a_bad_choice_names_its_line_key_and_value_and_the_choices() {
        let text = "[[flows]]\nrequests = 1\n[[flows]]\ntype = \"trace\"\npath = \"t\"\nreplay = \"fast\"\n";
        let e = toml::from_str::<WorkloadSpec>(text).unwrap_err();
        let message = Error::toml("w.toml", text, e).to_string();
        assert_eq!(
            message,
            "w.toml:6: flows[1].replay = \"fast\": unknown variant `fast`, expected `closed_loop` or `timestamps`"
        );
        let text = "[[flows]]\ntype = \"trace\"\npath = \"t\"\nformat = \"parquet\"\n";
        let e = toml::from_str::<WorkloadSpec>(text).unwrap_err();
        let message = Error::toml("w.toml", text, e).to_string();
        assert!(
            message.starts_with("w.toml:4: flows[0].format = \"parquet\": unknown trace format `parquet`"),
            "{message}"
        );
    }

    #[test]
    fn command_line_choices_parse_as_in_a_file() {
        assert_eq!("wrap".parse::<AddressMode>(), Ok(AddressMode::Wrap));
        assert_eq!("closed_loop".parse::<Replay>(), Ok(Replay::ClosedLoop));
        assert_eq!(
            "clip".parse::<AddressMode>(),
            Err("unknown variant `clip`, expected one of `reject`, `wrap`, `scale`".to_string())
        );
    }

    #[test]
    fn loop_needs_a_stop_condition_and_a_trace_flow() {
        let looped =
            FlowSpec { kind: FlowKind::Trace, path: Some("t".into()), loop_trace: true, ..FlowSpec::default() };
        assert_eq!(
            validation(looped.clone()),
            "flows[0].loop: flows[0]: loop = true needs duration_ms or requests to stop the flow"
        );
        assert!(one_flow(FlowSpec { duration_ms: 5.0, ..looped.clone() }).validate("w").is_ok());
        assert!(one_flow(FlowSpec { requests: 5, ..looped }).validate("w").is_ok());
        let synthetic = FlowSpec { requests: 5, loop_trace: true, ..FlowSpec::default() };
        assert!(validation(synthetic).starts_with("flows[0].loop: flows[0]: loop is for type = \"trace\""));
    }

    #[test]
    fn validation_names_the_flow_and_key_of_a_bad_range() {
        let flow = FlowSpec { kind: FlowKind::Trace, path: Some("t".into()), speedup: 0.0, ..FlowSpec::default() };
        let spec = WorkloadSpec {
            source: String::new(),
            seed: 1,
            precondition: None,
            ramp_ms: 0.0,
            flows: vec![FlowSpec { requests: 1, ..FlowSpec::default() }, flow],
        };
        match spec.validate("w.toml") {
            Err(Error::Config { key, message, .. }) => {
                assert_eq!(key, "flows[1].speedup");
                assert_eq!(message, "flows[1]: speedup = 0: must be between 1e-6 and 1e9");
            }
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn type_persistence_is_below_one_and_for_synthetic_flows_only() {
        let synthetic = |rho| FlowSpec { name: "s".into(), requests: 1, type_persistence: rho, ..FlowSpec::default() };
        assert_eq!(validation(synthetic(0.99)), "Ok(())");
        assert_eq!(validation(synthetic(0.0)), "Ok(())");
        assert!(
            validation(synthetic(1.0))
                .starts_with("flows[0].type_persistence: flow `s`: type_persistence = 1: must be below 1;"),
            "{}",
            validation(synthetic(1.0))
        );
        assert_eq!(
            validation(synthetic(-0.1)),
            "flows[0].type_persistence: flow `s`: type_persistence = -0.1: must be in [0, 1)"
        );
        assert_eq!(
            validation(synthetic(f64::NAN)),
            "flows[0].type_persistence: flow `s`: type_persistence = NaN: must be in [0, 1)"
        );
        let trace =
            FlowSpec { kind: FlowKind::Trace, path: Some("t".into()), type_persistence: 0.5, ..FlowSpec::default() };
        assert_eq!(
            validation(trace),
            "flows[0].type_persistence: flows[0]: type_persistence is for type = \"synthetic\" (a trace's requests keep their own types)"
        );
        // Off by default, and then left out of a report's copy of the workload.
        let json = serde_json::to_value(synthetic(0.0)).unwrap();
        assert!(json.get("type_persistence").is_none());
        assert_eq!(serde_json::to_value(synthetic(0.5)).unwrap()["type_persistence"], 0.5);
    }

    #[test]
    fn zipf_theta_start_ms_and_footprint_bytes_are_checked_and_off_by_default() {
        let message = |f: FlowSpec| match (WorkloadSpec {
            source: String::new(),
            seed: 1,
            precondition: None,
            ramp_ms: 0.0,
            flows: vec![f],
        })
        .validate("w.toml")
        {
            Err(Error::Config { message, .. }) => message,
            other => format!("{other:?}"),
        };
        let zipf = |theta| FlowSpec { requests: 1, address: Address::Zipf, zipf_theta: theta, ..FlowSpec::default() };
        assert_eq!(message(zipf(1.2)), "Ok(())");
        assert_eq!(message(zipf(0.0)), "flows[0]: zipf_theta = 0: address = \"zipf\" needs an exponent in (0, 100]");
        let uniform = FlowSpec { requests: 1, zipf_theta: 1.2, ..FlowSpec::default() };
        assert_eq!(message(uniform), "flows[0]: zipf_theta: zipf_theta is for address = \"zipf\"");
        let late = FlowSpec { requests: 1, start_ms: -1.0, ..FlowSpec::default() };
        assert_eq!(message(late), "flows[0]: start_ms = -1: must be between 0 and 1e9");
        let trace = FlowSpec { kind: FlowKind::Trace, path: Some("t".into()), start_ms: 5.0, ..FlowSpec::default() };
        assert!(message(trace).starts_with("flows[0]: start_ms is for type = \"synthetic\""));
        // Off, they are left out of a report's copy of the workload.
        let json = serde_json::to_value(FlowSpec::default()).unwrap();
        assert!(["zipf_theta", "start_ms", "footprint_bytes"].iter().all(|k| json.get(k).is_none()));
        let spec: WorkloadSpec = toml::from_str(
            "[[flows]]\nrequests = 1\naddress = \"zipf\"\nzipf_theta = 0.9\nfootprint_bytes = 8192\nstart_ms = 2.5\n",
        )
        .unwrap();
        let f = &spec.flows[0];
        assert_eq!((f.address, f.zipf_theta, f.footprint_bytes, f.start_ms), (Address::Zipf, 0.9, 8192, 2.5));
    }
}
