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

/// Streams of events whose times never decrease (transfers on one serial link): they queue
/// in [`EventQueue`]'s lanes, in order, outside the heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Host-to-device data on the PCIe link.
    LinkUp = 0,
    /// Device-to-host data on the PCIe link.
    LinkDown = 1,
}

const LANES: usize = 2;

/// A binary heap of pending events keyed by (time, sequence), beside two cheaper paths:
/// events scheduled at the current time (one event causing the next at once) wait in
/// `ready`, and events of a [`Lane`] (whose times never decrease) wait in that lane's FIFO.
/// The earliest key among the heap's top and the lanes' fronts goes first; every keyed event
/// at the current time was scheduled before any in `ready`, so those go before `ready`'s.
/// Storage is reused: scheduling does not allocate once the queue has reached its working
/// size.
#[derive(Debug)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    lanes: [VecDeque<Entry>; LANES],
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
            lanes: [VecDeque::with_capacity(64), VecDeque::with_capacity(64)],
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

    /// Schedule `event` at `time_ps` in `lane`: no earlier than the lane's last event.
    #[inline]
    pub fn at_in_lane(&mut self, lane: Lane, time_ps: Ps, event: Event) {
        assert!(time_ps >= self.now_ps, "event scheduled in the past: {event:?} at {time_ps} < {}", self.now_ps);
        if time_ps == self.now_ps {
            self.ready.push_back(event);
            return;
        }
        self.seq += 1;
        let key = (time_ps as u128) << 64 | self.seq as u128;
        let q = &mut self.lanes[lane as usize];
        assert!(q.back().is_none_or(|b| b.key < key), "{lane:?} event at {time_ps} before the lane's last");
        q.push_back(Entry { key, event });
    }

    /// Take the earliest event and advance the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        // The earliest keyed event: the heap's top or a lane's front (u128::MAX: none).
        let mut best = self.heap.peek().map_or(u128::MAX, |e| e.key);
        let mut from = LANES;
        for (k, q) in self.lanes.iter().enumerate() {
            if let Some(e) = q.front() {
                if e.key < best {
                    best = e.key;
                    from = k;
                }
            }
        }
        let keyed_now = best != u128::MAX && (best >> 64) as Ps == self.now_ps;
        let event = if !keyed_now && !self.ready.is_empty() {
            self.ready.pop_front().expect("not empty")
        } else {
            let e = if from < LANES { self.lanes[from].pop_front() } else { self.heap.pop() }?;
            self.now_ps = (e.key >> 64) as Ps;
            e.event
        };
        self.processed += 1;
        Some(event)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.ready.len() + self.lanes.iter().map(|q| q.len()).sum::<usize>()
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

    /// Schedule events while the clock advances (always at or after now, often at the
    /// same times from different moments) and pop one per round, against a reference that
    /// takes the smallest (time, schedule order). With `lanes`, two of every three events go
    /// to the link lanes, at times that never decrease within a lane.
    fn check_against_reference(mut x: u64, lanes: bool) {
        let mut q = EventQueue::new();
        let mut pending: Vec<(Ps, u32)> = Vec::new();
        let mut lane_last = [0 as Ps; 2];
        let mut next = 0u32;
        let mut rnd = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 33
        };
        for round in 0..20_000u32 {
            let schedule = if round < 19_000 { 1 + rnd() % 3 } else { 0 };
            for _ in 0..schedule {
                let kind = if lanes { rnd() % 3 } else { 2 };
                let t = if kind < 2 {
                    let l = kind as usize;
                    let t = lane_last[l].max(q.now()) + [0, 0, 5, 64][(rnd() % 4) as usize];
                    lane_last[l] = t;
                    q.at_in_lane([Lane::LinkUp, Lane::LinkDown][l], t, Event::Complete { io: next });
                    t
                } else {
                    let t = q.now() + [0, 1, 7, 64, 1000, 1 << 20][(rnd() % 6) as usize] * (rnd() % 3);
                    q.at(t, Event::Complete { io: next });
                    t
                };
                pending.push((t, next));
                next += 1;
            }
            if let Some(k) = (0..pending.len()).min_by_key(|&k| pending[k]) {
                let (t, id) = pending.remove(k);
                assert_eq!(q.pop(), Some(Event::Complete { io: id }), "round {round}");
                assert_eq!(q.now(), t);
            }
        }
        assert_eq!(q.len(), pending.len());
    }

    #[test]
    fn interleaved_scheduling_pops_in_time_then_schedule_order() {
        check_against_reference(987654321, false);
    }

    #[test]
    fn lane_events_interleave_with_heap_events_in_time_then_schedule_order() {
        check_against_reference(55555, true);
    }
}
