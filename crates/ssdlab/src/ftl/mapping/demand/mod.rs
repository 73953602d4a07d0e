//! The demand-based map shared by DFTL, CDFTL, TPFTL and FMMU: translation pages in flash,
//! a cache of their entries in RAM, misses that wait without blocking others, and
//! write-backs of dirty entries as translation-page programs.
//!
//! The FTL keeps the true map (where every logical page's data is) and calls this engine
//! for the translation traffic that map costs: [`DemandMap::lookup`] when a request needs
//! an entry (a hit, or the request waits for its translation page), [`DemandMap::update`]
//! when an entry changes (a program or a GC move: applied to the cache, or logged and
//! applied when the page arrives). What the engine needs from flash comes out as [`MapIo`]
//! (read or write translation page `vtpn`), which the loop issues as `TxKind::Mapping`
//! transactions; their completions come back through [`DemandMap::tp_read_done`] and
//! [`DemandMap::tp_programmed`], which return the requests that may go on.
//!
//! A translation page is in one of three phases: idle, reading (one flash read in flight;
//! later misses on the page log themselves on it and cause no second read: the merge of
//! FMMU's in-cache MSHRs, docs/techniques.md §9.4), or writing (its new copy is assembled and
//! waits for its program; a miss then reads the copy in RAM, and further flushes of the page
//! merge into the same program). `image` is the map as the translation pages hold it (in
//! flash or in that write buffer); it differs from the true map only in entries that are
//! dirty in the cache or logged on a read in flight, which the checks below assert.

pub mod blocks;
pub mod cdftl;
pub mod cmt;
pub mod config;
pub mod dftl;
mod dtl;
pub mod fmmu;
mod gc;
mod lazy;
pub mod tpftl;

use std::collections::VecDeque;

use blocks::{BlockCache, Evicted};
use cmt::Cmt;
use config::{FlushFind, Params, UpdateOrder, UpdateTarget};
use dtl::Dtl;
use lazy::LazyTable;

use super::page::PageMap;
use super::Mapping;
use crate::nand::{Lpn, NONE};
use tpftl::{nodes::TpNodes, prefetch::Prefetch};

/// What waits for a translation: the memory request to resume, or the GC read (its
/// transaction) of a victim page whose spare area named the page looked up
/// (`ftl.gc.read_victim = "all_pages"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiter {
    Read(u32),
    Write(u32),
    GcRead(u32),
}

/// Flash work the map needs: read or write translation page `vtpn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapIo {
    Read(u32),
    Write(u32),
}

/// What a lookup found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// In the CMT.
    Hit,
    /// Not in the CMT but in RAM (the CTP, or a translation page not yet on flash): copied
    /// into the CMT without flash I/O.
    RamHit,
    /// The request waits for its translation page, whose read it starts (or queues).
    Miss,
    /// The request waits for its translation page, whose read is already asked for, and
    /// another request already waits for its CMT block (a transient block): it logs itself
    /// on that block (an MSHR merge) and searches no victim: a hit's work.
    Merged,
    /// A CMT miss on a block no request waits for yet, whose translation page is already
    /// being read: a new transient block whose load joins that read (no second flash read),
    /// but a CMT miss's work (docs/techniques.md §9.7, "Charges").
    MissOnRead,
}

#[derive(Debug, Clone, Copy)]
enum Record {
    Lookup { lpn: Lpn, waiter: Waiter },
    Update { lpn: Lpn },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Phase {
    #[default]
    Idle,
    /// A miss is waiting for a free read slot (`max_outstanding_misses`).
    Queued,
    Reading,
    Writing,
}

#[derive(Default)]
struct TpState {
    phase: Phase,
    /// Write the page back once its read arrives (read-modify-write of a flush).
    flush_after_read: bool,
    records: Vec<Record>,
    /// CMT blocks evicted dirty, waiting for this page's write.
    evicted: Vec<u32>,
    /// Entries GC moved under the batch rule, waiting for this page's write ([`gc`]).
    gc_moved: Vec<Lpn>,
}

/// Counters the report shows.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MapStats {
    pub cmt_hits: u64,
    pub cmt_misses: u64,
    pub ctp_hits: u64,
    pub ctp_misses: u64,
    /// Lookups served from a translation page in RAM that is not on flash yet.
    pub buffer_hits: u64,
    pub tp_reads: u64,
    pub tp_writes: u64,
    /// Flushes (a dirty eviction or a watermark flush of one translation page).
    pub flushes: u64,
    /// CMT blocks scanned to find a flushed page's dirty blocks (what DFTL and CDFTL pay per
    /// flush without FMMU's dirty list).
    pub flush_blocks_scanned: u64,
    /// Dirty blocks a flush cleaned.
    pub flush_blocks_cleaned: u64,
    /// Misses that joined a translation page read already in flight.
    pub merges: u64,
    /// Of those, the ones that joined a CMT block another request already waited for
    /// (`Lookup::Merged`; the others are `Lookup::MissOnRead`).
    #[serde(default)]
    pub block_merges: u64,
    pub peak_outstanding: u32,
    /// Misses that waited for a read slot.
    pub stalled_misses: u64,
    /// Entries found to differ from the true map when they entered the cache (must stay 0).
    pub stale_entries: u64,
    /// Entries loaded by TPFTL's selective prefetch with a translation page read for a miss.
    pub prefetched: u64,
    /// GC moves under the batch rule (`gc_update = "batch"`): entries updated in the cache
    /// (lazy copying), entries batched by translation page, and the pages written for them.
    pub gc_lazy_updates: u64,
    pub gc_batched_entries: u64,
    pub gc_batch_pages: u64,
}

pub struct DemandMap {
    p: Params,
    logical_pages: u32,
    image: LazyTable,
    /// Per translation page: whether a copy exists (on flash or in the write buffer).
    on_flash: Vec<bool>,
    tps: Vec<TpState>,
    cmt: Cmt,
    ctp: Option<BlockCache>,
    prefetch: Option<Prefetch>,
    dtl: Dtl,
    /// Dirty CTP pages in the order they became dirty.
    ctp_dirty: VecDeque<u32>,
    reading: u32,
    queued: VecDeque<u32>,
    io: VecDeque<MapIo>,
    scratch: Vec<Lpn>,
    /// The translation page whose arrival is being replayed, or NONE.
    arriving: u32,
    /// Per plane: translation pages with entries its GC victim moved (batch rule).
    gc_batch: Vec<Vec<u32>>,
    pub stats: MapStats,
}

impl DemandMap {
    pub fn new(p: Params, logical_pages: u32, planes: u32) -> DemandMap {
        let e = p.entries_per_tp;
        let tps = logical_pages.div_ceil(e);
        let cmt = if p.tp_nodes {
            Cmt::Nodes(TpNodes::new(p.cmt_blocks, e, p.clean_first))
        } else {
            Cmt::Blocks(BlockCache::new(p.cmt_blocks, p.ways, p.replacement, p.clean_first))
        };
        let prefetch = (p.prefetch && p.tp_nodes).then(|| Prefetch::new(logical_pages, e));
        let ctp = (p.ctp_pages > 0).then(|| BlockCache::new(p.ctp_pages, 0, p.replacement, p.clean_first));
        DemandMap {
            logical_pages,
            image: LazyTable::new(logical_pages as usize),
            on_flash: vec![false; tps as usize],
            tps: (0..tps).map(|_| TpState::default()).collect(),
            dtl: Dtl::new(tps, e / p.block_entries),
            cmt,
            ctp,
            prefetch,
            ctp_dirty: VecDeque::new(),
            reading: 0,
            queued: VecDeque::new(),
            io: VecDeque::new(),
            scratch: Vec::new(),
            arriving: NONE,
            gc_batch: vec![Vec::new(); planes as usize],
            stats: MapStats::default(),
            p,
        }
    }

    pub fn params(&self) -> &Params {
        &self.p
    }

    /// Translation pages the map has.
    pub fn translation_pages(&self) -> u32 {
        self.tps.len() as u32
    }

    #[inline]
    pub fn vtpn(&self, lpn: Lpn) -> u32 {
        lpn / self.p.entries_per_tp
    }

    /// The next flash operation the map needs, if any.
    pub fn take_io(&mut self) -> Option<MapIo> {
        self.io.pop_front()
    }

    /// Translation page `vtpn` was written functionally (preconditioning) with the true
    /// map's entries.
    pub fn preconditioned(&mut self, vtpn: u32, truth: &PageMap) {
        self.on_flash[vtpn as usize] = true;
        for lpn in self.tp_lpns(vtpn) {
            self.image.set(lpn, truth.get(lpn));
        }
    }

    fn tp_lpns(&self, vtpn: u32) -> std::ops::Range<Lpn> {
        let e = self.p.entries_per_tp;
        vtpn * e..((vtpn + 1) * e).min(self.logical_pages)
    }

    fn tp_tags(&self, vtpn: u32) -> std::ops::Range<u32> {
        let per = self.p.entries_per_tp / self.p.block_entries;
        let tags = self.logical_pages.div_ceil(self.p.block_entries);
        vtpn * per..((vtpn + 1) * per).min(tags)
    }

    // ------------------------------------------------------------ lookups and updates

    /// `waiter` needs `lpn`'s entry. On a miss it waits on the entry's translation page and
    /// comes back from [`DemandMap::tp_read_done`].
    pub fn lookup(&mut self, lpn: Lpn, waiter: Waiter, truth: &PageMap) -> Lookup {
        if let Some(pf) = &mut self.prefetch {
            pf.looked_up(lpn);
        }
        let tag = lpn / self.p.block_entries;
        if self.cmt.contains(tag) {
            self.cmt.touch(tag);
            self.stats.cmt_hits += 1;
            return Lookup::Hit;
        }
        self.stats.cmt_misses += 1;
        if self.in_ram(self.vtpn(lpn)) {
            self.check_answer(lpn, truth);
            self.enter_cmt(lpn, truth);
            self.maintain(truth);
            return Lookup::RamHit;
        }
        let found = self.wait_on_page(Record::Lookup { lpn, waiter });
        if let Some(pf) = &mut self.prefetch {
            pf.missed(lpn);
        }
        found
    }

    /// `lpn`'s entry changed (a program or a GC move started; a TRIM): the cached entry
    /// becomes dirty, or the change is logged on its translation page's read.
    pub fn update(&mut self, lpn: Lpn, truth: &PageMap) -> Lookup {
        let tag = lpn / self.p.block_entries;
        let found = if self.cmt.contains(tag) {
            self.cmt.touch(tag);
            self.stats.cmt_hits += 1;
            Lookup::Hit
        } else {
            self.stats.cmt_misses += 1;
            if !self.in_ram(self.vtpn(lpn)) {
                return self.wait_on_page(Record::Update { lpn });
            }
            self.enter_cmt(lpn, truth);
            Lookup::RamHit
        };
        self.dirty(lpn);
        self.maintain(truth);
        found
    }

    /// Whether `vtpn`'s entries are in RAM without a flash read: in the CTP, never written
    /// (every entry unmapped), or in the write buffer. Counts the CTP lookup.
    fn in_ram(&mut self, vtpn: u32) -> bool {
        if let Some(ctp) = &mut self.ctp {
            if ctp.contains(vtpn) {
                ctp.touch(vtpn);
                self.stats.ctp_hits += 1;
                return true;
            }
            self.stats.ctp_misses += 1;
        }
        let t = &self.tps[vtpn as usize];
        let buffered = t.phase == Phase::Writing || !self.on_flash[vtpn as usize];
        if buffered && matches!(t.phase, Phase::Idle | Phase::Writing) {
            self.stats.buffer_hits += 1;
            return true;
        }
        false
    }

    /// Bring `lpn`'s CMT block in from RAM (the CTP or a translation page just read).
    fn enter_cmt(&mut self, lpn: Lpn, truth: &PageMap) {
        let tag = lpn / self.p.block_entries;
        if self.cmt.contains(tag) {
            self.cmt.touch(tag);
            return;
        }
        if let Some(e) = self.cmt.insert(tag) {
            self.evicted(e, truth);
        }
    }

    /// A lookup is answered from a translation page's copy: the entry there must be the
    /// true map's. The lookup missed the CMT, so no dirty CMT block holds a newer value of
    /// it; the CTP's copy may, when the CMT flushed into it (or, with `update_target =
    /// "ctp"`, an update went there) since the page was loaded or last written back.
    fn check_answer(&mut self, lpn: Lpn, truth: &PageMap) {
        if self.image.get(lpn) != truth.get(lpn) && !self.ctp_newer(lpn) && !self.gc_pending(lpn) {
            self.stats.stale_entries += 1;
            debug_assert!(
                false,
                "lpn {lpn}: translation page says {}, map says {}",
                self.image.get(lpn),
                truth.get(lpn)
            );
        }
    }

    /// Whether the CTP holds `lpn`'s translation page dirty: only then may its copy there be
    /// newer than the one on flash. A clean CTP page equals its flash copy: it was read and
    /// nothing merged into it, or written back since (under either `update_target`, every
    /// change to the CTP copy — a CMT flush into it, a merge on load, an in-place update —
    /// marks it dirty). Entries of dirty CMT blocks are newer still, and checked apart.
    fn ctp_newer(&self, lpn: Lpn) -> bool {
        let vtpn = lpn / self.p.entries_per_tp;
        self.ctp.as_ref().is_some_and(|c| c.contains(vtpn) && c.is_dirty(vtpn))
    }

    /// Mark `lpn`'s entry changed: in its (cached) CMT block, registered on the dirty
    /// translation list (FMMU's rule, `update_target = "cmt"`: the CTP copy changes only when
    /// the CMT flushes into it), or, with `update_target = "ctp"` (CDFTL's own rule), in the
    /// CTP copy in place when the page is there.
    fn dirty(&mut self, lpn: Lpn) {
        let vtpn = self.vtpn(lpn);
        if let Some(ctp) = self.ctp.as_mut().filter(|_| self.p.update_target == UpdateTarget::Ctp) {
            if ctp.contains(vtpn) {
                if !ctp.is_dirty(vtpn) {
                    ctp.set_dirty(vtpn, true);
                    self.ctp_dirty.push_back(vtpn);
                }
                return;
            }
        }
        let tag = lpn / self.p.block_entries;
        if !self.cmt.is_dirty(tag) {
            self.cmt.set_dirty(tag, true);
            self.dtl.block_dirtied(vtpn);
        }
        self.dtl.updated(vtpn);
    }

    /// Log `record` on its translation page and start the page's read if none is in flight
    /// (`Miss`; `Merged` when one is).
    fn wait_on_page(&mut self, record: Record) -> Lookup {
        let lpn = match record {
            Record::Lookup { lpn, .. } | Record::Update { lpn } => lpn,
        };
        let vtpn = self.vtpn(lpn);
        let tag = lpn / self.p.block_entries;
        let be = self.p.block_entries;
        let t = &mut self.tps[vtpn as usize];
        // A record already logged for the same CMT block: that block is transient.
        let transient = t.records.iter().any(|r| match *r {
            Record::Lookup { lpn, .. } | Record::Update { lpn } => lpn / be == tag,
        });
        t.records.push(record);
        match t.phase {
            Phase::Reading | Phase::Queued => {
                self.stats.merges += 1;
                if transient {
                    self.stats.block_merges += 1;
                    Lookup::Merged
                } else {
                    Lookup::MissOnRead
                }
            }
            Phase::Idle => {
                self.start_read(vtpn);
                Lookup::Miss
            }
            Phase::Writing => unreachable!("a page being written is in RAM"),
        }
    }

    fn start_read(&mut self, vtpn: u32) {
        debug_assert!(self.on_flash[vtpn as usize]);
        if self.reading >= self.p.max_outstanding_misses {
            self.tps[vtpn as usize].phase = Phase::Queued;
            self.queued.push_back(vtpn);
            self.stats.stalled_misses += 1;
            return;
        }
        self.tps[vtpn as usize].phase = Phase::Reading;
        self.reading += 1;
        self.stats.peak_outstanding = self.stats.peak_outstanding.max(self.reading);
        self.stats.tp_reads += 1;
        self.io.push_back(MapIo::Read(vtpn));
    }

    // ------------------------------------------------------------ completions

    /// Translation page `vtpn` arrived from flash: its logged lookups and updates are
    /// replayed in order; the lookups' requests go on (`resumed`).
    pub fn tp_read_done(&mut self, vtpn: u32, resumed: &mut Vec<Waiter>, truth: &PageMap) {
        let t = &mut self.tps[vtpn as usize];
        debug_assert_eq!(t.phase, Phase::Reading, "translation page {vtpn} arrived unasked");
        t.phase = Phase::Idle;
        self.reading -= 1;
        let mut records = std::mem::take(&mut t.records);
        let flush = std::mem::take(&mut t.flush_after_read);
        if self.ctp.is_some() {
            self.enter_ctp(vtpn, flush, truth);
        } else if flush {
            // Read-modify-write: the page's copy takes the flushed entries first.
            self.assemble(vtpn, truth);
        }
        let mut updated = std::mem::take(&mut self.scratch);
        updated.clear();
        updated.extend(records.iter().filter_map(|r| match *r {
            Record::Update { lpn } => Some(lpn),
            Record::Lookup { .. } => None,
        }));
        updated.sort_unstable();
        // The page's copy is in RAM until the replay is over: a flush of it waits for the end.
        self.arriving = vtpn;
        for r in &records {
            match *r {
                Record::Lookup { lpn, waiter } => {
                    // An update logged for the entry (earlier or later) makes the copy's
                    // value old by design; otherwise it must be the true one.
                    if updated.binary_search(&lpn).is_err() {
                        self.check_answer(lpn, truth);
                    }
                    self.enter_cmt(lpn, truth);
                    resumed.push(waiter);
                }
                Record::Update { lpn } => {
                    self.enter_cmt(lpn, truth);
                    self.dirty(lpn);
                }
            }
        }
        self.scratch = updated;
        records.clear();
        if self.tps[vtpn as usize].records.capacity() == 0 {
            self.tps[vtpn as usize].records = records;
        }
        self.prefetch_entries(vtpn, truth);
        self.arriving = NONE;
        // The replay may have evicted dirty entries of this very page: they join its write.
        let again = std::mem::take(&mut self.tps[vtpn as usize].flush_after_read);
        if (flush || again) && !self.ctp_has(vtpn) {
            if again {
                self.assemble(vtpn, truth);
            }
            self.issue_write(vtpn);
        }
        while self.reading < self.p.max_outstanding_misses {
            let Some(next) = self.queued.pop_front() else { break };
            self.tps[next as usize].phase = Phase::Idle;
            self.start_read(next);
        }
        self.maintain(truth);
    }

    /// TPFTL's selective prefetch: load the entries its sequential misses on `vtpn` asked
    /// for, from the copy just read (clean, no flash read). It stops rather than evict an
    /// entry of `vtpn` itself, and when the page is being read again.
    fn prefetch_entries(&mut self, vtpn: u32, truth: &PageMap) {
        let Some(pf) = &mut self.prefetch else { return };
        let range = pf.take(vtpn);
        for lpn in range {
            let own = match &self.cmt {
                Cmt::Nodes(n) => n.victim_for(vtpn).is_some_and(|e| self.vtpn(e.tag) == vtpn),
                Cmt::Blocks(_) => unreachable!("prefetch is TPFTL's, over TP nodes"),
            };
            if own || matches!(self.tps[vtpn as usize].phase, Phase::Reading | Phase::Queued) {
                break;
            }
            if self.cmt.contains(lpn) {
                continue;
            }
            self.check_answer(lpn, truth);
            self.stats.prefetched += 1;
            if let Some(e) = self.cmt.insert(lpn) {
                self.evicted(e, truth);
            }
        }
    }

    fn ctp_has(&self, vtpn: u32) -> bool {
        self.ctp.as_ref().is_some_and(|c| c.contains(vtpn))
    }

    /// Translation page `vtpn`'s program started: its copy is on flash (the GTD points at
    /// it); later flushes of the page need a new program.
    pub fn tp_programmed(&mut self, vtpn: u32) {
        let t = &mut self.tps[vtpn as usize];
        debug_assert_eq!(t.phase, Phase::Writing);
        t.phase = Phase::Idle;
        // Misses logged while it was being written cannot exist: the page was in RAM.
        debug_assert!(t.records.is_empty());
    }

    // ------------------------------------------------------------ evictions and flushes

    /// A CMT block left the cache: a dirty one is flushed.
    fn evicted(&mut self, e: Evicted, truth: &PageMap) {
        if !e.dirty {
            return;
        }
        let vtpn = e.tag * self.p.block_entries / self.p.entries_per_tp;
        self.dtl.block_cleaned(vtpn);
        self.tps[vtpn as usize].evicted.push(e.tag);
        self.flush(vtpn, truth);
    }

    /// Write back translation page `vtpn`'s dirty entries (batched: every dirty CMT block of
    /// the page, unless `batch_on_evict` is off and an eviction asked for it). Finding them
    /// costs a test of every CMT block (`flush_find = "scan"`), or a visit of each along the
    /// dirty links (`"links"`, counted as they are cleaned).
    fn flush(&mut self, vtpn: u32, truth: &PageMap) {
        self.stats.flushes += 1;
        if self.p.flush_find == FlushFind::Scan {
            self.stats.flush_blocks_scanned += self.cmt.flush_scan(vtpn) as u64;
        }
        if self.ctp.as_ref().is_some_and(|c| c.contains(vtpn)) {
            // Merged into the CTP copy: no flash I/O now. The evicted block counts as cleaned
            // by this flush, as in `assemble`.
            self.clean_cmt_blocks(vtpn, true);
            let evicted = self.tps[vtpn as usize].evicted.len() as u64;
            self.cleaned(evicted);
            self.tps[vtpn as usize].evicted.clear();
            self.tps[vtpn as usize].gc_moved.clear();
            if let Some(ctp) = &mut self.ctp {
                if !ctp.is_dirty(vtpn) {
                    ctp.set_dirty(vtpn, true);
                    self.ctp_dirty.push_back(vtpn);
                }
            }
            return;
        }
        if vtpn == self.arriving {
            self.tps[vtpn as usize].flush_after_read = true;
            return;
        }
        match self.tps[vtpn as usize].phase {
            Phase::Writing => self.assemble(vtpn, truth),
            Phase::Reading | Phase::Queued => self.tps[vtpn as usize].flush_after_read = true,
            Phase::Idle if self.on_flash[vtpn as usize] => {
                self.tps[vtpn as usize].flush_after_read = true;
                self.start_read(vtpn);
            }
            Phase::Idle => self.write_page(vtpn, truth),
        }
    }

    /// Clean `vtpn`'s dirty CMT blocks (all of them with batching, or when `all`).
    fn clean_cmt_blocks(&mut self, vtpn: u32, all: bool) -> u32 {
        if !(all || self.p.batch_on_evict) {
            return 0;
        }
        let mut cleaned = 0;
        for tag in self.tp_tags(vtpn) {
            if self.cmt.is_dirty(tag) {
                self.cmt.set_dirty(tag, false);
                self.dtl.block_cleaned(vtpn);
                cleaned += 1;
            }
        }
        self.cleaned(cleaned as u64);
        cleaned
    }

    /// A flush cleaned `n` blocks (following dirty links, those are all it visits).
    fn cleaned(&mut self, n: u64) {
        self.stats.flush_blocks_cleaned += n;
        if self.p.flush_find == FlushFind::Links {
            self.stats.flush_blocks_scanned += n;
        }
    }

    /// Put the page's evicted and (batched) dirty entries into its copy: the image takes
    /// the true map's values for them.
    fn assemble(&mut self, vtpn: u32, truth: &PageMap) {
        let be = self.p.block_entries;
        let evicted = std::mem::take(&mut self.tps[vtpn as usize].evicted);
        self.cleaned(evicted.len() as u64);
        let mut tags = evicted;
        if self.p.batch_on_evict || tags.is_empty() {
            for tag in self.tp_tags(vtpn) {
                if self.cmt.is_dirty(tag) {
                    self.cmt.set_dirty(tag, false);
                    self.dtl.block_cleaned(vtpn);
                    self.cleaned(1);
                    tags.push(tag);
                }
            }
        }
        for &tag in &tags {
            for l in tag * be..((tag + 1) * be).min(self.logical_pages) {
                self.image.set(l, truth.get(l));
            }
        }
        tags.clear();
        self.tps[vtpn as usize].evicted = tags;
        self.apply_gc_moves(vtpn, truth);
    }

    /// Assemble `vtpn`'s new copy and ask for its program.
    fn write_page(&mut self, vtpn: u32, truth: &PageMap) {
        self.assemble(vtpn, truth);
        self.issue_write(vtpn);
    }

    fn issue_write(&mut self, vtpn: u32) {
        let t = &mut self.tps[vtpn as usize];
        if t.phase == Phase::Writing {
            return;
        }
        debug_assert_eq!(t.phase, Phase::Idle);
        t.phase = Phase::Writing;
        self.on_flash[vtpn as usize] = true;
        self.stats.tp_writes += 1;
        self.io.push_back(MapIo::Write(vtpn));
    }

    /// `vtpn` was read into the CTP: make room (a dirty victim is written back) and merge
    /// what waited for the page's write into the copy: the CMT blocks evicted dirty, GC's
    /// batched moves, and, when a flush asked for the read or updates go to the CTP
    /// (`update_target = "ctp"`), the page's dirty CMT blocks. Under `"cmt"` a read for a
    /// lookup leaves the CMT's dirty blocks dirty: they reach the copy at their flush.
    fn enter_ctp(&mut self, vtpn: u32, flush: bool, truth: &PageMap) {
        let ctp = self.ctp.as_mut().expect("a CTP");
        if let Some(e) = ctp.insert(vtpn) {
            if e.dirty {
                self.write_ctp_page(e.tag, truth);
            }
        }
        let t = &self.tps[vtpn as usize];
        let pending = !t.evicted.is_empty() || !t.gc_moved.is_empty();
        let merge_cmt = flush || self.p.update_target == UpdateTarget::Ctp;
        let merged = (merge_cmt && self.clean_cmt_blocks(vtpn, true) > 0) || pending;
        let evicted = self.tps[vtpn as usize].evicted.len() as u64;
        self.cleaned(evicted);
        self.tps[vtpn as usize].evicted.clear();
        self.tps[vtpn as usize].gc_moved.clear();
        if merged {
            let ctp = self.ctp.as_mut().expect("a CTP");
            ctp.set_dirty(vtpn, true);
            self.ctp_dirty.push_back(vtpn);
        }
    }

    /// Write a CTP page back: its copy is the true map's entries, except those of the
    /// page's dirty CMT blocks (`update_target = "cmt"`), whose newer values have not been
    /// flushed into it: the image keeps its older value for them (the check allows it, the
    /// block being dirty), and their flush writes them later.
    fn write_ctp_page(&mut self, vtpn: u32, truth: &PageMap) {
        let be = self.p.block_entries;
        for l in self.tp_lpns(vtpn) {
            if !self.cmt.is_dirty(l / be) {
                self.image.set(l, truth.get(l));
            }
        }
        self.tps[vtpn as usize].gc_moved.clear();
        if let Some(ctp) = &mut self.ctp {
            if ctp.contains(vtpn) {
                ctp.set_dirty(vtpn, false);
            }
        }
        self.stats.flushes += 1;
        if self.tps[vtpn as usize].phase == Phase::Writing {
            return;
        }
        self.issue_write(vtpn);
    }

    /// Watermarks: when the non-dirty blocks of a level fall to its low watermark, flush
    /// translation pages until they are back at the high one.
    fn maintain(&mut self, truth: &PageMap) {
        if self.p.low_watermark <= 0.0 {
            return;
        }
        let cap = self.cmt.capacity() as f64;
        if (self.cmt.non_dirty() as f64) <= self.p.low_watermark * cap {
            while (self.cmt.non_dirty() as f64) < self.p.high_watermark * cap {
                let Some(vtpn) = self.flush_pick() else { break };
                let before = self.cmt.non_dirty();
                self.flush(vtpn, truth);
                if self.cmt.non_dirty() == before {
                    // The page must be read first: its blocks are cleaned when the read
                    // arrives, and `tp_read_done` comes back here. Picking again now would
                    // pick the same page forever.
                    break;
                }
            }
        }
        let Some(ctp) = &self.ctp else { return };
        let cap = ctp.capacity() as f64;
        if (ctp.non_dirty() as f64) <= self.p.low_watermark * cap {
            while (self.ctp.as_ref().expect("a CTP").non_dirty() as f64) < self.p.high_watermark * cap {
                let Some(vtpn) = self.ctp_dirty.pop_front() else { break };
                if self.ctp.as_ref().expect("a CTP").is_dirty(vtpn) {
                    self.write_ctp_page(vtpn, truth);
                }
            }
        }
    }

    /// The translation page a watermark flush writes: the DTL's choice (FMMU), or, without
    /// dirty links (DFTL, CDFTL, TPFTL: no DTL, FMMU §5.1), the page of the least recently
    /// used dirty CMT block, found by scanning the CMT [I] (what that search visits beyond
    /// the flush's own scan is counted in `flush_blocks_scanned`).
    fn flush_pick(&mut self) -> Option<u32> {
        if self.p.dirty_links {
            return self.dtl.pick(self.p.flush_victim);
        }
        let (tag, visited) = self.cmt.lru_dirty()?;
        self.stats.flush_blocks_scanned += visited as u64;
        Some(tag * self.p.block_entries / self.p.entries_per_tp)
    }

    // ------------------------------------------------------------ checks

    /// Every entry the translation pages hold differs from the true map only where the
    /// cache holds a newer one (a dirty CMT block, a dirty CTP page) or a change waits for
    /// its page's read or write.
    pub fn check(&self, truth: &PageMap) {
        let mut pending = vec![false; self.logical_pages as usize];
        for t in &self.tps {
            for r in &t.records {
                if let Record::Update { lpn } = *r {
                    pending[lpn as usize] = true;
                }
            }
            for &tag in &t.evicted {
                let be = self.p.block_entries;
                for l in tag * be..((tag + 1) * be).min(self.logical_pages) {
                    pending[l as usize] = true;
                }
            }
            for &lpn in &t.gc_moved {
                pending[lpn as usize] = true;
            }
        }
        for lpn in 0..self.logical_pages {
            let dirty = self.cmt.is_dirty(lpn / self.p.block_entries) || self.ctp_newer(lpn);
            if !dirty && !pending[lpn as usize] {
                assert_eq!(
                    self.image.get(lpn),
                    truth.get(lpn),
                    "lpn {lpn}: its translation page is stale and no cache holds the change"
                );
            }
        }
        assert_eq!(self.stats.stale_entries, 0, "entries entered the cache stale");
    }

    pub fn update_order(&self) -> UpdateOrder {
        self.p.update_order
    }

    /// Bytes a map cache with `p` over `logical_pages` on `planes` planes holds: its image of
    /// the translation pages ([`LazyTable`], with `image_chunks` chunks written), per
    /// translation page its state, flags, dirty-list and prefetch books, the CMT and CTP
    /// ([`BlockCache::estimate_bytes`], [`TpNodes::estimate_bytes`]) and a GC batch list per
    /// plane.
    pub fn estimate_bytes(p: &Params, logical_pages: u32, planes: u32, image_chunks: u64) -> u64 {
        let tps = logical_pages.div_ceil(p.entries_per_tp) as u64;
        let image = crate::mem::ChunkedTable::<u32>::estimate_bytes(logical_pages as u64, false, image_chunks);
        let prefetch = if p.prefetch && p.tp_nodes { 1 + std::mem::size_of::<std::ops::Range<Lpn>>() } else { 0 };
        let per_tp = std::mem::size_of::<TpState>() + 1 + (4 + 4 + 1) + prefetch;
        let cmt = match p.tp_nodes {
            true => TpNodes::estimate_bytes(p.cmt_blocks),
            false => BlockCache::estimate_bytes(p.cmt_blocks, p.ways),
        };
        let ctp = if p.ctp_pages > 0 { BlockCache::estimate_bytes(p.ctp_pages, 0) } else { 0 };
        image + tps * per_tp as u64 + cmt + ctp + planes as u64 * std::mem::size_of::<Vec<u32>>() as u64
    }

    pub fn state_bytes(&self) -> u64 {
        self.image.bytes()
            + self.tps.len() as u64 * 64
            + self.cmt.state_bytes()
            + self.ctp.as_ref().map_or(0, |c| c.state_bytes())
            + self.prefetch.as_ref().map_or(0, |p| p.state_bytes())
    }
}

#[cfg(test)]
mod tests;
