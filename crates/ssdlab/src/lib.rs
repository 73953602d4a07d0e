//! ssdlab: a fast, event-accurate simulator of many-chip NAND flash SSDs.
//!
//! For storage researchers and SSD firmware architects who evaluate controller ideas
//! (schedulers, FTLs, allocation, GC) and need results they can trust under garbage
//! collection, at speeds that allow sweeps. Not a functional emulator: data is not stored,
//! only where it lives and how long moving it takes.
//!
//! Where to start reading: [`sim`] wires the layers and runs the event loop; each layer is
//! a module that says what it owns and which trait extends it:
//! [`host`] (workloads, flows) → [`hif`] (NVMe/SATA, link) → [`hil`] (device queue,
//! device-level scheduler: [`hil::DeviceScheduler`]) → [`cache`] (write cache) → [`ftl`]
//! (mapping [`ftl::mapping::Mapping`], allocation, GC victims) → [`tsu`] (flash transaction
//! scheduling: [`tsu::TsuPolicy`]) → [`nand`] (geometry, timing). [`engine`] is the event
//! queue, [`config`] the typed configuration, [`stats`] the metrics, [`report`] the output.
//!
//! ```no_run
//! let config = ssdlab::Config::load("presets/mqsim-default.toml".as_ref(), &[]).unwrap();
//! let workload = ssdlab::WorkloadSpec::load("examples/read-qd16.toml".as_ref()).unwrap();
//! let report = ssdlab::run(&config, &workload, None, &Default::default()).unwrap();
//! println!("{}", report.summary());
//! ```

pub mod bench;
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
pub mod reproduce;
pub mod sim;
pub mod stats;
pub mod tsu;

pub use config::Config;
pub use error::{Error, Result};
pub use host::{IoRequest, WorkloadSpec};
pub use report::Report;
pub use sim::{RunOptions, Simulation};

/// Run one simulation and build its report. `seed` overrides the workload's seed.
pub fn run(config: &Config, workload: &WorkloadSpec, seed: Option<u64>, opts: &RunOptions) -> Result<Report> {
    let seed = seed.unwrap_or(workload.seed);
    let sim = Simulation::new(config, workload, seed, opts)?;
    let outcome = sim.run()?;
    Ok(Report::from_outcome(&outcome))
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
