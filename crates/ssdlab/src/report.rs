//! Reports: the JSON report (stable shape), the one-screen summary, CSV rows and the
//! Chrome trace-event timeline.
//!
//! Everything in the report outside `run` depends only on config, workload and seed; `run`
//! holds what the host machine did (wall time, events per second, peak memory).

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::engine::Ps;
use crate::host::WorkloadSpec;
use crate::sim::{CheckResult, Outcome};
use crate::stats::{Latency, Sample, Stats, WriteCase, FLP_BOTH, FLP_DIE_INTERLEAVE, FLP_MULTI_PLANE, FLP_SINGLE};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub ssdlab_version: String,
    /// A hash of the simulator's source (`build.rs`): reports of the same source and inputs
    /// are the same report.
    #[serde(default)]
    pub ssdlab_source: String,
    pub seed: u64,
    pub config: Config,
    pub workload: WorkloadSpec,
    pub sim: SimReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckResult>,
    pub run: RunReport,
    /// What the inputs or the result are worth a warning about: requests a trace's
    /// `address_mode` moved, arrival times many requests share, arrivals faster than the
    /// drive could serve (a trace read in the wrong time unit), a run that took no simulated
    /// time. Absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SimReport {
    pub sim_time_ps: u64,
    pub host: HostReport,
    pub latency_us: LatencyGroup,
    pub flows: Vec<FlowReport>,
    pub flash: FlashReport,
    pub gc: GcReport,
    pub cache: CacheReport,
    pub ftl: FtlReport,
    pub utilization: Utilization,
    pub time_series: Vec<Sample>,
    /// With `--fairness`: each flow's slowdown against running alone, and their summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairness: Option<FairnessReport>,
    /// How often the TSU policy's stages made each kind of decision, by name (FLIN's, for
    /// its ablation: `crates/ssdlab/src/tsu/flin/`); absent for a policy that counts none.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub tsu_decisions: std::collections::BTreeMap<String, u64>,
}

/// Fairness across flows (FLIN, ISCA 2018). A flow's slowdown is its mean response time when
/// sharing the drive divided by its mean response time when it runs alone (same config, same
/// seed, same preconditioning). Unfairness = max / min slowdown; fairness = 1 / unfairness;
/// weighted speedup = Σ alone / shared.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FairnessReport {
    pub fairness: f64,
    pub unfairness: f64,
    pub weighted_speedup: f64,
    pub max_slowdown: f64,
}

impl FairnessReport {
    /// From each flow's mean response time shared and alone (flows with no requests are left
    /// out). Returns the summary and the per-flow slowdowns.
    pub fn from_means(shared: &[f64], alone: &[f64]) -> (FairnessReport, Vec<Option<f64>>) {
        let slowdowns: Vec<Option<f64>> =
            shared.iter().zip(alone).map(|(&s, &a)| (s > 0.0 && a > 0.0).then(|| s / a)).collect();
        let present: Vec<f64> = slowdowns.iter().flatten().copied().collect();
        let max = present.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = present.iter().copied().fold(f64::INFINITY, f64::min);
        let unfairness = if present.is_empty() { 1.0 } else { max / min };
        let report = FairnessReport {
            fairness: 1.0 / unfairness,
            unfairness,
            weighted_speedup: present.iter().map(|s| 1.0 / s).sum(),
            max_slowdown: if present.is_empty() { 1.0 } else { max },
        };
        (report, slowdowns)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HostReport {
    pub requests_completed: u64,
    pub iops: f64,
    pub bandwidth_mb_s: f64,
    pub read_bandwidth_mb_s: f64,
    pub write_bandwidth_mb_s: f64,
    /// Mean time from arrival to the device fetching the command.
    pub host_wait_us_mean: f64,
    /// Mean time from fetch to completion.
    pub device_us_mean: f64,
    /// Time the device queue was full while a host had requests waiting.
    pub queue_stall_s: f64,
    /// Requests that arrived during the warm-up (the workload's `ramp_ms`): simulated, but in
    /// no statistic of requests; IOPS and bandwidth are over the time after the warm-up.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ramp_excluded: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LatencyGroup {
    pub all: LatencySummary,
    pub read: LatencySummary,
    pub write: LatencySummary,
    /// Trims (counted in `all` too); absent when the run had none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<LatencySummary>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
    /// Of the three classes (not of flows): the distribution as [latency µs, fraction] at
    /// `stats::CDF_FRACTIONS` (min, every hundredth, 0.999, 0.9999, 0.99999, max).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cdf: Vec<[f64; 2]>,
}

impl LatencySummary {
    fn of(l: &Latency) -> LatencySummary {
        LatencySummary {
            count: l.count(),
            mean: l.mean_us(),
            p50: l.quantile_us(0.5),
            p99: l.quantile_us(0.99),
            p999: l.quantile_us(0.999),
            max: l.max_us(),
            cdf: Vec::new(),
        }
    }

    /// With the distribution ([`Latency::cdf_us`]).
    fn with_cdf(l: &Latency) -> LatencySummary {
        LatencySummary { cdf: l.cdf_us(), ..LatencySummary::of(l) }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FlowReport {
    pub name: String,
    pub requests_completed: u64,
    pub iops: f64,
    pub bandwidth_mb_s: f64,
    pub latency_us: LatencySummary,
    pub host_wait_us_mean: f64,
    pub device_us_mean: f64,
    /// With `--fairness`: mean response time shared / alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<f64>,
    /// With a TSU policy that charges GC to flows (FLIN): chip time of GC charged to this flow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_charged_us: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FlashReport {
    pub chip_utilization: f64,
    /// Plane-time in running commands / (planes × simulated time) (SPD's `plane_util_time`).
    pub plane_utilization: f64,
    /// Over each die's part of each command: planes used / planes per die, weighted by its
    /// array time (SPD's `plane_util_busy`).
    pub plane_utilization_busy: f64,
    pub inter_chip_idleness: f64,
    pub intra_chip_idleness: f64,
    /// Page-level flash operations executed (user, GC, mapping).
    pub memory_requests: u64,
    /// Commands issued to chips (each may carry several pages).
    pub transactions: u64,
    /// 1 − transactions / memory_requests.
    pub transaction_reduction: f64,
    /// Fraction of transactions of each kind.
    pub flp: FlpReport,
    /// Fraction of the pages served by transactions of each kind.
    pub flp_pages: FlpReport,
    /// SPD's four cases of die-level programs, the host's and GC's.
    pub write_cases: WriteCasesReport,
    /// Share of the pages read (user, GC and translation-page reads) that multi-plane read
    /// commands served (more pages than dies: SPD's Die-Read, `nand.multiplane_reads`).
    #[serde(default)]
    pub multiplane_read_share: f64,
    pub suspensions: u64,
    pub read_modify_writes: u64,
    /// Uncommitted reads the readdressing callback regrouped under another chip (Sprinkler
    /// §4.3; data moved between planes while they waited in the device queue).
    pub readdressed_reads: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FlpReport {
    pub single: f64,
    pub die_interleave: f64,
    pub multi_plane: f64,
    pub both: f64,
}

/// Die-level programs by write case (`stats::WriteCase`), the host's and GC's apart.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WriteCasesReport {
    pub user: WriteCaseCounts,
    pub gc: WriteCaseCounts,
}

/// Die-level programs of one kind: how many in each case, and each case's share of `dies`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WriteCaseCounts {
    /// Die-level programs classified (a program command counts once per die it uses).
    pub dies: u64,
    pub single: u64,
    pub mixed: u64,
    pub unaligned: u64,
    pub aligned: u64,
    pub share: WriteCaseShares,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WriteCaseShares {
    pub single: f64,
    pub mixed: f64,
    pub unaligned: f64,
    pub aligned: f64,
}

impl WriteCaseCounts {
    fn of(counts: &[u64; 4]) -> WriteCaseCounts {
        let dies: u64 = counts.iter().sum();
        let n = |c: WriteCase| counts[c as usize];
        let share = |c: WriteCase| ratio(n(c) as f64, dies as f64);
        WriteCaseCounts {
            dies,
            single: n(WriteCase::Single),
            mixed: n(WriteCase::Mixed),
            unaligned: n(WriteCase::Unaligned),
            aligned: n(WriteCase::Aligned),
            share: WriteCaseShares {
                single: share(WriteCase::Single),
                mixed: share(WriteCase::Mixed),
                unaligned: share(WriteCase::Unaligned),
                aligned: share(WriteCase::Aligned),
            },
        }
    }

    /// "57.1 / 14.3 / 14.3 / 14.3 % of 7" (single / mixed / unaligned / aligned), or "none".
    fn summary(&self) -> String {
        if self.dies == 0 {
            return "none".into();
        }
        let s = &self.share;
        format!(
            "{:.1} / {:.1} / {:.1} / {:.1} % of {}",
            s.single * 100.0,
            s.mixed * 100.0,
            s.unaligned * 100.0,
            s.aligned * 100.0,
            self.dies
        )
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GcReport {
    pub invocations: u64,
    pub pages_moved: u64,
    /// Moves dropped because the host overwrote the page between the GC read and the
    /// move's program (the CondUpdate that lost the race).
    pub moves_dropped: u64,
    /// GC reads of victim pages that reached flash: the valid pages, or every written page
    /// under `ftl.gc.read_victim = "all_pages"`.
    #[serde(default)]
    pub pages_read: u64,
    /// Map lookups GC made for the pages it read (`ftl.gc.read_victim = "all_pages"`).
    #[serde(default)]
    pub lookups: u64,
    /// Blocks erased by GC: each block of a multi-plane erase counts (docs/techniques.md §11.4,
    /// "GC-induced erases").
    pub erases: u64,
    /// Erase commands (a multi-plane erase of several blocks counts once).
    pub erase_commands: u64,
    /// Dummy pages Die-GC programmed so a die's GC write points stay equal (not in `waf`).
    pub pad_pages: u64,
    /// Die-GC moves put into the write buffer (`ftl.gc.die_leftover = "buffer"`); their
    /// programs, when the buffer writes them back, count as GC pages programmed and moved.
    pub buffered_moves: u64,
    /// (user + GC pages programmed) / user pages programmed.
    pub waf: f64,
    /// (physical pages that can hold data − logical pages) / those pages: Desnoyers' S_f.
    pub effective_spare_factor: f64,
    /// Fraction of chip time spent running GC commands (reads, programs, erases of GC).
    pub chip_time_fraction: f64,
    /// Total GC cost: chip time of GC commands, from each command's start to its end (its
    /// bus phase and transfers, waits for the channel, its array time), in seconds.
    pub cost_s: f64,
    /// `cost_s` / `invocations`, in microseconds.
    pub cost_per_invocation_us: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CacheReport {
    /// Pages the cache holds (`cache.capacity_bytes`, or `cache.capacity_footprint_fraction`
    /// of the workload's footprint).
    pub capacity_pages: u64,
    pub read_hits: u64,
    pub read_misses: u64,
    /// Writes stored in the cache (page-level memory requests).
    pub writes: u64,
    /// Writes absorbed: their page was in the cache already.
    pub write_hits: u64,
    pub writebacks: u64,
    /// Dummy pages SPD's partial groups programmed (`cache.spd_fallback = "pad"`).
    pub pad_pages: u64,
    pub write_waits: u64,
    /// Page hits / page accesses, reads and writes: (read_hits + write_hits) / (read_hits +
    /// read_misses + writes); 0 with no access.
    pub hit_ratio: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FtlReport {
    pub logical_pages: u64,
    pub physical_pages: u64,
    pub preconditioned_pages: u64,
    pub user_pages_programmed: u64,
    pub gc_pages_programmed: u64,
    /// Translation pages programmed (write-backs of a demand-based map; GC moves of
    /// translation pages count as GC pages).
    pub map_pages_programmed: u64,
    /// Translation pages GC moved (included in `gc.pages_moved`).
    pub map_pages_moved: u64,
    /// With `ftl.block_alignment = "die"`: user-data blocks opened outside their die's
    /// aligned set, for want of an index free on every plane of the die.
    pub unaligned_block_opens: u64,
    /// With `ftl.mapping_unit_bytes` below the page: unit slots left empty because a program
    /// command had fewer units for a plane than its page holds (they count as invalid for GC).
    #[serde(default)]
    pub unit_slots_skipped: u64,
    /// A demand-based map's cache: hits and misses per level, translation reads and
    /// writes, flushes, merged misses and the peak of reads in flight.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_cache: Option<crate::ftl::MapStats>,
    /// `ftl.allocation = "lv_partition"` or `"pacp"`: the channel labels at the end, the
    /// relabellings, and the history's prediction accuracy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<crate::ftl::PartitionReport>,
    pub firmware: FirmwareReport,
}

/// The FTL's servers and how busy they were.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FirmwareReport {
    pub cores: u32,
    pub hardware_units: u32,
    pub core_busy_us: f64,
    pub hardware_busy_us: f64,
    /// Busy time / (servers × simulated time): the paper's FTL utilization (FMMU §5.1).
    pub utilization: f64,
    /// Time cores were held sending to a full map-unit queue (`ftl.firmware.map_queue`).
    #[serde(default)]
    pub queue_wait_us: f64,
}

/// Busy time / (units × simulated time) of each part on a request's path (FMMU Fig. 12).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Utilization {
    /// The host link, the busier direction.
    pub host_link: f64,
    pub host_link_to_device: f64,
    pub host_link_to_host: f64,
    /// Channel buses (command, data-in and data-out phases).
    pub nand_bus: f64,
    /// Chips (a command running).
    pub chips: f64,
    pub ftl: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    pub wall_s: f64,
    pub events: u64,
    pub events_per_s: f64,
    pub requests_per_s: f64,
    pub peak_rss_bytes: u64,
    /// Bytes of FTL state (map, reverse map, block table) at the end.
    pub ftl_state_bytes: u64,
}

fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}

impl HostReport {
    fn of(s: &Stats, secs: f64) -> HostReport {
        HostReport {
            requests_completed: s.completed,
            iops: ratio(s.completed as f64, secs),
            bandwidth_mb_s: ratio((s.bytes_read + s.bytes_written) as f64 / 1e6, secs),
            read_bandwidth_mb_s: ratio(s.bytes_read as f64 / 1e6, secs),
            write_bandwidth_mb_s: ratio(s.bytes_written as f64 / 1e6, secs),
            host_wait_us_mean: ratio(s.host_wait_ps as f64 / 1e6, s.completed as f64),
            device_us_mean: ratio(s.device_ps as f64 / 1e6, s.completed as f64),
            queue_stall_s: s.stall_ps as f64 / 1e12,
            ramp_excluded: s.ramp_excluded,
        }
    }
}

impl FlashReport {
    fn of(s: &Stats, chips: f64, planes_per_die: u32, planes_per_chip: f64, sim_time_ps: Ps) -> FlashReport {
        let commands = s.commands as f64;
        let pages = |k: usize| ratio(s.flp_pages[k] as f64, s.page_ops as f64);
        let plane_busy_ps = (s.phy.busy_plane_capacity_ps - s.phy.idle_plane_ps) as f64;
        FlashReport {
            chip_utilization: ratio(s.busy_chip_ps as f64, chips * sim_time_ps as f64).min(1.0),
            plane_utilization: ratio(plane_busy_ps, chips * planes_per_chip * sim_time_ps as f64).min(1.0),
            plane_utilization_busy: s.phy.array_use.busy_utilization(planes_per_die),
            inter_chip_idleness: ratio(s.idle_while_work_ps as f64, chips * s.work_ps as f64),
            intra_chip_idleness: ratio(s.phy.idle_plane_ps as f64, s.phy.busy_plane_capacity_ps as f64),
            memory_requests: s.page_ops,
            transactions: s.commands,
            transaction_reduction: if s.page_ops == 0 { 0.0 } else { 1.0 - commands / s.page_ops as f64 },
            flp: FlpReport {
                single: ratio(s.flp_commands[FLP_SINGLE] as f64, commands),
                die_interleave: ratio(s.flp_commands[FLP_DIE_INTERLEAVE] as f64, commands),
                multi_plane: ratio(s.flp_commands[FLP_MULTI_PLANE] as f64, commands),
                both: ratio(s.flp_commands[FLP_BOTH] as f64, commands),
            },
            flp_pages: FlpReport {
                single: pages(FLP_SINGLE),
                die_interleave: pages(FLP_DIE_INTERLEAVE),
                multi_plane: pages(FLP_MULTI_PLANE),
                both: pages(FLP_BOTH),
            },
            write_cases: WriteCasesReport {
                user: WriteCaseCounts::of(&s.write_cases.user),
                gc: WriteCaseCounts::of(&s.write_cases.gc),
            },
            multiplane_read_share: {
                let r = &s.read_flp_pages;
                ratio((r[FLP_MULTI_PLANE] + r[FLP_BOTH]) as f64, r.iter().sum::<u64>() as f64)
            },
            suspensions: s.phy.suspensions,
            read_modify_writes: s.rmw_reads,
            readdressed_reads: s.readdressed,
        }
    }
}

impl GcReport {
    fn of(o: &Outcome) -> GcReport {
        let s = &o.stats;
        let chips = o.geo.chips() as f64;
        GcReport {
            invocations: s.gc_invocations,
            pages_moved: s.gc_pages_moved,
            moves_dropped: s.gc_moves_dropped,
            pages_read: s.gc_pages_read,
            lookups: s.gc_lookups,
            erases: s.erases,
            erase_commands: s.erase_commands,
            pad_pages: s.gc_pad_pages,
            buffered_moves: s.gc_buffered_moves,
            waf: if s.user_pages_programmed == 0 {
                0.0
            } else {
                (s.user_pages_programmed + s.gc_pages_programmed) as f64 / s.user_pages_programmed as f64
            },
            effective_spare_factor: o.effective_spare_factor,
            chip_time_fraction: ratio(s.phy.gc_chip_ps as f64, chips * o.sim_time_ps as f64).min(1.0),
            cost_s: s.phy.gc_chip_ps as f64 / 1e12,
            cost_per_invocation_us: ratio(s.phy.gc_chip_ps as f64 / 1e6, s.gc_invocations as f64),
        }
    }
}

impl CacheReport {
    fn of(s: &Stats) -> CacheReport {
        let hits = s.cache_read_hits + s.cache_write_hits;
        let accesses = s.cache_read_hits + s.cache_read_misses + s.cache_writes;
        CacheReport {
            capacity_pages: s.cache_capacity_pages,
            read_hits: s.cache_read_hits,
            read_misses: s.cache_read_misses,
            writes: s.cache_writes,
            write_hits: s.cache_write_hits,
            writebacks: s.cache_writebacks,
            pad_pages: s.cache_pad_pages,
            write_waits: s.cache_waits,
            hit_ratio: ratio(hits as f64, accesses as f64),
        }
    }
}

impl FirmwareReport {
    fn of(o: &Outcome) -> FirmwareReport {
        let (cores, units, core_ps, unit_ps) = o.firmware;
        let t = o.sim_time_ps as f64;
        FirmwareReport {
            cores,
            hardware_units: units,
            core_busy_us: core_ps as f64 / 1e6,
            hardware_busy_us: unit_ps as f64 / 1e6,
            utilization: ratio((core_ps + unit_ps) as f64, (cores + units) as f64 * t).min(1.0),
            queue_wait_us: o.firmware_queue_wait_ps as f64 / 1e6,
        }
    }
}

impl Utilization {
    fn of(o: &Outcome, flash: &FlashReport) -> Utilization {
        let t = o.sim_time_ps as f64;
        let [down, up] = o.link_busy_ps.map(|b| ratio(b as f64, t).min(1.0));
        Utilization {
            host_link: down.max(up),
            host_link_to_device: down,
            host_link_to_host: up,
            nand_bus: ratio(o.bus_busy_ps as f64, o.geo.channels as f64 * t).min(1.0),
            chips: flash.chip_utilization,
            ftl: FirmwareReport::of(o).utilization,
        }
    }
}

impl Report {
    pub fn from_outcome(o: &Outcome) -> Report {
        let s = &o.stats;
        // Rates are over the measured time: after the warm-up, if any.
        let secs = o.sim_time_ps.saturating_sub(s.ramp_ps) as f64 / 1e12;
        let flows = o
            .flow_names
            .iter()
            .zip(&s.flows)
            .enumerate()
            .map(|(i, (name, f))| FlowReport {
                name: name.clone(),
                requests_completed: f.completed,
                iops: ratio(f.completed as f64, secs),
                bandwidth_mb_s: ratio(f.bytes as f64 / 1e6, secs),
                latency_us: LatencySummary::of(&f.latency()),
                host_wait_us_mean: ratio(f.host_wait_ps as f64 / 1e6, f.completed as f64),
                device_us_mean: ratio(f.device_ps as f64 / 1e6, f.completed as f64),
                slowdown: None,
                gc_charged_us: o.gc_charged_us.as_ref().and_then(|g| g.get(i).copied()),
            })
            .collect();
        let g = &o.geo;
        let flash = FlashReport::of(s, g.chips() as f64, g.planes_per_die, g.planes_per_chip() as f64, o.sim_time_ps);
        Report {
            ssdlab_version: env!("CARGO_PKG_VERSION").to_string(),
            ssdlab_source: crate::SOURCE_HASH.to_string(),
            seed: o.seed,
            config: o.config.clone(),
            workload: o.workload.clone(),
            sim: SimReport {
                sim_time_ps: o.sim_time_ps,
                host: HostReport::of(s, secs),
                latency_us: LatencyGroup {
                    all: LatencySummary::with_cdf(&s.all),
                    read: LatencySummary::with_cdf(&s.read),
                    write: LatencySummary::with_cdf(&s.write),
                    trim: (s.trim.count() > 0).then(|| LatencySummary::of(&s.trim)),
                },
                flows,
                utilization: Utilization::of(o, &flash),
                flash,
                gc: GcReport::of(o),
                cache: CacheReport::of(s),
                ftl: FtlReport {
                    logical_pages: o.logical_pages as u64,
                    physical_pages: o.geo.pages() as u64,
                    preconditioned_pages: o.preconditioned_pages,
                    user_pages_programmed: s.user_pages_programmed,
                    gc_pages_programmed: s.gc_pages_programmed,
                    map_pages_programmed: s.map_pages_programmed,
                    map_pages_moved: s.gc_map_pages_moved,
                    unaligned_block_opens: s.unaligned_block_opens,
                    unit_slots_skipped: s.unit_slots_skipped,
                    map_cache: o.map.clone(),
                    partition: o.partition.clone(),
                    firmware: FirmwareReport::of(o),
                },
                time_series: s.samples.clone(),
                fairness: None,
                tsu_decisions: o.tsu_decisions.iter().map(|&(name, n)| (name.to_string(), n)).collect(),
            },
            check: o.check.clone(),
            run: RunReport {
                wall_s: o.wall_s,
                events: o.events,
                events_per_s: ratio(o.events as f64, o.wall_s),
                requests_per_s: ratio(s.completed as f64, o.wall_s),
                peak_rss_bytes: peak_rss_bytes(),
                ftl_state_bytes: o.state_bytes,
            },
            warnings: o.warnings.iter().cloned().chain(no_time_warning(o)).collect(),
        }
    }

    /// The JSON text of the report.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises")
    }

    /// One screen of text.
    pub fn summary(&self) -> String {
        let s = &self.sim;
        let c = &self.config.nand;
        let mut out = String::new();
        let l = &s.latency_us;
        out += &format!(
            "ssdlab {} | {} ch x {} chips x {} dies x {} planes, {} KiB pages | scheduler {} | tsu {} | seed {}\n",
            self.ssdlab_version,
            c.channels,
            c.chips_per_channel,
            c.dies_per_chip,
            c.planes_per_die,
            c.page_bytes / 1024,
            self.config.hil.scheduler,
            self.config.tsu.policy,
            self.seed
        );
        out += &format!(
            "simulated {:.6} s: {} requests, {:.0} IOPS, {:.1} MB/s (read {:.1}, write {:.1}), queue stall {:.6} s\n",
            s.sim_time_ps as f64 / 1e12,
            s.host.requests_completed,
            s.host.iops,
            s.host.bandwidth_mb_s,
            s.host.read_bandwidth_mb_s,
            s.host.write_bandwidth_mb_s,
            s.host.queue_stall_s
        );
        let ramp_ms = self.workload.ramp_ms;
        if ramp_ms > 0.0 {
            let measured_s = (s.sim_time_ps as f64 / 1e12 - ramp_ms / 1e3).max(0.0);
            out += &format!(
                "warm-up: {} requests arriving in the first {ramp_ms} ms simulated but left out of every statistic of requests; rates over the {measured_s:.6} s after it\n",
                s.host.ramp_excluded
            );
        }
        out += "latency (us)      count       mean        p50        p99      p99.9        max\n";
        let trim = l.trim.as_ref().map(|t| ("trim", t));
        for (name, x) in [("all", &l.all), ("read", &l.read), ("write", &l.write)].into_iter().chain(trim) {
            out += &format!(
                "  {:<8} {:>11} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1}\n",
                name, x.count, x.mean, x.p50, x.p99, x.p999, x.max
            );
        }
        if s.flows.len() > 1 {
            out += "flows            requests       IOPS  mean (us)   p99 (us)\n";
            for f in &s.flows {
                out += &format!(
                    "  {:<14} {:>8} {:>10.0} {:>10.1} {:>10.1}",
                    f.name, f.requests_completed, f.iops, f.latency_us.mean, f.latency_us.p99
                );
                if let Some(sd) = f.slowdown {
                    out += &format!("  slowdown {sd:.2}");
                }
                out += "\n";
            }
        }
        if let Some(fr) = &s.fairness {
            out += &format!(
                "fairness {:.3} (unfairness {:.2}), weighted speedup {:.3}, max slowdown {:.2}\n",
                fr.fairness, fr.unfairness, fr.weighted_speedup, fr.max_slowdown
            );
        }
        out += &self.summary_flash();
        let r = &self.run;
        out += &format!(
            "run: {:.2} s wall, {:.0} requests/s, {:.2} M events/s, peak RSS {:.1} MB\n",
            r.wall_s,
            r.requests_per_s,
            r.events_per_s / 1e6,
            r.peak_rss_bytes as f64 / 1e6
        );
        for w in &self.warnings {
            out += &format!("warning: {w}\n");
        }
        out
    }

    /// The summary's flash, FLP and write-case lines, then [`Report::summary_gc`]'s.
    fn summary_flash(&self) -> String {
        let s = &self.sim;
        let mut out = String::new();
        let fl = &s.flash;
        out += &format!(
            "flash: chip utilization {:.1}% (planes {:.1}%, {:.1}% of array time), inter-chip idleness {:.1}%, intra-chip idleness {:.1}%, {} transactions for {} page ops (reduction {:.1}%)\n",
            fl.chip_utilization * 100.0,
            fl.plane_utilization * 100.0,
            fl.plane_utilization_busy * 100.0,
            fl.inter_chip_idleness * 100.0,
            fl.intra_chip_idleness * 100.0,
            fl.transactions,
            fl.memory_requests,
            fl.transaction_reduction * 100.0
        );
        out += &format!(
            "FLP of commands (of pages): single {:.1}% ({:.1}%), die-interleaved {:.1}% ({:.1}%), multi-plane {:.1}% ({:.1}%), both {:.1}% ({:.1}%)\n",
            fl.flp.single * 100.0,
            fl.flp_pages.single * 100.0,
            fl.flp.die_interleave * 100.0,
            fl.flp_pages.die_interleave * 100.0,
            fl.flp.multi_plane * 100.0,
            fl.flp_pages.multi_plane * 100.0,
            fl.flp.both * 100.0,
            fl.flp_pages.both * 100.0
        );
        let wc = &fl.write_cases;
        if wc.user.dies + wc.gc.dies > 0 {
            out += &format!(
                "write cases of die-level programs (single / mixed / unaligned / aligned): user {}, GC {}\n",
                wc.user.summary(),
                wc.gc.summary()
            );
        }
        out += &self.summary_gc();
        out
    }

    /// The summary's GC, cache, map cache, utilization and check lines.
    fn summary_gc(&self) -> String {
        let s = &self.sim;
        let mut out = String::new();
        let g = &s.gc;
        out += &format!(
            "GC: {} invocations, {} pages moved, {} erases ({} commands), WAF {:.3}, effective spare factor {:.4}, cost {:.6} s ({:.1} us per invocation)\n",
            g.invocations, g.pages_moved, g.erases, g.erase_commands, g.waf, g.effective_spare_factor, g.cost_s, g.cost_per_invocation_us
        );
        if self.config.cache.enabled {
            let ca = &s.cache;
            out += &format!(
                "cache: {} read hits, {} read misses, {} writes ({} hits), {} write-backs, hit ratio {:.1}%\n",
                ca.read_hits,
                ca.read_misses,
                ca.writes,
                ca.write_hits,
                ca.writebacks,
                ca.hit_ratio * 100.0
            );
        }
        if let Some(m) = &s.ftl.map_cache {
            out += &format!(
                "map cache: CMT {} hits / {} misses, CTP {} hits / {} misses, {} from RAM; translation pages {} read, {} written ({} flushes); {} merged misses, peak {} reads in flight\n",
                m.cmt_hits, m.cmt_misses, m.ctp_hits, m.ctp_misses, m.buffer_hits, m.tp_reads, m.tp_writes, m.flushes, m.merges, m.peak_outstanding
            );
        }
        if let Some(p) = &s.ftl.partition {
            out += &format!(
                "partition: {} Read channels at the end {:?}, {} relabellings; TRH {:.1}% right over {} predictions; {} spilled writes; migrated {} by GC, {} at idle ({} given up: GC moved the page first)\n",
                p.read_channels_end,
                p.read_channels,
                p.relabels,
                p.trh_accuracy * 100.0,
                p.trh_predicted,
                p.spilled_writes,
                p.migrated_gc,
                p.migrated_idle,
                p.idle_dropped
            );
        }
        if s.ftl.firmware.core_busy_us + s.ftl.firmware.hardware_busy_us > 0.0 || s.ftl.map_cache.is_some() {
            let u = &s.utilization;
            out += &format!(
                "utilization: host link {:.1}%, NAND buses {:.1}%, chips {:.1}%, FTL {:.1}%\n",
                u.host_link * 100.0,
                u.nand_bus * 100.0,
                u.chips * 100.0,
                u.ftl * 100.0
            );
        }
        if let Some(ch) = &self.check {
            out += &format!("check: {} reads verified, {} integrity violations\n", ch.reads_checked, ch.violations);
            if let Some(v) = &ch.first_violation {
                out += &format!("  first: {v}\n");
            }
        }
        out
    }

    pub const CSV_HEADER: &'static str = "scheduler,tsu,requests,iops,bandwidth_mb_s,latency_mean_us,latency_p99_us,read_latency_mean_us,write_latency_mean_us,chip_utilization,inter_chip_idleness,intra_chip_idleness,transaction_reduction,queue_stall_s,waf,gc_invocations,sim_time_s,ramp_excluded";

    /// One CSV row of the main table (columns of `CSV_HEADER`).
    pub fn csv_row(&self) -> String {
        let s = &self.sim;
        format!(
            "{},{},{},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{:.6},{:.6},{:.6},{:.6},{:.9},{:.6},{},{:.9},{}",
            self.config.hil.scheduler,
            self.config.tsu.policy,
            s.host.requests_completed,
            s.host.iops,
            s.host.bandwidth_mb_s,
            s.latency_us.all.mean,
            s.latency_us.all.p99,
            s.latency_us.read.mean,
            s.latency_us.write.mean,
            s.flash.chip_utilization,
            s.flash.inter_chip_idleness,
            s.flash.intra_chip_idleness,
            s.flash.transaction_reduction,
            s.host.queue_stall_s,
            s.gc.waf,
            s.gc.invocations,
            s.sim_time_ps as f64 / 1e12,
            s.host.ramp_excluded
        )
    }
}

/// A run whose requests all completed in no simulated time (only trims, which change the
/// map alone): its rates are 0 for want of time, not of requests.
fn no_time_warning(o: &Outcome) -> Option<String> {
    let s = &o.stats;
    (o.sim_time_ps == 0 && s.completed > 0).then(|| {
        format!(
            "the run took no simulated time: {} of its {} requests were trims, which change only the map and take no simulated time, so IOPS and bandwidth are 0 (see the trim row)",
            s.trim.count(),
            s.completed
        )
    })
}

/// Peak resident set size of this process (Linux `VmHWM`), 0 where unknown.
pub fn peak_rss_bytes() -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return 0 };
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

#[cfg(test)]
mod fairness_tests {
    use super::FairnessReport;

    /// Worked by hand: slowdowns 300/100 = 3 and 100/100 = 1; unfairness 3/1; fairness 1/3;
    /// weighted speedup 100/300 + 100/100 = 4/3; max slowdown 3. A flow with no requests
    /// (mean 0) has no slowdown and is left out.
    #[test]
    fn fairness_metrics_follow_their_definitions() {
        let (r, s) = FairnessReport::from_means(&[300.0, 100.0, 0.0], &[100.0, 100.0, 50.0]);
        assert_eq!(s, vec![Some(3.0), Some(1.0), None]);
        assert_eq!(r.unfairness, 3.0);
        assert!((r.fairness - 1.0 / 3.0).abs() < 1e-15);
        assert!((r.weighted_speedup - 4.0 / 3.0).abs() < 1e-15);
        assert_eq!(r.max_slowdown, 3.0);
    }
}
