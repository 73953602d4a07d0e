//! fio job files as workloads: `ssdlab run --workload job.fio`.
//!
//! A job file is read here into a [`WorkloadSpec`] whose flows are synthetic flows: each job
//! section (times `numjobs`) becomes one flow, with the options of the `[global]` sections
//! above it. Only the options listed in [`KEYS`] are read; any other option, even one fio
//! knows, is an error naming the file, the line and the option, so nothing in a job file is
//! silently ignored. Each option's meaning follows fio's HOWTO ("Job file format", "Parameter
//! types", "I/O type", "Block size", "I/O size", "I/O depth", "I/O rate", "Time related
//! parameters", "Threads, processes and job synchronization"); where ssdlab's generator
//! differs from fio's, docs/workload.md ("fio job files") says how.
//!
//! Start at [`from_fio_str`]; [`is_job_text`] is how `WorkloadSpec::load` tells a job file
//! from a trace; [`equivalent_toml`] shows the flows a job file became.

use super::{Address, FlowSpec, WorkloadSpec};
use crate::error::{Error, Result};

/// The options ssdlab reads; every other option is an error.
pub const KEYS: [&str; 22] = [
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "bssplit",
    "blockalign",
    "iodepth",
    "numjobs",
    "size",
    "offset",
    "runtime",
    "time_based",
    "number_ios",
    "rate_iops",
    "ramp_time",
    "random_distribution",
    "thinktime",
    "fsync",
    "fdatasync",
    "startdelay",
];

/// Whether `text` (the start of a file) is a fio job file: its first line that is neither
/// blank nor a comment (`;` or `#`) is a section header, `[name]`. No trace format starts so.
pub fn is_job_text(text: &str) -> bool {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with(';') && !l.starts_with('#'));
    first.is_some_and(|l| l.starts_with('[') && l.ends_with(']') && l.len() > 2)
}

/// Whether the file at `path` is a fio job file ([`is_job_text`] on its first 4 KiB; false
/// if it cannot be read, and the trace reader then says why).
pub fn is_job_file(path: &std::path::Path) -> bool {
    use std::io::Read;
    // Only a regular file is looked into: the first bytes read from a pipe (`<(zcat ...)`, a
    // FIFO) would be gone for the trace reader that opens it next. A pipe is a fio job file
    // only by its name.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return path.extension().is_some_and(|e| e == "fio");
    }
    let mut buf = Vec::with_capacity(4096);
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(4096).read_to_end(&mut buf);
    }
    is_job_text(&String::from_utf8_lossy(&buf))
}

/// One option as written: its value (None for a bare `key`) and its line.
#[derive(Clone)]
struct Opt {
    key: String,
    value: Option<String>,
    line: usize,
}

/// A job section: its name, its line and its options, `[global]`'s above it first (a later
/// option overrides an earlier one of the same key).
struct Job {
    name: String,
    line: usize,
    opts: Vec<Opt>,
}

/// The workload a fio job file describes; `file` names it in messages. fio HOWTO "Job file
/// format": `[global]` sets defaults for the jobs below it (a file may have several),
/// `key=value` or a bare `key`, lines starting with `;` or `#` are comments.
pub fn from_fio_str(text: &str, file: &str) -> Result<WorkloadSpec> {
    let jobs = sections(text, file)?;
    if jobs.is_empty() {
        return Err(Error::config(file, 0, "", "a fio job file needs at least one job section (besides [global])"));
    }
    let mut flows = Vec::new();
    let mut ramp: Option<(f64, usize)> = None;
    for job in &jobs {
        let j = JobFlow::read(job, file)?;
        if let Some(ms) = j.ramp_ms {
            match ramp {
                Some((other, line)) if other != ms => {
                    let why = format!(
                        "job `{}`: startdelay + ramp_time = {ms} ms, but another job's is {other} ms (line {line}); ssdlab has one warm-up for the whole run (ramp_ms), so every job with a ramp_time must end it at the same time",
                        job.name
                    );
                    return Err(Error::config(file, j.ramp_line, "ramp_time", &why));
                }
                _ => ramp = Some((ms, j.ramp_line)),
            }
        }
        for k in 0..j.numjobs {
            let name = if j.numjobs == 1 { job.name.clone() } else { format!("{}.{k}", job.name) };
            flows.push(FlowSpec { name, ..j.flow.clone() });
        }
    }
    if ramp.is_some() {
        if let Some(job) = jobs.iter().find(|job| !job.opts.iter().any(|o| o.key == "ramp_time")) {
            let why = format!(
                "job `{}` has no ramp_time while others have one; ssdlab has one warm-up for the whole run (ramp_ms): give every job the same ramp_time",
                job.name
            );
            return Err(Error::config(file, job.line, "ramp_time", &why));
        }
    }
    let spec = WorkloadSpec {
        source: file.to_string(),
        seed: 1,
        precondition: None,
        ramp_ms: ramp.map_or(0.0, |r| r.0),
        flows,
    };
    spec.validate(file)?;
    Ok(spec)
}

/// The job sections of `text`, each with the `[global]` options above it.
fn sections(text: &str, file: &str) -> Result<Vec<Job>> {
    let mut global: Vec<Opt> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    let mut in_global = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with(';') || l.starts_with('#') {
            continue;
        }
        if let Some(name) = l.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            let name = name.trim();
            if name.is_empty() {
                return Err(Error::config(file, line, "", "an empty section name `[]`"));
            }
            in_global = Some(name == "global");
            if name != "global" {
                jobs.push(Job { name: name.to_string(), line, opts: global.clone() });
            }
            continue;
        }
        let (key, value) = match l.split_once('=') {
            Some((k, v)) => (k.trim().to_ascii_lowercase(), Some(v.trim().to_string())),
            None => (l.to_ascii_lowercase(), None),
        };
        if !KEYS.contains(&key.as_str()) {
            let why = format!(
                "fio option `{key}` is not read by ssdlab (it reads only {}); remove it or describe the flow in a workload TOML file",
                KEYS.join(", ")
            );
            return Err(Error::config(file, line, &key, &why));
        }
        let opt = Opt { key, value, line };
        match in_global {
            None => return Err(Error::config(file, line, &opt.key, "an option before any [section]")),
            Some(true) => global.push(opt),
            Some(false) => jobs.last_mut().expect("a job section is open").opts.push(opt),
        }
    }
    Ok(jobs)
}

/// What one job section becomes: the flow of each of its `numjobs` clones, and its warm-up.
struct JobFlow {
    flow: FlowSpec,
    numjobs: u32,
    /// `ramp_time` given: the warm-up's end (startdelay + ramp_time), in ms, and its line.
    ramp_ms: Option<f64>,
    ramp_line: usize,
}

/// The `rw` patterns (fio HOWTO "I/O type"): (random, read share, trim share, mixed).
fn pattern(rw: &str) -> Option<(bool, f64, f64, bool)> {
    Some(match rw {
        "read" => (false, 1.0, 0.0, false),
        "write" => (false, 0.0, 0.0, false),
        "trim" => (false, 0.0, 1.0, false),
        "randread" => (true, 1.0, 0.0, false),
        "randwrite" => (true, 0.0, 0.0, false),
        "randtrim" => (true, 0.0, 1.0, false),
        "rw" | "readwrite" => (false, 0.5, 0.0, true),
        "randrw" => (true, 0.5, 0.0, true),
        _ => return None,
    })
}

impl JobFlow {
    fn read(job: &Job, file: &str) -> Result<JobFlow> {
        // The last setting of each key wins (a job's own over [global]'s).
        let get = |key: &str| job.opts.iter().rev().find(|o| o.key == key);
        let either = |a: &str, b: &str| job.opts.iter().rev().find(|o| o.key == a || o.key == b);
        let v = Values { file };
        let mut f = FlowSpec { name: job.name.clone(), ..FlowSpec::default() };

        // rw (alias readwrite); fio's default is read.
        let (random, mut read, trim, mixed) = match either("rw", "readwrite") {
            None => pattern("read").expect("a pattern"),
            Some(o) => {
                let s = v.text(o)?;
                pattern(&s.to_ascii_lowercase()).ok_or_else(|| {
                    v.bad(o, "one of read, write, trim, randread, randwrite, randtrim, rw (readwrite), randrw; fio's `:N` offset modifiers and trimwrite are not read")
                })?
            }
        };
        // rwmixread / rwmixwrite: the read share of a mixed job (fio: no effect otherwise).
        if let Some(o) = either("rwmixread", "rwmixwrite") {
            let pct = v.int(o)?;
            if pct > 100 {
                return Err(v.bad(o, "a percentage, 0 to 100"));
            }
            if mixed {
                read = if o.key == "rwmixread" { pct as f64 / 100.0 } else { (100 - pct) as f64 / 100.0 };
            }
        }
        f.read_ratio = read;
        f.trim_ratio = trim;
        f.address = if random { Address::Uniform } else { Address::Sequential };

        // bs (alias blocksize), bssplit, blockalign (fio HOWTO "Block size").
        let mut smallest = 4096;
        let mut mean_bytes = 4096.0;
        if let Some(o) = either("bs", "blocksize") {
            let b = v.size(o)?;
            (f.request_bytes, smallest, mean_bytes) = (b, b, b as f64);
        }
        if let Some(o) = get("bssplit") {
            f.request_bytes_choices = v.bssplit(o)?;
            smallest = f.request_bytes_choices.iter().map(|c| c.0).min().unwrap_or(smallest);
            mean_bytes = f.request_bytes_choices.iter().map(|&(b, w)| b as f64 * w).sum::<f64>() / 100.0;
        }
        f.align_bytes = match get("blockalign") {
            Some(o) => v.size(o)?,
            None => smallest,
        };

        // random_distribution (fio HOWTO "I/O type"); only random I/O has one.
        if let Some(o) = get("random_distribution") {
            let (address, theta, hot) = v.distribution(o)?;
            if random {
                f.address = address;
                f.zipf_theta = theta;
                if let Some((access, fraction)) = hot {
                    (f.hot_access, f.hot_fraction) = (access, fraction);
                }
            }
        }

        // iodepth (fio's default 1), numjobs.
        f.queue_depth = Some(match get("iodepth") {
            Some(o) => u32::try_from(v.int(o)?)
                .ok()
                .filter(|&q| (1..=65536).contains(&q))
                .ok_or_else(|| v.bad(o, "1 to 65536"))?,
            None => 1,
        });
        let numjobs = match get("numjobs") {
            Some(o) => u32::try_from(v.int(o)?)
                .ok()
                .filter(|&n| (1..=65535).contains(&n))
                .ok_or_else(|| v.bad(o, "1 to 65535"))?,
            None => 1,
        };

        // size and offset (fio HOWTO "I/O size"): the region, and without time_based the
        // bytes to move.
        let mut io_bytes = None;
        if let Some(o) = get("size") {
            match v.percent(o)? {
                Some(p) => f.footprint = p,
                None => {
                    let b = v.size(o)?;
                    f.footprint_bytes = b;
                    io_bytes = Some(b);
                }
            }
        }
        if let Some(o) = get("offset") {
            if v.percent(o)?.is_some() {
                return Err(v.bad(o, "bytes: a percentage of the device needs its size, which a job file read before the drive does not know"));
            }
            f.start_bytes = v.size(o)?;
        }

        // Time (fio HOWTO "Time related parameters"): startdelay, then ramp_time, then
        // runtime; each in seconds unless suffixed.
        let startdelay_ms = get("startdelay").map(|o| v.time_ms(o)).transpose()?.unwrap_or(0.0);
        let ramp = get("ramp_time").map(|o| v.time_ms(o).map(|ms| (ms, o.line))).transpose()?;
        let ramp_ms = ramp.map_or(0.0, |r| r.0);
        let runtime_ms = get("runtime").map(|o| v.time_ms(o)).transpose()?;
        let time_based = get("time_based").map(|o| v.flag(o)).transpose()?.unwrap_or(false);
        f.start_ms = startdelay_ms;
        if let Some(ms) = runtime_ms.filter(|&ms| ms > 0.0) {
            f.duration_ms = startdelay_ms + ramp_ms + ms;
        }
        // number_ios = 0 is fio's default: no count of its own.
        let number_ios = get("number_ios").map(|o| v.int(o)).transpose()?.unwrap_or(0);
        if number_ios > 0 {
            f.requests = number_ios;
        } else if !time_based {
            if let Some(bytes) = io_bytes {
                f.requests = ((bytes as f64 / mean_bytes).round() as u64).max(1);
            }
        }
        if f.requests == 0 && f.duration_ms == 0.0 {
            let (o, why) = match get("time_based") {
                Some(o) if time_based => (o, "time_based needs a runtime"),
                _ => (
                    &Opt { key: "size".into(), value: None, line: job.line },
                    "the job has no end: give size in bytes, number_ios, or runtime",
                ),
            };
            return Err(Error::config(file, o.line, &o.key, &format!("job `{}`: {why}", job.name)));
        }

        // rate_iops (fio HOWTO "I/O rate"): one rate for a job of one direction.
        if let Some(o) = get("rate_iops") {
            if mixed {
                return Err(v.bad(o, "a rate for a job of one direction: fio caps reads and writes each at this rate, where ssdlab's rate_iops is the flow's total"));
            }
            let rate = v.int(o)?;
            f.rate_iops = rate as f64;
        }

        // Keys ssdlab has no model for: accepted only at fio's default (off).
        for key in ["thinktime", "fsync", "fdatasync"] {
            if let Some(o) = get(key) {
                let off = match key {
                    "thinktime" => v.time_us(o)? == 0.0,
                    _ => v.int(o)? == 0,
                };
                if !off {
                    let why = match key {
                        "thinktime" => "0 only: ssdlab's flows issue their next request as soon as a slot frees (closed loop) or at their rate; a pause after each request is not modelled",
                        _ => "0 only: ssdlab models no flush command (the drive's write cache is never flushed on request), so a sync every N writes cannot be expressed",
                    };
                    return Err(v.bad(o, why));
                }
            }
        }
        Ok(JobFlow {
            flow: f,
            numjobs,
            ramp_ms: ramp.map(|_| startdelay_ms + ramp_ms),
            ramp_line: ramp.map_or(0, |r| r.1),
        })
    }
}

/// Reading option values in fio's syntax (fio HOWTO "Parameter types"); an error names the
/// file, the line, the option and its value.
struct Values<'a> {
    file: &'a str,
}

impl Values<'_> {
    fn bad(&self, o: &Opt, expected: &str) -> Error {
        let value = o.value.as_deref().unwrap_or("");
        Error::config(self.file, o.line, &o.key, &format!("{} = {value:?}: expected {expected}", o.key))
    }

    fn text(&self, o: &Opt) -> Result<String> {
        match &o.value {
            Some(s) if !s.is_empty() => Ok(s.clone()),
            _ => Err(self.bad(o, "a value (`key=value`)")),
        }
    }

    /// A plain integer (decimal, or hex with `0x`).
    fn int(&self, o: &Opt) -> Result<u64> {
        let s = self.text(o)?;
        parse_int(&s).ok_or_else(|| self.bad(o, "a whole number"))
    }

    /// A bool option: bare `key`, or 1/0 (true/false).
    fn flag(&self, o: &Opt) -> Result<bool> {
        match o.value.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("1") | Some("true") => Ok(true),
            Some("0") | Some("false") => Ok(false),
            _ => Err(self.bad(o, "1 or 0 (or the bare option)")),
        }
    }

    /// A size in bytes with fio's suffixes ([`parse_size`]).
    fn size(&self, o: &Opt) -> Result<u64> {
        let s = self.text(o)?;
        if s.contains(',') {
            return Err(self.bad(o, "one size for every direction (fio's `read,write` pairs are not read)"));
        }
        parse_size(&s).filter(|&b| b > 0).ok_or_else(|| {
            self.bad(o, "a positive size in bytes, with an optional suffix k/m/g/t (× 1024 each) or kib/mib/gib/tib (× 1000 each), as fio reads them")
        })
    }

    /// `N%`: the fraction, in (0, 1]; None if the value is not a percentage.
    fn percent(&self, o: &Opt) -> Result<Option<f64>> {
        let s = self.text(o)?;
        let Some(p) = s.strip_suffix('%') else { return Ok(None) };
        match p.trim().parse::<f64>() {
            Ok(p) if p > 0.0 && p <= 100.0 => Ok(Some(p / 100.0)),
            _ => Err(self.bad(o, "a percentage in (0, 100]")),
        }
    }

    /// A time whose bare number counts seconds, in ms ([`parse_time_us`]).
    fn time_ms(&self, o: &Opt) -> Result<f64> {
        let s = self.text(o)?;
        let us = parse_time_us(&s, 1e6)
            .ok_or_else(|| self.bad(o, "a time: a number of seconds, or with a suffix us, ms, s, m, h, d"))?;
        Ok(us / 1e3)
    }

    /// A time whose bare number counts microseconds (thinktime), in µs.
    fn time_us(&self, o: &Opt) -> Result<f64> {
        let s = self.text(o)?;
        parse_time_us(&s, 1.0)
            .ok_or_else(|| self.bad(o, "a time: a number of microseconds, or with a suffix us, ms, s, m, h, d"))
    }

    /// `bssplit=size/percent:size/percent:...` (fio HOWTO "Block size"): each size's share
    /// in percent; sizes without a percentage share what the others leave equally. Shares
    /// must add up to 100.
    fn bssplit(&self, o: &Opt) -> Result<Vec<(u64, f64)>> {
        let s = self.text(o)?;
        if s.contains(',') {
            return Err(
                self.bad(o, "one split for every direction (fio's per-direction `read,write` splits are not read)")
            );
        }
        let mut parts: Vec<(u64, Option<f64>)> = Vec::new();
        for part in s.split(':') {
            let (size, pct) = match part.split_once('/') {
                Some((b, p)) if !p.trim().is_empty() => (b, Some(p.trim())),
                Some((b, _)) => (b, None),
                None => (part, None),
            };
            let bytes = parse_size(size.trim()).filter(|&b| b > 0);
            let pct = pct.map(|p| p.parse::<f64>().ok().filter(|p| (0.0..=100.0).contains(p)));
            match (bytes, pct) {
                (Some(b), None) => parts.push((b, None)),
                (Some(b), Some(Some(p))) => parts.push((b, Some(p))),
                _ => return Err(self.bad(o, "size/percent pairs separated by `:`, e.g. 4k/50:8k/50")),
            }
        }
        let given: f64 = parts.iter().filter_map(|p| p.1).sum();
        let blank = parts.iter().filter(|p| p.1.is_none()).count();
        if given > 100.0 + 1e-9 || (blank == 0 && (given - 100.0).abs() > 1e-9) {
            return Err(self.bad(o, "percentages adding up to 100"));
        }
        let rest = if blank > 0 { (100.0 - given) / blank as f64 } else { 0.0 };
        Ok(parts.into_iter().map(|(b, p)| (b, p.unwrap_or(rest))).collect())
    }

    /// `random_distribution` (fio HOWTO "I/O type"): random → uniform; `zipf:θ` → zipf;
    /// `zoned:a/b:c/d` with two zones → hotcold (a % of accesses to the first b % of the
    /// region). The address, θ and the (hot_access, hot_fraction) pair.
    #[allow(clippy::type_complexity)]
    fn distribution(&self, o: &Opt) -> Result<(Address, f64, Option<(f64, f64)>)> {
        let s = self.text(o)?.to_ascii_lowercase();
        let (kind, arg) = s.split_once(':').unwrap_or((&s, ""));
        match kind {
            "random" if arg.is_empty() => Ok((Address::Uniform, 0.0, None)),
            "zipf" => match arg.parse::<f64>() {
                Ok(theta) if theta > 0.0 && theta <= 100.0 => Ok((Address::Zipf, theta, None)),
                _ => Err(self.bad(o, "zipf:θ with θ in (0, 100], e.g. zipf:1.2 (fio's distribution offset `zipf:θ:offset` is not read)")),
            },
            "zoned" => {
                let zones: Vec<Option<(f64, f64)>> = arg
                    .split(':')
                    .map(|z| {
                        let (a, b) = z.split_once('/')?;
                        Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
                    })
                    .collect();
                match zones.as_slice() {
                    [Some((a1, b1)), Some((a2, b2))]
                        if a1 + a2 == 100.0 && b1 + b2 == 100.0 && *b1 > 0.0 && *a1 >= 0.0 && *a2 >= 0.0 =>
                    {
                        Ok((Address::HotCold, 0.0, Some((a1 / 100.0, b1 / 100.0))))
                    }
                    _ => Err(self.bad(o, "zoned with two zones, access%/size% each, both adding up to 100 (e.g. zoned:80/20:20/80, ssdlab's hotcold); more zones are not modelled")),
                }
            }
            "pareto" | "normal" | "gauss" | "zoned_abs" => Err(self.bad(
                o,
                "random, zipf:θ or a two-zone zoned: ssdlab's generator has no pareto or normal (gauss) distribution and no absolute zones",
            )),
            _ => Err(self.bad(o, "random, zipf:θ, or zoned:a/b:c/d")),
        }
    }
}

/// An integer, decimal or `0x` hex.
fn parse_int(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// A size with fio's suffixes at its default `kb_base=1024` (fio HOWTO "Parameter types"):
/// case-insensitive k, m, g, t, p, each optionally followed by `b`, multiply by powers of
/// 1024; kib, mib, gib, tib, pib by powers of 1000 (fio reads these backwards from IEC, for
/// old scripts' sake); a bare number or `b` is bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim().to_ascii_lowercase();
    if s.starts_with("0x") {
        return parse_int(&s);
    }
    let (num, suffix) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = num.parse().ok()?;
    let power = |p: u32, base: u64| base.checked_pow(p);
    let mult = match suffix {
        "" | "b" => 1,
        "k" | "kb" => power(1, 1024)?,
        "m" | "mb" => power(2, 1024)?,
        "g" | "gb" => power(3, 1024)?,
        "t" | "tb" => power(4, 1024)?,
        "p" | "pb" => power(5, 1024)?,
        "kib" => 1000,
        "mib" => power(2, 1000)?,
        "gib" => power(3, 1000)?,
        "tib" => power(4, 1000)?,
        "pib" => power(5, 1000)?,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// A time in µs, `bare_us` µs per unsuffixed unit (fio HOWTO "Parameter types": seconds for
/// most options, microseconds for thinktime); suffixes us/usec, ms/msec, s, m (minutes), h,
/// d, case-insensitive.
pub fn parse_time_us(s: &str, bare_us: f64) -> Option<f64> {
    let s = s.trim().to_ascii_lowercase();
    let i = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, suffix) = s.split_at(i);
    let n: f64 = num.parse().ok()?;
    let unit = match suffix {
        "" => bare_us,
        "us" | "usec" => 1.0,
        "ms" | "msec" => 1e3,
        "s" | "sec" => 1e6,
        "m" | "min" => 60e6,
        "h" => 3600e6,
        "d" => 86400e6,
        _ => return None,
    };
    Some(n * unit).filter(|x| x.is_finite())
}

/// The workload as a workload TOML file, each flow with only the keys that differ from a
/// flow's defaults (plus its name): what `ssdlab validate --workload job.fio` shows.
pub fn equivalent_toml(spec: &WorkloadSpec) -> String {
    let default = toml::Value::try_from(FlowSpec::default()).ok();
    let default = default.as_ref().and_then(|d| d.as_table());
    let mut out = format!("# {}: the workload it became\nseed = {}\n", spec.source, spec.seed);
    if spec.ramp_ms > 0.0 {
        out += &format!("ramp_ms = {}\n", spec.ramp_ms);
    }
    for f in &spec.flows {
        out += "\n[[flows]]\n";
        let Ok(toml::Value::Table(t)) = toml::Value::try_from(f) else { continue };
        let mut keep = toml::Table::new();
        for (k, v) in t {
            if k == "name" || default.is_none_or(|d| d.get(&k) != Some(&v)) {
                keep.insert(k, v);
            }
        }
        out += &toml::to_string(&keep).unwrap_or_default();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{build_flows, Flow, IoOp};

    fn spec(text: &str) -> WorkloadSpec {
        from_fio_str(text, "j.fio").unwrap_or_else(|e| panic!("{e}"))
    }

    /// The one flow of a job file of one job.
    fn flow(text: &str) -> FlowSpec {
        let s = spec(text);
        assert_eq!(s.flows.len(), 1);
        s.flows[0].clone()
    }

    fn error(text: &str) -> String {
        match from_fio_str(text, "j.fio") {
            Err(e) => e.to_string(),
            Ok(s) => panic!("expected an error, got {:?}", s.flows),
        }
    }

    /// A job `[j]` ended by a runtime, with `extra` options.
    fn job(extra: &str) -> String {
        format!("[j]\nruntime=1\n{extra}\n")
    }

    /// The built flows of a job file on a drive of 8,000 sectors of 512 B (1,000 pages of
    /// 4 KiB).
    fn built(text: &str) -> Vec<Flow> {
        build_flows(&spec(text), 1, 8_000, 512).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `n` requests of a closed-loop flow, all taken at time 0.
    fn draws(f: &mut Flow, n: usize) -> Vec<crate::host::IoRequest> {
        (0..n).map(|_| f.take(0).expect("a request")).collect()
    }

    /// Whether `share` of `n` draws is within five binomial standard errors of `p`.
    fn near(share: f64, p: f64, n: usize) -> bool {
        (share - p).abs() <= 5.0 * (p * (1.0 - p) / n as f64).sqrt()
    }

    #[test]
    fn rw_sets_the_address_pattern_and_the_shares() {
        // (rw, address, read_ratio, trim_ratio); fio's default is read; mixes are 50/50.
        let cases = [
            ("read", Address::Sequential, 1.0, 0.0),
            ("write", Address::Sequential, 0.0, 0.0),
            ("trim", Address::Sequential, 0.0, 1.0),
            ("randread", Address::Uniform, 1.0, 0.0),
            ("randwrite", Address::Uniform, 0.0, 0.0),
            ("randtrim", Address::Uniform, 0.0, 1.0),
            ("rw", Address::Sequential, 0.5, 0.0),
            ("readwrite", Address::Sequential, 0.5, 0.0),
            ("randrw", Address::Uniform, 0.5, 0.0),
        ];
        for (rw, address, read, trim) in cases {
            let f = flow(&job(&format!("rw={rw}")));
            assert_eq!((f.address, f.read_ratio, f.trim_ratio), (address, read, trim), "rw={rw}");
        }
        let f = flow(&job("readwrite=randrw"));
        assert_eq!((f.address, f.read_ratio), (Address::Uniform, 0.5));
        let f = flow(&job(""));
        assert_eq!((f.address, f.read_ratio), (Address::Sequential, 1.0));
        assert_eq!(error(&job("rw=randread:8")), "j.fio:3: rw = \"randread:8\": expected one of read, write, trim, randread, randwrite, randtrim, rw (readwrite), randrw; fio's `:N` offset modifiers and trimwrite are not read");
    }

    #[test]
    fn rwmix_sets_the_read_share_of_a_mixed_job() {
        assert_eq!(flow(&job("rw=randrw\nrwmixread=70")).read_ratio, 0.7);
        assert_eq!(flow(&job("rw=randrw\nrwmixwrite=30")).read_ratio, 0.7);
        // fio: no effect on a job of one direction.
        assert_eq!(flow(&job("rw=randwrite\nrwmixread=70")).read_ratio, 0.0);
        assert!(error(&job("rw=rw\nrwmixread=101")).contains("rwmixread = \"101\": expected a percentage"));
    }

    #[test]
    fn rwmixread_70_gives_a_read_share_of_0_7_over_many_draws() {
        let n = 100_000;
        let mut flows = built(&job("rw=randrw\nrwmixread=70"));
        let reads = draws(&mut flows[0], n).iter().filter(|r| r.op == IoOp::Read).count();
        // σ = sqrt(0.7 × 0.3 / 100,000) = 0.00145; within 5σ.
        assert!(near(reads as f64 / n as f64, 0.7, n), "{reads} reads of {n}");
    }

    #[test]
    fn sizes_read_with_fios_suffixes() {
        // fio's default kb_base=1024: k, kb and K are 1024; kib is 1000 (backwards from IEC).
        let cases = [
            ("4096", 4096),
            ("4k", 4096),
            ("4K", 4096),
            ("4kb", 4096),
            ("4KB", 4096),
            ("1m", 1 << 20),
            ("2g", 2 << 30),
            ("1t", 1 << 40),
            ("1000kib", 1_000_000),
            ("1mib", 1_000_000),
            ("0x1000", 4096),
            ("512b", 512),
        ];
        for (text, bytes) in cases {
            assert_eq!(parse_size(text), Some(bytes), "{text}");
        }
        assert_eq!(parse_size("4q"), None);
        assert_eq!(parse_size("k"), None);
    }

    #[test]
    fn times_count_seconds_unless_suffixed() {
        assert_eq!(flow(&job("")).duration_ms, 1000.0);
        let ms = |t: &str| flow(&format!("[j]\nruntime={t}\n")).duration_ms;
        assert_eq!(
            [ms("2"), ms("1m"), ms("1h"), ms("250ms"), ms("1500us"), ms("3s")],
            [2e3, 60e3, 3600e3, 250.0, 1.5, 3e3]
        );
        assert!(error("[j]\nruntime=5x\n").starts_with("j.fio:2: runtime = \"5x\": expected a time"));
    }

    #[test]
    fn bs_and_blocksize_set_the_request_size_and_the_alignment() {
        let f = flow(&job("bs=16k"));
        assert_eq!((f.request_bytes, f.align_bytes), (16384, 16384));
        assert_eq!(flow(&job("blocksize=8k")).request_bytes, 8192);
        // fio's default bs is 4 KiB.
        assert_eq!((flow(&job("")).request_bytes, flow(&job("")).align_bytes), (4096, 4096));
        assert!(error(&job("bs=4k,8k")).contains("one size for every direction"));
    }

    #[test]
    fn bssplit_gives_the_size_choices() {
        let f = flow(&job("bssplit=4k/50:8k/50"));
        assert_eq!(f.request_bytes_choices, vec![(4096, 50.0), (8192, 50.0)]);
        // The alignment defaults to the smallest size (fio: blockalign defaults to the
        // minimum block size).
        assert_eq!(f.align_bytes, 4096);
        // Sizes without a percentage share what is left equally: (100 − 40) / 2 = 30.
        let f = flow(&job("bssplit=64k/40:4k:16k/"));
        assert_eq!(f.request_bytes_choices, vec![(65536, 40.0), (4096, 30.0), (16384, 30.0)]);
        assert!(error(&job("bssplit=4k/50:8k/40")).contains("percentages adding up to 100"));
        assert!(error(&job("bssplit=4k/50:8k/60")).contains("percentages adding up to 100"));
    }

    #[test]
    fn bssplit_4k_8k_half_each_draws_half_of_each() {
        let n = 100_000;
        let mut flows = built(&job("rw=randread\nbssplit=4k/50:8k/50"));
        let small = draws(&mut flows[0], n).iter().filter(|r| r.sectors == 8).count();
        assert!(near(small as f64 / n as f64, 0.5, n), "{small} 4 KiB requests of {n}");
    }

    #[test]
    fn blockalign_sets_the_alignment() {
        let f = flow(&job("bs=4k\nblockalign=64k"));
        assert_eq!((f.request_bytes, f.align_bytes), (4096, 65536));
    }

    #[test]
    fn iodepth_sets_the_queue_depth_and_defaults_to_one() {
        assert_eq!(flow(&job("iodepth=32")).queue_depth, Some(32));
        assert_eq!(flow(&job("")).queue_depth, Some(1));
        assert!(error(&job("iodepth=0")).contains("iodepth = \"0\": expected 1 to 65536"));
    }

    #[test]
    fn numjobs_3_gives_three_flows() {
        let s = spec("[w]\nrw=randwrite\nruntime=1\nnumjobs=3\n[r]\nruntime=1\n");
        let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["w.0", "w.1", "w.2", "r"]);
        assert!(s.flows[..3].iter().all(|f| f.read_ratio == 0.0 && f.seed.is_none()));
    }

    #[test]
    fn size_sets_the_footprint_and_the_requests() {
        // size=1m of 4 KiB requests: 1,048,576 / 4,096 = 256 requests.
        let f = flow("[j]\nsize=1m\n");
        assert_eq!((f.footprint_bytes, f.requests, f.duration_ms), (1 << 20, 256, 0.0));
        // With bssplit, the mean size: 0.5 × 4 KiB + 0.5 × 12 KiB = 8 KiB, so 128.
        assert_eq!(flow("[j]\nsize=1m\nbssplit=4k/50:12k/50\n").requests, 128);
        // A percentage is a share of the drive; it ends no job.
        let f = flow(&job("size=25%"));
        assert_eq!((f.footprint, f.footprint_bytes, f.requests), (0.25, 0, 0));
        assert!(error("[j]\nsize=25%\n").contains("job `j`: the job has no end"));
        // time_based: the runtime alone ends the job.
        assert_eq!(flow(&job("size=1m\ntime_based")).requests, 0);
    }

    #[test]
    fn size_bounds_the_generated_offsets() {
        let mut flows = built("[j]\nrw=randread\nsize=64k\noffset=1m\nruntime=1\ntime_based\n");
        // 64 KiB from 1 MiB: sectors 2048 .. 2176, in 4 KiB slots.
        for r in draws(&mut flows[0], 1000) {
            assert!(r.lba >= 2048 && r.lba + 8 <= 2176 && (r.lba - 2048) % 8 == 0, "{r:?}");
        }
    }

    #[test]
    fn offset_sets_the_start() {
        assert_eq!(flow(&job("offset=1g")).start_bytes, 1 << 30);
        assert!(error(&job("offset=10%")).contains("offset = \"10%\": expected bytes"));
    }

    #[test]
    fn time_based_needs_a_runtime() {
        assert_eq!(error("[j]\ntime_based\nsize=1m\n"), "j.fio:2: job `j`: time_based needs a runtime");
        assert_eq!(flow(&job("time_based=1\nsize=1m")).requests, 0);
        assert_eq!(flow(&job("time_based=0\nsize=1m")).requests, 256);
    }

    #[test]
    fn number_ios_sets_the_requests() {
        let f = flow("[j]\nnumber_ios=1234\nsize=1m\n");
        assert_eq!(f.requests, 1234);
        assert_eq!(flow(&job("number_ios=7\ntime_based")).requests, 7);
    }

    #[test]
    fn rate_iops_sets_an_open_loop_rate_for_one_direction() {
        let f = flow(&job("rw=randwrite\nrate_iops=2000"));
        assert_eq!((f.rate_iops, f.queue_depth), (2000.0, Some(1)));
        assert!(error(&job("rw=randrw\nrate_iops=2000")).contains("fio caps reads and writes each"));
    }

    #[test]
    fn ramp_time_sets_the_warm_up_after_the_start_delay() {
        let s = spec("[global]\nramp_time=2\nstartdelay=500ms\nruntime=10\n[a]\n[b]\n");
        // Warm-up from 0.5 s to 2.5 s; each flow issues from 0.5 s to 0.5 + 2 + 10 s.
        assert_eq!(s.ramp_ms, 2500.0);
        assert!(s.flows.iter().all(|f| f.start_ms == 500.0 && f.duration_ms == 12_500.0));
        let e = error("[a]\nruntime=1\nramp_time=1\n[b]\nruntime=1\nramp_time=2\n");
        assert!(
            e.starts_with("j.fio:6: job `b`: startdelay + ramp_time = 2000 ms, but another job's is 1000 ms"),
            "{e}"
        );
        assert!(error("[a]\nruntime=1\nramp_time=1\n[b]\nruntime=1\n").starts_with("j.fio:4: job `b` has no ramp_time"));
    }

    #[test]
    fn startdelay_holds_the_first_arrival_back() {
        let f = flow(&job("startdelay=5ms"));
        assert_eq!((f.start_ms, f.duration_ms), (5.0, 1005.0));
        // Closed loop: nothing before 5 ms, then as soon as asked.
        let flows = built(&job("startdelay=5ms"));
        assert_eq!(flows[0].peek_arrival(0), Some(5_000_000_000));
        assert_eq!(flows[0].peek_arrival(6_000_000_000), Some(6_000_000_000));
        // Open loop: the first arrival is at the delay, the next one an exponential gap later.
        let mut flows = built(&job("rw=randread\nrate_iops=1000\nstartdelay=5ms"));
        assert_eq!(flows[0].take(0).map(|r| r.arrival_ps), Some(5_000_000_000));
        assert!(flows[0].peek_arrival(0).is_some_and(|t| t > 5_000_000_000));
    }

    #[test]
    fn random_distribution_picks_the_address_pattern_of_random_jobs() {
        let f = flow(&job("rw=randread\nrandom_distribution=zipf:1.2"));
        assert_eq!((f.address, f.zipf_theta), (Address::Zipf, 1.2));
        assert_eq!(flow(&job("rw=randread\nrandom_distribution=random")).address, Address::Uniform);
        // zoned: 80 % of accesses to the first 20 % of the region: hotcold.
        let f = flow(&job("rw=randread\nrandom_distribution=zoned:80/20:20/80"));
        assert_eq!((f.address, f.hot_access, f.hot_fraction), (Address::HotCold, 0.8, 0.2));
        // fio applies it to random I/O only.
        assert_eq!(flow(&job("rw=read\nrandom_distribution=zipf:1.2")).address, Address::Sequential);
        for d in ["pareto:0.5", "normal", "gauss:10", "zoned_abs:50/10m:50/20m"] {
            assert!(error(&job(&format!("random_distribution={d}"))).contains("no pareto or normal"), "{d}");
        }
        assert!(error(&job("random_distribution=zoned:60/10:30/20:10/70")).contains("two zones"));
        assert!(error(&job("random_distribution=zipf:0")).contains("zipf:θ with θ in (0, 100]"));
    }

    #[test]
    fn zipf_1_2_over_ten_blocks_gives_the_rank_one_share_in_closed_form() {
        // 10 slots of 4 KiB; slot k (from 0) has rank k + 1, drawn with probability
        // (k + 1)^−1.2 / H(10, 1.2). By hand: H = 1 + 0.43528 + 0.26758 + 0.18946 + 0.14495
        // + 0.11647 + 0.09686 + 0.08247 + 0.07160 + 0.06310 = 2.46777, so rank 1 has
        // 1 / 2.46777 = 0.40523 of the draws and rank 2 0.43528 / 2.46777 = 0.17639.
        let h: f64 = (1..=10).map(|k| (k as f64).powf(-1.2)).sum();
        assert!((h - 2.46777).abs() < 1e-4, "{h}");
        let n = 200_000;
        let mut flows = built("[j]\nrw=randread\nsize=40k\nrandom_distribution=zipf:1.2\nruntime=1\ntime_based\n");
        let slots: Vec<u64> = draws(&mut flows[0], n).iter().map(|r| r.lba / 8).collect();
        assert!(slots.iter().all(|&s| s < 10));
        let share = |k: u64| slots.iter().filter(|&&s| s == k).count() as f64 / n as f64;
        // σ = sqrt(0.405 × 0.595 / 200,000) = 0.0011; within 5σ.
        assert!(near(share(0), 1.0 / h, n), "rank 1: {}", share(0));
        assert!(near(share(1), 2f64.powf(-1.2) / h, n), "rank 2: {}", share(1));
    }

    #[test]
    fn zoned_80_20_sends_80_percent_to_the_first_fifth() {
        let n = 100_000;
        let mut flows =
            built("[j]\nrw=randread\nsize=400k\nrandom_distribution=zoned:80/20:20/80\nruntime=1\ntime_based\n");
        // 100 slots of 4 KiB; the hot set is the first 20.
        let hot = draws(&mut flows[0], n).iter().filter(|r| r.lba / 8 < 20).count();
        assert!(near(hot as f64 / n as f64, 0.8, n), "{hot} of {n}");
    }

    #[test]
    fn thinktime_fsync_and_fdatasync_are_read_at_zero_only() {
        assert_eq!(flow(&job("thinktime=0\nfsync=0\nfdatasync=0")), flow(&job("")));
        assert!(error(&job("thinktime=100")).contains("thinktime = \"100\": expected 0 only: ssdlab's flows issue"));
        assert!(error(&job("fsync=1"))
            .starts_with("j.fio:3: fsync = \"1\": expected 0 only: ssdlab models no flush command"));
        assert!(error(&job("fdatasync=8")).contains("no flush command"));
    }

    #[test]
    fn global_options_apply_to_the_jobs_below_them() {
        let s = spec("[global]\nbs=8k\nruntime=1\n[a]\nbs=16k\n[b]\n[global]\nbs=64k\n[c]\n");
        let sizes: Vec<u64> = s.flows.iter().map(|f| f.request_bytes).collect();
        // a overrides; b inherits the first global; c the second.
        assert_eq!(sizes, [16384, 8192, 65536]);
        assert!(s.flows.iter().all(|f| f.duration_ms == 1000.0));
    }

    #[test]
    fn an_unknown_option_is_an_error_naming_its_line() {
        let e = error("; a comment\n[global]\nbs=4k\n[j]\n# another\nioengine=libaio\n");
        assert!(e.starts_with("j.fio:6: fio option `ioengine` is not read by ssdlab (it reads only rw, "), "{e}");
        assert_eq!(error("bs=4k\n[j]\n"), "j.fio:1: an option before any [section]");
        assert!(error("[global]\nbs=4k\n").contains("needs at least one job section"));
    }

    #[test]
    fn job_files_are_told_from_traces_by_their_first_line() {
        assert!(is_job_text("; comment\n\n[global]\nbs=4k\n"));
        assert!(is_job_text("[job1]\n"));
        assert!(!is_job_text("0 0 1024 8 1\n"));
        assert!(!is_job_text("128166372003061629,hm,0,Read,383000576,65536,2426\n"));
        assert!(!is_job_text("[]\n"));
    }

    #[test]
    fn the_equivalent_toml_reads_back_as_the_same_workload() {
        // docs/workload.md's example: every option ssdlab reads.
        let text = "[global]\nbs=4k\niodepth=16\nsize=1g\noffset=64m\nruntime=20ms\nramp_time=100ms\nstartdelay=5ms\ntime_based\nthinktime=0\nfsync=0\nfdatasync=0\n[oltp]\nrw=randrw\nrwmixread=70\nbssplit=4k/50:8k/50\nblockalign=4k\nrandom_distribution=zipf:1.2\nnumjobs=2\n[scan]\nreadwrite=read\nbs=128k\nnumber_ios=5000\ntime_based=0\n[hot]\nrw=randwrite\nrwmixwrite=100\nrandom_distribution=zoned:80/20:20/80\nrate_iops=2000\n[trimmer]\nrw=randtrim\nsize=10%\nrandom_distribution=random\n";
        let s = spec(text);
        let back = WorkloadSpec::from_toml_str(&equivalent_toml(&s), "w.toml", std::path::Path::new("."))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((back.flows, back.ramp_ms, back.seed), (s.flows.clone(), 105.0, 1));
        // By hand: 5 ms delay + 100 ms ramp + 20 ms runtime.
        assert!(s.flows.iter().all(|f| f.duration_ms == 125.0 && f.start_ms == 5.0));
        assert_eq!(s.flows[2].requests, 5000);
    }
}
