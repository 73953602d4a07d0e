//! A run's peak memory, by part, before anything large is allocated: each layer sizes what it
//! would hold from the sizes it allocates ([`Ftl::estimate`], [`Oracle::estimate_bytes`],
//! [`Stats::flow_bytes`], ...); this file only gathers what the run asks of them (the flows'
//! [`Demand`]) and names the parts. `ssdlab validate` prints them; a run refuses to start
//! above a limit ([`crate::mem::Estimate::check`]).

use super::{cache_pages, Io};
use crate::cache::WriteCache;
use crate::check::{Oracle, OracleSpace};
use crate::config::Config;
use crate::ftl::precondition::fill_pages;
use crate::ftl::{Ftl, FtlLoad};
use crate::hif::queues::HostInterface;
use crate::hil::commit::Committer;
use crate::hil::MemoryRequest;
use crate::host::tenants::Tenants;
use crate::host::{demand, Demand, Flow, WorkloadSpec};
use crate::mem::{Estimate, Held, Part};
use crate::nand::timeline::Timeline;
use crate::nand::Geometry;
use crate::stats::Stats;
use crate::tsu::unit::Tsu;
use crate::tsu::TsuPolicyKind;

use super::RunOptions;

/// The estimate of a run of `flows` on `cfg`'s drive (`geo` in mapping units, `logical`
/// pages), with `opts`' integrity oracle and timeline.
pub(super) fn of(
    cfg: &Config,
    workload: &WorkloadSpec,
    geo: &Geometry,
    logical: u64,
    flows: &[Flow],
    opts: &RunOptions,
) -> Estimate {
    let spp = geo.sectors_per_page() as u64;
    let d = demand(flows, spp, logical);
    let preconditioned = workload.precondition.as_ref().map_or(0, |p| fill_pages(logical, p.occupancy));
    let mut est = Estimate::for_this_process();
    let load = FtlLoad {
        preconditioned,
        written: d.written_pages,
        footprint: d.footprint,
        write_footprint: d.write_footprint,
    };
    Ftl::estimate(&cfg.nand, &cfg.ftl, &load, &mut est);
    let flin = cfg.tsu.policy == TsuPolicyKind::Flin;
    let tags = cfg.hil.queue_depth as u64;
    // Transactions at once: the host's tags' pages and, once GC runs (a preconditioned
    // drive, or writes past the logical space), a victim's moves on every plane.
    let gc = preconditioned > 0 || d.written_pages.is_none_or(|w| w >= logical);
    let moves = if gc { geo.planes() as u64 * geo.pages_per_block as u64 } else { 0 };
    let in_flight = tags * d.largest_request_pages.max(1) + moves;
    let (tsu, flin_bytes) = Tsu::estimate_bytes(geo, in_flight, flin, flows.len());
    let queue_depths = flows.iter().map(|f| f.queue_depth);
    let per_flow = Tenants::flow_bytes(flows)
        + HostInterface::estimate_bytes(queue_depths)
        + Committer::flow_bytes(flows.len())
        + flin_bytes
        + Stats::flow_bytes(&d.requests);
    est.add("per-flow state", per_flow);
    est.add("trace requests held in memory", Tenants::request_bytes(flows));
    let (bitmap, bitmap_address) = d.bitmap_bytes;
    est.parts.push(Part {
        what: "trace page bitmap",
        bytes: bitmap,
        address_bytes: bitmap_address,
        held: Held::WhileFilling,
    });
    let cache = if cfg.cache.enabled { cache_pages(cfg, geo, flows, logical) } else { 0 };
    if cache > 0 {
        est.add("write cache", WriteCache::estimate_bytes(cache));
    }
    if opts.check {
        let oracle = Oracle::estimate_bytes(&oracle_space(geo, logical, preconditioned, &d, cache + in_flight));
        est.add_held("integrity oracle", oracle, Held::AfterFilling);
    }
    let samples = if cfg.stats.interval_us > 0.0 { u64::MAX } else { 0 };
    est.add_held("latency histograms and time series", Stats::drive_bytes(samples), Held::AfterFilling);
    if opts.timeline.is_some() {
        est.add_held("timeline", Timeline::estimate_bytes(), Held::AfterFilling);
    }
    let requests = tags
        * (std::mem::size_of::<Io>() as u64
            + d.largest_request_pages.max(1) * std::mem::size_of::<MemoryRequest>() as u64);
    let layers = crate::nand::phy::estimate_bytes(geo) + tsu + Committer::estimate_bytes(geo);
    // The loop's own: its request slabs, and a flag per chip for deferred starts.
    est.add("chips, queues and requests in flight", layers + requests + geo.chips() as u64);
    est
}

/// What the integrity oracle will hold: the drive, what preconditioning and the host write,
/// and `cached` pages in the cache or in flight at once.
fn oracle_space(geo: &Geometry, logical: u64, preconditioned: u64, d: &Demand, cached: u64) -> OracleSpace {
    let physical = geo.pages() as u64;
    OracleSpace {
        logical,
        physical,
        spp: geo.sectors_per_page() as u64,
        preconditioned: preconditioned > 0,
        programmed: d.written_pages.unwrap_or(physical).min(physical),
        written: d.written_pages.unwrap_or(u64::MAX),
        footprint: d.write_footprint,
        mixed: d.partial_pages,
        cached,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::alloc::Allocator;
    use crate::ftl::gc::Gc;
    use crate::nand::config::small_estimate_nand;

    /// 2 channels of 1 chip of 1 die of 2 planes: 2 chips, 4 planes, 2 dies.
    fn small() -> Geometry {
        Geometry::from_config(&small_estimate_nand(2))
    }

    /// Each layer's books on that drive, by hand. GC: per plane 26 bytes (victim 4, pending
    /// 4, debt 8, pace 8, two flags), per die a list of 24 and a count of 4: 4 × 26 + 2 × 28 =
    /// 160. Allocation: per plane 8, per chip and channel 4: 32 + 16 = 48. Committer: per chip
    /// 32 (two counts, a list of 24), per plane 8: 64 + 32 = 96; per flow 6. Submission queues
    /// of depth 1 and 32: per flow a queue header of 32, a head of 16 and a priority byte,
    /// and room for 1 and 32 entries of 24 bytes: 2 × 49 + 24 + 768 = 890.
    #[test]
    fn each_layers_books_by_hand() {
        let geo = small();
        assert_eq!(Gc::estimate_bytes(&geo), 160);
        assert_eq!(Allocator::estimate_bytes(&geo), 48);
        assert_eq!(Committer::estimate_bytes(&geo), 96);
        assert_eq!(Committer::flow_bytes(3), 18);
        assert_eq!(HostInterface::estimate_bytes([1, 32].into_iter()), 890);
    }

    /// The TSU on that drive: per chip 2 planes × 7 queue classes, each a head
    /// (`Option<QueueEntry>`), a list header of 32 and a flag, plus the chip's load (4) and
    /// its queues' record (96); 100 transactions in flight in room for 128 of 64 bytes. FLIN
    /// adds per chip a record and one per flow and GC.
    #[test]
    fn the_tsu_by_hand() {
        let head = std::mem::size_of::<Option<crate::tsu::QueueEntry>>() as u64;
        let per_chip = 2 * 7 * (head + 32 + 1) + 4 + 96;
        assert_eq!(Tsu::estimate_bytes(&small(), 100, false, 3), (2 * per_chip + 128 * 64, 0));
        let (_, flin) = Tsu::estimate_bytes(&small(), 100, true, 3);
        assert_eq!(flin, crate::tsu::flin::Flin::estimate_bytes(2, 3));
        assert!(flin > 2 * 4 * std::mem::size_of::<u64>() as u64, "four books per chip at least");
    }

    /// A run's estimate is its parts' sum: the process before the run and each part, the
    /// part held while preconditioning and the one after it not at once.
    #[test]
    fn the_estimate_adds_its_parts() {
        let cfg = Config::default();
        let wl = WorkloadSpec { source: String::new(), seed: 1, precondition: None, ramp_ms: 0.0, flows: Vec::new() };
        let e = super::super::Simulation::estimate(&cfg, &wl, 1, &RunOptions { check: true, ..RunOptions::default() })
            .unwrap();
        let names: Vec<&str> = e.parts.iter().map(|p| p.what).collect();
        for name in ["mapping table", "block and page state", "per-flow state", "integrity oracle"] {
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
        let always: u64 = e.parts.iter().filter(|p| p.held == Held::Always).map(|p| p.bytes).sum();
        let after: u64 = e.parts.iter().filter(|p| p.held == Held::AfterFilling).map(|p| p.bytes).sum();
        assert_eq!(e.run_bytes(), always + after, "nothing is held while filling a fresh drive");
        assert_eq!(e.total(), e.before_bytes + e.run_bytes());
    }
}
