//! How hard a flow loads the drive on its own: the rule that sets each trace's replay speedup
//! (and each synthetic flow's arrival rate) in the FLIN reproduction's open-loop mixes.
//!
//! FLIN (ISCA 2018, §7) classes flows as high- or low-intensity. ssdlab's traces are short
//! excerpts whose own rates differ by a factor of 400 (Financial1: 38 requests/s; TPC-C:
//! 51,000), so each is replayed at its timestamps × a speedup chosen to give a stated
//! intensity. The intensity of a request stream is the busier of the drive's two flash
//! resources, as a fraction of what the drive has:
//!
//! - chips: each page a request touches holds its chip for the array time (tR or tPROG,
//!   the mean over page types) plus one page's transfer on the bus;
//! - channels: each page holds its channel for one page's transfer;
//!
//! `intensity = max(Σ chip time / (chips × T), Σ bus time / (channels × T))` over the
//! requests issued in time T (for a looping trace: one pass and its loop period). It counts
//! every page as its own single-plane command, so a drive that joins pages into multi-plane
//! commands serves more than this; it is a yardstick the same for every flow, not a
//! prediction of latency. TRIMs cost nothing.
//!
//! The targets follow from one rule, [`class_intensities`]: the heaviest mix the experiment
//! runs offers the drive a stated share of it (0.8 in the main setting). A mix whose flows
//! together ask for more than the drive serves has queues that grow for the whole run; its
//! slowdowns are set by the run's length, and no scheduler can bound them, so such a mix
//! measures the run, not the scheduler.

use std::path::Path;

use ssdlab::engine::Ps;
use ssdlab::error::{Error, Result};
use ssdlab::host::{build_flows, AddressMode, FlowKind, FlowSpec, IoOp, IoRequest, Replay, Source, WorkloadSpec};
use ssdlab::nand::Geometry;
use ssdlab::Config;

/// The drive's flash resources and times, as the intensity rule counts them.
#[derive(Debug, Clone, Copy)]
pub struct DriveLoad {
    chips: f64,
    channels: f64,
    sectors_per_page: u64,
    t_read_ps: f64,
    t_program_ps: f64,
    /// One page over the channel bus.
    t_xfer_ps: f64,
}

/// Flash time a stream of requests asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Demand {
    chip_ps: f64,
    bus_ps: f64,
}

impl DriveLoad {
    pub fn of(cfg: &Config) -> DriveLoad {
        let n = &cfg.nand;
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        DriveLoad {
            chips: (n.channels * n.chips_per_channel) as f64,
            channels: n.channels as f64,
            sectors_per_page: (n.page_bytes / n.sector_bytes) as u64,
            t_read_ps: mean(&n.t_read_us) * 1e6,
            t_program_ps: mean(&n.t_program_us) * 1e6,
            // bytes × 8 bits / (MT/s × bits per transfer) is in µs.
            t_xfer_ps: n.page_bytes as f64 * 8.0 / (n.bus.rate_mt_s * n.bus.width_bits as f64) * 1e6,
        }
    }

    /// The flash time of `pages` pages of operation `op`.
    fn pages(&self, op: IoOp, pages: f64) -> Demand {
        let t_mem = match op {
            IoOp::Read => self.t_read_ps,
            IoOp::Write => self.t_program_ps,
            IoOp::Trim => return Demand::default(),
        };
        Demand { chip_ps: pages * (t_mem + self.t_xfer_ps), bus_ps: pages * self.t_xfer_ps }
    }

    /// The flash time of one request: every page its sectors touch.
    fn request(&self, r: &IoRequest) -> Demand {
        let first = r.lba / self.sectors_per_page;
        let last = (r.lba + r.sectors.max(1) as u64 - 1) / self.sectors_per_page;
        self.pages(r.op, (last - first + 1) as f64)
    }

    /// The load of a stream that asks for `d` every `period_ps`.
    fn load(&self, d: Demand, period_ps: f64) -> f64 {
        (d.chip_ps / (self.chips * period_ps)).max(d.bus_ps / (self.channels * period_ps))
    }

    /// The intensity of `requests` issued over `period_ps`.
    pub fn intensity(&self, requests: &[IoRequest], period_ps: Ps) -> f64 {
        let d = requests
            .iter()
            .map(|r| self.request(r))
            .fold(Demand::default(), |a, b| Demand { chip_ps: a.chip_ps + b.chip_ps, bus_ps: a.bus_ps + b.bus_ps });
        self.load(d, period_ps as f64)
    }

    /// The Poisson rate at which a synthetic flow of `pages` pages per request, reads with
    /// probability `read_ratio`, has intensity `target`.
    pub fn synthetic_rate_iops(&self, read_ratio: f64, pages: u64, target: f64) -> f64 {
        let (r, w) = (self.pages(IoOp::Read, pages as f64), self.pages(IoOp::Write, pages as f64));
        let per_request = Demand {
            chip_ps: read_ratio * r.chip_ps + (1.0 - read_ratio) * w.chip_ps,
            bus_ps: read_ratio * r.bus_ps + (1.0 - read_ratio) * w.bus_ps,
        };
        // One request per second has load `load(per_request, 1 s)`; the load is linear in the rate.
        target / self.load(per_request, 1e12)
    }
}

/// The intensities `(high, low)` of a high- and a low-interference flow alone such that the
/// heaviest mix the experiment runs offers the drive `budget`: mixes of `flows` flows, up to
/// `max_high` of them high-interference, a low flow at `low_fraction` of a high one. A mix of k
/// high flows offers `mix_load` = k h + (flows − k) f h, which grows with k (f ≤ 1), so the
/// heaviest has k = `max_high` and h = budget / (max_high + (flows − max_high) f).
pub fn class_intensities(flows: usize, max_high: usize, budget: f64, low_fraction: f64) -> (f64, f64) {
    assert!(max_high <= flows && flows > 0, "a mix of {flows} flows cannot hold {max_high} high ones");
    assert!((0.0..=1.0).contains(&low_fraction), "a low flow is lighter than a high one: {low_fraction}");
    let high = budget / (max_high as f64 + (flows - max_high) as f64 * low_fraction);
    (high, high * low_fraction)
}

/// What a mix of `flows` flows, `high_flows` of them high-interference, offers the drive when
/// a high flow alone has intensity `high` and a low one `low` (intensities add: each is a share
/// of the same flash time).
pub fn mix_load(flows: usize, high_flows: usize, (high, low): (f64, f64)) -> f64 {
    high_flows as f64 * high + (flows - high_flows) as f64 * low
}

/// A trace looped at its timestamps on `cfg`'s drive: its intensity at speedup 1 and the
/// speedup that gives intensity `target` (the load is linear in the speedup).
pub fn trace_speedup(cfg: &Config, path: &Path, target: f64) -> Result<(f64, f64)> {
    let flow = FlowSpec {
        kind: FlowKind::Trace,
        path: Some(path.to_path_buf()),
        replay: Replay::Timestamps,
        loop_trace: true,
        duration_ms: 1.0,
        address_mode: AddressMode::Wrap,
        ..FlowSpec::default()
    };
    let spec = WorkloadSpec { source: "reproduce flin".into(), seed: 1, precondition: None, flows: vec![flow] };
    let geo = Geometry::from_config(&cfg.nand);
    let logical_sectors =
        ssdlab::ftl::logical_pages(&geo, cfg.ftl.overprovisioning_ratio) as u64 * geo.sectors_per_page() as u64;
    let flows = build_flows(&spec, 1, logical_sectors, geo.sector_bytes)?;
    let Some(Source::Trace { requests, period_ps, .. }) = flows.into_iter().next().map(|f| f.source) else {
        unreachable!("a trace flow's source is a trace");
    };
    let at_one = DriveLoad::of(cfg).intensity(&requests, period_ps);
    if at_one <= 0.0 {
        let file = path.display().to_string();
        return Err(Error::config(&file, 0, "reproduce flin", "the trace asks no flash time (only TRIMs?)"));
    }
    Ok((target / at_one, at_one))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRESET: &str = include_str!("../../../../../presets/flin.toml");

    fn req(op: IoOp, lba: u64, sectors: u32) -> IoRequest {
        IoRequest { arrival_ps: 0, op, lba, sectors, fua: false }
    }

    /// The flin preset: 32 chips on 8 channels, 8 KiB pages of 16 sectors, tR 75 µs,
    /// tPROG 750 µs, 333 MT/s × 8 bits: a page crosses the bus in 8192 / 333 µs = 24.6006 µs.
    #[test]
    fn intensity_is_the_busier_resource_over_the_period() {
        let cfg = Config::from_toml_str(PRESET, "flin.toml", &[]).unwrap();
        let d = DriveLoad::of(&cfg);
        let x = 8192.0 / 333.0;
        // One 8 KiB read and one 8 KiB write per ms: chips (75 + x) + (750 + x) µs over
        // 32 × 1000 µs; the channels 2x over 8 × 1000 µs, less.
        let two = [req(IoOp::Read, 0, 16), req(IoOp::Write, 16, 16)];
        let want = (825.0 + 2.0 * x) / 32_000.0;
        assert!((d.intensity(&two, 1_000_000_000) / want - 1.0).abs() < 1e-12);
        // 32 sectors from sector 8 touch pages 0, 1 and 2: three reads.
        let three = [req(IoOp::Read, 8, 32)];
        let want = 3.0 * (75.0 + x) / 32_000.0;
        assert!((d.intensity(&three, 1_000_000_000) / want - 1.0).abs() < 1e-12);
        // A trim asks nothing.
        assert_eq!(d.intensity(&[req(IoOp::Trim, 0, 16)], 1_000_000_000), 0.0);
    }

    /// Four flows per mix, up to all four high, 0.8 of the drive, a low flow a tenth of a high
    /// one: 0.8 / 4 = 0.2 and 0.02; the groups offer 4 × 0.02 = 0.08, 0.2 + 3 × 0.02 = 0.26,
    /// 0.44, 0.62 and 0.8. With at most two high flows per mix: 0.8 / (2 + 2 × 0.1) = 4 / 11.
    #[test]
    fn the_heaviest_mix_offers_the_budget() {
        let (h, l) = class_intensities(4, 4, 0.8, 0.1);
        assert!((h - 0.2).abs() < 1e-15 && (l - 0.02).abs() < 1e-15, "{h} {l}");
        for (k, want) in [0.08, 0.26, 0.44, 0.62, 0.8].into_iter().enumerate() {
            assert!((mix_load(4, k, (h, l)) - want).abs() < 1e-12, "{k}: {}", mix_load(4, k, (h, l)));
        }
        let (h, l) = class_intensities(4, 2, 0.8, 0.1);
        assert!((h - 4.0 / 11.0).abs() < 1e-15 && (l - 0.4 / 11.0).abs() < 1e-15, "{h} {l}");
        assert!((mix_load(4, 2, (h, l)) - 0.8).abs() < 1e-12);
        // The previous pacing, 0.5 per high flow: the heaviest mix offers 2 drives.
        assert!((mix_load(4, 4, (0.5, 0.05)) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_synthetic_rate_and_a_stream_of_that_rate_have_the_target_intensity() {
        let cfg = Config::from_toml_str(PRESET, "flin.toml", &[]).unwrap();
        let d = DriveLoad::of(&cfg);
        // Reads only, 1 page: the chips' (75 + x) µs / 32 against the channels' x / 8:
        // the chips bind, 32 × 0.2 / (75 + x) µs = 64,257 reads/s for intensity 0.2.
        let x = 8192.0 / 333.0;
        let rate = d.synthetic_rate_iops(1.0, 1, 0.2);
        assert!((rate / 64_257.0 - 1.0).abs() < 1e-4, "{rate}");
        assert!((rate / (0.2 * 32.0 / ((75.0 + x) * 1e-6)) - 1.0).abs() < 1e-12, "{rate}");
        // Half writes of 8 pages: 4 × (75 + x) + 4 × (750 + x) µs per request over 32 chips.
        let rate = d.synthetic_rate_iops(0.5, 8, 0.25);
        assert!((rate / (0.25 * 32.0 / ((3300.0 + 8.0 * x) * 1e-6)) - 1.0).abs() < 1e-12, "{rate}");
    }
}
