//! Host interface layer: the device-level queue and the device-level I/O scheduler.
//!
//! Owns the tags of the device queue (`hil.queue_depth`), the split of each host request into
//! page-sized memory requests, the hazard rules between requests and the decision of which
//! memory requests are committed to the flash side, and when. Hazards: a request that
//! overlaps an earlier unfinished one, where either writes, waits for it (RAW, WAR, WAW keep
//! their order, at page granularity because a partial write rewrites its whole page); a FUA
//! request waits for everything before it and everything after waits for it. Because a
//! conflicting request is not started until the earlier one finishes, a scheduler never sees
//! two memory requests it must keep in order: reads of a page are served before a later write
//! of it is even split (Sprinkler §4.4, write-after-read), and nothing overtakes a FUA.
//!
//! Committing a memory request hands it to the flash side (firmware, FTL, the chip's TSU
//! queue). The flash controller builds a command from what has been committed to a chip at
//! the moment the chip becomes free (Sprinkler §2.2, the transaction-type decision), so what
//! a scheduler commits, and when, decides the flash-level parallelism that is possible.
//! Commits made in one scheduling round reach the chips together.
//!
//! Schedulers, selected by `hil.scheduler` (each in its own folder):
//! - `direct`: commit everything as soon as it is ready; the TSU orders it (MQSim's model).
//! - `vas`, `pas`: Sprinkler §3's virtual- and physical-address schedulers.
//! - `spk1` (FARO), `spk2` (RIOS), `spk3` (both): Sprinkler §4.
//!
//! New schedulers implement [`DeviceScheduler`]. A scheduler is told of every memory
//! request that becomes ready, with its physical target (plane → die, chip, channel: from the
//! map for reads, from the allocator for writes), sees what is committed and not yet done on
//! every chip and plane ([`Board`]), and may commit any ready request, in any order, whenever
//! it is called — when requests become ready and whenever a chip finishes a command.

pub mod commit;
pub mod config;
pub mod device_queue;
mod direct;
mod pas;
mod sprinkler;
#[cfg(test)]
mod tests;
mod vas;
pub mod wa_bc;

pub use direct::Direct;
pub use pas::Pas;
pub use sprinkler::Sprinkler;
pub use vas::Vas;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::nand::{Geometry, Lpn, Timing, NONE};

/// What a memory request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MrOp {
    Read,
    Write,
    Trim,
}

/// One page-sized piece of a host request.
#[derive(Debug, Clone)]
pub struct MemoryRequest {
    pub io: u32,
    /// The flow (tenant) of the host request.
    pub flow: u32,
    /// Arrival order of the host request (smaller is older).
    pub io_seq: u64,
    pub lpn: Lpn,
    pub sector_mask: u64,
    pub op: MrOp,
    /// Target plane (flat index); NONE when no flash access is needed.
    pub plane: u32,
    /// Committed, and its flash work is not done.
    pub committed: bool,
    /// Committed, and its first flash command has not started.
    pub waiting: bool,
}

/// What is committed to the flash side and not yet done, per chip and plane: the state a
/// device-level scheduler judges collisions by. [`commit::Committer`] keeps it; schedulers change
/// it only through [`Board::commit`].
#[derive(Debug, Clone, Default)]
pub struct Occupancy {
    /// Per chip: committed memory requests whose flash work is not done.
    pub chip_committed: Vec<u32>,
    /// Per chip: the request (io) that committed last; the only one with work there when
    /// the scheduler never over-commits.
    pub chip_owner: Vec<u32>,
    /// Per plane: committed memory requests whose first command has not started.
    pub plane_waiting: Vec<u32>,
}

impl Occupancy {
    pub fn new(geo: &Geometry) -> Occupancy {
        Occupancy {
            chip_committed: vec![0; geo.chips() as usize],
            chip_owner: vec![NONE; geo.chips() as usize],
            plane_waiting: vec![0; geo.planes() as usize],
        }
    }
}

/// What a scheduler sees and changes in one scheduling round.
pub struct Board<'a> {
    pub geo: &'a Geometry,
    pub mrs: &'a [MemoryRequest],
    pub occ: &'a mut Occupancy,
    /// Committed this round, in commit order.
    pub out: &'a mut Vec<u32>,
    /// Per flow: whether its requests may be committed this round (a fairness layer's say,
    /// `hil.fairness`); every scheduler leaves the others pending.
    pub allowed: &'a [bool],
}

impl Board<'_> {
    #[inline]
    pub fn chip_of(&self, mr: u32) -> u32 {
        self.geo.chip_of_plane(self.mrs[mr as usize].plane)
    }

    /// Whether the fairness layer lets memory request `mr`'s flow commit now.
    #[inline]
    pub fn allowed(&self, mr: u32) -> bool {
        self.allowed[self.mrs[mr as usize].flow as usize]
    }

    /// Whether a chip holds committed work of a request other than `io` (a collision for a
    /// scheduler that does not over-commit).
    #[inline]
    pub fn collides(&self, chip: u32, io: u32) -> bool {
        self.occ.chip_committed[chip as usize] > 0 && self.occ.chip_owner[chip as usize] != io
    }

    /// Whether a chip has no committed work left at all.
    #[inline]
    pub fn chip_clear(&self, chip: u32) -> bool {
        self.occ.chip_committed[chip as usize] == 0
    }

    /// Whether a plane has fewer than `slots` committed requests waiting for their command
    /// (FARO's slot: one waiting request per plane is all one command can take from it;
    /// `hil.plane_slots` may allow more).
    #[inline]
    pub fn slot_free(&self, plane: u32, slots: u32) -> bool {
        self.occ.plane_waiting[plane as usize] < slots
    }

    /// Commit a ready memory request to the flash side.
    pub fn commit(&mut self, mr: u32) {
        let m = &self.mrs[mr as usize];
        let chip = self.geo.chip_of_plane(m.plane) as usize;
        self.occ.chip_committed[chip] += 1;
        self.occ.chip_owner[chip] = m.io;
        self.occ.plane_waiting[m.plane as usize] += 1;
        self.out.push(mr);
    }
}

/// A device-level I/O scheduler.
pub trait DeviceScheduler {
    fn name(&self) -> &'static str;
    /// A memory request became ready to commit (its target is in `mrs[mr].plane`).
    fn ready(&mut self, mr: u32, mrs: &[MemoryRequest]);
    /// Commit what the policy wants committed now, through `board.commit`.
    fn schedule(&mut self, board: &mut Board<'_>);
    /// Ready memory requests not yet committed.
    fn pending(&self) -> usize;
    /// Whether a round should wait until the event that made requests ready is handled, so
    /// it sees all of them (Sprinkler's schedulers secure every tag first). A scheduler that
    /// commits everything has nothing to choose and runs at once.
    fn batches_arrivals(&self) -> bool {
        true
    }
    /// Readdressing callback (Sprinkler §4.3): the data of `lpn` moved to another plane; a
    /// scheduler that keeps targets of uncommitted requests updates them. Returns the
    /// requests whose target changed (`mrs[mr].plane` is updated by the caller).
    fn readdress(&mut self, lpn: Lpn, from_plane: u32, to_plane: u32, mrs: &[MemoryRequest], moved: &mut Vec<u32>);
}

/// The ready, uncommitted memory requests, grouped by host request (in arrival order) and
/// by chip (in arrival order of their requests). The schedulers share it.
#[derive(Debug, Default)]
pub struct Pending {
    /// Requests with uncommitted memory requests, oldest first.
    pub ios: Vec<PendingIo>,
    /// Per chip: uncommitted memory requests, oldest request first.
    pub by_chip: Vec<Vec<u32>>,
    /// Per plane: uncommitted memory requests aimed at it.
    pub by_plane: Vec<u32>,
    count: usize,
    spare: Vec<Vec<u32>>,
    planes_per_chip: u32,
    /// Sprinkler's readdressing callback is on (`hil.readdressing`).
    readdressing: bool,
}

/// A host request's uncommitted memory requests.
#[derive(Debug, Default)]
pub struct PendingIo {
    pub io: u32,
    pub seq: u64,
    pub mrs: Vec<u32>,
    /// Times a younger request was committed ahead of it (PAS, SPK1).
    pub bypassed: u32,
    /// Distinct chips and planes of `mrs`, and the overlap depth (most distinct planes on one
    /// chip); valid while `summary_of` is `mrs.len()` (any change resets it).
    pub chips: Vec<u32>,
    pub planes: Vec<u32>,
    pub depth: u32,
    summary_of: usize,
}

impl PendingIo {
    /// Bring `chips`, `planes` and `depth` up to date with `mrs`.
    pub fn summarize(&mut self, mrs: &[MemoryRequest], geo: &Geometry) {
        if self.summary_of == self.mrs.len() {
            return;
        }
        self.summary_of = self.mrs.len();
        self.planes.clear();
        self.planes.extend(self.mrs.iter().map(|&mr| mrs[mr as usize].plane));
        self.planes.sort_unstable();
        self.planes.dedup();
        self.chips.clear();
        self.chips.extend(self.planes.iter().map(|&p| geo.chip_of_plane(p)));
        self.chips.dedup();
        // Planes are sorted, so each chip's planes are adjacent.
        let mut depth = 0;
        let mut run = 0;
        for (k, &p) in self.planes.iter().enumerate() {
            run = if k > 0 && geo.chip_of_plane(self.planes[k - 1]) == geo.chip_of_plane(p) { run + 1 } else { 1 };
            depth = depth.max(run);
        }
        self.depth = depth;
    }
}

impl Pending {
    pub fn new(geo: &Geometry, readdressing: bool) -> Pending {
        Pending {
            by_chip: (0..geo.chips()).map(|_| Vec::new()).collect(),
            by_plane: vec![0; geo.planes() as usize],
            planes_per_chip: geo.planes_per_chip(),
            readdressing,
            ..Default::default()
        }
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn add(&mut self, mr: u32, mrs: &[MemoryRequest]) {
        let m = &mrs[mr as usize];
        // Memory requests of one host request arrive together; requests mostly in order.
        let pos = match self.ios.iter().rposition(|p| p.seq <= m.io_seq) {
            Some(i) if self.ios[i].seq == m.io_seq => i,
            found => {
                let at = found.map_or(0, |i| i + 1);
                let buf = self.spare.pop().unwrap_or_default();
                let p = PendingIo { io: m.io, seq: m.io_seq, mrs: buf, summary_of: usize::MAX, ..Default::default() };
                self.ios.insert(at, p);
                at
            }
        };
        self.ios[pos].mrs.push(mr);
        self.ios[pos].summary_of = usize::MAX;
        let list = &mut self.by_chip[(m.plane / self.planes_per_chip) as usize];
        let at = list.iter().rposition(|&x| mrs[x as usize].io_seq <= m.io_seq).map_or(0, |i| i + 1);
        list.insert(at, mr);
        self.by_plane[m.plane as usize] += 1;
        self.count += 1;
    }

    /// Forget a memory request that was committed (`io_pos`: its request's index in `ios`).
    pub fn remove(&mut self, mr: u32, io_pos: usize, chip: u32, plane: u32) {
        self.by_plane[plane as usize] -= 1;
        let p = &mut self.ios[io_pos];
        let k = p.mrs.iter().position(|&x| x == mr).expect("pending memory request");
        p.mrs.remove(k);
        p.summary_of = usize::MAX;
        let list = &mut self.by_chip[chip as usize];
        let k = list.iter().position(|&x| x == mr).expect("pending memory request on its chip");
        list.remove(k);
        self.count -= 1;
    }

    /// Drop request entries with nothing left to commit.
    pub fn compact(&mut self) {
        let spare = &mut self.spare;
        self.ios.retain_mut(|p| {
            if p.mrs.is_empty() {
                spare.push(std::mem::take(&mut p.mrs));
                false
            } else {
                true
            }
        });
    }

    /// Commit every uncommitted memory request of the request at `io_pos`.
    pub fn commit_io(&mut self, io_pos: usize, board: &mut Board<'_>) {
        self.commit_prefix(io_pos, self.ios[io_pos].mrs.len(), board);
    }

    /// Commit the first `k` uncommitted memory requests of the request at `io_pos`.
    pub fn commit_prefix(&mut self, io_pos: usize, k: usize, board: &mut Board<'_>) {
        for j in 0..k {
            let mr = self.ios[io_pos].mrs[j];
            let chip = board.chip_of(mr);
            let list = &mut self.by_chip[chip as usize];
            let at = list.iter().position(|&x| x == mr).expect("pending memory request on its chip");
            list.remove(at);
            self.by_plane[board.mrs[mr as usize].plane as usize] -= 1;
            board.commit(mr);
        }
        self.ios[io_pos].mrs.drain(..k);
        self.ios[io_pos].summary_of = usize::MAX;
        self.count -= k;
    }

    /// The request at `io_pos` was committed: every older one still waiting was overtaken.
    pub fn count_bypass(&mut self, io_pos: usize) {
        for p in &mut self.ios[..io_pos] {
            if !p.mrs.is_empty() {
                p.bypassed = p.bypassed.saturating_add(1);
            }
        }
    }

    /// Readdressing (when the callback is on): move uncommitted reads of `lpn` from one
    /// plane's chip to another's.
    pub fn readdress(&mut self, lpn: Lpn, from_plane: u32, to_plane: u32, mrs: &[MemoryRequest], moved: &mut Vec<u32>) {
        if !self.readdressing {
            return;
        }
        let from = (from_plane / self.planes_per_chip) as usize;
        let to = (to_plane / self.planes_per_chip) as usize;
        let mut k = 0;
        while k < self.by_chip[from].len() {
            let mr = self.by_chip[from][k];
            let m = &mrs[mr as usize];
            if m.lpn == lpn && m.plane == from_plane && m.op == MrOp::Read {
                moved.push(mr);
                self.by_plane[from_plane as usize] -= 1;
                self.by_plane[to_plane as usize] += 1;
                if from != to {
                    self.by_chip[from].remove(k);
                    let list = &mut self.by_chip[to];
                    let at = list.iter().rposition(|&x| mrs[x as usize].io_seq <= m.io_seq).map_or(0, |i| i + 1);
                    list.insert(at, mr);
                    continue;
                }
            }
            k += 1;
        }
    }
}

/// Which [`DeviceScheduler`] commits memory requests (`hil.scheduler`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    Direct,
    Vas,
    Pas,
    Spk1,
    Spk2,
    Spk3,
}

/// The config spelling (`direct`, `vas`, ..., `spk3`).
impl fmt::Display for SchedulerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SchedulerKind::Direct => "direct",
            SchedulerKind::Vas => "vas",
            SchedulerKind::Pas => "pas",
            SchedulerKind::Spk1 => "spk1",
            SchedulerKind::Spk2 => "spk2",
            SchedulerKind::Spk3 => "spk3",
        })
    }
}

impl SchedulerKind {
    /// Build the scheduler; `readdressing` turns Sprinkler's readdressing callback on;
    /// `max_bypass` 0 means no starvation guard (the papers' PAS and FARO have none);
    /// `plane_slots` is how many committed requests may wait per plane under FARO, and
    /// `faro` what FARO ranks by.
    pub fn build(
        self,
        geo: &Geometry,
        max_bypass: u32,
        readdressing: bool,
        (plane_slots, faro): (u32, FaroPriority),
    ) -> Box<dyn DeviceScheduler> {
        let max_bypass = if max_bypass == 0 { u32::MAX } else { max_bypass };
        match self {
            SchedulerKind::Direct => Box::new(Direct::default()),
            SchedulerKind::Vas => Box::new(Vas::new(geo, readdressing)),
            SchedulerKind::Pas => Box::new(Pas::new(geo, max_bypass, readdressing)),
            SchedulerKind::Spk1 => Box::new(Sprinkler::spk1(geo, max_bypass, readdressing, (plane_slots, faro))),
            SchedulerKind::Spk2 => Box::new(Sprinkler::spk2(geo, readdressing)),
            SchedulerKind::Spk3 => Box::new(Sprinkler::spk3(geo, readdressing, (plane_slots, faro))),
        }
    }
}

/// What FARO (`spk1`, `spk3`) ranks uncommitted requests by (`hil.faro_priority`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaroPriority {
    /// Sprinkler §4.2 and Algorithm 1 [P]: per chip, the host request (tag) whose memory
    /// requests on the chip would give it the highest overlap depth — distinct (die, plane)
    /// pairs with a committed request waiting, of any host request, together with this
    /// request's — then the highest connectivity (its memory requests on the chip), then the
    /// oldest [I].
    OverlapDepth,
    /// ssdlab's rule before issue 32 [I]: `spk3` gives each free plane the request with most
    /// memory requests on the chip, then the oldest; `spk1` counts depth inside one request.
    WithinRequest,
}

/// The fairness layer over the device queue (`hil.fairness`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fairness {
    /// Every flow may commit whenever the scheduler wants.
    None,
    /// [`wa_bc::WaBc`]: per-flow budgets with GC compensation (Jun & Shin 2015; FLIN's
    /// "Sprinkler+Fairness").
    WaBc,
}

impl Fairness {
    /// The layer this choice puts over the scheduler (None for `none`).
    pub fn build(
        self,
        hil: &config::HilConfig,
        geo: &Geometry,
        timing: &Timing,
        flows: usize,
    ) -> Option<FairnessLayer> {
        match self {
            Fairness::None => None,
            Fairness::WaBc => Some(FairnessLayer::WaBc(wa_bc::WaBc::from_config(hil, geo, timing, flows))),
        }
    }
}

/// A fairness layer at work: which flows may commit, and what each commit costs them.
#[derive(Debug)]
pub enum FairnessLayer {
    WaBc(wa_bc::WaBc),
}

impl FairnessLayer {
    /// Which flows may commit now (`pending`: the flows with ready requests).
    #[inline]
    pub fn allowed(&mut self, pending: &[bool], allowed: &mut [bool]) {
        match self {
            FairnessLayer::WaBc(w) => w.allowed(pending, allowed),
        }
    }

    /// `flow` committed `pages` pages (`write`: programs, charged GC at `gc_per_write`).
    #[inline]
    pub fn charge(&mut self, flow: usize, write: bool, pages: u64, gc_per_write: f64) {
        match self {
            FairnessLayer::WaBc(w) => w.charge(flow, write, pages, gc_per_write),
        }
    }
}

/// Which overlapping requests the drive keeps in order (`hil.hazards`); FUA always.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hazards {
    /// Read-after-write, write-after-read and write-after-write.
    Strict,
    /// Only a write after a read (Sprinkler §4.4).
    War,
    /// Nothing but FUA (NVMe leaves overlapping commands to the host; MQSim's host
    /// interface splits every command into transactions as it arrives). Written `none`.
    #[serde(rename = "none")]
    FuaOnly,
}

impl Hazards {
    /// Whether a request `later` (writes or not) must wait for an overlapping `earlier` one.
    pub fn orders(self, later: bool, earlier: bool) -> bool {
        match self {
            Hazards::Strict => later || earlier,
            Hazards::War => later && !earlier,
            Hazards::FuaOnly => false,
        }
    }

    /// Whether a request (writes or not) may have to wait for any overlapping one.
    pub fn may_order(self, writes: bool) -> bool {
        self.orders(writes, true) || self.orders(writes, false)
    }
}

/// The pages a request of `sectors` sectors from `lba` touches, each with the mask of its
/// sectors (bit i = sector i of the page): the memory requests it splits into.
pub fn split(lba: u64, sectors: u32, sectors_per_page: u32) -> impl Iterator<Item = (Lpn, u64)> {
    debug_assert!(sectors > 0, "a request of no sectors");
    let spp = sectors_per_page as u64;
    let first = lba / spp;
    let last_sector = lba + sectors as u64 - 1;
    let last = last_sector / spp;
    (first..=last).map(move |lpn| {
        let lo = if lpn == first { lba % spp } else { 0 };
        let hi = if lpn == last { last_sector % spp } else { spp - 1 };
        let mask = if hi - lo + 1 == 64 { u64::MAX } else { ((1u64 << (hi - lo + 1)) - 1) << lo };
        (lpn as Lpn, mask)
    })
}

/// The first page a request of `sectors` sectors from `lba` touches, and how many pages
/// (as many as [`split`] yields).
pub fn page_span(lba: u64, sectors: u32, sectors_per_page: u32) -> (u64, u32) {
    let spp = sectors_per_page as u64;
    let first = lba / spp;
    (first, ((lba + sectors as u64 - 1) / spp - first + 1) as u32)
}

/// Whether two ranges (of sectors or pages) overlap.
#[inline]
pub fn overlaps(a_lba: u64, a_sectors: u32, b_lba: u64, b_sectors: u32) -> bool {
    a_lba < b_lba + b_sectors as u64 && b_lba < a_lba + a_sectors as u64
}
