//! The NAND PHY: chips and their channel buses at work.
//!
//! Owns what each chip is running (its command, the dies in it, a suspended program or
//! erase) and each channel bus (who holds it, who waits). Given a command built by the TSU
//! it plays out its timing: the bus phase (command/address cycles die by die, plus a page of
//! data in per plane of a program), each die's array time, and for reads each die's data out
//! when its array time ends, in that order. It schedules its own events (`BusFree`,
//! `CellDone`, `CommandDone`, `ChipFree`) and hands a finished command's transactions back;
//! it never decides what runs next.
//!
//! Bus arbitration (`nand.bus.arbitration`): by default a waiter that only needs
//! command/address cycles (reads, erases, copybacks) goes before page transfers, since
//! issuing it sets another chip working; with `data_first` (MQSim's PHY) read data waiting to
//! leave a chip goes before any command. Within each class, arrival order. A read's last
//! data-out hands the bus on from its own `CommandDone` event instead of a separate wake-up.
//!
//! Suspension (`nand.suspension`): a program or erase past its bus phase, with more than
//! `t_suspend` left, may be suspended for queued user reads up to `max_per_op` times; the
//! chip is free `t_suspend` later and resumes (`t_resume`) when its reads are done.

use std::collections::VecDeque;

use crate::engine::{Event, EventQueue, Ps};
use crate::nand::config::{BusArbitration, NandConfig};
use crate::nand::timeline::{Timeline, Work};
use crate::nand::{FlashOp, Geometry, Ppn, Timing};

/// What the PHY reads of a command's page operations, by transaction id: the TSU's
/// transaction table implements it, so the PHY sees these and nothing else of the layers
/// above.
pub trait PageOps {
    /// The page read or programmed (an erase: the block's first page).
    fn ppn(&self, tx: u32) -> Ppn;
    /// A copyback's source page.
    fn src_ppn(&self, tx: u32) -> Ppn;
    /// The plane's index within its chip.
    fn plane_in_chip(&self, tx: u32) -> u32;
    /// Sectors of the page the operation carries (bit i = sector i).
    fn sector_mask(&self, tx: u32) -> u64;
    /// Whose work the operation is, for the timeline.
    fn work(&self, tx: u32) -> Work;
    /// Whether the operation is GC's (its dummy pages included): GC's chip time is counted
    /// apart.
    fn is_gc(&self, tx: u32) -> bool;
}

/// Array time of die-level operations, for the busy plane utilization: Σ array time, and
/// Σ array time × planes used, over each die's part of each command.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ArrayUse {
    pub die_ps: u128,
    pub plane_ps: u128,
}

impl ArrayUse {
    /// A die's part of a command: `planes` planes for `array_ps`.
    #[inline(always)]
    pub fn add(&mut self, array_ps: Ps, planes: u64) {
        self.die_ps += array_ps as u128;
        self.plane_ps += array_ps as u128 * planes as u128;
    }

    /// Planes used / `planes_per_die`, weighted by array time (0 with no operation).
    pub fn busy_utilization(&self, planes_per_die: u32) -> f64 {
        if self.die_ps == 0 {
            0.0
        } else {
            self.plane_ps as f64 / (self.die_ps as f64 * planes_per_die as f64)
        }
    }
}

/// The PHY's own counters, read into the statistics at the end of a run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PhyCounters {
    pub array_use: ArrayUse,
    /// Σ over command segments of duration × planes of the chip not in the command.
    pub idle_plane_ps: u128,
    /// Σ over command segments of duration × planes per chip.
    pub busy_plane_capacity_ps: u128,
    /// Chip time of commands that were GC work.
    pub gc_chip_ps: u128,
    /// Programs and erases suspended for reads.
    pub suspensions: u64,
}

/// Planes a command (sorted by plane) works on: a plane may carry several mapping units.
fn distinct_planes<R: PageOps + ?Sized>(txs: &[u32], ops: &R) -> u32 {
    let mut last = u32::MAX;
    let mut n = 0;
    for &t in txs {
        let p = ops.plane_in_chip(t);
        n += u32::from(p != last);
        last = p;
    }
    n
}

/// The command a chip runs (one per chip at a time).
#[derive(Default)]
struct Command {
    op: Option<FlashOp>,
    /// Transactions, grouped by die in `dies` order.
    txs: Vec<u32>,
    /// Dies used, in bus order, with the end of their array operation.
    dies: Vec<DieEnd>,
    /// Dies whose data has been sent out (reads), in order of array completion.
    out_order: Vec<u32>,
    out_next: usize,
    planes_used: u32,
    segment_start_ps: Ps,
    suspends: u32,
}

/// A die of a command and when its array operation ends (while suspended: how much of it
/// is left).
#[derive(Debug, Clone, Copy)]
struct DieEnd {
    die: u32,
    end_ps: Ps,
}

#[derive(Default)]
struct Chip {
    busy: bool,
    /// Bumped when the running command ends or is suspended: events of an older command are
    /// stale.
    gen: u32,
    cmd: Command,
    /// A program or erase suspended for reads, with the array time each die had left.
    suspended: Option<Command>,
    /// End of the bus phase of the current command (suspension only after it).
    bus_phase_end_ps: Ps,
}

/// A channel's bus: free from `free_ps`; waiters are served in two classes, `first` before
/// `rest`.
#[derive(Default)]
struct ChannelBus {
    free_ps: Ps,
    /// Waiters served first (`nand.bus.arbitration`: command/address-only phases, or read
    /// data out), then `rest`; each in arrival order.
    first: VecDeque<BusRequest>,
    rest: VecDeque<BusRequest>,
    wake_scheduled: bool,
    /// The holder's own event fires when the bus frees (a read's last data-out ends with its
    /// command): waiters are handed the bus there instead of by a separate wake-up event.
    handoff: bool,
}

#[derive(Debug, Clone, Copy)]
enum BusRequest {
    /// The bus phase of a chip's command.
    Phase { chip: u32, gen: u32 },
    /// Data out of the next die of a chip's read command.
    Out { chip: u32, gen: u32 },
}

/// Bytes the PHY holds on `geo`: a record per chip and per channel bus.
pub fn estimate_bytes(geo: &Geometry) -> u64 {
    geo.chips() as u64 * std::mem::size_of::<Chip>() as u64
        + geo.channels as u64 * std::mem::size_of::<ChannelBus>() as u64
}

pub struct Phy {
    geo: Geometry,
    timing: Timing,
    chips: Vec<Chip>,
    buses: Vec<ChannelBus>,
    busy_chips: u32,
    /// Channel-bus time in command, data-in and data-out phases, summed over channels.
    pub bus_busy_ps: u64,
    /// Array time of each die's part of each command, and how many planes it used.
    pub counters: PhyCounters,
    /// `nand.bus.arbitration = "commands_first"` (else read data out goes first).
    commands_first: bool,
    /// `nand.suspension.enabled`.
    suspension: bool,
    max_suspends: u32,
    timeline: Option<Timeline>,
}

impl Phy {
    pub fn new(nand: &NandConfig, geo: &Geometry, timeline: Option<Timeline>) -> Phy {
        let ideal = nand.ideal == crate::nand::config::Ideal::NoRwInterference;
        Phy {
            geo: geo.clone(),
            timing: Timing::from_config(nand),
            chips: (0..geo.chips()).map(|_| Chip::default()).collect(),
            buses: (0..geo.channels).map(|_| ChannelBus::default()).collect(),
            busy_chips: 0,
            bus_busy_ps: 0,
            counters: PhyCounters::default(),
            commands_first: nand.bus.arbitration == BusArbitration::CommandsFirst,
            suspension: nand.suspension.enabled || ideal,
            max_suspends: if ideal { u32::MAX } else { nand.suspension.max_per_op },
            timeline,
        }
    }

    #[inline]
    pub fn is_busy(&self, chip: u32) -> bool {
        self.chips[chip as usize].busy
    }

    pub fn busy_chips(&self) -> u32 {
        self.busy_chips
    }

    /// Whether a chip holds a suspended program or erase.
    #[inline]
    pub fn has_suspended(&self, chip: u32) -> bool {
        self.chips[chip as usize].suspended.is_some()
    }

    /// The recorded timeline, at the end of a run.
    pub fn take_timeline(&mut self) -> Option<Timeline> {
        self.timeline.take()
    }

    fn set_busy(&mut self, chip: u32, busy: bool) {
        let c = &mut self.chips[chip as usize];
        if c.busy != busy {
            c.busy = busy;
            if busy {
                self.busy_chips += 1;
            } else {
                self.busy_chips -= 1;
            }
        }
    }

    /// Mark a chip busy before its command starts: the FTL's work on the command's pages may
    /// queue more work on the same chip, which must not start a second command.
    pub fn reserve(&mut self, chip: u32) {
        self.set_busy(chip, true);
    }

    /// Start a command (the chip was reserved). `txs` moves into the chip's command (the
    /// vector is swapped, not copied); the caller gets back an empty one.
    #[inline(always)]
    pub fn start<R: PageOps + ?Sized>(
        &mut self,
        chip: u32,
        op: FlashOp,
        txs: &mut Vec<u32>,
        ops: &R,
        q: &mut EventQueue,
    ) {
        let now = q.now();
        let c = &mut self.chips[chip as usize];
        debug_assert!(c.busy, "chip {chip} starts a command without being reserved");
        c.cmd.txs.clear();
        std::mem::swap(&mut c.cmd.txs, txs);
        c.cmd.dies.clear();
        c.cmd.out_order.clear();
        c.cmd.out_next = 0;
        c.cmd.op = Some(op);
        c.cmd.planes_used =
            if self.geo.units_per_page == 1 { c.cmd.txs.len() as u32 } else { distinct_planes(&c.cmd.txs, ops) };
        c.cmd.segment_start_ps = now;
        c.cmd.suspends = 0;
        c.bus_phase_end_ps = Ps::MAX;
        // Commands first: commands that are only command/address cycles (reads, erases,
        // copybacks) take the bus ahead of page transfers, since issuing them keeps more
        // chips working. Data first (MQSim): every command waits behind read data out.
        let first = self.commands_first && op != FlashOp::Program;
        let gen = c.gen;
        self.request_bus(self.geo.channel_of_chip(chip), BusRequest::Phase { chip, gen }, first, ops, q);
    }

    /// Ask for the channel bus; granted now if it is free and nobody waits, else in turn.
    #[inline(always)]
    fn request_bus<R: PageOps + ?Sized>(&mut self, ch: u32, req: BusRequest, first: bool, ops: &R, q: &mut EventQueue) {
        let now = q.now();
        let b = &mut self.buses[ch as usize];
        if b.free_ps <= now && b.first.is_empty() && b.rest.is_empty() {
            self.grant_bus(ch, req, ops, q);
            return;
        }
        if first {
            b.first.push_back(req);
        } else {
            b.rest.push_back(req);
        }
        if !b.wake_scheduled && !b.handoff {
            b.wake_scheduled = true;
            let at = b.free_ps.max(now);
            q.at(at, Event::BusFree { channel: ch });
        }
    }

    /// A holder's event at the moment its transfer ended: pass the bus on if anyone waits.
    fn bus_handoff<R: PageOps + ?Sized>(&mut self, ch: u32, ops: &R, q: &mut EventQueue) {
        let b = &mut self.buses[ch as usize];
        if b.handoff && b.free_ps == q.now() {
            b.handoff = false;
            if !b.wake_scheduled && (!b.first.is_empty() || !b.rest.is_empty()) {
                self.bus_free(ch, ops, q);
            }
        }
    }

    /// The bus of `ch` may be free: grant it to the next waiter.
    #[inline(always)]
    pub fn bus_free<R: PageOps + ?Sized>(&mut self, ch: u32, ops: &R, q: &mut EventQueue) {
        let now = q.now();
        let b = &mut self.buses[ch as usize];
        b.wake_scheduled = false;
        if b.free_ps > now {
            b.wake_scheduled = true;
            let at = b.free_ps;
            q.at(at, Event::BusFree { channel: ch });
            return;
        }
        loop {
            let b = &mut self.buses[ch as usize];
            let Some(req) = b.first.pop_front().or_else(|| b.rest.pop_front()) else { return };
            if self.grant_bus(ch, req, ops, q) {
                break;
            }
        }
        let b = &mut self.buses[ch as usize];
        if !b.first.is_empty() || !b.rest.is_empty() {
            b.wake_scheduled = true;
            let at = b.free_ps;
            q.at(at, Event::BusFree { channel: ch });
        }
    }

    /// Run a bus request now. False if it is stale (its command was suspended meanwhile).
    #[inline(always)]
    fn grant_bus<R: PageOps + ?Sized>(&mut self, ch: u32, req: BusRequest, ops: &R, q: &mut EventQueue) -> bool {
        self.buses[ch as usize].handoff = false;
        match req {
            BusRequest::Phase { chip, gen } => {
                if self.chips[chip as usize].gen != gen {
                    return false;
                }
                self.command_phase(ch, chip, ops, q);
            }
            BusRequest::Out { chip, gen } => {
                if self.chips[chip as usize].gen != gen {
                    return false;
                }
                self.data_out(ch, chip, ops, q);
            }
        }
        true
    }

    /// The array time of one plane's part of a command.
    #[inline(always)]
    fn cell_ps<R: PageOps + ?Sized>(&self, op: FlashOp, ops: &R, tx: u32) -> Ps {
        // The page type is the flash page's (a mapping unit's slot is part of it).
        let page = self.geo.flash_page(self.geo.page_in_block(ops.ppn(tx)));
        match op {
            FlashOp::Read => self.timing.t_read(page),
            FlashOp::Program => self.timing.t_program(page),
            FlashOp::Erase => self.timing.t_erase_ps,
            FlashOp::Copyback => {
                let src = self.geo.flash_page(self.geo.page_in_block(ops.src_ppn(tx)));
                self.timing.t_read(src) + self.timing.t_program(page)
            }
        }
    }

    /// The bus phase of a command: die by die, the die's command cycles (`Timing::
    /// die_phase_ps`: per plane, or NV-DDR2's per die with tDBSY between planes) and for a
    /// program each plane's data in; each die starts its array operation when its part of
    /// the phase ends.
    #[inline(always)]
    fn command_phase<R: PageOps + ?Sized>(&mut self, ch: u32, chip: u32, ops: &R, q: &mut EventQueue) {
        let now = q.now();
        let op = self.chips[chip as usize].cmd.op.expect("a command in its bus phase has an op");
        let spp = self.geo.sectors_per_page() as u64;
        let mut t = now;
        let mut dies = std::mem::take(&mut self.chips[chip as usize].cmd.dies);
        let txs = &self.chips[chip as usize].cmd.txs;
        let n = txs.len();
        let mut tx = txs[0];
        let mut i = 0;
        while i < n {
            let die = self.geo.die_of_plane_in_chip(ops.plane_in_chip(tx));
            let die_first = tx;
            let (mut cell, mut planes, mut data_in) = (0, 0, 0);
            // Several mapping units of one plane share its page: the plane counts once.
            let mut last_plane = u32::MAX;
            loop {
                // A program's data in: its page, or with `program_data_in = "written_sectors"`
                // only the sectors it writes.
                if op == FlashOp::Program {
                    let sectors =
                        if self.timing.written_sectors_only { ops.sector_mask(tx).count_ones() as u64 } else { spp };
                    data_in += self.timing.bus_transfer_sectors_ps(sectors);
                }
                cell = cell.max(self.cell_ps(op, ops, tx));
                let plane = ops.plane_in_chip(tx);
                planes += u64::from(plane != last_plane);
                last_plane = plane;
                i += 1;
                if i == n {
                    break;
                }
                tx = txs[i];
                if self.geo.die_of_plane_in_chip(ops.plane_in_chip(tx)) != die {
                    break;
                }
            }
            t += self.timing.die_phase_ps(op, planes) + data_in;
            self.counters.array_use.add(cell, planes);
            if let Some(tl) = &mut self.timeline {
                tl.cell(chip, die, t, t + cell, op, ops.work(die_first));
            }
            dies.push(DieEnd { die, end_ps: t + cell });
        }
        self.buses[ch as usize].free_ps = t;
        self.bus_busy_ps += t - now;
        if let Some(tl) = &mut self.timeline {
            tl.bus(ch, chip, now, t, op, ops.work(self.chips[chip as usize].cmd.txs[0]));
        }
        let c = &mut self.chips[chip as usize];
        c.cmd.dies = dies;
        let gen = c.gen;
        c.bus_phase_end_ps = t;
        let cmd = &mut c.cmd;
        if op == FlashOp::Read {
            // Each die sends its data out when its array read is done, in that order.
            cmd.out_order.extend(0..cmd.dies.len() as u32);
            let dies = &cmd.dies;
            cmd.out_order.sort_by_key(|&k| (dies[k as usize].end_ps, k));
            for &k in &cmd.out_order {
                q.at(cmd.dies[k as usize].end_ps, Event::CellDone { chip, gen });
            }
        } else {
            let end = cmd.dies.iter().map(|d| d.end_ps).max().expect("at least one die");
            q.at(end, Event::CommandDone { chip, gen });
        }
    }

    /// A die of a read command finished its array time: ask for the bus to send its data.
    #[inline(always)]
    pub fn cell_done<R: PageOps + ?Sized>(&mut self, chip: u32, gen: u32, ops: &R, q: &mut EventQueue) {
        if self.chips[chip as usize].gen != gen {
            return;
        }
        let first = !self.commands_first;
        self.request_bus(self.geo.channel_of_chip(chip), BusRequest::Out { chip, gen }, first, ops, q);
    }

    /// Data out of the next die of a read command (dies go in the order their reads end).
    #[inline(always)]
    fn data_out<R: PageOps + ?Sized>(&mut self, ch: u32, chip: u32, ops: &R, q: &mut EventQueue) {
        let now = q.now();
        let ci = chip as usize;
        let cmd = &mut self.chips[ci].cmd;
        let k = cmd.out_order[cmd.out_next] as usize;
        cmd.out_next += 1;
        let die = cmd.dies[k].die;
        let mut sectors = 0u64;
        for &tx in &cmd.txs {
            if self.geo.die_of_plane_in_chip(ops.plane_in_chip(tx)) == die {
                sectors += ops.sector_mask(tx).count_ones() as u64;
            }
        }
        let end = now + self.timing.bus_transfer_sectors_ps(sectors);
        self.buses[ch as usize].free_ps = end;
        self.bus_busy_ps += end - now;
        if let Some(tl) = &mut self.timeline {
            tl.bus(ch, chip, now, end, FlashOp::Read, ops.work(self.chips[ci].cmd.txs[0]));
        }
        let cmd = &self.chips[ci].cmd;
        if cmd.out_next == cmd.dies.len() {
            let gen = self.chips[ci].gen;
            q.at(end, Event::CommandDone { chip, gen });
            self.buses[ch as usize].handoff = true;
        }
    }

    /// Chip time of the part of a command that ran until `now` (from `segment_start_ps`,
    /// on `planes_used` planes; `gc` if it was GC work), for the counters.
    fn account_segment(counters: &mut PhyCounters, planes_per_chip: u32, cmd: &Command, gc: bool, now: Ps) {
        let dur = (now - cmd.segment_start_ps) as u128;
        counters.idle_plane_ps += dur * (planes_per_chip - cmd.planes_used) as u128;
        counters.busy_plane_capacity_ps += dur * planes_per_chip as u128;
        if gc {
            counters.gc_chip_ps += dur;
        }
    }

    /// A `CommandDone` event: if it is the chip's current command, the chip is free and the
    /// command's transactions are swapped into `done` (cleared first). Returns the command's
    /// operation, or None for a stale event.
    pub fn finish<R: PageOps + ?Sized>(
        &mut self,
        chip: u32,
        gen: u32,
        done: &mut Vec<u32>,
        ops: &R,
        now: Ps,
    ) -> Option<FlashOp> {
        let ci = chip as usize;
        if self.chips[ci].gen != gen {
            return None;
        }
        let cmd = &mut self.chips[ci].cmd;
        let op = cmd.op.take().expect("a running command has an op");
        done.clear();
        std::mem::swap(done, &mut cmd.txs);
        let gc = ops.is_gc(done[0]);
        Self::account_segment(&mut self.counters, self.geo.planes_per_chip(), &self.chips[ci].cmd, gc, now);
        let c = &mut self.chips[ci];
        c.gen = c.gen.wrapping_add(1);
        self.set_busy(chip, false);
        Some(op)
    }

    /// After a finished command's work is routed: a read's last data-out ended now, so the
    /// channel goes to its waiters.
    pub fn hand_bus_on<R: PageOps + ?Sized>(&mut self, chip: u32, ops: &R, q: &mut EventQueue) {
        self.bus_handoff(self.geo.channel_of_chip(chip), ops, q);
    }

    /// A `ChipFree` event: a suspension took effect. True if the chip is now free for reads.
    pub fn suspension_done(&mut self, chip: u32, gen: u32) -> bool {
        if self.chips[chip as usize].gen != gen {
            return false;
        }
        self.set_busy(chip, false);
        true
    }

    /// User reads wait for a busy chip: with suspension on, suspend its program or erase if
    /// that is allowed and worth it.
    #[inline]
    pub fn reads_waiting<R: PageOps + ?Sized>(&mut self, chip: u32, ops: &R, q: &mut EventQueue) {
        if self.suspension {
            self.maybe_suspend(chip, ops, q);
        }
    }

    #[cold]
    fn maybe_suspend<R: PageOps + ?Sized>(&mut self, chip: u32, ops: &R, q: &mut EventQueue) {
        let ci = chip as usize;
        let now = q.now();
        let c = &self.chips[ci];
        let Some(op) = c.cmd.op else { return };
        if c.suspended.is_some()
            || !matches!(op, FlashOp::Program | FlashOp::Erase)
            || now < c.bus_phase_end_ps
            || c.cmd.suspends >= self.max_suspends
        {
            return;
        }
        let end = c.cmd.dies.iter().map(|d| d.end_ps).max().unwrap_or(0);
        if end <= now + self.timing.t_suspend_ps {
            return;
        }
        self.counters.suspensions += 1;
        let mut cmd = std::mem::take(&mut self.chips[ci].cmd);
        let gc = ops.is_gc(cmd.txs[0]);
        Self::account_segment(&mut self.counters, self.geo.planes_per_chip(), &cmd, gc, now);
        cmd.suspends += 1;
        for d in &mut cmd.dies {
            d.end_ps = d.end_ps.saturating_sub(now);
        }
        let c = &mut self.chips[ci];
        c.suspended = Some(cmd);
        c.gen = c.gen.wrapping_add(1);
        let gen = c.gen;
        q.after(self.timing.t_suspend_ps, Event::ChipFree { chip, gen });
    }

    /// Resume a chip's suspended program or erase (its reads are done).
    #[cold]
    pub fn resume(&mut self, chip: u32, q: &mut EventQueue) {
        let ci = chip as usize;
        let now = q.now();
        let mut cmd = self.chips[ci].suspended.take().expect("resume without a suspended command");
        let restart = now + self.timing.t_resume_ps;
        for d in &mut cmd.dies {
            d.end_ps += restart;
        }
        cmd.segment_start_ps = now;
        let end = cmd.dies.iter().map(|d| d.end_ps).max().expect("dies");
        let gen = self.chips[ci].gen;
        self.chips[ci].bus_phase_end_ps = now;
        self.chips[ci].cmd = cmd;
        self.set_busy(chip, true);
        q.at(end, Event::CommandDone { chip, gen });
    }
}
