//! REPORT.md of `reproduce pacp`: a table per figure, the paper's claims (docs/techniques.md
//! §10.8) beside this run's numbers, and where the two differ — every number computed from
//! this run's rows. The prose is the template `experiments/pacp/report.md`; the sentences that
//! appear only for some runs (a stand-in where migration cost most, the split stepping around its
//! target, the slowest excerpt) are built here.

use std::fmt::Write as _;

use super::fit::{self, Fits};
use super::{
    channels_in, fig7_ratio, grid, lv_split, mean_over, pick, pick_bits, pick_lv_split, pick_run, region_sizes,
    requests, standins, vs_baseline, workloads_in, Drive, Row, RunOf, Scheme, Seeded, Shares, BLOCKS_PER_PLANE,
    GC_FILL, MAIN, MIXED_SHARE, RATE_IOPS, REUSE, SCHEMES,
};
use super::{mixed_right, persistence};
use crate::reproduce::template::{render, section, Values};
use crate::reproduce::{geomean, mean, Options};
use ssdlab::Config;

/// A measure of a run (read latency, write latency, ...).
type Measure = fn(&Row) -> f64;

const READ: Measure = |r| r.read_us;
const WRITE: Measure = |r| r.write_us;

pub(super) fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// A ratio as a signed change against 1 ("−11.6%"); "–" when there is none.
pub(super) fn change(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{:+.1}%", (x - 1.0) * 100.0))
}

fn opt_pct(x: Option<f64>) -> String {
    x.map_or("–".into(), pct)
}

/// A ratio over seeds as a signed change with its 95% interval ("−11.6% (−15.0% … −8.2%)");
/// the change alone for one seed, "–" for none.
pub(super) fn seeded(x: Option<Seeded>) -> String {
    match x {
        None => "–".into(),
        Some(Seeded { mean, interval: None, .. }) => change(Some(mean)),
        Some(Seeded { mean, interval: Some((lo, hi)), .. }) => {
            format!("{} ({} … {})", change(Some(mean)), change(Some(lo)), change(Some(hi)))
        }
    }
}

/// A small share, to two decimals ("0.21%").
pub(super) fn pct2(x: f64) -> String {
    format!("{:.2}%", x * 100.0)
}

/// Figure 10's comparison: at each channel count, the mean of `f` over the workloads (the
/// stand-ins, or the excerpts) under `a` over that under `b`; then the mean of those ratios
/// over the channel counts.
pub fn over_channels(rows: &[Row], synthetic: bool, a: Scheme, b: Scheme, f: fn(&Row) -> f64) -> Option<f64> {
    let v = channel_ratios(rows, synthetic, a, b, f);
    (!v.is_empty()).then(|| mean(&v))
}

/// At each channel count, the mean of `f` over the workloads under `a` over that under `b`.
pub(super) fn channel_ratios(rows: &[Row], synthetic: bool, a: Scheme, b: Scheme, f: fn(&Row) -> f64) -> Vec<f64> {
    channel_ratios_at(rows, synthetic, a, b, f, &channels_in(rows))
}

/// [`channel_ratios`] at the channel counts `chans` only.
fn channel_ratios_at(rows: &[Row], synthetic: bool, a: Scheme, b: Scheme, f: Measure, chans: &[u32]) -> Vec<f64> {
    chans
        .iter()
        .filter_map(|&c| {
            let (x, y) = (mean_over(rows, synthetic, a, c, f)?, mean_over(rows, synthetic, b, c, f)?);
            (y > 0.0).then(|| x / y)
        })
        .collect()
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

/// REPORT.md's prose: `experiments/pacp/report.md`, its values set by [`report_md`].
const TEMPLATE: &str = include_str!("../../../../../experiments/pacp/report.md");
const TEMPLATE_NAME: &str = "experiments/pacp/report.md";

/// The template's claims section, which `ssdlab reproduce` prints.
const CLAIMS: &str = "## The paper's claims";
/// The template's preload section, left out when the run has no preload runs.
const PRELOAD: &str = "## Sensitivity: pages read before written filled onto the Read channels";
/// The template's ablation section, left out when the run has no ablation runs.
const ABLATION_SECTION: &str = "## Ablation: what each part of PACP adds ({{fig_channels}} channels)";
/// The template's fresh-drive section, left out when the run has no fresh-drive runs.
const FRESH_SECTION: &str = "## The fresh drive (SSDsim's default)";
/// The template's section on Lv's swept split, left out when the run has no such runs.
const LV_SWEEP: &str = "## Sensitivity: Lv's split swept ({{fig_channels}} channels)";
/// The start of the template's line on the MSR excerpts, left out when the run has none.
const EXCERPTS_BULLET: &str = "- **The MSR excerpts are short**";

/// The Workloads paragraph's last sentence, by mode.
const QUICK_NOTE: &str = "Quick mode runs three stand-ins and no excerpts.";
const FULL_NOTE: &str = "The shipped MSR excerpts (msr-rw20, msr-rw40, msr-rand: 10,000 requests each; msr-hm0: 1,000) are replayed once at their timestamps, addresses wrapped, as a check on real request streams.";

pub fn report_md(
    opts: &Options,
    rows: &[Row],
    figures: &[(String, String)],
    wall_s: f64,
    base: &Config,
    fits: Option<&Fits>,
) -> String {
    let mut v = Values::new();
    header(&mut v, opts, rows, figures, wall_s, base);
    workloads(&mut v, opts);
    v.set("fig_channels", grid().figure_channels);
    fig6_7_8(&mut v, rows);
    fig9_10_split(&mut v, rows);
    claims(&mut v, rows);
    let preload = rows.iter().any(|r| r.scheme == Scheme::PacpNoMigPreload);
    if preload {
        preload_section(&mut v, rows);
    }
    let fresh = rows.iter().any(|r| r.run.drive == Drive::Fresh);
    if fresh {
        fresh_section(&mut v, rows);
    }
    let lv_sweep = rows.iter().any(|r| r.scheme == Scheme::LvSplit);
    if lv_sweep {
        lv_split_section(&mut v, rows);
    }
    let ablation = rows.iter().any(|r| r.scheme == Scheme::PacpPartition);
    if ablation {
        super::ablation::section(&mut v, rows);
    }
    let excerpts = !workloads_in(rows, false).is_empty();
    differences(&mut v, rows);
    page_histories(&mut v, fits);
    if excerpts {
        excerpts_bullet(&mut v, rows);
    }
    setup(&mut v, base, opts.quick);
    let parts = Parts { preload, fresh, lv_sweep, ablation, excerpts };
    render(TEMPLATE_NAME, &template_for(parts), &v)
}

/// Where each setting comes from, and the dated log of main-row changes:
/// `experiments/pacp/provenance.toml`, against the config of the PACP rows (the preset on the
/// runs' drive at the figures' channel count, with PACP's keys).
fn setup(v: &mut Values, base: &Config, quick: bool) {
    const FILE: &str = include_str!("../../../../../experiments/pacp/provenance.toml");
    const NAME: &str = "experiments/pacp/provenance.toml";
    let g = grid();
    let mut cfg = super::drive(base, g.figure_channels);
    Scheme::Pacp.apply(&mut cfg, super::main_trh_bits(), 0);
    let constant = |name: &str| {
        let list = |c: &[u32]| c.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ");
        Some(match name {
            "CHANNELS" => format!("{} (quick: {})", list(&g.channels), list(&g.quick_channels)),
            "FIGURE_CHANNELS" => g.figure_channels.to_string(),
            "GC_FILL" => format!("random fill to {}", pct(GC_FILL)),
            "STANDINS" => standins(quick)
                .iter()
                .map(|s| format!("{} ({} reads)", s.name, pct(s.read_ratio)))
                .collect::<Vec<_>>()
                .join(", "),
            "MIXED_SHARE" => pct(MIXED_SHARE),
            "REUSE" => REUSE.to_string(),
            "RATE_IOPS" => format!("{RATE_IOPS} requests/s in all"),
            "REQUESTS" => requests(quick).to_string(),
            "ABLATION_NO_EFFECT" => format!(
                "a step moving the stand-ins' geometric-mean read latency by under {:.1} points of the baseline's",
                super::ablation::NO_EFFECT * 100.0
            ),
            _ => return None,
        })
    };
    crate::reproduce::provenance::set(v, NAME, FILE, &cfg, &constant);
}

/// The optional parts of the template a run has rows for.
struct Parts {
    preload: bool,
    fresh: bool,
    lv_sweep: bool,
    ablation: bool,
    excerpts: bool,
}

/// The template without the parts this run has nothing for: the preload section, the
/// fresh-drive section, the section on Lv's swept split, the ablation section and the bullet
/// on the MSR excerpts.
fn template_for(parts: Parts) -> String {
    let Parts { preload, fresh, lv_sweep, ablation, excerpts } = parts;
    let mut t = TEMPLATE.to_string();
    if !ablation {
        t = t.replacen(section(TEMPLATE, ABLATION_SECTION), "", 1);
    }
    if !preload {
        t = t.replacen(section(TEMPLATE, PRELOAD), "", 1);
    }
    if !fresh {
        t = t.replacen(section(TEMPLATE, FRESH_SECTION), "", 1);
    }
    if !lv_sweep {
        t = t.replacen(section(TEMPLATE, LV_SWEEP), "", 1);
    }
    if !excerpts {
        let start = t.find(&format!("\n{EXCERPTS_BULLET}")).expect("the template's bullet on the MSR excerpts") + 1;
        let end = start + t[start..].find('\n').expect("a line end") + 1;
        t.replace_range(start..end, "");
    }
    t
}

/// The template's claims section, with this run's numbers.
pub fn claims_section(rows: &[Row]) -> String {
    let mut v = Values::new();
    claims(&mut v, rows);
    render(TEMPLATE_NAME, section(TEMPLATE, CLAIMS), &v)
}

fn header(v: &mut Values, opts: &Options, rows: &[Row], figures: &[(String, String)], wall_s: f64, base: &Config) {
    let n = &base.nand;
    let chans: Vec<String> = channels_in(rows).iter().map(|c| c.to_string()).collect();
    v.run_line(opts, "runs", rows.len(), wall_s);
    v.set("chips", n.chips_per_channel);
    v.set("dies", n.dies_per_chip);
    v.set("planes", n.planes_per_die);
    v.set("pages", n.pages_per_block);
    v.set("page_kib", n.page_bytes / 1024);
    v.set("t_r", n.t_read_us[0]);
    v.set("t_prog", n.t_program_us[0]);
    v.set("t_bers", n.t_erase_us);
    v.set("channels", chans.join(", "));
    v.set("blocks_per_plane", BLOCKS_PER_PLANE);
    v.set("preset_blocks_per_plane", n.blocks_per_plane);
    v.set("op", base.ftl.overprovisioning_ratio);
    v.set("gc_threshold", pct(base.ftl.gc.threshold));
    v.set("gc_hard_threshold", pct(base.ftl.gc.hard_threshold));
    v.set("gc_fill", pct(GC_FILL));
    v.set("partition_period", base.ftl.partition.period);
    let files: Vec<String> = figures.iter().map(|(f, _)| format!("`{f}`")).collect();
    v.set("figures", files.join(", "));
}

/// How each stand-in is built, and the MSR excerpts.
fn workloads(v: &mut Values, opts: &Options) {
    let n = requests(opts.quick);
    v.set("mixed_share", pct(MIXED_SHARE));
    v.set("rate_iops", RATE_IOPS);
    v.set("requests", n);
    v.set("reuse", REUSE);
    v.set("excerpts_note", if opts.quick { QUICK_NOTE } else { FULL_NOTE });
    let mut m = String::new();
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
            sizes[0].pages,
            sizes[1].pages,
            sizes[2].pages
        );
    }
    v.set("standin_rows", m);
}

/// The stand-ins, then the excerpts.
fn all_workloads(rows: &[Row]) -> impl Iterator<Item = &'static str> {
    workloads_in(rows, true).into_iter().chain(workloads_in(rows, false))
}

/// The rows of Figures 6 (with its mean), 7 and 8, at the figures' channel count.
fn fig6_7_8(v: &mut Values, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    let mut m = String::new();
    for w in workloads_in(rows, true) {
        let a = |b| opt_pct(pick_bits(rows, w, b).and_then(|r| r.trh_accuracy));
        let _ = writeln!(m, "| {w} | {} | {} | {} |", a(1), a(2), a(3));
    }
    v.set("fig6_rows", m);
    v.set("accuracy_1", opt_pct(accuracy(rows, 1)));
    v.set("accuracy_2", opt_pct(accuracy(rows, 2)));
    v.set("accuracy_3", opt_pct(accuracy(rows, 3)));
    let mut m = String::new();
    for w in all_workloads(rows) {
        let Some(b) = pick(rows, w, Scheme::Baseline, fig_channels) else { continue };
        let c = |s| seeded(fig7_ratio(rows, w, s, Scheme::Baseline));
        let _ = writeln!(
            m,
            "| {w} | {:.0} | {} | {} | {} | {} | {} |",
            b.read_us,
            c(Scheme::Ideal),
            c(Scheme::PacpNoMig),
            c(Scheme::Pacp),
            change(vs_baseline(rows, w, Scheme::Lv, fig_channels, READ)),
            pct(b.chip_util)
        );
    }
    v.set("fig7_rows", m);
    let seeds: Vec<String> = grid().seeds.iter().map(|s| s.to_string()).collect();
    v.set("fig7_seeds", seeds.join(", "));
    let mut m = String::new();
    for w in all_workloads(rows) {
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
    v.set("fig8_rows", m);
}

/// Lv's split swept at the figures' channel count: read / write latency per stand-in under
/// the sizing rule, each swept split, and PACP; then PACP against Lv over the stand-ins
/// (geometric mean of read-latency ratios) under the rule, each split, and each stand-in's
/// best split by read latency (the rule's among them).
fn lv_split_section(v: &mut Values, rows: &[Row]) {
    let ch = grid().figure_channels;
    let splits: Vec<u32> = grid().lv_read_shares.iter().map(|&x| lv_split(x, ch)).collect();
    let cell = |r: Option<&Row>| r.map_or("–".into(), |r| format!("{:.0} / {:.0}", r.read_us, r.write_us));
    let heads: Vec<String> = splits.iter().map(|n| format!("lv, {n} Read")).collect();
    let mut m = format!(
        "| stand-in | lv (rule) | {} | pacp |\n|---|---|{}---|\n",
        heads.join(" | "),
        "---|".repeat(splits.len())
    );
    let ws = workloads_in(rows, true);
    for w in &ws {
        let Some(rule) = pick(rows, w, Scheme::Lv, ch) else { continue };
        let rule_cell = format!("{} ({} Read)", cell(Some(rule)), rule.read_channels_end.unwrap_or(0));
        let swept: Vec<String> = splits.iter().map(|&n| cell(pick_lv_split(rows, w, n))).collect();
        let _ =
            writeln!(m, "| {w} | {rule_cell} | {} | {} |", swept.join(" | "), cell(pick(rows, w, Scheme::Pacp, ch)));
    }
    m.push('\n');
    v.set("lv_split_rows", m);
    let pacp_vs = |lv: &dyn Fn(&str) -> Option<f64>| -> String {
        let r: Vec<f64> = ws
            .iter()
            .filter_map(|w| Some(pick(rows, w, Scheme::Pacp, ch)?.read_us / lv(w).filter(|&x| x > 0.0)?))
            .collect();
        change((!r.is_empty()).then(|| geomean(&r)))
    };
    let mut cells = vec![pacp_vs(&|w| pick(rows, w, Scheme::Lv, ch).map(|r| r.read_us))];
    cells.extend(splits.iter().map(|&n| pacp_vs(&|w| pick_lv_split(rows, w, n).map(|r| r.read_us))));
    let best = |w: &str| {
        let swept = splits.iter().filter_map(|&n| pick_lv_split(rows, w, n));
        pick(rows, w, Scheme::Lv, ch).into_iter().chain(swept).map(|r| r.read_us).reduce(f64::min)
    };
    cells.push(pacp_vs(&best));
    let mut t = format!(
        "| | Lv's rule | {} | Lv's best split per stand-in (rule included) |\n|---|---|{}---|\n",
        heads.join(" | "),
        "---|".repeat(splits.len())
    );
    let _ = writeln!(t, "| PACP's read latency vs Lv's | {} |\n", cells.join(" | "));
    v.set("lv_split_claims", t);
}

/// The tables whose columns are the channel counts: Figures 9 and 10, and the split.
fn fig9_10_split(v: &mut Values, rows: &[Row]) {
    let ws: Vec<&str> = ["web_0", "hm_1"].into_iter().filter(|w| workloads_in(rows, true).contains(w)).collect();
    v.set("fig9_table", latency_by_channels(rows, &ws));
    let msr = workloads_in(rows, false);
    let excerpts = if msr.is_empty() {
        String::new()
    } else {
        format!("The MSR excerpts, same schemes:\n\n{}", latency_by_channels(rows, &msr))
    };
    v.set("fig9_excerpts", excerpts);
    v.set("fig10_table", fig10_table(rows));
    v.set("split_table", partition_table(rows));
}

/// A table's header row and rule for a first column, a scheme column and one column per
/// channel count.
fn channels_header(first: &str, rows: &[Row]) -> String {
    let chans = channels_in(rows);
    let head: Vec<String> = chans.iter().map(|c| format!("{c} ch")).collect();
    format!("| {first} | scheme | {} |\n|---|---|{}\n", head.join(" | "), "---|".repeat(chans.len()))
}

/// Read latency against channels of the baseline, Lv and PACP for `workloads` (the table
/// and the blank line after it).
fn latency_by_channels(rows: &[Row], workloads: &[&str]) -> String {
    let chans = channels_in(rows);
    let mut m = channels_header("workload", rows);
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
    m
}

/// Figure 10: each scheme's mean latency over the stand-ins at each channel count, and
/// PACP against Lv and the baseline (the table and the blank line after it).
fn fig10_table(rows: &[Row]) -> String {
    let chans = channels_in(rows);
    let mut m = channels_header("latency", rows);
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
    m.push('\n');
    m
}

/// Where the split ended: PACP's Read channels (and relabels), and Lv's fixed split (the
/// table and the blank line after it).
fn partition_table(rows: &[Row]) -> String {
    let chans = channels_in(rows);
    let mut m = channels_header("workload", rows);
    for w in all_workloads(rows) {
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
    m
}

/// This run's numbers for the paper's headline claims (docs/techniques.md §10.8; the
/// template holds the paper's): over the stand-ins and over the excerpts.
fn claims(v: &mut Values, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    let mut both = |name: &'static str, excerpts: &'static str, a, b, f| {
        v.set(name, change(over_channels(rows, true, a, b, f)));
        v.set(excerpts, change(over_channels(rows, false, a, b, f)));
    };
    both("claim_read_vs_lv", "claim_read_vs_lv_excerpts", Scheme::Pacp, Scheme::Lv, READ);
    both("claim_write_vs_lv", "claim_write_vs_lv_excerpts", Scheme::Pacp, Scheme::Lv, WRITE);
    both("claim_write_vs_baseline", "claim_write_vs_baseline_excerpts", Scheme::Pacp, Scheme::Baseline, WRITE);
    both("claim_write_vs_nomig", "claim_write_vs_nomig_excerpts", Scheme::Pacp, Scheme::PacpNoMig, WRITE);
    let mig = |s| migration(rows, s).map_or(("–".into(), "–".into()), |(mx, mn)| (pct2(mx), pct2(mn)));
    let ((sx, sn), (ex, en)) = (mig(true), mig(false));
    v.set("claim_migration_max", sx);
    v.set("claim_migration_max_excerpts", ex);
    v.set("claim_migration_mean", sn);
    v.set("claim_migration_mean_excerpts", en);
    let hm = |w| pick(rows, w, Scheme::Pacp, fig_channels).map_or("–".into(), |r| pct2(r.migration_share()));
    v.set("claim_migration_hm_1", hm("hm_1"));
    v.set("claim_migration_proj_3", hm("proj_3"));
    let msr_acc = {
        let acc: Vec<f64> = workloads_in(rows, false)
            .iter()
            .filter_map(|w| pick(rows, w, Scheme::Pacp, fig_channels)?.trh_accuracy)
            .collect();
        (!acc.is_empty()).then(|| mean(&acc))
    };
    v.set("claim_accuracy_1", opt_pct(accuracy(rows, 1)));
    v.set("claim_accuracy_1_excerpts", opt_pct(msr_acc));
    v.set("claim_accuracy_2", opt_pct(accuracy(rows, 2)));
    v.set("claim_accuracy_3", opt_pct(accuracy(rows, 3)));
    fig7_claims(v, rows);
    fig9_claims(v, rows);
}

/// Figure 7's per-workload numbers (32 channels).
fn fig7_claims(v: &mut Values, rows: &[Row]) {
    let read = READ;
    let nomig = [
        ("claim_nomig_hm_0", "hm_0"),
        ("claim_nomig_prn_0", "prn_0"),
        ("claim_nomig_web_0", "web_0"),
        ("claim_nomig_src1_2", "src1_2"),
    ];
    for (name, w) in nomig {
        v.set(name, seeded(fig7_ratio(rows, w, Scheme::PacpNoMig, Scheme::Baseline)));
    }
    v.set("claim_src1_2_vs_nomig", seeded(fig7_ratio(rows, "src1_2", Scheme::Pacp, Scheme::PacpNoMig)));
    v.set("claim_hm_1_pacp", seeded(fig7_ratio(rows, "hm_1", Scheme::Pacp, Scheme::Baseline)));
    v.set("claim_hm_1_ideal", seeded(fig7_ratio(rows, "hm_1", Scheme::Ideal, Scheme::Baseline)));
    v.set("claim_read_vs_nomig", change(per_workload(rows, true, Scheme::Pacp, Scheme::PacpNoMig, read)));
    v.set("claim_read_vs_nomig_excerpts", change(per_workload(rows, false, Scheme::Pacp, Scheme::PacpNoMig, read)));
}

/// Figure 9's shape: where Lv's read latency is below PACP's.
fn fig9_claims(v: &mut Values, rows: &[Row]) {
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
    v.set("claim_lv_below_web_0", list(lv_below("web_0")));
    v.set("claim_lv_below_hm_1", list(lv_below("hm_1")));
}

/// The fresh-drive column: the main schemes on SSDsim's default drive, per stand-in at the
/// fresh channel counts, against the aged drive's PACP without migration.
fn fresh_section(v: &mut Values, rows: &[Row]) {
    const FRESH: RunOf = RunOf { drive: Drive::Fresh, ..MAIN };
    let chans: Vec<u32> = grid()
        .fresh_channels
        .iter()
        .copied()
        .filter(|&c| rows.iter().any(|r| r.run == FRESH && r.channels == c))
        .collect();
    let list: Vec<String> = chans.iter().map(|c| c.to_string()).collect();
    v.set("fresh_channels", list.join(" and "));
    let ratio = |w: &str, s, b, c, run| {
        let (x, y) = (pick_run(rows, w, s, c, run)?, pick_run(rows, w, b, c, run)?);
        (y.read_us > 0.0).then(|| x.read_us / y.read_us)
    };
    let mut m = String::new();
    let mut summary = Vec::new();
    for &c in &chans {
        for w in workloads_in(rows, true) {
            let (Some(b), Some(p)) =
                (pick_run(rows, w, Scheme::Baseline, c, FRESH), pick_run(rows, w, Scheme::Pacp, c, FRESH))
            else {
                continue;
            };
            let cells = [Scheme::Ideal, Scheme::Lv, Scheme::PacpNoMig, Scheme::Pacp]
                .map(|s| change(ratio(w, s, Scheme::Baseline, c, FRESH)));
            let aged = change(ratio(w, Scheme::PacpNoMig, Scheme::Baseline, c, MAIN));
            let label = if chans.len() > 1 { format!("{w} ({c} ch)") } else { w.to_string() };
            let gc = format!("{} / {}", b.gc_invocations, p.gc_invocations);
            let _ = writeln!(m, "| {label} | {:.0} | {} | {gc} | {aged} |", b.read_us, cells.join(" | "));
        }
        let geo = |s, b, run| {
            let v: Vec<f64> = workloads_in(rows, true).iter().filter_map(|w| ratio(w, s, b, c, run)).collect();
            (!v.is_empty()).then(|| geomean(&v))
        };
        summary.push(format!(
            "At {c} channels, geometric mean over the stand-ins: PACP without migration {} against the baseline on the fresh drive ({} aged), Ideal {} ({} aged), PACP against Lv {} ({} aged).",
            change(geo(Scheme::PacpNoMig, Scheme::Baseline, FRESH)),
            change(geo(Scheme::PacpNoMig, Scheme::Baseline, MAIN)),
            change(geo(Scheme::Ideal, Scheme::Baseline, FRESH)),
            change(geo(Scheme::Ideal, Scheme::Baseline, MAIN)),
            change(geo(Scheme::Pacp, Scheme::Lv, FRESH)),
            change(geo(Scheme::Pacp, Scheme::Lv, MAIN)),
        ));
    }
    v.set("fresh_rows", m);
    v.set("fresh_summary", summary.join(" ") + "\n");
}

/// The preload sensitivity: the same runs with the pages read before written filled onto
/// the Read channels, and where the reads and writes went.
fn preload_section(v: &mut Values, rows: &[Row]) {
    v.set("preload_rows", preload_rows(rows));
    // Each claim spread and preloaded, over the stand-ins and over the excerpts, averaged over
    // the channel counts the preload ran at (`grid().sensitivity_channels`).
    let chans: Vec<u32> = channels_in(rows)
        .into_iter()
        .filter(|&c| rows.iter().any(|r| r.scheme == Scheme::PacpPreload && r.channels == c))
        .collect();
    let list: Vec<String> = chans.iter().map(|c| c.to_string()).collect();
    v.set("preload_channels", list.join(" and "));
    // Against Lv, the preloaded PACP meets the preloaded Lv: the preload given to both.
    let mut four = |names: [&'static str; 4], b: Scheme, f: Measure| {
        let b_preloaded = if b == Scheme::Lv { Scheme::LvPreload } else { b };
        let over = |syn, (s, b)| {
            let r = channel_ratios_at(rows, syn, s, b, f, &chans);
            (!r.is_empty()).then(|| mean(&r))
        };
        let pairs = [(Scheme::Pacp, b), (Scheme::PacpPreload, b_preloaded)];
        let cells = [true, false].map(|syn| pairs.map(|p| over(syn, p)));
        for (name, x) in names.into_iter().zip(cells.into_iter().flatten()) {
            v.set(name, change(x));
        }
    };
    let names = [
        "preload_read_vs_lv",
        "preload_read_vs_lv_preload",
        "preload_read_vs_lv_excerpts",
        "preload_read_vs_lv_excerpts_preload",
    ];
    four(names, Scheme::Lv, READ);
    let names = [
        "preload_read_vs_baseline",
        "preload_read_vs_baseline_preload",
        "preload_read_vs_baseline_excerpts",
        "preload_read_vs_baseline_excerpts_preload",
    ];
    four(names, Scheme::Baseline, READ);
    let names = [
        "preload_write_vs_baseline",
        "preload_write_vs_baseline_preload",
        "preload_write_vs_baseline_excerpts",
        "preload_write_vs_baseline_excerpts_preload",
    ];
    four(names, Scheme::Baseline, WRITE);
    let nomig = [
        ("preload_nomig_hm_0", "preload_nomig_hm_0_preload", "hm_0"),
        ("preload_nomig_prn_0", "preload_nomig_prn_0_preload", "prn_0"),
        ("preload_nomig_web_0", "preload_nomig_web_0_preload", "web_0"),
        ("preload_nomig_src1_2", "preload_nomig_src1_2_preload", "src1_2"),
    ];
    for (spread, preloaded, w) in nomig {
        v.set(spread, change(one(rows, w, Scheme::PacpNoMig, Scheme::Baseline, READ)));
        v.set(preloaded, change(one(rows, w, Scheme::PacpNoMigPreload, Scheme::Baseline, READ)));
    }
    v.set("preload_summary", preload_summary(rows));
}

/// What the preload changed, over the stand-ins at the figures' drive: where the reads were
/// served, PACP without migration against the baseline and Ideal, and Lv given the same
/// preload.
fn preload_summary(rows: &[Row]) -> String {
    let ch = grid().figure_channels;
    let ws = workloads_in(rows, true);
    let mean_of = |s: Scheme, f: &dyn Fn(&Row) -> Option<f64>| {
        let v: Vec<f64> = ws.iter().filter_map(|w| f(pick(rows, w, s, ch)?)).collect();
        (!v.is_empty()).then(|| mean(&v))
    };
    let on_read = |s| opt_pct(mean_of(s, &|r| r.reads_on_read));
    let geo = |a, b| per_workload(rows, true, a, b, READ);
    format!(
        "Over the stand-ins at {ch} channels, {} of the host's page reads are served on a channel labelled Read with the preload, against {} spread (PACP without migration, mean). PACP without migration reads {} against the baseline preloaded and {} spread (geometric mean), where Ideal reads {}. Lv et al., given the same preload, reads {} against itself spread; PACP against Lv, both preloaded: {}.",
        on_read(Scheme::PacpNoMigPreload),
        on_read(Scheme::PacpNoMig),
        change(geo(Scheme::PacpNoMigPreload, Scheme::Baseline)),
        change(geo(Scheme::PacpNoMig, Scheme::Baseline)),
        change(geo(Scheme::Ideal, Scheme::Baseline)),
        change(geo(Scheme::LvPreload, Scheme::Lv)),
        change(geo(Scheme::PacpPreload, Scheme::LvPreload)),
    ) + "\n"
}

/// The preload table's rows: each workload's read latency against the baseline at the
/// figures' channel count, with the shares of reads and writes on Read channels.
fn preload_rows(rows: &[Row]) -> String {
    let fig_channels = grid().figure_channels;
    let mut m = String::new();
    for w in all_workloads(rows) {
        let cell = |s| {
            let Some(r) = pick(rows, w, s, fig_channels) else { return "–".to_string() };
            let v = change(vs_baseline(rows, w, s, fig_channels, READ));
            match (r.reads_on_read, r.writes_on_read) {
                (Some(a), Some(b)) => format!("{v} ({} / {})", pct(a), pct(b)),
                _ => v,
            }
        };
        let cells = [
            Scheme::Ideal,
            Scheme::Lv,
            Scheme::LvPreload,
            Scheme::PacpNoMig,
            Scheme::PacpNoMigPreload,
            Scheme::Pacp,
            Scheme::PacpPreload,
        ]
        .map(cell);
        let _ = writeln!(m, "| {w} | {} |", cells.join(" | "));
    }
    m
}

/// The page-history fit to the shipped excerpts (the table, the persistence the stand-ins
/// use, the excerpts' dominant shares and TRH accuracies) and what it sets TRH accuracy at.
fn page_histories(v: &mut Values, fits: Option<&Fits>) {
    let rho = persistence(fits);
    let right = mixed_right(rho);
    v.set("mixed_right", pct(right));
    v.set("accuracy_expected", pct(1.0 - MIXED_SHARE * (1.0 - right)));
    let Some(f) = fits else {
        v.set("page_fit", "Not fitted in this run: the shipped MSR excerpts were not found under `--traces`, so the stand-ins draw each request's type independently (ρ = 0).\n");
        v.set("persistence", "Without a fit the stand-ins draw each request's type independently (ρ = 0).");
        v.set("order_note", "requests are drawn independently of each other (no fit in this run)");
        return;
    };
    let m = &f.pooled.long_mixed;
    let (classed, all) = f.pooled.dominant_shares();
    let acc: Vec<String> = f
        .per_trace
        .iter()
        .chain([&f.pooled])
        .map(|t| {
            let a = |b: usize| opt_pct(t.tally.trh[b].accuracy());
            format!("{} {} / {} / {}", t.traces.join("+"), a(0), a(1), a(2))
        })
        .collect();
    let fit_md = format!(
        "{}\nOn the mixed pages with at least {} accesses, pooled over the excerpts, consecutive accesses to a page repeat their type {} of the time, against {} for independent draws with their read share ({}): the fitted persistence is ρ = {rho:.3} (raw {:.3}), and the stand-ins' mixed region uses it (`type_persistence`). The excerpts put {} of the accesses of pages accessed at least twice on dominant pages ({} counting the pages accessed once), against the paper's 91.6% over its nine traces. A history predictor replayed on the excerpts (majority of the last 1 / 2 / 3 types, a tie counted half right) scores {}.\n",
        fit::markdown(f),
        fit::LONG_MIXED,
        pct(m.repeat_share),
        pct(m.independent_repeat_share),
        pct(m.read_share),
        m.raw_rho,
        pct(classed),
        pct(all),
        acc.join("; "),
    );
    v.set("page_fit", fit_md);
    let persistence = if rho == 0.0 {
        "The excerpts show no persistence beyond independent draws (ρ = 0), so the stand-ins' mixed pages are drawn independently, as the excerpts' are.".to_string()
    } else {
        format!("The stand-ins' mixed pages repeat their type with the excerpts' fitted persistence ρ = {rho:.3}.")
    };
    v.set("persistence", persistence);
    let order = if rho == 0.0 {
        "requests are drawn independently, as the excerpts' fit (ρ = 0) supports, so a page's history says nothing beyond its region's mix".to_string()
    } else {
        format!("mixed pages' requests repeat their type with the fitted persistence ρ = {rho:.3}")
    };
    v.set("order_note", order);
}

/// Where this run and the paper differ: the values of the template's last section (the
/// bullet on the excerpts has its own, [`excerpts_bullet`]).
fn differences(v: &mut Values, rows: &[Row]) {
    interference_bullet(v, rows);
    migration_bullet(v, rows);
    split_bullet(v, rows);
    load_bullet(v, rows);
    write_bullet(v, rows);
}

/// PACP without migration against Ideal per stand-in, and the fresh drive (no GC) beside the
/// aged one.
fn interference_bullet(v: &mut Values, rows: &[Row]) {
    let ch = grid().figure_channels;
    let ws = workloads_in(rows, true);
    let below = ws
        .iter()
        .filter(|w| {
            pick(rows, w, Scheme::PacpNoMig, ch)
                .zip(pick(rows, w, Scheme::Ideal, ch))
                .is_some_and(|(n, i)| n.read_us < i.read_us)
        })
        .count();
    v.set(
        "nomig_heading",
        format!("PACP without migration reads faster than Ideal on {below} of {} stand-ins", ws.len()),
    );
    let fresh = RunOf { drive: Drive::Fresh, ..MAIN };
    let geo = |s, run| {
        let r: Vec<f64> = ws
            .iter()
            .filter_map(|w| {
                Some(pick_run(rows, w, s, ch, run)?.read_us / pick_run(rows, w, Scheme::Baseline, ch, run)?.read_us)
            })
            .collect();
        (!r.is_empty()).then(|| geomean(&r))
    };
    let fresh_gc: u64 = rows.iter().filter(|r| r.run == fresh && r.channels == ch).map(|r| r.gc_invocations).sum();
    let contrast = match geo(Scheme::PacpNoMig, fresh) {
        None => String::new(),
        Some(n) => format!(
            " On the fresh drive at {ch} channels, where GC ran {fresh_gc} times in all its runs, PACP without migration reads {} against the baseline and Ideal {} (geometric means over the stand-ins); on the aged drive {} and {}.",
            change(Some(n)),
            change(geo(Scheme::Ideal, fresh)),
            change(geo(Scheme::PacpNoMig, MAIN)),
            change(geo(Scheme::Ideal, MAIN)),
        ),
    };
    v.set("fresh_contrast", contrast);
    interference_detail(v, rows);
}

/// Per stand-in: Ideal and PACP without migration against the baseline, PACP's Read channels
/// at the end, and GC programs under both.
fn interference_detail(v: &mut Values, rows: &[Row]) {
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
    v.set("interference", per.join("; "));
}

/// Migration shares (large where few pages are programmed), and where migration cost most.
fn migration_bullet(v: &mut Values, rows: &[Row]) {
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
    v.set("migration", per.join("; "));
    let more_gc: Vec<String> = workloads_in(rows, true)
        .iter()
        .filter_map(|w| {
            let (b, p) = (pick(rows, w, Scheme::Baseline, fig_channels)?, pick(rows, w, Scheme::Pacp, fig_channels)?);
            (p.gc_invocations > b.gc_invocations)
                .then(|| format!("{w} ({} against {})", p.gc_invocations, b.gc_invocations))
        })
        .collect();
    let more = if more_gc.is_empty() {
        "PACP invokes GC no more often than the baseline on any stand-in.".to_string()
    } else {
        format!("PACP invokes GC more often than the baseline on {}: its Write channels take writes the baseline spreads over every channel.", more_gc.join(", "))
    };
    v.set("migration_gc", more);
    // The stand-in and channel count where migration raised PACP's read latency most: a
    // sentence only when there is one.
    let worst = rows
        .iter()
        .filter(|r| r.synthetic && r.scheme == Scheme::Pacp && r.trh_bits == 1 && r.run == MAIN)
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
    v.set("migration_worst", worst);
}

/// How far PACP's split moved, against its start and Lv's.
fn split_bullet(v: &mut Values, rows: &[Row]) {
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
    v.set("split", per.join("; "));
    // The run whose relabels most exceed the net move, the split stepping back and forth: a
    // sentence only when there is one.
    let swing = rows
        .iter()
        .filter(|r| r.synthetic && r.scheme == Scheme::Pacp && r.trh_bits == 1 && r.run == MAIN)
        .map(|r| (r, r.relabels.saturating_sub(r.read_channels_end.unwrap_or(0).abs_diff(r.channels / 2) as u64)))
        .max_by_key(|(_, extra)| *extra)
        .filter(|(_, extra)| *extra > 0)
        .map_or(String::new(), |(r, _)| {
            let net = r.read_channels_end.unwrap_or(0).abs_diff(r.channels / 2);
            format!(" The split settles at its target and may step around it: {} at {} channels relabelled {} times for a net move of {net}.", r.workload, r.channels, r.relabels)
        });
    v.set("split_swing", swing);
}

/// The fixed rate loads the drive less as channels grow.
fn load_bullet(v: &mut Values, rows: &[Row]) {
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
    v.set("load", per.join("; "));
    let chans = channels_in(rows);
    let busy = |c| mean_over(rows, true, Scheme::Baseline, c, |r| r.chip_util).unwrap_or(0.0);
    let heading = match (chans.first(), chans.last()) {
        (Some(&a), Some(&b)) if a != b => {
            format!(
                "The baseline's chips are busy {} of the time at {a} channels and {} at {b}.",
                pct(busy(a)),
                pct(busy(b))
            )
        }
        _ => "The baseline's chips' load:".to_string(),
    };
    v.set("load_heading", heading);
}

/// Write latency and GC under each scheme.
fn write_bullet(v: &mut Values, rows: &[Row]) {
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
    v.set("writes", per.join("; "));
    let gc = |s| {
        mean(
            &channels_in(rows)
                .iter()
                .filter_map(|&c| mean_over(rows, true, s, c, |r| r.gc_programs as f64))
                .collect::<Vec<_>>(),
        )
    };
    v.set("gc_programs_baseline", format!("{:.0}", gc(Scheme::Baseline)));
    v.set("gc_programs_lv", format!("{:.0}", gc(Scheme::Lv)));
    v.set("gc_programs_pacp", format!("{:.0}", gc(Scheme::Pacp)));
    let more = if gc(Scheme::Pacp) > gc(Scheme::Baseline) { "more" } else { "no more" };
    v.set("gc_more", more);
}

/// The MSR excerpts are too short for the split or GC to matter; their bursts carry the
/// means (the run has excerpts).
fn excerpts_bullet(v: &mut Values, rows: &[Row]) {
    let fig_channels = grid().figure_channels;
    let msr = workloads_in(rows, false);
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
    v.set("excerpts", per.join("; "));
    let gc_ran = rows.iter().any(|r| !r.synthetic && r.gc_invocations > 0);
    let gc =
        if gc_ran { "with little GC there is little to migrate" } else { "GC never runs in them, so nothing migrates" };
    v.set("excerpts_gc", gc);
    let vs_lv: Vec<String> = channels_in(rows)
        .iter()
        .map(|&c| {
            let r = mean_over(rows, false, Scheme::Pacp, c, READ).zip(mean_over(rows, false, Scheme::Lv, c, READ));
            format!("{c} ch {}", change(r.map(|(p, l)| p / l)))
        })
        .collect();
    v.set("excerpts_vs_lv", vs_lv.join(", "));
    // The excerpt slowest on the baseline at the fewest channels: a sentence only when there
    // is one.
    let slowest = channels_in(rows).first().and_then(|&c| {
        msr.iter().filter_map(|w| pick(rows, w, Scheme::Baseline, c)).max_by(|a, b| a.read_us.total_cmp(&b.read_us))
    });
    let slowest = slowest.map_or(String::new(), |r| {
        format!(
            " The slowest, {} on {} channels, reads in {:.0} µs on the baseline: its bursts queue.",
            r.workload, r.channels, r.read_us
        )
    });
    v.set("excerpts_slowest", slowest);
}
