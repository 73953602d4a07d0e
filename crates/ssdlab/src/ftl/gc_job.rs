//! GC as a flash job: what one GC unit (`ftl.gc.unit`) asks of the flash side, as steps the
//! loop applies in order, the same way for every unit.
//!
//! A unit decides here, not in the loop: a plane collects one victim; ParaGC
//! ([`crate::ftl::gc::paragc`]) also starts each idle plane of the die; Die-GC and TwinBlk
//! ([`crate::ftl::gc::die_gc`]) collect an aligned block set and erase it with one
//! multi-plane erase, Die-GC programming its moves N at a time onto the die's planes. The
//! loop only turns steps into transactions ([`Step`]). Steps that depend on what applying
//! the ones before did (a sibling plane that may have started GC meanwhile, a move's end)
//! are asked for when they are reached ([`Step::Collect`], [`Step::MoveDone`]).

use super::gc::die_gc::DieLeftover;
use super::job::Step;
use super::{Ftl, GcUnit, LivePage};
use crate::engine::Ps;
use crate::nand::{Lpn, Ppn, NONE};

impl Ftl {
    /// `plane` needs GC: the steps of its unit.
    pub fn gc_job(&mut self, plane: u32, steps: &mut Vec<Step>, pages: &mut Vec<LivePage>) {
        match self.gc.unit() {
            GcUnit::Plane => self.collect(plane, false, steps, pages),
            GcUnit::Para if self.gc.para_aligned() => self.collect_para_session(plane, steps, pages),
            GcUnit::Para => {
                steps.push(Step::Collect { plane, if_idle: false });
                for sibling in super::gc::paragc::siblings(&self.geo, plane) {
                    steps.push(Step::Collect { plane: sibling, if_idle: true });
                }
            }
            GcUnit::Die | GcUnit::Twin => self.collect_die_set(plane, steps, pages),
        }
    }

    /// Collect one victim of `plane` (with `if_idle`, only if the plane is not collecting).
    pub fn collect(&mut self, plane: u32, if_idle: bool, steps: &mut Vec<Step>, pages: &mut Vec<LivePage>) {
        if if_idle && self.gc.victim(plane) != NONE {
            return;
        }
        pages.clear();
        let Some(victim) = self.gc.start(plane, &mut self.blocks, pages) else { return };
        steps.push(Step::Started);
        if pages.is_empty() {
            steps.push(Step::Erase { plane, victim });
        }
        steps.extend(pages.iter().map(|&page| Step::Move { page, plane }));
    }

    /// ParaGC with aligned write points: `plane` and every idle plane of its die start now,
    /// as one session, each on its own victim. Their GC write points are brought to the
    /// leader's ([`Ftl::para_gaps`]): a lagging plane's first moves go alone until it is
    /// there (`catch_up`), or it is padded with dummy pages before any move (`pad`); then
    /// the k-th moves of the session's planes reach equal offsets in blocks of one index.
    fn collect_para_session(&mut self, plane: u32, steps: &mut Vec<Step>, pages: &mut Vec<LivePage>) {
        let session = self.gc.para_session().expect("ParaGC aligns its write points");
        let candidates = std::iter::once(plane).chain(super::gc::paragc::siblings(&self.geo, plane));
        let (mut started, mut moves) = (Vec::new(), Vec::new());
        for q in candidates {
            pages.clear();
            if self.gc.victim(q) != NONE {
                continue;
            }
            let Some(victim) = self.gc.start(q, &mut self.blocks, pages) else { continue };
            steps.push(Step::Started);
            if pages.is_empty() {
                steps.push(Step::Erase { plane: q, victim });
            }
            moves.extend(pages.iter().map(|&page| Step::Move { page, plane: q }));
            started.push((q, pages.len() as u32));
        }
        let gaps = self.para_gaps(&started);
        let pad = self.gc.para_align() == super::gc::paragc::ParaAlign::Pad;
        for (&(q, n), &gap) in started.iter().zip(&gaps) {
            self.gc.para_started(q, session, n, if pad { 0 } else { gap });
            if pad && gap > 0 {
                steps.push(Step::Pads { plane: q, count: gap });
            }
        }
        steps.append(&mut moves);
    }

    /// The pages each of a session's planes (each with its count of moves) is behind the
    /// leader's GC write point ([`super::gc::paragc::align_pads`]); all 0 when no plane can
    /// lead. Under `pad`, all 0 too when a plane's pads and moves together would need more
    /// than GC is sure to have — the rest of its open GC block and the user reserve's
    /// blocks, which user writes cannot take — or its moves could wait for a block forever
    /// [I]; the session's moves then still pair, at whatever offsets they have.
    fn para_gaps(&self, planes: &[(u32, u32)]) -> Vec<u32> {
        use super::gc::paragc::{align_pads, GcPoint};
        let ppb = self.geo.pages_per_block;
        let points: Vec<GcPoint> = planes
            .iter()
            .map(|&(q, _)| match self.blocks.gc_write_point(q) {
                Some((block, offset)) => GcPoint { block, offset },
                None => GcPoint { block: NONE, offset: ppb },
            })
            .collect();
        let mut gaps = Vec::new();
        align_pads(&points, ppb, |i, block| self.blocks.can_open(planes[i].0, block), &mut gaps);
        let reserve = self.gc.limits.user_reserve_blocks * ppb;
        let fits = |(i, &(_, moves)): (usize, &(u32, u32))| gaps[i] + moves <= ppb - points[i].offset + reserve;
        let pad = self.gc.para_align() == super::gc::paragc::ParaAlign::Pad;
        if pad && !planes.iter().enumerate().all(fits) {
            gaps.iter_mut().for_each(|g| *g = 0);
        }
        gaps
    }

    /// Collect the aligned set of `plane`'s die with the fewest valid pages: a move for each
    /// valid page, on its own plane.
    fn collect_die_set(&mut self, plane: u32, steps: &mut Vec<Step>, pages: &mut Vec<LivePage>) {
        pages.clear();
        let Some(die) = self.gc.start_die(plane, &mut self.blocks, pages) else { return };
        steps.push(Step::Started);
        if pages.is_empty() {
            self.erase_die_set(die, steps);
        }
        let geo = &self.geo;
        steps.extend(pages.iter().map(|&page| Step::Move { page, plane: geo.plane_of(page.ppn) }));
    }

    /// Nothing is left to happen and requests are unfinished: under an aligned unit a plane
    /// whose die has no aligned set to collect, with no free block above the user reserve,
    /// waits for an invalidation nothing can bring (a static allocation sends its overwrites
    /// to it). Each such plane collects a victim of its own ([`super::gc::Gc::mark_alone`]).
    /// Whether any did.
    pub fn unstick(&mut self, steps: &mut Vec<Step>, pages: &mut Vec<LivePage>) -> bool {
        if !self.gc.unit().aligned_set() {
            return false;
        }
        let mut started = false;
        for plane in 0..self.geo.planes() {
            let stuck = self.gc.victim(plane) == NONE
                && self.gc.needed(plane, &self.blocks)
                && self.blocks.free_blocks(plane) <= self.gc.limits.user_reserve_blocks;
            if stuck {
                self.collect(plane, false, steps, pages);
                if self.gc.victim(plane) != NONE {
                    self.gc.mark_alone(plane);
                    started = true;
                }
            }
        }
        started
    }

    /// Erase every block of `die`'s set with one multi-plane erase.
    fn erase_die_set(&self, die: u32, steps: &mut Vec<Step>) {
        let n = self.geo.planes_per_die;
        steps.push(Step::GroupStart);
        for plane in die * n..(die + 1) * n {
            steps.push(Step::Erase { plane, victim: self.gc.victim(plane) });
        }
        steps.push(Step::GroupEnd);
    }

    /// The read of a move off `source` (page `lpn` at `src`) finished: the page was live,
    /// in transaction `tx`, or gone (None). `chip_load`: queued work per chip, for PACP's
    /// migration of a move.
    pub fn move_read_done(
        &mut self,
        source: u32,
        read: Option<(u32, Lpn, Ppn)>,
        chip_load: &[u32],
        steps: &mut Vec<Step>,
    ) {
        if self.gc.unit() == GcUnit::Die && !self.gc.collects_alone(source) {
            let mut txs = Vec::new();
            self.gc.die_move_read(source, read.map(|(tx, _, _)| tx), &mut txs);
            if !txs.is_empty() {
                let n = self.geo.planes_per_die;
                let partial = txs.len() < n as usize;
                let buffer_first = partial && self.die_leftover == DieLeftover::Buffer;
                steps.push(Step::ProgramGroup { txs, first_plane: source / n * n, buffer_first });
            }
        } else if self.gc.para_aligned() {
            self.gc.para_move_read(source, read.map(|(tx, _, _)| tx), |group| {
                if let [tx] = *group {
                    steps.push(Step::Program { tx, plane: None });
                    return;
                }
                steps.push(Step::GroupStart);
                steps.extend(group.iter().map(|&tx| Step::Program { tx, plane: None }));
                steps.push(Step::GroupEnd);
            });
        } else if let Some((tx, lpn, src)) = read {
            steps.push(Step::Program { tx, plane: self.migration_plane(lpn, src, chip_load) });
        }
        if read.is_none() {
            steps.push(Step::MoveDone { plane: source });
        }
    }

    /// A move off `plane` is done; after its unit's last, the erase.
    pub fn move_finished(&mut self, plane: u32, now: Ps, steps: &mut Vec<Step>) {
        if self.gc.unit().aligned_set() && !self.gc.collects_alone(plane) {
            if let Some(die) = self.gc.die_move_done(plane) {
                self.erase_die_set(die, steps);
            }
            return;
        }
        if let Some(victim) = self.gc_move_done(plane, now) {
            steps.push(Step::Erase { plane, victim });
            if self.translates() {
                steps.push(Step::MapIo);
            }
        }
    }
}
