//! RIOS (Sprinkler §4.1): commit per chip, not per host request, visiting chips so that
//! consecutive commits land on different channels.

use super::super::{Board, Pending};
use crate::nand::Geometry;

/// Chips in RIOS's order: the chip at offset 0 of every channel, then offset 1, ... (so
/// consecutive commits use different channel buses: striping, then pipelining).
pub fn visit_order(geo: &Geometry) -> Vec<u32> {
    let mut order = Vec::with_capacity(geo.chips() as usize);
    for way in 0..geo.chips_per_channel {
        for ch in 0..geo.channels {
            order.push(ch * geo.chips_per_channel + way);
        }
    }
    order
}

/// RIOS without FARO (the paper's Figure 7): a chip with no committed work left receives every
/// memory request waiting for it, of every host request, oldest first, in one visit (step ii
/// of §4.1 composes and commits "per flash chip not per I/O"). The flash controller then
/// builds commands from whatever of them fits together; RIOS itself does not look for
/// parallelism (that is FARO), and a busy chip gets nothing more until it is clear.
pub fn commit_per_chip(pending: &mut Pending, visit: &[u32], board: &mut Board<'_>) {
    for &chip in visit {
        let c = chip as usize;
        if pending.by_chip[c].is_empty() || !board.chip_clear(chip) {
            continue;
        }
        let mut k = 0;
        while k < pending.by_chip[c].len() {
            let mr = pending.by_chip[c][k];
            if !board.allowed(mr) {
                k += 1;
                continue;
            }
            let io = board.mrs[mr as usize].io;
            let pos = pending.ios.iter().position(|p| p.io == io).expect("pending request of a pending memory request");
            pending.remove(mr, pos, chip, board.mrs[mr as usize].plane);
            board.commit(mr);
        }
    }
}
