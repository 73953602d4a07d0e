//! REPORT.md of `reproduce pacp`: a table per figure, the paper's claims (docs/techniques.md
//! §10.8) beside this run's numbers, and where the two differ — every number computed from
//! this run's rows.

use std::fmt::Write as _;

use super::{
    channels_in, grid, mean_over, pick, pick_bits, region_sizes, requests, standins, vs_baseline, workloads_in, Row,
    Scheme, Shares, BLOCKS_PER_PLANE, GC_FILL, MIXED_SHARE, RATE_IOPS, REUSE, SCHEMES,
};
use crate::reproduce::{geomean, mean, Options};
use ssdlab::Config;

/// A measure of a run (read latency, write latency, ...).
type Measure = fn(&Row) -> f64;

const READ: Measure = |r| r.read_us;
const WRITE: Measure = |r| r.write_us;

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// A ratio as a signed change against 1 ("−11.6%"); "–" when there is none.
fn change(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{:+.1}%", (x - 1.0) * 100.0))
}

fn opt_pct(x: Option<f64>) -> String {
    x.map_or("–".into(), pct)
}

/// A small share, to two decimals ("0.21%").
fn pct2(x: f64) -> String {
    format!("{:.2}%", x * 100.0)
}

/// Figure 10's comparison: at each channel count, the mean of `f` over the workloads (the
/// stand-ins, or the excerpts) under `a` over that under `b`; then the mean of those ratios
/// over the channel counts.
pub fn over_channels(rows: &[Row], synthetic: bool, a: Scheme, b: Scheme, f: fn(&Row) -> f64) -> Option<f64> {
    let v: Vec<f64> = channels_in(rows)
        .iter()
        .filter_map(|&c| {
            let (x, y) = (mean_over(rows, synthetic, a, c, f)?, mean_over(rows, synthetic, b, c, f)?);
            (y > 0.0).then(|| x / y)
        })
        .collect();
    (!v.is_empty()).then(|| mean(&v))
}

/// Geometric mean over the workloads at the figures' channel count (`grid().figure_channels`) of `a`'s `f` over `b`'s.
fn per_workload(rows: &[Row], synthetic: bool, a: Scheme, b: Scheme, f: fn(&Row) -> f64) -> Option<f64> {
    let fig_channels = grid().figure_channels;
    let v: Vec<f64> = workloads_in(rows, synthetic)
        .iter()
        .filter_map(|w| {
            let (x, y) = (pick(rows, w, a, fig_channels)?, pick(rows, w, b, fig_channels)?);
            (f(y) > 0.0).then(|| f(x) / f(y))
        })
        .collect();
    (!v.is_empty()).then(|| geomean(&v))
}

/// `a`'s `f` over `b`'s on one workload at the figures' channel count (`grid().figure_channels`).
fn one(rows: &[Row], w: &str, a: Scheme, b: Scheme, f: fn(&Row) -> f64) -> Option<f64> {
    let fig_channels = grid().figure_channels;
    let (x, y) = (pick(rows, w, a, fig_channels)?, pick(rows, w, b, fig_channels)?);
    (f(y) > 0.0).then(|| f(x) / f(y))
}

/// PACP's migration share at the figures' channel count (`grid().figure_channels`) per workload: (max, mean).
fn migration(rows: &[Row], synthetic: bool) -> Option<(f64, f64)> {
    let fig_channels = grid().figure_channels;
    let v: Vec<f64> = workloads_in(rows, synthetic)
        .iter()
        .filter_map(|w| pick(rows, w, Scheme::Pacp, fig_channels))
        .map(Row::migration_share)
        .collect();
    (!v.is_empty()).then(|| (v.iter().copied().fold(0.0, f64::max), mean(&v)))
}

/// Mean TRH accuracy over the stand-ins with `bits` history bits (PACP, the figures' channel count (`grid().figure_channels`)).
fn accuracy(rows: &[Row], bits: u8) -> Option<f64> {
    let v: Vec<f64> = workloads_in(rows, true).iter().filter_map(|w| pick_bits(rows, w, bits)?.trh_accuracy).collect();
    (!v.is_empty()).then(|| mean(&v))
}

pub fn report_md(opts: &Options, rows: &[Row], figures: &[(String, String)], wall_s: f64, base: &Config) -> String {
    let mut m = String::new();
    header(&mut m, opts, rows, figures, wall_s, base);
    standin_table(&mut m, opts);
    fig6_table(&mut m, rows);
    fig7_table(&mut m, rows);
    fig8_table(&mut m, rows);
    fig9_table(&mut m, rows);
    fig10_table(&mut m, rows);
    partition_table(&mut m, rows);
    claims(&mut m, rows);
    preload_section(&mut m, rows);
    differences(&mut m, rows);
    m
}

fn header(m: &mut String, opts: &Options, rows: &[Row], figures: &[(String, String)], wall_s: f64, base: &Config) {
    let n = &base.nand;
    let chans: Vec<String> = channels_in(rows).iter().map(|c| c.to_string()).collect();
    let _ = writeln!(m, "# PACP (Lim, Shin, Han, Electronics 2022) reproduced with ssdlab\n");
    let _ = writeln!(
        m,
        "Mode: **{}** ({} runs, {wall_s:.0} s wall on {} threads). Drive: `presets/pacp.toml`, the paper's Table 2 — {} chips per channel × {} dies × {} planes, {} pages of {} KiB per block, t_R {} µs, t_PROG {} µs, t_BERS {} µs — at {} channels, with **{BLOCKS_PER_PLANE} blocks per plane instead of {} [I]** (so a 64-channel run takes about 0.4 GB rather than 3 GB), over-provisioning {} and greedy GC at {} / {} free blocks [I], no write cache, a 64-tag queue. Every run starts on a drive filled by random writes to {} of its logical space [I], in the state uniform random overwrites leave; GC starts once the host has written about two blocks per plane. Every number below is in `results.csv`.\n",
        if opts.quick { "quick" } else { "full" },
        rows.len(),
        opts.threads,
        n.chips_per_channel,
        n.dies_per_chip,
        n.planes_per_die,
        n.pages_per_block,
        n.page_bytes / 1024,
        n.t_read_us[0],
        n.t_program_us[0],
        n.t_erase_us,
        chans.join(", "),
        n.blocks_per_plane,
        base.ftl.overprovisioning_ratio,
        pct(base.ftl.gc.threshold),
        pct(base.ftl.gc.hard_threshold),
        pct(GC_FILL),
    );
    let _ = writeln!(m, "| scheme | allocation | reads |\n|---|---|---|");
    let _ = writeln!(m, "| baseline | dynamic allocation as the paper describes it (`ftl.allocation = \"dynamic_rr\"`: channel, chip, die and plane in rotation, skipping busy ones; PACP's allocator without a partition) | wait for programs and erases on their chip |");
    let _ = writeln!(m, "| ideal | as baseline | never wait for a program or erase: free, unlimited suspension (`nand.ideal = \"no_rw_interference\"`) [I] |");
    let _ = writeln!(m, "| lv | every host write to the Write channels of a split fixed for the run, sized from the workload's read and write demand (R = pages read × t_R, W = pages written × t_PROG) [I: the rule is not recovered] | as baseline |");
    let _ = writeln!(m, "| pacp-nomig | Algorithm 1 with a 1-bit history: predicted read → Read channels, write → Write channels, spill-over when every channel of the type is busy (all its chips have work) [I: busy], no history → any channel; the split starts at half and moves one channel per {} page accesses toward the predicted page mix [I] | as baseline |", base.ftl.partition.period);
    let _ = writeln!(m, "| pacp | as pacp-nomig, with both migrations: a Write-channel GC move of a page predicted read is programmed on a Read channel (GC-piggybacked), and after 1 ms of host idleness the read-predicted pages of the Write-channel block with the most invalid pages move to Read channels, 64 at most (GC-aware, at idle time) [I: 1 ms, 64] | as baseline |");
    let _ = writeln!(m, "| pacp-nomig-preload, pacp-preload (sensitivity) | as pacp-nomig and pacp, with the pages the workload reads before writing them filled onto the Read channels, and the split starting at their share of the pages the workload touches (`ftl.partition.preload = \"read_channels\"`) [I: where SSDsim's pre-processing put them is not stated] | as baseline |\n");
    let files: Vec<String> = figures.iter().map(|(f, _)| format!("`{f}`")).collect();
    let _ = writeln!(m, "Figures: {}.\n", files.join(", "));
}

/// How each stand-in is built, and the MSR excerpts.
fn standin_table(m: &mut String, opts: &Options) {
    let n = requests(opts.quick);
    let _ = writeln!(m, "## Workloads\n");
    let _ = writeln!(
        m,
        "The paper replays seven MSR Cambridge traces (Table 3), which are not shipped. Each is stood in for [I] by three open-loop flows over disjoint regions from logical address 0: read-only, mixed (half reads) and write-only, with {} of the requests on the mixed region (the paper's §3: 91.6% of requests fall on dominant pages) and the rest split so the read share is Table 3's. 4 KiB requests, uniform within their region, Poisson arrivals at {RATE_IOPS} requests/s in all (split by the shares), the same at every channel count; {n} requests per run [I], so that the write-heavy stand-ins run GC at every channel count. Each region holds its requests / {REUSE} pages, so a page sees about {REUSE} requests and most requests find a history. {}\n",
        pct(MIXED_SHARE),
        if opts.quick { "Quick mode runs three stand-ins and no excerpts." } else { "The shipped MSR excerpts (msr-rw20, msr-rw40, msr-rand: 10,000 requests each; msr-hm0: 1,000) are replayed once at their timestamps, addresses wrapped, as a check on real request streams." }
    );
    let _ = writeln!(
        m,
        "| stand-in | reads (Table 3) | read-only / mixed / write-only requests | region pages |\n|---|---|---|---|"
    );
    for s in standins(opts.quick) {
        let shares = Shares::of(s.read_ratio);
        let sizes = region_sizes(&shares, n);
        let _ = writeln!(
            m,
            "| {} | {} | {} / {} / {} | {} / {} / {} |",
            s.name,
            pct(s.read_ratio),
            pct(shares.read),
            pct(shares.mixed),
            pct(shares.write),
            sizes[0].1,
            sizes[1].1,
            sizes[2].1
        );
    }
    m.push('\n');
}

fn fig6_table(m: &mut String, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    let _ = writeln!(m, "## Figure 6: TRH prediction accuracy (PACP, {fig_channels} channels)\n");
    let _ = writeln!(m, "| stand-in | 1 bit | 2 bits | 3 bits |\n|---|---|---|---|");
    for w in workloads_in(rows, true) {
        let a = |b| opt_pct(pick_bits(rows, w, b).and_then(|r| r.trh_accuracy));
        let _ = writeln!(m, "| {w} | {} | {} | {} |", a(1), a(2), a(3));
    }
    let _ = writeln!(
        m,
        "| mean | {} | {} | {} |",
        opt_pct(accuracy(rows, 1)),
        opt_pct(accuracy(rows, 2)),
        opt_pct(accuracy(rows, 3))
    );
    let _ = writeln!(m, "| paper (mean) | 96.4% | 94.6% | ≈96.9% |\n");
}

fn fig7_table(m: &mut String, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    let _ = writeln!(m, "## Figure 7: read latency against the baseline ({fig_channels} channels)\n");
    let _ = writeln!(m, "| workload | baseline µs | ideal | pacp-nomig | pacp | lv | chips busy (baseline) |\n|---|---|---|---|---|---|---|");
    for w in workloads_in(rows, true).into_iter().chain(workloads_in(rows, false)) {
        let Some(b) = pick(rows, w, Scheme::Baseline, fig_channels) else { continue };
        let c = |s| change(vs_baseline(rows, w, s, fig_channels, |r| r.read_us));
        let _ = writeln!(
            m,
            "| {w} | {:.0} | {} | {} | {} | {} | {} |",
            b.read_us,
            c(Scheme::Ideal),
            c(Scheme::PacpNoMig),
            c(Scheme::Pacp),
            c(Scheme::Lv),
            pct(b.chip_util)
        );
    }
    let _ = writeln!(m, "\nPaper: PACP without migration hm_0 −31.9%, prn_0 −32.6%, web_0 −49.3% (≈ Ideal), src1_2 +19.0%; hm_1 and proj_3 ≈ baseline; PACP on hm_1 −12.9%.\n");
}

fn fig8_table(m: &mut String, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    let _ = writeln!(m, "## Figure 8: migration programs (PACP, {fig_channels} channels)\n");
    let _ = writeln!(m, "| workload | migrated by GC | migrated at idle | host programs | GC programs | migration share | GC invocations |\n|---|---|---|---|---|---|---|");
    for w in workloads_in(rows, true).into_iter().chain(workloads_in(rows, false)) {
        let Some(r) = pick(rows, w, Scheme::Pacp, fig_channels) else { continue };
        let _ = writeln!(
            m,
            "| {w} | {} | {} | {} | {} | {:.2}% | {} |",
            r.migrated_gc,
            r.migrated_idle,
            r.user_programs,
            r.gc_programs,
            r.migration_share() * 100.0,
            r.gc_invocations
        );
    }
    let _ = writeln!(m, "\nA migration is a GC move programmed on a Read channel: a program GC makes anyway. Paper: at most 2.7% for every workload, about 1.0% on average, 0.2% for hm_1 and proj_3.\n");
}

/// Read latency against channels of the baseline, Lv and PACP for `workloads`.
fn latency_by_channels(m: &mut String, rows: &[Row], workloads: &[&str]) {
    let chans = channels_in(rows);
    let head: Vec<String> = chans.iter().map(|c| format!("{c} ch")).collect();
    let _ = writeln!(m, "| workload | scheme | {} |\n|---|---|{}", head.join(" | "), "---|".repeat(chans.len()));
    for w in workloads {
        for s in [Scheme::Baseline, Scheme::Lv, Scheme::Pacp] {
            let cells: Vec<String> = chans
                .iter()
                .map(|&c| pick(rows, w, s, c).map_or("–".into(), |r| format!("{:.0}", r.read_us)))
                .collect();
            let _ = writeln!(m, "| {w} | {} | {} |", s.name(), cells.join(" | "));
        }
    }
    m.push('\n');
}

fn fig9_table(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "## Figure 9: read latency (µs) against channels\n");
    let ws: Vec<&str> = ["web_0", "hm_1"].into_iter().filter(|w| workloads_in(rows, true).contains(w)).collect();
    latency_by_channels(m, rows, &ws);
    let _ = writeln!(m, "Paper: web_0 — Lv's latency rises at ≤ 16 channels and beats PACP at ≥ 48; hm_1 — PACP below Lv at every channel count.\n");
    let msr = workloads_in(rows, false);
    if !msr.is_empty() {
        let _ = writeln!(m, "The MSR excerpts, same schemes:\n");
        latency_by_channels(m, rows, &msr);
    }
}

fn fig10_table(m: &mut String, rows: &[Row]) {
    let chans = channels_in(rows);
    let head: Vec<String> = chans.iter().map(|c| format!("{c} ch")).collect();
    let _ = writeln!(m, "## Figure 10: mean latency over the stand-ins (µs) against channels\n");
    let _ = writeln!(m, "| latency | scheme | {} |\n|---|---|{}", head.join(" | "), "---|".repeat(chans.len()));
    let measures: [(&str, Measure); 2] = [("read", READ), ("write", WRITE)];
    for (name, f) in measures {
        for s in SCHEMES {
            let cells: Vec<String> = chans
                .iter()
                .map(|&c| mean_over(rows, true, s, c, f).map_or("–".into(), |x| format!("{x:.0}")))
                .collect();
            let _ = writeln!(m, "| {name} | {} | {} |", s.name(), cells.join(" | "));
        }
        for (a, b) in [(Scheme::Pacp, Scheme::Lv), (Scheme::Pacp, Scheme::Baseline)] {
            let cells: Vec<String> = chans
                .iter()
                .map(|&c| {
                    change(mean_over(rows, true, a, c, f).zip(mean_over(rows, true, b, c, f)).map(|(x, y)| x / y))
                })
                .collect();
            let _ = writeln!(m, "| {name} | {} vs {} | {} |", a.name(), b.name(), cells.join(" | "));
        }
    }
    let _ = writeln!(m, "\nPaper: PACP's read latency 11.6% below Lv's over 8–64 channels; write latency 6.0% below Lv's and 2.5% above the baseline's.\n");
}

/// Where the split ended: PACP's Read channels (and relabels), and Lv's fixed split.
fn partition_table(m: &mut String, rows: &[Row]) {
    let chans = channels_in(rows);
    let head: Vec<String> = chans.iter().map(|c| format!("{c} ch")).collect();
    let _ = writeln!(m, "## The split: Read channels at the end (PACP: relabels in brackets; it starts at half)\n");
    let _ = writeln!(m, "| workload | scheme | {} |\n|---|---|{}", head.join(" | "), "---|".repeat(chans.len()));
    for w in workloads_in(rows, true).into_iter().chain(workloads_in(rows, false)) {
        for s in [Scheme::Lv, Scheme::Pacp] {
            let cells: Vec<String> = chans
                .iter()
                .map(|&c| match (pick(rows, w, s, c), s) {
                    (Some(r), Scheme::Pacp) => format!("{} ({})", r.read_channels_end.unwrap_or(0), r.relabels),
                    (Some(r), _) => r.read_channels_end.unwrap_or(0).to_string(),
                    (None, _) => "–".into(),
                })
                .collect();
            let _ = writeln!(m, "| {w} | {} | {} |", s.name(), cells.join(" | "));
        }
    }
    m.push('\n');
}

/// One line of the claims table: the paper's number, the stand-ins' and the excerpts'.
fn claim(m: &mut String, what: &str, paper: &str, stand_ins: String, excerpts: String) {
    let _ = writeln!(m, "| {what} | {paper} | {stand_ins} | {excerpts} |");
}

/// The paper's headline numbers (docs/techniques.md §10.8) beside this run's.
pub fn claims(m: &mut String, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    let _ = writeln!(
        m,
        "## The paper's claims\n\n| claim | paper | ssdlab stand-ins | ssdlab MSR excerpts |\n|---|---|---|---|"
    );
    let (read, write) = (READ, WRITE);
    let both = |a, b, f| (change(over_channels(rows, true, a, b, f)), change(over_channels(rows, false, a, b, f)));
    let (x, y) = both(Scheme::Pacp, Scheme::Lv, read);
    claim(m, "read latency, PACP vs Lv, mean over the channel counts (Fig. 10a)", "−11.6%", x, y);
    let (x, y) = both(Scheme::Pacp, Scheme::Lv, write);
    claim(m, "write latency, PACP vs Lv (Fig. 10b)", "−6.0%", x, y);
    let (x, y) = both(Scheme::Pacp, Scheme::Baseline, write);
    claim(m, "write latency, PACP vs baseline", "+2.5%", x, y);
    let (x, y) = both(Scheme::Pacp, Scheme::PacpNoMig, write);
    claim(m, "write latency, PACP vs PACP without migration", "+2.7%", x, y);
    let mig = |s| migration(rows, s).map_or(("–".into(), "–".into()), |(mx, mn)| (pct2(mx), pct2(mn)));
    let ((sx, sn), (ex, en)) = (mig(true), mig(false));
    claim(m, "migration programs / all programs, largest workload (Fig. 8, 32 ch)", "≤ 2.7%", sx, ex);
    claim(m, "migration programs / all programs, mean", "≈ 1.0%", sn, en);
    let hm = |w| pick(rows, w, Scheme::Pacp, fig_channels).map_or("–".into(), |r| pct2(r.migration_share()));
    claim(m, "migration share, hm_1 / proj_3", "0.2% / 0.2%", format!("{} / {}", hm("hm_1"), hm("proj_3")), "–".into());
    let msr_acc = {
        let v: Vec<f64> = workloads_in(rows, false)
            .iter()
            .filter_map(|w| pick(rows, w, Scheme::Pacp, fig_channels)?.trh_accuracy)
            .collect();
        (!v.is_empty()).then(|| mean(&v))
    };
    claim(m, "TRH accuracy, 1 bit (Fig. 6)", "96.4%", opt_pct(accuracy(rows, 1)), opt_pct(msr_acc));
    claim(
        m,
        "TRH accuracy, 2 bits / 3 bits",
        "94.6% / ≈96.9%",
        format!("{} / {}", opt_pct(accuracy(rows, 2)), opt_pct(accuracy(rows, 3))),
        "–".into(),
    );
    fig7_claims(m, rows);
    fig9_claims(m, rows);
    m.push('\n');
}

/// Figure 7's per-workload numbers (32 channels).
fn fig7_claims(m: &mut String, rows: &[Row]) {
    let read = READ;
    for (w, paper) in [("hm_0", "−31.9%"), ("prn_0", "−32.6%"), ("web_0", "−49.3%"), ("src1_2", "+19.0%")] {
        let x = change(one(rows, w, Scheme::PacpNoMig, Scheme::Baseline, read));
        claim(m, &format!("{w} read latency, PACP without migration vs baseline (Fig. 7)"), paper, x, "–".into());
    }
    let x = change(one(rows, "src1_2", Scheme::Pacp, Scheme::PacpNoMig, read));
    claim(m, "src1_2 read latency, PACP vs PACP without migration", "−21.9%", x, "–".into());
    let x = format!(
        "{} / {}",
        change(one(rows, "hm_1", Scheme::Pacp, Scheme::Baseline, read)),
        change(one(rows, "hm_1", Scheme::Ideal, Scheme::Baseline, read))
    );
    claim(m, "hm_1 read latency vs baseline, PACP / Ideal", "−12.9% / ≈ −16%", x, "–".into());
    let (x, y) = (
        change(per_workload(rows, true, Scheme::Pacp, Scheme::PacpNoMig, read)),
        change(per_workload(rows, false, Scheme::Pacp, Scheme::PacpNoMig, read)),
    );
    claim(m, "read latency, PACP vs PACP without migration, mean over workloads (32 ch)", "−7.8%", x, y);
}

/// Figure 9's shape: where Lv's read latency is below PACP's.
fn fig9_claims(m: &mut String, rows: &[Row]) {
    let lv_below = |w: &str| -> Vec<String> {
        channels_in(rows)
            .into_iter()
            .filter(|&c| {
                let (lv, pacp) = (pick(rows, w, Scheme::Lv, c), pick(rows, w, Scheme::Pacp, c));
                lv.zip(pacp).is_some_and(|(l, p)| l.read_us < p.read_us)
            })
            .map(|c| c.to_string())
            .collect()
    };
    let list = |v: Vec<String>| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    claim(
        m,
        "web_0: channel counts where Lv's read latency is below PACP's (Fig. 9)",
        "48, 64",
        list(lv_below("web_0")),
        "–".into(),
    );
    claim(
        m,
        "hm_1: channel counts where Lv's read latency is below PACP's",
        "none",
        list(lv_below("hm_1")),
        "–".into(),
    );
}

/// The preload sensitivity: the same runs with the pages read before written filled onto
/// the Read channels, and where the reads and writes went.
fn preload_section(m: &mut String, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    if !rows.iter().any(|r| r.scheme == Scheme::PacpNoMigPreload) {
        return;
    }
    let _ = writeln!(m, "## Sensitivity: pages read before written filled onto the Read channels\n");
    let _ = writeln!(m, "At {fig_channels} channels: read latency against the baseline; in brackets, the share of the host's page reads served on a channel labelled Read at the time / the share of its page writes that went to one.\n");
    let _ = writeln!(
        m,
        "| workload | ideal | pacp-nomig | pacp-nomig-preload | pacp | pacp-preload |\n|---|---|---|---|---|---|"
    );
    for w in workloads_in(rows, true).into_iter().chain(workloads_in(rows, false)) {
        let cell = |s| {
            let Some(r) = pick(rows, w, s, fig_channels) else { return "–".to_string() };
            let v = change(vs_baseline(rows, w, s, fig_channels, READ));
            match (r.reads_on_read, r.writes_on_read) {
                (Some(a), Some(b)) => format!("{v} ({} / {})", pct(a), pct(b)),
                _ => v,
            }
        };
        let cells =
            [Scheme::Ideal, Scheme::PacpNoMig, Scheme::PacpNoMigPreload, Scheme::Pacp, Scheme::PacpPreload].map(cell);
        let _ = writeln!(m, "| {w} | {} |", cells.join(" | "));
    }
    let _ = writeln!(m, "\n| claim | paper | stand-ins, spread | stand-ins, preload | excerpts, spread | excerpts, preload |\n|---|---|---|---|---|---|");
    let both = |a: Scheme, pre: Scheme, b: Scheme, f: Measure| {
        [true, false].map(|syn| [a, pre].map(|s| change(over_channels(rows, syn, s, b, f))))
    };
    let mut line = |what: &str, paper: &str, [[a, b], [c, d]]: [[String; 2]; 2]| {
        let _ = writeln!(m, "| {what} | {paper} | {a} | {b} | {c} | {d} |");
    };
    line(
        "read latency, PACP vs Lv, mean over the channel counts",
        "−11.6%",
        both(Scheme::Pacp, Scheme::PacpPreload, Scheme::Lv, READ),
    );
    line("read latency, PACP vs baseline, same", "–", both(Scheme::Pacp, Scheme::PacpPreload, Scheme::Baseline, READ));
    line(
        "write latency, PACP vs baseline, same",
        "+2.5%",
        both(Scheme::Pacp, Scheme::PacpPreload, Scheme::Baseline, WRITE),
    );
    for (w, paper) in [("hm_0", "−31.9%"), ("prn_0", "−32.6%"), ("web_0", "−49.3%"), ("src1_2", "+19.0%")] {
        let x = |s| change(one(rows, w, s, Scheme::Baseline, READ));
        line(
            &format!("{w}, PACP without migration vs baseline ({fig_channels} ch)"),
            paper,
            [[x(Scheme::PacpNoMig), x(Scheme::PacpNoMigPreload)], ["–".into(), "–".into()]],
        );
    }
    let _ = writeln!(m, "\n{PRELOAD_READING}\n");
}

/// How to read the preload rows (the same whatever the numbers; they are in the tables).
const PRELOAD_READING: &str = "With the read-first pages on the Read channels nearly every read is served there, and where the baseline's reads wait for programs (Ideal well below the baseline) PACP without migration comes within reach of Ideal, as the paper's Figure 7 has it. What is left between the two is the writes that still reach Read channels: pages without history go to any channel, and Algorithm 1 spills writes there when every Write channel is busy. Where the baseline has little interference to remove (Ideal within a few percent of it), preloading only gathers the reads on fewer channels, where they queue behind each other: the short MSR excerpts lose with it. src1_2 gains here where the paper has it 19% slower without migration; our stand-in's read-first pages are its read-only region, which the preload places at once.";

/// Where this run and the paper differ, with the evidence from this run's rows.
fn differences(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "## Where ssdlab and the paper differ, and why\n");
    interference_bullet(m, rows);
    migration_bullet(m, rows);
    split_bullet(m, rows);
    load_bullet(m, rows);
    accuracy_bullet(m, rows);
    write_bullet(m, rows);
    excerpts_bullet(m, rows);
    let _ = writeln!(
        m,
        "- **The setup is ours where the paper's is not known.** The workloads are synthetic stand-ins with Table 3's read shares, not the traces: requests are independent of each other, so a page's history says nothing beyond its region's mix. Blocks per plane are {BLOCKS_PER_PLANE}, not 2048 (a fixed workload then covers a larger share of each victim block). \"Busy\" in Algorithm 1 is ours: a channel is busy when every chip on it has a command queued or running. Ideal is ours too: free, unlimited suspension of programs and erases by user reads, on the same drive, where the paper configured a 32-channel SSD \"so that write-induced preemption is close to zero\". Idle-time migration waits for 1 ms of host idleness and moves at most 64 pages per idle period [I], and the drive starts filled to {} by random writes, where SSDsim's preconditioning is unknown.\n",
        pct(GC_FILL)
    );
}

/// Reads of never-written pages stay where the fill put them, and the Write channels take
/// the writes and their GC: how much PACP can help.
fn interference_bullet(m: &mut String, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    let per: Vec<String> = workloads_in(rows, true)
        .iter()
        .filter_map(|w| {
            let ideal = vs_baseline(rows, w, Scheme::Ideal, fig_channels, READ)?;
            let nomig = pick(rows, w, Scheme::PacpNoMig, fig_channels)?;
            let base = pick(rows, w, Scheme::Baseline, fig_channels)?;
            Some(format!(
                "{w} {} / {} ({} Read, GC programs {} against {})",
                change(Some(ideal)),
                change(Some(nomig.read_us / base.read_us)),
                nomig.read_channels_end.unwrap_or(0),
                nomig.gc_programs,
                base.gc_programs
            ))
        })
        .collect();
    let _ = writeln!(
        m,
        "- **PACP without migration does not approach Ideal here** (at {fig_channels} channels, read latency against the baseline, Ideal / PACP without migration, with PACP's Read channels at the end and its GC programs against the baseline's: {}). The read-only region is never written during the run, so its pages stay where the random fill put them, on every channel: the Read channels' share of them is spared the host's writes; the rest sit on the Write channels, which now take nearly all the host's writes and the GC they cause (the fill left every plane equally full, and mostly the Write channels' planes use up free blocks). Migration moves read-predicted pages only as GC picks their blocks. Where the paper put the pages its traces read before writing them is not stated (SSDsim writes them in a pre-processing pass, docs/techniques.md §10.7). The preload sensitivity above puts them on the Read channels, and the split starts at their share: most reads are then served on Read channels and PACP without migration moves toward Ideal — the paper's Figure 7 pattern. What still separates it from Ideal is the writes that reach Read channels: pages with no history go to any channel, and Algorithm 1 spills writes there whenever every Write channel is busy.",
        per.join("; ")
    );
}

/// Migration shares (large where few pages are programmed), and where migration cost most.
fn migration_bullet(m: &mut String, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    let per: Vec<String> = workloads_in(rows, true)
        .iter()
        .filter_map(|w| {
            let (b, p) = (pick(rows, w, Scheme::Baseline, fig_channels)?, pick(rows, w, Scheme::Pacp, fig_channels)?);
            Some(format!(
                "{w} {} (GC invocations: baseline {}, PACP {})",
                pct2(p.migration_share()),
                b.gc_invocations,
                p.gc_invocations
            ))
        })
        .collect();
    // The stand-in and channel count where migration raised PACP's read latency most.
    let worst = rows
        .iter()
        .filter(|r| r.synthetic && r.scheme == Scheme::Pacp && r.trh_bits == 1)
        .filter_map(|p| Some((p, pick(rows, p.workload, Scheme::PacpNoMig, p.channels)?)))
        .max_by(|(a, x), (b, y)| (a.read_us / x.read_us).total_cmp(&(b.read_us / y.read_us)))
        .filter(|(p, n)| p.read_us > n.read_us);
    let worst = worst.map_or(String::new(), |(p, n)| {
        format!(
            " Migration costs most on {} at {} channels (read latency {} against PACP without migration, write {}), where {} Read channel(s) take every migrated page ({}) and the reads of those pages.",
            p.workload,
            p.channels,
            change(Some(p.read_us / n.read_us)),
            change(Some(p.write_us / n.write_us)),
            p.read_channels_end.unwrap_or(0),
            p.migrated_gc + p.migrated_idle
        )
    });
    let _ = writeln!(
        m,
        "- **Migration** (share of all programs, PACP at {fig_channels} channels: {}). A read-heavy stand-in writes little, and PACP gives it few Write channels: their planes run GC where the baseline, spreading the same writes over every plane, may run none, and the moves of read-predicted pages out of those few victims are a large share of few programs. The paper has 0.2% for hm_1 and proj_3.{worst}",
        per.join("; ")
    );
}

/// How far PACP's split moved, against its start and Lv's.
fn split_bullet(m: &mut String, rows: &[Row]) {
    let end = |s, c| {
        let v: Vec<f64> = workloads_in(rows, true)
            .iter()
            .filter_map(|w| pick(rows, w, s, c)?.read_channels_end)
            .map(f64::from)
            .collect();
        mean(&v)
    };
    let per: Vec<String> = channels_in(rows)
        .iter()
        .map(|&c| format!("{c} ch: PACP {:.1} (from {}), Lv {:.1}", end(Scheme::Pacp, c), c / 2, end(Scheme::Lv, c)))
        .collect();
    // The run whose relabels most exceed the net move: the split stepping back and forth.
    let swing = rows
        .iter()
        .filter(|r| r.synthetic && r.scheme == Scheme::Pacp && r.trh_bits == 1)
        .map(|r| (r, r.relabels.saturating_sub(r.read_channels_end.unwrap_or(0).abs_diff(r.channels / 2) as u64)))
        .max_by_key(|(_, extra)| *extra)
        .filter(|(_, extra)| *extra > 0)
        .map_or(String::new(), |(r, _)| {
            let net = r.read_channels_end.unwrap_or(0).abs_diff(r.channels / 2);
            format!(" The split settles at its target and may step around it: {} at {} channels relabelled {} times for a net move of {net}.", r.workload, r.channels, r.relabels)
        });
    let _ = writeln!(
        m,
        "- **The split** (mean Read channels at the end over the stand-ins): {}. PACP sizes its split by the pages its histories predict read or write, one channel per 10,000 page accesses; Lv's rule [I] weighs pages by t_R and t_PROG, so it gives the write-heavy stand-ins a single Read channel.{swing}",
        per.join("; ")
    );
}

/// The fixed rate loads the drive less as channels grow.
fn load_bullet(m: &mut String, rows: &[Row]) {
    let per: Vec<String> = channels_in(rows)
        .iter()
        .map(|&c| {
            let busy = mean_over(rows, true, Scheme::Baseline, c, |r| r.chip_util).unwrap_or(0.0);
            let vs = |s: Scheme| {
                mean_over(rows, true, s, c, READ)
                    .zip(mean_over(rows, true, Scheme::Baseline, c, READ))
                    .map(|(x, b)| x / b)
            };
            format!(
                "{c} ch: chips busy {}, Ideal {}, PACP without migration {}",
                pct(busy),
                change(vs(Scheme::Ideal)),
                change(vs(Scheme::PacpNoMig))
            )
        })
        .collect();
    let _ = writeln!(
        m,
        "- **Interference falls with channels.** The stand-ins arrive at {RATE_IOPS} requests/s at every channel count [I], so the wider drives idle (baseline's chips busy, mean over the stand-ins; mean read latency against the baseline's): {}. The paper's traces are bursty; ours are Poisson.",
        per.join("; ")
    );
}

/// TRH accuracy is set by the stand-ins' construction.
fn accuracy_bullet(m: &mut String, rows: &[Row]) {
    let _ = writeln!(
        m,
        "- **TRH accuracy follows from how the stand-ins are built** (1 / 2 / 3 bits: {} / {} / {}). A request to a read-only or write-only page is always predicted right once the page has a history; one to a mixed page (independent, half reads) is right half the time whatever the history's length, so accuracy ≈ 1 − {} / 2 = {} for every bit count. The paper's 2-bit dip (ties resolved by the channel of a misplaced page) and 3-bit gain need requests that depend on the page's past, which independent requests do not have: matching 96.4% here is no evidence for the mechanism.",
        opt_pct(accuracy(rows, 1)),
        opt_pct(accuracy(rows, 2)),
        opt_pct(accuracy(rows, 3)),
        pct(MIXED_SHARE),
        pct(1.0 - MIXED_SHARE / 2.0)
    );
}

/// Write latency and GC under each scheme.
fn write_bullet(m: &mut String, rows: &[Row]) {
    let per: Vec<String> = channels_in(rows)
        .iter()
        .map(|&c| {
            let w: Vec<String> = [Scheme::Baseline, Scheme::Lv, Scheme::PacpNoMig, Scheme::Pacp]
                .iter()
                .map(|&s| format!("{} {:.0}", s.name(), mean_over(rows, true, s, c, |r| r.write_us).unwrap_or(0.0)))
                .collect();
            format!("{c} ch: {}", w.join(", "))
        })
        .collect();
    let gc = |s| {
        mean(
            &channels_in(rows)
                .iter()
                .filter_map(|&c| mean_over(rows, true, s, c, |r| r.gc_programs as f64))
                .collect::<Vec<_>>(),
        )
    };
    let _ = writeln!(
        m,
        "- **Writes** (mean write latency over the stand-ins, µs — {}). The baseline and the partitioned schemes share one allocator (`pacp::rotate_within`: channel, chip, die and plane in rotation, skipping busy ones), with and without the partition, as the paper compares them. Concentrating writes on fewer channels costs GC: GC programs per run, mean over the stand-ins and channel counts, baseline {:.0}, Lv {:.0}, PACP {:.0}.",
        per.join("; "),
        gc(Scheme::Baseline),
        gc(Scheme::Lv),
        gc(Scheme::Pacp)
    );
}

/// The MSR excerpts are too short for the split or GC to matter; their bursts carry the
/// means.
fn excerpts_bullet(m: &mut String, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    let msr = workloads_in(rows, false);
    if msr.is_empty() {
        return;
    }
    let per: Vec<String> = msr
        .iter()
        .filter_map(|w| {
            let r = pick(rows, w, Scheme::Pacp, fig_channels)?;
            let gc = rows.iter().filter(|x| x.workload == *w).map(|x| x.gc_invocations).max().unwrap_or(0);
            Some(format!(
                "{w} {} requests, {} page accesses predicted from a history, {} relabels, at most {gc} GC invocations in any run",
                r.requests, r.trh_predicted, r.relabels
            ))
        })
        .collect();
    let gc_ran = rows.iter().any(|r| !r.synthetic && r.gc_invocations > 0);
    let vs_lv: Vec<String> = channels_in(rows)
        .iter()
        .map(|&c| {
            let r = mean_over(rows, false, Scheme::Pacp, c, READ).zip(mean_over(rows, false, Scheme::Lv, c, READ));
            format!("{c} ch {}", change(r.map(|(p, l)| p / l)))
        })
        .collect();
    let slowest = channels_in(rows).first().and_then(|&c| {
        msr.iter().filter_map(|w| pick(rows, w, Scheme::Baseline, c)).max_by(|a, b| a.read_us.total_cmp(&b.read_us))
    });
    let slowest = slowest.map_or(String::new(), |r| {
        format!(
            " The slowest, {} on {} channels, reads in {:.0} µs on the baseline: its bursts queue.",
            r.workload, r.channels, r.read_us
        )
    });
    let _ = writeln!(
        m,
        "- **The MSR excerpts are short** (PACP at {fig_channels} channels: {}). The split moves a few channels at most (it counts page accesses, so multi-page requests move it sooner), and {}. PACP against Lv, mean read latency over the excerpts: {}.{slowest} They show how the schemes treat real request streams, not PACP after a week of history.",
        per.join("; "),
        if gc_ran { "with little GC there is little to migrate" } else { "GC never runs in them, so nothing migrates" },
        vs_lv.join(", ")
    );
}
