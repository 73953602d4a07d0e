//! `ssdlab serve`: the command line of the NBD server (`ssdlab_lab::serve`). It builds the
//! drive and the connections' flows, listens, and on SIGINT/SIGTERM (or, with `--once`, when
//! the last client has gone) writes the report as `ssdlab run` does, with a `serve` section:
//! the pace, the connections, and in real pace how late replies left.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use ssdlab::{RunOptions, Simulation, WorkloadSpec};
use ssdlab_lab::serve::{DataSpec, Listen, Pace, ServeOptions, Served};

use crate::output::OutputFile;
use crate::InputError;

#[derive(Args)]
pub(crate) struct ServeArgs {
    /// Drive configuration (TOML), e.g. presets/mqsim-default.toml.
    #[arg(long)]
    config: PathBuf,
    /// Override a config key: --set ftl.gc.policy=fifo (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Remove a key or a whole table of the config before the --sets apply (repeatable).
    #[arg(long = "unset", value_name = "KEY")]
    unset: Vec<String>,
    /// Where to listen: unix:PATH or tcp:HOST:PORT.
    #[arg(long)]
    listen: String,
    /// real: replies leave when the wall clock reaches their simulated completion; simulated:
    /// as soon as the simulation has served them (simulated time moves only while requests
    /// are in flight).
    #[arg(long, value_enum, default_value_t = PaceArg::Real)]
    pace: PaceArg,
    /// Where written data is kept: memory, or a FILE (created sparse, the drive's size).
    #[arg(long, default_value = "memory")]
    data: String,
    /// The connections' flows, in the order clients connect: NAME[:PRIORITY],... (priority
    /// urgent, high, medium or low), or a workload TOML whose `type = "live"` flows they are
    /// (it may add preconditioning and flows of its own).
    #[arg(long, default_value = "conn1,conn2,conn3,conn4")]
    flows: String,
    /// Write the report (JSON, as `ssdlab run --out` writes it) here when the server stops.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Stop when the last client disconnects (after the first has connected).
    #[arg(long)]
    once: bool,
    /// Run the integrity oracle alongside (needs hil.hazards = "strict").
    #[arg(long)]
    check: bool,
    /// Seed of the drive's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Simulated pace: after a reply, how long (µs of wall time) to wait for the client's
    /// next request before simulated time moves on.
    #[arg(long, default_value_t = 20_000, value_name = "US")]
    lockstep_us: u64,
}

#[derive(Clone, Copy, ValueEnum)]
enum PaceArg {
    Real,
    Simulated,
}

fn parse_listen(s: &str) -> Result<Listen, InputError> {
    if let Some(path) = s.strip_prefix("unix:").filter(|p| !p.is_empty()) {
        return Ok(Listen::Unix(path.into()));
    }
    if let Some(addr) = s.strip_prefix("tcp:").filter(|a| a.contains(':')) {
        return Ok(Listen::Tcp(addr.into()));
    }
    Err(InputError(format!("--listen {s:?}: give unix:PATH or tcp:HOST:PORT")))
}

/// `--flows`: a workload file, or the list NAME[:PRIORITY],... as live flows.
fn flows(spec: &str) -> Result<WorkloadSpec, InputError> {
    if spec.ends_with(".toml") {
        let wl = WorkloadSpec::load(Path::new(spec))?;
        if !wl.flows.iter().any(|f| f.kind == ssdlab::host::FlowKind::Live) {
            return Err(InputError(format!("--flows {spec}: no flow has type = \"live\", so no client could connect")));
        }
        return Ok(wl);
    }
    let mut text = String::new();
    for item in spec.split(',') {
        let (name, priority) = item.split_once(':').unwrap_or((item, "medium"));
        let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
        if !plain(name) || !plain(priority) {
            return Err(InputError(format!(
                "--flows {spec:?}: {item:?} is not NAME[:PRIORITY] (letters, digits, _ - . only)"
            )));
        }
        text += &format!("[[flows]]\nname = \"{name}\"\ntype = \"live\"\npriority = \"{priority}\"\n");
    }
    Ok(WorkloadSpec::from_toml_str(&text, "--flows", Path::new("."))?)
}

pub(crate) fn serve(args: ServeArgs) -> Result<(), InputError> {
    let cfg = crate::load_config(&args.config, &args.unset, &args.set)?;
    let wl = flows(&args.flows)?;
    let out = args.out.as_deref().map(OutputFile::check).transpose()?;
    let listen = parse_listen(&args.listen)?;
    let data = if args.data == "memory" { DataSpec::Memory } else { DataSpec::File(args.data.clone().into()) };
    let pace = match args.pace {
        PaceArg::Real => Pace::Real,
        PaceArg::Simulated => Pace::Simulated,
    };
    let opts = ServeOptions { listen, pace, data, once: args.once, lockstep_us: args.lockstep_us };
    let run_opts = RunOptions { check: args.check, progress: false, ..RunOptions::default() };
    let sim = Simulation::new(&cfg, &wl, args.seed, &run_opts)?;
    let (size, sector) = (sim.logical_bytes(), cfg.nand.sector_bytes);
    crate::signals::catch(&[libc::SIGINT, libc::SIGTERM]);
    let served = ssdlab_lab::serve::serve(sim, size, sector, &opts, crate::signals::stop_flag(), &mut |name| {
        eprintln!(
            "serve: listening on {name}: {size} bytes ({:.1} GiB), pace {:?}",
            size as f64 / (1u64 << 30) as f64,
            pace
        );
    })?;
    if let Listen::Unix(path) = &opts.listen {
        let _ = std::fs::remove_file(path);
    }
    report(&served, out)
}

/// The summary on stdout, the report (run's, with a `serve` section) to `--out`.
fn report(served: &Served, out: Option<OutputFile>) -> Result<(), InputError> {
    let report = ssdlab::Report::from_outcome(&served.outcome);
    let lag = &served.lag_ns;
    let section = serde_json::json!({
        "pace": format!("{:?}", served.pace).to_lowercase(),
        "connections": served.connections,
        "error_replies": served.errors,
        "lockstep_timeouts": (served.pace == Pace::Simulated).then_some(served.lockstep_timeouts),
        "lag_us": (served.pace == Pace::Real && !lag.is_empty()).then(|| serde_json::json!({
            "replies": lag.len(),
            "p50": lag.value_at_quantile(0.5) as f64 / 1e3,
            "p99": lag.value_at_quantile(0.99) as f64 / 1e3,
            "max": lag.max() as f64 / 1e3,
        })),
    });
    if served.pace == Pace::Real && !lag.is_empty() {
        let (p50, p99) = (lag.value_at_quantile(0.5) as f64 / 1e3, lag.value_at_quantile(0.99) as f64 / 1e3);
        eprintln!(
            "serve: replies left after their simulated completion by p50 {p50:.1} us, p99 {p99:.1} us, max {:.1} us",
            lag.max() as f64 / 1e3
        );
        if p99 > 1000.0 {
            eprintln!("serve: WARNING: p99 lag {p99:.0} us: the simulation did not keep up with real time; its latencies are the report's, not what clients saw");
        }
    }
    if served.pace == Pace::Simulated && served.lockstep_timeouts > 0 {
        eprintln!(
            "serve: simulated time moved on {} times without the request a reply had freed (a client slower than --lockstep-us): the run was not a strict closed loop there",
            served.lockstep_timeouts
        );
    }
    println!("{}", report.summary());
    if let Some(out) = out {
        let mut json: serde_json::Value = serde_json::from_str(&report.to_json())?;
        json["serve"] = section;
        let text = serde_json::to_string_pretty(&json)?;
        out.write(|w| std::io::Write::write_all(w, text.as_bytes()))?;
    }
    crate::violations(std::slice::from_ref(&report))
}
