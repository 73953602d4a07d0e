//! Flash translation layer: mapping, allocation, block management, GC victim choice, wear
//! levelling and preconditioning.
//!
//! Owns where every logical page lives. It answers the simulation loop's questions — where
//! does this read go ([`Ftl::translate_read`]), which plane gets this write
//! ([`Ftl::write_plane`]), which page does this program take ([`Ftl::allocate`]), which
//! block should GC clean next and which pages must it move ([`Ftl::start_gc`]) — and keeps
//! the books (map, reverse map, valid counts, free blocks) consistent as pages are
//! programmed, invalidated and erased. Its state is private: the loop uses these methods, and
//! the TSU's builder reads it through [`FtlView`]. The flash transactions that carry out GC
//! are issued by the loop (`sim`), through the TSU, like any other work.
//!
//! Parts, one module each: [`mapping`] (the map; [`mapping::Mapping`] for mapping schemes),
//! [`alloc`] (plane choice for writes, [`AllocationScheme`]), [`blocks`] (block manager),
//! [`gc`] (GC control and [`VictimPolicy`]), [`precondition`]. The choices ([`MappingKind`],
//! [`AllocationScheme`], [`VictimPolicy`], [`UnwrittenRead`]) are also the types of their
//! config keys, so a config that deserialises names only valid ones.

pub mod alloc;
pub mod blocks;
pub mod config;
mod estimate;
pub mod firmware;
pub mod gc;
pub mod gc_job;
pub mod job;
pub mod mapping;
pub mod migration_job;
pub mod precondition;

use serde::{Deserialize, Serialize};

use crate::engine::Ps;
use crate::ftl::alloc::pacp::{ChannelPartition, IdleVictims};
use crate::ftl::config::FtlConfig;
use crate::nand::config::NandConfig;
use crate::nand::{FlashOp, Geometry, Lpn, Ppn, NONE};
use crate::tsu::builder::FtlView;
pub use alloc::pacp::{PartitionReport, Scheme as PartitionScheme};
use alloc::Allocator;
pub use alloc::{static_plane, AllocationScheme, Level};
pub use blocks::{BlockState, Blocks, LivePage, Stream};
pub use estimate::{blocks_opened, chunks_written, FtlLoad};
use firmware::{Charges, Firmware, MapWork};
pub use gc::die_gc::DieLeftover;
use gc::Gc;
pub use gc::{GcUnit, Limits, UrgentWhen, VictimPolicy, VictimRead};
pub use job::Step;
use mapping::demand::config::{TpRead, UpdateOrder};
use mapping::demand::DemandMap;
pub use mapping::demand::{Lookup, MapIo, MapStats, Waiter};
use mapping::page::PageMap;
pub use mapping::MappingKind;
use mapping::{Mapping, Translation};

/// What a read of a never-written logical page does (`ftl.unwritten_read`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnwrittenRead {
    /// Read the page static allocation would have given it (a fresh drive has realistic
    /// read timing).
    Flash,
    /// Complete without touching flash.
    Zero,
}

/// Which block a plane opens for user data (`ftl.block_alignment`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockAlignment {
    /// Each plane its own next free block.
    #[default]
    None,
    /// The planes of a die open blocks of the same index (an aligned block set, SPD §3.2):
    /// the index another plane of the die opened, else one free on every plane of the die
    /// (`crate::ftl::blocks::aligned_block`).
    Die,
}

/// When a request's translation is ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Translated {
    Now,
    /// After the firmware's time for it.
    At(Ps),
    /// Its translation page is being read: it comes back from [`Ftl::map_read_done`].
    Pending,
}

pub struct Ftl {
    geo: Geometry,
    /// The true map: data logical pages, then (with a demand-based map) one entry per
    /// translation page, its place in flash (the GTD).
    map: PageMap,
    logical_pages: u32,
    demand: Option<Box<DemandMap>>,
    blocks: Blocks,
    alloc: Allocator,
    gc: Gc,
    firmware: Firmware,
    unwritten_read: UnwrittenRead,
    /// Flushes and scanned blocks already charged to the firmware.
    charged: (u64, u64),
    /// When the map I/O the current call asks for may go out: after the firmware work that
    /// emits it, a miss's victim search and issue or a flush's scan (docs/techniques.md §9.7:
    /// each step holds its core for its cost, then emits flash transactions).
    io_at: Ps,
    waiters: Vec<Waiter>,
    /// A map cache, or firmware time for lookups: reads ask [`Ftl::translate`].
    translates: bool,
    /// Where Die-GC's last partial group of moves goes (`ftl.gc.die_leftover`).
    die_leftover: DieLeftover,
    /// Lv et al.'s or PACP's channel partition (`ftl.allocation = "lv_partition" | "pacp"`).
    partition: Option<Box<ChannelPartition>>,
    /// The idle-time migration under way, if any.
    migration: migration_job::MigrationJob,
}

impl Ftl {
    /// The FTL of a fresh drive; [`crate::Error::OutOfMemory`] if its block state cannot be
    /// allocated.
    pub fn new(nand: &NandConfig, f: &FtlConfig, seed: u64) -> crate::error::Result<Ftl> {
        let geo = f.geometry(nand);
        let logical = logical_pages(&geo, f.overprovisioning_ratio);
        let demand = f.mapping.defaults().map(|_| {
            let p = f.map_cache.resolve("", f.mapping, geo.page_bytes).expect("validated map cache");
            Box::new(DemandMap::new(p, logical, geo.planes()))
        });
        let tps = demand.as_ref().map_or(0, |d| d.translation_pages());
        let firmware = Firmware::new(&f.firmware);
        let times_map_work = firmware.times_map_work();
        let mut blocks = Blocks::new(&geo, f.wear_leveling.dynamic)?
            .with_alignment(f.block_alignment)
            .with_gc_alignment(f.gc.para_aligned());
        if f.gc.read_victim == VictimRead::AllPages {
            blocks = blocks.keep_spare_area(logical)?;
        }
        let partition = f.allocation.partition().map(|scheme| {
            let n_read = if f.partition.n_read > 0 { f.partition.n_read } else { geo.channels / 2 };
            Box::new(ChannelPartition::new(scheme, &f.partition, &geo, logical, n_read))
        });
        Ok(Ftl {
            partition,
            migration: Default::default(),
            die_leftover: f.gc.die_leftover,
            map: PageMap::new(logical + tps),
            logical_pages: logical,
            demand,
            blocks,
            alloc: Allocator::new(&geo, f.allocation.clone()),
            gc: Gc::new(&f.gc, f.limits(geo.blocks_per_plane), f.wear_leveling.static_threshold, &geo, seed),
            firmware,
            unwritten_read: f.unwritten_read,
            charged: (0, 0),
            io_at: 0,
            waiters: Vec::new(),
            translates: f.mapping != MappingKind::Full || times_map_work,
            geo,
        })
    }

    /// The map and reverse map are about to be filled (preconditioning): make each one flat
    /// table, backed by huge pages; [`crate::Error::OutOfMemory`] if they cannot be had.
    pub fn prepare_fill(&mut self) -> crate::error::Result<()> {
        self.map.make_dense()?;
        self.blocks.make_flat()
    }

    pub fn geo(&self) -> &Geometry {
        &self.geo
    }

    pub fn logical_pages(&self) -> u32 {
        self.logical_pages
    }

    /// Physical pages that can hold data in steady state: all blocks but the ones GC keeps
    /// free and the open frontiers (one per stream per plane).
    pub fn data_pages(&self) -> u64 {
        let per_plane = self.gc.limits.data_blocks_per_plane(&self.geo) as u64;
        per_plane * self.geo.planes() as u64 * self.geo.pages_per_block as u64
    }

    /// Desnoyers' spare factor S_f = (data pages − logical pages) / data pages, where data
    /// pages are all pages but the open frontiers (two or three blocks per plane) and the free blocks
    /// GC keeps: `mean_free_blocks` per plane as measured while GC ran, or the GC threshold
    /// when GC never ran.
    pub fn effective_spare_factor(&self, mean_free_blocks: Option<f64>) -> f64 {
        let t = match mean_free_blocks {
            Some(free) => {
                (self.geo.blocks_per_plane as f64 - free - self.gc.limits.frontiers as f64)
                    * self.geo.planes() as f64
                    * self.geo.pages_per_block as f64
            }
            None => self.data_pages() as f64,
        };
        (t - self.logical_pages() as f64) / t
    }

    // ------------------------------------------------------------ translation

    /// Where a read of `lpn` goes: its page; for a never-written page, the place static CWDP
    /// allocation would have given it, or no flash at all with `ftl.unwritten_read = "zero"`.
    pub fn translate_read(&self, lpn: Lpn) -> Translation {
        let ppn = self.map.get(lpn);
        if ppn != NONE {
            return Translation::Flash(ppn);
        }
        match self.unwritten_read {
            UnwrittenRead::Flash => Translation::Flash(self.phantom_ppn(lpn)),
            UnwrittenRead::Zero => Translation::Unwritten,
        }
    }

    /// The page `lpn` is mapped to, or NONE.
    #[inline]
    pub fn mapped_page(&self, lpn: Lpn) -> Ppn {
        self.map.get(lpn)
    }

    /// The page a user read of `lpn` reads now: its page, or where a never-written page is
    /// read from.
    #[inline]
    pub fn read_page(&self, lpn: Lpn) -> Ppn {
        let ppn = self.map.get(lpn);
        if ppn != NONE {
            ppn
        } else {
            self.phantom_ppn(lpn)
        }
    }

    /// The logical page physical page `ppn` holds now, or NONE.
    #[inline]
    pub fn lpn_at(&self, ppn: Ppn) -> Lpn {
        self.blocks.lpn_at(ppn)
    }

    /// The logical page `ppn`'s spare area names (valid or not; NONE for a dummy page), as a
    /// GC that reads every victim page learns it (`ftl.gc.read_victim = "all_pages"`).
    pub fn spare_lpn(&self, ppn: Ppn) -> Lpn {
        self.blocks.spare_lpn(ppn)
    }

    /// Whether GC looks `lpn`, read from a victim page's spare area, up in the map: a data
    /// page on an FTL whose map work is modelled. A translation page's address is in the
    /// GTD, which is all in RAM.
    pub fn gc_looks_up(&self, lpn: Lpn) -> bool {
        self.translates && lpn != NONE && !self.is_tp(lpn)
    }

    /// Where a never-written logical page is read from (no state is kept for it).
    pub fn phantom_ppn(&self, lpn: Lpn) -> Ppn {
        const CWDP: [Level; 4] = [Level::Channel, Level::Way, Level::Die, Level::Plane];
        let (plane, rest) = static_plane(&self.geo, &CWDP, lpn);
        // Block rest / pages_per_block, page rest % pages_per_block, folded into the plane.
        plane * self.geo.pages_per_plane() + self.geo.wrap_in_plane(rest)
    }

    /// Start loading `lpn`'s map entry (it is about to change).
    #[inline]
    pub fn prefetch_entry(&self, lpn: Lpn) {
        self.map.prefetch(lpn);
    }

    /// Start loading what invalidating `ppn` touches.
    #[inline]
    pub fn prefetch_page(&self, ppn: Ppn) {
        self.blocks.prefetch_page(ppn);
    }

    /// A memory request reaches the firmware at `now`: when it is done with it (the cores'
    /// time, `ftl.firmware`), or None when firmware time is not modelled.
    #[inline]
    pub fn firmware_done_at(&mut self, now: Ps) -> Option<Ps> {
        self.firmware.request_done_at(now)
    }

    // ------------------------------------------------------------ the map cache

    /// Whether translations go through a map cache (or take firmware time): then the loop
    /// asks [`Ftl::translate`] before a read (and a write, when the map says so).
    #[inline]
    pub fn translates(&self) -> bool {
        self.translates
    }

    /// Whether a host write waits for its map entry before it is programmed.
    pub fn writes_translate_first(&self) -> bool {
        self.demand.as_ref().is_some_and(|d| d.update_order() == UpdateOrder::TranslateFirst)
    }

    /// `waiter` (a memory request of `lpn`) needs its translation at `now`.
    pub fn translate(&mut self, lpn: Lpn, waiter: Waiter, now: Ps) -> Translated {
        self.io_at = now;
        let found = match &mut self.demand {
            Some(d) => d.lookup(lpn, waiter, &self.map),
            None => Lookup::Hit,
        };
        self.charge_flushes(now);
        let work = self.lookup_work(found);
        let done = self.firmware.map_work(now, work);
        match (found, done) {
            (Lookup::Miss, at) => {
                // The page's read goes out once the miss is handled.
                self.io_at = self.io_at.max(at.unwrap_or(now));
                Translated::Pending
            }
            (Lookup::Merged | Lookup::MissOnRead, _) => Translated::Pending,
            (_, Some(at)) => Translated::At(at),
            (_, None) => Translated::Now,
        }
    }

    /// An entry changed: the map cache takes the change (it holds its server's time).
    #[inline(never)]
    fn map_update(&mut self, lpn: Lpn, now: Ps) {
        self.io_at = now;
        let d = self.demand.as_mut().expect("a map cache");
        let found = d.update(lpn, &self.map);
        let work = self.lookup_work(found);
        let done = self.firmware.map_work(now, work);
        if work == MapWork::Miss {
            self.io_at = self.io_at.max(done.unwrap_or(now));
        }
        self.charge_flushes(now);
    }

    /// The work a lookup or update that found `found` costs (docs/techniques.md §9.7,
    /// "Charges" [I]): a miss searches a victim and asks for the read; a join of a transient
    /// CMT block only logs itself there, a hit's work; a CMT miss on another block of a page
    /// being read searches a victim like any miss (`charges = "once"`; a hit's work under
    /// the earlier `"with_fill"`).
    fn lookup_work(&self, found: Lookup) -> MapWork {
        match (found, self.firmware.charges()) {
            (Lookup::Miss, _) | (Lookup::MissOnRead, Charges::Once) => MapWork::Miss,
            _ => MapWork::Hit,
        }
    }

    /// Charge the flushes the map cache did since the last call.
    fn charge_flushes(&mut self, now: Ps) {
        let Some(d) = &self.demand else { return };
        let (flushes, blocks) = (d.stats.flushes, d.stats.flush_blocks_scanned);
        let (f0, b0) = self.charged;
        if flushes > f0 {
            self.charged = (flushes, blocks);
            for _ in f0..flushes {
                let done = self.firmware.map_work(now, MapWork::Flush { blocks: (blocks - b0) / (flushes - f0) });
                self.io_at = self.io_at.max(done.unwrap_or(now));
            }
        }
    }

    /// The next translation-page read or write the map cache needs, with when it may go out
    /// (after the firmware work that asked for it). Take them after each call that may ask:
    /// [`Ftl::translate`], [`Ftl::commit_write`], [`Ftl::trim`], [`Ftl::map_read_done`].
    pub fn take_map_io(&mut self) -> Option<(MapIo, Ps)> {
        let io = self.demand.as_mut()?.take_io()?;
        Some((io, self.io_at))
    }

    /// The logical page number a translation page is kept under (its GTD entry).
    #[inline]
    pub fn tp_lpn(&self, vtpn: u32) -> Lpn {
        self.logical_pages + vtpn
    }

    /// Whether `lpn` is a translation page's.
    #[inline]
    pub fn is_tp(&self, lpn: Lpn) -> bool {
        lpn >= self.logical_pages && lpn != NONE
    }

    /// Translation page `tp_lpn` arrived: the requests that waited on it, each with when
    /// the firmware has answered it (`None`: at once), in `resumed`.
    pub fn map_read_done(&mut self, tp_lpn: Lpn, now: Ps, resumed: &mut Vec<(Waiter, Option<Ps>)>) {
        let vtpn = tp_lpn - self.logical_pages;
        self.io_at = now;
        let mut waiters = std::mem::take(&mut self.waiters);
        waiters.clear();
        self.demand.as_mut().expect("a map cache").tp_read_done(vtpn, &mut waiters, &self.map);
        self.charge_flushes(now);
        for &w in &waiters {
            resumed.push((w, self.firmware.map_work(now, MapWork::Fill)));
        }
        self.waiters = waiters;
    }

    /// A translation page's program starts on `ppn`: the GTD points at it.
    pub fn commit_map_write(&mut self, tp_lpn: Lpn, ppn: Ppn, now: Ps) {
        self.commit_write(tp_lpn, ppn, now);
        self.demand.as_mut().expect("a map cache").tp_programmed(tp_lpn - self.logical_pages);
    }

    /// Time cores were held sending to a full map-unit queue.
    pub fn firmware_queue_wait_ps(&self) -> u128 {
        self.firmware.queue_wait_ps
    }

    /// The map cache's counters, if there is one.
    pub fn map_stats(&self) -> Option<&MapStats> {
        self.demand.as_ref().map(|d| &d.stats)
    }

    /// The firmware's servers and their busy time: (cores, hardware units, core busy ps,
    /// unit busy ps).
    pub fn firmware_busy(&self) -> (u32, u32, u128, u128) {
        let (c, u) = self.firmware.servers();
        (c, u, self.firmware.core_busy_ps, self.firmware.unit_busy_ps)
    }

    /// Preconditioning wrote data functionally: write every translation page that maps
    /// anything the same way (into translation blocks, the GTD pointing at them).
    pub(super) fn write_translation_pages(&mut self, every: bool) {
        let Some(d) = self.demand.as_mut() else { return };
        let (e, tps) = (d.params().entries_per_tp, d.translation_pages());
        const CWDP: [Level; 4] = [Level::Channel, Level::Way, Level::Die, Level::Plane];
        for vtpn in 0..tps {
            let lpns = vtpn * e..((vtpn + 1) * e).min(self.logical_pages);
            let tp_lpn = self.logical_pages + vtpn;
            let unmapped = lpns.clone().all(|l| self.map.get(l) == NONE);
            if self.map.get(tp_lpn) != NONE || (unmapped && !every) {
                continue;
            }
            let (plane, _) = static_plane(&self.geo, &CWDP, tp_lpn);
            let (ppn, _) = self.blocks.allocate(plane, Stream::Map, 0).expect("room for translation pages");
            self.blocks.program(ppn, tp_lpn);
            self.map.set(tp_lpn, ppn);
            self.demand.as_mut().expect("a map cache").preconditioned(vtpn, &self.map);
        }
    }

    /// Before the run: with `ftl.map_cache.on_flash_at_start`, every translation page not
    /// yet on flash is written there (functionally, no time), so the first touch of any
    /// logical page reads its translation page (MQSim's start; docs/techniques.md §12).
    pub fn translation_pages_at_start(&mut self) {
        if self.demand.as_ref().is_some_and(|d| d.params().on_flash_at_start) {
            self.write_translation_pages(true);
        }
    }

    /// The sectors a translation page's read transfers (`ftl.map_cache.tp_read`): the
    /// page's, or its first sector.
    pub fn map_read_mask(&self, full: u64) -> u64 {
        match self.demand.as_ref().map(|d| d.params().tp_read) {
            Some(TpRead::Sector) => 1,
            _ => full,
        }
    }

    // ------------------------------------------------------------ writes

    /// The plane a write of `lpn` goes to at `now`. `chip_load` is the number of
    /// transactions queued or running per chip (for dynamic allocation).
    pub fn write_plane(&mut self, lpn: Lpn, chip_load: &[u32], now: Ps) -> u32 {
        if let Some(p) = &mut self.partition {
            let (blocks, reserve) = (&self.blocks, self.gc.limits.user_reserve_blocks);
            let room = |plane: u32| blocks.free_blocks(plane) > reserve;
            let plane = if lpn < self.logical_pages {
                p.write_plane(lpn, self.map.get(lpn), chip_load, now, room)
            } else {
                // A translation page: no history, not a host write — any channel [I].
                p.any_plane(chip_load)
            };
            return self.alloc.given(plane);
        }
        self.alloc.write_plane(lpn, chip_load, &self.blocks, self.gc.limits.user_reserve_blocks)
    }

    /// A host read of `lpn` reached the FTL: PACP records it in the page's history.
    #[inline]
    pub fn host_read(&mut self, lpn: Lpn, now: Ps) {
        if let Some(p) = &mut self.partition {
            p.host_read(lpn, self.map.get(lpn), now);
        }
    }

    /// PACP's GC-piggybacked migration: the plane a GC move of `lpn` off `src` goes to
    /// instead of its own, if it migrates.
    pub fn migration_plane(&mut self, lpn: Lpn, src: Ppn, chip_load: &[u32]) -> Option<u32> {
        if lpn >= self.logical_pages {
            // A translation page: it has no history and stays in its plane.
            return None;
        }
        let (blocks, gc) = (&self.blocks, &self.gc);
        let room = |plane: u32| gc.victim(plane) == NONE && blocks.free_blocks(plane) > gc.limits.user_reserve_blocks;
        self.partition.as_mut()?.migration_plane(lpn, src, chip_load, room)
    }

    /// Idle-time migration: how long the host must be idle and how many pages may move per
    /// idle period; None when off.
    pub fn idle_migration(&self) -> Option<(Ps, u32)> {
        self.partition.as_deref().and_then(|p| p.idle)
    }

    /// Idle-time migration's pages (§3.3, GC-aware): of the closed, not collected blocks on
    /// Write channels — by default only those holding a read-predicted valid page
    /// (`ftl.partition.idle_victims`), looked for among the `idle_search_blocks` most invalid
    /// — the one with the fewest valid (most invalid) pages (ties: lowest index); its valid
    /// pages whose history predicts read, at most `max`, into `out`.
    pub fn idle_migration_pages(&mut self, max: u32, out: &mut Vec<LivePage>) {
        out.clear();
        let Some(p) = self.partition.as_deref_mut() else { return };
        let any = p.idle_victims == IdleVictims::Any;
        // The `idle_search` most invalid closed Write-channel blocks, most invalid first (one
        // when any block will do) [I]: searching every block on every idle period would cost
        // more than the moves.
        let keep = if any { 1 } else { p.idle_search.max(1) as usize };
        let mut most_invalid = std::collections::BinaryHeap::with_capacity(keep + 1);
        let bpp = self.geo.blocks_per_plane;
        for plane in 0..self.geo.planes() {
            if !p.is_write_channel(self.geo.channel_of_chip(self.geo.chip_of_plane(plane))) {
                continue;
            }
            let blocks = (plane * bpp) as usize..((plane + 1) * bpp) as usize;
            let (valid, state) = (&self.blocks.valid[blocks.clone()], &self.blocks.state[blocks]);
            crate::ftl::alloc::pacp::keep_most_invalid(&mut most_invalid, keep, plane * bpp, valid, state);
        }
        let (blocks, logical) = (&self.blocks, self.logical_pages);
        // A block searched before and found without a read-predicted page is skipped while
        // the partition's memo says so (`ChannelPartition::may_hold_read_pages`).
        let chosen = most_invalid.into_sorted_vec().into_iter().map(|(_, block)| block).find(|&block| {
            let seq = blocks.opened_seq[block as usize];
            if any {
                return true;
            }
            if !p.may_hold_read_pages(block, seq) {
                return false;
            }
            let found = blocks.any_valid(block, |lpn| lpn < logical && p.predicts_read(lpn));
            if !found {
                p.holds_no_read_pages(block, seq);
            }
            found
        });
        if let Some(block) = chosen {
            blocks.valid_pages(block, out);
            out.retain(|lp| lp.lpn < logical && p.predicts_read(lp.lpn));
            out.truncate(max as usize);
        }
    }

    /// Idle-time migration of `lpn` off `src` (still its page): a Read-channel plane with
    /// room, or None.
    pub fn idle_migration_plane(&mut self, lpn: Lpn, src: Ppn, chip_load: &[u32]) -> Option<u32> {
        if self.map.get(lpn) != src {
            return None;
        }
        let (blocks, gc) = (&self.blocks, &self.gc);
        let room = |plane: u32| gc.victim(plane) == NONE && blocks.free_blocks(plane) > gc.limits.user_reserve_blocks;
        self.partition.as_mut()?.idle_plane(lpn, src, chip_load, room)
    }

    /// The channel partition, if the allocation has one.
    pub fn partition(&self) -> Option<&ChannelPartition> {
        self.partition.as_deref()
    }

    /// Lv et al.'s split sized from the workload (`ftl.partition.n_read = 0`): `n_read`
    /// Read channels. Before the run.
    pub fn size_partition(&mut self, n_read: u32) {
        if let Some(p) = &mut self.partition {
            p.part.resize(n_read);
        }
    }

    /// Whether a channel partition's starting split is sized from the workload's demand
    /// ([`Self::size_partition_by_demand`]).
    pub fn partition_sized_by_demand(&self) -> bool {
        self.partition.as_ref().is_some_and(|p| p.sized_by_demand())
    }

    /// Size the partition from the workload's pages read and written and the mean page read
    /// and program times (µs), if it is sized that way.
    pub fn size_partition_by_demand(&mut self, read_pages: f64, write_pages: f64, t_read: f64, t_prog: f64) {
        if let Some(p) = &mut self.partition {
            p.size_by_demand(read_pages, write_pages, t_read, t_prog);
        }
    }

    /// Whether the preconditioning should know which pages the workload reads first (a
    /// partition that preloads them on its Read channels).
    pub fn partition_preloads_reads(&self) -> bool {
        self.partition.as_ref().is_some_and(|p| p.preloads_reads())
    }

    /// The preloaded pages the workload reads first and writes first, for a partition that
    /// sizes its starting split from them.
    pub fn size_partition_by_preload(&mut self, reads_first: u64, writes_first: u64) {
        if let Some(p) = &mut self.partition {
            p.size_by_preload(reads_first, writes_first);
        }
    }

    /// User-data blocks opened out of their die's aligned set (`ftl.block_alignment = "die"`).
    pub fn unaligned_block_opens(&self) -> u64 {
        self.blocks.unaligned_opens
    }

    /// A user write of `lpn` whose plane the write cache chose (SPD's Die-Write); returns it.
    pub fn assign_plane(&mut self, lpn: Lpn, plane: u32) -> u32 {
        self.alloc.assign(lpn, plane)
    }

    /// A user write given `plane` by [`Ftl::write_plane`] is being programmed.
    pub fn write_programmed(&mut self, plane: u32) {
        self.alloc.programmed(plane);
    }

    /// Take the next page of `stream` in `plane` and whether a block was opened for it (then
    /// check [`Ftl::needs_gc`]). None when a user write would take the blocks kept for GC.
    #[inline]
    pub fn allocate(&mut self, plane: u32, stream: Stream) -> Option<(Ppn, bool)> {
        let page = self.blocks.allocate(plane, stream, self.gc.limits.user_reserve_blocks);
        if stream == Stream::User {
            self.gc.user_page(plane, &self.blocks);
        }
        page
    }

    /// With mapping units smaller than the page, a program command that took slots of
    /// `stream` on `plane` ends their flash page; returns the slots it left empty.
    pub fn close_flash_page(&mut self, plane: u32, stream: Stream) -> u32 {
        self.blocks.close_flash_page(plane, stream)
    }

    /// Map `lpn` to the freshly programmed `ppn`, invalidating its previous page.
    /// `now` is when the program starts (a map cache's update takes firmware time then).
    pub fn commit_write(&mut self, lpn: Lpn, ppn: Ppn, now: Ps) {
        let old = self.map.get(lpn);
        if old != NONE {
            self.blocks.invalidate(old);
            self.gc.invalidated(self.geo.plane_of(old));
        }
        self.blocks.program(ppn, lpn);
        self.map.set(lpn, ppn);
        if self.demand.is_some() && lpn < self.logical_pages {
            self.map_update(lpn, now);
        }
    }

    /// A GC move of `lpn` was programmed on `ppn`. Under DFTL's batch rule
    /// (`ftl.map_cache.gc_update = "batch"`) its entry is updated in the cache if there, else
    /// left for its translation page's write when the victim is done; otherwise as
    /// [`Ftl::commit_write`].
    pub fn commit_gc_move(&mut self, lpn: Lpn, ppn: Ppn, now: Ps) {
        let batched = lpn < self.logical_pages && self.demand.as_ref().is_some_and(|d| d.batches_gc());
        if !batched {
            return self.commit_write(lpn, ppn, now);
        }
        let old = self.map.get(lpn);
        assert!(old != NONE, "GC moved lpn {lpn}, which maps nothing");
        let victim_plane = self.geo.plane_of(old);
        self.blocks.invalidate(old);
        self.gc.invalidated(victim_plane);
        self.blocks.program(ppn, lpn);
        self.map.set(lpn, ppn);
        self.io_at = now;
        self.demand.as_mut().expect("a map cache").gc_moved(lpn, victim_plane, &self.map);
        // The firmware looks the entry up in the cache: a hit's time.
        self.firmware.map_work(now, MapWork::Hit);
        self.charge_flushes(now);
    }

    /// TRIM: forget `lpn`.
    /// Die-GC moved `lpn`'s page at `ppn` into the write buffer: that copy is invalid and
    /// `lpn` is unmapped until the buffer writes it back (reads are served from the buffer).
    pub fn move_to_buffer(&mut self, lpn: Lpn, ppn: Ppn) {
        assert_eq!(self.map.get(lpn), ppn, "a Die-GC move into the buffer of lpn {lpn} not mapped to {ppn}");
        self.blocks.invalidate(ppn);
        self.gc.invalidated(self.geo.plane_of(ppn));
        self.map.clear(lpn);
    }

    /// Where Die-GC's last partial group of moves goes.
    pub fn die_leftover(&self) -> DieLeftover {
        self.die_leftover
    }

    pub fn trim(&mut self, lpn: Lpn, now: Ps) {
        let old = self.map.get(lpn);
        if old != NONE {
            if let Some(p) = &mut self.partition {
                p.trimmed(lpn, old);
            }
            self.blocks.invalidate(old);
            self.gc.invalidated(self.geo.plane_of(old));
            self.map.clear(lpn);
            if self.demand.is_some() {
                self.map_update(lpn, now);
            }
        }
    }

    // ------------------------------------------------------------ blocks and GC

    #[inline]
    pub fn free_blocks(&self, plane: u32) -> u32 {
        self.blocks.free_blocks(plane)
    }

    /// Free blocks over all planes.
    #[inline]
    pub fn free_total(&self) -> u64 {
        self.blocks.free_total
    }

    /// Erase count of every block.
    pub fn erase_counts(&self) -> &[u32] {
        &self.blocks.erase_count
    }

    /// Whether `plane` should start GC now.
    #[inline]
    pub fn needs_gc(&self, plane: u32) -> bool {
        self.gc.needed(plane, &self.blocks)
    }

    /// A plane whose GC found no victim and has since gained an invalid page: try again.
    #[inline]
    pub fn take_gc_wakeup(&mut self) -> Option<u32> {
        self.gc.take_wakeup()
    }

    pub fn background_gc_on(&self) -> bool {
        self.gc.background_on()
    }

    pub fn wants_background_gc(&self, plane: u32) -> bool {
        self.gc.wanted_in_background(plane, &self.blocks)
    }

    /// Whether GC on `chip` is critical: a collecting plane at the hard threshold, where user
    /// writes wait (the TSU policy then serves GC first).
    #[inline]
    pub fn gc_critical(&self, chip: u32) -> bool {
        self.gc.critical(chip, &self.blocks)
    }

    /// How a GC move is made: a read then a program, or a copyback (`ftl.gc.copyback`).
    pub fn gc_move_op(&self) -> FlashOp {
        self.gc.move_op()
    }

    /// Start GC on `plane`: the victim, with its valid pages (the moves to make) in `pages`.
    pub fn start_gc(&mut self, plane: u32, pages: &mut Vec<LivePage>) -> Option<u32> {
        self.gc.start(plane, &mut self.blocks, pages)
    }

    /// A move of `plane`'s victim is done; after the last, the victim to erase.
    pub fn gc_move_done(&mut self, plane: u32, now: Ps) -> Option<u32> {
        let victim = self.gc.move_done(plane)?;
        if let Some(d) = self.demand.as_mut().filter(|d| d.batches_gc()) {
            self.io_at = now;
            d.gc_victim_done(plane, &self.map);
            self.charge_flushes(now);
        }
        Some(victim)
    }

    /// What one GC collects (`ftl.gc.unit`).
    #[inline]
    pub fn gc_unit(&self) -> GcUnit {
        self.gc.unit()
    }

    /// Die-GC or TwinBlk's GC of `plane`'s die: the die, with its aligned set's valid pages
    /// (on all its planes) in `pages`; None if the die is collecting already or has no set
    /// to collect.
    pub fn start_die_gc(&mut self, plane: u32, pages: &mut Vec<LivePage>) -> Option<u32> {
        self.gc.start_die(plane, &mut self.blocks, pages)
    }

    /// Die-GC: the read of a move off `plane` found its page live (`handle` names the move)
    /// or gone (None); a group of moves ready to program, page i to plane i of the die,
    /// goes into `group`.
    pub fn die_gc_move_read(&mut self, plane: u32, handle: Option<u32>, group: &mut Vec<u32>) {
        self.gc.die_move_read(plane, handle, group)
    }

    /// Die-GC: a move off `plane` is done; after the die's last, the die to erase.
    pub fn die_gc_move_done(&mut self, plane: u32) -> Option<u32> {
        self.gc.die_move_done(plane)
    }

    /// The block `plane` is collecting (NONE if none).
    pub fn gc_victim(&self, plane: u32) -> u32 {
        self.gc.victim(plane)
    }

    /// `plane`'s victim was erased: its block is free. Returns the block.
    pub fn finish_gc(&mut self, plane: u32) -> u32 {
        self.gc.finish(plane, &mut self.blocks)
    }

    /// One plane's state, for the message of a run that stopped with work left.
    pub fn describe_plane(&self, plane: u32) -> String {
        self.gc.describe_plane(plane, &self.blocks)
    }

    // ------------------------------------------------------------ checking

    /// The logical-to-physical page map (the integrity oracle checks it).
    pub fn page_map(&self) -> &PageMap {
        &self.map
    }

    /// Check map ↔ reverse map agreement and the block manager's books.
    pub fn check(&self) {
        self.blocks.check();
        let mut mapped = 0u64;
        for lpn in 0..self.map.logical_pages() {
            let ppn = self.map.get(lpn);
            if ppn != NONE {
                mapped += 1;
                assert_eq!(self.blocks.lpn_at(ppn), lpn, "map says lpn {lpn} is at ppn {ppn}, reverse map disagrees");
            }
        }
        let valid: u64 = self.blocks.valid.iter().map(|&v| v as u64).sum();
        assert_eq!(valid, mapped, "valid pages ({valid}) differ from mapped logical pages ({mapped})");
        self.gc.check();
        if let Some(d) = &self.demand {
            d.check(&self.map);
        }
    }

    pub fn state_bytes(&self) -> u64 {
        self.map.state_bytes() + self.blocks.state_bytes() + self.demand.as_ref().map_or(0, |d| d.state_bytes())
    }
}

/// The TSU's builder reads the FTL through this view.
impl FtlView for Ftl {
    #[inline]
    fn lpn_at(&self, ppn: Ppn) -> Lpn {
        Ftl::lpn_at(self, ppn)
    }

    #[inline]
    fn read_page(&self, lpn: Lpn) -> Ppn {
        Ftl::read_page(self, lpn)
    }

    #[inline]
    fn next_offset(&self, plane: u32, stream: Stream) -> Option<u32> {
        self.blocks.next_offset(plane, stream, self.gc.limits.user_reserve_blocks)
    }

    #[inline]
    fn next_block(&self, plane: u32, stream: Stream) -> u32 {
        self.blocks.next_block(plane, stream, self.gc.limits.user_reserve_blocks)
    }

    #[inline]
    fn stale_move_keeps_place(&self) -> bool {
        // Die-GC's and aligned ParaGC's moves keep the die's GC write points equal.
        self.gc.unit() == GcUnit::Die || self.gc.para_aligned()
    }
}

/// Logical pages exposed: physical pages minus the over-provisioned fraction.
pub fn logical_pages(geo: &Geometry, overprovisioning_ratio: f64) -> u32 {
    (geo.pages() as f64 * (1.0 - overprovisioning_ratio)).floor() as u32
}
