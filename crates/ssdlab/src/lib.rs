//! ssdlab: a fast, event-accurate simulator of many-chip NAND flash SSDs.
//!
//! For storage researchers and SSD firmware architects who evaluate controller ideas
//! (schedulers, FTLs, allocation, GC) and need results they can trust under garbage
//! collection, at speeds that allow sweeps. Not a functional emulator: data is not stored,
//! only where it lives and how long moving it takes.
//!
//! Where to start reading: `docs/architecture.md`, then [`sim`], the event loop and the
//! routing between layers. Each layer is a module that owns its state and its mechanism and
//! says which trait extends it: [`host`] (workloads, flows) → [`hif`] (NVMe/SATA queues,
//! link) → [`hil`] (device queue, hazards, device-level scheduler: [`hil::DeviceScheduler`])
//! → [`cache`] (write cache) → [`ftl`] (mapping [`ftl::mapping::Mapping`], allocation, blocks,
//! GC) → [`tsu`] (flash transaction scheduling: [`tsu::TsuPolicy`], the command builder) →
//! [`nand`] (geometry, timing, and [`nand::phy`]: chips and buses at work). [`engine`] is the
//! event queue, [`config`] the typed configuration, [`stats`] the metrics, [`report`] the
//! output, [`timeline`] the Perfetto trace.
//!
//! ```no_run
//! let config = ssdlab::Config::load("presets/mqsim-default.toml".as_ref(), &[]).unwrap();
//! let workload = ssdlab::WorkloadSpec::load("examples/read-qd16.toml".as_ref()).unwrap();
//! let report = ssdlab::run(&config, &workload, None, &Default::default()).unwrap();
//! println!("{}", report.summary());
//! ```

pub mod cache;
pub mod check;
pub mod config;
pub mod engine;
pub mod error;
pub mod ftl;
pub mod hif;
pub mod hil;
pub mod host;
pub mod mem;
pub mod nand;
pub mod report;
pub mod sim;
pub mod slab;
pub mod stats;

pub mod tsu;
pub mod validate;

pub use nand::timeline;

pub use config::Config;
pub use error::{Error, Result};
pub use host::{IoRequest, WorkloadSpec};
pub use report::Report;
pub use sim::{LiveDone, RunOptions, Simulation};

/// A hash of the simulator's source (this crate's and `ssdlab-trace`'s, by `build.rs`):
/// reports carry it (`ssdlab_source`), so a sweep does not reuse a report other code made.
pub const SOURCE_HASH: &str = env!("SSDLAB_SOURCE_HASH");

/// Run one simulation and build its report. `seed` overrides the workload's seed.
pub fn run(config: &Config, workload: &WorkloadSpec, seed: Option<u64>, opts: &RunOptions) -> Result<Report> {
    let seed = seed.unwrap_or(workload.seed);
    let sim = Simulation::new(config, workload, seed, opts)?;
    let outcome = sim.run()?;
    Ok(Report::from_outcome(&outcome))
}

/// Run one simulation, then each of its flows alone, and add the slowdowns and fairness
/// summary to the report (see [`add_fairness`]).
pub fn run_with_fairness(
    config: &Config,
    workload: &WorkloadSpec,
    seed: Option<u64>,
    opts: &RunOptions,
    threads: usize,
) -> Result<Report> {
    let seed = seed.unwrap_or(workload.seed);
    let mut report = run(config, workload, Some(seed), opts)?;
    add_fairness(&mut report, config, workload, seed, threads)?;
    Ok(report)
}

/// Run each flow of `workload` alone on the same drive (same config, seed and
/// preconditioning; each flow keeps the seed it had in the shared run) and add each flow's
/// slowdown and the fairness summary to `report`, the shared run's report. The alone runs go
/// in parallel on up to `threads` cores.
pub fn add_fairness(
    report: &mut Report,
    config: &Config,
    workload: &WorkloadSpec,
    seed: u64,
    threads: usize,
) -> Result<()> {
    let alone: Vec<WorkloadSpec> = (0..workload.flows.len())
        .map(|i| {
            let mut alone = workload.clone();
            let mut flow = alone.flows[i].clone();
            // The seed the flow had in the shared run (see host::build_flows).
            flow.seed = Some(flow.seed.unwrap_or_else(|| host::flow_seed(seed, i)));
            alone.flows = vec![flow];
            alone
        })
        .collect();
    let alone = run_each(config, &alone, seed, threads)?;
    let shared: Vec<f64> = report.sim.flows.iter().map(|f| f.latency_us.mean).collect();
    let alone: Vec<f64> = alone.iter().map(|r| r.sim.flows[0].latency_us.mean).collect();
    let (summary, slowdowns) = report::FairnessReport::from_means(&shared, &alone);
    for (f, s) in report.sim.flows.iter_mut().zip(slowdowns) {
        f.slowdown = s;
    }
    report.sim.fairness = Some(summary);
    Ok(())
}

/// Run `config` on each workload (seed `seed`), on up to `threads` threads; the reports in
/// workload order. Each run is deterministic, so the order the threads finish in does not
/// matter.
fn run_each(config: &Config, workloads: &[WorkloadSpec], seed: u64, threads: usize) -> Result<Vec<Report>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Result<Report>>> = (0..workloads.len()).map(|_| None).collect();
    let slots = std::sync::Mutex::new(&mut results);
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, workloads.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(w) = workloads.get(i) else { break };
                let r = run(config, w, Some(seed), &RunOptions::default());
                slots.lock().expect("no run panics while holding the lock")[i] = Some(r);
            });
        }
    });
    results.into_iter().map(|r| r.expect("every workload ran")).collect()
}

/// Run one simulation and return the raw outcome (with the timeline, if recorded).
pub fn run_outcome(
    config: &Config,
    workload: &WorkloadSpec,
    seed: Option<u64>,
    opts: &RunOptions,
) -> Result<sim::Outcome> {
    let seed = seed.unwrap_or(workload.seed);
    Simulation::new(config, workload, seed, opts)?.run()
}
