//! The `ssdlab` command: argument parsing and printing. All simulation lives in the
//! `ssdlab` library crate.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use ssdlab::host::{AddressMode, FlowKind, Replay};
use ssdlab::{Config, RunOptions, WorkloadSpec};

#[derive(Parser)]
#[command(name = "ssdlab", version, about = "Fast, event-accurate simulator of many-chip NAND flash SSDs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Args)]
struct RunArgs {
    /// Drive configuration (TOML), e.g. presets/mqsim-default.toml.
    #[arg(long)]
    config: PathBuf,
    /// Workload file (TOML), or a trace file replayed at its timestamps as one flow.
    #[arg(long)]
    workload: PathBuf,
    /// Override a config key: --set ftl.gc.policy=fifo (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Remove a key or a whole table of the config before the --sets apply: --unset
    /// ftl.map_cache (repeatable).
    #[arg(long = "unset", value_name = "KEY")]
    unset: Vec<String>,
    /// Seed (overrides the workload's).
    #[arg(long)]
    seed: Option<u64>,
    /// Run each seed from A to B (both ends), in parallel on --threads, and report each one's
    /// main statistics with their mean and 95% t interval; --out then holds every report and
    /// the summary, --csv and --parquet a row per seed.
    #[arg(long, value_name = "A..B", value_parser = seeds::parse_seeds,
          conflicts_with_all = ["seed", "timeline", "timeline_window", "lat_log"])]
    seeds: Option<seeds::Seeds>,
    /// Parallel runs of --seeds and --fairness (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
    /// Write the JSON report here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Append the main table's CSV row here: which run (config, workload, workload options,
    /// seed, --set, --unset), then its statistics. A new file gets the header; an existing
    /// one must start with the same header.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write the --csv table's columns, typed (text, INT64, DOUBLE; seed unsigned), as a
    /// Parquet file: a row per run (per seed with --seeds). Parquet cannot be appended to: an
    /// existing file must be one of the same columns and types (else exit 2 before the run),
    /// and is rewritten whole with its rows and this run's, through a temporary file.
    #[arg(long, value_name = "FILE")]
    parquet: Option<PathBuf>,
    /// Write a CSV row per completed request here (flow, op, lba, bytes, arrival_us,
    /// completion_us, latency_us), streamed as the run goes.
    #[arg(long, value_name = "FILE")]
    lat_log: Option<PathBuf>,
    /// Warm-up: requests arriving in the first MS milliseconds of simulated time run but
    /// are left out of every statistic (overrides the workload's ramp_ms).
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    ramp_ms: Option<f64>,
    /// Write bus and cell activity as Chrome trace-event JSON (open in Perfetto).
    #[arg(long)]
    timeline: Option<PathBuf>,
    /// Timeline window in microseconds of simulated time, START:END.
    #[arg(long, value_name = "START_US:END_US")]
    timeline_window: Option<String>,
    /// Integrity oracle and invariant checks (slower; meant for small drives).
    #[arg(long)]
    check: bool,
    /// Also run each flow alone and report slowdowns, fairness, unfairness, weighted
    /// speedup and maximum slowdown (FLIN's metrics).
    #[arg(long)]
    fairness: bool,
    /// Print the JSON report to stdout instead of the summary.
    #[arg(long)]
    json: bool,
    /// For trace flows: what to do with requests past the drive (reject, wrap, scale).
    #[arg(long, value_name = "MODE")]
    address_mode: Option<AddressMode>,
    /// For trace flows: closed_loop or timestamps (a trace given directly replays at its
    /// timestamps unless this says otherwise).
    #[arg(long, value_name = "MODE")]
    replay: Option<Replay>,
    /// For trace flows: queue depth (outstanding requests).
    #[arg(long, value_name = "N")]
    queue_depth: Option<u32>,
    /// For trace flows: the trace format (detected if omitted).
    #[arg(long, value_name = "FORMAT")]
    format: Option<ssdlab_trace::Format>,
    #[command(flatten)]
    columns: ColumnArgs,
    /// For trace flows: replay only this device's (volume's) requests.
    #[arg(long, value_name = "N")]
    device: Option<u32>,
    /// Refuse the run (exit 2) if its memory estimate (`ssdlab validate`) is above this:
    /// bytes, or 8G, 512MiB, 4GB. The run is refused as well above the memory the system
    /// has available, the address-space limit (ulimit -v) or the cgroup's limit.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_memory: Option<u64>,
}

/// `--max-memory`'s value.
fn parse_size(s: &str) -> Result<u64, String> {
    ssdlab::mem::parse_size(s)
}

/// A column-mapped trace (`--format csv`): which column holds what (docs/workload.md).
#[derive(clap::Args, Default)]
struct ColumnArgs {
    /// Columns by 1-based number or header name, with units: e.g.
    /// "time=1:us,op=4,offset=5:sectors,size=6:bytes,device=2" (time units ns, us, ms, s,
    /// filetime; address units bytes, sectors, blocksN), or a built-in format's name.
    #[arg(long, value_name = "MAP")]
    columns: Option<String>,
    /// Op codes of the op column: "28=read,2a=write,42=trim" (default: read/r, write/w,
    /// trim/discard/d, any case).
    #[arg(long, value_name = "CODES")]
    ops: Option<String>,
    /// Field separator: one character, "tab" or "blanks" (default ",").
    #[arg(long, value_name = "SEP")]
    separator: Option<String>,
    /// The first content line (after --skip-lines) names the columns.
    #[arg(long)]
    header: bool,
    /// Lines to drop at the start of the file.
    #[arg(long, value_name = "N", default_value_t = 0)]
    skip_lines: usize,
}

impl ColumnArgs {
    /// The map, if `--columns` is given; the other options without it are an error. The
    /// rules are a trace flow's (`FlowSpec::column_map`), reported with the option names.
    fn map(&self) -> Result<Option<ssdlab_trace::ColumnMap>, InputError> {
        let flow = ssdlab::host::FlowSpec {
            columns: self.columns.clone(),
            ops: self.ops.clone(),
            separator: self.separator.clone(),
            header: self.header,
            skip_lines: self.skip_lines,
            ..Default::default()
        };
        flow.column_map().map_err(|(_, m)| {
            let m = m.replace(
                "ops, separator, header and skip_lines need columns",
                "--ops, --separator, --header and --skip-lines need --columns",
            );
            InputError(m.replacen("columns = ", "--columns ", 1))
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run one simulation and print its summary.
    Run(Box<RunArgs>),
    /// Serve the simulated drive as a block device over NBD (fio's nbd engine, nbdcopy, the
    /// kernel's nbd client), each connection a flow; the report is written on SIGINT/SIGTERM
    /// or, with --once, when the last client has gone (docs/serve.md).
    Serve(Box<serve::ServeArgs>),
    /// Check a config (and workload) and explain what is wrong; exit 2 if anything is. Prints
    /// the drive's capacity and an estimate of a run's peak memory by part (with the
    /// workload's flows, and the integrity oracle with --check).
    Validate {
        #[arg(long)]
        config: PathBuf,
        #[arg(long)]
        workload: Option<PathBuf>,
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Remove a key or a whole table of the config before the --sets apply (repeatable).
        #[arg(long = "unset", value_name = "KEY")]
        unset: Vec<String>,
        /// Print the fully resolved config (every key with its value).
        #[arg(long)]
        print: bool,
        /// Estimate memory for a run with the integrity oracle (`run --check`).
        #[arg(long)]
        check: bool,
        /// Estimate memory for a run that records a timeline (`run --timeline`).
        #[arg(long)]
        timeline: bool,
    },
    /// Import another simulator's configuration as ssdlab TOML (docs/mqsim-import.md).
    Import {
        #[command(subcommand)]
        command: ImportCommand,
    },
    /// Inspect and convert block traces.
    Trace {
        #[command(subcommand)]
        command: TraceCommand,
    },
    /// Reproduce a paper's evaluation: results.csv, one PNG per figure and REPORT.md in --out.
    Reproduce {
        /// Which paper: sprinkler, flin, fmmu, spd or pacp.
        paper: String,
        /// Folder for the results (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// A smaller grid. Measured with the release build on 2 cores: about 3 s (spd),
        /// 20 s (sprinkler), 30 s (fmmu), 40 s (flin), 45 s (pacp); a debug build is slower.
        #[arg(long)]
        quick: bool,
        /// Folder holding the shared traces (msr/, ...).
        #[arg(long, default_value = "traces")]
        traces: PathBuf,
        /// Parallel runs (default: all cores). Each run is refused (exit 2, naming it and its
        /// memory estimate) if its estimate is above its share of the memory the process may
        /// still take (that memory divided by the threads).
        #[arg(long)]
        threads: Option<usize>,
        /// Pick an interrupted reproduction up: reuse a report in --out/runs only if it was
        /// made from the same config and workload (both fully resolved) and seed, by the same
        /// simulator source (its `ssdlab_source`: a hash of crates/ssdlab/src and
        /// crates/ssdlab-trace/src), after its trace files last changed; every other run is
        /// done again and its report replaced.
        #[arg(long)]
        resume: bool,
    },
    /// Gather the claims of reproductions (each --out folder's claims.json) into one ledger:
    /// each paper's headline claims beside ssdlab's value, with a verdict
    /// (docs/reproductions/claims.md is made this way from the full runs).
    Ledger {
        /// Reproduction folders, in the order the ledger lists them.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The Markdown ledger to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Run a grid of simulations (experiments/*.toml) on the sweep engine `reproduce` uses: a
    /// report per run in --out/runs, then results.csv and results.parquet (the same table);
    /// started again, it runs only what is missing. The local backend runs in this command
    /// and needs no Python; --backend ray hands over to the Python package (`python -m ssdlab
    /// sweep`, in $SSDLAB_PYTHON or python3), which needs `pip install './python[ray]'`.
    Sweep {
        /// The grid: config, workload, seed and [set] lists (crates/ssdlab-lab/src/sweep/grid.rs).
        grid: PathBuf,
        /// Folder for runs/*.json, results.csv and results.parquet (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Where the runs go: local (all cores, the lab's thread pool, in this process) or ray
        /// (a Ray task each, through the Python package).
        #[arg(long, value_enum, default_value_t = sweep::Backend::Local)]
        backend: sweep::Backend,
        /// The Ray cluster of --backend ray: `auto` or HEAD:6379 from one of its machines,
        /// ray://HEAD:10001 from any other (Ray Client); default: a local Ray instance.
        #[arg(long)]
        address: Option<String>,
        /// Parallel runs (default: all cores).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        workers: Option<u64>,
    },
    /// Measure speed and memory on fixed scenarios (mqsim-default drive).
    Bench {
        /// Print a JSON list instead of a table.
        #[arg(long)]
        json: bool,
        /// Run only scenarios whose name contains this.
        #[arg(long)]
        only: Option<String>,
        /// Rounds: each round runs every scenario once, in turn, so a scenario's runs are
        /// spread over the whole benchmark. The fastest run of each is reported (the
        /// machine's other load only ever slows a run down), the median beside it.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
        repeat: u32,
        /// Override a key of the mqsim-default drive in every scenario, e.g.
        /// --set hil.scheduler=spk3 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Internal: run one scenario in this process and print its JSON.
        #[arg(long, hide = true)]
        scenario: Option<String>,
    },
    /// Integrity soak: random overwrites of a 90%-full drive, with the integrity oracle on,
    /// through every mapping, allocation scheme, cache mode and GC unit.
    ///
    /// Four axes: every ftl.mapping (full, dftl, cdftl, tpftl, fmmu); one allocation scheme
    /// of each kind (CWDP, CWD, CW, C, dynamic, dynamic_rr, lv_partition, pacp); the cache
    /// modes (off, lru, eager, evicted, spd, baseline_d, baseline_p); the GC modes (plane,
    /// copyback, wear_level, die, die_buffer, twin, para). Of their cross product, the
    /// combinations Config::validate accepts on the drive; of those, enough to hold every
    /// pair of values that validates together (all pairs), or with --every all of them.
    /// Then every other static and hybrid allocation order once (full map, cache off, plane
    /// GC). Pairs and orders that never validate are listed with the reason.
    ///
    /// The writes are split evenly over the combinations that run (the first ones take one
    /// more). Each combination preconditions the drive randomly to 90% of its logical space,
    /// then runs one closed-loop flow at queue depth 32 of uniformly random 4 and 8 KiB
    /// requests, 10% of them reads: it issues writes × 10/9 requests, so its write count is
    /// met on average, not exactly. Each prints a line as it finishes.
    ///
    /// Exit 0 when every combination passes; 1 when the oracle finds a violation, a run
    /// fails or an invariant breaks, naming the combination; 2 for bad input. Docs:
    /// README.md, "Integrity soak".
    Soak {
        /// Writes in all, split evenly over the combinations (at least one each).
        #[arg(long, required_unless_present = "list")]
        writes: Option<u64>,
        /// Seed; each combination mixes it with its name, so a combination run alone with
        /// --only draws the same requests as in the whole soak.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Combinations run in parallel (default: all cores).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
        threads: Option<u64>,
        /// The drive (TOML), used as given; default: presets/mqsim-default.toml shrunk to
        /// 4 channels x 2 chips x 2 dies x 2 planes x 256 blocks x 16 pages (1 GiB) with a
        /// 2 MiB cache.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Override a key of the drive before each combination sets its own (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Run only the combinations whose name (mapping/allocation/cache/gc) contains this
        /// as whole parts: dftl, CW/lru, full/CWDP/off/plane.
        #[arg(long, value_name = "NAME")]
        only: Option<String>,
        /// Run every combination that validates (the whole cross product, about 830 on the
        /// default drive) instead of all pairs (about 125).
        #[arg(long)]
        every: bool,
        /// List the combinations and the skipped ones with their reasons; run nothing.
        #[arg(long)]
        list: bool,
        /// Seconds a combination may run before it is killed as hung (default: 60, plus 1 per
        /// 200 of its writes).
        #[arg(long, value_name = "SECONDS")]
        timeout_s: Option<u64>,
        /// Internal: run the one combination --only names, with all of --writes, in this
        /// process and print its result as JSON.
        #[arg(long, hide = true, requires = "only")]
        child: bool,
    },
}

/// A trace to read: the file and how to read it (`trace info`, `head` and `convert`).
#[derive(Args)]
struct TraceInput {
    file: PathBuf,
    /// Format (msr, replayer = replayer_bytes, replayer_sectors, ssdsim, disksim, mqsim, umass,
    /// tencent, blkparse, csv, fio_iolog); detected if omitted. Compressed files (gzip, bzip2,
    /// zstd, xz) are read directly.
    #[arg(long)]
    format: Option<String>,
    #[command(flatten)]
    columns: ColumnArgs,
    /// Only this device's (volume's) requests.
    #[arg(long, value_name = "N")]
    device: Option<u32>,
}

#[derive(Subcommand)]
enum ImportCommand {
    /// MQSim's ssdconfig.xml (and workload XML) as DIR/drive.toml (and DIR/workload.toml, or
    /// workload-N.toml per IO_Scenario): presets/mqsim-compat.toml with the XML's values, each
    /// key under a comment naming its tag; a tag ssdlab cannot express is an error (exit 2).
    Mqsim {
        /// MQSim's device configuration (ssdconfig.xml).
        #[arg(long)]
        config: PathBuf,
        /// MQSim's workload (IO_Scenario list).
        #[arg(long)]
        workload: Option<PathBuf>,
        /// Folder for the TOML files (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Requests, read %, average sizes, time span and largest address of a trace.
    Info {
        #[command(flatten)]
        input: TraceInput,
    },
    /// The first requests as ssdlab reads them, in replay order (by arrival; times from the
    /// earliest), each with its line in the file: to check a format or a column map before a
    /// run.
    Head {
        #[command(flatten)]
        input: TraceInput,
        /// Requests to show.
        #[arg(short = 'n', long, default_value_t = 10)]
        lines: usize,
    },
    /// Convert a trace to another format (written to stdout or --out; compressed when --out
    /// ends in .gz, .bz2, .zst or .xz).
    Convert {
        #[command(flatten)]
        input: TraceInput,
        /// Output format: any readable one; `csv` is ssdlab's own CSV (time_ns, device, op,
        /// offset_bytes, size_bytes, with a header); `fio_iolog` a version 3 iolog that fio's
        /// --read_iolog replays, with a file /dev/ssdlabN per device N.
        #[arg(long)]
        to: String,
        #[arg(long)]
        out: Option<PathBuf>,
        /// Convert even when the output format's time step changes arrival times (tencent
        /// keeps whole seconds, fio_iolog 1 us, msr 100 ns, mqsim/ssdsim/blkparse 1 ns);
        /// without it, that is an error saying how many requests would change.
        #[arg(long)]
        truncate_times: bool,
    },
}

/// Bad input: exit code 2 with the message.
struct InputError(String);

impl<E: std::fmt::Display> From<E> for InputError {
    fn from(e: E) -> Self {
        InputError(e.to_string())
    }
}

/// `print!` that ends the program quietly when the reader of stdout has gone away
/// (`ssdlab trace info ... | head`), where `print!` would panic, and with exit code 2 on any
/// other write error.
macro_rules! out {
    ($($t:tt)*) => { $crate::emit(format_args!($($t)*)) };
}

/// `println!`, ending as [`out!`] does.
macro_rules! outln {
    () => { $crate::emit(format_args!("\n")) };
    ($($t:tt)*) => { $crate::emit(format_args!("{}\n", format_args!($($t)*))) };
}

fn emit(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to stdout: {e}");
        std::process::exit(2);
    }
}

mod alloc;
mod output;
mod seeds;
mod serve;
mod signals;
mod soak;
mod sweep;
mod validate;
use output::{OutputFile, Outputs};
use soak::{soak, SoakArgs};
use validate::validate;

fn main() -> ExitCode {
    ssdlab::mem::keep_large_allocations_lazy();
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(InputError(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// `ssdlab import mqsim`: the files are written only once all of them load back.
fn import_mqsim(config: &Path, workload: Option<&Path>, out: &Path) -> Result<(), InputError> {
    let files = ssdlab_lab::import::mqsim::import(config, workload)?;
    for path in ssdlab_lab::import::write_checked(out, &files)? {
        outln!("wrote {}", path.display());
    }
    Ok(())
}

fn dispatch(cli: Cli) -> Result<(), InputError> {
    match cli.command {
        Command::Reproduce { paper, out, quick, traces, threads, resume } => {
            let threads = threads.unwrap_or_else(ssdlab_lab::reproduce::default_threads);
            reproduce(&paper, ssdlab_lab::reproduce::Options { out, quick, traces, threads, resume, stop: None })
        }
        Command::Ledger { dirs, out } => {
            let n = ssdlab_lab::reproduce::claims::ledger(&dirs, &out)?;
            outln!("{n} claims from {} reproductions in {}", dirs.len(), out.display());
            Ok(())
        }
        Command::Run(args) => run(*args),
        Command::Validate { config, workload, set, unset, print, check, timeline } => {
            let opts = RunOptions { check, timeline: timeline.then_some((0, u64::MAX)), ..RunOptions::default() };
            validate(&config, workload.as_deref(), &unset, &set, print, &opts)
        }
        Command::Trace { command } => trace(command),
        Command::Serve(args) => serve::serve(*args),
        Command::Import { command: ImportCommand::Mqsim { config, workload, out } } => {
            import_mqsim(&config, workload.as_deref(), &out)
        }
        Command::Sweep { grid, out, backend, address, workers } => {
            sweep::sweep(sweep::SweepArgs { grid: &grid, out: &out, backend, address, workers })
        }
        Command::Bench { json, only, repeat, set, scenario } => {
            if let Some(name) = scenario {
                let r = ssdlab_lab::bench::run_scenario(&name, &set)?;
                outln!("{}", serde_json::to_string(&r)?);
                return Ok(());
            }
            // Bad overrides fail here, once, with exit code 2.
            ssdlab_lab::bench::config(&set)?;
            bench_all(only.as_deref(), &set, json, repeat)
        }
        Command::Soak { writes, seed, threads, config, set, only, every, list, timeout_s, child } => {
            let threads = threads.map_or_else(ssdlab_lab::reproduce::default_threads, |t| t as usize);
            soak(SoakArgs { writes, seed, threads, config, set, only, every, list, timeout_s, child })
        }
    }
}

/// The run's memory limits: what the process may still take, and `--max-memory` (on the
/// whole process).
fn memory_limits(max_memory: Option<u64>) -> Vec<ssdlab::mem::Limit> {
    let mut limits = ssdlab::mem::limits();
    if let Some(b) = max_memory {
        limits.insert(0, ssdlab::mem::Limit::on_process(b, "the limit --max-memory sets"));
    }
    limits
}

fn reproduce(paper: &str, opts: ssdlab_lab::reproduce::Options) -> Result<(), InputError> {
    let done = ssdlab_lab::reproduce::run(paper, &opts)?;
    outln!("{}", done.check);
    outln!("{}", done.summary);
    Ok(())
}

/// The workload of `run`, with the command line's trace options applied to its trace flows.
fn run_workload(args: &RunArgs) -> Result<WorkloadSpec, InputError> {
    let mut wl = WorkloadSpec::load(&args.workload)?;
    for f in wl.flows.iter_mut().filter(|f| f.kind == FlowKind::Trace) {
        if let Some(m) = args.address_mode {
            f.address_mode = m;
        }
        if let Some(r) = args.replay {
            f.replay = r;
        }
        if let Some(q) = args.queue_depth {
            f.queue_depth = Some(q);
        }
        if let Some(fmt) = args.format {
            f.format = Some(fmt);
        }
        let c = &args.columns;
        if c.columns.is_some() {
            (f.columns, f.ops, f.separator) = (c.columns.clone(), c.ops.clone(), c.separator.clone());
            (f.header, f.skip_lines) = (c.header, c.skip_lines);
        }
        if args.device.is_some() {
            f.device = args.device;
        }
    }
    if let Some(ms) = args.ramp_ms {
        wl.ramp_ms = ms;
    }
    args.columns.map()?;
    wl.validate("command line")?;
    Ok(wl)
}

/// The config with the command line's `--unset`s and `--set`s, saying on stderr what they
/// dropped besides.
fn load_config(path: &Path, unset: &[String], set: &[String]) -> Result<Config, InputError> {
    let (cfg, notes) = Config::load_edited(path, &ssdlab::config::Edits { unset, set })?;
    for n in notes {
        eprintln!("note: {n}");
    }
    Ok(cfg)
}

fn run(args: RunArgs) -> Result<(), InputError> {
    let cfg = load_config(&args.config, &args.unset, &args.set)?;
    let wl = run_workload(&args)?;
    // Every output must be creatable before minutes of simulation, not after.
    let outputs = Outputs::check(&args)?;
    say_detected_formats(&wl)?;
    let threads = args.threads.map_or_else(ssdlab_lab::reproduce::default_threads, |t| t as usize);
    if let Some(seeds) = args.seeds {
        return run_seeds(&args, &cfg, &wl, seeds, threads, &outputs);
    }
    let window = match (&args.timeline, &args.timeline_window) {
        (Some(_), Some(w)) => Some(parse_window(w)?),
        (Some(_), None) => Some((0, u64::MAX)),
        (None, Some(_)) => return Err(InputError("--timeline-window needs --timeline FILE".into())),
        (None, None) => None,
    };
    let memory_limits = memory_limits(args.max_memory);
    let opts = RunOptions { check: args.check, timeline: window, progress: true, memory_limits };
    let outcome = outputs.run(&cfg, &wl, args.seed, &opts)?;
    let mut report = ssdlab::Report::from_outcome(&outcome);
    if args.fairness {
        let seed = report.seed;
        ssdlab::add_fairness(&mut report, &cfg, &wl, seed, threads)?;
    }
    if let (Some(file), Some(tl)) = (&outputs.timeline, &outcome.timeline) {
        file.write(|w| w.write_all(tl.to_json().as_bytes()))?;
        if tl.dropped > 0 {
            eprintln!("timeline: {} events past the limit were left out; narrow --timeline-window", tl.dropped);
        }
    }
    if report.sim.time_series.len() >= ssdlab::stats::config::MAX_SAMPLES {
        let max = ssdlab::stats::config::MAX_SAMPLES;
        eprintln!("time series: kept its first {max} samples only; raise stats.interval_us to cover the whole run");
    }
    let json = report.to_json();
    outputs.write(&json, std::slice::from_ref(&report))?;
    if args.json {
        outln!("{json}");
    } else {
        out!("{}", report.summary());
    }
    violations(std::slice::from_ref(&report))
}

/// `run --seeds`: every seed, a table of their statistics (or the JSON with `--json`).
fn run_seeds(
    args: &RunArgs,
    cfg: &Config,
    wl: &WorkloadSpec,
    seeds: seeds::Seeds,
    threads: usize,
    outputs: &Outputs,
) -> Result<(), InputError> {
    let at_once = threads.clamp(1, (seeds.last - seeds.first + 1) as usize);
    let memory_limits = memory_limits(args.max_memory).into_iter().map(|l| l.shared_by(at_once)).collect();
    let job = seeds::PerSeed { config: cfg, workload: wl, check: args.check, fairness: args.fairness, memory_limits };
    let reports = seeds::run_all(seeds, threads, &job)?;
    let json = seeds::to_json(&reports);
    outputs.write(&json, &reports)?;
    if args.json {
        outln!("{json}");
    } else {
        out!("{}", seeds::table(&reports, &args.config, &args.workload));
    }
    violations(&reports)
}

/// An error if `--check` found integrity violations in any report.
fn violations(reports: &[ssdlab::Report]) -> Result<(), InputError> {
    let found: u64 = reports.iter().filter_map(|r| r.check.as_ref()).map(|c| c.violations).sum();
    match found {
        0 => Ok(()),
        n => Err(InputError(format!("--check found {n} integrity violations"))),
    }
}

fn parse_window(w: &str) -> Result<(u64, u64), InputError> {
    let (a, b) =
        w.split_once(':').ok_or_else(|| InputError(format!("--timeline-window `{w}`: expected START_US:END_US")))?;
    let a: f64 = a.parse().map_err(|_| InputError(format!("--timeline-window start `{a}` is not a number")))?;
    let b: f64 = b.parse().map_err(|_| InputError(format!("--timeline-window end `{b}` is not a number")))?;
    if !(a >= 0.0 && b > a) {
        return Err(InputError(format!("--timeline-window `{w}`: need 0 <= START < END")));
    }
    Ok(((a * 1e6) as u64, (b * 1e6) as u64))
}

/// Trace flows whose format is detected: which format and why, on stderr, so a trace read in
/// the wrong units does not pass unnoticed.
fn say_detected_formats(wl: &WorkloadSpec) -> Result<(), InputError> {
    for f in wl.flows.iter().filter(|f| f.kind == FlowKind::Trace && f.format.is_none() && f.columns.is_none()) {
        // Only a regular file can be opened again for the run; a pipe is read once, there.
        if let Some(path) = f.path.as_ref().filter(|p| p.is_file()) {
            let d = ssdlab_trace::detect_explained(path)?;
            eprintln!("{}: read as {}: {}", path.display(), d.format, d.reason);
        }
    }
    Ok(())
}

fn parse_format(s: Option<&str>) -> Result<Option<ssdlab_trace::Format>, InputError> {
    s.map(|f| f.parse::<ssdlab_trace::Format>().map_err(|e| InputError(format!("--format: {e}")))).transpose()
}

/// A trace read with the command line's format, column map and device choice.
fn read_trace(input: &TraceInput) -> Result<ssdlab_trace::Trace, InputError> {
    let TraceInput { file, format, columns, device } = input;
    let (format, device) = (parse_format(format.as_deref())?, *device);
    let map = columns.map()?;
    let mut t = ssdlab_trace::read_with(file, format, map.as_ref())?;
    if let Some(d) = device {
        let lines: Vec<usize> =
            t.records.iter().zip(&t.lines).filter(|(r, _)| r.device == d).map(|(_, &l)| l).collect();
        t.records.retain(|r| r.device == d);
        t.lines = lines;
        if t.records.is_empty() {
            return Err(InputError(format!("{}: --device {d}: no request of that device", file.display())));
        }
    }
    Ok(t)
}

/// `ssdlab trace head`: a line per request, in replay order, with its line in the file.
fn trace_head(t: &ssdlab_trace::Trace, n: usize) {
    outln!("{:>8}  {:>14}  {:>6}  {:<5}  {:>16}  {:>9}", "line", "time_us", "device", "op", "offset_bytes", "bytes");
    for (r, line) in t.records.iter().zip(&t.lines).take(n) {
        let op = match r.op {
            ssdlab_trace::Op::Read => "read",
            ssdlab_trace::Op::Write => "write",
            ssdlab_trace::Op::Trim => "trim",
        };
        let us = r.arrival_ps as f64 / 1e6;
        outln!("{line:>8}  {us:>14.3}  {:>6}  {op:<5}  {:>16}  {:>9}", r.device, r.offset_bytes, r.size_bytes);
    }
}

fn trace(cmd: TraceCommand) -> Result<(), InputError> {
    match cmd {
        TraceCommand::Head { input, lines } => {
            let t = read_trace(&input)?;
            trace_head(&t, lines);
            Ok(())
        }
        TraceCommand::Info { input } => {
            let t = read_trace(&input)?;
            let TraceInput { file, columns, .. } = input;
            let format = parse_format(input.format.as_deref())?;
            let s = ssdlab_trace::summarize(&t.records);
            outln!("file           {}", file.display());
            match (format, &columns.columns) {
                (_, Some(map)) => outln!("format         csv (columns {map})"),
                (Some(f), None) => outln!("format         {f} (given)"),
                (None, None) if file.is_file() => {
                    outln!("format         {} (detected: {})", t.format, ssdlab_trace::detect_explained(&file)?.reason)
                }
                (None, None) => outln!("format         {} (detected)", t.format),
            }
            let compression = std::fs::File::open(&file)
                .and_then(|mut f| {
                    let mut head = [0u8; 8];
                    let n = std::io::Read::read(&mut f, &mut head)?;
                    Ok(ssdlab_trace::Compression::of_magic(&head[..n]))
                })
                .unwrap_or(ssdlab_trace::Compression::None);
            if compression != ssdlab_trace::Compression::None {
                outln!("compression    {}", compression.name());
            }
            let mut devices: Vec<u32> = t.records.iter().map(|r| r.device).collect();
            devices.sort_unstable();
            devices.dedup();
            let shown: Vec<String> = devices.iter().take(16).map(|d| d.to_string()).collect();
            let more = if devices.len() > 16 { ", ..." } else { "" };
            outln!("devices        {} ({}{more})", devices.len(), shown.join(", "));
            outln!("requests       {}", s.requests);
            outln!("reads          {} ({:.1}%)", s.reads, s.read_pct);
            outln!("writes         {}", s.writes);
            if s.trims > 0 {
                outln!("trims          {}", s.trims);
            }
            outln!(
                "avg size       {:.1} KiB (read {:.1} KiB, write {:.1} KiB)",
                s.avg_size_bytes / 1024.0,
                s.avg_read_bytes / 1024.0,
                s.avg_write_bytes / 1024.0
            );
            outln!("span           {:.6} s", s.span_ps as f64 / 1e12);
            trace_info_arrivals(&s.arrivals);
            outln!(
                "max address    {} bytes ({:.2} GiB)",
                s.max_address_bytes,
                s.max_address_bytes as f64 / (1u64 << 30) as f64
            );
            Ok(())
        }
        TraceCommand::Convert { input, to, out, truncate_times } => {
            let to: ssdlab_trace::Format = to.parse().map_err(|e| InputError(format!("--to: {e}")))?;
            let out = out.as_deref().map(OutputFile::check).transpose()?;
            let t = read_trace(&input)?;
            convert_times_check(&t, to, truncate_times)?;
            match out {
                Some(file) => {
                    let compression = ssdlab_trace::Compression::of_name(&file.path);
                    file.write(|w| ssdlab_trace::create(w, compression, |w| ssdlab_trace::write(&t.records, to, w)))?
                }
                // A reader that stopped early (`| head`) is no error.
                None => match ssdlab_trace::write(&t.records, to, std::io::stdout().lock()) {
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                    written => written?,
                },
            }
            Ok(())
        }
    }
}

/// `trace info`'s lines on arrivals: distinct times, and the gaps' mean and burstiness.
fn trace_info_arrivals(a: &ssdlab_trace::Arrivals) {
    outln!(
        "timestamps     {} distinct, {:.1}% of requests share theirs with another",
        a.distinct,
        a.shared_share * 100.0
    );
    match a.gap_cv {
        Some(cv) => outln!(
            "inter-arrival  mean {:.3} us, coefficient of variation {cv:.2} (Poisson arrivals: 1; above 1: bursty)",
            a.mean_gap_ps / 1e6
        ),
        None => outln!("inter-arrival  none (one request, or all at one time)"),
    }
}

/// `trace convert`: an output format whose time step would change arrival times is an error,
/// unless `--truncate-times` allows it (then a warning); either says how many change.
fn convert_times_check(t: &ssdlab_trace::Trace, to: ssdlab_trace::Format, allowed: bool) -> Result<(), InputError> {
    let (changed, first) = ssdlab_trace::times_changed(&t.records, to);
    let Some(i) = first else { return Ok(()) };
    let step = match ssdlab_trace::time_resolution_ps(to) {
        ps if ps >= 1_000_000_000_000 => format!("{} s", ps / 1_000_000_000_000),
        ps if ps >= 1_000_000 => format!("{} us", ps / 1_000_000),
        ps => format!("{} ns", ps / 1000),
    };
    let n = t.records.len();
    let example = format!(
        "the first at line {}, {:.12} s after the first request",
        t.lines[i],
        t.records[i].arrival_ps as f64 / 1e12
    );
    let what = format!("--to {to} keeps times in steps of {step}: {changed} of the {n} requests' arrival times would be truncated ({example})");
    if allowed {
        eprintln!("warning: {what}");
        return Ok(());
    }
    Err(InputError(format!(
        "{what}; pass --truncate-times to convert anyway, or choose a format that keeps them (csv keeps picoseconds)"
    )))
}

/// Run every scenario in a child process (so each peak RSS is its own) and print them.
fn bench_all(only: Option<&str>, set: &[String], json: bool, repeat: u32) -> Result<(), InputError> {
    let exe = std::env::current_exe()?;
    let names: Vec<&str> =
        ssdlab_lab::bench::SCENARIOS.iter().copied().filter(|n| only.is_none_or(|o| n.contains(o))).collect();
    // Round by round, every scenario once per round: a machine whose speed drifts over
    // minutes then spreads over each scenario's runs instead of over the scenarios.
    let mut runs: Vec<Vec<ssdlab_lab::bench::BenchResult>> = vec![Vec::new(); names.len()];
    for k in 0..repeat {
        for (i, name) in names.iter().enumerate() {
            if !json {
                eprintln!("round {} of {repeat}: running {name} ...", k + 1);
            }
            let mut cmd = std::process::Command::new(&exe);
            cmd.args(["bench", "--scenario", name]);
            for s in set {
                cmd.args(["--set", s]);
            }
            let out = cmd.output()?;
            if !out.status.success() {
                return Err(InputError(format!("scenario {name} failed: {}", String::from_utf8_lossy(&out.stderr))));
            }
            runs[i].push(serde_json::from_slice::<ssdlab_lab::bench::BenchResult>(&out.stdout)?);
        }
    }
    let mut results = Vec::new();
    if !json {
        outln!("build: {}", ssdlab_lab::bench::build_kind());
    }
    for r in runs {
        let r = ssdlab_lab::bench::best_of(r);
        if !json {
            outln!(
                "{:<22} {:>9} req {:>8.2} s {:>12.0} req/s (median {:>9.0}) {:>12.0} events/s  peak RSS {:>7.1} MB  {:>5.2} B/page  (sim {:.0} IOPS)",
                r.scenario,
                r.requests,
                r.wall_s,
                r.requests_per_s,
                r.requests_per_s_median,
                r.events_per_s,
                r.peak_rss_bytes as f64 / 1e6,
                r.state_bytes_per_page,
                r.sim_iops
            );
        }
        results.push(r);
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&results)?);
    }
    Ok(())
}
