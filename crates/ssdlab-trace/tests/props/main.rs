//! Property tests of the trace readers (issue 20, item 4).
//!
//! Each property is a plain function over one generated case that returns
//! `Result<(), TestCaseError>` and takes the reader under test as a parameter ([`Reader`]), so
//! the last tests can run the very same functions against deliberately broken readers and
//! show that the properties catch them (a test of the tests):
//!
//! 1. [`check_arbitrary_bytes`]: any bytes (invalid UTF-8, NULs, lines longer than
//!    [`MAX_LINE_BYTES`]) given to every format and to detection, as text (`parse_str`) and as
//!    a file (`read`), never panic; a result is a well-formed trace, an error names the file
//!    and, for a line error, a content line of the input as `file:LINE: `; and reading the file
//!    gives exactly what parsing its text gives (up to the line-length limit, which only files
//!    have).
//! 2. [`check_near_valid`]: valid lines of each format (built here from the layouts in the
//!    crate docs, not by `write`) parse to exactly the requests they encode; one field of one
//!    line mutated (empty, negative, letters, unicode, control character, huge, zero, wrong op
//!    code, extra or missing field, arbitrary text) is either accepted or rejected with the
//!    file, that line and the bad text echoed; mutations that can never be valid must be
//!    rejected.
//!    A built-in format's named column map (`ColumnMap::named`) reads valid lines the same, and
//!    ssdlab's own CSV finds its columns by the header's names, in any order.
//! 3. [`check_round_trip`]: records → `write(format)` → `parse_str(format)` preserves every
//!    request up to what the format cannot express (see [`expected_round_trip`]); detection
//!    of the written text finds a format that reads it the same (with the documented
//!    exceptions of decimal-time sector formats; csv is detected by ssdlab's own header only).
//! 5. [`check_column_map`]: any `--columns`/`--ops`/`--separator` text makes a map or an
//!    error, and any text read with a map gives well-formed requests or a `file:LINE:` error.
//! 4. [`check_compressed`]: a trace compressed with gzip, bzip2, zstd or xz (named by its
//!    extension or not) reads exactly as its text does; damaged (cut short or a byte changed)
//!    it never panics and fails naming the file, or reads well-formed requests.
//!
//! Case budgets are fixed in code ([`config`]); failing cases are not persisted (no
//! `proptest-regressions/`), and the RNG seed is fixed so CI runs the same cases every time.
//! Set `PROPTEST_RNG_SEED=<n>` to explore other cases locally.
//!
//! Time: a case is bounded in size (at most a few thousand tokens, one line of about 64 KiB),
//! so it is bounded in work; [`CASE_TIME_LIMIT`] asserts it, catching super-linear blow-ups.
//! A true endless loop would show as a test that never finishes.

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError, TestRunner};
use ssdlab_trace::{
    create, detect_str, echo, parse_str, parse_str_with, read, write, ColumnMap, Compression, Format, Op, Record,
    Trace, TraceError, MAX_LINE_BYTES, MAX_REQUEST_BYTES, SECTOR_BYTES,
};
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod compressed_and_mapped;
#[allow(unused_imports)]
use compressed_and_mapped::*;

/// A reader under test: `parse_str`, or a broken stand-in for it.
type Reader = fn(&str, Format, &str) -> Result<Trace, TraceError>;

/// Cases per property: fast enough for every CI run (the whole file takes a few seconds).
const CASES: u32 = 256;
/// Far above what any bounded case needs (milliseconds), far below a hang.
const CASE_TIME_LIMIT: Duration = Duration::from_secs(10);
/// Longest error message, beyond the file name: two echoes of at most `ECHO_CHARS` shown
/// characters (up to 4 bytes each) and prose.
const MAX_MESSAGE_BYTES: usize = 4096;

#[path = "../common/fixed_config.rs"]
mod fixed_config;

/// [`fixed_config::config`] with this file's shrinking budget.
fn config(cases: u32) -> ProptestConfig {
    fixed_config::config(cases, 256)
}

/// A scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("ssdlab-trace-props-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn content(line: &str) -> Option<&str> {
    let t = line.trim();
    (!t.is_empty() && !t.starts_with('#')).then_some(t)
}

/// The 1-based line a line error names, `None` for errors of a whole file.
fn error_line(e: &TraceError) -> Option<usize> {
    match e {
        TraceError::FieldCount { line, .. }
        | TraceError::BadField { line, .. }
        | TraceError::UnknownFormat { line, .. }
        | TraceError::Ambiguous { line, .. }
        | TraceError::LineTooLong { line, .. }
        | TraceError::TooManyRequests { line, .. }
        | TraceError::Header { line, .. } => Some(*line),
        TraceError::Io { .. } | TraceError::Empty { .. } | TraceError::NoRequests { .. } => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Property 1: arbitrary bytes
// ---------------------------------------------------------------------------------------------

/// Byte sequences that real traces are made of, and some that break them.
const TOKENS: &[&[u8]] = &[
    b"\n",
    b"\n",
    b"\n",
    b"\r\n",
    b" ",
    b" ",
    b"\t",
    b",",
    b",",
    b".",
    b"-",
    b"+",
    b"#",
    b"0",
    b"1",
    b"7",
    b"512",
    b"4096",
    b"8,0",
    b"Q",
    b"R",
    b"W",
    b"D",
    b"RS",
    b"FWS",
    b"r",
    b"w",
    b"Read",
    b"write",
    b"[kjournald]",
    b"CPU0 (8,0):",
    b"Total (",
    b"\0",
    b"\xff",
    b"\xc3",
    b"\xe2\x80",
    "é".as_bytes(),
    "\u{feff}".as_bytes(),
    "\u{a0}".as_bytes(),
    "\u{663}".as_bytes(),
    b"\x1b[31m",
    b"99999999999999999999999999999999999999999",
    b"18446744073709551615",
    b"18446744073709551616",
    b"4294967295",
    b"4294967296",
    b"0.000 0 200626176 4096 0\n",
    b"128166385295514663,hm,0,Write,9056014336,2048,2833\n",
    b"0,303567,3584,w,0.000000\n",
    b"1538323200,6488,8,1,1063\n",
    b"8,0 3 1 0.000000000 697 Q W 223490 + 8 [kjournald]\n",
    b"60066625000 1 34371424 64 1\n",
    b"0.5 0 100 7 1\n",
];

/// One token: a listed byte sequence, an integer or a decimal.
fn token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => prop::sample::select(TOKENS).prop_map(<[u8]>::to_vec),
        1 => any::<u64>().prop_map(|n| n.to_string().into_bytes()),
        1 => (0u32..100_000, 0u32..1_000_000).prop_map(|(i, f)| format!("{i}.{f}").into_bytes()),
    ]
}

/// A line of `len` bytes (no newline) repeating `chunk`.
fn long_line(chunk: &[u8], len: usize) -> Vec<u8> {
    let chunk: Vec<u8> = chunk.iter().map(|&b| if b == b'\n' { b'x' } else { b }).collect();
    chunk.iter().copied().cycle().take(len).collect()
}

/// Two real lines of each format (families of lines a file might hold).
const TEMPLATES: &[[&str; 2]] = &[
    ["128166385295514663,hm,0,Write,9056014336,2048,2833", "128166385295514878,hm,0,Read,11855351808,512,2617"],
    ["0.000 0 200626176 4096 0", "223.412 0 3159347200 36864 1"],
    ["0.5 0 16 8 1", "1.25 3 4097 9 0"],
    ["0 0 303567 7 0", "1000 1 55590 6 1"],
    ["0 0 0 8 1", "60066625000 1 34371424 64 1"],
    ["0,303567,3584,w,0.000000", "1,55590,3072,R,0.004218,x"],
    ["1538323200,6488,8,1,1063", "1538323201,93336,16,0,1063"],
    ["8,0 3 1 0.000000000 697 Q W 223490 + 8 [kjournald]", "8,16 0 2 0.000375 0 Q RS 1024 + 64 [fio]"],
    ["CPU0 (8,0):", "Total (8,0):"],
];

/// Bytes replacing a byte of a template line: separators, digits, op letters, line breaks.
const MUTANTS: &[u8] = b"0123456789.,+- \t#rwRWDQ[e\n\r\0\xff";

/// Many lines of one family of templates, a few with some bytes replaced, with blank lines
/// and comments between: errors deep in a file, after lines that parse.
fn template_lines() -> impl Strategy<Value = Vec<u8>> {
    let edit = (any::<usize>(), prop::sample::select(MUTANTS));
    let line = (0usize..2, prop::option::weighted(0.02, prop::collection::vec(edit, 1..4)), 0u8..8);
    (0..TEMPLATES.len(), prop::collection::vec(line, 1..120), any::<bool>()).prop_map(|(family, lines, crlf)| {
        let mut out = Vec::new();
        for (which, edits, filler) in lines {
            let mut bytes = TEMPLATES[family][which].as_bytes().to_vec();
            for (at, b) in edits.unwrap_or_default() {
                let at = at % bytes.len();
                bytes[at] = b;
            }
            out.extend(bytes);
            out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            match filler {
                0 => out.extend_from_slice(b"\n"),
                1 => out.extend_from_slice(b"# 1 2 3 4 5\n"),
                _ => {}
            }
        }
        out
    })
}

/// Arbitrary bytes: uniform, token soup, lines of real traces with a few bytes replaced, or
/// token soup around one line near the length limit.
fn arbitrary_bytes() -> impl Strategy<Value = Vec<u8>> {
    let near_limit = prop::sample::select(vec![
        MAX_LINE_BYTES - 1,
        MAX_LINE_BYTES,
        MAX_LINE_BYTES + 1,
        MAX_LINE_BYTES + 2,
        MAX_LINE_BYTES + 1000,
    ]);
    let soup = || prop::collection::vec(token(), 0..300).prop_map(|t| t.concat());
    prop_oneof![
        3 => prop::collection::vec(any::<u8>(), 0..2048),
        3 => soup(),
        3 => template_lines(),
        1 => (template_lines(), prop::collection::vec(any::<u8>(), 1..16), near_limit, soup()).prop_map(
            |(mut before, chunk, len, after)| {
                before.extend(long_line(&chunk, len));
                before.push(b'\n');
                before.extend(after);
                before
            }
        ),
    ]
}

/// File names: the extension breaks detection ties.
/// Two promise compression, which the content (almost) never has.
const NAMES: &[&str] =
    &["fuzz.trace", "fuzz.csv", "fuzz.ascii", "fuzz.disksim", "fuzz.txt", "fuzz", "fuzz.csv.gz", "fuzz.ascii.zst"];

/// A parse or detection outcome over `text` is well formed: a trace is sorted, re-based,
/// within the limits and names content lines; an error names `file` (and a content line of
/// `text` as `file:LINE: `) and echoes at most a bounded amount.
/// `text`: `None` when the text read is unknown (a corrupted compressed file): no line checks.
fn check_outcome(
    result: Result<Option<&Trace>, &TraceError>,
    text: Option<&str>,
    file: &str,
) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = text.map(|t| t.lines().collect()).unwrap_or_default();
    let is_content = |l: usize| text.is_none() || (l >= 1 && l <= lines.len() && content(lines[l - 1]).is_some());
    match result {
        Ok(None) => {}
        Ok(Some(t)) => {
            prop_assert_eq!(t.records.len(), t.lines.len());
            prop_assert!(t.lines.iter().all(|&l| is_content(l)), "record lines {:?} of {} lines", t.lines, lines.len());
            let mut distinct = t.lines.clone();
            distinct.sort_unstable();
            distinct.dedup();
            prop_assert_eq!(distinct.len(), t.lines.len(), "one record per line");
            prop_assert!(t.records.windows(2).all(|w| w[0].arrival_ps <= w[1].arrival_ps), "sorted by arrival");
            prop_assert!(t.records.first().is_none_or(|r| r.arrival_ps == 0), "re-based on the first request");
            for r in &t.records {
                prop_assert!((1..=MAX_REQUEST_BYTES).contains(&r.size_bytes), "{r:?}");
                prop_assert!(r.offset_bytes.checked_add(r.size_bytes).is_some(), "{r:?}");
                prop_assert!(r.op != Op::Trim || can_trim(t.format), "{r:?}");
            }
        }
        Err(e) => {
            let msg = e.to_string();
            prop_assert!(msg.starts_with(&format!("{file}:")), "error does not name the file: {msg}");
            prop_assert!(msg.len() <= file.len() + MAX_MESSAGE_BYTES, "unbounded message of {} bytes", msg.len());
            if matches!(e, TraceError::Io { .. }) {
                prop_assert!(text.is_none(), "I/O error from text: {msg}");
                return Ok(());
            }
            if let Some(line) = error_line(e).filter(|_| text.is_some()) {
                prop_assert!(is_content(line), "line {line} is not a content line of {}: {msg}", lines.len());
                prop_assert!(msg.starts_with(&format!("{file}:{line}: ")), "{msg}");
                let shown = echo(content(lines[line - 1]).unwrap_or(""));
                match e {
                    TraceError::FieldCount { text, .. }
                    | TraceError::UnknownFormat { text, .. }
                    | TraceError::Ambiguous { text, .. }
                    | TraceError::Header { text, .. } => prop_assert_eq!(text, &shown, "echo of line {}", line),
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// Two outcomes are the same: the same trace, or errors with the same message.
fn same_outcome(got: &Result<Trace, TraceError>, want: &Result<Trace, TraceError>) -> Result<(), TestCaseError> {
    match (got, want) {
        (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
        (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
        (a, b) => prop_assert!(false, "read gave {a:?}, parsing its text gave {b:?}"),
    }
    Ok(())
}

/// Detection, then parsing in the detected format: what `read(path, None)` should do.
fn parse_detected(parse: Reader, text: &str, file: &str) -> Result<Trace, TraceError> {
    parse(text, detect_str(text, file)?, file)
}

/// Property 1 for one input; `parse` is the reader under test (`read` is the real one).
fn check_arbitrary_bytes(parse: Reader, bytes: &[u8], name: &str, dir: &Scratch) -> Result<(), TestCaseError> {
    let started = Instant::now();
    let path = dir.path(name);
    std::fs::write(&path, bytes).expect("write scratch file");
    let file = path.display().to_string();
    let text = String::from_utf8_lossy(bytes);

    let detected = detect_str(&text, &file);
    check_outcome(detected.as_ref().map(|_| None), Some(&text), &file)?;
    let mut parsed = Vec::new();
    for format in Format::ALL {
        let result = parse(&text, format, &file);
        check_outcome(result.as_ref().map(Some), Some(&text), &file)?;
        parsed.push((Some(format), result));
    }
    let auto = parse_detected(parse, &text, &file);
    check_outcome(auto.as_ref().map(Some), Some(&text), &file)?;
    parsed.push((None, auto));

    // Only files have a line-length limit: up to the first long line (1-based `long`), reading
    // equals parsing; at it, reading fails, unless parsing failed (or blkparse stopped) before.
    let (by_name, by_magic) = (Compression::of_name(&path), Compression::of_magic(bytes));
    if by_name != Compression::None || by_magic != Compression::None {
        // Read through a decompressor: a name that promises a compression the content does
        // not have is an I/O error naming the file ([`check_compressed`] reads real ones).
        for (format, _) in &parsed {
            let got = read(&path, *format);
            prop_assert!(by_name == by_magic || matches!(got, Err(TraceError::Io { .. })), "{got:?}");
            check_outcome(got.as_ref().map(Some), None, &file)?;
        }
        return Ok(());
    }
    let raw_lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let long = raw_lines.iter().position(|l| l.len() > MAX_LINE_BYTES).map(|i| i + 1);
    for (format, from_text) in parsed {
        let got = read(&path, format);
        let Some(long) = long else {
            same_outcome(&got, &from_text)?;
            continue;
        };
        // The text up to the long line, with a line in its place that fails in every format.
        let head = String::from_utf8_lossy(&raw_lines[..long - 1].join(&b'\n')).into_owned();
        let cut = if long == 1 { "!\n".to_string() } else { format!("{head}\n!\n") };
        let before = head.lines().filter(|l| content(l).is_some()).count();
        let want = match format {
            // Detection samples the first content lines, so it meets the long line first.
            None if before < ssdlab_trace::DETECT_SAMPLE_LINES => None,
            None => Some(parse_detected(parse, &cut, &file)),
            Some(f) => Some(parse(&cut, f, &file)),
        };
        match want {
            Some(Err(e)) if error_line(&e) != Some(long) => same_outcome(&got, &Err(e))?,
            Some(Ok(t)) => same_outcome(&got, &Ok(t))?,
            _ => prop_assert!(
                matches!(got, Err(TraceError::LineTooLong { line, .. }) if line == long),
                "{format:?}: expected a too-long line {long}, got {got:?}"
            ),
        }
    }
    prop_assert!(started.elapsed() < CASE_TIME_LIMIT, "{} bytes took {:?}", bytes.len(), started.elapsed());
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Property 2: valid and near-valid lines
// ---------------------------------------------------------------------------------------------

/// Whether a format can express trim: blkparse (RWBS `D`), column-mapped text and fio's
/// iolog (`trim`).
fn can_trim(format: Format) -> bool {
    matches!(format, Format::Blkparse | Format::Csv | Format::FioIolog)
}

/// What a field of a line means to its format's reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Time,
    Device,
    Offset,
    Size,
    Op,
    /// Read by nobody (msr hostname and response time, blkparse cpu, sequence, pid, process).
    Ignored,
    /// blkparse's action `Q` and `+`.
    Fixed,
    /// blkparse's RWBS: any text with D, R or W in it.
    Rwbs,
}

/// One request as generated: values exactly representable in the format it is written in.
#[derive(Debug, Clone, Copy)]
struct Req {
    time_ps: u64,
    device: u32,
    op: Op,
    offset_bytes: u64,
    size_bytes: u64,
}

/// Raw randomness for one line, turned into a valid line of a given format by [`valid_line`].
#[derive(Debug, Clone)]
struct LineSeed {
    time: u64,
    device: u32,
    op: u8,
    offset: u64,
    /// `u64::MAX`: the largest size the format accepts.
    size: u64,
    /// Spelling choices: separators, padding, case, trailing zeros, extra fields.
    style: u64,
}

fn line_seed() -> impl Strategy<Value = LineSeed> {
    let size = prop_oneof![9 => 1u64..=65_536, 1 => Just(u64::MAX)];
    (any::<u64>(), any::<u32>(), any::<u8>(), any::<u64>(), size, any::<u64>())
        .prop_map(|(time, device, op, offset, size, style)| LineSeed { time, device, op, offset, size, style })
}

/// Style bits, taken one choice at a time.
struct Style(u64);

impl Style {
    fn pick(&mut self, n: u64) -> u64 {
        let v = self.0 % n;
        self.0 /= n;
        v
    }
}

/// Largest generated time: 10^6 s, far inside the 64-bit picosecond range, so that only a
/// mutated time can overflow re-basing.
const TIME_MAX_PS: u64 = 1_000_000_000_000_000_000;

/// `ps` as a decimal number of units of 10^`digits` ps, with 0 to 3 extra trailing zeros or
/// (when exact) no fraction at all.
fn decimal(ps: u64, digits: u32, style: &mut Style) -> String {
    let unit = 10u64.pow(digits);
    let frac = format!("{:0w$}", ps % unit, w = digits as usize);
    let frac = frac.trim_end_matches('0');
    let zeros = "0".repeat(style.pick(4) as usize);
    if frac.is_empty() && style.pick(2) == 0 {
        format!("{}", ps / unit)
    } else {
        format!("{}.{frac}{zeros}", ps / unit)
    }
}

/// A valid line of `format` for `seed`: its fields with their roles, the request they encode,
/// and the separator between fields.
fn valid_line(format: Format, seed: &LineSeed) -> (Vec<(String, Role)>, Req, &'static str) {
    use Role::{Device, Fixed, Ignored, Offset, Rwbs, Size, Time};
    let mut style = Style(seed.style);
    let bytes = matches!(format, Format::Msr | Format::Csv | Format::FioIolog);
    let sector_units = !bytes && format != Format::Replayer;
    // Time, in the format's resolution.
    let quantum: u64 = match format {
        Format::Msr => 100_000,
        Format::Ssdsim | Format::Mqsim => 1_000,
        Format::FioIolog => 1_000_000,
        _ => 1,
    };
    let time_ps = seed.time % TIME_MAX_PS / quantum * quantum;
    // Extent: offsets of sector formats in sectors; umass sizes in bytes.
    let offset_bytes = match bytes {
        true => seed.offset % (1 << 50),
        false => seed.offset % (1 << 40) * SECTOR_BYTES,
    };
    let size_bytes = match (format, seed.size) {
        (_, u64::MAX) if bytes || format == Format::Umass => MAX_REQUEST_BYTES,
        (_, s) if bytes || format == Format::Umass => s,
        (_, u64::MAX) => MAX_REQUEST_BYTES,
        (_, s) => s * SECTOR_BYTES,
    };
    let read = seed.op % 2 == 1;
    let op = match format {
        _ if can_trim(format) && seed.op.is_multiple_of(5) => Op::Trim,
        _ if read => Op::Read,
        _ => Op::Write,
    };
    let req = Req { time_ps, device: seed.device, op, offset_bytes, size_bytes };
    let (off_units, size_units) = if sector_units {
        (offset_bytes / SECTOR_BYTES, size_bytes / SECTOR_BYTES)
    } else {
        (offset_bytes, size_bytes)
    };
    let dev = seed.device.to_string();
    let bit = u8::from(read).to_string();
    let blank = [" ", "  ", "\t", " \t "][style.pick(4) as usize];
    let comma = [",", ", ", " ,", " , "][style.pick(4) as usize];
    let fields = match format {
        Format::Msr => {
            let word = if read { ["Read", "read", "READ"] } else { ["Write", "write", "WRITE"] };
            let word = word[style.pick(3) as usize];
            let host = ["hm", "src1", "web-2", ""][style.pick(4) as usize];
            let (ticks, response) = ((time_ps / quantum).to_string(), style.pick(10_000).to_string());
            let f = vec![
                (ticks, Time),
                (host.into(), Ignored),
                (dev, Device),
                (word.into(), Role::Op),
                (off_units.to_string(), Offset),
                (size_units.to_string(), Size),
                (response, Ignored),
            ];
            return (f, req, comma);
        }
        Format::FioIolog => {
            // Version 3, after a preamble adding and opening `/dev/f` (see `check_near_valid`),
            // which is device 0.
            let action = ["read", "write", "trim"][op as usize];
            let f = vec![
                ((time_ps / quantum).to_string(), Time),
                ("/dev/f".into(), Fixed),
                (action.into(), Role::Op),
                (offset_bytes.to_string(), Offset),
                (size_bytes.to_string(), Size),
            ];
            return (f, Req { device: 0, ..req }, blank);
        }
        Format::Replayer | Format::ReplayerSectors | Format::Disksim => {
            let op = match format {
                // Flags: bit 0 is read; other bits are other flags.
                Format::Disksim => (style.pick(8) * 2 + u64::from(read)).to_string(),
                _ => bit,
            };
            let time = decimal(time_ps, 9, &mut style);
            vec![
                (time, Time),
                (dev, Device),
                (off_units.to_string(), Offset),
                (size_units.to_string(), Size),
                (op, Role::Op),
            ]
        }
        Format::Ssdsim | Format::Mqsim => vec![
            ((time_ps / quantum).to_string(), Time),
            (dev, Device),
            (off_units.to_string(), Offset),
            (size_units.to_string(), Size),
            (bit, Role::Op),
        ],
        Format::Umass => {
            let letter = if read { ["r", "R"] } else { ["w", "W"] }[style.pick(2) as usize];
            let mut f = vec![
                (dev, Device),
                ((offset_bytes / SECTOR_BYTES).to_string(), Offset),
                (size_bytes.to_string(), Size),
                (letter.into(), Role::Op),
                (decimal(time_ps, 12, &mut style), Time),
            ];
            for extra in 0..style.pick(3) {
                f.push((format!("x{extra}"), Ignored));
            }
            return (f, req, comma);
        }
        Format::Tencent => {
            let f = vec![
                (decimal(time_ps, 12, &mut style), Time),
                (off_units.to_string(), Offset),
                (size_units.to_string(), Size),
                ((1 - u8::from(read)).to_string(), Role::Op),
                (dev, Device),
            ];
            return (f, req, comma);
        }
        Format::Csv => {
            // ssdlab's own CSV (its columns are found by the header's names: see `rotate`).
            let word = match op {
                Op::Read => ["read", "r", "READ"],
                Op::Write => ["write", "w", "Write"],
                Op::Trim => ["trim", "d", "discard"],
            }[style.pick(3) as usize];
            let f = vec![
                (decimal(time_ps, 3, &mut style), Time),
                (dev, Device),
                (word.into(), Role::Op),
                (offset_bytes.to_string(), Offset),
                (size_bytes.to_string(), Size),
            ];
            return (f, req, comma);
        }
        Format::Blkparse => {
            let rwbs = match op {
                Op::Trim => "D",
                Op::Read => "R",
                Op::Write => "W",
            };
            let rwbs = format!("{rwbs}{}", ["", "S", "M", "A"][style.pick(4) as usize]);
            let (major, minor) = (seed.device / 256, seed.device % 256);
            vec![
                (format!("{major},{minor}"), Device),
                (style.pick(64).to_string(), Ignored),
                ((style.pick(1000) + 1).to_string(), Ignored),
                (decimal(time_ps, 12, &mut style), Time),
                (style.pick(100_000).to_string(), Ignored),
                ("Q".into(), Fixed),
                (rwbs, Rwbs),
                (off_units.to_string(), Offset),
                ("+".into(), Fixed),
                (size_units.to_string(), Size),
                (["[kjournald]", "[fio]", "[]"][style.pick(3) as usize].into(), Ignored),
            ]
        }
    };
    (fields, req, blank)
}

/// One change to one field (or to the field count) of a valid line.
#[derive(Debug, Clone)]
enum Mutation {
    Empty,
    Negative,
    Letters,
    /// Appends an Arabic-Indic digit: a digit to Unicode, not to a trace reader.
    Unicode,
    /// Appends NUL.
    Control,
    /// 30 nines: past every integer type.
    Huge,
    /// 300 sevens: past every integer type, and past the echo length.
    Long,
    /// Zero, in the size field.
    ZeroSize,
    /// An op code no format has, in the op field.
    OpCode,
    ExtraField,
    MissingField,
    /// Any text without line breaks or the format's separators.
    Text(String),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => Just(Mutation::Empty),
        1 => Just(Mutation::Negative),
        1 => Just(Mutation::Letters),
        1 => Just(Mutation::Unicode),
        1 => Just(Mutation::Control),
        1 => Just(Mutation::Huge),
        1 => Just(Mutation::Long),
        1 => Just(Mutation::ZeroSize),
        1 => Just(Mutation::OpCode),
        1 => Just(Mutation::ExtraField),
        1 => Just(Mutation::MissingField),
        3 => "[^\n\r]{0,24}".prop_map(Mutation::Text),
    ]
}

/// A text of valid lines, blank and comment lines between them, and at most one mutated line.
#[derive(Debug, Clone)]
struct NearValid {
    format: Format,
    before: Vec<LineSeed>,
    bad: LineSeed,
    after: Vec<LineSeed>,
    /// `None`: the "bad" line is left valid.
    mutation: Option<(Mutation, usize)>,
    /// Filler after each line: 0 none, 1 a blank line, 2 a comment, 3 blanks only.
    fillers: Vec<u8>,
    crlf: bool,
}

fn near_valid() -> impl Strategy<Value = NearValid> {
    (
        prop::sample::select(Format::ALL.to_vec()),
        prop::collection::vec(line_seed(), 1..6),
        line_seed(),
        prop::collection::vec(line_seed(), 0..3),
        prop::option::weighted(0.85, (mutation(), any::<usize>())),
        prop::collection::vec(0u8..4, 10),
        any::<bool>(),
    )
        .prop_map(|(format, before, bad, after, mutation, fillers, crlf)| NearValid {
            format,
            before,
            bad,
            after,
            mutation,
            fillers,
            crlf,
        })
}

/// Whether the format separates fields with commas (else blanks).
fn comma_separated(format: Format) -> bool {
    matches!(format, Format::Msr | Format::Umass | Format::Tencent | Format::Csv)
}

/// The header line ssdlab's CSV needs, naming `fields` in their order.
fn csv_header(fields: &[(String, Role)], sep: &str) -> String {
    let name = |r: Role| match r {
        Role::Time => "time_ns",
        Role::Device => "device",
        Role::Op => "op",
        Role::Offset => "offset_bytes",
        _ => "size_bytes",
    };
    fields.iter().map(|f| name(f.1)).collect::<Vec<_>>().join(sep)
}

/// Applies `m` to the fields of a valid line; returns the mutated field's text (`None` when
/// the field count changed) and whether no reader may accept the result.
fn mutate(format: Format, fields: &mut Vec<(String, Role)>, m: &Mutation, pick: usize) -> (Option<String>, bool) {
    use Mutation::*;
    let parsed = |r: Role| matches!(r, Role::Time | Role::Device | Role::Offset | Role::Size | Role::Op);
    let five_fields = !comma_separated(format) && format != Format::Blkparse;
    let index = match m {
        ZeroSize => fields.iter().position(|f| f.1 == Role::Size),
        OpCode => fields.iter().position(|f| f.1 == Role::Op),
        _ => None,
    }
    .unwrap_or(pick % fields.len());
    let (text, role) = fields[index].clone();
    let (new, reject) = match m {
        ExtraField => {
            fields.push(("7".into(), Role::Ignored));
            return (None, !matches!(format, Format::Umass | Format::Blkparse | Format::Csv));
        }
        MissingField => {
            fields.pop();
            // umass takes 5 or more fields; blkparse's last (the process) is optional.
            let reject = match format {
                Format::Umass => fields.len() < 5,
                _ => format != Format::Blkparse,
            };
            return (None, reject);
        }
        Empty if !comma_separated(format) => {
            fields.remove(index);
            return (None, five_fields || role == Role::Device);
        }
        Empty => (String::new(), parsed(role)),
        Negative => (format!("-{text}"), parsed(role)),
        Letters => (format!("{text}x"), parsed(role)),
        Unicode => (format!("{text}\u{663}"), parsed(role)),
        Control => (format!("{text}\u{0}"), parsed(role)),
        Huge => ("9".repeat(30), parsed(role)),
        Long => ("7".repeat(300), parsed(role)),
        ZeroSize => ("0".into(), role == Role::Size),
        // Disksim reads any flags (bit 0: read).
        OpCode => ("2".into(), role == Role::Op && format != Format::Disksim),
        Text(t) => {
            let separator = |c: char| if comma_separated(format) { c == ',' } else { c.is_whitespace() };
            (t.chars().filter(|&c| !separator(c)).collect(), false)
        }
    };
    fields[index].0 = new.clone();
    (Some(new), reject)
}

/// Joins fields with `sep`, with some blanks around the line.
fn render(fields: &[(String, Role)], sep: &str, style: u64) -> String {
    let pad = ["", " ", "\t", "  "];
    let line = fields.iter().map(|f| f.0.as_str()).collect::<Vec<_>>().join(sep);
    format!("{}{line}{}", pad[(style % 4) as usize], pad[(style / 4 % 4) as usize])
}

/// The records of `reqs` (in file order, with their 1-based lines) as a reader returns them:
/// re-based on the earliest, stably sorted by arrival.
fn expected(reqs: &[(Req, usize)]) -> (Vec<Record>, Vec<usize>) {
    let start = reqs.iter().map(|(r, _)| r.time_ps).min().unwrap_or(0);
    let mut out: Vec<(Record, usize)> = reqs
        .iter()
        .map(|&(r, line)| {
            let record = Record {
                arrival_ps: r.time_ps - start,
                device: r.device,
                op: r.op,
                offset_bytes: r.offset_bytes,
                size_bytes: r.size_bytes,
            };
            (record, line)
        })
        .collect();
    out.sort_by_key(|(r, _)| r.arrival_ps);
    out.into_iter().unzip()
}

/// Property 2 for one case.
fn check_near_valid(parse: Reader, case: &NearValid) -> Result<(), TestCaseError> {
    let format = case.format;
    let file = format!("near.{format}");
    let newline = if case.crlf { "\r\n" } else { "\n" };
    let (mut text, mut line) = (String::new(), 0);
    let mut good: Vec<(Req, usize)> = Vec::new();
    let mut bad = None; // (line, mutated field text, must reject, line content)
    let mut bad_fields: Vec<String> = Vec::new();
    // ssdlab's CSV finds its columns by the header's names: put them in any order.
    let rotate = if format == Format::Csv { (case.before[0].style % 5) as usize } else { 0 };
    if format == Format::Csv {
        let (mut fields, _, sep) = valid_line(format, &case.before[0]);
        fields.rotate_left(rotate);
        text.push_str(&format!("{}{newline}", csv_header(&fields, sep)));
        line += 1;
    }
    if format == Format::FioIolog {
        text.push_str(&format!("fio version 3 iolog{newline}0 /dev/f add{newline}0 /dev/f open{newline}"));
        line += 3;
    }
    let seeds =
        case.before.iter().map(|s| (s, false)).chain([(&case.bad, true)]).chain(case.after.iter().map(|s| (s, false)));
    for (i, (seed, is_bad)) in seeds.enumerate() {
        let (mut fields, req, sep) = valid_line(format, seed);
        fields.rotate_left(rotate);
        line += 1;
        match case.mutation.as_ref().filter(|_| is_bad) {
            Some((m, pick)) => {
                let (value, reject) = mutate(format, &mut fields, m, *pick);
                bad_fields = fields.iter().map(|f| f.0.clone()).collect();
                let rendered = render(&fields, sep, seed.style);
                bad = Some((line, value, reject, rendered.trim().to_string()));
                text.push_str(&rendered);
            }
            None => {
                good.push((req, line));
                text.push_str(&render(&fields, sep, seed.style));
            }
        }
        text.push_str(newline);
        match case.fillers.get(i).copied().unwrap_or(0) {
            1 => text.push_str(newline),
            2 => text.push_str(&format!("# comment, with 1 2 3 fields{newline}")),
            3 => text.push_str(&format!(" \t {newline}")),
            _ => continue,
        }
        line += 1;
    }
    let result = parse(&text, format, &file);
    check_outcome(result.as_ref().map(Some), Some(&text), &file)?;
    let Some((bad_line, value, must_reject, bad_text)) = bad else {
        // All lines valid: exactly the generated requests.
        let trace = result.map_err(|e| TestCaseError::fail(format!("valid text rejected: {e}\n{text}")))?;
        let (records, lines) = expected(&good);
        prop_assert_eq!(&trace.records, &records, "{}", text);
        prop_assert_eq!(&trace.lines, &lines, "{}", text);
        // A built-in format's named column map reads its lines the same (crate docs).
        if let Some(map) = ColumnMap::named(format) {
            let mapped = parse_str_with(&text, Format::Csv, Some(&map), &file)
                .map_err(|e| TestCaseError::fail(format!("named map of {format}: {e}\n{text}")))?;
            prop_assert_eq!(&mapped.records, &records, "named map of {}:\n{}", format, text);
            prop_assert_eq!(&mapped.lines, &lines);
        }
        return Ok(());
    };
    match result {
        Ok(trace) => {
            prop_assert!(!must_reject, "line {bad_line} `{bad_text}` was accepted:\n{text}");
            // Every valid line is there with its request; blkparse may have stopped at a
            // mutated line that looks like its summary (`CPU...`).
            let stopped = format == Format::Blkparse && !trace.lines.contains(&bad_line);
            let (records, lines) = expected(&good);
            let first = lines.iter().position(|&l| trace.lines.contains(&l));
            for (want, &l) in records.iter().zip(&lines) {
                let Some(at) = trace.lines.iter().position(|&t| t == l) else {
                    prop_assert!(stopped && l > bad_line, "valid line {l} lost:\n{text}");
                    continue;
                };
                let got = trace.records[at];
                prop_assert_eq!(Record { arrival_ps: 0, ..got }, Record { arrival_ps: 0, ..*want }, "line {}", l);
                // Arrivals keep their distances (the mutated line may have moved the start).
                if let Some(f) = first {
                    let base = trace.records[trace.lines.iter().position(|&t| t == lines[f]).unwrap_or(0)];
                    let (got_d, want_d) = (
                        i128::from(got.arrival_ps) - i128::from(base.arrival_ps),
                        i128::from(want.arrival_ps) - i128::from(records[f].arrival_ps),
                    );
                    prop_assert_eq!(got_d, want_d, "line {} arrival", l);
                }
            }
        }
        Err(e) => {
            let msg = e.to_string();
            prop_assert!(
                msg.starts_with(&format!("{file}:{bad_line}: ")),
                "wrong line, want {bad_line}: {msg}\n{text}"
            );
            // The line, the mutated field, or (when a field went missing and the rest moved
            // up, as blkparse's variable field count allows) another field of the line.
            let shown = |t: &str| msg.contains(&format!("`{}`", echo(t)));
            let names_time = matches!(&e, TraceError::BadField { field: "arrival time", .. });
            let any_field = bad_fields.iter().any(|f| shown(f.trim()));
            prop_assert!(
                value.as_deref().is_some_and(|v| shown(v.trim())) || shown(&bad_text) || names_time || any_field,
                "the bad text is not echoed: {msg}\n{text}"
            );
        }
    }
    Ok(())
}
