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
