//! The cache's DRAM: how long moving a memory request's data into or out of the write cache
//! takes (`cache.dram_model`).
//!
//! - `fixed`: every access takes `cache.dram_access_ns`, and accesses overlap (a DRAM far
//!   faster than anything around it; 0 by default).
//! - `ddr`: MQSim's model (its data cache manager's access-time estimate). One DRAM channel
//!   serves accesses one at a time, in the order they arrive; an access of `b` bytes that fits
//!   in a row takes `tRCD + tCL + ⌊b / burst / 2⌋ × t_burst`, where `t_burst = 1 / rate` is
//!   the time of one transfer (two bursts move per cycle at double data rate). A longer access
//!   is split at row boundaries, each row paying `tRCD + tCL` and each row after the first
//!   also `tRP` (MQSim's own formula for accesses longer than a row charges half the rows; it
//!   is never used by page-sized accesses of a drive whose page fits a row, as in
//!   `mqsim-compat`). ssdlab makes one access per page a request moves; MQSim one per request.

use super::config::{CacheConfig, DdrConfig, DramModel};
use crate::engine::Ps;
use crate::validate::ns_to_ps;

/// The DRAM timing a cache uses, and when its channel is next free.
#[derive(Debug, Clone)]
pub struct Dram {
    timing: Timing,
    /// `ddr`: the channel is busy until then.
    free_at_ps: Ps,
}

#[derive(Debug, Clone)]
enum Timing {
    Fixed(Ps),
    Ddr { row_bytes: u64, burst_bytes: u64, transfer_ps: Ps, open_ps: Ps, precharge_ps: Ps },
}

impl Dram {
    /// The DRAM `cache` configures.
    pub fn from_config(cache: &CacheConfig) -> Dram {
        let timing = match cache.dram_model {
            DramModel::Fixed => Timing::Fixed(ns_to_ps(cache.dram_access_ns)),
            DramModel::Ddr => Timing::ddr(&cache.ddr),
        };
        Dram { timing, free_at_ps: 0 }
    }

    /// A fixed access time for every access.
    pub fn fixed(access_ps: Ps) -> Dram {
        Dram { timing: Timing::Fixed(access_ps), free_at_ps: 0 }
    }

    /// An access of `bytes` asked for at `now`: how long until it is done (its wait for the
    /// channel included).
    pub fn access(&mut self, now: Ps, bytes: u64) -> Ps {
        match self.timing {
            Timing::Fixed(ps) => ps,
            Timing::Ddr { row_bytes, burst_bytes, transfer_ps, open_ps, precharge_ps } => {
                let rows = bytes.div_ceil(row_bytes).max(1);
                let last = bytes - (rows - 1) * row_bytes;
                let moves = |b: u64| b / burst_bytes / 2 * transfer_ps;
                let busy = rows * open_ps + (rows - 1) * (precharge_ps + moves(row_bytes)) + moves(last);
                let start = now.max(self.free_at_ps);
                self.free_at_ps = start + busy;
                self.free_at_ps - now
            }
        }
    }
}

impl Timing {
    fn ddr(d: &DdrConfig) -> Timing {
        Timing::Ddr {
            row_bytes: u64::from(d.row_bytes),
            burst_bytes: u64::from(d.burst_bytes),
            transfer_ps: (1e6 / d.data_rate_mt_s).round() as Ps,
            open_ps: ns_to_ps(d.t_rcd_ns) + ns_to_ps(d.t_cl_ns),
            precharge_ps: ns_to_ps(d.t_rp_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MQSim's default DRAM (ssdconfig.xml): 100 MT/s, 1-byte bursts, 13 ns tRCD, tCL, tRP,
    /// 8 KiB rows.
    fn mqsim_default() -> Dram {
        let cache = CacheConfig { dram_model: DramModel::Ddr, ..CacheConfig::default() };
        Dram::from_config(&cache)
    }

    #[test]
    fn a_4k_access_is_row_open_plus_its_transfers() {
        // 13 + 13 ns, then 4096 / 1 / 2 = 2048 transfers of 10 ns: 20,506 ns.
        assert_eq!(mqsim_default().access(0, 4096), 20_506_000);
    }

    #[test]
    fn accesses_wait_for_the_channel_in_turn() {
        let mut d = mqsim_default();
        assert_eq!(d.access(1_000, 4096), 20_506_000);
        // Asked at 6 µs: waits until the first ends (at 1 ns + 20.506 µs), then 20.506 µs more.
        assert_eq!(d.access(6_000_000, 4096), 20_507_000 + 20_506_000 - 6_000_000);
        // After the channel is free: no wait.
        assert_eq!(d.access(100_000_000, 512), 26_000 + 256 * 10_000);
    }

    #[test]
    fn a_longer_access_pays_each_row() {
        // 12 KiB over 8 KiB rows: two row openings, one precharge, 4096 + 2048 transfers.
        let expect = 2 * 26_000 + 13_000 + (4096 + 2048) * 10_000;
        assert_eq!(mqsim_default().access(0, 12288), expect);
    }

    #[test]
    fn fixed_accesses_overlap() {
        let mut d = Dram::fixed(700);
        assert_eq!(d.access(0, 8192), 700);
        assert_eq!(d.access(0, 8192), 700);
    }
}
