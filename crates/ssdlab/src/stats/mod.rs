//! Statistics: every metric that applies without a specific technique (the definitions
//! below), measured the same way for every policy.
//!
//! Definitions:
//! - response time = completion − arrival at the host submission queue (for closed-loop
//!   flows the arrival is the moment the previous request completed), split into host wait
//!   (arrival → fetched by the device) and device time (fetched → completion).
//! - chip utilization = time chips spend running commands / (chips × simulated time).
//! - inter-chip idleness = chip-time chips are idle while the device holds unfinished
//!   requests / (chips × time the device holds unfinished requests).
//! - intra-chip idleness = over the time chips run commands, the fraction of their planes
//!   that are not part of the running command.
//! - plane utilization = plane-time in running commands / (planes × simulated time): a
//!   command on one plane of a four-plane chip counts a quarter of the chip busy (Sprinkler's
//!   Figure 15 utilization rises with FLP, which chip utilization cannot show). This is SPD's
//!   `plane_util_time` (docs/techniques.md §11.4).
//! - busy plane utilization (SPD's `plane_util_busy`, §11.4) = over every die-level array
//!   operation (each die's part of each command), planes used / planes per die, weighted by
//!   the part's array time (tR, tPROG, tBERS; tR + tPROG for a copyback): how wide the array
//!   works while it works, whatever the idle time. See [`crate::nand::phy::ArrayUse`].
//! - write cases (SPD, Gao et al. MSST 2019 slide 9; §3.1): each die a program command
//!   uses, classified when the command starts — see [`WriteCase`].
//! - GC cost = chip time of GC commands (reads, programs, copybacks, erases, from the
//!   command's start to its end: its bus phase and transfers, waits for the channel, its
//!   array time), per invocation = that / GC invocations.
//! - cache hit ratio = (read hits + write hits) / (reads + writes that reached the cache),
//!   counted in pages (memory requests).
//! - FLP: each command is single (one page), die-interleaved (several dies, one plane
//!   each), multi-plane (one die, several planes) or both; reported as a share of commands
//!   and as a share of the pages they served.
//! - transaction reduction = 1 − commands / flash transactions (page operations).
//! - queue stall time = time the device queue is full while a host has requests waiting.
//! - write amplification = pages programmed (user + GC) / user pages programmed.

pub mod config;
pub mod flow_latency;
pub mod latency_log;

pub use flow_latency::FlowLatency;

/// Indices of [`Stats::flp_commands`] and [`Stats::flp_pages`].
pub const FLP_SINGLE: usize = 0;
pub const FLP_DIE_INTERLEAVE: usize = 1;
pub const FLP_MULTI_PLANE: usize = 2;
pub const FLP_BOTH: usize = 3;

use hdrhistogram::Histogram;

use crate::engine::Ps;
use crate::host::{IoOp, IoRequest};
use crate::nand::phy::PhyCounters;
pub use crate::tsu::WriteCase;

/// Die-level programs by [`WriteCase`] (indexed by `case as usize`), for the host's programs
/// (cache write-backs included) and GC's (moves by program or copyback) apart. Translation-
/// page programs are not counted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WriteCases {
    pub user: [u64; 4],
    pub gc: [u64; 4],
}

/// Latency histogram in nanoseconds (1 ns to ~2.8 h, 3 significant digits; longer values
/// are clamped, the mean stays exact).
pub struct Latency {
    pub hist: Histogram<u64>,
    /// Exact sum of the recorded latencies.
    pub sum_ps: u128,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            hist: Histogram::new_with_bounds(1, Latency::HIGHEST_NS, 3).expect("valid histogram bounds"),
            sum_ps: 0,
        }
    }
}

impl Latency {
    /// The largest latency told apart (about 2.8 h); longer ones count as this.
    pub const HIGHEST_NS: u64 = 10_000_000_000_000;
    /// Bytes of one histogram: [`flow_latency::COUNTS`] counters of 8 bytes.
    pub const BYTES: u64 = flow_latency::COUNTS as u64 * 8;

    #[inline]
    pub fn record(&mut self, ps: Ps) {
        let ns = ps.div_ceil(1000).max(1);
        self.hist.saturating_record(ns);
        self.sum_ps += ps as u128;
    }
    /// Add another histogram's values.
    pub fn add(&mut self, other: &Latency) {
        self.hist.add(&other.hist).expect("latency histograms share their bounds");
        self.sum_ps += other.sum_ps;
    }
    pub fn count(&self) -> u64 {
        self.hist.len()
    }
    pub fn mean_us(&self) -> f64 {
        if self.count() == 0 {
            0.0
        } else {
            self.sum_ps as f64 / self.count() as f64 / 1e6
        }
    }
    pub fn quantile_us(&self, q: f64) -> f64 {
        if self.count() == 0 {
            0.0
        } else {
            self.hist.value_at_quantile(q) as f64 / 1000.0
        }
    }
    pub fn max_us(&self) -> f64 {
        if self.count() == 0 {
            0.0
        } else {
            self.hist.max() as f64 / 1000.0
        }
    }

    /// The distribution as points (latency in µs, fraction of requests at or below it) at
    /// [`CDF_FRACTIONS`], from the histogram (3 significant digits); the first point is the
    /// smallest latency, the last the largest. Empty with no request.
    pub fn cdf_us(&self) -> Vec<[f64; 2]> {
        if self.count() == 0 {
            return Vec::new();
        }
        CDF_FRACTIONS
            .iter()
            .map(|&q| {
                let ns = match q {
                    0.0 => self.hist.min(),
                    1.0 => self.hist.max(),
                    q => self.hist.value_at_quantile(q),
                };
                [ns as f64 / 1000.0, q]
            })
            .collect()
    }
}

/// Where a report's latency CDF is sampled: 0, every hundredth, then the tail at 0.999,
/// 0.9999, 0.99999 and 1.
pub const CDF_FRACTIONS: [f64; 104] = {
    let mut f = [0.0; 104];
    let mut i = 1;
    while i < 100 {
        f[i] = i as f64 / 100.0;
        i += 1;
    }
    f[100] = 0.999;
    f[101] = 0.9999;
    f[102] = 0.99999;
    f[103] = 1.0;
    f
};

#[derive(Default)]
pub struct FlowStats {
    pub completed: u64,
    pub bytes: u64,
    /// Response times by operation (read, write, trim): each completion is recorded once,
    /// here, in a histogram that grows with the values it holds; the flow's whole
    /// distribution ([`FlowStats::latency`]) and the drive-wide histograms are their sums.
    pub by_op: [FlowLatency; 3],
    pub host_wait_ps: u128,
    pub device_ps: u128,
}

impl FlowStats {
    /// All of the flow's response times, as a dense histogram (280 KiB, made when asked).
    pub fn latency(&self) -> Latency {
        let mut l = Latency::default();
        for op in &self.by_op {
            op.add_to(&mut l);
        }
        l
    }
}

/// One row of the time series.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    pub t_us: f64,
    pub requests: u64,
    pub iops: f64,
    pub bandwidth_mb_s: f64,
    pub latency_mean_us: f64,
    pub chip_utilization: f64,
    pub free_blocks_min: u32,
    /// Cumulative pages programmed for the host and for GC (write amplification windows).
    pub user_pages_programmed: u64,
    pub gc_pages_programmed: u64,
}

// The time series' memory ceiling (`config::MAX_SAMPLES` rows, docs/config.md) counts 72 bytes a row.
const _: () = assert!(std::mem::size_of::<Sample>() == 72);

#[derive(Default)]
pub struct Stats {
    pub all: Latency,
    pub read: Latency,
    pub write: Latency,
    pub trim: Latency,
    pub flows: Vec<FlowStats>,
    pub completed: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub host_wait_ps: u128,
    pub device_ps: u128,
    /// Warm-up (the workload's `ramp_ms`): requests arriving before it are not counted.
    pub ramp_ps: Ps,
    /// Requests completed that arrived before `ramp_ps`, left out of every request statistic.
    pub ramp_excluded: u64,

    // Time integrals, advanced at every event with the state since the previous one.
    last_ps: Ps,
    pub busy_chip_ps: u128,
    pub idle_while_work_ps: u128,
    pub work_ps: u128,
    pub stall_ps: u128,

    /// Page-level flash operations executed (user, GC, mapping).
    pub page_ops: u64,
    /// Commands issued to chips (the papers' "transactions").
    pub commands: u64,
    /// Commands of each kind ([`FLP_SINGLE`], [`FLP_DIE_INTERLEAVE`], [`FLP_MULTI_PLANE`],
    /// [`FLP_BOTH`]).
    pub flp_commands: [u64; 4],
    /// Pages served by commands of each kind: Sprinkler's Figure 14 counts I/O served, not
    /// commands.
    pub flp_pages: [u64; 4],
    /// The same for read commands alone: how many of the pages read were read by a
    /// multi-plane command (SPD's Die-Read, `nand.multiplane_reads`).
    pub read_flp_pages: [u64; 4],
    /// Die-level programs by write case.
    pub write_cases: WriteCases,
    /// The PHY's counters (array time, plane idleness in commands, GC chip time,
    /// suspensions), copied in at the end of the run.
    pub phy: PhyCounters,
    pub user_pages_programmed: u64,
    pub gc_pages_programmed: u64,
    /// Translation pages programmed (a demand-based map's write-backs).
    pub map_pages_programmed: u64,
    pub gc_invocations: u64,
    pub gc_pages_moved: u64,
    /// GC moves dropped when their program was built: the host overwrote (or trimmed) the
    /// page after the GC read had found it live, so the move's CondUpdate lost the race.
    pub gc_moves_dropped: u64,
    /// GC moves of translation pages (a demand-based map's translation blocks collected).
    pub gc_map_pages_moved: u64,
    /// GC reads of victim pages that reached flash: valid pages only, or every written
    /// page (`ftl.gc.read_victim = "all_pages"`).
    pub gc_pages_read: u64,
    /// Map lookups GC made for the pages it read (`all_pages`).
    pub gc_lookups: u64,
    /// Dummy pages Die-GC programmed to keep a die's GC write points equal.
    pub gc_pad_pages: u64,
    /// Mapping-unit slots programs left empty (`ftl.mapping_unit_bytes` below the page: a
    /// command with fewer units than a page holds ends the page).
    pub unit_slots_skipped: u64,
    /// Die-GC moves put into the write buffer (`ftl.gc.die_leftover = "buffer"`).
    pub gc_buffered_moves: u64,
    /// Pages PACP's idle-time migration programmed.
    pub migration_pages_programmed: u64,
    /// Dummy pages SPD's partial evictions programmed (`cache.spd_fallback = "pad"`).
    pub cache_pad_pages: u64,
    /// User-data blocks a plane of an aligned die (`ftl.block_alignment = "die"`) opened at
    /// another index than its die's, for want of a block free on every plane.
    pub unaligned_block_opens: u64,
    /// Blocks erased (each block of a multi-plane erase counts), when the erase finishes.
    pub erases: u64,
    /// Erase commands finished (a multi-plane erase of several blocks counts once), counted
    /// like `erases` when the erase finishes, so a command still under way when the run ends
    /// is in neither.
    pub erase_commands: u64,
    pub rmw_reads: u64,
    /// Uncommitted reads whose target the readdressing callback updated.
    pub readdressed: u64,
    pub cache_read_hits: u64,
    pub cache_read_misses: u64,
    pub cache_write_hits: u64,
    /// Write memory requests stored in the cache (absorbed or inserted): the cache's write
    /// accesses.
    pub cache_writes: u64,
    pub cache_writebacks: u64,
    pub cache_waits: u64,
    /// Pages the write cache holds (0 with the cache off).
    pub cache_capacity_pages: u64,
    pub samples: Vec<Sample>,
    // Time-series accumulators since the last sample.
    pub window_completed: u64,
    pub window_bytes: u64,
    pub window_latency_ps: u128,
    pub window_busy_chip_ps: u128,
    pub window_start_ps: Ps,
    /// Free blocks (summed over planes) integrated over time since GC first ran.
    free_blocks_ps: u128,
    free_since_ps: Ps,
    free_last_ps: Ps,
}

impl Stats {
    /// The write cache holds `pages` (0: no cache).
    pub fn with_cache_pages(mut self, pages: u64) -> Stats {
        self.cache_capacity_pages = pages;
        self
    }

    pub fn new(flows: usize) -> Stats {
        Stats { flows: (0..flows).map(|_| FlowStats::default()).collect(), ..Stats::default() }
    }

    /// Record a completed request's response time: `op` 0 read, 1 write, 2 trim.
    #[inline]
    pub fn record(&mut self, flow: usize, op: usize, ps: Ps) {
        self.flows[flow].by_op[op].record(ps);
    }

    /// Sum the per-flow, per-operation histograms into the drive's (exact: the flows'
    /// counters are the dense histograms'). Call once, at the end.
    pub fn finish(&mut self) {
        for f in &self.flows {
            for (op, l) in f.by_op.iter().enumerate() {
                l.add_to(&mut self.all);
                match op {
                    0 => l.add_to(&mut self.read),
                    1 => l.add_to(&mut self.write),
                    2 => l.add_to(&mut self.trim),
                    _ => {}
                }
            }
        }
    }

    /// Bytes the statistics hold per flow, for `flows` each with the number of requests it
    /// completes of each operation (read, write, trim; `u64::MAX` without a bound): its
    /// record and its histograms ([`FlowLatency::estimate_bytes`], latencies spanning at most
    /// [`Self::LATENCY_DOUBLINGS`] doublings up to [`Self::LATENCY_TOP_NS`]).
    pub fn flow_bytes(flows: &[[u64; 3]]) -> u64 {
        let hist = |n: u64| FlowLatency::estimate_bytes(n, Self::LATENCY_DOUBLINGS, Self::LATENCY_TOP_NS);
        flows
            .iter()
            .map(|ops| std::mem::size_of::<FlowStats>() as u64 + ops.iter().map(|&n| hist(n)).sum::<u64>())
            .sum()
    }

    /// Bytes of the drive's statistics: the three dense histograms the end of the run sums
    /// the flows into, the one a report builds for a flow at a time, and `samples` rows of
    /// the time series (at most [`config::MAX_SAMPLES`]; room doubling as it grows).
    pub fn drive_bytes(samples: u64) -> u64 {
        let rows = samples.min(config::MAX_SAMPLES as u64);
        let series = if rows == 0 { 0 } else { rows.next_power_of_two() * std::mem::size_of::<Sample>() as u64 };
        4 * Latency::BYTES + series
    }

    /// A flow's latencies span at most this many doublings (a 256-fold range), for
    /// [`Stats::flow_bytes`].
    pub const LATENCY_DOUBLINGS: u64 = 8;
    /// ... and stay under this (10 s), for the length of its histogram's page table.
    pub const LATENCY_TOP_NS: u64 = 10_000_000_000;

    /// Integrate the state that held since the previous event up to `now`.
    #[inline]
    pub fn advance(&mut self, now: Ps, chips: u32, busy_chips: u32, work: bool, stalled: bool) {
        let dt = (now - self.last_ps) as u128;
        if dt == 0 {
            return;
        }
        self.last_ps = now;
        self.busy_chip_ps += dt * busy_chips as u128;
        self.window_busy_chip_ps += dt * busy_chips as u128;
        if work {
            self.work_ps += dt;
            self.idle_while_work_ps += dt * (chips - busy_chips) as u128;
        }
        if stalled {
            self.stall_ps += dt;
        }
    }

    /// GC has started for the first time: from now on, average the free blocks GC keeps.
    pub fn start_free_block_average(&mut self, now: Ps) {
        self.free_since_ps = now;
        self.free_last_ps = now;
    }

    /// Integrate the free blocks that held since the previous event (only once GC runs).
    #[inline]
    pub fn advance_free_blocks(&mut self, now: Ps, free_total: u64) {
        self.free_blocks_ps += (now - self.free_last_ps) as u128 * free_total as u128;
        self.free_last_ps = now;
    }

    /// Mean free blocks per plane while GC has been running, if it has run for any time.
    pub fn mean_free_blocks(&self, planes: u32) -> Option<f64> {
        let span = self.free_last_ps - self.free_since_ps;
        (span > 0).then(|| self.free_blocks_ps as f64 / span as f64 / planes as f64)
    }

    /// Requests arriving before `ramp_ps` are left out of the statistics (warm-up).
    pub fn with_ramp(mut self, ramp_ps: Ps) -> Stats {
        self.ramp_ps = ramp_ps;
        self
    }

    /// A host request completed at `now` (fetched by the device at `fetched_ps`), moving
    /// `bytes`. Whether it counts: one that arrived during the warm-up is only counted as
    /// excluded.
    pub fn request_done(&mut self, flow: usize, req: &IoRequest, fetched_ps: Ps, now: Ps, bytes: u64) -> bool {
        if req.arrival_ps < self.ramp_ps {
            self.ramp_excluded += 1;
            return false;
        }
        let lat = now - req.arrival_ps;
        match req.op {
            IoOp::Read => self.bytes_read += bytes,
            IoOp::Write => self.bytes_written += bytes,
            IoOp::Trim => {}
        }
        self.record(flow, req.op as usize, lat);
        self.completed += 1;
        self.host_wait_ps += (fetched_ps - req.arrival_ps) as u128;
        self.device_ps += (now - fetched_ps) as u128;
        self.window_completed += 1;
        self.window_bytes += bytes;
        self.window_latency_ps += lat as u128;
        let fs = &mut self.flows[flow];
        fs.completed += 1;
        fs.bytes += bytes;
        fs.host_wait_ps += (fetched_ps - req.arrival_ps) as u128;
        fs.device_ps += (now - fetched_ps) as u128;
        true
    }

    /// Close the time-series window at `now`: one row of the series (`free_blocks_min` is
    /// the fewest free blocks of any plane now), unless the series holds
    /// [`config::MAX_SAMPLES`] rows already.
    pub fn close_window(&mut self, now: Ps, chips: u32, free_blocks_min: u32) {
        let window_ps = now - self.window_start_ps;
        if window_ps == 0 {
            return;
        }
        self.window_start_ps = now;
        if self.samples.len() >= config::MAX_SAMPLES {
            // Past the series' ceiling: the window is not kept, so memory stays bounded.
            self.window_completed = 0;
            self.window_bytes = 0;
            self.window_latency_ps = 0;
            self.window_busy_chip_ps = 0;
            return;
        }
        let dt_s = window_ps as f64 / 1e12;
        let row = Sample {
            t_us: now as f64 / 1e6,
            requests: self.window_completed,
            iops: self.window_completed as f64 / dt_s,
            bandwidth_mb_s: self.window_bytes as f64 / dt_s / 1e6,
            latency_mean_us: if self.window_completed > 0 {
                self.window_latency_ps as f64 / self.window_completed as f64 / 1e6
            } else {
                0.0
            },
            chip_utilization: self.window_busy_chip_ps as f64 / (window_ps as f64 * chips as f64),
            free_blocks_min,
            user_pages_programmed: self.user_pages_programmed,
            gc_pages_programmed: self.gc_pages_programmed,
        };
        self.samples.push(row);
        self.window_completed = 0;
        self.window_bytes = 0;
        self.window_latency_ps = 0;
        self.window_busy_chip_ps = 0;
    }

    /// A command of `pages` pages over `dies` dies started.
    #[inline]
    pub fn command(&mut self, pages: u32, dies: u32, read: bool) {
        self.commands += 1;
        self.page_ops += pages as u64;
        // Several dies: die-interleaved (bit 0); more pages than dies: multi-plane (bit 1).
        let kind = usize::from(dies > 1) | usize::from(pages > dies) << 1;
        self.flp_commands[kind] += 1;
        self.flp_pages[kind] += pages as u64;
        if read {
            self.read_flp_pages[kind] += pages as u64;
        }
    }
}

/// What the simulation loop saw happen, for the statistics: the loop reports events and
/// [`Stats::saw`] decides what each counts, so the loop writes no counter itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// A partial-page write read the rest of its page first (read-modify-write).
    RmwRead,
    /// A GC move the host overtook was dropped when its program was built.
    GcMoveDropped,
    /// A command started on a chip: `pages` page operations over `dies` dies, a read or not.
    Command { pages: u32, dies: u32, read: bool },
    /// An erase command finished.
    EraseCommandDone,
    /// A translation page's program started.
    MapPageProgrammed,
    /// A GC dummy page's program started.
    GcPadPage,
    /// A program command left `n` mapping-unit slots of a plane's flash page empty.
    SlotsSkipped(u32),
    /// Requests committed to a plane followed their page to another (the readdressing
    /// callback), `n` of them.
    Readdressed(u64),
    /// A GC move's program started; `map_page`: it moved a translation page.
    GcMoveProgrammed { map_page: bool },
    /// A host page's program started.
    UserPageProgrammed,
    /// A GC invocation started at `now` (the first starts the free-block average).
    GcStarted { now: Ps },
    /// A block's erase finished.
    BlockErased,
    /// A GC move went into the write buffer instead of flash.
    GcMoveBuffered,
    /// A host read found its page in the write cache, or did not.
    CacheRead { hit: bool },
    /// A write waited for room in the write cache.
    CacheWait,
    /// A write was absorbed by a page the cache held.
    CacheWriteHit,
    /// A write was served by the cache (stored there): one write access.
    CacheWrite,
    /// A write-back went to flash, or a dummy page beside one (`pad`).
    CacheWriteback { pad: bool },
    /// An idle-time migration's program started.
    MigrationPageProgrammed,
    /// A GC read of a victim page finished.
    GcPageRead,
    /// GC looked a page it read up in the map.
    GcLookup,
}

impl Stats {
    /// Count what the loop saw (inlined: each call site's event is a constant, so it
    /// compiles to the increment itself).
    #[inline(always)]
    pub fn saw(&mut self, seen: Seen) {
        match seen {
            Seen::RmwRead => self.rmw_reads += 1,
            Seen::GcMoveDropped => self.gc_moves_dropped += 1,
            Seen::GcPageRead => self.gc_pages_read += 1,
            Seen::GcLookup => self.gc_lookups += 1,
            Seen::Command { pages, dies, read } => self.command(pages, dies, read),
            Seen::EraseCommandDone => self.erase_commands += 1,
            Seen::MapPageProgrammed => self.map_pages_programmed += 1,
            Seen::GcPadPage => self.gc_pad_pages += 1,
            Seen::SlotsSkipped(n) => self.unit_slots_skipped += n as u64,
            Seen::Readdressed(n) => self.readdressed += n,
            Seen::GcMoveProgrammed { map_page } => {
                self.gc_pages_programmed += 1;
                self.gc_pages_moved += 1;
                self.gc_map_pages_moved += u64::from(map_page);
            }
            Seen::UserPageProgrammed => self.user_pages_programmed += 1,
            Seen::GcStarted { now } => {
                if self.gc_invocations == 0 {
                    self.start_free_block_average(now);
                }
                self.gc_invocations += 1;
            }
            Seen::BlockErased => self.erases += 1,
            Seen::GcMoveBuffered => self.gc_buffered_moves += 1,
            Seen::CacheRead { hit: true } => self.cache_read_hits += 1,
            Seen::CacheRead { hit: false } => self.cache_read_misses += 1,
            Seen::CacheWait => self.cache_waits += 1,
            Seen::CacheWriteHit => self.cache_write_hits += 1,
            Seen::CacheWrite => self.cache_writes += 1,
            Seen::CacheWriteback { pad: true } => self.cache_pad_pages += 1,
            Seen::CacheWriteback { pad: false } => self.cache_writebacks += 1,
            Seen::MigrationPageProgrammed => self.migration_pages_programmed += 1,
        }
    }

    /// The counters other layers own, copied in at the end of the run.
    pub fn take_layer_counters(&mut self, phy: PhyCounters, unaligned_block_opens: u64) {
        self.phy = phy;
        self.unaligned_block_opens = unaligned_block_opens;
    }
}

#[cfg(test)]
mod tests {
    use super::{Latency, Stats, CDF_FRACTIONS, FLP_BOTH, FLP_DIE_INTERLEAVE, FLP_MULTI_PLANE, FLP_SINGLE};

    /// Commands by kind, and read commands apart: a read of 3 pages on 2 dies (both), a read
    /// of 2 pages on 2 dies (interleaved), a one-page read (single), a program of 2 pages on
    /// one die (multi-plane, not a read). Read pages: 3 + 2 + 1 = 6, of which 3 multi-plane.
    #[test]
    fn read_commands_are_counted_by_kind_apart() {
        let mut s = Stats::new(1);
        s.command(3, 2, true);
        s.command(2, 2, true);
        s.command(1, 1, true);
        s.command(2, 1, false);
        assert_eq!((s.commands, s.page_ops), (4, 8));
        assert_eq!(s.flp_pages, [1, 2, 2, 3]);
        let r = s.read_flp_pages;
        assert_eq!((r[FLP_SINGLE], r[FLP_DIE_INTERLEAVE], r[FLP_MULTI_PLANE], r[FLP_BOTH]), (1, 2, 0, 3));
    }

    /// 1, 2, …, 1000 µs: the q-quantile is 1000·q µs, to the histogram's 3 significant digits.
    #[test]
    fn the_cdf_samples_the_distribution_at_its_fractions() {
        let mut l = Latency::default();
        for us in 1..=1000u64 {
            l.record(us * 1_000_000);
        }
        let cdf = l.cdf_us();
        assert_eq!(cdf.len(), CDF_FRACTIONS.len());
        assert_eq!(cdf[0], [1.0, 0.0]);
        // The largest is the top of its bucket, as the report's `max` is.
        assert_eq!(cdf.last().unwrap()[0], l.max_us());
        for &[us, q] in &cdf[1..] {
            let want = (1000.0 * q).ceil();
            assert!((us - want).abs() <= want * 1e-3 + 1e-9, "at {q}: {us} µs, want {want}");
        }
        assert!(cdf.windows(2).all(|w| w[0][0] <= w[1][0] && w[0][1] < w[1][1]));
        assert!(Latency::default().cdf_us().is_empty());
    }

    /// A flow of 10 reads: its record, and a read histogram of at most 10 pages (room for 16,
    /// 512 bytes each) with a page table up to 10 s (index (24 << 10) + (10^10 >> 23) − 1024 =
    /// 24,744, page 386: 387 entries of 2 bytes); no write or trim histogram. The drive: four
    /// dense histograms of 35,840 counters of 8 bytes, and a time series of 1,000 rows in
    /// room for 1,024 of 72 bytes.
    #[test]
    fn the_estimate_is_the_sizes_the_statistics_allocate() {
        let flow = std::mem::size_of::<super::FlowStats>() as u64;
        assert_eq!(Stats::flow_bytes(&[[10, 0, 0]]), flow + 16 * 512 + 387 * 2);
        assert_eq!(Stats::drive_bytes(0), 4 * 35_840 * 8);
        assert_eq!(Stats::drive_bytes(1000), 4 * 35_840 * 8 + 1024 * 72);
    }
}
