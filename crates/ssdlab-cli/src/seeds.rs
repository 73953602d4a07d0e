//! `run --seeds A..B`: the same config and workload under each seed from A to B, in parallel
//! on `--threads`, summarised by each seed's main statistics and their mean with a 95% t
//! interval (`ssdlab_lab::reproduce::claims::mean_interval`, the reproductions' own). With
//! `--out`, one JSON holds the per-seed reports and the summary.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ssdlab::{Config, Report, RunOptions, WorkloadSpec};

use crate::InputError;

/// Seeds `first..=last`, parsed from `A..B` (both ends run).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seeds {
    pub(crate) first: u64,
    pub(crate) last: u64,
}

/// Runs one command may ask for: each is a whole simulation.
const MAX_SEEDS: u64 = 1000;

/// `--seeds A..B`'s parser.
pub(crate) fn parse_seeds(s: &str) -> Result<Seeds, String> {
    let (a, b) = s.split_once("..").ok_or_else(|| format!("`{s}`: expected A..B, e.g. 1..5 (both ends run)"))?;
    let num = |x: &str| x.trim().parse::<u64>().map_err(|_| format!("`{x}` is not a seed (0 to 2^64 − 1)"));
    let (first, last) = (num(a)?, num(b)?);
    if last < first {
        return Err(format!("`{s}`: the last seed is below the first"));
    }
    if last - first >= MAX_SEEDS {
        return Err(format!("`{s}`: at most {MAX_SEEDS} seeds in one run"));
    }
    Ok(Seeds { first, last })
}

/// A statistic the summary gives per seed and over the seeds.
struct Statistic {
    name: &'static str,
    /// Its column title on screen.
    title: &'static str,
    /// Decimals on screen.
    decimals: usize,
    of: fn(&Report) -> f64,
}

const STATISTICS: [Statistic; 6] = [
    Statistic { name: "requests", title: "requests", decimals: 1, of: |r| r.sim.host.requests_completed as f64 },
    Statistic { name: "iops", title: "IOPS", decimals: 1, of: |r| r.sim.host.iops },
    Statistic { name: "bandwidth_mb_s", title: "MB/s", decimals: 3, of: |r| r.sim.host.bandwidth_mb_s },
    Statistic { name: "latency_mean_us", title: "mean (us)", decimals: 3, of: |r| r.sim.latency_us.all.mean },
    Statistic { name: "latency_p99_us", title: "p99 (us)", decimals: 3, of: |r| r.sim.latency_us.all.p99 },
    Statistic { name: "waf", title: "WAF", decimals: 4, of: |r| r.sim.gc.waf },
];

/// A statistic over the seeds: each seed's value, their mean and its 95% t interval (none
/// for one seed).
struct Summary {
    values: Vec<f64>,
    mean: f64,
    ci95_low: Option<f64>,
    ci95_high: Option<f64>,
}

/// The runs summarised.
struct SeedsReport<'a> {
    seeds: Vec<u64>,
    summary: std::collections::BTreeMap<&'static str, Summary>,
    reports: &'a [Report],
}

fn summarise(reports: &[Report]) -> SeedsReport<'_> {
    let summary = STATISTICS
        .iter()
        .map(|s| {
            let values: Vec<f64> = reports.iter().map(s.of).collect();
            let (mean, interval) = ssdlab_lab::reproduce::claims::mean_interval(&values).expect("at least one seed");
            let (ci95_low, ci95_high) = (interval.map(|i| i.0), interval.map(|i| i.1));
            (s.name, Summary { values, mean, ci95_low, ci95_high })
        })
        .collect();
    SeedsReport { seeds: reports.iter().map(|r| r.seed).collect(), summary, reports }
}

/// How each run goes: the options of one run, and whether to add FLIN's fairness.
pub(crate) struct PerSeed<'a> {
    pub(crate) config: &'a Config,
    pub(crate) workload: &'a WorkloadSpec,
    pub(crate) check: bool,
    pub(crate) fairness: bool,
    /// Each run's memory limits (`RunOptions::memory_limits`): the process's, shared by the
    /// runs at once.
    pub(crate) memory_limits: Vec<ssdlab::mem::Limit>,
}

/// Runs every seed on up to `threads` threads; the reports in seed order (each run is
/// deterministic, so the order they finish in does not matter). A line on stderr per run.
pub(crate) fn run_all(seeds: Seeds, threads: usize, job: &PerSeed) -> Result<Vec<Report>, InputError> {
    let list: Vec<u64> = (seeds.first..=seeds.last).collect();
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Result<Report, InputError>>>> = Mutex::new((0..list.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, list.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&seed) = list.get(i) else { break };
                let report = run_one(job, seed);
                if let Ok(r) = &report {
                    eprintln!("seed {seed}: {} requests in {:.2} s", r.sim.host.requests_completed, r.run.wall_s);
                }
                slots.lock().expect("no run panics while holding the lock")[i] = Some(report);
            });
        }
    });
    let slots = slots.into_inner().expect("the runs are over");
    slots.into_iter().map(|r| r.expect("every seed ran")).collect()
}

fn run_one(job: &PerSeed, seed: u64) -> Result<Report, InputError> {
    let opts =
        RunOptions { check: job.check, timeline: None, progress: false, memory_limits: job.memory_limits.clone() };
    let mut report = ssdlab::run(job.config, job.workload, Some(seed), &opts)?;
    if job.fairness {
        // One thread: the seeds already run in parallel.
        ssdlab::add_fairness(&mut report, job.config, job.workload, seed, 1)?;
    }
    Ok(report)
}

/// The JSON of the runs (`--out`, `--json`): the seeds, the summary (per statistic: each
/// seed's value, the mean, the 95% interval's ends) and the per-seed reports.
pub(crate) fn to_json(reports: &[Report]) -> String {
    let s = summarise(reports);
    let summary: serde_json::Map<String, serde_json::Value> = s
        .summary
        .iter()
        .map(|(name, m)| {
            let v = serde_json::json!({
                "values": m.values, "mean": m.mean, "ci95_low": m.ci95_low, "ci95_high": m.ci95_high,
            });
            (name.to_string(), v)
        })
        .collect();
    let all = serde_json::json!({ "seeds": s.seeds, "summary": summary, "reports": s.reports });
    serde_json::to_string_pretty(&all).expect("reports serialise")
}

/// The screen: a line per seed with its main statistics, then their mean and the half-width
/// of its 95% interval.
pub(crate) fn table(reports: &[Report], config: &std::path::Path, workload: &std::path::Path) -> String {
    let s = summarise(reports);
    let (first, last) = (s.seeds[0], s.seeds[s.seeds.len() - 1]);
    let mut out =
        format!("seeds {first}..{last}: {} runs of {} with {}\n", s.seeds.len(), config.display(), workload.display());
    out += &format!("{:<10}", "seed");
    for st in &STATISTICS {
        out += &format!(" {:>14}", st.title);
    }
    out.push('\n');
    for (i, seed) in s.seeds.iter().enumerate() {
        out += &format!("{seed:<10}");
        for st in &STATISTICS {
            out += &format!(" {:>14.*}", st.decimals, s.summary[st.name].values[i]);
        }
        out.push('\n');
    }
    out += &format!("{:<10}", "mean");
    for st in &STATISTICS {
        out += &format!(" {:>14.*}", st.decimals, s.summary[st.name].mean);
    }
    out.push('\n');
    out += &format!("{:<10}", "± 95% CI");
    for st in &STATISTICS {
        let m = &s.summary[st.name];
        match m.ci95_high {
            Some(hi) => out += &format!(" {:>14.*}", st.decimals, hi - m.mean),
            None => out += &format!(" {:>14}", "–"),
        }
    }
    out.push('\n');
    // The reports' warnings (the inputs', the same for every seed), each once.
    let mut warnings: Vec<&String> = reports.iter().flat_map(|r| &r.warnings).collect();
    warnings.sort_unstable();
    warnings.dedup();
    warnings.iter().for_each(|w| out += &format!("warning: {w}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::parse_seeds;

    #[test]
    fn seeds_parse_as_an_inclusive_range() {
        let s = parse_seeds("3..5").unwrap();
        assert_eq!((s.first, s.last), (3, 5));
        let one = parse_seeds("7..7").unwrap();
        assert_eq!((one.first, one.last), (7, 7));
        for (bad, why) in
            [("5..3", "below the first"), ("1-3", "expected A..B"), ("1..x", "not a seed"), ("0..1000", "at most 1000")]
        {
            let e = parse_seeds(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
        assert!(parse_seeds("0..999").is_ok());
    }
}
