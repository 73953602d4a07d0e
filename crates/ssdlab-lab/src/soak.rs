//! The integrity soak behind `ssdlab soak --writes N`: random overwrites of a drive kept 90 %
//! full, so GC runs all the time, through every mapping and allocation scheme, the write
//! cache's modes and every GC unit, with the integrity oracle ([`ssdlab::check`]: every read
//! returns the last data written, and a final sweep reads every logical page) and the FTL's
//! invariant checks on. Not a test (10 million writes take minutes) and not a benchmark (its
//! wall times are for the operator): a command that passes or names each combination that
//! lost data, broke an invariant or stalled.
//!
//! Where to start: [`plan`] chooses what runs on a drive and says why it skips the rest,
//! [`run_all`] runs it, [`drive`] is the drive.
//!
//! The combinations: four axes, each value setting every key of its axis, so that a
//! combination's name (`dftl/CW/lru/para`) says all it changes in the drive: every
//! `ftl.mapping` ([`MAPPINGS`]); one allocation scheme of each kind ([`CROSS_ALLOCATIONS`]);
//! the cache modes ([`CacheMode`]); the GC modes ([`GcMode`]). Of their cross product, the
//! points [`Config::validate`] accepts; of those, by default, enough to hold every pair of
//! values that validates together ([`all_pairs`]), or all of them ([`Selection::Every`]).
//! Then every other allocation order ([`every_order`]: the other 23 static orders and 37
//! hybrids) once, on the full map with the cache off and plane GC.
//!
//! The workload of one combination: the drive preconditioned randomly to [`OCCUPANCY`], then
//! one closed-loop flow at queue depth [`QUEUE_DEPTH`] of uniformly random 4 KiB and 8 KiB
//! requests on 4 KiB boundaries (so partial pages are read, modified and written back),
//! [`READ_PERCENT`] % of them reads so that the oracle checks reads while GC runs. The `N`
//! writes are split evenly over the combinations that run ([`shares`]).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use ssdlab::cache::config::{CacheConfig, CachePolicy, Destage, SlotRelease};
use ssdlab::config::{Config, FtlConfig};
use ssdlab::error::{Error, Result};
use ssdlab::ftl::config::MappingUnit;
use ssdlab::ftl::gc::die_gc::DieLeftover;
use ssdlab::ftl::precondition::Pattern;
use ssdlab::ftl::{AllocationScheme, BlockAlignment, GcUnit, MappingKind};
use ssdlab::hil::Hazards;
use ssdlab::host::{FlowSpec, PreconditionSpec, WorkloadSpec};
use ssdlab::sim::{RunOptions, Simulation};

/// The default drive: `presets/mqsim-default.toml` with these keys, 4 channels × 2 chips (of
/// 8 × 4) × 2 dies × 2 planes × 256 blocks (of 2048) × 16 pages (of 256): 131,072 pages of
/// 8 KiB, 1 GiB. Timing, 7 % over-provisioning and GC thresholds stay MQSim's. The blocks
/// per plane cannot shrink much further: the blocks GC keeps free (5 %, rounded up) and open
/// must leave room for the logical pages, which fails at 128 per plane (`Config::validate`),
/// so the pages per block and the chips shrink instead. 90 % full, GC runs from the first
/// few thousand writes of a combination on, and 80,000 writes program the drive's pages
/// about three times over (README.md, "Integrity soak", has the figures). A
/// 2 MiB cache (256 pages, of the preset's 256 MiB) fills at once and writes back all the
/// time.
pub const SMALL_DRIVE: [&str; 5] = [
    "nand.channels=4",
    "nand.chips_per_channel=2",
    "nand.blocks_per_plane=256",
    "nand.pages_per_block=16",
    "cache.capacity_bytes=2097152",
];

/// Fraction of the logical space written before the overwrites start.
pub const OCCUPANCY: f64 = 0.9;
/// Share of a combination's requests that are reads (checked by the oracle), in percent.
pub const READ_PERCENT: u64 = 10;
/// Requests the flow keeps outstanding.
pub const QUEUE_DEPTH: u32 = 32;
/// Map RAM of the demand-based mappings: 128 KiB, a quarter of the small drive's table
/// (122,000 logical pages × 4 bytes), so their map caches miss, evict and flush all the time.
/// FMMU's first level takes 64 KiB of it, leaving 8 translation pages for its second.
pub const MAP_RAM_BYTES: u64 = 128 * 1024;
/// Static wear levelling's erase-count spread in [`GcMode::WearLevel`]: low enough that the
/// few erases per block of a combination's run reach it.
pub const WEAR_LEVEL_SPREAD: u32 = 2;

/// Every `ftl.mapping`.
pub const MAPPINGS: [MappingKind; 5] =
    [MappingKind::Full, MappingKind::Dftl, MappingKind::Cdftl, MappingKind::Tpftl, MappingKind::Fmmu];

/// One allocation scheme of each kind, crossed with everything else: static (`CWDP`), hybrids
/// fixing three (`CWD`, the one SPD needs), two and one letters, and the dynamic and
/// partitioned schemes.
pub const CROSS_ALLOCATIONS: [&str; 8] = ["CWDP", "CWD", "CW", "C", "dynamic", "dynamic_rr", "lv_partition", "pacp"];

/// The write cache of a combination (`cache.enabled`, `policy`, `destage`, `slot_release`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheMode {
    Off,
    /// LRU write-back when full, a slot freed when its program ends (the defaults).
    Lru,
    /// LRU, every written page sent to flash at once (MQSim's destage buffer).
    Eager,
    /// LRU, a slot freed at eviction (SSDsim's buffer).
    Evicted,
    /// SPD's Die-Write, slots freed at eviction as in `presets/spd.toml`.
    Spd,
    BaselineD,
    BaselineP,
}

impl CacheMode {
    pub const ALL: [CacheMode; 7] = [
        CacheMode::Off,
        CacheMode::Lru,
        CacheMode::Eager,
        CacheMode::Evicted,
        CacheMode::Spd,
        CacheMode::BaselineD,
        CacheMode::BaselineP,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CacheMode::Off => "off",
            CacheMode::Lru => "lru",
            CacheMode::Eager => "eager",
            CacheMode::Evicted => "evicted",
            CacheMode::Spd => "spd",
            CacheMode::BaselineD => "baseline_d",
            CacheMode::BaselineP => "baseline_p",
        }
    }

    fn apply(self, cache: &mut CacheConfig) {
        cache.enabled = self != CacheMode::Off;
        cache.policy = match self {
            CacheMode::Off | CacheMode::Lru | CacheMode::Eager | CacheMode::Evicted => CachePolicy::Lru,
            CacheMode::Spd => CachePolicy::Spd,
            CacheMode::BaselineD => CachePolicy::BaselineD,
            CacheMode::BaselineP => CachePolicy::BaselineP,
        };
        cache.destage = if self == CacheMode::Eager { Destage::Eager } else { Destage::WhenFull };
        let evicted = matches!(self, CacheMode::Evicted | CacheMode::Spd);
        cache.slot_release = if evicted { SlotRelease::Evicted } else { SlotRelease::Programmed };
    }
}

/// GC of a combination (`ftl.gc.unit`, `copyback`, `die_leftover`, `ftl.block_alignment`,
/// `ftl.wear_leveling.static_threshold`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcMode {
    /// One block of the plane that needs it, moved by read and program.
    Plane,
    /// Plane GC moving pages with copyback.
    Copyback,
    /// Plane GC with static wear levelling at [`WEAR_LEVEL_SPREAD`].
    WearLevel,
    /// SPD's Die-GC, its last partial group padded; aligned blocks.
    Die,
    /// Die-GC, its last partial group into the write buffer; aligned blocks.
    DieBuffer,
    /// TwinBlk; aligned blocks.
    Twin,
    /// ParaGC.
    Para,
    /// Plane GC on a drive mapped in 4 KiB units ([`UNIT_BYTES`]; two per page of the
    /// default drive), packed into pages.
    Units,
}

/// `ftl.mapping_unit_bytes` of [`GcMode::Units`].
pub const UNIT_BYTES: u32 = 4096;

impl GcMode {
    pub const ALL: [GcMode; 8] = [
        GcMode::Plane,
        GcMode::Copyback,
        GcMode::WearLevel,
        GcMode::Die,
        GcMode::DieBuffer,
        GcMode::Twin,
        GcMode::Para,
        GcMode::Units,
    ];

    pub fn name(self) -> &'static str {
        match self {
            GcMode::Plane => "plane",
            GcMode::Copyback => "copyback",
            GcMode::WearLevel => "wear_level",
            GcMode::Die => "die",
            GcMode::DieBuffer => "die_buffer",
            GcMode::Twin => "twin",
            GcMode::Para => "para",
            GcMode::Units => "units",
        }
    }

    fn apply(self, ftl: &mut FtlConfig) {
        ftl.gc.unit = match self {
            GcMode::Plane | GcMode::Copyback | GcMode::WearLevel | GcMode::Units => GcUnit::Plane,
            GcMode::Die | GcMode::DieBuffer => GcUnit::Die,
            GcMode::Twin => GcUnit::Twin,
            GcMode::Para => GcUnit::Para,
        };
        ftl.block_alignment = if ftl.gc.unit.aligned_set() { BlockAlignment::Die } else { BlockAlignment::None };
        ftl.gc.copyback = self == GcMode::Copyback;
        ftl.gc.die_leftover = if self == GcMode::DieBuffer { DieLeftover::Buffer } else { DieLeftover::Pad };
        ftl.wear_leveling.static_threshold = if self == GcMode::WearLevel { WEAR_LEVEL_SPREAD } else { 0 };
        ftl.mapping_unit_bytes = (self == GcMode::Units).then_some(MappingUnit::Bytes(UNIT_BYTES));
    }
}

/// One point of the soak: what it sets in the drive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combination {
    pub mapping: MappingKind,
    pub allocation: AllocationScheme,
    pub cache: CacheMode,
    pub gc: GcMode,
}

impl Combination {
    /// `mapping/allocation/cache/gc`, e.g. `dftl/CW/lru/para`.
    pub fn name(&self) -> String {
        format!("{}/{}/{}/{}", self.mapping.name(), self.allocation, self.cache.name(), self.gc.name())
    }

    /// `base` with this combination's keys set (not validated).
    pub fn apply(&self, base: &Config) -> Config {
        let mut config = base.clone();
        config.ftl.mapping = self.mapping;
        if self.mapping.defaults().is_some() {
            config.ftl.map_cache.ram_bytes = Some(MAP_RAM_BYTES);
        }
        config.ftl.allocation = self.allocation.clone();
        self.cache.apply(&mut config.cache);
        self.gc.apply(&mut config.ftl);
        config
    }

    /// Whether `filter` names this combination: its name contains `filter` as whole
    /// `/`-separated parts (`dftl` is not `cdftl`, `die` is not `die_buffer`).
    pub fn matches(&self, filter: &str) -> bool {
        format!("/{}/", self.name()).contains(&format!("/{}/", filter.trim_matches('/')))
    }
}

/// An allocation scheme written as in a config; only for the names this module spells.
fn allocation(name: &str) -> AllocationScheme {
    AllocationScheme::parse(name).unwrap_or_else(|e| panic!("soak's own allocation `{name}`: {e}"))
}

/// Every allocation order: each sequence of 1 to 4 distinct letters of C, W, D, P, the 24
/// static orders (4 letters) first, then the hybrids (3, 2, 1 letters: 24 + 12 + 4).
pub fn every_order() -> Vec<AllocationScheme> {
    fn extend(prefix: &str, out: &mut Vec<String>) {
        for c in ['C', 'W', 'D', 'P'].into_iter().filter(|c| !prefix.contains(*c)) {
            let order = format!("{prefix}{c}");
            extend(&order, out);
            out.push(order);
        }
    }
    let mut orders = Vec::new();
    extend("", &mut orders);
    orders.sort_by_key(|o| std::cmp::Reverse(o.len()));
    orders.iter().map(|o| allocation(o)).collect()
}

/// A point of the cross product: an index into [`MAPPINGS`], [`CROSS_ALLOCATIONS`],
/// [`CacheMode::ALL`] and [`GcMode::ALL`].
pub type Point = [usize; 4];

/// Values per axis, in [`Point`] order.
const AXIS_LEN: [usize; 4] = [MAPPINGS.len(), CROSS_ALLOCATIONS.len(), CacheMode::ALL.len(), GcMode::ALL.len()];

/// Two axes (the first before the second) and a value of each.
type Pair = (usize, usize, usize, usize);

/// The combination at `p`.
pub fn at(p: Point) -> Combination {
    Combination {
        mapping: MAPPINGS[p[0]],
        allocation: allocation(CROSS_ALLOCATIONS[p[1]]),
        cache: CacheMode::ALL[p[2]],
        gc: GcMode::ALL[p[3]],
    }
}

/// The name of value `v` of `axis`.
fn value_name(axis: usize, v: usize) -> &'static str {
    match axis {
        0 => MAPPINGS[v].name(),
        1 => CROSS_ALLOCATIONS[v],
        2 => CacheMode::ALL[v].name(),
        _ => GcMode::ALL[v].name(),
    }
}

/// The six pairs of values `p` holds.
fn pairs(p: &Point) -> impl Iterator<Item = Pair> + '_ {
    (0..4).flat_map(move |a| (a + 1..4).map(move |b| (a, p[a], b, p[b])))
}

/// Every pair of values of two axes.
fn every_pair() -> impl Iterator<Item = Pair> {
    (0..4).flat_map(|a| {
        (a + 1..4)
            .flat_map(move |b| (0..AXIS_LEN[a]).flat_map(move |va| (0..AXIS_LEN[b]).map(move |vb| (a, va, b, vb))))
    })
}

/// Every point of the cross product, mapping slowest.
pub fn cross() -> Vec<Point> {
    let mut all = Vec::new();
    for m in 0..AXIS_LEN[0] {
        for a in 0..AXIS_LEN[1] {
            for c in 0..AXIS_LEN[2] {
                all.extend((0..AXIS_LEN[3]).map(|g| [m, a, c, g]));
            }
        }
    }
    all
}

/// All-pairs selection, greedy as in AETG (Cohen et al., "The AETG System", IEEE TSE 23(7),
/// 1997, §III), over the valid points in order instead of random candidates: take the first
/// point that holds the most pairs not yet covered, until every pair some valid point holds
/// is covered. On the default drive the valid points are 771, about 12,000 writes each out
/// of 10 million (with the order sweep); all pairs are 65, about 80,000 each, enough to
/// program the drive's pages three times over. A bug that needs three values together may
/// be missed; one that needs two is not. Each round covers at least one pair (every pair
/// left is held by some valid point), so it ends after at most as many rounds as pairs.
pub fn all_pairs(valid: &[Point]) -> Vec<Point> {
    let mut uncovered: BTreeSet<Pair> = valid.iter().flat_map(pairs).collect();
    let mut chosen = Vec::new();
    while !uncovered.is_empty() {
        let (mut best, mut best_new) = (0, 0);
        for (i, p) in valid.iter().enumerate() {
            let new = pairs(p).filter(|q| uncovered.contains(q)).count();
            if new > best_new {
                (best, best_new) = (i, new);
            }
        }
        pairs(&valid[best]).for_each(|q| {
            uncovered.remove(&q);
        });
        chosen.push(valid[best]);
    }
    chosen.sort_unstable();
    chosen
}

/// A combination to run, with its validated drive.
#[derive(Debug, Clone)]
pub struct Planned {
    pub combination: Combination,
    pub config: Config,
}

/// What is not run, and `validate`'s message: a pair of values no valid point holds (`what`
/// is `dftl + die`, `example` the pair set on the first point, `full/CWDP/off/plane`), or
/// an allocation order of the sweep (`what` is its name).
#[derive(Debug, Clone)]
pub struct Skipped {
    pub what: String,
    pub example: Combination,
    pub reason: String,
}

#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub runs: Vec<Planned>,
    pub skipped: Vec<Skipped>,
}

/// `validate`'s message for `config`, None if it validates.
fn rejection(config: &Config) -> Option<String> {
    match config.validate("soak") {
        Ok(()) => None,
        Err(Error::Config { message, .. }) => Some(message),
        Err(e) => Some(e.to_string()),
    }
}

/// Which points of the cross product run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// Enough points to hold every pair of values that validates together ([`all_pairs`]).
    AllPairs,
    /// Every point that validates.
    Every,
}

/// What runs on `base`: the `selection` of the cross product, then every other allocation
/// order ([`every_order`]) on the full map with the cache off and plane GC; with `only`,
/// just the combinations it names ([`Combination::matches`]). Skipped: the pairs no valid
/// point holds, each with `validate`'s message for the pair set on the first point
/// (`full/CWDP/off/plane`), and the orders that do not validate.
pub fn plan(base: &Config, selection: Selection, only: Option<&str>) -> Plan {
    let valid: Vec<Point> = cross().into_iter().filter(|&p| rejection(&at(p).apply(base)).is_none()).collect();
    let chosen = match selection {
        Selection::AllPairs => all_pairs(&valid),
        Selection::Every => valid.clone(),
    };
    let mut plan = Plan::default();
    for p in chosen {
        let combination = at(p);
        plan.runs.push(Planned { config: combination.apply(base), combination });
    }
    let held: BTreeSet<Pair> = valid.iter().flat_map(pairs).collect();
    for (a, va, b, vb) in every_pair().filter(|q| !held.contains(q)) {
        let mut p = [0; 4];
        (p[a], p[b]) = (va, vb);
        let what = format!("{} + {}", value_name(a, va), value_name(b, vb));
        let reason = rejection(&at(p).apply(base)).unwrap_or_default();
        plan.skipped.push(Skipped { what, example: at(p), reason });
    }
    let cross_allocations: Vec<AllocationScheme> = CROSS_ALLOCATIONS.iter().map(|a| allocation(a)).collect();
    for a in every_order().into_iter().filter(|a| !cross_allocations.contains(a)) {
        let combination =
            Combination { mapping: MappingKind::Full, allocation: a, cache: CacheMode::Off, gc: GcMode::Plane };
        let config = combination.apply(base);
        match rejection(&config) {
            None => plan.runs.push(Planned { combination, config }),
            Some(reason) => plan.skipped.push(Skipped { what: combination.name(), example: combination, reason }),
        }
    }
    if let Some(only) = only {
        plan.runs.retain(|r| r.combination.matches(only));
        plan.skipped.retain(|s| s.example.matches(only));
    }
    plan
}

/// The skipped pairs and orders grouped by `validate`'s message with the rejected value left
/// out (`ftl.allocation: cache.policy = "spd" chooses ...` for every allocation SPD rejects),
/// in the order the messages first occur.
pub fn skipped_summary(skipped: &[Skipped]) -> String {
    let mut reasons: Vec<(String, Vec<&str>)> = Vec::new();
    for s in skipped {
        let reason = match s.reason.split_once(": ") {
            Some((head, why)) => format!("{}: {why}", head.split(" = ").next().unwrap_or(head)),
            None => s.reason.clone(),
        };
        match reasons.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, whats)) => whats.push(&s.what),
            None => reasons.push((reason, vec![&s.what])),
        }
    }
    let mut out = format!("skipped, as Config::validate rejects them ({}):\n", skipped.len());
    for (reason, whats) in reasons {
        out += &format!("  {}\n      {reason}\n", whats.join(", "));
    }
    out
}

/// The drive to soak, and a line saying what it is: `config` as given (with `sets`), or, by
/// default, `presets/mqsim-default.toml` shrunk by [`SMALL_DRIVE`] (then `sets`). The oracle
/// needs the drive to order overlapping writes (`hil.hazards = "strict"`).
pub fn drive(config: Option<&Path>, sets: &[String]) -> Result<(Config, String)> {
    let (drive, about) = match config {
        Some(path) => (Config::load(path, sets)?, path.display().to_string()),
        None => {
            let mut all: Vec<String> = SMALL_DRIVE.iter().map(|s| s.to_string()).collect();
            all.extend_from_slice(sets);
            let file = "presets/mqsim-default.toml";
            (Config::from_toml_str(crate::bench::MQSIM_DEFAULT, file, &all)?, format!("{file} with {}", all.join(" ")))
        }
    };
    if drive.hil.hazards != Hazards::Strict {
        let why = "the integrity oracle needs hil.hazards = \"strict\" (the drive orders overlapping writes)";
        return Err(Error::config(&about, 0, "hil.hazards", &format!("hil.hazards = {:?}: {why}", drive.hil.hazards)));
    }
    Ok((drive, about))
}

/// `writes` split evenly over `n` combinations, the first `writes % n` taking one more; an
/// error unless every combination gets at least one.
pub fn shares(writes: u64, n: usize) -> Result<Vec<u64>> {
    if n == 0 || writes < n as u64 {
        let why = format!("--writes {writes}: need at least one write for each of the {n} combinations");
        return Err(Error::config("--writes", 0, "writes", &why));
    }
    let (each, extra) = (writes / n as u64, writes % n as u64);
    Ok((0..n as u64).map(|i| each + u64::from(i < extra)).collect())
}

/// One combination's workload: precondition to [`OCCUPANCY`], then requests enough for
/// `writes` writes on average ([`READ_PERCENT`] % of requests are reads).
pub fn workload(writes: u64, seed: u64) -> WorkloadSpec {
    let flow = FlowSpec {
        name: "soak".into(),
        read_ratio: READ_PERCENT as f64 / 100.0,
        queue_depth: Some(QUEUE_DEPTH),
        requests: (writes * 100).div_ceil(100 - READ_PERCENT),
        request_bytes_choices: vec![(4096, 1.0), (8192, 1.0)],
        align_bytes: 4096,
        ..FlowSpec::default()
    };
    WorkloadSpec {
        source: "soak".into(),
        seed,
        precondition: Some(PreconditionSpec { occupancy: OCCUPANCY, pattern: Pattern::Random }),
        ramp_ms: 0.0,
        flows: vec![flow],
    }
}

/// A combination's seed: `seed` mixed with its name (FNV-1a), so combinations draw different
/// addresses and a combination run alone (`--only`) draws the same ones as in the full soak.
pub fn seed_for(seed: u64, name: &str) -> u64 {
    let fnv = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    seed ^ fnv
}

/// Seconds a combination of `writes` writes may run before it counts as hung: 60, plus one
/// per 200 writes. On the default drive (release build, oracle on) 80,000 writes take
/// 0.3 s to 30 s alone, the slowest being a demand-based map with static wear levelling
/// (some 6 GC invocations per write); the limit, 460 s for them, leaves a margin of 15 for
/// a loaded machine, and a livelock (simulated time advancing, no request finishing) is
/// still caught within minutes.
pub fn time_limit_s(writes: u64) -> u64 {
    60 + writes / 200
}

/// What one combination did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SoakResult {
    pub name: String,
    pub writes: u64,
    pub reads: u64,
    pub gc_invocations: u64,
    /// Reads the oracle compared, host reads and the final sweep over every logical page.
    pub reads_checked: u64,
    pub violations: u64,
    /// The first violation, or why the run failed: `None` when it passed.
    pub failure: Option<String>,
    pub wall_s: f64,
}

impl SoakResult {
    /// A run of `name` that ended without results.
    pub fn failed(name: &str, failure: String, wall_s: f64) -> SoakResult {
        SoakResult {
            name: name.to_string(),
            writes: 0,
            reads: 0,
            gc_invocations: 0,
            reads_checked: 0,
            violations: 0,
            failure: Some(failure),
            wall_s,
        }
    }

    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }

    /// One line of progress: name, counts, wall time, verdict.
    pub fn line(&self) -> String {
        let verdict = match &self.failure {
            None => "ok".to_string(),
            Some(f) => format!("FAILED: {f}"),
        };
        format!(
            "{:<32} {:>9} writes {:>8} reads {:>8} GC {:>9} checked {:>3} violations {:>7.2} s  {verdict}",
            self.name, self.writes, self.reads, self.gc_invocations, self.reads_checked, self.violations, self.wall_s
        )
    }
}

/// Run one combination in this thread for `writes` writes with the oracle on. A broken
/// invariant panics here (the CLI runs each combination in a process of its own, so that a
/// panic fails that combination only).
pub fn run_one(planned: &Planned, writes: u64, seed: u64) -> SoakResult {
    let name = planned.combination.name();
    let wall = Instant::now();
    let opts = RunOptions { check: true, ..RunOptions::default() };
    let seed = seed_for(seed, &name);
    let outcome = Simulation::new(&planned.config, &workload(writes, seed), seed, &opts).and_then(|sim| sim.run());
    let wall_s = wall.elapsed().as_secs_f64();
    let o = match outcome {
        Ok(o) => o,
        Err(e) => return SoakResult::failed(&name, format!("run failed: {e}"), wall_s),
    };
    let check = o.check.expect("a run with check on reports its check");
    let failure = (check.violations > 0).then(|| {
        let first = check.first_violation.unwrap_or_default();
        format!("{} integrity violations; first: {first}", check.violations)
    });
    SoakResult {
        name,
        writes: o.stats.write.count(),
        reads: o.stats.read.count(),
        gc_invocations: o.stats.gc_invocations,
        reads_checked: check.reads_checked,
        violations: check.violations,
        failure,
        wall_s,
    }
}

/// Run every planned combination with its share of the writes (`shares[i]` for `runs[i]`)
/// through `run` (in this process: [`run_one`] with a seed), on up to `threads` threads,
/// calling `done` with each result as it finishes (one call at a time, with the number
/// finished so far); returns the results in plan order.
pub fn run_all(
    runs: &[Planned],
    shares: &[u64],
    threads: usize,
    run: impl Fn(&Planned, u64) -> SoakResult + Sync,
    done: impl Fn(usize, &SoakResult) + Sync,
) -> Vec<SoakResult> {
    assert_eq!(runs.len(), shares.len(), "one share of the writes per combination");
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<SoakResult>>> = Mutex::new(vec![None; runs.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, runs.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= runs.len() {
                    break;
                }
                let r = run(&runs[i], shares[i]);
                let mut all = results.lock().expect("no soak thread panicked holding the results");
                all[i] = Some(r);
                let finished = all.iter().filter(|r| r.is_some()).count();
                done(finished, all[i].as_ref().expect("just stored"));
            });
        }
    });
    let all = results.into_inner().expect("no soak thread panicked holding the results");
    all.into_iter().map(|r| r.expect("every combination ran")).collect()
}

/// The closing lines: totals, and the failed combinations by name.
pub fn summary(results: &[SoakResult], wall_s: f64) -> String {
    let sum = |f: fn(&SoakResult) -> u64| results.iter().map(f).sum::<u64>();
    let failed: Vec<&SoakResult> = results.iter().filter(|r| !r.passed()).collect();
    let verdict = match failed.len() {
        0 => "PASS".to_string(),
        n => format!("FAIL ({n} of {})", results.len()),
    };
    let mut out = format!(
        "soak: {} combinations, {} writes, {} reads, {} GC invocations, {} reads checked, {} violations, {wall_s:.1} s wall: {verdict}\n",
        results.len(),
        sum(|r| r.writes),
        sum(|r| r.reads),
        sum(|r| r.gc_invocations),
        sum(|r| r.reads_checked),
        sum(|r| r.violations),
    );
    for r in failed {
        out += &format!("failed: {}: {}\n", r.name, r.failure.as_deref().unwrap_or(""));
    }
    out
}

#[cfg(test)]
mod tests;
