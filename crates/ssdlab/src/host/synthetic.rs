//! A synthetic flow's generator: the request stream `type = "synthetic"` draws (operation,
//! FUA, size, address, Poisson arrivals) from its seed, the checks that need the drive
//! (whole sectors, the footprint, the hot set), and the per-slot type history
//! `type_persistence` keeps.

use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Exp, Zipf};
use rand_pcg::Pcg64Mcg;

use super::*;

/// A synthetic flow's generator. The fields marked `pub(super)` are read by the rest of
/// `host`: the arrival draws by [`Flow::take`], the sizes, ratios and span by the workload's
/// demand (`demand.rs`); only this file draws requests.
pub struct Synthetic {
    pub(super) rng: Pcg64Mcg,
    pub(super) read_ratio: f64,
    pub(super) trim_ratio: f64,
    fua_ratio: f64,
    address: Address,
    hot_fraction: f64,
    hot_access: f64,
    pub(super) sizes_sectors: Vec<(u32, f64)>,
    pub(super) align_sectors: u64,
    pub(super) start_sector: u64,
    pub(super) span_sectors: u64,
    next_seq: u64,
    pub(super) arrival: Option<Exp<f64>>,
    pub(super) rate_iops: f64,
    pub(super) last_arrival_ps: Ps,
    /// `start_ms`: no request arrives before this.
    pub(super) start_ps: Ps,
    /// `address = "zipf"`: θ, and the distribution of ranks over the slot count last drawn
    /// for (a flow's sizes give few slot counts, so it is rarely rebuilt); boxed, so flows
    /// without it stay as small as before.
    zipf_theta: f64,
    zipf: Option<Box<(u64, Zipf<f64>)>>,
    /// `type_persistence` > 0: each slot's last type.
    history: Option<TypeHistory>,
}

impl Synthetic {
    /// The generator of synthetic flow `f` on a drive of `logical_sectors`. Fails if a
    /// request size or the alignment is not whole sectors, or the largest request does not
    /// fit the footprint.
    pub(super) fn new(
        f: &FlowSpec,
        seed: u64,
        logical_sectors: u64,
        sector_bytes: u32,
    ) -> std::result::Result<Synthetic, Bad> {
        let sb = sector_bytes as u64;
        let start_sector = f.start_bytes / sb;
        if start_sector >= logical_sectors {
            let drive_bytes = logical_sectors * sb;
            return Err(Bad {
                key: "start_bytes",
                message: format!(
                    "start_bytes = {}: past the end of the drive's {drive_bytes} logical bytes",
                    f.start_bytes
                ),
            });
        }
        let wanted = match f.footprint_bytes {
            0 => (logical_sectors as f64 * f.footprint) as u64,
            bytes => bytes / sb,
        };
        let span = wanted.min(logical_sectors - start_sector);
        let sizes_sectors = size_table(f, sb)?;
        let max_sectors = sizes_sectors.iter().map(|s| s.0 as u64).max().unwrap_or(1);
        if max_sectors > span {
            let room = if span < wanted {
                format!(" (what is left of the drive after start_bytes = {})", f.start_bytes)
            } else {
                String::new()
            };
            return Err(Bad {
                key: "footprint",
                message: format!("requests of {max_sectors} sectors do not fit a footprint of {span} sectors{room}"),
            });
        }
        if !f.align_bytes.is_multiple_of(sb) {
            return Err(Bad {
                key: "align_bytes",
                message: format!("align_bytes {} is not a multiple of the {sb}-byte sector", f.align_bytes),
            });
        }
        if f.address == Address::HotCold {
            // The largest request has the fewest slots.
            check_hot_slots(f, span, max_sectors, sb)?;
        }
        let arrival = if f.rate_iops > 0.0 { Some(Exp::new(f.rate_iops).expect("positive rate")) } else { None };
        let start_ps = (f.start_ms * 1e9).round() as Ps;
        let align_sectors = f.align_bytes / sb;
        let history = match f.type_persistence > 0.0 {
            // The slots of the smallest request: every slot a request can start at.
            true => Some(TypeHistory::new(f.type_persistence, span / align_sectors + 1, f.align_bytes)?),
            false => None,
        };
        Ok(Synthetic {
            rng: Pcg64Mcg::seed_from_u64(seed),
            read_ratio: f.read_ratio,
            trim_ratio: f.trim_ratio,
            fua_ratio: f.fua_ratio,
            address: f.address,
            hot_fraction: f.hot_fraction,
            hot_access: f.hot_access,
            sizes_sectors,
            align_sectors,
            start_sector,
            span_sectors: span,
            next_seq: 0,
            arrival,
            rate_iops: f.rate_iops,
            last_arrival_ps: start_ps,
            start_ps,
            zipf_theta: f.zipf_theta,
            zipf: None,
            history,
        })
    }
}

/// `address = "hotcold"`: the hot set holds at least one slot of the footprint (`span`
/// sectors) for a request of `sectors`; a smaller `hot_fraction` would send `hot_access` of
/// the requests to a single slot, which is no hot set.
fn check_hot_slots(f: &FlowSpec, span: u64, sectors: u64, sb: u64) -> std::result::Result<(), Bad> {
    let slots = (span.saturating_sub(sectors) / (f.align_bytes / sb) + 1).max(1);
    if (slots as f64 * f.hot_fraction) < 1.0 {
        return Err(Bad {
            key: "hot_fraction",
            message: format!(
                "hot_fraction = {}: the hot set would be less than one of the footprint's {slots} slots, so hot_access of the requests would go to a single slot; raise it to at least {:.3e}",
                f.hot_fraction,
                1.0 / slots as f64
            ),
        });
    }
    Ok(())
}

/// A synthetic flow's request sizes in sectors of `sb` bytes, each with the cumulative
/// probability of it and the sizes before it (`request_bytes_choices`, or `request_bytes`).
fn size_table(f: &FlowSpec, sb: u64) -> std::result::Result<Vec<(u32, f64)>, Bad> {
    let sizes: Vec<(u64, f64)> =
        if f.request_bytes_choices.is_empty() { vec![(f.request_bytes, 1.0)] } else { f.request_bytes_choices.clone() };
    let total: f64 = sizes.iter().map(|s| s.1).sum();
    let mut acc = 0.0;
    let mut table = Vec::with_capacity(sizes.len());
    for (bytes, w) in sizes {
        if !bytes.is_multiple_of(sb) {
            return Err(Bad {
                key: "request_bytes",
                message: format!("request_bytes {bytes} is not a multiple of the {sb}-byte sector"),
            });
        }
        let sectors = u32::try_from(bytes / sb).map_err(|_| Bad {
            key: "request_bytes",
            message: format!(
                "request_bytes {bytes} is more than {} sectors of {sb} bytes, the most one request can carry",
                u32::MAX
            ),
        })?;
        acc += w / total;
        table.push((sectors, acc));
    }
    Ok(table)
}

impl Synthetic {
    pub(super) fn generate(&mut self) -> IoRequest {
        if self.history.is_some() {
            return self.generate_persistent();
        }
        // Without type_persistence: the type, FUA, size and slot, drawn in that order.
        let op = self.draw_op();
        let fua = self.draw_fua(op);
        let sectors = self.draw_sectors();
        let slot = self.draw_slot(sectors);
        IoRequest { arrival_ps: 0, op, lba: self.start_sector + slot * self.align_sectors, sectors, fua }
    }

    /// `type_persistence` ρ: the size and slot first, then the type. The type is drawn as
    /// without ρ; a read or write whose slot has a history is then replaced, with probability
    /// ρ, by the slot's last type (docs/techniques.md §10.10 item 6: PACP's TRH needs pages
    /// whose types come in runs). A trim keeps its own share whatever the history and clears
    /// the slot's history, so the read, write and trim shares stay `read_ratio`,
    /// 1 − `read_ratio` − `trim_ratio` and `trim_ratio`.
    fn generate_persistent(&mut self) -> IoRequest {
        let sectors = self.draw_sectors();
        let slot = self.draw_slot(sectors);
        let mut op = self.draw_op();
        let history = self.history.as_mut().expect("called with a history");
        if op != IoOp::Trim {
            if let Some(last) = history.last(slot) {
                if self.rng.random::<f64>() < history.rho {
                    op = last;
                }
            }
        }
        history.record(slot, op);
        let fua = self.draw_fua(op);
        IoRequest { arrival_ps: 0, op, lba: self.start_sector + slot * self.align_sectors, sectors, fua }
    }

    fn draw_op(&mut self) -> IoOp {
        let u: f64 = self.rng.random();
        if u < self.read_ratio {
            IoOp::Read
        } else if u < self.read_ratio + self.trim_ratio {
            IoOp::Trim
        } else {
            IoOp::Write
        }
    }

    fn draw_fua(&mut self, op: IoOp) -> bool {
        op == IoOp::Write && self.fua_ratio > 0.0 && self.rng.random::<f64>() < self.fua_ratio
    }

    fn draw_sectors(&mut self) -> u32 {
        if self.sizes_sectors.len() == 1 {
            return self.sizes_sectors[0].0;
        }
        let x: f64 = self.rng.random();
        self.sizes_sectors
            .iter()
            .find(|&&(_, c)| x < c)
            .map(|&(s, _)| s)
            .unwrap_or(self.sizes_sectors.last().expect("non-empty").0)
    }

    /// The aligned slot (from the footprint's start) of a request of `sectors`.
    fn draw_slot(&mut self, sectors: u32) -> u64 {
        // Number of aligned slots where a request of this size fits in the footprint.
        let slots = ((self.span_sectors.saturating_sub(sectors as u64)) / self.align_sectors + 1).max(1);
        match self.address {
            Address::Sequential => {
                let s = self.next_seq % slots;
                self.next_seq = self.next_seq.wrapping_add((sectors as u64).div_ceil(self.align_sectors));
                s
            }
            Address::HotCold => {
                let hot_slots = ((slots as f64 * self.hot_fraction) as u64).clamp(1, slots);
                if self.rng.random::<f64>() < self.hot_access || hot_slots == slots {
                    self.rng.random_range(0..hot_slots)
                } else {
                    self.rng.random_range(hot_slots..slots)
                }
            }
            Address::Uniform => self.rng.random_range(0..slots),
            Address::Zipf => {
                let theta = self.zipf_theta;
                let zipf = match &self.zipf {
                    Some(cached) if cached.0 == slots => &cached.1,
                    _ => &self.zipf.insert(Box::new((slots, Zipf::new(slots as f64, theta).expect("θ checked > 0")))).1,
                };
                // Ranks 1..=slots; rank r is slot r − 1.
                (zipf.sample(&mut self.rng) as u64).clamp(1, slots) - 1
            }
        }
    }
}

/// The most memory a synthetic flow's [`TypeHistory`] may take: 1 GiB, two bits per slot,
/// so 2^32 slots (16 TiB of footprint at 4 KiB alignment).
pub const MAX_TYPE_HISTORY_BYTES: u64 = 1 << 30;

/// A synthetic flow's per-slot type history, kept only with `type_persistence` > 0: two
/// bitmaps over the flow's aligned slots, one bit saying the slot was read or written since
/// its last trim, one that its last such access read. Two bits per slot, allocated when the
/// flow is built (bounded by [`MAX_TYPE_HISTORY_BYTES`]); a request costs two bit reads and
/// two bit writes.
struct TypeHistory {
    /// `type_persistence`: probability that a read or write repeats its slot's last type.
    rho: f64,
    seen: Vec<u64>,
    read: Vec<u64>,
}

impl TypeHistory {
    /// The history of `slots` slots, or an error when its bitmaps would pass
    /// [`MAX_TYPE_HISTORY_BYTES`].
    fn new(rho: f64, slots: u64, align_bytes: u64) -> std::result::Result<TypeHistory, Bad> {
        let words = slots.div_ceil(64);
        let bytes = 2 * words * 8;
        if bytes > MAX_TYPE_HISTORY_BYTES {
            return Err(Bad {
                key: "type_persistence",
                message: format!(
                    "type_persistence keeps 2 bits per slot: {slots} slots of {align_bytes} bytes need {bytes} bytes, more than the {MAX_TYPE_HISTORY_BYTES}-byte limit; raise align_bytes or lower footprint"
                ),
            });
        }
        Ok(TypeHistory { rho, seen: vec![0; words as usize], read: vec![0; words as usize] })
    }

    /// The last type of `slot` (read or write), None when it has none since its last trim.
    fn last(&self, slot: u64) -> Option<IoOp> {
        let (w, bit) = ((slot / 64) as usize, 1u64 << (slot % 64));
        if self.seen[w] & bit == 0 {
            return None;
        }
        Some(if self.read[w] & bit != 0 { IoOp::Read } else { IoOp::Write })
    }

    /// `op` on `slot`: a read or write becomes its last type; a trim clears its history.
    fn record(&mut self, slot: u64, op: IoOp) {
        let (w, bit) = ((slot / 64) as usize, 1u64 << (slot % 64));
        match op {
            IoOp::Trim => self.seen[w] &= !bit,
            IoOp::Read => {
                self.seen[w] |= bit;
                self.read[w] |= bit;
            }
            IoOp::Write => {
                self.seen[w] |= bit;
                self.read[w] &= !bit;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic flow's generator on a drive of 1,000 pages of 4 KiB (512-byte sectors).
    fn generator(f: FlowSpec, seed: u64) -> Synthetic {
        Synthetic::new(&FlowSpec { requests: 1, ..f }, seed, 8_000, 512).unwrap_or_else(|b| panic!("{}", b.message))
    }

    /// 20 slots of 4 KiB, so nearly every request finds its slot with a history.
    fn persistent(read_ratio: f64, rho: f64) -> Synthetic {
        generator(FlowSpec { read_ratio, type_persistence: rho, footprint: 0.02, ..FlowSpec::default() }, 7)
    }

    /// Each request's slot and whether it reads (no trims in these flows).
    fn stream(g: &mut Synthetic, n: usize) -> Vec<(u64, bool)> {
        (0..n).map(|_| g.generate()).map(|r| (r.lba / 8, r.op == IoOp::Read)).collect()
    }

    /// Per slot, its reads and writes in order.
    fn per_slot(requests: &[(u64, bool)]) -> std::collections::BTreeMap<u64, Vec<bool>> {
        let mut slots = std::collections::BTreeMap::<u64, Vec<bool>>::new();
        requests.iter().for_each(|&(slot, read)| slots.entry(slot).or_default().push(read));
        slots
    }

    /// Each slot is a two-state Markov chain, read → write with probability (1 − ρ)(1 − r)
    /// and write → read with (1 − ρ)r, started from its first draw (read with r): its
    /// stationary read share b / (a + b) is r, so every request reads with probability r.
    /// The share over n requests has the binomial variance r(1 − r)/n inflated by the
    /// chain's (1 + λ)/(1 − λ), λ = 1 − a − b = ρ the lag-one correlation: r = 0.3,
    /// ρ = 0.8, n = 200,000 give a standard error of √(0.21 × 9 / 200,000) = 0.0031; the test
    /// allows 4 of them.
    #[test]
    fn type_persistence_keeps_the_read_share() {
        let requests = stream(&mut persistent(0.3, 0.8), 200_000);
        let share = requests.iter().filter(|r| r.1).count() as f64 / requests.len() as f64;
        assert!((share - 0.3).abs() < 4.0 * 0.0031, "read share {share}");
    }

    /// A request repeats its slot's previous type with ρ + (1 − ρ)(r² + (1 − r)²): r = 0.5,
    /// ρ = 0.6 gives 0.6 + 0.4 × 0.5 = 0.8 (without persistence it would be 0.5). With
    /// r = 0.5 each step of a slot's chain keeps its type independently of the others, so
    /// the repeats are Bernoulli(0.8): over about 200,000 pairs the standard error is
    /// √(0.16 / 200,000) = 0.0009; the test allows 4 of them.
    #[test]
    fn type_persistence_sets_the_repeat_probability() {
        let slots = per_slot(&stream(&mut persistent(0.5, 0.6), 200_020));
        let pairs: Vec<bool> = slots.values().flat_map(|ops| ops.windows(2).map(|w| w[0] == w[1])).collect();
        let repeat = pairs.iter().filter(|&&same| same).count() as f64 / pairs.len() as f64;
        assert!((repeat - 0.8).abs() < 4.0 * 0.0009, "repeat share {repeat} over {} pairs", pairs.len());
    }

    /// A read stays a read with ρ + (1 − ρ)r, so a slot's runs of reads are geometric with
    /// mean 1 / ((1 − ρ)(1 − r)): r = 0.3, ρ = 0.8 give 1 / (0.2 × 0.7) = 7.143 (1.43 without
    /// persistence). The runs' standard deviation is √(1 − p) / p = 6.6, p = 0.14; a million
    /// requests hold about 42,000 finished runs (300,000 reads / 7.143), a standard error of
    /// 0.032; the test allows 4 of them. A slot's last run is cut by the end and left out.
    #[test]
    fn type_persistence_sets_the_mean_read_run() {
        let slots = per_slot(&stream(&mut persistent(0.3, 0.8), 1_000_000));
        let mut runs = Vec::new();
        for ops in slots.values() {
            let mut run = 0u64;
            for &read in ops {
                match (read, run) {
                    (true, _) => run += 1,
                    (false, 0) => {}
                    (false, _) => {
                        runs.push(run);
                        run = 0;
                    }
                }
            }
        }
        let mean = runs.iter().sum::<u64>() as f64 / runs.len() as f64;
        assert!((mean - 1.0 / (0.2 * 0.7)).abs() < 4.0 * 0.032, "mean read run {mean} over {} runs", runs.len());
    }

    /// The generator before `type_persistence`, copied: type, FUA, size, slot.
    fn old_rule(f: &FlowSpec, seed: u64, n: usize) -> Vec<(IoOp, u64, u32, bool)> {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let (span, align) = ((8_000.0 * f.footprint) as u64, f.align_bytes / 512);
        let sizes = [(8u32, 0.5), (32, 1.0)];
        let mut out = Vec::new();
        for _ in 0..n {
            let u: f64 = rng.random();
            let op = match u {
                u if u < f.read_ratio => IoOp::Read,
                u if u < f.read_ratio + f.trim_ratio => IoOp::Trim,
                _ => IoOp::Write,
            };
            let fua = op == IoOp::Write && rng.random::<f64>() < f.fua_ratio;
            let x: f64 = rng.random();
            let sectors = sizes.iter().find(|&&(_, c)| x < c).map_or(32, |&(s, _)| s);
            let slots = (span - sectors as u64) / align + 1;
            let hot = ((slots as f64 * f.hot_fraction) as u64).clamp(1, slots);
            let slot = match rng.random::<f64>() < f.hot_access {
                true => rng.random_range(0..hot),
                false => rng.random_range(hot..slots),
            };
            out.push((op, slot * align, sectors, fua));
        }
        out
    }

    #[test]
    fn without_type_persistence_the_stream_is_the_old_rules() {
        let f = FlowSpec {
            read_ratio: 0.3,
            trim_ratio: 0.1,
            fua_ratio: 0.2,
            address: Address::HotCold,
            request_bytes_choices: vec![(4096, 1.0), (16384, 1.0)],
            footprint: 0.5,
            ..FlowSpec::default()
        };
        let mut g = generator(f.clone(), 11);
        let got: Vec<_> = (0..20_000).map(|_| g.generate()).map(|r| (r.op, r.lba, r.sectors, r.fua)).collect();
        assert_eq!(got, old_rule(&f, 11, 20_000));
    }

    /// Slot 5 read, then written: its last type follows; a trim clears it, and slot 6 (same
    /// word) and 70 (next word) are untouched.
    #[test]
    fn a_slot_history_keeps_the_last_read_or_write_until_a_trim() {
        let mut h = TypeHistory::new(0.5, 128, 4096).unwrap_or_else(|b| panic!("{}", b.message));
        assert_eq!(h.last(5), None);
        h.record(5, IoOp::Read);
        h.record(70, IoOp::Write);
        assert_eq!((h.last(5), h.last(6), h.last(70)), (Some(IoOp::Read), None, Some(IoOp::Write)));
        h.record(5, IoOp::Write);
        assert_eq!(h.last(5), Some(IoOp::Write));
        h.record(5, IoOp::Trim);
        assert_eq!((h.last(5), h.last(70)), (None, Some(IoOp::Write)));
    }

    /// A trim is drawn at its own share whatever the history: with r = 0.5, trims 0.2 and
    /// ρ = 0.9 on 20 slots, trims stay 0.2 of 100,000 requests (binomial standard error
    /// √(0.16 / 100,000) = 0.0013, trims being drawn independently; 4 allowed), and a read
    /// or write right after a trim on its slot is drawn afresh: read with 0.5 / 0.8 = 0.625.
    #[test]
    fn type_persistence_leaves_trims_at_their_share() {
        let f =
            FlowSpec { read_ratio: 0.5, trim_ratio: 0.2, type_persistence: 0.9, footprint: 0.02, ..Default::default() };
        let mut g = generator(f, 3);
        let ops: Vec<(u64, IoOp)> = (0..100_000).map(|_| g.generate()).map(|r| (r.lba / 8, r.op)).collect();
        let trims = ops.iter().filter(|o| o.1 == IoOp::Trim).count() as f64 / ops.len() as f64;
        assert!((trims - 0.2).abs() < 4.0 * 0.0013, "trim share {trims}");
        let mut last = std::collections::HashMap::new();
        let (mut after_trim, mut reads) = (0u64, 0u64);
        for &(slot, op) in &ops {
            if last.insert(slot, op) == Some(IoOp::Trim) && op != IoOp::Trim {
                after_trim += 1;
                reads += u64::from(op == IoOp::Read);
            }
        }
        // About 100,000 × 0.2 × 0.8 = 16,000 such requests: standard error √(0.625 × 0.375 /
        // 16,000) = 0.0038; 4 allowed.
        let share = reads as f64 / after_trim as f64;
        assert!((share - 0.625).abs() < 4.0 * 0.0038, "read share after a trim {share} over {after_trim}");
    }

    /// 2^34 slots of 512 bytes (an 8 TiB footprint) need 2 × 2^34 / 8 = 4 GiB of bitmap,
    /// past the 1 GiB limit: the flow is rejected naming the key and the flow.
    #[test]
    fn a_type_history_past_its_memory_limit_is_rejected() {
        let f = FlowSpec { requests: 1, align_bytes: 512, type_persistence: 0.5, ..FlowSpec::default() };
        let spec = WorkloadSpec { source: "w.toml".into(), seed: 1, precondition: None, ramp_ms: 0.0, flows: vec![f] };
        let Err(Error::Config { key, message, .. }) = build_flows(&spec, 1, 1 << 34, 512) else {
            panic!("a 4 GiB history was accepted");
        };
        assert_eq!(key, "flows[0].type_persistence");
        assert!(message.starts_with("flow `flow0`: type_persistence keeps 2 bits per slot: 17179869185 slots of 512 bytes need 4294967312 bytes"), "{message}");
    }
}
