//! REPORT.md and the figures of `reproduce flin`: tables, groups and prose.

use super::*;

pub(super) fn figures(out: &Path, rows: &[Row], policies: &[&str]) -> Vec<String> {
    let mut done = Vec::new();
    let mixes: Vec<String> = {
        let mut m: Vec<String> = Vec::new();
        for r in rows.iter().filter(|r| r.experiment == "mix") {
            if !m.contains(&r.mix) {
                m.push(r.mix.clone());
            }
        }
        m
    };
    let mut bar = |file: &str, title: &str, y: &str, exp: &str, cats: &[String], f: &dyn Fn(&Row) -> f64| {
        let series: Vec<(String, Vec<f64>)> = policies
            .iter()
            .map(|p| {
                let v = cats
                    .iter()
                    .map(|c| rows.iter().find(|r| r.experiment == exp && r.mix == *c && r.policy == *p).map_or(0.0, f))
                    .collect();
                (p.to_string(), v)
            })
            .collect();
        if plot::bars(&out.join(file), title, y, cats, &series).is_ok() {
            done.push(file.to_string());
        }
    };
    bar("fairness.png", "Fairness per mix (min / max slowdown)", "fairness", "mix", &mixes, &|r| r.fairness);
    bar("weighted_speedup.png", "Weighted speedup per mix", "weighted speedup", "mix", &mixes, &|r| r.weighted_speedup);
    bar("max_slowdown.png", "Maximum slowdown per mix", "max slowdown", "mix", &mixes, &|r| r.max_slowdown);
    let chars: Vec<String> =
        ["intensity", "access_pattern", "read_write_ratio", "gc_demand"].iter().map(|s| s.to_string()).collect();
    bar(
        "characterization_unfairness.png",
        "Unfairness per source of interference",
        "unfairness (max/min slowdown)",
        "characterization",
        &chars,
        &|r| r.unfairness,
    );
    group_figures(out, rows, policies, &mut done);
    done
}

/// Mean fairness and weighted speedup per group of mixes (main setting).
pub(super) fn group_figures(out: &Path, rows: &[Row], policies: &[&str], done: &mut Vec<String>) {
    let groups: Vec<String> = (0..=4).map(|k| format!("{}% high", k * 25)).collect();
    let group_mean = |f: &dyn Fn(&Row) -> f64| {
        policies
            .iter()
            .map(|p| {
                let v = (0..=4u32)
                    .map(|k| {
                        let xs: Vec<f64> = rows
                            .iter()
                            .filter(|r| r.experiment == "mix" && r.policy == *p && r.high_flows == k)
                            .map(f)
                            .collect();
                        mean(&xs)
                    })
                    .collect();
                (p.to_string(), v)
            })
            .collect::<Vec<(String, Vec<f64>)>>()
    };
    for (file, title, y, f) in [
        (
            "fairness_by_group.png",
            "Mean fairness per group (main setting)",
            "fairness",
            &(|r: &Row| r.fairness) as &dyn Fn(&Row) -> f64,
        ),
        (
            "weighted_speedup_by_group.png",
            "Mean weighted speedup per group (main setting)",
            "weighted speedup",
            &|r: &Row| r.weighted_speedup,
        ),
    ] {
        if plot::bars(&out.join(file), title, y, &groups, &group_mean(f)).is_ok() {
            done.push(file.to_string());
        }
    }
}

pub(super) fn report_md(
    opts: &Options,
    rows: &[Row],
    pool: &[PoolFlow],
    policies: &[&str],
    figures: &[String],
    wall_s: f64,
) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# FLIN (ISCA 2018) reproduced with ssdlab\n");
    let _ = writeln!(
        m,
        "Mode: **{}** ({} cases, {:.0} s wall on {} threads). Drive: `{PRESET_NAME}`. Every flow issues requests for {} ms of simulated time in its own NVMe submission queue; each is also run alone (same config, seed, preconditioning) for its slowdown = mean response time shared / alone. Fairness = min / max slowdown, unfairness = its inverse, weighted speedup = Σ alone / shared. Figures: {}.\n",
        if opts.quick { "quick" } else { "full" },
        rows.len(),
        wall_s,
        opts.threads,
        if opts.quick { 100 } else { 400 },
        figures.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
    );
    report_pacing(&mut m, pool);
    report_characterization(&mut m, rows);
    let _ = writeln!(m, "\n## Mixes of four flows, open loop at a feasible load (the main setting)\n");
    report_groups(&mut m, rows, "mix", policies);
    report_summary(&mut m, rows, "mix", policies);
    report_claims(&mut m, rows);
    report_same_requests(&mut m, rows, "mix");
    report_sensitivity(&mut m, rows);
    report_every_mix(&mut m, rows);
    m += ANALYSIS;
    m
}

/// The sensitivity sections: overloaded, light, closed loop, strict hazards.
pub(super) fn report_sensitivity(m: &mut String, rows: &[Row]) {
    let g = grid();
    let low_fraction = g.low_fraction;
    let overloaded_high = g.overloaded_high;
    let _ = writeln!(
        m,
        "\n## Sensitivity: the same mixes open loop, overloaded\n\n\
         Every flow paced to {overloaded_high} (high-interference) or {} (low), the pacing this reproduction \
         first used as its main setting: the groups offer {} of the drive, so from two high-interference flows \
         on, queues grow for the whole run and slowdowns depend on its length.\n",
        overloaded_high * low_fraction,
        group_loads(Load::Overloaded)
    );
    report_groups(m, rows, "mix_overloaded", &POLICIES[..3]);
    report_summary(m, rows, "mix_overloaded", &POLICIES[..3]);
    report_same_requests(m, rows, "mix_overloaded");
    let (h, l) = Load::Light.intensities();
    let _ = writeln!(
        m,
        "\n## Sensitivity: the same mixes open loop at half the main load\n\n\
         Every speedup and rate of the main setting halved (high-interference flows {h:.3}, low-interference \
         {l:.3}): the groups offer {} of the drive.\n",
        group_loads(Load::Light)
    );
    report_groups(m, rows, "mix_light", &POLICIES[..3]);
    report_summary(m, rows, "mix_light", &POLICIES[..3]);
    report_same_requests(m, rows, "mix_light");
    let _ = writeln!(
        m,
        "\n## Sensitivity: the same mixes closed loop\n\n\
         Every flow keeps a fixed number of requests outstanding (high-interference flows 32 or 64, \
         low-interference 1 or 2; traces loop, in trace order, times ignored). A flow's pace then follows the \
         drive, so it issues more requests alone than shared, and a saturating flow's slowdown is bounded by \
         its queue depth.\n"
    );
    report_groups(m, rows, "mix_closed", &POLICIES[..3]);
    report_summary(m, rows, "mix_closed", &POLICIES[..3]);
    report_same_requests(m, rows, "mix_closed");
    if rows.iter().any(|r| r.experiment == "mix_strict") {
        let _ = writeln!(
            m,
            "\n## Sensitivity: the main setting's mixes with `hil.hazards = \"strict\"`\n\n\
             The preset follows MQSim, whose host interface does not order overlapping requests. Here the \
             drive orders them (read-after-write, write-after-read, write-after-write all wait):\n"
        );
        report_groups(m, rows, "mix_strict", &POLICIES[..3]);
        report_summary(m, rows, "mix_strict", &POLICIES[..3]);
    }
}

/// What each group of mixes offers the drive at `load`: k = 0..=4 high-interference flows.
pub(super) fn group_loads(load: Load) -> String {
    let g = grid();
    let flows_per_mix = g.flows_per_mix;
    let max_high_per_mix = g.max_high_per_mix;
    let loads = (0..=max_high_per_mix).map(|k| intensity::mix_load(flows_per_mix, k, load.intensities()));
    loads.map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(", ")
}

/// How each flow of the pool is paced: the load rule, the intensity rule and its result per
/// flow, and the α unit.
pub(super) fn report_pacing(m: &mut String, pool: &[PoolFlow]) {
    let g = grid();
    let feasible_load = g.feasible_load;
    let low_fraction = g.low_fraction;
    let flows_per_mix = g.flows_per_mix;
    let max_high_per_mix = g.max_high_per_mix;
    let (h, l) = Load::Feasible.intensities();
    let (oh, ol) = Load::Overloaded.intensities();
    let _ = writeln!(
        m,
        "## How the flows are paced\n\n\
         **Load rule (main setting): the heaviest mix offers at most {feasible_load} of the drive.** A mix \
         whose flows together ask for more flash time than the drive has is one no scheduler can serve: \
         queues grow for the whole run, slowdowns grow with the run's length, and fairness there measures the \
         run, not the scheduler. The paper's mixes are runs its drive serves. With up to {max_high_per_mix} \
         high-interference flows in a mix of {flows_per_mix} and a low-interference flow at {low_fraction} of \
         a high one, a high-interference flow alone gets intensity **{h:.3}** and a low one **{l:.4}**; the \
         groups of 0 to {max_high_per_mix} high-interference flows offer {} of the drive. {feasible_load} \
         rather than nearer 1 because the estimate under-counts (see below); it was fixed before any run. \
         Sensitivity runs: *overloaded*, {oh} per high-interference flow and {ol} per low one (this \
         reproduction's earlier main setting; groups offer {}), and *light*, half the main intensities \
         (groups offer {}).\n",
        group_loads(Load::Feasible),
        group_loads(Load::Overloaded),
        group_loads(Load::Light)
    );
    let _ = writeln!(
        m,
        "Open loop, a trace flow is replayed at its timestamps divided by a speedup, and \
         **loops** (`loop = true`): when the excerpt ends it starts again, pass k shifted by k × (the trace's \
         span + its mean inter-arrival gap), so it issues requests for the whole run, and the same ones alone \
         and shared. A synthetic flow arrives at a Poisson rate (fixed seed per flow). Each flow's speedup or \
         rate is set by one rule, so that the flow alone has its class's **intensity**: the busier of the \
         drive's two flash resources as a fraction of what the drive has, counting every page a request touches \
         as a single-plane command (chips: tR or tPROG + one page on the bus, over 32 chips; channels: one page \
         on the bus, over 8 channels), over one loop period. The rules are in \
         `crates/ssdlab-lab/src/reproduce/flin/intensity.rs`; the numbers below are computed from the traces and \
         the preset each run.\n"
    );
    let _ = writeln!(
        m,
        "| flow | class | main: open loop | overloaded: open loop | closed loop: outstanding |\n|---|---|---|---|---|"
    );
    for f in pool {
        let (t, to) = (Load::Feasible.target(f.high), Load::Overloaded.target(f.high));
        let (main, over) = match f.pace {
            Pace::Trace { at_one } => (
                format!("timestamps × {:.4} (intensity {at_one:.4} at × 1)", t / at_one),
                format!("timestamps × {:.4}", to / at_one),
            ),
            Pace::Synthetic { iops_per_unit: r } => {
                (format!("Poisson, {:.0} requests/s", t * r), format!("Poisson, {:.0} requests/s", to * r))
            }
        };
        let class = if f.high { "high" } else { "low" };
        let _ = writeln!(m, "| {} | {class} | {main} | {over} | {} |", f.name, f.closed.queue_depth.unwrap_or(32));
    }
    let _ = writeln!(
        m,
        "\nFLIN's α thresholds (`tsu.flin.alpha_read_bytes` = 32 MiB, `alpha_write_bytes` = 256 KiB) are read \
         as the authors' code reads them: **bytes per 10 ms epoch for the whole drive**, divided over the 32 \
         chips and into 8 KiB pages: a flow is low-intensity on a chip if it enqueued fewer than 128 reads \
         (1 write) there in the epoch, i.e. below 12,800 reads/s (100 writes/s) per chip, 409,600 reads/s \
         (3,200 writes/s) for the drive.\n"
    );
}

/// Means per group of mixes with k high-interference flows, per policy.
pub(super) fn report_groups(m: &mut String, rows: &[Row], experiment: &str, policies: &[&str]) {
    let _ = writeln!(
        m,
        "Per group of mixes by how many of the four flows are high-interference (the paper's 0–100 % groups). \
         *Drain*: how long the shared run went on after the flows stopped issuing requests, the backlog left \
         then; a mix the drive serves drains in a few ms, an overloaded one's drain grows with the run; \
         *alone*: the longest drain of the mix's flows each run alone.\n"
    );
    let _ = writeln!(
        m,
        "| high-interference flows | policy | mean fairness | mean weighted speedup | mean max slowdown | worst slowdown | mean drain shared / alone (ms) |\n|---|---|---|---|---|---|---|"
    );
    for k in 0..=4 {
        for &p in policies {
            let r: Vec<&Row> =
                rows.iter().filter(|r| r.experiment == experiment && r.policy == p && r.high_flows == k).collect();
            let col = |f: &dyn Fn(&Row) -> f64| mean(&r.iter().map(|r| f(r)).collect::<Vec<_>>());
            let _ = writeln!(
                m,
                "| {k} ({}%) | {p} | {:.3} | {:.3} | {:.2} | {:.2} | {:.1} / {:.1} |",
                k * 25,
                col(&|r| r.fairness),
                col(&|r| r.weighted_speedup),
                col(&|r| r.max_slowdown),
                r.iter().map(|r| r.max_slowdown).fold(0.0, f64::max),
                col(&|r| r.drain_ms),
                col(&|r| r.alone_drain_ms)
            );
        }
    }
}

/// The mean of `f` over the mixes of `experiment` run under policy `p`.
pub(super) fn mix_mean(rows: &[Row], experiment: &str, p: &str, f: &dyn Fn(&Row) -> f64) -> f64 {
    let xs: Vec<f64> = rows.iter().filter(|r| r.experiment == experiment && r.policy == p).map(f).collect();
    mean(&xs)
}

/// The largest slowdown of any flow in the mixes of `experiment` run under policy `p`.
pub(super) fn mix_worst(rows: &[Row], experiment: &str, p: &str) -> f64 {
    rows.iter().filter(|r| r.experiment == experiment && r.policy == p).map(|r| r.max_slowdown).fold(0.0, f64::max)
}

/// The summary over all mixes of `experiment`, per policy.
pub(super) fn report_summary(m: &mut String, rows: &[Row], experiment: &str, policies: &[&str]) {
    let avg = |p: &str, f: &dyn Fn(&Row) -> f64| mix_mean(rows, experiment, p, f);
    let _ = writeln!(m, "\nOver all mixes:\n");
    let _ = writeln!(m, "| policy | mean fairness | mean weighted speedup | mean max slowdown | worst slowdown | mean IOPS |\n|---|---|---|---|---|---|");
    for &p in policies {
        let _ = writeln!(
            m,
            "| {p} | {:.3} | {:.3} | {:.2} | {:.2} | {:.0} |",
            avg(p, &|r| r.fairness),
            avg(p, &|r| r.weighted_speedup),
            avg(p, &|r| r.max_slowdown),
            mix_worst(rows, experiment, p),
            avg(p, &|r| r.iops)
        );
    }
}

/// The paper's claims against ssdlab's means over the main setting's mixes.
pub(super) fn report_claims(m: &mut String, rows: &[Row]) {
    let avg = |p: &str, f: &dyn Fn(&Row) -> f64| mix_mean(rows, "mix", p, f);
    let worst = |p: &str| mix_worst(rows, "mix", p);
    let (ff, fs) = (avg("flin", &|r| r.fairness), avg("sprinkler_fairness", &|r| r.fairness));
    let (wf, ws) = (avg("flin", &|r| r.weighted_speedup), avg("sprinkler_fairness", &|r| r.weighted_speedup));
    let _ = writeln!(m, "\n| claim | paper | ssdlab (main setting) |\n|---|---|---|");
    let _ = writeln!(m, "| FLIN fairness vs Sprinkler+Fairness | +70% | {:+.1}% |", (ff / fs - 1.0) * 100.0);
    let _ = writeln!(m, "| FLIN weighted speedup vs Sprinkler+Fairness | +47% | {:+.1}% |", (wf / ws - 1.0) * 100.0);
    let _ = writeln!(
        m,
        "| worst slowdown | FLIN < 80×; Sprinkler-based > 500× | FLIN {:.1}×; Sprinkler {:.1}×; Sprinkler+Fairness {:.1}× |",
        worst("flin"),
        worst("sprinkler"),
        worst("sprinkler_fairness")
    );
    let _ = writeln!(
        m,
        "| throughput | equal to the state of the art | FLIN {:.0} IOPS, Sprinkler {:.0} IOPS, Sprinkler+Fairness {:.0} IOPS (mean over mixes) |",
        avg("flin", &|r| r.iops),
        avg("sprinkler", &|r| r.iops),
        avg("sprinkler_fairness", &|r| r.iops)
    );
}

/// How many flows of `experiment` completed as many requests shared as alone.
pub(super) fn report_same_requests(m: &mut String, rows: &[Row], experiment: &str) {
    let r = rows.iter().filter(|r| r.experiment == experiment);
    let (same, all) = r.fold((0, 0), |(s, a), r| (s + r.same_requests, a + r.slowdowns.len()));
    let _ = writeln!(m, "\nFlows that completed the same number of requests shared as alone: **{same} of {all}**.\n");
}

/// Every mix of the main setting under every policy.
pub(super) fn report_every_mix(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "\n## Every mix of the main setting\n");
    let _ = writeln!(m, "| mix | high-interference flows | policy | fairness | weighted speedup | max slowdown | most slowed-down flow | IOPS | drain shared / alone (ms) |\n|---|---|---|---|---|---|---|---|---|");
    for r in rows.iter().filter(|r| r.experiment == "mix") {
        let worst = (0..r.slowdowns.len()).max_by(|&a, &b| r.slowdowns[a].total_cmp(&r.slowdowns[b]));
        let _ = writeln!(
            m,
            "| {} | {} | {} | {:.3} | {:.3} | {:.2} | {} | {:.0} | {:.1} / {:.1} |",
            r.mix,
            r.high_flows,
            r.policy,
            r.fairness,
            r.weighted_speedup,
            r.max_slowdown,
            worst.map_or("", |k| r.flow_names[k].as_str()),
            r.iops,
            r.drain_ms,
            r.alone_drain_ms
        );
    }
}

/// The characterization experiments' slowdowns per policy.
pub(super) fn report_characterization(m: &mut String, rows: &[Row]) {
    let _ = writeln!(m, "## Characterization: one source of interference at a time\n");
    let _ = writeln!(
        m,
        "Two flows each, slowdowns in flow order. *intensity*: 4 KiB random reads at queue depth 64 against 2. \
         *access_pattern*: 256 KiB reads (one page on every chip, 2 outstanding) against 4 KiB reads that all land \
         on chip 0 (16 outstanding). *read_write_ratio*: 4 KiB random writes against reads, 16 outstanding each. \
         *gc_demand*: random writes against a 90 %-read flow on a drive 90 % full, GC running.\n"
    );
    let _ = writeln!(m, "| experiment | policy | slowdowns | unfairness | weighted speedup |\n|---|---|---|---|---|");
    for r in rows.iter().filter(|r| r.experiment == "characterization") {
        let _ = writeln!(
            m,
            "| {} | {} | {} | {:.2} | {:.3} |",
            r.mix,
            r.policy,
            r.slowdowns.iter().map(|s| format!("{s:.2}")).collect::<Vec<_>>().join(", "),
            r.unfairness,
            r.weighted_speedup
        );
    }
}

pub(super) const ANALYSIS: &str = r#"
## How this differs from the paper's setup, and what the numbers mean

- **Workloads.** The paper mixes 40 four-flow workloads from full MSR, UMass, TPC and
  Exchange traces replayed on MQSim. ssdlab ships short excerpts (0.14 s to 260 s of trace
  time, 7,000 to 25,000 requests), so mixes draw from them and from synthetic flows. Every
  trace flow loops, so it issues requests for the whole run; the main table above counts
  the flows that completed the same number of requests shared as alone (all of them:
  arrivals do not depend on the drive). Closed loop none do: a flow's pace follows the drive.
- **Groups.** The mixes are grouped by how many of their four flows are high-interference,
  0 to 4 (0–100 %), eight mixes per group in full mode. The seed copy of the paper (talk
  slides) shows no figure captions; the grouping follows docs/techniques.md §1.8, which marks it
  as recollection to verify against the paper's figures.
- **Why a load rule.** The paper's mixes are runs its drive serves. A mix that asks for more
  flash time than the drive has is served by no scheduler: queues grow for the whole run and
  slowdowns grow with its length, so fairness there measures the run, not the scheduler.
  This reproduction first paced every high-interference flow to 0.5 of the drive alone (the
  *overloaded* sensitivity table): mixes of two or more of them offered 1.1 to 2.0 drives,
  and FLIN's worst slowdown was 750 × in the quick run's 100 ms and 5,028 × in the full run's
  400 ms. The main setting now sizes the flows so that the heaviest mix (four
  high-interference flows) offers 0.8 of the drive by the intensity estimate; the 0.8 and
  the low flows' tenth were fixed before any run, not fitted.
- **The estimate under-counts, so the 75 % and 100 % groups still overload.** The intensity
  estimate is a mean over each trace's loop period with pages spread evenly over 32 chips.
  The excerpts are bursty (wsrch-hi's 10 ms windows range from 0.08 to 0.29 of the drive
  around its mean of 0.2; msr-rw20-hi alone leaves a backlog of 35 ms at the end of the quick
  run), sub-page writes
  need a read-modify-write, and pages do not fall evenly on chips. Mixes holding wsrch-hi or
  read-hog with two other high-interference flows then overload in practice: their drain
  (the tables' last column) is far above their flows' drains alone, and their worst
  slowdowns grow with the run. One such mix (fin1-hi, msr-rw20-hi, write-hog, wsrch-hi;
  FLIN), run with `ssdlab run --fairness` for 100, 400 and 800 ms: wsrch-hi's slowdown is
  27.5 ×, 968 × and 2,864 ×, and over the 400 ms run the chips were busy for 0.93 of the
  time arrivals lasted, against the estimate's 0.8. So the per-group tables are the
  result; the means over all groups, and the worst slowdowns, mix feasible groups with
  groups that are not, and the full run's worst slowdowns are set by the run length.
- **Where the drive keeps up (0–50 % groups in the full run; the 50 % group already drains
  for about 25 ms against its flows' 3 ms alone)** FLIN is the fairest of the
  five policies and has the highest weighted speedup but for MQSim's `ooo` in the 50 %
  group; its mean max slowdown stays below 4 ×, against Sprinkler's 3–16 × and
  Sprinkler+Fairness's 3–35 ×. In the overloaded 75 % and 100 % groups every policy's
  fairness falls to 0.03–0.12; FLIN's and `ooo`'s worst slowdowns are the smallest there,
  but not bounded: the paper's FLIN worst flow below 80 × holds in the quick run's 100 ms
  and not in the full run's 400 ms (the claims table).
- **Sprinkler+Fairness** is WA-BC (Jun & Shin, NVMSA 2015) as FLIN describes it, built from
  the abstract (`crates/ssdlab/src/hil/wa_bc.rs`): per-flow budgets of device time, GC cost
  charged in proportion to a flow's writes; blocks are not segregated per flow. Open loop it
  does worse than plain Sprinkler: a budget that throttles a flow does not slow that flow's
  arrivals, so its requests wait in the host instead. Closed loop, throttling slows the flow
  itself, and WA-BC is then fairer than Sprinkler (the closed-loop table).
- **Sprinkler against the reference schedulers.** MQSim's `ooo` TSU (reads first) with the
  `direct` device queue is close to FLIN open loop, while Sprinkler (SPK3 over the same `ooo`
  TSU) is not, already in the 0 % group: the device-level scheduler, not the TSU, makes the
  difference there.
- **FLIN** follows docs/techniques.md §1 with the authors' code defaults (epoch 10 ms, α as
  stated at the top, fairness threshold 0.6); the slowdown estimates leave out the running
  command's remaining time (it shifts every candidate equally). `crates/ssdlab/src/tsu/flin/`
  documents each stage. With α_write = 256 KiB per epoch for the drive, every flow that writes
  more than 3,200 pages/s is high-intensity for writes; α_read classes almost every flow as
  low-intensity for reads unless it alone saturates a chip.
- **Overlapping requests: the drive does not order them (as in MQSim).** The preset takes
  `hil.hazards = "none"`: MQSim's host interface splits each command into transactions as it
  arrives without an overlap check, and NVMe leaves ordering to the host. The last
  sensitivity table runs the main setting with `strict`: FLIN still leads, by less. In the earlier closed-loop-only
  reproduction, `strict` let `msr-rw20-hi`, whose excerpt rewrites a few hot 8 KiB pages with
  sub-page writes, form chains of dependent writes at queue depth 32 that FLIN's stage 3 (a
  write waits until its proportional wait matches a read's, about tPROG / tR ≈ 10 × longer)
  slowed several times per link.
- **No GC in the mixes.** The mixes run on an empty drive for 400 ms, so GC does not start
  and the fourth source of interference appears only in the *gc_demand* characterization
  (drive 90 % full, closed loop).
"#;

/// The done-when check: over the main setting's mixes, mean fairness, mean weighted speedup, mean
/// and worst max slowdown for FLIN and the two Sprinkler baselines, and FLIN's change against
/// Sprinkler+Fairness.
pub fn check_table(rows: &[Row]) -> String {
    let stat = |p: &str| {
        let avg = |f: &dyn Fn(&Row) -> f64| mix_mean(rows, "mix", p, f);
        (avg(&|r| r.fairness), avg(&|r| r.weighted_speedup), avg(&|r| r.max_slowdown), mix_worst(rows, "mix", p))
    };
    let mut s = String::from(
        "| policy (main: open loop, feasible load) | mean fairness | mean weighted speedup | mean max slowdown | worst slowdown |\n|---|---|---|---|---|\n",
    );
    for p in ["flin", "sprinkler_fairness", "sprinkler"] {
        let (f, w, x, worst) = stat(p);
        let _ = writeln!(s, "| {p} | {f:.3} | {w:.3} | {x:.2} | {worst:.2} |");
    }
    let ((ff, wf, xf, _), (fs, ws, xs, _)) = (stat("flin"), stat("sprinkler_fairness"));
    let _ = writeln!(
        s,
        "| FLIN vs Sprinkler+Fairness | {:+.1}% | {:+.1}% | {:+.1}% | |",
        (ff / fs - 1.0) * 100.0,
        (wf / ws - 1.0) * 100.0,
        (xf / xs - 1.0) * 100.0
    );
    s
}
