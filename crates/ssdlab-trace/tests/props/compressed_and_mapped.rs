//! Compressed input, column maps, round trips through the writer, and the checks of the test runner itself.

#[allow(unused_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// Property 4: compressed files
// ---------------------------------------------------------------------------------------------

pub(super) const COMPRESSIONS: [(Compression, &str); 4] =
    [(Compression::Gzip, "gz"), (Compression::Bzip2, "bz2"), (Compression::Zstd, "zst"), (Compression::Xz, "xz")];

/// How a compressed file is damaged: cut at a byte, or a byte changed.
#[derive(Debug, Clone)]
pub(super) enum Damage {
    None,
    Cut(usize),
    Flip(usize, u8),
}

pub(super) fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        2 => Just(Damage::None),
        1 => any::<usize>().prop_map(Damage::Cut),
        1 => (any::<usize>(), 1u8..=255).prop_map(|(at, x)| Damage::Flip(at, x)),
    ]
}

/// Property 4: a trace compressed with any of the four compressions (named by extension or
/// not) reads exactly as its plain text does, in every format and with detection; damaged,
/// it never panics and fails naming the file, or reads well-formed requests.
pub(super) fn check_compressed(
    text: &[u8],
    (compression, ext): (Compression, &str),
    named: bool,
    damage: &Damage,
    dir: &Scratch,
) -> Result<(), TestCaseError> {
    let started = Instant::now();
    let plain = dir.path("t.ascii");
    std::fs::write(&plain, text).expect("write plain");
    let mut packed_bytes = Vec::new();
    create(&mut packed_bytes, compression, |w| w.write_all(text)).expect("compress");
    let damaged = match *damage {
        Damage::None => false,
        Damage::Cut(at) => {
            packed_bytes.truncate(at % packed_bytes.len());
            true
        }
        Damage::Flip(at, x) => {
            let at = at % packed_bytes.len();
            packed_bytes[at] ^= x;
            true
        }
    };
    let packed = dir.path(&if named { format!("packed/t.ascii.{ext}") } else { "packed/t.ascii".to_string() });
    std::fs::create_dir_all(dir.path("packed")).expect("mkdir");
    std::fs::write(&packed, &packed_bytes).expect("write packed");
    let (plain_name, packed_name) = (plain.display().to_string(), packed.display().to_string());
    let formats = Format::ALL.into_iter().map(Some).chain([None]);
    for format in formats {
        let got = read(&packed, format);
        if damaged {
            check_outcome(got.as_ref().map(Some), None, &packed_name)?;
            continue;
        }
        match (got, read(&plain, format)) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => {
                prop_assert_eq!(a.to_string().replace(&packed_name, "F"), b.to_string().replace(&plain_name, "F"))
            }
            (a, b) => prop_assert!(false, "{format:?}: compressed {a:?}, plain {b:?}"),
        }
    }
    prop_assert!(started.elapsed() < CASE_TIME_LIMIT, "{} bytes took {:?}", text.len(), started.elapsed());
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Property 5: column maps
// ---------------------------------------------------------------------------------------------

pub(super) const COLUMN_TOKENS: &[&str] = &[
    "time",
    "op",
    "offset",
    "size",
    "device",
    "flow",
    "=",
    "=",
    ":",
    ",",
    ",",
    "1",
    "2",
    "3",
    "4",
    "5",
    "0",
    "99",
    "18446744073709551616",
    "ns",
    "us",
    "ms",
    "s",
    "filetime",
    "bytes",
    "sectors",
    "blocks4096",
    "blocks0",
    "blocks",
    "Timestamp",
    "Type",
    "msr",
    "umass",
    "disksim",
    "csv",
    " ",
    "é",
    "\u{0}",
];
pub(super) const OPS_TOKENS: &[&str] =
    &["28", "2a", "0x28", "r", "W", "read", "write", "trim", "flush", "=", ",", "", " ", "é", "\u{0}"];
pub(super) const SEPARATORS: &[&str] =
    &[",", ";", "tab", "\t", "blanks", " ", "|", "comma", "semicolon", "é", "ab", "", ".", "-", "1"];

/// Arguments of `ColumnMap::parse`: columns, ops, separator, header, skip.
type MapArgs = (String, Option<String>, Option<String>, bool, usize);

pub(super) fn map_args() -> impl Strategy<Value = MapArgs> {
    let columns = prop_oneof![
        prop::collection::vec(prop::sample::select(COLUMN_TOKENS), 0..24).prop_map(|t| t.concat()),
        prop::sample::select(vec![
            "time=1:us,op=4,offset=5:sectors,size=6:bytes,device=2",
            "time=Timestamp:filetime,op=Type,offset=Offset,size=Size",
            "op=1,offset=2,size=3",
            "msr",
            "umass",
        ])
        .prop_map(str::to_string),
    ];
    let ops = prop::option::of(prop::collection::vec(prop::sample::select(OPS_TOKENS), 0..12).prop_map(|t| t.concat()));
    let separator = prop::option::of(prop::sample::select(SEPARATORS).prop_map(str::to_string));
    (columns, ops, separator, any::<bool>(), 0usize..4)
}

/// Property 5: any `--columns`, `--ops` and `--separator` text either makes a map or is an
/// error message; any text read with a map is well-formed requests or a file:line error.
pub(super) fn check_column_map(args: &MapArgs, text: &[u8]) -> Result<(), TestCaseError> {
    let (columns, ops, separator, header, skip) = args;
    let Ok(map) = ColumnMap::parse(columns, ops.as_deref(), separator.as_deref(), *header, *skip) else {
        return Ok(());
    };
    let text = String::from_utf8_lossy(text);
    let result = parse_str_with(&text, Format::Csv, Some(&map), "mapped.csv");
    check_outcome(result.as_ref().map(Some), Some(&text), "mapped.csv")
}

/// Text for column maps: header-like lines, then lines of real traces.
pub(super) fn mapped_text() -> impl Strategy<Value = Vec<u8>> {
    let header = prop::sample::select(vec![
        "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n",
        "time,device,op,offset,size\n",
        "\"Time\";\"Op\"\n",
        "",
    ]);
    (header, prop_oneof![3 => template_lines(), 1 => arbitrary_bytes()]).prop_map(|(h, mut t)| {
        let mut out = h.as_bytes().to_vec();
        out.append(&mut t);
        out
    })
}

// ---------------------------------------------------------------------------------------------
// Property 3: write, then read back
// ---------------------------------------------------------------------------------------------

pub(super) fn record() -> impl Strategy<Value = Record> {
    let arrival = prop_oneof![any::<u64>(), 0u64..1_000_000_000_000_000];
    let op = prop_oneof![4 => Just(Op::Read), 4 => Just(Op::Write), 1 => Just(Op::Trim)];
    let offset = prop_oneof![4 => 0u64..1 << 45, 1 => (1u64 << 63) - (1 << 12)..=1 << 63];
    let size = prop_oneof![4 => 1u64..=1 << 20, 1 => MAX_REQUEST_BYTES - 2048..=MAX_REQUEST_BYTES];
    (arrival, any::<u32>(), op, offset, size).prop_map(|(arrival_ps, device, op, offset_bytes, size_bytes)| {
        // Within limits after the writer rounds the extent out to whole sectors: a request
        // near the largest size is whole sectors already.
        let (offset_bytes, size_bytes) = if size_bytes > MAX_REQUEST_BYTES - 1024 {
            (offset_bytes / SECTOR_BYTES * SECTOR_BYTES, size_bytes / SECTOR_BYTES * SECTOR_BYTES)
        } else {
            (offset_bytes, size_bytes)
        };
        Record { arrival_ps, device, op, offset_bytes, size_bytes }
    })
}

/// Time resolution of each format as written, in ps.
pub(super) fn quantum_ps(format: Format) -> u64 {
    match format {
        Format::Msr => 100_000,                                            // Windows filetime ticks
        Format::Csv => 1,                                                  // ns with 3 decimals
        Format::Ssdsim | Format::Mqsim | Format::Blkparse => 1_000,        // ns
        Format::FioIolog => 1_000_000,                                     // µs
        Format::Tencent => 1_000_000_000_000,                              // whole seconds
        Format::Replayer | Format::ReplayerSectors | Format::Disksim => 1, // ms with 9 decimals
        Format::Umass => 1,                                                // s with 12 decimals
    }
}

/// What reading `write(records, format)` back must give, per the crate docs:
/// - times truncated to [`quantum_ps`], then re-based on the earliest and stably sorted;
/// - extents: msr and csv keep bytes; umass has a sector offset and a byte size, so the offset is
///   rounded down and the size grows by what was cut; every other format (sector units, and
///   `replayer`, whose byte values must be whole sectors) rounds the extent outwards to
///   whole 512 B sectors;
/// - devices: every format carries a u32 (blkparse as `major,minor` = `device / 256,
///   device % 256`), except fio_iolog, which writes a file per device in ascending order and
///   reads a file's place back: the device's rank among the trace's devices;
/// - lines: csv opens with its header line, fio_iolog with its version line and an `add` and
///   an `open` line per device;
/// - ops: trim only in blkparse, csv and fio_iolog (the writer refuses it elsewhere).
pub(super) fn expected_round_trip(records: &[Record], format: Format) -> (Vec<Record>, Vec<usize>) {
    let q = quantum_ps(format);
    let mut devices: Vec<u32> = records.iter().map(|r| r.device).collect();
    devices.sort_unstable();
    devices.dedup();
    let preamble = match format {
        Format::Csv => 1,
        Format::FioIolog => 1 + 2 * devices.len(),
        _ => 0,
    };
    let reqs: Vec<(Req, usize)> = records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let first = r.offset_bytes / SECTOR_BYTES * SECTOR_BYTES;
            let (offset_bytes, size_bytes) = match format {
                Format::Msr | Format::Csv | Format::FioIolog => (r.offset_bytes, r.size_bytes),
                Format::Umass => (first, r.size_bytes + r.offset_bytes % SECTOR_BYTES),
                _ => (first, (r.offset_bytes + r.size_bytes).div_ceil(SECTOR_BYTES) * SECTOR_BYTES - first),
            };
            let device = match format {
                Format::FioIolog => devices.binary_search(&r.device).expect("a device of the records") as u32,
                _ => r.device,
            };
            let req = Req { time_ps: r.arrival_ps / q * q, device, op: r.op, offset_bytes, size_bytes };
            (req, preamble + i + 1)
        })
        .collect();
    expected(&reqs)
}

/// The file name detection should see for a trace written in `format`.
pub(super) fn conventional_name(format: Format) -> &'static str {
    match format {
        Format::Msr | Format::Umass | Format::Tencent | Format::Csv => "t.csv",
        Format::Ssdsim => "t.ascii",
        Format::Disksim => "t.disksim",
        _ => "t.trace",
    }
}

/// Property 3 for one list of records.
pub(super) fn check_round_trip(parse: Reader, records: &[Record], format: Format) -> Result<(), TestCaseError> {
    let trims = records.iter().any(|r| r.op == Op::Trim);
    if !can_trim(format) && trims {
        // Only blkparse and csv can express trim; the others refuse it and round-trip the rest.
        let written = write(records, format, Vec::new());
        prop_assert!(matches!(&written, Err(e) if e.kind() == std::io::ErrorKind::InvalidInput), "{written:?}");
        let rest: Vec<Record> = records.iter().filter(|r| r.op != Op::Trim).copied().collect();
        return if rest.is_empty() { Ok(()) } else { check_round_trip(parse, &rest, format) };
    }
    let too_long = |r: &Record| r.size_bytes > u64::from(u32::MAX);
    if format == Format::FioIolog && records.iter().any(too_long) {
        // fio reads a length as 32 bits: the writer refuses longer requests.
        let written = write(records, format, Vec::new());
        prop_assert!(matches!(&written, Err(e) if e.kind() == std::io::ErrorKind::InvalidInput), "{written:?}");
        let rest: Vec<Record> = records.iter().filter(|r| !too_long(r)).copied().collect();
        return if rest.is_empty() { Ok(()) } else { check_round_trip(parse, &rest, format) };
    }
    let mut out = Vec::new();
    let written = write(records, format, &mut out);
    prop_assert!(written.is_ok(), "{written:?}");
    let text = String::from_utf8(out).map_err(|e| TestCaseError::fail(format!("not UTF-8: {e}")))?;
    let name = conventional_name(format);
    let back = parse(&text, format, name).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    let (want, lines) = expected_round_trip(records, format);
    prop_assert_eq!(back.format, format);
    prop_assert_eq!(&back.records, &want, "{}", text);
    prop_assert_eq!(&back.lines, &lines);
    // Detection reads it the same, except that a decimal-time sector trace (disksim,
    // replayer_sectors) whose sampled values all happen to be multiples of 512 reads as
    // replayer (bytes), and replayer_sectors is otherwise ambiguous with disksim; csv is
    // detected by ssdlab's own header, which `write` puts first.
    match (format, detect_str(&text, name)) {
        (Format::Disksim | Format::ReplayerSectors, Ok(Format::Replayer)) => {}
        (Format::ReplayerSectors, Err(TraceError::Ambiguous { .. })) => {}
        (_, Ok(found)) => {
            let again = parse(&text, found, name).map_err(|e| TestCaseError::fail(format!("as {found}: {e}")))?;
            prop_assert_eq!(&again.records, &want, "detected {}", found);
        }
        (_, Err(e)) => prop_assert!(false, "{format} text not detected: {e}\n{text}"),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The properties, on the real reader
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn arbitrary_bytes_never_panic_and_name_file_and_line(
        bytes in arbitrary_bytes(),
        name in prop::sample::select(NAMES),
    ) {
        let dir = Scratch::new("bytes");
        check_arbitrary_bytes(parse_str, &bytes, name, &dir)?;
    }

    #[test]
    fn near_valid_lines_are_read_exactly_or_rejected_at_their_line(case in near_valid()) {
        check_near_valid(parse_str, &case)?;
    }

    #[test]
    fn compressed_traces_read_as_their_text(
        text in prop_oneof![3 => template_lines(), 1 => arbitrary_bytes()],
        compression in prop::sample::select(COMPRESSIONS.to_vec()),
        named in any::<bool>(),
        damage in damage(),
    ) {
        let dir = Scratch::new("compressed");
        check_compressed(&text, compression, named, &damage, &dir)?;
    }

    #[test]
    fn column_maps_of_any_text_never_panic(args in map_args(), text in mapped_text()) {
        check_column_map(&args, &text)?;
    }

    #[test]
    fn write_then_parse_preserves_every_request(
        records in prop::collection::vec(record(), 1..40),
        format in prop::sample::select(Format::ALL.to_vec()),
    ) {
        check_round_trip(parse_str, &records, format)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Tests of the tests: each property catches a deliberately broken reader
// ---------------------------------------------------------------------------------------------

/// Drops the last record of every trace.
pub(super) fn drops_last_record(text: &str, format: Format, file: &str) -> Result<Trace, TraceError> {
    let mut t = parse_str(text, format, file)?;
    t.records.pop();
    t.lines.pop();
    Ok(t)
}

/// Panics on a line with a NUL in it, as a reader indexing past a field might.
pub(super) fn panics_on_nul(text: &str, format: Format, file: &str) -> Result<Trace, TraceError> {
    assert!(!text.lines().any(|l| l.contains('\0')), "broken reader: NUL");
    parse_str(text, format, file)
}

/// Counts lines from 0 after the first one (reports line N + 1 from line 2 on).
pub(super) fn off_by_one_line(text: &str, format: Format, file: &str) -> Result<Trace, TraceError> {
    let shift = |l: usize| if l > 1 { l + 1 } else { l };
    match parse_str(text, format, file) {
        Ok(mut t) => {
            t.lines.iter_mut().for_each(|l| *l = shift(*l));
            Ok(t)
        }
        Err(TraceError::BadField { file, line, field, value, problem }) => {
            Err(TraceError::BadField { file, line: shift(line), field, value, problem })
        }
        Err(TraceError::FieldCount { file, line, expected, found, text }) => {
            Err(TraceError::FieldCount { file, line: shift(line), expected, found, text })
        }
        Err(e) => Err(e),
    }
}

/// Skips lines it cannot read instead of failing.
pub(super) fn swallows_bad_lines(text: &str, format: Format, file: &str) -> Result<Trace, TraceError> {
    let kept: Vec<&str> = text.lines().map(|l| if parse_str(l, format, file).is_ok() { l } else { "" }).collect();
    parse_str(&kept.join("\n"), format, file)
}

/// Runs `property` with a fixed configuration and returns whether it found a failing case.
pub(super) fn catches<S: Strategy>(strategy: S, property: impl Fn(S::Value) -> Result<(), TestCaseError>) -> bool
where
    S::Value: std::fmt::Debug,
{
    let mut runner = TestRunner::new(ProptestConfig { max_shrink_iters: 32, ..config(CASES) });
    matches!(runner.run(&strategy, property), Err(TestError::Fail(..)))
}

#[test]
pub(super) fn round_trip_catches_a_reader_that_drops_the_last_record() {
    let strategy = (prop::collection::vec(record(), 1..40), prop::sample::select(Format::ALL.to_vec()));
    assert!(catches(strategy, |(records, format)| check_round_trip(drops_last_record, &records, format)));
}

#[test]
pub(super) fn near_valid_catches_a_reader_that_reports_the_wrong_line() {
    assert!(catches(near_valid(), |case| check_near_valid(off_by_one_line, &case)));
}

#[test]
pub(super) fn near_valid_catches_a_reader_that_skips_bad_lines() {
    assert!(catches(near_valid(), |case| check_near_valid(swallows_bad_lines, &case)));
}

#[test]
pub(super) fn arbitrary_bytes_catch_a_reader_that_panics() {
    let dir = Scratch::new("broken");
    let strategy = (arbitrary_bytes(), prop::sample::select(NAMES));
    assert!(catches(strategy, |(bytes, name)| check_arbitrary_bytes(panics_on_nul, &bytes, name, &dir)));
}

/// The real reader passes the same runs the broken ones fail (so the runs above fail for the
/// breakage, not for their configuration).
#[test]
pub(super) fn the_real_reader_passes_the_test_runner_runs() {
    let strategy = (prop::collection::vec(record(), 1..40), prop::sample::select(Format::ALL.to_vec()));
    assert!(!catches(strategy, |(records, format)| check_round_trip(parse_str, &records, format)));
    assert!(!catches(near_valid(), |case| check_near_valid(parse_str, &case)));
}
