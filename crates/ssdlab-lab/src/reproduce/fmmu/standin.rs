//! Figure 13's MSR stand-ins (issue 33 item 4; docs/techniques.md §9.10): synthetic traces
//! fitted to the paper's Table 3, since the shipped MSR excerpts are not its traces (both are
//! bound by one hot page).
//!
//! The model, fixed before any run with it [I]: each request independently
//! - is a read with Table 3's read share by requests;
//! - is 64 KiB with probability `(m − 4,096) / (65,536 − 4,096)`, `m` the table's mean size of
//!   its kind in bytes (Table 3's KB are 1,000 B: its request counts times its mean sizes give
//!   its totals), else 4 KiB: the two-point mix of the two sizes Figure 11 runs whose mean is
//!   the table's;
//! - if 64 KiB, continues its kind's sequential stream (one for reads, one for writes, each
//!   starting at a 64 KiB slot drawn from the seed and wrapping at the footprint's end); if
//!   4 KiB, goes to a uniformly drawn 4 KiB slot of the hot part (the first 20% of the
//!   footprint) with probability 0.8, else of the cold rest;
//!
//! over a footprint from offset 0 of the table's capacity (GB = 10⁹ B), cut at the drive's
//! logical end. MSR_proj: 12.48% reads, 22.4% of reads and 59.9% of writes at 64 KiB (the
//! correction's suggestion); MSR_hm by the same rule from its row: 35.5% reads, 5.3% of reads
//! and 6.9% of writes at 64 KiB. Replayed once, closed loop, at Table 3's request count over
//! the grid's divisor.

use std::path::Path;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use ssdlab::error::Result;
use ssdlab_trace::{Format, Op, Record};

use super::super::io_err;

/// The two request sizes of the model: Figure 11's.
pub const SMALL_BYTES: u64 = 4096;
pub const LARGE_BYTES: u64 = 65536;
/// The hot part of the footprint and the share of 4 KiB requests it gets.
pub const HOT_SPACE: f64 = 0.2;
pub const HOT_ACCESS: f64 = 0.8;

/// A row of the paper's Table 3 and the stand-in built from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StandIn {
    /// The stand-in's workload name in results.csv.
    pub name: &'static str,
    /// The paper's trace.
    pub paper: &'static str,
    pub capacity_gb: f64,
    /// The trace's requests.
    pub requests: u64,
    /// Reads over requests.
    pub read_share: f64,
    /// Mean read and write sizes, KB (1,000 B).
    pub read_kb: f64,
    pub write_kb: f64,
}

/// Table 3's MSR rows [P].
pub const STANDINS: [StandIn; 2] = [
    StandIn {
        name: "proj-standin",
        paper: "MSR_proj",
        capacity_gb: 16.0,
        requests: 4_028_000,
        read_share: 0.1248,
        read_kb: 17.83,
        write_kb: 40.91,
    },
    StandIn {
        name: "hm-standin",
        paper: "MSR_hm",
        capacity_gb: 14.0,
        requests: 3_808_000,
        read_share: 0.3550,
        read_kb: 7.36,
        write_kb: 8.33,
    },
];

impl StandIn {
    /// The share of 64 KiB requests among those of mean size `kb`: the two-point mix of 4 and
    /// 64 KiB with that mean (clamped to [0, 1]).
    pub fn large_share(kb: f64) -> f64 {
        ((kb * 1000.0 - SMALL_BYTES as f64) / (LARGE_BYTES - SMALL_BYTES) as f64).clamp(0.0, 1.0)
    }

    /// The footprint on a drive of `logical_bytes`: the table's capacity, cut at the drive's
    /// end, in whole 64 KiB slots.
    pub fn footprint_bytes(&self, logical_bytes: u64) -> u64 {
        let bytes = ((self.capacity_gb * 1e9) as u64).min(logical_bytes);
        bytes / LARGE_BYTES * LARGE_BYTES
    }

    /// `requests` requests of the model over `footprint_bytes`, drawn from `seed`.
    pub fn records(&self, requests: u64, seed: u64, footprint_bytes: u64) -> Vec<Record> {
        assert!(footprint_bytes >= LARGE_BYTES, "{}: a footprint of {footprint_bytes} B", self.name);
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let chunks = footprint_bytes / LARGE_BYTES;
        let slots = footprint_bytes / SMALL_BYTES;
        let hot = ((slots as f64 * HOT_SPACE) as u64).clamp(1, slots - 1);
        // Read and write streams, in 64 KiB slots.
        let mut next = [rng.random_range(0..chunks), rng.random_range(0..chunks)];
        let large = [Self::large_share(self.read_kb), Self::large_share(self.write_kb)];
        let mut out = Vec::with_capacity(requests as usize);
        for _ in 0..requests {
            let read = rng.random::<f64>() < self.read_share;
            let kind = usize::from(!read);
            let (offset_bytes, size_bytes) = if rng.random::<f64>() < large[kind] {
                let at = next[kind];
                next[kind] = (at + 1) % chunks;
                (at * LARGE_BYTES, LARGE_BYTES)
            } else {
                let slot = if rng.random::<f64>() < HOT_ACCESS {
                    rng.random_range(0..hot)
                } else {
                    rng.random_range(hot..slots)
                };
                (slot * SMALL_BYTES, SMALL_BYTES)
            };
            let op = if read { Op::Read } else { Op::Write };
            out.push(Record { arrival_ps: 0, device: 0, op, offset_bytes, size_bytes });
        }
        out
    }

    /// Write the stand-in (ssdlab's CSV) to `path`, unless the file already holds exactly
    /// that (a `--resume` then reuses the runs made from it).
    pub fn write(&self, path: &Path, requests: u64, seed: u64, footprint_bytes: u64) -> Result<()> {
        let mut text = Vec::new();
        ssdlab_trace::write(&self.records(requests, seed, footprint_bytes), Format::Csv, &mut text)
            .map_err(|e| io_err(path, e))?;
        if std::fs::read(path).is_ok_and(|old| old == text) {
            return Ok(());
        }
        crate::sweep::write_atomic(path, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mixes by hand: MSR_proj's reads (17,830 − 4,096) / 61,440 = 22.35% at 64 KiB (the
    /// correction's 22.4%), its writes (40,910 − 4,096) / 61,440 = 59.92% (its 60%); MSR_hm's
    /// reads 3,264 / 61,440 = 5.31%, writes 4,234 / 61,440 = 6.89%. A mean under 4 KiB is all
    /// small requests.
    #[test]
    fn the_size_mix_has_table_3s_means() {
        let [proj, hm] = STANDINS;
        let near = |x: f64, y: f64| (x - y).abs() < 1e-4;
        assert!(near(StandIn::large_share(proj.read_kb), 0.22354));
        assert!(near(StandIn::large_share(proj.write_kb), 0.59919));
        assert!(near(StandIn::large_share(hm.read_kb), 0.05313));
        assert!(near(StandIn::large_share(hm.write_kb), 0.06891));
        assert_eq!(StandIn::large_share(2.0), 0.0);
    }

    /// 200,000 requests of MSR_proj's stand-in over 16 MiB: the read share within 0.5 points
    /// of 12.48%, the mean read and write sizes within 2% of 17.83 and 40.91 KB; 64 KiB
    /// requests follow their stream (each write after the first 64 KiB write starts where the
    /// previous one ended, or at 0 after the footprint's end); about 80% of 4 KiB requests go
    /// to the first 20% of the footprint; every request lies inside it. The same seed gives
    /// the same trace, another seed another.
    #[test]
    fn the_stand_in_follows_its_model() {
        let s = STANDINS[0];
        let footprint = 16 << 20;
        let r = s.records(200_000, 7, footprint);
        let reads: Vec<&Record> = r.iter().filter(|x| x.op == Op::Read).collect();
        let writes: Vec<&Record> = r.iter().filter(|x| x.op == Op::Write).collect();
        assert!((reads.len() as f64 / r.len() as f64 - 0.1248).abs() < 0.005);
        let mean_kb = |v: &[&Record]| v.iter().map(|x| x.size_bytes as f64).sum::<f64>() / v.len() as f64 / 1000.0;
        assert!((mean_kb(&reads) / 17.83 - 1.0).abs() < 0.02, "{}", mean_kb(&reads));
        assert!((mean_kb(&writes) / 40.91 - 1.0).abs() < 0.02, "{}", mean_kb(&writes));
        let large: Vec<u64> = writes.iter().filter(|x| x.size_bytes == LARGE_BYTES).map(|x| x.offset_bytes).collect();
        assert!(large.windows(2).all(|w| w[1] == (w[0] + LARGE_BYTES) % footprint));
        let small: Vec<u64> = r.iter().filter(|x| x.size_bytes == SMALL_BYTES).map(|x| x.offset_bytes).collect();
        let hot = small.iter().filter(|&&o| o < footprint / 5).count() as f64 / small.len() as f64;
        assert!((hot - 0.8).abs() < 0.01, "{hot}");
        assert!(r.iter().all(|x| x.offset_bytes + x.size_bytes <= footprint && x.offset_bytes % SMALL_BYTES == 0));
        assert_eq!(s.records(1000, 7, footprint), r[..1000].to_vec());
        assert_ne!(s.records(1000, 8, footprint), r[..1000].to_vec());
    }

    /// Footprints: MSR_proj's 16 GB is cut at a 15.89 GB drive's end (rounded down to 64 KiB
    /// slots); MSR_hm's 14 GB = 14 × 10⁹ B rounded down to 213,623 slots of 65,536 B.
    #[test]
    fn the_footprint_is_the_tables_capacity_on_the_drive() {
        let drive = 969_932 * 16_384;
        assert_eq!(STANDINS[0].footprint_bytes(drive), drive / 65_536 * 65_536);
        assert_eq!(STANDINS[1].footprint_bytes(drive), 213_623 * 65_536);
    }
}
