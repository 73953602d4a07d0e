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

/// RIOS without FARO: every chip with no committed work left receives the memory requests
/// the oldest host request has for it.
pub fn commit_per_chip(pending: &mut Pending, visit: &[u32], board: &mut Board<'_>) {
    for &chip in visit {
        let c = chip as usize;
        if pending.by_chip[c].is_empty() || !board.chip_clear(chip) {
            continue;
        }
        // The oldest request with work here whose flow may commit.
        let Some(&first) = pending.by_chip[c].iter().find(|&&mr| board.allowed(mr)) else { continue };
        let io = board.mrs[first as usize].io;
        let pos = pending.ios.iter().position(|p| p.io == io).expect("pending request of a pending memory request");
        let mut k = 0;
        while k < pending.by_chip[c].len() {
            let mr = pending.by_chip[c][k];
            if board.mrs[mr as usize].io == io {
                pending.remove(mr, pos, chip, board.mrs[mr as usize].plane);
                board.commit(mr);
            } else {
                k += 1;
            }
        }
    }
}
