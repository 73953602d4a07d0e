//! The `[hif]` section: the host protocol, NVMe arbitration and its weights, the command
//! latency, and the links (`[hif.pcie]`, `[hif.sata]`), with their checks.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, section `[hif]` and its
//! subsections.

use serde::{Deserialize, Serialize};

use super::{Arbitration, Interface};
use crate::error::Result;
use crate::validate::{reject, require_at_most, require_nonzero, require_range, require_times};

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
    /// per_page | whole_request: when a read's data goes to the host.
    pub read_data: ReadData,
    pub nvme: NvmeConfig,
    pub pcie: PcieConfig,
    pub sata: SataConfig,
}

/// When a read's data crosses the link to the host (`hif.read_data`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReadData {
    /// Each page as soon as it leaves the flash: the transfer overlaps the request's other
    /// pages still on flash, as a drive that streams completed PRP pages does.
    PerPage,
    /// The whole request in one transfer after its last page (MQSim).
    WholeRequest,
}

/// NVMe's protocol messages on the PCIe link (`[hif.nvme]`), each a transfer framed like
/// data (payload plus `tlp_overhead_bytes` per packet).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NvmeConfig {
    /// Model the messages: the host's doorbell write, the device's read of the submission
    /// queue entry, the completion entry and the interrupt. Off: a command is at the device
    /// when it is submitted and complete when its last data arrives.
    pub messages: bool,
    /// Payload of the host's submission-queue tail doorbell write (NVMe: a 32-bit register).
    pub doorbell_bytes: u32,
    /// Payload-equivalent bytes of a memory read request (the device's request for an SQE
    /// or for write data): a read request carries a header only, framed as this many bytes.
    pub read_request_bytes: u32,
    /// Submission queue entry the host returns to the device's read.
    pub sqe_bytes: u32,
    /// Completion queue entry the device writes to host memory.
    pub cqe_bytes: u32,
    /// MSI-X interrupt write after the completion entry; 0 = no interrupt message.
    pub interrupt_bytes: u32,
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
            read_data: ReadData::PerPage,
            nvme: NvmeConfig::default(),
            pcie: PcieConfig::default(),
            sata: SataConfig::default(),
        }
    }
}

impl Default for NvmeConfig {
    fn default() -> Self {
        NvmeConfig {
            messages: false,
            doorbell_bytes: 4,
            read_request_bytes: 4,
            sqe_bytes: 64,
            cqe_bytes: 16,
            interrupt_bytes: 4,
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
        self.nvme.validate(file)?;
        if self.nvme.messages && self.interface == Interface::Sata {
            return reject(file, "hif.nvme.messages", true, "NVMe messages need hif.interface = \"nvme\"");
        }
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

impl NvmeConfig {
    /// Message sizes a packet can carry (every message but the optional interrupt has one).
    pub fn validate(&self, file: &str) -> Result<()> {
        require_nonzero(
            file,
            &[
                ("hif.nvme.doorbell_bytes", self.doorbell_bytes),
                ("hif.nvme.read_request_bytes", self.read_request_bytes),
                ("hif.nvme.sqe_bytes", self.sqe_bytes),
                ("hif.nvme.cqe_bytes", self.cqe_bytes),
            ],
        )?;
        require_at_most(
            file,
            &[
                ("hif.nvme.doorbell_bytes", self.doorbell_bytes, 4096),
                ("hif.nvme.read_request_bytes", self.read_request_bytes, 4096),
                ("hif.nvme.sqe_bytes", self.sqe_bytes, 4096),
                ("hif.nvme.cqe_bytes", self.cqe_bytes, 4096),
                ("hif.nvme.interrupt_bytes", self.interrupt_bytes, 4096),
            ],
        )
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
