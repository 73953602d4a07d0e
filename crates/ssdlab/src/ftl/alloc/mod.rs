//! Page allocation: which plane a user write goes to (`ftl.allocation`).
//!
//! Static orders (CWDP and the other 23) place a logical page by decomposing its number over
//! the resource levels; a hybrid (CW, C, ...) fixes only the leading levels and balances the
//! rest; dynamic puts each write on the least busy chip. A scheme that changes over time (a
//! partition relabelled at run time) keeps its state here: the loop only asks for a plane and
//! reports when the write given it is programmed.

pub mod pacp;
#[cfg(test)]
mod tests;

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::ftl::{Blocks, Stream};
use crate::nand::{Geometry, Lpn};

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
    /// Dynamic allocation as PACP's paper describes its baseline (Tavakkol et al. 2016):
    /// channel, chip, die and plane in rotation, a busy channel or chip skipped for the next
    /// (`crate::ftl::alloc::pacp::choose_plane` over every channel) — PACP's own allocation without a
    /// partition.
    DynamicRr,
    /// Lv et al. (DAC 2020): channels split into Read and Write ones for the run; host
    /// writes go to the Write channels (`crate::ftl::alloc::pacp`).
    LvPartition,
    /// PACP (Electronics 2022): the split follows the pages' predicted types; Algorithm 1
    /// places each write by its page's history (`crate::ftl::alloc::pacp`).
    Pacp,
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
        if s.eq_ignore_ascii_case("dynamic_rr") {
            return Ok(AllocationScheme::DynamicRr);
        }
        if s.eq_ignore_ascii_case("lv_partition") {
            return Ok(AllocationScheme::LvPartition);
        }
        if s.eq_ignore_ascii_case("pacp") {
            return Ok(AllocationScheme::Pacp);
        }
        let up = s.to_ascii_uppercase();
        let mut levels = [Level::Channel; 4];
        let mut seen = [false; 4];
        if up.is_empty() || up.len() > 4 {
            return Err(format!(
                "`{s}` is not an allocation scheme: use dynamic, dynamic_rr, lv_partition, pacp, a permutation of CWDP such as CWDP, WCDP, PDWC, \
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
            AllocationScheme::Dynamic
            | AllocationScheme::DynamicRr
            | AllocationScheme::LvPartition
            | AllocationScheme::Pacp => [Level::Channel, Level::Way, Level::Die, Level::Plane],
        }
    }

    /// Lv et al.'s or PACP's read/write channel partition, if this is one.
    pub fn partition(&self) -> Option<crate::ftl::alloc::pacp::Scheme> {
        match self {
            AllocationScheme::LvPartition => Some(crate::ftl::alloc::pacp::Scheme::Lv),
            AllocationScheme::Pacp => Some(crate::ftl::alloc::pacp::Scheme::Pacp),
            _ => None,
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
            AllocationScheme::DynamicRr => return f.write_str("dynamic_rr"),
            AllocationScheme::LvPartition => return f.write_str("lv_partition"),
            AllocationScheme::Pacp => return f.write_str("pacp"),
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
/// With mapping units below the page, the units of one logical page share its plane (the
/// quotient then counts units again: the page's × units per page + the unit's place in it).
#[inline(always)]
pub fn static_plane(geo: &Geometry, order: &[Level; 4], lpn: Lpn) -> (u32, u32) {
    let k = geo.units_per_page;
    let mut x = if k == 1 { lpn } else { lpn / k };
    let div = geo.level_divisors();
    let mut coord = [0u32; 4];
    for &level in order {
        let k = level as usize;
        coord[k] = div[k].remainder(x);
        x = div[k].quotient(x);
    }
    let [c, w, d, p] = coord;
    let rest = if k == 1 { x } else { x * k + lpn % k };
    (geo.plane_index(c, w, d, p), rest)
}

pub struct Allocator {
    geo: Geometry,
    scheme: AllocationScheme,
    /// Dynamic: the chip after the last one chosen.
    rr_chip: u32,
    /// Rotation points: per chip (dynamic), per group of candidate planes (hybrid, indexed by
    /// the group's first plane).
    rr_plane: Vec<u32>,
    /// Per plane: writes given this plane and not yet programmed (hybrid allocation).
    unprogrammed: Vec<u32>,
    /// `dynamic_rr`: the rotation points.
    rotation: crate::ftl::alloc::pacp::Rotation,
}

impl Allocator {
    /// Bytes of the allocator's books on `geo`: per plane its round-robin point and writes
    /// not yet programmed, per chip and channel the rotation points.
    pub fn estimate_bytes(geo: &Geometry) -> u64 {
        geo.planes() as u64 * (4 + 4) + (geo.chips() + geo.channels) as u64 * 4
    }

    pub fn new(geo: &Geometry, scheme: AllocationScheme) -> Allocator {
        let planes = geo.planes() as usize;
        Allocator {
            rotation: crate::ftl::alloc::pacp::Rotation::new(geo),
            geo: geo.clone(),
            scheme,
            rr_chip: 0,
            rr_plane: vec![0; planes],
            unprogrammed: vec![0; planes],
        }
    }

    pub fn scheme(&self) -> &AllocationScheme {
        &self.scheme
    }

    /// The plane a write of `lpn` goes to. `chip_load` is the number of transactions queued
    /// or running per chip (dynamic allocation); `blocks` and `user_reserve` tell where each
    /// plane's write point is (hybrid allocation).
    pub fn write_plane(&mut self, lpn: Lpn, chip_load: &[u32], blocks: &Blocks, user_reserve: u32) -> u32 {
        let plane = match &self.scheme {
            AllocationScheme::Static(order) => static_plane(&self.geo, order, lpn).0,
            AllocationScheme::Hybrid { order, fixed } => {
                let (order, fixed) = (*order, *fixed);
                self.hybrid_plane(&order, fixed, lpn, blocks, user_reserve)
            }
            AllocationScheme::Dynamic => self.dynamic_plane(chip_load),
            AllocationScheme::DynamicRr => {
                let any = crate::ftl::alloc::pacp::ChannelSet::Any;
                crate::ftl::alloc::pacp::rotate_within(any, |_| true, &self.geo, chip_load, &mut self.rotation)
            }
            AllocationScheme::LvPartition | AllocationScheme::Pacp => {
                unreachable!("the FTL places writes on a partitioned drive (crate::ftl::alloc::pacp)")
            }
        };
        self.unprogrammed[plane as usize] += 1;
        plane
    }

    /// A write whose plane a partitioned scheme chose (`crate::ftl::alloc::pacp`).
    pub fn given(&mut self, plane: u32) -> u32 {
        self.unprogrammed[plane as usize] += 1;
        plane
    }

    /// A write of `lpn` whose plane its caller chose: `plane` must be one the scheme leaves
    /// open to it (the die static allocation gives `lpn`).
    pub fn assign(&mut self, lpn: Lpn, plane: u32) -> u32 {
        let ppd = self.geo.planes_per_die;
        let die = static_plane(&self.geo, &self.scheme.placement_order(), lpn).0 / ppd;
        assert_eq!(plane / ppd, die, "lpn {lpn}: plane {plane} is not on its die {die}");
        self.unprogrammed[plane as usize] += 1;
        plane
    }

    /// A write given `plane` by [`Allocator::write_plane`] is being programmed.
    pub fn programmed(&mut self, plane: u32) {
        let n = &mut self.unprogrammed[plane as usize];
        assert!(*n > 0, "plane {plane}: programmed more user writes than were given it");
        *n -= 1;
    }

    /// Dynamic: the chip with the fewest queued transactions, ties in rotation; within it,
    /// dies first, then planes, in rotation, so consecutive writes spread over dies.
    fn dynamic_plane(&mut self, chip_load: &[u32]) -> u32 {
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
        let (d, p) = (*r % self.geo.dies_per_chip, (*r / self.geo.dies_per_chip) % self.geo.planes_per_die);
        *r = (*r + 1) % ppc;
        best * ppc + d * self.geo.planes_per_die + p
    }

    /// Hybrid allocation: the static levels from `lpn`, then the candidate with the fewest
    /// unprogrammed writes; among those the one whose write point is lowest in its block, so
    /// a plane that fell behind its neighbours catches up and their write points meet at the
    /// same page offset (which multi-plane programs need); remaining ties in rotation from
    /// the group's last choice (first dynamic level fastest: dies before planes under `CW`).
    fn hybrid_plane(&mut self, order: &[Level; 4], fixed: usize, lpn: Lpn, blocks: &Blocks, reserve: u32) -> u32 {
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
            let offset = blocks.next_offset(plane, Stream::User, reserve).unwrap_or(u32::MAX);
            let key = (self.unprogrammed[plane as usize], offset);
            if key < best.0 {
                best = (key, k, plane);
            }
        }
        self.rr_plane[group] = (best.1 + 1) % candidates;
        best.2
    }
}
