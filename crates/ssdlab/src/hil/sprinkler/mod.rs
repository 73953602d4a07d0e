//! Sprinkler (Jung & Kandemir, HPCA 2014, §4): resource-driven I/O scheduling (RIOS, §4.1) and
//! FLP-aware memory request over-commitment (FARO, §4.2), alone and together (Algorithm 1).
//!
//! - `spk2`, RIOS only ([`rios`]): requests are grouped per chip as they arrive (tags are
//!   secured without moving data) and committed chip by chip, regardless of the order of
//!   their host requests, visiting the chips at the same offset on every channel before the
//!   next offset. Without FARO a chip is given work only when everything committed to it is
//!   done; then it receives every memory request waiting for it, of all host requests, in one
//!   visit (Figure 7). Fine-grain out-of-order.
//! - `spk1`, FARO only ([`faro`]): host requests are still committed whole (the parallelism
//!   dependency of §3 remains), but a chip is over-committed — given more work while it is
//!   busy — as long as each plane the request needs has a free slot (no committed request
//!   waiting for a command: one waiting request per plane is all one multi-plane,
//!   die-interleaved command can take). The next request committed is the one that would give
//!   a chip it touches the highest overlap depth, then the highest connectivity there, then
//!   the oldest.
//! - `spk3`, RIOS and FARO (Algorithm 1): chip by chip in RIOS order, FARO picks the host
//!   request (tag) whose memory requests on the chip would give it the highest overlap depth
//!   — distinct (die, plane) pairs with a committed request waiting, of any host request —
//!   then the highest connectivity (its memory requests on the chip), then the oldest, and
//!   commits that request's memory requests on the chip that have a free plane slot; again
//!   until nothing more fits.
//!
//! `hil.faro_priority = "within_request"` keeps ssdlab's rule before issue 32 (spk3: each free
//! plane takes the request with most memory requests on the chip, then the oldest; spk1:
//! depth counted inside one request).
//!
//! The flash controller builds a command from what is waiting at the moment the chip becomes
//! free (the TSU's builder), so over-commitment raises flash-level parallelism by what it
//! puts there, not by a special case.
//!
//! Readdressing callback (§4.3): when data moves to another plane while a read for it is
//! uncommitted, the read's target is updated so it is grouped with the right chip. ssdlab's
//! GC and wear levelling move data within a plane, so only cache write-backs under dynamic
//! allocation move data between resources.

mod faro;
mod rios;

use super::{Board, DeviceScheduler, FaroPriority, MemoryRequest, Pending};
use crate::nand::{Geometry, Lpn};

pub struct Sprinkler {
    name: &'static str,
    pending: Pending,
    rios: bool,
    faro: bool,
    max_bypass: u32,
    /// FARO: committed requests that may wait per plane (`hil.plane_slots`; 1 in the paper).
    plane_slots: u32,
    /// FARO: what it ranks by (`hil.faro_priority`).
    priority: FaroPriority,
    /// RIOS's chip visiting order.
    visit: Vec<u32>,
    scratch: faro::Scratch,
}

impl Sprinkler {
    fn new(
        name: &'static str,
        geo: &Geometry,
        (rios, faro): (bool, bool),
        max_bypass: u32,
        readdressing: bool,
        (plane_slots, priority): (u32, FaroPriority),
    ) -> Self {
        Sprinkler {
            name,
            pending: Pending::new(geo, readdressing),
            rios,
            faro,
            max_bypass,
            plane_slots,
            priority,
            visit: rios::visit_order(geo),
            scratch: faro::Scratch::new(geo),
        }
    }
    pub fn spk1(geo: &Geometry, max_bypass: u32, readdressing: bool, faro: (u32, FaroPriority)) -> Self {
        Self::new("spk1", geo, (false, true), max_bypass, readdressing, faro)
    }
    pub fn spk2(geo: &Geometry, readdressing: bool) -> Self {
        Self::new("spk2", geo, (true, false), 0, readdressing, (1, FaroPriority::OverlapDepth))
    }
    pub fn spk3(geo: &Geometry, readdressing: bool, faro: (u32, FaroPriority)) -> Self {
        Self::new("spk3", geo, (true, true), 0, readdressing, faro)
    }
}

impl DeviceScheduler for Sprinkler {
    fn name(&self) -> &'static str {
        self.name
    }
    fn ready(&mut self, mr: u32, mrs: &[MemoryRequest]) {
        self.pending.add(mr, mrs);
    }
    fn schedule(&mut self, board: &mut Board<'_>) {
        let (pending, s, slots) = (&mut self.pending, &mut self.scratch, self.plane_slots);
        let depth = self.priority == FaroPriority::OverlapDepth;
        match (self.rios, self.faro) {
            (true, false) => rios::commit_per_chip(pending, &self.visit, board),
            (true, true) if depth => faro::commit_by_depth(pending, &self.visit, board, slots, s),
            (true, true) => faro::commit_per_plane(pending, &self.visit, board, slots, s),
            (false, true) if depth => faro::commit_requests_by_depth(pending, board, (self.max_bypass, slots), s),
            (false, true) => faro::commit_requests(pending, board, (self.max_bypass, slots), s),
            (false, false) => unreachable!("Sprinkler without RIOS or FARO is PAS"),
        }
        self.pending.compact();
    }
    fn pending(&self) -> usize {
        self.pending.len()
    }
    fn readdress(&mut self, lpn: Lpn, from: u32, to: u32, mrs: &[MemoryRequest], moved: &mut Vec<u32>) {
        self.pending.readdress(lpn, from, to, mrs, moved);
    }
}
