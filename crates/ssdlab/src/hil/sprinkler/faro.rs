//! FARO (Sprinkler §4.2, Algorithm 1): over-commit memory requests to busy chips so that the
//! command built when a chip frees is as wide as the chip allows.
//!
//! Overlap depth [P §4.2]: the number of memory requests aimed at different (die, plane)
//! pairs of one chip — how many one command could carry. It is counted over all queued host
//! requests: the planes of the chip with a committed request waiting for its command, of any
//! request, together with those a candidate would add. Connectivity [P §4.2]: how many memory
//! requests of one host request there are on that chip. Algorithm 1 picks, per visited chip,
//! a tag (host request) — highest overlap depth, then highest connectivity — and composes and
//! commits its memory requests for that chip; remaining ties go to the older request [I]. A
//! plane takes `hil.plane_slots` waiting requests (1: one command takes one request per
//! plane, and a second one would only hold back a later, better choice).
//!
//! `hil.faro_priority = "within_request"` keeps ssdlab's earlier rule ([`commit_per_plane`],
//! [`commit_requests`]), which counts nothing across host requests.

use std::cmp::Reverse;

use super::super::{Board, Pending, PendingIo};
use crate::nand::{Geometry, NONE};

/// Working buffers, kept to avoid allocating per round.
pub struct Scratch {
    io_counts: Vec<(u32, u32)>,
    best: Vec<u32>,
    best_key: Vec<(u32, Reverse<u64>)>,
    order: Vec<(Reverse<u32>, Reverse<usize>, u64, usize)>,
    /// Per plane of a chip: the stamp of the last tag that counted it (distinct planes).
    seen: Vec<u64>,
    stamp: u64,
    /// The memory requests of the tag being committed; the requests still able to commit.
    run: Vec<u32>,
    cands: Vec<usize>,
    /// The chips still able to take a tag this round, in RIOS's order.
    chips: Vec<u32>,
    /// Per chip: a request's memory requests there (zero between uses).
    per_chip: Vec<u32>,
}

impl Scratch {
    pub fn new(geo: &Geometry) -> Scratch {
        let ppc = geo.planes_per_chip() as usize;
        Scratch {
            io_counts: Vec::new(),
            best: vec![NONE; ppc],
            best_key: vec![(0, Reverse(0)); ppc],
            order: Vec::new(),
            seen: vec![0; ppc],
            stamp: 0,
            run: Vec::new(),
            cands: Vec::new(),
            chips: Vec::new(),
            per_chip: vec![0; geo.chips() as usize],
        }
    }
}

/// SPK3 under the earlier rule (`within_request`): in RIOS's chip order, give every free plane
/// slot of the chip the request with most memory requests on the chip, then the oldest.
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

/// SPK1 under the earlier rule (`within_request`): whole host requests by the depth inside
/// each (most distinct planes on one chip), then size, then age, each committed if every
/// plane it needs has a free slot (busy chips included: that is the over-commitment).
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

/// FARO's ranking key: overlap depth, connectivity, then the older request.
type Key = (u32, u32, Reverse<u64>);

/// SPK3 (Algorithm 1): visit the chips in RIOS's order and commit, on each, the memory
/// requests of the tag FARO ranks first there ([`best_tag`]); visit again while some chip
/// took a tag (a chip that took none can take none later in the round).
pub fn commit_by_depth(pending: &mut Pending, visit: &[u32], board: &mut Board<'_>, slots: u32, s: &mut Scratch) {
    s.chips.clear();
    s.chips.extend(visit.iter().filter(|&&c| !pending.by_chip[c as usize].is_empty()));
    while !s.chips.is_empty() {
        let mut k = 0;
        while k < s.chips.len() {
            let chip = s.chips[k];
            let Some((start, io)) = best_tag(pending, chip, board, slots, s) else {
                s.chips.remove(k);
                continue;
            };
            let list = &pending.by_chip[chip as usize];
            s.run.clear();
            s.run.extend(list[start..].iter().take_while(|&&mr| board.mrs[mr as usize].io == io));
            let pos = pending.ios.iter().position(|p| p.io == io).expect("pending request of a pending memory request");
            for &mr in &s.run {
                let plane = board.mrs[mr as usize].plane;
                if board.slot_free(plane, slots) && board.allowed(mr) {
                    pending.remove(mr, pos, chip, plane);
                    board.commit(mr);
                }
            }
            k += 1;
        }
    }
}

/// The tag FARO commits next on `chip` (the start of its run in `by_chip`, and its io): the
/// highest overlap depth the chip would reach with it — planes where a committed request waits,
/// of any host request, and the free planes this tag adds — then the highest connectivity,
/// then the oldest. None when no tag has a memory request with a free slot.
fn best_tag(pending: &Pending, chip: u32, board: &Board<'_>, slots: u32, s: &mut Scratch) -> Option<(usize, u32)> {
    let list = &pending.by_chip[chip as usize];
    let ppc = board.geo.planes_per_chip();
    let base = chip * ppc;
    let waiting = (base..base + ppc).filter(|&p| board.occ.plane_waiting[p as usize] > 0).count() as u32;
    let mut best: Option<(Key, usize, u32)> = None;
    // A chip's list holds each host request's memory requests together (oldest request first).
    let mut k = 0;
    while k < list.len() {
        let (start, first) = (k, &board.mrs[list[k] as usize]);
        let (io, seq) = (first.io, first.io_seq);
        s.stamp += 1;
        let (mut added, mut fits) = (0, false);
        while k < list.len() && board.mrs[list[k] as usize].io == io {
            let mr = list[k];
            let plane = board.mrs[mr as usize].plane;
            k += 1;
            if !board.slot_free(plane, slots) || !board.allowed(mr) {
                continue;
            }
            fits = true;
            let pic = (plane - base) as usize;
            if board.occ.plane_waiting[plane as usize] == 0 && s.seen[pic] != s.stamp {
                s.seen[pic] = s.stamp;
                added += 1;
            }
        }
        let key = (waiting + added, (k - start) as u32, Reverse(seq));
        if fits && best.is_none_or(|b| key > b.0) {
            best = Some((key, start, io));
        }
    }
    best.map(|b| (b.1, b.2))
}

/// SPK1 (FARO alone): whole host requests, each committed if every plane it needs has a free
/// slot (busy chips included: the over-commitment). The next one is the request FARO ranks
/// first ([`request_key`]), judged against what the round has committed so far.
pub fn commit_requests_by_depth(
    pending: &mut Pending,
    board: &mut Board<'_>,
    (max_bypass, slots): (u32, u32),
    s: &mut Scratch,
) {
    s.cands.clear();
    for (i, p) in pending.ios.iter_mut().enumerate() {
        p.summarize(board.mrs, board.geo);
        s.cands.push(i);
    }
    // The oldest request, once overtaken too often, goes alone and first.
    if pending.ios.first().is_some_and(|p| p.bypassed >= max_bypass) {
        s.cands.retain(|&i| i == 0);
    }
    loop {
        let ios = &pending.ios;
        s.cands.retain(|&i| {
            let p = &ios[i];
            !p.mrs.is_empty() && board.allowed(p.mrs[0]) && p.planes.iter().all(|&pl| board.slot_free(pl, slots))
        });
        let per_chip = &mut s.per_chip;
        let best = s.cands.iter().enumerate().map(|(k, &i)| (request_key(&ios[i], board, per_chip), k)).max();
        let Some((_, k)) = best else { break };
        let i = s.cands.swap_remove(k);
        pending.commit_io(i, board);
        pending.count_bypass(i);
    }
}

/// A whole request's rank under FARO [I]: over the chips it touches, the highest (overlap
/// depth the chip would reach with it, its connectivity there); then the older request.
/// `per_chip` is zero on entry and on return.
fn request_key(p: &PendingIo, board: &Board<'_>, per_chip: &mut [u32]) -> Key {
    let geo = board.geo;
    let ppc = geo.planes_per_chip();
    for &mr in &p.mrs {
        per_chip[board.chip_of(mr) as usize] += 1;
    }
    let waiting = |pl: &u32| board.occ.plane_waiting[*pl as usize] > 0;
    let mut best = (0, 0);
    // `planes` is sorted, so each chip's planes are together and the chips in order.
    let mut k = 0;
    for &chip in &p.chips {
        let start = k;
        while k < p.planes.len() && geo.chip_of_plane(p.planes[k]) == chip {
            k += 1;
        }
        let added = p.planes[start..k].iter().filter(|pl| !waiting(pl)).count() as u32;
        let depth = (chip * ppc..(chip + 1) * ppc).filter(waiting).count() as u32 + added;
        best = best.max((depth, std::mem::take(&mut per_chip[chip as usize])));
    }
    (best.0, best.1, Reverse(p.seq))
}
