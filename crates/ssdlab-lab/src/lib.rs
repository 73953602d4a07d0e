//! The lab around the simulator: what runs many simulations and writes results for people,
//! built on the engine crate's public API (`ssdlab`) and nothing else.
//!
//! - [`reproduce`]: each paper's evaluation as a grid of runs, its results table, figures
//!   and REPORT.md.
//! - [`sweep`]: the sweep engine (grids, a store of reports that survives interruption, a
//!   thread pool, the results table), used by `reproduce`, `ssdlab sweep` and Python.
//! - [`soak`]: the integrity soak (every pair of mapping, allocation, cache and GC choices,
//!   the oracle on).
//! - [`bench`]: speed and memory scenarios for `ssdlab bench`.
//! - [`import`]: other simulators' configurations as ssdlab TOML (`ssdlab import mqsim`).
//! - [`serve`]: the simulated drive as an NBD block device (`ssdlab serve`).
//! - [`table`]: typed results tables and their Parquet files (results.parquet, `run
//!   --parquet`).
//!
//! The engine does not depend on this crate, so a change here (a report's prose, a plot)
//! leaves the engine's source hash, and with it every stored sweep report, valid.

pub mod bench;
pub mod import;
pub mod reproduce;
pub mod serve;
pub mod soak;
pub mod sweep;
pub mod table;
