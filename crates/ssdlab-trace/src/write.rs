//! Writing traces: one line per record in any format (`trace convert`).

use std::io::{self, BufWriter, Write};

use super::{columns, fio, Format, Op, Record, SECTOR_BYTES};

/// Writes `trace` in `format`, one line per record. Sector-addressed formats and `replayer`
/// round the extent outwards to whole 512 B sectors; times are truncated to the format's resolution (100 ns for
/// msr, 1 ns for ssdsim/mqsim/blkparse, 1 µs for fio_iolog, 1 s for tencent). Trim is only expressible in
/// blkparse, csv and fio_iolog: other formats fail with `InvalidInput`. fio_iolog writes a version 3 log
/// with a file per device (see `fio.rs`).
pub fn write<W: Write>(trace: &[Record], format: Format, out: W) -> io::Result<()> {
    let mut out = BufWriter::new(out);
    if format == Format::FioIolog {
        fio::write(trace, &mut out)?;
        return out.flush();
    }
    if format == Format::Csv {
        writeln!(out, "{}", columns::SSDLAB_HEADER)?;
    }
    for (index, r) in trace.iter().enumerate() {
        write_record(&mut out, r, format, index)?;
    }
    out.flush()
}

/// The finest time step `format` writes: 100 ns for msr, 1 ns for ssdsim, mqsim and blkparse,
/// 1 µs for fio_iolog, 1 s for tencent, 1 ps for the decimal formats and csv.
pub fn time_resolution_ps(format: Format) -> u64 {
    match format {
        Format::Msr => 100_000,
        Format::Ssdsim | Format::Mqsim | Format::Blkparse => 1_000,
        Format::FioIolog => 1_000_000,
        Format::Tencent => 1_000_000_000_000,
        Format::Replayer | Format::ReplayerSectors | Format::Disksim | Format::Umass | Format::Csv => 1,
    }
}

/// How many of `trace`'s arrival times [`write()`] in `format` would change (truncated to
/// [`time_resolution_ps`]), and the index of the first such record.
pub fn times_changed(trace: &[Record], format: Format) -> (usize, Option<usize>) {
    let step = time_resolution_ps(format);
    let mut changed = trace.iter().enumerate().filter(|(_, r)| r.arrival_ps % step != 0);
    let first = changed.next().map(|(i, _)| i);
    (first.map_or(0, |_| 1 + changed.count()), first)
}

fn write_record<W: Write>(out: &mut W, r: &Record, format: Format, index: usize) -> io::Result<()> {
    let first_sector = r.offset_bytes / SECTOR_BYTES;
    let end_sector = r.offset_bytes.saturating_add(r.size_bytes).div_ceil(SECTOR_BYTES);
    let sectors = end_sector - first_sector;
    let (ps, dev) = (r.arrival_ps, r.device);
    let read = match r.op {
        Op::Read => true,
        Op::Write => false,
        Op::Trim if matches!(format, Format::Blkparse | Format::Csv) => false,
        Op::Trim => {
            let msg = format!("request {}: the {format} format cannot express trim", index + 1);
            return Err(io::Error::new(io::ErrorKind::InvalidInput, msg));
        }
    };
    let (bit, off, size) = (u8::from(read), r.offset_bytes, r.size_bytes);
    match format {
        Format::Msr => {
            let (ticks, word) = (ps / 100_000, if read { "Read" } else { "Write" });
            writeln!(out, "{ticks},ssdlab,{dev},{word},{off},{size},0")
        }
        Format::Replayer => {
            // Whole sectors, as the reader requires of byte-unit replayer traces.
            let (off, size) = (first_sector * SECTOR_BYTES, sectors * SECTOR_BYTES);
            writeln!(out, "{} {dev} {off} {size} {bit}", decimal(ps, 9, 3))
        }
        Format::Ssdsim | Format::Mqsim => {
            writeln!(out, "{} {dev} {first_sector} {sectors} {bit}", ps / 1000)
        }
        Format::Disksim | Format::ReplayerSectors => {
            writeln!(out, "{} {dev} {first_sector} {sectors} {bit}", decimal(ps, 9, 3))
        }
        Format::Umass => {
            let size = size.saturating_add(off % SECTOR_BYTES);
            let (letter, time) = (if read { 'r' } else { 'w' }, decimal(ps, 12, 6));
            writeln!(out, "{dev},{first_sector},{size},{letter},{time}")
        }
        Format::Tencent => {
            let (s, kind) = (ps / 1_000_000_000_000, 1 - bit);
            writeln!(out, "{s},{first_sector},{sectors},{kind},{dev}")
        }
        Format::Csv => {
            let op = ["read", "write", "trim"][r.op as usize];
            writeln!(out, "{},{dev},{op},{off},{size}", decimal(ps, 3, 3))
        }
        Format::FioIolog => unreachable!("fio::write writes iologs"),
        Format::Blkparse => {
            let rwbs = match r.op {
                Op::Read => "R",
                Op::Write => "W",
                Op::Trim => "D",
            };
            let (time, seq) = (decimal(ps / 1000 * 1000, 12, 9), index + 1);
            let (major, minor) = (dev / 256, dev % 256);
            write!(out, "{major:>3},{minor:<3} 0 {seq:>8} {time:>14} 0 Q {rwbs:>3} ")?;
            writeln!(out, "{first_sector} + {sectors} [ssdlab]")
        }
    }
}

/// `ps` in units of 10^`unit_digits` ps as a decimal with at least `min_frac` fraction digits.
fn decimal(ps: u64, unit_digits: u32, min_frac: usize) -> String {
    let unit = 10u64.pow(unit_digits);
    let frac = format!("{:0width$}", ps % unit, width = unit_digits as usize);
    let keep = frac.trim_end_matches('0').len().max(min_frac);
    format!("{}.{}", ps / unit, &frac[..keep])
}
