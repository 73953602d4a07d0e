//! Host interface layer: the device-level queue and the device-level I/O scheduler.
//!
//! Owns the tags of the device queue (`hil.queue_depth`), the split of each host request into
//! page-sized memory requests, the hazard rules between requests and the decision of which
//! memory requests are committed to the flash side, and when. Hazards: a request that
//! overlaps an earlier unfinished one, where either writes, waits for it (RAW, WAR, WAW keep
//! their order, at page granularity because a partial write rewrites its whole page); a FUA request waits for everything before it and everything after waits
//! for it.
//!
//! New schedulers (PAS, Sprinkler's RIOS/FARO) implement [`DeviceScheduler`]. A scheduler
//! sees every pending memory request with its physical target (plane → die, chip,
//! channel: from the map for reads, from the allocator for writes) and the state of the
//! chips, and may commit any of them, in any order, whenever it is called.

use crate::engine::Ps;
use crate::nand::{Geometry, Lpn};

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
    pub lpn: Lpn,
    pub sector_mask: u64,
    pub op: MrOp,
    /// Target plane (flat index); NONE when no flash access is needed.
    pub plane: u32,
    /// When it became ready to commit.
    pub ready_ps: Ps,
}

/// What a scheduler may look at.
pub struct HilView<'a> {
    pub geo: &'a Geometry,
    /// Memory requests ready to commit, in the order their requests arrived.
    pub pending: &'a [u32],
    pub mrs: &'a [MemoryRequest],
    /// Per chip: whether it is running a command.
    pub chip_busy: &'a [bool],
    /// Per chip: transactions queued in the TSU (not counting the running command).
    pub chip_queued: &'a [u32],
}

/// A device-level I/O scheduler.
pub trait DeviceScheduler {
    fn name(&self) -> &'static str;
    /// Choose memory requests (by index into `view.pending`) to commit now, in commit order.
    /// Called whenever requests become ready and whenever a chip becomes free.
    fn schedule(&mut self, view: &HilView<'_>, commit: &mut Vec<usize>);
}

/// Virtual-address scheduler: commits memory requests in the order of their host requests,
/// as soon as they are ready (FIFO, no knowledge of physical layout).
pub struct Vas;

impl DeviceScheduler for Vas {
    fn name(&self) -> &'static str {
        "vas"
    }
    fn schedule(&mut self, view: &HilView<'_>, commit: &mut Vec<usize>) {
        commit.extend(0..view.pending.len());
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerKind {
    Vas,
}

impl SchedulerKind {
    pub fn parse(s: &str) -> Result<SchedulerKind, String> {
        match s {
            "vas" => Ok(SchedulerKind::Vas),
            _ => Err(format!("`{s}` is not a device-level scheduler: use vas")),
        }
    }

    pub fn build(self) -> Box<dyn DeviceScheduler> {
        match self {
            SchedulerKind::Vas => Box::new(Vas),
        }
    }
}

/// Whether two ranges (of sectors or pages) overlap.
#[inline]
pub fn overlaps(a_lba: u64, a_sectors: u32, b_lba: u64, b_sectors: u32) -> bool {
    a_lba < b_lba + b_sectors as u64 && b_lba < a_lba + a_sectors as u64
}
