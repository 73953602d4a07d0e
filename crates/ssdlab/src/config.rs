//! Configuration: one TOML file describing the drive, typed and validated.
//!
//! Every key is documented in `docs/config.md` with its unit and default; unknown keys are
//! errors (serde `deny_unknown_fields`), never silently ignored. Times are written in the
//! unit named by the key (`t_read_us`, `cmd_addr_cycle_ns`) and converted once, in
//! [`Config::resolve`], to integer picoseconds.
//!
//! Every choice (`tsu.policy`, `hil.scheduler`, `ftl.allocation`, ...) is typed as the enum
//! of the layer it configures, so a config that deserialises names only valid choices and
//! the layers match on it with no fallback; a misspelled choice fails when the file is read,
//! naming the key, the value and the choices.
//!
//! `--set key=value` overrides are applied to the parsed TOML tree before it is typed, so an
//! override of a misspelled key fails exactly like the misspelled key in a file would.

use serde::{Deserialize, Serialize};
use std::path::Path;

use crate::error::{Error, Result};
use crate::ftl::{AllocationScheme, MappingKind, UnwrittenRead, VictimPolicy};
use crate::hif::{Arbitration, Interface};
use crate::hil::{Fairness, Hazards, SchedulerKind};
use crate::tsu::TsuPolicyKind;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub nand: NandConfig,
    pub tsu: TsuConfig,
    pub ftl: FtlConfig,
    pub cache: CacheConfig,
    pub hil: HilConfig,
    pub hif: HifConfig,
    pub stats: StatsConfig,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NandConfig {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub sector_bytes: u32,
    /// slc | mlc | tlc | qlc: the number of page types (1..4). A page's type is its offset in
    /// the block modulo that number (LSB, CSB, MSB, ...).
    pub cell: CellType,
    /// Array read latency per page type, LSB first.
    pub t_read_us: Vec<f64>,
    /// Program latency per page type, LSB first.
    pub t_program_us: Vec<f64>,
    pub t_erase_us: f64,
    /// Allow multi-plane commands (same die, different planes, same page offset).
    pub multiplane: bool,
    /// Multi-plane commands also need the same block index in every plane.
    pub multiplane_same_block: bool,
    /// Allow one command to drive several dies of a chip (die interleaving).
    pub die_interleave: bool,
    pub bus: BusConfig,
    pub suspension: SuspensionConfig,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn page_types(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BusConfig {
    /// ONFI data rate in mega-transfers per second.
    pub rate_mt_s: f64,
    /// Bus width in bits.
    pub width_bits: u32,
    /// Time of one command or address cycle.
    pub cmd_addr_cycle_ns: f64,
    /// Command + address cycles per plane of a read (00h, 5 address, 30h).
    pub read_cycles: u32,
    /// Command + address cycles per plane of a program (80h, 5 address, 10h).
    pub program_cycles: u32,
    /// Command + address cycles per plane of an erase (60h, 3 address, D0h).
    pub erase_cycles: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SuspensionConfig {
    /// Suspend a running program or erase when a user read arrives for the chip.
    pub enabled: bool,
    pub t_suspend_us: f64,
    pub t_resume_us: f64,
    /// How many times one program/erase may be suspended.
    pub max_per_op: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TsuConfig {
    /// fifo | ooo | flin
    pub policy: TsuPolicyKind,
    /// How many queued transactions per queue the builder looks at when coalescing.
    pub scan_limit: u32,
    pub flin: FlinConfig,
}

/// FLIN's parameters (ISCA 2018; defaults from its authors' code, TECHNIQUES.md §1).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlinConfig {
    /// Length of the epoch over which flow intensity is measured.
    pub epoch_us: f64,
    /// A flow is low-intensity for reads on a chip if it enqueued fewer reads there in an
    /// epoch than this many bytes of the whole drive's worth, per chip, in pages.
    pub alpha_read_bytes: u64,
    /// The same for writes.
    pub alpha_write_bytes: u64,
    /// Below this fairness (min / max mean slowdown) in the high-intensity segment, its most
    /// slowed-down flow's new transaction jumps to the segment's front.
    pub fairness_threshold: f64,
    /// Flows start low-intensity (before their first epoch ends).
    pub start_low_intensity: bool,
}

impl Default for FlinConfig {
    fn default() -> Self {
        FlinConfig {
            epoch_us: 10_000.0,
            alpha_read_bytes: 32 << 20,
            alpha_write_bytes: 256 << 10,
            fairness_threshold: 0.6,
            start_low_intensity: true,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    /// Fraction of physical pages not exposed as logical pages.
    pub overprovisioning_ratio: f64,
    /// One of the 24 static orders (CWDP, ...), its first 1 to 3 letters (hybrid), or `dynamic`.
    pub allocation: AllocationScheme,
    /// page (full page table). A trait lets demand-based mapping come later.
    pub mapping: MappingKind,
    /// What a read of a never-written page does: `flash` reads the page static allocation
    /// would have given it (so a fresh drive has realistic read timing), `zero` completes
    /// without touching flash.
    pub unwritten_read: UnwrittenRead,
    pub gc: GcConfig,
    pub wear_leveling: WearLevelingConfig,
    pub firmware: FirmwareConfig,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct GcConfig {
    /// greedy | cost_benefit | random | fifo | d_choices
    pub policy: VictimPolicy,
    /// GC starts on a plane when its free blocks fall below this fraction of its blocks.
    pub threshold: f64,
    /// User writes to a plane wait when its free blocks fall to this fraction (foreground GC);
    /// at least one block is always kept for GC.
    pub hard_threshold: f64,
    /// Background GC: while a chip is idle, clean planes whose free fraction is below this.
    /// 0 turns background GC off.
    pub background_threshold: f64,
    /// Move valid pages with copyback (no data over the bus) instead of read + program.
    pub copyback: bool,
    /// Number of random candidates for `d_choices`.
    pub d: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WearLevelingConfig {
    /// Dynamic: a plane opens its least-erased free block.
    pub dynamic: bool,
    /// Static: when the erase-count spread of a plane exceeds this, its least-erased full
    /// block is cleaned so cold data moves to a worn block. 0 turns it off.
    pub static_threshold: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FirmwareConfig {
    pub cores: u32,
    /// Firmware time per memory request (mapping lookup, allocation), per core.
    pub op_cost_ns: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    pub enabled: bool,
    pub capacity_bytes: u64,
    /// DRAM time to serve one page from the cache.
    pub dram_access_ns: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HilConfig {
    /// Device-level scheduler: direct | vas | pas | spk1 | spk2 | spk3
    pub scheduler: SchedulerKind,
    /// Device-level queue depth (tags).
    pub queue_depth: u32,
    /// PAS and SPK1: times the oldest request may be overtaken before it goes first.
    pub max_bypass: u32,
    /// Sprinkler's readdressing callback: update the targets of uncommitted requests when
    /// their data moves to another plane.
    pub readdressing: bool,
    /// Which overlapping requests the drive keeps in order: strict (RAW, WAR, WAW) | war
    /// (only a write after a read, Sprinkler §4.4; the host orders the rest).
    pub hazards: Hazards,
    /// Fairness layer over the device queue: none | wa_bc (budgets with GC compensation,
    /// Jun & Shin 2015: FLIN's "Sprinkler+Fairness").
    pub fairness: Fairness,
    /// WA-BC: each flow's budget per round, in device time per chip.
    pub wa_bc_round_us: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HifConfig {
    /// nvme | sata
    pub interface: Interface,
    /// round_robin | weighted_round_robin (NVMe only)
    pub arbitration: Arbitration,
    /// Weighted round-robin weights of the high, medium and low classes; urgent is strict.
    pub wrr_weights: Vec<u32>,
    /// Fixed time from a command's fetch to the device seeing it.
    pub command_latency_ns: f64,
    pub pcie: PcieConfig,
    pub sata: SataConfig,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PcieConfig {
    pub lanes: u32,
    /// Payload bandwidth of one lane in GB/s (10^9 bytes per second).
    pub lane_gb_s: f64,
    pub tlp_payload_bytes: u32,
    pub tlp_overhead_bytes: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SataConfig {
    /// Link payload bandwidth in MB/s (10^6 bytes per second).
    pub bandwidth_mb_s: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct StatsConfig {
    /// Time-series interval; 0 turns the time series off.
    pub interval_us: f64,
}

impl Default for NandConfig {
    fn default() -> Self {
        NandConfig {
            channels: 8,
            chips_per_channel: 4,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 2048,
            pages_per_block: 256,
            page_bytes: 8192,
            sector_bytes: 512,
            cell: CellType::Mlc,
            t_read_us: vec![75.0, 75.0],
            t_program_us: vec![750.0, 750.0],
            t_erase_us: 3800.0,
            multiplane: true,
            multiplane_same_block: false,
            die_interleave: true,
            bus: BusConfig::default(),
            suspension: SuspensionConfig::default(),
        }
    }
}

impl Default for BusConfig {
    fn default() -> Self {
        BusConfig {
            rate_mt_s: 333.0,
            width_bits: 8,
            cmd_addr_cycle_ns: 10.0,
            read_cycles: 7,
            program_cycles: 7,
            erase_cycles: 5,
        }
    }
}

impl Default for SuspensionConfig {
    fn default() -> Self {
        SuspensionConfig { enabled: false, t_suspend_us: 20.0, t_resume_us: 20.0, max_per_op: 4 }
    }
}

impl Default for TsuConfig {
    fn default() -> Self {
        TsuConfig { policy: TsuPolicyKind::Ooo, scan_limit: 64, flin: FlinConfig::default() }
    }
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            overprovisioning_ratio: 0.07,
            allocation: AllocationScheme::CWDP,
            mapping: MappingKind::Page,
            unwritten_read: UnwrittenRead::Flash,
            gc: GcConfig::default(),
            wear_leveling: WearLevelingConfig::default(),
            firmware: FirmwareConfig::default(),
        }
    }
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig {
            policy: VictimPolicy::Greedy,
            threshold: 0.05,
            hard_threshold: 0.005,
            background_threshold: 0.0,
            copyback: false,
            d: 4,
        }
    }
}

impl Default for WearLevelingConfig {
    fn default() -> Self {
        WearLevelingConfig { dynamic: true, static_threshold: 0 }
    }
}

impl Default for FirmwareConfig {
    fn default() -> Self {
        FirmwareConfig { cores: 1, op_cost_ns: 0.0 }
    }
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig { enabled: false, capacity_bytes: 256 << 20, dram_access_ns: 0.0 }
    }
}

impl Default for HilConfig {
    fn default() -> Self {
        HilConfig {
            scheduler: SchedulerKind::Direct,
            queue_depth: 32,
            max_bypass: 32,
            readdressing: true,
            hazards: Hazards::Strict,
            fairness: Fairness::None,
            wa_bc_round_us: 10_000.0,
        }
    }
}

impl Default for HifConfig {
    fn default() -> Self {
        HifConfig {
            interface: Interface::Nvme,
            arbitration: Arbitration::RoundRobin,
            wrr_weights: vec![4, 2, 1],
            command_latency_ns: 0.0,
            pcie: PcieConfig::default(),
            sata: SataConfig::default(),
        }
    }
}

impl Default for PcieConfig {
    fn default() -> Self {
        PcieConfig { lanes: 4, lane_gb_s: 1.0, tlp_payload_bytes: 256, tlp_overhead_bytes: 24 }
    }
}

impl Default for SataConfig {
    fn default() -> Self {
        SataConfig { bandwidth_mb_s: 600.0 }
    }
}

impl Default for StatsConfig {
    fn default() -> Self {
        StatsConfig { interval_us: 0.0 }
    }
}

/// Parse `value` of a `--set key=value` as a TOML value; a bare word is a string.
fn parse_override_value(value: &str) -> toml::Value {
    let doc = format!("v = {value}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| toml::Value::String(value.to_string())),
        Err(_) => toml::Value::String(value.to_string()),
    }
}

/// Apply `key.path=value` to a TOML tree, creating tables on the way.
pub fn apply_override(root: &mut toml::Table, assignment: &str) -> Result<()> {
    let Some((key, value)) = assignment.split_once('=') else {
        return Err(Error::config("--set", 0, assignment, &format!("`{assignment}`: expected key=value")));
    };
    let key = key.trim();
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Error::config("--set", 0, key, &format!("`{key}`: empty component in key")));
    }
    let mut table = root;
    for part in &parts[..parts.len() - 1] {
        let entry = table.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        table = match entry {
            toml::Value::Table(t) => t,
            _ => return Err(Error::config("--set", 0, key, &format!("`{key}`: {part} is a value, not a table"))),
        };
    }
    table.insert(parts[parts.len() - 1].to_string(), parse_override_value(value.trim()));
    Ok(())
}

impl Config {
    /// Read a config file, apply `--set` overrides, type it and validate it.
    pub fn load(path: &Path, overrides: &[String]) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Config::from_toml_str(&text, &path.display().to_string(), overrides)
    }

    pub fn from_toml_str(text: &str, file: &str, overrides: &[String]) -> Result<Config> {
        let mut table: toml::Table = toml::from_str(text).map_err(|e| Error::toml(file, text, e))?;
        // First type the file alone, so that its errors carry file line numbers.
        let _: Config = toml::from_str(text).map_err(|e| Error::toml(file, text, e))?;
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        let config: Config = if overrides.is_empty() {
            toml::from_str(text).map_err(|e| Error::toml(file, text, e))?
        } else {
            Config::deserialize(toml::Value::Table(table)).map_err(|e| {
                Error::config(
                    "--set",
                    0,
                    &overrides.join(" "),
                    &format!("{}: {}", overrides.join(" "), e.message().trim()),
                )
            })?
        };
        config.validate(file).map_err(|e| match e {
            Error::Config { key, message, .. } => {
                let set_here = overrides.iter().any(|o| {
                    o.split_once('=')
                        .is_some_and(|(k, _)| k.trim() == key || key.starts_with(&format!("{}.", k.trim())))
                });
                if set_here {
                    Error::Config { file: "--set".into(), line: 0, key, message }
                } else {
                    Error::Config { file: file.to_string(), line: crate::error::line_of_key(text, &key), key, message }
                }
            }
            other => other,
        })?;
        Ok(config)
    }

    /// Check everything that can be impossible. The error names the key and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        fn bad<T: std::fmt::Debug>(file: &str, key: &str, value: T, why: &str) -> Result<()> {
            Err(Error::config(file, 0, key, &format!("{key} = {value:?}: {why}")))
        }
        let n = &self.nand;
        for (key, v) in [
            ("nand.channels", n.channels),
            ("nand.chips_per_channel", n.chips_per_channel),
            ("nand.dies_per_chip", n.dies_per_chip),
            ("nand.planes_per_die", n.planes_per_die),
            ("nand.blocks_per_plane", n.blocks_per_plane),
            ("nand.pages_per_block", n.pages_per_block),
            ("nand.page_bytes", n.page_bytes),
            ("nand.sector_bytes", n.sector_bytes),
            ("hil.queue_depth", self.hil.queue_depth),
            ("ftl.firmware.cores", self.ftl.firmware.cores),
            ("tsu.scan_limit", self.tsu.scan_limit),
            ("hif.pcie.lanes", self.hif.pcie.lanes),
            ("hif.pcie.tlp_payload_bytes", self.hif.pcie.tlp_payload_bytes),
        ] {
            if v == 0 {
                return bad(file, key, v, "must be at least 1");
            }
        }
        for (key, v, max) in [
            ("nand.dies_per_chip", n.dies_per_chip, 16),
            ("nand.planes_per_die", n.planes_per_die, 16),
            ("nand.pages_per_block", n.pages_per_block, 65535),
            ("hil.queue_depth", self.hil.queue_depth, 65536),
            ("ftl.firmware.cores", self.ftl.firmware.cores, 1024),
            ("nand.bus.read_cycles", n.bus.read_cycles, 1000),
            ("nand.bus.program_cycles", n.bus.program_cycles, 1000),
            ("nand.bus.erase_cycles", n.bus.erase_cycles, 1000),
            ("hif.pcie.lanes", self.hif.pcie.lanes, 64),
            ("hif.pcie.tlp_overhead_bytes", self.hif.pcie.tlp_overhead_bytes, 4096),
        ] {
            if v > max {
                return bad(file, key, v, &format!("at most {max}"));
            }
        }
        if !n.page_bytes.is_multiple_of(n.sector_bytes) {
            return bad(
                file,
                "nand.page_bytes",
                n.page_bytes,
                &format!("must be a multiple of nand.sector_bytes ({})", n.sector_bytes),
            );
        }
        if n.page_bytes / n.sector_bytes > 64 {
            return bad(file, "nand.page_bytes", n.page_bytes, "at most 64 sectors per page");
        }
        if ![8, 16, 32, 64].contains(&n.bus.width_bits) {
            return bad(file, "nand.bus.width_bits", n.bus.width_bits, "must be 8, 16, 32 or 64");
        }
        let total_pages = n.channels as u128
            * n.chips_per_channel as u128
            * n.dies_per_chip as u128
            * n.planes_per_die as u128
            * n.blocks_per_plane as u128
            * n.pages_per_block as u128;
        if total_pages >= u32::MAX as u128 {
            return bad(
                file,
                "nand.blocks_per_plane",
                n.blocks_per_plane,
                &format!(
                    "the drive would have {total_pages} pages; at most 2^32 - 2 (use larger pages or fewer blocks)"
                ),
            );
        }
        let types = n.cell.page_types();
        for (key, v) in [("nand.t_read_us", &n.t_read_us), ("nand.t_program_us", &n.t_program_us)] {
            if v.len() != types {
                return bad(file, key, v, &format!("needs one latency per page type: {types} for {:?}", n.cell));
            }
        }
        // Latencies: finite, non-negative and below 1000 s, so picosecond sums cannot overflow.
        let mut times: Vec<(&str, f64, f64)> = Vec::new();
        times.extend(n.t_read_us.iter().map(|&t| ("nand.t_read_us", t, 1e9)));
        times.extend(n.t_program_us.iter().map(|&t| ("nand.t_program_us", t, 1e9)));
        times.extend([
            ("nand.t_erase_us", n.t_erase_us, 1e9),
            ("nand.bus.cmd_addr_cycle_ns", n.bus.cmd_addr_cycle_ns, 1e9),
            ("nand.suspension.t_suspend_us", n.suspension.t_suspend_us, 1e9),
            ("nand.suspension.t_resume_us", n.suspension.t_resume_us, 1e9),
            ("ftl.firmware.op_cost_ns", self.ftl.firmware.op_cost_ns, 1e9),
            ("cache.dram_access_ns", self.cache.dram_access_ns, 1e9),
            ("hif.command_latency_ns", self.hif.command_latency_ns, 1e9),
            ("stats.interval_us", self.stats.interval_us, 1e9),
        ]);
        for (key, t, max) in times {
            if !(t.is_finite() && (0.0..=max).contains(&t)) {
                return bad(file, key, t, &format!("must be between 0 and {max:e}"));
            }
        }
        for (key, v, lo, hi) in [
            ("nand.bus.rate_mt_s", n.bus.rate_mt_s, 1.0, 1e6),
            ("hif.pcie.lane_gb_s", self.hif.pcie.lane_gb_s, 1e-3, 1e4),
            ("hif.sata.bandwidth_mb_s", self.hif.sata.bandwidth_mb_s, 1.0, 1e7),
        ] {
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return bad(file, key, v, &format!("must be between {lo} and {hi:e}"));
            }
        }
        let op = self.ftl.overprovisioning_ratio;
        if !(0.0..0.9).contains(&op) {
            return bad(file, "ftl.overprovisioning_ratio", op, "must be in [0, 0.9)");
        }
        let fl = &self.tsu.flin;
        if !(fl.epoch_us.is_finite() && fl.epoch_us > 0.0) {
            return bad(file, "tsu.flin.epoch_us", fl.epoch_us, "must be a positive number of microseconds");
        }
        if !(fl.fairness_threshold.is_finite() && (0.0..=1.0).contains(&fl.fairness_threshold)) {
            return bad(file, "tsu.flin.fairness_threshold", fl.fairness_threshold, "must be in [0, 1]");
        }
        if !(self.hil.wa_bc_round_us.is_finite() && self.hil.wa_bc_round_us > 0.0) {
            return bad(
                file,
                "hil.wa_bc_round_us",
                self.hil.wa_bc_round_us,
                "must be a positive number of microseconds",
            );
        }
        let gc = &self.ftl.gc;
        for (key, v) in [
            ("ftl.gc.threshold", gc.threshold),
            ("ftl.gc.hard_threshold", gc.hard_threshold),
            ("ftl.gc.background_threshold", gc.background_threshold),
        ] {
            if !(0.0..0.5).contains(&v) {
                return bad(file, key, v, "must be a fraction of a plane's blocks in [0, 0.5)");
            }
        }
        if gc.hard_threshold > gc.threshold {
            return bad(
                file,
                "ftl.gc.hard_threshold",
                gc.hard_threshold,
                &format!("must not exceed ftl.gc.threshold ({})", gc.threshold),
            );
        }
        if gc.background_threshold > 0.0 && gc.background_threshold <= gc.threshold {
            return bad(
                file,
                "ftl.gc.background_threshold",
                gc.background_threshold,
                &format!(
                    "background GC only acts above ftl.gc.threshold ({}): set it higher, or 0 to turn it off",
                    gc.threshold
                ),
            );
        }
        if gc.d == 0 {
            return bad(file, "ftl.gc.d", gc.d, "must be at least 1");
        }
        if n.suspension.enabled && n.suspension.max_per_op == 0 {
            return bad(file, "nand.suspension.max_per_op", 0, "must be at least 1 when suspension is enabled");
        }
        if self.hif.wrr_weights.len() != 3 || self.hif.wrr_weights.contains(&0) {
            return bad(
                file,
                "hif.wrr_weights",
                &self.hif.wrr_weights,
                "needs three positive weights (high, medium, low)",
            );
        }
        if self.cache.enabled && self.cache.capacity_bytes < n.page_bytes as u64 {
            return bad(file, "cache.capacity_bytes", self.cache.capacity_bytes, "must hold at least one page");
        }
        if n.blocks_per_plane < 8 {
            return bad(
                file,
                "nand.blocks_per_plane",
                n.blocks_per_plane,
                "at least 8 blocks per plane, so GC has room to work",
            );
        }
        // GC keeps `threshold` blocks free and one open block per stream: the logical space
        // must fit in what is left, or GC can never catch up.
        let geo = crate::nand::Geometry::from_config(self);
        let ftl_limits = crate::ftl::Limits::new(self);
        let logical = crate::ftl::logical_pages(&geo, op) as u64;
        let holdable = ftl_limits.data_blocks_per_plane(&geo) as u64 * geo.planes() as u64 * geo.pages_per_block as u64;
        if logical >= holdable {
            let need = 1.0 - holdable as f64 / geo.pages() as f64;
            return bad(
                file,
                "ftl.overprovisioning_ratio",
                op,
                &format!(
                    "{logical} logical pages do not fit in the {holdable} pages GC can keep filled (it holds {} blocks per plane free): raise ftl.overprovisioning_ratio above {need:.4} or lower ftl.gc.threshold",
                    ftl_limits.gc_threshold_blocks + 2
                ),
            );
        }
        Ok(())
    }

    /// The resolved TOML text of this config (all keys, defaults filled in).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
}

/// Nanoseconds (as written in a config) to integer picoseconds.
pub fn ns_to_ps(ns: f64) -> u64 {
    (ns * 1000.0).round() as u64
}

/// Microseconds (as written in a config) to integer picoseconds.
pub fn us_to_ps(us: f64) -> u64 {
    (us * 1_000_000.0).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each choice key with every spelling docs/config.md allows.
    const CHOICES: [(&str, &[&str]); 10] = [
        ("tsu.policy", &["fifo", "ooo", "flin"]),
        ("ftl.allocation", &["CWDP", "PDWC", "CW", "D", "WDP", "dynamic"]),
        ("ftl.mapping", &["page"]),
        ("ftl.unwritten_read", &["flash", "zero"]),
        ("ftl.gc.policy", &["greedy", "cost_benefit", "random", "fifo", "d_choices"]),
        ("hil.scheduler", &["direct", "vas", "pas", "spk1", "spk2", "spk3"]),
        ("hil.hazards", &["strict", "war", "none"]),
        ("hil.fairness", &["none", "wa_bc"]),
        ("hif.interface", &["nvme", "sata"]),
        ("hif.arbitration", &["round_robin", "weighted_round_robin"]),
    ];

    /// The value of dotted `key` in a config serialised as a TOML tree.
    fn lookup(config: &Config, key: &str) -> toml::Value {
        let mut v = toml::Value::try_from(config).unwrap();
        for part in key.split('.') {
            v = v.get(part).unwrap_or_else(|| panic!("{key} missing from the resolved config")).clone();
        }
        v
    }

    #[test]
    fn every_choice_reads_and_prints_as_written() {
        for (key, values) in CHOICES {
            for value in values {
                let c = Config::from_toml_str("", "test", &[format!("{key}={value}")]).unwrap();
                assert_eq!(lookup(&c, key).as_str(), Some(*value), "{key} = {value} must print as written");
                // The choices shown in summaries and tables use the same spelling.
                let shown = match key {
                    "tsu.policy" => c.tsu.policy.to_string(),
                    "hil.scheduler" => c.hil.scheduler.to_string(),
                    "ftl.allocation" => c.ftl.allocation.to_string(),
                    _ => continue,
                };
                assert_eq!(shown, *value, "{key}");
            }
        }
    }

    #[test]
    fn an_unknown_choice_names_its_key_value_and_line() {
        for (key, _) in CHOICES {
            let (table, leaf) = key.rsplit_once('.').unwrap();
            let text = format!("# drive\n[{table}]\n{leaf} = \"bogus\"\n");
            let e = Config::from_toml_str(&text, "drive.toml", &[]).unwrap_err().to_string();
            assert!(e.starts_with(&format!("drive.toml:3: {key} = \"bogus\": ")), "{e}");
            let e = Config::from_toml_str("", "drive.toml", &[format!("{key}=bogus")]).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--set: {key}=bogus: ")), "{e}");
        }
    }

    #[test]
    fn allocation_reads_in_any_case_and_prints_upper_case() {
        let c = Config::from_toml_str("[ftl]\nallocation = \"pdWc\"\n", "test", &[]).unwrap();
        assert_eq!(lookup(&c, "ftl.allocation").as_str(), Some("PDWC"));
        let c = Config::from_toml_str("", "test", &["ftl.allocation=Dynamic".into()]).unwrap();
        assert_eq!(c.ftl.allocation, AllocationScheme::Dynamic);
        assert_eq!(lookup(&c, "ftl.allocation").as_str(), Some("dynamic"));
        let e = Config::from_toml_str("[ftl]\nallocation = \"CWXP\"\n", "drive.toml", &[]).unwrap_err().to_string();
        assert_eq!(
            e,
            "drive.toml:2: ftl.allocation = \"CWXP\": `CWXP` is not an allocation scheme: letters must be C, W, D, P"
        );
    }
}
