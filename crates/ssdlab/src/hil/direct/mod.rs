//! `direct`: every memory request is committed as soon as it is ready, in the order it became
//! ready; the flash side (the TSU's queues and its command builder) does all the ordering.
//! This is how MQSim's host interface hands work to its TSU, and the default: it is the
//! unbounded over-commitment that Sprinkler's schedulers ration.

use super::{Board, DeviceScheduler, MemoryRequest};
use crate::nand::Lpn;

#[derive(Debug, Default)]
pub struct Direct {
    ready: Vec<u32>,
}

impl DeviceScheduler for Direct {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn ready(&mut self, mr: u32, _mrs: &[MemoryRequest]) {
        self.ready.push(mr);
    }
    fn schedule(&mut self, board: &mut Board<'_>) {
        self.ready.retain(|&mr| {
            if board.allowed(mr) {
                board.commit(mr);
                false
            } else {
                true
            }
        });
    }
    fn pending(&self) -> usize {
        self.ready.len()
    }
    fn batches_arrivals(&self) -> bool {
        false
    }
    fn readdress(&mut self, _: Lpn, _: u32, _: u32, _: &[MemoryRequest], _: &mut Vec<u32>) {
        // Nothing waits here between calls: every ready request is committed at once.
    }
}
