//! The simulation: wires the layers together and runs the event loop.
//!
//! A host request travels: flow → submission queue → (arbitration) device tag → hazard
//! check → split into memory requests → (write data over the link) → cache or device-level
//! scheduler → firmware → FTL (target plane) → TSU chip queue → command on the chip (bus
//! command/address and data-in, array time, data-out) → completion → (read data over the
//! link) → completion to the host. Each step is a method here; the layers' data structures
//! and decisions live in their modules.
//!
//! Per 4 KiB read: a fetch, a chip start, a cell-done, a command-done and a link event; no
//! allocation once slabs and queues have grown to their working size.

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::time::Instant;

use crate::cache::{WriteCache, WriteOutcome};
use crate::check::Oracle;
use crate::config::{ns_to_ps, us_to_ps, Config};
use crate::engine::{Event, EventQueue, Lane, Ps};
use crate::error::Result;
use crate::ftl::mapping::Mapping;
use crate::ftl::precondition::{precondition, Pattern};
use crate::ftl::{Ftl, Stream};
use crate::hif::{Arbiter, Link};
use crate::hil::{overlaps, Board, DeviceScheduler, MemoryRequest, MrOp, Occupancy, SchedulerKind};
use crate::host::{build_flows, Flow, IoOp, IoRequest, WorkloadSpec};
use crate::nand::{FlashOp, Geometry, Lpn, Ppn, Timing, NONE};
use crate::stats::{Sample, Stats};
use crate::tsu::{
    ChipQueues, GcUrgency, Pick, PickContext, QueueClass, QueueEntry, Transaction, TsuPolicy, TsuPolicyKind, TxKind,
    QUEUE_CLASSES,
};

/// A slab of values addressed by u32 ids, reusing freed slots.
struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
    live: u32,
}

impl<T> Slab<T> {
    fn new() -> Slab<T> {
        Slab { items: Vec::new(), free: Vec::new(), live: 0 }
    }
    fn insert(&mut self, v: T) -> u32 {
        self.live += 1;
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = v;
                i
            }
            None => {
                self.items.push(v);
                self.items.len() as u32 - 1
            }
        }
    }
    fn remove(&mut self, id: u32) {
        self.live -= 1;
        self.free.push(id);
    }
}

impl<T> std::ops::Index<u32> for Slab<T> {
    type Output = T;
    fn index(&self, i: u32) -> &T {
        &self.items[i as usize]
    }
}
impl<T> std::ops::IndexMut<u32> for Slab<T> {
    fn index_mut(&mut self, i: u32) -> &mut T {
        &mut self.items[i as usize]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IoState {
    InSq,
    Blocked,
    Running,
}

struct Io {
    flow: u32,
    req: IoRequest,
    /// The pages the request touches.
    first_lpn: u64,
    pages: u32,
    seq: u64,
    fetched_ps: Ps,
    pending_mrs: u32,
    state: IoState,
    version: u32,
    /// Index of the request's entry in `active` while it holds a tag.
    active_slot: u32,
}

/// A request holding a device tag, as the hazard check sees it.
#[derive(Debug, Clone, Copy)]
struct Active {
    io: u32,
    /// Order of admission (holding a tag): the hazard check orders by it.
    admitted: u64,
    first_lpn: u64,
    pages: u32,
    writes: bool,
    fua: bool,
}

/// Counting filter over the pages of active requests: how many active requests (and how
/// many active writers) touch a page hashing to each slot. A zero count proves there is no
/// conflict; a non-zero one sends the request through the exact scan.
struct PageFilter {
    any: Vec<u32>,
    writes: Vec<u32>,
}

const FILTER_SLOTS: usize = 4096;

impl Default for PageFilter {
    fn default() -> Self {
        PageFilter { any: vec![0; FILTER_SLOTS], writes: vec![0; FILTER_SLOTS] }
    }
}

impl PageFilter {
    #[inline]
    fn slot(lpn: u64) -> usize {
        (lpn.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize
    }

    /// Slots a request covers: every page, or all slots for a request longer than the filter.
    fn slots(a: &Active) -> impl Iterator<Item = usize> {
        let all = a.pages as usize >= FILTER_SLOTS;
        let pages = if all { 0 } else { a.pages as u64 };
        let first = a.first_lpn;
        (0..pages).map(move |k| Self::slot(first + k)).chain(0..if all { FILTER_SLOTS } else { 0 })
    }

    fn may_conflict(&self, a: &Active) -> bool {
        let table = if a.writes { &self.any } else { &self.writes };
        Self::slots(a).any(|s| table[s] > 0)
    }

    fn add(&mut self, a: &Active, delta: i32) {
        for s in Self::slots(a) {
            self.any[s] = self.any[s].wrapping_add_signed(delta);
            if a.writes {
                self.writes[s] = self.writes[s].wrapping_add_signed(delta);
            }
        }
    }
}

/// Which overlapping requests the drive keeps in order (`hil.hazards`); FUA always.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hazards {
    /// Read-after-write, write-after-read and write-after-write.
    Strict,
    /// Only a write after a read (Sprinkler §4.4).
    War,
    /// Nothing but FUA (NVMe leaves overlapping commands to the host; MQSim's host
    /// interface splits every command into transactions as it arrives).
    FuaOnly,
}

impl Hazards {
    /// Whether a request `later` (writes or not) must wait for an overlapping `earlier` one.
    fn orders(self, later: bool, earlier: bool) -> bool {
        match self {
            Hazards::Strict => later || earlier,
            Hazards::War => later && !earlier,
            Hazards::FuaOnly => false,
        }
    }

    /// Whether a request (writes or not) may have to wait for any overlapping one.
    fn may_order(self, writes: bool) -> bool {
        self.orders(writes, true) || self.orders(writes, false)
    }
}

/// The command a chip runs (one per chip at a time).
#[derive(Default)]
struct Command {
    op: Option<FlashOp>,
    /// Transactions, grouped by die in `dies` order.
    txs: Vec<u32>,
    /// Dies used, in bus order, with the end of their array operation.
    dies: Vec<(u32, Ps)>,
    /// Dies whose data has been sent out (reads), in order of array completion.
    out_order: Vec<u32>,
    out_next: usize,
    planes_used: u32,
    segment_start_ps: Ps,
    suspends: u32,
}

#[derive(Default)]
struct Chip {
    busy: bool,
    gen: u32,
    cmd: Command,
    /// A program or erase suspended for reads, with the array time each die had left.
    suspended: Option<Command>,
    /// End of the bus phase of the current command (suspension only after it).
    bus_phase_end_ps: Ps,
}

/// A channel's bus: free from `free_ps`; waiters are served command/address-only phases
/// first, then the rest in arrival order.
#[derive(Default)]
struct ChannelBus {
    free_ps: Ps,
    short: VecDeque<BusRequest>,
    long: VecDeque<BusRequest>,
    wake_scheduled: bool,
    /// The holder's own event fires when the bus frees (a read's last data-out ends with its
    /// command): waiters are handed the bus there instead of by a separate wake-up event.
    handoff: bool,
}

#[derive(Debug, Clone, Copy)]
enum BusRequest {
    /// The bus phase of a chip's command.
    Phase { chip: u32, gen: u32 },
    /// Data out of the next die of a chip's read command.
    Out { chip: u32, gen: u32 },
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
    pub check: Option<CheckResult>,
    pub timeline: Option<crate::report::Timeline>,
    /// Chip time of GC charged to each flow (µs), when the TSU policy charges GC (FLIN).
    pub gc_charged_us: Option<Vec<f64>>,
}

#[derive(Debug, Clone, serde::Serialize)]
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
}

pub struct Simulation {
    cfg: Config,
    geo: Geometry,
    timing: Timing,
    q: EventQueue,
    ftl: Ftl,
    tsu: Box<dyn TsuPolicy>,
    sched: Box<dyn DeviceScheduler>,
    flows: Vec<Flow>,
    flow_outstanding: Vec<u32>,
    flow_arrival_scheduled: Vec<bool>,
    sq: Vec<VecDeque<u32>>,
    sq_waiting: u32,
    arbiter: Arbiter,
    /// `hil.fairness = "wa_bc"`: which flows' requests the scheduler may commit.
    wa_bc: Option<crate::hil::wa_bc::WaBc>,
    /// Per flow: ready memory requests not yet committed; whether the flow may commit.
    flow_ready: Vec<u32>,
    flow_pending_buf: Vec<bool>,
    flow_allowed: Vec<bool>,
    link: Link,
    link_up_free_ps: Ps,
    link_down_free_ps: Ps,
    command_latency_ps: Ps,
    ios: Slab<Io>,
    io_seq: u64,
    mrs: Slab<MemoryRequest>,
    txs: Slab<Transaction>,
    tx_seq: u64,
    chips: Vec<Chip>,
    queues: Vec<ChipQueues>,
    chip_queued: Vec<u32>,
    chip_load: Vec<u32>,
    chip_busy: Vec<bool>,
    busy_chips: u32,
    buses: Vec<ChannelBus>,
    tags_free: u32,
    /// Requests holding a tag, in no particular order, with what the hazard check needs.
    active: Vec<Active>,
    admitted: u64,
    blocked_buf: Vec<(u64, u32)>,
    /// Active requests that write, trim or are FUA.
    active_writers: u32,
    active_fua: u32,
    page_filter: PageFilter,
    hazards: Hazards,
    blocked: u32,
    /// What is committed to the flash side and not done, per chip and plane.
    occ: Occupancy,
    /// While a scheduling round commits, chips are started only at its end, so a command is
    /// built from everything committed at that instant.
    /// Nesting depth of such rounds (a command's completion is one too).
    deferring: u32,
    schedule_pending: bool,
    deferred_chips: Vec<u32>,
    chip_deferred: Vec<bool>,
    readdress_buf: Vec<u32>,
    /// Write memory requests waiting for their data to cross the link.
    parked: Vec<u32>,
    commit_buf: Vec<u32>,
    heads_buf: Vec<Option<u64>>,
    priorities: Vec<u8>,
    build_txs: Vec<u32>,
    order_buf: Vec<(u64, usize, Ppn, usize)>,
    done_buf: Vec<u32>,
    dropped_moves: Vec<u32>,
    readdressed: Vec<u32>,
    finished: bool,
    last_completion_ps: Ps,
    firmware_free_ps: Vec<Ps>,
    firmware_cost_ps: Ps,
    cache: Option<WriteCache>,
    cache_waiting: VecDeque<u32>,
    dram_ps: Ps,
    oracle: Option<Oracle>,
    stats: Stats,
    gc_pages: Vec<(Ppn, Lpn)>,
    scan_limit: usize,
    suspension: bool,
    max_suspends: u32,
    interval_ps: Ps,
    timeline: Option<crate::report::Timeline>,
    preconditioned_pages: u64,
    workload: WorkloadSpec,
    seed: u64,
    progress: bool,
}

impl Simulation {
    pub fn new(cfg: &Config, workload: &WorkloadSpec, seed: u64, opts: &RunOptions) -> Result<Simulation> {
        let geo = Geometry::from_config(cfg);
        let mut ftl = Ftl::new(cfg, seed);
        let logical_sectors = ftl.logical_pages() as u64 * geo.sectors_per_page() as u64;
        let flows = build_flows(workload, seed, logical_sectors, geo.sector_bytes)?;
        let mut preconditioned_pages = 0;
        if let Some(p) = &workload.precondition {
            let pattern = if p.pattern == "sequential" { Pattern::Sequential } else { Pattern::Random };
            preconditioned_pages = precondition(&mut ftl, p.occupancy, pattern, seed).map_err(|m| {
                crate::error::Error::config(
                    if workload.source.is_empty() { "workload" } else { &workload.source },
                    0,
                    "precondition.occupancy",
                    &m,
                )
            })?;
        }
        if opts.check && cfg.hil.hazards != "strict" {
            return Err(crate::error::Error::config(
                "config",
                0,
                "hil.hazards",
                "--check needs hil.hazards = \"strict\": with \"war\" or \"none\" the host, not the drive, orders overlapping writes, so the last write to reach flash need not be the last one issued",
            ));
        }
        let mut oracle = opts.check.then(|| Oracle::new(ftl.logical_pages(), geo.pages(), geo.sectors_per_page()));
        if let Some(o) = &mut oracle {
            for lpn in 0..ftl.logical_pages() {
                let ppn = ftl.map.get(lpn);
                if ppn != NONE {
                    o.preconditioned(ppn);
                }
            }
        }
        let chips = geo.chips() as usize;
        let nflows = flows.len();
        let tags = if cfg.hif.interface == "sata" { cfg.hil.queue_depth.min(32) } else { cfg.hil.queue_depth };
        let cache =
            cfg.cache.enabled.then(|| WriteCache::new((cfg.cache.capacity_bytes / geo.page_bytes as u64) as u32));
        Ok(Simulation {
            timing: Timing::from_config(cfg),
            q: EventQueue::new(),
            ftl,
            tsu: TsuPolicyKind::parse(&cfg.tsu.policy)
                .expect("validated")
                .build(cfg, &flows.iter().map(|f| f.priority).collect::<Vec<u8>>()),
            sched: SchedulerKind::parse(&cfg.hil.scheduler).expect("validated").build(
                &geo,
                cfg.hil.max_bypass,
                cfg.hil.readdressing,
            ),
            flow_outstanding: vec![0; nflows],
            flow_arrival_scheduled: vec![false; nflows],
            sq: (0..nflows).map(|_| VecDeque::new()).collect(),
            sq_waiting: 0,
            flows,
            arbiter: Arbiter::from_config(cfg),
            wa_bc: (cfg.hil.fairness == "wa_bc").then(|| {
                let t = Timing::from_config(cfg);
                let mean = |v: &[u64]| v.iter().sum::<u64>() / v.len().max(1) as u64;
                let xfer = t.bus_transfer_ps(geo.page_bytes as u64);
                crate::hil::wa_bc::WaBc::new(
                    nflows,
                    us_to_ps(cfg.hil.wa_bc_round_us) * geo.chips() as u64,
                    mean(&t.t_read_ps) + xfer,
                    mean(&t.t_program_ps) + xfer,
                )
            }),
            flow_ready: vec![0; nflows],
            flow_pending_buf: vec![false; nflows],
            flow_allowed: vec![true; nflows],
            link: Link::from_config(cfg),
            link_up_free_ps: 0,
            link_down_free_ps: 0,
            command_latency_ps: ns_to_ps(cfg.hif.command_latency_ns),
            ios: Slab::new(),
            io_seq: 0,
            mrs: Slab::new(),
            txs: Slab::new(),
            tx_seq: 0,
            chips: (0..chips).map(|_| Chip::default()).collect(),
            queues: (0..chips).map(|_| ChipQueues::new(geo.planes_per_chip())).collect(),
            chip_queued: vec![0; chips],
            chip_load: vec![0; chips],
            chip_busy: vec![false; chips],
            busy_chips: 0,
            buses: (0..geo.channels).map(|_| ChannelBus::default()).collect(),
            tags_free: tags,
            active: Vec::with_capacity(tags as usize),
            admitted: 0,
            blocked_buf: Vec::new(),
            active_writers: 0,
            active_fua: 0,
            page_filter: PageFilter::default(),
            hazards: match cfg.hil.hazards.as_str() {
                "war" => Hazards::War,
                "none" => Hazards::FuaOnly,
                _ => Hazards::Strict,
            },
            blocked: 0,
            occ: Occupancy::new(&geo),
            deferring: 0,
            schedule_pending: false,
            deferred_chips: Vec::new(),
            chip_deferred: vec![false; chips],
            readdress_buf: Vec::new(),
            parked: Vec::new(),
            commit_buf: Vec::new(),
            heads_buf: vec![None; nflows],
            priorities: Vec::new(),
            build_txs: Vec::new(),
            order_buf: Vec::new(),
            done_buf: Vec::new(),
            dropped_moves: Vec::new(),
            readdressed: Vec::new(),
            finished: false,
            last_completion_ps: 0,
            firmware_free_ps: vec![0; cfg.ftl.firmware.cores as usize],
            firmware_cost_ps: ns_to_ps(cfg.ftl.firmware.op_cost_ns),
            cache,
            cache_waiting: VecDeque::new(),
            dram_ps: ns_to_ps(cfg.cache.dram_access_ns),
            oracle,
            stats: Stats::new(nflows),
            gc_pages: Vec::new(),
            scan_limit: cfg.tsu.scan_limit as usize,
            suspension: cfg.nand.suspension.enabled,
            max_suspends: cfg.nand.suspension.max_per_op,
            interval_ps: us_to_ps(cfg.stats.interval_us),
            timeline: opts.timeline.map(|(a, b)| crate::report::Timeline::new(a, b)),
            preconditioned_pages,
            workload: workload.clone(),
            seed,
            progress: opts.progress,
            cfg: cfg.clone(),
            geo,
        })
    }

    /// Run to completion.
    pub fn run(mut self) -> Result<Outcome> {
        let wall = Instant::now();
        self.priorities = self.flows.iter().map(|f| f.priority).collect();
        for f in 0..self.flows.len() {
            self.refill_flow(f);
        }
        if self.schedule_pending {
            self.schedule_pending = false;
            self.run_scheduler();
        }
        if self.interval_ps > 0 {
            self.q.at(self.interval_ps, Event::Sample);
        }
        let mut next_progress = 2.0;
        let chips = self.geo.chips();
        while let Some(ev) = self.q.pop() {
            let now = self.q.now();
            let stalled = self.tags_free == 0 && self.sq_waiting > 0;
            self.stats.advance(now, chips, self.busy_chips, !self.active.is_empty(), stalled);
            if self.stats.gc_invocations > 0 {
                self.stats.advance_free_blocks(now, self.ftl.blocks.free_total);
            }
            match ev {
                Event::HostArrival { flow } => {
                    self.flow_arrival_scheduled[flow as usize] = false;
                    self.refill_flow(flow as usize);
                }
                Event::CommandFetched { io } => self.admit(io),
                Event::WriteDataIn { io } => self.write_data_in(io),
                Event::FirmwareDone { mr } => self.send_to_flash(mr),
                Event::CellDone { chip, gen } => self.cell_done(chip, gen),
                Event::BusFree { channel } => self.bus_free(channel),
                Event::CommandDone { chip, gen } => self.command_done(chip, gen),
                Event::ChipFree { chip, gen } => {
                    if self.chips[chip as usize].gen == gen {
                        self.set_chip_busy(chip, false);
                        self.try_start(chip);
                    }
                }
                Event::CacheServed { mr } => {
                    if self.mrs[mr].op == MrOp::Read {
                        self.mr_flash_done(mr);
                    } else {
                        self.mr_done(mr);
                    }
                }
                Event::ReadDataOut { mr } => self.mr_done(mr),
                Event::Complete { io } => self.complete(io),
                Event::Sample => self.sample(),
            }
            if self.schedule_pending {
                // The requests this event made ready, all at once.
                self.schedule_pending = false;
                self.run_scheduler();
            }
            if self.progress && self.q.processed() & 0xffff == 0 {
                self.progress_line(wall, now, &mut next_progress);
            }
            if self.finished {
                break;
            }
        }
        if self.progress && wall.elapsed().as_secs_f64() > 2.0 && std::io::stderr().is_terminal() {
            eprintln!();
        }
        let sim_time_ps = self.last_completion_ps;
        self.stats.finish();
        if self.interval_ps > 0 {
            // The last, partial window, so the series accounts for every request.
            self.stats.advance(sim_time_ps.max(self.q.now()), chips, self.busy_chips, false, false);
            self.take_sample(sim_time_ps.max(self.stats.window_start_ps));
        }
        assert_eq!(self.ios.live, 0, "run ended with {} requests unfinished: {}", self.ios.live, self.stuck_report());
        let check = self.oracle.take().map(|mut o| {
            self.ftl.check();
            o.verify_all(&self.ftl.map);
            CheckResult { reads_checked: o.reads_checked, violations: o.violations, first_violation: o.first_violation }
        });
        Ok(Outcome {
            flow_names: self.flows.iter().map(|f| f.name.clone()).collect(),
            events: self.q.processed(),
            wall_s: wall.elapsed().as_secs_f64(),
            logical_pages: self.ftl.logical_pages(),
            effective_spare_factor: self.ftl.effective_spare_factor(self.stats.mean_free_blocks(self.geo.planes())),
            state_bytes: self.ftl.state_bytes(),
            preconditioned_pages: self.preconditioned_pages,
            config: self.cfg,
            workload: self.workload,
            seed: self.seed,
            geo: self.geo,
            sim_time_ps,
            stats: self.stats,
            check,
            gc_charged_us: self.tsu.gc_charged_us(),
            timeline: self.timeline,
        })
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
        let mut out = format!(
            "{} memory requests pending, {} parked, {} waiting for cache; ",
            self.sched.pending(),
            self.parked.len(),
            self.cache_waiting.len()
        );
        for chip in 0..self.geo.chips() {
            let q = &self.queues[chip as usize];
            if q.is_empty() && !self.chips[chip as usize].busy {
                continue;
            }
            let lens: Vec<usize> = QueueClass::ALL.iter().map(|&c| q.class_len(c)).collect();
            out += &format!("chip {chip}: busy {} queues {:?}; ", self.chips[chip as usize].busy, lens);
            let ppc = self.geo.planes_per_chip();
            for p in chip * ppc..(chip + 1) * ppc {
                out += &format!(
                    "plane {p} free {} victim {} pending {}; ",
                    self.ftl.blocks.free_blocks(p),
                    self.ftl.gc_victim[p as usize] as i64,
                    self.ftl.gc_pending[p as usize]
                );
            }
            if out.len() > 4000 {
                break;
            }
        }
        out
    }

    fn all_flows_done(&self) -> bool {
        let now = self.q.now();
        self.flows.iter().all(|f| f.peek_arrival(now).is_none())
    }

    // ---------------------------------------------------------------- host and interface

    /// Submit a flow's requests while its queue has room; schedule its next arrival.
    fn refill_flow(&mut self, f: usize) {
        let now = self.q.now();
        while self.flow_outstanding[f] < self.flows[f].queue_depth {
            let Some(at) = self.flows[f].peek_arrival(now) else { break };
            if at > now {
                if !self.flow_arrival_scheduled[f] {
                    self.flow_arrival_scheduled[f] = true;
                    self.q.at(at, Event::HostArrival { flow: f as u32 });
                }
                break;
            }
            let req = self.flows[f].take(now).expect("peeked");
            self.io_seq += 1;
            let spp = self.geo.sectors_per_page() as u64;
            let first_lpn = req.lba / spp;
            let pages = ((req.lba + req.sectors as u64 - 1) / spp - first_lpn + 1) as u32;
            let io = self.ios.insert(Io {
                flow: f as u32,
                req,
                first_lpn,
                pages,
                seq: self.io_seq,
                fetched_ps: 0,
                pending_mrs: 0,
                state: IoState::InSq,
                version: 0,
                active_slot: NONE,
            });
            self.flow_outstanding[f] += 1;
            self.sq[f].push_back(io);
            self.sq_waiting += 1;
        }
        self.fetch();
    }

    /// Move commands from submission queues to free device tags. Kept out of line: it
    /// carries admission and request start inlined, and both the host and completion paths
    /// call it; one copy keeps the hot code small enough for the instruction cache.
    #[inline(never)]
    fn fetch(&mut self) {
        while self.tags_free > 0 && self.sq_waiting > 0 {
            for (h, q) in self.heads_buf.iter_mut().zip(&self.sq) {
                *h = q.front().map(|&io| self.ios.items[io as usize].seq);
            }
            let Some(f) = self.arbiter.pick(&self.heads_buf, &self.priorities) else { break };
            let io = self.sq[f].pop_front().expect("arbiter picked a non-empty queue");
            self.sq_waiting -= 1;
            self.tags_free -= 1;
            self.ios[io].fetched_ps = self.q.now();
            if self.command_latency_ps > 0 {
                self.q.after(self.command_latency_ps, Event::CommandFetched { io });
            } else {
                self.admit(io);
            }
        }
    }

    /// A command has a tag: check hazards, then start it.
    #[inline(always)]
    fn admit(&mut self, io: u32) {
        self.admitted += 1;
        let i = &mut self.ios[io];
        i.active_slot = self.active.len() as u32;
        let entry = Active {
            io,
            admitted: self.admitted,
            first_lpn: i.first_lpn,
            pages: i.pages,
            writes: i.req.op != IoOp::Read,
            fua: i.req.fua,
        };
        // The page filter answers "surely no conflict" for most requests without a scan.
        let maybe_conflict = entry.fua
            || self.active_fua > 0
            || (self.hazards.may_order(entry.writes) && self.page_filter.may_conflict(&entry));
        self.active_writers += (entry.writes || entry.fua) as u32;
        self.active_fua += entry.fua as u32;
        self.page_filter.add(&entry, 1);
        self.active.push(entry);
        if maybe_conflict && self.hazard(io) {
            self.ios[io].state = IoState::Blocked;
            self.blocked += 1;
        } else {
            self.start_io(io);
        }
    }

    /// Whether `io` must wait for an earlier unfinished request.
    #[cold]
    fn hazard(&self, io: u32) -> bool {
        if self.active_writers == 0 {
            // Only reads in flight (and none is FUA): nothing to order.
            return false;
        }
        let me = &self.active[self.ios[io].active_slot as usize];
        debug_assert_eq!(me.io, io);
        for o in &self.active {
            if o.admitted >= me.admitted {
                // Only requests admitted earlier (in admission order) can hold it back.
                continue;
            }
            if me.fua || o.fua {
                return true;
            }
            // Page granularity: a write of some sectors of a page rewrites (and may move)
            // the whole page, so it conflicts with any access to that page. Under Sprinkler's
            // rule only a write after a read waits (the read goes first).
            if self.hazards.orders(me.writes, o.writes) && overlaps(me.first_lpn, me.pages, o.first_lpn, o.pages) {
                return true;
            }
        }
        false
    }

    #[inline(always)]
    fn start_io(&mut self, io: u32) {
        self.ios[io].state = IoState::Running;
        let now = self.q.now();
        let req = self.ios[io].req;
        let spp = self.geo.sectors_per_page() as u64;
        let first_lpn = req.lba / spp;
        let last_lpn = (req.lba + req.sectors as u64 - 1) / spp;
        let op = match req.op {
            IoOp::Read => MrOp::Read,
            IoOp::Write => MrOp::Write,
            IoOp::Trim => MrOp::Trim,
        };
        if op == MrOp::Write {
            if let Some(o) = &mut self.oracle {
                self.ios[io].version = o.new_version();
            }
        }
        let n = (last_lpn - first_lpn + 1) as u32;
        self.ios[io].pending_mrs = n;
        for lpn in first_lpn..=last_lpn {
            let lo = if lpn == first_lpn { req.lba % spp } else { 0 };
            let hi = if lpn == last_lpn { (req.lba + req.sectors as u64 - 1) % spp } else { spp - 1 };
            let mask = if hi - lo + 1 == 64 { u64::MAX } else { ((1u64 << (hi - lo + 1)) - 1) << lo };
            let mr = self.mrs.insert(MemoryRequest {
                io,
                flow: self.ios[io].flow,
                io_seq: self.ios[io].seq,
                lpn: lpn as Lpn,
                sector_mask: mask,
                op,
                plane: NONE,
                ready_ps: now,
                committed: false,
                waiting: false,
            });
            if op == MrOp::Write {
                if let Some(o) = &mut self.oracle {
                    o.host_wrote(lpn as Lpn, mask, self.ios[io].version);
                }
                // Write data crosses the link before the memory request can go anywhere; its
                // map entry is looked up then.
                self.ftl.map.prefetch(lpn as Lpn);
                self.parked.push(mr);
            } else {
                self.mr_ready(mr);
            }
        }
        if op == MrOp::Write {
            let start = now.max(self.link_up_free_ps);
            let end = start + self.link.transfer_sectors_ps(req.sectors as u64);
            self.link_up_free_ps = end;
            self.q.at_in_lane(Lane::LinkUp, end, Event::WriteDataIn { io });
        } else {
            self.schedule_arrivals();
        }
    }

    /// New memory requests are ready: run the scheduler now, or once the event that made
    /// them ready is done (so a round sees every request that arrived with it).
    fn schedule_arrivals(&mut self) {
        if !self.sched.batches_arrivals() {
            self.run_scheduler();
        } else {
            self.schedule_pending = true;
        }
    }

    fn write_data_in(&mut self, io: u32) {
        let mut k = 0;
        while k < self.parked.len() {
            if self.mrs[self.parked[k]].io == io {
                let mr = self.parked.remove(k);
                self.mr_ready(mr);
            } else {
                k += 1;
            }
        }
        self.schedule_arrivals();
    }

    /// A memory request's data is where it needs to be: serve it from the cache, finish it
    /// (trim, zero read), or hand it to the device-level scheduler with its target.
    #[inline(always)]
    fn mr_ready(&mut self, mr: u32) {
        let now = self.q.now();
        let (lpn, mask, op) = (self.mrs[mr].lpn, self.mrs[mr].sector_mask, self.mrs[mr].op);
        self.mrs[mr].ready_ps = now;
        match op {
            MrOp::Trim => {
                // Only whole pages are trimmed; a partial TRIM leaves the page as it is.
                if mask == self.full_mask() {
                    if let Some(c) = &mut self.cache {
                        c.trim(lpn);
                        while let Some(dropped) = c.take_dropped() {
                            if let Some(o) = &mut self.oracle {
                                o.cache_dropped(dropped);
                            }
                        }
                    }
                    self.ftl.trim(lpn);
                    if let Some(o) = &mut self.oracle {
                        o.trimmed(lpn);
                    }
                }
                self.q.after(0, Event::CacheServed { mr });
            }
            MrOp::Read => {
                if let Some(c) = &mut self.cache {
                    if c.read(lpn, mask) {
                        self.stats.cache_read_hits += 1;
                        if let Some(o) = &mut self.oracle {
                            o.read(lpn, mask, None, "cache read");
                        }
                        self.q.after(self.dram_ps, Event::CacheServed { mr });
                        return;
                    }
                    self.stats.cache_read_misses += 1;
                }
                match self.ftl.read_target(lpn) {
                    Some(ppn) => {
                        self.mrs[mr].plane = self.geo.plane_of(ppn);
                        self.flow_ready[self.mrs[mr].flow as usize] += 1;
                        self.sched.ready(mr, &self.mrs.items);
                    }
                    None => {
                        if let Some(o) = &mut self.oracle {
                            o.read(lpn, mask, None, "unwritten read");
                        }
                        self.q.after(0, Event::CacheServed { mr });
                    }
                }
            }
            MrOp::Write => {
                if self.cache.is_some() {
                    self.cache_write(mr);
                } else {
                    self.mrs[mr].plane = self.ftl.write_plane(lpn, &self.chip_load);
                    self.flow_ready[self.mrs[mr].flow as usize] += 1;
                    self.sched.ready(mr, &self.mrs.items);
                }
            }
        }
    }

    fn full_mask(&self) -> u64 {
        let spp = self.geo.sectors_per_page();
        if spp == 64 {
            u64::MAX
        } else {
            (1u64 << spp) - 1
        }
    }

    // ---------------------------------------------------------------- cache

    #[cold]
    fn cache_write(&mut self, mr: u32) {
        if !self.cache_waiting.is_empty() || !self.try_cache_write(mr) {
            // Keep arrival order: later writes wait behind earlier ones.
            self.stats.cache_waits += 1;
            self.cache_waiting.push_back(mr);
            self.start_writeback();
        }
    }

    /// Put a write into the cache if there is room; false if it must wait.
    #[cold]
    fn try_cache_write(&mut self, mr: u32) -> bool {
        let (lpn, mask, io) = (self.mrs[mr].lpn, self.mrs[mr].sector_mask, self.mrs[mr].io);
        let cache = self.cache.as_mut().expect("cache on");
        let outcome = cache.write(lpn, mask);
        if outcome == WriteOutcome::Full {
            return false;
        }
        if outcome == WriteOutcome::Absorbed {
            self.stats.cache_write_hits += 1;
        }
        while let Some(dropped) = cache.take_dropped() {
            if let Some(o) = &mut self.oracle {
                o.cache_dropped(dropped);
            }
        }
        if let Some(o) = &mut self.oracle {
            o.cache_wrote(lpn, mask, self.ios[io].version);
        }
        self.q.after(self.dram_ps, Event::CacheServed { mr });
        true
    }

    /// A write-back finished: writes waiting for room go in, in order.
    #[cold]
    fn drain_cache_waiting(&mut self) {
        while let Some(&mr) = self.cache_waiting.front() {
            if !self.try_cache_write(mr) {
                self.start_writeback();
                return;
            }
            self.cache_waiting.pop_front();
        }
    }

    /// Write the least recently used dirty page back to flash.
    #[cold]
    fn start_writeback(&mut self) {
        let Some((lpn, mask, gen)) = self.cache.as_mut().expect("cache on").start_writeback() else { return };
        self.stats.cache_writebacks += 1;
        let plane = self.ftl.write_plane(lpn, &self.chip_load);
        let tx = self.new_program(TxKind::User, plane, lpn, mask, NONE);
        self.txs[tx].cache_gen = gen;
        if let Some(o) = &mut self.oracle {
            o.stage_cache_data(tx, lpn);
        }
        self.enqueue_program(tx);
    }

    // ---------------------------------------------------------------- device-level scheduling

    /// Let the device-level scheduler commit what it wants now. Everything committed in the
    /// round reaches the chip queues before any chip starts, in commit order.
    fn run_scheduler(&mut self) {
        if self.sched.pending() == 0 {
            return;
        }
        let mut out = std::mem::take(&mut self.commit_buf);
        out.clear();
        if let Some(w) = &mut self.wa_bc {
            for (p, &n) in self.flow_pending_buf.iter_mut().zip(&self.flow_ready) {
                *p = n > 0;
            }
            w.allowed(&self.flow_pending_buf, &mut self.flow_allowed);
        }
        {
            let mut board = Board {
                geo: &self.geo,
                mrs: &self.mrs.items,
                occ: &mut self.occ,
                out: &mut out,
                allowed: &self.flow_allowed,
            };
            self.sched.schedule(&mut board);
        }
        let gc_per_write = if self.stats.user_pages_programmed > 0 {
            self.stats.gc_pages_moved as f64 / self.stats.user_pages_programmed as f64
        } else {
            0.0
        };
        self.deferring += 1;
        for &mr in &out {
            let m = &mut self.mrs[mr];
            debug_assert!(!m.committed, "memory request {mr} committed twice");
            m.committed = true;
            m.waiting = true;
            self.flow_ready[m.flow as usize] -= 1;
            if let Some(w) = &mut self.wa_bc {
                w.charge(m.flow as usize, m.op == MrOp::Write, 1, gc_per_write);
            }
            self.commit(mr);
        }
        self.deferring -= 1;
        self.commit_buf = out;
        if self.deferring == 0 {
            self.start_deferred();
        }
    }

    /// Start the chips that were given work while a scheduling round committed.
    fn start_deferred(&mut self) {
        let mut chips = std::mem::take(&mut self.deferred_chips);
        for &chip in &chips {
            self.chip_deferred[chip as usize] = false;
            if !self.chips[chip as usize].busy {
                self.try_start(chip);
            } else if self.suspension && self.queues[chip as usize].class_len(QueueClass::UserRead) > 0 {
                self.maybe_suspend(chip);
            }
        }
        chips.clear();
        self.deferred_chips = chips;
    }

    /// A committed memory request's flash work is done: its chip no longer holds it.
    fn mr_flash_finished(&mut self, mr: u32) {
        let m = &mut self.mrs[mr];
        if m.committed {
            m.committed = false;
            let chip = self.geo.chip_of_plane(m.plane) as usize;
            self.occ.chip_committed[chip] -= 1;
        }
    }

    /// A committed memory request's data moved from the plane it was committed to.
    #[cold]
    fn mr_moved(&mut self, mr: u32, plane: u32) {
        let m = &mut self.mrs[mr];
        if m.committed {
            self.occ.chip_committed[self.geo.chip_of_plane(m.plane) as usize] -= 1;
            self.occ.chip_committed[self.geo.chip_of_plane(plane) as usize] += 1;
        }
        if m.waiting {
            self.occ.plane_waiting[m.plane as usize] -= 1;
            self.occ.plane_waiting[plane as usize] += 1;
        }
        m.plane = plane;
    }

    /// Commit a memory request to the flash side: through the firmware, to the TSU.
    fn commit(&mut self, mr: u32) {
        if self.firmware_cost_ps == 0 {
            self.send_to_flash(mr);
            return;
        }
        let now = self.q.now();
        let (core, &free) =
            self.firmware_free_ps.iter().enumerate().min_by_key(|&(i, &t)| (t, i)).expect("at least one core");
        let end = now.max(free) + self.firmware_cost_ps;
        self.firmware_free_ps[core] = end;
        self.q.at(end, Event::FirmwareDone { mr });
    }

    fn send_to_flash(&mut self, mr: u32) {
        let m = &self.mrs[mr];
        let (lpn, mask, plane, op) = (m.lpn, m.sector_mask, m.plane, m.op);
        match op {
            MrOp::Read => {
                let tx = self.new_tx(TxKind::User, FlashOp::Read, plane, lpn, mask, mr);
                self.enqueue(tx);
            }
            MrOp::Write => {
                let tx = self.new_program(TxKind::User, plane, lpn, mask, mr);
                if let Some(o) = &mut self.oracle {
                    o.stage_host_data(tx, mask, self.ios[self.mrs[mr].io].version);
                }
                self.enqueue_program(tx);
            }
            MrOp::Trim => unreachable!("trims never reach flash"),
        }
    }

    fn new_tx(&mut self, kind: TxKind, op: FlashOp, plane: u32, lpn: Lpn, mask: u64, mr: u32) -> u32 {
        self.tx_seq += 1;
        let flow = if mr != NONE { self.mrs[mr].flow } else { NONE };
        self.txs.insert(Transaction {
            flow,
            kind,
            op,
            plane,
            plane_in_chip: self.geo.plane_in_chip(plane) as u16,
            ppn: NONE,
            lpn,
            sector_mask: mask,
            mr,
            src_ppn: NONE,
            then: NONE,
            cache_gen: 0,
            stream: if kind == TxKind::Gc { Stream::Gc } else { Stream::User },
            enqueued_ps: self.q.now(),
            seq: self.tx_seq,
        })
    }

    fn new_program(&mut self, kind: TxKind, plane: u32, lpn: Lpn, mask: u64, mr: u32) -> u32 {
        self.new_tx(kind, FlashOp::Program, plane, lpn, mask, mr)
    }

    /// Enqueue a user program; a partial page whose other sectors are on flash is read
    /// first (read-modify-write), unless the cache holds them.
    fn enqueue_program(&mut self, tx: u32) {
        let (lpn, mask) = (self.txs[tx].lpn, self.txs[tx].sector_mask);
        let cached = self.cache.as_ref().map(|c| c.cached_mask(lpn)).unwrap_or(0);
        let full = self.full_mask();
        let old = self.ftl.map.get(lpn);
        if (mask | cached) != full && old != NONE {
            self.stats.rmw_reads += 1;
            let plane = self.geo.plane_of(old);
            let read = self.new_tx(TxKind::User, FlashOp::Read, plane, lpn, full & !mask, NONE);
            self.txs[read].then = tx;
            self.txs[read].flow = self.txs[tx].flow;
            self.enqueue(read);
        } else {
            if old != NONE {
                // Invalidated when the program starts.
                self.ftl.blocks.prefetch_page(old);
            }
            self.enqueue(tx);
        }
    }

    fn enqueue(&mut self, tx: u32) {
        let t = &self.txs[tx];
        let chip = self.geo.chip_of_plane(t.plane);
        let class = t.class();
        let user_read = class == QueueClass::UserRead;
        let pic = t.plane_in_chip;
        let page = match class {
            QueueClass::GcRead | QueueClass::GcWrite => t.src_ppn,
            QueueClass::GcErase => t.ppn,
            _ => NONE,
        };
        let page_at = if class == QueueClass::GcRead {
            (self.geo.page_in_block(page), self.geo.block_in_plane(self.geo.block_of(page)))
        } else {
            (NONE, NONE)
        };
        let entry = QueueEntry { tx, lpn: t.lpn, page, page_at, op: t.op, seq: t.seq };
        self.queues[chip as usize].push(class, pic, entry);
        self.tsu.enqueued(chip, tx, &self.txs[tx], self.q.now());
        self.chip_queued[chip as usize] += 1;
        self.chip_load[chip as usize] += 1;
        if self.deferring > 0 {
            if !self.chip_deferred[chip as usize] {
                self.chip_deferred[chip as usize] = true;
                self.deferred_chips.push(chip);
            }
        } else if !self.chips[chip as usize].busy {
            self.try_start(chip);
        } else if user_read && self.suspension {
            self.maybe_suspend(chip);
        }
    }

    // ---------------------------------------------------------------- chips

    fn set_chip_busy(&mut self, chip: u32, busy: bool) {
        let c = &mut self.chips[chip as usize];
        if c.busy != busy {
            c.busy = busy;
            self.chip_busy[chip as usize] = busy;
            if busy {
                self.busy_chips += 1;
            } else {
                self.busy_chips -= 1;
            }
        }
    }

    /// How pressing GC is on a chip: a collecting plane near the hard threshold (where user
    /// writes must wait) makes GC go first. Below the GC threshold GC runs in the chip's idle
    /// time; under a saturating load free blocks therefore settle near the hard threshold,
    /// which the measured effective spare factor reflects.
    fn gc_urgency(&self, chip: u32) -> GcUrgency {
        if self.ftl.collecting_planes() == 0 {
            return GcUrgency::None;
        }
        let ppc = self.geo.planes_per_chip();
        for p in chip * ppc..(chip + 1) * ppc {
            if self.ftl.gc_victim[p as usize] != NONE
                && self.ftl.blocks.free_blocks(p) <= self.ftl.user_reserve_blocks + 1
            {
                return GcUrgency::Critical;
            }
        }
        GcUrgency::None
    }

    /// A free chip: build the widest legal command from its queues and start it.
    fn try_start(&mut self, chip: u32) {
        if self.chips[chip as usize].busy {
            return;
        }
        if self.chips[chip as usize].suspended.is_some() {
            if self.queues[chip as usize].class_len(QueueClass::UserRead) == 0 {
                self.resume(chip);
                return;
            }
            self.build(chip, Some(QueueClass::UserRead));
            if !self.chips[chip as usize].busy {
                // The queued reads could not start here (they followed their data
                // elsewhere): resume the suspended operation.
                self.resume(chip);
            }
            return;
        }
        self.build(chip, None);
        if !self.chips[chip as usize].busy && self.ftl.background_threshold_blocks > 0 {
            self.background_gc(chip);
        }
    }

    /// An idle chip with nothing queued: collect planes below the background threshold.
    #[cold]
    fn background_gc(&mut self, chip: u32) {
        if !self.queues[chip as usize].is_empty() {
            return;
        }
        let ppc = self.geo.planes_per_chip();
        for p in chip * ppc..(chip + 1) * ppc {
            if self.ftl.wants_background_gc(p) {
                self.start_gc(p);
                if self.chips[chip as usize].busy {
                    return;
                }
            }
        }
    }

    fn build(&mut self, chip: u32, forced: Option<QueueClass>) {
        let ci = chip as usize;
        let mut excluded = [false; QUEUE_CLASSES];
        loop {
            let class = match forced {
                Some(c) => Pick::class(c),
                None => {
                    let gc_urgency = self.gc_urgency(chip);
                    let ctx = PickContext {
                        chip,
                        now: self.q.now(),
                        queues: &self.queues[ci],
                        txs: &self.txs.items,
                        gc_urgency,
                        excluded: &excluded,
                    };
                    match self.tsu.pick(&ctx) {
                        Some(p) => p,
                        None => return,
                    }
                }
            };
            if self.try_build_from(chip, class.class, class.leader)
                || forced.is_some()
                || self.chips[chip as usize].busy
            {
                return;
            }
            excluded[class.class as usize] = true;
        }
    }

    /// Build a command from queue `class` of `chip`. The oldest startable transaction
    /// leads; then, oldest plane first, each other plane of the chip adds its oldest
    /// transaction that can join — same operation, on a die already in the command at the
    /// same page offset (multi-plane; reads look up to `tsu.scan_limit` deep in the plane's
    /// queue for a matching offset), or on a new die (die interleaving). Returns false if
    /// nothing in the queue can start now.
    fn try_build_from(&mut self, chip: u32, class: QueueClass, leader: Option<u32>) -> bool {
        let ci = chip as usize;
        let ppc = self.geo.planes_per_chip() as usize;
        let multiplane = self.cfg.nand.multiplane;
        let same_block = self.cfg.nand.multiplane_same_block;
        let interleave = self.cfg.nand.die_interleave;
        let stream = match class {
            QueueClass::GcWrite => Stream::Gc,
            _ => Stream::User,
        };
        let is_read = matches!(class, QueueClass::UserRead | QueueClass::GcRead | QueueClass::MapRead);
        let is_erase = class == QueueClass::GcErase;
        // Planes in the order of their oldest queued transaction; drop stale GC moves at
        // the heads (their page was overwritten or trimmed since the GC read). Reads carry
        // the page they would read now, resolved once here.
        let user_read = matches!(class, QueueClass::UserRead | QueueClass::MapRead);
        let gc_move = class == QueueClass::GcWrite;
        let mut order = std::mem::take(&mut self.order_buf);
        order.clear();
        for pic in 0..ppc {
            while let Some(&e) = self.queues[ci].front(class, pic) {
                if gc_move && self.ftl.blocks.lpn_at(e.page) != e.lpn {
                    self.queues[ci].take(class, pic, 0);
                    self.chip_queued[ci] -= 1;
                    self.chip_load[ci] -= 1;
                    self.txs.remove(e.tx);
                    self.dropped_moves.push(chip * ppc as u32 + pic as u32);
                    continue;
                }
                let ppn = if user_read { self.user_read_page(e.lpn) } else { e.page };
                // A user read whose page moved to another plane since it was queued (a
                // cache write-back under dynamic allocation) follows its data.
                if user_read && self.geo.plane_of(ppn) != chip * ppc as u32 + pic as u32 {
                    self.queues[ci].take(class, pic, 0);
                    self.tsu.dequeued(chip, e.tx);
                    self.chip_queued[ci] -= 1;
                    self.chip_load[ci] -= 1;
                    self.readdressed.push(e.tx);
                    continue;
                }
                order.push((e.seq, pic, ppn, 0));
                break;
            }
        }
        // A leader chosen by the policy goes first, from wherever it is in its plane's queue.
        if let Some(tx) = leader {
            let pic = self.txs[tx].plane_in_chip as usize;
            let pos = (0..self.queues[ci].plane_len(class, pic)).find(|&k| self.queues[ci].get(class, pic, k).tx == tx);
            if pos == Some(0) {
                // Already its plane's head (the usual case), so already in the order with its
                // page resolved: it only moves to the front.
                order.iter_mut().find(|o| o.1 == pic).expect("a plane's head is in the order").0 = 0;
            } else if let Some(pos) = pos {
                let e = *self.queues[ci].get(class, pic, pos);
                let ppn = if user_read { self.user_read_page(e.lpn) } else { e.page };
                if !user_read || self.geo.plane_of(ppn) == chip * ppc as u32 + pic as u32 {
                    order.retain(|o| o.1 != pic);
                    order.push((0, pic, ppn, pos));
                }
            }
        }
        // Sequence numbers are unique (a leader's 0 included): they alone decide the order.
        order.sort_unstable_by_key(|o| o.0);
        let mut chosen = std::mem::take(&mut self.build_txs);
        chosen.clear();
        // Per die of the chip, the (offset, block) its planes work at; valid where `dies_in`
        // has the die's bit.
        let mut die_key = [(0u32, 0u32); 16];
        let mut dies_in = 0u16;
        let mut op: Option<FlashOp> = None;
        for &(_, pic, head_ppn, first) in &order {
            let plane = chip * ppc as u32 + pic as u32;
            let die = self.geo.die_of_plane_in_chip(pic as u32) as usize;
            // Where in the plane this command would work: (page offset, block in plane).
            let fixed_key = if is_read {
                None
            } else if is_erase {
                Some((0, self.geo.block_in_plane(self.geo.block_of(head_ppn))))
            } else {
                match self.ftl.blocks.next_offset(plane, stream, self.ftl.user_reserve_blocks) {
                    Some(off) => Some((off, NONE)),
                    None => continue,
                }
            };
            let want = (dies_in & 1 << die != 0).then_some(die_key[die]);
            if want.is_none() && dies_in != 0 && !interleave {
                continue;
            }
            if want.is_some() && !multiplane {
                continue;
            }
            let compatible = |key: (u32, u32)| match want {
                None => true,
                Some((off, blk)) => off == key.0 && (!same_block || key.1 == NONE || blk == key.1),
            };
            // Positions of the plane's queue to look at: the leader's own, or for a read
            // joining a die already in the command, up to `tsu.scan_limit` deep for the same
            // offset. A GC victim's reads queue in page order, so the one at the wanted offset
            // is found by bisection rather than by scanning (while that order holds).
            let (lo, hi) = match want {
                Some((off, _)) if is_read && first == 0 => {
                    let depth = self.scan_limit.min(self.queues[ci].plane_len(class, pic));
                    match (!user_read).then(|| self.queues[ci].find_offset(class, pic, off, depth)).flatten() {
                        Some(Some(pos)) => (pos, pos + 1),
                        Some(None) => continue,
                        None => (0, depth),
                    }
                }
                _ => (first, first + 1),
            };
            let mut found = None;
            for pos in lo..hi {
                let e = *self.queues[ci].get(class, pic, pos);
                let mut ppn = head_ppn;
                let key = match fixed_key {
                    Some(k) => k,
                    // A GC read's page is fixed, on this plane: its place was worked out once.
                    None if !user_read => {
                        ppn = e.page;
                        e.page_at
                    }
                    None => {
                        if pos > first {
                            ppn = self.user_read_page(e.lpn);
                            if self.geo.plane_of(ppn) != plane {
                                continue; // moved: it follows its data when it reaches the head
                            }
                        }
                        (self.geo.page_in_block(ppn), self.geo.block_in_plane(self.geo.block_of(ppn)))
                    }
                };
                if op.is_some_and(|o| o != e.op) {
                    continue;
                }
                if compatible(key) {
                    found = Some((pos, e, key, ppn));
                    break;
                }
            }
            let Some((pos, e, key, ppn)) = found else { continue };
            if want.is_none() {
                die_key[die] = key;
                dies_in |= 1 << die;
            }
            op = Some(e.op);
            self.queues[ci].take(class, pic, pos);
            self.chip_queued[ci] -= 1;
            if is_read {
                self.txs[e.tx].ppn = ppn;
            }
            chosen.push(e.tx);
        }
        let launched = if let Some(op) = op {
            // Order by plane so the bus phase visits each die once, in die order.
            // One transaction per plane: the plane alone decides the order.
            chosen.sort_unstable_by_key(|&t| self.txs[t].plane_in_chip);
            self.launch(chip, op, &mut chosen);
            true
        } else {
            false
        };
        self.build_txs = chosen;
        self.order_buf = order;
        // Dropped GC moves are settled after the launch: settling may enqueue an erase on
        // this very chip.
        while let Some(plane) = self.dropped_moves.pop() {
            self.gc_move_done(plane);
        }
        while let Some(tx) = self.readdressed.pop() {
            let plane = self.geo.plane_of(self.read_page(tx));
            if self.txs[tx].mr != NONE {
                self.mr_moved(self.txs[tx].mr, plane);
            }
            let t = &mut self.txs[tx];
            t.plane = plane;
            t.plane_in_chip = self.geo.plane_in_chip(plane) as u16;
            self.enqueue(tx);
        }
        launched
    }

    /// The page a read transaction reads: a GC read its victim page; a user read wherever
    /// its logical page is now (GC may have moved it within the plane since it was queued),
    /// or where a never-written page is read from.
    fn read_page(&self, tx: u32) -> Ppn {
        let t = &self.txs[tx];
        if t.kind == TxKind::Gc {
            t.src_ppn
        } else {
            self.user_read_page(t.lpn)
        }
    }

    fn user_read_page(&self, lpn: Lpn) -> Ppn {
        let ppn = self.ftl.map.get(lpn);
        if ppn != NONE {
            ppn
        } else {
            self.ftl.phantom_ppn(lpn)
        }
    }

    /// Allocate pages, update the map and start the timing of a command.
    /// `txs` moves into the chip's command (the vector is swapped, not copied); the caller
    /// gets back an empty one.
    fn launch(&mut self, chip: u32, op: FlashOp, txs: &mut Vec<u32>) {
        let now = self.q.now();
        let ci = chip as usize;
        // Busy first: allocation below may start GC, which enqueues on this very chip.
        self.set_chip_busy(chip, true);
        self.tsu.dispatched(chip, txs, &self.txs.items, now);
        // Resolve pages.
        for &tx in txs.iter() {
            let (kind, plane, lpn, stream) =
                (self.txs[tx].kind, self.txs[tx].plane, self.txs[tx].lpn, self.txs[tx].stream);
            if kind == TxKind::User {
                // The memory request's own command starts (a read-modify-write's program, not
                // its read): it no longer waits at its plane.
                let mr = self.txs[tx].mr;
                if mr != NONE && self.mrs[mr].waiting {
                    self.mrs[mr].waiting = false;
                    self.occ.plane_waiting[self.mrs[mr].plane as usize] -= 1;
                }
            }
            match op {
                FlashOp::Read => {
                    // Resolved by the builder just now.
                    let ppn = self.txs[tx].ppn;
                    debug_assert_eq!(ppn, self.read_page(tx));
                    assert_eq!(self.geo.plane_of(ppn), plane, "read of lpn {lpn} queued on the wrong plane");
                    if kind == TxKind::User && self.oracle.is_some() {
                        // Remember whether this read found data or a never-written page.
                        self.txs[tx].src_ppn = if self.ftl.map.get(lpn) == ppn { ppn } else { NONE };
                    }
                }
                FlashOp::Program | FlashOp::Copyback => {
                    let (ppn, opened) = self
                        .ftl
                        .blocks
                        .allocate(plane, stream, self.ftl.user_reserve_blocks)
                        .expect("builder checked a page was available");
                    self.txs[tx].ppn = ppn;
                    let src = self.txs[tx].src_ppn;
                    if kind == TxKind::Gc {
                        self.ftl.commit_write(lpn, ppn);
                        self.stats.gc_pages_programmed += 1;
                        self.stats.gc_pages_moved += 1;
                        if let Some(o) = &mut self.oracle {
                            o.moved(src, ppn);
                        }
                    } else {
                        self.ftl.write_programmed(plane);
                        let old = self.ftl.map.get(lpn);
                        // A cache write-back overtaken by a TRIM programs data nobody maps.
                        let current = self.txs[tx].mr != NONE
                            || self.cache.as_ref().is_some_and(|c| c.writeback_current(lpn, self.txs[tx].cache_gen));
                        if current {
                            self.ftl.commit_write(lpn, ppn);
                            if old != NONE && self.geo.plane_of(old) != plane {
                                self.readdress(lpn, self.geo.plane_of(old), plane);
                            }
                        }
                        self.stats.user_pages_programmed += 1;
                        if let Some(o) = &mut self.oracle {
                            let mask = self.txs[tx].sector_mask;
                            o.program(tx, ppn, mask, (old != NONE).then_some(old));
                        }
                    }
                    if opened && self.ftl.needs_gc(plane) {
                        self.start_gc(plane);
                    }
                }
                FlashOp::Erase => {}
            }
        }
        let dies = {
            let mut dies = 0u32;
            let mut last = u32::MAX;
            for &t in txs.iter() {
                let d = self.geo.die_of_plane_in_chip(self.txs[t].plane_in_chip as u32);
                if d != last {
                    dies += 1;
                    last = d;
                }
            }
            dies
        };
        self.stats.command(txs.len() as u32, dies);
        let c = &mut self.chips[ci];
        c.cmd.txs.clear();
        std::mem::swap(&mut c.cmd.txs, txs);
        c.cmd.dies.clear();
        c.cmd.out_order.clear();
        c.cmd.out_next = 0;
        c.cmd.op = Some(op);
        c.cmd.planes_used = c.cmd.txs.len() as u32;
        c.cmd.segment_start_ps = now;
        c.cmd.suspends = 0;
        c.bus_phase_end_ps = Ps::MAX;
        // Commands that are only command/address cycles (reads, erases, copybacks) take
        // the bus ahead of page transfers: issuing them keeps more chips working.
        let short = op != FlashOp::Program;
        let gen = self.chips[ci].gen;
        self.request_bus(self.geo.channel_of_chip(chip), BusRequest::Phase { chip, gen }, short);
    }

    /// Ask for the channel bus; granted now if it is free and nobody waits, else in turn.
    #[inline(always)]
    fn request_bus(&mut self, ch: u32, req: BusRequest, short: bool) {
        let now = self.q.now();
        let b = &mut self.buses[ch as usize];
        if b.free_ps <= now && b.short.is_empty() && b.long.is_empty() {
            self.grant_bus(ch, req);
            return;
        }
        if short {
            b.short.push_back(req);
        } else {
            b.long.push_back(req);
        }
        if !b.wake_scheduled && !b.handoff {
            b.wake_scheduled = true;
            let at = b.free_ps.max(now);
            self.q.at(at, Event::BusFree { channel: ch });
        }
    }

    /// A holder's event at the moment its transfer ended: pass the bus on if anyone waits.
    fn bus_handoff(&mut self, ch: u32) {
        let b = &mut self.buses[ch as usize];
        if b.handoff && b.free_ps == self.q.now() {
            b.handoff = false;
            if !b.wake_scheduled && (!b.short.is_empty() || !b.long.is_empty()) {
                self.bus_free(ch);
            }
        }
    }

    /// The bus of `ch` may be free: grant it to the next waiter.
    #[inline(always)]
    fn bus_free(&mut self, ch: u32) {
        let now = self.q.now();
        let b = &mut self.buses[ch as usize];
        b.wake_scheduled = false;
        if b.free_ps > now {
            b.wake_scheduled = true;
            let at = b.free_ps;
            self.q.at(at, Event::BusFree { channel: ch });
            return;
        }
        loop {
            let b = &mut self.buses[ch as usize];
            let Some(req) = b.short.pop_front().or_else(|| b.long.pop_front()) else { return };
            if self.grant_bus(ch, req) {
                break;
            }
        }
        let b = &mut self.buses[ch as usize];
        if !b.short.is_empty() || !b.long.is_empty() {
            b.wake_scheduled = true;
            let at = b.free_ps;
            self.q.at(at, Event::BusFree { channel: ch });
        }
    }

    /// Run a bus request now. False if it is stale (its command was suspended meanwhile).
    #[inline(always)]
    fn grant_bus(&mut self, ch: u32, req: BusRequest) -> bool {
        self.buses[ch as usize].handoff = false;
        match req {
            BusRequest::Phase { chip, gen } => {
                if self.chips[chip as usize].gen != gen {
                    return false;
                }
                self.command_phase(ch, chip);
            }
            BusRequest::Out { chip, gen } => {
                if self.chips[chip as usize].gen != gen {
                    return false;
                }
                self.data_out(ch, chip);
            }
        }
        true
    }

    /// The bus phase of a command: command/address cycles (and data in, for programs) die
    /// by die; each die starts its array operation when its part of the phase ends.
    #[inline(always)]
    fn command_phase(&mut self, ch: u32, chip: u32) {
        let now = self.q.now();
        let ci = chip as usize;
        let c = &mut self.chips[ci];
        let cmd = &mut c.cmd;
        let op = cmd.op.expect("a command in its bus phase has an op");
        // Each plane's part of the bus phase: command/address cycles, and for a program its
        // page of data in.
        let per_plane = self.timing.cmd_addr_ps(op)
            + match op {
                FlashOp::Program => self.timing.bus_transfer_sectors_ps(self.geo.sectors_per_page() as u64),
                _ => 0,
            };
        let mut t = now;
        let n = cmd.txs.len();
        let mut tr = &self.txs[cmd.txs[0]];
        let mut i = 0;
        while i < n {
            let die = self.geo.die_of_plane_in_chip(tr.plane_in_chip as u32);
            let mut cell = 0;
            loop {
                t += per_plane;
                let page = self.geo.page_in_block(tr.ppn);
                let c = match op {
                    FlashOp::Read => self.timing.t_read(page),
                    FlashOp::Program => self.timing.t_program(page),
                    FlashOp::Erase => self.timing.t_erase_ps,
                    FlashOp::Copyback => {
                        self.timing.t_read(self.geo.page_in_block(tr.src_ppn)) + self.timing.t_program(page)
                    }
                };
                cell = cell.max(c);
                i += 1;
                if i == n {
                    break;
                }
                tr = &self.txs[cmd.txs[i]];
                if self.geo.die_of_plane_in_chip(tr.plane_in_chip as u32) != die {
                    break;
                }
            }
            if let Some(tl) = &mut self.timeline {
                tl.cell(chip, die, t, t + cell, op);
            }
            cmd.dies.push((die, t + cell));
        }
        self.buses[ch as usize].free_ps = t;
        if let Some(tl) = &mut self.timeline {
            tl.bus(ch, chip, now, t, op);
        }
        let gen = c.gen;
        c.bus_phase_end_ps = t;
        if op == FlashOp::Read {
            // Each die sends its data out when its array read is done, in that order.
            cmd.out_order.extend(0..cmd.dies.len() as u32);
            let dies = &cmd.dies;
            cmd.out_order.sort_by_key(|&k| (dies[k as usize].1, k));
            for &k in &cmd.out_order {
                self.q.at(cmd.dies[k as usize].1, Event::CellDone { chip, gen });
            }
        } else {
            let end = cmd.dies.iter().map(|d| d.1).max().expect("at least one die");
            self.q.at(end, Event::CommandDone { chip, gen });
        }
    }

    /// A die of a read command finished its array time: ask for the bus to send its data.
    #[inline(always)]
    fn cell_done(&mut self, chip: u32, gen: u32) {
        if self.chips[chip as usize].gen != gen {
            return;
        }
        self.request_bus(self.geo.channel_of_chip(chip), BusRequest::Out { chip, gen }, false);
    }

    /// Data out of the next die of a read command (dies go in the order their reads end).
    #[inline(always)]
    fn data_out(&mut self, ch: u32, chip: u32) {
        let now = self.q.now();
        let ci = chip as usize;
        let cmd = &mut self.chips[ci].cmd;
        let k = cmd.out_order[cmd.out_next] as usize;
        cmd.out_next += 1;
        let die = cmd.dies[k].0;
        let mut sectors = 0u64;
        for &tx in &cmd.txs {
            let tr = &self.txs[tx];
            if self.geo.die_of_plane_in_chip(tr.plane_in_chip as u32) == die {
                sectors += tr.sector_mask.count_ones() as u64;
            }
        }
        let end = now + self.timing.bus_transfer_sectors_ps(sectors);
        self.buses[ch as usize].free_ps = end;
        if let Some(tl) = &mut self.timeline {
            tl.bus(ch, chip, now, end, FlashOp::Read);
        }
        let cmd = &self.chips[ci].cmd;
        if cmd.out_next == cmd.dies.len() {
            let gen = self.chips[ci].gen;
            self.q.at(end, Event::CommandDone { chip, gen });
            self.buses[ch as usize].handoff = true;
        }
    }

    /// A command finished: complete its transactions and free the chip.
    fn command_done(&mut self, chip: u32, gen: u32) {
        let ci = chip as usize;
        if self.chips[ci].gen != gen {
            return;
        }
        let now = self.q.now();
        let cmd = &mut self.chips[ci].cmd;
        let op = cmd.op.take().expect("a running command has an op");
        let mut txs = std::mem::take(&mut self.done_buf);
        txs.clear();
        std::mem::swap(&mut txs, &mut cmd.txs);
        self.stats.command_segment(now - cmd.segment_start_ps, cmd.planes_used, self.geo.planes_per_chip());
        if self.txs[txs[0]].kind == TxKind::Gc {
            self.stats.gc_chip_ps += (now - cmd.segment_start_ps) as u128;
        }
        self.chips[ci].gen = self.chips[ci].gen.wrapping_add(1);
        self.set_chip_busy(chip, false);
        self.chip_load[ci] -= txs.len() as u32;
        // Completing may enqueue follow-up work (GC writes, programs of read-modify-writes):
        // chips start once every transaction of the command is done, so follow-ups of one
        // multi-plane command can run as one again.
        self.deferring += 1;
        for &tx in &txs {
            self.tx_done(tx, op);
        }
        self.deferring -= 1;
        self.done_buf = txs;
        if self.deferring == 0 {
            self.start_deferred();
        }
        self.try_start(chip);
        self.run_scheduler();
        // A read's last data-out ended now: hand the channel to its waiters.
        self.bus_handoff(self.geo.channel_of_chip(chip));
    }

    fn tx_done(&mut self, tx: u32, op: FlashOp) {
        let r = &self.txs[tx];
        if r.kind == TxKind::Gc && op == FlashOp::Read && self.ftl.blocks.lpn_at(r.src_ppn) == r.lpn {
            // The read of a GC move found its page still live: the move's program takes over
            // the read's record (everything but the operation, page, time and order carries
            // over), as a new transaction in the slot it frees.
            self.tx_seq += 1;
            // Its map entry changes when the program starts.
            self.ftl.map.prefetch(r.lpn);
            let w = &mut self.txs[tx];
            debug_assert!(w.mr == NONE && w.flow == NONE && w.then == NONE && w.stream == Stream::Gc);
            w.op = FlashOp::Program;
            w.ppn = NONE;
            w.enqueued_ps = self.q.now();
            w.seq = self.tx_seq;
            self.enqueue(tx);
            return;
        }
        let t = self.txs[tx].clone();
        self.txs.remove(tx);
        match (t.kind, op) {
            (TxKind::User, FlashOp::Read) => {
                if t.then != NONE {
                    // Read half of a read-modify-write: now program the merged page (which
                    // invalidates the page just read and remaps the logical page).
                    self.ftl.blocks.prefetch_page(t.ppn);
                    self.ftl.map.prefetch(t.lpn);
                    self.enqueue(t.then);
                } else {
                    if let Some(o) = &mut self.oracle {
                        o.read(t.lpn, t.sector_mask, (t.src_ppn != NONE).then_some(t.ppn), "flash read");
                    }
                    self.mr_flash_finished(t.mr);
                    self.mr_flash_done(t.mr);
                }
            }
            (TxKind::User, _) => {
                if t.mr != NONE {
                    self.mr_flash_finished(t.mr);
                    self.mr_done(t.mr);
                } else {
                    // A cache write-back.
                    self.cache.as_mut().expect("write-back without a cache").writeback_done(t.lpn);
                    self.drain_cache_waiting();
                }
            }
            (TxKind::Gc, FlashOp::Read) => {
                // Overwritten or trimmed since the victim was chosen: nothing to move.
                self.gc_move_done(t.plane);
            }
            (TxKind::Gc, FlashOp::Program) | (TxKind::Gc, FlashOp::Copyback) => self.gc_move_done(t.plane),
            (TxKind::Gc, FlashOp::Erase) => {
                let block = self.ftl.finish_gc(t.plane);
                self.stats.erases += 1;
                if let Some(o) = &mut self.oracle {
                    o.erased(block * self.geo.pages_per_block, self.geo.pages_per_block);
                }
                if self.ftl.needs_gc(t.plane) {
                    self.start_gc(t.plane);
                }
            }
            (TxKind::Mapping, _) => {}
        }
    }

    /// A user read finished on flash: send its data to the host.
    fn mr_flash_done(&mut self, mr: u32) {
        let now = self.q.now();
        let sectors = self.mrs[mr].sector_mask.count_ones() as u64;
        let start = now.max(self.link_down_free_ps);
        let end = start + self.link.transfer_sectors_ps(sectors);
        self.link_down_free_ps = end;
        self.q.at_in_lane(Lane::LinkDown, end, Event::ReadDataOut { mr });
    }

    fn mr_done(&mut self, mr: u32) {
        let io = self.mrs[mr].io;
        self.mrs.remove(mr);
        let i = &mut self.ios[io];
        i.pending_mrs -= 1;
        if i.pending_mrs == 0 {
            self.complete(io);
        }
    }

    /// Readdressing callback: `lpn` now lives on another plane; the scheduler regroups
    /// uncommitted reads of it.
    #[cold]
    fn readdress(&mut self, lpn: Lpn, from: u32, to: u32) {
        let mut moved = std::mem::take(&mut self.readdress_buf);
        moved.clear();
        self.sched.readdress(lpn, from, to, &self.mrs.items, &mut moved);
        for &mr in &moved {
            self.mrs[mr].plane = to;
        }
        self.stats.readdressed += moved.len() as u64;
        self.readdress_buf = moved;
    }

    // ---------------------------------------------------------------- GC

    fn start_gc(&mut self, plane: u32) {
        let Some(victim) = self.ftl.start_gc(plane) else { return };
        if self.stats.gc_invocations == 0 {
            self.stats.start_free_block_average(self.q.now());
        }
        self.stats.gc_invocations += 1;
        let mut pages = std::mem::take(&mut self.gc_pages);
        self.ftl.blocks.valid_pages(victim, &mut pages);
        self.ftl.gc_pending[plane as usize] = pages.len() as u32;
        if pages.is_empty() {
            self.enqueue_erase(plane, victim);
        }
        for &(ppn, lpn) in &pages {
            let full = self.full_mask();
            if self.cfg.ftl.gc.copyback {
                let w = self.new_tx(TxKind::Gc, FlashOp::Copyback, plane, lpn, full, NONE);
                self.txs[w].src_ppn = ppn;
                self.enqueue(w);
            } else {
                // The program of the move is created when the read completes.
                let r = self.new_tx(TxKind::Gc, FlashOp::Read, plane, lpn, full, NONE);
                self.txs[r].src_ppn = ppn;
                self.enqueue(r);
            }
        }
        self.gc_pages = pages;
    }

    fn gc_move_done(&mut self, plane: u32) {
        let p = plane as usize;
        self.ftl.gc_pending[p] -= 1;
        if self.ftl.gc_pending[p] == 0 {
            let victim = self.ftl.gc_victim[p];
            self.enqueue_erase(plane, victim);
        }
    }

    fn enqueue_erase(&mut self, plane: u32, victim: u32) {
        let e = self.new_tx(TxKind::Gc, FlashOp::Erase, plane, NONE, 0, NONE);
        self.txs[e].ppn = victim * self.geo.pages_per_block;
        self.enqueue(e);
    }

    // ---------------------------------------------------------------- suspension

    #[cold]
    fn maybe_suspend(&mut self, chip: u32) {
        let ci = chip as usize;
        let now = self.q.now();
        let c = &self.chips[ci];
        let Some(op) = c.cmd.op else { return };
        if c.suspended.is_some()
            || !matches!(op, FlashOp::Program | FlashOp::Erase)
            || now < c.bus_phase_end_ps
            || c.cmd.suspends >= self.max_suspends
        {
            return;
        }
        let end = c.cmd.dies.iter().map(|d| d.1).max().unwrap_or(0);
        if end <= now + self.timing.t_suspend_ps {
            return;
        }
        self.stats.suspensions += 1;
        let mut cmd = std::mem::take(&mut self.chips[ci].cmd);
        self.stats.command_segment(now - cmd.segment_start_ps, cmd.planes_used, self.geo.planes_per_chip());
        if self.txs[cmd.txs[0]].kind == TxKind::Gc {
            self.stats.gc_chip_ps += (now - cmd.segment_start_ps) as u128;
        }
        cmd.suspends += 1;
        for d in &mut cmd.dies {
            d.1 = d.1.saturating_sub(now);
        }
        self.chips[ci].suspended = Some(cmd);
        self.chips[ci].gen = self.chips[ci].gen.wrapping_add(1);
        let gen = self.chips[ci].gen;
        self.q.after(self.timing.t_suspend_ps, Event::ChipFree { chip, gen });
    }

    #[cold]
    fn resume(&mut self, chip: u32) {
        let ci = chip as usize;
        let now = self.q.now();
        let mut cmd = self.chips[ci].suspended.take().expect("resume without a suspended command");
        let restart = now + self.timing.t_resume_ps;
        for d in &mut cmd.dies {
            d.1 += restart;
        }
        cmd.segment_start_ps = now;
        let end = cmd.dies.iter().map(|d| d.1).max().expect("dies");
        let gen = self.chips[ci].gen;
        self.chips[ci].bus_phase_end_ps = now;
        self.chips[ci].cmd = cmd;
        self.set_chip_busy(chip, true);
        self.q.at(end, Event::CommandDone { chip, gen });
    }

    // ---------------------------------------------------------------- completion

    fn complete(&mut self, io: u32) {
        let now = self.q.now();
        let i = &self.ios[io];
        let (flow, req, fetched) = (i.flow as usize, i.req, i.fetched_ps);
        let lat = now - req.arrival_ps;
        let bytes = req.sectors as u64 * self.geo.sector_bytes as u64;
        let s = &mut self.stats;
        match req.op {
            IoOp::Read => s.bytes_read += bytes,
            IoOp::Write => s.bytes_written += bytes,
            IoOp::Trim => {}
        }
        s.record(flow, req.op as usize, lat);
        s.completed += 1;
        s.host_wait_ps += (fetched - req.arrival_ps) as u128;
        s.device_ps += (now - fetched) as u128;
        s.window_completed += 1;
        s.window_bytes += bytes;
        s.window_latency_ps += lat as u128;
        let fs = &mut s.flows[flow];
        fs.completed += 1;
        fs.bytes += bytes;
        fs.host_wait_ps += (fetched - req.arrival_ps) as u128;
        fs.device_ps += (now - fetched) as u128;
        // Free the tag and wake requests that waited on this one.
        let pos = self.ios[io].active_slot as usize;
        let gone = self.active.swap_remove(pos);
        debug_assert_eq!(gone.io, io);
        if let Some(moved) = self.active.get(pos) {
            self.ios[moved.io].active_slot = pos as u32;
        }
        self.active_writers -= (gone.writes || gone.fua) as u32;
        self.active_fua -= gone.fua as u32;
        self.page_filter.add(&gone, -1);
        self.ios.remove(io);
        self.tags_free += 1;
        self.flow_outstanding[flow] -= 1;
        if self.blocked > 0 {
            // Blocked requests retry in admission order.
            let mut candidates = std::mem::take(&mut self.blocked_buf);
            candidates.clear();
            candidates.extend(
                self.active.iter().filter(|a| self.ios[a.io].state == IoState::Blocked).map(|a| (a.admitted, a.io)),
            );
            candidates.sort_unstable();
            for &(_, x) in &candidates {
                if !self.hazard(x) {
                    self.blocked -= 1;
                    self.start_io(x);
                }
            }
            self.blocked_buf = candidates;
        }
        self.last_completion_ps = now;
        self.refill_flow(flow);
        self.fetch();
        if self.ios.live == 0 && self.all_flows_done() {
            self.finished = true;
        }
    }

    /// Close the current time-series window at `now`.
    #[cold]
    fn sample(&mut self) {
        self.take_sample(self.q.now());
        if self.ios.live > 0 || !self.all_flows_done() || !self.q.is_empty() {
            self.q.after(self.interval_ps, Event::Sample);
        }
    }

    #[cold]
    fn take_sample(&mut self, now: Ps) {
        let s = &mut self.stats;
        let window_ps = now - s.window_start_ps;
        if window_ps == 0 {
            return;
        }
        s.window_start_ps = now;
        let dt_s = window_ps as f64 / 1e12;
        let chips = self.geo.chips() as f64;
        let row = Sample {
            t_us: now as f64 / 1e6,
            requests: s.window_completed,
            iops: s.window_completed as f64 / dt_s,
            bandwidth_mb_s: s.window_bytes as f64 / dt_s / 1e6,
            latency_mean_us: if s.window_completed > 0 {
                s.window_latency_ps as f64 / s.window_completed as f64 / 1e6
            } else {
                0.0
            },
            chip_utilization: s.window_busy_chip_ps as f64 / (window_ps as f64 * chips),
            free_blocks_min: (0..self.geo.planes()).map(|p| self.ftl.blocks.free_blocks(p)).min().unwrap_or(0),
            user_pages_programmed: s.user_pages_programmed,
            gc_pages_programmed: s.gc_pages_programmed,
        };
        s.samples.push(row);
        s.window_completed = 0;
        s.window_bytes = 0;
        s.window_latency_ps = 0;
        s.window_busy_chip_ps = 0;
    }
}
