//! The `[hif]` section: the host protocol, NVMe arbitration and its weights, the command
//! latency, and the links (`[hif.pcie]`, `[hif.sata]`), with their checks.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[hif]` and its
//! subsections.

use serde::{Deserialize, Serialize};

use super::{Arbitration, Interface};
use crate::config::{reject, require_at_most, require_nonzero, require_range, require_times};
use crate::error::Result;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HifConfig {
    /// nvme | sata
    pub interface: Interface,
    /// round_robin | weighted_round_robin (NVMe only)
    pub arbitration: Arbitration,
    /// Weighted round-robin weights of the high, medium and low classes; urgent is strict.
    pub wrr_weights: Vec<u32>,
    /// Fixed time from a command's fetch to the device seeing it.
    pub command_latency_ns: f64,
    pub pcie: PcieConfig,
    pub sata: SataConfig,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PcieConfig {
    pub lanes: u32,
    /// Payload bandwidth of one lane in GB/s (10^9 bytes per second).
    pub lane_gb_s: f64,
    pub tlp_payload_bytes: u32,
    pub tlp_overhead_bytes: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SataConfig {
    /// Link payload bandwidth in MB/s (10^6 bytes per second).
    pub bandwidth_mb_s: f64,
}

impl Default for HifConfig {
    fn default() -> Self {
        HifConfig {
            interface: Interface::Nvme,
            arbitration: Arbitration::RoundRobin,
            wrr_weights: vec![4, 2, 1],
            command_latency_ns: 0.0,
            pcie: PcieConfig::default(),
            sata: SataConfig::default(),
        }
    }
}

impl Default for PcieConfig {
    fn default() -> Self {
        PcieConfig { lanes: 4, lane_gb_s: 1.0, tlp_payload_bytes: 256, tlp_overhead_bytes: 24 }
    }
}

impl Default for SataConfig {
    fn default() -> Self {
        SataConfig { bandwidth_mb_s: 600.0 }
    }
}

impl HifConfig {
    /// Check both links (whichever `interface` uses), the command latency and the
    /// arbitration weights. The error names the key and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        self.pcie.validate(file)?;
        require_times(file, &[("hif.command_latency_ns", self.command_latency_ns)])?;
        self.sata.validate(file)?;
        if self.wrr_weights.len() != 3 || self.wrr_weights.contains(&0) {
            return reject(
                file,
                "hif.wrr_weights",
                &self.wrr_weights,
                "needs three positive weights (high, medium, low)",
            );
        }
        Ok(())
    }
}

impl PcieConfig {
    /// Lanes and packets the link model can use, and a bandwidth whose transfer times fit in
    /// picoseconds.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_nonzero(
            file,
            &[("hif.pcie.lanes", self.lanes), ("hif.pcie.tlp_payload_bytes", self.tlp_payload_bytes)],
        )?;
        require_at_most(
            file,
            &[("hif.pcie.lanes", self.lanes, 64), ("hif.pcie.tlp_overhead_bytes", self.tlp_overhead_bytes, 4096)],
        )?;
        require_range(file, &[("hif.pcie.lane_gb_s", self.lane_gb_s, 1e-3, 1e4)])
    }
}

impl SataConfig {
    /// A bandwidth whose transfer times fit in picoseconds.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_range(file, &[("hif.sata.bandwidth_mb_s", self.bandwidth_mb_s, 1.0, 1e7)])
    }
}
