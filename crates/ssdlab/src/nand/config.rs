//! The `[nand]` section: geometry, cell type and array timing, the ONFI channel bus
//! (`[nand.bus]`) and program/erase suspension (`[nand.suspension]`), with the checks that
//! need only these keys.
//!
//! Every key, its unit, default and allowed values: `docs/config.md`, sections `[nand]`,
//! `[nand.bus]` and `[nand.suspension]`. Checks that relate these keys to other sections
//! (the cache holds a page, GC has room in the geometry) are in `config::Config` (the composed drive, above the layers).

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::validate::{reject, require_at_most, require_nonzero, require_range, require_times};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NandConfig {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub sector_bytes: u32,
    /// slc | mlc | tlc | qlc: the number of page types (1..4). A page's type is its offset in
    /// the block modulo that number (LSB, CSB, MSB, ...).
    pub cell: CellType,
    /// Array read latency per page type, LSB first.
    pub t_read_us: Vec<f64>,
    /// Program latency per page type, LSB first.
    pub t_program_us: Vec<f64>,
    pub t_erase_us: f64,
    /// Allow multi-plane commands (same die, different planes, same page offset).
    pub multiplane: bool,
    /// Reads may be multi-plane commands too (with `multiplane`); false keeps multi-plane
    /// programs and erases but reads each plane alone (SPD's Die-Read removed).
    pub multiplane_reads: bool,
    /// Multi-plane commands also need the same block index in every plane.
    pub multiplane_same_block: bool,
    /// same_page | independent: where the planes of a multi-plane command may work.
    pub multiplane_addressing: MultiplaneAddressing,
    /// Allow one command to drive several dies of a chip (die interleaving).
    pub die_interleave: bool,
    pub bus: BusConfig,
    pub suspension: SuspensionConfig,
    /// none | no_rw_interference: PACP's "Ideal" reference (reads never wait for a program
    /// or erase on their chip).
    pub ideal: Ideal,
}

/// A reference drive no real one is (`nand.ideal`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Ideal {
    #[default]
    None,
    /// PACP's "Ideal" (docs/techniques.md §10.6 item 3 [I]): a user read arriving for a chip
    /// that runs a program or erase (the host's or GC's) suspends it at once and for free,
    /// as often as reads come — program/erase suspension with zero suspend and resume time
    /// and no limit. Reads still share the channel bus, wait for a program's data transfer
    /// and for other reads (GC's included).
    NoRwInterference,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn page_types(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BusConfig {
    /// ONFI data rate in mega-transfers per second.
    pub rate_mt_s: f64,
    /// Bus width in bits.
    pub width_bits: u32,
    /// Time of one command or address cycle.
    pub cmd_addr_cycle_ns: f64,
    /// Command + address cycles per plane of a read (00h, 5 address, 30h).
    pub read_cycles: u32,
    /// Command + address cycles per plane of a program (80h, 5 address, 10h).
    pub program_cycles: u32,
    /// Command + address cycles per plane of an erase (60h, 3 address, D0h).
    pub erase_cycles: u32,
    /// How a command's bus phase is timed: `simple` (cycles × `cmd_addr_cycle_ns` per
    /// plane) or `nv_ddr2` (ONFI NV-DDR2 protocol delays, `[nand.bus.nv_ddr2]`).
    pub timing: BusTiming,
    /// The NV-DDR2 delays, used when `timing = "nv_ddr2"`.
    pub nv_ddr2: NvDdr2Config,
    /// Who gets a free channel first: command phases or waiting read data.
    pub arbitration: BusArbitration,
    /// What a program moves over the channel: the whole page or only the written sectors.
    pub program_data_in: ProgramDataIn,
}

/// Where the planes of one die's multi-plane command may work (`nand.multiplane_addressing`;
/// docs/techniques.md §4).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MultiplaneAddressing {
    /// Every plane at the same page offset (ONFI's classic multi-plane rule; with
    /// `nand.multiplane_same_block`, in the same block too).
    SamePage,
    /// Each plane at any page of any block: Sprinkler §4's merging of requests to one chip's
    /// distinct dies and planes, and the independent multi-plane reads of current parts.
    Independent,
}

/// How the bus phase of a command is timed (`nand.bus.timing`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BusTiming {
    /// `*_cycles` command/address cycles of `cmd_addr_cycle_ns` per plane.
    Simple,
    /// ONFI NV-DDR2: chip-enable setup, write cycles, the dummy busy (tDBSY) between the
    /// planes of a multi-plane command and the R/B# delays (tWB, tRR), as MQSim times them.
    NvDdr2,
}

/// Order of waiters for a free channel (`nand.bus.arbitration`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BusArbitration {
    /// Command/address-only phases (reads, erases, copybacks) first, then program phases and
    /// read data out in arrival order: issuing a command sets another chip working.
    CommandsFirst,
    /// Read data waiting to leave a chip first, then commands in arrival order (MQSim).
    DataFirst,
}

/// What a program transfers to the chip (`nand.bus.program_data_in`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ProgramDataIn {
    /// The whole page, as a drive that pads a partial page in its buffer does.
    Page,
    /// Only the sectors the program writes (MQSim).
    WrittenSectors,
}

/// ONFI NV-DDR2 protocol delays in ns. Defaults are MQSim's (`ONFI_Channel_NVDDR2.h`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NvDdr2Config {
    /// Chip-enable setup before the first cycle of a command.
    pub t_cs_ns: f64,
    /// One command or address write cycle.
    pub t_wc_ns: f64,
    /// Last cycle of a command to R/B# going low (the chip starts its work).
    pub t_wb_ns: f64,
    /// R/B# high to the first data-out cycle (charged to a read's command phase, as MQSim).
    pub t_rr_ns: f64,
    /// Dummy busy between the planes of a multi-plane command.
    pub t_dbsy_ns: f64,
    /// Last address cycle to the first data-in cycle of a program.
    pub t_adl_ns: f64,
    /// DQS write postamble after a program's data.
    pub t_wpst_ns: f64,
    /// DQS write postamble hold after the last plane's data.
    pub t_wpsth_ns: f64,
    /// ALE/CLE setup between the planes of a multi-plane program.
    pub t_cals_ns: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SuspensionConfig {
    /// Suspend a running program or erase when a user read arrives for the chip.
    pub enabled: bool,
    pub t_suspend_us: f64,
    pub t_resume_us: f64,
    /// How many times one program/erase may be suspended.
    pub max_per_op: u32,
}

impl Default for NandConfig {
    fn default() -> Self {
        NandConfig {
            channels: 8,
            chips_per_channel: 4,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 2048,
            pages_per_block: 256,
            page_bytes: 8192,
            sector_bytes: 512,
            cell: CellType::Mlc,
            t_read_us: vec![75.0, 75.0],
            t_program_us: vec![750.0, 750.0],
            t_erase_us: 3800.0,
            multiplane: true,
            multiplane_reads: true,
            multiplane_same_block: false,
            multiplane_addressing: MultiplaneAddressing::SamePage,
            die_interleave: true,
            bus: BusConfig::default(),
            suspension: SuspensionConfig::default(),
            ideal: Ideal::None,
        }
    }
}

/// The small drive of the memory-estimate tests (ftl::blocks, ftl, sim::estimate): `channels`
/// channels of 1 chip of 1 die of 2 planes, 8 blocks of 16 pages per plane, the rest default.
#[cfg(test)]
pub(crate) fn small_estimate_nand(channels: u32) -> NandConfig {
    NandConfig {
        channels,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 8,
        pages_per_block: 16,
        ..Default::default()
    }
}

impl Default for BusConfig {
    fn default() -> Self {
        BusConfig {
            rate_mt_s: 333.0,
            width_bits: 8,
            cmd_addr_cycle_ns: 10.0,
            read_cycles: 7,
            program_cycles: 7,
            erase_cycles: 5,
            timing: BusTiming::Simple,
            nv_ddr2: NvDdr2Config::default(),
            arbitration: BusArbitration::CommandsFirst,
            program_data_in: ProgramDataIn::Page,
        }
    }
}

impl Default for NvDdr2Config {
    fn default() -> Self {
        NvDdr2Config {
            t_cs_ns: 20.0,
            t_wc_ns: 25.0,
            t_wb_ns: 100.0,
            t_rr_ns: 20.0,
            t_dbsy_ns: 500.0,
            t_adl_ns: 70.0,
            t_wpst_ns: 6.0,
            t_wpsth_ns: 15.0,
            t_cals_ns: 15.0,
        }
    }
}

impl Default for SuspensionConfig {
    fn default() -> Self {
        SuspensionConfig { enabled: false, t_suspend_us: 20.0, t_resume_us: 20.0, max_per_op: 4 }
    }
}

impl NandConfig {
    /// Check the geometry, the cell timing, the bus and suspension. The error names the key
    /// and its value.
    pub fn validate(&self, file: &str) -> Result<()> {
        self.validate_geometry(file)?;
        self.validate_cells(file)?;
        self.bus.validate(file)?;
        if self.multiplane_addressing == MultiplaneAddressing::Independent && self.multiplane_same_block {
            let why =
                "each plane of an independently addressed command works in any block: drop nand.multiplane_same_block";
            return reject(file, "nand.multiplane_addressing", "independent", why);
        }
        if self.ideal == Ideal::NoRwInterference && self.suspension.enabled {
            let why = "suspends programs and erases at no cost by itself: drop nand.suspension.enabled";
            return reject(file, "nand.ideal", "no_rw_interference", why);
        }
        self.suspension.validate(file)
    }

    /// Every level of the hierarchy is present, within the limits of the address types, and
    /// a page is a whole number of sectors.
    fn validate_geometry(&self, file: &str) -> Result<()> {
        require_nonzero(file, &self.page_counts())?;
        require_nonzero(file, &[("nand.page_bytes", self.page_bytes), ("nand.sector_bytes", self.sector_bytes)])?;
        require_at_most(
            file,
            &[
                ("nand.dies_per_chip", self.dies_per_chip, 16),
                ("nand.planes_per_die", self.planes_per_die, 16),
                ("nand.pages_per_block", self.pages_per_block, 65535),
            ],
        )?;
        let planes_per_chip = self.dies_per_chip * self.planes_per_die;
        if planes_per_chip > 64 {
            let why = format!(
                "a chip of {} dies × {} planes has {planes_per_chip} planes; at most 64 (a chip's planes are kept in a 64-bit mask): lower nand.dies_per_chip or nand.planes_per_die",
                self.dies_per_chip, self.planes_per_die
            );
            return reject(file, "nand.planes_per_die", self.planes_per_die, &why);
        }
        if !self.page_bytes.is_multiple_of(self.sector_bytes) {
            return reject(
                file,
                "nand.page_bytes",
                self.page_bytes,
                &format!("must be a multiple of nand.sector_bytes ({})", self.sector_bytes),
            );
        }
        if self.page_bytes / self.sector_bytes > 64 {
            return reject(file, "nand.page_bytes", self.page_bytes, "at most 64 sectors per page");
        }
        self.validate_page_count(file)?;
        if self.blocks_per_plane < 8 {
            return reject(
                file,
                "nand.blocks_per_plane",
                self.blocks_per_plane,
                "at least 8 blocks per plane, so GC has room to work",
            );
        }
        Ok(())
    }

    /// The six counts whose product is the drive's pages, each with its key, from the
    /// channels down to the pages of a block.
    fn page_counts(&self) -> [(&'static str, u32); 6] {
        [
            ("nand.channels", self.channels),
            ("nand.chips_per_channel", self.chips_per_channel),
            ("nand.dies_per_chip", self.dies_per_chip),
            ("nand.planes_per_die", self.planes_per_die),
            ("nand.blocks_per_plane", self.blocks_per_plane),
            ("nand.pages_per_block", self.pages_per_block),
        ]
    }

    /// The drive's pages, the product of the six counts, fit the 32-bit page numbers. The
    /// error blames the largest count (ties: the later one), the one most likely set by
    /// mistake, and shows the whole product.
    fn validate_page_count(&self, file: &str) -> Result<()> {
        let counts = self.page_counts();
        let total_pages: u128 = counts.iter().map(|&(_, n)| n as u128).product();
        if total_pages < u32::MAX as u128 {
            return Ok(());
        }
        let &(key, value) = counts.iter().max_by_key(|&&(_, n)| n).expect("six counts");
        let product: Vec<String> = counts.iter().map(|&(_, n)| n.to_string()).collect();
        let why = format!(
            "the drive would have {} = {total_pages} pages (channels × chips_per_channel × dies_per_chip × planes_per_die × blocks_per_plane × pages_per_block); at most 2^32 - 2: lower {key}, the largest count, or another (or use larger pages)",
            product.join(" × ")
        );
        reject(file, key, value, &why)
    }

    /// One read and one program latency per page type of the cell, each a time the engine can
    /// hold in picoseconds.
    fn validate_cells(&self, file: &str) -> Result<()> {
        let types = self.cell.page_types();
        for (key, v) in [("nand.t_read_us", &self.t_read_us), ("nand.t_program_us", &self.t_program_us)] {
            if v.len() != types {
                return reject(file, key, v, &format!("needs one latency per page type: {types} for {:?}", self.cell));
            }
        }
        let mut times: Vec<(&str, f64)> = Vec::new();
        times.extend(self.t_read_us.iter().map(|&t| ("nand.t_read_us", t)));
        times.extend(self.t_program_us.iter().map(|&t| ("nand.t_program_us", t)));
        times.push(("nand.t_erase_us", self.t_erase_us));
        require_times(file, &times)
    }
}

impl BusConfig {
    /// Cycle counts, a width the ONFI bus has, a cycle time and a data rate the engine can turn
    /// into picoseconds.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_at_most(
            file,
            &[
                ("nand.bus.read_cycles", self.read_cycles, 1000),
                ("nand.bus.program_cycles", self.program_cycles, 1000),
                ("nand.bus.erase_cycles", self.erase_cycles, 1000),
            ],
        )?;
        if ![8, 16, 32, 64].contains(&self.width_bits) {
            return reject(file, "nand.bus.width_bits", self.width_bits, "must be 8, 16, 32 or 64");
        }
        require_times(file, &[("nand.bus.cmd_addr_cycle_ns", self.cmd_addr_cycle_ns)])?;
        require_range(file, &[("nand.bus.rate_mt_s", self.rate_mt_s, 1.0, 1e6)])?;
        self.nv_ddr2.validate(file)
    }
}

impl NvDdr2Config {
    /// Every delay is a time the engine can hold in picoseconds.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_times(
            file,
            &[
                ("nand.bus.nv_ddr2.t_cs_ns", self.t_cs_ns),
                ("nand.bus.nv_ddr2.t_wc_ns", self.t_wc_ns),
                ("nand.bus.nv_ddr2.t_wb_ns", self.t_wb_ns),
                ("nand.bus.nv_ddr2.t_rr_ns", self.t_rr_ns),
                ("nand.bus.nv_ddr2.t_dbsy_ns", self.t_dbsy_ns),
                ("nand.bus.nv_ddr2.t_adl_ns", self.t_adl_ns),
                ("nand.bus.nv_ddr2.t_wpst_ns", self.t_wpst_ns),
                ("nand.bus.nv_ddr2.t_wpsth_ns", self.t_wpsth_ns),
                ("nand.bus.nv_ddr2.t_cals_ns", self.t_cals_ns),
            ],
        )
    }
}

impl SuspensionConfig {
    /// Suspend and resume times the engine can hold, and room for one suspension per
    /// operation when suspension is on.
    pub fn validate(&self, file: &str) -> Result<()> {
        require_times(
            file,
            &[("nand.suspension.t_suspend_us", self.t_suspend_us), ("nand.suspension.t_resume_us", self.t_resume_us)],
        )?;
        if self.enabled && self.max_per_op == 0 {
            return reject(file, "nand.suspension.max_per_op", 0, "must be at least 1 when suspension is enabled");
        }
        Ok(())
    }
}
