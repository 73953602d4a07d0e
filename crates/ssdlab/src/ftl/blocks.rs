//! Block manager: page state, valid counts, erase counts, free blocks and write frontiers.
//!
//! Per physical page the only state is its reverse-map entry (the logical page it holds, or
//! nothing once invalid; an entry is lpn + 1, 0 for none): a [`ChunkedTable`] over all pages,
//! allocated a chunk at a time where blocks are written (address space included, so a large
//! drive that a run barely writes costs what is written), flat once preconditioning is about
//! to fill it. Per block: valid count, write pointer, erase count, state and the
//! sequence number of its opening (age for FIFO and cost-benefit). Per plane: a cursor over
//! never-used blocks, a queue of erased blocks and one write frontier per stream.

use std::collections::VecDeque;

use crate::error::Result;
use crate::ftl::BlockAlignment;
use crate::mem::{try_vec, try_zeroed, ChunkedTable};
use crate::nand::{Geometry, Lpn, Ppn, NONE};
pub use crate::tsu::Stream;

/// A page holding live data: where it is and which logical page it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LivePage {
    pub ppn: Ppn,
    pub lpn: Lpn,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    Free = 0,
    Open = 1,
    Closed = 2,
    /// Chosen by GC; its valid pages are being moved.
    Victim = 3,
}

pub struct Blocks {
    pub geo: Geometry,
    pub valid: Vec<u16>,
    pub write_ptr: Vec<u16>,
    pub erase_count: Vec<u32>,
    pub state: Vec<BlockState>,
    /// Opening order (a global counter), for FIFO and cost-benefit ages.
    pub opened_seq: Vec<u64>,
    /// Reverse map: lpn + 1 of each physical page, 0 if it holds no live data.
    p2l: ChunkedTable<u32>,
    /// Blocks ever opened (the reverse map's memory in use is proportional to these).
    blocks_touched: u64,
    touched: Vec<bool>,
    fresh_cursor: Vec<u32>,
    erased: Vec<VecDeque<u32>>,
    /// Free blocks per plane (never-used plus erased), kept so the hot path reads one small
    /// array rather than a cursor and a queue per plane.
    free: Vec<u32>,
    frontier: Vec<[u32; 3]>,
    seq: u64,
    pub dynamic_wear_leveling: bool,
    /// Free blocks summed over all planes.
    pub free_total: u64,
    /// `ftl.block_alignment`: user-data blocks opened as aligned sets per die.
    alignment: BlockAlignment,
    /// GC destination blocks opened as aligned sets per die ([`Blocks::with_gc_alignment`]).
    gc_aligned: bool,
    /// User-data blocks a plane of an aligned die could not open at its die's index.
    pub unaligned_opens: u64,
    /// The spare area's logical address of each invalid page (lpn + 1; 0: none), kept only
    /// when GC reads every page of its victims ([`Blocks::keep_spare_area`]).
    spare: Option<ChunkedTable<u32>>,
    /// Logical pages, for the stand-in address of a page preconditioning left invalid.
    logical_pages: u32,
}

/// What [`Blocks`] allocates, named in an out-of-memory error.
const BLOCK_STATE: &str = "the block state (valid counts, write pointers, erase counts, ages)";
const REVERSE_MAP: &str = "the reverse map (a logical page per physical page)";

impl Blocks {
    pub fn new(geo: &Geometry, dynamic_wear_leveling: bool) -> Result<Blocks> {
        let nb = geo.blocks() as usize;
        let np = geo.planes() as usize;
        Ok(Blocks {
            geo: geo.clone(),
            valid: try_zeroed(nb, BLOCK_STATE)?,
            write_ptr: try_zeroed(nb, BLOCK_STATE)?,
            erase_count: try_zeroed(nb, BLOCK_STATE)?,
            state: try_vec(nb, BlockState::Free, BLOCK_STATE)?,
            opened_seq: try_zeroed(nb, BLOCK_STATE)?,
            p2l: ChunkedTable::try_new(geo.pages() as usize, REVERSE_MAP)?,
            blocks_touched: 0,
            touched: try_zeroed(nb, BLOCK_STATE)?,
            fresh_cursor: vec![0; np],
            erased: (0..np).map(|_| VecDeque::new()).collect(),
            free: vec![geo.blocks_per_plane; np],
            frontier: vec![[NONE; 3]; np],
            seq: 0,
            dynamic_wear_leveling,
            free_total: geo.blocks() as u64,
            alignment: BlockAlignment::None,
            gc_aligned: false,
            unaligned_opens: 0,
            spare: None,
            logical_pages: 0,
        })
    }

    /// Keep each invalid page's logical address, as its spare area does on flash, for a GC
    /// that reads every page of a victim (`ftl.gc.read_victim = "all_pages"`).
    pub fn keep_spare_area(mut self, logical_pages: u32) -> Result<Blocks> {
        self.spare = Some(ChunkedTable::try_new(self.p2l.len(), "the spare areas (a logical page per physical page)")?);
        self.logical_pages = logical_pages;
        Ok(self)
    }

    /// Bytes of the block manager's state for `geo`, resident and mapped: the per-block
    /// arrays (the states written whole; the others allocated zeroed, so resident only in the
    /// 4 KiB pages holding the `opened` blocks, every block once preconditioning (`flat`)
    /// fills them, though mapped whole), per-plane books, and the reverse map, flat or with a chunk per 1024
    /// pages of the opened blocks, a plane's blocks opening in order from its first; the spare
    /// areas alike when `spare`.
    pub fn estimate_bytes(geo: &Geometry, flat: bool, opened: u64, spare: bool) -> (u64, u64) {
        let nb = geo.blocks() as u64;
        // The zeroed per-block arrays' elements: `valid`, `write_ptr`, `erase_count`,
        // `opened_seq`, `touched`.
        let zeroed = [size_of::<u16>(), size_of::<u16>(), size_of::<u32>(), size_of::<u64>(), size_of::<bool>()]
            .map(|b| b as u64);
        let states = nb * std::mem::size_of::<BlockState>() as u64;
        let per_plane = (std::mem::size_of::<u32>() * 2 + std::mem::size_of::<VecDeque<u32>>() + 12) as u64;
        let planes = geo.planes() as u64;
        let opened = if flat { nb } else { opened.min(nb) };
        let opened_per_plane = opened.div_ceil(planes).min(geo.blocks_per_plane as u64);
        let ppb = geo.pages_per_block as u64;
        let plane_pages = geo.blocks_per_plane as u64 * ppb;
        let chunks =
            crate::mem::chunks_spanned((0..planes.min(opened)).map(|p| (p * plane_pages, opened_per_plane * ppb)));
        let table = ChunkedTable::<u32>::estimate_bytes(geo.pages() as u64, flat, chunks) * if spare { 2 } else { 1 };
        let fixed = states + planes * per_plane + table;
        let written = |elem: u64| {
            const PAGE: u64 = 4096;
            // A plane's opened blocks neighbour each other from its first; planes lie apart,
            // so each plane with a block open makes at least a page of the array resident.
            let per_plane = (opened_per_plane * elem).div_ceil(PAGE) * PAGE;
            (planes.min(opened) * per_plane).min(nb * elem)
        };
        let resident: u64 = zeroed.iter().map(|&e| written(e)).sum();
        (fixed + resident, fixed + zeroed.iter().map(|&e| nb * e).sum::<u64>())
    }

    /// The logical address in `ppn`'s spare area: the page it holds if valid, the one it held
    /// if invalidated, NONE for a dummy page or when spare areas are not kept.
    pub fn spare_lpn(&self, ppn: Ppn) -> Lpn {
        match self.p2l.get(ppn as usize) {
            0 => self.spare.as_ref().map_or(NONE, |s| s.get(ppn as usize).wrapping_sub(1)),
            e => e - 1,
        }
    }

    /// Every written page of `block` into `out`, each with no logical page named (NONE): GC
    /// learns it from the page's spare area when the read is done, so no page is skipped as
    /// stale before it is read.
    pub fn written_pages(&self, block: u32, out: &mut Vec<LivePage>) {
        out.clear();
        let base = block * self.geo.pages_per_block;
        let written = self.write_ptr[block as usize] as u32;
        out.extend((base..base + written).map(|ppn| LivePage { ppn, lpn: NONE }));
    }

    /// Open GC destination blocks as aligned sets per die whatever `ftl.block_alignment`
    /// says (ParaGC's aligned write points, `ftl.gc.para_align`).
    pub fn with_gc_alignment(mut self, on: bool) -> Blocks {
        self.gc_aligned = on;
        self
    }

    /// Where `plane`'s next GC page goes: its open GC block's in-plane index and the page
    /// offset in it, or None when it has no open GC block with room (its next GC page opens
    /// one).
    pub fn gc_write_point(&self, plane: u32) -> Option<(u32, u32)> {
        let b = self.frontier[plane as usize][Stream::Gc as usize];
        let at = if b == NONE { return None } else { self.write_ptr[b as usize] as u32 };
        (at < self.geo.pages_per_block).then_some((b % self.geo.blocks_per_plane, at))
    }

    /// Whether blocks of `stream` open as aligned sets.
    fn aligns(&self, stream: Stream) -> bool {
        match stream {
            Stream::Map => false,
            Stream::Gc if self.gc_aligned => true,
            _ => self.alignment != BlockAlignment::None,
        }
    }

    /// Whether `plane` can open its block `index` now (see [`Blocks::can_take`]).
    pub fn can_open(&self, plane: u32, index: u32) -> bool {
        self.can_take(plane, index)
    }

    /// Open user-data blocks as `alignment` says.
    pub fn with_alignment(mut self, alignment: BlockAlignment) -> Blocks {
        self.alignment = alignment;
        self
    }

    #[inline]
    pub fn free_blocks(&self, plane: u32) -> u32 {
        self.free[plane as usize]
    }

    /// The logical page a physical page holds, or NONE if it is invalid or unwritten.
    #[inline]
    pub fn lpn_at(&self, ppn: Ppn) -> Lpn {
        self.p2l.get(ppn as usize).wrapping_sub(1)
    }

    /// Start loading what invalidating `ppn` touches: its reverse-map entry and its block's
    /// valid count (see [`crate::mem::prefetch`]).
    #[inline]
    pub fn prefetch_page(&self, ppn: Ppn) {
        if (ppn as usize) < self.p2l.len() {
            self.p2l.prefetch(ppn as usize);
            crate::mem::prefetch(&self.valid[self.geo.block_of(ppn) as usize]);
        }
    }

    /// Page offset the next page of `stream` in `plane` would get, if one can be had.
    pub fn next_offset(&self, plane: u32, stream: Stream, user_reserve: u32) -> Option<u32> {
        let b = self.frontier[plane as usize][stream as usize];
        if b != NONE && (self.write_ptr[b as usize] as u32) < self.geo.pages_per_block {
            return Some(self.write_ptr[b as usize] as u32);
        }
        let reserve = if stream == Stream::Gc { 0 } else { user_reserve };
        (self.free_blocks(plane) > reserve).then_some(0)
    }

    /// User pages `plane` can still take before user writes wait: the rest of its open user
    /// block and every page of its free blocks above `user_reserve`.
    #[inline]
    pub fn user_room(&self, plane: u32, user_reserve: u32) -> u32 {
        let b = self.frontier[plane as usize][Stream::User as usize];
        let open = if b == NONE { 0 } else { self.geo.pages_per_block - self.write_ptr[b as usize] as u32 };
        open + self.free_blocks(plane).saturating_sub(user_reserve) * self.geo.pages_per_block
    }

    /// Take the next page of `stream` in `plane`, opening a block if needed. Returns the page
    /// and whether a new block was opened (the caller checks GC thresholds then). `None` when
    /// a user write would dip into the blocks kept for GC.
    pub fn allocate(&mut self, plane: u32, stream: Stream, user_reserve: u32) -> Option<(Ppn, bool)> {
        let p = plane as usize;
        let mut b = self.frontier[p][stream as usize];
        let mut opened = false;
        if b == NONE || self.write_ptr[b as usize] as u32 == self.geo.pages_per_block {
            if b != NONE {
                self.state[b as usize] = BlockState::Closed;
            }
            let reserve = if stream == Stream::Gc { 0 } else { user_reserve };
            if self.free_blocks(plane) <= reserve {
                self.frontier[p][stream as usize] = NONE;
                return None;
            }
            b = match self.aligned_index(plane, stream) {
                Some(index) => self.take_block_at(plane, index),
                None => self.take_free_block(plane),
            };
            self.frontier[p][stream as usize] = b;
            opened = true;
        }
        let page = self.write_ptr[b as usize] as u32;
        self.write_ptr[b as usize] += 1;
        if self.write_ptr[b as usize] as u32 == self.geo.pages_per_block {
            self.state[b as usize] = BlockState::Closed;
            self.frontier[p][stream as usize] = NONE;
        }
        Some((b * self.geo.pages_per_block + page, opened))
    }

    /// With mapping units smaller than the page: the program of `stream` on `plane` that
    /// just took its slots ends its flash page (a page is programmed once), so the write
    /// point moves to the next page and the slots left are lost until the block is erased.
    /// Returns how many slots were skipped.
    pub fn close_flash_page(&mut self, plane: u32, stream: Stream) -> u32 {
        let k = self.geo.units_per_page;
        let p = plane as usize;
        let b = self.frontier[p][stream as usize];
        if b == NONE {
            return 0; // the program filled its block's last page
        }
        let wp = self.write_ptr[b as usize] as u32;
        let skip = (k - wp % k) % k;
        if skip == 0 {
            return 0;
        }
        self.write_ptr[b as usize] += skip as u16;
        if wp + skip == self.geo.pages_per_block {
            self.state[b as usize] = BlockState::Closed;
            self.frontier[p][stream as usize] = NONE;
        }
        skip
    }

    fn take_free_block(&mut self, plane: u32) -> u32 {
        let p = plane as usize;
        let b = self.free_block_choice(plane).expect("take_free_block called with no free block");
        self.free_total -= 1;
        self.free[p] -= 1;
        if self.fresh_cursor[p] < self.geo.blocks_per_plane {
            self.fresh_cursor[p] += 1;
        } else {
            let at = self.erased[p].iter().position(|&e| e == b).expect("the chosen block is free");
            self.erased[p].remove(at);
        }
        self.open_block(b);
        b
    }

    /// The free block of `plane` an unaligned open takes: its next never-used block (these
    /// have the lowest erase count of all, so they come first either way), else with dynamic
    /// wear levelling the least-erased erased block (first one on ties), else the erased
    /// block freed longest ago.
    fn free_block_choice(&self, plane: u32) -> Option<u32> {
        let p = plane as usize;
        let cursor = self.fresh_cursor[p];
        if cursor < self.geo.blocks_per_plane {
            return Some(plane * self.geo.blocks_per_plane + cursor);
        }
        let erased = &self.erased[p];
        if self.dynamic_wear_leveling {
            erased.iter().enumerate().min_by_key(|&(i, &b)| (self.erase_count[b as usize], i)).map(|(_, &b)| b)
        } else {
            erased.front().copied()
        }
    }

    /// The in-plane index of the block the next page of `stream` on `plane` goes to: its
    /// open block while it has room, else the block [`Blocks::allocate`] would open (NONE if
    /// none can be had). The builder needs it when multi-plane commands must share a block
    /// (`nand.multiplane_same_block`).
    pub fn next_block(&self, plane: u32, stream: Stream, user_reserve: u32) -> u32 {
        let bpp = self.geo.blocks_per_plane;
        let b = self.frontier[plane as usize][stream as usize];
        if b != NONE && (self.write_ptr[b as usize] as u32) < self.geo.pages_per_block {
            return b % bpp;
        }
        let reserve = if stream == Stream::Gc { 0 } else { user_reserve };
        if self.free_blocks(plane) <= reserve {
            return NONE;
        }
        match self.aligned_choice(plane, stream) {
            Some(index) => index,
            None => self.free_block_choice(plane).map_or(NONE, |b| b % bpp),
        }
    }

    /// With `block_alignment = "die"`, the in-plane index a block of `stream` (user data or
    /// GC) of `plane` should open at: the one another plane of its die has open for the
    /// stream, else one free on
    /// every plane of the die (this plane's order: never-used first, then erased). None:
    /// not aligned, or no aligned set is free (counted).
    fn aligned_index(&mut self, plane: u32, stream: Stream) -> Option<u32> {
        if !self.aligns(stream) {
            return None;
        }
        let index = self.aligned_choice(plane, stream);
        if index.is_none() {
            self.unaligned_opens += 1;
        }
        index
    }

    /// [`Blocks::aligned_index`] without counting.
    fn aligned_choice(&self, plane: u32, stream: Stream) -> Option<u32> {
        if !self.aligns(stream) {
            return None;
        }
        let (n, bpp) = (self.geo.planes_per_die, self.geo.blocks_per_plane);
        let first = plane / n * n;
        let sibling = (first..first + n)
            .filter(|&q| q != plane)
            .map(|q| self.frontier[q as usize][stream as usize])
            .find(|&b| b != NONE)
            .map(|b| b % bpp);
        let p = plane as usize;
        let fresh = self.fresh_cursor[p]..(self.fresh_cursor[p] + 1).min(bpp);
        let erased = self.erased[p].iter().map(|&b| b % bpp);
        let free_here = fresh.chain(erased);
        aligned_block(&self.geo, plane, sibling, free_here, |q, i| self.can_take(q, i))
    }

    /// Whether `plane` can open its block `index` now: an erased block, or its next
    /// never-used one (never-used blocks are taken in order).
    fn can_take(&self, plane: u32, index: u32) -> bool {
        let free = self.state[(plane * self.geo.blocks_per_plane + index) as usize] == BlockState::Free;
        free && index <= self.fresh_cursor[plane as usize]
    }

    /// Take free block `index` of `plane`: the next never-used one moves the cursor past it
    /// (an aligned die's planes move their cursors together); an erased one leaves its queue.
    fn take_block_at(&mut self, plane: u32, index: u32) -> u32 {
        let p = plane as usize;
        let b = plane * self.geo.blocks_per_plane + index;
        if index >= self.fresh_cursor[p] {
            assert_eq!(index, self.fresh_cursor[p], "plane {plane}: never-used blocks are taken in order");
            self.fresh_cursor[p] += 1;
        } else {
            let at = self.erased[p].iter().position(|&e| e == b).expect("an aligned block is free");
            self.erased[p].remove(at);
        }
        self.free_total -= 1;
        self.free[p] -= 1;
        self.open_block(b);
        b
    }

    fn open_block(&mut self, b: u32) {
        let bu = b as usize;
        assert_eq!(self.state[bu], BlockState::Free, "opening block {b} that is not free");
        assert_eq!(self.valid[bu], 0);
        self.state[bu] = BlockState::Open;
        self.write_ptr[bu] = 0;
        self.seq += 1;
        self.opened_seq[bu] = self.seq;
        if !self.touched[bu] {
            self.touched[bu] = true;
            self.blocks_touched += 1;
        }
    }

    /// Record that `ppn` now holds `lpn`.
    #[inline]
    pub fn program(&mut self, ppn: Ppn, lpn: Lpn) {
        let b = self.geo.block_of(ppn) as usize;
        debug_assert!(self.touched[b], "program into block {b} that was never opened");
        let e = self.p2l.get_mut(ppn as usize);
        assert_eq!(*e, 0, "page {ppn} programmed twice");
        *e = lpn + 1;
        self.valid[b] += 1;
    }

    /// The page `ppn` no longer holds live data.
    #[inline]
    pub fn invalidate(&mut self, ppn: Ppn) {
        let e = self.p2l.get_mut(ppn as usize);
        assert!(*e != 0, "invalidating page {ppn} that holds no data");
        let held = std::mem::replace(e, 0);
        if let Some(s) = &mut self.spare {
            s.set(ppn as usize, held);
        }
        self.valid[self.geo.block_of(ppn) as usize] -= 1;
    }

    /// Erase a block whose pages have all been moved or invalidated.
    pub fn erase(&mut self, block: u32) {
        let b = block as usize;
        assert_eq!(self.valid[b], 0, "erasing block {block} with {} valid pages", self.valid[b]);
        self.state[b] = BlockState::Free;
        self.write_ptr[b] = 0;
        if let Some(s) = &mut self.spare {
            let base = (block * self.geo.pages_per_block) as usize;
            s.zero(base..base + self.geo.pages_per_block as usize);
        }
        self.erase_count[b] += 1;
        let plane = self.geo.plane_of_block(block);
        self.erased[plane as usize].push_back(block);
        self.free[plane as usize] += 1;
        self.free_total += 1;
    }

    /// Whether a valid page of `block` holds a logical page for which `f` is true.
    pub fn any_valid(&self, block: u32, f: impl Fn(Lpn) -> bool) -> bool {
        let base = (block * self.geo.pages_per_block) as usize;
        (base..base + self.geo.pages_per_block as usize).map(|ppn| self.p2l.get(ppn)).any(|e| e != 0 && f(e - 1))
    }

    /// The valid pages of `block` into `out`.
    pub fn valid_pages(&self, block: u32, out: &mut Vec<LivePage>) {
        out.clear();
        let base = block * self.geo.pages_per_block;
        for ppn in base..base + self.geo.pages_per_block {
            let e = self.p2l.get(ppn as usize);
            if e != 0 {
                out.push(LivePage { ppn, lpn: e - 1 });
            }
        }
    }

    /// Bytes of state in use: per-block arrays and the reverse map of blocks ever written.
    pub fn state_bytes(&self) -> u64 {
        let per_block = 2 + 2 + 4 + 1 + 8 + 1;
        self.valid.len() as u64 * per_block + self.blocks_touched * self.geo.pages_per_block as u64 * 4
    }

    /// The reverse map is about to be filled (preconditioning): one flat table, backed by
    /// huge pages (and the spare areas alike).
    pub fn make_flat(&mut self) -> Result<()> {
        self.p2l.make_flat(REVERSE_MAP)?;
        if let Some(s) = &mut self.spare {
            s.make_flat("the spare areas (a logical page per physical page)")?;
        }
        Ok(())
    }

    /// Fill a block directly (preconditioning): `lpns[i]` at page i, NONE for an invalid page.
    pub fn fill_block(&mut self, block: u32, lpns: &[Lpn], seq: u64) {
        let plane = self.geo.plane_of_block(block);
        let p = plane as usize;
        let in_plane = self.geo.block_in_plane(block);
        assert_eq!(in_plane, self.fresh_cursor[p], "fill_block must take fresh blocks in order");
        self.fresh_cursor[p] += 1;
        self.free[p] -= 1;
        self.free_total -= 1;
        self.open_block(block);
        let b = block as usize;
        let base = (block * self.geo.pages_per_block) as usize;
        let mut valid = 0;
        for (i, &l) in lpns.iter().enumerate() {
            self.p2l.set(base + i, l.wrapping_add(1));
            valid += (l != NONE) as u16;
            if let (NONE, Some(s)) = (l, &mut self.spare) {
                s.set(base + i, stand_in_lpn((base + i) as u64, self.logical_pages) + 1);
            }
        }
        self.valid[b] = valid;
        self.write_ptr[b] = lpns.len() as u16;
        self.state[b] =
            if lpns.len() as u32 == self.geo.pages_per_block { BlockState::Closed } else { BlockState::Open };
        self.opened_seq[b] = seq;
        self.seq = self.seq.max(seq);
    }

    /// Check the block manager's own books: valid counts equal live reverse-map entries,
    /// free blocks are empty. Panics naming the first broken invariant.
    pub fn check(&self) {
        let mut pages = Vec::new();
        for b in 0..self.valid.len() as u32 {
            self.valid_pages(b, &mut pages);
            assert_eq!(
                pages.len(),
                self.valid[b as usize] as usize,
                "block {b}: valid count disagrees with reverse map"
            );
            if self.state[b as usize] == BlockState::Free {
                assert_eq!(self.valid[b as usize], 0, "free block {b} holds valid pages");
            }
        }
        for p in 0..self.geo.planes() as usize {
            assert_eq!(
                self.free[p],
                self.geo.blocks_per_plane - self.fresh_cursor[p] + self.erased[p].len() as u32,
                "plane {p}: free-block count disagrees with the free lists"
            );
            for &b in &self.erased[p] {
                assert_eq!(self.state[b as usize], BlockState::Free, "block {b} on the free list is not free");
            }
        }
    }
}

/// The block a plane of an aligned die opens next: the in-plane index `sibling` already
/// opened on another plane of the die, if it is free here; else the first of `free_here`
/// (this plane's free indices, in the order the plane would take them) that is free on every
/// plane of the die (`free_on(plane, index)`); else None (no aligned set is free: the plane
/// takes its own next block and the die's write points part until a later set).
pub fn aligned_block(
    geo: &Geometry,
    plane: u32,
    sibling: Option<u32>,
    free_here: impl Iterator<Item = u32>,
    free_on: impl Fn(u32, u32) -> bool,
) -> Option<u32> {
    let n = geo.planes_per_die;
    let first = plane / n * n;
    if let Some(b) = sibling.filter(|&b| free_on(plane, b)) {
        return Some(b);
    }
    let mut free_here = free_here;
    free_here.find(|&b| (first..first + n).all(|p| p == plane || free_on(p, b)))
}

/// The logical page a page preconditioning left invalid is taken to have held [I]: which one
/// it was is not simulated, so a fixed scatter of the page's address over the logical pages
/// (a multiplicative hash: any page equally likely, the same in every run).
fn stand_in_lpn(ppn: u64, logical_pages: u32) -> u32 {
    ((ppn.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % logical_pages.max(1) as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept spare area names what each page of a block held: a valid page its logical page,
    /// an invalidated one the page it held, a page preconditioning left invalid a stand-in
    /// below the logical page count; after the erase, nothing. Without it (the default) an
    /// invalid page names nothing. `written_pages` lists every written page with no name.
    #[test]
    fn the_spare_area_names_what_a_page_held_until_its_erase() {
        let nand = crate::nand::config::NandConfig { pages_per_block: 4, ..Default::default() };
        let geo = Geometry::from_config(&nand);
        let mut b = Blocks::new(&geo, false).unwrap().keep_spare_area(100).unwrap();
        b.fill_block(0, &[5, NONE, 7, 8], 1);
        b.invalidate(2);
        assert_eq!((b.spare_lpn(0), b.spare_lpn(2), b.spare_lpn(3)), (5, 7, 8));
        assert!(b.spare_lpn(1) < 100, "a stand-in logical page");
        let mut pages = Vec::new();
        b.written_pages(0, &mut pages);
        assert_eq!(pages, (0..4).map(|ppn| LivePage { ppn, lpn: NONE }).collect::<Vec<_>>());
        for ppn in [0, 3] {
            b.invalidate(ppn);
        }
        b.erase(0);
        assert!((0..4).all(|ppn| b.spare_lpn(ppn) == NONE));
        let mut plain = Blocks::new(&geo, false).unwrap();
        plain.fill_block(0, &[5, NONE, 7, 8], 1);
        plain.invalidate(2);
        assert_eq!((plain.spare_lpn(0), plain.spare_lpn(1), plain.spare_lpn(2)), (5, NONE, NONE));
    }

    /// 2 planes × 8 blocks × 16 pages: 16 blocks, 256 pages (one chunk of the reverse map's
    /// 1024). Per block 1 byte of state written whole and 17 zeroed (valid 2, write pointer
    /// 2, erase count 4, age 8, touched 1); per plane 52 (two counters of 4, a queue of 32,
    /// three frontiers of 4); the chunk list 16. Three blocks opened fill both planes' first
    /// blocks, all in chunk 0: 4,096 bytes. Each zeroed array is smaller than a 4 KiB page,
    /// and both planes have a block open, so all of it counts as resident: 16 + 104 + (16 +
    /// 4096) + 16 × 17 = 4,504, as mapped; flat (preconditioned) 256 × 4 for the table and
    /// every block resident: 16 + 104 + 1,024 + 272 = 1,416; with spare areas the table twice.
    ///
    /// 2 planes × 4,096 blocks × 16 pages: 8,192 blocks. Three blocks opened are plane 0's
    /// first two and plane 1's first, so each zeroed array has one 4 KiB page resident per
    /// plane: 5 × 2 × 4,096 = 40,960, against 8,192 × 17 = 139,264 mapped. The reverse map:
    /// 128 chunks listed (2,048) and the two holding each plane's first pages (pages 0 and
    /// 65,536: chunks 0 and 64), 8,192. Fixed: 8,192 + 104 + 10,240 = 18,536.
    #[test]
    fn the_estimate_is_the_sizes_a_small_drive_allocates() {
        let nand = crate::nand::config::small_estimate_nand(1);
        let geo = Geometry::from_config(&nand);
        assert_eq!(Blocks::estimate_bytes(&geo, false, 3, false), (4504, 4504));
        let wide = Geometry::from_config(&crate::nand::config::NandConfig { blocks_per_plane: 4096, ..nand.clone() });
        assert_eq!(Blocks::estimate_bytes(&wide, false, 3, false), (18_536 + 40_960, 18_536 + 139_264));
        assert_eq!(Blocks::estimate_bytes(&geo, true, 0, false), (1416, 1416));
        assert_eq!(Blocks::estimate_bytes(&geo, true, 0, true), (1416 + 1024, 1416 + 1024));
        // The reverse map as built: its chunk list, then the chunk the first write allocates.
        let mut b = Blocks::new(&geo, false).unwrap();
        assert_eq!(b.p2l.bytes(), 16);
        let block = b.allocate(0, Stream::User, 0).map(|(ppn, _)| ppn).unwrap();
        b.program(block, 5);
        assert_eq!(b.p2l.bytes(), 16 + 4096);
    }
}
