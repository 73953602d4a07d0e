//! Flash translation layer: mapping, allocation, block management, GC victim choice, wear
//! levelling and preconditioning.
//!
//! Owns where every logical page lives. It answers three questions for the simulation
//! loop — where does this read go, which plane gets this write, which block should GC clean
//! next — and keeps the books (map, reverse map, valid counts, free blocks) consistent as
//! pages are programmed, invalidated and erased. The flash transactions that carry out GC
//! are issued by the loop (`sim`), through the TSU, like any other work.
//!
//! Extension points: [`mapping::Mapping`] (mapping schemes), [`AllocationScheme`]
//! (plane choice for writes), [`VictimPolicy`] (GC victim choice).

pub mod blocks;
pub mod mapping;
pub mod precondition;

use rand::RngExt;
use rand_pcg::Pcg64Mcg;

use crate::config::Config;
use crate::nand::{Geometry, Lpn, Ppn, NONE};
pub use blocks::{BlockState, Blocks, Stream};
use mapping::{Mapping, PageMap};

/// Resource levels of a static allocation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Channel = 0,
    Way = 1,
    Die = 2,
    Plane = 3,
}

/// How a write picks its plane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllocationScheme {
    /// One of the 24 orders of channel (C), way (W), die (D) and plane (P): the first letter
    /// varies fastest with the logical page number (CWDP stripes pages over channels first).
    Static([Level; 4]),
    /// Static for the leading `fixed` levels of `order` (1 to 3 letters given, e.g. `CW`:
    /// the channel and the chip follow the logical page as in `CWDP`), dynamic for the rest:
    /// among the planes those levels leave open, the one with the fewest writes assigned
    /// and not yet programmed, then the lowest write point in its block, then in rotation
    /// (dies before planes). With `CW` a chip's queued writes spread over its dies and
    /// planes, so they can meet in one die-interleaved or multi-plane command. `order` lists the missing letters after the
    /// given ones, in `CWDP` order; preconditioning places data by the full `order`.
    Hybrid { order: [Level; 4], fixed: usize },
    /// Dynamic allocation: the least busy chip first (fewest queued transactions; ties go
    /// round-robin), then dies and planes round-robin within it.
    Dynamic,
}

impl AllocationScheme {
    pub fn parse(s: &str) -> Result<AllocationScheme, String> {
        if s.eq_ignore_ascii_case("dynamic") {
            return Ok(AllocationScheme::Dynamic);
        }
        let up = s.to_ascii_uppercase();
        let mut levels = [Level::Channel; 4];
        let mut seen = [false; 4];
        if up.is_empty() || up.len() > 4 {
            return Err(format!(
                "`{s}` is not an allocation scheme: use dynamic, a permutation of CWDP such as CWDP, WCDP, PDWC, \
                 or its first 1 to 3 letters (static), the rest dynamic, such as CW"
            ));
        }
        for (i, ch) in up.chars().enumerate() {
            let (l, k) = match ch {
                'C' => (Level::Channel, 0),
                'W' => (Level::Way, 1),
                'D' => (Level::Die, 2),
                'P' => (Level::Plane, 3),
                _ => return Err(format!("`{s}` is not an allocation scheme: letters must be C, W, D, P")),
            };
            if seen[k] {
                return Err(format!("`{s}` repeats `{ch}`: use each of C, W, D, P once"));
            }
            seen[k] = true;
            levels[i] = l;
        }
        let fixed = up.len();
        if fixed == 4 {
            return Ok(AllocationScheme::Static(levels));
        }
        let mut i = fixed;
        for (k, l) in [Level::Channel, Level::Way, Level::Die, Level::Plane].into_iter().enumerate() {
            if !seen[k] {
                levels[i] = l;
                i += 1;
            }
        }
        Ok(AllocationScheme::Hybrid { order: levels, fixed })
    }

    /// The full order data is placed by when no write chose its plane (preconditioning).
    pub fn placement_order(&self) -> [Level; 4] {
        match self {
            AllocationScheme::Static(o) | AllocationScheme::Hybrid { order: o, .. } => *o,
            AllocationScheme::Dynamic => [Level::Channel, Level::Way, Level::Die, Level::Plane],
        }
    }
}

/// Decompose a logical page over the resources in a static order (mixed radix, first level
/// fastest). Returns the flat plane index and the quotient left after the four levels.
pub fn static_plane(geo: &Geometry, order: &[Level; 4], lpn: Lpn) -> (u32, u32) {
    let mut x = lpn;
    let div = geo.level_divisors();
    let mut coord = [0u32; 4];
    for &level in order {
        let k = level as usize;
        coord[k] = div[k].remainder(x);
        x = div[k].quotient(x);
    }
    let [c, w, d, p] = coord;
    (geo.plane_index(c, w, d, p), x)
}

/// GC victim choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VictimPolicy {
    /// Fewest valid pages.
    Greedy,
    /// Largest age × (1 − u) / 2u (Kawaguchi et al.), age in block openings since written.
    CostBenefit,
    /// A uniformly random full block.
    Random,
    /// The oldest full block (least recently written: LRW).
    Fifo,
    /// Fewest valid pages among d random full blocks.
    DChoices,
}

impl VictimPolicy {
    pub fn parse(s: &str) -> Result<VictimPolicy, String> {
        Ok(match s {
            "greedy" => VictimPolicy::Greedy,
            "cost_benefit" => VictimPolicy::CostBenefit,
            "random" => VictimPolicy::Random,
            "fifo" => VictimPolicy::Fifo,
            "d_choices" => VictimPolicy::DChoices,
            _ => return Err(format!("`{s}` is not a GC policy: use greedy, cost_benefit, random, fifo or d_choices")),
        })
    }
}

/// Block counts derived from the GC thresholds of a config.
pub struct Limits {
    /// GC starts on a plane below this many free blocks.
    pub gc_threshold_blocks: u32,
    /// User writes wait at or below this many free blocks.
    pub user_reserve_blocks: u32,
    pub background_threshold_blocks: u32,
}

impl Limits {
    pub fn new(config: &Config) -> Limits {
        let f = &config.ftl;
        let bpp = config.nand.blocks_per_plane as f64;
        let user_reserve = ((bpp * f.gc.hard_threshold).ceil() as u32).max(1);
        let gc_threshold = ((bpp * f.gc.threshold).ceil() as u32).max(user_reserve + 1);
        Limits {
            gc_threshold_blocks: gc_threshold,
            user_reserve_blocks: user_reserve,
            background_threshold_blocks: (bpp * f.gc.background_threshold).ceil() as u32,
        }
    }

    /// Blocks per plane that hold data in steady state: all but the ones GC keeps free and
    /// the two open frontiers (user and GC streams).
    pub fn data_blocks_per_plane(&self, geo: &Geometry) -> u32 {
        geo.blocks_per_plane.saturating_sub(self.gc_threshold_blocks + 2)
    }
}

pub struct Ftl {
    pub geo: Geometry,
    pub map: PageMap,
    pub blocks: Blocks,
    pub allocation: AllocationScheme,
    pub victim_policy: VictimPolicy,
    /// GC starts on a plane below this many free blocks.
    pub gc_threshold_blocks: u32,
    /// User writes wait at or below this many free blocks.
    pub user_reserve_blocks: u32,
    pub background_threshold_blocks: u32,
    pub gc_d: u32,
    pub static_wl_threshold: u32,
    pub unwritten_read_flash: bool,
    /// Per plane: the block GC is cleaning, or NONE.
    pub gc_victim: Vec<u32>,
    /// Planes with a victim now (entries of `gc_victim` that are not NONE).
    collecting: u32,
    /// Per plane: page moves of the current victim not yet finished.
    pub gc_pending: Vec<u32>,
    rr_chip: u32,
    /// Rotation points: per chip (dynamic), per group of candidate planes (hybrid, indexed by
    /// the group's first plane).
    rr_plane: Vec<u32>,
    /// Per plane: writes given this plane and not yet programmed (hybrid allocation).
    unprogrammed: Vec<u32>,
    rng: Pcg64Mcg,
}

impl Ftl {
    pub fn new(config: &Config, seed: u64) -> Ftl {
        use rand::SeedableRng;
        let geo = Geometry::from_config(config);
        let f = &config.ftl;
        let logical = logical_pages(&geo, f.overprovisioning_ratio);
        let limits = Limits::new(config);
        Ftl {
            map: PageMap::new(logical),
            blocks: Blocks::new(&geo, f.wear_leveling.dynamic),
            allocation: AllocationScheme::parse(&f.allocation).expect("validated config"),
            victim_policy: VictimPolicy::parse(&f.gc.policy).expect("validated config"),
            gc_threshold_blocks: limits.gc_threshold_blocks,
            user_reserve_blocks: limits.user_reserve_blocks,
            background_threshold_blocks: limits.background_threshold_blocks,
            gc_d: f.gc.d,
            static_wl_threshold: f.wear_leveling.static_threshold,
            unwritten_read_flash: f.unwritten_read == "flash",
            gc_victim: vec![NONE; geo.planes() as usize],
            collecting: 0,
            gc_pending: vec![0; geo.planes() as usize],
            rr_chip: 0,
            rr_plane: vec![0; geo.planes() as usize],
            unprogrammed: vec![0; geo.planes() as usize],
            rng: Pcg64Mcg::seed_from_u64(seed ^ 0x6674_6c5f_7263),
            geo,
        }
    }

    pub fn logical_pages(&self) -> u32 {
        self.map.logical_pages()
    }

    /// Physical pages that can hold data in steady state: all blocks but the ones GC keeps
    /// free and the open frontiers (one per stream per plane).
    pub fn data_pages(&self) -> u64 {
        let per_plane = (Limits {
            gc_threshold_blocks: self.gc_threshold_blocks,
            user_reserve_blocks: 0,
            background_threshold_blocks: 0,
        })
        .data_blocks_per_plane(&self.geo) as u64;
        per_plane * self.geo.planes() as u64 * self.geo.pages_per_block as u64
    }

    /// Desnoyers' spare factor S_f = (data pages − logical pages) / data pages, where data
    /// pages are all pages but the open frontiers (two blocks per plane) and the free blocks
    /// GC keeps: `mean_free_blocks` per plane as measured while GC ran, or the GC threshold
    /// when GC never ran.
    pub fn effective_spare_factor(&self, mean_free_blocks: Option<f64>) -> f64 {
        let t = match mean_free_blocks {
            Some(free) => {
                (self.geo.blocks_per_plane as f64 - free - 2.0)
                    * self.geo.planes() as f64
                    * self.geo.pages_per_block as f64
            }
            None => self.data_pages() as f64,
        };
        (t - self.logical_pages() as f64) / t
    }

    /// The plane a read of `lpn` goes to and its page; for a never-written page, the place
    /// static CWDP allocation would have given it (or None with `unwritten_read = zero`).
    pub fn read_target(&self, lpn: Lpn) -> Option<Ppn> {
        let ppn = self.map.get(lpn);
        if ppn != NONE {
            return Some(ppn);
        }
        if !self.unwritten_read_flash {
            return None;
        }
        Some(self.phantom_ppn(lpn))
    }

    /// Where a never-written logical page is read from (no state is kept for it).
    pub fn phantom_ppn(&self, lpn: Lpn) -> Ppn {
        const CWDP: [Level; 4] = [Level::Channel, Level::Way, Level::Die, Level::Plane];
        let (plane, rest) = static_plane(&self.geo, &CWDP, lpn);
        // Block rest / pages_per_block, page rest % pages_per_block, folded into the plane.
        plane * self.geo.pages_per_plane() + self.geo.wrap_in_plane(rest)
    }

    /// The plane a write of `lpn` goes to. `chip_load` is the number of transactions queued
    /// or running per chip (for dynamic allocation).
    pub fn write_plane(&mut self, lpn: Lpn, chip_load: &[u32]) -> u32 {
        let plane = match &self.allocation {
            AllocationScheme::Static(order) => static_plane(&self.geo, order, lpn).0,
            AllocationScheme::Hybrid { order, fixed } => {
                let (order, fixed) = (*order, *fixed);
                self.hybrid_plane(&order, fixed, lpn)
            }
            AllocationScheme::Dynamic => {
                let chips = self.geo.chips();
                let start = self.rr_chip;
                let mut best = start % chips;
                for k in 0..chips {
                    let c = (start + k) % chips;
                    if chip_load[c as usize] < chip_load[best as usize] {
                        best = c;
                    }
                }
                self.rr_chip = (best + 1) % chips;
                let ppc = self.geo.planes_per_chip();
                let r = &mut self.rr_plane[best as usize];
                // Rotate dies first, then planes, so consecutive writes spread over dies.
                let (d, p) = (*r % self.geo.dies_per_chip, (*r / self.geo.dies_per_chip) % self.geo.planes_per_die);
                *r = (*r + 1) % ppc;
                best * ppc + d * self.geo.planes_per_die + p
            }
        };
        self.unprogrammed[plane as usize] += 1;
        plane
    }

    /// A write given `plane` by [`Ftl::write_plane`] is being programmed.
    pub fn write_programmed(&mut self, plane: u32) {
        let n = &mut self.unprogrammed[plane as usize];
        assert!(*n > 0, "plane {plane}: programmed more user writes than were given it");
        *n -= 1;
    }

    /// Hybrid allocation: the static levels from `lpn`, then the candidate with the fewest
    /// unprogrammed writes; among those the one whose write point is lowest in its block, so
    /// a plane that fell behind its neighbours catches up and their write points meet at the
    /// same page offset (which multi-plane programs need); remaining ties in rotation from
    /// the group's last choice (first dynamic level fastest: dies before planes under `CW`).
    fn hybrid_plane(&mut self, order: &[Level; 4], fixed: usize, lpn: Lpn) -> u32 {
        let div = self.geo.level_divisors();
        let mut coord = [0u32; 4];
        let mut x = lpn;
        for &level in &order[..fixed] {
            let k = level as usize;
            coord[k] = div[k].remainder(x);
            x = div[k].quotient(x);
        }
        let radix = |l: Level| -> u32 {
            match l {
                Level::Channel => self.geo.channels,
                Level::Way => self.geo.chips_per_channel,
                Level::Die => self.geo.dies_per_chip,
                Level::Plane => self.geo.planes_per_die,
            }
        };
        let candidates: u32 = order[fixed..].iter().map(|&l| radix(l)).product();
        let plane_at = |mut k: u32, coord: &mut [u32; 4]| {
            for &level in &order[fixed..] {
                let r = radix(level);
                coord[level as usize] = k % r;
                k /= r;
            }
            let [c, w, d, p] = *coord;
            self.geo.plane_index(c, w, d, p)
        };
        let group = plane_at(0, &mut coord) as usize;
        let start = self.rr_plane[group];
        let mut best = ((u32::MAX, u32::MAX), 0u32, 0u32);
        for i in 0..candidates {
            let k = (start + i) % candidates;
            let plane = plane_at(k, &mut coord);
            let offset = self.blocks.next_offset(plane, Stream::User, self.user_reserve_blocks).unwrap_or(u32::MAX);
            let key = (self.unprogrammed[plane as usize], offset);
            if key < best.0 {
                best = (key, k, plane);
            }
        }
        self.rr_plane[group] = (best.1 + 1) % candidates;
        best.2
    }

    /// Map `lpn` to the freshly programmed `ppn`, invalidating its previous page.
    pub fn commit_write(&mut self, lpn: Lpn, ppn: Ppn) {
        let old = self.map.get(lpn);
        if old != NONE {
            self.blocks.invalidate(old);
        }
        self.blocks.program(ppn, lpn);
        self.map.set(lpn, ppn);
    }

    /// TRIM: forget `lpn`.
    pub fn trim(&mut self, lpn: Lpn) {
        let old = self.map.get(lpn);
        if old != NONE {
            self.blocks.invalidate(old);
            self.map.clear(lpn);
        }
    }

    /// Planes collecting garbage now.
    pub fn collecting_planes(&self) -> u32 {
        self.collecting
    }

    /// Whether `plane` should start GC now (below the threshold and not already collecting).
    pub fn needs_gc(&self, plane: u32) -> bool {
        self.gc_victim[plane as usize] == NONE && self.blocks.free_blocks(plane) < self.gc_threshold_blocks
    }

    /// Whether background GC may clean `plane` while its chip is idle.
    pub fn wants_background_gc(&self, plane: u32) -> bool {
        self.gc_victim[plane as usize] == NONE && self.blocks.free_blocks(plane) < self.background_threshold_blocks
    }

    /// Choose a victim in `plane` and mark it; returns None if no block would free space.
    pub fn start_gc(&mut self, plane: u32) -> Option<u32> {
        let victim = self.static_wl_victim(plane).or_else(|| self.select_victim(plane))?;
        self.blocks.state[victim as usize] = BlockState::Victim;
        self.gc_victim[plane as usize] = victim;
        self.collecting += 1;
        Some(victim)
    }

    fn closed_blocks(&self, plane: u32) -> std::ops::Range<u32> {
        let first = plane * self.geo.blocks_per_plane;
        first..first + self.geo.blocks_per_plane
    }

    fn select_victim(&mut self, plane: u32) -> Option<u32> {
        let ppb = self.geo.pages_per_block as u16;
        let b = &self.blocks;
        let reclaimable = |x: u32| b.state[x as usize] == BlockState::Closed && b.valid[x as usize] < ppb;
        let range = self.closed_blocks(plane);
        match self.victim_policy {
            VictimPolicy::Greedy => range.filter(|&x| reclaimable(x)).min_by_key(|&x| (b.valid[x as usize], x)),
            VictimPolicy::Fifo => range.filter(|&x| reclaimable(x)).min_by_key(|&x| b.opened_seq[x as usize]),
            VictimPolicy::CostBenefit => {
                let now = range.clone().map(|x| b.opened_seq[x as usize]).max().unwrap_or(0);
                let mut best: Option<(f64, u32)> = None;
                for x in range.filter(|&x| reclaimable(x)) {
                    let u = b.valid[x as usize] as f64 / ppb as f64;
                    let age = (now - b.opened_seq[x as usize] + 1) as f64;
                    let score = if u == 0.0 { f64::INFINITY } else { age * (1.0 - u) / (2.0 * u) };
                    if best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, x));
                    }
                }
                best.map(|(_, x)| x)
            }
            VictimPolicy::Random | VictimPolicy::DChoices => {
                let candidates: u32 = range.clone().filter(|&x| reclaimable(x)).count() as u32;
                if candidates == 0 {
                    return None;
                }
                let draws = if self.victim_policy == VictimPolicy::Random { 1 } else { self.gc_d };
                let mut best: Option<u32> = None;
                for _ in 0..draws {
                    let k = self.rng.random_range(0..candidates);
                    let x = range.clone().filter(|&x| reclaimable(x)).nth(k as usize).expect("k < candidates");
                    if best.is_none_or(|y| (b.valid[x as usize], x) < (b.valid[y as usize], y)) {
                        best = Some(x);
                    }
                }
                best
            }
        }
    }

    /// Static wear levelling: when the plane's erase-count spread exceeds the threshold,
    /// clean its least-erased full block so its (cold) data moves onto a worn block.
    fn static_wl_victim(&self, plane: u32) -> Option<u32> {
        if self.static_wl_threshold == 0 {
            return None;
        }
        let b = &self.blocks;
        let range = self.closed_blocks(plane);
        let max = range.clone().map(|x| b.erase_count[x as usize]).max()?;
        let coldest = range
            .filter(|&x| b.state[x as usize] == BlockState::Closed)
            .min_by_key(|&x| (b.erase_count[x as usize], x))?;
        (max - b.erase_count[coldest as usize] > self.static_wl_threshold).then_some(coldest)
    }

    /// GC of `plane` finished: erase its victim and free the block.
    pub fn finish_gc(&mut self, plane: u32) -> u32 {
        let victim = self.gc_victim[plane as usize];
        assert!(victim != NONE, "finish_gc on plane {plane} without a victim");
        self.blocks.erase(victim);
        self.gc_victim[plane as usize] = NONE;
        self.collecting -= 1;
        victim
    }

    /// Check map ↔ reverse map agreement and the block manager's books.
    pub fn check(&self) {
        self.blocks.check();
        let mut mapped = 0u64;
        for lpn in 0..self.logical_pages() {
            let ppn = self.map.get(lpn);
            if ppn != NONE {
                mapped += 1;
                assert_eq!(self.blocks.lpn_at(ppn), lpn, "map says lpn {lpn} is at ppn {ppn}, reverse map disagrees");
            }
        }
        let valid: u64 = self.blocks.valid.iter().map(|&v| v as u64).sum();
        assert_eq!(valid, mapped, "valid pages ({valid}) differ from mapped logical pages ({mapped})");
        let victims = self.gc_victim.iter().filter(|&&v| v != NONE).count() as u32;
        assert_eq!(self.collecting, victims, "planes counted as collecting differ from planes with a victim");
    }

    pub fn state_bytes(&self) -> u64 {
        self.map.state_bytes() + self.blocks.state_bytes()
    }
}

/// Logical pages exposed: physical pages minus the over-provisioned fraction.
pub fn logical_pages(geo: &Geometry, overprovisioning_ratio: f64) -> u32 {
    (geo.pages() as f64 * (1.0 - overprovisioning_ratio)).floor() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2 channels x 3 chips x 2 dies x 2 planes.
    fn config() -> Config {
        let mut c = Config::default();
        c.nand.channels = 2;
        c.nand.chips_per_channel = 3;
        c.nand.dies_per_chip = 2;
        c.nand.planes_per_die = 2;
        c
    }

    fn geo() -> Geometry {
        Geometry::from_config(&config())
    }

    #[test]
    fn static_orders_follow_their_letters() {
        let g = geo();
        let cwdp = match AllocationScheme::parse("CWDP").unwrap() {
            AllocationScheme::Static(o) => o,
            _ => unreachable!(),
        };
        // CWDP: lpn 0,1 alternate channels; lpn 2 moves to the next chip of channel 0.
        assert_eq!(static_plane(&g, &cwdp, 0).0, g.plane_index(0, 0, 0, 0));
        assert_eq!(static_plane(&g, &cwdp, 1).0, g.plane_index(1, 0, 0, 0));
        assert_eq!(static_plane(&g, &cwdp, 2).0, g.plane_index(0, 1, 0, 0));
        assert_eq!(static_plane(&g, &cwdp, 6).0, g.plane_index(0, 0, 1, 0));
        assert_eq!(static_plane(&g, &cwdp, 12).0, g.plane_index(0, 0, 0, 1));
        assert_eq!(static_plane(&g, &cwdp, 24), (g.plane_index(0, 0, 0, 0), 1));
        let pdwc = match AllocationScheme::parse("pdwc").unwrap() {
            AllocationScheme::Static(o) => o,
            _ => unreachable!(),
        };
        assert_eq!(static_plane(&g, &pdwc, 1).0, g.plane_index(0, 0, 0, 1));
        assert_eq!(static_plane(&g, &pdwc, 2).0, g.plane_index(0, 0, 1, 0));
        assert_eq!(static_plane(&g, &pdwc, 4).0, g.plane_index(0, 1, 0, 0));
        assert_eq!(static_plane(&g, &pdwc, 12).0, g.plane_index(1, 0, 0, 0));
        // All 24 permutations parse and cover every plane exactly once per stripe.
        let letters = ['C', 'W', 'D', 'P'];
        let mut count = 0;
        for a in letters {
            for b in letters {
                for c in letters {
                    for d in letters {
                        let s: String = [a, b, c, d].iter().collect();
                        if let Ok(AllocationScheme::Static(o)) = AllocationScheme::parse(&s) {
                            count += 1;
                            let mut seen = vec![false; g.planes() as usize];
                            for l in 0..g.planes() {
                                seen[static_plane(&g, &o, l).0 as usize] = true;
                            }
                            assert!(seen.iter().all(|&x| x), "{s} misses a plane");
                        }
                    }
                }
            }
        }
        assert_eq!(count, 24);
        assert!(AllocationScheme::parse("CWDD").is_err());
    }

    #[test]
    fn hybrid_orders_fix_the_given_letters_and_balance_the_rest() {
        use Level::*;
        assert_eq!(
            AllocationScheme::parse("cw"),
            Ok(AllocationScheme::Hybrid { order: [Channel, Way, Die, Plane], fixed: 2 })
        );
        assert_eq!(
            AllocationScheme::parse("PD"),
            Ok(AllocationScheme::Hybrid { order: [Plane, Die, Channel, Way], fixed: 2 })
        );
        assert_eq!(
            AllocationScheme::parse("W"),
            Ok(AllocationScheme::Hybrid { order: [Way, Channel, Die, Plane], fixed: 1 })
        );
        assert!(AllocationScheme::parse("").is_err());
        assert!(AllocationScheme::parse("CWC").is_err());
        assert!(AllocationScheme::parse("CWDPC").is_err());

        // 2 channels x 3 chips x 2 dies x 2 planes; "CW": lpn 7 -> channel 1, chip 0 (as CWDP),
        // so the candidates are planes 12..16 of chip 3 (die-major: 12 = d0p0, 13 = d0p1,
        // 14 = d1p0, 15 = d1p1), scanned dies first from the rotation point.
        let mut c = config();
        c.nand.blocks_per_plane = 8;
        c.nand.pages_per_block = 4;
        c.ftl.allocation = "CW".into();
        let mut ftl = Ftl::new(&c, 1);
        let g = ftl.geo.clone();
        assert_eq!(g.chip_of_plane(static_plane(&g, &[Channel, Way, Die, Plane], 7).0), 3);
        // Nothing queued, every write point at offset 0: rotation d0p0, d1p0, d0p1, d1p1.
        let first: Vec<u32> = (0..4).map(|_| ftl.write_plane(7, &[])).collect();
        assert_eq!(first, vec![12, 14, 13, 15]);
        // Each plane now has one unprogrammed write. Program all four, and only plane 12's
        // write point moves (to offset 1): 13, 14 and 15 lag behind it at offset 0, so they
        // go first, in rotation order (the pointer is back at d0p0, which is skipped).
        for p in [12, 13, 14, 15] {
            ftl.write_programmed(p);
        }
        let (ppn, _) = ftl.blocks.allocate(12, Stream::User, ftl.user_reserve_blocks).unwrap();
        ftl.commit_write(7, ppn);
        assert_eq!(ftl.write_plane(7, &[]), 14);
        assert_eq!(ftl.write_plane(7, &[]), 13);
        assert_eq!(ftl.write_plane(7, &[]), 15);
        // All three lagging planes now carry a write: plane 12 (no load, offset 1) is next.
        assert_eq!(ftl.write_plane(7, &[]), 12);
        // Another chip's page (lpn 0 -> chip 0) never lands on chip 3.
        assert_eq!(g.chip_of_plane(ftl.write_plane(0, &[])), 0);
    }
}
