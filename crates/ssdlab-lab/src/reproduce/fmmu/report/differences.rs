//! The report's last section: where ssdlab's numbers and the paper differ, each with the
//! measured evidence of why, computed from this run's rows so that the text and the tables
//! never disagree. The sentences are the template's; this module sets their values (a value
//! whose run is missing is "–").

use super::super::{main_traces, pick, Row, Synthetic, TraceSource, ISSUE_NS, PER_BLOCK_NS, QUEUE_DEPTH, SCHEMES};
use super::{opt, pct, Bounds};
use crate::reproduce::template::Values;
use ssdlab::nand::Geometry;
use ssdlab::Config;

/// A synthetic run.
fn run<'a>(rows: &'a [Row], w: Synthetic, scheme: &str) -> Option<&'a Row> {
    pick(rows, "synthetic", w.name(), scheme)
}

/// Per 1,000 requests.
fn per_k(x: u64, r: &Row) -> f64 {
    x as f64 * 1000.0 / r.requests.max(1) as f64
}

/// `f` of the run `r`, or "–" without it.
fn of(r: Option<&Row>, f: impl Fn(&Row) -> String) -> String {
    r.map_or("–".into(), f)
}

/// The section's values. The template uses the header's and the bounds' values here too:
/// blocks per plane, page size, queue depth and the drive's bounds.
pub fn values(v: &mut Values, rows: &[Row], base: &Config, b: &Bounds) {
    drive(v, base);
    sequential(v, rows, b);
    random(v, rows, b);
    gc(v, rows);
    software(v, rows);
    merged_misses(v, rows);
    traces(v, rows);
    v.set("standin_bullets", standins(rows));
    websearch(v, rows);
    scaling(v, rows);
}

/// Capacity, over-provisioning and the mapping unit.
fn drive(v: &mut Values, base: &Config) {
    let geo = Geometry::from_config(&base.nand);
    let logical = ssdlab::ftl::logical_pages(&geo, base.ftl.overprovisioning_ratio) as u64;
    let entries = (base.nand.page_bytes / base.ftl.map_cache.entry_bytes.unwrap_or(4)) as u64;
    let tps = logical.div_ceil(entries);
    let ram = base.ftl.map_cache.ram_bytes.unwrap_or(0);
    // DFTL's CMT: every byte of the RAM in blocks of 16 entries and a tag.
    let cmt_entries = ram / (16 * 4 + 4) * 16;
    let blocks = base.nand.blocks_per_plane;
    v.set("reserved_share", pct(5.0 / blocks as f64));
    v.set("op_percent", format!("{:.0}", base.ftl.overprovisioning_ratio * 100.0));
    v.set("user_gb", format!("{:.1}", logical as f64 * base.nand.page_bytes as f64 / 1e9));
    v.set("logical_pages", logical);
    v.set("translation_pages", tps);
    v.set("tp_entries", entries);
    v.set("map_coverage", pct(cmt_entries as f64 / logical as f64));
    v.set("dftl_cmt_entries", cmt_entries);
}

/// Sequential write and read against the bounds.
fn sequential(v: &mut Values, rows: &[Row], b: &Bounds) {
    let w = run(rows, Synthetic::SeqWrite, "ideal");
    v.set("seq_write_gb_s", of(w, |r| format!("{:.2}", r.bandwidth_gb_s)));
    v.set("seq_write_chips", of(w, |r| pct(r.util_chips)));
    let r = run(rows, Synthetic::SeqRead, "ideal");
    v.set("seq_read_gb_s", of(r, |r| format!("{:.2}", r.bandwidth_gb_s)));
    v.set("seq_read_bus", of(r, |r| pct(r.util_nand_bus)));
    v.set("paper_seq_read_of_bus", pct(9.2 / b.bus_gb_s));
}

/// Random read and random write before GC.
fn random(v: &mut Values, rows: &[Row], b: &Bounds) {
    let rd = run(rows, Synthetic::RandRead, "ideal");
    // Bytes of bus time per request.
    let bytes = |r: &Row| r.util_nand_bus * b.bus_gb_s * 1e9 / r.iops.max(1.0);
    v.set("rand_read_kiops", of(rd, |r| format!("{:.0}", r.iops / 1e3)));
    v.set("rand_read_bus", of(rd, |r| pct(r.util_nand_bus)));
    v.set("rand_read_bus_kib", of(rd, |r| format!("{:.1}", bytes(r) / 1024.0)));
    v.set("rand_read_map_reads", of(rd, |r| format!("{:.0}", per_k(r.tp_reads, r))));
    v.set("rand_read_hit", of(rd, |r| format!("{:.3}", r.map_hit_ratio)));
    v.set("paper_rand_read_kb", format!("{:.1}", b.bus_gb_s * 1e6 / 1165.0 / 1e3));
    let wr = run(rows, Synthetic::RandWrite, "ideal");
    v.set("rand_write_kiops", of(wr, |r| format!("{:.0}", r.iops / 1e3)));
    v.set("rand_write_chips", of(wr, |r| pct(r.util_chips)));
    v.set("rand_write_map_reads", of(wr, |r| format!("{:.2}", per_k(r.tp_reads, r) / 1e3)));
    v.set("rand_write_map_writes", of(wr, |r| format!("{:.2}", per_k(r.map_programs, r) / 1e3)));
    v.set("rand_write_hit", of(wr, |r| format!("{:.3}", r.map_hit_ratio)));
}

/// Random write with GC active: GC on small planes, and the map's write-backs beside it.
fn gc(v: &mut Values, rows: &[Row]) {
    let i = run(rows, Synthetic::RandWriteGc, "ideal");
    let f = run(rows, Synthetic::RandWriteGc, "full-map");
    v.set("gc_ideal_kiops", of(i, |r| format!("{:.1}", r.steady_iops / 1e3)));
    v.set("gc_full_kiops", of(f, |r| format!("{:.1}", r.steady_iops / 1e3)));
    v.set("gc_ideal_chips", of(i, |r| pct(r.util_chips)));
    v.set("gc_full_chips", of(f, |r| pct(r.util_chips)));
    v.set("gc_full_waf", of(f, |r| format!("{:.2}", r.waf)));
    v.set("gc_ideal_map_programs", of(i, |r| format!("{:.2}", per_k(r.map_programs, r) / 1e3)));
    v.set("gc_ideal_waf", of(i, |r| format!("{:.2}", r.waf)));
    v.set("gc_ideal_invocations", of(i, |r| r.gc_invocations.to_string()));
    v.set("gc_full_invocations", of(f, |r| r.gc_invocations.to_string()));
}

/// Cores, flush scans and CDFTL on random writes; FMMU's utilization.
fn software(v: &mut Values, rows: &[Row]) {
    let share = |w: Synthetic| opt(super::of_ideal(rows, w, "cdftl-4"), pct);
    v.set("cdftl4_rand_write_gc", share(Synthetic::RandWriteGc));
    v.set("cdftl4_rand_write", share(Synthetic::RandWrite));
    let w = Synthetic::RandWrite;
    let (c1, d1) = (run(rows, w, "cdftl-1"), run(rows, w, "dftl-1"));
    v.set("cdftl1_ftl", of(c1, |r| pct(r.util_ftl)));
    v.set("cdftl1_scanned", of(c1, |r| format!("{:.0}", per_k(r.flush_blocks_scanned, r))));
    v.set("dftl1_scanned", of(d1, |r| format!("{:.0}", per_k(r.flush_blocks_scanned, r))));
    v.set("dftl1_flushes", of(d1, |r| format!("{:.0}", per_k(r.flushes, r))));
    let flush_ms = |r: &Row| r.flush_blocks_scanned as f64 / r.flushes.max(1) as f64 * PER_BLOCK_NS / 1e6;
    v.set("dftl1_flush_ms", of(d1, |r| format!("{:.1}", flush_ms(r))));
    let f = run(rows, Synthetic::RandRead, "fmmu");
    // The issuing core's utilization: ISSUE_NS per request.
    let core = |r: &Row| r.iops * ISSUE_NS * 1e-9;
    v.set("fmmu_ftl", of(f, |r| pct(r.util_ftl)));
    v.set("issue_us", format!("{:.1}", ISSUE_NS / 1e3));
    v.set("fmmu_core", of(f, |r| pct(core(r))));
    v.set("fmmu_map_unit", of(f, |r| pct(2.0 * r.util_ftl - core(r))));
}

/// DFTL against CDFTL on sequential reads at one core.
fn merged_misses(v: &mut Values, rows: &[Row]) {
    let w = Synthetic::SeqRead;
    let (d, c) = (run(rows, w, "dftl-1"), run(rows, w, "cdftl-1"));
    let order = match (d, c) {
        (Some(d), Some(c)) if d.bandwidth_gb_s > c.bandwidth_gb_s => "DFTL ahead, as in the paper",
        (Some(_), Some(_)) => "CDFTL ahead; the paper has DFTL ahead",
        _ => "–",
    };
    let lookups = |r: &Row| (r.cmt_hits + r.cmt_misses).max(1) as f64;
    v.set("merged_dftl_gb_s", of(d, |r| format!("{:.2}", r.bandwidth_gb_s)));
    v.set("merged_cdftl_gb_s", of(c, |r| format!("{:.2}", r.bandwidth_gb_s)));
    v.set("merged_order", order);
    v.set("merged_share", of(d, |r| pct(r.merges as f64 / lookups(r))));
    v.set("merged_dftl_map_reads", of(d, |r| format!("{:.0}", per_k(r.tp_reads, r))));
    v.set("merged_cdftl_map_reads", of(c, |r| format!("{:.0}", per_k(r.tp_reads, r))));
    v.set("merged_cdftl_hit", of(c, |r| pct(r.map_hit_ratio)));
}

/// The template's names for one hot-page bullet's values, prefixed by `$p`.
macro_rules! hot_page_names {
    ($p:literal) => {
        [
            concat!($p, "_lo"),
            concat!($p, "_hi"),
            concat!($p, "_chips"),
            concat!($p, "_excerpt"),
            concat!($p, "_passes"),
            concat!($p, "_hot"),
            concat!($p, "_writes"),
            concat!($p, "_time_s"),
            concat!($p, "_hot_writes"),
            concat!($p, "_ms"),
            concat!($p, "_hit"),
        ]
    };
}

/// The MSR excerpts' hottest 16 KiB page: its page writes and all page writes in one pass of
/// the excerpt (counted from the shipped files: offsets and sizes of the write records),
/// with the template's names for the trace's bullet.
const HOT_PAGE: [(&str, u32, u32, u32, [&str; 11]); 2] =
    [("msr-rw20", 10_000, 1_105, 9_611, hot_page_names!("rw20")), ("msr-hm0", 1_000, 67, 601, hot_page_names!("hm0"))];

/// The trace runs of `t`: the fastest and slowest time over ideal's, and ideal's run.
fn spread<'a>(rows: &'a [Row], t: &str) -> Option<(f64, f64, &'a Row)> {
    let i = pick(rows, "trace", t, "ideal")?;
    let r: Vec<f64> = rows
        .iter()
        .filter(|r| r.experiment == "trace" && r.workload == t)
        .map(|r| r.sim_time_s / i.sim_time_s)
        .collect();
    Some((r.iter().cloned().fold(f64::MAX, f64::min), r.iter().cloned().fold(0.0, f64::max), i))
}

/// The trace runs: the MSR excerpts are bound by one hot page, hardly by the FTL.
fn traces(v: &mut Values, rows: &[Row]) {
    for (t, excerpt, hot, writes, names) in HOT_PAGE {
        let [lo, hi, chips, n_excerpt, n_passes, n_hot, n_writes, time_s, hot_writes, ms, hit] = names;
        let s = spread(rows, t);
        let i = s.map(|(_, _, i)| i);
        let passes = i.map(|i| i.requests as f64 / excerpt as f64);
        v.set(lo, opt(s.map(|s| s.0), |x| format!("{x:.2}")));
        v.set(hi, opt(s.map(|s| s.1), |x| format!("{x:.2}")));
        v.set(chips, of(i, |i| pct(i.util_chips)));
        v.set(n_excerpt, excerpt);
        v.set(n_passes, opt(passes, |p| format!("{p:.0}")));
        v.set(n_hot, hot);
        v.set(n_writes, writes);
        v.set(time_s, of(i, |i| format!("{:.3}", i.sim_time_s)));
        v.set(hot_writes, opt(passes, |p| format!("{:.0}", p * hot as f64)));
        let per_write_ms = i.zip(passes).map(|(i, p)| i.sim_time_s * 1e3 / (p * hot as f64));
        v.set(ms, opt(per_write_ms, |x| format!("{x:.2}")));
        v.set(hit, of(i, |i| format!("{:.3}", i.map_hit_ratio)));
    }
}

/// Requests in the shipped WebSearch excerpt (mqsim/wsrch-small.trace).
const WEBSEARCH_REQUESTS: u64 = 24_783;

/// The slowest scheme of Figure 13 on `trace` (its name and time over ideal's).
pub fn slowest(rows: &[Row], trace: &str) -> Option<(&'static str, f64)> {
    let ideal = pick(rows, "trace", trace, "ideal")?.sim_time_s;
    SCHEMES
        .iter()
        .filter_map(|s| pick(rows, "trace", trace, s.name).map(|r| (s.name, r.sim_time_s / ideal)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The stand-ins: what bounds ideal, the map's traffic, and the slowest scheme.
fn standins(rows: &[Row]) -> String {
    let mut m = Vec::new();
    for t in main_traces().filter(|t| matches!(t.source, TraceSource::StandIn(_))) {
        let (Some(i), Some((s, x))) = (pick(rows, "trace", t.name, "ideal"), slowest(rows, t.name)) else { continue };
        let ftl = pick(rows, "trace", t.name, s).map_or(0.0, |r| r.util_ftl);
        m.push(format!(
            "{} ({}, {} requests): ideal finishes in {:.3} s with chips {} and NAND buses {} busy, map hit ratio {:.3}, {:.0} translation-page reads and {:.0} programs per 1,000 requests, {} GC invocations; the slowest scheme, {s}, takes {x:.2}× ideal's time with its firmware {} busy.",
            t.name,
            t.paper,
            i.requests,
            i.sim_time_s,
            pct(i.util_chips),
            pct(i.util_nand_bus),
            i.map_hit_ratio,
            per_k(i.tp_reads, i),
            per_k(i.map_programs, i),
            i.gc_invocations,
            pct(ftl)
        ));
    }
    m.join(" ")
}

/// WebSearch: DFTL's flash reads against CDFTL's.
fn websearch(v: &mut Values, rows: &[Row]) {
    let get = |s: &str| pick(rows, "trace", "websearch", s);
    let (d, c) = (get("dftl-1"), get("cdftl-1"));
    let more = d.zip(c).map(|(d, c)| {
        let (dr, cr) = (d.data_reads + d.tp_reads, c.data_reads + c.tp_reads);
        (dr as f64 / cr.max(1) as f64 - 1.0) * 100.0
    });
    let why = match (d, c) {
        (Some(d), Some(c)) if d.map_hit_ratio > c.map_hit_ratio => {
            "the looped excerpt's footprint fits DFTL's 1,088 KiB CMT better than CDFTL's 64 KiB CMT and 64-page CTP"
        }
        (Some(_), Some(_)) => {
            "DFTL reads again translation pages that CDFTL keeps whole in its CTP (the spatial locality the paper names)"
        }
        _ => "–",
    };
    v.set("websearch_more_reads", opt(more, |x| format!("{x:+.1}")));
    // The excerpt's length (mqsim/wsrch-small.trace).
    v.set("websearch_passes", of(d, |d| format!("{:.1}", d.requests as f64 / WEBSEARCH_REQUESTS as f64)));
    v.set("websearch_dftl_hit", of(d, |d| format!("{:.3}", d.map_hit_ratio)));
    v.set("websearch_cdftl_hit", of(c, |c| format!("{:.3}", c.map_hit_ratio)));
    v.set("websearch_why", why);
}

/// Figure 14's top point.
fn scaling(v: &mut Values, rows: &[Row]) {
    let top =
        rows.iter().filter(|r| r.experiment == "scaling" && r.scheme == "fmmu").max_by_key(|r| r.channels * r.ways);
    v.set("scaling_miops", of(top, |t| format!("{:.2}", t.iops / 1e6)));
    v.set("scaling_channels", of(top, |t| t.channels.to_string()));
    v.set("scaling_ways", of(top, |t| t.ways.to_string()));
    v.set("scaling_bus", of(top, |t| pct(t.util_nand_bus)));
    v.set("scaling_chips", of(top, |t| pct(t.util_chips)));
    v.set("scaling_host", of(top, |t| pct(t.util_host_link)));
    v.set("scaling_ftl", of(top, |t| pct(t.util_ftl)));
    v.set("scaling_core", of(top, |t| pct(t.iops * ISSUE_NS * 1e-9)));
    v.set("scaling_response_us", of(top, |t| format!("{:.0}", QUEUE_DEPTH as f64 / t.iops.max(1.0) * 1e6)));
}
