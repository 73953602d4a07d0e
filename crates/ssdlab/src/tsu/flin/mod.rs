//! FLIN (Tavakkol et al., ISCA 2018): a fairness-aware transaction scheduler for multi-queue
//! SSDs, in three stages per chip (algorithm details: ../shared/TECHNIQUES.md §1).
//!
//! 1. **Fairness-aware queue insertion** (intensity and access-pattern interference). Each
//!    chip has a read and a write queue per NVMe priority class, each split into a
//!    low-intensity segment (front) and a high-intensity one. A flow is low-intensity for reads
//!    (writes) on a chip when it enqueued fewer than α_read (α_write) transactions there in the
//!    last epoch. A low-intensity flow's transaction goes to the end of the low segment; a
//!    high-intensity one to the tail. Then the new transaction is moved forward — past other
//!    flows' transactions only — to the slot that maximises fairness (min / max of the flows'
//!    mean estimated slowdowns) over its segment; or, if the high segment is already unfair
//!    (fairness below `fairness_threshold`) and the new transaction's flow is the most slowed
//!    down, straight to the front of the high segment behind a barrier. A transaction's
//!    slowdown estimate is (time waited + service of everything ahead + its own service) /
//!    (estimated alone wait + own service), the alone wait being how long it would wait behind
//!    its own flow's earlier transactions if the flow ran alone.
//! 2. **Priority-aware queue arbitration**: weighted round-robin over the priority classes
//!    (weight 2^i: urgent 8, high 4, medium 2, low 1 of 15 turns), separately for reads and
//!    writes, picks the read candidate and the write candidate (the heads of their queues).
//! 3. **Wait-balancing selection** (read/write-ratio and GC interference): serve the read if
//!    its proportional wait — (waited + the write's service + the GC work the write's flow
//!    would cause) / its own service — is at least the write's — (waited + the read's service)
//!    / its own service. Before a write, GC goes first when a plane of the chip is at the hard
//!    free-block threshold; with no user work, GC runs in the background.
//!
//! GC is charged to the flows that caused it: each GC command's service time is split among
//! the flows in proportion to the user writes each made on that chip since its last GC erase
//! (`gc_charged_us` per flow in the report).
//!
//! Simplifications (stated): the chip's remaining busy time is not added to the slowdown
//! estimates (every candidate position shares it); a transaction's service time is the mean
//! over page types of command, array and transfer time.

#[cfg(test)]
mod tests;

use super::{GcUrgency, Pick, PickContext, QueueClass, Transaction, TsuPolicy, TxKind};
use crate::config::{us_to_ps, Config};
use crate::engine::Ps;
use crate::nand::{FlashOp, Geometry, Timing, NONE};

const CLASSES: usize = 4;
const READ: usize = 0;
const WRITE: usize = 1;

/// Weighted round-robin turns: class i (0 urgent .. 3 low) appears 2^(3 − i) times, urgent on
/// every other turn.
pub const TURNS: [u8; 15] = [0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0];

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

#[derive(Debug, Default, Clone)]
pub struct ChipState {
    /// `[op][class]`: the queue, and the length of its low-intensity segment.
    pub queues: [[Vec<Entry>; CLASSES]; 2],
    pub low_len: [[usize; CLASSES]; 2],
    /// Per flow: transactions enqueued this epoch, and whether the flow is low-intensity, by op.
    count: Vec<[u32; 2]>,
    pub low: Vec<[bool; 2]>,
    epoch_end: Ps,
    /// Round-robin position per op, and the turn that gave the current candidate.
    turn: [usize; 2],
    slot_turn: [usize; 2],
    /// Per flow: user writes dispatched on this chip since its last GC erase.
    pub writes_since_erase: Vec<u32>,
    /// User transactions of the command running now (for alone-wait estimates).
    running: Vec<Entry>,
}

pub struct Flin {
    pub chips: Vec<ChipState>,
    /// Priority class of each flow; the last slot is for work of no flow (cache write-backs).
    prio: Vec<u8>,
    flows_in_class: [u32; CLASSES],
    epoch_ps: Ps,
    alpha: [u32; 2],
    fairness_threshold: f64,
    svc: [Ps; 2],
    t_erase: Ps,
    gc_charge_ps: Vec<f64>,
    /// Reused buffers of stage 1's fairness estimates (no allocation per insertion).
    scratch: Scratch,
}

/// Buffers the fairness estimates fill and reuse.
#[derive(Debug, Default)]
pub struct Scratch {
    slowdowns: Vec<f64>,
    /// (flow, sum of slowdowns, entries).
    per_flow: Vec<(u32, f64, u32)>,
}

impl Flin {
    pub fn new(cfg: &Config, flow_prio: &[u8]) -> Flin {
        let geo = Geometry::from_config(cfg);
        let timing = Timing::from_config(cfg);
        let f = &cfg.tsu.flin;
        let mean = |v: &[u64]| v.iter().sum::<u64>() / v.len().max(1) as u64;
        let xfer = timing.bus_transfer_ps(geo.page_bytes as u64);
        let svc_read = timing.cmd_addr_ps(FlashOp::Read) + mean(&timing.t_read_ps) + xfer;
        let svc_write = timing.cmd_addr_ps(FlashOp::Program) + xfer + mean(&timing.t_program_ps);
        let per_chip = |bytes: u64| (bytes / geo.chips() as u64 / geo.page_bytes as u64) as u32;
        let mut prio: Vec<u8> = flow_prio.to_vec();
        prio.push(1);
        let mut flows_in_class = [0; CLASSES];
        for &p in flow_prio {
            flows_in_class[p as usize] += 1;
        }
        let n = prio.len();
        let epoch_ps = us_to_ps(f.epoch_us);
        let chip = ChipState {
            count: vec![[0; 2]; n],
            low: vec![[f.start_low_intensity; 2]; n],
            writes_since_erase: vec![0; n],
            epoch_end: epoch_ps,
            ..Default::default()
        };
        Flin {
            chips: vec![chip; geo.chips() as usize],
            prio,
            flows_in_class,
            epoch_ps,
            alpha: [per_chip(f.alpha_read_bytes), per_chip(f.alpha_write_bytes)],
            fairness_threshold: f.fairness_threshold,
            svc: [svc_read, svc_write],
            t_erase: timing.t_erase_ps,
            gc_charge_ps: vec![0.0; n],
            scratch: Scratch::default(),
        }
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
        let c = &mut self.chips[chip];
        if now < c.epoch_end {
            return;
        }
        // If more than one epoch went by, the last full one saw nothing.
        let idle = now >= c.epoch_end + self.epoch_ps;
        for (f, low) in c.low.iter_mut().enumerate() {
            for op in [READ, WRITE] {
                low[op] = idle || c.count[f][op] < self.alpha[op];
            }
            c.count[f] = [0; 2];
        }
        c.epoch_end = (now / self.epoch_ps + 1) * self.epoch_ps;
    }

    /// Stage 1: insert a user transaction into its queue.
    pub fn insert(&mut self, chip: usize, op: usize, e: Entry, now: Ps) {
        self.roll_epoch(chip, now);
        let f = self.flow_index(e.flow);
        let class = self.prio[f] as usize;
        let multi = self.flows_in_class[class] >= 2;
        let threshold = self.fairness_threshold;
        let c = &mut self.chips[chip];
        c.count[f][op] += 1;
        let low = c.low[f][op];
        let running = std::mem::take(&mut c.running);
        let sc = &mut self.scratch;
        let q = &mut c.queues[op][class];
        let low_len = &mut c.low_len[op][class];
        if !multi {
            // Fewer than two flows in the class: first come, first served.
            let mut e = e;
            e.alone_wait = alone_wait(q, q.len(), &e, &running, now);
            q.push(e);
        } else if low {
            let pos = *low_len;
            let mut e = e;
            e.alone_wait = alone_wait(q, pos, &e, &running, now);
            q.insert(pos, e);
            *low_len += 1;
            reorder_for_fairness(q, 0, pos, now, sc);
        } else {
            let pos = q.len();
            let mut e = e;
            e.alone_wait = alone_wait(q, pos, &e, &running, now);
            q.push(e);
            let lo = *low_len;
            match segment_fairness(q, lo, now, sc) {
                Some((fairness, worst)) if fairness < threshold && worst == e.flow => {
                    move_forward(q, lo, pos);
                }
                _ => reorder_for_fairness(q, lo, pos, now, sc),
            }
        }
        self.chips[chip].running = running;
    }

    /// Stage 2: the candidate of `op` — the head of the first non-empty queue in
    /// round-robin turn order — and the turn it came from.
    fn candidate(&self, chip: usize, op: usize) -> Option<(Entry, usize)> {
        let c = &self.chips[chip];
        (0..TURNS.len()).map(|k| (c.turn[op] + k) % TURNS.len()).find_map(|t| {
            let q = &c.queues[op][TURNS[t] as usize];
            q.first().map(|e| (*e, t))
        })
    }

    /// Estimated GC work the write candidate's flow would cause before its write:
    /// N_GC = queued GC reads × its share of the chip's writes since the last erase.
    fn gc_before_write(&self, chip: usize, ctx: &PickContext<'_>, w: Option<&Entry>) -> Ps {
        let Some(w) = w else { return 0 };
        let c = &self.chips[chip];
        let total: u64 = c.writes_since_erase.iter().map(|&x| x as u64).sum();
        if total == 0 {
            return 0;
        }
        let mine = c.writes_since_erase[self.flow_index(w.flow)] as u64;
        let gc_reads = ctx.queues.class_len(QueueClass::GcRead) as u64;
        let n = gc_reads * mine / total;
        let erase = if n > 0 || ctx.queues.class_len(QueueClass::GcErase) > 0 { self.t_erase } else { 0 };
        n * (self.svc[READ] + self.svc[WRITE]) + erase
    }
}

/// Proportional waits (stage 3): (read, write), each (waited + the other's service [+ GC]) /
/// own service.
pub fn proportional_waits(r: &Entry, w: &Entry, t_gc: Ps, now: Ps) -> (f64, f64) {
    let pw_read = ((now - r.arrival) + w.svc + t_gc) as f64 / r.svc.max(1) as f64;
    let pw_write = ((now - w.arrival) + r.svc) as f64 / w.svc.max(1) as f64;
    (pw_read, pw_write)
}

/// How long `e` would wait if its flow ran alone: behind the nearest earlier transaction of
/// its flow ahead of `pos` in the queue, else behind one of its flow running on the chip.
fn alone_wait(q: &[Entry], pos: usize, e: &Entry, running: &[Entry], now: Ps) -> Ps {
    let prev = q[..pos].iter().rev().find(|y| y.flow == e.flow).or_else(|| running.iter().find(|y| y.flow == e.flow));
    prev.map_or(0, |y| (y.arrival + y.alone_wait + y.svc).saturating_sub(now))
}

/// Estimated slowdown of each entry of `q` in its current order.
fn slowdowns(q: &[Entry], now: Ps, out: &mut Vec<f64>) {
    out.clear();
    let mut ahead: Ps = 0;
    for e in q {
        let shared = now.saturating_sub(e.arrival) + ahead + e.svc;
        out.push(shared as f64 / (e.alone_wait + e.svc).max(1) as f64);
        ahead += e.svc;
    }
}

/// Fairness of `q[lo..]` by per-flow mean slowdown (min / max) and the most slowed-down flow;
/// None with fewer than two flows there.
pub fn segment_fairness(q: &[Entry], lo: usize, now: Ps, sc: &mut Scratch) -> Option<(f64, u32)> {
    let Scratch { slowdowns: s, per_flow } = sc;
    slowdowns(q, now, s);
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
pub fn reorder_for_fairness(q: &mut Vec<Entry>, lo: usize, pos: usize, now: Ps, sc: &mut Scratch) {
    let flow = q[pos].flow;
    let mut best = (fairness_at(q, lo, pos, now, sc), pos);
    let mut p = pos;
    while p > lo && q[p - 1].flow != flow {
        q.swap(p - 1, p);
        p -= 1;
        let f = fairness_at(q, lo, pos, now, sc);
        if f > best.0 {
            best = (f, p);
        }
    }
    // Put it back where it did best.
    let e = q.remove(p);
    q.insert(best.1, e);
}

fn fairness_at(q: &[Entry], lo: usize, hi: usize, now: Ps, sc: &mut Scratch) -> f64 {
    let Scratch { slowdowns: s, per_flow } = sc;
    slowdowns(&q[..=hi], now, s);
    fairness_of(&q[lo..=hi], &s[lo..=hi], per_flow).map_or(1.0, |x| x.0)
}

/// Move the entry at `pos` toward `limit`, stopping behind its own flow or a barrier; it
/// becomes a barrier itself.
pub fn move_forward(q: &mut Vec<Entry>, limit: usize, pos: usize) {
    let flow = q[pos].flow;
    let mut p = pos;
    while p > limit && q[p - 1].flow != flow && !q[p - 1].barrier {
        p -= 1;
    }
    let mut e = q.remove(pos);
    e.barrier = true;
    q.insert(p, e);
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
        for op in [READ, WRITE] {
            for class in 0..CLASSES {
                if let Some(k) = c.queues[op][class].iter().position(|e| e.tx == tx) {
                    c.queues[op][class].remove(k);
                    if k < c.low_len[op][class] {
                        c.low_len[op][class] -= 1;
                    }
                    return;
                }
            }
        }
    }

    fn dispatched(&mut self, chip: u32, txs: &[u32], all: &[Transaction], _now: Ps) {
        let ci = chip as usize;
        let mut running = std::mem::take(&mut self.chips[ci].running);
        running.clear();
        let mut gc_ps: Ps = 0;
        let mut erased = false;
        for &tx in txs {
            let t = &all[tx as usize];
            match t.kind {
                TxKind::User => {
                    let op = if t.op == FlashOp::Read { READ } else { WRITE };
                    let c = &mut self.chips[ci];
                    for class in 0..CLASSES {
                        if let Some(k) = c.queues[op][class].iter().position(|e| e.tx == tx) {
                            let e = c.queues[op][class].remove(k);
                            if k < c.low_len[op][class] {
                                c.low_len[op][class] -= 1;
                            }
                            // Stage 2's round-robin moves on once its candidate is served.
                            if k == 0 && TURNS[c.slot_turn[op]] as usize == class {
                                c.turn[op] = (c.slot_turn[op] + 1) % TURNS.len();
                            }
                            running.push(e);
                            break;
                        }
                    }
                    if op == WRITE {
                        let f = self.flow_index(t.flow);
                        self.chips[ci].writes_since_erase[f] += 1;
                    }
                }
                TxKind::Gc => {
                    gc_ps += match t.op {
                        FlashOp::Read => self.svc[READ],
                        FlashOp::Erase => {
                            erased = true;
                            self.t_erase
                        }
                        _ => self.svc[WRITE],
                    };
                }
                TxKind::Mapping => {}
            }
        }
        let c = &mut self.chips[ci];
        c.running = running;
        if gc_ps > 0 {
            let total: u64 = c.writes_since_erase.iter().map(|&x| x as u64).sum();
            let n = self.gc_charge_ps.len();
            for (f, charge) in self.gc_charge_ps.iter_mut().enumerate() {
                *charge += if total == 0 {
                    // Nobody wrote here since the last erase: GC of older data, unattributed.
                    if f == n - 1 {
                        gc_ps as f64
                    } else {
                        0.0
                    }
                } else {
                    gc_ps as f64 * c.writes_since_erase[f] as f64 / total as f64
                };
            }
            if erased {
                c.writes_since_erase.iter_mut().for_each(|w| *w = 0);
            }
        }
    }

    fn pick(&mut self, ctx: &PickContext<'_>) -> Option<Pick> {
        use QueueClass::*;
        let chip = ctx.chip as usize;
        if ctx.available(MapRead) {
            return Some(Pick::class(MapRead));
        }
        let read = if ctx.available(UserRead) { self.candidate(chip, READ) } else { None };
        let write = if ctx.available(UserWrite) { self.candidate(chip, WRITE) } else { None };
        if let Some((_, t)) = read {
            self.chips[chip].slot_turn[READ] = t;
        }
        if let Some((_, t)) = write {
            self.chips[chip].slot_turn[WRITE] = t;
        }
        let gc_first = [GcErase, GcWrite, GcRead];
        let background = [GcRead, GcWrite, GcErase];
        let gc = |order: &[QueueClass]| order.iter().copied().find(|&c| ctx.available(c)).map(Pick::class);
        let serve_read = match (&read, &write) {
            (Some((r, _)), Some((w, _))) => {
                let t_gc = self.gc_before_write(chip, ctx, Some(w));
                let (pr, pw) = proportional_waits(r, w, t_gc, ctx.now);
                pr >= pw
            }
            (Some(_), None) => true,
            _ => false,
        };
        if serve_read {
            let (r, _) = read.expect("read candidate");
            return Some(Pick { class: UserRead, leader: Some(r.tx) });
        }
        if let Some((w, _)) = write {
            if ctx.gc_urgency == GcUrgency::Critical {
                if let Some(p) = gc(&gc_first) {
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
}
