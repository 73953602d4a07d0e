//! The event loop's queue: integer picosecond time, events ordered by (time, sequence).
//!
//! Events are small plain values (`Event`), never closures. The sequence number makes the
//! order of simultaneous events the order they were scheduled in, so a run is the same on
//! every machine. The heap is allocated once and reused: scheduling does not allocate once
//! the queue has reached its working size.

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

/// A pending event with its key: time in the high 64 bits, sequence in the low 64, so one
/// integer comparison orders by (time, sequence).
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u128,
    event: Event,
}

/// Children per node: a 4-ary heap is half as deep as a binary one, and the four children
/// of a node sit next to each other in memory.
const ARITY: usize = 4;

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: Vec<Entry>,
    seq: u64,
    now_ps: Ps,
    processed: u64,
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue { heap: Vec::with_capacity(1024), seq: 0, now_ps: 0, processed: 0 }
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
        let entry = Entry { key: (time_ps as u128) << 64 | self.seq as u128, event };
        // Sift up.
        let mut i = self.heap.len();
        self.heap.push(entry);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].key <= entry.key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = entry;
    }

    /// Schedule `event` `delay_ps` from now.
    #[inline]
    pub fn after(&mut self, delay_ps: Ps, event: Event) {
        self.at(self.now_ps + delay_ps, event);
    }

    /// Take the earliest event and advance the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let last = self.heap.pop()?;
        let top = if self.heap.is_empty() {
            last
        } else {
            let top = self.heap[0];
            // Sift `last` down from the root.
            let n = self.heap.len();
            let mut i = 0;
            loop {
                let first = i * ARITY + 1;
                if first >= n {
                    break;
                }
                let end = (first + ARITY).min(n);
                let mut best = first;
                for c in first + 1..end {
                    if self.heap[c].key < self.heap[best].key {
                        best = c;
                    }
                }
                if self.heap[best].key >= last.key {
                    break;
                }
                self.heap[i] = self.heap[best];
                i = best;
            }
            self.heap[i] = last;
            top
        };
        let time_ps = (top.key >> 64) as Ps;
        debug_assert!(time_ps >= self.now_ps);
        self.now_ps = time_ps;
        self.processed += 1;
        Some(top.event)
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
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
}
