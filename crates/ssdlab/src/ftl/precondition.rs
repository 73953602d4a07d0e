//! Preconditioning: bring the drive to an occupancy functionally, without timing.
//!
//! Logical pages `0 .. occupancy × logical_pages` are written. `sequential` fills blocks in
//! order, every page valid. `random` builds the state a long run of uniform random
//! overwrites leaves behind, directly, instead of simulating those writes:
//!
//! Under uniform random overwrites a block loses each valid page at rate k/U per user write
//! when it holds k valid pages, so it dwells ~U/k writes at level k and the population of
//! blocks has density ∝ 1/k between the cleaning point k0 and N_p (Desnoyers, SYSTOR 2012;
//! docs/techniques.md §8). k0 follows from the plane's
//! utilisation: α(1 − x) = −ln x with x = k0 / N_p and α = data pages / valid pages. Each
//! plane's blocks get valid counts at the quantiles of that density, summing exactly to the
//! plane's share of the data; the valid pages sit at random offsets in their blocks and the
//! logical pages are shuffled over them. Blocks are aged so that fuller blocks are younger,
//! as in the real process. The data covers every block of the plane but G (the GC
//! trigger's count) plus the write frontiers, less one: once the frontiers open, the plane is
//! one block under the trigger, where paced GC keeps it (`ftl.gc.urgent_when = "paced"`):
//! GC starts at its steady state from the first writes.

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::mapping::Mapping;
use super::{static_plane, Ftl, Level};
use crate::nand::{Geometry, Lpn, NONE};

/// How preconditioning lays the data out (a workload's `precondition.pattern`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Blocks filled in order, every page valid.
    Sequential,
    /// The state uniform random overwrites leave behind.
    #[default]
    Random,
}

/// Precondition `ftl`. Returns the number of logical pages written, or an error message if
/// the occupancy does not fit. `read_first` (a bitmap over logical pages), given with a
/// channel partition, puts those pages on the Read channels first (`ftl.partition.preload`).
pub fn precondition(
    ftl: &mut Ftl,
    occupancy: f64,
    pattern: Pattern,
    seed: u64,
    read_first: Option<&[u64]>,
) -> Result<u64, String> {
    if !(0.0..=1.0).contains(&occupancy) {
        return Err(format!("occupancy {occupancy} must be in [0, 1]"));
    }
    assert_eq!(ftl.map.mapped(), 0, "precondition runs on an empty drive");
    let geo = ftl.geo.clone();
    let n = fill_pages(ftl.logical_pages() as u64, occupancy);
    if n == 0 {
        return Ok(0);
    }
    // Which plane each logical page lives on: the static order, or CWDP for dynamic
    // allocation (any spread is a valid dynamic history; this one is balanced).
    let (start, mut by_plane) = pages_by_plane(&geo, &ftl.alloc.scheme().placement_order(), n);
    if let (Some(bits), Some(part)) = (read_first, ftl.partition()) {
        let read_plane = |p: u32| !part.is_write_channel(geo.chip_of_plane(p) / geo.chips_per_channel);
        by_plane = read_pages_first(&start, n, bits, read_plane);
    }
    let ppb = geo.pages_per_block as usize;
    let usable_blocks = ftl.gc.limits.data_blocks_per_plane(&geo) as usize;
    // The random pattern spreads the data over one block more: once the write frontiers
    // open, the plane is one block under the GC trigger, where paced GC keeps it
    // (ftl.gc.urgent_when = "paced"), so GC collects from the first writes.
    let spread_blocks = usable_blocks + 1;
    ftl.prepare_fill().map_err(|e| e.to_string())?;
    let mut fill = Filler {
        rng: Pcg64Mcg::seed_from_u64(seed ^ 0x7072_6563_6f6e),
        page_lpns: vec![NONE; ppb],
        offsets: (0..ppb).collect(),
        seq: 1,
        pattern,
    };
    for p in 0..geo.planes() as usize {
        let lpns = &mut by_plane[start[p]..start[p + 1]];
        if lpns.is_empty() {
            continue;
        }
        if lpns.len() > usable_blocks * ppb {
            return Err(format!(
                "occupancy {occupancy} needs {} pages on plane {p} but only {} can hold data (raise ftl.overprovisioning_ratio or lower the occupancy)",
                lpns.len(),
                usable_blocks * ppb
            ));
        }
        fill.plane(ftl, p as u32, lpns, spread_blocks);
    }
    ftl.write_translation_pages(false);
    Ok(n)
}

/// Logical pages preconditioning writes at `occupancy` (pages `0..n`).
pub fn fill_pages(logical_pages: u64, occupancy: f64) -> u64 {
    (logical_pages as f64 * occupancy).round() as u64
}

/// Logical pages `0..n` sorted by the plane `order` places them on (a counting sort): the
/// pages of plane p are `by_plane[start[p]..start[p + 1]]`.
fn pages_by_plane(geo: &Geometry, order: &[Level; 4], n: u64) -> (Vec<usize>, Vec<Lpn>) {
    let planes = geo.planes() as usize;
    let mut start = vec![0usize; planes + 1];
    for lpn in 0..n as Lpn {
        start[static_plane(geo, order, lpn).0 as usize + 1] += 1;
    }
    for p in 0..planes {
        start[p + 1] += start[p];
    }
    let mut by_plane = vec![0 as Lpn; n as usize];
    let mut fill = start.clone();
    for lpn in 0..n as Lpn {
        let p = static_plane(geo, order, lpn).0 as usize;
        by_plane[fill[p]] = lpn;
        fill[p] += 1;
    }
    (start, by_plane)
}

/// Logical pages `0..n` dealt to the planes again, each plane keeping its count (`start`):
/// the pages marked in `read_first` go round the planes `read_plane` names first, then the
/// rest of the pages fill what is left, Read planes before Write planes.
fn read_pages_first(start: &[usize], n: u64, read_first: &[u64], read_plane: impl Fn(u32) -> bool) -> Vec<Lpn> {
    let planes = start.len() - 1;
    let marked = |l: Lpn| read_first.get(l as usize / 64).is_some_and(|w| w >> (l % 64) & 1 == 1);
    let (reads, rest): (Vec<Lpn>, Vec<Lpn>) = (0..n as Lpn).partition(|&l| marked(l));
    let (read_planes, write_planes): (Vec<u32>, Vec<u32>) = (0..planes as u32).partition(|&p| read_plane(p));
    let mut fill: Vec<usize> = start[..planes].to_vec();
    let mut by_plane = vec![0 as Lpn; n as usize];
    let mut deal = |group: &[u32], lpns: &mut dyn Iterator<Item = Lpn>| {
        let mut k = 0;
        while group.iter().any(|&p| fill[p as usize] < start[p as usize + 1]) {
            let p = group[k % group.len()] as usize;
            k += 1;
            if fill[p] == start[p + 1] {
                continue;
            }
            let Some(l) = lpns.next() else { return };
            by_plane[fill[p]] = l;
            fill[p] += 1;
        }
    };
    let mut lpns = reads.into_iter().chain(rest);
    deal(&read_planes, &mut lpns);
    deal(&write_planes, &mut lpns);
    assert!(lpns.next().is_none() && (0..planes).all(|p| fill[p] == start[p + 1]), "every page dealt");
    by_plane
}

/// Fills planes' blocks, with the state kept from one plane to the next (the random stream,
/// the blocks' opening order) and reusable buffers.
struct Filler {
    rng: Pcg64Mcg,
    /// The logical page at each offset of the block being filled (NONE: invalid).
    page_lpns: Vec<Lpn>,
    offsets: Vec<usize>,
    seq: u64,
    pattern: Pattern,
}

impl Filler {
    /// Fill plane `p`'s first blocks with its logical pages `lpns`; the random pattern
    /// spreads them over `spread_blocks`.
    fn plane(&mut self, ftl: &mut Ftl, p: u32, lpns: &mut [Lpn], spread_blocks: usize) {
        let ppb = self.page_lpns.len();
        let counts = match self.pattern {
            Pattern::Sequential => {
                let full = lpns.len() / ppb;
                let mut c = vec![ppb; full];
                if !lpns.len().is_multiple_of(ppb) {
                    c.push(lpns.len() % ppb);
                }
                c
            }
            Pattern::Random => {
                lpns.shuffle(&mut self.rng);
                steady_state_counts(lpns.len(), spread_blocks, ppb)
            }
        };
        // Oldest (fewest valid) first, so opening order matches the decay.
        let mut order: Vec<usize> = (0..counts.len()).collect();
        order.sort_by_key(|&i| (counts[i], i));
        let mut age_rank = vec![0u64; counts.len()];
        for (rank, &i) in order.iter().enumerate() {
            age_rank[i] = rank as u64;
        }
        let mut next = 0usize;
        for (i, &k) in counts.iter().enumerate() {
            next = self.place(&lpns[..], next, k);
            let pages_written = if self.pattern == Pattern::Sequential { k } else { ppb };
            let block = p * ftl.geo.blocks_per_plane + i as u32;
            ftl.blocks.fill_block(block, &self.page_lpns[..pages_written], self.seq + age_rank[i]);
            let base = block * ftl.geo.pages_per_block;
            for (o, &l) in self.page_lpns[..pages_written].iter().enumerate() {
                if l != NONE {
                    ftl.map.set(l, base + o as u32);
                }
            }
        }
        assert_eq!(next, lpns.len(), "plane {p}: placed {next} of {} pages", lpns.len());
        self.seq += counts.len() as u64;
    }

    /// Lay out a block of `k` valid pages, `lpns[next..next + k]`, in `page_lpns`: at random
    /// offsets (random pattern, a partly valid block), else from offset 0. Returns the next
    /// page to place.
    fn place(&mut self, lpns: &[Lpn], mut next: usize, k: usize) -> usize {
        let ppb = self.page_lpns.len();
        self.page_lpns.iter_mut().for_each(|x| *x = NONE);
        if self.pattern == Pattern::Random && k < ppb {
            // k random offsets out of ppb (partial Fisher–Yates).
            for j in 0..k {
                let r = self.rng.random_range(j..ppb);
                self.offsets.swap(j, r);
            }
            for &o in &self.offsets[..k] {
                self.page_lpns[o] = lpns[next];
                next += 1;
            }
        } else {
            for slot in self.page_lpns.iter_mut().take(k) {
                *slot = lpns[next];
                next += 1;
            }
        }
        next
    }
}

/// Valid-page counts of `blocks` blocks of `ppb` pages holding `valid` pages in total, at
/// the quantiles of the steady-state density ∝ 1/k on [k0, ppb].
pub fn steady_state_counts(valid: usize, blocks: usize, ppb: usize) -> Vec<usize> {
    let alpha = (blocks * ppb) as f64 / valid as f64;
    if alpha <= 1.0 + 1e-9 {
        return vec![ppb; valid / ppb];
    }
    let x = cleaning_point(alpha);
    let k0 = (x * ppb as f64).max(1e-3);
    let np = ppb as f64;
    let ratio = np / k0;
    let mut real: Vec<f64> = (0..blocks).map(|i| k0 * ratio.powf((i as f64 + 0.5) / blocks as f64)).collect();
    // Scale to the exact total, then round keeping the sum.
    let sum: f64 = real.iter().sum();
    let scale = valid as f64 / sum;
    real.iter_mut().for_each(|r| *r = (*r * scale).min(np));
    let mut counts: Vec<usize> = real.iter().map(|&r| r.floor() as usize).collect();
    let mut missing = valid - counts.iter().sum::<usize>();
    // Hand out the remainder to the largest fractional parts (deterministic order).
    let mut frac: Vec<(f64, usize)> = real.iter().enumerate().map(|(i, &r)| (r - r.floor(), i)).collect();
    frac.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut i = 0;
    while missing > 0 {
        let idx = frac[i % blocks].1;
        if counts[idx] < ppb {
            counts[idx] += 1;
            missing -= 1;
        }
        i += 1;
    }
    counts
}

/// Solve α(1 − x) = −ln x for the non-trivial root x in (0, 1) (Newton on v − e^{−α(1−v)}
/// from v = 0, which rises monotonically to it).
pub fn cleaning_point(alpha: f64) -> f64 {
    let mut v = 0.0f64;
    for _ in 0..200 {
        let e = (-alpha * (1.0 - v)).exp();
        let next = v - (v - e) / (1.0 - alpha * e);
        if (next - v).abs() < 1e-15 {
            return next;
        }
        v = next;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_point_matches_lrw_write_amplification() {
        // WAF = 1 / (1 − v): 7.318 at S_f 7%, 2.693 at 20% (docs/techniques.md §8 table).
        for (sf, waf) in [(0.07, 7.318), (0.125, 4.182), (0.20, 2.693), (0.28, 1.992)] {
            let v = cleaning_point(1.0 / (1.0 - sf));
            assert!((1.0 / (1.0 - v) - waf).abs() < 0.001, "S_f {sf}: {}", 1.0 / (1.0 - v));
        }
    }

    /// 12 pages on 4 planes of 3, planes 0 and 2 on Read channels, pages 1, 4, 5, 7, 10 read
    /// first: those go round planes 0 and 2 (1 → 0, 4 → 2, 5 → 0, 7 → 2, 10 → 0), page 0 fills
    /// plane 2, and the rest go round planes 1 and 3 in order.
    #[test]
    fn read_first_pages_fill_the_read_planes_first() {
        let marked = [1u64 << 1 | 1 << 4 | 1 << 5 | 1 << 7 | 1 << 10];
        let by_plane = read_pages_first(&[0, 3, 6, 9, 12], 12, &marked, |p| p % 2 == 0);
        assert_eq!(by_plane, vec![1, 5, 10, 2, 6, 9, 4, 7, 0, 3, 8, 11]);
    }

    #[test]
    fn steady_state_counts_sum_and_spread() {
        let c = steady_state_counts(80_000, 1000, 100);
        assert_eq!(c.iter().sum::<usize>(), 80_000);
        assert!(c.iter().all(|&k| k <= 100));
        // α = 1.25: x = 1 − 1/WAF = 1 − 1/2.693 ≈ 0.629, so the emptiest blocks hold ~63 pages.
        let min = *c.iter().min().unwrap();
        assert!((60..=66).contains(&min), "min {min}");
        assert_eq!(*c.iter().max().unwrap(), 100);
    }
}
