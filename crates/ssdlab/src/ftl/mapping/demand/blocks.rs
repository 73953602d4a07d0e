//! A cache of equal blocks keyed by a tag: the CMT (a block holds `block_entries`
//! consecutive map entries) and the CTP (a block is one whole translation page).
//!
//! Set-associative (`ways` blocks per set, set = tag mod sets) or fully associative (one
//! set). Each set keeps its blocks on a recency list, most recent at the head. Replacement
//! is `lru` (a touch moves a block to the head; the victim is the tail) or `second_chance`
//! (a touch sets a referenced bit; the victim search walks from the tail and sends a
//! referenced block back to the head with its bit cleared, FMMU §4.4). With `clean_first`
//! the victim is the first non-dirty block met on that walk (FMMU and TPFTL); when every
//! block of the set is dirty, the least recent one is taken and its translation page must be
//! flushed (FMMU's hardware would stall the request until a flush cleans a block: ssdlab
//! flushes at once, `docs/config.md`). The tag → slot index is a hash map (looked up by key
//! only, never iterated), so memory follows the cache's size, not the drive's.

use serde::{Deserialize, Serialize};

use rustc_hash::FxHashMap;

use crate::nand::NONE;

/// How a map cache picks the block to evict (`ftl.map_cache.replacement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Replacement {
    /// Least recently used.
    Lru,
    /// Second chance (clock) with one referenced bit per block.
    SecondChance,
}

/// A block that left the cache to make room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evicted {
    pub tag: u32,
    pub dirty: bool,
}

pub struct BlockCache {
    sets: u32,
    ways: u32,
    replacement: Replacement,
    clean_first: bool,
    /// Per slot (set × ways + way): the tag held, or NONE.
    tag: Vec<u32>,
    dirty: Vec<bool>,
    referenced: Vec<bool>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Per set: most and least recent slot, and how many slots are in use.
    head: Vec<u32>,
    tail: Vec<u32>,
    used: Vec<u32>,
    /// Per tag: its slot, or NONE.
    slot_of: FxHashMap<u32, u32>,
    dirty_blocks: u32,
    /// Per slot: when it was last inserted or touched (the access clock's count), so the
    /// least recently used dirty block can be found across sets (see [`BlockCache::lru_dirty`]).
    stamp: Vec<u64>,
    clock: u64,
}

/// Longest victim search, in blocks (a fully associative cache under `clean_first` would
/// otherwise walk every dirty block).
const MAX_WALK: u32 = 256;

impl BlockCache {
    /// `blocks` slots in sets of `ways` (0: one set of all).
    pub fn new(blocks: u32, ways: u32, replacement: Replacement, clean_first: bool) -> BlockCache {
        assert!(blocks > 0, "a map cache level needs at least one block");
        let ways = if ways == 0 || ways > blocks { blocks } else { ways };
        let sets = blocks / ways;
        let n = (sets * ways) as usize;
        BlockCache {
            sets,
            ways,
            replacement,
            clean_first,
            tag: vec![NONE; n],
            dirty: vec![false; n],
            referenced: vec![false; n],
            prev: vec![NONE; n],
            next: vec![NONE; n],
            head: vec![NONE; sets as usize],
            tail: vec![NONE; sets as usize],
            used: vec![0; sets as usize],
            slot_of: FxHashMap::with_capacity_and_hasher(blocks as usize, Default::default()),
            dirty_blocks: 0,
            stamp: vec![0; n],
            clock: 0,
        }
    }

    /// `tag`'s slot, or NONE.
    #[inline]
    fn slot(&self, tag: u32) -> u32 {
        self.slot_of.get(&tag).copied().unwrap_or(NONE)
    }

    /// Blocks the cache holds at most.
    pub fn capacity(&self) -> u32 {
        self.sets * self.ways
    }

    pub fn dirty_blocks(&self) -> u32 {
        self.dirty_blocks
    }

    /// Blocks that are not dirty (empty slots included): what watermarks count.
    pub fn non_dirty(&self) -> u32 {
        self.capacity() - self.dirty_blocks
    }

    #[inline]
    pub fn contains(&self, tag: u32) -> bool {
        self.slot_of.contains_key(&tag)
    }

    #[inline]
    pub fn is_dirty(&self, tag: u32) -> bool {
        let s = self.slot(tag);
        s != NONE && self.dirty[s as usize]
    }

    /// A hit on `tag` (which must be cached): update its recency.
    pub fn touch(&mut self, tag: u32) {
        let s = self.slot(tag);
        debug_assert_ne!(s, NONE, "touch of an uncached tag {tag}");
        self.clock += 1;
        self.stamp[s as usize] = self.clock;
        match self.replacement {
            Replacement::Lru => self.move_to_head(s),
            Replacement::SecondChance => self.referenced[s as usize] = true,
        }
    }

    /// Mark a cached block dirty or clean.
    pub fn set_dirty(&mut self, tag: u32, dirty: bool) {
        let s = self.slot(tag) as usize;
        debug_assert_ne!(s as u32, NONE, "dirty bit of an uncached tag {tag}");
        if self.dirty[s] != dirty {
            self.dirty[s] = dirty;
            if dirty {
                self.dirty_blocks += 1;
            } else {
                self.dirty_blocks -= 1;
            }
        }
    }

    /// Bring `tag` in (clean, most recent). Returns the block evicted to make room, if any.
    pub fn insert(&mut self, tag: u32) -> Option<Evicted> {
        debug_assert!(!self.contains(tag), "tag {tag} inserted twice");
        let set = tag % self.sets;
        let (slot, evicted) = if self.used[set as usize] < self.ways {
            let slot = set * self.ways + self.used[set as usize];
            self.used[set as usize] += 1;
            (slot, None)
        } else {
            let slot = self.victim(set);
            let e = Evicted { tag: self.tag[slot as usize], dirty: self.dirty[slot as usize] };
            self.unlink(slot);
            self.slot_of.remove(&e.tag);
            if e.dirty {
                self.dirty_blocks -= 1;
            }
            (slot, Some(e))
        };
        let s = slot as usize;
        self.tag[s] = tag;
        self.dirty[s] = false;
        self.referenced[s] = false;
        self.clock += 1;
        self.stamp[s] = self.clock;
        self.slot_of.insert(tag, slot);
        self.push_head(set, slot);
        evicted
    }

    /// The tag of the least recently used dirty block (inserted or touched longest ago), by a
    /// scan of every slot: how a map cache without a dirty list (DFTL, CDFTL) finds what a
    /// watermark flush writes [I]. None if no block is dirty.
    pub fn lru_dirty(&self) -> Option<u32> {
        (0..self.tag.len())
            .filter(|&s| self.tag[s] != NONE && self.dirty[s])
            .min_by_key(|&s| self.stamp[s])
            .map(|s| self.tag[s])
    }

    /// The slot to evict from a full set.
    fn victim(&mut self, set: u32) -> u32 {
        let mut s = self.tail[set as usize];
        for _ in 0..MAX_WALK.min(2 * self.ways) {
            let i = s as usize;
            let skip_dirty = self.clean_first && self.dirty[i];
            if !skip_dirty {
                if self.replacement == Replacement::SecondChance && self.referenced[i] {
                    // Second chance: back to the head, bit cleared; walk on from its old
                    // predecessor.
                    self.referenced[i] = false;
                    let before = self.prev[i];
                    self.move_to_head(s);
                    s = if before == NONE { self.tail[set as usize] } else { before };
                    continue;
                }
                return s;
            }
            s = if self.prev[i] == NONE { self.tail[set as usize] } else { self.prev[i] };
        }
        // Every block met was dirty (or kept its second chance): the least recent goes.
        self.tail[set as usize]
    }

    fn push_head(&mut self, set: u32, slot: u32) {
        let (s, set) = (slot as usize, set as usize);
        self.prev[s] = NONE;
        self.next[s] = self.head[set];
        if self.head[set] != NONE {
            self.prev[self.head[set] as usize] = slot;
        } else {
            self.tail[set] = slot;
        }
        self.head[set] = slot;
    }

    fn unlink(&mut self, slot: u32) {
        let s = slot as usize;
        let set = (slot / self.ways) as usize;
        let (p, n) = (self.prev[s], self.next[s]);
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            self.head[set] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        } else {
            self.tail[set] = p;
        }
    }

    fn move_to_head(&mut self, slot: u32) {
        let set = slot / self.ways;
        if self.head[set as usize] != slot {
            self.unlink(slot);
            self.push_head(set, slot);
        }
    }

    /// Bytes a cache of `blocks` slots in sets of `ways` holds: per slot its tag, links,
    /// flags and stamp; per set its list ends and count; the tag index (a hash table sized
    /// for every slot: a key, a value and a control byte per bucket, at most 7/8 full).
    pub fn estimate_bytes(blocks: u32, ways: u32) -> u64 {
        let ways = if ways == 0 || ways > blocks { blocks } else { ways }.max(1);
        let (sets, n) = ((blocks / ways) as u64, blocks as u64);
        let per_slot = 4 + 1 + 1 + 4 + 4 + 8;
        n * per_slot + sets * 12 + crate::mem::hash_table_bytes(n, 8)
    }

    /// Bytes of memory the structure uses.
    pub fn state_bytes(&self) -> u64 {
        (self.tag.len() * 22 + self.slot_of.capacity() * 12 + self.head.len() * 12) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LRU over 2 ways, tags 0, 2, 4 map to set 0 of 2 sets: inserting 4 evicts 0 unless 0
    /// was touched, then 2.
    #[test]
    fn lru_evicts_the_least_recent_of_the_set() {
        let mut c = BlockCache::new(4, 2, Replacement::Lru, false);
        assert_eq!(c.insert(0), None);
        assert_eq!(c.insert(2), None);
        assert_eq!(c.insert(1), None, "set 1 is separate");
        c.touch(0);
        assert_eq!(c.insert(4), Some(Evicted { tag: 2, dirty: false }));
        assert!(c.contains(0) && c.contains(4) && !c.contains(2));
    }

    /// Second chance, one set of 3, insertion order 0, 1, 2 (tail 0). 0 referenced: it goes
    /// back to the head and 1 is evicted; then 2 (the new tail, unreferenced) goes next.
    #[test]
    fn second_chance_spares_a_referenced_block_once() {
        let mut c = BlockCache::new(3, 0, Replacement::SecondChance, false);
        for t in 0..3 {
            c.insert(t);
        }
        c.touch(0);
        assert_eq!(c.insert(3).map(|e| e.tag), Some(1));
        assert_eq!(c.insert(4).map(|e| e.tag), Some(2));
        assert_eq!(c.insert(5).map(|e| e.tag), Some(0), "0's bit was cleared on its second chance");
    }

    /// Clean-first skips dirty blocks; when all are dirty the least recent goes, reported
    /// dirty, and the dirty count follows.
    #[test]
    fn clean_first_skips_dirty_blocks_until_none_is_clean() {
        let mut c = BlockCache::new(2, 0, Replacement::Lru, true);
        c.insert(0);
        c.insert(1);
        c.set_dirty(0, true);
        assert_eq!(c.insert(2), Some(Evicted { tag: 1, dirty: false }));
        c.set_dirty(2, true);
        assert_eq!(c.dirty_blocks(), 2);
        assert_eq!(c.insert(3), Some(Evicted { tag: 0, dirty: true }));
        assert_eq!(c.dirty_blocks(), 1);
        assert_eq!(c.non_dirty(), 1);
    }

    /// 64 slots in sets of 4: per slot 22 bytes (tag 4, two flags, links 4 + 4, stamp 8), per
    /// set 12 (16 sets), the tag index a hash table of 128 buckets (64 × 8 / 7 rounded up) of
    /// 9 bytes: 1,408 + 192 + 1,152 = 2,752.
    #[test]
    fn the_estimate_is_the_sizes_a_block_cache_allocates() {
        assert_eq!(BlockCache::estimate_bytes(64, 4), 2752);
        // Fully associative (ways 0): one set.
        assert_eq!(BlockCache::estimate_bytes(64, 0), 1408 + 12 + 1152);
    }
}
