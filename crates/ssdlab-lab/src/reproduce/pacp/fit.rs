//! The run-length model of page histories, fitted to the shipped MSR excerpts (issue 33 item
//! 4; docs/techniques.md §10.10 item 6): what the synthetic flows' `type_persistence` ρ must
//! be for PACP's transaction history (TRH, §3.1) to meet pages like the traces' own.
//!
//! Each request is split into logical pages of the drive's page size; each page's accesses
//! (read or write, trims left out) are kept in request order. Pages with at least two accesses
//! are classed as the paper's §3 does [P]: read-dominant when more than 90% of them read,
//! write-dominant when more than 90% write, mixed otherwise. Per class k: its share of those
//! pages' accesses, its read share r_k (over accesses), the share s_k of consecutive
//! accesses of one page that have the same type, and ρ_k = (s_k − q_k) / (1 − q_k) with
//! q_k = r_k² + (1 − r_k)², the repeat share if types were drawn independently with r_k —
//! the ρ for which a `type_persistence` flow with `read_ratio` r_k repeats with s_k
//! (docs/workload.md). ρ_k is clamped to [0, [`RHO_MAX`]], and is 0 (irrelevant) for a class
//! whose pages are all of one type.
//!
//! Two biases a reader should know [I]: the classes are chosen by the very accesses whose
//! pairs are counted (a page of two accesses is mixed exactly when they differ), so s_k is
//! high for the dominant classes and low for the mixed one (the mixed pages of at least
//! [`LONG_MIXED`] accesses are fitted again without the two-access ones); and pooling pages
//! of different read shares in one class makes q_k lower than the pages' own, so ρ_k reads
//! that spread as persistence (it overstates ρ, never understates it).
//!
//! Also scored, per trace: the TRH predictor of 1, 2 and 3 bits (majority of the page's last
//! N types, as `ssdlab::ftl::alloc::pacp::Trh`), over every access of a page that has a
//! history. A tie (an even depth) is counted half right: the drive breaks it by the page's
//! channel, which a trace alone does not know.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use ssdlab::error::Result;

/// A page is dominant when more than this share of its accesses are of one type [P §3].
pub const DOMINANT_SHARE: f64 = 0.9;

/// The most persistence a fit gives [I]: ρ = 1 would freeze each page's first type, and the
/// engine rejects it.
pub const RHO_MAX: f64 = 0.99;

/// The TRH depths scored (Figure 6's).
pub const TRH_BITS: [u8; 3] = [1, 2, 3];

/// One page access, in request order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub page: u64,
    pub read: bool,
}

/// A page's class by its read share (pages with at least two accesses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageClass {
    ReadDominant,
    Mixed,
    WriteDominant,
}

impl PageClass {
    pub const ALL: [PageClass; 3] = [PageClass::ReadDominant, PageClass::Mixed, PageClass::WriteDominant];

    /// The class of a page with `reads` of its `accesses`; None with fewer than two.
    /// Integer comparisons: exactly 90% reads is mixed, as "more than 90%" says.
    pub fn of(reads: u64, accesses: u64) -> Option<PageClass> {
        let tenths = (DOMINANT_SHARE * 10.0).round() as u64;
        match accesses {
            0 | 1 => None,
            _ if reads * 10 > accesses * tenths => Some(PageClass::ReadDominant),
            _ if (accesses - reads) * 10 > accesses * tenths => Some(PageClass::WriteDominant),
            _ => Some(PageClass::Mixed),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PageClass::ReadDominant => "read-dominant",
            PageClass::Mixed => "mixed",
            PageClass::WriteDominant => "write-dominant",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// What one class's pages hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassCounts {
    pub pages: u64,
    pub accesses: u64,
    pub reads: u64,
    /// Consecutive accesses of one page (accesses − 1 per page), and those of one type.
    pub pairs: u64,
    pub repeats: u64,
}

impl ClassCounts {
    fn add(&mut self, o: &ClassCounts) {
        self.pages += o.pages;
        self.accesses += o.accesses;
        self.reads += o.reads;
        self.pairs += o.pairs;
        self.repeats += o.repeats;
    }
}

/// The TRH predictor's score at one depth.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrhScore {
    /// Accesses of a page with a history.
    pub predicted: u64,
    /// Predicted right (ties aside), and ties.
    pub correct: u64,
    pub ties: u64,
}

impl TrhScore {
    /// Share predicted right, a tie counting half (None with nothing predicted).
    pub fn accuracy(&self) -> Option<f64> {
        (self.predicted > 0).then(|| (self.correct as f64 + self.ties as f64 / 2.0) / self.predicted as f64)
    }

    fn add(&mut self, o: &TrhScore) {
        self.predicted += o.predicted;
        self.correct += o.correct;
        self.ties += o.ties;
    }
}

/// Counts over a list of accesses: per class ([`PageClass::ALL`]'s order), the mixed pages
/// of at least [`LONG_MIXED`] accesses again, the pages accessed once, and the TRH scores
/// ([`TRH_BITS`]'s order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub classes: [ClassCounts; 3],
    pub long_mixed: ClassCounts,
    pub single_pages: u64,
    pub trh: [TrhScore; 3],
}

/// The mixed pages fitted again without those of fewer accesses [I]: a page of two accesses
/// is mixed exactly when they differ, so those pages add pairs that never repeat, by the
/// definition of the class alone.
pub const LONG_MIXED: u64 = 3;

/// One page while tallying: its counts and its last three types (bit 0 the latest, 1 read).
#[derive(Debug, Clone, Copy, Default)]
struct PageState {
    accesses: u64,
    reads: u64,
    repeats: u64,
    recent: u8,
}

impl PageState {
    /// Score the prediction of `depth` bits for an access reading if `read`.
    fn score(&self, depth: u8, read: bool, s: &mut TrhScore) {
        let n = self.accesses.min(depth as u64) as u32;
        if n == 0 {
            return;
        }
        let reads = (self.recent & ((1u8 << n) - 1)).count_ones();
        s.predicted += 1;
        match (2 * reads).cmp(&n) {
            std::cmp::Ordering::Equal => s.ties += 1,
            std::cmp::Ordering::Greater => s.correct += u64::from(read),
            std::cmp::Ordering::Less => s.correct += u64::from(!read),
        }
    }

    fn record(&mut self, read: bool) {
        if self.accesses > 0 && (self.recent & 1 == 1) == read {
            self.repeats += 1;
        }
        self.accesses += 1;
        self.reads += u64::from(read);
        self.recent = (self.recent << 1 | u8::from(read)) & 0b111;
    }
}

impl Tally {
    /// The tally of `accesses`, in their order. (A map by page; only integer sums leave it,
    /// so its order cannot reach the result.)
    pub fn of(accesses: &[Access]) -> Tally {
        let mut pages: HashMap<u64, PageState> = HashMap::new();
        let mut t = Tally::default();
        for a in accesses {
            let p = pages.entry(a.page).or_default();
            for (depth, score) in TRH_BITS.iter().zip(t.trh.iter_mut()) {
                p.score(*depth, a.read, score);
            }
            p.record(a.read);
        }
        for p in pages.values() {
            let Some(class) = PageClass::of(p.reads, p.accesses) else {
                t.single_pages += 1;
                continue;
            };
            let counts = ClassCounts {
                pages: 1,
                accesses: p.accesses,
                reads: p.reads,
                pairs: p.accesses - 1,
                repeats: p.repeats,
            };
            t.classes[class.index()].add(&counts);
            if class == PageClass::Mixed && p.accesses >= LONG_MIXED {
                t.long_mixed.add(&counts);
            }
        }
        t
    }

    /// Pool `o` into this tally (its pages are other pages).
    pub fn add(&mut self, o: &Tally) {
        self.classes.iter_mut().zip(&o.classes).for_each(|(a, b)| a.add(b));
        self.long_mixed.add(&o.long_mixed);
        self.single_pages += o.single_pages;
        self.trh.iter_mut().zip(&o.trh).for_each(|(a, b)| a.add(b));
    }
}

/// Why a class's ρ is not its raw estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FitNote {
    /// No page in the class.
    Empty,
    /// Every access of the class has one type (q = 1): ρ does not matter, 0 given.
    OneType,
    /// s below q (fewer repeats than independent draws): clamped to 0.
    ClampedLow,
    /// Above [`RHO_MAX`]: clamped to it.
    ClampedHigh,
}

impl FitNote {
    pub fn text(self) -> &'static str {
        match self {
            FitNote::Empty => "no page in the class",
            FitNote::OneType => "every access of one type (q = 1): ρ does not matter, 0 given",
            FitNote::ClampedLow => "fewer repeats than independent types would give (s < q): ρ clamped to 0",
            FitNote::ClampedHigh => "ρ clamped to 0.99 (1 would freeze each page's type)",
        }
    }
}

/// One class's fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassFit {
    pub class: PageClass,
    pub counts: ClassCounts,
    /// Share of the classed pages' accesses that fall in this class.
    pub access_share: f64,
    /// r: reads / accesses.
    pub read_share: f64,
    /// s: repeats / pairs.
    pub repeat_share: f64,
    /// q = r² + (1 − r)².
    pub independent_repeat_share: f64,
    /// (s − q) / (1 − q) before clamping (0 when q = 1 or the class is empty).
    pub raw_rho: f64,
    /// The `type_persistence` to give a flow of this class.
    pub rho: f64,
    pub note: Option<FitNote>,
}

impl ClassFit {
    /// The fit of `counts`, of a tally whose classes hold `accesses` in all.
    pub fn of(class: PageClass, counts: ClassCounts, accesses: u64) -> ClassFit {
        let c = counts;
        let share = |n: u64, of: u64| if of == 0 { 0.0 } else { n as f64 / of as f64 };
        let (r, s) = (share(c.reads, c.accesses), share(c.repeats, c.pairs));
        let q = r * r + (1.0 - r) * (1.0 - r);
        let (raw_rho, note) = if c.pages == 0 {
            (0.0, Some(FitNote::Empty))
        } else if c.reads == 0 || c.reads == c.accesses {
            (0.0, Some(FitNote::OneType))
        } else {
            let raw = (s - q) / (1.0 - q);
            let note = match raw {
                x if x < 0.0 => Some(FitNote::ClampedLow),
                x if x > RHO_MAX => Some(FitNote::ClampedHigh),
                _ => None,
            };
            (raw, note)
        };
        ClassFit {
            class,
            counts,
            access_share: share(c.accesses, accesses),
            read_share: r,
            repeat_share: s,
            independent_repeat_share: q,
            raw_rho,
            rho: raw_rho.clamp(0.0, RHO_MAX),
            note,
        }
    }
}

/// The model of one trace, or of several pooled.
#[derive(Debug, Clone, PartialEq)]
pub struct PageModel {
    /// The traces it was fitted to.
    pub traces: Vec<String>,
    /// In [`PageClass::ALL`]'s order.
    pub classes: [ClassFit; 3],
    /// The mixed pages of at least [`LONG_MIXED`] accesses (its share: of every classed
    /// page's accesses).
    pub long_mixed: ClassFit,
    pub tally: Tally,
}

impl PageModel {
    pub fn of(tally: Tally, traces: Vec<String>) -> PageModel {
        let accesses = tally.classes.iter().map(|c| c.accesses).sum();
        let classes = PageClass::ALL.map(|k| ClassFit::of(k, tally.classes[k.index()], accesses));
        let long_mixed = ClassFit::of(PageClass::Mixed, tally.long_mixed, accesses);
        PageModel { traces, classes, long_mixed, tally }
    }

    /// Accesses of the classed pages and of the pages accessed once.
    pub fn accesses(&self) -> u64 {
        self.tally.classes.iter().map(|c| c.accesses).sum::<u64>() + self.tally.single_pages
    }

    /// Share of the classed pages' accesses on dominant pages, and the same with the pages
    /// accessed once counted as dominant (each is all one type).
    pub fn dominant_shares(&self) -> (f64, f64) {
        let mixed = self.class(PageClass::Mixed).counts.accesses as f64;
        let all = self.accesses() as f64;
        let classed = all - self.tally.single_pages as f64;
        let share = |n: f64, of: f64| if of == 0.0 { 0.0 } else { n / of };
        (share(classed - mixed, classed), share(all - mixed, all))
    }

    /// Pages with at least two accesses (the classed ones).
    pub fn pages(&self) -> u64 {
        self.tally.classes.iter().map(|c| c.pages).sum()
    }

    /// Consecutive same-page pairs over the classed pages.
    pub fn pairs(&self) -> u64 {
        self.tally.classes.iter().map(|c| c.pairs).sum()
    }

    pub fn class(&self, k: PageClass) -> &ClassFit {
        &self.classes[k.index()]
    }
}

/// The fit pooled over the traces, and each trace's own (in the order given).
#[derive(Debug, Clone, PartialEq)]
pub struct Fits {
    pub pooled: PageModel,
    pub per_trace: Vec<PageModel>,
}

/// `trace`'s reads and writes split into pages of `page_bytes`, in request order (a request
/// covers the pages its bytes touch; trims and empty requests are left out).
pub fn page_accesses(trace: &ssdlab_trace::Trace, page_bytes: u64) -> Vec<Access> {
    assert!(page_bytes > 0, "pages of at least one byte");
    let mut out = Vec::new();
    for r in &trace.records {
        let read = match r.op {
            ssdlab_trace::Op::Read => true,
            ssdlab_trace::Op::Write => false,
            ssdlab_trace::Op::Trim => continue,
        };
        let pages = r.offset_bytes / page_bytes..(r.offset_bytes + r.size_bytes).div_ceil(page_bytes);
        out.extend(pages.map(|page| Access { page, read }));
    }
    out
}

/// Fit the model to each trace (path, name; format detected) with pages of `page_bytes`,
/// and to all of them pooled (their pages kept apart).
pub fn fit(traces: &[(&Path, &str)], page_bytes: u64) -> Result<Fits> {
    let mut pooled = Tally::default();
    let mut per_trace = Vec::with_capacity(traces.len());
    for &(path, name) in traces {
        let trace = ssdlab_trace::read(path, None)?;
        let tally = Tally::of(&page_accesses(&trace, page_bytes));
        pooled.add(&tally);
        per_trace.push(PageModel::of(tally, vec![name.to_string()]));
    }
    let names = traces.iter().map(|t| t.1.to_string()).collect();
    Ok(Fits { pooled: PageModel::of(pooled, names), per_trace })
}

fn f3(x: f64) -> String {
    format!("{x:.3}")
}

/// A class's row cells: pages, accesses, reads, share, r, s, q, (s − q)/(1 − q), ρ (a
/// note's mark after ρ). An empty class shows no ratios; a class of one type no raw ρ.
fn class_cells(c: &ClassFit, marks: &mut Vec<FitNote>) -> String {
    let mark = match c.note {
        Some(n) => {
            if !marks.contains(&n) {
                marks.push(n);
            }
            format!(" ({})", marks.iter().position(|&m| m == n).expect("pushed") + 1)
        }
        None => String::new(),
    };
    let k = &c.counts;
    let shown = |x: f64, shown: bool| if shown { f3(x) } else { "—".to_string() };
    let (some, mixed) = (k.pages > 0, c.note != Some(FitNote::OneType) && k.pages > 0);
    format!(
        "{} | {} | {} | {} | {} | {} | {} | {} | {}{mark}",
        k.pages,
        k.accesses,
        k.reads,
        f3(c.access_share),
        shown(c.read_share, some),
        shown(c.repeat_share, some),
        shown(c.independent_repeat_share, some),
        shown(c.raw_rho, mixed),
        f3(c.rho)
    )
}

/// A model's name in the tables: its trace, or "pooled".
fn who(model: &PageModel) -> &str {
    if model.traces.len() == 1 {
        &model.traces[0]
    } else {
        "pooled"
    }
}

/// The fits as markdown for REPORT.md: the classes (pooled, then each trace's, each with its
/// mixed pages of at least [`LONG_MIXED`] accesses again), what the pooled counts cover, the
/// notes, and the TRH scores.
pub fn markdown(fits: &Fits) -> String {
    let mut marks = Vec::new();
    let mut m = String::from(
        "| traces | class | pages | accesses | reads | share | r | s | q | (s − q)/(1 − q) | ρ |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for model in std::iter::once(&fits.pooled).chain(&fits.per_trace) {
        for c in &model.classes {
            let _ = writeln!(m, "| {} | {} | {} |", who(model), c.class.name(), class_cells(c, &mut marks));
        }
        let long = format!("mixed, ≥ {LONG_MIXED} accesses");
        let _ = writeln!(m, "| {} | {long} | {} |", who(model), class_cells(&model.long_mixed, &mut marks));
    }
    let p = &fits.pooled;
    let (dominant, with_once) = p.dominant_shares();
    let _ = writeln!(
        m,
        "\nPooled over {}: {} page accesses; {} pages accessed at least twice (the classes; {} consecutive same-page pairs), {} pages accessed once. Dominant pages hold {} of the classed pages' accesses, {} counting the pages accessed once as dominant.",
        p.traces.join(", "),
        p.accesses(),
        p.pages(),
        p.pairs(),
        p.tally.single_pages,
        f3(dominant),
        f3(with_once)
    );
    for (i, n) in marks.iter().enumerate() {
        let _ = writeln!(m, "({}) {}.", i + 1, n.text());
    }
    m.push_str(&trh_table(fits));
    m
}

/// Each trace's TRH accuracy at 1, 2 and 3 bits, then the pooled one.
fn trh_table(fits: &Fits) -> String {
    let mut m = String::from("\n| trace | predicted | 1 bit | 2 bits | 3 bits |\n|---|---|---|---|---|\n");
    for model in fits.per_trace.iter().chain(std::iter::once(&fits.pooled)) {
        let acc: Vec<String> = model.tally.trh.iter().map(|s| s.accuracy().map_or("—".into(), f3)).collect();
        let _ = writeln!(m, "| {} | {} | {} |", who(model), model.tally.trh[0].predicted, acc.join(" | "));
    }
    m.push_str("\nTRH accuracy: over the accesses of a page with a history, the majority of its last N types; a tie counted half right.\n");
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accesses of `page` in the order of `types` (`r` read, `w` write).
    fn on(page: u64, types: &str) -> Vec<Access> {
        types.chars().map(|c| Access { page, read: c == 'r' }).collect()
    }

    /// Pages 1 (rrrr) and 6 (w then 10 r: 10/11 > 0.9) are read-dominant; 2 (9 r then w:
    /// exactly 0.9) and 4 (rwrw) mixed; 3 (www) write-dominant; 5 (one r) left out. Their
    /// accesses interleave, which must not matter.
    fn hand_made() -> Vec<Access> {
        let pages = [on(1, "rrrr"), on(2, "rrrrrrrrrw"), on(3, "www"), on(4, "rwrw"), on(5, "r"), on(6, "wrrrrrrrrrr")];
        let longest = pages.iter().map(Vec::len).max().unwrap_or(0);
        (0..longest).flat_map(|i| pages.iter().filter_map(move |p| p.get(i).copied())).collect()
    }

    /// Read-dominant: 15 accesses, 14 reads, r = 14/15; 13 pairs, 3 + 9 repeats, s = 12/13;
    /// q = (196 + 1)/225 = 197/225; ρ = (12/13 − 197/225)/(28/225) = 139/364 = 0.38187.
    /// Mixed: 14 accesses, 11 reads, r = 11/14; 9 + 3 pairs, 8 + 0 repeats, s = 2/3;
    /// q = 130/196 = 65/98; ρ = (1/294)/(33/98) = 1/99. Write-dominant: r = 0, q = 1, ρ
    /// irrelevant (0). Shares of the 32 classed accesses: 15/32, 14/32, 3/32.
    #[test]
    fn a_hand_made_list_fits_as_worked_by_hand() {
        let model = PageModel::of(Tally::of(&hand_made()), vec!["hand".into()]);
        let (rd, mx, wd) = (
            model.class(PageClass::ReadDominant),
            model.class(PageClass::Mixed),
            model.class(PageClass::WriteDominant),
        );
        assert_eq!(rd.counts, ClassCounts { pages: 2, accesses: 15, reads: 14, pairs: 13, repeats: 12 });
        assert_eq!(mx.counts, ClassCounts { pages: 2, accesses: 14, reads: 11, pairs: 12, repeats: 8 });
        assert_eq!(wd.counts, ClassCounts { pages: 1, accesses: 3, reads: 0, pairs: 2, repeats: 2 });
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(rd.read_share, 14.0 / 15.0) && close(rd.repeat_share, 12.0 / 13.0));
        assert!(close(rd.independent_repeat_share, 197.0 / 225.0) && close(rd.rho, 139.0 / 364.0), "{rd:?}");
        assert!(close(mx.read_share, 11.0 / 14.0) && close(mx.repeat_share, 2.0 / 3.0));
        assert!(close(mx.independent_repeat_share, 65.0 / 98.0) && close(mx.rho, 1.0 / 99.0), "{mx:?}");
        assert_eq!((wd.rho, wd.note, wd.repeat_share), (0.0, Some(FitNote::OneType), 1.0));
        assert_eq!([rd.note, mx.note], [None, None]);
        let shares = model.classes.map(|c| c.access_share);
        assert!(close(shares[0], 15.0 / 32.0) && close(shares[1], 14.0 / 32.0) && close(shares[2], 3.0 / 32.0));
        assert_eq!((model.pages(), model.pairs(), model.tally.single_pages), (5, 27, 1));
        // Mixed pages of at least 3 accesses: page 2 alone (r = 0.9, s = 8/9; q = 0.82,
        // ρ = (8/9 − 0.82)/0.18 = 0.38272 = 31/81); page 4 has 4 accesses too: with it,
        // the whole mixed class again.
        assert_eq!(model.long_mixed.counts, mx.counts);
        let two = PageModel::of(Tally::of(&[on(2, "rrrrrrrrrw"), on(8, "rw")].concat()), vec![]);
        assert!(close(two.long_mixed.rho, 31.0 / 81.0), "{:?}", two.long_mixed);
        assert!(close(two.class(PageClass::Mixed).repeat_share, 8.0 / 10.0));
        // Dominant: 18 of the 32 classed accesses; 19 of 33 with page 5's.
        let (classed, all) = model.dominant_shares();
        assert!(close(classed, 18.0 / 32.0) && close(all, 19.0 / 33.0));
    }

    /// rwrw alone: r = 0.5, q = 0.5, s = 0, raw ρ = −1, clamped to 0. 200 r then 200 w:
    /// s = 398/399, raw ρ = (398/399 − 1/2)/(1/2) = 397/399 = 0.99499, clamped to 0.99.
    #[test]
    fn a_fit_out_of_range_is_clamped_with_a_note() {
        let low = PageModel::of(Tally::of(&on(4, "rwrw")), vec![]);
        let mx = low.class(PageClass::Mixed);
        assert_eq!((mx.raw_rho, mx.rho, mx.note), (-1.0, 0.0, Some(FitNote::ClampedLow)));
        let runs = format!("{}{}", "r".repeat(200), "w".repeat(200));
        let high = PageModel::of(Tally::of(&on(9, &runs)), vec![]);
        let mx = high.class(PageClass::Mixed);
        assert!((mx.raw_rho - 397.0 / 399.0).abs() < 1e-12, "{mx:?}");
        assert_eq!((mx.rho, mx.note), (RHO_MAX, Some(FitNote::ClampedHigh)));
        assert_eq!(high.class(PageClass::ReadDominant).note, Some(FitNote::Empty));
    }

    /// One page, r r w r w w: five accesses predicted. 1 bit (the last type): r✓ r✗ w✗ r✗
    /// w✓, 2/5. 2 bits: [r] r✓, [r r] r✗, then [r w], [w r], [r w] ties: (1 + 3/2)/5 = 0.5.
    /// 3 bits: [r] r✓, [r r] r✗, [r r w] r✓, [r w r] r✗, [w r w] w✓: 3/5.
    #[test]
    fn the_history_predictor_scores_as_worked_by_hand() {
        let t = Tally::of(&on(7, "rrwrww"));
        assert_eq!(t.trh[0], TrhScore { predicted: 5, correct: 2, ties: 0 });
        assert_eq!(t.trh[1], TrhScore { predicted: 5, correct: 1, ties: 3 });
        assert_eq!(t.trh[2], TrhScore { predicted: 5, correct: 3, ties: 0 });
        assert_eq!(t.trh.map(|s| s.accuracy()), [Some(0.4), Some(0.5), Some(0.6)]);
    }

    /// A request covers the pages its bytes touch: 4 KiB pages, a write of 8 KiB at 2 KiB
    /// covers pages 0, 1 and 2; a read of 512 B at 4096 covers page 1; a trim is left out.
    #[test]
    fn requests_split_into_the_pages_they_touch() {
        let text = "0 0 2048 8192 0\n1 0 4096 512 1\n";
        let trace = ssdlab_trace::parse_str(text, ssdlab_trace::Format::Replayer, "t").expect("parses");
        let got = page_accesses(&trace, 4096);
        let want = [(0, false), (1, false), (2, false), (1, true)].map(|(page, read)| Access { page, read });
        assert_eq!(got, want);
    }

    /// The shipped excerpts, with the PACP preset's page size: the pooled tally is the sum of
    /// the traces', each trace's classed shares sum to 1, and every access with a history is
    /// scored. Prints the table (`cargo test -p ssdlab-lab fitted -- --nocapture`).
    #[test]
    fn the_model_fitted_to_the_shipped_excerpts() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces");
        let page_bytes = crate::reproduce::pacp::preset().expect("the preset").nand.page_bytes as u64;
        let paths: Vec<_> = crate::reproduce::pacp::TRACES.iter().map(|(f, n)| (root.join(f), *n)).collect();
        let traces: Vec<(&Path, &str)> = paths.iter().map(|(p, n)| (p.as_path(), *n)).collect();
        let fits = fit(&traces, page_bytes).expect("the excerpts read");
        let mut sum = Tally::default();
        fits.per_trace.iter().for_each(|m| sum.add(&m.tally));
        assert_eq!(sum, fits.pooled.tally);
        for m in fits.per_trace.iter().chain([&fits.pooled]) {
            let shares: f64 = m.classes.iter().map(|c| c.access_share).sum();
            assert!((shares - 1.0).abs() < 1e-9, "{:?}: {shares}", m.traces);
            assert_eq!(m.tally.trh[0].predicted, m.pairs(), "{:?}: pairs are the 1-bit predictions", m.traces);
        }
        println!("page bytes {page_bytes}\n{}", markdown(&fits));
    }
}
