//! `pas`: the physical-address scheduler of Sprinkler §3 (Figure 5), in the manner of PAQ and
//! Ozone: it knows each memory request's physical target and reorders at the granularity of
//! host requests (coarse-grain out-of-order). Each round it walks the queued requests oldest
//! first and commits every request none of whose chips holds committed work of another
//! request; a request that collides is skipped, and younger ones may go ahead of it.
//!
//! Starvation guard: once the oldest request has been overtaken `hil.max_bypass` times,
//! nothing may overtake it until it is committed (PAQ bounds its window the same way).

use super::{Board, DeviceScheduler, MemoryRequest, Pending};
use crate::nand::{Geometry, Lpn};

pub struct Pas {
    pending: Pending,
    max_bypass: u32,
}

impl Pas {
    pub fn new(geo: &Geometry, max_bypass: u32, readdressing: bool) -> Pas {
        Pas { pending: Pending::new(geo, readdressing), max_bypass }
    }
}

impl DeviceScheduler for Pas {
    fn name(&self) -> &'static str {
        "pas"
    }
    fn ready(&mut self, mr: u32, mrs: &[MemoryRequest]) {
        self.pending.add(mr, mrs);
    }
    fn schedule(&mut self, board: &mut Board<'_>) {
        let mut i = 0;
        while i < self.pending.ios.len() {
            let p = &mut self.pending.ios[i];
            p.summarize(board.mrs, board.geo);
            let free = board.allowed(p.mrs[0]) && p.chips.iter().all(|&chip| !board.collides(chip, p.io));
            if free {
                self.pending.commit_io(i, board);
                self.pending.count_bypass(i);
            } else if i == 0 && self.pending.ios[0].bypassed >= self.max_bypass {
                break;
            }
            i += 1;
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
