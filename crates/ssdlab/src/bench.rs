//! Benchmark scenarios behind `ssdlab bench`: speed (requests and events per second of wall
//! time) and memory (peak RSS, FTL bytes per physical page) on the `mqsim-default` drive.
//! The CLI runs each scenario in its own process so peak RSS is the scenario's own.

use serde::Serialize;
use std::time::Instant;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::ftl::precondition::{precondition, Pattern};
use crate::ftl::Ftl;
use crate::host::{FlowSpec, PreconditionSpec, WorkloadSpec};
use crate::report::peak_rss_bytes;
use crate::sim::{RunOptions, Simulation};

/// The preset every scenario runs on, compiled in so `bench` works from any directory.
pub const MQSIM_DEFAULT: &str = include_str!("../../../presets/mqsim-default.toml");

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
}

fn flow(name: &str, read_ratio: f64, qd: u32, requests: u64) -> FlowSpec {
    FlowSpec { name: name.into(), read_ratio, queue_depth: Some(qd), requests, ..FlowSpec::default() }
}

fn workload(name: &str) -> Option<WorkloadSpec> {
    let w = |flows, precondition| WorkloadSpec { source: format!("bench {name}"), seed: 42, precondition, flows };
    Some(match name {
        "read-4k-2xqd16" => w(vec![flow("a", 1.0, 16, 1_000_000), flow("b", 1.0, 16, 1_000_000)], None),
        "write-4k-qd32-gc" => {
            w(vec![flow("w", 0.0, 32, 2_000_000)], Some(PreconditionSpec { occupancy: 0.9, pattern: "random".into() }))
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
        let mut ftl = Ftl::new(&config, 42);
        let pages = precondition(&mut ftl, 0.9, Pattern::Random, 42)
            .map_err(|m| Error::config("bench", 0, "precondition", &m))?;
        let wall_s = wall.elapsed().as_secs_f64();
        return Ok(BenchResult {
            scenario: name.into(),
            requests: pages,
            wall_s,
            requests_per_s: pages as f64 / wall_s,
            events_per_s: 0.0,
            peak_rss_bytes: peak_rss_bytes(),
            state_bytes_per_page: ftl.state_bytes() as f64 / ftl.geo.pages() as f64,
            sim_iops: 0.0,
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
    })
}
