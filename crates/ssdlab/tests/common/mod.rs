//! Helpers shared by the integration tests: presets, tiny trace files, independent
//! closed forms (bus and link transfer times, Desnoyers' write amplification).
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

use ssdlab::host::{Replay, WorkloadSpec};
use ssdlab::Config;

pub fn preset(name: &str) -> Config {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../presets").join(name);
    Config::load(&path, &[]).expect("preset loads")
}

/// MQSim's default drive shrunk to one plane (one channel, chip, die) of 64 blocks of 64
/// pages, 20 % spare: every logical page lands on that plane, and commands run one after
/// another, so a request's latency is a sum of its parts.
pub fn one_plane_drive() -> Config {
    let mut cfg = preset("mqsim-default.toml");
    (cfg.nand.channels, cfg.nand.chips_per_channel, cfg.nand.dies_per_chip, cfg.nand.planes_per_die) = (1, 1, 1, 1);
    (cfg.nand.blocks_per_plane, cfg.nand.pages_per_block) = (64, 64);
    cfg.ftl.overprovisioning_ratio = 0.2;
    cfg
}

/// A trace file in MQSim format: `arrival_ns device lba_sector size_sectors type(1 = read)`.
pub fn trace_file(name: &str, lines: &[(u64, u64, u32, bool)]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("ssdlab-test-{}-{name}.trace", std::process::id()));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for &(t_ns, lba, sectors, read) in lines {
        writeln!(f, "{t_ns} 0 {lba} {sectors} {}", read as u8).unwrap();
    }
    f.flush().unwrap();
    path
}

pub fn trace_workload(path: PathBuf, replay: Replay, qd: u32) -> WorkloadSpec {
    let mut wl = WorkloadSpec::single_trace(&path, replay);
    wl.flows[0].queue_depth = Some(qd);
    wl
}

/// Picoseconds `bytes` take on an ONFI bus of `rate_mt_s` and `width_bits`, rounded up.
pub fn bus_ps(bytes: u64, rate_mt_s: u64, width_bits: u64) -> u64 {
    (bytes as u128 * 8 * 1_000_000).div_ceil(rate_mt_s as u128 * width_bits as u128) as u64
}

/// Picoseconds `bytes` take on PCIe with 256 B payloads and 24 B of overhead per packet, at
/// `total_bytes_per_s`.
pub fn pcie_ps(bytes: u64, total_bytes_per_s: u64) -> u64 {
    let wire = bytes + bytes.div_ceil(256) * 24;
    (wire as u128 * 1_000_000_000_000).div_ceil(total_bytes_per_s as u128) as u64
}

/// Desnoyers' LRW write amplification for spare factor `sf`: u = e^(−α(1−u)), WAF = 1/(1−u).
pub fn lrw_waf(sf: f64) -> f64 {
    let alpha = 1.0 / (1.0 - sf);
    let mut u = 0.0f64;
    for _ in 0..500 {
        let e = (-alpha * (1.0 - u)).exp();
        u -= (u - e) / (1.0 - alpha * e);
    }
    1.0 / (1.0 - u)
}
