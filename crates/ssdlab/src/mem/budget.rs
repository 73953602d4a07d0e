//! A run's memory: its [`Estimate`] by part, and the [`Limit`]s it must fit.
//!
//! Two sizes per part: what becomes resident (what `MemAvailable`, a cgroup or `--max-memory`
//! limit) and the address space it takes (what `ulimit -v` limits): a zeroed allocation takes
//! its address space at once but becomes resident only where written. And when it is held:
//! for the whole run, only while preconditioning fills the drive (its order of pages), or only
//! from after that (the integrity oracle): the peak is what is always held and the larger of
//! the two others.

use crate::error::{bytes_text, Error, Result};

/// One part of an [`Estimate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub what: &'static str,
    /// Resident bytes at the run's peak.
    pub bytes: u64,
    /// Address space taken (at least `bytes`).
    pub address_bytes: u64,
    pub held: Held,
}

/// When a [`Part`] is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    Always,
    /// While preconditioning fills the drive, freed before the run.
    WhileFilling,
    /// From the end of preconditioning on.
    AfterFilling,
}

/// The parts of a run's peak memory, and the process's memory before it (its code and
/// libraries, what it has read): resident, and mapped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Estimate {
    pub before_bytes: u64,
    pub before_address_bytes: u64,
    pub parts: Vec<Part>,
}

impl Estimate {
    /// An estimate with what this process holds now as its start.
    pub fn for_this_process() -> Estimate {
        Estimate {
            before_bytes: resident_bytes(),
            before_address_bytes: proc_kb("/proc/self/status", "VmSize:").unwrap_or(0) * 1024,
            parts: Vec::new(),
        }
    }

    /// A part held for the whole run, whose address space is what it makes resident.
    pub fn add(&mut self, what: &'static str, bytes: u64) {
        self.add_held(what, bytes, Held::Always);
    }

    /// A part held as `held` says.
    pub fn add_held(&mut self, what: &'static str, bytes: u64, held: Held) {
        self.parts.push(Part { what, bytes, address_bytes: bytes, held });
    }

    /// A part that takes `address_bytes` of address space, `bytes` of it resident.
    pub fn add_reserved(&mut self, what: &'static str, bytes: u64, address_bytes: u64) {
        self.parts.push(Part { what, bytes, address_bytes: address_bytes.max(bytes), held: Held::Always });
    }

    /// The peak of `size` over the run: what is always held, and the larger of what is held
    /// while filling and after.
    fn peak(&self, size: impl Fn(&Part) -> u64) -> u64 {
        let sum = |h: Held| self.parts.iter().filter(|p| p.held == h).map(&size).sum::<u64>();
        sum(Held::Always) + sum(Held::WhileFilling).max(sum(Held::AfterFilling))
    }

    /// Resident bytes the run adds to the process, at its peak.
    pub fn run_bytes(&self) -> u64 {
        self.peak(|p| p.bytes)
    }

    /// Address space the run adds, at its peak.
    pub fn run_address_bytes(&self) -> u64 {
        self.peak(|p| p.address_bytes)
    }

    /// The process's resident peak: before the run, and the run.
    pub fn total(&self) -> u64 {
        self.before_bytes + self.run_bytes()
    }

    /// The largest parts by `size`, largest first, as `name 1.20 GiB, name 300 MiB`.
    fn largest(&self, n: usize, size: impl Fn(&Part) -> u64) -> String {
        let mut parts: Vec<&Part> = self.parts.iter().filter(|p| size(p) > 0).collect();
        parts.sort_by_key(|p| std::cmp::Reverse(size(p)));
        let shown: Vec<String> = parts.iter().take(n).map(|p| format!("{} {}", p.what, bytes_text(size(p)))).collect();
        shown.join(", ")
    }

    /// [`Error::MemoryLimit`] naming the first of `limits` the estimate is above.
    pub fn check(&self, limits: &[Limit]) -> Result<()> {
        for limit in limits {
            let (estimate, parts) = match limit.kind {
                LimitKind::Process => (self.total(), self.largest(3, |p| p.bytes)),
                LimitKind::Available => (self.run_bytes(), self.largest(3, |p| p.bytes)),
                LimitKind::AddressSpace => (self.run_address_bytes(), self.largest(3, |p| p.address_bytes)),
            };
            if estimate > limit.bytes {
                let (limit_bytes, limit_source) = (limit.bytes, limit.source.clone());
                return Err(Error::MemoryLimit {
                    run: String::new(),
                    estimate,
                    limit: limit_bytes,
                    limit_source,
                    parts,
                });
            }
        }
        Ok(())
    }
}

/// What a [`Limit`] bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// The process's resident peak (`--max-memory`): the estimate's total.
    Process,
    /// Resident memory the process may still take (the system's available memory, a
    /// cgroup's limit less its use): the run's resident bytes.
    Available,
    /// Address space the process may still map (`ulimit -v` less what is mapped): the run's
    /// address space.
    AddressSpace,
}

/// A bound on a run's memory, and what sets it (for the message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    pub source: String,
    pub kind: LimitKind,
}

impl Limit {
    /// A limit on the whole process's resident peak (`--max-memory`).
    pub fn on_process(bytes: u64, source: &str) -> Limit {
        Limit { bytes, source: source.to_string(), kind: LimitKind::Process }
    }

    /// Each of `runs` runs at once gets an equal share.
    pub fn shared_by(self, runs: usize) -> Limit {
        if runs <= 1 || self.kind == LimitKind::Process {
            return self;
        }
        let source = format!("{}, shared by {runs} runs at once", self.source);
        Limit { bytes: self.bytes / runs as u64, source, kind: self.kind }
    }
}

/// What this process may still take: the memory the system has available (`MemAvailable` in
/// `/proc/meminfo`), the address space left under its limit (`ulimit -v`, RLIMIT_AS, less
/// what is mapped now) and its cgroup's memory limit less the cgroup's use; those known (none
/// outside Linux).
pub fn limits() -> Vec<Limit> {
    let mut limits = Vec::new();
    if let Some(kb) = proc_kb("/proc/meminfo", "MemAvailable:") {
        let source = "the memory the system has available (MemAvailable in /proc/meminfo)".to_string();
        limits.push(Limit { bytes: kb * 1024, source, kind: LimitKind::Available });
    }
    if let Some(limit) = address_space_limit() {
        let mapped = proc_kb("/proc/self/status", "VmSize:").unwrap_or(0) * 1024;
        let source = format!(
            "the address space left under ulimit -v {} ({} less {} mapped)",
            limit / 1024,
            bytes_text(limit),
            bytes_text(mapped)
        );
        limits.push(Limit { bytes: limit.saturating_sub(mapped), source, kind: LimitKind::AddressSpace });
    }
    if let Some((max, used)) = cgroup_limit() {
        let source = format!("the cgroup's memory limit ({} less {} in use)", bytes_text(max), bytes_text(used));
        limits.push(Limit { bytes: max.saturating_sub(used), source, kind: LimitKind::Available });
    }
    limits
}

/// This process's resident memory now (`VmRSS`), 0 where unknown.
pub fn resident_bytes() -> u64 {
    proc_kb("/proc/self/status", "VmRSS:").unwrap_or(0) * 1024
}

/// A `kB` field of a `/proc` file.
fn proc_kb(file: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find_map(|l| l.strip_prefix(field))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

/// RLIMIT_AS in bytes, if set.
fn address_space_limit() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes the struct it is given.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0;
        (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// The cgroup's memory limit and use (v2 `memory.max`/`memory.current`, else v1
/// `memory.limit_in_bytes`/`memory.usage_in_bytes`), if limited.
fn cgroup_limit() -> Option<(u64, u64)> {
    let read = |p: &str| std::fs::read_to_string(p).ok().and_then(|t| t.trim().parse::<u64>().ok());
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    if let Some(path) = cgroup.lines().find_map(|l| l.strip_prefix("0::")) {
        let dir = format!("/sys/fs/cgroup{}", path.trim_end_matches('/'));
        if let (Some(max), Some(used)) = (read(&format!("{dir}/memory.max")), read(&format!("{dir}/memory.current"))) {
            return Some((max, used));
        }
    }
    let max = read("/sys/fs/cgroup/memory/memory.limit_in_bytes")?;
    // v1 writes an unlimited cgroup's limit as a number near 2^63.
    (max < 1 << 60).then(|| (max, read("/sys/fs/cgroup/memory/memory.usage_in_bytes").unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts of 100 and 300 resident bytes held throughout, the second taking 1,000 of
    /// address space, 40 held while filling and 30 after (40 counts), after 50 bytes before
    /// the run: a process limit of 489 refuses (total 490), 490 passes; an available limit
    /// compares the run's 440; an address-space limit the run's 1,140.
    #[test]
    fn each_limit_bounds_its_own_sum() {
        let mut e = Estimate { before_bytes: 50, before_address_bytes: 80, parts: Vec::new() };
        e.add("a", 100);
        e.add_reserved("b", 300, 1000);
        // Held at different times: only the larger counts.
        e.add_held("filling", 40, Held::WhileFilling);
        e.add_held("after", 30, Held::AfterFilling);
        let at = |bytes, kind| e.check(&[Limit { bytes, source: "test".into(), kind }]).is_ok();
        assert!(!at(489, LimitKind::Process) && at(490, LimitKind::Process));
        assert!(!at(439, LimitKind::Available) && at(440, LimitKind::Available));
        assert!(!at(1139, LimitKind::AddressSpace) && at(1140, LimitKind::AddressSpace));
        let err = e.check(&[Limit { bytes: 1000, source: "ulimit".into(), kind: LimitKind::AddressSpace }]);
        let text = err.unwrap_err().to_string();
        assert!(
            text.starts_with("this run needs about 1.11 KiB of memory (estimate), more than 1000 B: ulimit;"),
            "{text}"
        );
        assert!(text.contains("b 1000 B, a 100 B, filling 40 B"), "{text}");
    }
}
