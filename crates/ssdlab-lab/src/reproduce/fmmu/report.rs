//! REPORT.md of `reproduce fmmu`: every result beside the paper's number, the drive's
//! bounds worked out from its config, and where ssdlab and the paper differ, the evidence.
//! The prose is the template `experiments/fmmu/report.md`; this module computes its values
//! and tables.

use std::fmt::Write as _;
use std::path::Path;

use super::figures::Figure;
use super::seeds::{self, half_width, mean_rows, Interval};
use super::{pick, scheme_config, Kind, Row, Synthetic, TraceSource, QUEUE_DEPTH, SCHEMES, SYNTHETIC, TRACES};
use crate::reproduce::template::{render, section, Values};
use crate::reproduce::{plot, Options};
use differences::HotPage;
use ssdlab::Config;

mod ablation;
mod differences;
pub(super) mod sweep;

/// REPORT.md's prose: `experiments/fmmu/report.md`, its values set by [`report_md`].
const TEMPLATE: &str = include_str!("../../../../../experiments/fmmu/report.md");
const TEMPLATE_NAME: &str = "experiments/fmmu/report.md";

/// The template's section holding Figure 11, whose table `ssdlab reproduce` prints.
const FIG11: &str = "## Figure 11: throughput";

/// Said under the list of figures when they were drawn without text.
const NO_FONT: &str = "(No TrueType font was found on this machine, so the figures have no text.)\n\n";

/// A synthetic row's figure of merit: GB/s (sequential) or KIOPS (random; GC runs over the
/// second half of the run).
pub(super) fn merit(r: &Row, w: Synthetic) -> f64 {
    if w.sequential() {
        r.bandwidth_gb_s
    } else {
        r.steady_iops / 1e3
    }
}

/// The merit of `scheme` on `w`, if it ran.
pub(super) fn synthetic(rows: &[Row], w: Synthetic, scheme: &str) -> Option<f64> {
    pick(rows, "synthetic", w.name(), scheme).map(|r| merit(r, w))
}

/// `scheme`'s merit on `w` over ideal's.
pub(super) fn of_ideal(rows: &[Row], w: Synthetic, scheme: &str) -> Option<f64> {
    let (x, i) = (synthetic(rows, w, scheme)?, synthetic(rows, w, "ideal")?);
    (i > 0.0).then(|| x / i)
}

/// `scheme`'s merit on `w` over ideal's, seed by seed: the ratio of the means with its 95%
/// interval.
pub(super) fn of_ideal_interval(rows: &[Row], w: Synthetic, scheme: &str) -> Option<Interval> {
    seeds::ratio(rows, "synthetic", w.name(), scheme, "ideal", |r| merit(r, w))
}

/// `x` with the half-width of its interval (`digits` decimals), "6.00 ± 0.12", or alone.
fn with_half(i: &Interval, digits: usize, unit: &str) -> String {
    match half_width(i) {
        Some(h) => format!("{:.digits$}{unit} ± {h:.digits$}", i.0),
        None => format!("{:.digits$}{unit}", i.0),
    }
}

/// Time to finish a trace over ideal's.
pub(super) fn elapsed_ratio(rows: &[Row], trace: &str, scheme: &str) -> Option<f64> {
    let (x, i) = (pick(rows, "trace", trace, scheme)?, pick(rows, "trace", trace, "ideal")?);
    (i.sim_time_s > 0.0).then(|| x.sim_time_s / i.sim_time_s)
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.map_or("–".into(), f)
}

/// The drive's throughput bounds, worked out from its config.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Every channel moving data: channels × rate × width (GB/s).
    pub bus_gb_s: f64,
    /// Every plane of every chip programming a page per tPROG (multi-plane programs).
    pub program_gb_s: f64,
    /// One page per chip per tPROG (no multi-plane programs).
    pub program_one_plane_gb_s: f64,
    /// The host link's payload after TLP overhead.
    pub pcie_gb_s: f64,
}

impl Bounds {
    pub fn of(c: &Config) -> Bounds {
        let n = &c.nand;
        let chips = (n.channels * n.chips_per_channel * n.dies_per_chip) as f64;
        let t_prog_s = n.t_program_us.iter().sum::<f64>() / n.t_program_us.len().max(1) as f64 * 1e-6;
        let per_chip = n.page_bytes as f64 / t_prog_s;
        let p = &c.hif.pcie;
        let tlp = p.tlp_payload_bytes as f64 / (p.tlp_payload_bytes + p.tlp_overhead_bytes) as f64;
        Bounds {
            bus_gb_s: n.channels as f64 * n.bus.rate_mt_s * n.bus.width_bits as f64 / 8.0 / 1e3,
            program_gb_s: chips * n.planes_per_die as f64 * per_chip / 1e9,
            program_one_plane_gb_s: chips * per_chip / 1e9,
            pcie_gb_s: p.lanes as f64 * p.lane_gb_s * tlp,
        }
    }
}

/// REPORT.md: the template with this run's values and tables. `rows` has a row per run and
/// seed; the tables show means over the seeds, the headlines their 95% intervals.
pub fn report_md(opts: &Options, rows: &[Row], figures: &[Figure], wall_s: f64, base: &Config) -> String {
    let means = &mean_rows(rows);
    let mut v = Values::new();
    header(&mut v, opts, rows, figures, wall_s, base);
    v.set("schemes", schemes_rows(base));
    v.set("block_entries", ssdlab::ftl::mapping::demand::fmmu::DEFAULTS.block_entries);
    fig11(&mut v, rows, means);
    v.set("fig12_rows", fig12_rows(means));
    v.set("map_cache_rows", map_cache_rows(means));
    v.set("fig13_table", fig13_table(rows, means));
    fig13_setup(&mut v, means, base, opts.quick);
    v.set("flash_ops_rows", flash_ops_rows(means));
    v.set("fig14_rows", fig14_rows(means));
    v.set("scaling_lanes", super::grid().scaling_pcie_lanes);
    claims(&mut v, rows, base);
    let b = Bounds::of(base);
    bounds(&mut v, base, &b);
    differences::values(&mut v, means, base, &b, &excerpts(&opts.traces, base));
    ablation::values(&mut v, means, base);
    sweep::values(&mut v, rows, means, base);
    setup(&mut v, base, opts.quick);
    render(TEMPLATE_NAME, TEMPLATE, &v)
}

/// Each shipped trace of Figure 13 counted from its file under `traces` ([`HotPage`]), by
/// workload name; None where the file does not read.
fn excerpts(traces: &Path, base: &Config) -> Vec<(&'static str, Option<HotPage>)> {
    let page_bytes = base.nand.page_bytes as u64;
    let count =
        |path: &str| ssdlab_trace::read(&traces.join(path), None).ok().map(|t| HotPage::of(&t.records, page_bytes));
    TRACES
        .iter()
        .filter_map(|t| match t.source {
            TraceSource::File { path, .. } => Some((t.name, count(path))),
            TraceSource::StandIn(_) => None,
        })
        .collect()
}

/// Where each setting comes from, and the dated log of main-row changes:
/// `experiments/fmmu/provenance.toml`, against the preset as the FMMU rows run it.
fn setup(v: &mut Values, base: &Config, quick: bool) {
    const FILE: &str = include_str!("../../../../../experiments/fmmu/provenance.toml");
    const NAME: &str = "experiments/fmmu/provenance.toml";
    let d = &ssdlab::ftl::mapping::demand::fmmu::DEFAULTS;
    let m = &base.ftl.map_cache;
    let g = super::grid();
    let constant = |name: &str| {
        Some(match name {
            "ENTRY_BYTES" => m.entry_bytes.unwrap_or(4).to_string(),
            "WAYS" => m.ways.unwrap_or(d.ways).to_string(),
            "BLOCK_ENTRIES" => m.block_entries.unwrap_or(d.block_entries).to_string(),
            "CTP_BLOCKS" => {
                let ctp = m.ram_bytes.unwrap_or(0).saturating_sub(m.cmt_bytes.unwrap_or(0));
                format!("{} translation pages", ctp / base.nand.page_bytes as u64)
            }
            "WATERMARKS" => format!(
                "{}, {}",
                m.low_watermark.unwrap_or(d.low_watermark),
                m.high_watermark.unwrap_or(d.high_watermark)
            ),
            "DFTL_COSTS" => format!("{}, {}", super::DFTL_HIT_NS, super::DFTL_MISS_NS),
            "CDFTL_LOOKUP_NS" => super::CDFTL_LOOKUP_NS.to_string(),
            "PER_BLOCK_NS" => super::PER_BLOCK_NS.to_string(),
            "ABL_NO_HW" => {
                let k = super::software_costs(Kind::Cdftl, false);
                format!("4 cores; lookup {}, issue {}, per CMT block {} (ns)", k.hit_ns, k.issue_ns, k.flush_block_ns)
            }
            "SCAN_COSTS" => {
                super::SCAN_PS.iter().map(|&p| format!("{}", p as f64 / 1000.0)).collect::<Vec<_>>().join(", ")
            }
            "QUEUE_DEPTH" => QUEUE_DEPTH.to_string(),
            "SYNTHETIC_REQUESTS" => {
                SYNTHETIC.iter().map(|w| format!("{} {}", w.name(), w.requests(quick))).collect::<Vec<_>>().join("; ")
            }
            "TRACES" => TRACES
                .iter()
                .map(|t| format!("{} for {}{}", t.name, t.paper, if t.main { "" } else { " (sensitivity)" }))
                .collect::<Vec<_>>()
                .join("; "),
            "TRACE_REQUESTS" => {
                let looped = if quick { g.quick_trace_requests } else { g.trace_requests };
                format!("websearch once; msr-rw20 and msr-hm0 looped to {looped} requests")
            }
            "STANDIN_REQUESTS" => {
                let d = if quick { g.quick_standin_divisor } else { g.standin_divisor };
                let n: Vec<String> = super::STANDINS
                    .iter()
                    .map(|s| format!("{} {}", s.paper, super::standin_requests(s, quick)))
                    .collect();
                format!("Table 3's requests over {d}: {}", n.join(", "))
            }
            "SEEDS" => super::seeds(quick).iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
            "COST_SWEEP" => format!(
                "{} ns a block for cdftl-4 and fmmu",
                super::SCAN_PS.iter().map(|&p| format!("{}", p as f64 / 1000.0)).collect::<Vec<_>>().join(", ")
            ),
            "SCALING" => {
                let points = super::scaling_points(quick).iter().map(|(c, w)| format!("{c}×{w}")).collect::<Vec<_>>();
                let requests = if quick { g.quick_scaling_requests } else { g.scaling_requests };
                format!("{}; x{} lanes; {requests} requests", points.join(", "), g.scaling_pcie_lanes)
            }
            _ => return None,
        })
    };
    crate::reproduce::provenance::set(v, NAME, FILE, base, &constant);
}

/// The headline: Figure 11 per scheme (share of ideal in brackets) under the paper's ideal
/// results (§5.3; docs/techniques.md §9.9: GB/s for sequential, KIOPS for random
/// workloads; both random-write runs stand beside the paper's one number), which the
/// template holds. Printed after a run, and the table of the report's Figure 11 section.
pub fn check_table(rows: &[Row]) -> String {
    let mut v = Values::new();
    fig11(&mut v, rows, &mean_rows(rows));
    let text = render(TEMPLATE_NAME, section(TEMPLATE, FIG11), &v);
    text.split_inclusive('\n').skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')).collect()
}

/// The setup: mode, the drive as configured, the host, the figures.
fn header(v: &mut Values, opts: &Options, rows: &[Row], figures: &[Figure], wall_s: f64, base: &Config) {
    let n = &base.nand;
    v.run_line(opts, "runs", rows.len(), wall_s);
    let used = seeds::seeds(&rows.iter().filter(|r| r.experiment == "synthetic").cloned().collect::<Vec<_>>());
    v.set("seeds", used.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "));
    v.geometry(n);
    v.set("page_kib", n.page_bytes / 1024);
    v.set("t_read_us", n.t_read_us.first().copied().unwrap_or(0.0));
    v.set("t_program_us", n.t_program_us.first().copied().unwrap_or(0.0));
    v.set("bus_mt_s", n.bus.rate_mt_s);
    v.set("bus_bits", n.bus.width_bits);
    v.set("pcie_lanes", base.hif.pcie.lanes);
    v.set("lane_gb_s", base.hif.pcie.lane_gb_s);
    v.set("op", base.ftl.overprovisioning_ratio);
    v.set("device_queue", base.hil.queue_depth);
    v.set("queue_depth", QUEUE_DEPTH);
    v.set("figures", figures.iter().map(|f| format!("`{}`", f.0)).collect::<Vec<_>>().join(", "));
    v.set("no_font", if plot::have_font() { "" } else { NO_FONT });
}

/// Each scheme's map and firmware as run: the rows of the schemes table.
fn schemes_rows(base: &Config) -> String {
    let mut m = String::new();
    for s in &SCHEMES {
        let Ok(c) = scheme_config(s, base) else { continue };
        let (cmt, ctp) = match c.ftl.mapping.defaults() {
            Some(_) => match c.ftl.map_cache.resolve("", c.ftl.mapping, c.nand.page_bytes) {
                Ok(p) => (p.cmt_blocks.to_string(), p.ctp_pages.to_string()),
                Err(_) => continue,
            },
            None => ("whole map in RAM".to_string(), "–".to_string()),
        };
        let f = &c.ftl.firmware;
        let servers = match (s.kind, s.pooled) {
            (Kind::Ideal | Kind::Full, _) => "no firmware time".to_string(),
            (Kind::Fmmu, _) => "1 core + map unit".to_string(),
            (_, true) => "1 core at the 4-core time".to_string(),
            _ if f.cores == 1 => "1 core".to_string(),
            _ => format!("{} cores", f.cores),
        };
        let _ = writeln!(
            m,
            "| {} | {:?} | {cmt} | {ctp} | {servers} | {:.0} | {:.0} | {:.0} | {:.0} + {:.1} |",
            s.name, c.ftl.mapping, f.op_cost_ns, f.hit_ns, f.miss_ns, f.flush_ns, f.flush_block_ns
        );
    }
    m
}

/// Figure 11's values: a row per scheme (the mean over seeds ± the half-width of its 95%
/// interval, the share of ideal's mean in brackets), and the GC invocations of ideal's
/// random-write runs (the note under the table).
fn fig11(v: &mut Values, rows: &[Row], means: &[Row]) {
    let mut s = String::new();
    for sc in &SCHEMES {
        let _ = write!(s, "| {} |", sc.name);
        for w in SYNTHETIC {
            let merit = seeds::amount(rows, "synthetic", w.name(), sc.name, |r| merit(r, w));
            let share = if sc.kind == Kind::Ideal { None } else { of_ideal(means, w, sc.name) };
            let share = share.map_or(String::new(), |x| format!(" ({})", pct(x)));
            let digits = if w.sequential() { 2 } else { 1 };
            let _ = write!(s, " {}{share} |", merit.map_or("–".into(), |m| with_half(&m, digits, "")));
        }
        s.push('\n');
    }
    v.set("fig11_rows", s);
    v.set("seed_note", seed_note(rows));
    let gc = |w: Synthetic| pick(means, "synthetic", w.name(), "ideal").map_or(0, |r| r.gc_invocations);
    v.set("gc_before", gc(Synthetic::RandWrite));
    v.set("gc_active", gc(Synthetic::RandWriteGc));
}

/// The synthetic workloads where every scheme gave the same merit at each of several seeds,
/// as a sentence (empty if none).
fn seed_note(rows: &[Row]) -> String {
    let fixed: Vec<Synthetic> = SYNTHETIC
        .iter()
        .copied()
        .filter(|&w| {
            SCHEMES.iter().all(|sc| {
                let xs: Vec<f64> =
                    seeds::runs(rows, "synthetic", w.name(), sc.name).iter().map(|r| merit(r, w)).collect();
                xs.len() > 1 && xs.iter().all(|&x| x == xs[0])
            })
        })
        .collect();
    if fixed.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = fixed.iter().map(|w| w.name()).collect();
    let why = if fixed.iter().all(|w| w.sequential()) {
        ": a sequential flow starts at offset 0 whatever the seed, and the sequential fill draws nothing from it"
    } else {
        ""
    };
    format!(" Every scheme's runs of {} are the same at each seed{why}, so their intervals are 0.", names.join(" and "))
}

/// Figure 12: utilization of host link, NAND bus, chips and FTL per run (the table's rows).
fn fig12_rows(rows: &[Row]) -> String {
    let mut m = String::new();
    for w in SYNTHETIC {
        for s in &SCHEMES {
            let Some(r) = pick(rows, "synthetic", w.name(), s.name) else { continue };
            let _ = writeln!(
                m,
                "| {} | {} | {} | {} | {} | {} |",
                w.name(),
                s.name,
                pct(r.util_host_link),
                pct(r.util_nand_bus),
                pct(r.util_chips),
                pct(r.util_ftl)
            );
        }
    }
    m
}

/// The map cache per synthetic run: hit ratio and translation traffic per 1,000 requests
/// (the table's rows).
fn map_cache_rows(rows: &[Row]) -> String {
    let mut m = String::new();
    for w in SYNTHETIC {
        for s in SCHEMES.iter().filter(|s| !s.pooled) {
            let Some(r) = pick(rows, "synthetic", w.name(), s.name) else { continue };
            let k = 1000.0 / r.requests.max(1) as f64;
            let _ = writeln!(
                m,
                "| {} | {} | {:.3} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {} |",
                w.name(),
                s.name,
                r.map_hit_ratio,
                r.tp_reads as f64 * k,
                r.tp_writes as f64 * k,
                r.flushes as f64 * k,
                r.flush_blocks_scanned as f64 * k,
                r.merges as f64 * k,
                r.gc_invocations
            );
        }
    }
    m
}

/// The paper's Figure 13 ratios, (the workload standing in for its trace, scheme, ratio).
pub(super) const PAPER_TRACE_RATIOS: [(&str, &str, f64); 5] = [
    ("proj-standin", "dftl-1", 10.63),
    ("proj-standin", "cdftl-4", 1.47),
    ("proj-standin", "fmmu", 1.0),
    ("hm-standin", "dftl-4", 3.35),
    ("hm-standin", "cdftl-4", 1.32),
];

/// Time to finish `trace` under `scheme` over ideal's, seed by seed (the ratio of the means
/// with its 95% interval).
pub(super) fn elapsed_interval(rows: &[Row], trace: &str, scheme: &str) -> Option<Interval> {
    seeds::ratio(rows, "trace", trace, scheme, "ideal", |r| r.sim_time_s)
}

/// Figure 13: time to finish each workload over ideal's, a row per scheme (± the 95%
/// interval's half-width over the stand-ins' seeds), the paper's ratio beside ours where it
/// gives one; a column per workload of [`TRACES`], main ones first.
fn fig13_table(rows: &[Row], means: &[Row]) -> String {
    let mut m = String::from("| scheme |");
    for t in &TRACES {
        let role = if t.main { "" } else { ", sensitivity" };
        let _ = write!(m, " {} ({}{role}) |", t.name, t.paper);
    }
    m.push_str("\n|---|");
    m.push_str(&"---|".repeat(TRACES.len()));
    m.push('\n');
    for s in &SCHEMES {
        let _ = write!(m, "| {} |", s.name);
        for t in &TRACES {
            let paper = PAPER_TRACE_RATIOS.iter().find(|(w, sc, _)| *w == t.name && *sc == s.name);
            let p = paper.map_or(String::new(), |(_, _, x)| format!(" ({x}×)"));
            let cell = match elapsed_interval(rows, t.name, s.name) {
                Some(i) => with_half(&i, 2, "×"),
                None => opt(elapsed_ratio(means, t.name, s.name), |x| format!("{x:.2}×")),
            };
            let _ = write!(m, " {cell}{p} |");
        }
        m.push('\n');
    }
    m
}

/// Figure 13's setup: each stand-in's mix and request count, WebSearch's and the excerpts'
/// requests.
fn fig13_setup(v: &mut Values, means: &[Row], base: &Config, quick: bool) {
    let logical = super::logical_bytes(base);
    let g = super::grid();
    let divisor = if quick { g.quick_standin_divisor } else { g.standin_divisor };
    let model: Vec<String> = super::STANDINS
        .iter()
        .map(|s| {
            format!(
                "{}: {:.2}% reads, {:.1}% of reads and {:.1}% of writes at {} KiB, a footprint of {:.2} GB, {} requests (Table 3's {} over {}).",
                s.paper,
                s.read_share * 100.0,
                super::StandIn::large_share(s.read_kb) * 100.0,
                super::StandIn::large_share(s.write_kb) * 100.0,
                super::standin::LARGE_BYTES / 1024,
                s.footprint_bytes(logical) as f64 / 1e9,
                super::standin_requests(s, quick),
                s.requests,
                divisor
            )
        })
        .collect();
    v.set("standin_model", model.join(" "));
    v.set("standin_small_kib", super::standin::SMALL_BYTES / 1024);
    v.set("standin_large_kib", super::standin::LARGE_BYTES / 1024);
    v.set("standin_hot_space", pct(super::standin::HOT_SPACE));
    v.set("standin_hot_access", super::standin::HOT_ACCESS);
    v.set("excerpt_requests", if quick { g.quick_trace_requests } else { g.trace_requests });
    v.set(
        "websearch_requests",
        opt(pick(means, "trace", "websearch", "ideal").map(|r| r.requests as f64), |x| format!("{x:.0}")),
    );
}

/// Figure 13's flash operations per trace and scheme (the table's rows).
fn flash_ops_rows(rows: &[Row]) -> String {
    let mut m = String::new();
    for name in TRACES.iter().map(|t| t.name) {
        for s in SCHEMES.iter().filter(|s| !s.pooled) {
            let Some(r) = pick(rows, "trace", name, s.name) else { continue };
            let _ = writeln!(
                m,
                "| {name} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.3} | {:.3} |",
                s.name,
                r.requests,
                r.data_reads as f64 / 1e3,
                r.tp_reads as f64 / 1e3,
                r.data_programs as f64 / 1e3,
                r.map_programs as f64 / 1e3,
                r.map_hit_ratio,
                r.sim_time_s
            );
        }
    }
    m
}

/// Figure 14: FMMU and ideal against channels × ways (the table's rows).
fn fig14_rows(rows: &[Row]) -> String {
    let mut m = String::new();
    for r in rows.iter().filter(|r| r.experiment == "scaling" && r.scheme == "fmmu") {
        let ideal = rows
            .iter()
            .find(|i| i.experiment == "scaling" && i.scheme == "ideal" && i.channels == r.channels && i.ways == r.ways)
            .map_or(0.0, |i| i.iops);
        let _ = writeln!(
            m,
            "| {} × {} | {:.0} | {:.0} | {:.3} | {:.4} | {} | {} | {} | {} |",
            r.channels,
            r.ways,
            r.iops / 1e3,
            ideal / 1e3,
            if ideal > 0.0 { r.iops / ideal } else { 0.0 },
            r.map_hit_ratio,
            pct(r.util_nand_bus),
            pct(r.util_chips),
            pct(r.util_host_link),
            pct(r.util_ftl)
        );
    }
    m
}

/// The paper's claims as the claims ledger has them (verdict counts, then a row per claim:
/// this run's value, its interval over seeds, the verdict and the measured cause).
fn claims(v: &mut Values, rows: &[Row], base: &Config) {
    let md = crate::reproduce::claims::ledger_md(&super::ledger::claims(rows, base));
    let table = md.find("| verdict | claims |").map_or(md.as_str(), |i| &md[i..]);
    v.set("claims_table", table.to_string());
}

/// The bounds of the drive (the header's names for channels, page size, tPROG and the PCIe
/// lanes are used here too).
fn bounds(v: &mut Values, base: &Config, b: &Bounds) {
    let n = &base.nand;
    v.set("bus_mb_s", n.bus.rate_mt_s * n.bus.width_bits as f64 / 8.0);
    v.set("bus_gb_s", format!("{:.2}", b.bus_gb_s));
    v.set("all_chips", n.channels * n.chips_per_channel);
    v.set("program_gb_s", format!("{:.2}", b.program_gb_s));
    v.set("program_one_plane_gb_s", format!("{:.2}", b.program_one_plane_gb_s));
    v.set("pcie_gb_s", format!("{:.2}", b.pcie_gb_s));
    v.set("tlp_payload", base.hif.pcie.tlp_payload_bytes);
    v.set("tlp_total", base.hif.pcie.tlp_payload_bytes + base.hif.pcie.tlp_overhead_bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The preset's bounds by hand: 16 × 667 MT/s × 1 byte = 10.672 GB/s; 128 chips × 2
    /// planes × 16,384 B / 390 µs = 10.754 GB/s (one plane: 5.377); 16 × 0.985 × 256 / 280 =
    /// 14.409 GB/s.
    #[test]
    fn bounds_of_the_preset() {
        let b = Bounds::of(&super::super::preset().unwrap());
        assert!((b.bus_gb_s - 10.672).abs() < 1e-9);
        assert!((b.program_gb_s - 128.0 * 2.0 * 16384.0 / 390e-6 / 1e9).abs() < 1e-9);
        assert!((b.program_gb_s - 10.754).abs() < 1e-3 && (b.program_one_plane_gb_s - 5.377).abs() < 1e-3);
        assert!((b.pcie_gb_s - 16.0 * 0.985 * 256.0 / 280.0).abs() < 1e-9);
    }
}
