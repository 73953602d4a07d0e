//! The transaction builder: from the queue a policy picked, the widest command a free chip
//! can run now.
//!
//! The rules (ONFI multi-plane and die interleaving, docs/techniques.md §4):
//! - one command, one operation (read, program, erase or copyback) and one queue class;
//! - at most one transaction per plane;
//! - planes of one die join only at the same page offset (`nand.multiplane`; reads only
//!   with `nand.multiplane_reads` too), and with
//!   `nand.multiplane_same_block` also in the same block; with
//!   `nand.multiplane_addressing = "independent"` at any page of any block; an erase works at
//!   offset 0 of its block, a program at its plane's write point, a read wherever its page is;
//! - another die of the chip may join with any offset (`nand.die_interleave`).
//!
//! The build runs in stages: [`Builder::plane_heads`] puts each plane's oldest startable
//! transaction in age order (settling stale work at the heads on the way); the policy's
//! leader, if any, goes first ([`Builder::place_leader`]); then each plane in that order adds
//! the first of its transactions that fits the dies already in the command
//! ([`Builder::join`]). The builder reads the FTL through [`FtlView`], so it can be tested
//! against a fake.
//!
//! The stages are `#[inline(always)]`, as are the loop's calls down to the PHY's start of a
//! command (`Tsu::build`, `launch`, `Phy::start`): left to the compiler, some stayed calls
//! that pass their state through memory, and a read cost 4 % more instructions than when the
//! builder was one function (callgrind, 40k reads).

#[cfg(test)]
mod tests;

use crate::nand::{FlashOp, Geometry, Lpn, Ppn, NONE};
use crate::slab::Slab;
use crate::tsu::Stream;
use crate::tsu::{ChipQueues, Owner, Place, QueueClass, Transaction, TsuPolicy};

/// What the builder needs to know of the FTL: where data lives now and where a program
/// would go.
pub trait FtlView {
    /// The logical page physical page `ppn` holds now, or NONE if it holds none.
    fn lpn_at(&self, ppn: Ppn) -> Lpn;
    /// The page a user read of `lpn` reads now.
    fn read_page(&self, lpn: Lpn) -> Ppn;
    /// The page offset the next program of `stream` on `plane` would get, if it can get a
    /// page now (a user write may not take the blocks kept for GC).
    fn next_offset(&self, plane: u32, stream: Stream) -> Option<u32>;
    /// The in-plane index of the block that program would go to (asked only when
    /// multi-plane commands must share a block, `nand.multiplane_same_block`).
    fn next_block(&self, plane: u32, stream: Stream) -> u32;
    /// Whether a GC move found stale at its queue's head keeps its place as a dummy page
    /// (Die-GC: the die's GC write points stay equal) instead of leaving the queue.
    fn stale_move_keeps_place(&self) -> bool {
        false
    }
}

/// Which advanced commands the chips support (`nand.*`) and how deep reads are searched.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    pub multiplane: bool,
    /// Reads may be multi-plane too (`nand.multiplane` and `nand.multiplane_reads`).
    pub multiplane_reads: bool,
    pub multiplane_same_block: bool,
    /// Planes of one die may join at any page (`nand.multiplane_addressing = "independent"`).
    pub independent_planes: bool,
    pub die_interleave: bool,
    /// How many queued transactions of a plane a read joining a die looks at.
    pub scan_limit: usize,
    /// User reads and programs may join a GC command of the same operation
    /// (`tsu.user_joins_gc`).
    pub user_joins_gc: bool,
}

/// A plane's candidate for the command, in the builder's order.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    /// Age of its transaction (the enqueue sequence; 0 for the policy's leader).
    seq: u64,
    plane_in_chip: usize,
    /// The page its transaction works on, as far as known: a read's page, a GC move's or
    /// an erase's page; NONE for a user program (allocated at launch).
    ppn: Ppn,
    /// Position of the transaction in its plane's queue.
    pos: usize,
}

/// What one build reads: the queue class and what it means, the geometry, the rules and
/// the FTL.
struct Ctx<'a, F> {
    class: QueueClass,
    traits: ClassTraits,
    geo: &'a Geometry,
    rules: &'a Rules,
    ftl: &'a F,
}

impl<F> Clone for Ctx<'_, F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F> Copy for Ctx<'_, F> {}

/// What a queue class means for building.
#[derive(Debug, Clone, Copy)]
struct ClassTraits {
    stream: Stream,
    read: bool,
    erase: bool,
    /// A read that follows its logical page (user or mapping read), not a fixed page.
    follows_data: bool,
    gc_move: bool,
}

impl ClassTraits {
    #[inline(always)]
    fn of(class: QueueClass) -> ClassTraits {
        ClassTraits {
            stream: match class {
                QueueClass::GcWrite => Stream::Gc,
                QueueClass::MapWrite => Stream::Map,
                _ => Stream::User,
            },
            read: matches!(class, QueueClass::UserRead | QueueClass::GcRead | QueueClass::MapRead),
            erase: class == QueueClass::GcErase,
            follows_data: matches!(class, QueueClass::UserRead | QueueClass::MapRead),
            gc_move: class == QueueClass::GcWrite,
        }
    }
}

/// Per die of the chip, the place its planes work at once the die is in the command.
#[derive(Debug, Clone, Copy)]
struct Dies {
    place: [Place; 16],
    /// Bit d: die d is in the command.
    in_command: u16,
    op: Option<FlashOp>,
}

/// One chip's queues and what building from them may change: the queues, the transaction
/// records, the policy (told of transactions that leave without running) and the chip's load.
pub struct ChipWork<'a> {
    pub chip: u32,
    pub queues: &'a mut ChipQueues,
    pub txs: &'a mut Slab<Transaction>,
    pub policy: &'a mut dyn TsuPolicy,
    /// Transactions queued on or running at the chip.
    pub load: &'a mut u32,
}

/// The builder, with its reusable buffers and its outputs.
#[derive(Default)]
pub struct Builder {
    order: Vec<Candidate>,
    /// The command built last, in plane order.
    pub(crate) chosen: Vec<u32>,
    /// The owners (jobs) of moves found stale at a queue head (their page was overwritten,
    /// trimmed or moved since it was read): each such move is over for its job, dropped or,
    /// under Die-GC, kept in place as a dummy page.
    pub(crate) dropped_moves: Vec<Owner>,
    /// User reads that left the chip's queue because their data moved to another plane:
    /// they are to be enqueued again where their data is.
    pub(crate) readdressed: Vec<u32>,
}

impl Builder {
    /// Build a command for `work.chip` from queue `class`, led by `leader` if given (else by
    /// the oldest startable transaction). On success the command's transactions are in
    /// `chosen` (taken out of the queues, sorted by plane) and its operation is returned.
    /// Either way, `dropped_moves` and `readdressed` may hold work to settle.
    #[inline(always)]
    pub fn build(
        &mut self,
        work: &mut ChipWork<'_>,
        class: QueueClass,
        leader: Option<u32>,
        geo: &Geometry,
        rules: &Rules,
        ftl: &impl FtlView,
    ) -> Option<FlashOp> {
        let ctx = Ctx { class, traits: ClassTraits::of(class), geo, rules, ftl };
        self.plane_heads(work, &ctx);
        if let Some(tx) = leader {
            self.place_leader(work, &ctx, tx);
        }
        // Sequence numbers are unique (a leader's 0 included): they alone decide the order.
        self.order.sort_unstable_by_key(|c| c.seq);
        self.chosen.clear();
        let mut dies = Dies { place: [Place::NONE; 16], in_command: 0, op: None };
        for k in 0..self.order.len() {
            let cand = self.order[k];
            if let Some(j) = Builder::join(work, &ctx, cand, &mut dies) {
                work.queues.take(class, cand.plane_in_chip, j.pos);
                if ctx.traits.read {
                    work.txs[j.tx].ppn = j.ppn;
                }
                self.chosen.push(j.tx);
            }
        }
        let op = dies.op?;
        if geo.units_per_page > 1 && !ctx.traits.erase {
            self.fill_pages(work, &ctx);
        }
        if rules.user_joins_gc && matches!(class, QueueClass::GcRead | QueueClass::GcWrite) {
            self.join_user_work(work, &ctx, &mut dies);
        }
        if geo.units_per_page > 1 && !ctx.traits.erase {
            // Several units per plane: a stable sort keeps each plane's in queue order.
            let txs = &*work.txs;
            self.chosen.sort_by_key(|&t| txs[t].plane_in_chip);
            return Some(op);
        }
        // Order by plane so the bus phase visits each die once, in die order.
        // One transaction per plane: the plane alone decides the order.
        let txs = &*work.txs;
        self.chosen.sort_unstable_by_key(|&t| txs[t].plane_in_chip);
        Some(op)
    }

    /// Stage 5, with `tsu.user_joins_gc`: user work of the same operation rides in a GC
    /// command (MQSim's rule, docs/techniques.md §12): each plane the command leaves free
    /// offers its oldest user read or program, which joins by the same multi-plane and
    /// die-interleaving rules as the GC work did.
    #[inline(never)]
    fn join_user_work(&mut self, work: &mut ChipWork<'_>, ctx: &Ctx<'_, impl FtlView>, dies: &mut Dies) {
        let class = if ctx.traits.read { QueueClass::UserRead } else { QueueClass::UserWrite };
        if work.queues.class_len(class) == 0 {
            return;
        }
        let user = Ctx { class, traits: ClassTraits::of(class), ..*ctx };
        let mut used = 0u64;
        for &t in &self.chosen {
            used |= 1 << work.txs[t].plane_in_chip;
        }
        self.plane_heads(work, &user);
        self.order.sort_unstable_by_key(|c| c.seq);
        for k in 0..self.order.len() {
            let cand = self.order[k];
            if used & 1 << cand.plane_in_chip != 0 {
                continue;
            }
            if let Some(j) = Builder::join(work, &user, cand, dies) {
                work.queues.take(class, cand.plane_in_chip, j.pos);
                if user.traits.read {
                    work.txs[j.tx].ppn = j.ppn;
                }
                self.chosen.push(j.tx);
                used |= 1 << cand.plane_in_chip;
            }
        }
    }

    /// Stage 4, with mapping units smaller than the page: each plane in the command fills
    /// the rest of its flash page. A program takes the next units queued for the plane, up
    /// to the end of the page its write point is in (the FTL closes the page after the
    /// command: a page is programmed once); a read takes the plane's other queued reads of
    /// the same flash page, within `scan_limit` (one array read serves them all).
    fn fill_pages(&mut self, work: &mut ChipWork<'_>, ctx: &Ctx<'_, impl FtlView>) {
        let Ctx { class, traits, geo, rules, ftl } = *ctx;
        let k = geo.units_per_page;
        for i in 0..self.chosen.len() {
            let first = self.chosen[i];
            let pic = work.txs[first].plane_in_chip as usize;
            let plane = work.chip * geo.planes_per_chip() + pic as u32;
            if !traits.read {
                let at = ftl.next_offset(plane, traits.stream).expect("the plane's first unit joined");
                for _ in 1..k - at % k {
                    let Some(&e) = work.queues.front(class, pic) else { break };
                    if traits.gc_move && e.lpn != NONE && ftl.lpn_at(e.page) != e.lpn {
                        break; // stale: settled when it reaches a build as a head
                    }
                    work.queues.take(class, pic, 0);
                    self.chosen.push(e.tx);
                }
                continue;
            }
            let page = page_of(geo, work.txs[first].ppn);
            let (mut pos, mut joined) = (0, 1);
            while joined < k && pos < rules.scan_limit.min(work.queues.plane_len(class, pic)) {
                let e = *work.queues.get(class, pic, pos);
                let ppn = if traits.follows_data { ftl.read_page(e.lpn) } else { e.page };
                if geo.plane_of(ppn) != plane || page_of(geo, ppn) != page {
                    pos += 1;
                    continue;
                }
                work.queues.take(class, pic, pos);
                work.txs[e.tx].ppn = ppn;
                self.chosen.push(e.tx);
                joined += 1;
            }
        }
    }

    /// Stage 1: each plane's oldest transaction of the class, in `order`. Stale work at the
    /// heads leaves on the way: a GC move whose page no longer holds its data, and a user
    /// read whose data moved to another plane since it was queued (a cache write-back under
    /// dynamic allocation), which follows its data. Reads carry the page they would read
    /// now, resolved once here.
    #[inline(always)]
    fn plane_heads(&mut self, work: &mut ChipWork<'_>, ctx: &Ctx<'_, impl FtlView>) {
        let Ctx { class, traits, geo, ftl, .. } = *ctx;
        let ppc = geo.planes_per_chip() as usize;
        self.order.clear();
        for pic in 0..ppc {
            let plane = work.chip * ppc as u32 + pic as u32;
            while let Some(&e) = work.queues.front(class, pic) {
                if traits.gc_move && e.lpn != NONE && ftl.lpn_at(e.page) != e.lpn {
                    let owner = work.txs[e.tx].owner;
                    if ftl.stale_move_keeps_place() && matches!(owner, Owner::Gc { .. }) {
                        // The move becomes a dummy page where it stands; GC counts it done.
                        work.queues.front_mut(class, pic).expect("the head just seen").lpn = NONE;
                        let t = &mut work.txs[e.tx];
                        (t.lpn, t.owner) = (NONE, Owner::GcPad);
                        self.dropped_moves.push(owner);
                        continue;
                    }
                    work.queues.take(class, pic, 0);
                    *work.load -= 1;
                    work.txs.remove(e.tx);
                    self.dropped_moves.push(owner);
                    continue;
                }
                let ppn = if traits.follows_data { ftl.read_page(e.lpn) } else { e.page };
                if traits.follows_data && geo.plane_of(ppn) != plane {
                    work.queues.take(class, pic, 0);
                    work.policy.dequeued(work.chip, e.tx);
                    *work.load -= 1;
                    self.readdressed.push(e.tx);
                    continue;
                }
                self.order.push(Candidate { seq: e.seq, plane_in_chip: pic, ppn, pos: 0 });
                break;
            }
        }
    }

    /// Stage 2: a leader chosen by the policy goes first, from wherever it is in its
    /// plane's queue (a user read whose data moved away is left where it is).
    #[inline(always)]
    fn place_leader(&mut self, work: &mut ChipWork<'_>, ctx: &Ctx<'_, impl FtlView>, tx: u32) {
        let Ctx { class, traits, geo, ftl, .. } = *ctx;
        let pic = work.txs[tx].plane_in_chip as usize;
        let queues = &*work.queues;
        let pos = (0..queues.plane_len(class, pic)).find(|&k| queues.get(class, pic, k).tx == tx);
        match pos {
            Some(0) => {
                // Already its plane's head (the usual case), so already in the order with its
                // page resolved: it only moves to the front.
                self.order.iter_mut().find(|c| c.plane_in_chip == pic).expect("a plane's head is in the order").seq = 0;
            }
            Some(pos) => {
                let e = *queues.get(class, pic, pos);
                let ppn = if traits.follows_data { ftl.read_page(e.lpn) } else { e.page };
                let plane = work.chip * geo.planes_per_chip() + pic as u32;
                if !traits.follows_data || geo.plane_of(ppn) == plane {
                    self.order.retain(|c| c.plane_in_chip != pic);
                    self.order.push(Candidate { seq: 0, plane_in_chip: pic, ppn, pos });
                }
            }
            None => {}
        }
    }

    /// Stage 3: the first transaction of a candidate's plane that can join the command:
    /// same operation, on a die already in the command at the same place (multi-plane), or
    /// on a new die (die interleaving). A read joining a die looks up to `scan_limit` deep
    /// in its plane's queue for the die's offset. Records the die's place and the operation
    /// when it joins. Returns where the joining transaction is and the page it works on.
    #[inline(always)]
    fn join(work: &ChipWork<'_>, ctx: &Ctx<'_, impl FtlView>, cand: Candidate, dies: &mut Dies) -> Option<Joined> {
        let Ctx { class, traits, geo, rules, ftl } = *ctx;
        let plane = work.chip * geo.planes_per_chip() + cand.plane_in_chip as u32;
        let die = geo.die_of_plane_in_chip(cand.plane_in_chip as u32) as usize;
        // Where in the plane this command would work, when that does not depend on which
        // transaction of the plane joins.
        let fixed = if traits.read {
            None
        } else if traits.erase {
            Some(Place { offset: 0, block: geo.block_in_plane(geo.block_of(cand.ppn)) })
        } else {
            let at = ftl.next_offset(plane, traits.stream)?;
            if traits.gc_move && geo.units_per_page > 1 && gc_page_fills_later(work.queues, cand, geo, at) {
                return None;
            }
            // The same-block rule holds for programs too (SPD s.7: "same in-plane address").
            let block = if rules.multiplane_same_block { ftl.next_block(plane, traits.stream) } else { NONE };
            Some(Place { offset: geo.flash_page(at), block })
        };
        let want = (dies.in_command & 1 << die != 0).then_some(dies.place[die]);
        if want.is_none() && dies.in_command != 0 && !rules.die_interleave {
            return None;
        }
        // Another plane of a die already in the command: a multi-plane command, which reads
        // may be refused alone (`nand.multiplane_reads`, SPD's Die-Read removed).
        if want.is_some() && !(if traits.read { rules.multiplane_reads } else { rules.multiplane }) {
            return None;
        }
        let (lo, hi) = scan_range(work.queues, class, traits, cand, want, rules)?;
        // A plain loop: the range's `find_map` compiles to several times the instructions.
        let mut found = None;
        for pos in lo..hi {
            let entry = work.queues.get(class, cand.plane_in_chip, pos);
            let (place, ppn) = match fixed {
                Some(p) => (p, cand.ppn),
                // A GC read's page is fixed, on this plane: its place was worked out once.
                None if !traits.follows_data => (entry.page_at, entry.page),
                None => {
                    let ppn = if pos > cand.pos {
                        let ppn = ftl.read_page(entry.lpn);
                        if geo.plane_of(ppn) != plane {
                            continue; // moved: it follows its data when it reaches the head
                        }
                        ppn
                    } else {
                        cand.ppn
                    };
                    (place_of(geo, ppn), ppn)
                }
            };
            if dies.op.is_none_or(|o| o == entry.op) && fits(want, place, rules) {
                found = Some((Joined { pos, tx: entry.tx, ppn }, place, entry.op));
                break;
            }
        }
        let (joined, place, op) = found?;
        if want.is_none() {
            dies.place[die] = place;
            dies.in_command |= 1 << die;
        }
        dies.op = Some(op);
        Some(joined)
    }
}

/// A transaction that joins the command: where it is in its plane's queue, and the page it
/// works on.
#[derive(Debug, Clone, Copy)]
struct Joined {
    pos: usize,
    tx: u32,
    ppn: Ppn,
}

/// With mapping units below the page: whether a plane's GC moves wait for their page to
/// fill, because fewer are queued than the page has room for while GC reads of the plane
/// are still queued (their moves follow). A partial GC page would waste slots as fast as GC
/// frees them; the moves of a victim's last page go as they are.
#[inline(never)]
fn gc_page_fills_later(queues: &ChipQueues, cand: Candidate, geo: &Geometry, at: u32) -> bool {
    let room = (geo.units_per_page - at % geo.units_per_page) as usize;
    queues.plane_len(QueueClass::GcWrite, cand.plane_in_chip) < room
        && queues.plane_len(QueueClass::GcRead, cand.plane_in_chip) > 0
}

/// Where in its plane a page (or a mapping unit's slot) is: its block and flash page offset.
#[inline(always)]
fn place_of(geo: &Geometry, ppn: Ppn) -> Place {
    Place { offset: geo.flash_page(geo.page_in_block(ppn)), block: geo.block_in_plane(geo.block_of(ppn)) }
}

/// The flash page a slot is in, as (block, flash page offset).
fn page_of(geo: &Geometry, ppn: Ppn) -> (u32, u32) {
    (geo.block_of(ppn), geo.flash_page(geo.page_in_block(ppn)))
}

/// Whether a plane working at `place` may join a die whose planes work at `want` (any
/// place if the die is not in the command yet).
#[inline(always)]
fn fits(want: Option<Place>, place: Place, rules: &Rules) -> bool {
    match want {
        None => true,
        Some(w) => {
            rules.independent_planes
                || (w.offset == place.offset
                    && (!rules.multiplane_same_block || place.block == NONE || w.block == place.block))
        }
    }
}

/// Positions of a plane's queue to look at: the candidate's own, or for a read joining a die
/// already in the command, up to `scan_limit` deep for the die's offset. A GC victim's reads
/// queue in page order, so the one at the wanted offset is found by bisection rather than by
/// scanning (while that order holds). None: nothing in the plane can join.
#[inline(always)]
fn scan_range(
    queues: &ChipQueues,
    class: QueueClass,
    traits: ClassTraits,
    cand: Candidate,
    want: Option<Place>,
    rules: &Rules,
) -> Option<(usize, usize)> {
    match want {
        // Any page may join: the plane's own candidate does.
        Some(_) if rules.independent_planes => Some((cand.pos, cand.pos + 1)),
        Some(w) if traits.read && cand.pos == 0 => {
            let depth = rules.scan_limit.min(queues.plane_len(class, cand.plane_in_chip));
            if traits.follows_data {
                return Some((0, depth));
            }
            match queues.find_offset(class, cand.plane_in_chip, w.offset, depth) {
                Some(Some(pos)) => Some((pos, pos + 1)),
                Some(None) => None,
                None => Some((0, depth)),
            }
        }
        _ => Some((cand.pos, cand.pos + 1)),
    }
}
