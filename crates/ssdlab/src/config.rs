//! Configuration: one TOML file describing the drive, typed and validated.
//!
//! Every key is documented in `docs/config.md` with its unit and default; unknown keys are
//! errors (serde `deny_unknown_fields`), never silently ignored. Times are written in the
//! unit named by the key (`t_read_us`, `cmd_addr_cycle_ns`) and converted once, by the layer
//! that builds its state from them, to integer picoseconds ([`us_to_ps`], [`ns_to_ps`]).
//!
//! Each layer owns its section: its struct, defaults and the checks that need only its keys
//! live in the layer's `config` module ([`crate::nand::config`], [`crate::tsu::config`],
//! [`crate::ftl::config`], [`crate::cache::config`], [`crate::hil::config`],
//! [`crate::hif::config`], [`crate::stats::config`]) and are re-exported here. This module
//! composes them into [`Config`], reads the file, applies `--set` overrides and checks what
//! relates two sections (the cache holds a page; GC has room in the geometry).
//!
//! Every choice (`tsu.policy`, `hil.scheduler`, `ftl.allocation`, ...) is typed as the enum
//! of the layer it configures, so a config that deserialises names only valid choices and
//! the layers match on it with no fallback; a misspelled choice fails when the file is read,
//! naming the key, the value and the choices.
//!
//! `--set key=value` overrides are applied to the parsed TOML tree before it is typed, so an
//! override of a misspelled key fails exactly like the misspelled key in a file would.

use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::path::Path;

use crate::error::{Error, Result};
use crate::validate::reject;

mod edit;
pub use crate::validate::{ns_to_ps, us_to_ps};
pub use edit::Edits;

pub use crate::cache::config::{CacheConfig, Destage};
pub use crate::ftl::config::{FirmwareConfig, FtlConfig, GcConfig, WearLevelingConfig};
pub use crate::hif::config::{HifConfig, NvmeConfig, PcieConfig, ReadData, SataConfig};
pub use crate::hil::config::HilConfig;
pub use crate::nand::config::{
    BusArbitration, BusConfig, BusTiming, CellType, NandConfig, NvDdr2Config, ProgramDataIn, SuspensionConfig,
};
pub use crate::stats::config::StatsConfig;
pub use crate::tsu::config::{FlinConfig, TsuConfig};

/// The drive: one section per layer, in this order in the resolved TOML and in reports.
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
        Config::load_edited(path, &Edits { unset: &[], set: overrides }).map(|(config, _)| config)
    }

    /// Read a config file (up to [`crate::mem::MAX_TEXT_FILE_BYTES`]), apply the command line's
    /// `--unset`s and `--set`s ([`Edits`]), type it and validate it; with the notes the edits
    /// gave (tables they dropped).
    pub fn load_edited(path: &Path, edits: &Edits) -> Result<(Config, Vec<String>)> {
        let text = crate::mem::read_text(path, "config")?;
        Config::from_toml_edited(&text, &path.display().to_string(), edits)
    }

    pub fn from_toml_str(text: &str, file: &str, overrides: &[String]) -> Result<Config> {
        Config::from_toml_edited(text, file, &Edits { unset: &[], set: overrides }).map(|(config, _)| config)
    }

    /// [`Config::load_edited`] of TOML text; `file` names it in messages.
    pub fn from_toml_edited(text: &str, file: &str, edits: &Edits) -> Result<(Config, Vec<String>)> {
        let overrides = edits.set;
        let mut table: toml::Table = toml::from_str(text).map_err(|e| Error::toml(file, text, e))?;
        // First type the file alone, so that its errors carry file line numbers.
        let _: Config = toml::from_str(text).map_err(|e| Error::toml(file, text, e))?;
        let notes = edits.apply(&mut table, file)?;
        reject_two_cache_sizes(&table, text, file)?;
        let config: Config = if edits.is_empty() {
            toml::from_str(text).map_err(|e| Error::toml(file, text, e))?
        } else {
            Config::deserialize(toml::Value::Table(table)).map_err(|e| {
                let typed = edits.describe();
                Error::config("--set", 0, &typed, &format!("{typed}: {}", e.message().trim()))
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
        Ok((config, notes))
    }

    /// Check everything that can be impossible: each section's own checks, in section order,
    /// then those that relate two sections. The error names the key and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        self.nand.validate(file)?;
        self.tsu.validate(file)?;
        self.ftl.validate(file)?;
        self.cache.validate(file)?;
        self.hil.validate(file)?;
        self.hif.validate(file)?;
        self.stats.validate(file)?;
        self.ftl.validate_mapping_unit(file, &self.nand)?;
        if self.ftl.mapping.defaults().is_some() {
            // Translation pages are mapping units.
            self.ftl.map_cache.resolve(file, self.ftl.mapping, self.ftl.unit_bytes(self.nand.page_bytes))?;
        }
        self.validate_cache_size(file)?;
        self.validate_cache_policy(file)?;
        self.validate_partition_channels(file)?;
        self.validate_faro_under_flin(file)?;
        self.validate_held_chips(file)?;
        self.validate_gc_room(file)
    }

    /// `cache.capacity_bytes` counts at most 2^32 − 1 pages (the cache counts its pages in
    /// 32 bits: 2^45 bytes of 8 KiB pages would wrap to a cache of none), and a cache in use
    /// holds at least one page. One larger than the drive is allowed: it never fills.
    fn validate_cache_size(&self, file: &str) -> Result<()> {
        let (bytes, page_bytes) = (self.cache.capacity_bytes, self.nand.page_bytes as u64);
        if bytes / page_bytes > u32::MAX as u64 {
            let why = format!("{} pages of {page_bytes} bytes; at most 2^32 - 1 pages", bytes / page_bytes);
            return reject(file, "cache.capacity_bytes", bytes, &why);
        }
        let sized_by_bytes = self.cache.capacity_footprint_fraction == 0.0;
        if self.cache.enabled && sized_by_bytes && bytes < page_bytes {
            return reject(file, "cache.capacity_bytes", bytes, "must hold at least one page");
        }
        Ok(())
    }

    /// A chip GC holds (`tsu.urgent_gc = "hold"`) runs nothing else, so a user read may not
    /// suspend GC's program or erase either.
    fn validate_held_chips(&self, file: &str) -> Result<()> {
        let suspends = self.nand.suspension.enabled || self.nand.ideal != crate::nand::config::Ideal::None;
        if self.tsu.urgent_gc == crate::tsu::UrgentGc::Hold && suspends {
            let why = "a chip held by GC suspends nothing for user reads: turn off nand.suspension and nand.ideal";
            return reject(file, "tsu.urgent_gc", "hold", why);
        }
        Ok(())
    }

    /// FLIN orders what waits in the flash controller's queues; FARO (`spk1`, `spk3`) lets
    /// `hil.plane_slots` requests wait per plane. At one there is next to nothing to order
    /// (measured: fairness 0.41 with FLIN against 0.40 without, 0.55 at 4 slots), so the
    /// combination would leave `tsu.policy` silently without effect.
    fn validate_faro_under_flin(&self, file: &str) -> Result<()> {
        let faro = matches!(self.hil.scheduler, crate::hil::SchedulerKind::Spk1 | crate::hil::SchedulerKind::Spk3);
        if faro && self.tsu.policy == crate::tsu::TsuPolicyKind::Flin && self.hil.plane_slots == 1 {
            return reject(
                file,
                "hil.plane_slots",
                1,
                "with tsu.policy = \"flin\" under FARO (hil.scheduler = \"spk1\" or \"spk3\") leaves FLIN one request per plane to order, i.e. no effect: set hil.plane_slots ≥ 2 (4 regains most of FLIN's fairness; docs/config.md)",
            );
        }
        Ok(())
    }

    /// A die-list policy (`cache.policy` other than `lru`) needs the cache on and writing
    /// back when full, an allocation that fixes each page's die (SPD: and leaves its plane
    /// open; Baseline-P: and fixes its plane), and for SPD a cache that, full of dirty pages,
    /// always has a die with N of them: more than (N − 1) × dies pages (pigeonhole).
    fn validate_cache_policy(&self, file: &str) -> Result<()> {
        use crate::cache::config::{CachePolicy, Destage, SpdFallback};
        use crate::ftl::{AllocationScheme, Level};
        let policy = self.cache.policy;
        let pad = self.cache.spd_fallback == SpdFallback::Pad;
        let leftover_to_buffer = self.ftl.gc.die_leftover == crate::ftl::DieLeftover::Buffer;
        if leftover_to_buffer && !(self.cache.enabled && policy == CachePolicy::Spd) {
            return reject(
                file,
                "ftl.gc.die_leftover",
                "buffer",
                "puts moves into SPD's per-die buffer lists: set cache.enabled = true and cache.policy = \"spd\"",
            );
        }
        if pad && policy != CachePolicy::Spd {
            return reject(file, "cache.spd_fallback", "pad", "applies to cache.policy = \"spd\" only");
        }
        if policy == CachePolicy::Lru {
            return Ok(());
        }
        let name = policy.name();
        if self.ftl.unit_bytes(self.nand.page_bytes) < self.nand.page_bytes {
            let why = format!("cache.policy = \"{name}\" evicts whole pages one per plane: it is not built for mapping units below the page");
            return reject(file, "ftl.mapping_unit_bytes", self.ftl.unit_bytes(self.nand.page_bytes), &why);
        }
        if !self.cache.enabled {
            return reject(file, "cache.policy", name, "needs the write cache: set cache.enabled = true");
        }
        if self.cache.destage != Destage::WhenFull {
            return reject(file, "cache.destage", "eager", &format!("cache.policy = \"{name}\" writes back groups of pages when the cache is full: use cache.destage = \"when_full\""));
        }
        let plane_open =
            matches!(&self.ftl.allocation, AllocationScheme::Hybrid { order, fixed: 3 } if order[3] == Level::Plane);
        let is_static = matches!(self.ftl.allocation, AllocationScheme::Static(_));
        let allocation = self.ftl.allocation.to_string();
        if policy == CachePolicy::Spd && !plane_open {
            return reject(file, "ftl.allocation", allocation, "cache.policy = \"spd\" chooses each page's plane at eviction: use an allocation that fixes channel, chip and die and leaves the plane open, such as CWD");
        }
        // Baseline-D needs each page's die only, which an allocation leaving just the plane open
        // also fixes (TwinBlk's CWD on Baseline-D's buffer, docs/techniques.md §3.6 item 4).
        let die_fixed = is_static || (policy == CachePolicy::BaselineD && plane_open);
        if policy != CachePolicy::Spd && !die_fixed {
            return reject(file, "ftl.allocation", allocation, &format!("cache.policy = \"{name}\" evicts by each page's die (baseline_p: and plane) as the allocation fixes them: use a static order such as CWDP (baseline_d also takes one that leaves only the plane open, such as CWD)"));
        }
        let geo = crate::nand::Geometry::from_config(&self.nand);
        let (n, dies) = (geo.planes_per_die as u64, (geo.chips() * geo.dies_per_chip) as u64);
        let pages = self.cache.capacity_bytes / self.nand.page_bytes as u64;
        let sized_by_bytes = self.cache.capacity_footprint_fraction == 0.0;
        if policy == CachePolicy::Spd && !pad && sized_by_bytes && pages <= (n - 1) * dies {
            let why = format!("holds {pages} pages; with cache.policy = \"spd\" it must hold more than (planes per die − 1) × dies = {} pages, or a cache full of dirty pages may have no die with {n} of them (or set cache.spd_fallback = \"pad\")", (n - 1) * dies);
            return reject(file, "cache.capacity_bytes", self.cache.capacity_bytes, &why);
        }
        Ok(())
    }

    /// A read/write partition needs two channels and a Write channel left by `n_read`.
    fn validate_partition_channels(&self, file: &str) -> Result<()> {
        let Some(scheme) = self.ftl.allocation.partition() else { return Ok(()) };
        let name = self.ftl.allocation.to_string();
        let channels = self.nand.channels;
        if channels < 2 {
            return reject(
                file,
                "ftl.allocation",
                name,
                "splits channels into Read and Write ones: needs nand.channels ≥ 2",
            );
        }
        let n = self.ftl.partition.n_read;
        if n >= channels {
            let why = format!(
                "must leave a Write channel: below nand.channels ({channels}); 0 picks it ({})",
                match scheme {
                    crate::ftl::PartitionScheme::Lv => "from the workload's read and write demand",
                    crate::ftl::PartitionScheme::Pacp => "half the channels",
                }
            );
            return reject(file, "ftl.partition.n_read", n, &why);
        }
        Ok(())
    }

    /// GC keeps `threshold` blocks free and one open block per stream: the logical space
    /// must fit in what is left, or GC can never catch up. Needs a valid geometry.
    fn validate_gc_room(&self, file: &str) -> Result<()> {
        let op = self.ftl.overprovisioning_ratio;
        let geo = self.ftl.geometry(&self.nand);
        let ftl_limits = self.ftl.limits(self.nand.blocks_per_plane);
        let logical = crate::ftl::logical_pages(&geo, op) as u64;
        let holdable = ftl_limits.data_blocks_per_plane(&geo) as u64 * geo.planes() as u64 * geo.pages_per_block as u64;
        if logical >= holdable {
            let need = 1.0 - holdable as f64 / geo.pages() as f64;
            return reject(
                file,
                "ftl.overprovisioning_ratio",
                op,
                &format!(
                    "{logical} logical pages do not fit in the {holdable} pages GC can keep filled (it keeps {} blocks per plane free or open): raise ftl.overprovisioning_ratio above {need:.4} or lower ftl.gc.threshold",
                    ftl_limits.gc_threshold_blocks + ftl_limits.frontiers
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

/// `cache.capacity_bytes` and a nonzero `cache.capacity_footprint_fraction` both size the
/// cache: a config (with its overrides) that sets both is rejected rather than one ignored.
fn reject_two_cache_sizes(table: &toml::Table, text: &str, file: &str) -> Result<()> {
    let Some(cache) = table.get("cache").and_then(|c| c.as_table()) else { return Ok(()) };
    let fraction =
        cache.get("capacity_footprint_fraction").and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)));
    if cache.contains_key("capacity_bytes") && fraction.is_some_and(|f| f != 0.0) {
        let key = "cache.capacity_footprint_fraction";
        let line = crate::error::line_of_key(text, key);
        return Err(Error::config(
            file,
            line,
            key,
            "cache.capacity_bytes and cache.capacity_footprint_fraction both size the cache: set one",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::AllocationScheme;

    /// Each choice key with every spelling docs/config.md allows.
    const CHOICES: [(&str, &[&str]); 13] = [
        ("tsu.policy", &["fifo", "ooo", "flin"]),
        ("ftl.allocation", &["CWDP", "PDWC", "CW", "D", "WDP", "dynamic", "dynamic_rr", "lv_partition", "pacp"]),
        ("ftl.mapping", &["full", "dftl", "cdftl", "tpftl", "fmmu"]),
        ("ftl.firmware.map_unit", &["cores", "hardware"]),
        ("ftl.unwritten_read", &["flash", "zero"]),
        ("ftl.gc.policy", &["greedy", "cost_benefit", "random", "fifo", "d_choices"]),
        ("ftl.gc.read_victim", &["valid_only", "all_pages"]),
        ("hil.scheduler", &["direct", "vas", "pas", "spk1", "spk2", "spk3"]),
        ("hil.hazards", &["strict", "war", "none"]),
        ("hil.fairness", &["none", "wa_bc"]),
        ("hil.faro_priority", &["overlap_depth", "within_request"]),
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

    /// Baseline-D's buffer needs each page's die: a static order fixes it, and so does `CWD`,
    /// which leaves only the plane open (TwinBlk on Baseline-D's buffer); Baseline-P also needs
    /// the plane, so `CWD` is an error naming the allocation.
    #[test]
    fn baseline_d_takes_an_allocation_that_fixes_the_die() {
        let with = |policy: &str, allocation: &str| {
            let sets = [
                "cache.enabled=true".to_string(),
                "cache.destage=\"when_full\"".into(),
                format!("cache.policy=\"{policy}\""),
                format!("ftl.allocation=\"{allocation}\""),
            ];
            Config::from_toml_str("", "t.toml", &sets)
        };
        assert!(with("baseline_d", "CWDP").is_ok());
        assert!(with("baseline_d", "CWD").is_ok());
        let e = with("baseline_p", "CWD").unwrap_err().to_string();
        assert!(e.contains("ftl.allocation") && e.contains("CWD"), "{e}");
    }

    /// GC that reads every victim page reads each out: a copyback moves a page without
    /// reading it, and Die-GC and TwinBlk list valid pages only, so both are errors naming
    /// the key.
    #[test]
    fn reading_every_victim_page_takes_neither_copyback_nor_an_aligned_unit() {
        let with = |other: &str| {
            let sets = ["ftl.gc.read_victim=\"all_pages\"".to_string(), other.to_string()];
            Config::from_toml_str("", "t.toml", &sets)
        };
        assert!(with("ftl.gc.unit=\"para\"").is_ok());
        for other in ["ftl.gc.copyback=true", "ftl.gc.unit=\"die\"", "ftl.gc.unit=\"twin\""] {
            let e = with(other).unwrap_err().to_string();
            assert!(e.contains("ftl.gc.read_victim"), "{other}: {e}");
        }
    }

    #[test]
    fn every_choice_reads_and_prints_as_written() {
        for (key, values) in CHOICES {
            for value in values {
                let mut sets = vec![format!("{key}={value}")];
                if key == "hil.faro_priority" {
                    // FARO's choice applies to the FARO schedulers only.
                    sets.push("hil.scheduler=spk3".into());
                }
                let c = Config::from_toml_str("", "test", &sets).unwrap();
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

    /// A cache sized twice is an error naming the line, from the file or from `--set`.
    #[test]
    fn a_cache_sized_both_ways_is_rejected() {
        let text = "[cache]\nenabled = true\ncapacity_bytes = 65536\ncapacity_footprint_fraction = 0.001\n";
        let err = Config::from_toml_str(text, "c.toml", &[]).expect_err("two sizes").to_string();
        assert!(err.contains("c.toml:4") && err.contains("set one"), "{err}");
        let set = ["cache.capacity_footprint_fraction=0.01".to_string()];
        assert!(Config::from_toml_str("[cache]\ncapacity_bytes = 65536\n", "c.toml", &set).is_err());
        assert!(Config::from_toml_str("[cache]\ncapacity_footprint_fraction = 0.01\n", "c.toml", &[]).is_ok());
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

    #[test]
    fn mapping_units_divide_the_page_and_reject_what_moves_whole_pages() {
        let set = |extra: &[&str]| {
            let mut o: Vec<String> = vec!["nand.page_bytes=16384".into()];
            o.extend(extra.iter().map(|s| s.to_string()));
            Config::from_toml_str("", "c.toml", &o)
        };
        let c = set(&["ftl.mapping_unit_bytes=4096"]).expect("4 KiB units on 16 KiB pages");
        let geo = c.ftl.geometry(&c.nand);
        // 16 KiB / 4 KiB = 4 slots per page; the default 256 pages per block give 1,024 slots.
        assert_eq!((geo.units_per_page, geo.pages_per_block, geo.page_bytes), (4, 1024, 4096));
        assert_eq!(geo.flash_page(1023), 255);
        for bad in ["3000", "0", "256", "32768"] {
            let err = set(&[&format!("ftl.mapping_unit_bytes={bad}")]).expect_err(bad).to_string();
            assert!(err.contains("ftl.mapping_unit_bytes") && err.contains("divide"), "{bad}: {err}");
        }
        let err = set(&["ftl.mapping_unit_bytes=4096", "ftl.gc.copyback=true"]).unwrap_err().to_string();
        assert!(err.contains("copyback"), "{err}");
        let err = set(&["ftl.mapping_unit_bytes=512", "nand.pages_per_block=2048"]).unwrap_err().to_string();
        assert!(err.contains("65,535"), "{err}");
        // The page itself is the default unit: nothing changes.
        let c = set(&["ftl.mapping_unit_bytes=16384"]).unwrap();
        assert_eq!(c.ftl.geometry(&c.nand).units_per_page, 1);
        // "page" follows the page size.
        let c = set(&["ftl.mapping_unit_bytes=\"page\"", "nand.page_bytes=4096"]).unwrap();
        assert_eq!((c.ftl.unit_bytes(c.nand.page_bytes), c.ftl.geometry(&c.nand).units_per_page), (4096, 1));
        assert!(set(&["ftl.mapping_unit_bytes=\"pages\""]).is_err());
    }
}
