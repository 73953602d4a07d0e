//! The device queue: tags, the requests holding them, and the hazard check between them.
//!
//! A request fetched from a submission queue takes a tag (`hil.queue_depth`; 32 for SATA/NCQ)
//! and is admitted: if it overlaps an earlier unfinished request in a way `hil.hazards` orders
//! (or either is FUA) it waits, blocked, until that one completes; otherwise it starts at
//! once. When a request completes its tag frees and blocked requests retry in admission order.
//! Overlap is judged at page granularity: a write of some sectors of a page rewrites (and may
//! move) the whole page.

use crate::hil::{overlaps, Hazards};
use crate::nand::NONE;

/// A request holding a tag, as the hazard check sees it.
#[derive(Debug, Clone, Copy)]
struct Active {
    io: u32,
    /// Order of admission: the hazard check orders by it.
    admitted: u64,
    first_lpn: u64,
    pages: u32,
    writes: bool,
    fua: bool,
    blocked: bool,
}

/// Counting filter over the pages of active requests: how many active requests (and how
/// many active writers) touch a page hashing to each slot. A zero count proves there is no
/// conflict; a non-zero one sends the request through the exact scan. It has 16 slots per
/// tag (4,096 at least, 2^20 at most), so a request's pages rarely share a slot with
/// another's and the exact scan stays rare at any queue depth.
struct PageFilter {
    any: Vec<u32>,
    writes: Vec<u32>,
    /// log2 of the slot count.
    bits: u32,
}

impl PageFilter {
    fn new(tags: u32) -> PageFilter {
        let slots = (16 * tags as usize).next_power_of_two().clamp(4096, 1 << 20);
        PageFilter { any: vec![0; slots], writes: vec![0; slots], bits: slots.trailing_zeros() }
    }

    #[inline]
    fn slot(&self, lpn: u64) -> usize {
        (lpn.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    /// Slots a request covers: every page, or all slots for a request longer than the filter.
    fn slots(&self, a: &Active) -> impl Iterator<Item = usize> + '_ {
        let n = self.any.len();
        let all = a.pages as usize >= n;
        let pages = if all { 0 } else { a.pages as u64 };
        let first = a.first_lpn;
        (0..pages).map(move |k| self.slot(first + k)).chain(0..if all { n } else { 0 })
    }

    fn may_conflict(&self, a: &Active) -> bool {
        let table = if a.writes { &self.any } else { &self.writes };
        self.slots(a).any(|s| table[s] > 0)
    }

    fn add(&mut self, a: &Active, delta: i32) {
        let n = self.any.len();
        let all = a.pages as usize >= n;
        for k in 0..if all { n as u64 } else { a.pages as u64 } {
            let s = if all { k as usize } else { self.slot(a.first_lpn + k) };
            self.any[s] = self.any[s].wrapping_add_signed(delta);
            if a.writes {
                self.writes[s] = self.writes[s].wrapping_add_signed(delta);
            }
        }
    }
}

/// A request to admit: its pages and whether it writes (or trims) and is FUA.
#[derive(Debug, Clone, Copy)]
pub struct Admission {
    pub io: u32,
    pub first_lpn: u64,
    pub pages: u32,
    pub writes: bool,
    pub fua: bool,
}

pub struct DeviceQueue {
    tags_free: u32,
    hazards: Hazards,
    /// Requests holding a tag, in no particular order.
    active: Vec<Active>,
    /// Per request id: its index in `active` while it holds a tag.
    slot_of: Vec<u32>,
    admitted: u64,
    /// Active requests that write, trim or are FUA; active FUA requests.
    writers: u32,
    fua: u32,
    filter: PageFilter,
    blocked: u32,
    /// Per request id: the earlier unfinished requests it waits for (0: it may start).
    waits: Vec<u32>,
    /// Per request id: the later requests waiting for it (the lists are kept for reuse).
    waiters: Vec<Vec<u32>>,
}

impl DeviceQueue {
    pub fn new(tags: u32, hazards: Hazards) -> DeviceQueue {
        DeviceQueue {
            tags_free: tags,
            hazards,
            active: Vec::with_capacity(tags as usize),
            slot_of: Vec::new(),
            admitted: 0,
            writers: 0,
            fua: 0,
            filter: PageFilter::new(tags),
            blocked: 0,
            waits: Vec::new(),
            waiters: Vec::new(),
        }
    }

    #[inline]
    pub fn tags_free(&self) -> u32 {
        self.tags_free
    }

    /// A fetched command takes a tag (it is admitted when the device sees it).
    #[inline]
    pub fn take_tag(&mut self) {
        assert!(self.tags_free > 0, "a command fetched without a free tag");
        self.tags_free -= 1;
    }

    /// Whether any request holds a tag and is not yet complete.
    #[inline]
    pub fn holds_work(&self) -> bool {
        !self.active.is_empty()
    }

    /// Admit a request that holds a tag. True: it may start now; false: it waits, blocked,
    /// until [`DeviceQueue::release`] hands it back.
    #[inline(always)]
    pub fn admit(&mut self, a: Admission) -> bool {
        self.admitted += 1;
        let entry = Active {
            io: a.io,
            admitted: self.admitted,
            first_lpn: a.first_lpn,
            pages: a.pages,
            writes: a.writes,
            fua: a.fua,
            blocked: false,
        };
        // The page filter answers "surely no conflict" for most requests without a scan.
        let maybe_conflict =
            entry.fua || self.fua > 0 || (self.hazards.may_order(entry.writes) && self.filter.may_conflict(&entry));
        self.writers += (entry.writes || entry.fua) as u32;
        self.fua += entry.fua as u32;
        self.filter.add(&entry, 1);
        let slot = self.active.len();
        if self.slot_of.len() <= a.io as usize {
            self.slot_of.resize(a.io as usize + 1, NONE);
            self.waits.resize(a.io as usize + 1, 0);
            self.waiters.resize_with(a.io as usize + 1, Vec::new);
        }
        self.slot_of[a.io as usize] = slot as u32;
        self.active.push(entry);
        if maybe_conflict {
            let n = self.wait_for_blockers(slot);
            if n > 0 {
                self.waits[a.io as usize] = n;
                self.active[slot].blocked = true;
                self.blocked += 1;
                return false;
            }
        }
        true
    }

    /// The earlier unfinished requests the request at `slot` must wait for: it joins each
    /// one's waiters; how many there are.
    #[cold]
    fn wait_for_blockers(&mut self, slot: usize) -> u32 {
        if self.writers == 0 {
            // Only reads in flight (and none is FUA): nothing to order.
            return 0;
        }
        let me = self.active[slot];
        let mut n = 0;
        for o in &self.active {
            // Only requests admitted earlier can hold it back.
            let blocks = o.admitted < me.admitted
                && (me.fua
                    || o.fua
                    || (self.hazards.orders(me.writes, o.writes)
                        && overlaps(me.first_lpn, me.pages, o.first_lpn, o.pages)));
            if blocks {
                self.waiters[o.io as usize].push(me.io);
                n += 1;
            }
        }
        n
    }

    /// Request `io` completed: its tag frees. Requests that waited for it and for nothing
    /// else now are appended to `unblocked`, in admission order.
    pub fn release(&mut self, io: u32, unblocked: &mut Vec<u32>) {
        let pos = self.slot_of[io as usize] as usize;
        let gone = self.active.swap_remove(pos);
        debug_assert_eq!(gone.io, io);
        if let Some(moved) = self.active.get(pos) {
            self.slot_of[moved.io as usize] = pos as u32;
        }
        self.writers -= (gone.writes || gone.fua) as u32;
        self.fua -= gone.fua as u32;
        self.filter.add(&gone, -1);
        self.tags_free += 1;
        if self.blocked == 0 {
            return;
        }
        let mut waiting = std::mem::take(&mut self.waiters[io as usize]);
        let first = unblocked.len();
        for &w in &waiting {
            let left = &mut self.waits[w as usize];
            *left -= 1;
            if *left == 0 {
                self.active[self.slot_of[w as usize] as usize].blocked = false;
                self.blocked -= 1;
                unblocked.push(w);
            }
        }
        waiting.clear();
        self.waiters[io as usize] = waiting;
        unblocked[first..].sort_unstable_by_key(|&w| self.active[self.slot_of[w as usize] as usize].admitted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fetched request takes a tag and is admitted.
    fn admit(q: &mut DeviceQueue, a: Admission) -> bool {
        q.take_tag();
        q.admit(a)
    }

    fn req(io: u32, first_lpn: u64, pages: u32, writes: bool) -> Admission {
        Admission { io, first_lpn, pages, writes, fua: false }
    }

    /// Strict: a read of pages 4-5 after a write of 5-6 waits; a read of 7 does not; when the
    /// write completes the read is handed back.
    #[test]
    fn a_read_waits_for_an_overlapping_earlier_write_until_it_completes() {
        let mut q = DeviceQueue::new(4, Hazards::Strict);
        assert!(admit(&mut q, req(0, 5, 2, true)));
        assert!(!admit(&mut q, req(1, 4, 2, false)));
        assert!(admit(&mut q, req(2, 7, 1, false)));
        let mut out = Vec::new();
        q.release(2, &mut out);
        assert!(out.is_empty());
        q.release(0, &mut out);
        assert_eq!(out, vec![1]);
        assert_eq!(q.tags_free(), 4 - 1);
    }

    /// A read over two earlier writes waits for both: the first completion leaves it
    /// blocked, the second hands it back; two reads freed together come back in admission
    /// order.
    #[test]
    fn a_request_waits_for_every_earlier_conflict() {
        let mut q = DeviceQueue::new(8, Hazards::Strict);
        assert!(admit(&mut q, req(0, 0, 2, true)));
        assert!(admit(&mut q, req(1, 2, 2, true)));
        assert!(!admit(&mut q, req(2, 1, 2, false)));
        assert!(!admit(&mut q, req(3, 3, 1, false)));
        let mut out = Vec::new();
        q.release(0, &mut out);
        assert!(out.is_empty(), "request 2 still waits for request 1");
        q.release(1, &mut out);
        assert_eq!(out, vec![2, 3]);
    }

    /// Sprinkler §4.4 (`war`): only a write after a read waits.
    #[test]
    fn under_war_only_a_write_after_a_read_waits() {
        let mut q = DeviceQueue::new(8, Hazards::War);
        assert!(admit(&mut q, req(0, 10, 1, true)));
        assert!(admit(&mut q, req(1, 10, 1, false)), "a read after a write goes");
        assert!(admit(&mut q, req(2, 20, 1, true)));
        assert!(admit(&mut q, req(3, 20, 1, true)), "a write after a write goes");
        assert!(!admit(&mut q, req(4, 10, 1, true)), "a write after a read waits");
        let mut out = Vec::new();
        q.release(1, &mut out);
        assert_eq!(out, vec![4]);
    }

    /// A FUA request waits for everything before it, and everything after waits for it.
    #[test]
    fn fua_orders_everything() {
        let mut q = DeviceQueue::new(8, Hazards::FuaOnly);
        assert!(admit(&mut q, req(0, 1, 1, false)));
        assert!(!admit(&mut q, Admission { fua: true, ..req(1, 100, 1, true) }));
        assert!(!admit(&mut q, req(2, 200, 1, false)));
        let mut out = Vec::new();
        q.release(0, &mut out);
        assert_eq!(out, vec![1], "the FUA write goes; the later read still waits for it");
        out.clear();
        q.release(1, &mut out);
        assert_eq!(out, vec![2]);
    }
}
