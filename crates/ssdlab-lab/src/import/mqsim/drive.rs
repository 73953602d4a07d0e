//! The tags of MQSim's `ssdconfig.xml`, each mapped to ssdlab keys with its unit converted,
//! ignored with a reason, or refused. The table as documentation: `docs/mqsim-import.md`.

use toml::Value;

use super::{ImportError, Problems, Tag};
use crate::import::Doc;

/// What MQSim does that its tags do not say: the drive every import starts from.
const COMPAT: &str = include_str!("../../../../../presets/mqsim-compat.toml");

/// The tables of the written drive, in this order.
const TABLES: &[&str] = &[
    "nand",
    "nand.bus",
    "nand.bus.nv_ddr2",
    "tsu",
    "ftl",
    "ftl.map_cache",
    "ftl.gc",
    "ftl.wear_leveling",
    "cache",
    "cache.ddr",
    "hil",
    "hif",
    "hif.nvme",
    "hif.pcie",
];

/// What one tag becomes.
pub(super) enum Outcome {
    /// These keys take these values; `note` says how (unit, meaning). `drop` removes a table
    /// of the preset that the value makes meaningless.
    Set { keys: Vec<(&'static str, Value)>, note: String, drop: Option<&'static str> },
    /// Nothing to set; why, written in the drive's header.
    Ignore(String),
    /// A value (or a tag) ssdlab cannot express.
    Reject(String),
}

fn set(key: &'static str, value: Value, note: &str) -> Outcome {
    Outcome::Set { keys: vec![(key, value)], note: note.to_string(), drop: None }
}

fn ignore(why: &str) -> Outcome {
    Outcome::Ignore(why.to_string())
}

/// The tags of the file, for a tag whose meaning depends on another.
pub(super) struct Ctx<'a> {
    pub tags: &'a [Tag],
}

impl<'a> Ctx<'a> {
    pub fn get(&self, name: &str) -> Option<&'a Tag> {
        self.tags.iter().rev().find(|t| t.name == name)
    }

    /// The tag's value in upper case (MQSim compares its words so).
    pub fn word(&self, name: &str) -> Option<String> {
        self.get(name).map(word)
    }
}

pub(super) fn word(t: &Tag) -> String {
    t.text.trim().to_ascii_uppercase()
}

pub(super) fn uint(t: &Tag) -> Result<u64, String> {
    t.text.trim().parse::<u64>().map_err(|_| format!("`{}` is not a whole number ≥ 0", t.text))
}

pub(super) fn float(t: &Tag) -> Result<f64, String> {
    match t.text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("`{}` is not a finite number ≥ 0", t.text)),
    }
}

pub(super) fn flag(t: &Tag) -> Result<bool, String> {
    match word(t).as_str() {
        "TRUE" => Ok(true),
        "FALSE" => Ok(false),
        _ => Err(format!("`{}` is neither true nor false", t.text)),
    }
}

fn int(x: u64) -> Value {
    Value::Integer(x.min(i64::MAX as u64) as i64)
}

/// The drive: the preset, then each tag of the file in order; all problems at once.
pub(super) fn import(tags: &[Tag], file: &str) -> Result<Doc, ImportError> {
    let mut doc = Doc::default();
    doc.header_line(&format!("Imported from MQSim's {file} by `ssdlab import mqsim` (docs/mqsim-import.md)."));
    doc.header_line("Keys without a tag's comment are presets/mqsim-compat.toml's: what MQSim does that its");
    doc.header_line(
        "tags do not state. A tag the file leaves out keeps that preset's value, not MQSim's code default.",
    );
    doc.declare(TABLES);
    let preset: toml::Table = toml::from_str(COMPAT).expect("presets/mqsim-compat.toml is valid TOML");
    doc.load_tree("", &preset, "not in the XML: presets/mqsim-compat.toml (MQSim's implicit choice)");
    let ctx = Ctx { tags };
    let mut p = Problems { file, list: Vec::new() };
    let mut seen: Vec<&str> = Vec::new();
    let mut ignored = Vec::new();
    let mut by_xml: Vec<&'static str> = Vec::new();
    for t in tags {
        if seen.contains(&t.name.as_str()) {
            p.at(t.line, &t.name, "given twice (MQSim keeps the last; say it once)");
            continue;
        }
        seen.push(&t.name);
        match outcome(t, &ctx) {
            Ok(Outcome::Set { keys, note, drop }) => {
                if let Some(table) = drop {
                    doc.remove_table(table);
                }
                for (key, value) in keys {
                    // A key two tags set (a latency array) keeps both comments.
                    doc.set(key, value, &format!("{}: {note}", t.shown()), !by_xml.contains(&key));
                    by_xml.push(key);
                }
            }
            Ok(Outcome::Ignore(why)) => ignored.push(format!("ignored {}: {why}", t.shown())),
            Ok(Outcome::Reject(why)) | Err(why) => p.at(t.line, &t.name, &why),
        }
    }
    if !p.list.is_empty() {
        return Err(ImportError(p.list));
    }
    doc.header_line("");
    for line in &ignored {
        doc.header_line(line);
    }
    Ok(doc)
}

/// The tag's outcome: each group of tags in its own function; an unknown tag is refused.
fn outcome(t: &Tag, ctx: &Ctx) -> Result<Outcome, String> {
    let found = host(t, ctx)?
        .or(device(t, ctx)?)
        .or(cache(t, ctx)?)
        .or(ftl(t, ctx)?)
        .or(gc(t, ctx)?)
        .or(bus(t)?)
        .or(flash(t, ctx)?);
    Ok(found.unwrap_or_else(|| {
        Outcome::Reject("unknown tag: not a parameter of MQSim's ssdconfig.xml that this importer knows".into())
    }))
}

/// `Host_Parameter_Set`.
fn host(t: &Tag, ctx: &Ctx) -> Result<Option<Outcome>, String> {
    Ok(Some(match t.name.as_str() {
        "PCIe_Lane_Bandwidth" => set("hif.pcie.lane_gb_s", Value::Float(float(t)?), "GB/s per lane, the same unit"),
        "PCIe_Lane_Count" => set("hif.pcie.lanes", int(uint(t)?), "lanes"),
        "SATA_Processing_Delay" => match ctx.word("HostInterface_Type").as_deref() {
            Some("SATA") => Outcome::Reject("MQSim's SATA host is not imported (see HostInterface_Type)".into()),
            _ => ignore("used only with a SATA host; this drive is NVMe"),
        },
        "Enable_ResponseTime_Logging" | "ResponseTime_Logging_Period_Length" => {
            ignore("MQSim's response-time log; ssdlab's is `run --lat-log` and `stats.interval_us`, chosen per run")
        }
        _ => return Ok(None),
    }))
}

/// `Device_Parameter_Set`: what is not cache, map, GC or the flash bus.
fn device(t: &Tag, _ctx: &Ctx) -> Result<Option<Outcome>, String> {
    Ok(Some(match t.name.as_str() {
        "Seed" => {
            uint(t)?;
            ignore("the device's random seed: the imported workload's top-level `seed` (ssdlab has one seed per run)")
        }
        "Enabled_Preconditioning" => {
            flag(t)?;
            ignore("preconditioning is the workload's `[precondition]`, written by the workload import from each flow's Initial_Occupancy_Percentage")
        }
        "Memory_Type" => match word(t).as_str() {
            "FLASH" => ignore("ssdlab simulates NAND flash only"),
            _ => Outcome::Reject(format!("memory type `{}`: ssdlab simulates NAND flash only", t.text)),
        },
        "HostInterface_Type" => match word(t).as_str() {
            "NVME" => set("hif.interface", Value::String("nvme".into()), "NVMe"),
            "SATA" => Outcome::Reject(
                "SATA: MQSim's SATA host (its HBA delay and NCQ over its link model) is not imported; write hif.interface = \"sata\" by hand".into(),
            ),
            _ => Outcome::Reject(format!("unknown host interface `{}` (MQSim: NVME or SATA)", t.text)),
        },
        "IO_Queue_Depth" => {
            uint(t)?;
            ignore("the size of each flow's submission queue: the imported open-loop flows' `queue_depth`")
        }
        "Queue_Fetch_Size" => set(
            "hil.queue_depth",
            int(uint(t)?),
            "commands in flight (MQSim: per flow; ssdlab's tags are shared by all flows)",
        ),
        "Plane_Allocation_Scheme" => {
            let w = word(t);
            let perm = w.len() == 4 && "CWDP".chars().all(|c| w.contains(c));
            if !perm {
                return Ok(Some(Outcome::Reject(format!(
                    "allocation `{}`: only the 24 orders of C, W, D and P are imported",
                    t.text
                ))));
            }
            set("ftl.allocation", Value::String(w), "the same static order, first letter fastest")
        }
        "Transaction_Scheduling_Policy" => match word(t).as_str() {
            "OUT_OF_ORDER" => set("tsu.policy", Value::String("ooo".into()), "MQSim's out-of-order TSU"),
            "FLIN" => set("tsu.policy", Value::String("flin".into()), "FLIN"),
            _ => Outcome::Reject(format!("TSU policy `{}`: ssdlab has ooo (OUT_OF_ORDER) and flin (FLIN)", t.text)),
        },
        "Overprovisioning_Ratio" => set("ftl.overprovisioning_ratio", Value::Float(float(t)?), "the same definition (hidden share of the physical pages)"),
        _ => return Ok(None),
    }))
}

/// The data cache and its DRAM.
fn cache(t: &Tag, _ctx: &Ctx) -> Result<Option<Outcome>, String> {
    let ns = |key: &'static str| -> Result<Outcome, String> { Ok(set(key, Value::Float(float(t)?), "ns")) };
    Ok(Some(match t.name.as_str() {
        "Caching_Mechanism" => match word(t).as_str() {
            "ADVANCED" => set(
                "cache.destage",
                Value::String("eager".into()),
                "MQSim's advanced cache manager: writes go to flash at once, through its back-pressure buffer",
            ),
            _ => Outcome::Reject(format!("cache manager `{}`: only ADVANCED (MQSim's default) is modelled", t.text)),
        },
        "Data_Cache_Sharing_Mode" => match word(t).as_str() {
            "SHARED" => ignore("ssdlab's write cache is shared by all flows"),
            _ => Outcome::Reject(format!("`{}`: ssdlab's write cache cannot be partitioned among flows", t.text)),
        },
        "Data_Cache_Capacity" => {
            let bytes = uint(t)?;
            Outcome::Set {
                keys: vec![("cache.capacity_bytes", int(bytes)), ("cache.enabled", Value::Boolean(bytes > 0))],
                note: "bytes; 0 turns the cache off".into(),
                drop: None,
            }
        }
        "Data_Cache_DRAM_Row_Size" => set("cache.ddr.row_bytes", int(uint(t)?), "bytes"),
        "Data_Cache_DRAM_Data_Rate" => set("cache.ddr.data_rate_mt_s", Value::Float(float(t)?), "MT/s"),
        "Data_Cache_DRAM_Data_Busrt_Size" => set("cache.ddr.burst_bytes", int(uint(t)?), "bytes per burst"),
        "Data_Cache_DRAM_tRCD" => ns("cache.ddr.t_rcd_ns")?,
        "Data_Cache_DRAM_tCL" => ns("cache.ddr.t_cl_ns")?,
        "Data_Cache_DRAM_tRP" => ns("cache.ddr.t_rp_ns")?,
        _ => return Ok(None),
    }))
}

/// The map.
fn ftl(t: &Tag, ctx: &Ctx) -> Result<Option<Outcome>, String> {
    let ideal = match ctx.get("Ideal_Mapping_Table") {
        Some(i) => flag(i).unwrap_or(false),
        None => false,
    };
    Ok(Some(match t.name.as_str() {
        "Address_Mapping" => match word(t).as_str() {
            "PAGE_LEVEL" => set("ftl.mapping_unit_bytes", Value::String("page".into()), "one map entry per page"),
            _ => Outcome::Reject(format!("mapping `{}`: ssdlab maps pages (PAGE_LEVEL) only", t.text)),
        },
        "Ideal_Mapping_Table" => match flag(t)? {
            false => {
                set("ftl.mapping", Value::String("dftl".into()), "a cached map (CMT) over translation pages in flash")
            }
            true => Outcome::Set {
                keys: vec![("ftl.mapping", Value::String("full".into()))],
                note: "the whole map in DRAM ([ftl.map_cache] dropped)".into(),
                drop: Some("ftl.map_cache"),
            },
        },
        "CMT_Capacity" if ideal => {
            uint(t)?;
            ignore("Ideal_Mapping_Table is true: the whole map is in DRAM")
        }
        "CMT_Capacity" => set("ftl.map_cache.ram_bytes", int(uint(t)?), "bytes of cached map entries"),
        "CMT_Sharing_Mode" => match word(t).as_str() {
            "SHARED" => ignore("ssdlab's map cache is shared by all flows"),
            _ => Outcome::Reject(format!("`{}`: ssdlab's map cache cannot be partitioned among flows", t.text)),
        },
        "Dynamic_Wearleveling_Enabled" => {
            set("ftl.wear_leveling.dynamic", Value::Boolean(flag(t)?), "a plane opens its least-erased free block")
        }
        "Static_Wearleveling_Enabled" => {
            flag(t)?;
            ignore("read with Static_Wearleveling_Threshold (ftl.wear_leveling.static_threshold; 0 is off)")
        }
        "Static_Wearleveling_Threshold" => {
            let on = ctx.get("Static_Wearleveling_Enabled").map(flag).transpose()?.unwrap_or(true);
            let n = if on { uint(t)? } else { 0 };
            set(
                "ftl.wear_leveling.static_threshold",
                int(n),
                "erase-count spread; 0 when Static_Wearleveling_Enabled is false",
            )
        }
        _ => return Ok(None),
    }))
}

/// Garbage collection.
fn gc(t: &Tag, ctx: &Ctx) -> Result<Option<Outcome>, String> {
    Ok(Some(match t.name.as_str() {
        "GC_Exec_Threshold" => set("ftl.gc.threshold", Value::Float(float(t)?), "fraction of a plane's blocks"),
        "GC_Hard_Threshold" => set("ftl.gc.hard_threshold", Value::Float(float(t)?), "fraction of a plane's blocks"),
        "GC_Block_Selection_Policy" => match word(t).as_str() {
            "GREEDY" => set("ftl.gc.policy", Value::String("greedy".into()), "fewest valid pages"),
            "RANDOM" => set("ftl.gc.policy", Value::String("random".into()), "a random full block"),
            "FIFO" => set("ftl.gc.policy", Value::String("fifo".into()), "oldest written block"),
            "RGA" => {
                let blocks = match ctx.get("Block_No_Per_Plane") {
                    Some(b) => uint(b)?,
                    None => 2048,
                };
                let d = u64::from(blocks.max(2).ilog2());
                Outcome::Set {
                    keys: vec![("ftl.gc.policy", Value::String("d_choices".into())), ("ftl.gc.d", int(d))],
                    note: format!("randomized greedy: the fewest valid pages among d = floor(log2({blocks} blocks per plane)) = {d} random blocks, as MQSim draws them"),
                    drop: None,
                }
            }
            _ => Outcome::Reject(format!("victim policy `{}`: ssdlab has GREEDY, RGA, RANDOM and FIFO", t.text)),
        },
        "Use_Copyback_for_GC" => set("ftl.gc.copyback", Value::Boolean(flag(t)?), "GC moves by copyback"),
        "Preemptible_GC_Enabled" => match flag(t)? {
            false => set("ftl.gc.urgent_when", Value::String("collecting".into()), "GC is urgent whenever a plane collects (MQSim's non-preemptible GC)"),
            true => Outcome::Reject(
                "true: MQSim's preemptible GC (urgent only below GC_Hard_Threshold) has no ftl.gc.urgent_when equal to it".into(),
            ),
        },
        "Preferred_suspend_erase_time_for_read" | "Preferred_suspend_erase_time_for_write" | "Preferred_suspend_write_time_for_read" => {
            uint(t)?;
            ignore(NEVER_SUSPENDS)
        }
        _ => return Ok(None),
    }))
}

/// Why the suspension tags change nothing: MQSim never suspends.
const NEVER_SUSPENDS: &str = "MQSim never suspends: in its TSUs' service_read/write_transaction the WRITING and ERASING cases fall through to `return false`, so a busy chip gets no command; nand.suspension stays off";

/// The channels.
fn bus(t: &Tag) -> Result<Option<Outcome>, String> {
    Ok(Some(match t.name.as_str() {
        "Flash_Channel_Count" => set("nand.channels", int(uint(t)?), "channels"),
        "Chip_No_Per_Channel" => set("nand.chips_per_channel", int(uint(t)?), "chips per channel"),
        "Flash_Channel_Width" => set("nand.bus.width_bits", int(uint(t)? * 8), "bytes × 8 = bits"),
        "Channel_Transfer_Rate" => set("nand.bus.rate_mt_s", Value::Float(float(t)?), "MT/s"),
        "Flash_Comm_Protocol" => match word(t).as_str() {
            "NVDDR2" => set(
                "nand.bus.timing",
                Value::String("nv_ddr2".into()),
                "ONFI NV-DDR2 command timing ([nand.bus.nv_ddr2]: MQSim's delays)",
            ),
            _ => Outcome::Reject(format!("protocol `{}`: MQSim and ssdlab time NVDDR2 only", t.text)),
        },
        _ => return Ok(None),
    }))
}

/// `Flash_Parameter_Set`.
fn flash(t: &Tag, ctx: &Ctx) -> Result<Option<Outcome>, String> {
    Ok(Some(match t.name.as_str() {
        "Flash_Technology" => match word(t).as_str() {
            w @ ("SLC" | "MLC" | "TLC") => {
                set("nand.cell", Value::String(w.to_ascii_lowercase()), "page types per cell")
            }
            _ => Outcome::Reject(format!("cell `{}`: MQSim has SLC, MLC and TLC", t.text)),
        },
        "CMD_Suspension_Support" => ignore(NEVER_SUSPENDS),
        "Suspend_Erase_Time" | "Suspend_Program_Time" => {
            uint(t)?;
            ignore(NEVER_SUSPENDS)
        }
        n if n.starts_with("Page_Read_Latency_") => latency(t, ctx, "Page_Read_Latency_", "nand.t_read_us")?,
        n if n.starts_with("Page_Program_Latency_") => latency(t, ctx, "Page_Program_Latency_", "nand.t_program_us")?,
        "Block_Erase_Latency" => set("nand.t_erase_us", Value::Float(float(t)? / 1000.0), "ns / 1000 = µs"),
        "Block_PE_Cycles_Limit" => {
            uint(t)?;
            ignore("endurance: ssdlab counts erases but models no wear-out, and MQSim's runs never reach the limit")
        }
        "Die_No_Per_Chip" => set("nand.dies_per_chip", int(uint(t)?), "dies per chip"),
        "Plane_No_Per_Die" => set("nand.planes_per_die", int(uint(t)?), "planes per die"),
        "Block_No_Per_Plane" => set("nand.blocks_per_plane", int(uint(t)?), "blocks per plane"),
        "Page_No_Per_Block" => set("nand.pages_per_block", int(uint(t)?), "pages per block"),
        "Page_Capacity" => set("nand.page_bytes", int(uint(t)?), "bytes"),
        "Page_Metadat_Capacity" => {
            uint(t)?;
            ignore("the spare area: ssdlab neither times nor stores its bytes")
        }
        _ => return Ok(None),
    }))
}

/// A latency tag of page type `LSB`, `CSB` or `MSB`: the whole array of `key`, one entry
/// per page type of the cell (SLC: LSB; MLC: LSB, MSB; TLC: LSB, CSB, MSB), in µs.
fn latency(t: &Tag, ctx: &Ctx, prefix: &str, key: &'static str) -> Result<Outcome, String> {
    let kind = &t.name[prefix.len()..];
    if !["LSB", "CSB", "MSB"].contains(&kind) {
        return Ok(Outcome::Reject("unknown page type (MQSim: LSB, CSB, MSB)".into()));
    }
    let cell = ctx.word("Flash_Technology").unwrap_or_else(|| "MLC".into());
    let types: &[&str] = match cell.as_str() {
        "SLC" => &["LSB"],
        "TLC" => &["LSB", "CSB", "MSB"],
        _ => &["LSB", "MSB"],
    };
    if !types.contains(&kind) {
        float(t)?;
        return Ok(ignore(&format!("{cell} has no {kind} page")));
    }
    let mut us = Vec::new();
    for ty in types {
        let name = format!("{prefix}{ty}");
        let tag = ctx.get(&name).ok_or_else(|| format!("{cell} needs <{name}> too"))?;
        us.push(Value::Float(float(tag)? / 1000.0));
    }
    Ok(set(
        key,
        Value::Array(us),
        &format!(
            "ns / 1000 = µs, entry {} of the {cell} page types {types:?}",
            types.iter().position(|x| *x == kind).unwrap_or(0)
        ),
    ))
}
