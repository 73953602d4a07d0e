//! `ssdlab validate`'s checks and what it prints: the drive's capacity and the run's memory
//! estimate by part.

use std::path::Path;

use ssdlab::{Config, RunOptions, WorkloadSpec};

use crate::{load_config, InputError};

/// `ssdlab validate`: the config (and workload) checked, then the drive's capacity and the
/// run's memory estimate by part.
pub(crate) fn validate(
    config: &Path,
    workload: Option<&Path>,
    unset: &[String],
    set: &[String],
    print: bool,
    opts: &RunOptions,
) -> Result<(), InputError> {
    let cfg = load_config(config, unset, set)?;
    let wl = match workload {
        Some(w) => WorkloadSpec::load(w)?,
        None => WorkloadSpec { source: String::new(), seed: 1, precondition: None, ramp_ms: 0.0, flows: Vec::new() },
    };
    // Estimating builds the flows: traces are read and addresses checked against the drive.
    let estimate = ssdlab::Simulation::estimate(&cfg, &wl, wl.seed, opts)?;
    if workload.is_some() {
        // Building the simulation checks what only the built layers can (preconditioning);
        // with `progress`, it prints the workload's warnings (nothing runs here).
        ssdlab::Simulation::new(&cfg, &wl, wl.seed, &RunOptions { progress: true, ..RunOptions::default() })?;
    }
    if print {
        out!("{}", cfg.to_toml());
        return Ok(());
    }
    if let Some(w) = workload.filter(|w| w.extension().is_none_or(|e| e != "toml") && ssdlab::host::fio::is_job_file(w))
    {
        outln!("{}", ssdlab::host::fio::equivalent_toml(&wl));
        outln!("{}: ok", w.display());
    }
    outln!("{}: ok", config.display());
    print_capacity(&cfg);
    print_estimate(&estimate, workload.is_some(), opts.check);
    Ok(())
}

/// The drive's raw and logical capacity, pages and blocks.
fn print_capacity(cfg: &Config) {
    use ssdlab::error::bytes_text;
    let n = &cfg.nand;
    let flash = ssdlab::nand::Geometry::from_config(n);
    let units = cfg.ftl.geometry(n);
    let logical = ssdlab::ftl::logical_pages(&units, cfg.ftl.overprovisioning_ratio) as u64;
    let raw = flash.pages() as u64 * flash.page_bytes as u64;
    let logical_bytes = logical * units.page_bytes as u64;
    outln!(
        "drive: {} channels × {} chips × {} dies × {} planes × {} blocks × {} pages of {} bytes",
        n.channels,
        n.chips_per_channel,
        n.dies_per_chip,
        n.planes_per_die,
        n.blocks_per_plane,
        n.pages_per_block,
        n.page_bytes
    );
    outln!(
        "capacity: {} physical ({raw} bytes), {} logical ({logical_bytes} bytes)",
        bytes_text(raw),
        bytes_text(logical_bytes)
    );
    outln!("pages: {} physical, {} blocks", flash.pages(), flash.blocks());
    let unit = if units.page_bytes == flash.page_bytes { "pages" } else { "mapping units" };
    outln!("mapped: {logical} logical {unit} of {} bytes ({} physical)", units.page_bytes, units.pages());
}

/// The memory estimate, by part, and what the system has available.
fn print_estimate(estimate: &ssdlab::mem::Estimate, workload: bool, check: bool) {
    use ssdlab::error::bytes_text;
    let of = match (workload, check) {
        (true, true) => "this workload, with --check",
        (true, false) => "this workload",
        (false, true) => "no workload (give --workload for a run's), with --check",
        (false, false) => "no workload (give --workload for a run's)",
    };
    outln!("memory estimate (peak, {of}): {}", bytes_text(estimate.total()));
    outln!("  {:<40} {:>10}", "this process before the run", bytes_text(estimate.before_bytes));
    for p in &estimate.parts {
        let when = match p.held {
            ssdlab::mem::Held::Always => "",
            ssdlab::mem::Held::WhileFilling => "  (freed before the run)",
            ssdlab::mem::Held::AfterFilling => "  (after preconditioning)",
        };
        outln!("  {:<40} {:>10}{when}", p.what, bytes_text(p.bytes));
    }
    if estimate.run_address_bytes() > estimate.run_bytes() {
        outln!("  (address space the run maps: {})", bytes_text(estimate.run_address_bytes()));
    }
    let limits = ssdlab::mem::limits();
    for l in &limits {
        outln!("limit: {} ({})", bytes_text(l.bytes), l.source);
    }
    match estimate.check(&limits) {
        Ok(()) => outln!("the run fits"),
        Err(e) => outln!("the run does NOT fit, `run` refuses it: {e}"),
    }
}
