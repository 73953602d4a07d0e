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
mod tests;
