//! The integrity oracle of `--check`: every read must return the last version written.
//!
//! Each write request gets a version number; every sector it writes expects that version.
//! The oracle keeps, independently of the FTL's map, what each physical page and each cached
//! page actually holds (the version of each of its sectors), and moves that content only
//! along the paths data really takes: host → cache → flash program, read-modify-write,
//! GC read → GC program, copyback; erase wipes it. A read compares what the place it was
//! served from holds with what was last written. A map, GC or cache bug shows up as a
//! violation. Memory: 4 bytes per physical sector, so it is meant for test-sized drives.

use rustc_hash::FxHashMap;

use crate::ftl::mapping::Mapping;
use crate::ftl::Ftl;
use crate::nand::{Lpn, Ppn, NONE};

/// Content of a page that was erased or never programmed.
pub const ERASED: u32 = u32::MAX;

pub struct Oracle {
    spp: usize,
    /// Per logical sector: last version written (0: never written).
    expected: Vec<u32>,
    /// Per physical sector: version held (ERASED when erased).
    flash: Vec<u32>,
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
            expected: vec![0; logical_pages as usize * spp],
            flash: vec![ERASED; physical_pages as usize * spp],
            cached: FxHashMap::default(),
            inflight: FxHashMap::default(),
            next_version: 0,
            reads_checked: 0,
            violations: 0,
            first_violation: None,
        }
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
        self.next_version
    }

    /// The host wrote `version` to the sectors `mask` of `lpn`.
    #[cold]
    pub fn host_wrote(&mut self, lpn: Lpn, mask: u64, version: u32) {
        let base = lpn as usize * self.spp;
        for s in 0..self.spp {
            if mask >> s & 1 == 1 {
                self.expected[base + s] = version;
            }
        }
    }

    /// TRIM: the sectors read as never written afterwards.
    #[cold]
    pub fn trimmed(&mut self, lpn: Lpn) {
        let base = lpn as usize * self.spp;
        self.expected[base..base + self.spp].fill(0);
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
                *v = self.flash[ppn as usize * spp + s];
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
        let base = ppn as usize * self.spp;
        for s in 0..self.spp {
            let v = if mask >> s & 1 == 1 {
                staged[s]
            } else if let Some(src) = merge_from {
                self.flash[src as usize * self.spp + s]
            } else {
                0
            };
            self.flash[base + s] = v;
        }
    }

    /// GC or copyback moved `src` to `dst`.
    #[cold]
    pub fn moved(&mut self, src: Ppn, dst: Ppn) {
        let (s, d) = (src as usize * self.spp, dst as usize * self.spp);
        self.flash.copy_within(s..s + self.spp, d);
    }

    #[cold]
    pub fn erased(&mut self, first_ppn: Ppn, pages: u32) {
        let s = first_ppn as usize * self.spp;
        self.flash[s..s + pages as usize * self.spp].fill(ERASED);
    }

    /// Preconditioning wrote `lpn` (version 0 stands for "preconditioned") to `ppn`.
    pub fn preconditioned(&mut self, ppn: Ppn) {
        let s = ppn as usize * self.spp;
        self.flash[s..s + self.spp].fill(0);
    }

    /// At the end of a run: every logical page, read from where the map says it is (and
    /// the cache), holds what was written last.
    /// An oracle that knows `ftl`'s preconditioned data: every mapped page holds version 0.
    pub fn for_ftl(ftl: &Ftl) -> Oracle {
        let geo = ftl.geo();
        let mut o = Oracle::new(ftl.logical_pages(), geo.pages(), geo.sectors_per_page());
        for lpn in 0..ftl.logical_pages() {
            let ppn = ftl.page_map().get(lpn);
            if ppn != NONE {
                o.preconditioned(ppn);
            }
        }
        o
    }

    /// Check every page `ftl` maps.
    pub fn verify_ftl(&mut self, ftl: &Ftl) {
        self.verify_all(ftl.page_map());
    }

    pub fn verify_all(&mut self, map: &dyn Mapping) {
        let full = if self.spp == 64 { u64::MAX } else { (1u64 << self.spp) - 1 };
        let pages = (self.expected.len() / self.spp) as Lpn;
        for lpn in 0..pages {
            let ppn = map.get(lpn);
            self.read(lpn, full, (ppn != NONE).then_some(ppn), "final sweep");
        }
    }

    /// A read of sectors `mask` of `lpn` served from flash page `ppn` (None: not from
    /// flash), with cached sectors overlaid.
    #[cold]
    pub fn read(&mut self, lpn: Lpn, mask: u64, ppn: Option<Ppn>, what: &str) {
        self.reads_checked += 1;
        let base = lpn as usize * self.spp;
        for s in 0..self.spp {
            if mask >> s & 1 == 0 {
                continue;
            }
            let want = self.expected[base + s];
            let got = match self.cached.get(&lpn) {
                Some(page) if page[s] != 0 || ppn.is_none() => page[s],
                _ => match ppn {
                    Some(p) => self.flash[p as usize * self.spp + s],
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
