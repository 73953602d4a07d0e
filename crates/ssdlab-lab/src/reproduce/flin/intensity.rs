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
//! - the write cache's DRAM, when the drive has one timed as MQSim times it
//!   (`cache.dram_model = "ddr"`: one channel, one access at a time): each page a write
//!   touches holds it for one access of the bytes written there (the regime column's drive;
//!   reads are counted as misses, which take no DRAM time);
//!
//! `intensity = max(Σ chip time / (chips × T), Σ bus time / (channels × T), Σ DRAM time / T)`
//! over the requests issued in time T (for a looping trace: one pass and its loop period). It counts
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

use ssdlab::cache::config::DramModel;
use ssdlab::cache::dram::Dram;
use ssdlab::engine::Ps;
use ssdlab::error::{Error, Result};
use ssdlab::host::{build_flows, AddressMode, FlowKind, FlowSpec, IoOp, IoRequest, Replay, Source, WorkloadSpec};
use ssdlab::nand::Geometry;
use ssdlab::Config;

/// The drive's flash resources and times, as the intensity rule counts them.
#[derive(Debug, Clone)]
pub struct DriveLoad {
    chips: f64,
    channels: f64,
    sectors_per_page: u64,
    t_read_ps: f64,
    t_program_ps: f64,
    /// One page over the channel bus.
    t_xfer_ps: f64,
    sector_bytes: u64,
    /// The write cache's DRAM when it is one channel serving accesses in turn (`ddr`); None
    /// without a cache, or with `fixed` accesses that overlap.
    dram: Option<Dram>,
}

/// Flash (and DRAM) time a stream of requests asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Demand {
    chip_ps: f64,
    bus_ps: f64,
    dram_ps: f64,
}

impl std::ops::Add for Demand {
    type Output = Demand;
    fn add(self, b: Demand) -> Demand {
        Demand { chip_ps: self.chip_ps + b.chip_ps, bus_ps: self.bus_ps + b.bus_ps, dram_ps: self.dram_ps + b.dram_ps }
    }
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
            sector_bytes: n.sector_bytes as u64,
            dram: (cfg.cache.enabled && cfg.cache.dram_model == DramModel::Ddr).then(|| Dram::from_config(&cfg.cache)),
        }
    }

    /// The time one page of operation `op` asks for, `bytes` of it written (writes only).
    fn page(&self, op: IoOp, bytes: u64) -> Demand {
        let t_mem = match op {
            IoOp::Read => self.t_read_ps,
            IoOp::Write => self.t_program_ps,
            IoOp::Trim => return Demand::default(),
        };
        // One access of the bytes written, on an idle DRAM: its busy time.
        let dram_ps = match (&self.dram, op) {
            (Some(d), IoOp::Write) => d.clone().access(0, bytes) as f64,
            _ => 0.0,
        };
        Demand { chip_ps: t_mem + self.t_xfer_ps, bus_ps: self.t_xfer_ps, dram_ps }
    }

    /// The time of one request: every page its sectors touch, with the sectors it writes
    /// in each.
    fn request(&self, r: &IoRequest) -> Demand {
        let (spp, end) = (self.sectors_per_page, r.lba + r.sectors.max(1) as u64);
        (r.lba / spp..=(end - 1) / spp)
            .map(|p| {
                let sectors = end.min((p + 1) * spp) - r.lba.max(p * spp);
                self.page(r.op, sectors * self.sector_bytes)
            })
            .fold(Demand::default(), |a, b| a + b)
    }

    /// The load of a stream that asks for `d` every `period_ps`.
    fn load(&self, d: Demand, period_ps: f64) -> f64 {
        let flash = (d.chip_ps / (self.chips * period_ps)).max(d.bus_ps / (self.channels * period_ps));
        flash.max(d.dram_ps / period_ps)
    }

    /// The intensity of `requests` issued over `period_ps`.
    pub fn intensity(&self, requests: &[IoRequest], period_ps: Ps) -> f64 {
        let d = requests.iter().map(|r| self.request(r)).fold(Demand::default(), |a, b| a + b);
        self.load(d, period_ps as f64)
    }

    /// The Poisson rate at which a synthetic flow of `bytes`-byte requests at offsets aligned
    /// to the request (whole pages above one page), reads with probability `read_ratio`, has
    /// intensity `target`.
    pub fn synthetic_rate_iops(&self, read_ratio: f64, bytes: u64, target: f64) -> f64 {
        let sectors = (bytes / self.sector_bytes).max(1) as u32;
        let one = |op| self.request(&IoRequest { arrival_ps: 0, op, lba: 0, sectors, fua: false });
        let (r, w) = (one(IoOp::Read), one(IoOp::Write));
        let per_request = Demand {
            chip_ps: read_ratio * r.chip_ps + (1.0 - read_ratio) * w.chip_ps,
            bus_ps: read_ratio * r.bus_ps + (1.0 - read_ratio) * w.bus_ps,
            dram_ps: (1.0 - read_ratio) * w.dram_ps,
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

/// One pass of a trace as the flow replays it on `cfg`'s drive (addresses wrapped to the
/// drive), and its loop period (the span plus the mean gap) at speedup 1.
pub fn trace_pass(cfg: &Config, path: &Path) -> Result<(Vec<IoRequest>, Ps)> {
    let flow = FlowSpec {
        kind: FlowKind::Trace,
        path: Some(path.to_path_buf()),
        replay: Replay::Timestamps,
        loop_trace: true,
        duration_ms: 1.0,
        address_mode: AddressMode::Wrap,
        ..FlowSpec::default()
    };
    let spec =
        WorkloadSpec { source: "reproduce flin".into(), seed: 1, precondition: None, ramp_ms: 0.0, flows: vec![flow] };
    let geo = Geometry::from_config(&cfg.nand);
    let logical_sectors =
        ssdlab::ftl::logical_pages(&geo, cfg.ftl.overprovisioning_ratio) as u64 * geo.sectors_per_page() as u64;
    let flows = build_flows(&spec, 1, logical_sectors, geo.sector_bytes)?;
    let Some(Source::Trace { requests, period_ps, .. }) = flows.into_iter().next().map(|f| f.source) else {
        unreachable!("a trace flow's source is a trace");
    };
    Ok((requests, period_ps))
}

/// A trace looped at its timestamps on `cfg`'s drive: its intensity at speedup 1 and the
/// speedup that gives intensity `target` (the load is linear in the speedup).
pub fn trace_speedup(cfg: &Config, path: &Path, target: f64) -> Result<(f64, f64)> {
    let (requests, period_ps) = trace_pass(cfg, path)?;
    let at_one = DriveLoad::of(cfg).intensity(&requests, period_ps);
    if at_one <= 0.0 {
        let file = path.display().to_string();
        return Err(Error::config(&file, 0, "reproduce flin", "the trace asks no flash time (only TRIMs?)"));
    }
    Ok((target / at_one, at_one))
}

impl DriveLoad {
    /// The least and the largest intensity of one pass of `requests` (loop period
    /// `period_ps` at speedup 1) replayed at `speedup`, over its whole windows of `window_ps`;
    /// None if the pass is shorter than one window.
    pub fn window_range(
        &self,
        requests: &[IoRequest],
        period_ps: Ps,
        speedup: f64,
        window_ps: Ps,
    ) -> Option<(f64, f64)> {
        let windows = (period_ps as f64 / speedup / window_ps as f64).floor() as usize;
        if windows == 0 {
            return None;
        }
        let mut per = vec![Demand::default(); windows];
        for r in requests {
            let w = (r.arrival_ps as f64 / speedup / window_ps as f64) as usize;
            if let Some(d) = per.get_mut(w) {
                *d = *d + self.request(r);
            }
        }
        let loads = per.iter().map(|d| self.load(*d, window_ps as f64));
        Some(loads.fold((f64::INFINITY, 0.0), |(lo, hi), x| (lo.min(x), hi.max(x))))
    }
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

    /// With MQSim's write cache (`ddr` DRAM at ssdconfig.xml's 100 MT/s, 1-byte bursts, tRCD
    /// = tCL = 13 ns), a written page holds the one DRAM channel for 26 ns + bytes / 2 × 10 ns:
    /// 8 KiB 40.986 µs, 4 KiB 20.506 µs. One 8 KiB write per ms: the DRAM's 0.040986 binds,
    /// above the chips' (750 + x) / 32,000 = 0.0242. 12 KiB written from sector 8: 4 KiB of
    /// page 0 and all of page 1, 61.492 µs. Reads take no DRAM time (counted as misses), and
    /// a `fixed` DRAM (accesses overlap) is no resource.
    #[test]
    fn the_write_caches_ddr_dram_is_a_third_resource() {
        let ddr = ["cache.enabled=true", "cache.dram_model=ddr"].map(String::from);
        let cfg = Config::from_toml_str(PRESET, "flin.toml", &ddr).unwrap();
        let d = DriveLoad::of(&cfg);
        let ms = 1_000_000_000;
        let one = d.intensity(&[req(IoOp::Write, 0, 16)], ms);
        assert!((one - 0.040986).abs() < 1e-12, "{one}");
        let split = d.intensity(&[req(IoOp::Write, 8, 24)], ms);
        assert!((split - 0.061492).abs() < 1e-12, "{split}");
        let x = 8192.0 / 333.0;
        let read = d.intensity(&[req(IoOp::Read, 0, 16)], ms);
        assert!((read - (75.0 + x) / 32_000.0).abs() < 1e-12, "{read}");
        // A pure-write synthetic flow of 8 KiB at intensity 0.2: 0.2 / 40.986 µs = 4,879.7/s.
        let rate = d.synthetic_rate_iops(0.0, 8192, 0.2);
        assert!((rate - 0.2 / 40.986e-6).abs() < 1e-6, "{rate}");
        let fixed = ["cache.enabled=true".to_string()];
        let cfg = Config::from_toml_str(PRESET, "flin.toml", &fixed).unwrap();
        let one = DriveLoad::of(&cfg).intensity(&[req(IoOp::Write, 0, 16)], ms);
        assert!((one - (750.0 + x) / 32_000.0).abs() < 1e-12, "{one}");
    }

    /// Windows of 1 ms over a pass of 3 ms at speedup 1: one 8 KiB read in the first, none
    /// in the second, two in the third: (75 + x) / 32,000 per read per ms, so the least is 0
    /// and the largest 2 (75 + x) / 32,000. At speedup 2 the pass lasts 1.5 ms: one whole
    /// window, holding the first read only (arrival 0.5 ms); at speedup 4, none.
    #[test]
    fn window_range_is_the_least_and_largest_whole_window() {
        let cfg = Config::from_toml_str(PRESET, "flin.toml", &[]).unwrap();
        let d = DriveLoad::of(&cfg);
        let x = 8192.0 / 333.0;
        let at = |us: u64| IoRequest { arrival_ps: us * 1_000_000, ..req(IoOp::Read, 0, 16) };
        let pass = [at(0), at(2_100), at(2_500)];
        let one = (75.0 + x) / 32_000.0;
        let (lo, hi) = d.window_range(&pass, 3_000_000_000, 1.0, 1_000_000_000).unwrap();
        assert!(lo == 0.0 && (hi - 2.0 * one).abs() < 1e-12, "{lo} {hi}");
        let (lo, hi) = d.window_range(&pass, 3_000_000_000, 2.0, 1_000_000_000).unwrap();
        assert!((lo - one).abs() < 1e-12 && (hi - one).abs() < 1e-12, "{lo} {hi}");
        assert_eq!(d.window_range(&pass, 3_000_000_000, 4.0, 1_000_000_000), None);
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
        let rate = d.synthetic_rate_iops(1.0, 8192, 0.2);
        assert!((rate / 64_257.0 - 1.0).abs() < 1e-4, "{rate}");
        assert!((rate / (0.2 * 32.0 / ((75.0 + x) * 1e-6)) - 1.0).abs() < 1e-12, "{rate}");
        // Half writes of 8 pages: 4 × (75 + x) + 4 × (750 + x) µs per request over 32 chips.
        let rate = d.synthetic_rate_iops(0.5, 65536, 0.25);
        assert!((rate / (0.25 * 32.0 / ((3300.0 + 8.0 * x) * 1e-6)) - 1.0).abs() < 1e-12, "{rate}");
    }
}
