//! Block I/O trace readers and writers for the ssdlab SSD simulator.
//!
//! **For:** turning the common text trace formats into one uniform list of [`Record`]s (arrival
//! time in picoseconds relative to the first request, device, operation, byte offset and byte
//! size), summarising them ([`summarize`]) and writing them back out in any of those formats
//! ([`write()`], used by `trace convert`).
//!
//! **Not for:** binary traces, or fitting addresses to a drive: offsets are returned as found,
//! and wrapping, rescaling or rejecting out-of-range addresses is the caller's choice. A file is
//! read line by line (its records are kept, its text is not), and no line may exceed
//! [`MAX_LINE_BYTES`], so `/dev/zero` or a binary file without newlines fails fast instead of
//! filling memory.
//!
//! # Formats (one request per line)
//!
//! | name | separator | fields | time | address / size | op |
//! |---|---|---|---|---|---|
//! | `msr` | `,` | `timestamp,hostname,disk,type,offset,size,response_time` | Windows filetime (100 ns ticks) | bytes / bytes | `Read` / `Write` |
//! | `replayer` (alias `replayer_bytes`) | blanks | `ts dev offset size op` | ms, decimal | bytes / bytes, each a multiple of 512 | 1 = read, 0 = write |
//! | `replayer_sectors` | blanks | `ts dev offset size op` | ms, decimal | 512 B sectors | 1 = read, 0 = write |
//! | `ssdsim` | blanks | `time dev lsn size op` | ns | 512 B sectors | 1 = read, 0 = write |
//! | `disksim` | blanks | `time devno blkno size flags` | ms, decimal | 512 B blocks | flags bit 0 set = read |
//! | `mqsim` | blanks | `arrival device lba size type` | ns | 512 B sectors | 1 = read, 0 = write |
//! | `umass` | `,` | `ASU,LBA,size,opcode,timestamp[,...]` | s, decimal | sectors / bytes | `r` / `w` (any case) |
//! | `tencent` | `,` | `timestamp,offset,size,type,volume` | s | 512 B sectors | 0 = read, 1 = write |
//! | `blkparse` | blanks | default `blkparse` output, `Q` lines only | s, decimal | 512 B sectors | RWBS `D` = trim, `R`, `W` |
//! | `fio_iolog` | blanks | fio's iolog, versions 2 and 3 (`fio.rs`) | v3: µs; v2: `wait` lines, ms | bytes / bytes | `read`, `write`, `trim` |
//!
//! In every format empty lines and lines starting with `#` are skipped, and a missing final
//! newline is fine. Decimal times are converted to integer picoseconds from the decimal text (no
//! floating point); digits below 1 ps are dropped. Times are re-based so that the earliest request
//! arrives at 0, and records are stably sorted by arrival (some traces are not time-ordered).
//! Zero sizes, negative or non-numeric fields, unknown op codes, wrong field counts, requests
//! larger than [`MAX_REQUEST_BYTES`] and lines longer than [`MAX_LINE_BYTES`] are errors naming
//! the file, the 1-based line and the offending text; echoed text is cut to [`ECHO_CHARS`]
//! characters with non-printable characters escaped ([`echo`]). `replayer` (bytes) rejects an
//! offset or size that is not a multiple of 512: block I/O is whole sectors, so such a value
//! means the trace counts sectors (`replayer_sectors`). blkparse: the device is
//! `major * 256 + minor`; lines of other actions and `Q` lines without a sector (flushes) are
//! skipped, and reading stops at the per-CPU / total summary block (`CPU0 (8,0):`, `Total (...)`).
//!
//! # Format detection ([`detect()`], [`detect_str`])
//!
//! Detection looks at the first 100 non-empty, non-comment lines; the file extension only breaks
//! ties. It never guesses silently: an unrecognised shape is [`TraceError::UnknownFormat`] and
//! an undecidable one is [`TraceError::Ambiguous`] (pass `--format`).
//!
//! 0. The first line is ssdlab's own CSV header (`time_ns,device,op,offset_bytes,size_bytes`):
//!    `csv` (what `trace convert --to csv` writes). Other column-mapped files need `--columns`.
//!    The first line is `fio version N iolog`: `fio_iolog`.
//! 1. First field `major,minor` followed by at least five more blank-separated fields: `blkparse`.
//! 2. Comma separated: 7 fields with `Read`/`Write` in field 4: `msr`; 5 or more fields with a
//!    single `r`/`w` letter in field 4: `umass`; 5 numeric fields with `0`/`1` in field 4:
//!    `tencent`.
//! 3. Blank separated, 5 fields, fields 2–5 integers:
//!    - integer time on every sampled line: `ssdsim` for a `.ascii` extension, `disksim` for
//!      `.disksim`, otherwise `mqsim` (`ssdsim` and `mqsim` parse identically);
//!    - decimal time and every sampled offset and size a multiple of 512: `replayer` (bytes);
//!    - decimal time otherwise (the units must be sectors): `disksim` for a `.disksim` or
//!      `.ascii` extension, else [`TraceError::Ambiguous`] between `disksim` and
//!      `replayer_sectors` (they differ in the op field).
//!
//! [`detect_explained`] also says why it chose a format, so a caller can tell the user (a
//! sector-unit trace whose sampled values all happen to be multiples of 512 reads as bytes).

mod columns;
mod detect;
mod fio;
mod header;
mod stream;
mod summary;
mod write;

pub use columns::{ColumnMap, Separator, TimeUnit, SSDLAB_HEADER};
pub use detect::{detect, detect_explained, detect_str, Detection};
pub use stream::{create, Compression};
pub use summary::{summarize, Arrivals, Summary};
pub use write::{time_resolution_ps, times_changed, write};

use std::fmt;
use std::io::{self, BufRead, Read as _};
use std::path::Path;
use std::str::FromStr;

/// Sector / block size of all sector-addressed formats.
pub const SECTOR_BYTES: u64 = 512;
/// Number of content lines [`detect_str`] inspects.
pub const DETECT_SAMPLE_LINES: usize = 100;
/// Longest line accepted, newline excluded. Real trace lines are under 200 bytes; the limit
/// only stops a file without newlines (a binary file, `/dev/zero`) from being read whole.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Largest request accepted: 2^32 − 1 sectors of 512 B (just under 2 TiB), the most a
/// request's 32-bit sector count can carry in the simulator.
pub const MAX_REQUEST_BYTES: u64 = u32::MAX as u64 * SECTOR_BYTES;
/// Characters of a line or value that an error message echoes; longer text is cut.
pub const ECHO_CHARS: usize = 120;

/// Direction of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Read,
    Write,
    Trim,
}

/// One request of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Record {
    /// Arrival time relative to the earliest request of the file.
    pub arrival_ps: u64,
    pub device: u32,
    pub op: Op,
    pub offset_bytes: u64,
    pub size_bytes: u64,
}

/// A supported trace format; see the crate documentation for the layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Msr,
    /// `replayer` with byte offsets and sizes.
    Replayer,
    Ssdsim,
    Disksim,
    Mqsim,
    Umass,
    Tencent,
    Blkparse,
    /// `replayer` with 512 B sector offsets and sizes.
    ReplayerSectors,
    /// Column-mapped text ([`ColumnMap`]); without a map, ssdlab's own CSV
    /// ([`ColumnMap::ssdlab`]).
    Csv,
    /// fio's iolog, versions 2 and 3.
    FioIolog,
}

impl Format {
    pub const ALL: [Format; 11] = [
        Format::Msr,
        Format::Replayer,
        Format::ReplayerSectors,
        Format::Ssdsim,
        Format::Disksim,
        Format::Mqsim,
        Format::Umass,
        Format::Tencent,
        Format::Blkparse,
        Format::Csv,
        Format::FioIolog,
    ];

    const NAMES: [&'static str; 11] = [
        "msr",
        "replayer",
        "ssdsim",
        "disksim",
        "mqsim",
        "umass",
        "tencent",
        "blkparse",
        "replayer_sectors",
        "csv",
        "fio_iolog",
    ];

    /// Lower-case name, as accepted by `--format`.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The unit of the format's timestamps (the table above); None for `csv`, whose column
    /// map says ([`ColumnMap::time_unit`]).
    pub fn time_unit(self) -> Option<&'static str> {
        match self {
            Format::Msr => Some("100 ns ticks (Windows filetime)"),
            Format::Replayer | Format::ReplayerSectors | Format::Disksim => Some("ms"),
            Format::Ssdsim | Format::Mqsim => Some("ns"),
            Format::Umass | Format::Tencent | Format::Blkparse => Some("s"),
            Format::FioIolog => Some("us (version 3 timestamps; version 2 `wait` lines count ms)"),
            Format::Csv => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error of [`Format::from_str`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown trace format `{0}` (expected one of msr, replayer (= replayer_bytes), replayer_sectors, ssdsim, disksim, mqsim, umass, tencent, blkparse, csv, fio_iolog)"
)]
pub struct UnknownFormatName(pub String);

impl FromStr for Format {
    type Err = UnknownFormatName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase();
        if wanted == "replayer_bytes" {
            return Ok(Format::Replayer);
        }
        Format::ALL.into_iter().find(|f| f.name() == wanted).ok_or_else(|| UnknownFormatName(s.to_string()))
    }
}

/// A parsed trace: its format and its records sorted by arrival.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    pub format: Format,
    pub records: Vec<Record>,
    /// The 1-based line of the file each record came from (same order as `records`).
    pub lines: Vec<usize>,
}

/// Errors of reading, parsing and detecting traces. Each names the file; line errors name the
/// 1-based line number and the offending text.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: io::Error,
    },
    /// `expected` says what the line lacks, e.g. "5 fields" or "at least 4 fields (the size
    /// column is column 4)".
    #[error("{file}:{line}: expected {expected}, found {found} in `{text}`")]
    FieldCount { file: String, line: usize, expected: String, found: usize, text: String },
    #[error("{file}:{line}: {field} `{value}` {problem}")]
    BadField { file: String, line: usize, field: &'static str, value: String, problem: String },
    #[error("{file}:{line}: unrecognised trace line `{text}`; pass --format to choose one")]
    UnknownFormat { file: String, line: usize, text: String },
    #[error("{file}:{line}: ambiguous trace format, could be {candidates}: {reason} in `{text}`; pass --format")]
    Ambiguous { file: String, line: usize, candidates: String, reason: String, text: String },
    #[error("{file}: no request lines, cannot detect the trace format; pass --format")]
    Empty { file: String },
    #[error("{file}:{line}: line exceeds {limit} bytes (not a text trace?), starting `{start}`")]
    LineTooLong { file: String, line: usize, limit: usize, start: String },
    /// More requests than the caller may hold in memory ([`read_limited`]).
    #[error("{file}:{line}: more than {limit} requests, the most this run can hold in memory ({why}); replay part of the trace (a shorter file, skip_lines) or allow more memory")]
    TooManyRequests { file: String, line: usize, limit: usize, why: String },
    /// A first line naming columns, read without a column map; `hint` is the map to use.
    #[error("{file}:{line}: `{text}` is a header line naming columns ({names}), and only a column map reads a headered trace: {hint}")]
    Header { file: String, line: usize, text: String, names: String, hint: String },
    /// Nothing to replay: `why` says what the file held instead.
    #[error("{file}: no requests: {why}")]
    NoRequests { file: String, why: String },
}

/// Bytes reading a trace holds per request at its peak: the parsed line (with its line
/// number) and the sorted record (with its line number) while the one turns into the other.
pub const READ_BYTES_PER_REQUEST: usize =
    std::mem::size_of::<(usize, Raw)>() + std::mem::size_of::<(Record, usize)>() + std::mem::size_of::<usize>();

/// `text` as an error message shows it: at most [`ECHO_CHARS`] characters, then `…` and the
/// full length; control and invisible characters escaped (`\u{0}`), so a binary line cannot
/// garble a terminal; a leading UTF-8 byte-order mark named, since it is invisible in most
/// editors yet makes the first field unreadable.
pub fn echo(text: &str) -> String {
    echo_with(text, true)
}

/// [`echo`]; `total` adds the full length after a cut (not for a prefix of a longer text).
fn echo_with(text: &str, total: bool) -> String {
    let invisible = |c: char| c.is_control() || matches!(c, '\u{feff}' | '\u{fffd}' | '\u{200b}'..='\u{200f}');
    let (mut out, mut shown) = (String::new(), 0);
    for c in text.chars() {
        let piece = if invisible(c) { format!("\\u{{{:x}}}", c as u32) } else { c.to_string() };
        shown += piece.chars().count();
        if shown > ECHO_CHARS {
            out.push('…');
            if total {
                out.push_str(&format!(" ({} bytes in all)", text.len()));
            }
            break;
        }
        out.push_str(&piece);
    }
    if text.starts_with('\u{feff}') {
        out.push_str(" [the text starts with a UTF-8 byte-order mark, bytes EF BB BF: remove it]");
    }
    out
}

fn header_error(file: &str, line: usize, text: &str) -> TraceError {
    let (names, hint) = header::hint(text);
    TraceError::Header { file: file.to_string(), line, text: echo(text), names, hint }
}

/// A trace file read line by line, each line at most [`MAX_LINE_BYTES`] long; only the
/// current line is held.
struct Lines {
    file: String,
    reader: Box<dyn BufRead>,
    buf: Vec<u8>,
    text: String,
    line: usize,
}

impl Lines {
    /// Opens `path`, decompressing it as it is read if it is compressed ([`stream::open`]).
    fn open(path: &Path) -> Result<Lines, TraceError> {
        let file = path.display().to_string();
        let reader = stream::open(path).map_err(|source| TraceError::Io { file: file.clone(), source })?;
        Ok(Lines { file, reader, buf: Vec::new(), text: String::new(), line: 0 })
    }

    /// The next non-empty, non-comment line, trimmed, with its 1-based number; `None` at the end.
    fn next_content(&mut self) -> Result<Option<(usize, &str)>, TraceError> {
        loop {
            self.buf.clear();
            let limit = MAX_LINE_BYTES as u64 + 1;
            let n = (&mut self.reader)
                .take(limit)
                .read_until(b'\n', &mut self.buf)
                .map_err(|source| TraceError::Io { file: self.file.clone(), source })?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            if n as u64 == limit && self.buf.last() != Some(&b'\n') {
                let start = String::from_utf8_lossy(&self.buf[..ECHO_CHARS.min(self.buf.len())]).into_owned();
                let (file, line) = (self.file.clone(), self.line);
                let start = echo_with(&start, false);
                return Err(TraceError::LineTooLong { file, line, limit: MAX_LINE_BYTES, start });
            }
            self.text = String::from_utf8_lossy(&self.buf).into_owned();
            if content_of(&self.text).is_some() {
                return Ok(content_of(&self.text).map(|c| (self.line, c)));
            }
        }
    }
}

/// Reads and parses the trace at `path`; `None` detects the format from the content. The file
/// is opened once and read once, line by line (a pipe works too), decompressed on the fly if it
/// is gzip, bzip2, zstd or xz: the lines detection samples are kept and parsed first.
pub fn read(path: &Path, format: Option<Format>) -> Result<Trace, TraceError> {
    read_with(path, format, None)
}

/// [`read`] with a column map: given one, the file is read as column-mapped text
/// ([`Format::Csv`]) whatever `format` says.
pub fn read_with(path: &Path, format: Option<Format>, columns: Option<&ColumnMap>) -> Result<Trace, TraceError> {
    read_limited(path, format, columns, None)
}

/// [`read_with`], holding at most `limit`'s count of requests (with why, for the message):
/// a trace that never ends (a pipe, a device) or one too large for the memory allowed fails
/// with [`TraceError::TooManyRequests`] instead of growing until memory runs out.
pub fn read_limited(
    path: &Path,
    format: Option<Format>,
    columns: Option<&ColumnMap>,
    limit: Option<(usize, &str)>,
) -> Result<Trace, TraceError> {
    let format = if columns.is_some() { Some(Format::Csv) } else { format };
    let mut lines = Lines::open(path)?;
    let file = lines.file.clone();
    let mut head = Vec::new();
    while format.is_none() && head.len() < DETECT_SAMPLE_LINES {
        match lines.next_content()? {
            Some((line, text)) => head.push((line, text.to_string())),
            None => break,
        }
    }
    let head: Vec<(usize, &str)> = head.iter().map(|(l, t)| (*l, t.as_str())).collect();
    let format = match format {
        Some(f) => f,
        None => detect::detect_sample(&head, &file)?.format,
    };
    let mut parser = Parser::new(format, columns);
    let too_many = |line: usize| {
        let (limit, why) = limit.expect("a limit was passed");
        TraceError::TooManyRequests { file: file.clone(), line, limit, why: why.to_string() }
    };
    let max = limit.map_or(usize::MAX, |(n, _)| n);
    for &(line, content) in &head {
        if !parser.line(line, content, &file)? {
            return parser.finish(&file);
        }
    }
    while let Some((line, content)) = lines.next_content()? {
        if !parser.line(line, content, &file)? {
            break;
        }
        if parser.raw.len() > max {
            return Err(too_many(line));
        }
    }
    parser.finish(&file)
}

/// Parses trace text in the given format; `file_name` is only used in errors.
pub fn parse_str(text: &str, format: Format, file_name: &str) -> Result<Trace, TraceError> {
    parse_str_with(text, format, None, file_name)
}

/// [`parse_str`] with a column map (see [`read_with`]).
pub fn parse_str_with(
    text: &str,
    format: Format,
    columns: Option<&ColumnMap>,
    file_name: &str,
) -> Result<Trace, TraceError> {
    let format = if columns.is_some() { Format::Csv } else { format };
    let mut parser = Parser::new(format, columns);
    for (line, content) in content_lines(text) {
        if !parser.line(line, content, file_name)? {
            break;
        }
    }
    parser.finish(file_name)
}

/// The records parsed so far, with absolute times, and their lines.
struct Parser {
    format: Format,
    /// Column-mapped text: the map, and whether its header line is still to come.
    columns: Option<(ColumnMap, bool)>,
    raw: Vec<(usize, Raw)>,
    /// An iolog's version and files, known from its earlier lines.
    fio: fio::Reader,
    /// Content lines read (past `skip_lines`), and the last content line's number (skipped
    /// or not): what an empty trace's error reports.
    lines_seen: usize,
    last_line: usize,
}

impl Parser {
    fn new(format: Format, columns: Option<&ColumnMap>) -> Self {
        let columns = match (format, columns) {
            (Format::Csv, Some(c)) => Some(c.clone()),
            (Format::Csv, None) => Some(ColumnMap::ssdlab()),
            _ => None,
        };
        let columns = columns.map(|c| (c.clone(), c.header));
        Parser { format, columns, raw: Vec::new(), fio: fio::Reader::default(), lines_seen: 0, last_line: 0 }
    }

    /// Parses one content line; `false` when reading should stop (blkparse's summary).
    fn line(&mut self, line: usize, content: &str, file: &str) -> Result<bool, TraceError> {
        if self.format == Format::Blkparse && is_blkparse_summary(content) {
            return Ok(false);
        }
        let ctx = Ctx { file, line, text: content };
        self.last_line = line;
        let mut fields: Vec<&str> = Vec::with_capacity(12);
        if let Some((map, header_due)) = &mut self.columns {
            if line <= map.skip {
                return Ok(true);
            }
            self.lines_seen += 1;
            map.split(content, &mut fields);
            if *header_due {
                map.resolve(&fields, &ctx)?;
                *header_due = false;
            } else {
                self.raw.push((line, map.record(&fields, &ctx)?));
            }
            return Ok(true);
        }
        self.lines_seen += 1;
        if self.format == Format::FioIolog {
            self.raw.extend(self.fio.line(&ctx)?.map(|r| (line, r)));
            return Ok(true);
        }
        match self.format {
            Format::Msr | Format::Umass | Format::Tencent => fields.extend(content.split(',').map(str::trim)),
            _ => fields.extend(content.split_whitespace()),
        }
        match parse_fields(self.format, &fields, &ctx) {
            Ok(Some(r)) => self.raw.push((line, r)),
            Ok(None) => {}
            // A first line that names columns fails as a request; say what it is instead.
            Err(_) if self.lines_seen == 1 && header::is_header(content) => {
                return Err(header_error(file, line, content))
            }
            Err(e) => return Err(e),
        }
        Ok(true)
    }

    /// Why a trace that parsed gave no request.
    fn why_empty(&self) -> String {
        let skip = self.columns.as_ref().map_or(0, |(map, _)| map.skip);
        let header = self.columns.as_ref().is_some_and(|(map, _)| map.header);
        if skip > 0 && self.last_line <= skip {
            let last = match self.last_line {
                0 => "the file has no request lines".to_string(),
                n => format!("the file's last line with content is line {n}"),
            };
            return format!("--skip-lines (skip_lines) drops the first {skip} lines, and {last}");
        }
        match (self.lines_seen, self.format) {
            (0, _) => "the file has no request lines (only blank lines and # comments, if any)".into(),
            (1, _) if header => "the file holds the header line only".into(),
            (_, Format::Blkparse) => "no `Q` (queued) line with a sector range".into(),
            (n, _) => format!("none of its {n} lines is a request"),
        }
    }

    /// Re-bases times on the earliest request and sorts by arrival; no request is an error.
    fn finish(self, file_name: &str) -> Result<Trace, TraceError> {
        if self.raw.is_empty() {
            return Err(TraceError::NoRequests { file: file_name.to_string(), why: self.why_empty() });
        }
        let Parser { format, raw, .. } = self;
        let start_ps = raw.iter().map(|(_, r)| r.time_ps).min().unwrap_or(0);
        let mut records = Vec::with_capacity(raw.len());
        for (line, r) in raw {
            let delta_ps = r.time_ps - start_ps;
            let arrival_ps = u64::try_from(delta_ps).map_err(|_| TraceError::BadField {
                file: file_name.to_string(),
                line,
                field: "arrival time",
                value: format!("{delta_ps} ps after the first request"),
                problem: "exceeds the 64-bit picosecond range (~213 days)".to_string(),
            })?;
            records.push((Record { arrival_ps, ..r.record }, line));
        }
        records.sort_by_key(|(r, _)| r.arrival_ps);
        let lines = records.iter().map(|&(_, line)| line).collect();
        let records = records.into_iter().map(|(r, _)| r).collect();
        Ok(Trace { format, records, lines })
    }
}

/// Non-empty, non-comment lines with their 1-based line numbers, trimmed.
fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, l)| content_of(l).map(|c| (i + 1, c)))
}

fn content_of(line: &str) -> Option<&str> {
    let t = line.trim();
    (!t.is_empty() && !t.starts_with('#')).then_some(t)
}

/// The `index`-th blank-separated field of `line`, or "".
fn field(line: &str, index: usize) -> &str {
    line.split_whitespace().nth(index).unwrap_or("")
}

fn is_blkparse_summary(line: &str) -> bool {
    ["CPU", "Total (", "Throughput", "Events ("].iter().any(|p| line.starts_with(p))
}

fn parse_maj_min(s: &str) -> Option<(u32, u32)> {
    let (maj, min) = s.split_once(',')?;
    Some((maj.parse().ok()?, min.parse().ok()?))
}

/// A record whose time is still absolute (not re-based), in picoseconds.
struct Raw {
    time_ps: u128,
    record: Record,
}

/// Where a field comes from, for error messages.
struct Ctx<'a> {
    file: &'a str,
    line: usize,
    text: &'a str,
}

impl Ctx<'_> {
    fn bad(&self, field: &'static str, value: &str, problem: impl Into<String>) -> TraceError {
        TraceError::BadField {
            file: self.file.to_string(),
            line: self.line,
            field,
            value: echo(value),
            problem: problem.into(),
        }
    }

    /// `fields` number from `min` to `max`; else an error saying the count `expected` (e.g.
    /// "5", "at least 6").
    fn field_count(&self, fields: &[&str], min: usize, max: usize, expected: &str) -> Result<(), TraceError> {
        if (min..=max).contains(&fields.len()) {
            return Ok(());
        }
        Err(self.too_few_fields(fields, format!("{expected} fields")))
    }

    /// The line has fewer fields than `expected` (a phrase: "5 fields").
    fn too_few_fields(&self, fields: &[&str], expected: String) -> TraceError {
        TraceError::FieldCount {
            file: self.file.to_string(),
            line: self.line,
            expected,
            found: fields.len(),
            text: echo(self.text),
        }
    }

    fn uint(&self, field: &'static str, text: &str) -> Result<u64, TraceError> {
        if text.starts_with('-') {
            return Err(self.bad(field, text, "is negative"));
        }
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.bad(field, text, "is not a number"));
        }
        text.parse().map_err(|_| self.bad(field, text, "is too large"))
    }

    fn u32(&self, field: &'static str, text: &str) -> Result<u32, TraceError> {
        let v = self.uint(field, text)?;
        u32::try_from(v).map_err(|_| self.bad(field, text, "is too large"))
    }

    /// Exact decimal-to-integer conversion: `text` in units of 10^`unit_digits` ps.
    fn decimal_ps(&self, field: &'static str, text: &str, unit_digits: u32) -> Result<u128, TraceError> {
        if text.starts_with('-') {
            return Err(self.bad(field, text, "is negative"));
        }
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
            return Err(self.bad(field, text, "is not a number"));
        }
        let frac_digits = frac.bytes().chain(std::iter::repeat(b'0'));
        let mut all_digits = int.bytes().chain(frac_digits.take(unit_digits as usize));
        all_digits
            .try_fold(0u128, |acc, d| acc.checked_mul(10)?.checked_add(u128::from(d - b'0')))
            .ok_or_else(|| self.bad(field, text, "is too large"))
    }

    /// Byte offset and size from fields in units of `(offset, size)_unit_bytes`; rejects zero
    /// sizes and 64-bit overflow of the end address.
    fn extent(
        &self,
        offset: (&'static str, &str),
        size: (&'static str, &str),
        units: (u64, u64),
    ) -> Result<(u64, u64), TraceError> {
        let too_large = |(name, text): (&'static str, &str)| self.bad(name, text, "is too large");
        let offset_bytes = self.uint(offset.0, offset.1)?.checked_mul(units.0).ok_or_else(|| too_large(offset))?;
        let size_units = self.uint(size.0, size.1)?;
        if size_units == 0 {
            return Err(self.bad(size.0, size.1, "is zero (empty request)"));
        }
        let size_bytes = size_units.checked_mul(units.1).filter(|&b| b <= MAX_REQUEST_BYTES).ok_or_else(|| {
            let limit = format!(
                "is larger than {MAX_REQUEST_BYTES} bytes (2^32 - 1 sectors of 512 B), the most one request can carry"
            );
            self.bad(size.0, size.1, limit)
        })?;
        offset_bytes.checked_add(size_bytes).ok_or_else(|| too_large(offset))?;
        Ok((offset_bytes, size_bytes))
    }

    /// A byte offset or size of a byte-unit format that is not whole 512 B sectors: block I/O
    /// never is, so the trace most likely counts sectors.
    fn whole_sectors(&self, (name, text): (&'static str, &str), sectors_format: Format) -> Result<(), TraceError> {
        match self.uint(name, text)? % SECTOR_BYTES {
            0 => Ok(()),
            _ => Err(self.bad(
                name,
                text,
                format!(
                    "is not a multiple of 512 bytes; if the trace counts 512 B sectors, use format {sectors_format}"
                ),
            )),
        }
    }

    /// `0`/`1` op code: `one_is_read` tells which value means read.
    fn binary_op(&self, field: &'static str, text: &str, one_is_read: bool) -> Result<Op, TraceError> {
        match (self.uint(field, text)?, one_is_read) {
            (1, true) | (0, false) => Ok(Op::Read),
            (0, true) | (1, false) => Ok(Op::Write),
            _ if one_is_read => Err(self.bad(field, text, "is not 1 (read) or 0 (write)")),
            _ => Err(self.bad(field, text, "is not 0 (read) or 1 (write)")),
        }
    }
}

/// Blank-separated five-field formats: column names (time, device, offset, size, op), time unit
/// as a power of ten of ps, and address unit in bytes.
type Layout = ([&'static str; 5], u32, u64);
const REPLAYER: Layout = (["ts_ms", "dev", "offset_bytes", "size_bytes", "op"], 9, 1);
const REPLAYER_SECTORS: Layout = (["ts_ms", "dev", "offset_sectors", "size_sectors", "op"], 9, 512);
const SSDSIM: Layout = (["time_ns", "dev", "lsn", "size_sectors", "op"], 3, 512);
const MQSIM: Layout = (["arrival_ns", "device", "lba_sector", "size_sectors", "type"], 3, 512);
const DISKSIM: Layout = (["time_ms", "devno", "blkno", "size_blocks", "flags"], 9, 512);

fn raw(time_ps: u128, device: u32, op: Op, extent: (u64, u64)) -> Option<Raw> {
    let (offset_bytes, size_bytes) = extent;
    let record = Record { arrival_ps: 0, device, op, offset_bytes, size_bytes };
    Some(Raw { time_ps, record })
}

/// Parses one content line; `Ok(None)` for lines that are not requests (blkparse).
fn parse_fields(format: Format, f: &[&str], ctx: &Ctx) -> Result<Option<Raw>, TraceError> {
    let (names, time_unit_digits, unit_bytes) = match format {
        Format::Msr => return parse_msr(f, ctx),
        Format::Umass => return parse_umass(f, ctx),
        Format::Tencent => return parse_tencent(f, ctx),
        Format::Blkparse => return parse_blkparse(f, ctx),
        Format::Csv => unreachable!("column-mapped lines are parsed by their map"),
        Format::FioIolog => unreachable!("iolog lines are parsed by fio::Reader"),
        Format::Replayer => REPLAYER,
        Format::ReplayerSectors => REPLAYER_SECTORS,
        Format::Ssdsim => SSDSIM,
        Format::Mqsim => MQSIM,
        Format::Disksim => DISKSIM,
    };
    ctx.field_count(f, 5, 5, "5")?;
    let time_ps = ctx.decimal_ps(names[0], f[0], time_unit_digits)?;
    let device = ctx.u32(names[1], f[1])?;
    let units = (unit_bytes, unit_bytes);
    if format == Format::Replayer {
        ctx.whole_sectors((names[2], f[2]), Format::ReplayerSectors)?;
        ctx.whole_sectors((names[3], f[3]), Format::ReplayerSectors)?;
    }
    let extent = ctx.extent((names[2], f[2]), (names[3], f[3]), units)?;
    let op = match format {
        Format::Disksim if ctx.uint(names[4], f[4])? & 1 == 1 => Op::Read,
        Format::Disksim => Op::Write,
        _ => ctx.binary_op(names[4], f[4], true)?,
    };
    Ok(raw(time_ps, device, op, extent))
}

fn parse_msr(f: &[&str], ctx: &Ctx) -> Result<Option<Raw>, TraceError> {
    ctx.field_count(f, 7, 7, "7")?;
    let ticks = ctx.uint("timestamp", f[0])?;
    let device = ctx.u32("disk", f[2])?;
    let op = match f[3] {
        t if t.eq_ignore_ascii_case("read") => Op::Read,
        t if t.eq_ignore_ascii_case("write") => Op::Write,
        t => return Err(ctx.bad("type", t, "is not `Read` or `Write`")),
    };
    let extent = ctx.extent(("offset_bytes", f[4]), ("size_bytes", f[5]), (1, 1))?;
    Ok(raw(u128::from(ticks) * 100_000, device, op, extent))
}

fn parse_umass(f: &[&str], ctx: &Ctx) -> Result<Option<Raw>, TraceError> {
    ctx.field_count(f, 5, usize::MAX, "at least 5")?;
    let device = ctx.u32("ASU", f[0])?;
    let extent = ctx.extent(("LBA", f[1]), ("size_bytes", f[2]), (SECTOR_BYTES, 1))?;
    let op = match f[3] {
        "r" | "R" => Op::Read,
        "w" | "W" => Op::Write,
        t => return Err(ctx.bad("opcode", t, "is not `r` or `w`")),
    };
    let time_ps = ctx.decimal_ps("timestamp_s", f[4], 12)?;
    Ok(raw(time_ps, device, op, extent))
}

fn parse_tencent(f: &[&str], ctx: &Ctx) -> Result<Option<Raw>, TraceError> {
    ctx.field_count(f, 5, 5, "5")?;
    let time_ps = ctx.decimal_ps("timestamp_s", f[0], 12)?;
    let extent = ctx.extent(("offset_sectors", f[1]), ("size_sectors", f[2]), (SECTOR_BYTES, SECTOR_BYTES))?;
    let op = ctx.binary_op("type", f[3], false)?;
    let device = ctx.u32("volume", f[4])?;
    Ok(raw(time_ps, device, op, extent))
}

/// `maj,min cpu seq time pid action rwbs sector + count [process]`
fn parse_blkparse(f: &[&str], ctx: &Ctx) -> Result<Option<Raw>, TraceError> {
    ctx.field_count(f, 6, usize::MAX, "at least 6")?;
    let (major, minor) = parse_maj_min(f[0]).ok_or_else(|| ctx.bad("device", f[0], "is not `major,minor`"))?;
    if f[5] != "Q" {
        return Ok(None); // another action
    }
    ctx.field_count(f, 7, usize::MAX, "at least 7")?;
    if f.len() == 7 || f[7].starts_with('[') {
        return Ok(None); // a request without data (flush)
    }
    let rwbs = f[6];
    let op = if rwbs.contains('D') {
        Op::Trim
    } else if rwbs.contains('R') {
        Op::Read
    } else if rwbs.contains('W') {
        Op::Write
    } else {
        return Ok(None);
    };
    if rwbs.contains('F') && f.get(9) == Some(&"0") {
        return Ok(None); // flush printed as `0 + 0`
    }
    if f.len() < 10 || f[8] != "+" {
        return Err(ctx.too_few_fields(f, "`sector + count` after RWBS, i.e. at least 10 fields".into()));
    }
    let device = major
        .checked_mul(256)
        .and_then(|d| d.checked_add(minor))
        .ok_or_else(|| ctx.bad("device", f[0], "is too large"))?;
    let time_ps = ctx.decimal_ps("time_s", f[3], 12)?;
    let extent = ctx.extent(("sector", f[7]), ("count", f[9]), (SECTOR_BYTES, SECTOR_BYTES))?;
    Ok(raw(time_ps, device, op, extent))
}
