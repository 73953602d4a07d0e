//! Firmware time: the controller's cores (and, for FMMU, a hardware map unit) as servers
//! with queues (`[ftl.firmware]`; docs/techniques.md §9.7).
//!
//! Each piece of FTL work holds one server for its cost: issuing a memory request's flash
//! command (`op_cost_ns`, on the cores, when the request is committed), a map lookup that
//! hits (`hit_ns`) or misses (`miss_ns`, which covers the victim search and issuing the
//! translation-page read; the core is then free while the flash read runs), an entry update
//! (`hit_ns` or `miss_ns`; nobody waits for it, but it holds its server), and a flush
//! (`flush_ns` + `flush_block_ns` × the CMT blocks it scans: every block of the CMT for
//! DFTL/CDFTL/TPFTL, which have no dirty list, the page's dirty blocks for FMMU). Work goes
//! to the server that frees first (lowest index on ties), so k cores are an M/D/k-style
//! queue; with `map_unit = "hardware"` the map work has one server of its own and the cores
//! only issue. All costs 0 (the default): no time is spent and nothing is scheduled.
//!
//! With `map_unit = "hardware"` and `map_queue` > 0, the unit's input queue holds at most
//! that many packets (FMMU §4.6's request queues; the size is [I]): a packet sent to a full
//! queue holds the core that sends it (the host request manager) until a packet ahead of it
//! is done, so a saturated unit slows the issuing of requests. With `map_queue = 0` (the
//! default) the queue has no bound: work nobody waits for (an update after its program, a
//! flush) is booked ahead without limit, and a saturated unit holds nothing back but the
//! requests that wait for their own lookup.
//!
//! Each lookup or update is charged once (`charges = "once"`, docs/techniques.md §9.7
//! "Charges" [I]): a request joining a CMT block another request already waits for costs a
//! hit, a CMT miss on another block of a translation page being read a miss, and the fill
//! that answers the waiting requests is part of those costs. `charges = "with_fill"` is the
//! earlier rule: any request joining a read in flight costs a hit, and every request answered
//! when its page arrives a hit again (a miss then cost `miss_ns + hit_ns`).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::engine::Ps;
use crate::error::Result;
use crate::validate::{ns_to_ps, require_at_most, require_nonzero, require_times};

/// Where map work runs (`ftl.firmware.map_unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapUnit {
    /// On the cores, like the rest of the FTL (software map cache).
    Cores,
    /// On one hardware unit beside the cores (FMMU).
    Hardware,
}

/// How lookups that wait for a translation page are charged (`ftl.firmware.charges`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Charges {
    /// Each lookup once, when it reaches the map: a join of a transient block a hit, a CMT
    /// miss (first on its page or not) a miss; the fill costs nothing more [I].
    Once,
    /// The earlier rule: every join of a read in flight a hit, and a hit again at the fill.
    WithFill,
}

/// A kind of map work, for its cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapWork {
    Hit,
    Miss,
    Fill,
    /// A flush that scans this many CMT blocks.
    Flush {
        blocks: u64,
    },
}

pub struct Firmware {
    /// Per core: when it is free.
    cores: Vec<Ps>,
    /// The hardware map unit: when it is free (unused with `map_unit = "cores"`).
    unit: Ps,
    map_unit: MapUnit,
    issue_ps: Ps,
    hit_ps: Ps,
    miss_ps: Ps,
    flush_ps: Ps,
    flush_block_ps: Ps,
    charges: Charges,
    /// The map unit's queue bound in packets (0: none).
    queue_cap: usize,
    /// With a bound: when each packet in the map unit's queue is done, in queue order.
    queued: VecDeque<Ps>,
    /// Server time spent, cores and hardware unit.
    pub core_busy_ps: u128,
    pub unit_busy_ps: u128,
    /// Time cores were held sending to a full map-unit queue.
    pub queue_wait_ps: u128,
}

impl Firmware {
    pub fn new(f: &FirmwareConfig) -> Firmware {
        Firmware {
            cores: vec![0; f.cores as usize],
            unit: 0,
            map_unit: f.map_unit,
            issue_ps: ns_to_ps(f.op_cost_ns),
            hit_ps: ns_to_ps(f.hit_ns),
            miss_ps: ns_to_ps(f.miss_ns),
            flush_ps: ns_to_ps(f.flush_ns),
            flush_block_ps: ns_to_ps(f.flush_block_ns),
            charges: f.charges,
            queue_cap: f.map_queue as usize,
            queued: VecDeque::new(),
            core_busy_ps: 0,
            unit_busy_ps: 0,
            queue_wait_ps: 0,
        }
    }

    /// Whether map work takes time (else lookups answer at once).
    pub fn times_map_work(&self) -> bool {
        self.hit_ps + self.miss_ps + self.flush_ps + self.flush_block_ps > 0
    }

    pub fn charges(&self) -> Charges {
        self.charges
    }

    /// Cores and hardware units, for utilization.
    pub fn servers(&self) -> (u32, u32) {
        (self.cores.len() as u32, u32::from(self.map_unit == MapUnit::Hardware))
    }

    /// A memory request arrives at `now` to be issued: when the firmware is done with it,
    /// or None if issuing is not timed (it is done at once).
    #[inline]
    pub fn request_done_at(&mut self, now: Ps) -> Option<Ps> {
        if self.issue_ps == 0 {
            return None;
        }
        Some(self.on_core(now, self.issue_ps))
    }

    /// Map work arriving at `now`: when it is done, or None if it takes no time.
    pub fn map_work(&mut self, now: Ps, work: MapWork) -> Option<Ps> {
        let cost = match work {
            MapWork::Hit => self.hit_ps,
            MapWork::Fill if self.charges == Charges::WithFill => self.hit_ps,
            MapWork::Fill => 0,
            MapWork::Miss => self.miss_ps,
            MapWork::Flush { blocks } => self.flush_ps + self.flush_block_ps * blocks,
        };
        if cost == 0 {
            return None;
        }
        Some(match self.map_unit {
            MapUnit::Cores => self.on_core(now, cost),
            MapUnit::Hardware => {
                let end = now.max(self.unit) + cost;
                self.unit = end;
                self.unit_busy_ps += cost as u128;
                if self.queue_cap > 0 {
                    self.hold_sender(now, end);
                }
                end
            }
        })
    }

    /// A packet done at `end` joins the map unit's queue at `now`. Packets done by `now`
    /// have left it; if `queue_cap` or more remain, the sender (the core that frees first)
    /// waits until the one `queue_cap` places ahead is done, and the packet enters then.
    fn hold_sender(&mut self, now: Ps, end: Ps) {
        while self.queued.front().is_some_and(|&e| e <= now) {
            self.queued.pop_front();
        }
        let n = self.queued.len();
        if n >= self.queue_cap {
            let room_at = self.queued[n - self.queue_cap];
            let core = self.cores.iter_mut().min().expect("at least one core");
            let from = now.max(*core);
            if room_at > from {
                self.queue_wait_ps += (room_at - from) as u128;
                *core = room_at;
            }
        }
        self.queued.push_back(end);
    }

    fn on_core(&mut self, now: Ps, cost: Ps) -> Ps {
        let (core, &free) = self.cores.iter().enumerate().min_by_key(|&(i, &t)| (t, i)).expect("at least one core");
        let end = now.max(free) + cost;
        self.cores[core] = end;
        self.core_busy_ps += cost as u128;
        end
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FirmwareConfig {
    pub cores: u32,
    /// Time to issue a memory request's flash command, on a core.
    pub op_cost_ns: f64,
    /// A map lookup or update answered from RAM; also the fill that answers a request
    /// waiting for its translation page.
    pub hit_ns: f64,
    /// A map lookup or update that must read its translation page (victim search and the
    /// read's issue).
    pub miss_ns: f64,
    /// A flush: fixed part ...
    pub flush_ns: f64,
    /// ... plus this per CMT block scanned.
    pub flush_block_ns: f64,
    /// cores | hardware (FMMU): where map work runs.
    pub map_unit: MapUnit,
    /// once | with_fill: how lookups that wait for a translation page are charged.
    pub charges: Charges,
    /// Packets the hardware map unit's input queue holds at most (0: no bound).
    pub map_queue: u32,
}

impl Default for FirmwareConfig {
    fn default() -> Self {
        FirmwareConfig {
            cores: 1,
            op_cost_ns: 0.0,
            hit_ns: 0.0,
            miss_ns: 0.0,
            flush_ns: 0.0,
            flush_block_ns: 0.0,
            map_unit: MapUnit::Cores,
            charges: Charges::Once,
            map_queue: 0,
        }
    }
}

impl FirmwareConfig {
    /// At least one core, a bounded number of them, and a time per request the engine can
    /// hold in picoseconds.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_nonzero(file, &[("ftl.firmware.cores", self.cores)])?;
        require_at_most(file, &[("ftl.firmware.cores", self.cores, 1024)])?;
        require_times(
            file,
            &[
                ("ftl.firmware.op_cost_ns", self.op_cost_ns),
                ("ftl.firmware.hit_ns", self.hit_ns),
                ("ftl.firmware.miss_ns", self.miss_ns),
                ("ftl.firmware.flush_ns", self.flush_ns),
                ("ftl.firmware.flush_block_ns", self.flush_block_ns),
            ],
        )?;
        require_at_most(file, &[("ftl.firmware.map_queue", self.map_queue, 1 << 20)])?;
        if self.map_queue > 0 && self.map_unit != MapUnit::Hardware {
            let why = "bounds the hardware map unit's queue: on the cores map work shares the issuing queue already; set ftl.firmware.map_unit = \"hardware\" or drop the key";
            return Err(crate::error::Error::config(
                file,
                0,
                "ftl.firmware.map_queue",
                &format!("ftl.firmware.map_queue = {}: {why}", self.map_queue),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The config sections these tests set (the whole `Config` is composed above this layer).
    #[derive(Default)]
    struct Sections {
        pub ftl: crate::ftl::config::FtlConfig,
    }

    /// Two cores of 1 µs: requests at 0, 0, 0 and 2.5 µs finish at 1, 1, 2 and 3.5 µs (the
    /// third waits for core 0, the fourth finds core 1 free since 1 µs).
    #[test]
    fn requests_queue_for_the_core_that_frees_first() {
        let mut c = Sections::default();
        c.ftl.firmware.cores = 2;
        c.ftl.firmware.op_cost_ns = 1000.0;
        let mut f = Firmware::new(&c.ftl.firmware);
        let us = 1_000_000;
        let ends: Vec<Option<Ps>> = [0, 0, 0, 2 * us + us / 2].iter().map(|&t| f.request_done_at(t)).collect();
        assert_eq!(ends, vec![Some(us), Some(us), Some(2 * us), Some(3 * us + us / 2)]);
        c.ftl.firmware.op_cost_ns = 0.0;
        assert_eq!(Firmware::new(&c.ftl.firmware).request_done_at(5), None);
    }

    /// M/D/k by hand: k = 3 cores, D = 1.5 µs lookups, one arrival every 0.4 µs (a
    /// deterministic pattern, 10 arrivals). Service capacity 3 / 1.5 = 2 per µs against 2.5
    /// arrivals per µs: the queue grows. Arrival i at 0.4 i µs starts when the earliest core
    /// frees: starts 0, 0.4, 0.8, 1.5, 1.9, 2.3, 3.0, 3.4, 3.8, 4.5 (core j serves arrivals
    /// j, j + 3, j + 6, …, each starting at max(arrival, previous end on that core)); ends
    /// are starts + 1.5. Busy time 10 × 1.5 µs.
    #[test]
    fn lookups_on_k_cores_queue_as_m_d_k() {
        let mut c = Sections::default();
        c.ftl.firmware.cores = 3;
        c.ftl.firmware.hit_ns = 1500.0;
        let mut f = Firmware::new(&c.ftl.firmware);
        let ns = 1000;
        let ends: Vec<Ps> = (0..10).map(|i| f.map_work(i * 400 * ns, MapWork::Hit).unwrap()).collect();
        let starts = [0, 400, 800, 1500, 1900, 2300, 3000, 3400, 3800, 4500];
        assert_eq!(ends, starts.iter().map(|s| (s + 1500) * ns).collect::<Vec<_>>());
        assert_eq!(f.core_busy_ps, 10 * 1500 * ns as u128);
    }

    /// A hardware map unit is one server beside the cores: map work queues there and the
    /// cores stay free for issuing; a flush costs its fixed part plus its blocks.
    #[test]
    fn hardware_map_unit_is_its_own_server() {
        let mut c = Sections::default();
        c.ftl.firmware.map_unit = MapUnit::Hardware;
        c.ftl.firmware.hit_ns = 160.0;
        c.ftl.firmware.flush_ns = 1000.0;
        c.ftl.firmware.flush_block_ns = 10.0;
        c.ftl.firmware.op_cost_ns = 200.0;
        let mut f = Firmware::new(&c.ftl.firmware);
        assert_eq!(f.map_work(0, MapWork::Hit), Some(160_000));
        assert_eq!(f.map_work(0, MapWork::Flush { blocks: 4 }), Some(160_000 + 1_040_000));
        assert_eq!(f.request_done_at(0), Some(200_000), "the core was not touched by map work");
        assert_eq!(f.servers(), (1, 1));
    }

    /// A map unit of 1 µs per packet whose queue holds 2, one core issuing in 0.5 µs. Four
    /// packets at 0 end at 1, 2, 3 and 4 µs. The first two find room; the third finds 2
    /// queued and holds the core until the first is done (1 µs), the fourth until the second
    /// is (2 µs): the core waited 2 µs, and a request issued at 0 ends at 2.5 µs, not 0.5.
    /// By 3.5 µs only the fourth packet is left: a fifth then enters at once. Without a
    /// bound the core never waits.
    #[test]
    fn a_full_map_unit_queue_holds_the_core_that_sends() {
        let mut c = Sections::default();
        c.ftl.firmware.map_unit = MapUnit::Hardware;
        (c.ftl.firmware.hit_ns, c.ftl.firmware.op_cost_ns) = (1000.0, 500.0);
        let us = 1_000_000;
        for (cap, issue_end, wait) in [(2, 2 * us + us / 2, 2 * us), (0, us / 2, 0)] {
            c.ftl.firmware.map_queue = cap;
            let mut f = Firmware::new(&c.ftl.firmware);
            let ends: Vec<Option<Ps>> = (0..4).map(|_| f.map_work(0, MapWork::Hit)).collect();
            assert_eq!(ends, vec![Some(us), Some(2 * us), Some(3 * us), Some(4 * us)], "cap {cap}");
            assert_eq!((f.queue_wait_ps, f.request_done_at(0)), (wait as u128, Some(issue_end)), "cap {cap}");
            let before = f.queue_wait_ps;
            assert_eq!(f.map_work(3 * us + us / 2, MapWork::Hit), Some(5 * us));
            assert_eq!(f.queue_wait_ps, before, "cap {cap}: room at 3.5 µs");
        }
        let mut bad = c.ftl.firmware.clone();
        (bad.map_queue, bad.map_unit) = (2, MapUnit::Cores);
        assert!(bad.validate("t").unwrap_err().to_string().contains("ftl.firmware.map_queue"));
    }

    /// A miss then its fill, 1 core, hit 1.5 µs, miss 4.5 µs. Charged once (the default):
    /// the miss holds the core 4.5 µs and the fill nothing more (4.5 µs in all). The earlier
    /// `with_fill` adds a hit at the fill: 6 µs, the miss charged as a miss and a hit.
    #[test]
    fn a_fill_costs_nothing_more_unless_charged_with_fill() {
        let mut c = Sections::default();
        (c.ftl.firmware.hit_ns, c.ftl.firmware.miss_ns) = (1500.0, 4500.0);
        assert_eq!(c.ftl.firmware.charges, Charges::Once);
        for (charges, busy_ns) in [(Charges::Once, 4500), (Charges::WithFill, 6000)] {
            c.ftl.firmware.charges = charges;
            let mut f = Firmware::new(&c.ftl.firmware);
            assert_eq!(f.map_work(0, MapWork::Miss), Some(4_500_000));
            f.map_work(10_000_000, MapWork::Fill);
            assert_eq!(f.core_busy_ps, busy_ns * 1000, "{charges:?}");
        }
    }
}
