//! `vas`: the virtual-address scheduler of Sprinkler §3 (Figure 4). Host requests are served
//! in the order they arrived (FIFO); the head request's memory requests are committed in
//! order, and the scheduler stalls at the first one whose chip still holds committed work of
//! another request (a collision), until that work is done. It never looks past the head, so
//! one collision leaves every chip that later requests could use idle.

use super::{Board, DeviceScheduler, MemoryRequest, Pending};
use crate::nand::{Geometry, Lpn};

pub struct Vas {
    pending: Pending,
}

impl Vas {
    pub fn new(geo: &Geometry, readdressing: bool) -> Vas {
        Vas { pending: Pending::new(geo, readdressing) }
    }
}

impl DeviceScheduler for Vas {
    fn name(&self) -> &'static str {
        "vas"
    }
    fn ready(&mut self, mr: u32, mrs: &[MemoryRequest]) {
        self.pending.add(mr, mrs);
    }
    fn schedule(&mut self, board: &mut Board<'_>) {
        while let Some(head) = self.pending.ios.first() {
            let io = head.io;
            let k =
                head.mrs.iter().take_while(|&&mr| board.allowed(mr) && !board.collides(board.chip_of(mr), io)).count();
            self.pending.commit_prefix(0, k, board);
            if !self.pending.ios[0].mrs.is_empty() {
                break; // stalled on a collision
            }
            self.pending.compact();
        }
    }
    fn pending(&self) -> usize {
        self.pending.len()
    }
    fn readdress(&mut self, lpn: Lpn, from: u32, to: u32, mrs: &[MemoryRequest], moved: &mut Vec<u32>) {
        self.pending.readdress(lpn, from, to, mrs, moved);
    }
}
