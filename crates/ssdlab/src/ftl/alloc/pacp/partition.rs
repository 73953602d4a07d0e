//! The read/write channel partition (§3.2; docs/techniques.md §10.3 and §6.3): which channels are
//! labelled Read, and — for PACP — how the split follows the predicted page mix.

use serde::{Deserialize, Serialize};

/// The `[ftl.partition]` table: read/write channel partitioning (`ftl.allocation =
/// "lv_partition"` or `"pacp"`). Every key and default: `docs/config.md`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PartitionConfig {
    /// Read channels at the start (PACP) or for the whole run (Lv et al.); 0: half the
    /// channels (PACP, §10.3 [I]), or sized from the workload's read and write demand
    /// (Lv, §6.3 [I]).
    pub n_read: u32,
    /// PACP: host page accesses (a write's placement, a read's translation) between two
    /// recomputations of the split [I].
    pub period: u64,
    /// PACP: history bits per logical page, 1 to 3 [P: 1].
    pub trh_bits: u8,
    /// PACP: what places a host write — the page's history (Algorithm 1) or nothing (every
    /// host write to the Write channels, the partition without TRH).
    pub placement: Placement,
    /// GC-piggybacked migration (§3.3): a Write-channel GC move of a page predicted read
    /// (PACP) or read-dominant (Lv et al., §6.3) is programmed on a Read channel. Unset: on.
    pub gc_migration: Option<bool>,
    /// Lv et al.: host page accesses over which a region's reads and writes are counted.
    pub lv_window: u64,
    /// Lv et al.: bytes of logical space classified together (a power of two, at least a
    /// page).
    pub lv_region_bytes: u64,
    /// GC-aware migration at idle time (§3.3): after the host has had nothing outstanding
    /// for `idle_us`, the read-predicted valid pages of the Write-channel block with the
    /// most invalid pages move to Read channels, at most `idle_pages` per idle period.
    /// Unset: on for `pacp`; not built for `lv_partition`.
    pub idle_migration: Option<bool>,
    /// Which Write-channel blocks idle migration chooses among.
    pub idle_victims: IdleVictims,
    /// How many of the most invalid closed Write-channel blocks idle migration looks into for
    /// one holding a read-predicted page (`idle_victims = "read_predicted"`).
    pub idle_search_blocks: u32,
    pub idle_us: f64,
    pub idle_pages: u32,
    /// Where preconditioning puts the pages the workload reads before it writes them.
    pub preload: Preload,
}

/// Which Write-channel blocks idle-time migration chooses its block among
/// (`ftl.partition.idle_victims`; docs/techniques.md §10.5 item 2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleVictims {
    /// Closed blocks holding at least one valid page whose history predicts read; among
    /// them the most invalid pages [I, docs/techniques.md §10.10 item 3]: the paper's aim is
    /// to move read-predicted pages.
    #[default]
    ReadPredicted,
    /// Any closed block; the most invalid pages, whether or not it holds a read-predicted
    /// page (ssdlab's earlier rule: it moves almost nothing).
    Any,
}

/// What places a PACP host write (`ftl.partition.placement`; docs/techniques.md §10.4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Algorithm 1 [P]: the page's history predicts its type; read → Read channels, write →
    /// Write channels, no history → any channel.
    #[default]
    Trh,
    /// The partition without its prediction (an ablation, issue 33) [I]: every host write is
    /// placed as if predicted write — Write channels, spilling to the Read channels only when
    /// every Write channel is busy (Algorithm 1's write branch). The histories are still kept:
    /// the split follows the pages they predict, and migration (if on) moves the pages they
    /// predict read.
    WriteChannels,
}

/// Where preconditioning places the pages the workload reads before writing them
/// (`ftl.partition.preload`). The paper's simulator writes such pages in a pre-processing
/// pass it does not describe (docs/techniques.md §10.7) [I].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preload {
    /// Like every other page: spread over all channels by `CWDP`.
    #[default]
    Spread,
    /// On the Read channels first (as many as their planes' share of the fill holds), the
    /// other pages after them on the Write channels.
    ReadChannels,
}

impl Default for PartitionConfig {
    fn default() -> Self {
        PartitionConfig {
            n_read: 0,
            period: 10_000,
            trh_bits: 1,
            placement: Placement::Trh,
            gc_migration: None,
            lv_window: 1_000_000,
            lv_region_bytes: 2 << 20,
            idle_migration: None,
            idle_victims: IdleVictims::ReadPredicted,
            idle_search_blocks: 16,
            idle_us: 1000.0,
            idle_pages: 64,
            preload: Preload::Spread,
        }
    }
}

/// Whether the split moves (PACP) or stays (Lv et al.).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    Fixed,
    Adaptive,
}

/// The channel labels, and per channel the valid pages of each predicted type written there
/// (the relabelling rule's "pages of its previous type").
#[derive(Debug, Clone)]
pub struct Partition {
    read: Vec<bool>,
    /// Per channel: pages placed there as read-predicted, as write-predicted.
    pages: Vec<[u64; 2]>,
    /// The same, summed over the channels.
    totals: [u64; 2],
    split: Split,
    period: u64,
    since: u64,
    /// Channels relabelled so far.
    pub relabels: u64,
}

impl Partition {
    /// `channels` channels, the first `n_read` labelled Read [I] (at least 1 of each).
    pub fn new(channels: u32, n_read: u32, split: Split, period: u64) -> Partition {
        assert!(channels >= 2, "a read/write partition needs two channels");
        let n_read = n_read.clamp(1, channels - 1);
        let read = (0..channels).map(|c| c < n_read).collect();
        Partition { read, pages: vec![[0; 2]; channels as usize], totals: [0; 2], split, period, since: 0, relabels: 0 }
    }

    /// Label the first `n_read` channels Read and the rest Write (clamped to [1, channels −
    /// 1]); before any page is placed.
    pub fn resize(&mut self, n_read: u32) {
        let n = n_read.clamp(1, self.read.len() as u32 - 1);
        for (c, r) in self.read.iter_mut().enumerate() {
            *r = (c as u32) < n;
        }
    }

    pub fn is_read(&self, channel: u32) -> bool {
        self.read[channel as usize]
    }

    /// The channels labelled Read (`read`) or Write, in order.
    pub fn channels(&self, read: bool) -> impl Iterator<Item = u32> + '_ {
        (0..self.read.len() as u32).filter(move |&c| self.read[c as usize] == read)
    }

    pub fn n_read(&self) -> u32 {
        self.read.iter().filter(|&&r| r).count() as u32
    }

    /// Pages counted as read-predicted and as write-predicted, over all channels.
    pub fn page_totals(&self) -> (u64, u64) {
        (self.totals[0], self.totals[1])
    }

    /// A page predicted `write` (or read) was written to / left `channel`.
    pub fn placed(&mut self, channel: u32, write: bool) {
        self.pages[channel as usize][usize::from(write)] += 1;
        self.totals[usize::from(write)] += 1;
    }

    pub fn removed(&mut self, channel: u32, write: bool) {
        let n = &mut self.pages[channel as usize][usize::from(write)];
        if *n > 0 {
            *n -= 1;
            self.totals[usize::from(write)] -= 1;
        }
    }

    /// One host page access: every `period`, PACP moves the split one channel toward
    /// `round(channels × read / (read + write))` (clamped to [1, channels − 1]), where `read`
    /// and `write` count the mapped pages predicted so [I]. The channel relabelled is the
    /// one of the shrinking type holding the fewest pages of that type [P] (lowest index on
    /// ties). Returns it.
    pub fn tick(&mut self, read: u64, write: u64) -> Option<u32> {
        if self.split == Split::Fixed {
            return None;
        }
        self.since += 1;
        if self.since < self.period || read + write == 0 {
            return None;
        }
        self.since = 0;
        let nc = self.read.len() as u64;
        let target = ((nc * read) as f64 / (read + write) as f64).round() as u64;
        let target = target.clamp(1, nc - 1) as u32;
        let now = self.n_read();
        if target == now {
            return None;
        }
        let from_read = target < now;
        let kind = usize::from(!from_read);
        let c = self.channels(from_read).min_by_key(|&c| (self.pages[c as usize][kind], c))?;
        self.read[c as usize] = !from_read;
        self.relabels += 1;
        Some(c)
    }
}

impl PartitionConfig {
    /// Pages per region of Lv et al.'s classification on pages of `page_bytes`.
    pub fn lv_region_pages(&self, page_bytes: u32) -> u32 {
        (self.lv_region_bytes / page_bytes.max(1) as u64).clamp(1, 1 << 31) as u32
    }
}
