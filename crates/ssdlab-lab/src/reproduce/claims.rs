//! The claims ledger (issue 33 item 5): every headline claim of a paper beside the value the
//! reproduction measured, with a verdict computed by one rule for all five papers.
//!
//! Each reproduction writes its claims to `OUT/claims.json` ([`write`]); `ssdlab ledger DIR...`
//! reads them and writes one Markdown ledger ([`ledger_md`]), `docs/reproductions/claims.md`
//! from the full runs. Nothing in the ledger is typed by hand: the values are the runs', and a
//! claim's cause, where the paper's code states one, is computed from the run's counters.
//!
//! The verdict ([`Verdict::of`]):
//! - a **change** (a relative difference, sign = direction; a ratio is turned into one, ratio − 1)
//!   is *reproduced* when it has the paper's sign and lies within [`TOLERANCE`] of the paper's
//!   magnitude, *direction only* when it has the sign but not the magnitude, *opposite* when its
//!   sign differs (a change within ±[`FLAT`] counts as no change: it matches a paper's "about
//!   equal" and is opposite to any other);
//! - a **level** (a share, an accuracy: no direction) is *reproduced* within [`TOLERANCE`] of
//!   the paper's value, else *differs*;
//! - a claim the run did not measure (no such rows: a quick run, a missing workload) is *not
//!   measured*.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::io_err;
use ssdlab::error::{Error, Result};

/// How far from the paper's magnitude a value may be and still count as reproduced: 25% of
/// it (the rule).
pub const TOLERANCE: f64 = 0.25;

/// A change smaller than this (±1%) is "no change".
pub const FLAT: f64 = 0.01;

/// What kind of number a claim is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A relative change, as a fraction (−0.486 for −48.6%).
    Change,
    /// A ratio (2.17 for 2.17×); its direction is against 1.
    Ratio,
    /// A level with no direction (a share, an accuracy), as a fraction.
    Level,
    /// An amount in the claim's `unit` (GB/s, KIOPS), with no direction.
    Amount,
}

/// How the paper states its value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// A value ("−48.61%").
    Value,
    /// At least this much, in its direction ("< −15%" for a change, "≥ 94%" for a level).
    AtLeast,
    /// At most this much ("≤ 2.7%").
    AtMost,
    /// Somewhere between two values ("−32.9% to −50.1%"); `paper_value` is their middle.
    Range {
        lo: f64,
        hi: f64,
    },
    /// Only an order: above `paper_value` ("gains from more cores": a ratio above 1×), or
    /// below it. Reproduced on the right side, opposite otherwise.
    Above,
    Below,
}

/// One headline claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// The paper's short name ("SPD").
    pub paper: String,
    /// What is claimed, with the figure or section ("write latency with GC, SPD vs Baseline-D (s.26)").
    pub claim: String,
    pub kind: Kind,
    /// The paper's value.
    pub paper_value: f64,
    pub bound: Bound,
    /// This run's main-row value; None when the run did not measure it.
    pub measured: Option<f64>,
    /// A 95% interval of `measured` over seeds or workloads, where the run has one.
    pub interval: Option<(f64, f64)>,
    /// What the value is over ("geometric mean over 5 traces").
    pub over: String,
    /// The unit of an [`Kind::Amount`].
    #[serde(default)]
    pub unit: String,
    /// One line on why it differs, computed from the run's counters, where the paper's code
    /// gives one.
    pub cause: Option<String>,
}

impl Claim {
    /// `paper`'s claim, not measured yet: the paper's side and what the value will be over.
    pub fn new(
        paper: &str,
        claim: impl Into<String>,
        kind: Kind,
        paper_value: f64,
        bound: Bound,
        over: impl Into<String>,
    ) -> Claim {
        Claim {
            paper: paper.into(),
            claim: claim.into(),
            kind,
            paper_value,
            bound,
            measured: None,
            interval: None,
            over: over.into(),
            unit: String::new(),
            cause: None,
        }
    }
}

/// Give each claim that is measured but not reproduced its measured cause, `cause(claim)`
/// (the paper's ledger computes it from the run's counters; None leaves it empty).
pub fn explain(claims: &mut [Claim], cause: impl Fn(&Claim) -> Option<String>) {
    for c in claims {
        if !matches!(Verdict::of(c), Verdict::Reproduced | Verdict::NotMeasured) {
            c.cause = cause(c);
        }
    }
}

/// A claim's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Reproduced,
    DirectionOnly,
    Opposite,
    Differs,
    NotMeasured,
}

impl Verdict {
    pub const ALL: [Verdict; 5] =
        [Verdict::Reproduced, Verdict::DirectionOnly, Verdict::Opposite, Verdict::Differs, Verdict::NotMeasured];

    /// The verdict on `c` (the rule in the module's doc).
    pub fn of(c: &Claim) -> Verdict {
        let Some(m) = c.measured else { return Verdict::NotMeasured };
        // An order holds only beyond the flat band around the reference.
        let band = FLAT * c.paper_value.abs().max(f64::MIN_POSITIVE);
        match c.bound {
            Bound::Above if m > c.paper_value + band => return Verdict::Reproduced,
            Bound::Below if m < c.paper_value - band => return Verdict::Reproduced,
            Bound::Above | Bound::Below => return Verdict::Opposite,
            _ => {}
        }
        let shift = if c.kind == Kind::Ratio { 1.0 } else { 0.0 };
        let (p, m) = (c.paper_value - shift, m - shift);
        let close = match c.bound {
            Bound::Value => (m - p).abs() <= TOLERANCE * p.abs(),
            Bound::AtLeast => m.abs() >= (1.0 - TOLERANCE) * p.abs(),
            Bound::AtMost => m.abs() <= (1.0 + TOLERANCE) * p.abs(),
            Bound::Range { lo, hi } => {
                let (lo, hi) = (lo.min(hi) - shift, lo.max(hi) - shift);
                (lo - TOLERANCE * p.abs()..=hi + TOLERANCE * p.abs()).contains(&m)
            }
            Bound::Above | Bound::Below => unreachable!("decided above"),
        };
        if matches!(c.kind, Kind::Level | Kind::Amount) {
            return if close { Verdict::Reproduced } else { Verdict::Differs };
        }
        let sign = |x: f64| if x.abs() < FLAT { 0 } else { x.signum() as i32 };
        // "About equal" has no magnitude to match: a flat value reproduces it.
        let close = close || sign(p) == 0;
        match (sign(p) == sign(m), close) {
            (true, true) => Verdict::Reproduced,
            (true, false) => Verdict::DirectionOnly,
            (false, _) => Verdict::Opposite,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::DirectionOnly => "direction only",
            Verdict::Opposite => "opposite",
            Verdict::Differs => "differs",
            Verdict::NotMeasured => "not measured",
        }
    }
}

/// `x` of `c`'s kind as the ledger prints it.
fn show(c: &Claim, x: f64) -> String {
    match c.kind {
        Kind::Change => format!("{:+.1}%", x * 100.0),
        Kind::Ratio => format!("{x:.2}×"),
        Kind::Level => format!("{:.1}%", x * 100.0),
        Kind::Amount => format!("{x:.2} {}", c.unit),
    }
}

/// The paper's value as it states it.
fn show_paper(c: &Claim) -> String {
    let v = show(c, c.paper_value);
    let below = c.kind == Kind::Change && c.paper_value < 0.0 || c.kind == Kind::Ratio && c.paper_value < 1.0;
    match c.bound {
        Bound::Value => v,
        Bound::AtLeast if below => format!("≤ {v}"),
        Bound::AtLeast => format!("≥ {v}"),
        Bound::AtMost => format!("≤ {v}"),
        Bound::Range { lo, hi } => format!("{} to {}", show(c, lo), show(c, hi)),
        Bound::Above => format!("> {v}"),
        Bound::Below => format!("< {v}"),
    }
}

/// Student's t quantile for a two-sided 95% interval with `df` degrees of freedom (1.96
/// beyond 30).
fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    T.get(df.wrapping_sub(1)).copied().unwrap_or(1.96)
}

/// The mean of `xs` with its 95% t interval; None for no values, no interval for one.
pub fn mean_interval(xs: &[f64]) -> Option<(f64, Option<(f64, f64)>)> {
    let n = xs.len();
    if n == 0 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Some((mean, None));
    }
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let half = t95(n - 1) * sd / (n as f64).sqrt();
    Some((mean, Some((mean - half, mean + half))))
}

/// The geometric mean of positive ratios with its 95% interval (a t interval on their logs);
/// None for no ratios, no interval for one.
pub fn geomean_interval(ratios: &[f64]) -> Option<(f64, Option<(f64, f64)>)> {
    assert!(ratios.iter().all(|&r| r > 0.0), "ratios must be positive: {ratios:?}");
    let n = ratios.len();
    if n == 0 {
        return None;
    }
    let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
    let mean = logs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Some((mean.exp(), None));
    }
    let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let half = t95(n - 1) * sd / (n as f64).sqrt();
    Some((mean.exp(), Some(((mean - half).exp(), (mean + half).exp()))))
}

/// The ratio of two means over paired values, Σx / Σy (a report's "mean under A over mean
/// under B" over the same workloads), with its 95% interval: the linearised (delta-method)
/// interval, a t interval ([`mean_interval`]) on the residuals x − R·y divided by the mean of
/// y. None without pairs or when the y sum to 0; no interval for one pair.
pub fn ratio_interval(pairs: &[(f64, f64)]) -> Option<(f64, Option<(f64, f64)>)> {
    let n = pairs.len() as f64;
    let y = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    if pairs.is_empty() || y == 0.0 {
        return None;
    }
    let r = pairs.iter().map(|p| p.0).sum::<f64>() / n / y;
    let residuals: Vec<f64> = pairs.iter().map(|(a, b)| a - r * b).collect();
    let (_, i) = mean_interval(&residuals)?;
    Some((r, i.map(|(lo, hi)| (r + lo / y, r + hi / y))))
}

/// The reproduction's claims into `out/claims.json`.
pub fn write(out: &Path, claims: &[Claim]) -> Result<()> {
    let path = out.join("claims.json");
    let text = serde_json::to_string_pretty(claims).expect("claims serialise");
    crate::sweep::write_atomic(&path, text.as_bytes())
}

/// The claims a reproduction wrote into `dir`.
pub fn read(dir: &Path) -> Result<Vec<Claim>> {
    let path = dir.join("claims.json");
    let text = std::fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
    serde_json::from_str(&text).map_err(|e| {
        let why = format!("not a reproduction's claims.json: {e}");
        Error::config(&path.display().to_string(), e.line(), "claims", &why)
    })
}

/// The ledger: the verdict counts, then one table row per claim, papers in the order given.
pub fn ledger_md(claims: &[Claim]) -> String {
    let mut m = String::from("# Claims ledger\n\n");
    let _ = writeln!(
        m,
        "Every headline claim of the reproduced papers beside ssdlab's main-row value, generated by `ssdlab ledger` from the reproductions' `claims.json` (crates/ssdlab-lab/src/reproduce/claims.rs). A change is *reproduced* with the paper's sign and within {:.0}% of its magnitude, *direction only* with the sign alone, *opposite* otherwise (changes within ±{:.0}% count as none); a level is *reproduced* within {:.0}% of the paper's value, else it *differs*.\n",
        TOLERANCE * 100.0,
        FLAT * 100.0,
        TOLERANCE * 100.0
    );
    let mut papers: Vec<(&str, usize)> = Vec::new();
    for c in claims {
        match papers.iter_mut().find(|(p, _)| *p == c.paper) {
            Some((_, n)) => *n += 1,
            None => papers.push((&c.paper, 1)),
        }
    }
    let listed: Vec<String> = papers.iter().map(|(p, n)| format!("{p} ({n})")).collect();
    let _ = writeln!(m, "Claims from: {}.\n", listed.join(", "));
    m.push_str("| verdict | claims |\n|---|---|\n");
    for v in Verdict::ALL {
        let n = claims.iter().filter(|c| Verdict::of(c) == v).count();
        let _ = writeln!(m, "| {} | {n} |", v.name());
    }
    let _ = writeln!(m, "| all | {} |\n", claims.len());
    m.push_str("| paper | claim | paper's value | ssdlab | 95% interval | over | verdict | cause |\n");
    m.push_str("|---|---|---|---|---|---|---|---|\n");
    for c in claims {
        let measured = c.measured.map_or("–".into(), |x| show(c, x));
        let interval = c.interval.map_or("–".into(), |(lo, hi)| format!("{} … {}", show(c, lo), show(c, hi)));
        let cause = c.cause.as_deref().unwrap_or("–");
        let _ = writeln!(
            m,
            "| {} | {} | {} | {measured} | {interval} | {} | {} | {cause} |",
            c.paper,
            c.claim,
            show_paper(c),
            c.over,
            Verdict::of(c).name()
        );
    }
    m
}

/// `ssdlab ledger`: the claims of each reproduction folder in `dirs`, as one ledger in `out`.
pub fn ledger(dirs: &[std::path::PathBuf], out: &Path) -> Result<usize> {
    let mut all = Vec::new();
    for d in dirs {
        all.extend(read(d)?);
    }
    crate::sweep::write_atomic(out, ledger_md(&all).as_bytes())?;
    Ok(all.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(kind: Kind, paper_value: f64, measured: Option<f64>) -> Claim {
        Claim {
            paper: "P".into(),
            claim: "c".into(),
            kind,
            paper_value,
            bound: Bound::Value,
            measured,
            interval: None,
            over: "5 traces".into(),
            unit: String::new(),
            cause: None,
        }
    }

    /// The rule by hand. Paper −48.6%: −40% is within 25% of 48.6 (12.15 points: −36.45% to
    /// −60.75%), −30% has the sign only, +5% is opposite. A 2.0× ratio is +100%: 1.80× (+80%)
    /// is reproduced, 1.70× (+70%) direction only, 0.995× (−0.5%, flat) opposite. Paper "about
    /// equal" (0): a flat −0.5% reproduces it, −3% is opposite. Level 96.4%: 95.8% reproduces
    /// it, 3.74% against 0.2% differs.
    #[test]
    fn verdicts_follow_the_rule() {
        use Verdict::*;
        let cases = [
            (claim(Kind::Change, -0.486, Some(-0.40)), Reproduced),
            (claim(Kind::Change, -0.486, Some(-0.30)), DirectionOnly),
            (claim(Kind::Change, -0.486, Some(0.05)), Opposite),
            (claim(Kind::Ratio, 2.0, Some(1.80)), Reproduced),
            (claim(Kind::Ratio, 2.0, Some(1.70)), DirectionOnly),
            (claim(Kind::Ratio, 2.0, Some(0.995)), Opposite),
            (claim(Kind::Change, 0.0, Some(-0.005)), Reproduced),
            (claim(Kind::Change, 0.0, Some(-0.03)), Opposite),
            (claim(Kind::Level, 0.964, Some(0.958)), Reproduced),
            (claim(Kind::Level, 0.002, Some(0.0374)), Differs),
            (claim(Kind::Change, -0.1, None), NotMeasured),
        ];
        for (c, want) in cases {
            assert_eq!(Verdict::of(&c), want, "{c:?}");
        }
    }

    /// Two claims give counts 1 reproduced, 1 not measured, and rows in order.
    #[test]
    fn the_ledger_counts_verdicts_and_lists_each_claim() {
        let claims = [claim(Kind::Change, -0.486, Some(-0.40)), claim(Kind::Ratio, 2.0, None)];
        let md = ledger_md(&claims);
        assert!(md.contains("Claims from: P (2).\n"), "{md}");
        assert!(md.contains("| reproduced | 1 |\n| direction only | 0 |\n"), "{md}");
        assert!(md.contains("| not measured | 1 |\n| all | 2 |\n"), "{md}");
        assert!(md.contains("| P | c | -48.6% | -40.0% | – | 5 traces | reproduced | – |\n"), "{md}");
        assert!(md.contains("| P | c | 2.00× | – | – | 5 traces | not measured | – |\n"), "{md}");
    }

    /// Bounds by hand. "≤ −15%": −39% and −12% (within 25% of 15) reproduce it, −10% has the
    /// direction only. "≤ 2.7%" (a level): 3.3% reproduces it (under 3.375%), 3.74% differs.
    /// "−32.9% to −50.1%" (middle −41.5%, widened by 10.4 points): −50.0% and −60% reproduce it,
    /// −15% has the direction only.
    #[test]
    fn bounds_widen_by_the_tolerance() {
        use Verdict::*;
        let with = |kind, p, bound, m| Claim { bound, ..claim(kind, p, Some(m)) };
        let range = Bound::Range { lo: -0.329, hi: -0.501 };
        let cases = [
            (with(Kind::Change, -0.15, Bound::AtLeast, -0.39), Reproduced),
            (with(Kind::Change, -0.15, Bound::AtLeast, -0.12), Reproduced),
            (with(Kind::Change, -0.15, Bound::AtLeast, -0.10), DirectionOnly),
            (with(Kind::Level, 0.027, Bound::AtMost, 0.033), Reproduced),
            (with(Kind::Level, 0.027, Bound::AtMost, 0.0374), Differs),
            (with(Kind::Change, -0.415, range, -0.50), Reproduced),
            (with(Kind::Change, -0.415, range, -0.60), Reproduced),
            (with(Kind::Change, -0.415, range, -0.15), DirectionOnly),
        ];
        for (c, want) in &cases {
            assert_eq!(Verdict::of(c), *want, "{c:?}");
        }
        assert_eq!(show_paper(&cases[0].0), "≤ -15.0%");
        let gains = with(Kind::Ratio, 1.0, Bound::Above, 1.11);
        assert_eq!((Verdict::of(&gains), show_paper(&gains)), (Reproduced, "> 1.00×".into()));
        assert_eq!(Verdict::of(&with(Kind::Ratio, 1.0, Bound::Above, 0.98)), Opposite);
        assert_eq!(Verdict::of(&with(Kind::Ratio, 1.0, Bound::Below, 0.995)), Opposite, "within the flat band");
        let amount = Claim { unit: "GB/s".into(), ..with(Kind::Amount, 5.5, Bound::Value, 9.4) };
        assert_eq!((Verdict::of(&amount), show_paper(&amount)), (Differs, "5.50 GB/s".into()));
        assert_eq!(show_paper(&cases[5].0), "-32.9% to -50.1%");
    }

    /// Ratios 0.5, 0.5, 2, 2 (logs ±ln 2): geometric mean 1; sd of the logs ln 2 × √(4/3),
    /// t(3) = 3.182, half-width 3.182 × 0.8004 / 2 = 1.2734 → interval e^∓1.2734 = 0.280 … 3.573.
    #[test]
    fn the_interval_is_a_t_interval_on_the_logs() {
        let (g, i) = geomean_interval(&[0.5, 0.5, 2.0, 2.0]).unwrap();
        let (lo, hi) = i.unwrap();
        assert!((g - 1.0).abs() < 1e-12);
        assert!((lo - 0.2799).abs() < 1e-3 && (hi - 3.5730).abs() < 1e-3, "{lo} {hi}");
        assert_eq!(geomean_interval(&[1.5]), Some((1.5, None)));
        assert_eq!(geomean_interval(&[]), None);
    }

    /// 1, 2, 3: mean 2, sd 1, t(2) = 4.303, half-width 4.303 / √3 = 2.484.
    #[test]
    fn the_mean_interval_is_a_t_interval() {
        let (m, i) = mean_interval(&[1.0, 2.0, 3.0]).unwrap();
        let (lo, hi) = i.unwrap();
        assert!((m - 2.0).abs() < 1e-12 && (lo + 0.4843).abs() < 1e-3 && (hi - 4.4843).abs() < 1e-3, "{lo} {hi}");
    }

    /// Pairs (0.5, 0.4), (0.6, 0.4), (0.7, 0.4): R = 0.6 / 0.4 = 1.5; residuals −0.1, 0, 0.1
    /// (sd 0.1), t(2) = 4.303, half-width 4.303 × 0.1 / √3 = 0.2484, over the mean of y 0.4:
    /// 0.6211, so 0.879 … 2.121 (the t interval of the ratios 1.25, 1.5, 1.75, as y is
    /// constant).
    #[test]
    fn the_ratio_interval_is_linearised_on_the_residuals() {
        let (r, i) = ratio_interval(&[(0.5, 0.4), (0.6, 0.4), (0.7, 0.4)]).unwrap();
        let (lo, hi) = i.unwrap();
        assert!((r - 1.5).abs() < 1e-12 && (lo - 0.8789).abs() < 1e-3 && (hi - 2.1211).abs() < 1e-3, "{lo} {hi}");
        assert_eq!(ratio_interval(&[(3.0, 2.0)]), Some((1.5, None)));
        assert_eq!(ratio_interval(&[]), None);
        assert_eq!(ratio_interval(&[(1.0, 0.0)]), None);
    }

    /// What `write` stores, `read` gives back.
    #[test]
    fn claims_round_trip_through_their_file() {
        let dir = std::env::temp_dir().join(format!("ssdlab-claims-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let claims = vec![claim(Kind::Level, 0.964, Some(0.958))];
        write(&dir, &claims).unwrap();
        assert_eq!(read(&dir).unwrap(), claims);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
