//! SPD's Die-GC (docs/techniques.md §3.5 and §11.3 items 6–7; slide s.18): the GC unit is an
//! aligned block set (the block of one index on every plane of a die); its valid pages are
//! moved N at a time as one aligned N-plane program, page i to plane i, the last group padded
//! with dummy pages so the die's GC write points stay equal [I: `gc_pad`], or — with
//! `ftl.gc.die_leftover = "buffer"` [I: `gc_via_buffer`, §11.3 item 7] — put into the die's
//! list of the write buffer, to leave with host pages as a later Die-Write; then the N blocks
//! are erased together, one multi-plane erase.

use serde::{Deserialize, Serialize};

use crate::ftl::{BlockState, Blocks};
use crate::nand::Geometry;

/// Where Die-GC's last, partial group of moves goes (`ftl.gc.die_leftover`; docs/techniques.md
/// §11.3 item 7). Full groups of N always go straight to flash as aligned N-plane programs.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DieLeftover {
    /// Programmed at once with dummy pages on the die's other planes (`gc_pad`).
    #[default]
    Pad,
    /// Into the write buffer's list of the die, as dirty pages (`gc_via_buffer`): the victim
    /// copy is dropped at once, so the set is erased without waiting, and the pages reach
    /// flash in a Die-Write with the host's. A page whose write-back is in flight goes the
    /// `pad` way instead, with its group.
    Buffer,
}

/// The victim set of `die`: the block index whose blocks are closed on every plane of the
/// die, with the fewest valid pages in all, if they hold at most `max_valid` [I: greedy over
/// the set, §11.3 item 6]; ties go to the lowest index. See [`max_valid`] for the bound.
pub fn aligned_victim(geo: &Geometry, die: u32, blocks: &Blocks, max_valid: u32) -> Option<u32> {
    let (n, bpp) = (geo.planes_per_die, geo.blocks_per_plane);
    let planes = die * n..(die + 1) * n;
    let valid_in_set = |b: u32| -> Option<u32> {
        planes.clone().try_fold(0u32, |total, p| {
            let x = (p * bpp + b) as usize;
            (blocks.state[x] == BlockState::Closed).then(|| total + blocks.valid[x] as u32)
        })
    };
    (0..bpp).filter_map(|b| valid_in_set(b).filter(|&v| v <= max_valid).map(|v| (v, b))).min().map(|(_, b)| b)
}

/// The most valid pages an aligned set may hold and still be collected: one GC of it must
/// free a page. A set of N blocks of `ppb` pages frees N × `ppb`. TwinBlk moves each page
/// within its plane, and Die-GC with `die_leftover = "buffer"` sends its last partial group
/// to the write buffer (unless a page of it is being written back), so any set with an
/// invalid page frees some: N × `ppb` − 1. Die-GC
/// with `die_leftover = "pad"` programs its v moves as ⌈v / N⌉ full N-plane groups, the
/// last padded, so a set frees a page only if ⌈v / N⌉ < `ppb`: v ≤ N × (`ppb` − 1). A set
/// past that (e.g. 31 valid of 2 × 16) is rewritten into a set just as full — one GC after
/// another frees nothing, and a die that needs GC livelocks on it (found by `ssdlab soak`
/// with a read/write channel partition, whose full channels hold such sets only).
pub fn max_valid(geo: &Geometry, unit: crate::ftl::GcUnit, leftover: DieLeftover) -> u32 {
    let (n, ppb) = (geo.planes_per_die, geo.pages_per_block);
    if unit == crate::ftl::GcUnit::Die && leftover == DieLeftover::Pad {
        n * (ppb - 1)
    } else {
        n * ppb - 1
    }
}

/// Die-GC's moves between their read and their program: per die, the moves whose read found
/// the page live, waiting to fill a group of N, and how many reads are still to come.
#[derive(Debug, Clone)]
pub struct DieGcMoves {
    staged: Vec<Vec<u32>>,
    unread: Vec<u32>,
    n: u32,
}

impl DieGcMoves {
    pub fn new(dies: u32, planes_per_die: u32) -> DieGcMoves {
        DieGcMoves { staged: vec![Vec::new(); dies as usize], unread: vec![0; dies as usize], n: planes_per_die }
    }

    /// A Die-GC of `die` starts with `moves` reads to make.
    pub fn started(&mut self, die: u32, moves: u32) {
        assert!(
            self.staged[die as usize].is_empty() && self.unread[die as usize] == 0,
            "die {die}: Die-GC already running"
        );
        self.unread[die as usize] = moves;
    }

    /// A read of `die`'s set found its page live: stage the move (`handle`, the caller's
    /// name for it). When a group is ready, it goes into `group` (page i to plane i of the
    /// die; planes past its length get dummy pages).
    pub fn read_live(&mut self, die: u32, handle: u32, group: &mut Vec<u32>) {
        self.staged[die as usize].push(handle);
        self.read_done(die, group);
    }

    /// A read of `die`'s set found its page gone (rewritten or trimmed since): nothing to
    /// move, but it may have been the last read a partial group waited for.
    pub fn read_dead(&mut self, die: u32, group: &mut Vec<u32>) {
        self.read_done(die, group);
    }

    fn read_done(&mut self, die: u32, group: &mut Vec<u32>) {
        group.clear();
        let d = die as usize;
        self.unread[d] -= 1;
        let staged = &mut self.staged[d];
        if staged.len() == self.n as usize || (self.unread[d] == 0 && !staged.is_empty()) {
            group.append(staged);
        }
    }
}
