//! The five schedulers on a small example in the manner of Sprinkler's Figures 4, 5, 7 and 9,
//! worked by hand: nine chips C0..C8 (3 channels × 3 chips; chip = channel × 3 + way), each
//! with 2 dies × 2 planes (p0, p1 on die 0; p2, p3 on die 1), and five host requests:
//!
//! | request | memory requests (chip, plane) |
//! |---|---|
//! | #1 | C0 p0, C1 p0, C2 p0, C3 p0 |
//! | #2 | C0 p1, C1 p1, C5 p0 |
//! | #3 | C6 p0, C7 p0, C8 p0 |
//! | #4 | C3 p0, C3 p2, C4 p0 |
//! | #5 | C3 p1, C3 p3 |
//!
//! RIOS visits C0, C3, C6 (offset 0 of channels 0, 1, 2), then C1, C4, C7, then C2, C5, C8.
//! A "round" is one call of the scheduler; between rounds the harness starts or finishes the
//! chips' commands as the flash side would.

use super::*;

/// The config sections these tests set (the whole `Config` is composed above this layer).
#[derive(Default)]
struct Sections {
    pub nand: crate::nand::config::NandConfig,
}

struct Harness {
    geo: Geometry,
    mrs: Vec<MemoryRequest>,
    occ: Occupancy,
    sched: Box<dyn DeviceScheduler>,
}

/// (request, chip, plane in chip) of each memory request, in the order they become ready.
const EXAMPLE: [(u32, u32, u32); 15] = [
    (1, 0, 0),
    (1, 1, 0),
    (1, 2, 0),
    (1, 3, 0),
    (2, 0, 1),
    (2, 1, 1),
    (2, 5, 0),
    (3, 6, 0),
    (3, 7, 0),
    (3, 8, 0),
    (4, 3, 0),
    (4, 3, 2),
    (4, 4, 0),
    (5, 3, 1),
    (5, 3, 3),
];

impl Harness {
    fn new(kind: SchedulerKind) -> Harness {
        Harness::with(kind, (1, FaroPriority::OverlapDepth), &EXAMPLE)
    }

    /// The scheduler with `faro` = (plane slots, FARO's priority), and the memory requests
    /// `example` lists ready.
    fn with(kind: SchedulerKind, faro: (u32, FaroPriority), example: &[(u32, u32, u32)]) -> Harness {
        let mut cfg = Sections::default();
        cfg.nand.channels = 3;
        cfg.nand.chips_per_channel = 3;
        cfg.nand.dies_per_chip = 2;
        cfg.nand.planes_per_die = 2;
        let geo = Geometry::from_config(&cfg.nand);
        let sched = kind.build(&geo, 32, true, faro);
        let mut h = Harness { occ: Occupancy::new(&geo), geo, mrs: Vec::new(), sched };
        h.add(example);
        h
    }

    /// Memory requests (request, chip, plane in chip) become ready, in this order.
    fn add(&mut self, example: &[(u32, u32, u32)]) {
        for &(io, chip, pic) in example {
            let k = self.mrs.len() as u32;
            self.mrs.push(MemoryRequest {
                io,
                flow: 0,
                io_seq: io as u64,
                lpn: k,
                sector_mask: 1,
                op: MrOp::Read,
                plane: chip * 4 + pic,
                committed: false,
                waiting: false,
            });
            self.sched.ready(k, &self.mrs);
        }
    }

    /// One scheduling round: the committed memory requests as "#io:Cchip.pplane".
    fn round(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        let mut board = Board { geo: &self.geo, mrs: &self.mrs, occ: &mut self.occ, out: &mut out, allowed: &[true] };
        self.sched.schedule(&mut board);
        for &mr in &out {
            let m = &mut self.mrs[mr as usize];
            m.committed = true;
            m.waiting = true;
        }
        out.iter().map(|&mr| self.label(mr)).collect()
    }

    fn label(&self, mr: u32) -> String {
        let m = &self.mrs[mr as usize];
        format!("#{}:C{}.p{}", m.io, m.plane / 4, m.plane % 4)
    }

    /// The chip's command starts with everything waiting there.
    fn start(&mut self, chip: u32) {
        for m in &mut self.mrs {
            if m.waiting && m.plane / 4 == chip {
                m.waiting = false;
                self.occ.plane_waiting[m.plane as usize] -= 1;
            }
        }
    }

    /// The chip's running command (everything started there) finishes.
    fn finish(&mut self, chip: u32) {
        self.start(chip);
        for m in &mut self.mrs {
            if m.committed && m.plane / 4 == chip {
                m.committed = false;
                self.occ.chip_committed[chip as usize] -= 1;
            }
        }
    }

    fn finish_all(&mut self) {
        for chip in 0..9 {
            self.finish(chip);
        }
    }

    /// Chips with no committed work: idle while the queue holds work.
    fn idle_chips(&self) -> Vec<u32> {
        (0..9).filter(|&c| self.occ.chip_committed[c as usize] == 0).collect()
    }
}

fn labels(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

/// VAS (Figure 4): #1 goes; #2 collides with #1 on C0 and everything stalls behind it.
#[test]
fn vas_stalls_at_the_first_collision() {
    let mut h = Harness::new(SchedulerKind::Vas);
    assert_eq!(h.round(), labels(&["#1:C0.p0", "#1:C1.p0", "#1:C2.p0", "#1:C3.p0"]));
    assert_eq!(h.idle_chips(), vec![4, 5, 6, 7, 8], "five chips idle, as in Figure 4");
    assert_eq!(h.round(), Vec::<String>::new(), "nothing moves while #1 holds C0");
    h.finish(0);
    // #2's first memory request can go; its second collides with #1 on C1.
    assert_eq!(h.round(), labels(&["#2:C0.p1"]));
    h.finish(1);
    h.finish(2);
    h.finish(3);
    // #2 completes its commit, #3 goes, #4 goes (C3 is clear now), #5 collides with #4 on C3.
    assert_eq!(
        h.round(),
        labels(&["#2:C1.p1", "#2:C5.p0", "#3:C6.p0", "#3:C7.p0", "#3:C8.p0", "#4:C3.p0", "#4:C3.p2", "#4:C4.p0"])
    );
    h.finish_all();
    assert_eq!(h.round(), labels(&["#5:C3.p1", "#5:C3.p3"]));
    assert_eq!(h.sched.pending(), 0);
}

/// PAS (Figure 5): whole requests, out of order: #3 overtakes #2, which collides with #1.
#[test]
fn pas_skips_colliding_requests_whole() {
    let mut h = Harness::new(SchedulerKind::Pas);
    assert_eq!(
        h.round(),
        labels(&["#1:C0.p0", "#1:C1.p0", "#1:C2.p0", "#1:C3.p0", "#3:C6.p0", "#3:C7.p0", "#3:C8.p0"])
    );
    assert_eq!(h.idle_chips(), vec![4, 5], "two chips idle instead of VAS's five");
    h.finish(0);
    // #2 needs C1 too, still #1's: it waits whole, though C0 is free.
    assert_eq!(h.round(), Vec::<String>::new());
    h.finish_all();
    // #2 and #4 go; #5 collides with #4 on C3.
    assert_eq!(h.round(), labels(&["#2:C0.p1", "#2:C1.p1", "#2:C5.p0", "#4:C3.p0", "#4:C3.p2", "#4:C4.p0"]));
    h.finish_all();
    assert_eq!(h.round(), labels(&["#5:C3.p1", "#5:C3.p3"]));
}

/// SPK2, RIOS (Figure 7): chip by chip in channel-striped order, each clear chip takes every
/// memory request waiting for it, of every host request, oldest first ("per flash chip not
/// per I/O", §4.1): all fifteen go in the first round, C3 receiving the work of #1, #4 and #5
/// in one visit, and nothing is left for a second round.
#[test]
fn spk2_commits_per_chip_in_striped_order() {
    let mut h = Harness::new(SchedulerKind::Spk2);
    assert_eq!(
        h.round(),
        labels(&[
            "#1:C0.p0", "#2:C0.p1", // offset 0 of channel 0
            "#1:C3.p0", "#4:C3.p0", "#4:C3.p2", "#5:C3.p1", "#5:C3.p3", // channel 1
            "#3:C6.p0", // channel 2
            "#1:C1.p0", "#2:C1.p1", "#4:C4.p0", "#3:C7.p0", // offset 1
            "#1:C2.p0", "#2:C5.p0", "#3:C8.p0", // offset 2
        ])
    );
    assert_eq!(h.idle_chips(), Vec::<u32>::new(), "no idle chip");
    h.finish_all();
    assert_eq!(h.round(), Vec::<String>::new());
}

/// SPK3 under the earlier rule (`hil.faro_priority = "within_request"`): every free plane slot
/// of every chip is filled in the first round. On C3 plane 0 both #1 and #4 want the slot:
/// #4 has two memory requests on C3 (connectivity 2 against 1) and wins; #1's goes as soon as
/// C3's command starts, while C3 is still busy (over-commitment).
#[test]
fn spk3_within_request_fills_every_plane_by_connectivity() {
    let mut h = Harness::with(SchedulerKind::Spk3, (1, FaroPriority::WithinRequest), &EXAMPLE);
    assert_eq!(
        h.round(),
        labels(&[
            "#1:C0.p0", "#2:C0.p1", // C0: one two-plane command's worth
            "#4:C3.p0", "#5:C3.p1", "#4:C3.p2", "#5:C3.p3", // C3: all four planes
            "#3:C6.p0", "#1:C1.p0", "#2:C1.p1", "#4:C4.p0", "#3:C7.p0", "#1:C2.p0", "#2:C5.p0", "#3:C8.p0",
        ])
    );
    assert_eq!(h.round(), Vec::<String>::new(), "C3 plane 0 still has a waiting request");
    h.start(3);
    assert_eq!(h.round(), labels(&["#1:C3.p0"]), "over-committed to busy C3");
    assert_eq!(h.occ.chip_committed[3], 5);
    assert_eq!(h.sched.pending(), 0);
}

/// SPK3, RIOS + FARO (Figures 8, 9; Algorithm 1): one tag per chip per visit, in RIOS order
/// C0, C3, C6, C1, C4, C7, C2, C5, C8. First visit: C0's tags #1 (p0) and #2 (p1) both
/// reach depth 1 with connectivity 1, #1 is older; on C3, #1 reaches depth 1 (p0), #4 depth
/// 2 (p0, p2), #5 depth 2 (p1, p3), both with connectivity 2, so the older #4. Second visit:
/// C0 with #1 waiting on p0 reaches depth 2 with #2; C3 with p0, p2 waiting reaches depth 4
/// with #5, while #1's p0 has no free slot. Nothing else is left.
#[test]
fn spk3_commits_the_deepest_tag_per_chip_in_rios_order() {
    let mut h = Harness::new(SchedulerKind::Spk3);
    assert_eq!(
        h.round(),
        labels(&[
            "#1:C0.p0", "#4:C3.p0", "#4:C3.p2", "#3:C6.p0", "#1:C1.p0", "#4:C4.p0", "#3:C7.p0", "#1:C2.p0", "#2:C5.p0",
            "#3:C8.p0", // first visit
            "#2:C0.p1", "#5:C3.p1", "#5:C3.p3", "#2:C1.p1", // second visit
        ])
    );
    assert_eq!(h.round(), Vec::<String>::new(), "C3 plane 0 still has a waiting request");
    h.start(3);
    assert_eq!(h.round(), labels(&["#1:C3.p0"]), "over-committed to busy C3");
    assert_eq!(h.sched.pending(), 0);
}

/// One chip, C0: #1 (older) has five memory requests there on p0 and p1 (connectivity 5,
/// depth 2); #2 has four, one on each (die, plane) (connectivity 4, depth 4). FARO commits
/// #2's four first and #1 finds no free plane; the earlier rule gave p0 and p1 to #1 (higher
/// connectivity) and p2, p3 to #2.
#[test]
fn faro_commits_four_requests_on_distinct_planes_ahead_of_an_older_more_connected_one() {
    let example = [(1, 0, 0), (1, 0, 1), (1, 0, 0), (1, 0, 1), (1, 0, 0), (2, 0, 0), (2, 0, 1), (2, 0, 2), (2, 0, 3)];
    let mut h = Harness::with(SchedulerKind::Spk3, (1, FaroPriority::OverlapDepth), &example);
    assert_eq!(h.round(), labels(&["#2:C0.p0", "#2:C0.p1", "#2:C0.p2", "#2:C0.p3"]));
    assert_eq!(h.sched.pending(), 5);
    let mut h = Harness::with(SchedulerKind::Spk3, (1, FaroPriority::WithinRequest), &example);
    assert_eq!(h.round(), labels(&["#1:C0.p0", "#1:C0.p1", "#2:C0.p2", "#2:C0.p3"]));
}

/// Overlap depth counted across requests, two slots per plane. Round 1 commits #1's C0 p0
/// and p1 (depth 2). Round 2, with p0 and p1 waiting: #2 (p0, p1, p0) adds no plane, depth
/// 2 + 0 = 2, connectivity 3; #3 (p2) depth 3, connectivity 1; #4 (p2, p3) depth 4,
/// connectivity 2. #4 goes first; then all four planes wait and every tag's depth is 4, so
/// connectivity decides: #2 (3) takes p0 and p1's second slots (its second p0 finds both
/// taken), then #3 (1) takes p2's.
#[test]
fn overlap_depth_counts_the_waiting_requests_of_other_tags() {
    let mut h = Harness::with(SchedulerKind::Spk3, (2, FaroPriority::OverlapDepth), &[(1, 0, 0), (1, 0, 1)]);
    assert_eq!(h.round(), labels(&["#1:C0.p0", "#1:C0.p1"]));
    h.add(&[(2, 0, 0), (2, 0, 1), (2, 0, 0), (3, 0, 2), (4, 0, 2), (4, 0, 3)]);
    assert_eq!(h.round(), labels(&["#4:C0.p2", "#4:C0.p3", "#2:C0.p0", "#2:C0.p1", "#3:C0.p2"]));
    assert_eq!(h.occ.plane_waiting[..4], [2, 2, 2, 1]);
    assert_eq!(h.sched.pending(), 1, "#2's second p0");
}

/// SPK1 with the cross-request depth: #1 waits on C0 p0, p1, p2. Then #2 (C1 p0, p1: depth 2,
/// connectivity 2 on C1) and #3 (C0 p3 and C1 p0) compete for C1 p0. #3 would give C0 depth
/// 3 + 1 = 4, so it goes first and #2 waits whole; the earlier rule (depth inside one
/// request: #2 2, #3 1) committed #2 and left #3 waiting.
#[test]
fn spk1_ranks_whole_requests_by_the_depth_they_give_a_chip() {
    let first = [(1, 0, 0), (1, 0, 1), (1, 0, 2)];
    let later = [(2, 1, 0), (2, 1, 1), (3, 0, 3), (3, 1, 0)];
    for (faro, expect) in [
        (FaroPriority::OverlapDepth, labels(&["#3:C0.p3", "#3:C1.p0"])),
        (FaroPriority::WithinRequest, labels(&["#2:C1.p0", "#2:C1.p1"])),
    ] {
        let mut h = Harness::with(SchedulerKind::Spk1, (1, faro), &first);
        assert_eq!(h.round().len(), 3);
        h.add(&later);
        assert_eq!(h.round(), expect, "{faro:?}");
    }
}

/// SPK1, FARO alone: whole requests by overlap depth, then connectivity. #4 (depth 2 on C3,
/// three memory requests) and #5 (depth 2) go before #1 (depth 1, four); #1 then finds C3's
/// plane 0 taken by #4 and waits whole, while #2 and #3 go around it.
#[test]
fn spk1_orders_requests_by_overlap_depth_then_connectivity() {
    let mut h = Harness::new(SchedulerKind::Spk1);
    assert_eq!(
        h.round(),
        labels(&[
            "#4:C3.p0", "#4:C3.p2", "#4:C4.p0", "#5:C3.p1", "#5:C3.p3", "#2:C0.p1", "#2:C1.p1", "#2:C5.p0", "#3:C6.p0",
            "#3:C7.p0", "#3:C8.p0",
        ])
    );
    assert_eq!(h.idle_chips(), vec![2], "C2 waits for #1, which waits for C3's plane 0");
    h.start(3);
    // C3 is busy, but its slots are free again: #1 is over-committed to C0, C1 and C3.
    assert_eq!(h.round(), labels(&["#1:C0.p0", "#1:C1.p0", "#1:C2.p0", "#1:C3.p0"]));
}

/// `direct` commits everything in ready order.
#[test]
fn direct_commits_everything_at_once() {
    let mut h = Harness::new(SchedulerKind::Direct);
    assert_eq!(h.round().len(), EXAMPLE.len());
}

/// PAS's starvation guard: once the oldest request has been overtaken `max_bypass` times,
/// nothing overtakes it.
#[test]
fn pas_stops_overtaking_a_starving_request() {
    for (max_bypass, expect) in [(32, labels(&["#4:C3.p0", "#4:C3.p2", "#4:C4.p0"])), (1, vec![])] {
        let mut h = Harness::new(SchedulerKind::Pas);
        h.sched = SchedulerKind::Pas.build(&h.geo, max_bypass, true, (1, FaroPriority::OverlapDepth));
        for k in 0..EXAMPLE.len() as u32 {
            h.sched.ready(k, &h.mrs);
        }
        // #1 and #3 go; #2 (colliding with #1 on C0) is overtaken once, by #3.
        assert_eq!(h.round().len(), 7);
        // C3 frees: #4 could go, but #2 (still colliding on C0, C1, C2) has been overtaken
        // max_bypass times when that is 1.
        h.finish(3);
        assert_eq!(h.round(), expect, "max_bypass {max_bypass}");
    }
}

/// Readdressing callback (§4.3): #1's page on C3 moves to C4 plane 1 before it is committed;
/// with the callback SPK2 commits it to C4, without it the stale target C3 is kept.
#[test]
fn readdressing_regroups_an_uncommitted_read_under_its_new_chip() {
    for (on, chip) in [(true, 4), (false, 3)] {
        let mut h = Harness::new(SchedulerKind::Spk2);
        h.sched = SchedulerKind::Spk2.build(&h.geo, 32, on, (1, FaroPriority::OverlapDepth));
        for k in 0..4u32 {
            h.sched.ready(k, &h.mrs); // request #1 only
        }
        // Before any round, lpn 3 (#1's C3 page) moves to C4 plane 1.
        let mut moved = Vec::new();
        h.sched.readdress(3, 3 * 4, 4 * 4 + 1, &h.mrs, &mut moved);
        for &mr in &moved {
            h.mrs[mr as usize].plane = 4 * 4 + 1;
        }
        assert_eq!(moved, if on { vec![3] } else { vec![] });
        let out = h.round();
        let expect = if on { "#1:C4.p1" } else { "#1:C3.p0" };
        assert!(out.contains(&expect.to_string()), "readdressing {on}: {out:?}");
        assert_eq!(h.occ.chip_committed[chip], 1);
    }
}

/// 8 sectors per page: sectors 6..10 are the last two of page 0 and the first two of page 1;
/// a whole 64-sector page is every bit.
#[test]
fn a_request_splits_into_its_pages_with_their_sector_masks() {
    let pages: Vec<(u32, u64)> = super::split(6, 4, 8).collect();
    assert_eq!(pages, vec![(0, 0b1100_0000), (1, 0b0000_0011)]);
    let whole: Vec<(u32, u64)> = super::split(128, 64, 64).collect();
    assert_eq!(whole, vec![(2, u64::MAX)]);
    let three: Vec<u32> = super::split(7, 10, 8).map(|(lpn, _)| lpn).collect();
    assert_eq!(three, vec![0, 1, 2]);
}
