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
    /// The firmware finished issuing a memory request.
    FirmwareDone { mr: u32 },
    /// The firmware answered a memory request's map lookup (reads; writes that translate
    /// first).
    Translated { mr: u32 },
    /// A die of a chip's read command finished its array time: its data may go out (`gen`
    /// guards against commands that were suspended and rescheduled).
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
    /// The host interface's last transfer for a request (its read data as a whole, its
    /// completion entry, the interrupt) has reached the host: the request is complete.
    Responded { io: u32 },
    /// The firmware is done with the map work that asked for a translation page's read
    /// (or write, `write`): it goes to flash now.
    MapIo { vtpn: u32, write: bool },
    /// Periodic sampling for the time series.
    Sample,
    /// The host has been idle since the activity `epoch` names (PACP's idle migration).
    Idle { epoch: u32 },
    /// The firmware answered the map lookup of a GC read of a victim page (transaction
    /// `tx`; `ftl.gc.read_victim = "all_pages"`).
    GcLookedUp { tx: u32 },
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

/// Width of a calendar bucket: 2^22 ps (about 4.2 µs).
const BUCKET_SHIFT: u32 = 22;
/// Buckets in the calendar: with the width above, a horizon of about 4.4 ms (longer than a
/// block erase plus its bus phase).
const BUCKETS: usize = 1024;
const WORDS: usize = BUCKETS / 64;

/// A pending event in a calendar bucket's list: an [`Entry`] with its list link, which fits
/// in the padding an `Entry` has anyway (32 bytes either way).
#[derive(Debug, Clone, Copy)]
struct Node {
    key: u128,
    event: Event,
    /// The next node of the same bucket (in key order), or `u32::MAX`; in the free list, the
    /// next free node.
    next: u32,
}

const _: () = assert!(std::mem::size_of::<Node>() == std::mem::size_of::<Entry>());

/// Events in the calendar's horizon: bucket `(time >> BUCKET_SHIFT) % BUCKETS` holds its
/// events in a list sorted by key, and a bitmap marks the non-empty buckets. Every event in it
/// lies less than `BUCKETS` buckets after the clock's, so scanning the bitmap circularly from
/// the clock's bucket meets the earliest bucket first. Pushing costs a shift and (almost
/// always) a list of length zero or one; popping, a few bitmap words. No event ever moves.
#[derive(Debug)]
struct Calendar {
    heads: Box<[u32; BUCKETS]>,
    bits: [u64; WORDS],
    nodes: Vec<Node>,
    free: u32,
    len: usize,
}

impl Calendar {
    fn new() -> Calendar {
        Calendar {
            heads: Box::new([u32::MAX; BUCKETS]),
            bits: [0; WORDS],
            nodes: Vec::with_capacity(256),
            free: u32::MAX,
            len: 0,
        }
    }

    /// Whether an event at `time` fits the horizon of a clock standing at `now`.
    #[inline]
    fn fits(now: Ps, time: Ps) -> bool {
        (time >> BUCKET_SHIFT) - (now >> BUCKET_SHIFT) < BUCKETS as u64
    }

    /// Out of line: the hot code is at the edge of the instruction cache, and one copy of
    /// this serves every place that schedules an event.
    #[inline(never)]
    fn push(&mut self, key: u128, event: Event) {
        let b = ((key >> (64 + BUCKET_SHIFT)) as usize) & (BUCKETS - 1);
        let n = if self.free != u32::MAX {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = Node { key, event, next: u32::MAX };
            n
        } else {
            self.nodes.push(Node { key, event, next: u32::MAX });
            (self.nodes.len() - 1) as u32
        };
        self.len += 1;
        let head = self.heads[b];
        if head == u32::MAX || key < self.nodes[head as usize].key {
            self.nodes[n as usize].next = head;
            self.heads[b] = n;
            self.bits[b / 64] |= 1 << (b % 64);
            return;
        }
        let mut at = head as usize;
        loop {
            let next = self.nodes[at].next;
            if next == u32::MAX || key < self.nodes[next as usize].key {
                self.nodes[n as usize].next = next;
                self.nodes[at].next = n;
                return;
            }
            at = next as usize;
        }
    }

    /// The bucket holding the earliest event, for a clock standing at `now`.
    #[inline]
    fn first_bucket(&self, now: Ps) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let start = ((now >> BUCKET_SHIFT) as usize) & (BUCKETS - 1);
        let mut w = start / 64;
        let mut word = self.bits[w] & (u64::MAX << (start % 64));
        // The start word comes round again last, whole: its bits below `start` are the far end
        // of the horizon.
        while word == 0 {
            w = (w + 1) % WORDS;
            word = self.bits[w];
        }
        Some(w * 64 + word.trailing_zeros() as usize)
    }

    #[inline]
    fn key_at(&self, bucket: usize) -> u128 {
        self.nodes[self.heads[bucket] as usize].key
    }

    #[inline]
    fn pop_at(&mut self, bucket: usize) -> Node {
        let n = self.heads[bucket];
        let node = self.nodes[n as usize];
        self.heads[bucket] = node.next;
        if node.next == u32::MAX {
            self.bits[bucket / 64] &= !(1 << (bucket % 64));
        }
        self.nodes[n as usize].next = self.free;
        self.free = n;
        self.len -= 1;
        node
    }
}

/// Pending events keyed by (time, sequence), in four places: a calendar of short buckets
/// covering the next few milliseconds (where nearly every event lands), a binary heap for
/// events beyond it, events scheduled at the current time (one event causing the next at
/// once) in `ready`, and events of a [`Lane`] (whose times never decrease) in that lane's
/// FIFO. The earliest key among the calendar's first bucket, the heap's top and the lanes'
/// fronts goes first; every keyed event at the current time was scheduled before any in
/// `ready`, so those go before `ready`'s. An event beyond the horizon stays in the heap even
/// once the clock comes near: the comparison of keys at each pop keeps the order exact.
/// Storage is reused: scheduling does not allocate once the queue has reached its working
/// size.
#[derive(Debug)]
pub struct EventQueue {
    calendar: Calendar,
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
            calendar: Calendar::new(),
            heap: BinaryHeap::with_capacity(64),
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
            let key = (time_ps as u128) << 64 | self.seq as u128;
            if Calendar::fits(self.now_ps, time_ps) {
                self.calendar.push(key, event);
            } else {
                self.heap.push(Entry { key, event });
            }
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

    /// Take the earliest event and advance the clock to it. Always inlined: the run's loop
    /// is its hot caller, and a live simulation's second call must not tip it out of line.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Event> {
        // The earliest keyed event (u128::MAX: none) and where it waits: a lane (its index),
        // the heap or the calendar.
        const HEAP: usize = LANES;
        const CALENDAR: usize = LANES + 1;
        let bucket = self.calendar.first_bucket(self.now_ps);
        let mut best = bucket.map_or(u128::MAX, |b| self.calendar.key_at(b));
        let mut from = CALENDAR;
        if let Some(e) = self.heap.peek() {
            if e.key < best {
                best = e.key;
                from = HEAP;
            }
        }
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
            let (key, event) = match from {
                HEAP => self.heap.pop().map(|e| (e.key, e.event)),
                k if k < LANES => self.lanes[k].pop_front().map(|e| (e.key, e.event)),
                _ => bucket.map(|b| {
                    let n = self.calendar.pop_at(b);
                    (n.key, n.event)
                }),
            }?;
            self.now_ps = (key >> 64) as Ps;
            event
        };
        self.processed += 1;
        Some(event)
    }

    /// The time of the earliest pending event, if any (a live simulation's next deadline).
    pub fn next_time(&self) -> Option<Ps> {
        if !self.ready.is_empty() {
            return Some(self.now_ps);
        }
        let calendar = self.calendar.first_bucket(self.now_ps).map(|b| self.calendar.key_at(b));
        let heap = self.heap.peek().map(|e| e.key);
        let lanes = self.lanes.iter().filter_map(|q| q.front().map(|e| e.key));
        calendar.into_iter().chain(heap).chain(lanes).min().map(|k| (k >> 64) as Ps)
    }

    /// Move the clock to `time_ps` with no event pending before it: a live simulation's
    /// clock following the outside world's between events.
    pub fn advance_to(&mut self, time_ps: Ps) {
        assert!(time_ps >= self.now_ps, "the clock may not go back: {time_ps} < {}", self.now_ps);
        assert!(
            self.next_time().is_none_or(|t| t >= time_ps),
            "advance_to({time_ps}) would pass a pending event at {:?}",
            self.next_time()
        );
        self.now_ps = time_ps;
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        self.calendar.len + self.heap.len() + self.ready.len() + self.lanes.iter().map(|q| q.len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_time_and_advance_follow_the_earliest_event() {
        let mut q = EventQueue::new();
        assert_eq!(q.next_time(), None);
        q.at(1 << 40, Event::Sample); // beyond the calendar's horizon: the heap
        q.at(7_000, Event::WriteDataIn { io: 1 });
        q.at_in_lane(Lane::LinkUp, 5_000, Event::WriteDataIn { io: 2 });
        assert_eq!(q.next_time(), Some(5_000));
        q.advance_to(5_000);
        assert_eq!((q.now(), q.pop()), (5_000, Some(Event::WriteDataIn { io: 2 })));
        assert_eq!(q.next_time(), Some(7_000));
        q.advance_to(6_000);
        q.at(6_000, Event::WriteDataIn { io: 3 }); // at the clock: ready at once
        assert_eq!(q.next_time(), Some(6_000));
        let order: Vec<(Event, Ps)> = std::iter::from_fn(|| q.pop().map(|e| (e, q.now()))).collect();
        assert_eq!(
            order,
            vec![
                (Event::WriteDataIn { io: 3 }, 6_000),
                (Event::WriteDataIn { io: 1 }, 7_000),
                (Event::Sample, 1 << 40)
            ]
        );
    }

    #[test]
    #[should_panic(expected = "would pass a pending event")]
    fn advance_may_not_pass_an_event() {
        let mut q = EventQueue::new();
        q.at(100, Event::Sample);
        q.advance_to(101);
    }

    #[test]
    fn simultaneous_events_keep_schedule_order() {
        let mut q = EventQueue::new();
        q.at(10, Event::Sample);
        q.at(5, Event::WriteDataIn { io: 1 });
        q.at(10, Event::WriteDataIn { io: 2 });
        q.at(5, Event::WriteDataIn { io: 3 });
        let order: Vec<Event> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                Event::WriteDataIn { io: 1 },
                Event::WriteDataIn { io: 3 },
                Event::Sample,
                Event::WriteDataIn { io: 2 }
            ]
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
            q.at(t, Event::WriteDataIn { io: i });
            expect.push((t, i));
        }
        expect.sort();
        let got: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|e| match e {
                Event::WriteDataIn { io } => io,
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
            let schedule = if round < 19_000 { rnd() % 3 } else { 0 };
            for _ in 0..schedule {
                let kind = if lanes { rnd() % 3 } else { 2 };
                let t = if kind < 2 {
                    let l = kind as usize;
                    let t = lane_last[l].max(q.now()) + [0, 0, 5, 64][(rnd() % 4) as usize];
                    lane_last[l] = t;
                    q.at_in_lane([Lane::LinkUp, Lane::LinkDown][l], t, Event::WriteDataIn { io: next });
                    t
                } else {
                    // Delays within one calendar bucket, across buckets, around the horizon
                    // (1024 buckets of 2^22 ps) and past it, into the heap.
                    let delays = [
                        0,
                        1,
                        7,
                        64,
                        1000,
                        1 << 20,
                        1 << 22,
                        5 << 22,
                        1 << 31,
                        1000 << 22,
                        1023 << 22,
                        1024 << 22,
                        5 << 30,
                    ];
                    let t = q.now() + delays[(rnd() % delays.len() as u64) as usize] * (rnd() % 3);
                    q.at(t, Event::WriteDataIn { io: next });
                    t
                };
                pending.push((t, next));
                next += 1;
            }
            if let Some(k) = (0..pending.len()).min_by_key(|&k| pending[k]) {
                let (t, id) = pending.remove(k);
                assert_eq!(q.pop(), Some(Event::WriteDataIn { io: id }), "round {round}");
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
