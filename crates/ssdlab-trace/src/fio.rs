//! fio's I/O log (an "iolog"), versions 2 and 3: read as a trace, and written by
//! `trace convert --to fio_iolog` so that fio can replay what ssdlab replays.
//!
//! The layout is that of the fio HOWTO, section "Trace file format" (its parts "Trace file
//! format v2" and "Trace file format v3"); where the HOWTO is silent or says otherwise than fio
//! does, this module follows fio 3.33 and says so below.
//!
//! # Layout
//!
//! The first line names the version, `fio version 2 iolog` or `fio version 3 iolog`. Each later
//! line is a file action, `FILE ACTION` with `add`, `open` or `close`, or an I/O action,
//! `FILE ACTION OFFSET LENGTH` with `read`, `write`, `trim`, `sync` or `datasync` (offset and
//! length in bytes) and, in version 2 only, `wait`. Version 3 puts a timestamp first on every
//! line (`TIME FILE ACTION [OFFSET LENGTH]`) and has no `wait`. A file is added, then opened,
//! before its I/O.
//!
//! # Reading
//!
//! - **Device:** a file's place among the log's `add` lines, 0 for the first file added (a
//!   second `add` of the same name changes nothing). `device = N` (`--device N`) replays one
//!   file of a log that drives several.
//! - **Operations:** `read`, `write` and `trim` are requests. `sync` and `datasync` are skipped,
//!   as blkparse's flushes are: the simulator models no flush. File actions carry no request,
//!   but I/O on a file that was not added, or is not open, is an error.
//! - **Version 3 times:** whole microseconds from the start. The HOWTO gives no unit; fio 3.33
//!   writes microseconds (a job with `thinktime=2000` logs gaps of about 2000) and waits
//!   microseconds when it replays (a gap of 1000000 takes a second).
//! - **Version 2 times:** there are none, except `FILE wait N LENGTH` lines. fio 3.33 holds the
//!   I/O after such a line until N milliseconds after the replay started (a wait for a time
//!   already past does nothing), so a request arrives at the largest wait before it, 0 before
//!   any. (The HOWTO describes N as microseconds after the previous wait; fio does not replay
//!   it so, and a log means what fio does with it.) A version 2 log without `wait` lines has
//!   every request at 0: it is meant for closed-loop replay, and replaying it at its
//!   timestamps draws the warning every time-less trace gets.
//! - Offsets and lengths are bytes, kept as they are (like `msr`); a zero length, a
//!   non-number, an unknown action or a wrong field count is an error naming the line.
//!
//! # Writing ([`write`])
//!
//! Version 3, times in whole microseconds (finer ones are truncated, so `trace convert` asks
//! for `--truncate-times` first). Device N's requests go to the file `/dev/ssdlabN`; the files
//! are added and opened at time 0 in ascending device order and closed at the last request's
//! time, so reading the log back numbers the devices by rank (the same numbers when they run
//! from 0 without gaps). fio reads a length as a 32-bit number: a longer request is refused.
//! To replay onto a real device, redirect the files to it: `fio --name=replay
//! --read_iolog=FILE --replay_redirect=/dev/nvme0n1`. (fio 3.33 logs `bad ddir: 2` for each
//! `trim` line and skips it; later versions replay trims.)

use std::collections::HashMap;
use std::io::{self, Write};

use super::{raw, Ctx, Op, Raw, Record, TraceError};

/// Version 3 timestamps count microseconds.
const PS_PER_US: u64 = 1_000_000;
/// Version 2 `wait` lines count milliseconds since the replay started.
const PS_PER_MS: u128 = 1_000_000_000;
/// Longest request fio reads: it scans the length as a 32-bit unsigned number.
pub const MAX_LENGTH_BYTES: u64 = u32::MAX as u64;
/// Actions that take an offset and a length (those of version 2; version 3 drops `wait`).
const IO_ACTIONS: [&str; 6] = ["read", "write", "trim", "sync", "datasync", "wait"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V2,
    V3,
}

/// What reading an iolog has learned so far: its version (from the first line), its files
/// (each name's device number, and whether it is open) and, in version 2, the largest wait.
#[derive(Debug, Default)]
pub(crate) struct Reader {
    version: Option<Version>,
    devices: HashMap<String, u32>,
    open: Vec<bool>,
    wait_ps: u128,
}

/// Whether `line` opens an iolog: `fio version N iolog`, any N (the reader says which it reads).
pub(crate) fn is_header(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    matches!(words.as_slice(), ["fio", "version", n, "iolog"] if n.bytes().all(|b| b.is_ascii_digit()))
}

impl Reader {
    /// One content line: a request for `read`, `write` and `trim`; nothing for the first line,
    /// file actions, `wait`, `sync` and `datasync`.
    pub(crate) fn line(&mut self, ctx: &Ctx) -> Result<Option<Raw>, TraceError> {
        let Some(version) = self.version else {
            self.version = Some(version_of(ctx)?);
            return Ok(None);
        };
        let fields: Vec<&str> = ctx.text.split_whitespace().collect();
        let (skip, expected) = match version {
            Version::V2 => (0, "2 fields (`FILE ACTION`) or 4 (`FILE ACTION OFFSET LENGTH`)"),
            Version::V3 => (1, "3 fields (`TIME FILE ACTION`) or 5 (`TIME FILE ACTION OFFSET LENGTH`)"),
        };
        if !matches!(fields.len().saturating_sub(skip), 2 | 4) {
            return Err(ctx.too_few_fields(&fields, expected.to_string()));
        }
        let time_ps = match version {
            Version::V2 => self.wait_ps,
            Version::V3 => u128::from(ctx.uint("timestamp_us", fields[0])?) * u128::from(PS_PER_US),
        };
        match fields[skip..] {
            [file, action] => self.file_action(ctx, file, action).map(|()| None),
            [file, action, offset, length] => self.io_action(ctx, version, time_ps, [file, action, offset, length]),
            _ => unreachable!("the field count was checked above"),
        }
    }

    fn file_action(&mut self, ctx: &Ctx, file: &str, action: &str) -> Result<(), TraceError> {
        match action {
            "add" if self.devices.contains_key(file) => {}
            "add" => {
                let device = u32::try_from(self.open.len())
                    .map_err(|_| ctx.bad("file", file, "is one file too many: a trace has at most 2^32 devices"))?;
                self.devices.insert(file.to_string(), device);
                self.open.push(false);
            }
            "open" | "close" => {
                let device = self.device(ctx, file)?;
                self.open[device as usize] = action == "open";
            }
            _ if IO_ACTIONS.contains(&action) => {
                return Err(ctx.bad("action", action, "needs an offset and a length after it"));
            }
            _ => return Err(unknown_action(ctx, action)),
        }
        Ok(())
    }

    fn io_action(
        &mut self,
        ctx: &Ctx,
        version: Version,
        time_ps: u128,
        [file, action, offset, length]: [&str; 4],
    ) -> Result<Option<Raw>, TraceError> {
        let op = match action {
            "read" => Op::Read,
            "write" => Op::Write,
            "trim" => Op::Trim,
            "wait" if version == Version::V3 => {
                let why = "is not allowed in a version 3 iolog, whose lines carry timestamps instead";
                return Err(ctx.bad("action", action, why));
            }
            "wait" => {
                let ms = ctx.uint("wait_ms", offset)?;
                ctx.uint("length", length)?;
                self.wait_ps = self.wait_ps.max(u128::from(ms) * PS_PER_MS);
                return Ok(None);
            }
            "sync" | "datasync" => {
                self.open_device(ctx, file)?;
                ctx.uint("offset_bytes", offset)?;
                ctx.uint("length_bytes", length)?;
                return Ok(None); // no flush in the simulator, as with blkparse's
            }
            "add" | "open" | "close" => {
                return Err(ctx.bad("action", action, "is a file action and takes no offset and length"));
            }
            _ => return Err(unknown_action(ctx, action)),
        };
        let device = self.open_device(ctx, file)?;
        let extent = ctx.extent(("offset_bytes", offset), ("length_bytes", length), (1, 1))?;
        Ok(raw(time_ps, device, op, extent))
    }

    /// The device of a file that was added.
    fn device(&self, ctx: &Ctx, file: &str) -> Result<u32, TraceError> {
        self.devices.get(file).copied().ok_or_else(|| {
            ctx.bad("file", file, "was not added: a `FILE add` line comes before any other line of a file")
        })
    }

    /// The device of a file that was added and is open.
    fn open_device(&self, ctx: &Ctx, file: &str) -> Result<u32, TraceError> {
        let device = self.device(ctx, file)?;
        match self.open[device as usize] {
            true => Ok(device),
            false => Err(ctx.bad("file", file, "is not open: a `FILE open` line comes before the file's I/O")),
        }
    }
}

/// The version the first line names.
fn version_of(ctx: &Ctx) -> Result<Version, TraceError> {
    let words: Vec<&str> = ctx.text.split_whitespace().collect();
    match words.as_slice() {
        ["fio", "version", "2", "iolog"] => Ok(Version::V2),
        ["fio", "version", "3", "iolog"] => Ok(Version::V3),
        ["fio", "version", n, "iolog"] => Err(ctx.bad(
            "iolog version",
            n,
            "is not read: fio reads versions 2 and 3 (version 1 has not been read since fio 1.20)",
        )),
        _ => Err(ctx.bad(
            "first line",
            ctx.text,
            "is not `fio version 2 iolog` or `fio version 3 iolog`, the line a fio iolog opens with",
        )),
    }
}

fn unknown_action(ctx: &Ctx, action: &str) -> TraceError {
    let known = "is not an iolog action (add, open, close; read, write, trim, sync, datasync; wait in version 2)";
    ctx.bad("action", action, known)
}

/// The file device `device`'s requests go to.
fn file_name(device: u32) -> String {
    format!("/dev/ssdlab{device}")
}

/// Writes `trace` as a version 3 iolog (see the module documentation).
pub(crate) fn write<W: Write>(trace: &[Record], out: &mut W) -> io::Result<()> {
    let mut devices: Vec<u32> = trace.iter().map(|r| r.device).collect();
    devices.sort_unstable();
    devices.dedup();
    writeln!(out, "fio version 3 iolog")?;
    for action in ["add", "open"] {
        for &d in &devices {
            writeln!(out, "0 {} {action}", file_name(d))?;
        }
    }
    for (index, r) in trace.iter().enumerate() {
        if r.size_bytes > MAX_LENGTH_BYTES {
            let msg = format!(
                "request {}: {} bytes; fio reads a length of at most {MAX_LENGTH_BYTES} bytes (32 bits)",
                index + 1,
                r.size_bytes
            );
            return Err(io::Error::new(io::ErrorKind::InvalidInput, msg));
        }
        let action = match r.op {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
        };
        let (us, file) = (r.arrival_ps / PS_PER_US, file_name(r.device));
        writeln!(out, "{us} {file} {action} {} {}", r.offset_bytes, r.size_bytes)?;
    }
    let end_us = trace.iter().map(|r| r.arrival_ps).max().unwrap_or(0) / PS_PER_US;
    for &d in &devices {
        writeln!(out, "{end_us} {} close", file_name(d))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{detect_str, parse_str, write, Format, Op, Record};

    fn rec(arrival_ps: u64, device: u32, op: Op, offset_bytes: u64, size_bytes: u64) -> Record {
        Record { arrival_ps, device, op, offset_bytes, size_bytes }
    }

    const MS: u64 = 1_000_000_000;
    const US: u64 = 1_000_000;

    /// `text` parses as an iolog to exactly `want`: each record with the 1-based line it came from.
    fn assert_reads(text: &str, file_name: &str, want: &[(usize, Record)]) {
        let t = parse_str(text, Format::FioIolog, file_name).unwrap();
        assert_eq!(t.records, want.iter().map(|&(_, r)| r).collect::<Vec<_>>());
        assert_eq!(t.lines, want.iter().map(|&(l, _)| l).collect::<Vec<_>>());
    }

    /// Two files: `/dev/sdb` added first is device 0, `/dev/sdc` device 1. The wait of 3 ms
    /// holds everything after it until 3 ms; the later wait of 2 ms is already past and
    /// changes nothing. sync and datasync are skipped.
    #[test]
    fn a_version_2_log_reads_as_its_requests_at_its_waits() {
        let text = "fio version 2 iolog\n\
                    /dev/sdb add\n\
                    /dev/sdc add\n\
                    /dev/sdb open\n\
                    /dev/sdc open\n\
                    /dev/sdb read 4096 8192\n\
                    /dev/sdb wait 3 0\n\
                    /dev/sdc write 1048576 4096\n\
                    /dev/sdb sync 0 0\n\
                    /dev/sdb trim 0 1048576\n\
                    /dev/sdb wait 2 0\n\
                    /dev/sdb datasync 0 0\n\
                    /dev/sdc read 512 512\n\
                    /dev/sdb close\n\
                    /dev/sdc close\n";
        let want = [
            (6, rec(0, 0, Op::Read, 4096, 8192)),
            (8, rec(3 * MS, 1, Op::Write, 1_048_576, 4096)),
            (10, rec(3 * MS, 0, Op::Trim, 0, 1_048_576)),
            (13, rec(3 * MS, 1, Op::Read, 512, 512)),
        ];
        assert_reads(text, "v2.log", &want);
        // Without waits every request is at 0.
        let t = parse_str("fio version 2 iolog\nf add\nf open\nf write 0 4096\nf read 0 4096\n", Format::FioIolog, "x")
            .unwrap();
        assert_eq!(t.records, vec![rec(0, 0, Op::Write, 0, 4096), rec(0, 0, Op::Read, 0, 4096)]);
    }

    /// Times in µs, re-based on the earliest request (151 µs; the file actions before it are
    /// no requests) and sorted: 1000 − 151 = 849 µs, 2188 − 151 = 2037, 8218 − 151 = 8067.
    #[test]
    fn a_version_3_log_reads_as_its_requests_at_their_timestamps() {
        let text = "fio version 3 iolog\n\
                    21 /tmp/f add\n\
                    148 /tmp/f open\n\
                    151 /tmp/f read 0 4096\n\
                    2188 /tmp/f read 45056 4096\n\
                    1000 /tmp/f write 28672 4096\n\
                    6208 /tmp/f datasync 0 0\n\
                    8218 /tmp/f trim 8192 4096\n\
                    9000 /tmp/f close\n";
        let want = [
            (4, rec(0, 0, Op::Read, 0, 4096)),
            (6, rec(849 * US, 0, Op::Write, 28_672, 4096)),
            (5, rec(2037 * US, 0, Op::Read, 45_056, 4096)),
            (8, rec(8067 * US, 0, Op::Trim, 8192, 4096)),
        ];
        assert_reads(text, "v3.log", &want);
    }

    #[test]
    fn both_versions_are_detected_by_their_first_line() {
        assert_eq!(detect_str("fio version 2 iolog\n/dev/sda add\n", "x.log").unwrap(), Format::FioIolog);
        assert_eq!(detect_str("fio version 3 iolog\n0 /dev/sda add\n", "x.csv").unwrap(), Format::FioIolog);
        // Another version is still an iolog, which the reader then refuses by name.
        assert_eq!(detect_str("fio version 1 iolog\n", "x").unwrap(), Format::FioIolog);
        assert_eq!("fio_iolog".parse::<Format>().unwrap(), Format::FioIolog);
    }

    /// Each bad line fails naming the file, the line and the value.
    #[test]
    fn bad_lines_name_file_line_and_value() {
        let v2 = "fio version 2 iolog\nf add\nf open\n";
        let v3 = "fio version 3 iolog\n0 f add\n0 f open\n";
        let cases = [
            ("fio version 4 iolog\n", "b:1: iolog version `4` is not read: fio reads versions 2 and 3"),
            ("0 f read 0 4096\n", "b:1: first line `0 f read 0 4096` is not `fio version 2 iolog` or"),
            (&format!("{v2}f copy 0 4096\n"), "b:4: action `copy` is not an iolog action"),
            (
                &format!("{v2}f read 0\n"),
                "b:4: expected 2 fields (`FILE ACTION`) or 4 (`FILE ACTION OFFSET LENGTH`), found 3 in `f read 0`",
            ),
            (&format!("{v2}f read\n"), "b:4: action `read` needs an offset and a length"),
            (&format!("{v2}f add 0 0\n"), "b:4: action `add` is a file action and takes no offset"),
            (&format!("{v2}g read 0 4096\n"), "b:4: file `g` was not added"),
            (&format!("{v2}f close\nf write 0 4096\n"), "b:5: file `f` is not open"),
            (&format!("{v2}f read x 4096\n"), "b:4: offset_bytes `x` is not a number"),
            (&format!("{v2}f read 0 0\n"), "b:4: length_bytes `0` is zero (empty request)"),
            (&format!("{v2}f wait -3 0\n"), "b:4: wait_ms `-3` is negative"),
            (&format!("{v3}5 f wait 3 0\n"), "b:4: action `wait` is not allowed in a version 3 iolog"),
            (&format!("{v3}1.5 f read 0 4096\n"), "b:4: timestamp_us `1.5` is not a number"),
            (&format!("{v3}f read 0 4096\n"), "b:4: expected 3 fields (`TIME FILE ACTION`) or 5"),
        ];
        for (text, want) in cases {
            let err = parse_str(text, Format::FioIolog, "b").unwrap_err().to_string();
            assert!(err.starts_with(want), "{text}\n got: {err}\nwant: {want}");
        }
    }

    /// The writer's text, worked by hand: devices 3 and 7 become files added and opened at 0,
    /// times in whole µs, closed at the last request's time (2 µs).
    #[test]
    fn the_writer_writes_version_3_with_a_file_per_device() {
        let records =
            [rec(0, 7, Op::Write, 4096, 8192), rec(1_500_000, 3, Op::Read, 0, 512), rec(2 * US, 7, Op::Trim, 0, 4096)];
        let mut out = Vec::new();
        write(&records, Format::FioIolog, &mut out).unwrap();
        let want = "fio version 3 iolog\n\
                    0 /dev/ssdlab3 add\n0 /dev/ssdlab7 add\n0 /dev/ssdlab3 open\n0 /dev/ssdlab7 open\n\
                    0 /dev/ssdlab7 write 4096 8192\n1 /dev/ssdlab3 read 0 512\n2 /dev/ssdlab7 trim 0 4096\n\
                    2 /dev/ssdlab3 close\n2 /dev/ssdlab7 close\n";
        assert_eq!(String::from_utf8(out).unwrap(), want);
        // Read back: devices by rank (3 → 0, 7 → 1), 1.5 µs truncated to 1 µs.
        let back = parse_str(want, Format::FioIolog, "w").unwrap();
        let ranked =
            vec![rec(0, 1, Op::Write, 4096, 8192), rec(US, 0, Op::Read, 0, 512), rec(2 * US, 1, Op::Trim, 0, 4096)];
        assert_eq!(back.records, ranked);
        // fio reads a length as 32 bits.
        let err = write(&[rec(0, 0, Op::Read, 0, 1 << 32)], Format::FioIolog, Vec::new()).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("at most 4294967295 bytes"), "{err}");
    }
}
