//! PACP — parallelism-aware channel partition (Lim, Shin, Han, Electronics 11(23):4048,
//! 2022; docs/techniques.md §10), and the static partition of Lv et al. (DAC 2020, §6.3) it is
//! compared with.
//!
//! - **Transaction history** ([`Trh`], §3.1, §10.2): each logical page keeps the types of its
//!   last N host requests (N = `ftl.partition.trh_bits`, 1 by default); the majority
//!   predicts the next; a tie (even N) goes by the channel the page sits on. A request is
//!   predicted *before* it is recorded (§10.2 item 5 [I]), which is also how accuracy is
//!   measured (§10.9).
//! - **Channel partition** ([`Partition`], §3.2, §10.3): each channel is labelled Read or
//!   Write. PACP recomputes the number of Read channels every `ftl.partition.period`
//!   page accesses from the share of mapped pages predicted read [I], one channel at a time,
//!   relabelling the channel holding the fewest pages of its old type [P]. Lv et al. keep a
//!   fixed split.
//! - **Allocation** ([`choose_plane`], Algorithm 1, §10.4): a page predicted read goes to a
//!   Read channel, one predicted write to a Write channel — unless every channel of that type
//!   is busy, then to the other type; no history: any channel. Within the set, dynamic
//!   allocation: channel, chip, die and plane in rotation, skipping busy ones [P, citing
//!   Tavakkol et al. 2016].

mod partition;
mod trh;

pub mod lv;

pub use lv::AccessWindow;
pub use partition::{IdleVictims, Partition, PartitionConfig, Placement, Preload, Split};
pub use trh::{Prediction, Trh};

use crate::engine::Ps;
use crate::ftl::BlockState;
use crate::nand::{Geometry, Lpn, Ppn};

/// Rotation points of dynamic allocation inside a channel set.
#[derive(Debug, Clone)]
pub struct Rotation {
    /// Per channel type (0 read, 1 write, 2 any): the channel after the last chosen.
    channel: [u32; 3],
    /// Per channel: the chip after the last chosen.
    chip: Vec<u32>,
    /// Per chip: the die-and-plane slot after the last chosen (dies before planes).
    slot: Vec<u32>,
}

impl Rotation {
    pub fn new(geo: &Geometry) -> Rotation {
        Rotation { channel: [0; 3], chip: vec![0; geo.channels as usize], slot: vec![0; geo.chips() as usize] }
    }
}

/// Which channels a write may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelSet {
    Read,
    Write,
    Any,
}

/// A chip is busy when a transaction is queued or running on it (`chip_load` > 0); a
/// channel is busy when all its chips are [I: §10.4 item 3, `all_chips`].
pub fn channel_busy(geo: &Geometry, channel: u32, chip_load: &[u32]) -> bool {
    (0..geo.chips_per_channel).all(|w| chip_load[(channel * geo.chips_per_channel + w) as usize] > 0)
}

/// Algorithm 1: the channel set a page of prediction `pred` is written to. `old_on_write`:
/// whether the page's current copy is on a Write channel (ties of an even history).
pub fn channel_set(pred: Prediction, old_on_write: bool, part: &Partition, geo: &Geometry, load: &[u32]) -> ChannelSet {
    let all_busy = |read: bool| part.channels(read).all(|c| channel_busy(geo, c, load));
    match pred {
        Prediction::None => ChannelSet::Any,
        Prediction::Read if all_busy(true) => ChannelSet::Write,
        Prediction::Read => ChannelSet::Read,
        Prediction::Write if all_busy(false) => ChannelSet::Read,
        Prediction::Write => ChannelSet::Write,
        Prediction::Tie if old_on_write => ChannelSet::Write,
        Prediction::Tie => ChannelSet::Read,
    }
}

/// Dynamic allocation within `set`: the next channel of the set in rotation that is not
/// busy (else the next in rotation), on it the next chip that is idle (else the next), on
/// it the next die and plane (dies first). Returns the flat plane index.
pub fn choose_plane(set: ChannelSet, part: &Partition, geo: &Geometry, load: &[u32], rot: &mut Rotation) -> u32 {
    let in_set = |c: u32| match set {
        ChannelSet::Read => part.is_read(c),
        ChannelSet::Write => !part.is_read(c),
        ChannelSet::Any => true,
    };
    rotate_within(set, in_set, geo, load, rot)
}

/// Dynamic allocation over the channels `in_set` accepts, with `set`'s rotation point (see
/// [`choose_plane`]); `ChannelSet::Any` with every channel is `ftl.allocation =
/// "dynamic_rr"`.
pub fn rotate_within(
    set: ChannelSet,
    in_set: impl Fn(u32) -> bool,
    geo: &Geometry,
    load: &[u32],
    rot: &mut Rotation,
) -> u32 {
    let nc = geo.channels;
    let start = rot.channel[set as usize] % nc;
    let mut first = None;
    let mut pick = None;
    for c in (0..nc).map(|k| (start + k) % nc).filter(|&c| in_set(c)) {
        first.get_or_insert(c);
        if !channel_busy(geo, c, load) {
            pick = Some(c);
            break;
        }
    }
    let channel = pick.or(first).expect("a channel set of PACP is empty");
    rot.channel[set as usize] = (channel + 1) % nc;
    let ways = geo.chips_per_channel;
    let first = rot.chip[channel as usize] % ways;
    let w = (0..ways).map(|k| (first + k) % ways).find(|&w| load[(channel * ways + w) as usize] == 0).unwrap_or(first);
    rot.chip[channel as usize] = (w + 1) % ways;
    let chip = channel * ways + w;
    let slots = geo.dies_per_chip * geo.planes_per_die;
    let s = rot.slot[chip as usize] % slots;
    rot.slot[chip as usize] = (s + 1) % slots;
    let (die, plane) = (s % geo.dies_per_chip, s / geo.dies_per_chip);
    geo.plane_index(channel, w, die, plane)
}

/// Idle-time migration's scan: push the closed blocks among `valid` / `state` (numbered from
/// `first`) into `heap`, which keeps the `keep` smallest (valid pages, block) keys. Blocks come
/// in ascending order, so once the heap is full only a closed block with fewer valid pages
/// than its largest key can enter (an equal count loses on its higher number): a run of
/// blocks without one is passed over in one branch-free test, with the same result as
/// visiting each.
pub fn keep_most_invalid(
    heap: &mut std::collections::BinaryHeap<(u16, u32)>,
    keep: usize,
    first: u32,
    valid: &[u16],
    state: &[BlockState],
) {
    const RUN: usize = 32;
    for (k, (vs, ss)) in valid.chunks(RUN).zip(state.chunks(RUN)).enumerate() {
        if heap.len() >= keep {
            let bound = heap.peek().map_or(0, |top| top.0);
            let hit = vs.iter().zip(ss).fold(false, |a, (&v, &s)| a | ((s == BlockState::Closed) & (v < bound)));
            if !hit {
                continue;
            }
        }
        for (i, (&v, &s)) in vs.iter().zip(ss).enumerate() {
            if s != BlockState::Closed {
                continue;
            }
            let key = (v, first + (k * RUN + i) as u32);
            if heap.len() < keep {
                heap.push(key);
            } else if heap.peek().is_some_and(|&top| key < top) {
                heap.pop();
                heap.push(key);
            }
        }
    }
}

#[cfg(test)]
mod tests;

/// PACP's first split when the pages read before written are preloaded onto the Read
/// channels (`ftl.partition.preload`) [I]: round(channels × R / (R + W)), R the pages the
/// workload reads first and W those it writes first — §10.3's rule with first accesses for
/// histories — clamped to [1, channels − 1].
pub fn preload_read_channels(channels: u32, reads_first: u64, writes_first: u64) -> u32 {
    let all = reads_first + writes_first;
    let n = if all == 0 { channels / 2 } else { (channels as f64 * reads_first as f64 / all as f64).round() as u32 };
    n.clamp(1, channels.saturating_sub(1).max(1))
}

/// Lv et al.'s split sized from the workload (docs/techniques.md §6.3 [I]): Read channels =
/// round(channels × R / (R + W)), R = pages read × tR, W = pages written × tPROG, clamped to
/// [1, channels − 1].
pub fn lv_read_channels(channels: u32, read_pages: f64, write_pages: f64, t_read: f64, t_prog: f64) -> u32 {
    let (r, w) = (read_pages * t_read, write_pages * t_prog);
    if r + w <= 0.0 {
        return channels / 2;
    }
    ((channels as f64 * r / (r + w)).round() as u32).clamp(1, channels - 1)
}

/// How writes are placed on a partitioned drive (`ftl.allocation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Lv et al.: every host write to the Write channels, dynamically within them; the
    /// split fixed for the run.
    Lv,
    /// PACP: Algorithm 1 with the page's history, the split following the page mix.
    Pacp,
}

/// The partition's state, owned by the FTL beside the map (the histories sit in the map
/// entries, §3.1).
#[derive(Debug, Clone)]
pub struct ChannelPartition {
    pub part: Partition,
    /// PACP only.
    pub trh: Option<Trh>,
    /// Lv et al. only: the access characteristic GC migration reads.
    pub lv: Option<AccessWindow>,
    rot: Rotation,
    geo: Geometry,
    /// What places a host write (PACP): the history, or nothing (all to Write channels).
    placement: Placement,
    gc_migration: bool,
    /// GC moves programmed on a Read channel instead of their Write-channel plane.
    pub migrated_gc: u64,
    /// Idle-time migration: (time the host must be idle, pages per idle period); None: off.
    pub idle: Option<(crate::engine::Ps, u32)>,
    /// Which Write-channel blocks idle-time migration chooses among.
    pub idle_victims: IdleVictims,
    /// How many of the most invalid Write-channel blocks idle-time migration looks into.
    pub idle_search: u32,
    /// Pages idle-time migration moved to a Read channel.
    pub migrated_idle: u64,
    /// Idle-time migrations given up after their plane was chosen: GC moved the page first.
    idle_dropped: u64,
    /// Idle-time migration's memo of blocks known to hold no valid page predicted read (a
    /// simulator shortcut, no effect on results): per block, its opening number
    /// (`Blocks::opened_seq`) + 1 when it was last searched and held none; 0: not known.
    /// A closed block gains no pages, and one of its valid pages turns read-predicted only
    /// through a host read, which clears its block's entry ([`Self::host_read`]); reopening
    /// changes the opening number. Empty without idle-time migration.
    idle_clean: Vec<u64>,
    /// Per channel: host pages read and written there.
    load: Vec<ChannelLoad>,
    /// Host writes with a prediction that went to the other type's channels (all of their
    /// own were busy, or the plane chosen had no room).
    spilled: u64,
    /// Host writes sent to the other type's channels because the plane chosen had no room.
    full_spills: u64,
    /// Host writes by what the page's history predicted (PACP), whatever placed them.
    writes_by_prediction: WritesByPrediction,
    /// The relabellings, in order (the first [`RELABEL_LOG`]).
    relabel_log: Vec<Relabel>,
    /// The scheme whose rule sizes the starting split from the workload, when
    /// `ftl.partition.n_read` is not given; None when it is.
    auto_size: Option<Scheme>,
    /// Where the preconditioning puts the pages the workload reads first.
    preload: Preload,
}

/// Relabellings kept in the report at most (a period of 1 could relabel on every access).
pub const RELABEL_LOG: usize = 10_000;

/// Host pages read and written on one channel, and how many of them while it was labelled
/// Read.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub struct ChannelLoad {
    pub host_reads: u64,
    pub host_writes: u64,
    pub host_reads_as_read: u64,
    pub host_writes_as_read: u64,
}

/// Host page writes by their page's prediction: no history (Algorithm 1 sends them to any
/// channel), read, write, a tie.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WritesByPrediction {
    pub none: u64,
    pub read: u64,
    pub write: u64,
    pub tie: u64,
}

impl WritesByPrediction {
    fn count(&mut self, p: Prediction) {
        let n = match p {
            Prediction::None => &mut self.none,
            Prediction::Read => &mut self.read,
            Prediction::Write => &mut self.write,
            Prediction::Tie => &mut self.tie,
        };
        *n += 1;
    }
}

/// One relabelling: when, which channel, and the type it became.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Relabel {
    pub t_us: f64,
    pub channel: u32,
    pub to_read: bool,
}

/// The type a page counts as on its channel: its prediction, when it has one.
fn counted(t: &Trh, lpn: Lpn) -> Option<bool> {
    match t.predict(lpn) {
        Prediction::Read => Some(false),
        Prediction::Write => Some(true),
        Prediction::None | Prediction::Tie => None,
    }
}

impl ChannelPartition {
    /// Bytes a partition of `scheme` holds over `logical_pages`: PACP's histories (a byte per
    /// logical page, in chunks: `requested_chunks` of them requested) and per-block idle
    /// books; Lv et al.'s access window (24 bytes per region).
    pub fn estimate_bytes(
        scheme: Scheme,
        cfg: &PartitionConfig,
        geo: &Geometry,
        logical_pages: u32,
        requested_chunks: u64,
    ) -> u64 {
        let per_channel = std::mem::size_of::<ChannelLoad>() as u64 + 8;
        let fixed = geo.channels as u64 * per_channel + geo.chips() as u64 * 4;
        match scheme {
            Scheme::Pacp => {
                let trh = crate::mem::ChunkedTable::<u8>::estimate_bytes(logical_pages as u64, false, requested_chunks);
                let idle = if cfg.idle_migration.unwrap_or(true) { geo.blocks() as u64 * 8 } else { 0 };
                fixed + trh + idle
            }
            Scheme::Lv => {
                let regions = (logical_pages as u64).div_ceil(cfg.lv_region_pages(geo.page_bytes) as u64).max(1);
                fixed + regions * 24
            }
        }
    }

    /// `n_read` Read channels to start with (clamped to [1, channels − 1]).
    pub fn new(scheme: Scheme, cfg: &PartitionConfig, geo: &Geometry, logical_pages: u32, n_read: u32) -> Self {
        let split = if scheme == Scheme::Pacp { Split::Adaptive } else { Split::Fixed };
        ChannelPartition {
            part: Partition::new(geo.channels, n_read, split, cfg.period.max(1)),
            trh: (scheme == Scheme::Pacp).then(|| Trh::new(logical_pages, cfg.trh_bits)),
            lv: (scheme == Scheme::Lv)
                .then(|| AccessWindow::new(logical_pages, cfg.lv_region_pages(geo.page_bytes), cfg.lv_window)),
            rot: Rotation::new(geo),
            geo: geo.clone(),
            placement: cfg.placement,
            gc_migration: cfg.gc_migration.unwrap_or(true),
            migrated_gc: 0,
            idle: (scheme == Scheme::Pacp && cfg.idle_migration.unwrap_or(true))
                .then(|| (crate::validate::us_to_ps(cfg.idle_us), cfg.idle_pages)),
            idle_victims: cfg.idle_victims,
            idle_search: cfg.idle_search_blocks,
            migrated_idle: 0,
            idle_dropped: 0,
            idle_clean: if scheme == Scheme::Pacp && cfg.idle_migration.unwrap_or(true) {
                vec![0; geo.blocks() as usize]
            } else {
                Vec::new()
            },
            load: vec![ChannelLoad::default(); geo.channels as usize],
            spilled: 0,
            full_spills: 0,
            writes_by_prediction: WritesByPrediction::default(),
            relabel_log: Vec::new(),
            auto_size: (cfg.n_read == 0).then_some(scheme),
            preload: cfg.preload,
        }
    }

    /// Whether the starting split is sized from the workload's read and write demand (Lv et
    /// al.'s rule, §6.3 [I], when `n_read` is not given): see [`Self::size_by_demand`].
    pub fn sized_by_demand(&self) -> bool {
        self.auto_size == Some(Scheme::Lv)
    }

    /// Size the split from the workload's pages read and written and the mean page read and
    /// program times ([`lv_read_channels`]), if the split is sized that way.
    pub fn size_by_demand(&mut self, read_pages: f64, write_pages: f64, t_read: f64, t_prog: f64) {
        if self.sized_by_demand() {
            self.part.resize(lv_read_channels(self.geo.channels, read_pages, write_pages, t_read, t_prog));
        }
    }

    /// Whether the preconditioning puts the pages the workload reads first on the Read
    /// channels (`ftl.partition.preload = "read_channels"`).
    pub fn preloads_reads(&self) -> bool {
        self.preload == Preload::ReadChannels
    }

    /// The preloaded pages the workload reads first and writes first: PACP without `n_read`
    /// starts with their share ([`preload_read_channels`]).
    pub fn size_by_preload(&mut self, reads_first: u64, writes_first: u64) {
        if self.auto_size == Some(Scheme::Pacp) {
            self.part.resize(preload_read_channels(self.geo.channels, reads_first, writes_first));
        }
    }

    /// Whether `lpn` is a page migration moves to the read area: its history predicts read
    /// (PACP), or its region is read-dominant (Lv et al.).
    pub fn predicts_read(&self, lpn: Lpn) -> bool {
        match (&self.trh, &self.lv) {
            (Some(t), _) => t.predict(lpn) == Prediction::Read,
            (None, Some(w)) => w.read_dominant(lpn),
            (None, None) => false,
        }
    }

    /// Whether `channel` is labelled Write.
    pub fn is_write_channel(&self, channel: u32) -> bool {
        !self.part.is_read(channel)
    }

    /// Idle-time migration of `lpn` off `src`: a Read-channel plane with `room` (counted),
    /// or None (the page stays).
    pub fn idle_plane(&mut self, lpn: Lpn, src: Ppn, load: &[u32], room: impl Fn(u32) -> bool) -> Option<u32> {
        let plane = self.read_plane_for(lpn, src, load, room)?;
        self.migrated_idle += 1;
        Some(plane)
    }

    /// Whether `block`, opened as `opened_seq`, may hold a valid page predicted read: not
    /// when it was searched since it opened, held none, and no host read has turned one of
    /// its pages read-predicted since ([`Self::holds_no_read_pages`]).
    pub fn may_hold_read_pages(&self, block: u32, opened_seq: u64) -> bool {
        self.idle_clean.get(block as usize).is_none_or(|&known| known != opened_seq + 1)
    }

    /// `block`, opened as `opened_seq`, was searched and holds no valid page predicted read.
    pub fn holds_no_read_pages(&mut self, block: u32, opened_seq: u64) {
        if let Some(known) = self.idle_clean.get_mut(block as usize) {
            *known = opened_seq + 1;
        }
    }

    /// An idle-time migration counted by [`Self::idle_plane`] never programmed: GC moved
    /// its page first, and its program was dropped at its queue's head.
    pub fn idle_migration_dropped(&mut self) {
        self.migrated_idle -= 1;
        self.idle_dropped += 1;
    }

    /// GC-piggybacked migration (§3.3): a GC move of `lpn` off `src` goes to this plane of a
    /// Read channel instead of its own (None: it stays). The move's program is the one GC
    /// makes anyway.
    pub fn migration_plane(&mut self, lpn: Lpn, src: Ppn, load: &[u32], room: impl Fn(u32) -> bool) -> Option<u32> {
        if !self.gc_migration {
            return None;
        }
        let plane = self.read_plane_for(lpn, src, load, room)?;
        self.migrated_gc += 1;
        Some(plane)
    }

    /// Where a page moving off `src` goes, if it should move: `src` on a Write channel,
    /// `lpn` predicted read, and the Read-channel plane dynamic allocation picks has `room`
    /// (not collecting, and more free blocks than host writes leave it) [I] — moves piling
    /// onto a plane that needs GC itself would take the free pages its own GC needs. The
    /// page is counted on its new channel.
    fn read_plane_for(&mut self, lpn: Lpn, src: Ppn, load: &[u32], room: impl Fn(u32) -> bool) -> Option<u32> {
        if !self.predicts_read(lpn) || self.part.is_read(self.channel_of(src)) {
            return None;
        }
        let plane = choose_plane(ChannelSet::Read, &self.part, &self.geo, load, &mut self.rot);
        if !room(plane) {
            return None;
        }
        self.part.removed(self.channel_of(src), false);
        self.part.placed(self.geo.channel_of_chip(self.geo.chip_of_plane(plane)), false);
        Some(plane)
    }

    fn channel_of(&self, ppn: Ppn) -> u32 {
        self.geo.channel_of_chip(self.geo.chip_of_plane(self.geo.plane_of(ppn)))
    }

    /// The plane a host write of `lpn` (now at `old`, or NONE) goes to at `now`; the write
    /// is recorded in its history. A plane without `room` for host writes (its free blocks
    /// down to GC's reserve) is passed over for the other type's channels [I]: a static split
    /// whose Write channels hold more live data than they can store would otherwise wait for
    /// GC that finds nothing to free.
    pub fn write_plane(&mut self, lpn: Lpn, old: Ppn, load: &[u32], now: Ps, room: impl Fn(u32) -> bool) -> u32 {
        let old_channel = (old != crate::nand::NONE).then(|| self.channel_of(old));
        let old_on_write = old_channel.is_some_and(|c| !self.part.is_read(c));
        let Some(trh) = &mut self.trh else {
            if let Some(w) = &mut self.lv {
                w.record(lpn, true);
            }
            let plane = self.plane_with_room(ChannelSet::Write, load, &room);
            self.count_write(plane);
            return plane;
        };
        // `placement = "write_channels"`: every host write as if predicted write.
        let history = trh.predict(lpn);
        self.writes_by_prediction.count(history);
        let pred = match self.placement {
            Placement::Trh => history,
            Placement::WriteChannels => Prediction::Write,
        };
        let set = channel_set(pred, old_on_write, &self.part, &self.geo, load);
        if let (Some(c), Some(w)) = (old_channel, counted(trh, lpn)) {
            self.part.removed(c, w);
        }
        trh.record(lpn, true, old_on_write);
        let plane = self.plane_with_room(set, load, &room);
        let channel = self.geo.channel_of_chip(self.geo.chip_of_plane(plane));
        if let Some(w) = self.trh.as_ref().and_then(|t| counted(t, lpn)) {
            self.part.placed(channel, w);
        }
        self.count_write(plane);
        let on_read = self.part.is_read(channel);
        let spilled = matches!((pred, on_read), (Prediction::Read, false) | (Prediction::Write, true));
        self.spilled += u64::from(spilled && set != ChannelSet::Any);
        self.tick(now);
        plane
    }

    /// Dynamic allocation in `set`; if that plane has no room, in the other type's channels
    /// (counted as a full-set spill), else the first choice all the same.
    fn plane_with_room(&mut self, set: ChannelSet, load: &[u32], room: &impl Fn(u32) -> bool) -> u32 {
        let plane = choose_plane(set, &self.part, &self.geo, load, &mut self.rot);
        let other = match set {
            ChannelSet::Read => ChannelSet::Write,
            ChannelSet::Write => ChannelSet::Read,
            ChannelSet::Any => return plane,
        };
        if room(plane) {
            return plane;
        }
        let instead = choose_plane(other, &self.part, &self.geo, load, &mut self.rot);
        if room(instead) {
            self.full_spills += 1;
            return instead;
        }
        plane
    }

    /// A page that is not host data (a translation page): dynamic allocation over every
    /// channel [I].
    pub fn any_plane(&mut self, load: &[u32]) -> u32 {
        choose_plane(ChannelSet::Any, &self.part, &self.geo, load, &mut self.rot)
    }

    /// A host read of `lpn`, at `ppn` (or NONE), at `now`: counted on its channel and
    /// recorded in its history (PACP).
    pub fn host_read(&mut self, lpn: Lpn, ppn: Ppn, now: Ps) {
        let channel = (ppn != crate::nand::NONE).then(|| self.channel_of(ppn));
        if let Some(c) = channel {
            let l = &mut self.load[c as usize];
            l.host_reads += 1;
            l.host_reads_as_read += u64::from(self.part.is_read(c));
        }
        let on_write = channel.is_some_and(|c| !self.part.is_read(c));
        if let Some(w) = &mut self.lv {
            w.record(lpn, false);
        }
        let Some(trh) = &mut self.trh else { return };
        let before = counted(trh, lpn);
        trh.record(lpn, false, on_write);
        let after = counted(trh, lpn);
        if let Some(c) = channel.filter(|_| before != after) {
            before.into_iter().for_each(|w| self.part.removed(c, w));
            after.into_iter().for_each(|w| self.part.placed(c, w));
            if after == Some(false) && !self.idle_clean.is_empty() {
                self.idle_clean[self.geo.block_of(ppn) as usize] = 0;
            }
        }
        self.tick(now);
    }

    /// `lpn`'s copy at `ppn` is gone (trimmed).
    pub fn trimmed(&mut self, lpn: Lpn, ppn: Ppn) {
        if let Some(w) = self.trh.as_ref().and_then(|t| counted(t, lpn)) {
            let c = self.channel_of(ppn);
            self.part.removed(c, w);
        }
    }

    fn count_write(&mut self, plane: u32) {
        let c = self.geo.channel_of_chip(self.geo.chip_of_plane(plane));
        let l = &mut self.load[c as usize];
        l.host_writes += 1;
        l.host_writes_as_read += u64::from(self.part.is_read(c));
    }

    fn tick(&mut self, now: Ps) {
        let (read, write) = self.part.page_totals();
        if let Some(channel) = self.part.tick(read, write) {
            if self.relabel_log.len() < RELABEL_LOG {
                let to_read = self.part.is_read(channel);
                self.relabel_log.push(Relabel { t_us: now as f64 / 1e6, channel, to_read });
            }
        }
    }

    /// What the report shows of the partition at the end of the run.
    pub fn report(&self) -> PartitionReport {
        let read_channels: Vec<u32> = self.part.channels(true).collect();
        let (predicted, accuracy) = self.trh.as_ref().map_or((0, 0.0), |t| (t.predicted, t.accuracy()));
        PartitionReport {
            migrated_gc: self.migrated_gc,
            migrated_idle: self.migrated_idle,
            idle_dropped: self.idle_dropped,
            read_channels_end: read_channels.len() as u32,
            read_channels,
            relabels: self.part.relabels,
            trh_predicted: predicted,
            trh_accuracy: accuracy,
            spilled_writes: self.spilled,
            full_spills: self.full_spills,
            writes_by_prediction: self.writes_by_prediction,
            channels: self.load.clone(),
            relabel_log: self.relabel_log.clone(),
        }
    }
}

/// `sim.ftl.partition` of a report.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PartitionReport {
    /// Channels labelled Read at the end of the run, and which.
    pub read_channels_end: u32,
    pub read_channels: Vec<u32>,
    /// Channels relabelled during the run (PACP).
    pub relabels: u64,
    /// Host page accesses predicted from a page's history (PACP), and the share predicted right
    /// (§10.9: a tie counted by the page's channel).
    pub trh_predicted: u64,
    pub trh_accuracy: f64,
    /// GC-piggybacked migrations: GC moves programmed on a Read channel (GC programs all
    /// the same, counted in `gc.pages_moved`).
    pub migrated_gc: u64,
    /// Idle-time migrations: pages moved to a Read channel while the host was idle (extra
    /// programs, counted in neither host nor GC programs).
    pub migrated_idle: u64,
    /// Idle-time migrations given up because GC moved the page before the migration's
    /// program started (not counted in `migrated_idle`).
    #[serde(default)]
    pub idle_dropped: u64,
    /// Host writes predicted read (write) that went to a Write (Read) channel because every
    /// channel of their own type was busy (Algorithm 1's spill-over).
    pub spilled_writes: u64,
    /// Host writes sent to the other type's channels because the plane dynamic allocation
    /// chose had no room (free blocks down to GC's reserve) [I]; Lv's included.
    pub full_spills: u64,
    /// Host page writes by what the page's history predicted before the write (PACP; under
    /// `placement = "write_channels"` too, though it did not place them).
    #[serde(default)]
    pub writes_by_prediction: WritesByPrediction,
    /// Per channel (by index): host pages read and written there, in all and while the
    /// channel was labelled Read.
    pub channels: Vec<ChannelLoad>,
    /// The channel types over time: each relabelling (the first 10,000).
    pub relabel_log: Vec<Relabel>,
}
