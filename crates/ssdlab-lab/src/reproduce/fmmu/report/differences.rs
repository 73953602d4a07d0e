//! The report's last section: where ssdlab's numbers and the paper differ, each with the
//! measured evidence of why, computed from this run's rows so that the text and the tables
//! never disagree. The sentences are the template's; this module sets their values (a value
//! whose run is missing is "–").

use std::collections::HashMap;

use super::super::{
    main_traces, pick, Row, Synthetic, TraceSource, CDFTL_LOOKUP_NS, DFTL_HIT_NS, ISSUE_NS, PER_BLOCK_NS, QUEUE_DEPTH,
    SCHEMES, STANDINS,
};
use super::sweep::PAPER_CDFTL4;
use super::{opt, pct, Bounds};
use crate::reproduce::template::Values;
use ssdlab::nand::Geometry;
use ssdlab::Config;
use ssdlab_trace::{Op, Record};

/// The paper's drive (§5.1) [P]: 16 GB (taken as GiB: it gives the 16 GiB / 4 KiB = 4 Mi
/// map entries of docs/techniques.md §9.2) at 15% over-provisioning, mapped in 4 KiB units.
const PAPER_CAPACITY_BYTES: u64 = 16 << 30;
const PAPER_OP: f64 = 0.15;
const PAPER_MAP_UNIT_BYTES: u64 = 4096;
/// The paper's ideal results (§5.3) [P].
const PAPER_SEQ_WRITE_GB_S: f64 = 5.5;
const PAPER_SEQ_READ_GB_S: f64 = 9.2;
const PAPER_RAND_READ_KIOPS: f64 = 1165.0;

/// A part of the drive at least this busy bounds a run.
pub const SATURATED: f64 = 0.9;

/// Within this share, two times or rates are "about" the same.
const CLOSE: f64 = 0.1;

/// Schemes within this share of ideal's time: the map cache hardly matters.
const NEGLIGIBLE: f64 = 0.05;

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

/// One pass of a shipped trace, counted from its file: its requests, its page writes (a
/// write counts once for each page it touches), and the writes to its most written page,
/// all of them and those covering less than the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HotPage {
    pub requests: u64,
    pub page_writes: u64,
    pub hottest: u64,
    pub hottest_partial: u64,
}

impl HotPage {
    /// Count `records` in pages of `page_bytes`.
    pub fn of(records: &[Record], page_bytes: u64) -> HotPage {
        let mut writes: HashMap<u64, (u64, u64)> = HashMap::new();
        for r in records.iter().filter(|r| r.op == Op::Write && r.size_bytes > 0) {
            let (first, last) = (r.offset_bytes / page_bytes, (r.offset_bytes + r.size_bytes - 1) / page_bytes);
            for page in first..=last {
                let whole =
                    r.offset_bytes <= page * page_bytes && r.offset_bytes + r.size_bytes >= (page + 1) * page_bytes;
                let w = writes.entry(page).or_default();
                *w = (w.0 + 1, w.1 + u64::from(!whole));
            }
        }
        // The most written page; among equals, the lowest (a HashMap's order must not matter).
        let hottest = writes.iter().max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.0.cmp(a.0))).map_or((0, 0), |w| *w.1);
        HotPage {
            requests: records.len() as u64,
            page_writes: writes.values().map(|w| w.0).sum(),
            hottest: hottest.0,
            hottest_partial: hottest.1,
        }
    }
}

/// The section's values. The template uses the header's and the bounds' values here too:
/// blocks per plane, page size, queue depth and the drive's bounds. `excerpts`: each shipped
/// trace's [`HotPage`] by workload name (None: its file was not read).
pub fn values(v: &mut Values, rows: &[Row], base: &Config, b: &Bounds, excerpts: &[(&str, Option<HotPage>)]) {
    drive(v, base);
    sequential(v, rows, b, base);
    random(v, rows, b);
    gc(v, rows);
    software(v, rows, base);
    merged_misses(v, rows);
    traces(v, rows, base, excerpts);
    v.set("standin_bullets", standins(rows));
    websearch(v, rows, base, excerpts);
    scaling(v, rows);
}

/// The busiest part of a run (the first of equals): NAND buses, chips, host link or
/// firmware, with its utilisation.
pub fn busiest(r: &Row) -> (&'static str, f64) {
    let parts = [
        ("NAND buses", r.util_nand_bus),
        ("chips", r.util_chips),
        ("host link", r.util_host_link),
        ("firmware", r.util_ftl),
    ];
    parts.into_iter().fold(("", f64::MIN), |best, p| if p.1 > best.1 { p } else { best })
}

/// What bounds a run: its busiest part if [`SATURATED`], as a sentence's opening.
pub fn bound(r: &Row) -> String {
    match busiest(r) {
        (part, u) if u >= SATURATED => format!("Bound by the {part} ({} busy)", pct(u)),
        (part, u) => format!("No part is at least {} busy (the busiest, the {part}: {})", pct(SATURATED), pct(u)),
    }
}

/// `x` against `y` in words: "about" within [`CLOSE`], else "more than" or "less than".
pub fn against(x: f64, y: f64) -> &'static str {
    match x / y {
        q if (q - 1.0).abs() <= CLOSE => "about",
        q if q > 1.0 => "more than",
        _ => "less than",
    }
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
    let limits = base.ftl.limits(blocks);
    let kept = limits.gc_threshold_blocks + limits.frontiers;
    v.set("kept_blocks", kept);
    v.set("reserve_blocks", limits.user_reserve_blocks);
    v.set("threshold_blocks", limits.gc_threshold_blocks - limits.user_reserve_blocks);
    v.set("frontiers", limits.frontiers);
    v.set("reserved_share", pct(kept as f64 / blocks as f64));
    let mut paper = base.clone();
    paper.ftl.overprovisioning_ratio = PAPER_OP;
    let fate = if paper.validate("").is_err() { "is rejected" } else { "would be accepted" };
    v.set("paper_op_fate", format!("the paper's {} {fate}", pct(PAPER_OP)));
    v.set("paper_gb", PAPER_CAPACITY_BYTES >> 30);
    v.set("paper_op", pct(PAPER_OP));
    let block_bytes = base.nand.pages_per_block as u64 * base.nand.page_bytes as u64;
    v.set("block_mib", format!("{}", block_bytes as f64 / (1 << 20) as f64));
    v.set("paper_blocks", format!("{:.1}", paper_blocks_per_plane(geo.planes() as u64, block_bytes)));
    let paper_entries = PAPER_CAPACITY_BYTES / PAPER_MAP_UNIT_BYTES;
    v.set("paper_unit_kib", PAPER_MAP_UNIT_BYTES / 1024);
    v.set("paper_entries", format!("{} Mi", paper_entries >> 20));
    let paper_coverage = cmt_entries as f64 / paper_entries as f64;
    v.set("paper_map_coverage", pct(paper_coverage));
    let ours = cmt_entries as f64 / logical as f64;
    v.set("coverage_order", if ours > paper_coverage { "higher" } else { "no higher" });
    v.set("op_percent", format!("{:.0}", base.ftl.overprovisioning_ratio * 100.0));
    v.set("user_gb", format!("{:.1}", logical as f64 * base.nand.page_bytes as f64 / 1e9));
    v.set("logical_pages", logical);
    v.set("translation_pages", tps);
    v.set("tp_entries", entries);
    v.set("map_coverage", pct(ours));
    v.set("dftl_cmt_entries", cmt_entries);
}

/// Blocks per plane the paper's capacity and over-provisioning need on `planes` planes of
/// blocks of `block_bytes`: physical bytes = capacity / (1 − over-provisioning).
pub fn paper_blocks_per_plane(planes: u64, block_bytes: u64) -> f64 {
    PAPER_CAPACITY_BYTES as f64 / (1.0 - PAPER_OP) / planes as f64 / block_bytes as f64
}

/// The paper's sequential write against this drive's program bounds, as a sentence.
pub fn paper_seq_write(b: &Bounds, planes: u32, page_kib: u32) -> String {
    let (one, all) = (PAPER_SEQ_WRITE_GB_S / b.program_one_plane_gb_s, PAPER_SEQ_WRITE_GB_S / b.program_gb_s);
    let why = match against(PAPER_SEQ_WRITE_GB_S, b.program_one_plane_gb_s) {
        "about" => "its programs did not gain from multi-plane programming",
        "more than" => "its programs gained from multi-plane programming, short of every plane at once",
        _ => "it falls short of even one page per chip per tPROG",
    };
    format!(
        "The paper's {PAPER_SEQ_WRITE_GB_S} GB/s is {} of one {page_kib} KiB page per chip per tPROG ({:.2} GB/s) and {} of the {planes}-plane bound: {why}.",
        pct(one),
        b.program_one_plane_gb_s,
        pct(all)
    )
}

/// Sequential write and read against the bounds.
fn sequential(v: &mut Values, rows: &[Row], b: &Bounds, base: &Config) {
    let w = run(rows, Synthetic::SeqWrite, "ideal");
    v.set("seq_write_gb_s", of(w, |r| format!("{:.2}", r.bandwidth_gb_s)));
    v.set("seq_write_chips", of(w, |r| pct(r.util_chips)));
    v.set("paper_seq_write", paper_seq_write(b, base.nand.planes_per_die, base.nand.page_bytes / 1024));
    let r = run(rows, Synthetic::SeqRead, "ideal");
    v.set("seq_read_gb_s", of(r, |r| format!("{:.2}", r.bandwidth_gb_s)));
    v.set("seq_read_bus", of(r, |r| pct(r.util_nand_bus)));
    v.set("paper_seq_read_of_bus", pct(PAPER_SEQ_READ_GB_S / b.bus_gb_s));
}

/// Random read and random write before GC.
fn random(v: &mut Values, rows: &[Row], b: &Bounds) {
    let rd = run(rows, Synthetic::RandRead, "ideal");
    // Bytes of bus time per request.
    let bytes = |r: &Row| r.util_nand_bus * b.bus_gb_s * 1e9 / r.iops.max(1.0);
    v.set("rand_read_kiops", of(rd, |r| format!("{:.0}", r.iops / 1e3)));
    v.set("rand_read_bound", of(rd, bound));
    v.set("rand_read_bus_kib", of(rd, |r| format!("{:.1}", bytes(r) / 1024.0)));
    v.set("rand_read_map_reads", of(rd, |r| format!("{:.0}", per_k(r.tp_reads, r))));
    v.set("rand_read_hit", of(rd, |r| format!("{:.3}", r.map_hit_ratio)));
    v.set("paper_rand_read_kb", format!("{:.1}", b.bus_gb_s * 1e6 / PAPER_RAND_READ_KIOPS / 1e3));
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
    // In steady state a victim with a share v of its pages valid writes 1 / (1 − v) pages per
    // host page: v = 1 − 1 / WAF.
    v.set("gc_full_valid", of(f, |r| pct(1.0 - 1.0 / r.waf.max(1.0))));
    let bound = match (i, f) {
        (Some(i), Some(f)) if i.util_chips >= SATURATED && f.util_chips >= SATURATED => {
            "so GC's moves, not idle chips, bound the throughput"
        }
        (Some(_), Some(_)) => "yet the chips are not saturated in both runs",
        _ => "–",
    };
    v.set("gc_bound", bound);
    let adds = match (i, f) {
        (Some(i), Some(f)) if i.waf > f.waf => "adds to",
        (Some(_), Some(_)) => "does not add to",
        _ => "–",
    };
    v.set("gc_map_adds", adds);
    v.set("gc_ideal_map_programs", of(i, |r| format!("{:.2}", per_k(r.map_programs, r) / 1e3)));
    v.set("gc_ideal_waf", of(i, |r| format!("{:.2}", r.waf)));
    v.set("gc_ideal_invocations", of(i, |r| r.gc_invocations.to_string()));
    v.set("gc_full_invocations", of(f, |r| r.gc_invocations.to_string()));
}

/// Cores, flush scans and CDFTL on random writes; FMMU's utilization.
fn software(v: &mut Values, rows: &[Row], base: &Config) {
    let shares = [Synthetic::RandWriteGc, Synthetic::RandWrite].map(|w| super::of_ideal(rows, w, "cdftl-4"));
    v.set("cdftl4_rand_write_gc", opt(shares[0], pct));
    v.set("cdftl4_rand_write", opt(shares[1], pct));
    v.set("cdftl4_vs_paper", against_paper(&shares.into_iter().flatten().collect::<Vec<_>>(), PAPER_CDFTL4));
    v.set("fmmu_hit_ns", base.ftl.firmware.hit_ns);
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

/// Whether shares of ideal fall below the paper's `paper`, in words: "falls below" (all),
/// "reaches" (none), "falls below once and reaches once" (mixed); "–" without values.
pub fn against_paper(shares: &[f64], paper: f64) -> String {
    let below = shares.iter().filter(|&&x| x < paper).count();
    match (below, shares.len() - below) {
        (0, 0) => "–".into(),
        (_, 0) => "falls below".into(),
        (0, _) => "reaches".into(),
        (b, r) => format!("falls below on {b} run(s) and reaches on {r} of"),
    }
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
    let why = match (d, c) {
        (Some(d), Some(c)) if per_k(d.tp_reads, d) > per_k(c.tp_reads, c) => {
            ", because DFTL keeps only the entries asked for and reads the page again for the next ones"
        }
        (Some(_), Some(_)) => ", though DFTL reads translation pages no more often than CDFTL",
        _ => "",
    };
    v.set("merged_why", why);
    v.set("dftl_hit_us", DFTL_HIT_NS / 1e3);
    v.set("cdftl_lookup_us", CDFTL_LOOKUP_NS / 1e3);
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
            concat!($p, "_partial"),
            concat!($p, "_time_s"),
            concat!($p, "_hot_writes"),
            concat!($p, "_ms"),
            concat!($p, "_rmw"),
            concat!($p, "_map"),
            concat!($p, "_hit"),
        ]
    };
}

/// The MSR excerpts' bullets: each workload with the template's names for its values.
const HOT_PAGE: [(&str, [&str; 14]); 2] = [("msr-rw20", hot_page_names!("rw20")), ("msr-hm0", hot_page_names!("hm0"))];

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

/// One write that reads, transfers twice and programs a page of `base`'s drive (a
/// read-modify-write), µs, and its page transfer alone.
pub fn read_modify_write_us(base: &Config) -> (f64, f64) {
    let n = &base.nand;
    let transfer_us = n.page_bytes as f64 / (n.bus.rate_mt_s * n.bus.width_bits as f64 / 8.0);
    let first = |t: &[f64]| t.first().copied().unwrap_or(0.0);
    (first(&n.t_read_us) + 2.0 * transfer_us + first(&n.t_program_us), transfer_us)
}

/// The `excerpts` entry of workload `t`.
fn excerpt(excerpts: &[(&str, Option<HotPage>)], t: &str) -> Option<HotPage> {
    excerpts.iter().find(|e| e.0 == t).and_then(|e| e.1)
}

/// The trace runs: the MSR excerpts are bound by one hot page, hardly by the FTL.
fn traces(v: &mut Values, rows: &[Row], base: &Config, excerpts: &[(&str, Option<HotPage>)]) {
    let (rmw_us, transfer_us) = read_modify_write_us(base);
    v.set("page_transfer_us", format!("{transfer_us:.1}"));
    v.set("rmw_ms", format!("{:.2}", rmw_us / 1e3));
    v.set("paper_proj_gb", STANDINS[0].capacity_gb);
    v.set("paper_proj_write_kb", format!("{:.0}", STANDINS[0].write_kb));
    for (t, names) in HOT_PAGE {
        let [lo, hi, chips, n_excerpt, n_passes, n_hot, n_writes, partial, time_s, hot_writes, ms, rmw, map, hit] =
            names;
        let s = spread(rows, t);
        let i = s.map(|(_, _, i)| i);
        let hot = excerpt(excerpts, t);
        let passes = i.zip(hot).map(|(i, h)| i.requests as f64 / h.requests.max(1) as f64);
        let count = |f: fn(&HotPage) -> u64| opt(hot.map(|h| f(&h) as f64), |x| format!("{x:.0}"));
        v.set(lo, opt(s.map(|s| s.0), |x| format!("{x:.2}")));
        v.set(hi, opt(s.map(|s| s.1), |x| format!("{x:.2}")));
        v.set(chips, of(i, |i| pct(i.util_chips)));
        v.set(n_excerpt, count(|h| h.requests));
        v.set(n_passes, opt(passes, |p| format!("{p:.0}")));
        v.set(n_hot, count(|h| h.hottest));
        v.set(n_writes, count(|h| h.page_writes));
        v.set(partial, opt(hot.map(|h| h.hottest_partial as f64 / h.hottest.max(1) as f64), pct));
        v.set(time_s, of(i, |i| format!("{:.3}", i.sim_time_s)));
        let chain = passes.zip(hot).map(|(p, h)| p * h.hottest as f64);
        v.set(hot_writes, opt(chain, |x| format!("{x:.0}")));
        let per_write_ms = i.zip(chain).map(|(i, n)| i.sim_time_s * 1e3 / n);
        v.set(ms, opt(per_write_ms, |x| format!("{x:.2}")));
        v.set(rmw, per_write_ms.map_or("–", |x| against(x, rmw_us / 1e3)));
        let matters = match s {
            Some((_, hi, _)) if hi <= 1.0 + NEGLIGIBLE => "The map cache hardly matters",
            Some(_) => "The map cache matters",
            None => "–",
        };
        v.set(map, matters);
        v.set(hit, of(i, |i| format!("{:.3}", i.map_hit_ratio)));
    }
}

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
fn websearch(v: &mut Values, rows: &[Row], base: &Config, excerpts: &[(&str, Option<HotPage>)]) {
    let get = |s: &str| pick(rows, "trace", "websearch", s);
    let (d, c) = (get("dftl-1"), get("cdftl-1"));
    let more = d.zip(c).map(|(d, c)| {
        let (dr, cr) = (d.data_reads + d.tp_reads, c.data_reads + c.tp_reads);
        (dr as f64 / cr.max(1) as f64 - 1.0) * 100.0
    });
    // The baselines' caches (`baseline_cache`): DFTL's CMT takes the whole map RAM, CDFTL's
    // FMMU's split of it.
    let m = &base.ftl.map_cache;
    let ram = m.ram_bytes.unwrap_or(0);
    let cmt = m.cmt_bytes.unwrap_or(ssdlab::ftl::mapping::demand::fmmu::CMT_BYTES);
    let why = match (d, c) {
        (Some(d), Some(c)) if d.map_hit_ratio > c.map_hit_ratio => format!(
            "the excerpt's footprint fits DFTL's {} KiB CMT better than CDFTL's {} KiB CMT and {}-page CTP",
            ram / 1024,
            cmt / 1024,
            ram.saturating_sub(cmt) / base.nand.page_bytes as u64
        ),
        (Some(_), Some(_)) => {
            "DFTL reads again translation pages that CDFTL keeps whole in its CTP (the spatial locality the paper names)"
                .into()
        }
        _ => "–".into(),
    };
    v.set("websearch_more_reads", opt(more, |x| format!("{x:+.1}")));
    let passes = d.zip(excerpt(excerpts, "websearch")).map(|(d, h)| d.requests as f64 / h.requests.max(1) as f64);
    v.set("websearch_passes", opt(passes, |p| format!("{p:.1}")));
    v.set("websearch_dftl_hit", of(d, |d| format!("{:.3}", d.map_hit_ratio)));
    v.set("websearch_cdftl_hit", of(c, |c| format!("{:.3}", c.map_hit_ratio)));
    v.set("websearch_why", why);
}

/// Figure 14's drives grouped by what bounds them, in order: runs of drives whose busiest
/// part ([`busiest`]) is the same and at least [`SATURATED`] busy, "none" where no part is
/// ("chips at 1 × 1 to 8 × 4, NAND buses at 8 × 8, none at 32 × 8").
pub fn scaling_bounds(points: &[&Row]) -> String {
    let mut groups: Vec<(&str, String, String)> = Vec::new();
    for r in points {
        let part = match busiest(r) {
            (part, u) if u >= SATURATED => part,
            _ => "none",
        };
        let at = format!("{} × {}", r.channels, r.ways);
        match groups.last_mut() {
            Some(g) if g.0 == part => g.2 = at,
            _ => groups.push((part, at.clone(), at)),
        }
    }
    let span = |(part, a, b): &(&str, String, String)| {
        if a == b {
            format!("{part} at {a}")
        } else {
            format!("{part} at {a} to {b}")
        }
    };
    groups.iter().map(span).collect::<Vec<_>>().join(", ")
}

/// Figure 14's largest drive: what bounds it (the issuing core counted), and the mean
/// response Little's law gives at [`QUEUE_DEPTH`] outstanding, as a sentence.
pub fn scaling_top(top: &Row) -> String {
    let core = top.iops * ISSUE_NS * 1e-9;
    let (part, u) = match busiest(top) {
        (_, u) if core > u => ("issuing core", core),
        b => b,
    };
    let response_us = QUEUE_DEPTH as f64 / top.iops.max(1.0) * 1e6;
    if u >= SATURATED {
        format!("the {part} is {} busy and bounds it; with {QUEUE_DEPTH} requests outstanding the mean response is {response_us:.0} µs (Little's law).", pct(u))
    } else {
        format!("no part is at least {} busy, and with {QUEUE_DEPTH} requests outstanding the mean response is {response_us:.0} µs (Little's law), so the queue depth sets the rate.", pct(SATURATED))
    }
}

/// Figure 14's largest drive (the paper's 32 × 8, §5.4 [P]: "limited by the 32-channel NAND
/// bus bandwidth").
fn scaling(v: &mut Values, rows: &[Row]) {
    let points: Vec<&Row> = rows.iter().filter(|r| r.experiment == "scaling" && r.scheme == "fmmu").collect();
    let top = points.iter().copied().max_by_key(|r| r.channels * r.ways);
    v.set("scaling_miops", of(top, |t| format!("{:.2}", t.iops / 1e6)));
    v.set("scaling_channels", of(top, |t| t.channels.to_string()));
    v.set("scaling_ways", of(top, |t| t.ways.to_string()));
    v.set("scaling_bus", of(top, |t| pct(t.util_nand_bus)));
    v.set("scaling_chips", of(top, |t| pct(t.util_chips)));
    v.set("scaling_host", of(top, |t| pct(t.util_host_link)));
    v.set("scaling_ftl", of(top, |t| pct(t.util_ftl)));
    v.set("scaling_core", of(top, |t| pct(t.iops * ISSUE_NS * 1e-9)));
    v.set("scaling_top", of(top, scaling_top));
    v.set("saturated", pct(SATURATED));
    v.set("scaling_bounds", if points.is_empty() { "–".into() } else { scaling_bounds(&points) });
    let paper = match top.map(busiest) {
        Some(("NAND buses", u)) if u >= SATURATED => {
            "the buses bound the largest drive, as the paper says of its 32 × 8"
        }
        Some(_) => {
            "the paper has the 32 channels' buses bound its 32 × 8, which this run's largest drive does not show"
        }
        None => "–",
    };
    v.set("scaling_paper", paper);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::fmmu::{tests::row, Synthetic};

    /// A run with these utilisations (NAND buses, chips, host link, firmware) at `iops` on a
    /// drive of `channels` × `ways`.
    fn busy(channels: u32, ways: u32, util: [f64; 4], iops: f64) -> Row {
        let [bus, chips, host, ftl] = util;
        Row {
            channels,
            ways,
            iops,
            util_nand_bus: bus,
            util_chips: chips,
            util_host_link: host,
            util_ftl: ftl,
            ..row(Synthetic::RandRead, "fmmu", 0.0)
        }
    }

    /// Pages of 16 KiB: writes of 4 KiB at 0 and at 4 KiB (page 0, in part), 32 KiB at
    /// 16 KiB (pages 1 and 2, whole), a read of page 0 and 16 KiB at 0 (page 0, whole): five
    /// requests, 1 + 1 + 2 + 1 = 5 page writes, page 0 the hottest with 3, 2 of them partial.
    #[test]
    fn hot_page_counts_page_writes_by_hand() {
        let at = |op, offset_bytes, size_bytes| Record { arrival_ps: 0, device: 0, op, offset_bytes, size_bytes };
        let records = [
            at(Op::Write, 0, 4096),
            at(Op::Write, 4096, 4096),
            at(Op::Write, 16384, 32768),
            at(Op::Read, 0, 4096),
            at(Op::Write, 0, 16384),
        ];
        let want = HotPage { requests: 5, page_writes: 5, hottest: 3, hottest_partial: 2 };
        assert_eq!(HotPage::of(&records, 16384), want);
    }

    /// The busiest part decides: buses 98% over chips 94% bound the run; at 84% buses, 76%
    /// chips, 61% host link and 77% firmware nothing is 90% busy.
    #[test]
    fn the_busiest_part_bounds_a_run_at_ninety_percent() {
        assert_eq!(bound(&busy(8, 8, [0.98, 0.94, 0.18, 0.23], 1.0)), "Bound by the NAND buses (98% busy)");
        let free = busy(32, 8, [0.84, 0.76, 0.61, 0.77], 1.0);
        assert_eq!(bound(&free), "No part is at least 90% busy (the busiest, the NAND buses: 84%)");
    }

    /// 0.48 ms against 0.47 is within 10%: about; 0.6 / 0.47 = 1.28: more; 0.4 / 0.47 = 0.85:
    /// less. Shares 20% and 17% both under the paper's 88% fall below; 90% and 100% reach it.
    #[test]
    fn words_follow_the_measured_sign() {
        assert_eq!((against(0.48, 0.47), against(0.6, 0.47), against(0.4, 0.47)), ("about", "more than", "less than"));
        assert_eq!(against_paper(&[0.2, 0.17], 0.88), "falls below");
        assert_eq!(against_paper(&[0.9, 1.0], 0.88), "reaches");
        assert_eq!(against_paper(&[0.5, 0.9], 0.88), "falls below on 1 run(s) and reaches on 1 of");
        assert_eq!(against_paper(&[], 0.88), "–");
    }

    /// The paper's drive: 16 GiB / (1 − 0.15) over 256 planes of 4 MiB blocks = 16 / 0.85 =
    /// 18.82 blocks per plane. Its 5.5 GB/s against the preset's program bounds (5.377 and
    /// 10.754 GB/s, `bounds_of_the_preset`): 102% and 51%, so no gain from the second plane;
    /// against a one-plane bound of 4 GB/s (137%) it gained.
    #[test]
    fn the_papers_drive_against_this_one_by_hand() {
        assert!((paper_blocks_per_plane(256, 4 << 20) - 16.0 / 0.85).abs() < 1e-9);
        let b = Bounds::of(&crate::reproduce::fmmu::preset().unwrap());
        let s = paper_seq_write(&b, 2, 16);
        assert_eq!(s, "The paper's 5.5 GB/s is 102% of one 16 KiB page per chip per tPROG (5.38 GB/s) and 51% of the 2-plane bound: its programs did not gain from multi-plane programming.");
        let slow = Bounds { program_one_plane_gb_s: 4.0, ..b };
        assert!(paper_seq_write(&slow, 2, 16)
            .ends_with("its programs gained from multi-plane programming, short of every plane at once."));
    }

    /// The preset's read-modify-write: a 16,384 B page over the 667 MT/s × 1 B bus is
    /// 24.56 µs; 35 + 2 × 24.56 + 390 = 474.13 µs.
    #[test]
    fn read_modify_write_by_hand() {
        let (rmw, transfer) = read_modify_write_us(&crate::reproduce::fmmu::preset().unwrap());
        assert!((transfer - 16384.0 / 667.0).abs() < 1e-9);
        assert!((rmw - (35.0 + 2.0 * 16384.0 / 667.0 + 390.0)).abs() < 1e-9);
    }

    /// Drives 1 × 1 and 4 × 4 chip-bound, 8 × 8 and 16 × 8 bus-bound, 32 × 8 nothing at 90%.
    /// At 32 × 8, 4.29 MIOPS keep the issuing core 4.29e6 × 200 ns = 85.8% busy, the busiest
    /// part, under 90%; 512 / 4.29e6 = 119 µs. At 5 MIOPS the core is 100% busy and bounds it
    /// (512 / 5e6 = 102 µs).
    #[test]
    fn scaling_sentences_by_hand() {
        let points = [
            busy(1, 1, [0.18, 1.0, 0.0, 0.01], 29e3),
            busy(4, 4, [0.62, 1.0, 0.06, 0.07], 401e3),
            busy(8, 8, [0.98, 0.94, 0.18, 0.23], 1.26e6),
            busy(16, 8, [0.94, 0.88, 0.34, 0.43], 2.41e6),
            busy(32, 8, [0.84, 0.76, 0.61, 0.77], 4.29e6),
        ];
        let refs: Vec<&Row> = points.iter().collect();
        assert_eq!(scaling_bounds(&refs), "chips at 1 × 1 to 4 × 4, NAND buses at 8 × 8 to 16 × 8, none at 32 × 8");
        assert_eq!(scaling_top(&points[4]), "no part is at least 90% busy, and with 512 requests outstanding the mean response is 119 µs (Little's law), so the queue depth sets the rate.");
        let fast = busy(32, 8, [0.84, 0.76, 0.61, 0.77], 5e6);
        assert_eq!(scaling_top(&fast), "the issuing core is 100% busy and bounds it; with 512 requests outstanding the mean response is 102 µs (Little's law).");
    }
}
