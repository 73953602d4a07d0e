//! FLIN (Tavakkol et al., ISCA 2018): a fairness-aware transaction scheduler for multi-queue
//! SSDs, in three stages per chip (algorithm details: docs/techniques.md §1).
//!
//! 1. **Fairness-aware queue insertion** (intensity and access-pattern interference). Each
//!    chip has a read and a write queue per NVMe priority class, each split into a
//!    low-intensity segment (front) and a high-intensity one. A flow is low-intensity for reads
//!    (writes) on a chip when it enqueued fewer than α_read (α_write) transactions there in the
//!    last epoch: by default a share of the reads (writes) the chip can serve in an epoch
//!    (`tsu.flin.intensity`). A low-intensity flow's transaction goes to the end of the low segment; a
//!    high-intensity one to the tail. Then the new transaction is moved forward — past other
//!    flows' transactions only — to the slot that maximises fairness (min / max of the flows'
//!    mean estimated slowdowns) over its segment; or, if the high segment is already unfair
//!    (fairness below `fairness_threshold`) and the new transaction's flow is the most slowed
//!    down, straight to the front of the high segment behind a barrier. A transaction's
//!    slowdown estimate is (time waited + the chip's remaining busy time + service of everything
//!    ahead + its own service) / (estimated alone wait + own service), the alone wait being how
//!    long it would wait behind its own flow's earlier transactions if the flow ran alone.
//! 2. **Priority-aware queue arbitration**: weighted round-robin over the priority classes
//!    (weight 2^i: urgent 8, high 4, medium 2, low 1 of 15 turns), separately for reads and
//!    writes, picks the read candidate and the write candidate (the heads of their queues).
//! 3. **Wait-balancing selection** (read/write-ratio and GC interference): serve the read if
//!    its proportional wait — (waited + the write's service + T_GC) / its own service — is at
//!    least the write's — (waited + the read's service + T_GC) / its own service — where T_GC
//!    is the GC work the write's flow would cause. Before the write, that flow's N_GC page
//!    moves run (GC queued on the chip × the flow's share of the chip's writes since its last
//!    erase); all GC goes first when a plane is at the hard free-block threshold; with no user
//!    work, GC runs in the background.
//!
//! The ablation (`tsu.flin.stages`; docs/techniques.md §1.8): with 2, stage 3 is replaced by
//! the read-first choice `ooo` makes (GC as under `ooo`, not charged before writes); with 1,
//! stage 2 is also replaced by plain round robin over the priority classes' queues. The
//! stand-ins are ours [I]: the seed (the talk's slides) names the per-stage evaluation but not
//! what replaces a stage that is off.
//!
//! GC is charged to the flows that caused it: each GC command's service time is split among
//! the flows in proportion to the user writes each made on that chip since its last GC erase
//! (`gc_charged_us` per flow in the report).
//!
//! Simplification (stated): a command's service time is the mean over page types of command,
//! array and transfer time (one more transfer per extra plane); the chip's remaining busy time
//! is estimated from it.

#[cfg(test)]
mod tests;

use super::{GcUrgency, Pick, PickContext, QueueClass, Transaction, TsuPolicy, TxKind};
use crate::engine::Ps;
use crate::nand::config::NandConfig;
use crate::nand::{FlashOp, Geometry, Timing, NONE};
use crate::tsu::config::{FlinConfig, FlinIntensity, GcBeforeWrite, GcInWaits};
use crate::validate::us_to_ps;

const CLASSES: usize = 4;
const READ: usize = 0;
const WRITE: usize = 1;

/// Weighted round-robin turns: class i (0 urgent .. 3 low) appears 2^(3 − i) times, urgent on
/// every other turn.
pub const TURNS: [u8; 15] = [0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0];

/// Plain round robin, each class once (stage 2 off, `tsu.flin.stages = 1`) [I].
pub const PLAIN_TURNS: [u8; CLASSES] = [0, 1, 2, 3];

/// A queued user transaction as FLIN sees it.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub tx: u32,
    pub flow: u32,
    pub arrival: Ps,
    pub alone_wait: Ps,
    pub svc: Ps,
    pub barrier: bool,
}

/// Stage 2's table: the first turn at or after `t`, in round-robin order, whose class has a
/// non-empty queue (bit c of `mask` = class c non-empty); `NO_TURN` when every queue is empty.
const NEXT_TURN: [[u8; 1 << CLASSES]; TURNS.len()] = next_turn_table(TURNS);
const NEXT_PLAIN_TURN: [[u8; 1 << CLASSES]; CLASSES] = next_turn_table(PLAIN_TURNS);
const NO_TURN: u8 = u8::MAX;

const fn next_turn_table<const N: usize>(turns: [u8; N]) -> [[u8; 1 << CLASSES]; N] {
    let mut table = [[NO_TURN; 1 << CLASSES]; N];
    let mut t = 0;
    while t < N {
        let mut mask = 1;
        while mask < 1 << CLASSES {
            let mut k = 0;
            while k < N {
                let turn = (t + k) % N;
                if mask & (1 << turns[turn]) != 0 {
                    table[t][mask] = turn as u8;
                    break;
                }
                k += 1;
            }
            mask += 1;
        }
        t += 1;
    }
    table
}

/// Stage 2's arbitration over the priority classes' queues: the turn order and its lookup
/// table.
#[derive(Debug, Clone, Copy)]
pub struct Arbiter {
    turns: &'static [u8],
    next: &'static [[u8; 1 << CLASSES]],
}

/// FLIN's stage 2: weighted round robin, weight 2^i.
pub const WEIGHTED: Arbiter = Arbiter { turns: &TURNS, next: &NEXT_TURN };
/// Stage 2 off: plain round robin, no weights [I].
pub const PLAIN: Arbiter = Arbiter { turns: &PLAIN_TURNS, next: &NEXT_PLAIN_TURN };

/// One chip's queues of one op (read or write), in one cache line: the priority classes'
/// queues are consecutive segments of one vector, class 0 (urgent) first.
#[derive(Debug, Default, Clone)]
#[repr(align(64))]
pub struct OpQueues {
    entries: Vec<Entry>,
    /// Where each class's segment ends in `entries` (it starts where the previous one ends).
    ends: [u32; CLASSES],
    /// Length of each class's low-intensity segment (at the front of the class's queue).
    low_len: [u32; CLASSES],
    /// Stage 2: the round-robin position, and the turn that gave the current candidate.
    turn: u8,
    slot_turn: u8,
}

// One cache line per chip and op.
const _: () = assert!(std::mem::size_of::<OpQueues>() == 64);

impl OpQueues {
    fn bounds(&self, class: usize) -> (usize, usize) {
        let start = if class == 0 { 0 } else { self.ends[class - 1] as usize };
        (start, self.ends[class] as usize)
    }

    /// The queue of `class`, front first.
    pub fn class(&self, class: usize) -> &[Entry] {
        let (start, end) = self.bounds(class);
        &self.entries[start..end]
    }

    fn class_mut(&mut self, class: usize) -> &mut [Entry] {
        let (start, end) = self.bounds(class);
        &mut self.entries[start..end]
    }

    /// Length of `class`'s low-intensity segment.
    pub fn low_len(&self, class: usize) -> usize {
        self.low_len[class] as usize
    }

    /// Bit c set when class c's queue is not empty.
    fn nonempty(&self) -> usize {
        let mut start = 0;
        let mut mask = 0;
        for (c, &end) in self.ends.iter().enumerate() {
            mask |= ((end > start) as usize) << c;
            start = end;
        }
        mask
    }

    /// Insert `e` at `pos` of `class`'s queue.
    #[inline]
    fn insert(&mut self, class: usize, pos: usize, e: Entry) {
        let (start, _) = self.bounds(class);
        self.entries.insert(start + pos, e);
        for (c, end) in self.ends.iter_mut().enumerate() {
            *end += (c >= class) as u32;
        }
    }

    /// Remove the entry at `pos` of `class`'s queue.
    #[inline]
    fn remove(&mut self, class: usize, pos: usize) -> Entry {
        let (start, _) = self.bounds(class);
        // The last entry (often the only one) comes off without a call to move the rest.
        let e = if start + pos + 1 == self.entries.len() {
            self.entries.pop().expect("a queued entry")
        } else {
            self.entries.remove(start + pos)
        };
        for (c, end) in self.ends.iter_mut().enumerate() {
            *end -= (c >= class) as u32;
        }
        if pos < self.low_len[class] as usize {
            self.low_len[class] -= 1;
        }
        e
    }
}

/// One chip's queues and round-robin state.
#[derive(Debug, Default, Clone)]
pub struct ChipState {
    /// `[op]`: the read and the write queues.
    pub ops: [OpQueues; 2],
    epoch_end: Ps,
    /// Commands dispatched on the chip; `FlowOnChip::running_cmd` refers to it.
    commands: u64,
    /// User writes dispatched on the chip since its last GC erase, all flows together.
    writes_total: u64,
    /// When the command under way is estimated to end.
    busy_until: Ps,
    /// GC owed before the write candidate `debt_for` (a transaction index; `NONE` for none):
    /// GC reads and GC writes still to dispatch ahead of it.
    gc_owed: [u32; 2],
    debt_for: u32,
    /// A write that paid GC moves went: a GC erase that is ready goes next (its victim may
    /// now be empty).
    erase_due: bool,
}

/// What FLIN keeps per chip and flow, in one 32-byte record.
#[derive(Debug, Default, Clone, Copy)]
pub struct FlowOnChip {
    /// Transactions enqueued this epoch, by op.
    count: [u32; 2],
    /// Whether the flow is low-intensity on the chip, by op.
    pub low: [bool; 2],
    /// User writes dispatched on the chip since its last GC erase.
    pub writes_since_erase: u32,
    /// The chip's command count when the flow last had a transaction in a dispatched command,
    /// and when the first such transaction would end had the flow run alone (arrival + alone
    /// wait + service). Valid while that command is the chip's latest.
    running_cmd: u64,
    running_end: Ps,
}

pub struct Flin {
    pub chips: Vec<ChipState>,
    /// `[chip × flows + flow]`: per chip and flow state (flows include the no-flow slot).
    pub flows: Vec<FlowOnChip>,
    /// Priority class of each flow; the last slot is for work of no flow (cache write-backs).
    prio: Vec<u8>,
    flows_in_class: [u32; CLASSES],
    epoch_ps: Ps,
    alpha: [u32; 2],
    fairness_threshold: f64,
    svc: [Ps; 2],
    /// One more page's transfer (each extra plane of a command).
    xfer: Ps,
    t_erase: Ps,
    gc_in_waits: GcInWaits,
    gc_before_write: GcBeforeWrite,
    chip_busy_in_slowdown: bool,
    /// Stage 2: weighted round robin (FLIN) or plain round robin (`stages = 1`).
    arbiter: Arbiter,
    /// Stage 3: wait-balancing selection with GC charged before writes (FLIN), or read-first
    /// with GC as under `ooo` (`stages` < 3).
    wait_balancing: bool,
    gc_charge_ps: Vec<f64>,
    /// How often each stage had a choice and what it did (the ablation's counters).
    pub decisions: Decisions,
    /// Reused buffers of stage 1's fairness estimates (no allocation per insertion).
    scratch: Scratch,
}

/// How often each stage had a choice to make, and how often it changed the order a
/// first-come, read-first scheduler would have kept (reported as `sim.tsu_decisions`).
#[derive(Debug, Default, Clone, Copy)]
pub struct Decisions {
    /// Stage 1: user transactions inserted into a queue shared by two or more flows, and of
    /// those, how many went ahead of a transaction queued before them.
    pub inserted: u64,
    pub inserted_ahead: u64,
    /// Stage 2: candidates chosen, and of those, how many with two or more priority classes'
    /// queues holding work (the only case where the round robin's weights can matter).
    pub candidates: u64,
    pub candidates_contested: u64,
    /// Stage 3: picks with both a read and a write candidate, and of those, how many chose the
    /// write's side (the write, or GC it owes or that is urgent) over the waiting read; GC page
    /// moves a write's flow was charged before its write.
    pub both_candidates: u64,
    pub write_first: u64,
    pub gc_moves_charged: u64,
}

impl Decisions {
    /// The counts by name, in stage order.
    pub fn named(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("stage1_inserted", self.inserted),
            ("stage1_inserted_ahead", self.inserted_ahead),
            ("stage2_candidates", self.candidates),
            ("stage2_candidates_contested", self.candidates_contested),
            ("stage3_both_candidates", self.both_candidates),
            ("stage3_write_first", self.write_first),
            ("stage3_gc_moves_charged", self.gc_moves_charged),
        ]
    }
}

/// Buffers the fairness estimates fill and reuse.
#[derive(Debug, Default)]
pub struct Scratch {
    slowdowns: Vec<f64>,
    /// (flow, sum of slowdowns, entries).
    per_flow: Vec<(u32, f64, u32)>,
}

impl Flin {
    /// Bytes of FLIN's books: per chip and flow (GC counted as one more flow) its
    /// [`FlowOnChip`], per chip its state, per flow its priority and GC charge.
    pub fn estimate_bytes(chips: u32, flows: usize) -> u64 {
        let n = flows as u64 + 1;
        chips as u64 * (n * std::mem::size_of::<FlowOnChip>() as u64 + std::mem::size_of::<ChipState>() as u64) + n * 9
    }

    pub fn new(nand: &NandConfig, f: &FlinConfig, flow_prio: &[u8]) -> Flin {
        let geo = Geometry::from_config(nand);
        let timing = Timing::from_config(nand);
        let mean = |v: &[u64]| v.iter().sum::<u64>() / v.len().max(1) as u64;
        let xfer = timing.bus_transfer_ps(geo.page_bytes as u64);
        let svc_read = timing.cmd_addr_ps(FlashOp::Read) + mean(&timing.t_read_ps) + xfer;
        let svc_write = timing.cmd_addr_ps(FlashOp::Program) + xfer + mean(&timing.t_program_ps);
        let mut prio: Vec<u8> = flow_prio.to_vec();
        prio.push(1);
        let mut flows_in_class = [0; CLASSES];
        for &p in flow_prio {
            flows_in_class[p as usize] += 1;
        }
        let n = prio.len();
        let epoch_ps = us_to_ps(f.epoch_us);
        // Commands start at 1 so that no flow has a running transaction before the first.
        let chip = ChipState { epoch_end: epoch_ps, commands: 1, debt_for: NONE, ..Default::default() };
        let flow = FlowOnChip { low: [f.start_low_intensity; 2], ..Default::default() };
        Flin {
            chips: vec![chip; geo.chips() as usize],
            flows: vec![flow; geo.chips() as usize * n],
            prio,
            flows_in_class,
            epoch_ps,
            alpha: intensity_thresholds(f, &geo, epoch_ps, [svc_read, svc_write]),
            fairness_threshold: f.fairness_threshold,
            svc: [svc_read, svc_write],
            xfer,
            t_erase: timing.t_erase_ps,
            gc_in_waits: f.gc_in_waits,
            gc_before_write: f.gc_before_write,
            chip_busy_in_slowdown: f.chip_busy_in_slowdown,
            arbiter: if f.stages >= 2 { WEIGHTED } else { PLAIN },
            wait_balancing: f.stages >= 3,
            gc_charge_ps: vec![0.0; n],
            decisions: Decisions::default(),
            scratch: Scratch::default(),
        }
    }

    /// The per-chip intensity thresholds (reads, writes per epoch) FLIN uses on drive `nand`
    /// (what a reproduction's report states).
    pub fn thresholds(nand: &NandConfig, f: &FlinConfig) -> [u32; 2] {
        Flin::new(nand, f, &[]).alpha
    }

    /// Where `chip`'s per-flow records are in `flows`.
    fn records(&self, chip: usize) -> std::ops::Range<usize> {
        let n = self.prio.len();
        chip * n..(chip + 1) * n
    }

    /// The record of `flow` (an index from `flow_index`) on `chip`.
    pub fn flow_on_chip(&mut self, chip: usize, flow: usize) -> &mut FlowOnChip {
        let at = self.records(chip).start + flow;
        &mut self.flows[at]
    }

    fn flow_index(&self, flow: u32) -> usize {
        if flow == NONE || flow as usize >= self.prio.len() - 1 {
            self.prio.len() - 1
        } else {
            flow as usize
        }
    }

    /// Close epochs that ended by `now`: classify flows by what they enqueued, reset counts.
    fn roll_epoch(&mut self, chip: usize, now: Ps) {
        let epoch_end = self.chips[chip].epoch_end;
        if now < epoch_end {
            return;
        }
        // If more than one epoch went by, the last full one saw nothing.
        let idle = now >= epoch_end + self.epoch_ps;
        let alpha = self.alpha;
        let records = self.records(chip);
        for fc in &mut self.flows[records] {
            for op in [READ, WRITE] {
                fc.low[op] = idle || fc.count[op] < alpha[op];
            }
            fc.count = [0; 2];
        }
        self.chips[chip].epoch_end = (now / self.epoch_ps + 1) * self.epoch_ps;
    }

    /// Stage 1: insert a user transaction into its queue.
    pub fn insert(&mut self, chip: usize, op: usize, e: Entry, now: Ps) {
        self.roll_epoch(chip, now);
        let f = self.flow_index(e.flow);
        let class = self.prio[f] as usize;
        let multi = self.flows_in_class[class] >= 2;
        let threshold = self.fairness_threshold;
        let commands = self.chips[chip].commands;
        let fc = self.flow_on_chip(chip, f);
        fc.count[op] += 1;
        let low = fc.low[op];
        let running_end = (fc.running_cmd == commands).then_some(fc.running_end);
        let busy = if self.chip_busy_in_slowdown { self.chips[chip].busy_until.saturating_sub(now) } else { 0 };
        let oq = &mut self.chips[chip].ops[op];
        let sc = &mut self.scratch;
        let len = oq.class(class).len();
        if !multi {
            // Fewer than two flows in the class: first come, first served.
            let mut e = e;
            e.alone_wait = alone_wait(oq.class(class), len, &e, running_end, now);
            oq.insert(class, len, e);
        } else if low {
            let pos = oq.low_len(class);
            let mut e = e;
            e.alone_wait = alone_wait(oq.class(class), pos, &e, running_end, now);
            oq.insert(class, pos, e);
            oq.low_len[class] += 1;
            reorder_for_fairness(oq.class_mut(class), 0, pos, Clock { now, busy }, sc);
        } else {
            let pos = len;
            let mut e = e;
            e.alone_wait = alone_wait(oq.class(class), pos, &e, running_end, now);
            oq.insert(class, pos, e);
            let lo = oq.low_len(class);
            let q = oq.class_mut(class);
            let clock = Clock { now, busy };
            match segment_fairness(q, lo, clock, sc) {
                Some((fairness, worst)) if fairness < threshold && worst == e.flow => {
                    move_forward(q, lo, pos);
                }
                _ => reorder_for_fairness(q, lo, pos, clock, sc),
            }
        }
        if multi {
            // Stage 1 put it ahead of earlier work unless it is its queue's last.
            let last = self.chips[chip].ops[op].class(class).last().map(|x| x.tx);
            self.decisions.inserted += 1;
            self.decisions.inserted_ahead += (last != Some(e.tx)) as u64;
        }
    }

    /// Stage 2: the candidate of `op` — the head of the first non-empty queue in
    /// round-robin turn order — and the turn it came from.
    fn candidate(&self, chip: usize, op: usize) -> Option<(Entry, u8)> {
        let oq = &self.chips[chip].ops[op];
        let Arbiter { turns, next } = self.arbiter;
        let t = next[oq.turn as usize][oq.nonempty()];
        (t != NO_TURN).then(|| (oq.class(turns[t as usize] as usize)[0], t))
    }

    /// N_GC: the page moves the write candidate's flow owes before its write, the GC reads
    /// queued on the chip × the flow's share of the chip's user writes since its last erase.
    fn n_gc(&self, chip: usize, ctx: &PickContext<'_>, w: &Entry) -> u64 {
        let total = self.chips[chip].writes_total;
        if total == 0 {
            return 0;
        }
        let mine = self.flows[self.records(chip).start + self.flow_index(w.flow)].writes_since_erase as u64;
        ctx.queues.class_len(QueueClass::GcRead) as u64 * mine / total
    }

    /// T_GC: the service time of the N_GC page moves before the write, and of an erase if any
    /// is due.
    fn gc_before_write_ps(&self, chip: usize, ctx: &PickContext<'_>, w: &Entry) -> Ps {
        let n = self.n_gc(chip, ctx, w);
        let erase = if n > 0 || ctx.queues.class_len(QueueClass::GcErase) > 0 { self.t_erase } else { 0 };
        n * (self.svc[READ] + self.svc[WRITE]) + erase
    }

    /// GC FLIN runs ahead of the write `w` (`GcBeforeWrite::Share`): the first time `w` is the
    /// write chosen, its flow owes N_GC GC reads and GC writes; each pick pays one command of
    /// them (writes first, so moved pages land) until paid or none can start.
    fn owed_gc(&mut self, chip: usize, ctx: &PickContext<'_>, w: &Entry) -> Option<Pick> {
        if self.chips[chip].debt_for != w.tx {
            let n = self.n_gc(chip, ctx, w).min(u32::MAX as u64) as u32;
            self.decisions.gc_moves_charged += n as u64;
            let c = &mut self.chips[chip];
            c.debt_for = w.tx;
            c.gc_owed = [n, n];
            c.erase_due = n > 0;
        }
        let owed = self.chips[chip].gc_owed;
        let class = [(WRITE, QueueClass::GcWrite), (READ, QueueClass::GcRead)]
            .into_iter()
            .find(|&(op, class)| owed[op] > 0 && ctx.available(class))
            .map(|(_, class)| class);
        if class.is_none() {
            self.chips[chip].gc_owed = [0, 0];
        }
        class.map(Pick::class)
    }

    /// User transactions `txs` of `op` left the chip's queues as one command: out of FLIN's
    /// queues, stage 2's round-robin moves on, they become the running ones, writes count
    /// toward GC charging.
    /// GC's `n` transactions of `op` started on chip `ci`: their service time is charged to
    /// the flows that wrote (docs/techniques.md §1).
    fn gc_dispatched(&mut self, ci: usize, op: FlashOp, n: usize) {
        let dir = if op == FlashOp::Read { READ } else { WRITE };
        if op != FlashOp::Erase {
            let owed = &mut self.chips[ci].gc_owed[dir];
            *owed = owed.saturating_sub(n as u32);
        }
        let per_tx = match op {
            FlashOp::Read => self.svc[READ],
            FlashOp::Erase => self.t_erase,
            _ => self.svc[WRITE],
        };
        let gc_ps = per_tx * n as Ps;
        if gc_ps > 0 {
            self.charge_gc(ci, gc_ps, op == FlashOp::Erase);
        }
    }

    /// Estimated service time of a command of `op` over `n` planes.
    fn command_ps(&self, op: FlashOp, n: usize) -> Ps {
        let extra = n.saturating_sub(1) as Ps * self.xfer;
        match op {
            FlashOp::Read => self.svc[READ] + extra,
            FlashOp::Erase => self.t_erase,
            _ => self.svc[WRITE] + extra,
        }
    }

    fn user_dispatched(&mut self, ci: usize, txs: &[u32], all: &[Transaction], op: usize) {
        let base = self.records(ci).start;
        let commands = self.chips[ci].commands;
        let turns = self.arbiter.turns;
        for &tx in txs {
            let f = self.flow_index(all[tx as usize].flow);
            let class = self.prio[f] as usize;
            let oq = &mut self.chips[ci].ops[op];
            let fc = &mut self.flows[base + f];
            if let Some(k) = oq.class(class).iter().position(|e| e.tx == tx) {
                let e = oq.remove(class, k);
                // Stage 2's round-robin moves on once its candidate is served.
                if k == 0 && turns[oq.slot_turn as usize] as usize == class {
                    oq.turn = (oq.slot_turn + 1) % turns.len() as u8;
                }
                if fc.running_cmd != commands {
                    fc.running_cmd = commands;
                    fc.running_end = e.arrival + e.alone_wait + e.svc;
                }
            }
            if op == WRITE {
                fc.writes_since_erase += 1;
            }
            if op == WRITE && self.chips[ci].debt_for == tx {
                self.chips[ci].debt_for = NONE;
            }
        }
        if op == WRITE {
            self.chips[ci].writes_total += txs.len() as u64;
        }
    }

    /// Split `gc_ps` of GC service on `chip` among the flows by their user writes there since
    /// the chip's last erase (to the no-flow slot if nobody wrote); an erase restarts the count.
    fn charge_gc(&mut self, chip: usize, gc_ps: Ps, erased: bool) {
        let n = self.prio.len();
        let total = self.chips[chip].writes_total;
        let records = self.records(chip);
        let flows = &mut self.flows[records];
        for (f, charge) in self.gc_charge_ps.iter_mut().enumerate() {
            *charge += if total == 0 {
                // Nobody wrote here since the last erase: GC of older data, unattributed.
                if f == n - 1 {
                    gc_ps as f64
                } else {
                    0.0
                }
            } else {
                gc_ps as f64 * flows[f].writes_since_erase as f64 / total as f64
            };
        }
        if erased {
            flows.iter_mut().for_each(|fc| fc.writes_since_erase = 0);
            self.chips[chip].writes_total = 0;
        }
    }
}

/// Stage 3 off (`tsu.flin.stages` < 3) [I]: the choice `ooo` makes (`tsu.urgent_gc =
/// "after_reads"`), with stage 2's candidates leading their queues: the read, then urgent GC,
/// then a mapping write, the write, background GC. GC is not charged before writes.
fn read_first(ctx: &PickContext<'_>, read: Option<Entry>, write: Option<Entry>) -> Option<Pick> {
    use QueueClass::*;
    let gc = |order: [QueueClass; 3]| order.into_iter().find(|&c| ctx.available(c)).map(Pick::class);
    if let Some(r) = read {
        return Some(Pick { class: UserRead, leader: Some(r.tx) });
    }
    if ctx.gc_urgency == GcUrgency::Critical {
        if let Some(p) = gc([GcErase, GcWrite, GcRead]) {
            return Some(p);
        }
    }
    if ctx.available(MapWrite) {
        return Some(Pick::class(MapWrite));
    }
    if let Some(w) = write {
        return Some(Pick { class: UserWrite, leader: Some(w.tx) });
    }
    gc([GcRead, GcWrite, GcErase])
        .or_else(|| [UserRead, UserWrite].into_iter().find(|&c| ctx.available(c)).map(Pick::class))
}

/// Proportional waits (stage 3): (read, write), each (waited + the other's service + T_GC) /
/// own service; with `GcInWaits::ReadOnly`, T_GC on the read's side only.
pub fn proportional_waits(r: &Entry, w: &Entry, t_gc: Ps, gc_in: GcInWaits, now: Ps) -> (f64, f64) {
    let write_gc = if gc_in == GcInWaits::Both { t_gc } else { 0 };
    let pw_read = ((now - r.arrival) + w.svc + t_gc) as f64 / r.svc.max(1) as f64;
    let pw_write = ((now - w.arrival) + r.svc + write_gc) as f64 / w.svc.max(1) as f64;
    (pw_read, pw_write)
}

/// The per-chip intensity thresholds (reads, writes) in transactions per epoch: a share of
/// what a chip serves in an epoch, one command's service time at a time (rounded up, so a
/// flow is low-intensity while it enqueues fewer than share × capacity), or the authors'
/// drive-wide bytes divided over the chips and into pages (integer division, as their code).
fn intensity_thresholds(f: &FlinConfig, geo: &Geometry, epoch_ps: Ps, svc: [Ps; 2]) -> [u32; 2] {
    match f.intensity {
        FlinIntensity::ChipShare => {
            svc.map(|s| (f.share() * epoch_ps as f64 / s.max(1) as f64).ceil().min(u32::MAX as f64) as u32)
        }
        FlinIntensity::DriveBytes => {
            f.alpha_bytes().map(|bytes| (bytes / geo.chips() as u64 / geo.page_bytes as u64) as u32)
        }
    }
}

/// The time stage 1's estimates start from: now, and how long the chip stays busy with the
/// command under way (0 when idle or not counted).
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pub now: Ps,
    pub busy: Ps,
}

/// How long `e` would wait if its flow ran alone: behind the nearest earlier transaction of
/// its flow ahead of `pos` in the queue, else behind the first of its flow in the command
/// running on the chip (`running_end`: when that one would end alone).
fn alone_wait(q: &[Entry], pos: usize, e: &Entry, running_end: Option<Ps>, now: Ps) -> Ps {
    let end =
        q[..pos].iter().rev().find(|y| y.flow == e.flow).map(|y| y.arrival + y.alone_wait + y.svc).or(running_end);
    end.map_or(0, |end| end.saturating_sub(now))
}

/// Estimated slowdown of each entry of `q` in its current order: everything ahead of it,
/// the chip's command under way included, delays it.
fn slowdowns(q: &[Entry], clock: Clock, out: &mut Vec<f64>) {
    out.clear();
    let mut ahead: Ps = clock.busy;
    for e in q {
        let shared = clock.now.saturating_sub(e.arrival) + ahead + e.svc;
        out.push(shared as f64 / (e.alone_wait + e.svc).max(1) as f64);
        ahead += e.svc;
    }
}

/// Fairness of `q[lo..]` by per-flow mean slowdown (min / max) and the most slowed-down flow;
/// None with fewer than two flows there.
pub fn segment_fairness(q: &[Entry], lo: usize, clock: Clock, sc: &mut Scratch) -> Option<(f64, u32)> {
    let Scratch { slowdowns: s, per_flow } = sc;
    slowdowns(q, clock, s);
    fairness_of(&q[lo..], &s[lo..], per_flow)
}

fn fairness_of(q: &[Entry], s: &[f64], per_flow: &mut Vec<(u32, f64, u32)>) -> Option<(f64, u32)> {
    per_flow.clear();
    for (e, &x) in q.iter().zip(s) {
        match per_flow.iter_mut().find(|p| p.0 == e.flow) {
            Some(p) => {
                p.1 += x;
                p.2 += 1;
            }
            None => per_flow.push((e.flow, x, 1)),
        }
    }
    if per_flow.len() < 2 {
        return None;
    }
    let means = per_flow.iter().map(|p| (p.0, p.1 / p.2 as f64));
    let (mut min, mut max, mut worst) = (f64::INFINITY, f64::NEG_INFINITY, NONE);
    for (flow, m) in means {
        min = min.min(m);
        if m > max {
            max = m;
            worst = flow;
        }
    }
    Some((min / max, worst))
}

/// Move the entry at `pos` forward within `q[lo..=pos]`, past other flows' entries only, to
/// the position where fairness over the range is highest (ties: the furthest back).
pub fn reorder_for_fairness(q: &mut [Entry], lo: usize, pos: usize, clock: Clock, sc: &mut Scratch) {
    let flow = q[pos].flow;
    let mut best = (fairness_at(q, lo, pos, clock, sc), pos);
    let mut p = pos;
    while p > lo && q[p - 1].flow != flow {
        q.swap(p - 1, p);
        p -= 1;
        let f = fairness_at(q, lo, pos, clock, sc);
        if f > best.0 {
            best = (f, p);
        }
    }
    // Put it back where it did best (at or behind `p`).
    q[p..=best.1].rotate_left(1);
}

fn fairness_at(q: &[Entry], lo: usize, hi: usize, clock: Clock, sc: &mut Scratch) -> f64 {
    let Scratch { slowdowns: s, per_flow } = sc;
    slowdowns(&q[..=hi], clock, s);
    fairness_of(&q[lo..=hi], &s[lo..=hi], per_flow).map_or(1.0, |x| x.0)
}

/// Move the entry at `pos` toward `limit`, stopping behind its own flow or a barrier; it
/// becomes a barrier itself.
pub fn move_forward(q: &mut [Entry], limit: usize, pos: usize) {
    let flow = q[pos].flow;
    let mut p = pos;
    while p > limit && q[p - 1].flow != flow && !q[p - 1].barrier {
        p -= 1;
    }
    q[p..=pos].rotate_right(1);
    q[p].barrier = true;
}

impl TsuPolicy for Flin {
    fn name(&self) -> &'static str {
        "flin"
    }

    fn enqueued(&mut self, chip: u32, tx: u32, t: &Transaction, now: Ps) {
        if t.kind != TxKind::User {
            return;
        }
        let op = if t.op == FlashOp::Read { READ } else { WRITE };
        let e = Entry { tx, flow: t.flow, arrival: now, alone_wait: 0, svc: self.svc[op], barrier: false };
        self.insert(chip as usize, op, e, now);
    }

    fn dequeued(&mut self, chip: u32, tx: u32) {
        let c = &mut self.chips[chip as usize];
        for oq in &mut c.ops {
            for class in 0..CLASSES {
                if let Some(k) = oq.class(class).iter().position(|e| e.tx == tx) {
                    oq.remove(class, k);
                    return;
                }
            }
        }
    }

    fn dispatched(&mut self, chip: u32, txs: &[u32], all: &[Transaction], now: Ps) {
        let ci = chip as usize;
        // A new command: the flows' running transactions are now those of this one.
        self.chips[ci].commands += 1;
        let Some(&first) = txs.first() else { return };
        // A command has one operation; it is one queue class's, or a GC command that user
        // work rode in (`tsu.user_joins_gc`): each part is accounted as its own.
        let (kind, op) = (all[first as usize].kind, all[first as usize].op);
        self.chips[ci].busy_until = now + self.command_ps(op, txs.len());
        let dir = if op == FlashOp::Read { READ } else { WRITE };
        if txs.iter().all(|&tx| all[tx as usize].kind == kind) {
            match kind {
                TxKind::User => self.user_dispatched(ci, txs, all, dir),
                TxKind::Gc => self.gc_dispatched(ci, op, txs.len()),
                TxKind::Mapping | TxKind::Migration => {}
            }
            return;
        }
        let user: Vec<u32> = txs.iter().copied().filter(|&tx| all[tx as usize].kind == TxKind::User).collect();
        let gc = txs.iter().filter(|&&tx| all[tx as usize].kind == TxKind::Gc).count();
        self.user_dispatched(ci, &user, all, dir);
        self.gc_dispatched(ci, op, gc);
    }

    fn pick(&mut self, ctx: &PickContext<'_>) -> Option<Pick> {
        use QueueClass::*;
        let chip = ctx.chip as usize;
        if ctx.available(MapRead) {
            return Some(Pick::class(MapRead));
        }
        let c = &mut self.chips[chip];
        if c.erase_due && c.debt_for == NONE {
            c.erase_due = false;
            if ctx.available(GcErase) {
                return Some(Pick::class(GcErase));
            }
        }
        let read = if ctx.available(UserRead) { self.candidate(chip, READ) } else { None };
        let write = if ctx.available(UserWrite) { self.candidate(chip, WRITE) } else { None };
        for (op, candidate) in [(READ, &read), (WRITE, &write)] {
            if let Some((_, t)) = candidate {
                let oq = &mut self.chips[chip].ops[op];
                oq.slot_turn = *t;
                self.decisions.candidates += 1;
                self.decisions.candidates_contested += (oq.nonempty().count_ones() >= 2) as u64;
            }
        }
        self.decisions.both_candidates += (read.is_some() && write.is_some()) as u64;
        if !self.wait_balancing {
            return read_first(ctx, read.map(|(r, _)| r), write.map(|(w, _)| w));
        }
        let gc_first = [GcErase, GcWrite, GcRead];
        let background = [GcRead, GcWrite, GcErase];
        let gc = |order: &[QueueClass]| order.iter().copied().find(|&c| ctx.available(c)).map(Pick::class);
        let serve_read = match (&read, &write) {
            (Some((r, _)), Some((w, _))) => {
                let t_gc = self.gc_before_write_ps(chip, ctx, w);
                let (pr, pw) = proportional_waits(r, w, t_gc, self.gc_in_waits, ctx.now);
                pr >= pw
            }
            (Some(_), None) => true,
            _ => false,
        };
        if serve_read {
            let (r, _) = read.expect("read candidate");
            return Some(Pick { class: UserRead, leader: Some(r.tx) });
        }
        self.decisions.write_first += (read.is_some() && write.is_some()) as u64;
        if let Some((w, _)) = write {
            if ctx.gc_urgency == GcUrgency::Critical {
                if let Some(p) = gc(&gc_first) {
                    return Some(p);
                }
            }
            if self.gc_before_write == GcBeforeWrite::Share {
                if let Some(p) = self.owed_gc(chip, ctx, &w) {
                    return Some(p);
                }
            }
            return Some(Pick { class: UserWrite, leader: Some(w.tx) });
        }
        if ctx.available(MapWrite) {
            return Some(Pick::class(MapWrite));
        }
        // User work FLIN does not queue (never happens) is served oldest first.
        gc(&background).or_else(|| [UserRead, UserWrite].iter().copied().find(|&c| ctx.available(c)).map(Pick::class))
    }

    fn gc_charged_us(&self) -> Option<Vec<f64>> {
        Some(self.gc_charge_ps.iter().map(|p| p / 1e6).collect())
    }

    fn decisions(&self) -> Vec<(&'static str, u64)> {
        self.decisions.named()
    }
}
