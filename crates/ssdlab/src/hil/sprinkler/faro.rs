//! FARO (Sprinkler §4.2): over-commit memory requests to busy chips so that the command
//! built when a chip frees is as wide as the chip allows.
//!
//! Overlap depth: the number of memory requests aimed at different planes (and dies) of one
//! chip — how many one command could carry. Connectivity: how many memory requests of one
//! host request there are (on that chip). Higher overlap depth goes first; among equals,
//! higher connectivity; then the older request. A plane takes one waiting request (its slot):
//! a second one for the same plane could not join the same command, and would only hold
//! back a later, better choice.

use std::cmp::Reverse;

use super::super::{Board, Pending};
use crate::nand::{Geometry, NONE};

/// Working buffers, kept to avoid allocating per round.
pub struct Scratch {
    io_counts: Vec<(u32, u32)>,
    best: Vec<u32>,
    best_key: Vec<(u32, Reverse<u64>)>,
    order: Vec<(Reverse<u32>, Reverse<usize>, u64, usize)>,
}

impl Scratch {
    pub fn new(geo: &Geometry) -> Scratch {
        let ppc = geo.planes_per_chip() as usize;
        Scratch {
            io_counts: Vec::new(),
            best: vec![NONE; ppc],
            best_key: vec![(0, Reverse(0)); ppc],
            order: Vec::new(),
        }
    }
}

/// SPK3: in RIOS's chip order, give every free plane slot of the chip the best request for it.
pub fn commit_per_plane(pending: &mut Pending, visit: &[u32], board: &mut Board<'_>, slots: u32, s: &mut Scratch) {
    let ppc = board.geo.planes_per_chip();
    for &chip in visit {
        let c = chip as usize;
        if pending.by_chip[c].is_empty() {
            continue;
        }
        let base = chip * ppc;
        // Only a plane with a free slot and a request for it can take anything.
        if !(base..base + ppc).any(|p| board.slot_free(p, slots) && pending.by_plane[p as usize] > 0) {
            continue;
        }
        // Connectivity of each host request on this chip.
        s.io_counts.clear();
        for &mr in &pending.by_chip[c] {
            let io = board.mrs[mr as usize].io;
            match s.io_counts.iter_mut().find(|e| e.0 == io) {
                Some(e) => e.1 += 1,
                None => s.io_counts.push((io, 1)),
            }
        }
        s.best.fill(NONE);
        for &mr in &pending.by_chip[c] {
            let m = &board.mrs[mr as usize];
            if !board.slot_free(m.plane, slots) || !board.allowed(mr) {
                continue;
            }
            let pic = (m.plane - base) as usize;
            let conn = s.io_counts.iter().find(|e| e.0 == m.io).map_or(0, |e| e.1);
            let key = (conn, Reverse(m.io_seq));
            if s.best[pic] == NONE || key > s.best_key[pic] {
                s.best[pic] = mr;
                s.best_key[pic] = key;
            }
        }
        for pic in 0..ppc as usize {
            let mr = s.best[pic];
            if mr == NONE {
                continue;
            }
            let io = board.mrs[mr as usize].io;
            let pos = pending.ios.iter().position(|p| p.io == io).expect("pending request of a pending memory request");
            pending.remove(mr, pos, chip, board.mrs[mr as usize].plane);
            board.commit(mr);
        }
    }
}

/// SPK1: whole host requests, in FARO's priority order, each committed if every plane it
/// needs has a free slot (busy chips included: that is the over-commitment).
pub fn commit_requests(pending: &mut Pending, board: &mut Board<'_>, (max_bypass, slots): (u32, u32), s: &mut Scratch) {
    s.order.clear();
    for (i, p) in pending.ios.iter_mut().enumerate() {
        p.summarize(board.mrs, board.geo);
        s.order.push((Reverse(p.depth), Reverse(p.mrs.len()), p.seq, i));
    }
    // The oldest request, once overtaken too often, goes alone and first.
    let starving = pending.ios.first().is_some_and(|p| p.bypassed >= max_bypass);
    if starving {
        s.order.retain(|e| e.3 == 0);
    }
    s.order.sort_unstable();
    for k in 0..s.order.len() {
        let i = s.order[k].3;
        let p = &pending.ios[i];
        let fits = board.allowed(p.mrs[0]) && p.planes.iter().all(|&plane| board.slot_free(plane, slots));
        if fits {
            pending.commit_io(i, board);
            pending.count_bypass(i);
        }
    }
}
