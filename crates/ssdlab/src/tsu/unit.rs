//! The transaction scheduling unit at work: the transaction records, every chip's queues,
//! the policy and the builder, behind one narrow API for the simulation loop.
//!
//! The loop hands it transactions ([`Tsu::create`], [`Tsu::enqueue`]); when a chip is free
//! the loop asks for a command ([`Tsu::pick`], then [`Tsu::build`]) and gets back the
//! transactions to launch plus what the build settled on the way (GC moves found stale,
//! reads that followed their data elsewhere), to route on.

use crate::engine::Ps;
use crate::nand::config::{MultiplaneAddressing, NandConfig};
use crate::nand::{FlashOp, Geometry, Lpn, Ppn, NONE};
use crate::slab::Slab;
use crate::tsu::builder::{Builder, ChipWork, FtlView, Rules};
use crate::tsu::config::TsuConfig;
use crate::tsu::Stream;
use crate::tsu::WriteCase;
use crate::tsu::{
    ChipQueues, GcUrgency, Owner, Pick, PickContext, Place, QueueClass, QueueEntry, Transaction, TsuPolicy, TxKind,
    QUEUE_CLASSES,
};

pub struct Tsu {
    geo: Geometry,
    rules: Rules,
    policy: Box<dyn TsuPolicy>,
    txs: Slab<Transaction>,
    /// Enqueue order of transactions (global).
    tx_seq: u64,
    queues: Vec<ChipQueues>,
    /// Per chip: transactions queued or running (dynamic allocation reads it).
    chip_load: Vec<u32>,
    builder: Builder,
}

/// What a new transaction does: [`NewTx::new`] with the fields that differ by kind set on it
/// (`flow` for user work, `src_ppn` for a GC or migration move, `ppn` for an erase).
#[derive(Debug, Clone, Copy)]
pub struct NewTx {
    pub owner: Owner,
    pub op: FlashOp,
    pub plane: u32,
    pub lpn: Lpn,
    pub sector_mask: u64,
    pub flow: u32,
    pub src_ppn: Ppn,
    pub ppn: Ppn,
}

impl NewTx {
    pub fn new(owner: Owner, op: FlashOp, plane: u32, lpn: Lpn, sector_mask: u64) -> NewTx {
        NewTx { owner, op, plane, lpn, sector_mask, flow: NONE, src_ppn: NONE, ppn: NONE }
    }
}

/// Where an enqueued transaction went.
#[derive(Debug, Clone, Copy)]
pub struct Enqueued {
    pub chip: u32,
    /// It is a user read (a busy chip may suspend a program or erase for it).
    pub user_read: bool,
}

impl Tsu {
    /// Bytes the TSU holds on `geo`: per chip its queues (a head and a list per plane and
    /// queue class) and load; `in_flight` transactions at once (64 bytes each); and with
    /// FLIN (`flin`), its books per chip and per flow (`flows`, and GC as one more), counted
    /// apart as the second value.
    pub fn estimate_bytes(geo: &Geometry, in_flight: u64, flin: bool, flows: usize) -> (u64, u64) {
        let per_queue = std::mem::size_of::<Option<crate::tsu::QueueEntry>>()
            + std::mem::size_of::<std::collections::VecDeque<crate::tsu::QueueEntry>>()
            + 1;
        let per_chip = (geo.planes_per_chip() as usize * crate::tsu::QUEUE_CLASSES * per_queue + 4 + 96) as u64;
        let records = in_flight.next_power_of_two() * std::mem::size_of::<crate::tsu::Transaction>() as u64;
        let flin_bytes = match flin {
            true => crate::tsu::flin::Flin::estimate_bytes(geo.chips(), flows),
            false => 0,
        };
        (geo.chips() as u64 * per_chip + records, flin_bytes)
    }

    /// `policy` is built by the caller (see [`crate::tsu::TsuPolicyKind::build`]).
    pub fn new(nand: &NandConfig, tsu: &TsuConfig, geo: &Geometry, policy: Box<dyn TsuPolicy>) -> Tsu {
        let chips = geo.chips() as usize;
        Tsu {
            geo: geo.clone(),
            rules: Rules {
                multiplane: nand.multiplane,
                multiplane_reads: nand.multiplane && nand.multiplane_reads,
                multiplane_same_block: nand.multiplane_same_block,
                independent_planes: nand.multiplane_addressing == MultiplaneAddressing::Independent,
                die_interleave: nand.die_interleave,
                scan_limit: tsu.scan_limit as usize,
                user_joins_gc: tsu.user_joins_gc,
            },
            policy,
            txs: Slab::new(),
            tx_seq: 0,
            queues: (0..chips).map(|_| ChipQueues::new(geo.planes_per_chip())).collect(),
            chip_load: vec![0; chips],
            builder: Builder::default(),
        }
    }

    /// A new transaction record (not queued yet).
    #[inline(always)]
    pub fn create(&mut self, spec: NewTx, now: Ps) -> u32 {
        self.tx_seq += 1;
        let kind = spec.owner.kind();
        self.txs.insert(Transaction {
            flow: spec.flow,
            owner: spec.owner,
            kind,
            op: spec.op,
            plane: spec.plane,
            plane_in_chip: self.geo.plane_in_chip(spec.plane) as u16,
            ppn: spec.ppn,
            lpn: spec.lpn,
            sector_mask: spec.sector_mask,
            src_ppn: spec.src_ppn,
            stream: match kind {
                TxKind::User => Stream::User,
                TxKind::Gc | TxKind::Migration => Stream::Gc,
                TxKind::Mapping => Stream::Map,
            },
            enqueued_ps: now,
            seq: self.tx_seq,
        })
    }

    /// The read of a GC move found its page still live: the move's program takes over the
    /// read's record (everything but the operation, page, time and order carries over), as a
    /// new transaction in the same slot.
    pub fn turn_into_program(&mut self, tx: u32, now: Ps) {
        self.tx_seq += 1;
        let w = &mut self.txs[tx];
        debug_assert!(matches!(w.owner, Owner::Gc { .. } | Owner::Migration) && w.flow == NONE);
        w.op = FlashOp::Program;
        w.ppn = NONE;
        w.enqueued_ps = now;
        w.seq = self.tx_seq;
    }

    #[inline]
    pub fn tx(&self, tx: u32) -> &Transaction {
        &self.txs[tx]
    }

    /// A GC read of a victim page learnt from the page's spare area which logical page it
    /// holds (`ftl.gc.read_victim = "all_pages"`): the move's program carries it.
    pub fn name_page(&mut self, tx: u32, lpn: Lpn) {
        self.txs[tx].lpn = lpn;
    }

    /// A program was given its page as its command started.
    #[inline]
    pub fn set_page(&mut self, tx: u32, ppn: Ppn) {
        self.txs[tx].ppn = ppn;
    }

    /// A user read's page held data (`Some`) or was never written (`None`): the integrity
    /// oracle checks the read against it when it completes.
    #[inline]
    pub fn set_read_source(&mut self, tx: u32, found: Option<Ppn>) {
        self.txs[tx].src_ppn = found.unwrap_or(NONE);
    }

    /// A queued-then-removed user read follows its data to `plane` (enqueue it again).
    pub fn retarget(&mut self, tx: u32, plane: u32) {
        let t = &mut self.txs[tx];
        t.plane = plane;
        t.plane_in_chip = self.geo.plane_in_chip(plane) as u16;
    }

    /// Every transaction record, indexed by id (the PHY reads commands' records).
    #[inline]
    pub fn records(&self) -> &[Transaction] {
        self.txs.as_slice()
    }

    /// A finished transaction's record is no longer needed.
    pub fn free(&mut self, tx: u32) {
        self.txs.remove(tx);
    }

    /// Put a transaction in its chip's queue (its class, its plane's FIFO).
    #[inline(always)]
    pub fn enqueue(&mut self, tx: u32, now: Ps) -> Enqueued {
        let t = &self.txs[tx];
        let chip = self.geo.chip_of_plane(t.plane);
        let class = t.class();
        let page = match class {
            QueueClass::GcRead | QueueClass::GcWrite => t.src_ppn,
            QueueClass::GcErase => t.ppn,
            _ => NONE,
        };
        let page_at = if class == QueueClass::GcRead {
            let offset = self.geo.flash_page(self.geo.page_in_block(page));
            Place { offset, block: self.geo.block_in_plane(self.geo.block_of(page)) }
        } else {
            Place::NONE
        };
        let entry = QueueEntry { tx, lpn: t.lpn, page, page_at, op: t.op, seq: t.seq };
        self.queues[chip as usize].push(class, t.plane_in_chip, entry);
        self.policy.enqueued(chip, tx, &self.txs[tx], now);
        self.chip_load[chip as usize] += 1;
        Enqueued { chip, user_read: class == QueueClass::UserRead }
    }

    /// Per chip, transactions queued or running.
    #[inline]
    pub fn chip_load(&self) -> &[u32] {
        &self.chip_load
    }

    pub fn has_user_reads(&self, chip: u32) -> bool {
        self.queues[chip as usize].class_len(QueueClass::UserRead) > 0
    }

    pub fn is_idle(&self, chip: u32) -> bool {
        self.queues[chip as usize].is_empty()
    }

    /// The policy's choice of queue for a free chip, leaving out `excluded` classes.
    pub fn pick(
        &mut self,
        chip: u32,
        now: Ps,
        gc_urgency: GcUrgency,
        excluded: &[bool; QUEUE_CLASSES],
    ) -> Option<Pick> {
        let ctx = PickContext {
            chip,
            now,
            queues: &self.queues[chip as usize],
            txs: self.txs.as_slice(),
            gc_urgency,
            excluded,
        };
        self.policy.pick(&ctx)
    }

    /// Build a command for `chip` from the picked queue (see [`Builder::build`]). On success
    /// its transactions are had with [`Tsu::take_command`]; either way the caller settles
    /// [`Tsu::pop_dropped_move`] and [`Tsu::pop_readdressed`].
    #[inline(always)]
    pub fn build(&mut self, chip: u32, pick: Pick, ftl: &impl FtlView) -> Option<FlashOp> {
        let mut work = ChipWork {
            chip,
            queues: &mut self.queues[chip as usize],
            txs: &mut self.txs,
            policy: &mut *self.policy,
            load: &mut self.chip_load[chip as usize],
        };
        self.builder.build(&mut work, pick.class, pick.leader, &self.geo, &self.rules, ftl)
    }

    /// The command built last. The chip's command takes the vector and hands back the one
    /// it held before: give that back with [`Tsu::return_command`] so the next build reuses
    /// its memory.
    pub fn take_command(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.builder.chosen)
    }

    pub fn return_command(&mut self, buf: Vec<u32>) {
        self.builder.chosen = buf;
    }

    /// A GC move the last build dropped (its page was overwritten or trimmed).
    pub fn pop_dropped_move(&mut self) -> Option<Owner> {
        self.builder.dropped_moves.pop()
    }

    /// A user read the last build took out of its queue because its data moved.
    pub fn pop_readdressed(&mut self) -> Option<u32> {
        self.builder.readdressed.pop()
    }

    /// Count the write case (SPD; see [`WriteCase`]) of each die a program command built just
    /// now on `chip` uses, in `counts` (indexed by case). `txs` are the command's transactions
    /// in plane order, out of the queues already; call before anything else is queued. A die
    /// with all its planes in the command is aligned without looking at the queues.
    /// Each die counts for the host (`user`) or GC (`gc`) by its first transaction's kind
    /// (a GC command may carry user programs, `tsu.user_joins_gc`); translation-page and
    /// migration programs are not counted.
    pub fn count_write_cases(&self, chip: u32, txs: &[u32], user: &mut [u64; 4], gc: &mut [u64; 4]) {
        let ppd = self.geo.planes_per_die;
        let all_planes = (1u32 << ppd) - 1;
        let queues = &self.queues[chip as usize];
        let mut i = 0;
        while let Some(&first) = txs.get(i) {
            let base = self.geo.die_of_plane_in_chip(self.txs[first].plane_in_chip as u32) * ppd;
            // Bit p: plane base + p is in the command.
            let mut in_command = 0u32;
            for &tx in &txs[i..] {
                let p = (self.txs[tx].plane_in_chip as u32).wrapping_sub(base);
                if p >= ppd {
                    break;
                }
                in_command |= 1 << p;
                i += 1;
            }
            let counts = match self.txs[first].kind {
                TxKind::User => &mut *user,
                TxKind::Gc => &mut *gc,
                TxKind::Mapping | TxKind::Migration => continue,
            };
            let case = if in_command == all_planes {
                WriteCase::Aligned
            } else {
                queues.die_write_case(base, ppd, in_command)
            };
            counts[case as usize] += 1;
        }
    }

    /// A command of `txs` starts on `chip`: the policy learns what it serves.
    pub fn dispatched(&mut self, chip: u32, txs: &[u32], now: Ps) {
        self.policy.dispatched(chip, txs, self.txs.as_slice(), now);
    }

    /// A command of `n` transactions finished on `chip`.
    pub fn finished(&mut self, chip: u32, n: u32) {
        self.chip_load[chip as usize] -= n;
    }

    /// Chip time of GC charged to each flow (µs), if the policy charges GC (FLIN).
    pub fn gc_charged_us(&self) -> Option<Vec<f64>> {
        self.policy.gc_charged_us()
    }

    /// How often the policy's stages made each kind of decision (FLIN's), by name.
    pub fn decisions(&self) -> Vec<(&'static str, u64)> {
        self.policy.decisions()
    }

    /// Queue lengths per class of a chip (for the message of a run that stopped early).
    pub fn queue_lengths(&self, chip: u32) -> Vec<usize> {
        QueueClass::ALL.iter().map(|&c| self.queues[chip as usize].class_len(c)).collect()
    }
}
