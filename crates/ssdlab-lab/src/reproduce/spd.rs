//! `ssdlab reproduce spd`: the evaluation of SPD (Gao et al., MSST 2019; docs/techniques.md
//! §11.5) on the `spd` preset, whose configuration is unverified (§11.1): results are ratios
//! to Baseline-D on the same drive (§11.6).
//!
//! - Slides s.23–25, without GC: the five schemes on each trace, a fresh drive (the traces
//!   write far less than its free space), 2 planes per die, buffer = footprint / 1000.
//! - Slides s.26–28 and s.10, with GC: the same on a drive preconditioned with random writes
//!   to [`GC_FILL`] of its logical space [I], so GC runs during the trace.
//! - Slide s.29: the buffer × {0.5, 2, 4, 8, 16} [I] with GC (quick: 4 and 16). Slide s.30:
//!   4 planes per die with GC.
//!
//! - Ablation (issue 33 item 1), in the `nogc` and `gc` experiments: SPD's three parts each
//!   alone on Baseline-D ([`ABLATION`]): Die-Write (`cache.policy = "spd"` with aligned block
//!   sets), Die-Read (multi-plane reads, `nand.multiplane_reads`), Die-GC
//!   (`ftl.gc.unit = "die"`), against Baseline-D with none of them.
//!
//! Traces ([`TRACES`]) are replayed at their timestamps [I] (the slides' simulator replays
//! traces), addresses past the drive wrapped. The buffer is 1/1000 of the trace's footprint
//! (distinct pages it touches) [S] — `cache.capacity_footprint_fraction` —, but never below
//! (N − 1) × dies + 1 pages, SPD's floor (§11.3 item 3), for every scheme alike [I]: the
//! shipped excerpts' footprints are small. Evicted pages free their buffer slots at once, as
//! in SSDsim (`cache.slot_release = "evicted"`, the preset's); the `-held` experiments repeat
//! the main two with ssdlab's default, slots held until programmed.
//!
//! Writes DIR/results.csv, DIR/*.png and DIR/REPORT.md ([`report`]).

use std::path::Path;

use serde::Deserialize;

mod floor;
mod ledger;
mod report;

use super::columns::{self, Field};
use super::{io_err, plot, run_all, shared_trace, write_report, Job, Options};
use ssdlab::cache::config::{CacheConfig, CachePolicy, SlotRelease, SpdFallback};
use ssdlab::error::{Error, Result};
use ssdlab::ftl::gc::die_gc::DieLeftover;
use ssdlab::ftl::gc::paragc::ParaAlign;
use ssdlab::ftl::gc::UrgentWhen;
use ssdlab::ftl::precondition::Pattern;
use ssdlab::ftl::{AllocationScheme, BlockAlignment, GcUnit};
use ssdlab::host::{AddressMode, PreconditionSpec, Replay};
use ssdlab::tsu::UrgentGc;
use ssdlab::{Config, Report, WorkloadSpec};

const PRESET: &str = include_str!("../../../../presets/spd.toml");
const PRESET_NAME: &str = "presets/spd.toml";

/// Occupancy of the random fill before the "with GC" runs [I].
pub const GC_FILL: f64 = 0.95;

/// The traces (file under the traces folder, name); the first three in quick mode.
pub const TRACES: [(&str, &str); 5] = [
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "msr-rw20"),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "msr-rw40"),
    ("umass/Financial1.first10k.ssdsim.ascii", "fin1"),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "msr-rand"),
    ("msr/hm_0.sample1000.csv", "msr-hm0"),
];

/// The five schemes of slide s.21, in the slides' order (Baseline-D is the reference), and
/// three sensitivity rows [I]: SPD padding partial evictions (`cache.spd_fallback = "pad"`),
/// SPD padding Die-GC's last partial group instead of buffering it
/// (`ftl.gc.die_leftover = "pad"`), and ParaGC without its aligned GC write points
/// (`ftl.gc.para_align = "none"`, the earlier rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    BaselineD,
    BaselineP,
    TwinBlk,
    ParaGc,
    Spd,
    SpdPad,
    SpdGcPad,
    ParaGcUnaligned,
    /// Ablation: Baseline-D without multi-plane reads — none of SPD's three parts.
    AblNone,
    /// Ablation: Die-Write alone (SPD's buffer and aligned block sets; per-plane GC, reads
    /// one plane at a time).
    AblDieWrite,
    /// Ablation: Die-GC alone (Baseline-D's buffer and static planes, aligned block sets for
    /// Die-GC, its last group padded; reads one plane at a time).
    AblDieGc,
}

pub const SCHEMES: [Scheme; 8] = [
    Scheme::BaselineD,
    Scheme::BaselineP,
    Scheme::TwinBlk,
    Scheme::ParaGc,
    Scheme::Spd,
    Scheme::SpdPad,
    Scheme::SpdGcPad,
    Scheme::ParaGcUnaligned,
];

/// The ablation rows beside two of the main schemes: none of SPD's parts, Die-Write alone,
/// Die-GC alone; Die-Read alone is the main rows' Baseline-D (multi-plane reads are on for
/// every main scheme) and all three is SPD. Run in the experiments marked `ablation`.
pub const ABLATION: [Scheme; 3] = [Scheme::AblNone, Scheme::AblDieWrite, Scheme::AblDieGc];

impl Scheme {
    /// The scheme named `name` (a row of results.csv), among the main and ablation schemes.
    fn parse(name: &str) -> Option<Scheme> {
        SCHEMES.iter().chain(&ABLATION).copied().find(|s| s.name() == name)
    }

    /// The scheme's name in a figure's legend.
    pub fn label(self) -> &'static str {
        match self {
            Scheme::BaselineD => "Baseline-D",
            Scheme::BaselineP => "Baseline-P",
            Scheme::TwinBlk => "TwinBlk",
            Scheme::ParaGc => "ParaGC",
            Scheme::Spd => "SPD",
            Scheme::SpdPad => "SPD, padded Die-Write",
            Scheme::SpdGcPad => "SPD, padded Die-GC",
            Scheme::ParaGcUnaligned => "ParaGC, unaligned",
            Scheme::AblNone => "none of SPD's parts",
            Scheme::AblDieWrite => "Die-Write alone",
            Scheme::AblDieGc => "Die-GC alone",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Scheme::BaselineD => "baseline-d",
            Scheme::BaselineP => "baseline-p",
            Scheme::TwinBlk => "twinblk",
            Scheme::ParaGc => "paragc",
            Scheme::Spd => "spd",
            Scheme::SpdPad => "spd-pad",
            Scheme::SpdGcPad => "spd-gcpad",
            Scheme::ParaGcUnaligned => "paragc-unaligned",
            Scheme::AblNone => "abl-none",
            Scheme::AblDieWrite => "abl-die-write",
            Scheme::AblDieGc => "abl-die-gc",
        }
    }

    /// The keys that make the preset this scheme (see the preset's header).
    fn apply(self, cfg: &mut Config) {
        let (policy, allocation, alignment, unit) = match self {
            Scheme::BaselineD | Scheme::AblNone => {
                (CachePolicy::BaselineD, "CWDP", BlockAlignment::None, GcUnit::Plane)
            }
            // Die-Write: SPD's buffer, its plane chosen at eviction, aligned block sets (§3.2–3.3).
            Scheme::AblDieWrite => (CachePolicy::Spd, "CWD", BlockAlignment::Die, GcUnit::Plane),
            // Die-GC on Baseline-D's buffer and static planes; Die-GC needs aligned sets (§3.5).
            Scheme::AblDieGc => (CachePolicy::BaselineD, "CWDP", BlockAlignment::Die, GcUnit::Die),
            Scheme::BaselineP => (CachePolicy::BaselineP, "CWDP", BlockAlignment::None, GcUnit::Plane),
            // Block and GC schemes, so Baseline-D's buffer (slides s.21; docs/techniques.md §3.6).
            Scheme::TwinBlk => (CachePolicy::BaselineD, "CWD", BlockAlignment::Die, GcUnit::Twin),
            Scheme::ParaGc | Scheme::ParaGcUnaligned => {
                (CachePolicy::BaselineD, "CWDP", BlockAlignment::None, GcUnit::Para)
            }
            Scheme::Spd | Scheme::SpdPad | Scheme::SpdGcPad => {
                (CachePolicy::Spd, "CWD", BlockAlignment::Die, GcUnit::Die)
            }
        };
        match self {
            Scheme::SpdPad => cfg.cache.spd_fallback = SpdFallback::Pad,
            Scheme::SpdGcPad => cfg.ftl.gc.die_leftover = DieLeftover::Pad,
            Scheme::Spd => {}
            Scheme::ParaGcUnaligned => {
                cfg.ftl.gc.die_leftover = DieLeftover::Pad;
                cfg.ftl.gc.para_align = ParaAlign::None;
            }
            _ => cfg.ftl.gc.die_leftover = DieLeftover::Pad,
        }
        // Die-Read is the builder's multi-plane reads: off in the ablation rows but where the
        // row is about Die-Read (the main rows keep them on for every scheme).
        if ABLATION.contains(&self) {
            cfg.nand.multiplane_reads = false;
        }
        cfg.cache.policy = policy;
        cfg.ftl.allocation = AllocationScheme::parse(allocation).expect("a valid scheme");
        cfg.ftl.block_alignment = alignment;
        cfg.ftl.gc.unit = unit;
    }
}

/// The preset, as shipped.
pub fn preset() -> Result<Config> {
    Config::from_toml_str(PRESET, PRESET_NAME, &[])
}

/// What a job is, for its row.
#[derive(Debug, Clone)]
struct Meta {
    experiment: String,
    trace: &'static str,
    scheme: Scheme,
    planes: u32,
    buffer_factor: f64,
}

impl Meta {
    /// The [`OWN`] columns.
    fn csv(&self) -> String {
        let m = self;
        format!("{},{},{},{},{}", m.experiment, m.trace, m.scheme.name(), m.planes, m.buffer_factor)
    }
}

#[derive(Default)]
struct Plan {
    jobs: Vec<Job>,
    metas: Vec<Meta>,
}

fn workload(path: &Path, gc: bool) -> WorkloadSpec {
    let mut wl = WorkloadSpec::single_trace(path, Replay::Timestamps);
    wl.flows[0].address_mode = AddressMode::Wrap;
    if gc {
        wl.precondition = Some(PreconditionSpec { occupancy: GC_FILL, pattern: Pattern::Random });
    }
    wl
}

/// The experiments, as data: `experiments/spd/experiments.toml`.
const EXPERIMENTS: &str = include_str!("../../../../experiments/spd/experiments.toml");
const EXPERIMENTS_NAME: &str = "experiments/spd/experiments.toml";

/// A group of runs: the five schemes on each trace in one setting (one `[[experiment]]`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Experiment {
    name: String,
    planes: u32,
    gc: bool,
    /// Buffer sizes, in units of `buffer`.
    factors: Vec<f64>,
    /// What a factor of 1 is: footprint / 1000 (the slides' rule, the default) or SPD's
    /// floor of (N − 1) × dies + 1 pages.
    #[serde(default)]
    buffer: BufferUnit,
    /// The schemes run (names as in results.csv; default: every main scheme).
    schemes: Option<Vec<String>>,
    /// The sizes of `--quick` (default: `factors`).
    quick_factors: Option<Vec<f64>>,
    /// When a written-back page's slot frees: the preset's (SSDsim's), or ours as a
    /// sensitivity row.
    slot_release: Release,
    /// When GC runs: the preset's (SSDsim's blocking GC), or in chip idle time as a
    /// sensitivity row.
    #[serde(default)]
    gc_regime: Regime,
    /// Also run the ablation rows ([`ABLATION`]).
    #[serde(default)]
    ablation: bool,
}

/// What an experiment's buffer factors multiply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum BufferUnit {
    /// Footprint / 1000 (`cache.capacity_footprint_fraction = factor / 1000`), never below
    /// the floor.
    #[default]
    Footprint,
    /// SPD's floor, (N − 1) × dies + 1 pages: `cache.capacity_bytes` = factor × floor pages,
    /// the same size on every trace.
    Floor,
}

impl BufferUnit {
    /// Size `cfg`'s buffer at `factor` of this unit.
    fn apply(self, cfg: &mut Config, factor: f64) {
        match self {
            BufferUnit::Footprint => cfg.cache.capacity_footprint_fraction = factor / 1000.0,
            BufferUnit::Floor => {
                let n = &cfg.nand;
                let dies = n.channels * n.chips_per_channel * n.dies_per_chip;
                let floor = CacheConfig::footprint_floor(n.planes_per_die, dies);
                let pages = (floor as f64 * factor).round() as u64;
                cfg.cache.capacity_footprint_fraction = 0.0;
                cfg.cache.capacity_bytes = pages * n.page_bytes as u64;
            }
        }
    }
}

/// An experiment's GC regime.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Regime {
    /// The preset's: blocking GC, as SSDsim's `uninterrupt_gc` (`tsu.urgent_gc = "hold"`,
    /// `ftl.gc.urgent_when = "collecting"`).
    #[default]
    Preset,
    /// ssdlab's defaults: GC in chip idle time, paced against host writes, going before
    /// writes (not reads) when behind (`tsu.urgent_gc = "after_reads"`,
    /// `ftl.gc.urgent_when = "paced"`).
    Idle,
}

impl Regime {
    fn apply(self, cfg: &mut Config) {
        if self == Regime::Idle {
            cfg.tsu.urgent_gc = UrgentGc::AfterReads;
            cfg.ftl.gc.urgent_when = UrgentWhen::Paced;
        }
    }
}

/// An experiment's `cache.slot_release`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Release {
    Preset,
    Programmed,
    Evicted,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Experiments {
    experiment: Vec<Experiment>,
}

/// Every experiment, with the factors of this mode.
fn experiments(quick: bool) -> Result<Vec<Experiment>> {
    let mut all: Experiments =
        toml::from_str(EXPERIMENTS).map_err(|e| Error::toml(EXPERIMENTS_NAME, EXPERIMENTS, e))?;
    for x in &mut all.experiment {
        if let Some(q) = x.quick_factors.take().filter(|_| quick) {
            x.factors = q;
        }
    }
    Ok(all.experiment)
}

impl Experiment {
    /// The schemes this experiment runs: its list, or every main scheme, then the ablation
    /// rows where asked.
    fn schemes(&self) -> Result<Vec<Scheme>> {
        let mut all = match &self.schemes {
            None => SCHEMES.to_vec(),
            Some(names) => names
                .iter()
                .map(|n| {
                    Scheme::parse(n).ok_or_else(|| {
                        let why = format!("experiment `{}`: no scheme `{n}`", self.name);
                        Error::config(EXPERIMENTS_NAME, 0, "schemes", &why)
                    })
                })
                .collect::<Result<_>>()?,
        };
        if self.ablation {
            all.extend(ABLATION);
        }
        Ok(all)
    }
}

impl Release {
    fn value(self, preset: SlotRelease) -> SlotRelease {
        match self {
            Release::Preset => preset,
            Release::Programmed => SlotRelease::Programmed,
            Release::Evicted => SlotRelease::Evicted,
        }
    }
}

fn plan(opts: &Options, base: &Config) -> Result<Plan> {
    let mut plan = Plan::default();
    let traces = if opts.quick { &TRACES[..3] } else { &TRACES[..] };
    for &(file, trace) in traces {
        let path = shared_trace(opts, file)?;
        for x in experiments(opts.quick)? {
            let mut sized = base.clone();
            sized.nand.planes_per_die = x.planes;
            sized.cache.slot_release = x.slot_release.value(base.cache.slot_release);
            x.gc_regime.apply(&mut sized);
            for &factor in &x.factors {
                for scheme in x.schemes()? {
                    let mut cfg = sized.clone();
                    x.buffer.apply(&mut cfg, factor);
                    scheme.apply(&mut cfg);
                    cfg.validate(PRESET_NAME)?;
                    let experiment = x.name.clone();
                    let meta = Meta { experiment, trace, scheme, planes: x.planes, buffer_factor: factor };
                    plan.jobs.push(Job { config: cfg, workload: workload(&path, x.gc) });
                    plan.metas.push(meta);
                }
            }
        }
    }
    Ok(plan)
}

/// One run's row of results.csv.
#[derive(Debug, Clone)]
pub struct Row {
    /// Its line of results.csv.
    pub csv: String,
    pub experiment: String,
    pub trace: &'static str,
    pub scheme: Scheme,
    pub planes: u32,
    pub buffer_factor: f64,
    pub buffer_pages: u64,
    pub requests: u64,
    pub write_us: f64,
    pub read_us: f64,
    pub plane_util_time: f64,
    pub plane_util_busy: f64,
    /// Shares of the host's die-level programs: single, mixed, unaligned, aligned.
    pub user_cases: [f64; 4],
    /// Share of GC's die-level programs that are aligned.
    pub gc_aligned: f64,
    /// Share of the pages read that multi-plane reads served (Die-Read).
    pub multiplane_reads: f64,
    pub hit_ratio: f64,
    pub gc_invocations: u64,
    pub erases: u64,
    pub gc_cost_s: f64,
    pub pad_pages: u64,
    /// Die-GC moves put into the write buffer.
    pub buffered_moves: u64,
    /// Dummy pages of SPD's padded evictions (`spd-pad`).
    pub cache_pad_pages: u64,
    pub waf: f64,
    pub unaligned_opens: u64,
}

impl Row {
    /// Average chip time per GC invocation, µs.
    pub fn gc_cost_avg_us(&self) -> f64 {
        if self.gc_invocations == 0 {
            0.0
        } else {
            self.gc_cost_s * 1e6 / self.gc_invocations as f64
        }
    }
}

/// What a run is: the first columns of results.csv.
const OWN: [&str; 5] = ["experiment", "trace", "scheme", "planes", "buffer_factor"];

/// results.csv's columns after [`OWN`], read from each run's report: adding a counter to
/// the table is one line here.
const FIELDS: &[Field] = &[
    Field::int("buffer_pages", "sim.cache.capacity_pages"),
    Field::int("requests", "sim.host.requests_completed"),
    Field::fixed("write_us", "sim.latency_us.write.mean", 3),
    Field::fixed("read_us", "sim.latency_us.read.mean", 3),
    Field::fixed("plane_util_time", "sim.flash.plane_utilization", 4),
    Field::fixed("plane_util_busy", "sim.flash.plane_utilization_busy", 4),
    Field::fixed("user_single", "sim.flash.write_cases.user.share.single", 4),
    Field::fixed("user_mixed", "sim.flash.write_cases.user.share.mixed", 4),
    Field::fixed("user_unaligned", "sim.flash.write_cases.user.share.unaligned", 4),
    Field::fixed("user_aligned", "sim.flash.write_cases.user.share.aligned", 4),
    Field::fixed("gc_aligned", "sim.flash.write_cases.gc.share.aligned", 4),
    Field::fixed("multiplane_reads", "sim.flash.multiplane_read_share", 4),
    Field::fixed("hit_ratio", "sim.cache.hit_ratio", 4),
    Field::int("gc_invocations", "sim.gc.invocations"),
    Field::int("erases", "sim.gc.erases"),
    Field::fixed("gc_cost_s", "sim.gc.cost_s", 6),
    Field::int("pad_pages", "sim.gc.pad_pages"),
    Field::fixed("waf", "sim.gc.waf", 4),
    Field::int("unaligned_block_opens", "sim.ftl.unaligned_block_opens"),
    Field::int("cache_pad_pages", "sim.cache.pad_pages"),
    Field::int("buffered_moves", "sim.gc.buffered_moves"),
];

fn row(meta: &Meta, r: &Report) -> Result<Row> {
    let s = &r.sim;
    let u = &s.flash.write_cases.user.share;
    Ok(Row {
        csv: columns::line(&meta.csv(), r, FIELDS)?,
        experiment: meta.experiment.clone(),
        trace: meta.trace,
        scheme: meta.scheme,
        planes: meta.planes,
        buffer_factor: meta.buffer_factor,
        buffer_pages: s.cache.capacity_pages,
        requests: s.host.requests_completed,
        write_us: s.latency_us.write.mean,
        read_us: s.latency_us.read.mean,
        plane_util_time: s.flash.plane_utilization,
        plane_util_busy: s.flash.plane_utilization_busy,
        user_cases: [u.single, u.mixed, u.unaligned, u.aligned],
        gc_aligned: s.flash.write_cases.gc.share.aligned,
        multiplane_reads: s.flash.multiplane_read_share,
        hit_ratio: s.cache.hit_ratio,
        gc_invocations: s.gc.invocations,
        erases: s.gc.erases,
        gc_cost_s: s.gc.cost_s,
        pad_pages: s.gc.pad_pages,
        cache_pad_pages: s.cache.pad_pages,
        buffered_moves: s.gc.buffered_moves,
        waf: s.gc.waf,
        unaligned_opens: s.ftl.unaligned_block_opens,
    })
}

/// The slides' headline numbers beside this run's (REPORT.md's last table).
pub fn check_table(rows: &[Row]) -> String {
    report::claims_section(rows)
}

/// Run the reproduction; returns the rows (also written to DIR/results.csv).
pub fn reproduce(opts: &Options) -> Result<Vec<Row>> {
    let wall = std::time::Instant::now();
    std::fs::create_dir_all(&opts.out).map_err(|e| io_err(&opts.out, e))?;
    let base = preset()?;
    let plan = plan(opts, &base)?;
    eprintln!("  reproduce spd: {} runs ...", plan.jobs.len());
    let reports = run_all("reproduce spd", plan.jobs, opts)?;
    let rows = plan.metas.iter().zip(&reports).map(|(m, r)| row(m, r)).collect::<Result<Vec<Row>>>()?;
    columns::write_table(&opts.out, &OWN, FIELDS, rows.iter().map(|r| r.csv.as_str()))?;
    let figures = figures(&opts.out, &rows);
    let md = report::report_md(opts, &rows, &figures, wall.elapsed().as_secs_f64(), &base);
    write_report(&opts.out, md)?;
    super::claims::write(&opts.out, &ledger::claims(&rows))?;
    Ok(rows)
}

/// The row of `scheme` on `trace` in `experiment` (with buffer `factor`).
pub fn pick<'a>(rows: &'a [Row], experiment: &str, trace: &str, scheme: Scheme, factor: f64) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.experiment == experiment && r.trace == trace && r.scheme == scheme && r.buffer_factor == factor)
}

/// The traces a run covered, in [`TRACES`] order.
pub fn traces_in(rows: &[Row]) -> Vec<&'static str> {
    TRACES.iter().map(|t| t.1).filter(|t| rows.iter().any(|r| r.trace == *t)).collect()
}

/// `f` of `scheme` over `f` of Baseline-D on the same trace and setting.
pub fn vs_baseline(
    rows: &[Row],
    experiment: &str,
    trace: &str,
    scheme: Scheme,
    factor: f64,
    f: fn(&Row) -> f64,
) -> Option<f64> {
    vs(rows, experiment, trace, (scheme, Scheme::BaselineD), factor, f)
}

/// `f` of `pair.0` over `f` of `pair.1` on the same trace and setting.
pub fn vs(
    rows: &[Row],
    experiment: &str,
    trace: &str,
    pair: (Scheme, Scheme),
    factor: f64,
    f: fn(&Row) -> f64,
) -> Option<f64> {
    let b = f(pick(rows, experiment, trace, pair.1, factor)?);
    let x = f(pick(rows, experiment, trace, pair.0, factor)?);
    (b > 0.0).then(|| x / b)
}

/// A figure written: (file, caption).
type Figure = (String, String);

/// A figure to draw: (file, experiment, caption, the measure whose ratio it shows).
type FigureSpec = (&'static str, &'static str, &'static str, fn(&Row) -> f64);

/// One figure per slide: each scheme's value over Baseline-D's, per trace.
fn figures(out: &Path, rows: &[Row]) -> Vec<Figure> {
    let mut done = Vec::new();
    let traces: Vec<String> = traces_in(rows).iter().map(|t| t.to_string()).collect();
    let figs: [FigureSpec; 5] = [
        ("s23_write_latency_nogc.png", "nogc", "s.23: write latency / Baseline-D, without GC", |r| r.write_us),
        ("s24_plane_util_nogc.png", "nogc", "s.24: plane utilization (busy) / Baseline-D", |r| r.plane_util_busy),
        ("s26_write_latency_gc.png", "gc", "s.26: write latency / Baseline-D, with GC", |r| r.write_us),
        ("s26_gc_cost_gc.png", "gc", "s.26: total GC cost / Baseline-D", |r| r.gc_cost_s),
        ("s30_write_latency_4planes.png", "planes4", "s.30: write latency / Baseline-D, 4 planes", |r| r.write_us),
    ];
    for (file, exp, caption, f) in figs {
        let series: Vec<(String, Vec<f64>)> = SCHEMES
            .iter()
            .map(|&s| {
                let v = traces.iter().map(|t| vs_baseline(rows, exp, t, s, 1.0, f).unwrap_or(0.0)).collect();
                (s.label().to_string(), v)
            })
            .collect();
        let axes = plot::Axes { title: caption, x: "trace", y: "× Baseline-D" };
        if plot::bar_chart(&out.join(file), axes, &traces, &series, None).is_ok() {
            done.push((file.to_string(), caption.to_string()));
        }
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped grid: twelve experiments; `--quick` sizes the footprint sweep at 4× and
    /// 16×, the full run at five sizes; the floor sweeps run 1×, 4× and 16× the floor quick,
    /// six powers of two in full, Baseline-D and SPD only; the `-held` ones hold slots, the
    /// others keep the preset's; `gc-idle` alone runs GC in idle time, the others the preset's
    /// blocking GC. On 3 quick traces that is (1 + 1 + 1 + 2 + 1 + 1 + 1 + 1) × 8 × 3 = 216
    /// runs of every scheme, 4 × 3 × 2 × 3 = 72 of the floor sweeps, and the 3 ablation rows in
    /// `nogc` and `gc`: 2 × 3 × 3 = 18 more.
    #[test]
    fn the_experiments_file_is_the_grid_of_the_evaluation() {
        let quick = experiments(true).unwrap();
        let names: Vec<&str> = quick.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "nogc",
                "gc",
                "planes4",
                "buffer",
                "nogc-held",
                "gc-held",
                "planes4-held",
                "floor-gc",
                "floor-gc-held",
                "floor-nogc",
                "floor-nogc-held",
                "gc-idle"
            ]
        );
        let runs = |x: &Experiment| x.factors.len() * x.schemes().unwrap().len() * 3;
        let (floor, footprint): (Vec<&Experiment>, Vec<&Experiment>) =
            quick.iter().partition(|x| x.buffer == BufferUnit::Floor);
        assert_eq!(floor.iter().map(|x| runs(x)).sum::<usize>(), 72);
        assert_eq!(footprint.iter().map(|x| runs(x)).sum::<usize>(), 216 + 18);
        let ablated: Vec<&str> = quick.iter().filter(|x| x.ablation).map(|x| x.name.as_str()).collect();
        assert_eq!((ablated, ablated_runs(&quick)), (vec!["nogc", "gc"], 18));
        let full = experiments(false).unwrap();
        assert_eq!(full[3].factors, [0.5, 2.0, 4.0, 8.0, 16.0]);
        assert_eq!(full[7].factors, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]);
        assert_eq!(full[7].schemes().unwrap(), [Scheme::BaselineD, Scheme::Spd]);
        let held = |x: &Experiment| x.slot_release.value(SlotRelease::Evicted) == SlotRelease::Programmed;
        let held: Vec<&str> = full.iter().filter(|x| held(x)).map(|x| x.name.as_str()).collect();
        assert_eq!(held, ["nogc-held", "gc-held", "planes4-held", "floor-gc-held", "floor-nogc-held"]);
        assert_eq!(full.iter().map(|x| x.planes).collect::<Vec<_>>(), [2, 2, 4, 2, 2, 2, 4, 2, 2, 2, 2, 2]);
        let idle: Vec<&str> = full.iter().filter(|x| x.gc_regime == Regime::Idle).map(|x| x.name.as_str()).collect();
        assert_eq!(idle, ["gc-idle"]);
    }

    /// A floor-sized buffer is the same on every trace: 8 dies of 2 planes have a floor of
    /// (2 − 1) × 8 + 1 = 9 pages, so 4× the floor is 36 pages of 8 KiB, 294,912 bytes, and
    /// the footprint fraction is off; with 4 planes the floor is 3 × 8 + 1 = 25 pages.
    #[test]
    fn a_floor_sized_buffer_is_a_multiple_of_spds_floor() {
        let mut cfg = preset().unwrap();
        BufferUnit::Floor.apply(&mut cfg, 4.0);
        assert_eq!((cfg.cache.capacity_bytes, cfg.cache.capacity_footprint_fraction), (36 * 8192, 0.0));
        cfg.nand.planes_per_die = 4;
        BufferUnit::Floor.apply(&mut cfg, 1.0);
        assert_eq!(cfg.cache.capacity_bytes, 25 * 8192);
        BufferUnit::Footprint.apply(&mut cfg, 2.0);
        assert_eq!(cfg.cache.capacity_footprint_fraction, 0.002);
    }

    /// The main rows run the paper's simulator's GC: the preset holds a collecting plane's
    /// chip (blocking GC); `gc-idle` gives the chip back between GC operations; ParaGC
    /// aligns its write points, `paragc-unaligned` does not.
    #[test]
    fn the_main_rows_block_on_gc_and_align_paragc() {
        use ssdlab::ftl::gc::UrgentWhen;
        let base = preset().unwrap();
        assert_eq!((base.tsu.urgent_gc, base.ftl.gc.urgent_when), (UrgentGc::Hold, UrgentWhen::Collecting));
        assert!(base.nand.multiplane_same_block);
        let mut idle = base.clone();
        Regime::Idle.apply(&mut idle);
        assert_eq!((idle.tsu.urgent_gc, idle.ftl.gc.urgent_when), (UrgentGc::AfterReads, UrgentWhen::Paced));
        for (scheme, align) in [(Scheme::ParaGc, ParaAlign::CatchUp), (Scheme::ParaGcUnaligned, ParaAlign::None)] {
            let mut cfg = base.clone();
            scheme.apply(&mut cfg);
            assert_eq!((cfg.ftl.gc.unit, cfg.ftl.gc.para_align), (GcUnit::Para, align));
        }
    }

    pub(super) fn row(scheme: Scheme, write_us: f64) -> Row {
        let experiment = "nogc".to_string();
        Row {
            csv: String::new(),
            experiment,
            trace: "msr-rw20",
            scheme,
            planes: 2,
            buffer_factor: 1.0,
            buffer_pages: 9,
            requests: 1,
            write_us,
            read_us: 50.0,
            plane_util_time: 0.1,
            plane_util_busy: 0.5,
            user_cases: [0.0, 0.0, 0.0, 1.0],
            gc_aligned: 0.0,
            multiplane_reads: 0.0,
            hit_ratio: 0.25,
            gc_invocations: 0,
            erases: 0,
            gc_cost_s: 0.0,
            pad_pages: 0,
            buffered_moves: 0,
            cache_pad_pages: 0,
            waf: 1.0,
            unaligned_opens: 0,
        }
    }

    /// The report is its template with this run's values: SPD writing in 100 µs where
    /// Baseline-D takes 200 µs is a change of −50.0% in the claims row of slide s.23, and
    /// the check table `reproduce` prints is that section of REPORT.md.
    #[test]
    fn the_report_template_takes_the_runs_values() {
        let rows = [row(Scheme::BaselineD, 200.0), row(Scheme::Spd, 100.0)];
        let opts =
            Options { out: "out".into(), quick: true, traces: "traces".into(), threads: 2, resume: false, stop: None };
        let md = report::report_md(&opts, &rows, &[], 3.0, &preset().unwrap());
        assert!(md.starts_with(
            "# SPD (Gao et al., MSST 2019) reproduced with ssdlab\n\nMode: **quick** (2 runs, 3 s wall on 2 threads)"
        ));
        // One trace: no interval; no held rows: "–".
        let claim = "| s.23 write latency, SPD vs Baseline-D, no GC | < −15% | -50.0% | – |\n";
        assert!(md.contains(claim), "{md}");
        let check = check_table(&rows);
        assert!(check.starts_with("## The slides' claims\n") && check.contains(claim));
        assert!(md.contains(&check));
        // What the rows are: blocking GC in the main rows, idle-time GC and unaligned ParaGC
        // as sensitivity rows.
        assert!(md.contains("`tsu.urgent_gc = \"hold\"`, `ftl.gc.urgent_when = \"collecting\"`"), "{md}");
        assert!(md.contains("| paragc-unaligned (sensitivity, [I]) |"), "{md}");
        assert!(md.contains("the `gc-idle` experiment runs GC in chip idle time"), "{md}");
    }

    /// Ablation runs on the 3 quick traces.
    fn ablated_runs(xs: &[Experiment]) -> usize {
        xs.iter().filter(|x| x.ablation).map(|x| x.factors.len()).sum::<usize>() * ABLATION.len() * 3
    }

    /// The ablation rows are Baseline-D with one of SPD's parts each: none of them reads
    /// multi-plane (the main Baseline-D, Die-Read alone, does); Die-Write alone has SPD's
    /// buffer and aligned sets but GC per plane; Die-GC alone has Baseline-D's buffer and
    /// static planes, aligned sets, and pads its last group (the buffer route needs SPD's).
    #[test]
    fn each_ablation_row_adds_one_part_to_baseline_d() {
        let base = preset().unwrap();
        let with = |s: Scheme| {
            let mut c = base.clone();
            s.apply(&mut c);
            c
        };
        let (none, write, gc, d) =
            (with(Scheme::AblNone), with(Scheme::AblDieWrite), with(Scheme::AblDieGc), with(Scheme::BaselineD));
        assert!(d.nand.multiplane_reads && with(Scheme::Spd).nand.multiplane_reads);
        assert!(!none.nand.multiplane_reads && !write.nand.multiplane_reads && !gc.nand.multiplane_reads);
        let mut d_off = d.clone();
        d_off.nand.multiplane_reads = false;
        assert_eq!(none, d_off, "none = Baseline-D without multi-plane reads");
        assert_eq!(
            (write.cache.policy, write.ftl.gc.unit, write.ftl.block_alignment),
            (CachePolicy::Spd, GcUnit::Plane, BlockAlignment::Die)
        );
        assert_eq!(
            (gc.cache.policy, gc.ftl.gc.unit, gc.ftl.gc.die_leftover),
            (CachePolicy::BaselineD, GcUnit::Die, DieLeftover::Pad)
        );
        assert_eq!(gc.ftl.allocation, d.ftl.allocation);
    }

    #[test]
    fn every_scheme_is_a_valid_config_of_the_preset() {
        for s in SCHEMES.iter().chain(&ABLATION).copied() {
            let mut cfg = preset().expect("preset");
            s.apply(&mut cfg);
            cfg.validate(PRESET_NAME).unwrap_or_else(|e| panic!("{}: {e}", s.name()));
        }
    }
}
