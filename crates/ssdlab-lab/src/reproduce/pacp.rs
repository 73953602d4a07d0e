//! `ssdlab reproduce pacp`: the evaluation of PACP (Lim, Shin, Han, Electronics 11(23):4048,
//! 2022, §4; docs/techniques.md §10.7–10.9) on the `pacp` preset (the paper's Table 2).
//!
//! - Schemes ([`SCHEMES`]): the dynamic-allocation baseline, Ideal (no R/W interference),
//!   Lv et al.'s static split, PACP without migration, and PACP.
//! - Channels 8, 16, 32, 48 and 64 [P] (quick: 8 and 32), the same workload at each: the
//!   host's rate does not grow with the drive [I].
//! - Workloads: synthetic stand-ins for the seven MSR traces of Table 3 ([`TABLE3`], built by
//!   [`synthetic`]: a read-only, a mixed and a write-only region whose request shares give
//!   the row's read share with 91.6% of requests on dominant pages, the paper's §3), and the
//!   shipped MSR excerpts ([`TRACES`], full mode only) replayed at their timestamps.
//! - Every run starts on a drive filled with random writes to [`GC_FILL`] of its logical
//!   space [I], so GC and PACP's GC-piggybacked migration run. Blocks per plane are scaled
//!   from the paper's 2048 to [`BLOCKS_PER_PLANE`] so that 64 channels fit in memory [I].
//! - Figure 6: PACP at the figures' channel count (`grid().figure_channels`) channels with 1, 2 and 3 history bits.
//! - The ablation ([`ABLATION`], issue 33 item 1), at the figures' channel count on every
//!   workload: the partition alone (`ftl.partition.placement = "write_channels"`, no
//!   migration), + TRH (PACP without migration), + GC-piggybacked migration, + idle-time
//!   migration (PACP) — beside the baseline and Lv et al.
//! - Every scheme runs on the preset's `[ftl.partition]` less the keys its allocation rejects
//!   ([`Scheme::apply`]), then with its own switches.
//!
//! Writes DIR/results.csv, DIR/*.png and DIR/REPORT.md ([`report`]).

use std::path::Path;

use serde::Deserialize;

mod ablation;
pub mod fit;
mod ledger;
mod report;

use super::columns::{self, Field};
use super::{io_err, plot, run_all, shared_trace, write_report, Job, Options};
use ssdlab::error::Result;
use ssdlab::ftl::alloc::pacp::{ChannelLoad, IdleVictims, PartitionConfig, Placement, Preload};
use ssdlab::ftl::precondition::Pattern;
use ssdlab::ftl::AllocationScheme;
use ssdlab::host::{Address, AddressMode, FlowSpec, PreconditionSpec, Replay};
use ssdlab::nand::config::Ideal;
use ssdlab::nand::Geometry;
use ssdlab::{Config, Report, WorkloadSpec};

const PRESET: &str = include_str!("../../../../presets/pacp.toml");
const PRESET_NAME: &str = "presets/pacp.toml";

/// Occupancy of the random fill before every run [I].
pub const GC_FILL: f64 = 0.9;

/// Blocks per plane: the paper's 2048 scaled down by 8 [I], so a 64-channel drive's map and
/// blocks take about 0.4 GB per run instead of about 3 GB.
pub const BLOCKS_PER_PLANE: u32 = 256;

/// The grid, as data: `experiments/pacp/grid.toml` (channel counts, the figures' drive, the
/// history depths of Figure 6).
const GRID: &str = include_str!("../../../../experiments/pacp/grid.toml");
const GRID_NAME: &str = "experiments/pacp/grid.toml";

/// `experiments/pacp/grid.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    /// The channel counts of Table 2 [P].
    pub channels: Vec<u32>,
    /// `--quick`'s channel counts.
    pub quick_channels: Vec<u32>,
    /// The channel counts of the preload sensitivity (among the run's).
    pub sensitivity_channels: Vec<u32>,
    /// The channel counts of the fresh-drive column (among the run's).
    pub fresh_channels: Vec<u32>,
    /// Figure 7's workload seeds (the first is the main grid's).
    pub seeds: Vec<u64>,
    /// Channels of the single-drive figures (6, 7 and 8).
    pub figure_channels: u32,
    /// Figure 6's history depths beside the main grid's 1 bit.
    pub history_bits: Vec<u8>,
    /// Lv et al.'s split swept at `figure_channels`: Read channels as shares of them.
    pub lv_read_shares: Vec<f64>,
}

/// The grid (read once; the file is compiled in, and a unit test reads it).
pub fn grid() -> &'static Grid {
    static PARSED: std::sync::OnceLock<Grid> = std::sync::OnceLock::new();
    super::grid_from(&PARSED, GRID, GRID_NAME)
}

/// The stand-ins' total arrival rate, at every channel count [I]: the heaviest writer
/// (prn_0) keeps the 8-channel baseline's chips busy about half the time.
pub const RATE_IOPS: f64 = 1200.0;

/// Requests per stand-in run [I]. The random fill leaves each plane the GC threshold's free
/// blocks and its open blocks, so GC starts only once the host has written about two blocks
/// per plane: some 260,000 pages at 64 channels. Two million requests give the write-heavy
/// stand-ins several blocks per plane of GC at every channel count (the read-heavy ones
/// write too little for that), and PACP's split, recomputed every 10,000 requests one
/// channel at a time (`ftl.partition.period`), room to move from half the channels to
/// either end. Quick mode: enough for GC at 32 channels. Not fewer in full mode: runs of
/// 1,000,000, 700,000 and 500,000 requests fell outside their spread over three seeds at
/// 2,000,000 on 9 of 9 runs checked (experiments/pacp/provenance.toml, log of 2026-11-27).
pub const REQUESTS: u64 = 2_000_000;
const QUICK_REQUESTS: u64 = 400_000;

/// Requests per page of a stand-in's region [I]: each region holds its requests / 4 pages,
/// so most requests find a page with a history (a region as large as a third of the drive
/// would give almost none one, and PACP would allocate like the baseline).
pub const REUSE: u64 = 4;

/// Share of requests on mixed pages (the paper's §3: 91.6% of requests fall on pages that
/// are more than 90% read or more than 90% written) [P].
pub const MIXED_SHARE: f64 = 0.084;

/// A row of Table 3: a workload and its share of reads [P].
#[derive(Debug, Clone, Copy)]
pub struct StandIn {
    pub name: &'static str,
    pub read_ratio: f64,
}

/// Table 3 [P], in the paper's order.
pub const TABLE3: [StandIn; 7] = [
    StandIn { name: "hm_1", read_ratio: 0.953 },
    StandIn { name: "src1_2", read_ratio: 0.253 },
    StandIn { name: "hm_0", read_ratio: 0.355 },
    StandIn { name: "proj_3", read_ratio: 0.935 },
    StandIn { name: "prn_0", read_ratio: 0.108 },
    StandIn { name: "wdev_0", read_ratio: 0.201 },
    StandIn { name: "web_0", read_ratio: 0.299 },
];

/// The stand-ins of quick mode: two the paper finds interference-bound and one it does not.
const QUICK_STANDINS: [&str; 3] = ["hm_0", "web_0", "hm_1"];

/// The shipped MSR excerpts (file under the traces folder, name), full mode only.
pub const TRACES: [(&str, &str); 4] = [
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "msr-rw20"),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "msr-rw40"),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "msr-rand"),
    ("msr/hm_0.sample1000.csv", "msr-hm0"),
];

/// A stand-in's request shares over its three regions [I]: a read-only region, a mixed one
/// (half reads) and a write-only one. Mixed requests are [`MIXED_SHARE`]; the rest split so
/// the overall read share is the row's: read = r − mixed / 2, write = (1 − r) − mixed / 2,
/// each at least 0 (then all three scaled to sum to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shares {
    pub read: f64,
    pub mixed: f64,
    pub write: f64,
}

impl Shares {
    pub fn of(read_ratio: f64) -> Shares {
        let half = MIXED_SHARE / 2.0;
        let (read, write) = ((read_ratio - half).max(0.0), (1.0 - read_ratio - half).max(0.0));
        let sum = read + MIXED_SHARE + write;
        Shares { read: read / sum, mixed: MIXED_SHARE / sum, write: write / sum }
    }

    /// The regions: (flow name, share of requests, the flow's read ratio).
    fn regions(&self) -> [(&'static str, f64, f64); 3] {
        [("read", self.read, 1.0), ("mixed", self.mixed, 0.5), ("write", self.write, 0.0)]
    }
}

/// A region's size in a run: its requests and its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub requests: u64,
    pub pages: u64,
}

/// Requests and pages of each region (read, mixed, write) of a run of `requests`: pages =
/// requests / [`REUSE`], at least one page for a region with requests.
pub fn region_sizes(shares: &Shares, requests: u64) -> [Region; 3] {
    shares.regions().map(|(_, share, _)| {
        let n = (requests as f64 * share).round() as u64;
        Region { requests: n, pages: n.div_ceil(REUSE) }
    })
}

/// The stand-in for `s` on the drive `cfg` [I]: three open-loop flows (Poisson arrivals at
/// [`RATE_IOPS`] × their share), 4 KiB requests uniform within their region, the regions
/// side by side from logical address 0 and equal in bytes at every channel count.
///
/// The mixed region's requests repeat their page's last type with probability `rho`
/// (`type_persistence`, the persistence fitted to the shipped MSR excerpts' mixed pages,
/// [`fit`]); the other regions are of one type.
pub fn synthetic(s: &StandIn, cfg: &Config, requests: u64, run: RunOf, rho: f64) -> WorkloadSpec {
    let geo = Geometry::from_config(&cfg.nand);
    let page_bytes = cfg.nand.page_bytes as u64;
    let logical_bytes = ssdlab::ftl::logical_pages(&geo, cfg.ftl.overprovisioning_ratio) as f64 * page_bytes as f64;
    let shares = Shares::of(s.read_ratio);
    let mut start_bytes = 0;
    let mut flows = Vec::new();
    for ((name, share, read_ratio), region) in shares.regions().into_iter().zip(region_sizes(&shares, requests)) {
        let Region { requests: n, pages } = region;
        if n == 0 {
            continue;
        }
        let bytes = pages * page_bytes;
        flows.push(FlowSpec {
            name: format!("{}-{name}", s.name),
            read_ratio,
            address: Address::Uniform,
            request_bytes: page_bytes,
            align_bytes: page_bytes,
            // Half a sector over, so rounding the span down still leaves every page a slot.
            footprint: (bytes as f64 + cfg.nand.sector_bytes as f64 / 2.0) / logical_bytes,
            start_bytes,
            rate_iops: RATE_IOPS * share,
            requests: n,
            type_persistence: if name == "mixed" { rho } else { 0.0 },
            ..FlowSpec::default()
        });
        start_bytes += bytes;
    }
    let precondition = match run.drive {
        Drive::Aged => fill(),
        Drive::Fresh => read_regions(&shares, requests, logical_bytes / page_bytes as f64),
    };
    WorkloadSpec {
        source: format!("stand-in {}", s.name),
        seed: run.seed,
        precondition: Some(precondition),
        ramp_ms: 0.0,
        flows,
    }
}

fn fill() -> PreconditionSpec {
    PreconditionSpec { occupancy: GC_FILL, pattern: Pattern::Random }
}

/// The fresh drive's preconditioning [C SSDsim: `pre_process_page` writes every page the
/// trace reads, in rotation over every channel, on a drive with nothing else (`aged = 0`)]:
/// the read-only and mixed regions (the stand-in's pages that are read, from address 0),
/// written in order and spread over every channel as dynamic allocation places them.
fn read_regions(shares: &Shares, requests: u64, logical_pages: f64) -> PreconditionSpec {
    let [read, mixed, _] = region_sizes(shares, requests);
    PreconditionSpec { occupancy: (read.pages + mixed.pages) as f64 / logical_pages, pattern: Pattern::Sequential }
}

/// The drive a run starts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drive {
    /// The main rows: filled by random writes to [`GC_FILL`] of its logical space [I].
    Aged,
    /// SSDsim's default: only the pages the workload reads written, nothing else
    /// ([`read_regions`]).
    Fresh,
}

impl Drive {
    pub fn name(self) -> &'static str {
        match self {
            Drive::Aged => "aged",
            Drive::Fresh => "fresh",
        }
    }
}

/// Which instance of a workload a run is: its drive and its seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOf {
    pub drive: Drive,
    pub seed: u64,
}

/// The main rows' instance: the aged drive, seed 1.
pub const MAIN: RunOf = RunOf { drive: Drive::Aged, seed: 1 };

/// An MSR excerpt replayed at its timestamps, addresses past the drive wrapped [I].
fn trace_workload(path: &Path) -> WorkloadSpec {
    let mut wl = WorkloadSpec::single_trace(path, Replay::Timestamps);
    wl.flows[0].address_mode = AddressMode::Wrap;
    wl.precondition = Some(fill());
    wl
}

/// The schemes of Figures 7–10 [P: §4.2, §4.3].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Dynamic allocation over every channel (Tavakkol et al. 2016), the paper's baseline.
    Baseline,
    /// The baseline with reads never waiting for a program or erase (`nand.ideal`).
    Ideal,
    /// Lv et al.: a static split sized from the workload, every write to Write channels.
    Lv,
    /// Sensitivity: Lv et al. with a given number of Read channels (`ftl.partition.n_read`;
    /// the row's `n_read`) instead of the sizing rule.
    LvSplit,
    /// PACP with GC-piggybacked migration off (the ablation's "+ TRH" row).
    PacpNoMig,
    Pacp,
    /// Ablation (issue 33): PACP's adaptive split with every host write placed as if
    /// predicted write (`ftl.partition.placement = "write_channels"`), no migration — the
    /// partition alone.
    PacpPartition,
    /// Ablation: PACP without migration plus GC-piggybacked migration only (idle-time
    /// migration off).
    PacpGcMig,
    /// Sensitivity: Lv et al. and the two PACP rows with the pages the workload reads before
    /// writing them preconditioned onto the Read channels (`ftl.partition.preload =
    /// "read_channels"`): the preload given to every scheme with Read channels.
    LvPreload,
    PacpNoMigPreload,
    PacpPreload,
}

pub const SCHEMES: [Scheme; 5] = [Scheme::Baseline, Scheme::Ideal, Scheme::Lv, Scheme::PacpNoMig, Scheme::Pacp];

/// The sensitivity rows beside the main grid: every scheme with Read channels, preloaded
/// (the baseline and Ideal have none, so the preload changes nothing for them).
pub const PRELOAD_SCHEMES: [Scheme; 3] = [Scheme::LvPreload, Scheme::PacpNoMigPreload, Scheme::PacpPreload];

/// Figure 7's schemes, run over `grid().seeds` at the figures' drive.
pub const FIG7_SCHEMES: [Scheme; 4] = [Scheme::Baseline, Scheme::Ideal, Scheme::PacpNoMig, Scheme::Pacp];

/// The ablation's steps in order, each adding one mechanism to the one before (issue 33
/// item 1): the partition alone, + TRH, + GC-piggybacked migration, + idle-time migration
/// (= PACP). The first and third are the ablation's own runs ([`ABLATION_RUNS`]).
pub const ABLATION: [Scheme; 4] = [Scheme::PacpPartition, Scheme::PacpNoMig, Scheme::PacpGcMig, Scheme::Pacp];

/// The ablation's runs beside the main grid's, at the figures' channel count.
pub const ABLATION_RUNS: [Scheme; 2] = [Scheme::PacpPartition, Scheme::PacpGcMig];

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Baseline => "baseline",
            Scheme::Ideal => "ideal",
            Scheme::Lv => "lv",
            Scheme::LvSplit => "lv-split",
            Scheme::LvPreload => "lv-preload",
            Scheme::PacpNoMig => "pacp-nomig",
            Scheme::Pacp => "pacp",
            Scheme::PacpNoMigPreload => "pacp-nomig-preload",
            Scheme::PacpPreload => "pacp-preload",
            Scheme::PacpPartition => "pacp-partition",
            Scheme::PacpGcMig => "pacp-gcmig",
        }
    }

    fn allocation(self) -> AllocationScheme {
        match self {
            // The paper's baseline (TOMPECS'16 as PACP describes it): rotation skipping busy
            // resources, i.e. PACP's own allocator without a partition.
            Scheme::Baseline | Scheme::Ideal => AllocationScheme::DynamicRr,
            Scheme::Lv | Scheme::LvSplit | Scheme::LvPreload => AllocationScheme::LvPartition,
            _ => AllocationScheme::Pacp,
        }
    }

    /// The migrations a PACP scheme runs: (GC-piggybacked, idle-time).
    fn migrations(self) -> (bool, bool) {
        match self {
            Scheme::Pacp | Scheme::PacpPreload => (true, true),
            Scheme::PacpGcMig => (true, false),
            _ => (false, false),
        }
    }

    /// The preset's `[ftl.partition]` as this scheme's allocation takes it: whole for PACP
    /// but Lv et al.'s own keys, whole for Lv et al. but PACP's own keys (so the preset's
    /// `trh_bits`, `period`, `idle_*` and the like reach the runs), none for dynamic
    /// allocation, which takes no partition.
    fn partition_keys(self, preset: &PartitionConfig) -> PartitionConfig {
        let d = PartitionConfig::default();
        match self.allocation() {
            AllocationScheme::Pacp => {
                PartitionConfig { lv_window: d.lv_window, lv_region_bytes: d.lv_region_bytes, ..preset.clone() }
            }
            AllocationScheme::LvPartition => PartitionConfig {
                idle_migration: None,
                idle_victims: IdleVictims::default(),
                idle_search_blocks: d.idle_search_blocks,
                placement: Placement::default(),
                ..preset.clone()
            },
            _ => d,
        }
    }

    /// The keys that make the preset (PACP) this scheme, with `trh_bits` history bits for
    /// the PACP schemes and `n_read` Read channels for [`Scheme::LvSplit`].
    fn apply(self, cfg: &mut Config, trh_bits: u8, n_read: u32) {
        cfg.nand.ideal = if self == Scheme::Ideal { Ideal::NoRwInterference } else { Ideal::None };
        cfg.ftl.allocation = self.allocation();
        cfg.ftl.partition = self.partition_keys(&cfg.ftl.partition);
        if self.has_history() {
            let (gc, idle) = self.migrations();
            let p = &mut cfg.ftl.partition;
            (p.gc_migration, p.idle_migration) = (Some(gc), Some(idle));
            p.placement = if self == Scheme::PacpPartition { Placement::WriteChannels } else { Placement::Trh };
            p.trh_bits = trh_bits;
        }
        if self == Scheme::LvSplit {
            cfg.ftl.partition.n_read = n_read;
        }
        if self.preloaded() {
            cfg.ftl.partition.preload = Preload::ReadChannels;
        }
    }

    /// The scheme as the report's figures name it.
    pub fn label(self) -> &'static str {
        match self {
            Scheme::Baseline => "baseline (dynamic allocation)",
            Scheme::Ideal => "Ideal (no R/W interference)",
            Scheme::Lv => "Lv et al.",
            Scheme::LvSplit => "Lv et al., fixed split",
            Scheme::LvPreload => "Lv et al., preloaded",
            Scheme::PacpNoMig => "PACP without migration",
            Scheme::Pacp => "PACP",
            Scheme::PacpNoMigPreload => "PACP without migration, preloaded",
            Scheme::PacpPreload => "PACP, preloaded",
            Scheme::PacpPartition => "partition alone",
            Scheme::PacpGcMig => "PACP, GC-piggybacked migration only",
        }
    }

    /// Whether the scheme preloads the pages read first onto its Read channels.
    pub fn preloaded(self) -> bool {
        PRELOAD_SCHEMES.contains(&self)
    }

    /// Whether the scheme keeps a transaction history (the PACP ones).
    pub fn has_history(self) -> bool {
        self.allocation() == AllocationScheme::Pacp
    }
}

/// The main rows' history bits: the preset's `ftl.partition.trh_bits` (Figure 6 adds the
/// other depths of `grid().history_bits`).
pub fn main_trh_bits() -> u8 {
    static BITS: std::sync::OnceLock<u8> = std::sync::OnceLock::new();
    *BITS.get_or_init(|| preset().expect("the compiled-in preset").ftl.partition.trh_bits)
}

/// The preset, as shipped.
pub fn preset() -> Result<Config> {
    Config::from_toml_str(PRESET, PRESET_NAME, &[])
}

/// The drive of every run: the preset with scaled blocks at `channels` channels.
fn drive(base: &Config, channels: u32) -> Config {
    let mut cfg = base.clone();
    cfg.nand.blocks_per_plane = BLOCKS_PER_PLANE;
    cfg.nand.channels = channels;
    cfg
}

/// What a job is, for its row.
#[derive(Debug, Clone, Copy)]
struct Meta {
    workload: &'static str,
    synthetic: bool,
    scheme: Scheme,
    channels: u32,
    trh_bits: u8,
    /// Read channels of a [`Scheme::LvSplit`] run (0 for the others).
    n_read: u32,
    run: RunOf,
}

impl Meta {
    fn new(workload: &'static str, synthetic: bool, scheme: Scheme, channels: u32) -> Meta {
        let trh_bits = if scheme.has_history() { main_trh_bits() } else { 0 };
        Meta { workload, synthetic, scheme, channels, trh_bits, n_read: 0, run: MAIN }
    }

    /// The [`OWN`] columns.
    fn csv(&self) -> String {
        let m = self;
        let source = if m.synthetic { "stand-in" } else { "msr" };
        let (drive, seed) = (m.run.drive.name(), m.run.seed);
        format!("{},{source},{},{},{},{},{drive},{seed}", m.workload, m.scheme.name(), m.channels, m.trh_bits, m.n_read)
    }
}

/// Lv's Read channels for a share of `channels`: rounded, at least one, at most all but one
/// (§6.3's clamp).
pub fn lv_split(share: f64, channels: u32) -> u32 {
    ((share * channels as f64).round() as u32).clamp(1, channels - 1)
}

#[derive(Default)]
struct Plan {
    jobs: Vec<Job>,
    metas: Vec<Meta>,
}

impl Plan {
    fn push(&mut self, base: &Config, meta: Meta, workload: impl Fn(&Config) -> WorkloadSpec) -> Result<()> {
        let mut cfg = drive(base, meta.channels);
        meta.scheme.apply(&mut cfg, meta.trh_bits.max(1), meta.n_read);
        cfg.validate(PRESET_NAME)?;
        let workload = workload(&cfg);
        self.jobs.push(Job { config: cfg, workload });
        self.metas.push(meta);
        Ok(())
    }
}

/// The stand-ins a run covers.
pub fn standins(quick: bool) -> Vec<StandIn> {
    TABLE3.iter().copied().filter(|s| !quick || QUICK_STANDINS.contains(&s.name)).collect()
}

/// Requests per stand-in run.
pub fn requests(quick: bool) -> u64 {
    if quick {
        QUICK_REQUESTS
    } else {
        REQUESTS
    }
}

/// The schemes of the channel grid at `channels`: the main ones, and the preload
/// sensitivity at its channel counts (`grid().sensitivity_channels`).
fn schemes_at(channels: u32) -> Vec<Scheme> {
    let preload = grid().sensitivity_channels.contains(&channels);
    SCHEMES.into_iter().chain(PRELOAD_SCHEMES.into_iter().filter(|_| preload)).collect()
}

/// The mixed pages' persistence the stand-ins use: the fit's over the pages with at least
/// [`fit::LONG_MIXED`] accesses, pooled over the excerpts; 0 (independent draws) without a fit.
pub fn persistence(fits: Option<&fit::Fits>) -> f64 {
    fits.map_or(0.0, |f| f.pooled.long_mixed.rho)
}

/// The share of a mixed page's accesses (half reads) a 1-bit history predicts right when
/// each repeats the page's last type with probability `rho`: ρ + (1 − ρ) / 2.
pub fn mixed_right(rho: f64) -> f64 {
    rho + (1.0 - rho) / 2.0
}

/// The page-history fit to the shipped MSR excerpts, None when `--traces` does not hold them
/// (quick mode runs without them).
fn page_fit(opts: &Options, page_bytes: u64) -> Result<Option<fit::Fits>> {
    let paths: Vec<(std::path::PathBuf, &str)> =
        match TRACES.iter().map(|&(f, n)| Ok((shared_trace(opts, f)?, n))).collect::<Result<_>>() {
            Ok(p) => p,
            Err(_) if opts.quick => return Ok(None),
            Err(e) => return Err(e),
        };
    let named: Vec<(&Path, &str)> = paths.iter().map(|(p, n)| (p.as_path(), *n)).collect();
    fit::fit(&named, page_bytes).map(Some)
}

fn plan(opts: &Options, base: &Config, rho: f64) -> Result<Plan> {
    let mut plan = Plan::default();
    let g = grid();
    let channels: &[u32] = if opts.quick { &g.quick_channels } else { &g.channels };
    let n = requests(opts.quick);
    for s in standins(opts.quick) {
        for &ch in channels {
            for scheme in schemes_at(ch) {
                plan.push(base, Meta::new(s.name, true, scheme, ch), |cfg| synthetic(&s, cfg, n, MAIN, rho))?;
            }
        }
    }
    // Figure 7 over the other seeds, and the fresh drive.
    for s in standins(opts.quick) {
        for &seed in g.seeds.iter().filter(|&&x| x != MAIN.seed) {
            for scheme in FIG7_SCHEMES {
                let run = RunOf { seed, ..MAIN };
                let meta = Meta { run, ..Meta::new(s.name, true, scheme, g.figure_channels) };
                plan.push(base, meta, |cfg| synthetic(&s, cfg, n, run, rho))?;
            }
        }
        for &ch in g.fresh_channels.iter().filter(|c| channels.contains(c)) {
            for scheme in SCHEMES {
                let run = RunOf { drive: Drive::Fresh, ..MAIN };
                plan.push(base, Meta { run, ..Meta::new(s.name, true, scheme, ch) }, |cfg| {
                    synthetic(&s, cfg, n, run, rho)
                })?;
            }
        }
    }
    // The ablation's own steps, at the figures' channel count.
    for s in standins(opts.quick) {
        for scheme in ABLATION_RUNS {
            plan.push(base, Meta::new(s.name, true, scheme, g.figure_channels), |cfg| {
                synthetic(&s, cfg, n, MAIN, rho)
            })?;
        }
    }
    // Figure 6: the other history depths (the main grid's PACP run has the preset's).
    for s in standins(opts.quick) {
        for &trh_bits in g.history_bits.iter().filter(|&&b| b != main_trh_bits()) {
            let meta = Meta { trh_bits, ..Meta::new(s.name, true, Scheme::Pacp, g.figure_channels) };
            plan.push(base, meta, |cfg| synthetic(&s, cfg, n, MAIN, rho))?;
        }
    }
    // Lv's split swept (its sizing rule is the main row's).
    for s in standins(opts.quick) {
        for &share in &g.lv_read_shares {
            let n_read = lv_split(share, g.figure_channels);
            let meta = Meta { n_read, ..Meta::new(s.name, true, Scheme::LvSplit, g.figure_channels) };
            plan.push(base, meta, |cfg| synthetic(&s, cfg, n, MAIN, rho))?;
        }
    }
    let traces: &[(&str, &'static str)] = if opts.quick { &[] } else { &TRACES };
    for &(file, name) in traces {
        let path = shared_trace(opts, file)?;
        for &ch in channels {
            for scheme in schemes_at(ch) {
                plan.push(base, Meta::new(name, false, scheme, ch), |_| trace_workload(&path))?;
            }
        }
        for scheme in ABLATION_RUNS {
            plan.push(base, Meta::new(name, false, scheme, g.figure_channels), |_| trace_workload(&path))?;
        }
    }
    Ok(plan)
}

/// One run's row of results.csv.
#[derive(Debug, Clone)]
pub struct Row {
    /// Its line of results.csv.
    pub csv: String,
    pub workload: &'static str,
    /// A synthetic stand-in (else an MSR excerpt).
    pub synthetic: bool,
    pub scheme: Scheme,
    pub channels: u32,
    /// History bits (0 for the schemes without a history).
    pub trh_bits: u8,
    /// Read channels of a [`Scheme::LvSplit`] run (0 for the others).
    pub n_read: u32,
    /// The drive it started on and its seed.
    pub run: RunOf,
    pub read_us: f64,
    pub write_us: f64,
    pub gc_invocations: u64,
    pub user_programs: u64,
    pub gc_programs: u64,
    /// GC moves programmed on a Read channel (PACP's GC-piggybacked migration).
    pub migrated_gc: u64,
    /// Pages moved to a Read channel while the host was idle (extra programs).
    pub migrated_idle: u64,
    /// Host page accesses predicted from a history (PACP), and the share predicted right.
    pub trh_predicted: u64,
    pub trh_accuracy: Option<f64>,
    /// Read channels at the end (partitioned schemes).
    pub read_channels_end: Option<u32>,
    pub relabels: u64,
    pub requests: u64,
    /// Chips' busy share of the run (a command running).
    pub chip_util: f64,
    /// Host writes Algorithm 1 spilled to the other type's channels.
    pub spilled_writes: u64,
    /// Shares of the host's page reads and writes served on a channel labelled Read at the
    /// time (partitioned schemes).
    pub reads_on_read: Option<f64>,
    pub writes_on_read: Option<f64>,
    /// Host page writes whose page had no history, and whose history predicted read (PACP:
    /// what Algorithm 1 sends to any channel and to the Read channels), whatever placed them.
    pub writes_no_history: u64,
    pub writes_predicted_read: u64,
    /// Host page writes the partition placed (partitioned schemes; 0 for the others).
    pub host_page_writes: u64,
}

/// What a run is: the first columns of results.csv ([`Meta::csv`]).
const OWN: [&str; 8] = ["workload", "source", "scheme", "channels", "trh_bits", "n_read", "drive", "seed"];

/// results.csv's columns after [`OWN`], read from each run's report: adding a counter to
/// the table is one line here. A drive without a partition leaves its columns 0 or empty.
const FIELDS: &[Field] = &[
    Field::fixed("read_us", "sim.latency_us.read.mean", 3),
    Field::fixed("write_us", "sim.latency_us.write.mean", 3),
    Field::int("gc_invocations", "sim.gc.invocations"),
    Field::int("user_programs", "sim.ftl.user_pages_programmed"),
    Field::int("gc_programs", "sim.ftl.gc_pages_programmed"),
    Field::int_or_zero("migrated_gc", "sim.ftl.partition.migrated_gc"),
    Field::derived("migration_share", migration_share, 6),
    Field::int_or_zero("trh_predicted", "sim.ftl.partition.trh_predicted"),
    Field::text("trh_accuracy", |r| {
        let history = r.config.ftl.allocation == AllocationScheme::Pacp;
        r.sim.ftl.partition.as_ref().filter(|_| history).map(|p| format!("{:.5}", p.trh_accuracy)).unwrap_or_default()
    }),
    Field::text("read_channels_end", |r| {
        r.sim.ftl.partition.as_ref().map(|p| p.read_channels_end.to_string()).unwrap_or_default()
    }),
    Field::int_or_zero("relabels", "sim.ftl.partition.relabels"),
    Field::int("requests", "sim.host.requests_completed"),
    Field::fixed("chip_util", "sim.utilization.chips", 4),
    Field::int_or_zero("migrated_idle", "sim.ftl.partition.migrated_idle"),
    Field::int_or_zero("spilled_writes", "sim.ftl.partition.spilled_writes"),
    Field::text("reads_on_read_channels", |r| {
        let on_read = |p: &ssdlab::ftl::PartitionReport| share(&p.channels, |l| (l.host_reads_as_read, l.host_reads));
        r.sim.ftl.partition.as_ref().map(|p| format!("{:.4}", on_read(p))).unwrap_or_default()
    }),
    Field::text("writes_on_read_channels", |r| {
        let on_read = |p: &ssdlab::ftl::PartitionReport| share(&p.channels, |l| (l.host_writes_as_read, l.host_writes));
        r.sim.ftl.partition.as_ref().map(|p| format!("{:.4}", on_read(p))).unwrap_or_default()
    }),
    Field::int_or_zero("writes_no_history", "sim.ftl.partition.writes_by_prediction.none"),
    Field::int_or_zero("writes_predicted_read", "sim.ftl.partition.writes_by_prediction.read"),
];

/// Migrations (both kinds) over every page programmed: host, GC (a piggybacked migration is
/// a GC program) and idle-time migration programs.
fn migration_share(r: &Report) -> f64 {
    let s = &r.sim;
    let (gc, idle) = s.ftl.partition.as_ref().map_or((0, 0), |p| (p.migrated_gc, p.migrated_idle));
    let all = s.ftl.user_pages_programmed + s.ftl.gc_pages_programmed + idle;
    if all == 0 {
        0.0
    } else {
        (gc + idle) as f64 / all as f64
    }
}

impl Row {
    /// Migrations (both kinds) over every page programmed: host, GC (a piggybacked migration
    /// is a GC program) and idle-time migration programs.
    pub fn migration_share(&self) -> f64 {
        let all = self.user_programs + self.gc_programs + self.migrated_idle;
        if all == 0 {
            0.0
        } else {
            (self.migrated_gc + self.migrated_idle) as f64 / all as f64
        }
    }
}

fn row(meta: &Meta, r: &Report) -> Result<Row> {
    let s = &r.sim;
    let part = s.ftl.partition.as_ref();
    Ok(Row {
        csv: columns::line(&meta.csv(), r, FIELDS)?,
        workload: meta.workload,
        synthetic: meta.synthetic,
        scheme: meta.scheme,
        channels: meta.channels,
        trh_bits: meta.trh_bits,
        n_read: meta.n_read,
        run: meta.run,
        read_us: s.latency_us.read.mean,
        write_us: s.latency_us.write.mean,
        gc_invocations: s.gc.invocations,
        user_programs: s.ftl.user_pages_programmed,
        gc_programs: s.ftl.gc_pages_programmed,
        migrated_gc: part.map_or(0, |p| p.migrated_gc),
        migrated_idle: part.map_or(0, |p| p.migrated_idle),
        trh_predicted: part.map_or(0, |p| p.trh_predicted),
        trh_accuracy: part.filter(|_| meta.scheme.has_history()).map(|p| p.trh_accuracy),
        read_channels_end: part.map(|p| p.read_channels_end),
        relabels: part.map_or(0, |p| p.relabels),
        requests: s.host.requests_completed,
        chip_util: s.utilization.chips,
        spilled_writes: part.map_or(0, |p| p.spilled_writes),
        reads_on_read: part.map(|p| share(&p.channels, |l| (l.host_reads_as_read, l.host_reads))),
        writes_on_read: part.map(|p| share(&p.channels, |l| (l.host_writes_as_read, l.host_writes))),
        writes_no_history: part.map_or(0, |p| p.writes_by_prediction.none),
        writes_predicted_read: part.map_or(0, |p| p.writes_by_prediction.read),
        host_page_writes: part.map_or(0, |p| p.channels.iter().map(|c| c.host_writes).sum()),
    })
}

/// Σ part / Σ whole over the channels (0 when nothing was counted).
fn share(channels: &[ChannelLoad], f: impl Fn(&ChannelLoad) -> (u64, u64)) -> f64 {
    let (part, whole) = channels.iter().map(f).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// The paper's headline numbers beside this run's (REPORT.md's claims table).
pub fn check_table(rows: &[Row]) -> String {
    report::claims_section(rows)
}

/// Run the reproduction; returns the rows (also written to DIR/results.csv).
pub fn reproduce(opts: &Options) -> Result<Vec<Row>> {
    let wall = std::time::Instant::now();
    std::fs::create_dir_all(&opts.out).map_err(|e| io_err(&opts.out, e))?;
    let base = preset()?;
    let fits = page_fit(opts, base.nand.page_bytes as u64)?;
    let plan = plan(opts, &base, persistence(fits.as_ref()))?;
    eprintln!("  reproduce pacp: {} runs ...", plan.jobs.len());
    let reports = run_all("reproduce pacp", plan.jobs, opts)?;
    let rows = plan.metas.iter().zip(&reports).map(|(m, r)| row(m, r)).collect::<Result<Vec<Row>>>()?;
    columns::write_table(&opts.out, &OWN, FIELDS, rows.iter().map(|r| r.csv.as_str()))?;
    let figures = figures(&opts.out, &rows);
    let md = report::report_md(opts, &rows, &figures, wall.elapsed().as_secs_f64(), &base, fits.as_ref());
    write_report(&opts.out, md)?;
    super::claims::write(&opts.out, &ledger::claims(&rows, persistence(fits.as_ref())))?;
    Ok(rows)
}

/// The main-grid row of `scheme` on `workload` at `channels` (the preset's history bits for
/// PACP, the aged drive, seed 1).
pub fn pick<'a>(rows: &'a [Row], workload: &str, scheme: Scheme, channels: u32) -> Option<&'a Row> {
    pick_run(rows, workload, scheme, channels, MAIN)
}

/// The row of `scheme` on `workload` at `channels` of the instance `run` (the preset's
/// history bits for PACP).
pub fn pick_run<'a>(rows: &'a [Row], workload: &str, scheme: Scheme, channels: u32, run: RunOf) -> Option<&'a Row> {
    let bits = if scheme.has_history() { main_trh_bits() } else { 0 };
    rows.iter().find(|r| {
        r.workload == workload && r.scheme == scheme && r.channels == channels && r.trh_bits == bits && r.run == run
    })
}

/// Lv's row on `workload` at the figures' channel count with `n_read` Read channels.
pub fn pick_lv_split<'a>(rows: &'a [Row], workload: &str, n_read: u32) -> Option<&'a Row> {
    let fig_channels = grid().figure_channels;
    rows.iter().find(|r| {
        r.workload == workload && r.scheme == Scheme::LvSplit && r.channels == fig_channels && r.n_read == n_read
    })
}

/// PACP's row on `workload` at the figures' channel count (`grid().figure_channels`) with `bits` history bits.
pub fn pick_bits<'a>(rows: &'a [Row], workload: &str, bits: u8) -> Option<&'a Row> {
    let fig_channels = grid().figure_channels;
    rows.iter().find(|r| {
        r.workload == workload
            && r.scheme == Scheme::Pacp
            && r.channels == fig_channels
            && r.trh_bits == bits
            && r.run == MAIN
    })
}

/// The workloads a run covered (`synthetic`: the stand-ins, else the excerpts), in order.
pub fn workloads_in(rows: &[Row], synthetic: bool) -> Vec<&'static str> {
    let all = TABLE3.iter().map(|s| s.name).chain(TRACES.iter().map(|t| t.1));
    all.filter(|w| rows.iter().any(|r| r.workload == *w && r.synthetic == synthetic)).collect()
}

/// The channel counts a run covered, ascending.
pub fn channels_in(rows: &[Row]) -> Vec<u32> {
    grid().channels.iter().copied().filter(|c| rows.iter().any(|r| r.channels == *c)).collect()
}

/// `f` of `scheme` over `f` of the baseline, same workload and channels.
pub fn vs_baseline(rows: &[Row], workload: &str, scheme: Scheme, channels: u32, f: fn(&Row) -> f64) -> Option<f64> {
    let b = f(pick(rows, workload, Scheme::Baseline, channels)?);
    let x = f(pick(rows, workload, scheme, channels)?);
    (b > 0.0).then(|| x / b)
}

/// Figure 7's ratio on one workload at the figures' drive: `a`'s read latency over `b`'s
/// under each of `grid().seeds` (seeds missing from the run are skipped), their mean, and its
/// 95% t interval over the seeds (none with one seed).
pub fn fig7_ratio(rows: &[Row], workload: &str, a: Scheme, b: Scheme) -> Option<Seeded> {
    let ch = grid().figure_channels;
    let ratios: Vec<f64> = grid()
        .seeds
        .iter()
        .filter_map(|&seed| {
            let run = RunOf { seed, ..MAIN };
            let (x, y) = (pick_run(rows, workload, a, ch, run)?, pick_run(rows, workload, b, ch, run)?);
            (y.read_us > 0.0).then(|| x.read_us / y.read_us)
        })
        .collect();
    let (mean, interval) = super::claims::mean_interval(&ratios)?;
    Some(Seeded { mean, interval, seeds: ratios.len() })
}

/// A ratio's mean over seeds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seeded {
    pub mean: f64,
    /// The 95% t interval (none with one seed).
    pub interval: Option<(f64, f64)>,
    pub seeds: usize,
}

/// Mean of `f` over the `synthetic` workloads (stand-ins or excerpts) of `scheme` at
/// `channels`: the paper's Figure 10 averages latency over its traces.
pub fn mean_over(rows: &[Row], synthetic: bool, scheme: Scheme, channels: u32, f: fn(&Row) -> f64) -> Option<f64> {
    let v: Vec<f64> =
        workloads_in(rows, synthetic).iter().filter_map(|w| pick(rows, w, scheme, channels)).map(f).collect();
    (!v.is_empty()).then(|| super::mean(&v))
}

/// A figure written: (file, caption).
type Figure = (String, String);

/// Every figure; those that fail to draw are left out of the report's list.
fn figures(out: &Path, rows: &[Row]) -> Vec<Figure> {
    let mut done = Vec::new();
    fig6(out, rows, &mut done);
    fig7_8(out, rows, &mut done);
    fig9_10(out, rows, &mut done);
    done
}

/// Figure 6: TRH accuracy per stand-in for 1, 2 and 3 history bits, PACP at the figures'
/// drive.
fn fig6(out: &Path, rows: &[Row], done: &mut Vec<Figure>) {
    let cats: Vec<String> = workloads_in(rows, true).iter().map(|w| w.to_string()).collect();
    let series: Vec<(String, Vec<f64>)> = (1..=3u8)
        .map(|b| {
            let v = cats.iter().map(|w| pick_bits(rows, w, b).and_then(|r| r.trh_accuracy).unwrap_or(0.0) * 100.0);
            (format!("{b}-bit history"), v.collect())
        })
        .collect();
    let caption = format!("Fig. 6: TRH prediction accuracy (PACP, {} channels)", grid().figure_channels);
    let axes = plot::Axes { title: &caption, x: "stand-in for the MSR trace", y: "accuracy, %" };
    let file = "fig6_trh_accuracy.png";
    if plot::bar_chart(&out.join(file), axes, &cats, &series, None).is_ok() {
        done.push((file.into(), caption));
    }
}

/// Figure 7 (read latency over the baseline's per workload at the figures' drive, mean over
/// the seeds with its 95% interval) and Figure 8 (PACP's migrations over all programs).
fn fig7_8(out: &Path, rows: &[Row], done: &mut Vec<Figure>) {
    let ch = grid().figure_channels;
    let cats: Vec<String> =
        workloads_in(rows, true).into_iter().chain(workloads_in(rows, false)).map(String::from).collect();
    let schemes = [Scheme::Ideal, Scheme::PacpNoMig, Scheme::Pacp];
    let ratios: Vec<Vec<Option<Seeded>>> =
        schemes.iter().map(|&s| cats.iter().map(|w| fig7_ratio(rows, w, s, Scheme::Baseline)).collect()).collect();
    let series: Vec<(String, Vec<f64>)> = schemes
        .iter()
        .zip(&ratios)
        .map(|(s, v)| (s.label().to_string(), v.iter().map(|r| r.map_or(0.0, |r| r.mean)).collect()))
        .collect();
    let errors: Vec<Vec<Option<(f64, f64)>>> =
        ratios.iter().map(|v| v.iter().map(|r| r.and_then(|r| r.interval)).collect()).collect();
    let caption = format!("Fig. 7: read latency against the baseline's ({ch} channels; 95% interval over seeds)");
    let axes = plot::Axes { title: &caption, x: "workload", y: "read latency, × baseline" };
    let file = "fig7_read_vs_baseline.png";
    if plot::bar_chart(&out.join(file), axes, &cats, &series, Some(&errors)).is_ok() {
        done.push((file.into(), caption));
    }
    let share = cats.iter().map(|w| pick(rows, w, Scheme::Pacp, ch).map_or(0.0, |r| r.migration_share() * 100.0));
    let series = vec![(Scheme::Pacp.label().to_string(), share.collect())];
    let caption = format!("Fig. 8: migration programs over all programs (PACP, {ch} channels)");
    let axes = plot::Axes { title: &caption, x: "workload", y: "% of programs" };
    let file = "fig8_migration_share.png";
    if plot::bar_chart(&out.join(file), axes, &cats, &series, None).is_ok() {
        done.push((file.into(), caption));
    }
}

/// Figure 9 (read latency against channels for web_0 and hm_1) and Figure 10 (mean read and
/// write latency over the stand-ins against channels), for the baseline, Lv and PACP.
fn fig9_10(out: &Path, rows: &[Row], done: &mut Vec<Figure>) {
    let chans = channels_in(rows);
    let xs: Vec<f64> = chans.iter().map(|&c| c as f64).collect();
    let schemes = [Scheme::Baseline, Scheme::Lv, Scheme::Pacp];
    let mut draw = |file: &str, caption: String, y: &str, value: &dyn Fn(Scheme, u32) -> Option<f64>| {
        let series: Vec<(String, Vec<f64>)> = schemes
            .iter()
            .map(|&s| (s.label().to_string(), chans.iter().map(|&c| value(s, c).unwrap_or(0.0)).collect()))
            .collect();
        if plot::lines(&out.join(file), &caption, "channels", y, &xs, &series).is_ok() {
            done.push((file.into(), caption));
        }
    };
    for (file, w, tag) in [("fig9a_web_0.png", "web_0", "9a"), ("fig9b_hm_1.png", "hm_1", "9b")] {
        if workloads_in(rows, true).contains(&w) {
            let caption = format!("Fig. {tag}: {w} read latency against channels");
            draw(file, caption, "mean read latency, µs", &|s, c| pick(rows, w, s, c).map(|r| r.read_us));
        }
    }
    let caption = "Fig. 10a: mean read latency over the stand-ins".to_string();
    draw("fig10a_read.png", caption, "mean read latency, µs", &|s, c| mean_over(rows, true, s, c, |r| r.read_us));
    let caption = "Fig. 10b: mean write latency over the stand-ins".to_string();
    draw("fig10b_write.png", caption, "mean write latency, µs", &|s, c| mean_over(rows, true, s, c, |r| r.write_us));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped grid: Table 2's channel counts, the Figure 7 drive among them (and among
    /// the quick ones), Figure 6's extra depths, Lv's three swept splits. `--quick` by hand:
    /// 3 stand-ins × (2 channel counts × 7 schemes + 2 ablation steps + 2 depths + 3 splits)
    /// = 63 runs; the splits at 32 channels are 8, 16 and 24 Read channels.
    #[test]
    fn the_grid_file_is_the_grid_of_the_evaluation() {
        let g = grid();
        assert_eq!(g.channels, [8, 16, 32, 48, 64]);
        assert!(g.channels.contains(&g.figure_channels) && g.quick_channels.contains(&g.figure_channels));
        assert!(g.quick_channels.iter().all(|c| g.channels.contains(c)));
        assert!(g.sensitivity_channels.iter().chain(&g.fresh_channels).all(|c| g.quick_channels.contains(c)));
        let full: usize = g.channels.iter().map(|&c| schemes_at(c).len()).sum();
        assert_eq!(full, 5 * 5 + 3, "five schemes at five channel counts, the preload's three at 32");
        assert_eq!(g.history_bits, [2, 3]);
        assert_eq!(g.seeds, [1, 2, 3]);
        // Per stand-in in quick mode: 5 schemes at 8 channels, 5 + 3 preloaded at 32, Figure
        // 7's 4 schemes at two more seeds, 5 on the fresh drive at 32, 2 ablation steps, 2
        // history depths, 3 of Lv's splits: 5 + 8 + 8 + 5 + 2 + 2 + 3 = 33.
        let plan = plan(&quick_opts(), &preset().unwrap(), 0.0).unwrap();
        assert_eq!(plan.jobs.len(), standins(true).len() * 33);
        let splits: Vec<u32> = g.lv_read_shares.iter().map(|&x| lv_split(x, g.figure_channels)).collect();
        assert_eq!(splits, [8, 16, 24]);
        assert_eq!((lv_split(0.01, 8), lv_split(0.99, 8)), (1, 7), "clamped to 1 ..= channels - 1");
    }

    fn quick_opts() -> Options {
        Options { out: "out".into(), quick: true, traces: "traces".into(), threads: 2, resume: false, stop: None }
    }

    fn row(scheme: Scheme, read_us: f64) -> Row {
        Row {
            csv: String::new(),
            workload: "hm_0",
            synthetic: true,
            scheme,
            channels: 32,
            trh_bits: u8::from(scheme.has_history()),
            n_read: 0,
            run: MAIN,
            read_us,
            write_us: 3000.0,
            gc_invocations: 0,
            user_programs: 100,
            gc_programs: 0,
            migrated_gc: 0,
            migrated_idle: 0,
            trh_predicted: 0,
            trh_accuracy: None,
            read_channels_end: None,
            relabels: 0,
            requests: 100,
            chip_util: 0.1,
            spilled_writes: 0,
            reads_on_read: None,
            writes_on_read: None,
            writes_no_history: 0,
            writes_predicted_read: 0,
            host_page_writes: 0,
        }
    }

    /// The report is its template with this run's values: PACP without migration reading
    /// in 100 µs where the baseline takes 200 µs on hm_0 at 32 channels is a change of
    /// −50.0% in Figure 7's claims row, and the check table `reproduce` prints is that
    /// section of REPORT.md. These rows have no preload runs and no excerpts, so the
    /// template's parts on them are left out.
    #[test]
    fn the_report_template_takes_the_runs_values() {
        let rows = [row(Scheme::Baseline, 200.0), row(Scheme::PacpNoMig, 100.0)];
        let opts =
            Options { out: "out".into(), quick: true, traces: "traces".into(), threads: 2, resume: false, stop: None };
        let md = report::report_md(&opts, &rows, &[], 3.0, &preset().unwrap(), None);
        assert!(md.starts_with("# PACP (Lim, Shin, Han, Electronics 2022) reproduced with ssdlab\n\nMode: **quick** (2 runs, 3 s wall on 2 threads)"));
        let claim = "| hm_0 read latency, PACP without migration vs baseline (Fig. 7) | −31.9% | -50.0% | – |\n";
        assert!(md.contains(claim), "{md}");
        assert!(!md.contains("## Sensitivity") && !md.contains("The MSR excerpts are short"), "{md}");
        let check = check_table(&rows);
        assert!(check.starts_with("## The paper's claims\n") && check.contains(claim));
        assert!(md.contains(&format!("{check}## Where ssdlab and the paper differ, and why\n")), "{md}");
    }

    /// The ablation on hm_0 at 32 channels, by hand: baseline 200 µs, Lv 180, the partition
    /// alone 190, + TRH 189, + GC migration 150, + idle migration 160 — against the baseline
    /// −10.0%, −5.0%, −5.5%, −25.0%, −20.0%. The steps move it −5.0, −0.5, −19.5 and +5.0
    /// points: GC migration lowers it most (50 pages moved of 100 programmed), idle migration
    /// raises it most (80 pages of 200), and TRH, under a point, gets its counter: page
    /// writes on Read channels 2.0% without it and 4.0% with it, of which 25 of 100 had no
    /// history and 10 were predicted read.
    #[test]
    fn the_ablation_names_the_largest_steps_and_explains_a_step_without_effect() {
        let with = |scheme, read_us, writes_on_read, reads_on_read| Row {
            writes_on_read: Some(writes_on_read),
            reads_on_read: Some(reads_on_read),
            ..row(scheme, read_us)
        };
        let nomig = Row {
            writes_no_history: 25,
            writes_predicted_read: 10,
            host_page_writes: 100,
            ..with(Scheme::PacpNoMig, 189.0, 0.04, 0.32)
        };
        let rows = [
            row(Scheme::Baseline, 200.0),
            row(Scheme::Lv, 180.0),
            with(Scheme::PacpPartition, 190.0, 0.02, 0.3),
            nomig,
            Row { migrated_gc: 50, ..with(Scheme::PacpGcMig, 150.0, 0.04, 0.5) },
            Row { migrated_idle: 80, user_programs: 120, ..with(Scheme::Pacp, 160.0, 0.04, 0.6) },
        ];
        let opts =
            Options { out: "out".into(), quick: true, traces: "traces".into(), threads: 2, resume: false, stop: None };
        let md = report::report_md(&opts, &rows, &[], 3.0, &preset().unwrap(), None);
        let table = "| hm_0 | 200 | -10.0% | -5.0% | -5.5% | -25.0% | -20.0% |\n";
        assert!(md.contains(table), "{md}");
        let best = "The step that lowers it most is (c) + GC-piggybacked migration (-19.5 points): GC-piggybacked migration moves 50 pages per stand-in, 50.00% of all programs.";
        assert!(md.contains(best), "{md}");
        let worst = "The step that raises it most is (d) + idle migration (+5.0 points): idle-time migration moves 80 pages per stand-in, 40.00% of all programs.";
        assert!(md.contains(worst), "{md}");
        let why = "(b) + TRH moves it by -0.5 points: placing writes by their history takes the share of page writes on Read channels from 2.0% to 4.0% (25.0% of page writes have no history, which Algorithm 1 places on any channel, and 10.0% are predicted read) and of page reads served there from 30.0% to 32.0%.";
        assert!(md.contains(why), "{md}");
    }

    /// Lv's sweep on hm_0 at 32 channels, by hand: PACP reads in 240 µs; Lv in 400 µs under
    /// its rule, 300 / 500 / 600 µs with 8 / 16 / 24 Read channels. PACP against Lv: 240 /
    /// 400 = −40.0% under the rule, −20.0% / −52.0% / −60.0% against the splits, and −20.0%
    /// against the best split (8, at 300 µs, below the rule's 400).
    #[test]
    fn the_lv_sweep_compares_pacp_with_each_split_and_the_best() {
        let split = |n_read, read_us| Row { n_read, ..row(Scheme::LvSplit, read_us) };
        let rows = [
            row(Scheme::Baseline, 500.0),
            row(Scheme::Lv, 400.0),
            split(8, 300.0),
            split(16, 500.0),
            split(24, 600.0),
            row(Scheme::Pacp, 240.0),
        ];
        let opts =
            Options { out: "out".into(), quick: true, traces: "traces".into(), threads: 2, resume: false, stop: None };
        let md = report::report_md(&opts, &rows, &[], 3.0, &preset().unwrap(), None);
        let want = "| PACP's read latency vs Lv's | -40.0% | -20.0% | -52.0% | -60.0% | -20.0% |\n";
        assert!(md.contains(want), "{md}");
        assert!(
            md.contains("| hm_0 | 400 / 3000 (0 Read) | 300 / 3000 | 500 / 3000 | 600 / 3000 | 240 / 3000 |\n"),
            "{md}"
        );
    }

    /// The ledger's Figure 7 claim on hm_0 at 32 channels: PACP without migration reads in
    /// 100 µs where the baseline takes 200, −50.0% against the paper's −31.9% (direction
    /// only); Figure 10's means need every channel count's rows, here only 32: one ratio, no
    /// interval.
    #[test]
    fn the_ledger_takes_figure_7_from_one_run_and_figure_10_over_channels() {
        use crate::reproduce::claims::Verdict;
        let rows = [
            row(Scheme::Baseline, 200.0),
            row(Scheme::PacpNoMig, 100.0),
            row(Scheme::Lv, 400.0),
            row(Scheme::Pacp, 300.0),
        ];
        let claims = ledger::claims(&rows, 0.0);
        let hm_0 = claims.iter().find(|c| c.claim == "Fig. 7 hm_0 read latency, pacp-nomig vs baseline").unwrap();
        assert_eq!((hm_0.measured, Verdict::of(hm_0)), (Some(-0.5), Verdict::DirectionOnly));
        let read_vs_lv = &claims[0];
        assert_eq!((read_vs_lv.measured, read_vs_lv.interval), (Some(-0.25), None));
        assert_eq!(read_vs_lv.over, "mean over 1 channel counts of the stand-ins' mean");
    }

    /// The fresh drive holds only the pages hm_0's stand-in reads: of 1,000 requests the
    /// read-only region has 313 (79 pages) and the mixed one 84 (21 pages), so 100 pages are
    /// written, in order, from address 0 — 100 / logical pages of the drive.
    #[test]
    fn the_fresh_drive_holds_only_the_pages_read() {
        let cfg = drive(&preset().unwrap(), 8);
        let fresh = RunOf { drive: Drive::Fresh, seed: 7 };
        let wl = synthetic(&TABLE3[2], &cfg, 1000, fresh, 0.0);
        let logical = ssdlab::ftl::logical_pages(&Geometry::from_config(&cfg.nand), cfg.ftl.overprovisioning_ratio);
        let p = wl.precondition.expect("a precondition");
        assert_eq!(p.pattern, Pattern::Sequential);
        assert_eq!((p.occupancy * logical as f64).round() as u64, 100);
        assert_eq!(wl.seed, 7);
    }

    /// Figure 7 over three seeds on hm_0, by hand: PACP without migration over the baseline
    /// 100 / 200, 120 / 200, 140 / 200 = 0.5, 0.6, 0.7: mean 0.6, standard deviation 0.1,
    /// interval 0.6 ± 4.303 × 0.1 / √3 = 0.6 ± 0.2484. The ledger's claim is −40.0% over 3
    /// seeds; a seed missing its baseline drops out.
    #[test]
    fn figure_7_takes_the_mean_over_seeds_with_a_t_interval() {
        let at = |scheme, read_us, seed| Row { run: RunOf { seed, ..MAIN }, ..row(scheme, read_us) };
        let mut rows = Vec::new();
        for (seed, nomig) in [(1, 100.0), (2, 120.0), (3, 140.0)] {
            rows.push(at(Scheme::Baseline, 200.0, seed));
            rows.push(at(Scheme::PacpNoMig, nomig, seed));
        }
        let r = fig7_ratio(&rows, "hm_0", Scheme::PacpNoMig, Scheme::Baseline).unwrap();
        assert!((r.mean - 0.6).abs() < 1e-12 && r.seeds == 3);
        let (lo, hi) = r.interval.unwrap();
        assert!((lo - (0.6 - 0.24844)).abs() < 1e-4 && (hi - (0.6 + 0.24844)).abs() < 1e-4, "{lo} {hi}");
        let claims = ledger::claims(&rows, 0.0);
        let hm_0 = claims.iter().find(|c| c.claim == "Fig. 7 hm_0 read latency, pacp-nomig vs baseline").unwrap();
        assert!((hm_0.measured.unwrap() + 0.4).abs() < 1e-12);
        assert_eq!(hm_0.over, "mean over 3 seed(s) at 32 channels");
        rows.remove(4);
        assert_eq!(fig7_ratio(&rows, "hm_0", Scheme::PacpNoMig, Scheme::Baseline).unwrap().seeds, 2);
    }

    #[test]
    fn every_scheme_is_a_valid_config_of_the_preset_at_every_channel_count() {
        let base = preset().expect("preset");
        for &ch in &grid().channels {
            for s in SCHEMES.into_iter().chain(PRELOAD_SCHEMES).chain(ABLATION_RUNS).chain([Scheme::LvSplit]) {
                for bits in 1..=3 {
                    let mut cfg = drive(&base, ch);
                    s.apply(&mut cfg, bits, lv_split(0.25, ch));
                    cfg.validate(PRESET_NAME).unwrap_or_else(|e| panic!("{} at {ch} ch, {bits} bits: {e}", s.name()));
                }
            }
        }
    }

    /// The preset's `[ftl.partition]` reaches the runs (a preset with a 5,000-access period,
    /// `idle_victims = "any"` and 8 blocks searched): every PACP row keeps all three, with its
    /// own switches — the ablation's partition alone places every write on the Write
    /// channels without migration, its GC step migrates at GC only, PACP both; Lv keeps the
    /// period but not PACP's idle-migration keys (it rejects them); the baseline takes no
    /// partition. Every one validates.
    #[test]
    fn the_presets_partition_keys_reach_the_pacp_rows() {
        let mut base = preset().expect("preset");
        let p = &mut base.ftl.partition;
        (p.period, p.idle_victims, p.idle_search_blocks) = (5000, IdleVictims::Any, 8);
        base.validate(PRESET_NAME).expect("a valid preset");
        let run = |s: Scheme| {
            let mut cfg = drive(&base, 8);
            s.apply(&mut cfg, 1, 0);
            cfg.validate(PRESET_NAME).unwrap_or_else(|e| panic!("{}: {e}", s.name()));
            cfg.ftl.partition
        };
        for s in ABLATION.into_iter().chain([Scheme::PacpNoMigPreload, Scheme::PacpPreload]) {
            let p = run(s);
            assert_eq!((p.period, p.idle_victims, p.idle_search_blocks), (5000, IdleVictims::Any, 8), "{}", s.name());
        }
        let switches = |s| {
            let p = run(s);
            (p.placement, p.gc_migration, p.idle_migration)
        };
        assert_eq!(switches(Scheme::PacpPartition), (Placement::WriteChannels, Some(false), Some(false)));
        assert_eq!(switches(Scheme::PacpNoMig), (Placement::Trh, Some(false), Some(false)));
        assert_eq!(switches(Scheme::PacpGcMig), (Placement::Trh, Some(true), Some(false)));
        assert_eq!(switches(Scheme::Pacp), (Placement::Trh, Some(true), Some(true)));
        let lv = run(Scheme::Lv);
        assert_eq!((lv.period, lv.idle_victims, lv.idle_search_blocks), (5000, IdleVictims::ReadPredicted, 16));
        assert_eq!(run(Scheme::Baseline), PartitionConfig::default());
    }

    /// hm_0 reads 35.5% (Table 3). By hand: read region 0.355 − 0.042 = 0.313, write region
    /// 0.645 − 0.042 = 0.603, mixed 0.084; reads = 0.313 + 0.084 / 2 = 0.355; requests on
    /// dominant (read- or write-only) pages = 0.313 + 0.603 = 0.916.
    #[test]
    fn stand_in_shares_give_the_rows_read_share_and_916_on_dominant_pages() {
        let s = Shares::of(0.355);
        assert!((s.read - 0.313).abs() < 1e-12 && (s.write - 0.603).abs() < 1e-12 && (s.mixed - 0.084).abs() < 1e-12);
        for row in TABLE3 {
            let s = Shares::of(row.read_ratio);
            let reads: f64 = s.regions().iter().map(|(_, share, r)| share * r).sum();
            assert!((reads - row.read_ratio).abs() < 1e-12, "{}: read share {reads}", row.name);
            assert!((s.read + s.write - 0.916).abs() < 1e-12, "{}: dominant share", row.name);
        }
    }

    /// The stand-in's flows: requests and rates in the shares' proportions, regions side by
    /// side from address 0, each page-aligned and as many pages as requests / 4 (rounded up).
    #[test]
    fn stand_in_flows_cover_their_regions_at_the_shares() {
        let base = preset().expect("preset");
        let cfg = drive(&base, 8);
        let hm_0 = TABLE3[2];
        let wl = synthetic(&hm_0, &cfg, 1000, MAIN, 0.5);
        let n: Vec<u64> = wl.flows.iter().map(|f| f.requests).collect();
        assert_eq!(n, [313, 84, 603]);
        assert_eq!(wl.precondition, Some(PreconditionSpec { occupancy: GC_FILL, pattern: Pattern::Random }));
        let starts: Vec<u64> = wl.flows.iter().map(|f| f.start_bytes).collect();
        assert_eq!(starts, [0, 79 * 4096, (79 + 21) * 4096]);
        let rho: Vec<f64> = wl.flows.iter().map(|f| f.type_persistence).collect();
        assert_eq!(rho, [0.0, 0.5, 0.0], "only the mixed region's requests depend on the page's past");
        let rate: f64 = wl.flows.iter().map(|f| f.rate_iops).sum();
        assert!((rate - RATE_IOPS).abs() < 1e-9);
        wl.validate("test").expect("a valid workload");
    }
}
