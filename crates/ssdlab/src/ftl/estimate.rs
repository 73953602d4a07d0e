//! The FTL's part of a run's memory estimate ([`Ftl::estimate`]) and its helpers: what a
//! run will ask of the FTL ([`FtlLoad`]), the blocks it opens and the table chunks it writes.

use super::alloc::{self, pacp::ChannelPartition, Allocator};
use super::config::FtlConfig;
use super::gc::{Gc, VictimRead};
use super::mapping::demand::DemandMap;
use super::mapping::page::PageMap;
use super::{logical_pages, Blocks, Ftl};
use crate::nand::config::NandConfig;
use crate::nand::Geometry;

/// What a run will ask of the FTL, for its memory estimate ([`Ftl::estimate`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FtlLoad {
    /// Logical pages preconditioning writes.
    pub preconditioned: u64,
    /// Pages the host writes; None without a bound.
    pub written: Option<u64>,
    /// Logical pages the host's requests may touch, and its writes alone.
    pub footprint: u64,
    pub write_footprint: u64,
}

/// Blocks a run opens on a fresh drive writing `written` pages: on each plane they reach
/// (the writes spread over the planes), its share's blocks; with GC, two more per plane (its
/// destination and the block it frees); every block without a bound.
pub fn blocks_opened(geo: &Geometry, written: u64, gc: bool) -> u64 {
    if written == u64::MAX {
        return geo.blocks() as u64;
    }
    let planes = (geo.planes() as u64).min(written);
    let per_plane = if planes == 0 { 0 } else { written.div_ceil(planes).div_ceil(geo.pages_per_block as u64) };
    let gc_blocks = if gc { 2 * geo.planes() as u64 } else { 0 };
    (planes * per_plane + gc_blocks).min(geo.blocks() as u64)
}

/// Chunks of 1024 entries a table over logical pages has written: those of the first
/// `contiguous` pages (preconditioning's) and, for `accesses` spread over the first
/// `footprint` pages, as many of the footprint's chunks as they reach.
pub fn chunks_written(contiguous: u64, footprint: u64, accesses: u64) -> u64 {
    let chunk = 1u64 << crate::mem::CHUNK_BITS;
    let spread = footprint.div_ceil(chunk).min(accesses);
    contiguous.div_ceil(chunk).max(spread)
}

impl Ftl {
    /// The FTL's part of a run's memory ([`crate::mem::Estimate`]) for `load`: the map
    /// ([`PageMap::estimate_bytes`]: flat on a preconditioned drive, else the pages written),
    /// the block state and reverse map ([`Blocks::estimate_bytes`]: its chunks follow the
    /// blocks the writes open, three streams' worth per plane and one per block of pages
    /// written, every block without a bound), a map cache ([`DemandMap::estimate_bytes`]), a
    /// channel partition ([`ChannelPartition::estimate_bytes`]) and preconditioning's order
    /// of pages (a logical page each, while it runs).
    pub fn estimate(nand: &NandConfig, f: &FtlConfig, load: &FtlLoad, est: &mut crate::mem::Estimate) {
        let geo = f.geometry(nand);
        let logical = logical_pages(&geo, f.overprovisioning_ratio);
        let params = f
            .mapping
            .defaults()
            .map(|_| f.map_cache.resolve("", f.mapping, geo.page_bytes).expect("validated map cache"));
        let tps = params.as_ref().map_or(0, |p| logical.div_ceil(p.entries_per_tp) as u64);
        let flat = load.preconditioned > 0;
        let written = load.written.unwrap_or(u64::MAX);
        let mapped = load.write_footprint.min(written) + tps;
        est.add(
            "mapping table",
            PageMap::estimate_bytes(logical as u64 + tps, flat, mapped, load.write_footprint + tps),
        );
        let opened = blocks_opened(&geo, written, load.preconditioned > 0 || written >= logical as u64);
        let spare = f.gc.read_victim == VictimRead::AllPages;
        let books = Gc::estimate_bytes(&geo) + Allocator::estimate_bytes(&geo);
        let (resident, mapped) = Blocks::estimate_bytes(&geo, flat, opened, spare);
        est.add_reserved("block and page state", resident + books, mapped + books);
        if let Some(p) = &params {
            let image = match p.on_flash_at_start {
                true => (logical as u64).div_ceil(1 << crate::mem::CHUNK_BITS),
                false => chunks_written(load.preconditioned, load.footprint, load.footprint.min(written)),
            };
            est.add("map cache", DemandMap::estimate_bytes(p, logical, geo.planes(), image));
        }
        if let Some(scheme) = f.allocation.partition() {
            let requested = chunks_written(0, load.footprint, load.footprint);
            est.add(
                "channel partition",
                ChannelPartition::estimate_bytes(scheme, &f.partition, &geo, logical, requested),
            );
        }
        if flat {
            let reads_first =
                f.allocation.partition().is_some() && f.partition.preload == alloc::pacp::Preload::ReadChannels;
            let bitmaps = if reads_first { 2 * (logical as u64).div_ceil(64) * 8 } else { 0 };
            let order = load.preconditioned * 4 + (geo.planes() as u64 + 1) * 8 + bitmaps;
            est.add_held("preconditioning (while it runs)", order, crate::mem::Held::WhileFilling);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2 planes × 8 blocks × 16 pages. 40 pages written spread over both planes: 20 each, 2
    /// blocks each, 4; with GC two more per plane, 8; without a bound every block, 16.
    #[test]
    fn blocks_opened_follow_the_pages_written() {
        let nand = crate::nand::config::small_estimate_nand(1);
        let geo = Geometry::from_config(&nand);
        assert_eq!(blocks_opened(&geo, 40, false), 4);
        assert_eq!(blocks_opened(&geo, 40, true), 8);
        assert_eq!(blocks_opened(&geo, u64::MAX, false), 16);
        assert_eq!(blocks_opened(&geo, 0, false), 0);
        assert_eq!(blocks_opened(&geo, 1, false), 1);
    }

    /// Chunks of 1024: preconditioning's 3,000 pages fill 3; 5 accesses over a footprint of
    /// 10,000 pages (10 chunks) reach at most 5; 50 reach all 10.
    #[test]
    fn chunks_written_by_hand() {
        assert_eq!(chunks_written(3000, 10_000, 5), 5);
        assert_eq!(chunks_written(3000, 10_000, 50), 10);
        assert_eq!(chunks_written(3000, 0, 0), 3);
    }
}
