//! Transaction scheduling unit: per-chip queues of flash transactions and the choice of
//! what a chip runs next.
//!
//! Owns the queues between the FTL and the chips. When a chip becomes free the policy
//! ([`TsuPolicy`]) picks the transaction to serve first; the builder ([`builder`]) widens it
//! into the widest legal command — more planes of the same die at the same page offset
//! (multi-plane), more dies of the same chip (die interleaving) — from the same queue.
//! New policies implement [`TsuPolicy`]; `flin` (FLIN, ISCA 2018) is one, in its own folder.

pub mod builder;
pub mod config;
pub mod flin;
pub mod unit;

pub use unit::{Enqueued, NewTx, Tsu};

use std::collections::VecDeque;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::engine::Ps;
use crate::nand::phy::PageOps;
use crate::nand::timeline::Work;
use crate::nand::{FlashOp, Lpn, Ppn, NONE};

/// Who a transaction works for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxKind {
    User,
    Gc,
    Mapping,
    /// Idle-time migration (PACP's; `ftl/migration_job.rs`): a read-dominant page moved off a Write
    /// channel while the host is idle; queued and scheduled as GC work, counted apart.
    Migration,
}

/// Who a transaction's completion goes to: the host request it serves, or the job it is a
/// step of. The simulation loop routes a finished (or dropped) transaction by its owner and
/// operation alone; the owner also fixes its kind ([`Owner::kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A host memory request (its index in the loop's table).
    Request(u32),
    /// The read of a read-modify-write: it fetches the sectors that program `program`
    /// keeps, which is enqueued once the read completes.
    Rmw { program: u32 },
    /// A cache write-back, with the cache entry's TRIM generation when it started.
    WriteBack { trim_gen: u32 },
    /// A dummy page of an SPD eviction (no data; keeps a die's write points equal).
    EvictionPad,
    /// The GC job of `plane` (the plane its victim is on): a move of a victim's page, or
    /// the victim's erase.
    Gc { plane: u32 },
    /// A dummy page of a Die-GC group.
    GcPad,
    /// The idle-time migration job (`ftl/migration_job.rs`).
    Migration,
    /// The map cache's translation-page I/O.
    Map,
}

impl Owner {
    /// The kind of work, which picks the transaction's queue and write stream.
    #[inline(always)]
    pub const fn kind(self) -> TxKind {
        match self {
            Owner::Request(_) | Owner::Rmw { .. } | Owner::WriteBack { .. } | Owner::EvictionPad => TxKind::User,
            Owner::Gc { .. } | Owner::GcPad => TxKind::Gc,
            Owner::Migration => TxKind::Migration,
            Owner::Map => TxKind::Mapping,
        }
    }

    /// The host memory request served, if any.
    #[inline(always)]
    pub const fn request(self) -> Option<u32> {
        match self {
            Owner::Request(mr) => Some(mr),
            _ => None,
        }
    }
}

/// Per-chip queue classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueClass {
    UserRead = 0,
    UserWrite = 1,
    GcRead = 2,
    GcWrite = 3,
    GcErase = 4,
    MapRead = 5,
    MapWrite = 6,
}

pub const QUEUE_CLASSES: usize = 7;

impl QueueClass {
    pub const ALL: [QueueClass; QUEUE_CLASSES] = [
        QueueClass::UserRead,
        QueueClass::UserWrite,
        QueueClass::GcRead,
        QueueClass::GcWrite,
        QueueClass::GcErase,
        QueueClass::MapRead,
        QueueClass::MapWrite,
    ];
}

/// Write streams with separate frontiers: user data, GC-moved data, and translation pages
/// (a demand-based map's translation blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    User = 0,
    Gc = 1,
    Map = 2,
}

/// The four cases of a die-level program (SPD, Gao et al., MSST 2019, slide 9; docs/techniques.md
/// §3.1, §11.4). When a program command starts, each die it uses is one case: with k of the
/// die's N planes in the command, `Aligned` if k = N; otherwise `Unaligned` if a plane of the
/// die outside the command has a program (user, GC or translation page) queued on the chip
/// (the same operation was there but could not join: another offset), else `Mixed` if such a
/// plane has a read or erase queued (another operation type), else `Single`. Only case 4
/// uses every plane; SPD's goal is to make it the norm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteCase {
    Single = 0,
    Mixed = 1,
    Unaligned = 2,
    Aligned = 3,
}

/// One page-level flash operation (or one block erase) waiting for or running on a chip.
/// One cache line each: GC keeps thousands queued (every plane collecting, a victim's valid
/// pages each), so a record read when its command is built is usually cold, and should cost
/// one line, not two.
#[derive(Debug, Clone)]
#[repr(align(64))]
pub struct Transaction {
    /// Who its completion goes to.
    pub owner: Owner,
    /// `owner.kind()`, kept in the record: the queues and the builder read it often.
    pub kind: TxKind,
    pub op: FlashOp,
    pub plane: u32,
    /// The plane's index within its chip (cached: the builder looks at it for every queued
    /// transaction it scans).
    pub plane_in_chip: u16,
    /// Read: the page read (resolved when the command is built). Program: the page
    /// allocated when the command is built. Erase: first page of the block.
    pub ppn: Ppn,
    pub lpn: Lpn,
    /// Sectors of the page the operation carries (bit i = sector i).
    pub sector_mask: u64,
    /// GC moves: the page moved. User reads under `--check`: the page read if it held data.
    pub src_ppn: Ppn,
    pub stream: Stream,
    /// The flow (tenant) the work is for; NONE for GC and cache write-backs.
    pub flow: u32,
    pub enqueued_ps: Ps,
    /// Global enqueue order, for FIFO.
    pub seq: u64,
}

const _: () = assert!(std::mem::size_of::<Transaction>() == 64, "a transaction should fill one cache line");

/// The PHY reads a command's page operations from the transaction table.
impl PageOps for [Transaction] {
    #[inline(always)]
    fn ppn(&self, tx: u32) -> Ppn {
        self[tx as usize].ppn
    }

    #[inline(always)]
    fn src_ppn(&self, tx: u32) -> Ppn {
        self[tx as usize].src_ppn
    }

    #[inline(always)]
    fn plane_in_chip(&self, tx: u32) -> u32 {
        self[tx as usize].plane_in_chip as u32
    }

    #[inline(always)]
    fn sector_mask(&self, tx: u32) -> u64 {
        self[tx as usize].sector_mask
    }

    #[inline(always)]
    fn work(&self, tx: u32) -> Work {
        let t = &self[tx as usize];
        match t.kind {
            _ if t.lpn == NONE && t.op == FlashOp::Program => Work::Pad,
            TxKind::Gc => Work::Gc,
            TxKind::User => Work::User,
            TxKind::Mapping => Work::Map,
            TxKind::Migration => Work::Migration,
        }
    }

    #[inline(always)]
    fn is_gc(&self, tx: u32) -> bool {
        self[tx as usize].kind == TxKind::Gc
    }
}

impl Transaction {
    pub fn class(&self) -> QueueClass {
        match (self.kind, self.op) {
            (TxKind::User, FlashOp::Read) => QueueClass::UserRead,
            (TxKind::User, _) => QueueClass::UserWrite,
            (TxKind::Gc | TxKind::Migration, FlashOp::Read) => QueueClass::GcRead,
            (TxKind::Gc, FlashOp::Program) | (TxKind::Gc, FlashOp::Copyback) => QueueClass::GcWrite,
            (TxKind::Migration, _) => QueueClass::GcWrite,
            (TxKind::Gc, FlashOp::Erase) => QueueClass::GcErase,
            (TxKind::Mapping, FlashOp::Read) => QueueClass::MapRead,
            (TxKind::Mapping, _) => QueueClass::MapWrite,
        }
    }
}

/// Where in its plane a page is: its offset in its block and its block's index in the plane.
/// Multi-plane commands need the same offset (and with `nand.multiplane_same_block` the same
/// block) on every plane of a die.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub offset: u32,
    /// NONE where any block will do (a program's, unless the part needs one block: then
    /// the block its plane's next page of the stream goes to).
    pub block: u32,
}

impl Place {
    pub const NONE: Place = Place { offset: NONE, block: NONE };
}

/// A queued transaction with what the builder needs to judge it, kept in the queue itself so
/// choosing work does not touch every queued transaction's record.
#[derive(Debug, Clone, Copy)]
pub struct QueueEntry {
    pub tx: u32,
    pub lpn: Lpn,
    /// GC moves: the page moved. Erases: the block's first page. Otherwise NONE.
    pub page: Ppn,
    /// GC reads: where `page` sits, worked out once at enqueue so the builder's multi-plane
    /// scan compares instead of dividing. Otherwise [`Place::NONE`].
    pub page_at: Place,
    pub op: FlashOp,
    pub seq: u64,
}

/// The queues of one chip: per queue class, one FIFO per plane of the chip, so the builder
/// finds each plane's oldest work without scanning the others'. The head of every FIFO is
/// kept inline, side by side, because the builder looks at all heads each time a chip frees
/// and rarely further.
#[derive(Debug, Default)]
pub struct ChipQueues {
    planes: usize,
    /// Index `class × planes + plane_in_chip`: each FIFO's first entry, and the rest.
    heads: Vec<Option<QueueEntry>>,
    rest: Vec<VecDeque<QueueEntry>>,
    class_len: [u32; QUEUE_CLASSES],
    /// Index as `heads`: whether every entry of the FIFO has a known place and their page
    /// offsets strictly ascend (a GC victim's reads, queued in page order). Taking entries
    /// keeps that true; only a push can end it, until the FIFO empties.
    ascending: Vec<bool>,
    /// Per class, bit p: plane p of the chip has work of the class queued (SPD's write
    /// cases look at a die's other planes through it).
    nonempty: [u64; QUEUE_CLASSES],
}

impl ChipQueues {
    pub fn new(planes_per_chip: u32) -> ChipQueues {
        let planes = planes_per_chip as usize;
        let n = planes * QUEUE_CLASSES;
        assert!(planes <= 64, "a chip of {planes} planes: at most 64 are supported");
        ChipQueues {
            planes,
            heads: vec![None; n],
            rest: (0..n).map(|_| VecDeque::new()).collect(),
            class_len: [0; QUEUE_CLASSES],
            ascending: vec![false; n],
            nonempty: [0; QUEUE_CLASSES],
        }
    }
    pub fn push(&mut self, class: QueueClass, plane_in_chip: u16, entry: QueueEntry) {
        let i = class as usize * self.planes + plane_in_chip as usize;
        let placed = entry.page_at.offset != NONE;
        match self.rest[i].back().or(self.heads[i].as_ref()) {
            None => self.ascending[i] = placed,
            Some(last) => self.ascending[i] &= placed && last.page_at.offset < entry.page_at.offset,
        }
        if self.heads[i].is_none() {
            self.heads[i] = Some(entry);
            self.nonempty[class as usize] |= 1 << plane_in_chip;
        } else {
            self.rest[i].push_back(entry);
        }
        self.class_len[class as usize] += 1;
    }
    /// The first entry of a plane's queue.
    #[inline]
    pub fn front(&self, class: QueueClass, plane_in_chip: usize) -> Option<&QueueEntry> {
        self.heads[class as usize * self.planes + plane_in_chip].as_ref()
    }
    /// The front of a plane's queue, to change in place.
    #[inline]
    pub fn front_mut(&mut self, class: QueueClass, plane_in_chip: usize) -> Option<&mut QueueEntry> {
        self.heads[class as usize * self.planes + plane_in_chip].as_mut()
    }
    /// Entry `pos` of a plane's queue (0 is the front).
    #[inline]
    pub fn get(&self, class: QueueClass, plane_in_chip: usize, pos: usize) -> &QueueEntry {
        let i = class as usize * self.planes + plane_in_chip;
        if pos == 0 {
            self.heads[i].as_ref().expect("position in range")
        } else {
            &self.rest[i][pos - 1]
        }
    }
    /// Entries queued for a plane.
    pub fn plane_len(&self, class: QueueClass, plane_in_chip: usize) -> usize {
        let i = class as usize * self.planes + plane_in_chip;
        self.heads[i].is_some() as usize + self.rest[i].len()
    }
    /// Take the transaction at `pos` of a plane's queue.
    pub fn take(&mut self, class: QueueClass, plane_in_chip: usize, pos: usize) -> u32 {
        self.class_len[class as usize] -= 1;
        let i = class as usize * self.planes + plane_in_chip;
        if pos == 0 {
            let head = self.heads[i].take().expect("position in range");
            self.heads[i] = self.rest[i].pop_front();
            if self.heads[i].is_none() {
                self.nonempty[class as usize] &= !(1 << plane_in_chip);
            }
            head.tx
        } else {
            self.rest[i].remove(pos - 1).expect("position in range").tx
        }
    }
    /// Where among the first `depth` entries of a plane's FIFO the entry at page `offset`
    /// is, found by bisection when the FIFO's offsets are known to ascend (then at most one
    /// entry has the offset): `Some(Some(pos))` or `Some(None)` (not within `depth`), and
    /// `None` when the order is not known, so the caller must scan.
    pub fn find_offset(
        &self,
        class: QueueClass,
        plane_in_chip: usize,
        offset: u32,
        depth: usize,
    ) -> Option<Option<usize>> {
        let i = class as usize * self.planes + plane_in_chip;
        if !self.ascending[i] {
            return None;
        }
        let head = self.heads[i].as_ref()?;
        if head.page_at.offset == offset {
            return Some(Some(0).filter(|_| depth > 0));
        }
        Some(
            self.rest[i].binary_search_by_key(&offset, |e| e.page_at.offset).ok().map(|k| k + 1).filter(|&p| p < depth),
        )
    }
    /// The write case (SPD; see [`WriteCase`]) of a die whose planes `base .. base + n` (of the
    /// chip) are partly in a program command starting now: bit p of `in_command` says plane
    /// `base + p` is in it. The other planes decide: a program queued on one of them makes it
    /// `Unaligned`; else a read or erase queued makes it `Mixed`; else `Single`. Reads only
    /// the per-class masks of planes with work queued.
    #[inline]
    pub fn die_write_case(&self, base: u32, n: u32, in_command: u32) -> WriteCase {
        let others = (((1u64 << n) - 1) & !(in_command as u64)) << base;
        let q = &self.nonempty;
        let programs =
            q[QueueClass::UserWrite as usize] | q[QueueClass::GcWrite as usize] | q[QueueClass::MapWrite as usize];
        if programs & others != 0 {
            WriteCase::Unaligned
        } else if q.iter().fold(0, |all, &m| all | m) & others != 0 {
            WriteCase::Mixed
        } else {
            WriteCase::Single
        }
    }
    pub fn class_len(&self, class: QueueClass) -> usize {
        self.class_len[class as usize] as usize
    }
    /// The oldest transaction of a class (smallest enqueue sequence over the plane heads).
    pub fn oldest(&self, class: QueueClass) -> Option<&QueueEntry> {
        let base = class as usize * self.planes;
        self.heads[base..base + self.planes].iter().filter_map(|h| h.as_ref()).min_by_key(|e| e.seq)
    }
    pub fn len(&self) -> usize {
        self.class_len.iter().map(|&n| n as usize).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a policy sees of a chip when choosing.
pub struct PickContext<'a> {
    pub chip: u32,
    pub now: Ps,
    pub queues: &'a ChipQueues,
    pub txs: &'a [Transaction],
    /// How pressing GC is on this chip.
    pub gc_urgency: GcUrgency,
    /// Queues the builder could not start anything from just now: do not pick them.
    pub excluded: &'a [bool; QUEUE_CLASSES],
}

impl PickContext<'_> {
    /// Whether queue `c` has work the policy may pick.
    pub fn available(&self, c: QueueClass) -> bool {
        !self.excluded[c as usize] & (self.queues.class_len(c) > 0)
    }
}

/// How pressing garbage collection is on a chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum GcUrgency {
    /// No collecting plane of the chip is urgent.
    None,
    /// A collecting plane is urgent (`ftl.gc.urgent_when`): GC goes before user writes.
    Critical,
}

/// What a policy chose: the queue to serve and, optionally, the transaction that leads the
/// command (otherwise the queue's oldest startable one leads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    pub class: QueueClass,
    pub leader: Option<u32>,
}

impl Pick {
    pub fn class(class: QueueClass) -> Pick {
        Pick { class, leader: None }
    }
}

/// Chooses the queue a free chip serves next. The builder takes that queue's head (or the
/// policy's leader) and coalesces more of the same queue around it.
pub trait TsuPolicy {
    fn name(&self) -> &'static str;
    fn pick(&mut self, ctx: &PickContext<'_>) -> Option<Pick>;
    /// A transaction entered chip `chip`'s queues.
    fn enqueued(&mut self, _chip: u32, _tx: u32, _t: &Transaction, _now: Ps) {}
    /// A queued transaction left chip `chip`'s queues without running (it followed its data
    /// to another chip).
    fn dequeued(&mut self, _chip: u32, _tx: u32) {}
    /// Transactions left chip `chip`'s queues to run as one command (built from one queue
    /// class: one kind, one operation).
    fn dispatched(&mut self, _chip: u32, _txs: &[u32], _all: &[Transaction], _now: Ps) {}
    /// Chip time of GC commands charged to each flow so far (µs), if the policy charges GC.
    fn gc_charged_us(&self) -> Option<Vec<f64>> {
        None
    }
    /// How often the policy's stages made each kind of decision, by name (FLIN's, which its
    /// ablation reports); empty for a policy that counts none.
    fn decisions(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// First come, first served over all queues of the chip.
#[derive(Debug, Default)]
pub struct Fifo;

impl TsuPolicy for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
    fn pick(&mut self, ctx: &PickContext<'_>) -> Option<Pick> {
        QueueClass::ALL
            .iter()
            .filter(|&&c| ctx.available(c))
            .filter_map(|&c| ctx.queues.oldest(c).map(|e| (e.seq, c)))
            .min_by_key(|&(seq, _)| seq)
            .map(|(_, c)| Pick::class(c))
    }
}

/// Out-of-order, read first (MQSim's default priority): mapping reads, user reads, mapping
/// writes, user writes, then GC. When GC is urgent on the chip ([`GcUrgency::Critical`]) it
/// goes before the writes, or before everything with [`UrgentGc::First`].
pub struct OutOfOrder {
    urgent: UrgentGc,
}

impl TsuPolicy for OutOfOrder {
    fn name(&self) -> &'static str {
        "ooo"
    }
    fn pick(&mut self, ctx: &PickContext<'_>) -> Option<Pick> {
        use QueueClass::*;
        const NORMAL: [QueueClass; QUEUE_CLASSES] = [MapRead, UserRead, MapWrite, UserWrite, GcRead, GcWrite, GcErase];
        const AFTER_READS: [QueueClass; QUEUE_CLASSES] =
            [MapRead, UserRead, GcErase, GcWrite, GcRead, MapWrite, UserWrite];
        const FIRST: [QueueClass; QUEUE_CLASSES] = [GcErase, GcWrite, GcRead, MapRead, UserRead, MapWrite, UserWrite];
        let order = match (ctx.gc_urgency, self.urgent) {
            (GcUrgency::None, _) => &NORMAL,
            (GcUrgency::Critical, UrgentGc::AfterReads) => &AFTER_READS,
            (GcUrgency::Critical, UrgentGc::First | UrgentGc::Hold) => &FIRST,
        };
        // Under `hold` urgent GC owns the chip: only its first three classes (GC's) may go.
        let eligible = match (ctx.gc_urgency, self.urgent) {
            (GcUrgency::Critical, UrgentGc::Hold) => GC_CLASSES,
            _ => QUEUE_CLASSES,
        };
        // The first available class in `order`, without a branch per class: bit i of `m`
        // says whether order[i] is available.
        let m = order[..eligible].iter().enumerate().fold(0u32, |m, (i, &c)| m | (ctx.available(c) as u32) << i);
        (m != 0).then(|| Pick::class(order[m.trailing_zeros() as usize]))
    }
}

/// What urgent GC goes ahead of under `ooo` (`tsu.urgent_gc`; docs/techniques.md §13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UrgentGc {
    /// Ahead of user and map writes; reads still first, so a read waits at most for the
    /// operation under way [S/I, firmware practice].
    AfterReads,
    /// Ahead of everything, reads included: MQSim's out-of-order TSU in urgent mode
    /// [C MQSim], and ssdlab before issue 31.
    First,
    /// GC holds the chip while it is urgent: GC goes first and nothing else is dispatched to
    /// the chip, not even in the gaps when GC has nothing ready (between a move's read and
    /// its program). With `ftl.gc.urgent_when = "collecting"`: foreground (blocking) GC, as
    /// SSDsim's `uninterrupt_gc` (pagemap.c) holds the chip for all moves and the erase
    /// [C SSDsim; docs/techniques.md §11.3b item 3]. The channel is not held.
    Hold,
}

/// The classes of GC work, the first three of the urgent order: what a held chip runs.
const GC_CLASSES: usize = 3;

/// Which [`TsuPolicy`] orders the chip queues (`tsu.policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TsuPolicyKind {
    /// [`Fifo`]: first come, first served.
    Fifo,
    /// [`OutOfOrder`]: reads first (MQSim's default priority).
    Ooo,
    /// [`flin::Flin`] (FLIN, ISCA 2018).
    Flin,
}

/// The config spelling (`fifo`, `ooo`, `flin`).
impl fmt::Display for TsuPolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TsuPolicyKind::Fifo => "fifo",
            TsuPolicyKind::Ooo => "ooo",
            TsuPolicyKind::Flin => "flin",
        })
    }
}

impl TsuPolicyKind {
    /// Build the policy; `flows` holds each flow's NVMe priority (0 urgent .. 3 low).
    pub fn build(
        self,
        nand: &crate::nand::config::NandConfig,
        tsu: &config::TsuConfig,
        flows: &[u8],
    ) -> Box<dyn TsuPolicy> {
        match self {
            TsuPolicyKind::Fifo => Box::new(Fifo),
            TsuPolicyKind::Ooo => Box::new(OutOfOrder { urgent: tsu.urgent_gc }),
            TsuPolicyKind::Flin => Box::new(flin::Flin::new(nand, &tsu.flin, flows)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gc_read(tx: u32, offset: u32) -> QueueEntry {
        QueueEntry { tx, lpn: tx, page: tx, page_at: Place { offset, block: 3 }, op: FlashOp::Read, seq: tx as u64 }
    }

    #[test]
    fn taken_gc_reads_are_no_longer_found_and_unplaced_queues_are_scanned() {
        let mut q = ChipQueues::new(2);
        q.push(QueueClass::GcRead, 1, gc_read(1, 5));
        q.push(QueueClass::GcRead, 1, gc_read(3, 6));
        // A user read has no known place: its queue's order is unknown, the caller scans.
        q.push(QueueClass::UserRead, 0, QueueEntry { page_at: Place::NONE, ..gc_read(4, 0) });
        assert_eq!(q.find_offset(QueueClass::UserRead, 0, 0, 64), None);
        assert_eq!(q.find_offset(QueueClass::GcRead, 0, 5, 64), None, "an empty queue has no order yet");
        assert_eq!(q.find_offset(QueueClass::GcRead, 1, 6, 64), Some(Some(1)));
        assert_eq!(q.take(QueueClass::GcRead, 1, 1), 3);
        assert_eq!(q.find_offset(QueueClass::GcRead, 1, 6, 64), Some(None));
        assert_eq!(q.find_offset(QueueClass::GcRead, 1, 5, 64), Some(Some(0)));
        assert_eq!(q.take(QueueClass::GcRead, 1, 0), 1);
        assert_eq!(q.find_offset(QueueClass::GcRead, 1, 5, 64), None, "empty again");
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn a_gc_read_is_found_by_offset_while_the_offsets_ascend() {
        let mut q = ChipQueues::new(1);
        for (tx, off) in [(1, 2), (2, 5), (3, 9), (4, 12)] {
            q.push(QueueClass::GcRead, 0, gc_read(tx, off));
        }
        assert_eq!(q.find_offset(QueueClass::GcRead, 0, 2, 64), Some(Some(0)));
        assert_eq!(q.find_offset(QueueClass::GcRead, 0, 9, 64), Some(Some(2)));
        assert_eq!(q.find_offset(QueueClass::GcRead, 0, 12, 3), Some(None), "beyond the scan depth");
        assert_eq!(q.find_offset(QueueClass::GcRead, 0, 7, 64), Some(None));
        // Taking from the middle keeps the order.
        q.take(QueueClass::GcRead, 0, 1);
        assert_eq!(q.find_offset(QueueClass::GcRead, 0, 12, 64), Some(Some(2)));
        // An offset out of order (another block's reads) makes the caller scan.
        q.push(QueueClass::GcRead, 0, gc_read(5, 3));
        assert_eq!(q.find_offset(QueueClass::GcRead, 0, 3, 64), None);
        while !q.is_empty() {
            q.take(QueueClass::GcRead, 0, 0);
        }
        q.push(QueueClass::GcRead, 0, gc_read(6, 3));
        assert_eq!(q.find_offset(QueueClass::GcRead, 0, 3, 64), Some(Some(0)), "an emptied queue starts afresh");
    }
}
