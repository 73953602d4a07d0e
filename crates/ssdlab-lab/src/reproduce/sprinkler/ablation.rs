//! The ablation table of `reproduce sprinkler` (issue 33): each scheduler's mechanisms —
//! PAS (physical addresses), SPK1 (FARO), SPK2 (RIOS), SPK3 (both) — on every main workload
//! at 64 chips, under the preset's multi-plane address rule (`independent`, [P §4]) and under
//! the same-page rule ([`ABLATION_ADDRESSING`]), each against VAS under the same rule.

use super::report::{pct, pick, reduction_vs_vas, workload_names};
use super::*;
use crate::reproduce::claims::geomean_interval;
use crate::reproduce::template::Values;

/// The two address rules: (label, experiment holding its runs at 64 chips).
const RULES: [(&str, &str); 2] = [("independent", "workloads"), (ABLATION_ADDRESSING, "ablation")];

/// What each scheduler adds, for the table's second column.
fn mechanisms(scheduler: &str) -> &'static str {
    match scheduler {
        "vas" => "none (virtual addresses, device-queue order)",
        "pas" => "physical addresses, device-queue order",
        "spk1" => "FARO",
        "spk2" => "RIOS",
        _ => "RIOS + FARO",
    }
}

/// Per workload that ran `a` and `b` under `exp` at 64 chips: `a`'s bandwidth / `b`'s.
fn ratios(rows: &[Row], exp: &str, a: &str, b: &str) -> Vec<f64> {
    let mut out = Vec::new();
    for w in workload_names(rows, exp, 64) {
        if let (Some(x), Some(y)) = (pick(rows, exp, &w, a, 64), pick(rows, exp, &w, b, 64)) {
            if x.bandwidth_mb_s > 0.0 && y.bandwidth_mb_s > 0.0 {
                out.push(x.bandwidth_mb_s / y.bandwidth_mb_s);
            }
        }
    }
    out
}

/// A geometric mean of ratios with its 95% interval, as "1.23× (1.10–1.38)".
fn geomean_text(ratios: &[f64]) -> String {
    match geomean_interval(ratios) {
        None => "–".into(),
        Some((g, None)) => format!("{g:.2}×"),
        Some((g, Some((lo, hi)))) => format!("{g:.2}× ({lo:.2}–{hi:.2})"),
    }
}

/// The mean of `f` over the runs of scheduler `s` under `exp` at 64 chips.
fn mean_of(rows: &[Row], exp: &str, s: &str, f: &dyn Fn(&Row) -> Option<f64>) -> String {
    let xs: Vec<f64> =
        rows.iter().filter(|r| r.experiment == exp && r.chips == 64 && r.scheduler == s).filter_map(f).collect();
    if xs.is_empty() {
        "–".into()
    } else {
        pct(mean(&xs))
    }
}

/// The table's rows: per scheduler, each measure under both rules side by side.
fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    for sched in SCHEDULERS {
        let mut cells: Vec<String> = vec![sched.to_uppercase(), mechanisms(sched).to_string()];
        let measures: [&dyn Fn(&str) -> String; 4] = [
            &|exp| geomean_text(&ratios(rows, exp, sched, "vas")),
            &|exp| mean_of(rows, exp, sched, &|r| reduction_vs_vas(rows, r)),
            &|exp| mean_of(rows, exp, sched, &|r| Some(r.flp_pages[2] + r.flp_pages[3])),
            &|exp| mean_of(rows, exp, sched, &|r| Some(r.intra_chip_idleness)),
        ];
        for m in measures {
            cells.extend(RULES.iter().map(|(_, exp)| m(exp)));
        }
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s
}

/// How many of the workloads under `exp` have `a` strictly above `b` in bandwidth.
fn above(rows: &[Row], exp: &str, a: &str, b: &str) -> String {
    let r = ratios(rows, exp, a, b);
    format!("{} of {}", r.iter().filter(|&&x| x > 1.0).count(), r.len())
}

/// The ablation's values: `ablation_rows` (the table) and the sentences' figures.
pub(super) fn ablation(v: &mut Values, rows: &[Row]) {
    v.set("ablation_rows", table(rows));
    let [(_, ind), (_, same)] = RULES;
    v.set("ablation_rule", ABLATION_ADDRESSING);
    v.set("faro_ind", geomean_text(&ratios(rows, ind, "spk3", "spk2")));
    v.set("faro_same", geomean_text(&ratios(rows, same, "spk3", "spk2")));
    v.set("faro_ind_above", above(rows, ind, "spk3", "spk2"));
    v.set("faro_same_above", above(rows, same, "spk3", "spk2"));
    v.set("rios_ind", geomean_text(&ratios(rows, ind, "spk3", "spk1")));
    v.set("rios_same", geomean_text(&ratios(rows, same, "spk3", "spk1")));
    v.set("rule_spk3", geomean_text(&paired(rows, "spk3")));
    v.set("rule_vas", geomean_text(&paired(rows, "vas")));
    why_faro(v, rows);
}

/// Why FARO adds little: how many pages the main workloads' requests have (a request holds
/// two pages of one chip only when it has more pages than the drive has chips, under a
/// channel-first static allocation), and what FARO changes in the commands RIOS builds.
fn why_faro(v: &mut Values, rows: &[Row]) {
    let runs = || rows.iter().filter(|r| r.experiment == "workloads" && r.chips == 64 && r.scheduler == "spk2");
    let per_request: Vec<f64> =
        runs().filter(|r| r.requests > 0).map(|r| r.page_ops as f64 / r.requests as f64).collect();
    let largest = per_request.iter().copied().fold(0.0, f64::max);
    v.set("pages_per_request", if per_request.is_empty() { "–".into() } else { format!("{:.1}", mean(&per_request)) });
    v.set("pages_per_request_max", format!("{largest:.1}"));
    let multi = |s: &str| mean_of(rows, "workloads", s, &|r| Some(r.flp_pages[2] + r.flp_pages[3]));
    v.set("multi_spk2", multi("spk2"));
    v.set("multi_spk3", multi("spk3"));
    let saved = |s: &str| mean_of(rows, "workloads", s, &|r| reduction_vs_vas(rows, r));
    v.set("saved_spk2", saved("spk2"));
    v.set("saved_spk3", saved("spk3"));
}

/// Per workload: `s`'s bandwidth under the preset's rule / under the ablation's rule.
fn paired(rows: &[Row], s: &str) -> Vec<f64> {
    let mut out = Vec::new();
    for w in workload_names(rows, "ablation", 64) {
        if let (Some(x), Some(y)) = (pick(rows, "workloads", &w, s, 64), pick(rows, "ablation", &w, s, 64)) {
            if x.bandwidth_mb_s > 0.0 && y.bandwidth_mb_s > 0.0 {
                out.push(x.bandwidth_mb_s / y.bandwidth_mb_s);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two workloads under both rules, bandwidth (MB/s) VAS / PAS / SPK1 / SPK2 / SPK3:
    /// independent — a: 10 / 20 / 20 / 40 / 80, b: 10 / 10 / 10 / 40 / 20;
    /// same page — a: 10 / 20 / 20 / 40 / 40, b: 10 / 10 / 10 / 20 / 20.
    /// FARO over RIOS (SPK3 / SPK2): independent 2 and 0.5, geometric mean 1.00×, above on
    /// 1 of 2; same page 1 and 1, 1.00× with a zero-width interval, above on 0 of 2.
    /// RIOS over FARO (SPK3 / SPK1): independent 4 and 2 → √8 = 2.83×; same page 2 and 2.
    /// The rule (independent / same page): SPK3 2 and 1 → √2 = 1.41×; VAS 1 and 1.
    /// Transactions: SPK3 60 and 80 against VAS's 100 → 40% and 20% saved, mean 30.0%;
    /// SPK2's 100 against 100 saves nothing.
    #[test]
    fn the_ablation_sets_each_mechanism_against_its_partner_under_both_rules() {
        let bw = [
            ("workloads", "a", [10.0, 20.0, 20.0, 40.0, 80.0]),
            ("workloads", "b", [10.0, 10.0, 10.0, 40.0, 20.0]),
            ("ablation", "a", [10.0, 20.0, 20.0, 40.0, 40.0]),
            ("ablation", "b", [10.0, 10.0, 10.0, 20.0, 20.0]),
        ];
        let mut rows = Vec::new();
        for (exp, w, bws) in bw {
            for (s, b) in SCHEDULERS.iter().zip(bws) {
                let tx = match (*s, w) {
                    ("spk3", "a") => 60,
                    ("spk3", _) => 80,
                    _ => 100,
                };
                let variant = if exp == "ablation" { ABLATION_ADDRESSING.to_string() } else { String::new() };
                rows.push(Row {
                    experiment: exp,
                    workload: w.into(),
                    variant,
                    ..crate::reproduce::sprinkler::tests::row(s, b, 0.0, tx)
                });
            }
        }
        let mut v = Values::new();
        ablation(&mut v, &rows);
        let t = "{{faro_ind}} {{faro_ind_above}} | {{faro_same}} {{faro_same_above}} | {{rios_ind}} | {{rios_same}} | {{rule_spk3}} | {{rule_vas}} | {{ablation_rule}}\n{{pages_per_request}} {{pages_per_request_max}} {{multi_spk2}} {{multi_spk3}} {{saved_spk2}} {{saved_spk3}}\n{{ablation_rows}}\n";
        let md = crate::reproduce::template::render("t", t, &v);
        let first = md.lines().next().unwrap();
        assert!(first.starts_with("1.00× ("), "{first}");
        assert!(first.contains(") 1 of 2 | 1.00× (1.00–1.00) 0 of 2 | 2.83× ("), "{first}");
        assert!(first.contains(" | 2.00× (2.00–2.00) | 1.41× ("), "{first}");
        assert!(first.ends_with(" | 1.00× (1.00–1.00) | same_page"), "{first}");
        // SPK2's 100 page operations in one request on each workload; no multi-plane pages.
        assert_eq!(md.lines().nth(1), Some("100.0 100.0 0.0% 0.0% 0.0% 30.0%"));
        let spk3 = md.lines().find(|l| l.starts_with("| SPK3 | RIOS + FARO |")).unwrap();
        assert!(spk3.contains("| 30.0% | "), "{spk3}");
    }
}
