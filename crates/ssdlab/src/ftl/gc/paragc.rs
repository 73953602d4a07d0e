//! ParaGC — parallel GC (PaGC; Shahidi, Arjomand, Jung, Kandemir, Das, Sivasubramaniam, SC
//! 2016), one of SPD's baselines (docs/techniques.md §3.6 item 3, §11.3b item 4).
//!
//! When a plane needs GC, the other planes of its die would sit idle during the moves; ParaGC
//! collects them at the same time: with `ftl.gc.unit = "para"`, when GC starts on a plane,
//! every other plane of the die that is not collecting starts too, each on its own greedy
//! victim, moves stay within their planes and each plane erases its victim on its own.
//!
//! With `ftl.gc.para_align` (slides s.21: ParaGC aligns the write points of the GC
//! destination blocks, so moves pair into multi-plane programs) the planes that start
//! together are a session:
//! - their GC destination blocks open as aligned sets (the same block index on every plane,
//!   `Blocks::with_gc_alignment`), as a part that needs one block per multi-plane command
//!   asks (`nand.multiplane_same_block`, slide s.7);
//! - when the session starts, the lagging planes' GC write points are brought to the
//!   leading plane's ([`align_pads`]): `catch_up` (the default) programs a lagging plane's
//!   first moves alone until it is there, `pad` pads it with dummy pages first [I both];
//! - then the k-th move of each plane is programmed together with the others' k-th, each
//!   page on its own plane ([`ParaMoves`]), so one plane's victim, its accounting and its
//!   erase are the plane's own; once a plane has no moves left, the others' go alone — the
//!   drift of the new write points that slide s.12 shows, not padded away.
//!
//! With `para_align = "none"` (the earlier rule) moves pair only where page offsets happen
//! to match. The slides' §3.6 variant — collect the paired block only if it has enough
//! invalid pages — is not built.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::nand::{Geometry, NONE};

/// How ParaGC aligns the GC write points of the planes that start together
/// (`ftl.gc.para_align`; docs/techniques.md §3.6 item 3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParaAlign {
    /// A lagging plane catches up with its own first moves, programmed alone, before the
    /// session's moves pair [I]: the write points meet at no cost in pages.
    #[default]
    CatchUp,
    /// A lagging plane is padded with dummy pages up to the leader before any move [I].
    Pad,
    /// No alignment, moves programmed as they come (ssdlab before issue 32): they pair only
    /// where offsets happen to match.
    None,
}

/// The other planes of `plane`'s die.
pub fn siblings(geo: &Geometry, plane: u32) -> impl Iterator<Item = u32> {
    let n = geo.planes_per_die;
    let first = plane / n * n;
    (first..first + n).filter(move |&q| q != plane)
}

/// Where a plane's next GC page goes: the in-plane index of its open GC block and the page
/// offset in it, or `block == NONE` when it has none with room (its next GC page opens one,
/// the block its siblings have open if it can; the offset is then not read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcPoint {
    pub block: u32,
    pub offset: u32,
}

/// The pages (moves going alone, or dummy pages) that bring every plane's GC write point to
/// the leader's: the plane whose
/// point the others reach with the fewest pads in all (lowest plane on ties). A plane in the
/// leader's block goes up to its offset; one without an open GC block opens the leader's
/// block (if `can_open(plane index, block)`) and goes up to the offset; one in another block
/// fills that block and goes on in the leader's. Returns false, and all 0, when
/// no plane can lead (no plane has an open GC block — they open an aligned set together and
/// are equal already — or the leader's block cannot be opened where it must be).
pub fn align_pads(
    points: &[GcPoint],
    pages_per_block: u32,
    can_open: impl Fn(usize, u32) -> bool,
    pads: &mut Vec<u32>,
) -> bool {
    let to_reach = |p: usize, lead: GcPoint| -> Option<u32> {
        let at = points[p];
        match () {
            _ if at.block == lead.block => lead.offset.checked_sub(at.offset),
            _ if !can_open(p, lead.block) => None,
            _ if at.block == NONE => Some(lead.offset),
            _ => Some(pages_per_block - at.offset + lead.offset),
        }
    };
    let best = (0..points.len())
        .filter(|&l| points[l].block != NONE)
        .filter_map(|l| {
            let total = (0..points.len()).try_fold(0u32, |sum, p| Some(sum + to_reach(p, points[l])?));
            total.map(|t| (t, l))
        })
        .min();
    pads.clear();
    pads.resize(points.len(), 0);
    let Some((_, lead)) = best else { return false };
    for (p, pad) in pads.iter_mut().enumerate() {
        *pad = to_reach(p, points[lead]).expect("the leader is reachable from every plane");
    }
    true
}

/// ParaGC's moves between their read and their program, per plane: the moves whose read
/// found the page live, waiting for the k-th move of every other plane of its session, how
/// many reads are still to come, how many live moves still go alone to catch up with the
/// session's leading write point, and the session the plane's GC belongs to (the planes of
/// a die that started together).
#[derive(Debug, Clone)]
pub struct ParaMoves {
    staged: Vec<VecDeque<u32>>,
    unread: Vec<u32>,
    solo: Vec<u32>,
    session: Vec<u32>,
    next_session: u32,
    n: u32,
}

impl ParaMoves {
    pub fn new(planes: u32, planes_per_die: u32) -> ParaMoves {
        let p = planes as usize;
        ParaMoves {
            staged: vec![VecDeque::new(); p],
            unread: vec![0; p],
            solo: vec![0; p],
            session: vec![0; p],
            next_session: 0,
            n: planes_per_die,
        }
    }

    /// A new session's name.
    pub fn new_session(&mut self) -> u32 {
        self.next_session += 1;
        self.next_session
    }

    /// `plane` starts GC in `session` with `moves` reads to make, its first `solo` live
    /// moves going alone (catching up with the session's leading write point).
    pub fn started(&mut self, plane: u32, session: u32, moves: u32, solo: u32) {
        let p = plane as usize;
        assert!(self.staged[p].is_empty() && self.unread[p] == 0, "plane {plane}: ParaGC already moving");
        (self.session[p], self.unread[p], self.solo[p]) = (session, moves, solo);
    }

    /// The read of a move off `plane` finished: its page was live (`handle`, the caller's
    /// name for the move) or gone (None). Each group of moves now ready goes to `emit`, in
    /// plane order: a catching-up plane's move alone; else one move of every plane of the
    /// session that still has moves, or, with one such plane left, its moves one by one.
    pub fn read_done(&mut self, plane: u32, handle: Option<u32>, mut emit: impl FnMut(&[u32])) {
        let p = plane as usize;
        self.unread[p] -= 1;
        if let Some(h) = handle {
            self.staged[p].push_back(h);
        }
        let first = plane / self.n * self.n;
        let session = self.session[p];
        let (mut group, mut from) = ([NONE; 64], [0usize; 64]);
        loop {
            for q in (first..first + self.n).map(|q| q as usize) {
                while self.session[q] == session && self.solo[q] > 0 {
                    let Some(h) = self.staged[q].pop_front() else { break };
                    self.solo[q] -= 1;
                    emit(&[h]);
                }
            }
            let mut k = 0;
            for q in (first..first + self.n).map(|q| q as usize) {
                if !self.moving(q, session) {
                    continue;
                }
                if self.solo[q] > 0 {
                    return; // still catching up: its next live move goes alone
                }
                let Some(&h) = self.staged[q].front() else { return };
                (group[k], from[k], k) = (h, q, k + 1);
            }
            if k == 0 {
                return;
            }
            for &q in &from[..k] {
                self.staged[q].pop_front();
            }
            emit(&group[..k]);
        }
    }

    /// Whether plane `q` belongs to `session` and still has moves to read or program.
    fn moving(&self, q: usize, session: u32) -> bool {
        self.session[q] == session && (self.unread[q] > 0 || !self.staged[q].is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Planes 0 and 1 of a die (64-page blocks) with GC write points at (block 3, page 1)
    /// and (block 3, page 4): plane 1 leads, plane 0 pads 3 pages (leading with plane 0
    /// is impossible: plane 1 cannot go back). In different blocks, plane 0 at (2, 60)
    /// and plane 1 at (7, 5) (plane 1 moved on to block 7 first): plane 0 fills block 2
    /// (4 pads) and pads 5 in block 7: 9; leading with plane 0 would need plane 1 back in
    /// block 2. Plane 1 without an open GC block opens plane 0's block 3 and pads to page
    /// 1, unless it cannot take block 3; with no open GC block anywhere, no pads.
    #[test]
    fn lagging_gc_write_points_pad_up_to_the_leader() {
        let pt = |block, offset| GcPoint { block, offset };
        let mut pads = Vec::new();
        assert!(align_pads(&[pt(3, 1), pt(3, 4)], 64, |_, _| true, &mut pads));
        assert_eq!(pads, [3, 0]);
        assert!(align_pads(&[pt(2, 60), pt(7, 5)], 64, |p, b| (p, b) == (0, 7), &mut pads));
        assert_eq!(pads, [9, 0]);
        assert!(align_pads(&[pt(3, 1), pt(NONE, 0)], 64, |_, _| true, &mut pads));
        assert_eq!(pads, [0, 1]);
        assert!(!align_pads(&[pt(3, 1), pt(NONE, 0)], 64, |_, b| b != 3, &mut pads));
        assert_eq!(pads, [0, 0]);
        assert!(!align_pads(&[pt(NONE, 0), pt(NONE, 0)], 64, |_, _| true, &mut pads));
    }

    /// The case of `ftl.gc.para_align = "catch_up"`: plane 0's GC write point is at page 5
    /// of block 3, plane 1's at page 3 of block 3, and their victims hold 3 and 5 valid pages
    /// (moves a0-a2, b0-b4). Plane 0 leads (plane 1 reaches it in 2 pages, the other way is
    /// impossible), so plane 1 catches up with its first 2 moves alone — b0 at page 3, b1 at
    /// page 4 — then the k-th moves pair at equal offsets: (a0, b2) at 5, (a1, b3) at 6,
    /// (a2, b4) at 7. 3 two-plane programs and 2 single-plane ones; both write points end
    /// at page 8. Reads finish in an order that makes plane 0 wait for plane 1 to catch up.
    #[test]
    fn a_lagging_plane_catches_up_alone_then_the_kth_moves_pair() {
        let points = [GcPoint { block: 3, offset: 5 }, GcPoint { block: 3, offset: 3 }];
        let mut gaps = Vec::new();
        assert!(align_pads(&points, 64, |_, _| true, &mut gaps));
        assert_eq!(gaps, [0, 2]);
        let mut m = ParaMoves::new(2, 2);
        let s = m.new_session();
        let (a, b) = ([10, 11, 12], [20, 21, 22, 23, 24]);
        m.started(0, s, 3, gaps[0]);
        m.started(1, s, 5, gaps[1]);
        let mut programs: Vec<Vec<u32>> = Vec::new();
        let reads = [(0, a[0]), (0, a[1]), (1, b[0]), (0, a[2]), (1, b[1]), (1, b[2]), (1, b[3]), (1, b[4])];
        for (plane, h) in reads {
            m.read_done(plane, Some(h), |g| programs.push(g.to_vec()));
        }
        let expect = [vec![20], vec![21], vec![10, 22], vec![11, 23], vec![12, 24]];
        assert_eq!(programs, expect);
        // Write points: each program takes its plane's next page.
        let mut at = [points[0].offset, points[1].offset];
        let mut pairs_at = Vec::new();
        for g in &programs {
            let planes: Vec<usize> = g.iter().map(|&h| (h / 10 - 1) as usize).collect();
            if let [p, q] = planes[..] {
                assert_eq!(at[p], at[q], "a pair at equal offsets");
                pairs_at.push(at[p]);
            }
            planes.iter().for_each(|&p| at[p] += 1);
        }
        assert_eq!((pairs_at, at), (vec![5, 6, 7], [8, 8]));
    }

    /// Two planes of a die start one session with 3 and 5 moves; reads finish in the order
    /// given. A move waits for the other plane's move of the same rank: (a0, b0), (a1, b1),
    /// (a2, b2) go as pairs; once plane 0 is done, b3 and b4 go alone. A read that found
    /// its page gone (None) moves nothing, but still counts as read.
    #[test]
    fn kth_moves_of_the_session_go_together_then_the_rest_alone() {
        let mut m = ParaMoves::new(4, 2);
        let s = m.new_session();
        m.started(0, s, 3, 0);
        m.started(1, s, 6, 0);
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let reads = [(1, Some(20)), (1, Some(21)), (0, Some(10)), (1, None), (0, Some(11)), (1, Some(22))];
        for (plane, h) in reads {
            m.read_done(plane, h, |g| groups.push(g.to_vec()));
        }
        assert_eq!(groups, [vec![10, 20], vec![11, 21]]);
        m.read_done(1, Some(23), |g| groups.push(g.to_vec()));
        assert_eq!(groups.len(), 2, "b3 waits for plane 0's third move");
        m.read_done(0, Some(12), |g| groups.push(g.to_vec()));
        m.read_done(1, Some(24), |g| groups.push(g.to_vec()));
        assert_eq!(groups[2..], [vec![12, 22], vec![23], vec![24]]);
        // A later session of plane 0 alone does not wait for plane 1.
        let t = m.new_session();
        m.started(0, t, 1, 0);
        m.read_done(0, Some(13), |g| groups.push(g.to_vec()));
        assert_eq!(groups.last(), Some(&vec![13]));
    }
}
