//! The builder against a fake FTL, on one chip of 2 dies × 2 planes (plane in chip 0 = die 0
//! plane 0, 1 = d0p1, 2 = d1p0, 3 = d1p1). Each case is worked by hand from the rules of
//! docs/techniques.md §4: one operation per command, one transaction per plane, planes of a die at
//! one page offset (and block, when the part needs it), other dies at any offset.

use super::*;
use crate::nand::Geometry;
use crate::tsu::unit::Tsu;
use crate::tsu::{Fifo, NewTx, Owner, Pick};

/// The config sections these tests set (the whole `Config` is composed above this layer).
#[derive(Default)]
struct Sections {
    pub nand: crate::nand::config::NandConfig,
    pub tsu: crate::tsu::config::TsuConfig,
}

/// What the builder sees of the FTL: where each logical page is, what each physical page
/// holds, and each plane's write point per stream (None: no page can be had).
#[derive(Default)]
struct FakeFtl {
    map: Vec<(Lpn, Ppn)>,
    user_offset: [Option<u32>; 4],
    gc_offset: [Option<u32>; 4],
    /// The block each plane's next program goes to (user and GC alike).
    next_block: [u32; 4],
    /// Die-GC: a stale move stays in place as a dummy page.
    keeps_place: bool,
}

impl FtlView for FakeFtl {
    fn lpn_at(&self, ppn: Ppn) -> Lpn {
        self.map.iter().find(|&&(_, p)| p == ppn).map_or(NONE, |&(l, _)| l)
    }
    fn read_page(&self, lpn: Lpn) -> Ppn {
        self.map.iter().find(|&&(l, _)| l == lpn).map_or(NONE, |&(_, p)| p)
    }
    fn next_offset(&self, plane: u32, stream: Stream) -> Option<u32> {
        match stream {
            Stream::User => self.user_offset[plane as usize],
            Stream::Gc | Stream::Map => self.gc_offset[plane as usize],
        }
    }
    fn next_block(&self, plane: u32, _stream: Stream) -> u32 {
        self.next_block[plane as usize]
    }
    fn stale_move_keeps_place(&self) -> bool {
        self.keeps_place
    }
}

fn config() -> Sections {
    let mut c = Sections::default();
    c.nand.channels = 1;
    c.nand.chips_per_channel = 1;
    c.nand.dies_per_chip = 2;
    c.nand.planes_per_die = 2;
    c.nand.blocks_per_plane = 8;
    c.nand.pages_per_block = 16;
    c
}

struct Case {
    geo: Geometry,
    tsu: Tsu,
    ftl: FakeFtl,
}

impl Case {
    fn new(c: &Sections) -> Case {
        let geo = Geometry::from_config(&c.nand);
        Case { tsu: Tsu::new(&c.nand, &c.tsu, &geo, Box::new(Fifo)), geo, ftl: FakeFtl::default() }
    }

    fn default() -> Case {
        Case::new(&config())
    }

    /// A user read of `lpn`, stored on `plane` at (block, page).
    fn user_read(&mut self, lpn: Lpn, plane: u32, block: u32, page: u32) -> u32 {
        self.ftl.map.push((lpn, self.geo.ppn(plane, block, page)));
        let tx =
            self.tsu.create(NewTx { flow: 0, ..NewTx::new(Owner::Request(0), FlashOp::Read, plane, lpn, u64::MAX) }, 0);
        self.tsu.enqueue(tx, 0);
        tx
    }

    fn user_write(&mut self, lpn: Lpn, plane: u32) -> u32 {
        let tx = self
            .tsu
            .create(NewTx { flow: 0, ..NewTx::new(Owner::Request(0), FlashOp::Program, plane, lpn, u64::MAX) }, 0);
        self.tsu.enqueue(tx, 0);
        tx
    }

    /// A GC move of `lpn` from (block, page) of `plane`, as a program or a copyback.
    fn gc_move(&mut self, op: FlashOp, lpn: Lpn, plane: u32, block: u32, page: u32) -> u32 {
        let src = self.geo.ppn(plane, block, page);
        self.ftl.map.push((lpn, src));
        let tx =
            self.tsu.create(NewTx { src_ppn: src, ..NewTx::new(Owner::Gc { plane }, op, plane, lpn, u64::MAX) }, 0);
        self.tsu.enqueue(tx, 0);
        tx
    }

    fn erase(&mut self, plane: u32, block: u32) -> u32 {
        let first_page = self.geo.ppn(plane, block, 0);
        let tx = self
            .tsu
            .create(NewTx { ppn: first_page, ..NewTx::new(Owner::Gc { plane }, FlashOp::Erase, plane, NONE, 0) }, 0);
        self.tsu.enqueue(tx, 0);
        tx
    }

    /// Build from `class` (led by `leader`): the operation and the transactions, in plane order.
    fn build(&mut self, class: QueueClass, leader: Option<u32>) -> Option<(FlashOp, Vec<u32>)> {
        let op = self.tsu.build(0, Pick { class, leader }, &self.ftl)?;
        Some((op, self.tsu.take_command()))
    }
}

/// Reads: A (d0p0, block 1, page 5) leads; B (d0p1, block 2, page 5) has A's offset and
/// joins die 0 as a multi-plane read (blocks may differ by default); C (d1p0, page 9) brings
/// die 1 in (interleaving); D (d1p1, page 7) is not at die 1's offset 9 and stays queued.
#[test]
fn reads_at_one_offset_share_a_die_and_another_die_interleaves() {
    let mut k = Case::default();
    let a = k.user_read(10, 0, 1, 5);
    let b = k.user_read(11, 1, 2, 5);
    let c = k.user_read(12, 2, 0, 9);
    let d = k.user_read(13, 3, 0, 7);
    assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, vec![a, b, c])));
    // Each read carries the page it reads.
    assert_eq!(k.tsu.tx(b).ppn, k.geo.ppn(1, 2, 5));
    assert_eq!(k.tsu.tx(c).ppn, k.geo.ppn(2, 0, 9));
    // D is alone now and leads the next command.
    assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, vec![d])));
    assert_eq!(k.build(QueueClass::UserRead, None), None);
}

/// `nand.multiplane_reads = false` (SPD's Die-Read removed): two user reads at one offset
/// (page 5) on the two planes of die 0 go as one two-plane read with it on, as two
/// one-plane reads with it off; programs on the same planes at one write point (4) still
/// pair either way. Map reads (GC reads alike: every read class) follow the same rule.
#[test]
fn multiplane_reads_off_reads_each_plane_alone_and_keeps_multi_plane_programs() {
    for reads in [true, false] {
        let mut c = config();
        c.nand.multiplane_reads = reads;
        let mut k = Case::new(&c);
        let a = k.user_read(10, 0, 1, 5);
        let b = k.user_read(11, 1, 1, 5);
        let expect = if reads { vec![a, b] } else { vec![a] };
        assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, expect)), "reads {reads}");
        if !reads {
            assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, vec![b])));
        }
        assert_eq!(k.build(QueueClass::UserRead, None), None, "reads {reads}: both served");
        k.ftl.user_offset = [Some(4), Some(4), None, None];
        let (p0, p1) = (k.user_write(20, 0), k.user_write(21, 1));
        assert_eq!(k.build(QueueClass::UserWrite, None), Some((FlashOp::Program, vec![p0, p1])), "reads {reads}");
    }
}

/// A part that needs the same block on every plane of a multi-plane command: B (block 2)
/// cannot join A (block 1) although their offsets match; C still interleaves.
#[test]
fn same_block_parts_keep_other_blocks_out_of_a_multi_plane_command() {
    let mut c = config();
    c.nand.multiplane_same_block = true;
    let mut k = Case::new(&c);
    let a = k.user_read(10, 0, 1, 5);
    let b = k.user_read(11, 1, 2, 5);
    let cc = k.user_read(12, 2, 0, 9);
    assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, vec![a, cc])));
    assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, vec![b])));
}

/// Programs on a same-block part: planes 0 and 1 both write at page 4, but plane 0's open
/// block is 2 and plane 1's is 5, so with `nand.multiplane_same_block` the two programs go
/// one at a time (different in-plane addresses, s.7); with both in block 2 they pair, and
/// without the rule the blocks do not matter.
#[test]
fn same_block_parts_pair_programs_only_in_one_block() {
    for (same_block, blocks, paired) in [(true, [2, 5], false), (true, [2, 2], true), (false, [2, 5], true)] {
        let mut c = config();
        c.nand.multiplane_same_block = same_block;
        let mut k = Case::new(&c);
        k.ftl.user_offset = [Some(4), Some(4), None, None];
        k.ftl.next_block = [blocks[0], blocks[1], NONE, NONE];
        let (p0, p1) = (k.user_write(20, 0), k.user_write(21, 1));
        let first = k.build(QueueClass::UserWrite, None).expect("a command").1;
        assert_eq!(first, if paired { vec![p0, p1] } else { vec![p0] }, "{same_block} {blocks:?}");
    }
}

/// Independent multi-plane addressing (Sprinkler §4): any pages on distinct planes of a die
/// join. Reads A (plane 0, block 1, page 5) and B (plane 1, block 2, page 3) go as one
/// two-plane read, C (die 1) interleaves; programs on planes 0 and 1 with write points 4 and
/// 7 go as one two-plane program. Under the same-page rule each pair splits.
#[test]
fn independent_addressing_joins_any_pages_of_a_die() {
    use crate::nand::config::MultiplaneAddressing;
    for (addressing, together) in [(MultiplaneAddressing::Independent, true), (MultiplaneAddressing::SamePage, false)] {
        let mut c = config();
        c.nand.multiplane_addressing = addressing;
        let mut k = Case::new(&c);
        let a = k.user_read(10, 0, 1, 5);
        let b = k.user_read(11, 1, 2, 3);
        let cc = k.user_read(12, 2, 0, 9);
        let first = k.build(QueueClass::UserRead, None).expect("a command").1;
        assert_eq!(first, if together { vec![a, b, cc] } else { vec![a, cc] }, "{addressing:?}");
        k.ftl.user_offset = [Some(4), Some(7), None, None];
        let (p0, p1) = (k.user_write(20, 0), k.user_write(21, 1));
        if !together {
            k.build(QueueClass::UserRead, None);
        }
        let programs = k.build(QueueClass::UserWrite, None).expect("a command").1;
        assert_eq!(programs, if together { vec![p0, p1] } else { vec![p0] }, "{addressing:?}");
    }
}

/// A read joining a die looks past its plane's head: plane 1's head (page 3) does not fit
/// A's offset 5, the read behind it (page 5) does, within `tsu.scan_limit` = 2 but not 1.
#[test]
fn a_joining_read_is_found_behind_its_planes_head_within_the_scan_limit() {
    for (limit, joins) in [(2, true), (1, false)] {
        let mut c = config();
        c.tsu.scan_limit = limit;
        let mut k = Case::new(&c);
        let a = k.user_read(10, 0, 1, 5);
        let head = k.user_read(11, 1, 1, 3);
        let behind = k.user_read(12, 1, 1, 5);
        let expect = if joins { vec![a, behind] } else { vec![a] };
        assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, expect)), "scan limit {limit}");
        let next = k.build(QueueClass::UserRead, None).expect("plane 1 still has work").1;
        assert_eq!(next[0], head, "the skipped head stays first in its plane");
    }
}

/// Programs go to each plane's write point: planes 0 and 1 at offset 4 make a multi-plane
/// program on die 0, plane 2 (offset 6) interleaves die 1, plane 3 (offset 7) cannot join it.
/// Without die interleaving only die 0 runs; without multi-plane, one plane per die.
#[test]
fn programs_join_at_equal_write_points_under_each_rule() {
    let cases = [((true, true), vec![0, 1, 2]), ((true, false), vec![0, 1]), ((false, true), vec![0, 2])];
    for ((multiplane, interleave), planes) in cases {
        let mut c = config();
        c.nand.multiplane = multiplane;
        c.nand.die_interleave = interleave;
        let mut k = Case::new(&c);
        k.ftl.user_offset = [Some(4), Some(4), Some(6), Some(7)];
        let txs: Vec<u32> = (0..4).map(|p| k.user_write(100 + p, p)).collect();
        let expect: Vec<u32> = planes.iter().map(|&p| txs[p]).collect();
        assert_eq!(
            k.build(QueueClass::UserWrite, None),
            Some((FlashOp::Program, expect)),
            "multiplane {multiplane}, interleave {interleave}"
        );
    }
}

/// A plane that cannot get a page (its free blocks are kept for GC) has its write skipped;
/// the next plane's write leads.
#[test]
fn a_plane_without_a_free_page_does_not_start_its_write() {
    let mut k = Case::default();
    k.ftl.user_offset = [None, Some(2), None, None];
    let blocked = k.user_write(1, 0);
    let next = k.user_write(2, 1);
    assert_eq!(k.build(QueueClass::UserWrite, None), Some((FlashOp::Program, vec![next])));
    assert_eq!(k.build(QueueClass::UserWrite, None), None, "only the blocked write is left");
    assert_eq!(k.tsu.queue_lengths(0)[QueueClass::UserWrite as usize], 1);
    let _ = blocked;
}

/// GC: a move whose page no longer holds its data (overwritten since the GC read) is
/// dropped at its plane's head and reported as a finished move of that plane; a copyback
/// and a program never share a command.
#[test]
fn stale_gc_moves_are_dropped_and_operations_never_mix() {
    let mut k = Case::default();
    k.ftl.gc_offset = [Some(0); 4];
    let stale = k.gc_move(FlashOp::Program, 20, 0, 3, 1);
    k.ftl.map.retain(|&(l, _)| l != 20); // overwritten: the old page holds nothing now
    let copyback = k.gc_move(FlashOp::Copyback, 21, 1, 3, 2);
    let program = k.gc_move(FlashOp::Program, 22, 2, 3, 4);
    assert_eq!(k.build(QueueClass::GcWrite, None), Some((FlashOp::Copyback, vec![copyback])));
    assert_eq!(k.tsu.pop_dropped_move(), Some(Owner::Gc { plane: 0 }));
    assert_eq!(k.tsu.pop_dropped_move(), None);
    assert_eq!(k.build(QueueClass::GcWrite, None), Some((FlashOp::Program, vec![program])));
    let _ = stale;
}

/// Die-GC: a stale move keeps its place as a dummy page (no data, owned by no move), so the
/// die's two moves still go as one two-plane program and its GC write points stay equal;
/// the move is reported over to its GC job all the same.
#[test]
fn under_die_gc_a_stale_move_stays_as_a_dummy_page() {
    let mut k = Case::default();
    (k.ftl.gc_offset, k.ftl.keeps_place) = ([Some(0); 4], true);
    let stale = k.gc_move(FlashOp::Program, 20, 0, 3, 1);
    k.ftl.map.retain(|&(l, _)| l != 20);
    let live = k.gc_move(FlashOp::Program, 21, 1, 3, 2);
    assert_eq!(k.build(QueueClass::GcWrite, None), Some((FlashOp::Program, vec![stale, live])));
    assert_eq!(k.tsu.pop_dropped_move(), Some(Owner::Gc { plane: 0 }));
    assert_eq!(k.tsu.pop_dropped_move(), None);
    let pad = k.tsu.tx(stale);
    assert_eq!((pad.lpn, pad.owner), (NONE, Owner::GcPad));
    assert_eq!(k.tsu.tx(live).owner, Owner::Gc { plane: 1 });
}

/// A user read whose data moved to another plane since it was queued leaves the queue to
/// follow its data; the rest build without it.
#[test]
fn a_read_whose_data_moved_leaves_to_follow_it() {
    let mut k = Case::default();
    let moved = k.user_read(30, 0, 0, 1);
    let stays = k.user_read(31, 2, 0, 1);
    k.ftl.map[0].1 = k.geo.ppn(3, 5, 2); // lpn 30 now lives on plane 3
    assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, vec![stays])));
    assert_eq!(k.tsu.pop_readdressed(), Some(moved));
}

/// Erases of one die: offset 0 of each block; blocks 3 and 4 make one multi-plane erase by
/// default, two erases on a same-block part.
#[test]
fn erases_of_a_die_combine_unless_the_part_needs_one_block() {
    for (same_block, first) in [(false, 2), (true, 1)] {
        let mut c = config();
        c.nand.multiplane_same_block = same_block;
        let mut k = Case::new(&c);
        let e0 = k.erase(0, 3);
        let e1 = k.erase(1, 4);
        let expect = if first == 2 { vec![e0, e1] } else { vec![e0] };
        assert_eq!(k.build(QueueClass::GcErase, None), Some((FlashOp::Erase, expect)), "same_block {same_block}");
    }
}

/// A policy's leader goes first from anywhere in its plane's queue: the read behind plane
/// 2's head (page 8) leads, so die 1 works at offset 8; plane 3's read at page 8 joins it;
/// plane 0's read (page 1, older than all) still interleaves on die 0.
#[test]
fn a_leader_sets_its_dies_offset_from_behind_its_planes_head() {
    let mut k = Case::default();
    let old = k.user_read(40, 0, 0, 1);
    let _head = k.user_read(41, 2, 0, 2);
    let leader = k.user_read(42, 2, 0, 8);
    let joins = k.user_read(43, 3, 1, 8);
    assert_eq!(k.build(QueueClass::UserRead, Some(leader)), Some((FlashOp::Read, vec![old, leader, joins])));
}

/// SPD's Die-Read (docs/techniques.md §3.4): two user reads queued on one die, on its two planes
/// at the same (block, page), go out as one multi-plane read; two at different page offsets
/// (same block) go as two single-plane reads, in age order. Die 1 has nothing queued, so no
/// interleaving hides the rule.
#[test]
fn die_read_merges_same_offset_reads_of_a_die_and_not_others() {
    let mut k = Case::default();
    let a = k.user_read(50, 0, 3, 5);
    let b = k.user_read(51, 1, 3, 5);
    assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, vec![a, b])));
    assert_eq!(k.build(QueueClass::UserRead, None), None);
    let c = k.user_read(52, 0, 3, 5);
    let d = k.user_read(53, 1, 3, 6);
    assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, vec![c])));
    assert_eq!(k.build(QueueClass::UserRead, None), Some((FlashOp::Read, vec![d])));
    assert_eq!(k.build(QueueClass::UserRead, None), None);
}

impl Case {
    /// Build from `class` and classify the command's dies into write cases (indexed by
    /// `WriteCase`), as the simulation does when a program command starts.
    fn build_cases(&mut self, class: QueueClass) -> (Vec<u32>, [u64; 4]) {
        let (_, txs) = self.build(class, None).expect("a command");
        let (mut counts, mut gc) = ([0; 4], [0; 4]);
        self.tsu.count_write_cases(0, &txs, &mut counts, &mut gc);
        assert_eq!(gc, [0; 4], "user commands count for the host");
        (txs, counts)
    }
}

/// Write cases (SPD slide 9, docs/techniques.md §3.1): counts are [single, mixed, unaligned,
/// aligned]. Planes 0 and 1 at offset 4 make die 0 one aligned two-plane program; plane 2
/// (offset 6) takes die 1 alone while plane 3's write (offset 7) waits: die 1 is unaligned.
/// Then plane 3's write goes alone with nothing else queued: single.
#[test]
fn write_cases_aligned_die_and_unaligned_die_in_one_command_then_single() {
    let mut k = Case::default();
    k.ftl.user_offset = [Some(4), Some(4), Some(6), Some(7)];
    let w: Vec<u32> = (0..4).map(|p| k.user_write(100 + p, p)).collect();
    assert_eq!(k.build_cases(QueueClass::UserWrite), (vec![w[0], w[1], w[2]], [0, 0, 1, 1]));
    assert_eq!(k.build_cases(QueueClass::UserWrite), (vec![w[3]], [1, 0, 0, 0]));
}

/// A program on plane 0 while plane 1 (same die) holds only a read: mixed types; holds an
/// erase: mixed; holds a GC program: unaligned (a program of any kind counts). Work queued on
/// die 1 never changes die 0's case: with only that, single.
#[test]
fn write_cases_follow_what_the_dies_other_plane_holds() {
    let mut k = Case::default();
    k.ftl.user_offset = [Some(0); 4];
    k.ftl.gc_offset = [Some(9); 4];
    k.user_write(1, 0);
    k.user_read(2, 2, 0, 0); // die 1
    assert_eq!(k.build_cases(QueueClass::UserWrite).1, [1, 0, 0, 0], "die 1's read does not count");
    k.user_write(3, 0);
    k.user_read(4, 1, 0, 0);
    assert_eq!(k.build_cases(QueueClass::UserWrite).1, [0, 1, 0, 0], "a read on plane 1: mixed");
    k.build(QueueClass::UserRead, None).expect("plane 1's read");
    k.user_write(5, 0);
    k.erase(1, 2);
    assert_eq!(k.build_cases(QueueClass::UserWrite).1, [0, 1, 0, 0], "an erase on plane 1: mixed");
    k.build(QueueClass::GcErase, None).expect("plane 1's erase");
    k.user_write(6, 0);
    k.gc_move(FlashOp::Program, 7, 1, 3, 1);
    assert_eq!(k.build_cases(QueueClass::UserWrite).1, [0, 0, 1, 0], "a GC program on plane 1: unaligned");
}

/// `tsu.user_joins_gc`: a GC program G (d0p0, GC write point 3) leads. User program U1
/// (d0p1, user write point 3) has G's offset and joins die 0; U2 (d1p0, user offset 7)
/// brings die 1 in; U3 (d1p1, user offset 8) is not at die 1's offset 7. A user read R
/// (d0p1) is another operation and stays. Without the key the command is G alone.
#[test]
fn user_programs_ride_in_a_gc_program_by_the_multi_plane_rules() {
    for joins in [true, false] {
        let mut c = config();
        c.tsu.user_joins_gc = joins;
        let mut t = Case::new(&c);
        t.ftl.gc_offset = [Some(3), None, None, None];
        t.ftl.user_offset = [None, Some(3), Some(7), Some(8)];
        let g = t.gc_move(FlashOp::Program, 10, 0, 1, 0);
        let r = t.user_read(20, 1, 2, 3);
        let u1 = t.user_write(11, 1);
        let u2 = t.user_write(12, 2);
        let u3 = t.user_write(13, 3);
        let (op, txs) = t.build(QueueClass::GcWrite, None).expect("the GC move starts");
        assert_eq!(op, FlashOp::Program);
        if joins {
            assert_eq!(txs, vec![g, u1, u2]);
        } else {
            assert_eq!(txs, vec![g]);
        }
        let _ = (r, u3);
    }
}

/// A GC read (d0p0, block 1, page 4) leads; a user read of d0p1 at page 4 joins die 0 as a
/// multi-plane read, one at page 6 of d1p0 brings die 1 in.
#[test]
fn user_reads_ride_in_a_gc_read() {
    let mut c = config();
    c.tsu.user_joins_gc = true;
    let mut t = Case::new(&c);
    let g = t.gc_move(FlashOp::Read, 10, 0, 1, 4);
    let r1 = t.user_read(20, 1, 5, 4);
    let r2 = t.user_read(21, 2, 3, 6);
    let (op, txs) = t.build(QueueClass::GcRead, None).expect("the GC read starts");
    assert_eq!((op, txs), (FlashOp::Read, vec![g, r1, r2]));
}
