//! The flash side of the routes: a committed memory request through the firmware into a
//! transaction on its chip's queue; a free chip's command built by the TSU, its pages
//! resolved by the FTL and played out by the PHY; a finished command's transactions back to
//! their requests, to GC, or to the cache.

use super::Simulation;
use crate::check::DataEvent;
use crate::engine::Event;
use crate::ftl::{MapIo, Step, Stream, Translated, Waiter};
use crate::hil::MrOp;
use crate::nand::{FlashOp, Lpn, NONE};
use crate::stats::Seen;
use crate::tsu::{GcUrgency, NewTx, Owner, QueueClass, TxKind, QUEUE_CLASSES};

impl Simulation {
    /// Let the device-level scheduler commit what it wants now. Everything committed in the
    /// round reaches the chip queues before any chip starts, in commit order.
    pub(super) fn run_scheduler(&mut self) {
        if self.committer.pending() == 0 {
            return;
        }
        let gc_per_write = if self.stats.user_pages_programmed > 0 {
            self.stats.gc_pages_moved as f64 / self.stats.user_pages_programmed as f64
        } else {
            0.0
        };
        let committed = self.committer.schedule(&mut self.mrs, gc_per_write);
        self.deferral.depth += 1;
        for &mr in &committed {
            self.commit(mr);
        }
        self.deferral.depth -= 1;
        self.committer.round_done(committed);
        if self.deferral.depth == 0 {
            self.start_deferred();
        }
    }

    /// Start the chips that were given work while a round was open.
    pub(super) fn start_deferred(&mut self) {
        let mut chips = std::mem::take(&mut self.deferral.chips);
        for &chip in &chips {
            self.deferral.marked[chip as usize] = false;
            if !self.phy.is_busy(chip) {
                self.try_start(chip);
            } else if self.tsu.has_user_reads(chip) {
                self.phy.reads_waiting(chip, self.tsu.records(), &mut self.q);
            }
        }
        chips.clear();
        self.deferral.chips = chips;
    }

    /// Commit a memory request to the flash side: through the firmware, to the TSU.
    fn commit(&mut self, mr: u32) {
        match self.ftl.firmware_done_at(self.q.now()) {
            None => self.send_to_flash(mr),
            Some(end) => self.q.at(end, Event::FirmwareDone { mr }),
        }
    }

    /// A memory request's transaction goes to its chip.
    pub(super) fn send_to_flash(&mut self, mr: u32) {
        let m = &self.mrs[mr];
        let (lpn, mask, plane, op) = (m.lpn, m.sector_mask, m.plane, m.op);
        match op {
            MrOp::Read => {
                let tx = self.user_tx(FlashOp::Read, plane, lpn, mask, mr);
                self.enqueue(tx);
            }
            MrOp::Write => {
                let tx = self.user_tx(FlashOp::Program, plane, lpn, mask, mr);
                if let Some(o) = &mut self.oracle {
                    o.saw(DataEvent::StageHostData { tx, mask, version: self.ios[self.mrs[mr].io].version });
                }
                self.enqueue_program(tx);
            }
            MrOp::Trim => unreachable!("trims never reach flash"),
        }
    }

    /// A transaction for memory request `mr`, of its flow.
    fn user_tx(&mut self, op: FlashOp, plane: u32, lpn: Lpn, mask: u64, mr: u32) -> u32 {
        let spec = NewTx { flow: self.mrs[mr].flow, ..NewTx::new(Owner::Request(mr), op, plane, lpn, mask) };
        self.tsu.create(spec, self.q.now())
    }

    /// Enqueue a user program; a partial page whose other sectors are on flash is read
    /// first (read-modify-write), unless the cache holds them.
    pub(super) fn enqueue_program(&mut self, tx: u32) {
        let (lpn, mask) = (self.tsu.tx(tx).lpn, self.tsu.tx(tx).sector_mask);
        let cached = self.cache.as_ref().map(|c| c.cached_mask(lpn)).unwrap_or(0);
        let full = self.full_mask();
        let old = self.ftl.mapped_page(lpn);
        if (mask | cached) != full && old != NONE {
            self.stats.saw(Seen::RmwRead);
            let plane = self.geo.plane_of(old);
            let flow = self.tsu.tx(tx).flow;
            let rmw = Owner::Rmw { program: tx };
            let spec = NewTx { flow, ..NewTx::new(rmw, FlashOp::Read, plane, lpn, full & !mask) };
            let read = self.tsu.create(spec, self.q.now());
            self.enqueue(read);
        } else {
            if old != NONE {
                // Invalidated when the program starts.
                self.ftl.prefetch_page(old);
            }
            self.enqueue(tx);
        }
    }

    /// Put a transaction on its chip's queue and start the chip, or mark it to start at the
    /// end of the open round; a user read may suspend a busy chip's program or erase.
    pub(super) fn enqueue(&mut self, tx: u32) {
        let at = self.tsu.enqueue(tx, self.q.now());
        let chip = at.chip;
        if self.deferral.depth > 0 {
            if !self.deferral.marked[chip as usize] {
                self.deferral.marked[chip as usize] = true;
                self.deferral.chips.push(chip);
            }
        } else if !self.phy.is_busy(chip) {
            self.try_start(chip);
        } else if at.user_read {
            self.phy.reads_waiting(chip, self.tsu.records(), &mut self.q);
        }
    }

    // ---------------------------------------------------------------- chips

    /// A free chip: build the widest legal command from its queues and start it.
    pub(super) fn try_start(&mut self, chip: u32) {
        if self.phy.is_busy(chip) {
            return;
        }
        if self.phy.has_suspended(chip) {
            if !self.tsu.has_user_reads(chip) {
                self.phy.resume(chip, &mut self.q);
                return;
            }
            self.build(chip, Some(QueueClass::UserRead));
            if !self.phy.is_busy(chip) {
                // The queued reads could not start here (they followed their data
                // elsewhere): resume the suspended operation.
                self.phy.resume(chip, &mut self.q);
            }
            return;
        }
        self.build(chip, None);
        if !self.phy.is_busy(chip) && self.ftl.background_gc_on() {
            self.background_gc(chip);
        }
    }

    /// An idle chip with nothing queued: collect planes below the background threshold.
    #[cold]
    fn background_gc(&mut self, chip: u32) {
        if !self.tsu.is_idle(chip) {
            return;
        }
        let ppc = self.geo.planes_per_chip();
        for p in chip * ppc..(chip + 1) * ppc {
            if self.ftl.wants_background_gc(p) {
                self.start_gc(p);
                if self.phy.is_busy(chip) {
                    return;
                }
            }
        }
    }

    /// Ask the policy for a queue (or take `forced`) and build from it; a queue nothing can
    /// start from now is left out and the policy asked again.
    fn build(&mut self, chip: u32, forced: Option<QueueClass>) {
        let mut excluded = [false; QUEUE_CLASSES];
        loop {
            let pick = match forced {
                Some(c) => crate::tsu::Pick::class(c),
                None => {
                    let urgency = if self.ftl.gc_critical(chip) { GcUrgency::Critical } else { GcUrgency::None };
                    match self.tsu.pick(chip, self.q.now(), urgency, &excluded) {
                        Some(p) => p,
                        None => return,
                    }
                }
            };
            if self.build_from(chip, pick) || forced.is_some() || self.phy.is_busy(chip) {
                return;
            }
            excluded[pick.class as usize] = true;
        }
    }

    /// Build a command from the picked queue and launch it; then settle what the build found
    /// stale (after the launch: settling may enqueue an erase on this very chip). False if
    /// nothing in the queue could start.
    #[inline(always)]
    fn build_from(&mut self, chip: u32, pick: crate::tsu::Pick) -> bool {
        let built = self.tsu.build(chip, pick, &self.ftl);
        if let Some(op) = built {
            let mut txs = self.tsu.take_command();
            self.launch(chip, op, &mut txs);
            self.tsu.return_command(txs);
        }
        while let Some(dropped) = self.tsu.pop_dropped_move() {
            match dropped {
                Owner::Gc { plane } => {
                    self.stats.saw(Seen::GcMoveDropped);
                    self.gc_move_done(plane);
                }
                // GC moved the page before the migration's program started: the job gives
                // it up and goes on to its next page.
                Owner::Migration => {
                    let mut steps = self.take_steps();
                    self.ftl.migration_dropped(self.ios.live() > 0, &mut steps);
                    self.apply_steps(steps);
                }
                owner => unreachable!("the builder drops only moves, not {owner:?}"),
            }
        }
        while let Some(tx) = self.tsu.pop_readdressed() {
            // The read follows its data to its new plane.
            let plane = self.geo.plane_of(self.ftl.read_page(self.tsu.tx(tx).lpn));
            if let Some(mr) = self.tsu.tx(tx).owner.request() {
                self.committer.moved(&mut self.mrs[mr], plane);
            }
            self.tsu.retarget(tx, plane);
            self.enqueue(tx);
        }
        built.is_some()
    }

    /// Start a built command: the FTL resolves its pages, then the PHY runs it. `txs` moves
    /// into the chip's command; the caller gets back an empty vector.
    #[inline(always)]
    fn launch(&mut self, chip: u32, op: FlashOp, txs: &mut Vec<u32>) {
        // Before the FTL's work below may queue more on this chip: the cases see the queues
        // the command was built from.
        if matches!(op, FlashOp::Program | FlashOp::Copyback) {
            self.count_write_cases(chip, txs);
        }
        // Busy first: the FTL's work below may start GC, which enqueues on this very chip.
        self.phy.reserve(chip);
        self.tsu.dispatched(chip, txs, self.q.now());
        for &tx in txs.iter() {
            if let Some(mr) = self.tsu.tx(tx).owner.request() {
                // The memory request's own command starts (a read-modify-write's program, not
                // its read): it no longer waits at its plane.
                self.committer.started(&mut self.mrs[mr]);
            }
            match op {
                FlashOp::Read => self.launch_read(tx),
                FlashOp::Program | FlashOp::Copyback => self.launch_program(tx),
                FlashOp::Erase => {}
            }
        }
        let dies = self.dies_in(txs);
        let pages = if self.geo.units_per_page == 1 { txs.len() as u32 } else { self.close_flash_pages(op, txs) };
        self.stats.saw(Seen::Command { pages, dies, read: op == FlashOp::Read });
        self.phy.start(chip, op, txs, self.tsu.records(), &mut self.q);
    }

    /// SPD's write case of each die of a program command starting now (`stats::WriteCase`),
    /// as the host's or GC's; translation-page programs are not counted. Out of line: the
    /// read path only pays the test of the operation.
    #[inline(never)]
    fn count_write_cases(&mut self, chip: u32, txs: &[u32]) {
        let cases = &mut self.stats.write_cases;
        self.tsu.count_write_cases(chip, txs, &mut cases.user, &mut cases.gc);
    }

    /// With mapping units smaller than the page, each plane of a program command ends its
    /// flash page (the slots it left empty are counted). Returns the flash pages the command
    /// works on.
    #[inline(never)]
    fn close_flash_pages(&mut self, op: FlashOp, txs: &[u32]) -> u32 {
        let mut last = u32::MAX;
        let mut pages = 0;
        for &t in txs {
            let (plane, stream) = (self.tsu.tx(t).plane, self.tsu.tx(t).stream);
            if plane == last {
                continue;
            }
            (last, pages) = (plane, pages + 1);
            if op == FlashOp::Program {
                let skipped = self.ftl.close_flash_page(plane, stream);
                self.stats.saw(Seen::SlotsSkipped(skipped));
            }
        }
        pages
    }

    /// Dies a command (sorted by plane) uses.
    fn dies_in(&self, txs: &[u32]) -> u32 {
        let mut dies = 0u32;
        let mut last = u32::MAX;
        for &t in txs {
            let d = self.geo.die_of_plane_in_chip(self.tsu.tx(t).plane_in_chip as u32);
            if d != last {
                dies += 1;
                last = d;
            }
        }
        dies
    }

    /// A read's page was resolved by the builder just now.
    fn launch_read(&mut self, tx: u32) {
        let t = self.tsu.tx(tx);
        let (ppn, lpn, plane) = (t.ppn, t.lpn, t.plane);
        debug_assert_eq!(ppn, if t.kind == TxKind::Gc { t.src_ppn } else { self.ftl.read_page(lpn) });
        assert_eq!(self.geo.plane_of(ppn), plane, "read of lpn {lpn} queued on the wrong plane");
        if t.kind == TxKind::User && self.oracle.is_some() {
            // Remember whether this read found data or a never-written page.
            let found = self.ftl.mapped_page(lpn) == ppn;
            self.tsu.set_read_source(tx, found.then_some(ppn));
        }
    }

    /// A program (or copyback) takes its page now; the map points at it when the data is
    /// current; a move off another plane fires the readdressing callback.
    fn launch_program(&mut self, tx: u32) {
        let now = self.q.now();
        let t = self.tsu.tx(tx);
        let (kind, plane, lpn, stream, src, mask) = (t.kind, t.plane, t.lpn, t.stream, t.src_ppn, t.sector_mask);
        let (ppn, opened) = self.ftl.allocate(plane, stream).expect("builder checked a page was available");
        self.tsu.set_page(tx, ppn);
        if kind == TxKind::Mapping {
            debug_assert_eq!(stream, Stream::Map);
            self.ftl.write_programmed(plane);
            self.ftl.commit_map_write(lpn, ppn, now);
            self.stats.saw(Seen::MapPageProgrammed);
        } else if lpn == NONE {
            // A dummy page (a Die-GC pad, or an SPD eviction's, counted when it was made)
            // keeps a die's write points equal.
            if kind == TxKind::Gc {
                self.stats.saw(Seen::GcPadPage);
            }
        } else if kind == TxKind::Migration {
            self.launch_migration(lpn, src, ppn, plane);
        } else if kind == TxKind::Gc && src != NONE && self.ftl.lpn_at(src) != lpn {
            // A user program of the same logical page launched just before it in this
            // command (`tsu.user_joins_gc`) made the move stale: its page is a dummy.
            self.stats.saw(Seen::GcPadPage);
        } else if kind == TxKind::Gc {
            debug_assert_eq!(stream, Stream::Gc);
            self.ftl.commit_gc_move(lpn, ppn, now);
            let from = self.geo.plane_of(src);
            if from != plane && src != NONE {
                // A move that left its plane (PACP's migration, Die-GC): requests committed
                // to the old plane follow it.
                let n = self.committer.readdress(lpn, from, plane, &mut self.mrs);
                self.stats.saw(Seen::Readdressed(n));
            }
            self.stats.saw(Seen::GcMoveProgrammed { map_page: self.ftl.is_tp(lpn) });
            if let Some(o) = &mut self.oracle {
                o.saw(DataEvent::Moved { src, dst: ppn });
            }
        } else {
            self.ftl.write_programmed(plane);
            let old = self.ftl.mapped_page(lpn);
            // A cache write-back overtaken by a TRIM programs data nobody maps.
            let t = self.tsu.tx(tx);
            let current = match t.owner {
                Owner::WriteBack { trim_gen } => {
                    self.cache.as_ref().is_some_and(|c| c.writeback_current(lpn, trim_gen))
                }
                _ => true,
            };
            let writeback = matches!(t.owner, Owner::WriteBack { .. });
            if current {
                self.ftl.commit_write(lpn, ppn, now);
                if old != NONE && self.geo.plane_of(old) != plane {
                    let n = self.committer.readdress(lpn, self.geo.plane_of(old), plane, &mut self.mrs);
                    self.stats.saw(Seen::Readdressed(n));
                }
            }
            if writeback && self.cache.as_ref().is_some_and(|c| c.writeback_is_gc(lpn)) {
                // A Die-GC move that went through the write buffer.
                self.stats.saw(Seen::GcMoveProgrammed { map_page: false });
            } else {
                self.stats.saw(Seen::UserPageProgrammed);
            }
            if let Some(o) = &mut self.oracle {
                o.saw(DataEvent::Programmed { tx, ppn, mask, merge_from: (old != NONE).then_some(old) });
            }
        }
        if opened && self.ftl.needs_gc(plane) {
            self.start_gc(plane);
        }
        self.wake_gc();
        if self.ftl.translates() {
            self.issue_map_io();
        }
    }

    /// Issue the translation-page reads and writes the map cache asked for, each once the
    /// firmware work that asked for it is done.
    #[inline(never)]
    pub(super) fn issue_map_io(&mut self) {
        while let Some((io, at)) = self.ftl.take_map_io() {
            match io {
                _ if at <= self.q.now() => self.start_map_io(io),
                MapIo::Read(vtpn) => self.q.at(at, Event::MapIo { vtpn, write: false }),
                MapIo::Write(vtpn) => self.q.at(at, Event::MapIo { vtpn, write: true }),
            }
        }
    }

    /// A translation-page read or write goes to its chip.
    pub(super) fn start_map_io(&mut self, io: MapIo) {
        let full = self.full_mask();
        let spec = match io {
            MapIo::Read(vtpn) => {
                let tp = self.ftl.tp_lpn(vtpn);
                let plane = self.geo.plane_of(self.ftl.mapped_page(tp));
                NewTx::new(Owner::Map, FlashOp::Read, plane, tp, self.ftl.map_read_mask(full))
            }
            MapIo::Write(vtpn) => {
                let tp = self.ftl.tp_lpn(vtpn);
                let plane = self.ftl.write_plane(tp, self.tsu.chip_load(), self.q.now());
                NewTx::new(Owner::Map, FlashOp::Program, plane, tp, full)
            }
        };
        let tx = self.tsu.create(spec, self.q.now());
        self.enqueue(tx);
    }

    /// A translation page arrived: the requests that waited on it go on.
    fn map_read_done(&mut self, tp_lpn: Lpn) {
        let now = self.q.now();
        let mut resumed = std::mem::take(&mut self.resumed);
        resumed.clear();
        self.ftl.map_read_done(tp_lpn, now, &mut resumed);
        for &(waiter, at) in &resumed {
            match (waiter, at) {
                (_, None) => self.translated(waiter),
                (Waiter::Read(mr) | Waiter::Write(mr), Some(at)) => self.q.at(at, Event::Translated { mr }),
                (Waiter::GcRead(tx), Some(at)) => self.q.at(at, Event::GcLookedUp { tx }),
            }
        }
        self.resumed = resumed;
        self.issue_map_io();
    }

    /// A command finished: complete its transactions and free the chip.
    pub(super) fn command_done(&mut self, chip: u32, gen: u32) {
        let now = self.q.now();
        let mut txs = std::mem::take(&mut self.done);
        let Some(op) = self.phy.finish(chip, gen, &mut txs, self.tsu.records(), now) else {
            self.done = txs;
            return;
        };
        self.tsu.finished(chip, txs.len() as u32);
        if op == FlashOp::Erase {
            self.stats.saw(Seen::EraseCommandDone);
        }
        // Completing may enqueue follow-up work (GC writes, programs of read-modify-writes):
        // chips start once every transaction of the command is done, so follow-ups of one
        // multi-plane command can run as one again.
        self.deferral.depth += 1;
        for &tx in &txs {
            self.tx_done(tx, op);
        }
        self.deferral.depth -= 1;
        self.done = txs;
        if self.deferral.depth == 0 {
            self.start_deferred();
        }
        self.try_start(chip);
        self.run_scheduler();
        // A read's last data-out ended now: hand the channel to its waiters.
        self.phy.hand_bus_on(chip, self.tsu.records(), &mut self.q);
    }

    /// A transaction of a finished command: route its result to its owner (the request it
    /// serves, or the job it is a step of).
    fn tx_done(&mut self, tx: u32, op: FlashOp) {
        let r = self.tsu.tx(tx);
        match (r.owner, op) {
            // Every page of the victim is read (`ftl.gc.read_victim = "all_pages"`).
            (Owner::Gc { .. }, FlashOp::Read) if r.lpn == NONE => return self.victim_page_read(tx),
            (Owner::Gc { plane }, FlashOp::Read) if self.ftl.lpn_at(r.src_ppn) == r.lpn => {
                // The read of a GC move found its page still live: the move's program
                // follows, in the read's record. Its map entry changes when the program starts.
                self.stats.saw(Seen::GcPageRead);
                self.ftl.prefetch_entry(r.lpn);
                let read = (tx, r.lpn, r.src_ppn);
                let mut steps = self.take_steps();
                self.ftl.move_read_done(plane, Some(read), self.tsu.chip_load(), &mut steps);
                self.apply_steps(steps);
                return;
            }
            (Owner::Migration, FlashOp::Read) => return self.migration_read_done(tx),
            _ => {}
        }
        let t = self.tsu.tx(tx).clone();
        self.tsu.free(tx);
        match (t.owner, op) {
            (Owner::Rmw { program }, _) => {
                // Read half of a read-modify-write: now program the merged page (which
                // invalidates the page just read and remaps the logical page).
                self.ftl.prefetch_page(t.ppn);
                self.ftl.prefetch_entry(t.lpn);
                self.enqueue(program);
            }
            (Owner::Request(mr), FlashOp::Read) => {
                if let Some(o) = &mut self.oracle {
                    let ppn = (t.src_ppn != NONE).then_some(t.ppn);
                    o.saw(DataEvent::Read { lpn: t.lpn, mask: t.sector_mask, ppn, what: "flash read" });
                }
                self.committer.flash_finished(&mut self.mrs[mr]);
                self.mr_flash_done(mr);
            }
            (Owner::Request(mr), _) => {
                self.committer.flash_finished(&mut self.mrs[mr]);
                self.mr_done(mr);
            }
            (Owner::WriteBack { .. }, _) => {
                // With release at eviction, the write that evicted it may be done now.
                let evicted_for = self.cache.as_mut().expect("write-back without a cache").writeback_done(t.lpn);
                self.drain_cache_waiting();
                if let Some(mr) = evicted_for {
                    self.mr_done(mr);
                }
            }
            // Dummy pages, and a translation page's program: nothing waits for them.
            (Owner::EvictionPad | Owner::GcPad, _) | (Owner::Map, FlashOp::Program | FlashOp::Copyback) => {}
            (Owner::Map, FlashOp::Read) => self.map_read_done(t.lpn),
            // A GC read whose page was overwritten or trimmed since the victim was chosen
            // has nothing to move; a GC program or copyback finished its move.
            (Owner::Gc { plane }, FlashOp::Read) => {
                self.stats.saw(Seen::GcPageRead);
                let mut steps = self.take_steps();
                self.ftl.move_read_done(plane, None, self.tsu.chip_load(), &mut steps);
                self.apply_steps(steps);
            }
            (Owner::Gc { plane }, FlashOp::Program | FlashOp::Copyback) => self.gc_move_done(plane),
            (Owner::Gc { plane }, FlashOp::Erase) => self.gc_erased(plane),
            (Owner::Migration, FlashOp::Read) => unreachable!("a migration read is routed before"),
            (Owner::Migration, _) => self.migration_done(),
            (Owner::Map, FlashOp::Erase) => unreachable!("the map cache erases nothing"),
        }
    }

    // ---------------------------------------------------------------- GC

    /// A GC read of a victim page, valid or not, is done (`ftl.gc.read_victim =
    /// "all_pages"`): the page's spare area names its logical page, which the GC manager
    /// looks up in the map (FMMU §3); the move goes on when the firmware answers.
    fn victim_page_read(&mut self, tx: u32) {
        self.stats.saw(Seen::GcPageRead);
        let lpn = self.ftl.spare_lpn(self.tsu.tx(tx).src_ppn);
        if !self.ftl.gc_looks_up(lpn) {
            return self.victim_page_looked_up(tx);
        }
        self.stats.saw(Seen::GcLookup);
        match self.ftl.translate(lpn, Waiter::GcRead(tx), self.q.now()) {
            Translated::Now => self.victim_page_looked_up(tx),
            Translated::At(at) => self.q.at(at, Event::GcLookedUp { tx }),
            Translated::Pending => {}
        }
        self.issue_map_io();
    }

    /// The lookup of a GC read's page is answered: if the map still points at the page read,
    /// it moves (its program follows in the read's record); otherwise the read is all there
    /// was to do.
    pub(super) fn victim_page_looked_up(&mut self, tx: u32) {
        let t = self.tsu.tx(tx);
        let (Owner::Gc { plane }, src) = (t.owner, t.src_ppn) else { unreachable!("a GC read") };
        let lpn = self.ftl.spare_lpn(src);
        let live = lpn != NONE && self.ftl.lpn_at(src) == lpn;
        let mut steps = self.take_steps();
        if live {
            self.tsu.name_page(tx, lpn);
            self.ftl.prefetch_entry(lpn);
            self.ftl.move_read_done(plane, Some((tx, lpn, src)), self.tsu.chip_load(), &mut steps);
        } else {
            self.tsu.free(tx);
            self.ftl.move_read_done(plane, None, self.tsu.chip_load(), &mut steps);
        }
        self.apply_steps(steps);
    }

    /// Start GC on a plane, as its unit collects (`ftl::gc_job`): moves of its victims'
    /// valid pages (read then program, or copyback), then the erase.
    pub(super) fn start_gc(&mut self, plane: u32) {
        let mut steps = self.take_steps();
        let mut pages = std::mem::take(&mut self.gc_pages);
        self.ftl.gc_job(plane, &mut steps, &mut pages);
        self.gc_pages = pages;
        self.apply_steps(steps);
    }

    /// Apply a job's steps in order (see [`Step`]); the vector is kept for the next job.
    pub(super) fn apply_steps(&mut self, mut steps: Vec<Step>) {
        let full = self.full_mask();
        for step in steps.drain(..) {
            match step {
                Step::Started => self.gc_started(),
                Step::Move { page, plane } => {
                    let op = self.ftl.gc_move_op();
                    let owner = Owner::Gc { plane: self.geo.plane_of(page.ppn) };
                    let spec = NewTx { src_ppn: page.ppn, ..NewTx::new(owner, op, plane, page.lpn, full) };
                    let tx = self.tsu.create(spec, self.q.now());
                    self.enqueue(tx);
                }
                Step::Collect { plane, if_idle } => {
                    let mut inner = self.take_steps();
                    let mut pages = std::mem::take(&mut self.gc_pages);
                    self.ftl.collect(plane, if_idle, &mut inner, &mut pages);
                    self.gc_pages = pages;
                    self.apply_steps(inner);
                }
                Step::Program { tx, plane } => {
                    if let Some(plane) = plane {
                        self.tsu.retarget(tx, plane);
                    }
                    self.tsu.turn_into_program(tx, self.q.now());
                    self.enqueue(tx);
                }
                Step::ProgramGroup { txs, first_plane, buffer_first } => {
                    if !(buffer_first && self.moves_to_buffer(&txs)) {
                        self.program_group(&txs, first_plane);
                    }
                }
                Step::Pads { plane, count } => self.enqueue_pads(plane, count),
                Step::GroupStart => self.deferral.depth += 1,
                Step::GroupEnd => self.end_deferral(),
                Step::Erase { plane, victim } => self.enqueue_erase(plane, victim),
                Step::MoveDone { plane } => self.gc_move_done(plane),
                Step::MapIo => self.issue_map_io(),
                Step::MigrateRead { page, plane } => {
                    let spec = NewTx {
                        src_ppn: page.ppn,
                        ..NewTx::new(Owner::Migration, FlashOp::Read, plane, page.lpn, full)
                    };
                    let tx = self.tsu.create(spec, self.q.now());
                    self.enqueue(tx);
                }
                Step::Free { tx } => self.tsu.free(tx),
            }
        }
        self.steps.push(steps);
    }

    /// An empty step buffer (one kept from an earlier job, so jobs do not allocate).
    pub(super) fn take_steps(&mut self) -> Vec<Step> {
        self.steps.pop().unwrap_or_default()
    }

    /// A GC invocation started: count it (the first starts the free-block average).
    fn gc_started(&mut self) {
        self.stats.saw(Seen::GcStarted { now: self.q.now() });
    }

    /// Planes whose GC found no victim and have gained an invalid page since try again.
    #[inline]
    pub(super) fn wake_gc(&mut self) {
        while let Some(plane) = self.ftl.take_gc_wakeup() {
            if self.ftl.needs_gc(plane) {
                self.start_gc(plane);
            }
        }
    }

    /// A move off `plane` is done.
    fn gc_move_done(&mut self, plane: u32) {
        let mut steps = self.take_steps();
        self.ftl.move_finished(plane, self.q.now(), &mut steps);
        self.apply_steps(steps);
    }

    fn enqueue_erase(&mut self, plane: u32, victim: u32) {
        let first_page = self.geo.ppn(plane, self.geo.block_in_plane(victim), 0);
        let spec = NewTx { ppn: first_page, ..NewTx::new(Owner::Gc { plane }, FlashOp::Erase, plane, NONE, 0) };
        let e = self.tsu.create(spec, self.q.now());
        self.enqueue(e);
    }

    /// A victim was erased: its block is free; the plane may need GC again.
    fn gc_erased(&mut self, plane: u32) {
        let block = self.ftl.finish_gc(plane);
        self.stats.saw(Seen::BlockErased);
        if let Some(o) = &mut self.oracle {
            o.saw(DataEvent::Erased { first_ppn: block * self.geo.pages_per_block, pages: self.geo.pages_per_block });
        }
        if self.ftl.needs_gc(plane) {
            self.start_gc(plane);
        }
    }

    /// Moves programmed together: move i on plane `first_plane + i`, dummy pages on the
    /// die's planes after them, all reaching the chips together.
    fn program_group(&mut self, txs: &[u32], first_plane: u32) {
        let n = self.geo.planes_per_die;
        self.deferral.depth += 1;
        for (i, &t) in txs.iter().enumerate() {
            self.tsu.retarget(t, first_plane + i as u32);
            self.tsu.turn_into_program(t, self.q.now());
            self.enqueue(t);
        }
        for i in txs.len() as u32..n {
            self.enqueue_pads(first_plane + i, 1);
        }
        self.end_deferral();
    }

    /// Moves into the write buffer instead of flash (`ftl.gc.die_leftover = "buffer"`): each
    /// page still live becomes a dirty page of its die's buffer list and its flash copy is
    /// dropped, and each move is done. False (nothing done) if a page of the group is being
    /// written back: its write-back maps over the victim copy when it starts, so the group
    /// is programmed instead.
    fn moves_to_buffer(&mut self, group: &[u32]) -> bool {
        let full = self.full_mask();
        let cache = self.cache.as_mut().expect("Die-GC into the buffer needs the cache");
        if group.iter().any(|&t| cache.writing_back(self.tsu.tx(t).lpn)) {
            return false;
        }
        let mut sources = Vec::with_capacity(group.len());
        for &t in group {
            let (lpn, ppn) = (self.tsu.tx(t).lpn, self.tsu.tx(t).src_ppn);
            self.tsu.free(t);
            if self.ftl.lpn_at(ppn) == lpn && self.ftl.mapped_page(lpn) == ppn {
                cache.gc_insert(lpn, full);
                if let Some(o) = &mut self.oracle {
                    o.saw(DataEvent::CacheFilled { lpn, ppn });
                }
                self.ftl.move_to_buffer(lpn, ppn);
                self.stats.saw(Seen::GcMoveBuffered);
            }
            sources.push(self.geo.plane_of(ppn));
        }
        for source in sources {
            self.gc_move_done(source);
        }
        self.wake_gc();
        true
    }

    /// `count` dummy GC programs on `plane`.
    fn enqueue_pads(&mut self, plane: u32, count: u32) {
        for _ in 0..count {
            let full = self.full_mask();
            let tx = self.tsu.create(NewTx::new(Owner::GcPad, FlashOp::Program, plane, NONE, full), self.q.now());
            self.enqueue(tx);
        }
    }

    /// Close a round opened with `deferral.depth += 1`: the chips it gave work start.
    fn end_deferral(&mut self) {
        self.deferral.depth -= 1;
        if self.deferral.depth == 0 {
            self.start_deferred();
        }
    }
}
