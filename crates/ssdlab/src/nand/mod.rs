//! NAND flash: geometry, addresses, cell timing and the ONFI channel bus.
//!
//! Owns the physical layout (channel → chip → die → plane → block → page), how a flat
//! physical page number decomposes into it, the array latency of each page type and the
//! time a transfer occupies the channel bus. [`phy`] plays commands out on chips and channel
//! buses; it makes no decisions: the TSU (`tsu`) decides what a chip does next.
//!
//! Addresses are flat integers so that per-page state lives in plain arrays:
//! `plane = ((channel × chips + chip) × dies + die) × planes + plane_in_die`,
//! `block = plane × blocks_per_plane + block_in_plane`, `ppn = block × pages_per_block + page`.

pub mod config;
pub mod phy;
pub mod timeline;

use crate::nand::config::{BusTiming, NandConfig, NvDdr2Config, ProgramDataIn};
use crate::validate::{ns_to_ps, us_to_ps};

/// Flat physical page number.
pub type Ppn = u32;
/// Flat logical page number.
pub type Lpn = u32;
/// Marks "no page" in maps.
pub const NONE: u32 = u32::MAX;

/// Operation a flash command performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FlashOp {
    Read,
    Program,
    Erase,
    /// Copyback: read into the page register and program to another page of the same plane,
    /// without moving data over the bus.
    Copyback,
}

/// Division by a divisor fixed at load time, without a `div` instruction: a shift for powers
/// of two, else Lemire's multiply-high method (exact for every u32 numerator).
#[derive(Debug, Clone, Copy)]
pub struct Divisor {
    d: u32,
    magic: u64,
    shift: u32,
    pow2: bool,
}

impl Divisor {
    pub fn new(d: u32) -> Divisor {
        assert!(d > 0, "division by zero");
        let pow2 = d.is_power_of_two();
        let magic = if pow2 { 0 } else { u64::MAX / d as u64 + 1 };
        Divisor { d, magic, shift: d.trailing_zeros(), pow2 }
    }
    #[inline]
    pub fn quotient(self, n: u32) -> u32 {
        if self.pow2 {
            n >> self.shift
        } else {
            ((self.magic as u128 * n as u128) >> 64) as u32
        }
    }
    #[inline]
    pub fn remainder(self, n: u32) -> u32 {
        if self.pow2 {
            n & (self.d - 1)
        } else {
            let low = self.magic.wrapping_mul(n as u64);
            ((low as u128 * self.d as u128) >> 64) as u32
        }
    }
}

/// The drive's addressing. A "page" here is what the layers above the PHY map and move:
/// the flash page, or with `ftl.mapping_unit_bytes` below it a mapping unit ([`Geometry::
/// with_units`]): then `page_bytes` is the unit, `pages_per_block` counts unit slots (flash
/// pages × `units_per_page`), a `Ppn` names a slot, and [`Geometry::flash_page`] gives the
/// flash page offset a slot is in (timing by page type, multi-plane offsets).
#[derive(Debug, Clone)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub sector_bytes: u32,
    /// Mapping units per flash page (1: the page is the unit), a power of two.
    pub units_per_page: u32,
    /// log2 of `units_per_page`: a slot's flash page is one shift away.
    upp_shift: u32,
    div_ppb: Divisor,
    div_bpp: Divisor,
    div_ppc: Divisor,
    div_ppd: Divisor,
    div_cpc: Divisor,
    div_ch: Divisor,
    div_dpc: Divisor,
    div_ppp: Divisor,
    /// Derived sizes, kept so the hot path does not divide or multiply for them.
    sectors_per_page: u32,
    planes_per_chip: u32,
}

impl Geometry {
    pub fn from_config(n: &NandConfig) -> Geometry {
        Geometry {
            channels: n.channels,
            chips_per_channel: n.chips_per_channel,
            dies_per_chip: n.dies_per_chip,
            planes_per_die: n.planes_per_die,
            blocks_per_plane: n.blocks_per_plane,
            pages_per_block: n.pages_per_block,
            page_bytes: n.page_bytes,
            sector_bytes: n.sector_bytes,
            units_per_page: 1,
            upp_shift: 0,
            div_ppb: Divisor::new(n.pages_per_block),
            div_bpp: Divisor::new(n.blocks_per_plane),
            div_ppc: Divisor::new(n.dies_per_chip * n.planes_per_die),
            div_ppd: Divisor::new(n.planes_per_die),
            div_cpc: Divisor::new(n.chips_per_channel),
            div_ch: Divisor::new(n.channels),
            div_dpc: Divisor::new(n.dies_per_chip),
            div_ppp: Divisor::new(n.blocks_per_plane * n.pages_per_block),
            sectors_per_page: n.page_bytes / n.sector_bytes,
            planes_per_chip: n.dies_per_chip * n.planes_per_die,
        }
    }
    /// The same drive mapped in units of `unit_bytes` (a divisor of the page): each flash
    /// page holds `page_bytes / unit_bytes` slots, each addressed like a page.
    pub fn with_units(&self, unit_bytes: u32) -> Geometry {
        let k = self.page_bytes / unit_bytes;
        assert!(k.is_power_of_two() && self.page_bytes.is_multiple_of(unit_bytes), "a page holds 2^n units");
        let ppb = self.pages_per_block * k;
        Geometry {
            pages_per_block: ppb,
            page_bytes: unit_bytes,
            units_per_page: k,
            upp_shift: k.trailing_zeros(),
            div_ppb: Divisor::new(ppb),
            div_ppp: Divisor::new(self.blocks_per_plane * ppb),
            sectors_per_page: unit_bytes / self.sector_bytes,
            ..self.clone()
        }
    }

    /// The flash page offset (within its block) of page or slot offset `page_in_block`.
    #[inline]
    pub fn flash_page(&self, page_in_block: u32) -> u32 {
        page_in_block >> self.upp_shift
    }

    /// Fast divisors of the four resource levels: channels, chips per channel, dies per chip,
    /// planes per die.
    pub fn level_divisors(&self) -> [Divisor; 4] {
        [self.div_ch, self.div_cpc, self.div_dpc, self.div_ppd]
    }
    pub fn chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }
    #[inline]
    pub fn planes_per_chip(&self) -> u32 {
        self.planes_per_chip
    }
    pub fn planes(&self) -> u32 {
        self.chips() * self.planes_per_chip()
    }
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    pub fn pages(&self) -> u32 {
        self.blocks() * self.pages_per_block
    }
    pub fn pages_per_plane(&self) -> u32 {
        self.blocks_per_plane * self.pages_per_block
    }
    #[inline]
    pub fn sectors_per_page(&self) -> u32 {
        self.sectors_per_page
    }
    pub fn capacity_bytes(&self) -> u64 {
        self.pages() as u64 * self.page_bytes as u64
    }

    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        self.div_ppb.quotient(ppn)
    }
    #[inline]
    pub fn page_in_block(&self, ppn: Ppn) -> u32 {
        self.div_ppb.remainder(ppn)
    }
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        self.div_bpp.quotient(block)
    }
    #[inline]
    pub fn plane_of(&self, ppn: Ppn) -> u32 {
        self.plane_of_block(self.block_of(ppn))
    }
    #[inline]
    pub fn chip_of_plane(&self, plane: u32) -> u32 {
        self.div_ppc.quotient(plane)
    }
    #[inline]
    pub fn channel_of_chip(&self, chip: u32) -> u32 {
        self.div_cpc.quotient(chip)
    }
    /// Die index within its chip.
    #[inline]
    pub fn die_in_chip(&self, plane: u32) -> u32 {
        self.div_ppd.quotient(self.div_ppc.remainder(plane))
    }
    /// `x` mod pages per plane (a page offset within a plane).
    #[inline]
    pub fn wrap_in_plane(&self, x: u32) -> u32 {
        self.div_ppp.remainder(x)
    }
    /// Die of a plane given by its index within the chip.
    #[inline]
    pub fn die_of_plane_in_chip(&self, plane_in_chip: u32) -> u32 {
        self.div_ppd.quotient(plane_in_chip)
    }
    /// Plane index within its chip (die × planes_per_die + plane_in_die).
    #[inline]
    pub fn plane_in_chip(&self, plane: u32) -> u32 {
        self.div_ppc.remainder(plane)
    }
    #[inline]
    pub fn block_in_plane(&self, block: u32) -> u32 {
        self.div_bpp.remainder(block)
    }
    /// Flat plane index from its coordinates.
    pub fn plane_index(&self, channel: u32, chip: u32, die: u32, plane: u32) -> u32 {
        ((channel * self.chips_per_channel + chip) * self.dies_per_chip + die) * self.planes_per_die + plane
    }
    pub fn ppn(&self, plane: u32, block_in_plane: u32, page: u32) -> Ppn {
        (plane * self.blocks_per_plane + block_in_plane) * self.pages_per_block + page
    }
}

/// Cell and bus timing, all in integer picoseconds.
#[derive(Debug, Clone)]
pub struct Timing {
    pub t_read_ps: Vec<u64>,
    pub t_program_ps: Vec<u64>,
    pub t_erase_ps: u64,
    pub cmd_addr_cycle_ps: u64,
    pub read_cycles: u64,
    pub program_cycles: u64,
    pub erase_cycles: u64,
    /// Bus throughput as a rational: bits per transfer × transfers per second.
    bus_bits_per_s: u128,
    /// Page types per block cycle (the page type of an offset is offset mod this).
    page_types: Divisor,
    sector_bytes: u64,
    /// `bus_transfer_ps` of 0 ..= one die's worth of sectors (the hot path's sizes).
    sector_xfer_ps: Vec<u64>,
    pub t_suspend_ps: u64,
    pub t_resume_ps: u64,
    /// NV-DDR2 delays when `nand.bus.timing = "nv_ddr2"`; None: simple cycle counts.
    nv_ddr2: Option<NvDdr2Ps>,
    /// `nand.bus.program_data_in = "written_sectors"`.
    pub written_sectors_only: bool,
}

/// `nand.bus.nv_ddr2` in picoseconds.
#[derive(Debug, Clone, Copy)]
struct NvDdr2Ps {
    cs: u64,
    wc: u64,
    wb: u64,
    rr: u64,
    dbsy: u64,
    adl: u64,
    wpst: u64,
    wpsth: u64,
    cals: u64,
}

impl NvDdr2Ps {
    fn from_config(c: &NvDdr2Config) -> NvDdr2Ps {
        NvDdr2Ps {
            cs: ns_to_ps(c.t_cs_ns),
            wc: ns_to_ps(c.t_wc_ns),
            wb: ns_to_ps(c.t_wb_ns),
            rr: ns_to_ps(c.t_rr_ns),
            dbsy: ns_to_ps(c.t_dbsy_ns),
            adl: ns_to_ps(c.t_adl_ns),
            wpst: ns_to_ps(c.t_wpst_ns),
            wpsth: ns_to_ps(c.t_wpsth_ns),
            cals: ns_to_ps(c.t_cals_ns),
        }
    }

    /// The command part of one die's bus phase with `planes` planes (ONFI NV-DDR2, with the
    /// terms MQSim counts): chip-enable setup once, six write cycles per plane of a read or
    /// program (command, five address) and four of an erase, a dummy busy (tDBSY) between
    /// planes, and the R/B# delay tWB after each plane's confirm — for a read only after the
    /// last, followed by tRR. A program's planes each add tADL and the postamble tWPST; its
    /// page data is counted apart.
    fn die_phase_ps(&self, op: FlashOp, planes: u64) -> u64 {
        let gaps = planes - 1;
        match op {
            FlashOp::Read => self.cs + planes * 6 * self.wc + gaps * self.dbsy + self.wb + self.rr,
            FlashOp::Program => {
                // Planes before the last: five write cycles (80h, address; the 11h confirm
                // is counted with the next plane's first cycle) and ALE/CLE setup; the last:
                // six cycles and the postamble hold.
                let first = 5 * self.wc + self.adl + self.wpst + self.cals + self.wb + self.dbsy;
                let last = 6 * self.wc + self.adl + self.wpst + self.wpsth + self.wb;
                self.cs + gaps * first + last
            }
            FlashOp::Erase => self.cs + planes * (4 * self.wc + self.wb) + gaps * self.dbsy,
            FlashOp::Copyback => self.die_phase_ps(FlashOp::Read, planes) + self.die_phase_ps(FlashOp::Program, planes),
        }
    }
}

impl Timing {
    pub fn from_config(n: &NandConfig) -> Timing {
        let ideal = n.ideal == config::Ideal::NoRwInterference;
        // Transfers per second is rate_mt_s × 10^6; keep it exact for fractional rates
        // written with up to three decimals (333.333 MT/s).
        let milli_mt = (n.bus.rate_mt_s * 1000.0).round() as u128;
        let mut t = Timing {
            t_read_ps: n.t_read_us.iter().map(|&t| us_to_ps(t)).collect(),
            t_program_ps: n.t_program_us.iter().map(|&t| us_to_ps(t)).collect(),
            t_erase_ps: us_to_ps(n.t_erase_us),
            cmd_addr_cycle_ps: ns_to_ps(n.bus.cmd_addr_cycle_ns),
            read_cycles: n.bus.read_cycles as u64,
            program_cycles: n.bus.program_cycles as u64,
            erase_cycles: n.bus.erase_cycles as u64,
            bus_bits_per_s: milli_mt * 1000 * n.bus.width_bits as u128,
            t_suspend_ps: if ideal { 0 } else { us_to_ps(n.suspension.t_suspend_us) },
            t_resume_ps: if ideal { 0 } else { us_to_ps(n.suspension.t_resume_us) },
            page_types: Divisor::new(n.t_read_us.len() as u32),
            sector_bytes: n.sector_bytes as u64,
            sector_xfer_ps: Vec::new(),
            nv_ddr2: (n.bus.timing == BusTiming::NvDdr2).then(|| NvDdr2Ps::from_config(&n.bus.nv_ddr2)),
            written_sectors_only: n.bus.program_data_in == ProgramDataIn::WrittenSectors,
        };
        let die_sectors = (n.page_bytes / n.sector_bytes * n.planes_per_die) as u64;
        t.sector_xfer_ps = (0..=die_sectors).map(|k| t.bus_transfer_ps(k * t.sector_bytes)).collect();
        t
    }

    /// Page type (0 = LSB) of a page offset within its block.
    #[inline]
    pub fn page_type(&self, page_in_block: u32) -> usize {
        self.page_types.remainder(page_in_block) as usize
    }

    #[inline]
    pub fn t_read(&self, page_in_block: u32) -> u64 {
        self.t_read_ps[self.page_type(page_in_block)]
    }

    #[inline]
    pub fn t_program(&self, page_in_block: u32) -> u64 {
        self.t_program_ps[self.page_type(page_in_block)]
    }

    /// Time `bytes` occupy the channel bus, rounded up to the picosecond:
    /// bytes × 8 / width transfers at rate transfers per second.
    #[inline]
    pub fn bus_transfer_ps(&self, bytes: u64) -> u64 {
        let num = bytes as u128 * 8 * 1_000_000_000_000u128;
        num.div_ceil(self.bus_bits_per_s) as u64
    }

    /// `bus_transfer_ps` of `sectors` whole sectors, from a table for the usual sizes.
    #[inline]
    pub fn bus_transfer_sectors_ps(&self, sectors: u64) -> u64 {
        match self.sector_xfer_ps.get(sectors as usize) {
            Some(&ps) => ps,
            None => self.bus_transfer_ps(sectors * self.sector_bytes),
        }
    }

    /// Command and address phase of one plane's part of a command.
    #[inline]
    pub fn cmd_addr_ps(&self, op: FlashOp) -> u64 {
        let cycles = match op {
            FlashOp::Read => self.read_cycles,
            FlashOp::Program => self.program_cycles,
            FlashOp::Erase => self.erase_cycles,
            FlashOp::Copyback => self.read_cycles + self.program_cycles,
        };
        cycles * self.cmd_addr_cycle_ps
    }

    /// The command part of one die's bus phase when `planes` of its planes are in the
    /// command (page data in not included).
    #[inline]
    pub fn die_phase_ps(&self, op: FlashOp, planes: u64) -> u64 {
        match &self.nv_ddr2 {
            None => planes * self.cmd_addr_ps(op),
            Some(nv) => nv.die_phase_ps(op, planes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The config sections these tests set (the whole `Config` is composed above this layer).
    #[derive(Default)]
    struct Sections {
        pub nand: crate::nand::config::NandConfig,
    }

    fn timing_at(rate: f64, width: u32) -> Timing {
        let mut c = Sections::default();
        c.nand.bus.rate_mt_s = rate;
        c.nand.bus.width_bits = width;
        Timing::from_config(&c.nand)
    }

    #[test]
    fn bus_rate_is_exact_at_any_rate() {
        // 8 KiB over an 8-bit bus is 8192 transfers; at R MT/s each takes 10^6/R ps.
        for (rate, expect_ps) in [
            (333.0, (8192u128 * 1_000_000).div_ceil(333) as u64),
            (800.0, 8192 * 1_000_000 / 800),
            (1600.0, 8192 * 1_000_000 / 1600),
            (3600.0, (8192u128 * 1_000_000).div_ceil(3600) as u64),
        ] {
            assert_eq!(timing_at(rate, 8).bus_transfer_ps(8192), expect_ps, "rate {rate}");
        }
        // A 16-bit bus halves the time.
        assert_eq!(timing_at(800.0, 16).bus_transfer_ps(8192), 8192 * 1_000_000 / 800 / 2);
        // 333 MT/s: 24,600,601 ps, not 24,576,000 (which a rounded 3 ns cycle would give).
        assert_eq!(timing_at(333.0, 8).bus_transfer_ps(8192), 24_600_601);
    }

    #[test]
    fn address_decomposition_round_trips() {
        let mut c = Sections::default();
        c.nand.channels = 3;
        c.nand.chips_per_channel = 2;
        c.nand.dies_per_chip = 2;
        c.nand.planes_per_die = 4;
        c.nand.blocks_per_plane = 16;
        c.nand.pages_per_block = 8;
        let g = Geometry::from_config(&c.nand);
        let plane = g.plane_index(2, 1, 1, 3);
        assert_eq!(plane, ((2 * 2 + 1) * 2 + 1) * 4 + 3);
        let ppn = g.ppn(plane, 5, 7);
        assert_eq!(g.plane_of(ppn), plane);
        assert_eq!(g.page_in_block(ppn), 7);
        assert_eq!(g.block_in_plane(g.block_of(ppn)), 5);
        assert_eq!(g.chip_of_plane(plane), 2 * 2 + 1);
        assert_eq!(g.channel_of_chip(g.chip_of_plane(plane)), 2);
        assert_eq!(g.die_in_chip(plane), 1);
        assert_eq!(g.plane_in_chip(plane), 7);
    }

    #[test]
    fn fast_division_is_exact() {
        for d in [1u32, 2, 3, 5, 7, 64, 96, 100, 128, 255, 2048, 4095, 65535, 1 << 20, u32::MAX] {
            let div = Divisor::new(d);
            let mut x = 0x9E37_79B9u32;
            for n in
                [0u32, 1, d - 1, d, d.wrapping_add(1), u32::MAX, u32::MAX - 1].into_iter().chain((0..2000).map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x
                }))
            {
                assert_eq!(div.quotient(n), n / d, "{n} / {d}");
                assert_eq!(div.remainder(n), n % d, "{n} % {d}");
            }
        }
    }

    #[test]
    fn page_types_cycle_through_the_block() {
        let mut c = Sections::default();
        c.nand.cell = crate::nand::config::CellType::Tlc;
        c.nand.t_read_us = vec![50.0, 70.0, 90.0];
        c.nand.t_program_us = vec![500.0, 2000.0, 3000.0];
        let t = Timing::from_config(&c.nand);
        assert_eq!(t.t_read(0), 50_000_000);
        assert_eq!(t.t_read(4), 70_000_000);
        assert_eq!(t.t_program(5), 3_000_000_000);
    }
}
