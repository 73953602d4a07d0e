//! DRAM write cache: LRU, write-back.
//!
//! Owns which logical pages sit in device DRAM. Writes land here and complete at DRAM
//! speed (write absorption when the page is already cached); reads whose sectors are all
//! cached are served from here (read hits). When a write finds no room, the least recently
//! used clean page is dropped, or — if every page is dirty — the least recently used dirty
//! page is written back to flash and its slot frees when that program finishes. A page
//! being written back stays readable here until then. Only written data is cached (no read
//! fill). Capacity is a limit: a write that finds the cache full of pages in flight waits,
//! in arrival order, in the cache's waiting list.
//!
//! With `cache.destage = "eager"` (MQSim's destage buffer) dirty pages go to flash as soon
//! as they are written, least recently used first, with at most `cache.max_destaging_pages`
//! in flight; `should_destage` tells the caller when to start the next.
//!
//! With `cache.slot_release = "evicted"` (SSDsim's buffer) a page's slot is free as soon as
//! its write-back starts: the page stays readable, outside the capacity, until its program
//! ends and then leaves; the caller makes the write that evicted wait for that program.
//!
//! With `cache.policy` other than `lru`, dirty pages also sit in per-die lists and a
//! write-back takes a group of them: SPD's Die-Write or its baselines' evictions
//! ([`crate::cache::spd`]).

pub mod config;
pub mod dram;
pub mod spd;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use config::{CacheConfig, CachePolicy, Destage, SlotRelease, SpdFallback, WriteAdmission};
use dram::Dram;

use rustc_hash::FxHashMap;

use crate::cache::spd::DieLists;
use crate::engine::Ps;
use crate::ftl::{static_plane, Level};
use crate::nand::{Geometry, Lpn, NONE};

#[derive(Debug, Clone)]
struct Entry {
    lpn: Lpn,
    mask: u64,
    dirty: bool,
    flushing: bool,
    /// Written again while a write-back was in flight: still dirty after it.
    redirtied: bool,
    /// Bumped by TRIM; a write-back started before a TRIM must not map its (trimmed) data.
    trim_gen: u32,
    /// Trimmed while a write-back was in flight: readable as nothing, dropped after it.
    trimmed: bool,
    /// Being written back and holding nothing newer, with `slot_release = "evicted"`: its
    /// slot is free; the entry leaves when the write-back ends.
    released: bool,
    /// Its dirty data came from a Die-GC move, not from the host.
    gc_data: bool,
    /// The write-back in flight carries only a Die-GC move's data.
    flushing_gc: bool,
    prev: u32,
    next: u32,
    /// When it last went to the front of the recency list (its order in the list).
    stamp: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOutcome {
    /// The page was cached already: the write is absorbed.
    Absorbed,
    /// Inserted into a free slot (maybe after dropping a clean page).
    Inserted,
    /// No slot can be freed now; the caller must wait for a write-back to finish.
    Full,
}

/// What became of a write offered to the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    Stored(WriteOutcome),
    /// No room now: it waits for a write-back to finish.
    Waits,
}

/// A write waiting for room.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    mr: u32,
    lpn: Lpn,
    mask: u64,
}

/// A dirty page on its way to flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Writeback {
    pub lpn: Lpn,
    /// The sectors it carries.
    pub mask: u64,
    /// Its TRIM generation when the write-back started (see [`WriteCache::writeback_current`]).
    pub trim_gen: u32,
    /// The plane the policy chose for it (SPD: page i of a group to plane i of its die);
    /// None: the allocation chooses.
    pub plane: Option<u32>,
}

impl Writeback {
    /// A dummy page that fills a plane of a partial SPD group (`cache.spd_fallback = "pad"`).
    pub fn is_pad(&self) -> bool {
        self.lpn == NONE
    }
}

/// The per-die lists of a policy other than `lru`, and where pages belong.
struct Dies {
    policy: CachePolicy,
    fallback: SpdFallback,
    lists: DieLists,
    geo: Geometry,
    /// The allocation order that fixes a page's die (and, when static, its plane).
    order: [Level; 4],
    /// Slots of the group being taken (scratch).
    group: Vec<u32>,
    /// Per slot: when it was last used (a counter). Evictions leave clean pages anywhere in
    /// the recency order, so the clean pages are also kept by that time: the least
    /// recently used one is found without walking the list.
    used_at: Vec<u64>,
    clock: u64,
    clean: BTreeMap<u64, u32>,
}

impl Dies {
    /// The plane static allocation gives `lpn` (its die is the page's die under every
    /// scheme `Config::validate` admits with a die-list policy).
    fn static_plane(&self, lpn: Lpn) -> u32 {
        static_plane(&self.geo, &self.order, lpn).0
    }

    fn die_of(&self, lpn: Lpn) -> u32 {
        self.static_plane(lpn) / self.geo.planes_per_die
    }

    /// Slot `s` was used now; `clean`: it holds a clean page (kept by this time).
    fn used(&mut self, s: u32, clean: bool) {
        let i = s as usize;
        if i >= self.used_at.len() {
            self.used_at.resize(i + 1, 0);
        }
        self.clock += 1;
        if clean {
            self.clean.remove(&self.used_at[i]);
            self.clean.insert(self.clock, s);
        }
        self.used_at[i] = self.clock;
    }

    /// Slot `s` no longer holds a clean page (written, or gone).
    fn not_clean(&mut self, s: u32) {
        if let Some(&t) = self.used_at.get(s as usize) {
            if self.clean.get(&t) == Some(&s) {
                self.clean.remove(&t);
            }
        }
    }
}

pub struct WriteCache {
    capacity: u32,
    index: FxHashMap<Lpn, u32>,
    entries: Vec<Entry>,
    free: Vec<u32>,
    /// Most recently used end.
    head: u32,
    /// Least recently used end.
    tail: u32,
    /// The last recency stamp given.
    stamp: u64,
    /// Dirty pages not being written back, by recency stamp: the first is the least
    /// recently used (what a write-back takes), found without walking the list.
    waiting_lru: BTreeSet<(u64, u32)>,
    pub dirty_pages: u32,
    pub flushing_pages: u32,
    /// Clean pages dropped to make room, not yet collected with `take_dropped`.
    dropped: Vec<Lpn>,
    /// Writes waiting for room, oldest first.
    waiting: VecDeque<Waiting>,
    dram: Dram,
    /// Eager destaging (`cache.destage = "eager"`): at most this many pages in flight;
    /// None: write back only when full.
    eager_limit: Option<u32>,
    /// `cache.write_admission = "below_destage_limit"`: host writes wait while the eager
    /// limit's pages are in flight.
    admit_below_limit: bool,
    /// Per-die lists (`cache.policy` other than `lru`).
    dies: Option<Dies>,
    /// Whether a write-back frees its slot when it starts (`slot_release = "evicted"`).
    release_at_eviction: bool,
    /// Entries whose slot is released: they do not count against the capacity.
    released: u32,
    /// With release at eviction: per write (memory request) that evicted, what it waits for.
    evicting: FxHashMap<u32, Eviction>,
    /// Per page written back for such a write: that write.
    evicted_for: FxHashMap<Lpn, u32>,
}

/// A write that evicted pages (release at eviction): it completes when its own data is
/// stored and every page it evicted is programmed, as SSDsim's request waits for the
/// sub-requests its insertion created.
#[derive(Debug, Default)]
struct Eviction {
    programs_left: u32,
    stored: bool,
}

impl WriteCache {
    /// Bytes a cache of `pages` pages holds when full: per page its entry, its index entry
    /// (a hash table) and its place in the write-back order (a B-tree key counted twice).
    pub fn estimate_bytes(pages: u64) -> u64 {
        let per_page = std::mem::size_of::<Entry>() as u64 + 4 + 2 * 16;
        pages * per_page + crate::mem::hash_table_bytes(pages, 8)
    }

    /// A cache of `capacity_pages` pages, each served or stored in `access_ps` (accesses
    /// overlap), writing back only when full.
    pub fn new(capacity_pages: u32, access_ps: Ps) -> WriteCache {
        assert!(capacity_pages > 0);
        WriteCache {
            capacity: capacity_pages,
            index: FxHashMap::default(),
            entries: Vec::new(),
            free: Vec::new(),
            head: NONE,
            tail: NONE,
            stamp: 0,
            waiting_lru: BTreeSet::new(),
            dirty_pages: 0,
            flushing_pages: 0,
            dropped: Vec::new(),
            waiting: VecDeque::new(),
            dram: Dram::fixed(access_ps),
            eager_limit: None,
            admit_below_limit: false,
            dies: None,
            release_at_eviction: false,
            released: 0,
            evicting: FxHashMap::default(),
            evicted_for: FxHashMap::default(),
        }
    }

    /// Keep dirty pages in per-die lists and write them back in groups as `policy` says;
    /// a page's die (and with `baseline_p` its plane) follows `order`, static allocation.
    pub fn with_die_lists(mut self, cache: &CacheConfig, geo: &Geometry, order: [Level; 4]) -> WriteCache {
        let (policy, fallback) = (cache.policy, cache.spd_fallback);
        if policy != CachePolicy::Lru {
            let lists = DieLists::new(geo.chips() * geo.dies_per_chip);
            let (used_at, clean) = (Vec::new(), BTreeMap::new());
            self.dies = Some(Dies {
                policy,
                fallback,
                lists,
                geo: geo.clone(),
                order,
                group: Vec::new(),
                used_at,
                clock: 0,
                clean,
            });
        }
        self
    }

    /// The cache `cache` configures (`capacity_pages` from its size and the page size).
    pub fn from_config(cache: &CacheConfig, capacity_pages: u32) -> WriteCache {
        let mut c = WriteCache::new(capacity_pages, 0);
        c.dram = Dram::from_config(cache);
        if cache.destage == Destage::Eager {
            c.eager_limit = Some(cache.max_destaging_pages);
        }
        c.admit_below_limit = cache.write_admission == WriteAdmission::BelowDestageLimit;
        c.release_at_eviction = cache.slot_release == SlotRelease::Evicted;
        c
    }

    /// A cache that frees a page's slot when its write-back starts (SSDsim's buffer).
    pub fn releasing_at_eviction(mut self) -> WriteCache {
        self.release_at_eviction = true;
        self
    }

    /// Whether a write-back frees its slot when it starts: the write that made it waits for
    /// it elsewhere (the caller), not here.
    pub fn releases_at_eviction(&self) -> bool {
        self.release_at_eviction
    }

    /// Slots taken: every cached page but those whose slot a write-back released.
    fn occupied(&self) -> u32 {
        self.index.len() as u32 - self.released
    }

    /// The oldest write waiting for room: its memory request.
    pub fn first_waiting(&self) -> Option<u32> {
        self.waiting.front().map(|w| w.mr)
    }

    /// With eager destaging: whether a dirty page not yet on its way to flash should start
    /// now (fewer than the limit are in flight). Every page being written back is dirty, so
    /// `dirty_pages - flushing_pages` are waiting.
    #[inline]
    pub fn should_destage(&self) -> bool {
        self.eager_limit.is_some_and(|limit| self.flushing_pages < limit && self.dirty_pages > self.flushing_pages)
    }

    /// Whether host writes wait for destaging (`cache.write_admission =
    /// "below_destage_limit"` with the limit's pages in flight), not for room.
    #[inline]
    pub fn admission_blocked(&self) -> bool {
        self.admit_below_limit && self.eager_limit.is_some_and(|limit| self.flushing_pages >= limit)
    }

    pub fn len(&self) -> u32 {
        self.index.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// `s` is listed among the waiting dirty pages if it is one.
    fn note_waiting(&mut self, s: u32) {
        let e = &self.entries[s as usize];
        if e.dirty && !e.flushing {
            self.waiting_lru.insert((e.stamp, s));
        }
    }

    /// `s` is no longer listed among the waiting dirty pages (if it was).
    fn leave_waiting(&mut self, s: u32) {
        self.waiting_lru.remove(&(self.entries[s as usize].stamp, s));
    }

    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.entries[s as usize].prev, self.entries[s as usize].next);
        if p != NONE {
            self.entries[p as usize].next = n;
        } else {
            self.head = n;
        }
        if n != NONE {
            self.entries[n as usize].prev = p;
        } else {
            self.tail = p;
        }
    }

    fn push_front(&mut self, s: u32) {
        self.stamp += 1;
        self.entries[s as usize].stamp = self.stamp;
        self.entries[s as usize].prev = NONE;
        self.entries[s as usize].next = self.head;
        if self.head != NONE {
            self.entries[self.head as usize].prev = s;
        }
        self.head = s;
        if self.tail == NONE {
            self.tail = s;
        }
    }

    fn touch(&mut self, s: u32) {
        if self.head != s {
            self.leave_waiting(s);
            self.unlink(s);
            self.push_front(s);
        }
        self.note_waiting(s);
        if let Some(d) = &mut self.dies {
            d.lists.touch(s);
            let e = &self.entries[s as usize];
            d.used(s, !e.dirty && !e.flushing);
        }
    }

    /// `s` became dirty and may be written back: list it in its die (die-list policies).
    fn list_dirty(&mut self, s: u32) {
        if let Some(d) = &mut self.dies {
            let die = d.die_of(self.entries[s as usize].lpn);
            d.lists.insert(s, die);
            d.not_clean(s);
        }
    }

    fn unlist(&mut self, s: u32) {
        if let Some(d) = &mut self.dies {
            d.lists.remove(s);
        }
    }

    /// Writes waiting for room.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// DRAM time, from `now`, to serve `bytes` from the cache or store them in it (a wait
    /// for the DRAM channel included).
    #[inline]
    pub fn access(&mut self, now: Ps, bytes: u64) -> Ps {
        self.dram.access(now, bytes)
    }

    /// A write (memory request `mr`) of `mask` sectors of `lpn` arrives: stored now, or it
    /// waits, behind any write already waiting (arrival order is kept), for a write-back to
    /// make room.
    pub fn offer(&mut self, mr: u32, lpn: Lpn, mask: u64) -> Offer {
        if self.waiting.is_empty() && !self.admission_blocked() {
            let outcome = self.write(lpn, mask);
            if outcome != WriteOutcome::Full {
                return Offer::Stored(outcome);
            }
        }
        self.waiting.push_back(Waiting { mr, lpn, mask });
        Offer::Waits
    }

    /// The oldest waiting write, stored now if it finds room (then the next may too): its
    /// memory request and what storing it did.
    pub fn admit_waiting(&mut self) -> Option<(u32, WriteOutcome)> {
        let w = *self.waiting.front()?;
        if self.admission_blocked() {
            return None;
        }
        let outcome = self.write(w.lpn, w.mask);
        if outcome == WriteOutcome::Full {
            return None;
        }
        self.waiting.pop_front();
        Some((w.mr, outcome))
    }

    /// Sectors of `lpn` held in the cache (0 if none).
    pub fn cached_mask(&self, lpn: Lpn) -> u64 {
        self.index.get(&lpn).map(|&s| &self.entries[s as usize]).filter(|e| !e.trimmed).map(|e| e.mask).unwrap_or(0)
    }

    /// A read of `mask` sectors of `lpn`: a hit if all of them are cached.
    pub fn read(&mut self, lpn: Lpn, mask: u64) -> bool {
        match self.index.get(&lpn).copied() {
            Some(s) if self.entries[s as usize].mask & mask == mask && !self.entries[s as usize].trimmed => {
                self.touch(s);
                true
            }
            _ => false,
        }
    }

    /// Write `mask` sectors of `lpn` into the cache.
    pub fn write(&mut self, lpn: Lpn, mask: u64) -> WriteOutcome {
        if let Some(&s) = self.index.get(&lpn) {
            if self.entries[s as usize].released {
                // Its slot went with the write-back: new data needs a slot again.
                if !self.make_room() {
                    return WriteOutcome::Full;
                }
                self.entries[s as usize].released = false;
                self.released -= 1;
            }
            let e = &mut self.entries[s as usize];
            if e.trimmed {
                // Trimmed while being written back: the old sectors are gone.
                e.trimmed = false;
                e.mask = 0;
            }
            e.mask |= mask;
            e.gc_data = false;
            if e.flushing {
                e.redirtied = true;
            }
            let newly_listed = !e.dirty && !e.flushing;
            if !e.dirty {
                e.dirty = true;
                self.dirty_pages += 1;
            }
            if newly_listed {
                self.list_dirty(s);
            }
            self.touch(s);
            return WriteOutcome::Absorbed;
        }
        if !self.make_room() {
            return WriteOutcome::Full;
        }
        self.insert(lpn, mask);
        WriteOutcome::Inserted
    }

    /// A new dirty entry for `lpn`, most recently used, listed in its die.
    fn insert(&mut self, lpn: Lpn, mask: u64) {
        let entry = Entry {
            lpn,
            mask,
            dirty: true,
            flushing: false,
            redirtied: false,
            trim_gen: 0,
            trimmed: false,
            released: false,
            gc_data: false,
            flushing_gc: false,
            prev: NONE,
            next: NONE,
            stamp: 0,
        };
        let s = match self.free.pop() {
            Some(s) => {
                self.entries[s as usize] = entry;
                s
            }
            None => {
                self.entries.push(entry);
                self.entries.len() as u32 - 1
            }
        };
        self.index.insert(lpn, s);
        self.push_front(s);
        self.dirty_pages += 1;
        self.note_waiting(s);
        if let Some(d) = &mut self.dies {
            d.used(s, false);
        }
        self.list_dirty(s);
    }

    /// Whether a write-back of `lpn` is in flight.
    pub fn writing_back(&self, lpn: Lpn) -> bool {
        self.index.get(&lpn).is_some_and(|&s| self.entries[s as usize].flushing)
    }

    /// Die-GC's leftover move of `lpn` (`ftl.gc.die_leftover = "buffer"`): the whole page
    /// (`full`) becomes dirty here, in its die's list — a new entry even when the cache is
    /// full (at most N − 1 per Die-GC), an entry already cached keeping its place in the
    /// recency order [I]. Not for a page being written back (see [`Self::writing_back`]).
    pub fn gc_insert(&mut self, lpn: Lpn, full: u64) {
        let Some(&s) = self.index.get(&lpn) else {
            self.insert(lpn, full);
            let s = self.index[&lpn];
            self.entries[s as usize].gc_data = true;
            return;
        };
        let e = &mut self.entries[s as usize];
        assert!(!e.flushing, "a Die-GC move into the cache of lpn {lpn}, which is being written back");
        e.mask = full;
        if !e.dirty {
            e.dirty = true;
            e.gc_data = true;
            self.dirty_pages += 1;
            self.list_dirty(s);
            self.note_waiting(s);
        }
    }

    /// Whether the write-back of `lpn` in flight carries only a Die-GC move's data (a GC
    /// program, not a host one).
    pub fn writeback_is_gc(&self, lpn: Lpn) -> bool {
        self.index.get(&lpn).is_some_and(|&s| self.entries[s as usize].flushing_gc)
    }

    /// Drop clean pages, least recently used first, until a slot is free: false if none is
    /// left to drop first. (The cache can be over its capacity after Die-GC moves came in.)
    fn make_room(&mut self) -> bool {
        while self.occupied() >= self.capacity {
            if !self.drop_lru_clean() {
                return false;
            }
        }
        true
    }

    /// Drop the least recently used clean page, if any. Every page being written back is
    /// dirty, so with as many dirty pages as cached ones there is none, and the list is not
    /// walked (a full cache of dirty pages is the usual state under writes).
    fn drop_lru_clean(&mut self) -> bool {
        if self.index.len() as u32 == self.dirty_pages {
            return false;
        }
        if let Some(d) = &mut self.dies {
            let Some((_, s)) = d.clean.pop_first() else { return false };
            self.remove(s);
            return true;
        }
        let mut s = self.tail;
        while s != NONE {
            let e = &self.entries[s as usize];
            if !e.dirty && !e.flushing {
                let lpn = e.lpn;
                self.unlink(s);
                self.index.remove(&lpn);
                self.free.push(s);
                self.dropped.push(lpn);
                return true;
            }
            s = e.prev;
        }
        false
    }

    /// Clean pages dropped since the last call.
    pub fn take_dropped(&mut self) -> Option<Lpn> {
        self.dropped.pop()
    }

    /// Choose the dirty pages to write back now, as `cache.policy` says, mark them as being
    /// written back and put them in `out` with their sectors and TRIM generations (empty when
    /// none may go: every dirty page is on its way, or no die list holds a whole group).
    pub fn start_writeback(&mut self, out: &mut Vec<Writeback>) {
        out.clear();
        let Some(d) = &mut self.dies else {
            if let Some(s) = self.lru_dirty() {
                out.push(self.begin_writeback(s, None));
            }
            return;
        };
        let mut group = std::mem::take(&mut d.group);
        let planes = d.take_group(&mut group, &self.entries);
        for (i, &s) in group.iter().enumerate() {
            let plane = planes.map(|first| first + i as u32);
            out.push(self.begin_writeback(s, plane));
        }
        if let (Some(first), Some(d)) = (planes, &self.dies) {
            for i in group.len() as u32..d.geo.planes_per_die {
                out.push(Writeback { lpn: NONE, mask: 0, trim_gen: 0, plane: Some(first + i) });
            }
        }
        group.clear();
        self.dies.as_mut().expect("die lists").group = group;
    }

    /// With release at eviction, the pages just taken in `out` were evicted for the oldest
    /// waiting write: it will wait for their programs.
    pub fn charge_eviction(&mut self, out: &[Writeback]) {
        let Some(mr) = self.first_waiting().filter(|_| self.release_at_eviction) else { return };
        for wb in out.iter().filter(|wb| !wb.is_pad()) {
            self.evicted_for.insert(wb.lpn, mr);
            self.evicting.entry(mr).or_default().programs_left += 1;
        }
    }

    /// A write's data is stored (memory request `mr`): whether it is done, or still waits
    /// for pages it evicted to be programmed.
    pub fn write_stored(&mut self, mr: u32) -> bool {
        match self.evicting.get_mut(&mr) {
            Some(e) => {
                e.stored = true;
                false
            }
            None => true,
        }
    }

    /// The least recently used dirty page not yet being written back: the first of
    /// `waiting_lru` (the same page a walk from the list's tail finds first, asserted in
    /// debug builds), in logarithmic time however many clean pages the list holds.
    fn lru_dirty(&self) -> Option<u32> {
        let found = self.waiting_lru.first().map(|&(_, s)| s);
        debug_assert_eq!(found, self.lru_dirty_from_tail());
        debug_assert_eq!(self.waiting_lru.len() as u32, self.dirty_pages - self.flushing_pages);
        found
    }

    fn lru_dirty_from_tail(&self) -> Option<u32> {
        let mut s = self.tail;
        while s != NONE {
            let e = &self.entries[s as usize];
            if e.dirty && !e.flushing {
                return Some(s);
            }
            s = e.prev;
        }
        None
    }

    fn begin_writeback(&mut self, s: u32, plane: Option<u32>) -> Writeback {
        self.leave_waiting(s);
        self.unlist(s);
        let e = &mut self.entries[s as usize];
        debug_assert!(e.dirty && !e.flushing);
        e.flushing = true;
        e.redirtied = false;
        e.flushing_gc = std::mem::take(&mut e.gc_data);
        if self.release_at_eviction {
            e.released = true;
            self.released += 1;
        }
        self.flushing_pages += 1;
        Writeback { lpn: e.lpn, mask: e.mask, trim_gen: e.trim_gen, plane }
    }

    /// Whether a write-back of `lpn` started at TRIM generation `gen` may still map its data.
    pub fn writeback_current(&self, lpn: Lpn, gen: u32) -> bool {
        self.index.get(&lpn).is_some_and(|&s| self.entries[s as usize].trim_gen == gen)
    }

    /// The write-back of `lpn` reached flash: the write it was evicted for, if that write
    /// is now done (release at eviction).
    pub fn writeback_done(&mut self, lpn: Lpn) -> Option<u32> {
        self.settle(lpn);
        let mr = self.evicted_for.remove(&lpn)?;
        let e = self.evicting.get_mut(&mr).expect("an eviction's write");
        e.programs_left -= 1;
        if e.programs_left > 0 || !e.stored {
            return None;
        }
        self.evicting.remove(&mr);
        Some(mr)
    }

    /// The page's entry once its write-back ended: gone (evicted, or trimmed meanwhile),
    /// clean, or dirty again (written meanwhile).
    fn settle(&mut self, lpn: Lpn) {
        let s = *self.index.get(&lpn).expect("write-back of a page not in the cache");
        let e = &mut self.entries[s as usize];
        assert!(e.flushing, "write-back finished for lpn {lpn} that was not being written back");
        e.flushing = false;
        self.flushing_pages -= 1;
        if e.released || e.trimmed {
            if e.released {
                e.released = false;
                self.released -= 1;
            }
            self.dirty_pages -= 1;
            self.remove(s);
        } else if !e.redirtied {
            e.dirty = false;
            self.dirty_pages -= 1;
            if let Some(d) = &mut self.dies {
                d.clean.insert(d.used_at[s as usize], s);
            }
        } else {
            self.list_dirty(s);
            self.note_waiting(s);
        }
    }

    fn remove(&mut self, s: u32) {
        self.leave_waiting(s);
        if let Some(d) = &mut self.dies {
            d.not_clean(s);
        }
        let lpn = self.entries[s as usize].lpn;
        self.unlink(s);
        self.index.remove(&lpn);
        self.free.push(s);
        self.dropped.push(lpn);
    }

    /// TRIM of a whole page: forget `lpn`. A page being written back stays (marked) until
    /// the write-back ends, and that write-back will not map its data.
    pub fn trim(&mut self, lpn: Lpn) {
        if let Some(&s) = self.index.get(&lpn) {
            let e = &mut self.entries[s as usize];
            e.trim_gen = e.trim_gen.wrapping_add(1);
            if e.flushing {
                e.trimmed = true;
                e.redirtied = false;
                if self.release_at_eviction && !e.released {
                    // Its newer data is gone: only the write-back's copy is left.
                    e.released = true;
                    self.released += 1;
                }
                return;
            }
            if e.dirty {
                self.dirty_pages -= 1;
            }
            self.unlist(s);
            self.remove(s);
        }
    }
}

impl Dies {
    /// The slots of the next group into `group`, as the policy says; with SPD also the
    /// first plane of their die (slot i goes to plane first + i).
    fn take_group(&mut self, group: &mut Vec<u32>, entries: &[Entry]) -> Option<u32> {
        let n = self.geo.planes_per_die;
        match self.policy {
            CachePolicy::Spd => {
                let die = match self.lists.next_die(n) {
                    Some(die) => die,
                    None if self.fallback == SpdFallback::Pad => self.lists.next_die(1)?,
                    None => return None,
                };
                group.extend(self.lists.lru_first(die).take(n as usize));
                Some(die * n)
            }
            CachePolicy::BaselineD => {
                let die = self.lists.next_die(1)?;
                group.extend(self.lists.lru_first(die).take(1));
                None
            }
            CachePolicy::BaselineP => {
                let die = self.lists.next_die(1)?;
                let mut taken = 0u64;
                for s in self.lists.lru_first(die) {
                    let bit = 1u64 << (self.static_plane(entries[s as usize].lpn) % n);
                    if taken & bit == 0 {
                        taken |= bit;
                        group.push(s);
                        if group.len() == n as usize {
                            break;
                        }
                    }
                }
                None
            }
            CachePolicy::Lru => unreachable!("lru keeps no die lists"),
        }
    }
}

#[cfg(test)]
mod tests;
