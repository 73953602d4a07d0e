//! Benchmark scenarios behind `ssdlab bench`: speed (requests and events per second of wall
//! time) and memory (peak RSS, FTL bytes per physical page) on the `mqsim-default` drive.
//! The CLI runs each scenario in its own process so peak RSS is the scenario's own.

use serde::Serialize;
use std::time::Instant;

use ssdlab::config::Config;
use ssdlab::error::{Error, Result};
use ssdlab::ftl::precondition::{precondition, Pattern};
use ssdlab::ftl::Ftl;
use ssdlab::host::{FlowSpec, PreconditionSpec, WorkloadSpec};
use ssdlab::report::peak_rss_bytes;
use ssdlab::sim::{RunOptions, Simulation};

/// The preset every scenario runs on, compiled in so `bench` works from any directory.
pub const MQSIM_DEFAULT: &str = include_str!("../../../presets/mqsim-default.toml");

/// How this binary was built: `debug`, `release`, or `pgo` (profile-guided, by
/// `scripts/pgo-build.sh`, which sets `SSDLAB_BUILD`). Bench figures name it, since the same
/// code runs faster with a profile-guided layout.
pub fn build_kind() -> &'static str {
    match option_env!("SSDLAB_BUILD") {
        Some(kind) => kind,
        None if cfg!(debug_assertions) => "debug",
        None => "release",
    }
}

pub const SCENARIOS: [&str; 5] =
    ["read-4k-2xqd16", "write-4k-qd32-gc", "mixed-70r-qd32", "precondition-512g-90", "fresh-512g"];

#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct BenchResult {
    pub scenario: String,
    pub requests: u64,
    pub wall_s: f64,
    pub requests_per_s: f64,
    pub events_per_s: f64,
    pub peak_rss_bytes: u64,
    /// FTL state bytes per physical page at the end of the scenario.
    pub state_bytes_per_page: f64,
    /// Simulated IOPS (a sanity figure, not a speed measure).
    pub sim_iops: f64,
    /// Runs measured; the figures above are the fastest run's.
    pub runs: u32,
    /// Median requests per second over the runs.
    pub requests_per_s_median: f64,
    /// How the binary was built (`build_kind`).
    pub build: String,
}

/// The fastest of several runs of one scenario, with the median rate beside it. Other load
/// on the machine only ever slows a run, so the fastest is the closest to the code's own
/// speed; the median shows how much the machine varied.
pub fn best_of(mut runs: Vec<BenchResult>) -> BenchResult {
    assert!(!runs.is_empty(), "at least one run");
    runs.sort_by(|a, b| a.wall_s.total_cmp(&b.wall_s));
    let median = runs[runs.len() / 2].requests_per_s;
    let n = runs.len() as u32;
    let peak = runs.iter().map(|r| r.peak_rss_bytes).max().unwrap_or(0);
    let mut best = runs.swap_remove(0);
    best.runs = n;
    best.requests_per_s_median = median;
    best.peak_rss_bytes = peak;
    best
}

fn flow(name: &str, read_ratio: f64, qd: u32, requests: u64) -> FlowSpec {
    FlowSpec { name: name.into(), read_ratio, queue_depth: Some(qd), requests, ..FlowSpec::default() }
}

fn workload(name: &str) -> Option<WorkloadSpec> {
    let w = |flows, precondition| WorkloadSpec {
        source: format!("bench {name}"),
        seed: 42,
        precondition,
        ramp_ms: 0.0,
        flows,
    };
    Some(match name {
        "read-4k-2xqd16" => w(vec![flow("a", 1.0, 16, 1_000_000), flow("b", 1.0, 16, 1_000_000)], None),
        "write-4k-qd32-gc" => {
            w(vec![flow("w", 0.0, 32, 2_000_000)], Some(PreconditionSpec { occupancy: 0.9, pattern: Pattern::Random }))
        }
        "mixed-70r-qd32" => w(vec![flow("m", 0.7, 32, 1_000_000)], None),
        "fresh-512g" => w(vec![flow("f", 0.5, 32, 1_000_000)], None),
        _ => return None,
    })
}

/// The drive every scenario runs on: `mqsim-default` with `sets` applied.
pub fn config(sets: &[String]) -> Result<Config> {
    Config::from_toml_str(MQSIM_DEFAULT, "presets/mqsim-default.toml", sets)
}

/// Run one scenario in this process, on `mqsim-default` with `sets` applied.
pub fn run_scenario(name: &str, sets: &[String]) -> Result<BenchResult> {
    let config = config(sets)?;
    if name == "precondition-512g-90" {
        let wall = Instant::now();
        let mut ftl = Ftl::new(&config.nand, &config.ftl, 42)?;
        let pages = precondition(&mut ftl, 0.9, Pattern::Random, 42, None)
            .map_err(|m| Error::config("bench", 0, "precondition", &m))?;
        let wall_s = wall.elapsed().as_secs_f64();
        return Ok(BenchResult {
            scenario: name.into(),
            requests: pages,
            wall_s,
            requests_per_s: pages as f64 / wall_s,
            events_per_s: 0.0,
            peak_rss_bytes: peak_rss_bytes(),
            state_bytes_per_page: ftl.state_bytes() as f64 / ftl.geo().pages() as f64,
            sim_iops: 0.0,
            runs: 1,
            requests_per_s_median: pages as f64 / wall_s,
            build: build_kind().into(),
        });
    }
    let wl = workload(name).ok_or_else(|| {
        Error::config("bench", 0, "scenario", &format!("unknown scenario `{name}`; known: {}", SCENARIOS.join(", ")))
    })?;
    let sim = Simulation::new(&config, &wl, wl.seed, &RunOptions::default())?;
    let o = sim.run()?;
    let requests = o.stats.completed;
    Ok(BenchResult {
        scenario: name.into(),
        requests,
        wall_s: o.wall_s,
        requests_per_s: requests as f64 / o.wall_s,
        events_per_s: o.events as f64 / o.wall_s,
        peak_rss_bytes: peak_rss_bytes(),
        state_bytes_per_page: o.state_bytes as f64 / o.geo.pages() as f64,
        sim_iops: requests as f64 / (o.sim_time_ps as f64 / 1e12),
        runs: 1,
        requests_per_s_median: requests as f64 / o.wall_s,
        build: build_kind().into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(wall_s: f64, rss: u64) -> BenchResult {
        BenchResult {
            scenario: "s".into(),
            requests: 1000,
            wall_s,
            requests_per_s: 1000.0 / wall_s,
            events_per_s: 0.0,
            peak_rss_bytes: rss,
            state_bytes_per_page: 0.0,
            sim_iops: 0.0,
            runs: 1,
            requests_per_s_median: 1000.0 / wall_s,
            build: "release".into(),
        }
    }

    #[test]
    fn best_of_reports_the_fastest_run_the_median_rate_and_the_largest_footprint() {
        let r = best_of(vec![result(2.0, 10), result(1.0, 30), result(4.0, 20)]);
        assert_eq!(r.runs, 3);
        assert_eq!(r.wall_s, 1.0);
        assert_eq!(r.requests_per_s, 1000.0);
        assert_eq!(r.requests_per_s_median, 500.0);
        assert_eq!(r.peak_rss_bytes, 30);
    }
}
