//! The event loop's queue: integer picosecond time, events ordered by (time, sequence).
//!
//! Events are small plain values (`Event`), never closures. The sequence number makes the
//! order of simultaneous events the order they were scheduled in, so a run is the same on
//! every machine. The heap is allocated once and reused: scheduling does not allocate once
//! the queue has reached its working size.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

#[derive(Debug, Clone, Copy)]
struct Entry {
    time_ps: Ps,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time_ps == other.time_ps && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // BinaryHeap is a max-heap: reverse so the earliest (time, seq) is on top.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time_ps, other.seq).cmp(&(self.time_ps, self.seq))
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    now_ps: Ps,
    processed: u64,
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue { heap: BinaryHeap::with_capacity(1024), seq: 0, now_ps: 0, processed: 0 }
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
        self.seq += 1;
        self.heap.push(Entry { time_ps, seq: self.seq, event });
    }

    /// Schedule `event` `delay_ps` from now.
    #[inline]
    pub fn after(&mut self, delay_ps: Ps, event: Event) {
        self.at(self.now_ps + delay_ps, event);
    }

    /// Take the earliest event and advance the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let e = self.heap.pop()?;
        debug_assert!(e.time_ps >= self.now_ps);
        self.now_ps = e.time_ps;
        self.processed += 1;
        Some(e.event)
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Ps> {
        self.heap.peek().map(|e| e.time_ps)
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
}
