//! MQSim's workload XML: each `IO_Scenario` becomes one ssdlab workload, each of its flows a
//! `[[flows]]` table whose keys name the tags they came from.
//!
//! How MQSim lays out flows: the drive's logical sectors are split evenly among the
//! scenario's flows (when all flows share all resources, `Logical_Address_Partitioning_Unit`
//! gives each 1/N), flow i taking the i-th part; a synthetic flow's working set is the first
//! `Working_Set_Percentage` of its part. So flow i of N gets `start_bytes` = i × its part and
//! `footprint` = working set / N (a fraction of the whole logical space).

use toml::Value;

use super::drive::{flag, uint, word, Ctx};
use super::{leaf, line_of, ImportError, Problems, Tag};
use crate::import::Doc;
use ssdlab::Config;

const SYNTHETIC: &str = "IO_Flow_Parameter_Set_Synthetic";
const TRACE: &str = "IO_Flow_Parameter_Set_Trace_Based";

/// Tags of every flow.
const COMMON: &[&str] = &[
    "Priority_Class",
    "Device_Level_Data_Caching_Mode",
    "Channel_IDs",
    "Chip_IDs",
    "Die_IDs",
    "Plane_IDs",
    "Initial_Occupancy_Percentage",
];
const SYNTHETIC_TAGS: &[&str] = &[
    "Working_Set_Percentage",
    "Synthetic_Generator_Type",
    "Read_Percentage",
    "Address_Distribution",
    "Percentage_of_Hot_Region",
    "Generated_Aligned_Addresses",
    "Address_Alignment_Unit",
    "Request_Size_Distribution",
    "Average_Request_Size",
    "Variance_Request_Size",
    "Seed",
    "Average_No_of_Reqs_in_Queue",
    "Intensity",
    "Bandwidth",
    "Stop_Time",
    "Total_Requests_To_Generate",
];
const TRACE_TAGS: &[&str] = &["File_Path", "Percentage_To_Be_Executed", "Relay_Count", "Time_Unit"];

/// MQSim's sector: its addresses and request sizes count 512-byte sectors.
const SECTOR_BYTES: u64 = 512;

/// One flow as read: its kind, line and tags.
struct FlowTags {
    synthetic: bool,
    line: u32,
    tags: Vec<Tag>,
}

/// What a flow's keys are computed from: the drive and the flow's place in its scenario.
struct Setting<'a> {
    cfg: &'a Config,
    drive: Ctx<'a>,
    index: u64,
    flows: u64,
}

/// Every scenario of the file as a workload.
pub(super) fn import(
    doc: &roxmltree::Document,
    file: &str,
    drive_tags: &[Tag],
    cfg: &Config,
) -> Result<Vec<Doc>, ImportError> {
    let mut p = Problems { file, list: Vec::new() };
    let top = doc.root_element();
    if top.tag_name().name() != "MQSim_IO_Scenarios" {
        p.at(line_of(doc, top), top.tag_name().name(), "expected <MQSim_IO_Scenarios> as the root element");
        return Err(ImportError(p.list));
    }
    let mut out = Vec::new();
    for sc in top.children().filter(|c| c.is_element()) {
        if sc.tag_name().name() != "IO_Scenario" {
            p.at(line_of(doc, sc), sc.tag_name().name(), "unknown element: expected <IO_Scenario>");
            continue;
        }
        let flows = read_flows(doc, sc, &mut p);
        if flows.is_empty() {
            p.at(line_of(doc, sc), "IO_Scenario", "a scenario without flows");
            continue;
        }
        let header = format!(
            "Imported from MQSim's {file}, <IO_Scenario> of line {} (scenario {}), by `ssdlab import mqsim`.",
            line_of(doc, sc),
            out.len() + 1
        );
        out.push(scenario(&flows, header, drive_tags, cfg, &mut p));
    }
    if out.is_empty() && p.list.is_empty() {
        p.at(line_of(doc, top), "MQSim_IO_Scenarios", "no <IO_Scenario>");
    }
    if p.list.is_empty() {
        Ok(out)
    } else {
        Err(ImportError(p.list))
    }
}

/// The flows of one scenario, each tag checked to belong to its kind of flow.
fn read_flows(doc: &roxmltree::Document, sc: roxmltree::Node, p: &mut Problems) -> Vec<FlowTags> {
    let mut flows = Vec::new();
    for f in sc.children().filter(|c| c.is_element()) {
        let name = f.tag_name().name();
        let synthetic = match name {
            SYNTHETIC => true,
            TRACE => false,
            _ => {
                p.at(line_of(doc, f), name, &format!("unknown flow: expected <{SYNTHETIC}> or <{TRACE}>"));
                continue;
            }
        };
        let own = if synthetic { SYNTHETIC_TAGS } else { TRACE_TAGS };
        let mut tags: Vec<Tag> = Vec::new();
        for c in f.children().filter(|c| c.is_element()) {
            let Some(t) = leaf(doc, c, p) else { continue };
            if !COMMON.contains(&t.name.as_str()) && !own.contains(&t.name.as_str()) {
                p.at(t.line, &t.name, &format!("unknown tag in <{name}>"));
            } else if tags.iter().any(|x| x.name == t.name) {
                p.at(t.line, &t.name, "given twice (MQSim keeps the last; say it once)");
            } else {
                tags.push(t);
            }
        }
        flows.push(FlowTags { synthetic, line: line_of(doc, f), tags });
    }
    flows
}

/// One scenario as a workload document.
fn scenario(flows: &[FlowTags], header: String, drive_tags: &[Tag], cfg: &Config, p: &mut Problems) -> Doc {
    let mut doc = Doc::default();
    doc.header_line(&header);
    doc.declare(&["", "precondition"]);
    let drive = Ctx { tags: drive_tags };
    if let Some(seed) = drive.get("Seed") {
        match uint(seed) {
            Ok(s) => doc.set(
                "seed",
                Value::Integer(s.min(i64::MAX as u64) as i64),
                &format!("{} of the drive: the run's seed", seed.shown()),
                true,
            ),
            Err(why) => p.at(seed.line, "Seed", &why),
        }
    }
    precondition(&mut doc, flows, &drive, p);
    if flows.len() > 1 && flows.iter().any(|f| !f.synthetic) {
        let f = flows.iter().find(|f| !f.synthetic).expect("checked");
        p.at(f.line, TRACE, "a trace flow beside other flows: MQSim gives it 1/N of the logical space, which a trace flow cannot be confined to in ssdlab");
    }
    for (i, f) in flows.iter().enumerate() {
        let set = Setting { cfg, drive: Ctx { tags: drive_tags }, index: i as u64, flows: flows.len() as u64 };
        doc.push_array_table("flows");
        let kind = if f.synthetic { SYNTHETIC } else { TRACE };
        doc.put_last("name", Value::String(format!("flow{i}")), &format!("<{kind}> of line {}", f.line));
        let ctx = Ctx { tags: &f.tags };
        let result = common(&mut doc, &ctx, &set).and_then(|()| {
            if f.synthetic {
                synthetic(&mut doc, &ctx, &set)
            } else {
                trace(&mut doc, &ctx, &set)
            }
        });
        if let Err((t, why)) = result {
            p.at(t.map_or(f.line, |t| t.line), t.map_or(kind, |t| t.name.as_str()), &why);
        }
    }
    doc
}

/// A problem with a flow: the tag (None: the flow's element) and why.
type FlowResult<'a> = Result<(), (Option<&'a Tag>, String)>;

/// `[precondition]`: MQSim preconditions only with `Enabled_Preconditioning`, each flow's
/// part to its `Initial_Occupancy_Percentage`; ssdlab fills the drive to one occupancy, so
/// the flows must agree.
fn precondition(doc: &mut Doc, flows: &[FlowTags], drive: &Ctx, p: &mut Problems) {
    let on = match drive.get("Enabled_Preconditioning").map(flag) {
        Some(Ok(on)) => on,
        Some(Err(_)) | None => false,
    };
    let occ: Vec<&Tag> =
        flows.iter().filter_map(|f| f.tags.iter().find(|t| t.name == "Initial_Occupancy_Percentage")).collect();
    if !on {
        let why = "ignored: the drive's Enabled_Preconditioning is false (or absent), so MQSim does not precondition";
        for t in occ {
            doc.header_line(&format!("{} {why}", t.shown()));
        }
        return;
    }
    let Some(first) = occ.first() else { return };
    let pct = match uint(first) {
        Ok(x) if x <= 100 => x,
        _ => return p.at(first.line, &first.name, "a percentage from 0 to 100"),
    };
    if let Some(other) = occ.iter().find(|t| t.text.trim() != first.text.trim()) {
        return p.at(
            other.line,
            &other.name,
            "flows with different occupancies: ssdlab preconditions the whole drive to one",
        );
    }
    let note = format!("{} (every flow's): percent / 100; Enabled_Preconditioning is true", first.shown());
    doc.set("precondition.occupancy", Value::Float(pct as f64 / 100.0), &note, true);
    doc.set(
        "precondition.pattern",
        Value::String("random".into()),
        "MQSim preconditions to a steady state of random writes",
        true,
    );
}

/// A tag's value (`f`) or the problem, naming the tag.
fn need<T>(t: &Tag, f: impl Fn(&Tag) -> Result<T, String>) -> Result<T, (Option<&Tag>, String)> {
    f(t).map_err(|why| (Some(t), why))
}

fn bad<T>(t: &Tag, why: String) -> Result<T, (Option<&Tag>, String)> {
    Err((Some(t), why))
}

/// The tags of every flow: priority, cache mode, resources.
fn common<'a>(doc: &mut Doc, ctx: &Ctx<'a>, set: &Setting) -> FlowResult<'a> {
    if let Some(t) = ctx.get("Priority_Class") {
        let w = word(t);
        if !["URGENT", "HIGH", "MEDIUM", "LOW"].contains(&w.as_str()) {
            return bad(t, format!("unknown priority `{}` (MQSim: URGENT, HIGH, MEDIUM, LOW)", t.text));
        }
        doc.put_last(
            "priority",
            Value::String(w.to_ascii_lowercase()),
            &format!("{}: the NVMe priority class", t.shown()),
        );
    }
    if let Some(t) = ctx.get("Device_Level_Data_Caching_Mode") {
        let on = set.cfg.cache.enabled;
        match (word(t).as_str(), on) {
            ("WRITE_CACHE", _) | ("TURNED_OFF", false) => {
                doc.note_last(&format!("{}: the drive's write cache (on: {on}) serves every flow", t.shown()))
            }
            _ => return bad(t, format!("`{}` with the drive's cache on: {on}: ssdlab's one write cache serves every flow and caches written data only", t.text)),
        }
    }
    let n = &set.cfg.nand;
    for (name, count) in [
        ("Channel_IDs", n.channels),
        ("Chip_IDs", n.chips_per_channel),
        ("Die_IDs", n.dies_per_chip),
        ("Plane_IDs", n.planes_per_die),
    ] {
        let Some(t) = ctx.get(name) else { continue };
        let mut ids = Vec::new();
        for part in t.text.split(',') {
            ids.push(part.trim().parse::<u64>().map_err(|_| (Some(t), format!("`{}` is not a list of ids", t.text)))?);
        }
        ids.sort_unstable();
        ids.dedup();
        if ids != (0..u64::from(count)).collect::<Vec<_>>() {
            return bad(
                t,
                format!(
                    "a flow confined to some of the drive's {count}: ssdlab flows share all resources (list 0 to {})",
                    count.saturating_sub(1)
                ),
            );
        }
        doc.note_last(&format!("{}: all {count}, as every ssdlab flow", t.shown()));
    }
    if let Some(t) = ctx.get("Initial_Occupancy_Percentage") {
        doc.note_last(&format!("{}: see [precondition] and the header", t.shown()));
    }
    Ok(())
}

/// The drive's logical bytes, as ssdlab counts them.
fn logical_bytes(cfg: &Config) -> u64 {
    let geo = cfg.ftl.geometry(&cfg.nand);
    ssdlab::ftl::logical_pages(&geo, cfg.ftl.overprovisioning_ratio) as u64 * geo.page_bytes as u64
}

/// A synthetic flow: where (range, pattern, sizes), then how fast and how long.
fn synthetic<'a>(doc: &mut Doc, ctx: &Ctx<'a>, set: &Setting) -> FlowResult<'a> {
    doc.put_last("type", Value::String("synthetic".into()), "IO_Flow_Parameter_Set_Synthetic");
    let ws = match ctx.get("Working_Set_Percentage") {
        Some(t) => need(t, uint)?,
        None => 100,
    };
    // MQSim (Host_System) takes a working set outside 1..=100 as 100.
    let ws = if (1..=100).contains(&ws) { ws } else { 100 };
    let part_sectors = logical_bytes(set.cfg) / SECTOR_BYTES / set.flows;
    let start = set.index * part_sectors * SECTOR_BYTES;
    let why =
        format!("flow {} of {}: MQSim gives each flow 1/{} of the logical sectors", set.index, set.flows, set.flows);
    doc.put_last(
        "start_bytes",
        Value::Integer(start as i64),
        &format!("{why}; this flow's part starts at sector {}", set.index * part_sectors),
    );
    let ws_note = ctx.get("Working_Set_Percentage").map_or("no Working_Set_Percentage: 100".into(), |t| t.shown());
    doc.put_last(
        "footprint",
        Value::Float(ws as f64 / 100.0 / set.flows as f64),
        &format!("{ws_note}: {ws}% of the flow's 1/{} of the drive", set.flows),
    );
    let t = ctx.get("Read_Percentage").ok_or((None, "missing <Read_Percentage>".to_string()))?;
    match need(t, uint)? {
        r @ 0..=100 => {
            doc.put_last("read_ratio", Value::Float(r as f64 / 100.0), &format!("{}: percent / 100", t.shown()))
        }
        _ => return bad(t, "a percentage from 0 to 100".into()),
    }
    address(doc, ctx)?;
    sizes(doc, ctx)?;
    if let Some(t) = ctx.get("Seed") {
        let s = t
            .text
            .trim()
            .parse::<u64>()
            .map_err(|_| (Some(t), format!("`{}`: ssdlab seeds are whole numbers ≥ 0", t.text)))?;
        doc.put_last(
            "seed",
            Value::Integer(s.min(i64::MAX as u64) as i64),
            &format!("{}: the flow's own generator seed", t.shown()),
        );
    }
    load(doc, ctx, set)
}

/// The address pattern and alignment.
fn address<'a>(doc: &mut Doc, ctx: &Ctx<'a>) -> FlowResult<'a> {
    let dist = ctx.word("Address_Distribution").unwrap_or_else(|| "RANDOM_UNIFORM".into());
    let shown = ctx.get("Address_Distribution").map_or("no Address_Distribution: RANDOM_UNIFORM".into(), |t| t.shown());
    let hot = ctx.get("Percentage_of_Hot_Region");
    match dist.as_str() {
        "RANDOM_UNIFORM" | "UNIFORM_RANDOM" => doc.put_last("address", Value::String("uniform".into()), &shown),
        "STREAMING" => doc.put_last(
            "address",
            Value::String("sequential".into()),
            &format!("{shown} (MQSim starts at a random address, ssdlab at the footprint's start)"),
        ),
        "RANDOM_HOTCOLD" | "HOTCOLD_RANDOM" => {
            let t = hot.ok_or((None, "RANDOM_HOTCOLD needs <Percentage_of_Hot_Region>".to_string()))?;
            let h = need(t, uint)?;
            if !(1..=99).contains(&h) {
                return bad(t, "hot/cold needs a hot region of 1 to 99 percent".into());
            }
            doc.put_last("address", Value::String("hotcold".into()), &shown);
            let note =
                format!("{}: the first H% of the working set is hot and takes (100 - H)% of the requests", t.shown());
            doc.put_last("hot_fraction", Value::Float(h as f64 / 100.0), &note);
            doc.put_last("hot_access", Value::Float((100 - h) as f64 / 100.0), &note);
        }
        _ => {
            let t = ctx.get("Address_Distribution").expect("the default is known");
            return bad(
                t,
                format!("address distribution `{}`: ssdlab has RANDOM_UNIFORM, STREAMING and RANDOM_HOTCOLD", t.text),
            );
        }
    }
    if let (Some(t), false) = (hot, matches!(dist.as_str(), "RANDOM_HOTCOLD" | "HOTCOLD_RANDOM")) {
        doc.note_last(&format!("{}: ignored, used only by RANDOM_HOTCOLD", t.shown()));
    }
    let gen = ctx.get("Generated_Aligned_Addresses");
    let aligned = match gen {
        Some(t) => need(t, flag)?,
        None => false,
    };
    let unit = ctx.get("Address_Alignment_Unit");
    let (sectors, note) = match (aligned, unit) {
        (true, Some(t)) => match need(t, uint)? {
            0 => return bad(t, "an alignment of 0 sectors".into()),
            u => (u, format!("{} and {}: sectors × {SECTOR_BYTES}", gen.map_or(String::new(), Tag::shown), t.shown())),
        },
        (true, None) => return Err((gen, "aligned addresses need <Address_Alignment_Unit>".into())),
        (false, _) => {
            let shown: Vec<String> = [gen, unit].iter().flatten().map(|t| t.shown()).collect();
            (
                1,
                format!(
                    "addresses not aligned ({}): any sector",
                    if shown.is_empty() { "no Generated_Aligned_Addresses".into() } else { shown.join(", ") }
                ),
            )
        }
    };
    doc.put_last("align_bytes", Value::Integer((sectors * SECTOR_BYTES) as i64), &note);
    Ok(())
}

/// Request sizes: MQSim's FIXED size, or NORMAL with no variance.
fn sizes<'a>(doc: &mut Doc, ctx: &Ctx<'a>) -> FlowResult<'a> {
    let t = ctx.get("Average_Request_Size").ok_or((None, "missing <Average_Request_Size>".to_string()))?;
    let avg = need(t, uint)?;
    if avg == 0 {
        return bad(t, "requests of 0 sectors".into());
    }
    let var = match ctx.get("Variance_Request_Size") {
        Some(v) => need(v, uint)?,
        None => 0,
    };
    if let Some(d) = ctx.get("Request_Size_Distribution") {
        match (word(d).as_str(), var) {
            ("FIXED", _) | ("NORMAL", 0) => {}
            ("NORMAL", _) => return bad(d, format!("NORMAL sizes with variance {var}: ssdlab draws sizes from a list (request_bytes_choices), not a normal law")),
            _ => return bad(d, format!("size distribution `{}`: MQSim has FIXED and NORMAL", d.text)),
        }
        doc.note_last(&format!("{}: one size", d.shown()));
    }
    if let Some(v) = ctx.get("Variance_Request_Size") {
        doc.note_last(&format!("{}: no spread (FIXED, or NORMAL with 0)", v.shown()));
    }
    doc.put_last(
        "request_bytes",
        Value::Integer((avg * SECTOR_BYTES) as i64),
        &format!("{}: sectors × {SECTOR_BYTES}", t.shown()),
    );
    Ok(())
}

/// Closed loop at a depth or Poisson arrivals at a bandwidth; stop at a time or a count.
fn load<'a>(doc: &mut Doc, ctx: &Ctx<'a>, set: &Setting) -> FlowResult<'a> {
    let g = ctx.get("Synthetic_Generator_Type").ok_or((None, "missing <Synthetic_Generator_Type>".to_string()))?;
    let bw = ctx.get("Bandwidth").or(ctx.get("Intensity"));
    let depth = ctx.get("Average_No_of_Reqs_in_Queue");
    match word(g).as_str() {
        "QUEUE_DEPTH" => {
            let t = depth.ok_or((None, "QUEUE_DEPTH needs <Average_No_of_Reqs_in_Queue>".to_string()))?;
            match need(t, uint)? {
                d @ 1..=65536 => doc.put_last(
                    "queue_depth",
                    Value::Integer(d as i64),
                    &format!("{} with {}: a closed loop keeping that many requests outstanding", t.shown(), g.shown()),
                ),
                _ => return bad(t, "a depth from 1 to 65536".into()),
            }
            if let Some(b) = bw {
                doc.note_last(&format!("{}: ignored, used only by BANDWIDTH", b.shown()));
            }
        }
        "BANDWIDTH" => {
            let b = bw.ok_or((None, "BANDWIDTH needs <Bandwidth> (older MQSim: <Intensity>)".to_string()))?;
            let avg = ctx.get("Average_Request_Size").map(uint).transpose().map_err(|w| (None, w))?.unwrap_or(1);
            // MQSim (Host_System): mean gap = 1e9 ns / ((bytes per s / 512) / sectors per
            // request), in integers, then exponential gaps.
            let rate = need(b, uint)? / SECTOR_BYTES / avg.max(1);
            if rate == 0 {
                return bad(b, "fewer than one request per second (MQSim divides by zero)".into());
            }
            let note = format!("{} with {}: (bytes/s / {SECTOR_BYTES}) / sectors per request, in whole numbers as MQSim; Poisson arrivals", b.shown(), g.shown());
            doc.put_last("rate_iops", Value::Float(rate as f64), &note);
            open_queue(doc, set);
            if let Some(t) = depth {
                doc.note_last(&format!("{}: ignored, used only by QUEUE_DEPTH", t.shown()));
            }
        }
        _ => return bad(g, format!("generator `{}`: MQSim has QUEUE_DEPTH and BANDWIDTH", g.text)),
    }
    stop(doc, ctx)
}

/// An open-loop flow's queue: MQSim's submission queue, `IO_Queue_Depth` of the drive.
fn open_queue(doc: &mut Doc, set: &Setting) {
    match set.drive.get("IO_Queue_Depth").map(uint) {
        Some(Ok(d)) => {
            let d = d.clamp(1, 65536);
            doc.put_last(
                "queue_depth",
                Value::Integer(d as i64),
                &format!("the drive's <IO_Queue_Depth>{d}</IO_Queue_Depth>: the flow's submission queue"),
            );
        }
        _ => doc.note_last("no IO_Queue_Depth in the drive: ssdlab's open-loop queue (1024)"),
    }
}

/// `Stop_Time` (ns) when above 0, else `Total_Requests_To_Generate`.
fn stop<'a>(doc: &mut Doc, ctx: &Ctx<'a>) -> FlowResult<'a> {
    let total = ctx.get("Total_Requests_To_Generate");
    if let Some(t) = ctx.get("Stop_Time") {
        let ns = need(t, uint)?;
        if ns > 0 {
            doc.put_last("duration_ms", Value::Float(ns as f64 / 1e6), &format!("{}: ns / 10^6 = ms", t.shown()));
            if let Some(r) = total {
                doc.note_last(&format!("{}: ignored, MQSim counts requests only when Stop_Time is 0", r.shown()));
            }
            return Ok(());
        }
    }
    let t = total.ok_or((
        None,
        "neither a Stop_Time above 0 nor <Total_Requests_To_Generate>: MQSim would generate no request".to_string(),
    ))?;
    match need(t, uint)? {
        0 => bad(t, "0 with Stop_Time 0: MQSim would generate no request".into()),
        n => {
            let at = ctx.get("Stop_Time").map_or("no Stop_Time".into(), |s| s.shown());
            doc.put_last(
                "requests",
                Value::Integer(n.min(i64::MAX as u64) as i64),
                &format!("{} ({at}: stop after this many)", t.shown()),
            );
            Ok(())
        }
    }
}

/// A trace-based flow: MQSim's trace format, replayed at its timestamps.
fn trace<'a>(doc: &mut Doc, ctx: &Ctx<'a>, set: &Setting) -> FlowResult<'a> {
    doc.put_last("type", Value::String("trace".into()), "IO_Flow_Parameter_Set_Trace_Based");
    let t = ctx.get("File_Path").ok_or((None, "missing <File_Path>".to_string()))?;
    if t.text.is_empty() {
        return bad(t, "an empty path".into());
    }
    let path = t.text.replace('\\', "/");
    let note = format!("{}: MQSim reads it from its working directory; here a relative path is tried next to this file, then in the working directory", t.shown());
    doc.put_last("path", Value::String(path), &note);
    doc.put_last(
        "format",
        Value::String("mqsim".into()),
        "MQSim's trace format (arrival ns, device, LBA, sectors, type)",
    );
    doc.put_last("replay", Value::String("timestamps".into()), "MQSim replays a trace at its arrival times");
    let (speedup, unit) = match ctx.get("Time_Unit") {
        None => (1.0, "no Time_Unit: NANOSECOND".to_string()),
        Some(u) => match word(u).as_str() {
            "NANOSECOND" => (1.0, u.shown()),
            "MICROSECOND" => (0.001, u.shown()),
            "PICOSECOND" => (1000.0, u.shown()),
            _ => return bad(u, format!("time unit `{}`: MQSim has PICOSECOND, NANOSECOND, MICROSECOND", u.text)),
        },
    };
    doc.put_last(
        "speedup",
        Value::Float(speedup),
        &format!("{unit}: the mqsim format reads ns, so times in another unit are scaled by the speedup"),
    );
    doc.put_last(
        "address_mode",
        Value::String("wrap".into()),
        "MQSim folds an address past the flow's range back into it",
    );
    open_queue(doc, set);
    if let Some(t) = ctx.get("Percentage_To_Be_Executed") {
        if need(t, uint)? != 100 {
            return bad(
                t,
                "only 100 (the whole trace): a share needs the trace's request count, which the import does not read"
                    .into(),
            );
        }
        doc.note_last(&format!("{}: the whole trace", t.shown()));
    }
    if let Some(t) = ctx.get("Relay_Count") {
        if need(t, uint)? != 1 {
            return bad(t, "only 1: replaying a trace N times is `loop = true` with a request count, which needs the trace's length".into());
        }
        doc.note_last(&format!("{}: replayed once", t.shown()));
    }
    Ok(())
}
