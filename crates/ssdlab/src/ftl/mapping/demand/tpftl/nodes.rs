//! TPFTL's cached mapping table (Zhou et al., EuroSys 2015; docs/techniques.md §5.4): single
//! entries clustered by translation page into TP nodes, a two-level LRU.
//!
//! Hotness [I]: every access to an entry (its insertion, a lookup or update hit) gives it
//! the next value of an access clock, its *stamp*; an entry's hotness is its stamp (larger
//! is more recent, hotter). A node's *page-level hotness* is the average stamp of its cached
//! entries, the paper's "average hotness of the node's entries" [S]. The nodes sit in a
//! `BTreeSet` ordered by that average (compared exactly, as fractions) and then by vtpn, so
//! the coldest node is the first; the entry-level LRU list of a node is the entries' order
//! by stamp, kept in one `BTreeSet` keyed by (vtpn, dirty, stamp), so a node's least recent
//! clean entry and least recent dirty entry are each one range lookup. Every access costs
//! O(log n). The LPN → slot and vtpn → node indexes are hash maps looked up by key only, never
//! iterated, so nothing depends on hash order and memory follows the cache's size.
//!
//! Replacement: the victim node is the coldest one, leaving out the node the new entry joins
//! unless it is the only node [I: loading an entry never evicts its own page's entries when
//! another page could give one; the page was just read, so evicting from it would read it
//! again to write it back]. Inside the victim node, clean-first: its least recent clean entry;
//! if it holds only dirty entries, its least recent one, reported dirty, and the engine's
//! batch update then writes all of the node's dirty entries in one translation-page write and
//! marks them clean (`ftl.map_cache.batch_on_evict`). Without `clean_first`, the node's least
//! recent entry whatever its state.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use crate::ftl::mapping::demand::blocks::Evicted;
use crate::nand::{Lpn, NONE};

/// A TP node's place on the page-level list: its entries' stamp sum and count (the average
/// is sum / count), then its vtpn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NodeKey {
    sum: u64,
    count: u32,
    vtpn: u32,
}

impl Ord for NodeKey {
    /// Colder (smaller average stamp) first; averages compared as fractions in u128, so
    /// no rounding; ties by vtpn, then by sum (which keeps the order consistent with `Eq`).
    fn cmp(&self, o: &NodeKey) -> Ordering {
        let a = self.sum as u128 * o.count as u128;
        let b = o.sum as u128 * self.count as u128;
        a.cmp(&b).then(self.vtpn.cmp(&o.vtpn)).then(self.sum.cmp(&o.sum))
    }
}

impl PartialOrd for NodeKey {
    fn partial_cmp(&self, o: &NodeKey) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// An entry's place in its node's LRU lists: clean entries before dirty ones, each by stamp
/// (least recent first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct EntryKey {
    vtpn: u32,
    dirty: bool,
    stamp: u64,
    lpn: Lpn,
}

pub struct TpNodes {
    entries_per_tp: u32,
    capacity: u32,
    clean_first: bool,
    /// The access clock: the last stamp given.
    clock: u64,
    /// Per slot: the entry it holds (NONE: free), its stamp and dirty bit.
    lpn: Vec<Lpn>,
    stamp: Vec<u64>,
    dirty: Vec<bool>,
    free: Vec<u32>,
    /// Per cached logical page: its slot.
    slot_of: FxHashMap<Lpn, u32>,
    /// Per translation page with cached entries: its node's stamp sum and entry count.
    node: FxHashMap<u32, (u64, u32)>,
    nodes: BTreeSet<NodeKey>,
    entries: BTreeSet<EntryKey>,
    dirty_entries: u32,
}

impl TpNodes {
    /// Room for `capacity` entries, `entries_per_tp` to a node.
    pub fn new(capacity: u32, entries_per_tp: u32, clean_first: bool) -> TpNodes {
        assert!(capacity > 0, "a map cache needs room for one entry");
        let n = capacity as usize;
        TpNodes {
            entries_per_tp,
            capacity,
            clean_first,
            clock: 0,
            lpn: vec![NONE; n],
            stamp: vec![0; n],
            dirty: vec![false; n],
            free: (0..capacity).rev().collect(),
            slot_of: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            node: FxHashMap::default(),
            nodes: BTreeSet::new(),
            entries: BTreeSet::new(),
            dirty_entries: 0,
        }
    }

    /// Entries the cache holds at most.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Entries cached now.
    pub fn len(&self) -> u32 {
        self.capacity - self.free.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn dirty_blocks(&self) -> u32 {
        self.dirty_entries
    }

    /// Entries that are not dirty (free room included): what watermarks count.
    pub fn non_dirty(&self) -> u32 {
        self.capacity - self.dirty_entries
    }

    /// TP nodes with at least one cached entry.
    pub fn nodes(&self) -> u32 {
        self.nodes.len() as u32
    }

    /// Cached entries of translation page `vtpn` (what a flush of it visits).
    pub fn node_entries(&self, vtpn: u32) -> u32 {
        self.node.get(&vtpn).map_or(0, |n| n.1)
    }

    #[inline]
    pub fn contains(&self, lpn: Lpn) -> bool {
        self.slot_of.contains_key(&lpn)
    }

    #[inline]
    pub fn is_dirty(&self, lpn: Lpn) -> bool {
        self.slot_of.get(&lpn).is_some_and(|&s| self.dirty[s as usize])
    }

    /// `lpn`'s slot, or NONE.
    #[inline]
    fn slot(&self, lpn: Lpn) -> u32 {
        self.slot_of.get(&lpn).copied().unwrap_or(NONE)
    }

    /// Take `vtpn`'s node off the page-level list, change its (sum, count) with `f`, and put
    /// it back in its new place (or drop it when it has no entry left).
    fn renode(&mut self, vtpn: u32, f: impl FnOnce(&mut (u64, u32))) {
        let n = self.node.entry(vtpn).or_insert((0, 0));
        if n.1 > 0 {
            self.nodes.remove(&NodeKey { sum: n.0, count: n.1, vtpn });
        }
        f(n);
        let key = NodeKey { sum: n.0, count: n.1, vtpn };
        if key.count == 0 {
            self.node.remove(&vtpn);
        } else {
            self.nodes.insert(key);
        }
    }

    fn entry_key(&self, slot: u32) -> EntryKey {
        let (s, lpn) = (slot as usize, self.lpn[slot as usize]);
        EntryKey { vtpn: lpn / self.entries_per_tp, dirty: self.dirty[s], stamp: self.stamp[s], lpn }
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// An access to cached `lpn`: it takes the next stamp, and its node's average moves.
    pub fn touch(&mut self, lpn: Lpn) {
        let slot = self.slot(lpn);
        debug_assert_ne!(slot, NONE, "touch of an uncached entry {lpn}");
        self.entries.remove(&self.entry_key(slot));
        let (old, new) = (self.stamp[slot as usize], self.tick());
        self.stamp[slot as usize] = new;
        self.entries.insert(self.entry_key(slot));
        self.renode(lpn / self.entries_per_tp, |n| n.0 += new - old);
    }

    /// The least recently used dirty entry (the oldest stamp), by a scan of every slot; None
    /// if no entry is dirty. A watermark flush writes its page (no dirty list) [I].
    pub fn lru_dirty(&self) -> Option<Lpn> {
        (0..self.lpn.len())
            .filter(|&s| self.lpn[s] != NONE && self.dirty[s])
            .min_by_key(|&s| self.stamp[s])
            .map(|s| self.lpn[s])
    }

    /// Mark cached `lpn` dirty or clean (its recency stays).
    pub fn set_dirty(&mut self, lpn: Lpn, dirty: bool) {
        let slot = self.slot(lpn);
        debug_assert_ne!(slot, NONE, "dirty bit of an uncached entry {lpn}");
        if self.dirty[slot as usize] == dirty {
            return;
        }
        self.entries.remove(&self.entry_key(slot));
        self.dirty[slot as usize] = dirty;
        self.entries.insert(self.entry_key(slot));
        if dirty {
            self.dirty_entries += 1;
        } else {
            self.dirty_entries -= 1;
        }
    }

    /// Bring `lpn` in (clean, newest stamp). Returns the entry evicted to make room, if any.
    pub fn insert(&mut self, lpn: Lpn) -> Option<Evicted> {
        debug_assert!(!self.contains(lpn), "entry {lpn} inserted twice");
        let vtpn = lpn / self.entries_per_tp;
        let evicted = if self.free.is_empty() { Some(self.evict(self.victim(vtpn))) } else { None };
        let slot = self.free.pop().expect("a free slot after eviction");
        let stamp = self.tick();
        let s = slot as usize;
        (self.lpn[s], self.stamp[s], self.dirty[s]) = (lpn, stamp, false);
        self.slot_of.insert(lpn, slot);
        self.entries.insert(self.entry_key(slot));
        self.renode(vtpn, |n| *n = (n.0 + stamp, n.1 + 1));
        evicted
    }

    /// The entry an insertion into `vtpn`'s node would evict from a full cache, and whether
    /// it is dirty (None when there is room).
    pub fn victim_for(&self, vtpn: u32) -> Option<Evicted> {
        if !self.free.is_empty() {
            return None;
        }
        let slot = self.victim(vtpn);
        Some(Evicted { tag: self.lpn[slot as usize], dirty: self.dirty[slot as usize] })
    }

    /// The slot to evict to make room for an entry of `joining`: the coldest node other than
    /// `joining` (unless it is the only one), clean-first inside it.
    fn victim(&self, joining: u32) -> u32 {
        let mut coldest = self.nodes.iter().map(|k| k.vtpn);
        let first = coldest.next().expect("a full cache has a node");
        let vtpn = if first == joining { coldest.next().unwrap_or(first) } else { first };
        let clean = self.least_recent(vtpn, false);
        let dirty = self.least_recent(vtpn, true);
        let key = match (clean, dirty) {
            (Some(c), Some(d)) if !self.clean_first && d.stamp < c.stamp => d,
            (Some(c), _) => c,
            (None, Some(d)) => d,
            (None, None) => unreachable!("node {vtpn} is listed with no entry"),
        };
        self.slot(key.lpn)
    }

    /// The least recent clean (or dirty) entry of `vtpn`'s node.
    fn least_recent(&self, vtpn: u32, dirty: bool) -> Option<EntryKey> {
        let from = EntryKey { vtpn, dirty, stamp: 0, lpn: 0 };
        self.entries.range(from..).next().filter(|k| k.vtpn == vtpn && k.dirty == dirty).copied()
    }

    /// Take `slot`'s entry out.
    fn evict(&mut self, slot: u32) -> Evicted {
        let s = slot as usize;
        let (lpn, dirty) = (self.lpn[s], self.dirty[s]);
        let stamp = self.stamp[s];
        self.entries.remove(&self.entry_key(slot));
        self.renode(lpn / self.entries_per_tp, |n| *n = (n.0 - stamp, n.1 - 1));
        if dirty {
            self.dirty_entries -= 1;
        }
        self.slot_of.remove(&lpn);
        self.lpn[s] = NONE;
        self.free.push(slot);
        Evicted { tag: lpn, dirty }
    }

    /// Bytes a cache of `capacity` entries holds when full: per entry its slot (page, stamp,
    /// flag, free-list place), its index entry and its B-tree key (counted at twice its
    /// size, a B-tree's nodes being part empty); a node per translation page, at most one per
    /// entry.
    pub fn estimate_bytes(capacity: u32) -> u64 {
        let n = capacity as u64;
        let keys = 2 * (std::mem::size_of::<EntryKey>() + std::mem::size_of::<NodeKey>()) as u64;
        n * (4 + 8 + 1 + 4) + crate::mem::hash_table_bytes(n, 8) + crate::mem::hash_table_bytes(n, 16) + n * keys
    }

    /// Bytes of memory the structure uses (a B-tree element counted at twice its key).
    pub fn state_bytes(&self) -> u64 {
        let slots = self.lpn.len() as u64 * (4 + 8 + 1 + 4);
        let index = (self.slot_of.capacity() * 12 + self.node.capacity() * 20) as u64;
        let trees = (self.nodes.len() * 2 * 16 + self.entries.len() * 2 * 24) as u64;
        slots + index + trees
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 entries: per entry 17 bytes (page 4, stamp 8, flag 1, free-list place 4), an index
    /// of 128 buckets (100 × 8 / 7 rounded up) of 9 bytes and a node index of 128 of 17, and
    /// B-tree keys counted twice: an entry key of 24 bytes (aligned to its stamp) and a node
    /// key of 16. 1,700 + 1,152 + 2,176 + 100 × 80 = 13,028.
    #[test]
    fn the_estimate_is_the_sizes_the_node_cache_allocates() {
        assert_eq!((std::mem::size_of::<EntryKey>(), std::mem::size_of::<NodeKey>()), (24, 16));
        assert_eq!(TpNodes::estimate_bytes(100), 13_028);
    }
}
