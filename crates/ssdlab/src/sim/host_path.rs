//! The host side of the routes: a flow's request into a submission queue, fetched into a tag,
//! admitted past the hazard check, split into memory requests, through the cache or to the
//! device-level scheduler; and back: read data over the link, completion, the tag freed.

use super::{Io, Simulation};
use crate::cache::{Offer, WriteOutcome, Writeback};
use crate::check::DataEvent;
use crate::engine::{Event, Lane};
use crate::ftl::mapping::Translation;
use crate::ftl::{Translated, Waiter};
use crate::hil::device_queue::Admission;
use crate::hil::{page_span, split, MemoryRequest, MrOp};
use crate::host::tenants::Next;
use crate::host::IoOp;
use crate::nand::FlashOp;
use crate::nand::NONE;
use crate::stats::Seen;
use crate::tsu::{NewTx, Owner};

impl Simulation {
    /// Submit a flow's requests while its queue has room; schedule its next arrival.
    pub(super) fn refill_flow(&mut self, f: usize) {
        let now = self.q.now();
        loop {
            match self.tenants.next(f, now) {
                Next::Submit(req) => {
                    self.io_seq += 1;
                    if let Some(live) = &mut self.live {
                        live.issued(self.io_seq, self.tenants.issued(f) - 1);
                    }
                    let (first_lpn, pages) = page_span(req.lba, req.sectors, self.geo.sectors_per_page());
                    let io = Io {
                        flow: f as u32,
                        req,
                        first_lpn,
                        pages,
                        seq: self.io_seq,
                        fetched_ps: 0,
                        pending_mrs: 0,
                        version: 0,
                    };
                    let io = self.ios.insert(io);
                    self.hif.submit(f, io, self.io_seq, now);
                }
                Next::ArriveAt(at) => {
                    self.q.at(at, Event::HostArrival { flow: f as u32 });
                    break;
                }
                Next::Wait => break,
            }
        }
        self.fetch();
    }

    /// Move commands from submission queues to free device tags. Kept out of line: it
    /// carries admission and request start inlined, and both the host and completion paths
    /// call it; one copy keeps the hot code small enough for the instruction cache.
    #[inline(never)]
    pub(super) fn fetch(&mut self) {
        while self.device_queue.tags_free() > 0 {
            let now = self.q.now();
            let Some((io, at)) = self.hif.fetch(now) else { break };
            self.device_queue.take_tag();
            self.ios[io].fetched_ps = now;
            if at > now {
                self.q.at(at, Event::CommandFetched { io });
            } else {
                self.admit(io);
            }
        }
    }

    /// A command has a tag: check hazards, then start it.
    #[inline(always)]
    pub(super) fn admit(&mut self, io: u32) {
        self.idle.epoch = self.idle.epoch.wrapping_add(1);
        let i = &self.ios[io];
        let a =
            Admission { io, first_lpn: i.first_lpn, pages: i.pages, writes: i.req.op != IoOp::Read, fua: i.req.fua };
        if self.device_queue.admit(a) {
            self.start_io(io);
        }
    }

    /// Split a request into memory requests, one per page it touches. Reads (and trims) are
    /// ready at once; writes wait for their data to cross the link.
    #[inline(always)]
    fn start_io(&mut self, io: u32) {
        let now = self.q.now();
        let (req, flow, seq) = (self.ios[io].req, self.ios[io].flow, self.ios[io].seq);
        let op = match req.op {
            IoOp::Read => MrOp::Read,
            IoOp::Write => MrOp::Write,
            IoOp::Trim => MrOp::Trim,
        };
        if op == MrOp::Write {
            if let Some(o) = &mut self.oracle {
                self.ios[io].version = o.new_version();
            }
        }
        self.ios[io].pending_mrs = self.ios[io].pages;
        for (lpn, mask) in split(req.lba, req.sectors, self.geo.sectors_per_page()) {
            let m = MemoryRequest {
                io,
                flow,
                io_seq: seq,
                lpn,
                sector_mask: mask,
                op,
                plane: NONE,
                committed: false,
                waiting: false,
            };
            let mr = self.mrs.insert(m);
            if op == MrOp::Write {
                if let Some(o) = &mut self.oracle {
                    o.saw(DataEvent::HostWrote { lpn, mask, version: self.ios[io].version });
                }
                // Write data crosses the link before the memory request can go anywhere; its
                // map entry is looked up then.
                self.ftl.prefetch_entry(lpn);
                if self.parked.len() <= io as usize {
                    self.parked.resize_with(io as usize + 1, Vec::new);
                }
                self.parked[io as usize].push(mr);
            } else {
                self.mr_ready(mr);
            }
        }
        if op == MrOp::Write {
            let end = self.hif.to_device(now, req.sectors as u64);
            self.q.at_in_lane(Lane::LinkUp, end, Event::WriteDataIn { io });
        } else {
            self.schedule_arrivals();
        }
    }

    /// New memory requests are ready: run the scheduler now, or once the event that made
    /// them ready is done (so a round sees every request that arrived with it).
    pub(super) fn schedule_arrivals(&mut self) {
        if !self.committer.batches_arrivals() {
            self.run_scheduler();
        } else {
            self.schedule_pending = true;
        }
    }

    /// A write's data is in device DRAM: its memory requests are ready.
    pub(super) fn write_data_in(&mut self, io: u32) {
        let mut parked = std::mem::take(&mut self.parked[io as usize]);
        for &mr in &parked {
            self.mr_ready(mr);
        }
        parked.clear();
        self.parked[io as usize] = parked;
        self.schedule_arrivals();
    }

    /// A memory request's data is where it needs to be: serve it from the cache, finish it
    /// (trim, zero read), or hand it to the device-level scheduler with its target.
    #[inline(always)]
    fn mr_ready(&mut self, mr: u32) {
        match self.mrs[mr].op {
            MrOp::Trim => self.trim(mr),
            MrOp::Read => self.read_ready(mr),
            MrOp::Write => {
                if self.cache.is_some() {
                    self.cache_write(mr);
                } else if self.ftl.writes_translate_first() {
                    self.translate(mr, Waiter::Write(mr));
                } else {
                    self.write_translated(mr);
                }
            }
        }
    }

    /// Only whole pages are trimmed; a partial TRIM leaves the page as it is.
    fn trim(&mut self, mr: u32) {
        let (lpn, mask) = (self.mrs[mr].lpn, self.mrs[mr].sector_mask);
        if mask == self.full_mask() {
            if let Some(c) = &mut self.cache {
                c.trim(lpn);
                while let Some(dropped) = c.take_dropped() {
                    if let Some(o) = &mut self.oracle {
                        o.saw(DataEvent::CacheDropped { lpn: dropped });
                    }
                }
            }
            self.ftl.trim(lpn, self.q.now());
            self.wake_gc();
            if self.ftl.translates() {
                self.issue_map_io();
            }
            if let Some(o) = &mut self.oracle {
                o.saw(DataEvent::Trimmed { lpn });
            }
        }
        self.q.after(0, Event::CacheServed { mr });
    }

    /// A read: a cache hit, a page on flash (to the scheduler), or a never-written page.
    #[inline(always)]
    fn read_ready(&mut self, mr: u32) {
        let (lpn, mask) = (self.mrs[mr].lpn, self.mrs[mr].sector_mask);
        if let Some(c) = &mut self.cache {
            if c.read(lpn, mask) {
                self.stats.saw(Seen::CacheRead { hit: true });
                if let Some(o) = &mut self.oracle {
                    o.saw(DataEvent::Read { lpn, mask, ppn: None, what: "cache read" });
                }
                let bytes = u64::from(mask.count_ones()) * u64::from(self.geo.sector_bytes);
                let access_ps = c.access(self.q.now(), bytes);
                self.q.after(access_ps, Event::CacheServed { mr });
                return;
            }
            self.stats.saw(Seen::CacheRead { hit: false });
        }
        if self.ftl.translates() {
            self.translate(mr, Waiter::Read(mr));
        } else {
            self.read_translated(mr);
        }
    }

    /// A memory request asks the FTL for its translation: it goes on now, when the
    /// firmware is done, or when its translation page arrives.
    #[cold]
    fn translate(&mut self, mr: u32, waiter: Waiter) {
        let now = self.q.now();
        match self.ftl.translate(self.mrs[mr].lpn, waiter, now) {
            Translated::Now => self.translated(waiter),
            Translated::At(at) => self.q.at(at, Event::Translated { mr }),
            Translated::Pending => {}
        }
        self.issue_map_io();
    }

    /// A memory request's translation is ready.
    pub(super) fn translated(&mut self, waiter: Waiter) {
        match waiter {
            Waiter::Read(mr) => self.read_translated(mr),
            Waiter::Write(mr) => self.write_translated(mr),
            Waiter::GcRead(tx) => self.victim_page_looked_up(tx),
        }
    }

    /// A write goes to the device-level scheduler with its plane.
    fn write_translated(&mut self, mr: u32) {
        self.mrs[mr].plane = self.ftl.write_plane(self.mrs[mr].lpn, self.tsu.chip_load(), self.q.now());
        self.committer.ready(mr, &self.mrs);
    }

    /// A read whose translation is known: to flash, or finished if never written.
    #[inline(always)]
    fn read_translated(&mut self, mr: u32) {
        let (lpn, mask) = (self.mrs[mr].lpn, self.mrs[mr].sector_mask);
        self.ftl.host_read(lpn, self.q.now());
        match self.ftl.translate_read(lpn) {
            Translation::Flash(ppn) => {
                self.mrs[mr].plane = self.geo.plane_of(ppn);
                self.committer.ready(mr, &self.mrs);
            }
            Translation::Unwritten => {
                if let Some(o) = &mut self.oracle {
                    o.saw(DataEvent::Read { lpn, mask, ppn: None, what: "unwritten read" });
                }
                self.q.after(0, Event::CacheServed { mr });
            }
            Translation::Pending => unreachable!("the true map translates without waiting"),
        }
    }

    pub(super) fn full_mask(&self) -> u64 {
        let spp = self.geo.sectors_per_page();
        if spp == 64 {
            u64::MAX
        } else {
            (1u64 << spp) - 1
        }
    }

    /// A memory request served without flash (cache, trim, never-written page).
    pub(super) fn cache_served(&mut self, mr: u32) {
        match self.mrs[mr].op {
            MrOp::Read => self.mr_flash_done(mr),
            // A write that evicted pages (`cache.slot_release = "evicted"`) is done when
            // they are programmed too.
            MrOp::Write if self.cache.as_mut().is_some_and(|c| !c.write_stored(mr)) => {}
            _ => self.mr_done(mr),
        }
    }

    // ---------------------------------------------------------------- cache

    /// A write goes into the cache, or waits there for room while a write-back makes some.
    #[cold]
    fn cache_write(&mut self, mr: u32) {
        let (lpn, mask) = (self.mrs[mr].lpn, self.mrs[mr].sector_mask);
        match self.cache.as_mut().expect("cache on").offer(mr, lpn, mask) {
            Offer::Stored(outcome) => self.cache_stored(mr, outcome),
            Offer::Waits => {
                self.stats.saw(Seen::CacheWait);
                if self.cache.as_ref().expect("cache on").admission_blocked() {
                    return; // there is room: the write waits for flash to drain
                }
                self.start_writeback();
                if self.cache.as_ref().expect("cache on").releases_at_eviction() {
                    // The evicted pages' slots are free already.
                    self.drain_cache_waiting();
                }
            }
        }
    }

    /// A write is in the cache: it completes at DRAM speed.
    #[cold]
    fn cache_stored(&mut self, mr: u32, outcome: WriteOutcome) {
        let (lpn, mask, io) = (self.mrs[mr].lpn, self.mrs[mr].sector_mask, self.mrs[mr].io);
        if outcome == WriteOutcome::Absorbed {
            self.stats.saw(Seen::CacheWriteHit);
        }
        let cache = self.cache.as_mut().expect("cache on");
        while let Some(dropped) = cache.take_dropped() {
            if let Some(o) = &mut self.oracle {
                o.saw(DataEvent::CacheDropped { lpn: dropped });
            }
        }
        if let Some(o) = &mut self.oracle {
            o.saw(DataEvent::CacheWrote { lpn, mask, version: self.ios[io].version });
        }
        let bytes = u64::from(mask.count_ones()) * u64::from(self.geo.sector_bytes);
        let access_ps = cache.access(self.q.now(), bytes);
        self.q.after(access_ps, Event::CacheServed { mr });
        self.destage_eagerly();
    }

    /// Eager destaging: start write-backs while the cache wants more pages in flight.
    #[cold]
    fn destage_eagerly(&mut self) {
        while self.cache.as_ref().is_some_and(|c| c.should_destage()) {
            self.start_writeback();
        }
    }

    /// Room was made: writes waiting for it go in, in order, while there is room; then
    /// the next write-back starts if writes still wait. When an eviction frees its slots at
    /// once (`cache.slot_release = "evicted"`), this repeats until no write waits or no
    /// write-back can start.
    #[cold]
    pub(super) fn drain_cache_waiting(&mut self) {
        loop {
            while let Some((mr, outcome)) = self.cache.as_mut().expect("cache on").admit_waiting() {
                self.cache_stored(mr, outcome);
            }
            let cache = self.cache.as_ref().expect("cache on");
            let again = cache.releases_at_eviction();
            if cache.waiting() == 0 || !self.start_writeback() || !again {
                break;
            }
        }
        self.destage_eagerly();
    }

    /// Write dirty pages back to flash: the least recently used one, or the group
    /// `cache.policy` takes. A group's programs reach their chips together, so they can go
    /// as one multi-plane command. Whether any page went.
    #[cold]
    fn start_writeback(&mut self) -> bool {
        let mut group = std::mem::take(&mut self.writeback_group);
        let cache = self.cache.as_mut().expect("cache on");
        cache.start_writeback(&mut group);
        cache.charge_eviction(&group);
        let together = group.len() > 1;
        self.deferral.depth += u32::from(together);
        for wb in &group {
            let Writeback { lpn, mask, trim_gen: gen, plane } = *wb;
            if wb.is_pad() {
                let plane = plane.expect("a pad has its plane");
                self.stats.saw(Seen::CacheWriteback { pad: true });
                let full = self.full_mask();
                let tx =
                    self.tsu.create(NewTx::new(Owner::EvictionPad, FlashOp::Program, plane, NONE, full), self.q.now());
                self.enqueue(tx);
                continue;
            }
            self.stats.saw(Seen::CacheWriteback { pad: false });
            let plane = match plane {
                Some(p) => self.ftl.assign_plane(lpn, p),
                None => self.ftl.write_plane(lpn, self.tsu.chip_load(), self.q.now()),
            };
            let spec = NewTx::new(Owner::WriteBack { trim_gen: gen }, FlashOp::Program, plane, lpn, mask);
            let tx = self.tsu.create(spec, self.q.now());
            if let Some(o) = &mut self.oracle {
                o.saw(DataEvent::StageCacheData { tx, lpn });
            }
            self.enqueue_program(tx);
        }
        if together {
            self.deferral.depth -= 1;
            if self.deferral.depth == 0 {
                self.start_deferred();
            }
        }
        let started = !group.is_empty();
        self.writeback_group = group;
        started
    }

    // ---------------------------------------------------------------- completion

    /// A user read finished on flash: send its data to the host (with whole-request reads,
    /// it waits in DRAM for the request's other pages).
    pub(super) fn mr_flash_done(&mut self, mr: u32) {
        if self.hif.whole_request_reads() {
            self.mr_done(mr);
            return;
        }
        let sectors = self.mrs[mr].sector_mask.count_ones() as u64;
        let end = self.hif.to_host(self.q.now(), sectors);
        self.q.at_in_lane(Lane::LinkDown, end, Event::ReadDataOut { mr });
    }

    pub(super) fn mr_done(&mut self, mr: u32) {
        let io = self.mrs[mr].io;
        self.mrs.remove(mr);
        let i = &mut self.ios[io];
        i.pending_mrs -= 1;
        if i.pending_mrs == 0 {
            self.respond(io);
        }
    }

    /// A request's last memory request is done: complete it now, or when the host
    /// interface's last transfers for it (whole-request read data, completion entry) arrive.
    fn respond(&mut self, io: u32) {
        let now = self.q.now();
        let req = &self.ios[io].req;
        let read_sectors = if req.op == IoOp::Read { req.sectors as u64 } else { 0 };
        let at = self.hif.respond(now, read_sectors);
        if at > now {
            self.q.at(at, Event::Responded { io });
        } else {
            self.complete(io);
        }
    }

    /// A request completed: record it, free its tag, start what waited on it, refill.
    pub(super) fn complete(&mut self, io: u32) {
        let now = self.q.now();
        let i = &self.ios[io];
        let (flow, req, fetched) = (i.flow as usize, i.req, i.fetched_ps);
        if let Some(live) = &mut self.live {
            live.completed(i.flow, i.seq, now);
        }
        let bytes = req.sectors as u64 * self.geo.sector_bytes as u64;
        let counted = self.stats.request_done(flow, &req, fetched, now, bytes);
        if let (true, Some(log)) = (counted, &mut self.latency_log) {
            log.row(flow, &req, now, bytes);
        }
        self.ios.remove(io);
        self.tenants.completed(flow);
        let mut unblocked = std::mem::take(&mut self.unblocked);
        unblocked.clear();
        self.device_queue.release(io, &mut unblocked);
        for &x in &unblocked {
            self.start_io(x);
        }
        self.unblocked = unblocked;
        self.last_completion_ps = now;
        self.refill_flow(flow);
        self.fetch();
        if self.ios.live() == 0 {
            if self.all_flows_done() {
                self.finished = true;
            } else {
                self.host_went_idle();
            }
        }
    }
}
