//! The integrity oracle of `--check`: every read must return the last version written.
//!
//! Each write request gets a version number; every sector it writes expects that version.
//! The oracle keeps, independently of the FTL's map, what each physical page and each cached
//! page actually holds (the version of each of its sectors), and moves that content only
//! along the paths data really takes: host → cache → flash program, read-modify-write,
//! GC read → GC program, copyback; erase wipes it. A read compares what the place it was
//! served from holds with what was last written. A map, GC or cache bug shows up as a
//! violation.
//!
//! Memory grows with the pages written, not with the drive ([`Versions`]): a page whose
//! sectors all hold one version (a whole-page write, an erase, preconditioning) is one 4-byte
//! entry of a table that is sparse where little was written; a page whose sectors differ
//! (partial-page writes) also holds its sectors' versions in a slot of its own. Pages never
//! written cost nothing.

use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::ftl::mapping::page::PageMap;
use crate::ftl::mapping::Mapping;
use crate::ftl::Ftl;
use crate::nand::{Lpn, Ppn, NONE};

/// Content of a page that was erased or never programmed.
pub const ERASED: u32 = u32::MAX;

/// Versions are below this; codes at or above it name a mixed page's slot.
const MIXED: u32 = 1 << 31;

/// The version of each sector of each page of a space (logical or physical). Per page, a code
/// in a [`PageMap`] (sparse chunks, dense where a third of a chunk is written): none (the
/// page holds `default` in every sector), a version every sector holds, or [`MIXED`] + the
/// slot of `slots` holding its sectors' versions (`spp` each; freed slots are reused).
struct Versions {
    spp: usize,
    default: u32,
    codes: PageMap,
    slots: Vec<u32>,
    free: Vec<u32>,
}

impl Versions {
    fn new(pages: u32, spp: usize, default: u32) -> Versions {
        Versions { spp, default, codes: PageMap::new(pages), slots: Vec::new(), free: Vec::new() }
    }

    /// The version sector `s` of `page` holds.
    fn sector(&self, page: u32, s: usize) -> u32 {
        match self.codes.get(page) {
            NONE => self.default,
            c if c >= MIXED => self.slots[(c - MIXED) as usize * self.spp + s],
            v => v,
        }
    }

    /// Every sector of `page` into `out[..spp]`.
    fn page(&self, page: u32, out: &mut [u32; 64]) {
        match self.codes.get(page) {
            NONE => out[..self.spp].fill(self.default),
            c if c >= MIXED => {
                let at = (c - MIXED) as usize * self.spp;
                out[..self.spp].copy_from_slice(&self.slots[at..at + self.spp]);
            }
            v => out[..self.spp].fill(v),
        }
    }

    /// `page` holds `content` (`spp` sectors) from now on.
    fn set(&mut self, page: u32, content: &[u32]) {
        let first = content[0];
        if content.iter().all(|&v| v == first) && (first < MIXED || first == self.default) {
            self.clear(page);
            if first != self.default {
                self.codes.set(page, first);
            }
            return;
        }
        let slot = match self.codes.get(page) {
            c if c != NONE && c >= MIXED => c - MIXED,
            _ => self.take_slot(),
        };
        let at = slot as usize * self.spp;
        self.slots[at..at + self.spp].copy_from_slice(content);
        self.codes.set(page, MIXED + slot);
    }

    fn take_slot(&mut self) -> u32 {
        if let Some(s) = self.free.pop() {
            return s;
        }
        let slot = (self.slots.len() / self.spp) as u32;
        assert!(slot < NONE - MIXED, "more mixed pages than the oracle can number");
        self.slots.resize(self.slots.len() + self.spp, 0);
        slot
    }

    /// `page` holds `default` in every sector.
    fn clear(&mut self, page: u32) {
        let c = self.codes.get(page);
        if c != NONE && c >= MIXED {
            self.free.push(c - MIXED);
        }
        self.codes.clear(page);
    }

    /// Bytes held.
    fn bytes(&self) -> u64 {
        self.codes.state_bytes() + (self.slots.capacity() * 4 + self.free.capacity() * 4) as u64
    }

    /// Bytes of a space of `pages` pages of `spp` sectors: its codes (as the page map's,
    /// [`PageMap::estimate_bytes`]: `written` pages spread over the first `spread` pages, or
    /// `flat`) and `mixed` pages' slots (room doubling as they grow).
    fn estimate_bytes(pages: u64, spp: u64, flat: bool, written: u64, spread: u64, mixed: u64) -> u64 {
        let slots = if mixed == 0 { 0 } else { mixed.next_power_of_two() * spp * 4 };
        PageMap::estimate_bytes(pages, flat, written, spread) + slots
    }
}

pub struct Oracle {
    spp: usize,
    /// Per logical page: last version written to each sector (0: never written).
    expected: Versions,
    /// Per physical page: version held by each sector (ERASED when erased).
    flash: Versions,
    /// Per cached logical page: version of each sector in the cache.
    cached: FxHashMap<Lpn, Box<[u32]>>,
    /// Content of data in flight to a program, by transaction id.
    inflight: FxHashMap<u32, Box<[u32]>>,
    next_version: u32,
    pub reads_checked: u64,
    pub violations: u64,
    pub first_violation: Option<String>,
}

/// What the loop saw happen to data, for the integrity oracle ([`Oracle::saw`]): the same
/// seam as the statistics' [`crate::stats::Seen`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataEvent {
    /// The host wrote `version` to the sectors `mask` of `lpn`.
    HostWrote { lpn: Lpn, mask: u64, version: u32 },
    /// TRIM of `lpn`.
    Trimmed { lpn: Lpn },
    /// The cache took `mask` sectors of `lpn` at `version`.
    CacheWrote { lpn: Lpn, mask: u64, version: u32 },
    /// The cache took the sectors of `lpn` it lacked from flash page `ppn`.
    CacheFilled { lpn: Lpn, ppn: Ppn },
    /// The cache let go of `lpn`.
    CacheDropped { lpn: Lpn },
    /// Program transaction `tx` carries the host's `version` in the sectors `mask`.
    StageHostData { tx: u32, mask: u64, version: u32 },
    /// Program transaction `tx` carries the cached copy of `lpn` (a write-back).
    StageCacheData { tx: u32, lpn: Lpn },
    /// Program `tx` wrote its sectors `mask` to `ppn`, the others merged from `merge_from`.
    Programmed { tx: u32, ppn: Ppn, mask: u64, merge_from: Option<Ppn> },
    /// A move copied page `src` to `dst`.
    Moved { src: Ppn, dst: Ppn },
    /// `pages` pages from `first_ppn` were erased.
    Erased { first_ppn: Ppn, pages: u32 },
    /// A read of sectors `mask` of `lpn`, from flash page `ppn` (None: not from flash),
    /// `what` naming where it was served for a violation's message.
    Read { lpn: Lpn, mask: u64, ppn: Option<Ppn>, what: &'static str },
}

impl Oracle {
    pub fn new(logical_pages: u32, physical_pages: u32, sectors_per_page: u32) -> Oracle {
        let spp = sectors_per_page as usize;
        Oracle {
            spp,
            expected: Versions::new(logical_pages, spp, 0),
            flash: Versions::new(physical_pages, spp, ERASED),
            cached: FxHashMap::default(),
            inflight: FxHashMap::default(),
            next_version: 0,
            reads_checked: 0,
            violations: 0,
            first_violation: None,
        }
    }

    /// Bytes the oracle holds now.
    pub fn bytes(&self) -> u64 {
        let boxed = |m: &FxHashMap<u32, Box<[u32]>>| (m.capacity() * (4 + 16 + 1) + m.len() * self.spp * 4) as u64;
        self.expected.bytes() + self.flash.bytes() + boxed(&self.cached) + boxed(&self.inflight)
    }

    /// Bytes the oracle will hold on a drive of `logical` and `physical` pages of `spp`
    /// sectors: the physical pages' versions (flat when `preconditioned` fills the drive, else
    /// `programmed` pages spread over the drive), the logical pages' (`written` pages spread
    /// over a footprint of `footprint`), `mixed` pages of each whose sectors differ (partial
    /// writes: `mixed` logical pages, and as many physical ones, each with a stale copy until
    /// its block is erased), and `cached` pages in the write cache or in flight.
    pub fn estimate_bytes(space: &OracleSpace) -> u64 {
        let OracleSpace { logical, physical, spp, preconditioned, programmed, written, footprint, mixed, cached } =
            *space;
        let flash = Versions::estimate_bytes(physical, spp, preconditioned, programmed, physical, 2 * mixed);
        let expected = Versions::estimate_bytes(logical, spp, false, written, footprint, mixed);
        let boxed = cached * (4 + 16 + 1 + 16 + spp * 4) * 2;
        flash + expected + boxed
    }

    /// Check what the loop saw.
    #[cold]
    pub fn saw(&mut self, e: DataEvent) {
        match e {
            DataEvent::HostWrote { lpn, mask, version } => self.host_wrote(lpn, mask, version),
            DataEvent::Trimmed { lpn } => self.trimmed(lpn),
            DataEvent::CacheWrote { lpn, mask, version } => self.cache_wrote(lpn, mask, version),
            DataEvent::CacheFilled { lpn, ppn } => self.cache_filled(lpn, ppn),
            DataEvent::CacheDropped { lpn } => self.cache_dropped(lpn),
            DataEvent::StageHostData { tx, mask, version } => self.stage_host_data(tx, mask, version),
            DataEvent::StageCacheData { tx, lpn } => self.stage_cache_data(tx, lpn),
            DataEvent::Programmed { tx, ppn, mask, merge_from } => self.program(tx, ppn, mask, merge_from),
            DataEvent::Moved { src, dst } => self.moved(src, dst),
            DataEvent::Erased { first_ppn, pages } => self.erased(first_ppn, pages),
            DataEvent::Read { lpn, mask, ppn, what } => self.read(lpn, mask, ppn, what),
        }
    }

    /// A new write request: its version.
    #[cold]
    pub fn new_version(&mut self) -> u32 {
        self.next_version += 1;
        assert!(self.next_version < MIXED, "more write requests than the oracle can number");
        self.next_version
    }

    /// The host wrote `version` to the sectors `mask` of `lpn`.
    #[cold]
    pub fn host_wrote(&mut self, lpn: Lpn, mask: u64, version: u32) {
        let mut page = [0; 64];
        self.expected.page(lpn, &mut page);
        for (s, v) in page[..self.spp].iter_mut().enumerate() {
            if mask >> s & 1 == 1 {
                *v = version;
            }
        }
        self.expected.set(lpn, &page[..self.spp]);
    }

    /// TRIM: the sectors read as never written afterwards.
    #[cold]
    pub fn trimmed(&mut self, lpn: Lpn) {
        self.expected.clear(lpn);
        self.cached.remove(&lpn);
    }

    /// The cache took `mask` sectors of `lpn` at `version`.
    #[cold]
    pub fn cache_wrote(&mut self, lpn: Lpn, mask: u64, version: u32) {
        let spp = self.spp;
        let page = self.cached.entry(lpn).or_insert_with(|| vec![0; spp].into_boxed_slice());
        for (s, v) in page.iter_mut().enumerate() {
            if mask >> s & 1 == 1 {
                *v = version;
            }
        }
    }

    /// The cache took the sectors of `lpn` it did not hold from flash page `ppn` (a Die-GC
    /// move into the write buffer).
    #[cold]
    pub fn cache_filled(&mut self, lpn: Lpn, ppn: Ppn) {
        let spp = self.spp;
        let page = self.cached.entry(lpn).or_insert_with(|| vec![0; spp].into_boxed_slice());
        for (s, v) in page.iter_mut().enumerate() {
            if *v == 0 {
                *v = self.flash.sector(ppn, s);
            }
        }
    }

    #[cold]
    pub fn cache_dropped(&mut self, lpn: Lpn) {
        self.cached.remove(&lpn);
    }

    /// Data for program transaction `tx`: sectors in `mask` at `version` (from the host).
    #[cold]
    pub fn stage_host_data(&mut self, tx: u32, mask: u64, version: u32) {
        let page: Box<[u32]> = (0..self.spp).map(|s| if mask >> s & 1 == 1 { version } else { 0 }).collect();
        self.inflight.insert(tx, page);
    }

    /// Data for program transaction `tx`: the cached copy of `lpn` (a write-back).
    #[cold]
    pub fn stage_cache_data(&mut self, tx: u32, lpn: Lpn) {
        let page = self.cached.get(&lpn).cloned().unwrap_or_else(|| vec![0; self.spp].into_boxed_slice());
        self.inflight.insert(tx, page);
    }

    /// Program `tx` wrote its staged sectors `mask` to `ppn`; the other sectors come from
    /// `merge_from` (the page read for a read-modify-write) or are unwritten.
    #[cold]
    pub fn program(&mut self, tx: u32, ppn: Ppn, mask: u64, merge_from: Option<Ppn>) {
        let staged = self.inflight.remove(&tx).expect("program of a transaction with no staged data");
        let mut merged = [0; 64];
        if let Some(src) = merge_from {
            self.flash.page(src, &mut merged);
        }
        for (s, v) in merged[..self.spp].iter_mut().enumerate() {
            if mask >> s & 1 == 1 {
                *v = staged[s];
            } else if merge_from.is_none() {
                *v = 0;
            }
        }
        self.flash.set(ppn, &merged[..self.spp]);
    }

    /// GC or copyback moved `src` to `dst`.
    #[cold]
    pub fn moved(&mut self, src: Ppn, dst: Ppn) {
        let mut page = [0; 64];
        self.flash.page(src, &mut page);
        self.flash.set(dst, &page[..self.spp]);
    }

    #[cold]
    pub fn erased(&mut self, first_ppn: Ppn, pages: u32) {
        for ppn in first_ppn..first_ppn + pages {
            self.flash.clear(ppn);
        }
    }

    /// Preconditioning wrote `lpn` (version 0 stands for "preconditioned") to `ppn`.
    pub fn preconditioned(&mut self, ppn: Ppn) {
        self.flash.codes.set(ppn, 0);
    }

    /// An oracle that knows `ftl`'s preconditioned data: every mapped page holds version 0.
    /// A preconditioned drive's physical pages are one flat table ([`PageMap::make_dense`]);
    /// [`crate::Error::OutOfMemory`] if it cannot be had.
    pub fn for_ftl(ftl: &Ftl) -> Result<Oracle> {
        let geo = ftl.geo();
        let mut o = Oracle::new(ftl.logical_pages(), geo.pages(), geo.sectors_per_page());
        if ftl.page_map().mapped() > 0 {
            o.flash.codes.make_dense()?;
        }
        for lpn in 0..ftl.logical_pages() {
            let ppn = ftl.page_map().get(lpn);
            if ppn != NONE {
                o.preconditioned(ppn);
            }
        }
        Ok(o)
    }

    /// Check every page `ftl` maps.
    pub fn verify_ftl(&mut self, ftl: &Ftl) {
        self.verify_all(ftl.page_map());
    }

    pub fn verify_all(&mut self, map: &dyn Mapping) {
        let full = if self.spp == 64 { u64::MAX } else { (1u64 << self.spp) - 1 };
        for lpn in 0..self.expected.codes.logical_pages() {
            let ppn = map.get(lpn);
            self.read(lpn, full, (ppn != NONE).then_some(ppn), "final sweep");
        }
    }

    /// A read of sectors `mask` of `lpn` served from flash page `ppn` (None: not from
    /// flash), with cached sectors overlaid.
    #[cold]
    pub fn read(&mut self, lpn: Lpn, mask: u64, ppn: Option<Ppn>, what: &str) {
        self.reads_checked += 1;
        for s in 0..self.spp {
            if mask >> s & 1 == 0 {
                continue;
            }
            let want = self.expected.sector(lpn, s);
            let got = match self.cached.get(&lpn) {
                Some(page) if page[s] != 0 || ppn.is_none() => page[s],
                _ => match ppn {
                    Some(p) => self.flash.sector(p, s),
                    None => 0,
                },
            };
            if got != want {
                self.violations += 1;
                if self.first_violation.is_none() {
                    self.first_violation = Some(format!(
                        "{what}: lpn {lpn} sector {s} returned version {} but version {want} was written last (page {ppn:?})",
                        if got == ERASED { "ERASED".to_string() } else { got.to_string() }
                    ));
                }
            }
        }
    }
}

/// What [`Oracle::estimate_bytes`] needs to know of a run.
#[derive(Debug, Clone, Copy, Default)]
pub struct OracleSpace {
    pub logical: u64,
    pub physical: u64,
    pub spp: u64,
    pub preconditioned: bool,
    /// Physical pages programmed (preconditioning's excluded).
    pub programmed: u64,
    /// Logical pages the host writes, and over how many distinct pages they fall.
    pub written: u64,
    pub footprint: u64,
    /// Logical pages written partially (their sectors hold different versions).
    pub mixed: u64,
    /// Pages in the write cache and in flight at once, at most.
    pub cached: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page's versions round-trip through every form: default (nothing stored), one
    /// version for every sector, mixed (a slot), and back; a freed slot is reused.
    #[test]
    fn versions_round_trip_and_free_their_slots() {
        let mut v = Versions::new(100, 4, ERASED);
        let mut out = [0; 64];
        assert_eq!(v.sector(7, 2), ERASED);
        v.set(7, &[5, 5, 5, 5]);
        assert_eq!((v.codes.get(7), v.slots.len()), (5, 0));
        v.set(7, &[5, 6, 5, ERASED]);
        v.page(7, &mut out);
        assert_eq!((&out[..4], v.slots.len()), (&[5, 6, 5, ERASED][..], 4));
        v.set(8, &[1, 2, 3, 4]);
        assert_eq!(v.slots.len(), 8);
        v.set(7, &[ERASED; 4]);
        assert_eq!((v.codes.get(7), v.free.as_slice()), (NONE, &[0][..]));
        v.set(9, &[0, 0, 1, 1]);
        assert_eq!((v.slots.len(), v.sector(9, 3), v.sector(8, 1)), (8, 1, 2));
    }

    /// A run that writes 1,000 whole pages of a drive of 2^24 pages costs what those pages
    /// cost (well under a megabyte), not 4 bytes per sector of the drive (2 GiB with 32
    /// sectors a page).
    #[test]
    fn memory_grows_with_the_pages_written() {
        let pages = 1 << 24;
        let mut o = Oracle::new(pages, pages, 32);
        for i in 0..1000u32 {
            let v = o.new_version();
            let lpn = i.wrapping_mul(2_654_435_761) % pages;
            o.host_wrote(lpn, u32::MAX as u64, v);
            o.stage_host_data(i, u32::MAX as u64, v);
            o.program(i, i, u32::MAX as u64, None);
            o.read(lpn, u32::MAX as u64, Some(i), "test");
        }
        assert_eq!(o.violations, 0, "{:?}", o.first_violation);
        assert!(o.bytes() < 1 << 20, "{} bytes", o.bytes());
        // The estimate of such a run bounds what it held.
        let space = OracleSpace {
            logical: pages as u64,
            physical: pages as u64,
            spp: 32,
            programmed: 1000,
            written: 1000,
            footprint: pages as u64,
            ..OracleSpace::default()
        };
        assert!(o.bytes() <= Oracle::estimate_bytes(&space), "{} > {}", o.bytes(), Oracle::estimate_bytes(&space));
    }

    /// 2^19 pages of 8 sectors. Physical, preconditioned: a flat table of 4 bytes a page and
    /// its chunk list; 200 mixed pages' slots in room for 256 of 8 × 4 bytes. Logical: 1,000
    /// entries in its one chunk, a hash table of 2,048 buckets (1,000 × 8 / 7 rounded up) of
    /// 9 bytes; 100 mixed pages in room for 128. Ten cached pages, each in the cache and in
    /// flight: an index entry (4 + 16 + 1), a box header of 16 and 8 × 4 bytes, twice.
    #[test]
    fn the_estimate_is_the_sizes_the_oracle_allocates() {
        let list = PageMap::new(1 << 19).state_bytes();
        let space = OracleSpace {
            logical: 1 << 19,
            physical: 1 << 19,
            spp: 8,
            preconditioned: true,
            programmed: 0,
            written: 1000,
            footprint: 1 << 19,
            mixed: 100,
            cached: 10,
        };
        let flash = list + (1 << 21) + 256 * 32;
        let expected = list + 2048 * 9 + 128 * 32;
        assert_eq!(Oracle::estimate_bytes(&space), flash + expected + 10 * (21 + 16 + 32) * 2);
    }
}
