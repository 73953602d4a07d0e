//! The simulation: the event loop and the routing between layers, and nothing else.
//!
//! Each layer owns its state and its mechanism: [`Tenants`] (flows), [`HostInterface`]
//! (submission queues, arbitration, link), [`DeviceQueue`] (tags, hazards), [`Committer`]
//! (device-level scheduler, occupancy), [`WriteCache`], [`Ftl`] (map, allocation, blocks,
//! GC), [`Tsu`] (transactions, chip queues, policy, builder) and [`Phy`] (chips, buses,
//! suspension). The loop pops an event, hands it to the layer it belongs to, and routes what
//! the layer hands back (requests that may start, transactions to enqueue, chips to start,
//! pages that moved) to the next one. `docs/architecture.md` draws the path of a read and a
//! write through these functions.
//!
//! The routes live in two files: [`host_path`] (trace line to memory requests, the cache,
//! completion) and [`flash_path`] (commit, transactions, commands, GC).
//!
//! Per 4 KiB read: a fetch, a chip start, a cell-done, a command-done and a link event; no
//! allocation once slabs and queues have grown to their working size.

mod estimate;
mod flash_path;
mod host_path;
mod idle;
mod live;
pub use live::LiveDone;

use std::io::IsTerminal;
use std::time::Instant;

use crate::cache::config::CacheConfig;
use crate::cache::WriteCache;
use crate::check::Oracle;
use crate::config::{us_to_ps, Config};
use crate::engine::{Event, EventQueue, Ps};
use crate::error::{Error, Result};
use crate::ftl::precondition::precondition;
use crate::ftl::{Ftl, LivePage, MapIo, Step, Waiter};
use crate::hif::queues::HostInterface;
use crate::hif::Interface;
use crate::hil::commit::Committer;
use crate::hil::device_queue::DeviceQueue;
use crate::hil::MrOp;
use crate::hil::{Hazards, MemoryRequest};
use crate::host::tenants::Tenants;
use crate::host::{
    build_flows_limited, footprint_pages, read_first_pages, read_write_pages, Flow, IoRequest, WorkloadSpec,
};
use crate::nand::phy::Phy;
use crate::nand::timeline::Timeline;
use crate::nand::{Geometry, Timing};
use crate::slab::Slab;
use crate::stats::latency_log::LatencyLog;
use crate::stats::{Seen, Stats};
use crate::tsu::unit::Tsu;

/// A host request in the drive.
struct Io {
    flow: u32,
    req: IoRequest,
    /// The pages the request touches.
    first_lpn: u64,
    pages: u32,
    /// Submission order.
    seq: u64,
    fetched_ps: Ps,
    pending_mrs: u32,
    /// Data version of a write (for the integrity oracle).
    version: u32,
}

/// A finished run's raw results, turned into a report by `report`.
pub struct Outcome {
    pub config: Config,
    pub workload: WorkloadSpec,
    pub seed: u64,
    pub geo: Geometry,
    pub sim_time_ps: Ps,
    pub stats: Stats,
    pub flow_names: Vec<String>,
    pub events: u64,
    pub wall_s: f64,
    pub logical_pages: u32,
    pub effective_spare_factor: f64,
    pub preconditioned_pages: u64,
    pub state_bytes: u64,
    /// Busy time of the host link (to the device, to the host) and of the channel buses.
    pub link_busy_ps: [u64; 2],
    pub bus_busy_ps: u64,
    /// The map cache's counters (demand-based maps).
    pub map: Option<crate::ftl::MapStats>,
    /// The read/write channel partition (`lv_partition`, `pacp`).
    pub partition: Option<crate::ftl::PartitionReport>,
    /// Firmware servers and their busy time: cores, hardware units, core ps, unit ps.
    pub firmware: (u32, u32, u128, u128),
    /// Time cores were held sending to a full map-unit queue (`ftl.firmware.map_queue`).
    pub firmware_queue_wait_ps: u128,
    pub check: Option<CheckResult>,
    pub timeline: Option<Timeline>,
    /// Chip time of GC charged to each flow (µs), when the TSU policy charges GC (FLIN).
    pub gc_charged_us: Option<Vec<f64>>,
    /// The TSU policy's decision counts, by name (FLIN's).
    pub tsu_decisions: Vec<(&'static str, u64)>,
    /// What the workload's inputs are worth warning about (the report's `warnings`).
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CheckResult {
    pub reads_checked: u64,
    pub violations: u64,
    pub first_violation: Option<String>,
}

/// Options of one run beyond config and workload.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub check: bool,
    /// Record bus and cell activity in [start, end) ps for a timeline.
    pub timeline: Option<(Ps, Ps)>,
    /// Print progress to stderr for runs longer than ~2 s.
    pub progress: bool,
    /// Refuse the run ([`Error::MemoryLimit`]) when its memory estimate
    /// ([`Simulation::estimate`]) is above any of these (and read at most as many trace
    /// requests as the smallest holds).
    pub memory_limits: Vec<crate::mem::Limit>,
}

/// While an event's work commits requests or completes a command, chips are started only
/// at its end, so a command is built from everything that became ready at that instant.
#[derive(Default)]
struct Deferral {
    /// Nesting depth of such rounds.
    depth: u32,
    chips: Vec<u32>,
    marked: Vec<bool>,
}

/// Pages the write cache holds: `cache.capacity_bytes` in pages, or, with
/// `cache.capacity_footprint_fraction`, that fraction of the pages the workload touches
/// (never below [`CacheConfig::footprint_floor`]).
fn cache_pages(cfg: &Config, geo: &Geometry, flows: &[Flow], logical_pages: u64) -> u64 {
    let c = &cfg.cache;
    if c.capacity_footprint_fraction == 0.0 {
        return c.capacity_bytes / geo.page_bytes as u64;
    }
    let footprint = footprint_pages(flows, geo.sectors_per_page() as u64, logical_pages);
    c.footprint_pages(footprint, CacheConfig::footprint_floor(geo.planes_per_die, geo.chips() * geo.dies_per_chip))
}

pub struct Simulation {
    cfg: Config,
    geo: Geometry,
    q: EventQueue,
    tenants: Tenants,
    hif: HostInterface,
    device_queue: DeviceQueue,
    committer: Committer,
    cache: Option<WriteCache>,
    /// Scratch for the pages one write-back takes.
    writeback_group: Vec<crate::cache::Writeback>,
    /// Scratch for a Die-GC group of moves.
    /// Empty step buffers of finished jobs, kept to reuse their room (jobs nest).
    steps: Vec<Vec<Step>>,
    /// PACP's idle-time migration in progress.
    idle: idle::IdleTimer,
    ftl: Ftl,
    tsu: Tsu,
    phy: Phy,
    ios: Slab<Io>,
    io_seq: u64,
    mrs: Slab<MemoryRequest>,
    deferral: Deferral,
    /// Requests made ready by the current event wait for one scheduling round at its end.
    schedule_pending: bool,
    /// Per request id: its write memory requests waiting for their data to cross the link
    /// (the lists are kept for reuse).
    parked: Vec<Vec<u32>>,
    /// Buffers the routes reuse.
    unblocked: Vec<u32>,
    done: Vec<u32>,
    gc_pages: Vec<LivePage>,
    resumed: Vec<(Waiter, Option<Ps>)>,
    oracle: Option<Oracle>,
    stats: Stats,
    /// A row per counted completion (`with_latency_log`).
    latency_log: Option<LatencyLog>,
    interval_ps: Ps,
    finished: bool,
    last_completion_ps: Ps,
    preconditioned_pages: u64,
    workload: WorkloadSpec,
    seed: u64,
    progress: bool,
    /// What the flows' inputs are worth warning about ([`flow_warnings`]).
    warnings: Vec<String>,
    /// A live simulation's state ([`Simulation::start_live`]).
    live: Option<live::Live>,
}

/// A channel partition's starting split, sized from the workload's demand where the FTL asks
/// for it.
fn size_partition(cfg: &Config, geo: &Geometry, flows: &[Flow], ftl: &mut Ftl) {
    if !ftl.partition_sized_by_demand() {
        return;
    }
    let (read, write) = read_write_pages(flows, geo.sectors_per_page() as u64);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (t_read, t_prog) = (mean(&cfg.nand.t_read_us), mean(&cfg.nand.t_program_us));
    ftl.size_partition_by_demand(read, write, t_read, t_prog);
}

/// The workload's preconditioning, if any: the pages written. A channel partition that
/// preloads reads (`ftl.partition.preload = "read_channels"`) learns which pages the workload
/// reads before writing them, and may size its starting split from their share.
fn fill(geo: &Geometry, workload: &WorkloadSpec, flows: &[Flow], ftl: &mut Ftl, seed: u64) -> Result<u64> {
    let Some(p) = &workload.precondition else { return Ok(0) };
    let first = ftl
        .partition_preloads_reads()
        .then(|| read_first_pages(flows, geo.sectors_per_page() as u64, ftl.logical_pages() as u64, seed));
    if let Some(f) = &first {
        ftl.size_partition_by_preload(f.reads, f.writes);
    }
    let read_first = first.as_ref().map(|f| f.read_first.as_slice());
    if p.occupancy > 0.0 {
        ftl.prepare_fill()?;
    }
    precondition(ftl, p.occupancy, p.pattern, seed, read_first).map_err(|m| {
        let file = if workload.source.is_empty() { "workload" } else { &workload.source };
        Error::config(file, 0, "precondition.occupancy", &m)
    })
}

/// The drive's geometry as the layers above the PHY address it (in mapping units: the flash
/// page unless `ftl.mapping_unit_bytes` is smaller), its logical pages, and the run's flows
/// (traces read), before anything large is allocated.
/// Under a memory limit, each trace holds at most as many requests as reading them (and
/// keeping them) fits in it.
fn flows_of(cfg: &Config, workload: &WorkloadSpec, seed: u64, opts: &RunOptions) -> Result<(Geometry, u64, Vec<Flow>)> {
    let geo = cfg.ftl.geometry(&cfg.nand);
    let logical = crate::ftl::logical_pages(&geo, cfg.ftl.overprovisioning_ratio) as u64;
    let smallest = opts.memory_limits.iter().min_by_key(|l| l.bytes);
    let why = smallest.map(|l| format!("{} of memory: {}", crate::error::bytes_text(l.bytes), l.source));
    let per_request = ssdlab_trace::READ_BYTES_PER_REQUEST + std::mem::size_of::<IoRequest>();
    let limit = smallest.map(|l| (l.bytes / per_request as u64).min(usize::MAX as u64) as usize);
    let limit = limit.zip(why.as_deref());
    let flows = build_flows_limited(workload, seed, logical * geo.sectors_per_page() as u64, geo.sector_bytes, limit)?;
    Ok((geo, logical, flows))
}

/// The flows' warnings (taken out of them), and each timestamps-replayed trace's whose
/// arrivals outrun the drive (`host::arrival_rate_warning`). With `progress` (the command
/// line) they go to stderr at once, before a run that may be long.
fn flow_warnings(
    cfg: &Config,
    geo: &Geometry,
    workload: &WorkloadSpec,
    flows: &mut [Flow],
    progress: bool,
) -> Vec<String> {
    let t_read_us = cfg.nand.t_read_us.iter().copied().fold(f64::INFINITY, f64::min);
    let peak = crate::host::PeakRate { planes: geo.planes() as u64, t_read_us };
    let mut warnings = Vec::new();
    for (flow, spec) in flows.iter_mut().zip(&workload.flows) {
        warnings.append(&mut flow.warnings);
        warnings.extend(crate::host::arrival_rate_warning(flow, spec.speedup, &peak));
    }
    if progress {
        warnings.iter().for_each(|w| eprintln!("warning: {w}"));
    }
    warnings
}

impl Simulation {
    /// A run's peak memory, by part ([`crate::mem::Estimate`]), without allocating it: the
    /// flows are built (traces read), and each layer sizes what it would hold.
    pub fn estimate(
        cfg: &Config,
        workload: &WorkloadSpec,
        seed: u64,
        opts: &RunOptions,
    ) -> Result<crate::mem::Estimate> {
        let (geo, logical, flows) = flows_of(cfg, workload, seed, opts)?;
        Ok(estimate::of(cfg, workload, &geo, logical, &flows, opts))
    }

    pub fn new(cfg: &Config, workload: &WorkloadSpec, seed: u64, opts: &RunOptions) -> Result<Simulation> {
        let hazards = cfg.hil.hazards;
        if opts.check && hazards != Hazards::Strict {
            return Err(Error::config(
                "config",
                0,
                "hil.hazards",
                "--check needs hil.hazards = \"strict\": with \"war\" or \"none\" the host, not the drive, orders overlapping writes, so the last write to reach flash need not be the last one issued",
            ));
        }
        let (geo, logical, mut flows) = flows_of(cfg, workload, seed, opts)?;
        let warnings = flow_warnings(cfg, &geo, workload, &mut flows, opts.progress);
        if !opts.memory_limits.is_empty() {
            estimate::of(cfg, workload, &geo, logical, &flows, opts).check(&opts.memory_limits)?;
        }
        let mut ftl = Ftl::new(&cfg.nand, &cfg.ftl, seed)?;
        let cache_pages = cache_pages(cfg, &geo, &flows, logical);
        size_partition(cfg, &geo, &flows, &mut ftl);
        let preconditioned_pages = fill(&geo, workload, &flows, &mut ftl, seed)?;
        ftl.translation_pages_at_start();
        let oracle = if opts.check { Some(Oracle::for_ftl(&ftl)?) } else { None };
        let tenants = Tenants::new(flows);
        let priorities = tenants.priorities();
        let nflows = tenants.len();
        let tsu_policy = cfg.tsu.policy.build(&cfg.nand, &cfg.tsu, &priorities);
        let sched = cfg.hil.scheduler.build(
            &geo,
            cfg.hil.max_bypass,
            cfg.hil.readdressing,
            (cfg.hil.plane_slots, cfg.hil.faro_priority),
        );
        let tags = if cfg.hif.interface == Interface::Sata { cfg.hil.queue_depth.min(32) } else { cfg.hil.queue_depth };
        let timeline = opts.timeline.map(|(a, b)| Timeline::new(a, b));
        Ok(Simulation {
            q: EventQueue::new(),
            hif: HostInterface::new(&cfg.hif, cfg.nand.sector_bytes, priorities),
            device_queue: DeviceQueue::new(tags, hazards),
            committer: Committer::new(&cfg.hil, &geo, &Timing::from_config(&cfg.nand), sched, nflows),
            cache: cfg.cache.enabled.then(|| {
                WriteCache::from_config(&cfg.cache, cache_pages as u32).with_die_lists(
                    &cfg.cache,
                    &geo,
                    cfg.ftl.allocation.placement_order(),
                )
            }),
            writeback_group: Vec::new(),
            steps: Vec::new(),
            idle: idle::IdleTimer::default(),
            tsu: Tsu::new(&cfg.nand, &cfg.tsu, &geo, tsu_policy),
            phy: Phy::new(&cfg.nand, &geo, timeline),
            tenants,
            ftl,
            ios: Slab::new(),
            io_seq: 0,
            mrs: Slab::new(),
            deferral: Deferral { marked: vec![false; geo.chips() as usize], ..Deferral::default() },
            schedule_pending: false,
            parked: Vec::new(),
            unblocked: Vec::new(),
            done: Vec::new(),
            gc_pages: Vec::new(),
            resumed: Vec::new(),
            oracle,
            stats: Stats::new(nflows)
                .with_cache_pages(if cfg.cache.enabled { cache_pages } else { 0 })
                .with_ramp(us_to_ps(workload.ramp_ms * 1000.0)),
            latency_log: None,
            interval_ps: us_to_ps(cfg.stats.interval_us),
            finished: false,
            last_completion_ps: 0,
            preconditioned_pages,
            workload: workload.clone(),
            seed,
            progress: opts.progress,
            warnings,
            live: None,
            cfg: cfg.clone(),
            geo,
        })
    }

    /// Write a row per completed request the statistics count into `out` as the run goes
    /// (`stats::latency_log`); `name` names it in the error if a write fails.
    pub fn with_latency_log(mut self, out: Box<dyn std::io::Write + Send>, name: &str) -> Simulation {
        self.latency_log = Some(LatencyLog::new(out, name, &self.tenants.names()));
        self
    }

    /// Run to completion.
    pub fn run(mut self) -> Result<Outcome> {
        if let Some(i) = self.tenants.live().iter().position(|&l| l) {
            let file = if self.workload.source.is_empty() { "workload" } else { &self.workload.source };
            let why = "type = \"live\" flows take their requests from a client: serve the drive with ssdlab serve";
            return Err(Error::config(file, 0, &format!("flows[{i}].type"), why));
        }
        let wall = Instant::now();
        self.start();
        self.run_events(wall);
        self.conclude(wall)
    }

    /// The flows' first requests and the first sample.
    fn start(&mut self) {
        for f in 0..self.tenants.len() {
            self.refill_flow(f);
        }
        self.end_of_event();
        if self.interval_ps > 0 {
            self.q.at(self.interval_ps, Event::Sample);
        }
    }

    /// Every event, until the flows have finished and their requests completed.
    fn run_events(&mut self, wall: Instant) {
        let mut next_progress = 2.0;
        loop {
            while let Some(ev) = self.q.pop() {
                let now = self.q.now();
                self.advance_stats(now);
                self.route(ev);
                self.end_of_event();
                if self.progress && self.q.processed() & 0x3ff == 0 {
                    self.progress_line(wall, now, &mut next_progress);
                }
                if self.finished {
                    break;
                }
            }
            if self.finished || self.ios.live() == 0 || !self.unstick() {
                break;
            }
        }
        if self.progress && wall.elapsed().as_secs_f64() > 2.0 && std::io::stderr().is_terminal() {
            eprintln!();
        }
    }

    /// The latency log closed and the outcome taken; a warm-up that left nothing to measure
    /// is an error.
    fn conclude(mut self, wall: Instant) -> Result<Outcome> {
        if let Some(log) = self.latency_log.take() {
            log.finish().map_err(|(file, source)| Error::Io { file, source })?;
        }
        let outcome = self.finish(wall);
        let (counted, excluded) = (outcome.stats.completed, outcome.stats.ramp_excluded);
        if counted == 0 && excluded > 0 {
            let file = if outcome.workload.source.is_empty() { "workload" } else { &outcome.workload.source };
            let why = format!(
                "ramp_ms = {:?} leaves no request to measure: all {excluded} arrived before it",
                outcome.workload.ramp_ms
            );
            return Err(Error::config(file, 0, "ramp_ms", &why));
        }
        Ok(outcome)
    }

    /// Integrate the statistics' time averages up to `now`.
    #[inline(always)]
    fn advance_stats(&mut self, now: Ps) {
        let stalled = self.device_queue.tags_free() == 0 && self.hif.waiting() > 0;
        let work = self.device_queue.holds_work();
        self.stats.advance(now, self.geo.chips(), self.phy.busy_chips(), work, stalled);
        if self.stats.gc_invocations > 0 {
            self.stats.advance_free_blocks(now, self.ftl.free_total());
        }
    }

    /// Hand an event to the layer it belongs to.
    #[inline(always)]
    fn route(&mut self, ev: Event) {
        match ev {
            Event::HostArrival { flow } => {
                self.tenants.arrived(flow as usize);
                self.refill_flow(flow as usize);
            }
            Event::CommandFetched { io } => self.admit(io),
            Event::WriteDataIn { io } => self.write_data_in(io),
            Event::FirmwareDone { mr } => self.send_to_flash(mr),
            Event::Translated { mr } => {
                let waiter = if self.mrs[mr].op == MrOp::Read { Waiter::Read(mr) } else { Waiter::Write(mr) };
                self.translated(waiter);
                self.schedule_arrivals();
            }
            Event::CellDone { chip, gen } => self.phy.cell_done(chip, gen, self.tsu.records(), &mut self.q),
            Event::BusFree { channel } => self.phy.bus_free(channel, self.tsu.records(), &mut self.q),
            Event::CommandDone { chip, gen } => self.command_done(chip, gen),
            Event::ChipFree { chip, gen } => {
                if self.phy.suspension_done(chip, gen) {
                    self.try_start(chip);
                }
            }
            Event::CacheServed { mr } => {
                // A write is served by the cache exactly when it was stored there (absorbed or
                // inserted): one write access of the cache.
                if self.mrs[mr].op == MrOp::Write {
                    self.stats.saw(Seen::CacheWrite);
                }
                self.cache_served(mr)
            }
            Event::ReadDataOut { mr } => self.mr_done(mr),
            Event::Responded { io } => self.complete(io),
            Event::MapIo { vtpn, write } => {
                self.start_map_io(if write { MapIo::Write(vtpn) } else { MapIo::Read(vtpn) })
            }
            Event::Sample => self.sample(),
            Event::Idle { epoch } => self.idle_due(epoch),
            Event::GcLookedUp { tx } => self.victim_page_looked_up(tx),
        }
    }

    /// The requests an event made ready, all at once.
    #[inline(always)]
    fn end_of_event(&mut self) {
        if self.schedule_pending {
            self.schedule_pending = false;
            self.run_scheduler();
        }
    }

    /// Nothing is left to happen but requests are unfinished: planes the GC unit left
    /// waiting for an invalidation nothing can bring collect on their own
    /// (`Ftl::unstick`). Whether any work started.
    #[cold]
    fn unstick(&mut self) -> bool {
        let mut steps = self.take_steps();
        let mut pages = std::mem::take(&mut self.gc_pages);
        let started = self.ftl.unstick(&mut steps, &mut pages);
        self.gc_pages = pages;
        self.apply_steps(steps);
        started
    }

    /// The last, partial time-series window, the final checks and the outcome.
    fn finish(mut self, wall: Instant) -> Outcome {
        let sim_time_ps = self.last_completion_ps;
        self.stats.finish();
        self.stats.take_layer_counters(self.phy.counters, self.ftl.unaligned_block_opens());
        if self.interval_ps > 0 {
            // The last, partial window, so the series accounts for every request.
            let end = sim_time_ps.max(self.q.now());
            self.stats.advance(end, self.geo.chips(), self.phy.busy_chips(), false, false);
            self.take_sample(sim_time_ps.max(self.stats.window_start_ps));
        }
        assert_eq!(
            self.ios.live(),
            0,
            "run ended with {} requests unfinished: {}",
            self.ios.live(),
            self.stuck_report()
        );
        let check = self.oracle.take().map(|mut o| {
            self.ftl.check();
            o.verify_ftl(&self.ftl);
            CheckResult { reads_checked: o.reads_checked, violations: o.violations, first_violation: o.first_violation }
        });
        Outcome {
            flow_names: self.tenants.names(),
            events: self.q.processed(),
            wall_s: wall.elapsed().as_secs_f64(),
            logical_pages: self.ftl.logical_pages(),
            effective_spare_factor: self.ftl.effective_spare_factor(self.stats.mean_free_blocks(self.geo.planes())),
            state_bytes: self.ftl.state_bytes(),
            link_busy_ps: self.hif.link_busy_ps,
            bus_busy_ps: self.phy.bus_busy_ps,
            map: self.ftl.map_stats().cloned(),
            partition: self.ftl.partition().map(|p| p.report()),
            firmware: self.ftl.firmware_busy(),
            firmware_queue_wait_ps: self.ftl.firmware_queue_wait_ps(),
            preconditioned_pages: self.preconditioned_pages,
            config: self.cfg,
            workload: self.workload,
            seed: self.seed,
            geo: self.geo,
            sim_time_ps,
            stats: self.stats,
            check,
            gc_charged_us: self.tsu.gc_charged_us(),
            tsu_decisions: self.tsu.decisions(),
            timeline: self.phy.take_timeline(),
            warnings: self.warnings,
        }
    }

    /// Progress on stderr: on a terminal, one line rewritten at most once a second of wall
    /// time; into a log, a line every ten seconds.
    #[cold]
    fn progress_line(&self, wall: Instant, now: Ps, next_progress: &mut f64) {
        let w = wall.elapsed().as_secs_f64();
        if w > *next_progress {
            let tty = std::io::stderr().is_terminal();
            *next_progress = w + if tty { 1.0 } else { 10.0 };
            let line = format!(
                "  simulated {:.3} s, {} requests done, {:.0} requests/s",
                now as f64 / 1e12,
                self.stats.completed,
                self.stats.completed as f64 / w
            );
            if tty {
                eprint!("\r{line}   ");
            } else {
                eprintln!("{line}");
            }
        }
    }

    /// What is waiting where, for the message of a run that stopped with work left.
    #[cold]
    fn stuck_report(&self) -> String {
        let cache_waiting = self.cache.as_ref().map_or(0, |c| c.waiting());
        let mut out = format!(
            "{} memory requests pending, {} parked, {} waiting for cache; ",
            self.committer.pending(),
            self.parked.iter().map(Vec::len).sum::<usize>(),
            cache_waiting
        );
        for chip in 0..self.geo.chips() {
            if self.tsu.is_idle(chip) && !self.phy.is_busy(chip) {
                continue;
            }
            out += &format!("chip {chip}: busy {} queues {:?}; ", self.phy.is_busy(chip), self.tsu.queue_lengths(chip));
            let ppc = self.geo.planes_per_chip();
            for p in chip * ppc..(chip + 1) * ppc {
                out += &self.ftl.describe_plane(p);
            }
            if out.len() > 4000 {
                break;
            }
        }
        out
    }

    fn all_flows_done(&self) -> bool {
        self.tenants.all_done(self.q.now())
    }

    /// Close the current time-series window at `now`.
    #[cold]
    fn sample(&mut self) {
        self.take_sample(self.q.now());
        if self.ios.live() > 0 || !self.all_flows_done() || !self.q.is_empty() {
            self.q.after(self.interval_ps, Event::Sample);
        }
    }

    #[cold]
    fn take_sample(&mut self, now: Ps) {
        let free_blocks_min = (0..self.geo.planes()).map(|p| self.ftl.free_blocks(p)).min().unwrap_or(0);
        self.stats.close_window(now, self.geo.chips(), free_blocks_min);
    }
}
