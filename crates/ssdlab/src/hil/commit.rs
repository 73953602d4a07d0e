//! Committing memory requests to the flash side: the device-level scheduler at work.
//!
//! Owns the scheduler, what is committed and not done per chip and plane ([`Occupancy`]),
//! and the fairness layer (`hil.fairness`). The loop tells it of every memory request that
//! becomes ready; a scheduling round ([`Committer::schedule`]) returns the requests the
//! policy committed, in commit order, for the loop to hand to the firmware and the TSU. As
//! the flash side works, the loop reports a request's first command starting, its data
//! moving to another plane, and its flash work finishing.

use crate::hil::config::HilConfig;
use crate::hil::{Board, DeviceScheduler, FairnessLayer, MemoryRequest, MrOp, Occupancy};
use crate::nand::{Geometry, Lpn, Timing};
use crate::slab::Slab;

pub struct Committer {
    geo: Geometry,
    sched: Box<dyn DeviceScheduler>,
    occ: Occupancy,
    /// The fairness layer (`hil.fairness`), if any: which flows' requests the scheduler may
    /// commit.
    fairness: Option<FairnessLayer>,
    /// Per flow: ready memory requests not yet committed; whether any are; whether the
    /// flow may commit.
    flow_ready: Vec<u32>,
    flow_pending: Vec<bool>,
    flow_allowed: Vec<bool>,
    committed: Vec<u32>,
    readdressed: Vec<u32>,
}

impl Committer {
    /// Bytes of the committer's books per flow (ready count, two flags).
    pub fn flow_bytes(flows: usize) -> u64 {
        flows as u64 * (4 + 1 + 1)
    }

    /// Bytes of the committer's books on `geo`: the occupancy (per chip its committed count
    /// and owner, per plane its waiting count) and the scheduler's pending lists (per chip a
    /// list, per plane a count).
    pub fn estimate_bytes(geo: &Geometry) -> u64 {
        let per_chip = 4 + 4 + std::mem::size_of::<Vec<u32>>() as u64;
        geo.chips() as u64 * per_chip + geo.planes() as u64 * (4 + 4)
    }

    pub fn new(
        hil: &HilConfig,
        geo: &Geometry,
        timing: &Timing,
        sched: Box<dyn DeviceScheduler>,
        flows: usize,
    ) -> Committer {
        Committer {
            geo: geo.clone(),
            sched,
            occ: Occupancy::new(geo),
            fairness: hil.fairness.build(hil, geo, timing, flows),
            flow_ready: vec![0; flows],
            flow_pending: vec![false; flows],
            flow_allowed: vec![true; flows],
            committed: Vec::new(),
            readdressed: Vec::new(),
        }
    }

    /// Ready memory requests not yet committed.
    #[inline]
    pub fn pending(&self) -> usize {
        self.sched.pending()
    }

    /// Whether a round waits for the end of the event that made requests ready.
    #[inline]
    pub fn batches_arrivals(&self) -> bool {
        self.sched.batches_arrivals()
    }

    /// A memory request is ready to commit, with its target plane set.
    #[inline]
    pub fn ready(&mut self, mr: u32, mrs: &Slab<MemoryRequest>) {
        self.flow_ready[mrs[mr].flow as usize] += 1;
        self.sched.ready(mr, mrs.as_slice());
    }

    /// A scheduling round: the requests the policy commits now, in commit order (marked
    /// committed and waiting). `gc_per_write` (GC pages moved per user page written so far)
    /// is what the fairness layer charges writes for GC. Give the vector back with
    /// [`Committer::round_done`].
    #[inline(always)]
    pub fn schedule(&mut self, mrs: &mut Slab<MemoryRequest>, gc_per_write: f64) -> Vec<u32> {
        let mut out = std::mem::take(&mut self.committed);
        out.clear();
        if let Some(w) = &mut self.fairness {
            for (p, &n) in self.flow_pending.iter_mut().zip(&self.flow_ready) {
                *p = n > 0;
            }
            w.allowed(&self.flow_pending, &mut self.flow_allowed);
        }
        let mut board = Board {
            geo: &self.geo,
            mrs: mrs.as_slice(),
            occ: &mut self.occ,
            out: &mut out,
            allowed: &self.flow_allowed,
        };
        self.sched.schedule(&mut board);
        // All of the round is marked before the loop commits any of it: nothing a commit does
        // reads these marks, since chips start only once the round is over (the loop defers
        // them).
        for &mr in &out {
            let m = &mut mrs[mr];
            debug_assert!(!m.committed, "memory request {mr} committed twice");
            m.committed = true;
            m.waiting = true;
            self.flow_ready[m.flow as usize] -= 1;
            if let Some(w) = &mut self.fairness {
                w.charge(m.flow as usize, m.op == MrOp::Write, 1, gc_per_write);
            }
        }
        out
    }

    pub fn round_done(&mut self, buf: Vec<u32>) {
        self.committed = buf;
    }

    /// The request's first command started: it no longer waits at its plane.
    #[inline]
    pub fn started(&mut self, m: &mut MemoryRequest) {
        if m.waiting {
            m.waiting = false;
            self.occ.plane_waiting[m.plane as usize] -= 1;
        }
    }

    /// The request's flash work is done: its chip no longer holds it.
    #[inline]
    pub fn flash_finished(&mut self, m: &mut MemoryRequest) {
        if m.committed {
            m.committed = false;
            self.occ.chip_committed[self.geo.chip_of_plane(m.plane) as usize] -= 1;
        }
    }

    /// A committed request's data moved from the plane it was committed to.
    #[cold]
    pub fn moved(&mut self, m: &mut MemoryRequest, plane: u32) {
        if m.committed {
            self.occ.chip_committed[self.geo.chip_of_plane(m.plane) as usize] -= 1;
            self.occ.chip_committed[self.geo.chip_of_plane(plane) as usize] += 1;
        }
        if m.waiting {
            self.occ.plane_waiting[m.plane as usize] -= 1;
            self.occ.plane_waiting[plane as usize] += 1;
        }
        m.plane = plane;
    }

    /// Readdressing callback (Sprinkler §4.3): `lpn` now lives on plane `to`; the scheduler
    /// regroups its uncommitted reads. Returns how many requests changed target.
    #[cold]
    pub fn readdress(&mut self, lpn: Lpn, from: u32, to: u32, mrs: &mut Slab<MemoryRequest>) -> u64 {
        let mut moved = std::mem::take(&mut self.readdressed);
        moved.clear();
        self.sched.readdress(lpn, from, to, mrs.as_slice(), &mut moved);
        for &mr in &moved {
            mrs[mr].plane = to;
        }
        let n = moved.len() as u64;
        self.readdressed = moved;
        n
    }
}
