//! REPORT.md of `reproduce fmmu`: every result beside the paper's number, the drive's
//! bounds worked out from its config, and where ssdlab and the paper differ, the evidence.

use std::fmt::Write as _;

use super::{pick, scheme_config, Figure, Kind, Row, Synthetic, QUEUE_DEPTH, SCHEMES, SYNTHETIC, TRACES};
use crate::reproduce::{plot, Options};
use ssdlab::Config;

mod differences;

/// The paper's ideal results (§5.3; docs/techniques.md §9.9): GB/s for sequential, KIOPS for
/// random workloads. Both random-write runs stand beside the paper's one number.
pub fn paper_ideal(w: Synthetic) -> f64 {
    match w {
        Synthetic::SeqWrite => 5.5,
        Synthetic::SeqRead => 9.2,
        Synthetic::RandWriteGc | Synthetic::RandWrite => 283.0,
        Synthetic::RandRead => 1165.0,
    }
}

/// A synthetic row's figure of merit: GB/s (sequential) or KIOPS (random; GC runs over the
/// second half of the run).
fn merit(r: &Row, w: Synthetic) -> f64 {
    if w.sequential() {
        r.bandwidth_gb_s
    } else {
        r.steady_iops / 1e3
    }
}

/// The merit of `scheme` on `w`, if it ran.
fn synthetic(rows: &[Row], w: Synthetic, scheme: &str) -> Option<f64> {
    pick(rows, "synthetic", w.name(), scheme).map(|r| merit(r, w))
}

/// `scheme`'s merit on `w` over ideal's.
fn of_ideal(rows: &[Row], w: Synthetic, scheme: &str) -> Option<f64> {
    let (x, i) = (synthetic(rows, w, scheme)?, synthetic(rows, w, "ideal")?);
    (i > 0.0).then(|| x / i)
}

/// Time to finish a trace over ideal's.
fn elapsed_ratio(rows: &[Row], trace: &str, scheme: &str) -> Option<f64> {
    let (x, i) = (pick(rows, "trace", trace, scheme)?, pick(rows, "trace", trace, "ideal")?);
    (i.sim_time_s > 0.0).then(|| x.sim_time_s / i.sim_time_s)
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.map_or("–".into(), f)
}

/// The headline: Figure 11 per scheme (share of ideal in brackets), the paper's ideal
/// above. Printed after a run and at the top of the report.
pub fn check_table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| scheme | seq write 64 KiB GB/s | seq read 64 KiB GB/s | rand write 4 KiB, GC active, KIOPS | rand write 4 KiB, before GC, KIOPS | rand read 4 KiB KIOPS |\n|---|---|---|---|---|---|\n| paper: ideal |",
    );
    for w in SYNTHETIC {
        let _ = write!(s, " {} |", paper_ideal(w));
    }
    s.push('\n');
    for sc in &SCHEMES {
        let _ = write!(s, "| {} |", sc.name);
        for w in SYNTHETIC {
            let v = synthetic(rows, w, sc.name);
            let share = if sc.kind == Kind::Ideal { None } else { of_ideal(rows, w, sc.name) };
            let share = share.map_or(String::new(), |x| format!(" ({})", pct(x)));
            let digits = if w.sequential() { 2 } else { 1 };
            let _ = write!(s, " {}{share} |", opt(v, |v| format!("{v:.digits$}")));
        }
        s.push('\n');
    }
    s
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

pub fn report_md(opts: &Options, rows: &[Row], figures: &[Figure], wall_s: f64, base: &Config) -> String {
    let mut m = String::new();
    header(&mut m, opts, rows, figures, wall_s, base);
    let _ = writeln!(m, "## Figure 11: throughput\n\n{}", check_table(rows));
    fig11_notes(&mut m, rows);
    fig12(&mut m, rows);
    map_cache(&mut m, rows);
    fig13(&mut m, rows);
    fig14(&mut m, rows);
    claims(&mut m, rows);
    analysis(&mut m, rows, base);
    m
}

/// Title, setup, the schemes' costs and the figures.
fn header(m: &mut String, opts: &Options, rows: &[Row], figures: &[Figure], wall_s: f64, base: &Config) {
    let n = &base.nand;
    let mode = if opts.quick { "quick" } else { "full" };
    let _ = writeln!(m, "# FMMU (Woo & Min, arXiv 1704.03168) reproduced with ssdlab\n");
    let _ = writeln!(
        m,
        "Mode: **{mode}** ({} runs, {wall_s:.0} s wall on {} threads). Drive: `presets/fmmu.toml` — {} channels × {} ways, {} die × {} planes, {} blocks of {} pages of {} KiB per plane, tR {} µs, tPROG {} µs, bus {} MT/s × {} bit, PCIe {} lanes × {} GB/s, over-provisioning {}, device queue {}. Host: closed loop, {QUEUE_DEPTH} requests outstanding, no gap between arrivals; every run starts on a drive filled sequentially (random writes with GC active: filled to GC's steady state). Every number is in `results.csv`.\n",
        rows.len(),
        opts.threads,
        n.channels,
        n.chips_per_channel,
        n.dies_per_chip,
        n.planes_per_die,
        n.blocks_per_plane,
        n.pages_per_block,
        n.page_bytes / 1024,
        n.t_read_us.first().copied().unwrap_or(0.0),
        n.t_program_us.first().copied().unwrap_or(0.0),
        n.bus.rate_mt_s,
        n.bus.width_bits,
        base.hif.pcie.lanes,
        base.hif.pcie.lane_gb_s,
        base.ftl.overprovisioning_ratio,
        base.hil.queue_depth,
    );
    schemes_table(m, base);
    let _ = writeln!(m, "Figures: {}.\n", figures.iter().map(|f| format!("`{}`", f.0)).collect::<Vec<_>>().join(", "));
    if !plot::have_font() {
        let _ = writeln!(m, "(No TrueType font was found on this machine, so the figures have no text.)\n");
    }
}

/// Each scheme's map and firmware as run.
fn schemes_table(m: &mut String, base: &Config) {
    let _ = writeln!(
        m,
        "| scheme | map | CMT blocks (16 entries, 4-way) | CTP pages | servers | issue ns | hit ns | miss ns | flush ns + per block scanned |\n|---|---|---|---|---|---|---|---|---|"
    );
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
            _ => format!("{} cores", f.cores),
        };
        let _ = writeln!(
            m,
            "| {} | {:?} | {cmt} | {ctp} | {servers} | {:.0} | {:.0} | {:.0} | {:.0} + {:.1} |",
            s.name, c.ftl.mapping, f.op_cost_ns, f.hit_ns, f.miss_ns, f.flush_ns, f.flush_block_ns
        );
    }
    let _ = writeln!(
        m,
        "\nDFTL and CDFTL flushes scan every CMT block (no dirty list); FMMU's visit only the flushed page's dirty blocks (DTL). A miss that merges with a translation-page read in flight costs the miss time too, and the fill that answers it the hit time.\n"
    );
}

/// Under the table: the rand-write runs and the scaling of software with cores.
fn fig11_notes(m: &mut String, rows: &[Row]) {
    let gc = |w: Synthetic| pick(rows, "synthetic", w.name(), "ideal").map_or(0, |r| r.gc_invocations);
    let _ = writeln!(
        m,
        "\nRandom writes with GC active: throughput over the second half of the run (time series). Before GC: on the sequentially filled drive, {} GC invocations in ideal's run (with GC: {}). Shares in brackets are of ideal on the same workload.\n",
        gc(Synthetic::RandWrite),
        gc(Synthetic::RandWriteGc)
    );
}

/// Figure 12: utilization of host link, NAND bus, chips and FTL per run.
fn fig12(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "## Figure 12: utilization (busy / elapsed)\n");
    let _ = writeln!(
        m,
        "FTL: busy time of the firmware's servers over servers × elapsed time (FMMU and ideal: the issuing core and the map unit; DFTL/CDFTL: the cores).\n"
    );
    let _ = writeln!(m, "| workload | scheme | host link | NAND bus | chips | FTL |\n|---|---|---|---|---|---|");
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
    m.push('\n');
}

/// The map cache per synthetic run: hit ratio and translation traffic per 1,000 requests.
fn map_cache(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "## Map cache per run\n");
    let _ = writeln!(
        m,
        "Hit ratio: lookups and updates answered from RAM (CMT, CTP or a translation page not yet on flash) over all. Per 1,000 requests: translation-page reads and writes, flushes, CMT blocks the flushes scanned.\n"
    );
    let _ = writeln!(m, "| workload | scheme | hit ratio | map reads | map writes | flushes | blocks scanned | merged misses | GC invocations |\n|---|---|---|---|---|---|---|---|---|");
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
    m.push('\n');
}

/// The paper's Figure 13 ratios, (trace stand-in, scheme, ratio).
const PAPER_TRACE_RATIOS: [(&str, &str, f64); 4] = [
    ("msr-rw20", "dftl-1", 10.63),
    ("msr-rw20", "cdftl-4", 1.47),
    ("msr-hm0", "dftl-4", 3.35),
    ("msr-hm0", "cdftl-4", 1.32),
];

/// Figure 13: time to finish each trace over ideal's, and flash operations.
fn fig13(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "## Figure 13: traces (time to finish / ideal)\n");
    let _ = writeln!(m, "Each excerpt is looped to the same number of requests for every scheme. Paper's values in brackets where it gives one.\n");
    let mut head = String::from("| scheme |");
    for (_, name, paper) in TRACES {
        let _ = write!(head, " {name} ({paper}) |");
    }
    let _ = writeln!(m, "{head}\n|---|---|---|---|");
    for s in &SCHEMES {
        let mut line = format!("| {} |", s.name);
        for (_, name, _) in TRACES {
            let paper = PAPER_TRACE_RATIOS.iter().find(|(t, sc, _)| *t == name && *sc == s.name);
            let p = paper.map_or(String::new(), |(_, _, x)| format!(" ({x}×)"));
            let _ = write!(line, " {}{p} |", opt(elapsed_ratio(rows, name, s.name), |x| format!("{x:.2}×")));
        }
        let _ = writeln!(m, "{line}");
    }
    let _ = writeln!(m, "\nFlash page operations (thousands): data reads / map reads / data programs / map programs, and the map-cache hit ratio.\n");
    let _ = writeln!(m, "| trace | scheme | requests | data reads | map reads | data programs | map programs | hit ratio | time (s) |\n|---|---|---|---|---|---|---|---|---|");
    for (_, name, _) in TRACES {
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
    m.push('\n');
}

/// Figure 14: FMMU and ideal against channels × ways.
fn fig14(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "## Figure 14: scaling (4 KiB random read, whole map in RAM, PCIe 3.0 x32)\n");
    let _ = writeln!(m, "| channels × ways | FMMU KIOPS | ideal KIOPS | FMMU / ideal | hit ratio | NAND bus | chips | host link | FTL |\n|---|---|---|---|---|---|---|---|---|");
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
    let _ = writeln!(m, "\nPaper: ≈4,300 KIOPS at 32 × 8, bound by the 32 channels' buses.\n");
}

/// Software's gain from 1 to 4 cores on each workload, "a→b" in merit units.
fn core_gains(rows: &[Row], family: &str) -> String {
    SYNTHETIC
        .iter()
        .map(|&w| {
            let one = synthetic(rows, w, &format!("{family}-1"));
            let four = synthetic(rows, w, &format!("{family}-4"));
            match (one, four) {
                (Some(a), Some(b)) if a > 0.0 => format!("{} {:.2}×", w.name(), b / a),
                _ => format!("{} –", w.name()),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The paper's claims against ssdlab's numbers.
fn claims(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "## The paper's claims\n\n| claim | paper | ssdlab |\n|---|---|---|");
    let ideal = |w: Synthetic| opt(synthetic(rows, w, "ideal"), |v| format!("{v:.2}"));
    let _ = writeln!(m, "| ideal seq write | 5.5 GB/s (chips) | {} GB/s |", ideal(Synthetic::SeqWrite));
    let _ = writeln!(m, "| ideal seq read | 9.2 GB/s (NAND bus) | {} GB/s |", ideal(Synthetic::SeqRead));
    let _ = writeln!(
        m,
        "| ideal rand write | 283 KIOPS (chips) | GC active {} KIOPS; before GC {} KIOPS |",
        ideal(Synthetic::RandWriteGc),
        ideal(Synthetic::RandWrite)
    );
    let _ = writeln!(m, "| ideal rand read | 1,165 KIOPS (NAND bus) | {} KIOPS |", ideal(Synthetic::RandRead));
    let _ = writeln!(m, "| DFTL gains from 1 to 4 cores | yes, every workload | {} |", core_gains(rows, "dftl"));
    let _ = writeln!(m, "| CDFTL gains from 1 to 4 cores | yes, every workload | {} |", core_gains(rows, "cdftl"));
    let share = |w: Synthetic, s: &str| opt(of_ideal(rows, w, s), pct);
    let _ = writeln!(
        m,
        "| CDFTL-4 on rand write | ≈88% of ideal | GC active {}; before GC {} |",
        share(Synthetic::RandWriteGc, "cdftl-4"),
        share(Synthetic::RandWrite, "cdftl-4")
    );
    let fmmu: Vec<String> = SYNTHETIC.iter().map(|&w| format!("{} {}", w.name(), share(w, "fmmu"))).collect();
    let _ = writeln!(m, "| FMMU against ideal | within 10% everywhere | {} |", fmmu.join(", "));
    let util = pick(rows, "synthetic", Synthetic::RandRead.name(), "fmmu").map(|r| r.util_ftl);
    let _ = writeln!(m, "| FMMU's FTL utilization on rand read | ≈17% | {} |", opt(util, pct));
    let seq = |s: &str| opt(synthetic(rows, Synthetic::SeqRead, s), |v| format!("{v:.2}"));
    let _ = writeln!(
        m,
        "| seq read: DFTL above CDFTL at 1 core, below at 4 | yes | 1 core: DFTL {} vs CDFTL {} GB/s; 4 cores: {} vs {} GB/s |",
        seq("dftl-1"),
        seq("cdftl-1"),
        seq("dftl-4"),
        seq("cdftl-4")
    );
    trace_claims(m, rows);
    let top =
        rows.iter().filter(|r| r.experiment == "scaling" && r.scheme == "fmmu").max_by_key(|r| r.channels * r.ways);
    let _ = writeln!(
        m,
        "| FMMU at 32 × 8, PCIe x32, map hits | ≈4.3 MIOPS | {} |\n",
        opt(top.map(|r| r.iops / 1e6), |x| format!("{x:.2} MIOPS"))
    );
}

/// Figure 13's claims.
fn trace_claims(m: &mut String, rows: &[Row]) {
    let ratio = |t: &str, s: &str| opt(elapsed_ratio(rows, t, s), |x| format!("{x:.2}×"));
    let _ = writeln!(
        m,
        "| MSR_proj (here msr-rw20): DFTL-1 / CDFTL-4 / FMMU vs ideal | 10.63× / 1.47× / ≈1× | {} / {} / {} |",
        ratio("msr-rw20", "dftl-1"),
        ratio("msr-rw20", "cdftl-4"),
        ratio("msr-rw20", "fmmu")
    );
    let _ = writeln!(
        m,
        "| MSR_hm (here msr-hm0): DFTL / CDFTL vs ideal after going to 4 cores | 3.35× / 1.32× | 4 cores {} / {}; 1 core {} / {} |",
        ratio("msr-hm0", "dftl-4"),
        ratio("msr-hm0", "cdftl-4"),
        ratio("msr-hm0", "dftl-1"),
        ratio("msr-hm0", "cdftl-1")
    );
    let reads = |s: &str| pick(rows, "trace", "websearch", s).map(|r| (r.data_reads + r.tp_reads) as f64);
    let more = |s: &str| match (reads("dftl-1"), reads(s)) {
        (Some(d), Some(x)) if x > 0.0 => format!("{:+.1}%", (d / x - 1.0) * 100.0),
        _ => "–".into(),
    };
    let _ = writeln!(
        m,
        "| WebSearch: DFTL's flash reads vs CDFTL / FMMU | ≈+8% | {} / {} |",
        more("cdftl-1"),
        more("fmmu")
    );
}

/// The bounds of the drive.
fn analysis(m: &mut String, rows: &[Row], base: &Config) {
    let b = Bounds::of(base);
    let _ = writeln!(m, "## Bounds of this drive\n");
    let _ = writeln!(
        m,
        "- NAND buses: {} channels × {} MB/s = **{:.2} GB/s**.\n- Programs, two-plane: {} chips × 2 × {} KiB / {} µs = **{:.2} GB/s**; one page per chip per tPROG: {:.2} GB/s.\n- Host link: {} lanes × {} GB/s × 256 / 280 (TLP overhead) = **{:.2} GB/s**.\n",
        base.nand.channels,
        base.nand.bus.rate_mt_s * base.nand.bus.width_bits as f64 / 8.0,
        b.bus_gb_s,
        base.nand.channels * base.nand.chips_per_channel,
        base.nand.page_bytes / 1024,
        base.nand.t_program_us.first().copied().unwrap_or(0.0),
        b.program_gb_s,
        b.program_one_plane_gb_s,
        base.hif.pcie.lanes,
        base.hif.pcie.lane_gb_s,
        b.pcie_gb_s
    );
    differences::write(m, rows, base, &b);
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
