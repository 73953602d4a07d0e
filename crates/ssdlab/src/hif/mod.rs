//! Host interface: NVMe multi-queue (or SATA/NCQ) arbitration and the host link.
//!
//! Owns how commands leave the hosts' submission queues for the device's tags and how long
//! data takes to cross the link. NVMe: one submission queue per flow; round-robin, or
//! weighted round-robin with the urgent class served strictly first (NVMe 1.4 §4.13).
//! SATA/NCQ: one queue in submission order and at most 32 tags. The link is full duplex:
//! one direction carries write data to the device, the other read data to the host; a
//! transfer of n bytes takes (n + ⌈n / payload⌉ × overhead) / bandwidth.
//!
//! With `hif.nvme.messages` NVMe's protocol messages share the link with data, framed the
//! same way: the host's doorbell write, the device's read request for the submission queue
//! entry and the entry itself before a command reaches the device, a read request before a
//! write's data, and the completion entry and interrupt after a request is done
//! (`HostInterface::fetch`, `to_device`, `respond`). With `hif.read_data = "whole_request"`
//! a read's data crosses in one transfer after its last page, in `respond`.

pub mod config;
pub mod queues;

use serde::{Deserialize, Serialize};

use crate::engine::Ps;
use crate::hif::config::HifConfig;

/// The host interface (`hif.interface`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interface {
    /// NVMe over PCIe: one submission queue per flow, arbitrated by `hif.arbitration`.
    Nvme,
    /// SATA with NCQ: one queue in submission order, at most 32 tags.
    Sata,
}

/// How NVMe picks the submission queue to fetch from (`hif.arbitration`; SATA has one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arbitration {
    RoundRobin,
    /// Weighted round-robin over the high, medium and low classes (`hif.wrr_weights`), the
    /// urgent class strictly first.
    WeightedRoundRobin,
}

#[derive(Debug, Clone)]
pub struct Link {
    bytes_per_s: u128,
    payload_bytes: u64,
    overhead_bytes: u64,
    sector_bytes: u64,
    /// `transfer_ps` of 0 ..= `SECTOR_TABLE` whole sectors (the hot path's sizes).
    sector_ps: Vec<Ps>,
}

/// Transfers of up to this many sectors are looked up, not computed.
const SECTOR_TABLE: u64 = 256;

impl Link {
    pub fn from_config(hif: &HifConfig, sector_bytes: u32) -> Link {
        let sector_bytes = sector_bytes as u64;
        let mut link = match hif.interface {
            Interface::Sata => Link {
                bytes_per_s: (hif.sata.bandwidth_mb_s * 1e6).round() as u128,
                payload_bytes: 8192,
                overhead_bytes: 0,
                sector_bytes,
                sector_ps: Vec::new(),
            },
            Interface::Nvme => {
                let p = &hif.pcie;
                Link {
                    bytes_per_s: (p.lane_gb_s * 1e9).round() as u128 * p.lanes as u128,
                    payload_bytes: p.tlp_payload_bytes as u64,
                    overhead_bytes: p.tlp_overhead_bytes as u64,
                    sector_bytes,
                    sector_ps: Vec::new(),
                }
            }
        };
        link.sector_ps = (0..=SECTOR_TABLE).map(|k| link.transfer_ps(k * sector_bytes)).collect();
        link
    }

    /// `transfer_ps` of `sectors` whole sectors.
    #[inline]
    pub fn transfer_sectors_ps(&self, sectors: u64) -> Ps {
        match self.sector_ps.get(sectors as usize) {
            Some(&ps) => ps,
            None => self.transfer_ps(sectors * self.sector_bytes),
        }
    }

    /// Time `bytes` of payload occupy one direction of the link, rounded up to the ps.
    #[inline]
    pub fn transfer_ps(&self, bytes: u64) -> Ps {
        let wire = bytes + bytes.div_ceil(self.payload_bytes) * self.overhead_bytes;
        (wire as u128 * 1_000_000_000_000).div_ceil(self.bytes_per_s) as Ps
    }
}

/// Which submission queue the device fetches from next.
pub struct Arbiter {
    mode: Mode,
    rr: usize,
    /// Weighted round-robin: current class (1 high, 2 medium, 3 low) and its credit left.
    class: u8,
    credit: u32,
    weights: [u32; 3],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    RoundRobin,
    Weighted,
    /// SATA: one queue in submission order.
    Single,
}

impl Arbiter {
    pub fn from_config(hif: &HifConfig) -> Arbiter {
        let mode = match (hif.interface, hif.arbitration) {
            (Interface::Sata, _) => Mode::Single,
            (Interface::Nvme, Arbitration::RoundRobin) => Mode::RoundRobin,
            (Interface::Nvme, Arbitration::WeightedRoundRobin) => Mode::Weighted,
        };
        let w = &hif.wrr_weights;
        Arbiter { mode, rr: 0, class: 1, credit: w[0], weights: [w[0], w[1], w[2]] }
    }

    /// Pick a flow with a waiting command. `head_seq[f]` is the submission order of flow f's
    /// oldest waiting command (None if its queue is empty); `priority[f]` its class.
    pub fn pick(&mut self, head_seq: &[Option<u64>], priority: &[u8]) -> Option<usize> {
        let n = head_seq.len();
        match self.mode {
            Mode::Single => (0..n).filter_map(|f| head_seq[f].map(|s| (s, f))).min().map(|(_, f)| f),
            Mode::RoundRobin => {
                let f = (0..n).map(|k| (self.rr + k) % n).find(|&f| head_seq[f].is_some())?;
                self.rr = (f + 1) % n;
                Some(f)
            }
            Mode::Weighted => {
                // Urgent: strict priority.
                if let Some(f) = (0..n).map(|k| (self.rr + k) % n).find(|&f| head_seq[f].is_some() && priority[f] == 0)
                {
                    self.rr = (f + 1) % n;
                    return Some(f);
                }
                for _ in 0..6 {
                    if self.credit > 0 {
                        let class = self.class;
                        if let Some(f) =
                            (0..n).map(|k| (self.rr + k) % n).find(|&f| head_seq[f].is_some() && priority[f] == class)
                        {
                            self.rr = (f + 1) % n;
                            self.credit -= 1;
                            return Some(f);
                        }
                    }
                    self.class = if self.class == 3 { 1 } else { self.class + 1 };
                    self.credit = self.weights[self.class as usize - 1];
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The config sections these tests set (the whole `Config` is composed above this layer).
    #[derive(Default)]
    struct Sections {
        pub hif: crate::hif::config::HifConfig,
        pub nand: crate::nand::config::NandConfig,
    }

    #[test]
    fn pcie_transfer_counts_packet_overhead() {
        let c = Sections::default(); // 4 lanes × 1 GB/s, 256 B payload + 24 B overhead
        let link = Link::from_config(&c.hif, c.nand.sector_bytes);
        // 4096 B = 16 packets: 4096 + 16 × 24 = 4480 wire bytes at 4 × 10^9 B/s = 1120 ns.
        assert_eq!(link.transfer_ps(4096), 1_120_000);
        // 100 B = 1 packet: 124 wire bytes = 31 ns.
        assert_eq!(link.transfer_ps(100), 31_000);
    }

    #[test]
    fn weighted_round_robin_gives_weighted_shares() {
        let mut c = Sections::default();
        c.hif.arbitration = Arbitration::WeightedRoundRobin;
        c.hif.wrr_weights = vec![4, 2, 1];
        let mut a = Arbiter::from_config(&c.hif);
        let prio = [1u8, 2, 3];
        let busy = [Some(0), Some(0), Some(0)];
        let mut count = [0; 3];
        for _ in 0..700 {
            count[a.pick(&busy, &prio).unwrap()] += 1;
        }
        assert_eq!(count, [400, 200, 100]);
        // Urgent is served before anything else.
        let prio = [1u8, 0, 3];
        assert_eq!(a.pick(&busy, &prio), Some(1));
    }
}
