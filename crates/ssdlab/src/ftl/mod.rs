//! Flash translation layer: mapping, allocation, block management, GC victim choice, wear
//! levelling and preconditioning.
//!
//! Owns where every logical page lives. It answers the simulation loop's questions — where
//! does this read go ([`Ftl::translate_read`]), which plane gets this write
//! ([`Ftl::write_plane`]), which page does this program take ([`Ftl::allocate`]), which
//! block should GC clean next and which pages must it move ([`Ftl::start_gc`]) — and keeps
//! the books (map, reverse map, valid counts, free blocks) consistent as pages are
//! programmed, invalidated and erased. Its state is private: the loop uses these methods, and
//! the TSU's builder reads it through [`FtlView`]. The flash transactions that carry out GC
//! are issued by the loop (`sim`), through the TSU, like any other work.
//!
//! Parts, one module each: [`mapping`] (the map; [`mapping::Mapping`] for mapping schemes),
//! [`alloc`] (plane choice for writes, [`AllocationScheme`]), [`blocks`] (block manager),
//! [`gc`] (GC control and [`VictimPolicy`]), [`precondition`]. The choices ([`MappingKind`],
//! [`AllocationScheme`], [`VictimPolicy`], [`UnwrittenRead`]) are also the types of their
//! config keys, so a config that deserialises names only valid ones.

pub mod alloc;
pub mod blocks;
pub mod gc;
pub mod mapping;
pub mod precondition;

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::check::Oracle;
use crate::config::Config;
use crate::nand::{Geometry, Lpn, Ppn, NONE};
use crate::tsu::builder::FtlView;
use crate::tsu::GcUrgency;
use alloc::Allocator;
pub use blocks::{BlockState, Blocks, LivePage, Stream};
use gc::Gc;
use mapping::page::PageMap;
pub use mapping::MappingKind;
use mapping::{Mapping, Translation};

/// Resource levels of a static allocation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Channel = 0,
    Way = 1,
    Die = 2,
    Plane = 3,
}

/// How a write picks its plane (`ftl.allocation`). Written in a config as its letters, in any
/// case (`CWDP`, `cw`), or `dynamic`; serialised as upper-case letters or `dynamic`.
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
    /// Channels first, then ways, dies and planes (MQSim's default).
    pub const CWDP: AllocationScheme = AllocationScheme::Static([Level::Channel, Level::Way, Level::Die, Level::Plane]);

    /// Read a scheme written in a config (letters in any case, or `dynamic`); the error says
    /// what is wrong with it.
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

impl Level {
    fn letter(self) -> char {
        match self {
            Level::Channel => 'C',
            Level::Way => 'W',
            Level::Die => 'D',
            Level::Plane => 'P',
        }
    }
}

/// The canonical spelling [`AllocationScheme::parse`] reads back: the static letters in
/// upper case (`CWDP`, `CW`), or `dynamic`.
impl fmt::Display for AllocationScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (order, fixed) = match self {
            AllocationScheme::Static(order) => (order, 4),
            AllocationScheme::Hybrid { order, fixed } => (order, *fixed),
            AllocationScheme::Dynamic => return f.write_str("dynamic"),
        };
        order[..fixed].iter().try_for_each(|l| write!(f, "{}", l.letter()))
    }
}

impl Serialize for AllocationScheme {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AllocationScheme {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        AllocationScheme::parse(&s).map_err(serde::de::Error::custom)
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

/// GC victim choice (`ftl.gc.policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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

/// What a read of a never-written logical page does (`ftl.unwritten_read`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnwrittenRead {
    /// Read the page static allocation would have given it (a fresh drive has realistic
    /// read timing).
    Flash,
    /// Complete without touching flash.
    Zero,
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
    geo: Geometry,
    map: PageMap,
    blocks: Blocks,
    alloc: Allocator,
    gc: Gc,
    unwritten_read: UnwrittenRead,
}

impl Ftl {
    pub fn new(config: &Config, seed: u64) -> Ftl {
        let geo = Geometry::from_config(config);
        let f = &config.ftl;
        Ftl {
            map: match f.mapping {
                MappingKind::Page => PageMap::new(logical_pages(&geo, f.overprovisioning_ratio)),
            },
            blocks: Blocks::new(&geo, f.wear_leveling.dynamic),
            alloc: Allocator::new(&geo, f.allocation.clone()),
            gc: Gc::new(config, &geo, seed),
            unwritten_read: f.unwritten_read,
            geo,
        }
    }

    pub fn geo(&self) -> &Geometry {
        &self.geo
    }

    pub fn logical_pages(&self) -> u32 {
        self.map.logical_pages()
    }

    /// Physical pages that can hold data in steady state: all blocks but the ones GC keeps
    /// free and the open frontiers (one per stream per plane).
    pub fn data_pages(&self) -> u64 {
        let per_plane = self.gc.limits.data_blocks_per_plane(&self.geo) as u64;
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

    // ------------------------------------------------------------ translation

    /// Where a read of `lpn` goes: its page; for a never-written page, the place static CWDP
    /// allocation would have given it, or no flash at all with `ftl.unwritten_read = "zero"`.
    pub fn translate_read(&self, lpn: Lpn) -> Translation {
        let ppn = self.map.get(lpn);
        if ppn != NONE {
            return Translation::Flash(ppn);
        }
        match self.unwritten_read {
            UnwrittenRead::Flash => Translation::Flash(self.phantom_ppn(lpn)),
            UnwrittenRead::Zero => Translation::Unwritten,
        }
    }

    /// The page `lpn` is mapped to, or NONE.
    #[inline]
    pub fn mapped_page(&self, lpn: Lpn) -> Ppn {
        self.map.get(lpn)
    }

    /// Where a never-written logical page is read from (no state is kept for it).
    pub fn phantom_ppn(&self, lpn: Lpn) -> Ppn {
        const CWDP: [Level; 4] = [Level::Channel, Level::Way, Level::Die, Level::Plane];
        let (plane, rest) = static_plane(&self.geo, &CWDP, lpn);
        // Block rest / pages_per_block, page rest % pages_per_block, folded into the plane.
        plane * self.geo.pages_per_plane() + self.geo.wrap_in_plane(rest)
    }

    /// Start loading `lpn`'s map entry (it is about to change).
    #[inline]
    pub fn prefetch_entry(&self, lpn: Lpn) {
        self.map.prefetch(lpn);
    }

    /// Start loading what invalidating `ppn` touches.
    #[inline]
    pub fn prefetch_page(&self, ppn: Ppn) {
        self.blocks.prefetch_page(ppn);
    }

    // ------------------------------------------------------------ writes

    /// The plane a write of `lpn` goes to. `chip_load` is the number of transactions queued
    /// or running per chip (for dynamic allocation).
    pub fn write_plane(&mut self, lpn: Lpn, chip_load: &[u32]) -> u32 {
        self.alloc.write_plane(lpn, chip_load, &self.blocks, self.gc.limits.user_reserve_blocks)
    }

    /// A user write given `plane` by [`Ftl::write_plane`] is being programmed.
    pub fn write_programmed(&mut self, plane: u32) {
        self.alloc.programmed(plane);
    }

    /// Take the next page of `stream` in `plane` and whether a block was opened for it (then
    /// check [`Ftl::needs_gc`]). None when a user write would take the blocks kept for GC.
    #[inline]
    pub fn allocate(&mut self, plane: u32, stream: Stream) -> Option<(Ppn, bool)> {
        self.blocks.allocate(plane, stream, self.gc.limits.user_reserve_blocks)
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

    // ------------------------------------------------------------ blocks and GC

    #[inline]
    pub fn free_blocks(&self, plane: u32) -> u32 {
        self.blocks.free_blocks(plane)
    }

    /// Free blocks over all planes.
    #[inline]
    pub fn free_total(&self) -> u64 {
        self.blocks.free_total
    }

    /// Erase count of every block.
    pub fn erase_counts(&self) -> &[u32] {
        &self.blocks.erase_count
    }

    /// Whether `plane` should start GC now.
    #[inline]
    pub fn needs_gc(&self, plane: u32) -> bool {
        self.gc.needed(plane, &self.blocks)
    }

    pub fn background_gc_on(&self) -> bool {
        self.gc.background_on()
    }

    pub fn wants_background_gc(&self, plane: u32) -> bool {
        self.gc.wanted_in_background(plane, &self.blocks)
    }

    /// How pressing GC is on `chip` (the TSU policy orders queues by it).
    #[inline]
    pub fn gc_urgency(&self, chip: u32) -> GcUrgency {
        self.gc.urgency(chip, &self.blocks)
    }

    /// Start GC on `plane`: the victim, with its valid pages (the moves to make) in `pages`.
    pub fn start_gc(&mut self, plane: u32, pages: &mut Vec<LivePage>) -> Option<u32> {
        self.gc.start(plane, &mut self.blocks, pages)
    }

    /// A move of `plane`'s victim is done; after the last, the victim to erase.
    pub fn gc_move_done(&mut self, plane: u32) -> Option<u32> {
        self.gc.move_done(plane)
    }

    /// `plane`'s victim was erased: its block is free. Returns the block.
    pub fn finish_gc(&mut self, plane: u32) -> u32 {
        self.gc.finish(plane, &mut self.blocks)
    }

    /// One plane's state, for the message of a run that stopped with work left.
    pub fn describe_plane(&self, plane: u32) -> String {
        self.gc.describe_plane(plane, &self.blocks)
    }

    // ------------------------------------------------------------ checking

    /// An integrity oracle that knows the preconditioned data.
    pub fn new_oracle(&self) -> Oracle {
        let mut o = Oracle::new(self.logical_pages(), self.geo.pages(), self.geo.sectors_per_page());
        for lpn in 0..self.logical_pages() {
            let ppn = self.map.get(lpn);
            if ppn != NONE {
                o.preconditioned(ppn);
            }
        }
        o
    }

    /// Check every mapped page's data with the oracle.
    pub fn verify(&self, oracle: &mut Oracle) {
        oracle.verify_all(&self.map);
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
        self.gc.check();
    }

    pub fn state_bytes(&self) -> u64 {
        self.map.state_bytes() + self.blocks.state_bytes()
    }
}

/// The TSU's builder reads the FTL through this view.
impl FtlView for Ftl {
    #[inline]
    fn lpn_at(&self, ppn: Ppn) -> Lpn {
        self.blocks.lpn_at(ppn)
    }

    /// A user read of `lpn` reads its page, or where a never-written page is read from.
    #[inline]
    fn read_page(&self, lpn: Lpn) -> Ppn {
        let ppn = self.map.get(lpn);
        if ppn != NONE {
            ppn
        } else {
            self.phantom_ppn(lpn)
        }
    }

    #[inline]
    fn next_offset(&self, plane: u32, stream: Stream) -> Option<u32> {
        self.blocks.next_offset(plane, stream, self.gc.limits.user_reserve_blocks)
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
        c.ftl.allocation = AllocationScheme::parse("CW").unwrap();
        let mut ftl = Ftl::new(&c, 1);
        let g = ftl.geo().clone();
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
        let (ppn, _) = ftl.allocate(12, Stream::User).unwrap();
        ftl.commit_write(7, ppn);
        assert_eq!(ftl.write_plane(7, &[]), 14);
        assert_eq!(ftl.write_plane(7, &[]), 13);
        assert_eq!(ftl.write_plane(7, &[]), 15);
        // All three lagging planes now carry a write: plane 12 (no load, offset 1) is next.
        assert_eq!(ftl.write_plane(7, &[]), 12);
        // Another chip's page (lpn 0 -> chip 0) never lands on chip 3.
        assert_eq!(g.chip_of_plane(ftl.write_plane(0, &[])), 0);
    }

    #[test]
    fn every_scheme_prints_as_its_upper_case_letters() {
        // Every sequence of 1 to 4 distinct letters of CWDP, written in lower case.
        let mut words = vec![String::new()];
        let mut printed = 0;
        while let Some(w) = words.pop() {
            for ch in ['c', 'w', 'd', 'p'].into_iter().filter(|&ch| !w.contains(ch)) {
                let w = format!("{w}{ch}");
                assert_eq!(AllocationScheme::parse(&w).unwrap().to_string(), w.to_ascii_uppercase());
                printed += 1;
                words.push(w);
            }
        }
        assert_eq!(printed, 4 + 12 + 24 + 24);
        assert_eq!(AllocationScheme::parse("DYNAMIC").unwrap().to_string(), "dynamic");
        assert_eq!(AllocationScheme::CWDP.to_string(), "CWDP");
    }
}
