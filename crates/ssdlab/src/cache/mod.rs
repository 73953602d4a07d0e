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

pub mod config;
pub mod dram;

use std::collections::VecDeque;

use config::{CacheConfig, Destage};
use dram::Dram;

use rustc_hash::FxHashMap;

use crate::engine::Ps;
use crate::nand::{Lpn, NONE};

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
    prev: u32,
    next: u32,
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
}

impl WriteCache {
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
            dirty_pages: 0,
            flushing_pages: 0,
            dropped: Vec::new(),
            waiting: VecDeque::new(),
            dram: Dram::fixed(access_ps),
            eager_limit: None,
        }
    }

    /// The cache `cache` configures (`capacity_pages` from its size and the page size).
    pub fn from_config(cache: &CacheConfig, capacity_pages: u32) -> WriteCache {
        let mut c = WriteCache::new(capacity_pages, 0);
        c.dram = Dram::from_config(cache);
        if cache.destage == Destage::Eager {
            c.eager_limit = Some(cache.max_destaging_pages);
        }
        c
    }

    /// With eager destaging: whether a dirty page not yet on its way to flash should start
    /// now (fewer than the limit are in flight). Every page being written back is dirty, so
    /// `dirty_pages - flushing_pages` are waiting.
    #[inline]
    pub fn should_destage(&self) -> bool {
        self.eager_limit.is_some_and(|limit| self.flushing_pages < limit && self.dirty_pages > self.flushing_pages)
    }

    pub fn len(&self) -> u32 {
        self.index.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
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
            self.unlink(s);
            self.push_front(s);
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
        if self.waiting.is_empty() {
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
            let e = &mut self.entries[s as usize];
            if e.trimmed {
                // Trimmed while being written back: the old sectors are gone.
                e.trimmed = false;
                e.mask = 0;
            }
            e.mask |= mask;
            if e.flushing {
                e.redirtied = true;
            }
            if !e.dirty {
                e.dirty = true;
                self.dirty_pages += 1;
            }
            self.touch(s);
            return WriteOutcome::Absorbed;
        }
        if self.index.len() as u32 >= self.capacity && !self.drop_lru_clean() {
            return WriteOutcome::Full;
        }
        let entry = Entry {
            lpn,
            mask,
            dirty: true,
            flushing: false,
            redirtied: false,
            trim_gen: 0,
            trimmed: false,
            prev: NONE,
            next: NONE,
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
        WriteOutcome::Inserted
    }

    /// Drop the least recently used clean page, if any.
    fn drop_lru_clean(&mut self) -> bool {
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

    /// Choose the least recently used dirty page not yet being written back, mark it as
    /// being written back and return it with its sectors and TRIM generation.
    pub fn start_writeback(&mut self) -> Option<Writeback> {
        let mut s = self.tail;
        while s != NONE {
            let e = &mut self.entries[s as usize];
            if e.dirty && !e.flushing {
                e.flushing = true;
                e.redirtied = false;
                self.flushing_pages += 1;
                return Some(Writeback { lpn: e.lpn, mask: e.mask, trim_gen: e.trim_gen });
            }
            s = e.prev;
        }
        None
    }

    /// Whether a write-back of `lpn` started at TRIM generation `gen` may still map its data.
    pub fn writeback_current(&self, lpn: Lpn, gen: u32) -> bool {
        self.index.get(&lpn).is_some_and(|&s| self.entries[s as usize].trim_gen == gen)
    }

    /// The write-back of `lpn` reached flash.
    pub fn writeback_done(&mut self, lpn: Lpn) {
        let s = *self.index.get(&lpn).expect("write-back of a page not in the cache");
        let e = &mut self.entries[s as usize];
        assert!(e.flushing, "write-back finished for lpn {lpn} that was not being written back");
        e.flushing = false;
        self.flushing_pages -= 1;
        if e.trimmed {
            self.dirty_pages -= 1;
            self.remove(s);
        } else if !e.redirtied {
            e.dirty = false;
            self.dirty_pages -= 1;
        }
    }

    fn remove(&mut self, s: u32) {
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
                return;
            }
            if e.dirty {
                self.dirty_pages -= 1;
            }
            self.remove(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_write_back_and_absorption() {
        let mut c = WriteCache::new(2, 0);
        assert_eq!(c.write(1, 0xff), WriteOutcome::Inserted);
        assert_eq!(c.write(2, 0x0f), WriteOutcome::Inserted);
        assert_eq!(c.write(1, 0xff), WriteOutcome::Absorbed);
        assert!(c.read(2, 0x03));
        assert!(!c.read(2, 0xf0), "sectors not cached are a miss");
        // Full of dirty pages: no room until a write-back finishes; LRU is page 1 (2 was read).
        assert_eq!(c.write(3, 1), WriteOutcome::Full);
        assert_eq!(c.start_writeback(), Some(Writeback { lpn: 1, mask: 0xff, trim_gen: 0 }));
        assert_eq!(c.write(3, 1), WriteOutcome::Full);
        assert!(c.read(1, 0xff), "a page being written back is still readable");
        c.writeback_done(1);
        assert_eq!(c.write(3, 1), WriteOutcome::Inserted, "clean page 1 is dropped for 3");
        assert_eq!(c.cached_mask(1), 0);
        assert_eq!(c.dirty_pages, 2);
    }

    #[test]
    fn a_page_written_during_write_back_stays_dirty() {
        let mut c = WriteCache::new(1, 0);
        c.write(7, 1);
        assert_eq!(c.start_writeback(), Some(Writeback { lpn: 7, mask: 1, trim_gen: 0 }));
        assert_eq!(c.write(7, 2), WriteOutcome::Absorbed);
        c.writeback_done(7);
        assert_eq!(c.dirty_pages, 1);
        assert_eq!(c.write(8, 1), WriteOutcome::Full);
    }
}
