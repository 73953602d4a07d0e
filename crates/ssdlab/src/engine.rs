//! The event loop's queue: integer picosecond time, events ordered by (time, sequence).
//!
//! Events are small plain values (`Event`), never closures. The sequence number makes the
//! order of simultaneous events the order they were scheduled in, so a run is the same on
//! every machine. Storage is reused: scheduling does not allocate once the queue has reached
//! its working size.

use std::collections::{BinaryHeap, VecDeque};

/// Simulated time in picoseconds.
pub type Ps = u64;

/// Everything that can happen. Payloads are indices into the simulation's slabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The next request of a flow reaches its submission queue (open-loop replay).
    HostArrival { flow: u32 },
    /// A command fetched from a submission queue is seen by the device.
    CommandFetched { io: u32 },
    /// Host-to-device data of a write has arrived in device DRAM.
    WriteDataIn { io: u32 },
    /// The firmware finished translating a memory request.
    FirmwareDone { mr: u32 },
    /// A chip's current command finished its array operation on every die (`gen` guards
    /// against commands that were suspended and rescheduled).
    CellDone { chip: u32, gen: u32 },
    /// A channel's bus may have become free for its waiters.
    BusFree { channel: u32 },
    /// A chip's current command finished completely (data out done); the chip is free.
    CommandDone { chip: u32, gen: u32 },
    /// A suspension took effect: the chip may run reads.
    ChipFree { chip: u32, gen: u32 },
    /// A memory request was served without flash (cache hit, trim, unwritten read).
    CacheServed { mr: u32 },
    /// Device-to-host data of a read memory request has reached the host.
    ReadDataOut { mr: u32 },
    /// A request completes (a write's completion entry reached the host).
    Complete { io: u32 },
    /// Periodic sampling for the time series.
    Sample,
}

/// A pending event. `key` is time × 2^64 + sequence number, so one integer comparison orders
/// events by time and simultaneous ones by the order they were scheduled in.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed: the standard heap is a max-heap, the earliest key must come out first.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.key.cmp(&self.key)
    }
}

/// A binary heap of pending events keyed by (time, sequence), with a side queue for events
/// scheduled at the current time (the common case of one event causing the next at once):
/// those skip the heap. Every event at the current time still in the heap was scheduled
/// before any in `ready`, so the heap's go first. Storage is reused: scheduling does not
/// allocate once the queue has reached its working size.
#[derive(Debug)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    /// Events at time `now_ps` scheduled while the clock stood there, in schedule order.
    ready: VecDeque<Event>,
    seq: u64,
    now_ps: Ps,
    processed: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::new()
    }
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            ready: VecDeque::with_capacity(64),
            seq: 0,
            now_ps: 0,
            processed: 0,
        }
    }

    #[inline]
    pub fn now(&self) -> Ps {
        self.now_ps
    }

    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Schedule `event` at absolute time `time_ps` (never in the past).
    #[inline]
    pub fn at(&mut self, time_ps: Ps, event: Event) {
        assert!(time_ps >= self.now_ps, "event scheduled in the past: {event:?} at {time_ps} < {}", self.now_ps);
        if time_ps == self.now_ps {
            self.ready.push_back(event);
        } else {
            self.seq += 1;
            self.heap.push(Entry { key: (time_ps as u128) << 64 | self.seq as u128, event });
        }
    }

    /// Schedule `event` `delay_ps` from now.
    #[inline]
    pub fn after(&mut self, delay_ps: Ps, event: Event) {
        self.at(self.now_ps + delay_ps, event);
    }

    /// Take the earliest event and advance the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let heap_now = self.heap.peek().is_some_and(|e| (e.key >> 64) as Ps == self.now_ps);
        let event = if !heap_now && !self.ready.is_empty() {
            self.ready.pop_front().expect("not empty")
        } else {
            let e = self.heap.pop()?;
            self.now_ps = (e.key >> 64) as Ps;
            e.event
        };
        self.processed += 1;
        Some(event)
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.ready.is_empty()
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.ready.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simultaneous_events_keep_schedule_order() {
        let mut q = EventQueue::new();
        q.at(10, Event::Sample);
        q.at(5, Event::Complete { io: 1 });
        q.at(10, Event::Complete { io: 2 });
        q.at(5, Event::Complete { io: 3 });
        let order: Vec<Event> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![Event::Complete { io: 1 }, Event::Complete { io: 3 }, Event::Sample, Event::Complete { io: 2 }]
        );
        assert_eq!(q.now(), 10);
    }

    #[test]
    fn pops_in_time_then_schedule_order_at_scale() {
        // A pseudo-random schedule checked against a sort of the same keys.
        let mut q = EventQueue::new();
        let mut expect = Vec::new();
        let mut x = 12345u64;
        for i in 0..10_000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = (x >> 40) % 1000;
            q.at(t, Event::Complete { io: i });
            expect.push((t, i));
        }
        expect.sort();
        let got: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|e| match e {
                Event::Complete { io } => io,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(got, expect.iter().map(|&(_, i)| i).collect::<Vec<_>>());
    }

    #[test]
    fn interleaved_scheduling_pops_in_time_then_schedule_order() {
        // Events scheduled while the clock advances (always at or after now, often at the
        // same times from different moments) against a reference that sorts (time, seq).
        let mut q = EventQueue::new();
        let mut pending: Vec<(Ps, u32)> = Vec::new();
        let mut x = 987654321u64;
        let mut next = 0u32;
        let mut rnd = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 33
        };
        for round in 0..20_000u32 {
            let schedule = if round < 19_000 { 1 + rnd() % 3 } else { 0 };
            for _ in 0..schedule {
                let t = q.now() + [0, 1, 7, 64, 1000, 1 << 20][(rnd() % 6) as usize] * (rnd() % 3);
                q.at(t, Event::Complete { io: next });
                pending.push((t, next));
                next += 1;
            }
            // The reference: the earliest time, and among equals the first scheduled.
            if let Some(k) = (0..pending.len()).min_by_key(|&k| pending[k]) {
                let (t, id) = pending.remove(k);
                assert_eq!(q.pop(), Some(Event::Complete { io: id }), "round {round}");
                assert_eq!(q.now(), t);
            }
        }
        assert_eq!(q.len(), pending.len());
    }
}
