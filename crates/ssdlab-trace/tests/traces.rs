use ssdlab_trace::{detect, detect_str, parse_str, read, summarize, write, Format, Op, Record, TraceError};
use std::path::{Path, PathBuf};

const KIB: f64 = 1024.0;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces").join(rel)
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn rec(arrival_ps: u64, device: u32, op: Op, offset_bytes: u64, size_bytes: u64) -> Record {
    Record { arrival_ps, device, op, offset_bytes, size_bytes }
}

/// The table of traces/README.md: file, format, requests, read %, avg size in KiB.
const README_TABLE: &str = "
    msr/hm_0.sample1000.csv                             msr       1000  50.8   9.5
    msr/msr.cut.per_10k.rw_20_80.105.trace              replayer 10000  20.2   5.4
    msr/msr.cut.per_10k.rw_40_60.1370.trace             replayer 10000  40.5   4.8
    msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace  replayer 10000  83.2  12.7
    umass/Financial1.first10k.ssdsim.ascii              ssdsim   10000  40.8   5.4
    mqsim/tpcc-small.trace                              mqsim     6999  62.6   8.3
    mqsim/wsrch-small.trace                             mqsim    24783 99.98  15.1
    tencent/cloud_storage-sample.csv                    tencent  50000  49.0  29.7";

/// A table value and half a unit of its last printed digit (`9.5` -> 0.05).
fn value_and_tolerance(text: &str) -> (f64, f64) {
    let decimals = text.split_once('.').map_or(0, |(_, frac)| frac.len());
    (text.parse().unwrap(), 0.5 / 10f64.powi(decimals as i32))
}

#[test]
fn shared_traces_match_readme_table() {
    for row in README_TABLE.lines().filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = row.split_whitespace().collect();
        let (file, format) = (cols[0], cols[1].parse::<Format>().unwrap());
        let path = shared(file);
        assert_eq!(detect(&path).unwrap(), format, "{file}");
        let trace = read(&path, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trace.format, format, "{file}");
        let s = summarize(&trace.records);
        assert_eq!(s.requests, cols[2].parse::<u64>().unwrap(), "{file}");
        assert_eq!(s.reads + s.writes, s.requests, "{file}");
        let (read_pct, tolerance) = value_and_tolerance(cols[3]);
        assert!((s.read_pct - read_pct).abs() <= tolerance, "{file}: {}", s.read_pct);
        let (avg_kib, tolerance) = value_and_tolerance(cols[4]);
        let kib = s.avg_size_bytes / KIB;
        assert!((kib - avg_kib).abs() <= tolerance, "{file}: avg {kib} KiB");
        let times: Vec<u64> = trace.records.iter().map(|r| r.arrival_ps).collect();
        assert!(times[0] == 0 && times.windows(2).all(|w| w[0] <= w[1]), "{file}");
        assert_eq!(s.span_ps, times[times.len() - 1], "{file}");
    }
}

#[test]
fn shared_trace_details() {
    // hm_0 lines 1-2 are 215 ticks of 100 ns apart.
    let msr = read(&shared("msr/hm_0.sample1000.csv"), None).unwrap();
    assert_eq!(msr.records[1], rec(21_500_000, 0, Op::Write, 11_855_351_808, 512));
    // Line 2 of rw_20_80: `223.412 0 3159347200 36864 0`.
    let rep = read(&shared("msr/msr.cut.per_10k.rw_20_80.105.trace"), None).unwrap();
    assert_eq!(rep.records[1], rec(223_412_000_000, 0, Op::Write, 3_159_347_200, 36_864));
    // Tencent: not time-sorted in the file, ~1 s long after sorting; addresses reach 1.5 TiB.
    let tencent = read(&shared("tencent/cloud_storage-sample.csv"), None).unwrap();
    let s = tencent.summary();
    assert!(s.span_ps <= 2_000_000_000_000);
    assert!(s.max_address_bytes as f64 / KIB.powi(4) > 1.0);
    // The last line of wsrch-small has no newline: `60066625000 1 34371424 64 1`.
    let wsrch = read(&shared("mqsim/wsrch-small.trace"), Some(Format::Mqsim)).unwrap();
    let last = wsrch.records.last().unwrap();
    assert_eq!((last.offset_bytes, last.size_bytes), (34_371_424 * 512, 64 * 512));
}

#[test]
fn tiny_inputs_parse_exactly() {
    let cases: Vec<(Format, &str, Vec<Record>)> = vec![
        (
            Format::Msr,
            "128166385295514663,hm,0,Write,9056014336,2048,2833\n\
             128166385295514878,hm,1,read,11855351808,512,2617",
            vec![rec(0, 0, Op::Write, 9_056_014_336, 2048), rec(21_500_000, 1, Op::Read, 11_855_351_808, 512)],
        ),
        (
            Format::Replayer,
            "# comment\n\n0.000 0 200626176 4096 0\n223.412 2 3159347200 36864 1\n",
            vec![rec(0, 0, Op::Write, 200_626_176, 4096), rec(223_412_000_000, 2, Op::Read, 3_159_347_200, 36_864)],
        ),
        (
            Format::Ssdsim,
            "0 0 303567 7 0\n26214000 1 55590 6 1\n",
            vec![rec(0, 0, Op::Write, 303_567 * 512, 3584), rec(26_214_000_000, 1, Op::Read, 55_590 * 512, 3072)],
        ),
        (
            Format::Mqsim,
            "938513000 4 264719034 16 0\r\n938828000 3 197570570 16 1\r\n",
            vec![rec(0, 4, Op::Write, 264_719_034 * 512, 8192), rec(315_000_000, 3, Op::Read, 197_570_570 * 512, 8192)],
        ),
        (
            Format::Disksim,
            "0.5 0 100 8 3\n1.250000001 2 200 3 2\n",
            vec![rec(0, 0, Op::Read, 51_200, 4096), rec(750_000_001, 2, Op::Write, 102_400, 1536)],
        ),
        (
            Format::Umass,
            "0,303567,3584,w,0.000000\n1,55590,3000,R,0.026214,extra\n",
            vec![rec(0, 0, Op::Write, 303_567 * 512, 3584), rec(26_214_000_000, 1, Op::Read, 55_590 * 512, 3000)],
        ),
        (
            Format::Tencent,
            "1538323200,4247200,128,1,1058\n1538323199,13896880,16,0,1063\n",
            vec![
                rec(0, 1063, Op::Read, 13_896_880 * 512, 8192),
                rec(1_000_000_000_000, 1058, Op::Write, 4_247_200 * 512, 65_536),
            ],
        ),
        (
            Format::Blkparse,
            "  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]\n\
               8,0    3        2     0.000001234   697  G   W 223490 + 8 [kjournald]\n\
               8,16   1        3     0.000500000   698  Q  RS 1000 + 16 [fio]\n\
               8,0    0        4     0.001000000     0  Q  DS 5000 + 2048 [fstrim]\n\
               8,0    0        5     0.002000000     0  Q FWS [kworker/0:1H]\n\
             CPU0 (8,0):\n Reads Queued:           0,        0KiB\n\
               8,0    0        6     junk     0  Q  W x + y [never parsed]\n",
            vec![
                rec(0, 2048, Op::Write, 223_490 * 512, 4096),
                rec(500_000_000, 2064, Op::Read, 512_000, 8192),
                rec(1_000_000_000, 2048, Op::Trim, 5000 * 512, 1024 * 1024),
            ],
        ),
    ];
    for (format, text, expected) in cases {
        let trace = parse_str(text, format, "tiny").unwrap_or_else(|e| panic!("{format}: {e}"));
        assert_eq!(trace.records, expected, "{format}");
        if format != Format::Disksim {
            let detected = detect_str(text, "tiny.ascii").unwrap();
            let same = [detected, format].iter().all(|f| matches!(f, Format::Ssdsim | Format::Mqsim));
            assert!(detected == format || same, "{format} detected as {detected}");
        }
    }
}

/// format | valid line | malformed line | text the error must show
const MALFORMED: &str = "
msr | 128166385295514663,hm,0,Write,9056014336,2048,2833 | 128166385295514663,hm,0,Write,9056014336,2048 | found 6
msr | 128166385295514663,hm,0,Write,9056014336,2048,2833 | 128166385295514663,hm,0,Write,90,abc,2833 | size_bytes `abc` is not a number
msr | 128166385295514663,hm,0,Write,9056014336,2048,2833 | 128166385295514663,hm,0,Erase,90,2048,2833 | type `Erase`
msr | 128166385295514663,hm,0,Write,9056014336,2048,2833 | 128166385295514663,hm,0,Write,90,0,2833 | size_bytes `0` is zero
replayer | 0.000 0 200626176 4096 0 | 0.000 0 200626176 4096 | found 4
replayer | 0.000 0 200626176 4096 0 | 0.0x0 0 200626176 4096 0 | ts_ms `0.0x0` is not a number
replayer | 0.000 0 200626176 4096 0 | 0.000 0 200626176 4096 2 | op `2`
replayer | 0.000 0 200626176 4096 0 | 0.000 0 200626176 0 0 | size_bytes `0` is zero
ssdsim | 0 0 303567 7 0 | 0 0 303567 7 0 9 | found 6
ssdsim | 0 0 303567 7 0 | 0 0 -303567 7 0 | lsn `-303567` is negative
ssdsim | 0 0 303567 7 0 | 0 0 303567 7 3 | op `3`
ssdsim | 0 0 303567 7 0 | 0 0 303567 0 0 | size_sectors `0` is zero
mqsim | 938513000 4 264719034 16 0 | 938513000 4 264719034 | found 3
mqsim | 938513000 4 264719034 16 0 | 938513000 4 264719034 1e3 0 | size_sectors `1e3` is not a number
mqsim | 938513000 4 264719034 16 0 | 938513000 4 264719034 16 read | type `read`
mqsim | 938513000 4 264719034 16 0 | 938513000 4 264719034 0 0 | size_sectors `0` is zero
disksim | 0.5 0 100 8 1 | 0.5 0 100 8 1 1 | found 6
disksim | 0.5 0 100 8 1 | -0.5 0 100 8 1 | time_ms `-0.5` is negative
disksim | 0.5 0 100 8 1 | 0.5 0 100 8 r | flags `r` is not a number
disksim | 0.5 0 100 8 1 | 0.5 0 100 0 1 | size_blocks `0` is zero
umass | 0,303567,3584,w,0.000000 | 0,303567,3584,w | found 4
umass | 0,303567,3584,w,0.000000 | 0,303567,35x4,w,0.0 | size_bytes `35x4` is not a number
umass | 0,303567,3584,w,0.000000 | 0,303567,3584,x,0.0 | opcode `x`
umass | 0,303567,3584,w,0.000000 | 0,303567,0,w,0.0 | size_bytes `0` is zero
tencent | 1538323200,4247200,128,1,1058 | 1538323200,4247200,128,1,1058,7 | found 6
tencent | 1538323200,4247200,128,1,1058 | 1538323200,42x,128,1,1058 | offset_sectors `42x` is not a number
tencent | 1538323200,4247200,128,1,1058 | 1538323200,4247200,128,2,1058 | type `2`
tencent | 1538323200,4247200,128,1,1058 | 1538323200,4247200,0,1,1058 | size_sectors `0` is zero
blkparse | 8,0 3 1 0.0 697 Q W 223490 + 8 [kjournald] | 8,0 3 1 0.0 697 Q W 223490 + | found 9
blkparse | 8,0 3 1 0.0 697 Q W 223490 + 8 [kjournald] | 8,0 3 1 0.0x 697 Q W 22 + 8 [k] | time_s `0.0x` is not a number
blkparse | 8,0 3 1 0.0 697 Q W 223490 + 8 [kjournald] | 8:0 3 1 0.1 697 Q W 22 + 8 [k] | device `8:0`
blkparse | 8,0 3 1 0.0 697 Q W 223490 + 8 [kjournald] | 8,0 3 1 0.1 697 Q W 22 + 0 [k] | count `0` is zero";

#[test]
fn malformed_lines_name_file_line_and_value() {
    for row in MALFORMED.lines().filter(|l| !l.is_empty()) {
        let cols: Vec<&str> = row.split(" | ").collect();
        let (format, good, bad, shown) = (cols[0].parse::<Format>().unwrap(), cols[1], cols[2], cols[3]);
        let file = format!("bad.{format}");
        let text = format!("{good}\n# comment\n{bad}");
        let err = parse_str(&text, format, &file).expect_err(bad).to_string();
        assert!(err.starts_with(&format!("{file}:3: ")), "{err}");
        assert!(err.contains(shown), "{err}");
        assert!(!shown.starts_with("found") || err.contains(bad), "{err}");
    }
    let path = temp_file("tpcc.trace", "0 1 2 16 0\n5 1 2 abc 0\n");
    let err = read(&path, None).unwrap_err().to_string();
    assert!(err.contains("tpcc.trace:2: size_sectors `abc` is not a number"), "{err}");
    let missing = Path::new("/nonexistent/dir/missing.trace");
    let err = read(missing, None).unwrap_err();
    assert!(matches!(err, TraceError::Io { .. }) && err.to_string().contains("missing.trace"));
    assert!(matches!(detect_str("\n# only comments\n", "e.csv"), Err(TraceError::Empty { .. })));
    assert!(matches!(detect_str("hello world", "x"), Err(TraceError::UnknownFormat { line: 1, .. })));
}

#[test]
fn write_then_read_round_trips() {
    // (format, time resolution in ps)
    let formats = [
        (Format::Msr, 100_000),
        (Format::Replayer, 1),
        (Format::Ssdsim, 1_000),
        (Format::Disksim, 1),
        (Format::Mqsim, 1_000),
        (Format::Umass, 1),
        (Format::Tencent, 1_000_000_000_000),
        (Format::Blkparse, 1_000),
    ];
    for (format, quantum_ps) in formats {
        let mut records = vec![
            rec(0, 0, Op::Write, 512 * 1000, 4096),
            rec(7 * quantum_ps, 3, Op::Read, 512 * 12_345_678, 3584),
            rec(123_457 * quantum_ps, 1063, Op::Read, 0, 512),
        ];
        if format == Format::Blkparse {
            records.push(rec(123_458 * quantum_ps, 2064, Op::Trim, 512 * 77, 1 << 20));
        }
        let mut out = Vec::new();
        write(&records, format, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let back = parse_str(&text, format, "roundtrip").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back.records, records, "{format}:\n{text}");
    }
    // Sector formats round unaligned extents outwards; trim needs blkparse.
    let mut out = Vec::new();
    write(&[rec(1_234, 0, Op::Write, 100, 1000)], Format::Mqsim, &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "1 0 0 3 0\n");
    let err = write(&[rec(0, 0, Op::Trim, 0, 512)], Format::Mqsim, Vec::new()).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
}

#[test]
fn decimal_time_with_odd_sizes_is_ambiguous() {
    let text = "0.5 0 100 7 1\n1.5 0 200 8 0\n";
    let err = read(&temp_file("odd.txt", text), None).unwrap_err();
    assert!(matches!(err, TraceError::Ambiguous { line: 1, .. }), "{err}");
    let msg = err.to_string();
    assert!(["odd.txt:1:", "disksim", "replayer", "`7`", "--format"].iter().all(|s| msg.contains(s)), "{msg}");
    assert_eq!(detect_str(text, "odd.disksim").unwrap(), Format::Disksim);
    assert_eq!(detect_str(text, "odd.ascii").unwrap(), Format::Disksim);
    assert_eq!(detect_str("0.5 0 1024 512 1\n1.5 0 0 4096 0\n", "x.txt").unwrap(), Format::Replayer);
    assert_eq!(detect_str("5 0 100 7 1\n", "x.txt").unwrap(), Format::Mqsim);
    assert_eq!(detect_str("0,303567,3584,W,0.0\n", "spc.csv").unwrap(), Format::Umass);
}

#[test]
fn format_names_and_summary() {
    for f in Format::ALL {
        assert_eq!(f.to_string().parse::<Format>().unwrap(), f);
    }
    assert_eq!("MQSim".parse::<Format>().unwrap(), Format::Mqsim);
    assert!("spc".parse::<Format>().is_err());
    let s = summarize(&[
        rec(5, 0, Op::Read, 0, 4096),
        rec(9, 0, Op::Write, 8192, 1024),
        rec(20, 0, Op::Trim, 1 << 20, 512),
        rec(20, 0, Op::Read, 4096, 2048),
    ]);
    assert_eq!((s.requests, s.reads, s.writes, s.trims), (4, 2, 1, 1));
    assert_eq!((s.read_pct, s.avg_size_bytes), (50.0, 7680.0 / 4.0));
    assert_eq!((s.avg_read_bytes, s.avg_write_bytes), (3072.0, 1024.0));
    assert_eq!((s.span_ps, s.max_address_bytes), (15, (1 << 20) + 512));
    assert_eq!(summarize(&[]).requests, 0);
}

#[test]
fn garbage_never_panics() {
    let seeds = [
        "128166385295514663,hm,0,Write,9056014336,2048,2833",
        "0.000 0 200626176 4096 0",
        "0,303567,3584,w,0.000000",
        "8,0 3 1 0.000000000 697 Q W 223490 + 8 [kjournald]",
    ];
    let alphabet = b"0123456789.,+- \t#rwRWDQ[e\n";
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for seed in seeds {
        for _ in 0..500 {
            let mut bytes = seed.as_bytes().to_vec();
            for _ in 0..3 {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let at = (state >> 33) as usize % bytes.len();
                bytes[at] = alphabet[(state >> 17) as usize % alphabet.len()];
            }
            let text = String::from_utf8(bytes).unwrap();
            let _ = detect_str(&text, "fuzz.trace");
            for format in Format::ALL {
                if let Ok(trace) = parse_str(&text, format, "fuzz") {
                    let mut out = Vec::new();
                    let _ = write(&trace.records, format, &mut out);
                }
            }
        }
    }
}

#[test]
fn replayer_bytes_and_sectors_are_separate_formats() {
    // Offset 16 sectors = 8192 B, size 8 sectors = 4096 B.
    let text = "0.5 0 16 8 1\n";
    let t = parse_str(text, Format::ReplayerSectors, "s.trace").unwrap();
    assert_eq!(t.records, vec![rec(0, 0, Op::Read, 8192, 4096)]);
    let err = parse_str(text, Format::Replayer, "s.trace").unwrap_err().to_string();
    assert_eq!(
        err,
        "s.trace:1: offset_bytes `16` is not a multiple of 512 bytes; if the trace counts 512 B sectors, use format replayer_sectors"
    );
    assert_eq!("replayer_bytes".parse::<Format>().unwrap(), Format::Replayer);
    assert_eq!("replayer_sectors".parse::<Format>().unwrap(), Format::ReplayerSectors);
    // Detection says why it read bytes.
    let path = temp_file("aligned.trace", "0.5 0 1024 512 1\n");
    let d = ssdlab_trace::detect_explained(&path).unwrap();
    assert_eq!(d.format, Format::Replayer);
    assert!(d.reason.contains("multiple of 512") && d.reason.contains("replayer_sectors"), "{}", d.reason);
}

#[test]
fn requests_of_more_than_u32_sectors_are_rejected() {
    // 2^32 - 1 sectors is the largest request; one sector more is an error naming the value.
    let max = parse_str("0 0 0 4294967295 1\n", Format::Mqsim, "m.trace").unwrap();
    assert_eq!(max.records[0].size_bytes, ssdlab_trace::MAX_REQUEST_BYTES);
    assert_eq!(ssdlab_trace::MAX_REQUEST_BYTES, 4_294_967_295 * 512);
    let err = parse_str("0 0 0 8 1\n1 0 0 4294967296 1\n", Format::Mqsim, "m.trace").unwrap_err().to_string();
    assert!(err.starts_with("m.trace:2: size_sectors `4294967296` is larger than 2199023255040 bytes"), "{err}");
    let err = parse_str("1,h,0,Read,0,2199023255552,0\n", Format::Msr, "m.csv").unwrap_err().to_string();
    assert!(err.starts_with("m.csv:1: size_bytes `2199023255552` is larger than"), "{err}");
}

#[test]
fn long_and_binary_lines_are_bounded_and_escaped() {
    let long = format!("0 0 0 8 1\n{}\n", "7".repeat(ssdlab_trace::MAX_LINE_BYTES + 1));
    let err = read(&temp_file("long.trace", &long), Some(Format::Mqsim)).unwrap_err();
    assert!(matches!(err, TraceError::LineTooLong { line: 2, limit: 65_536, .. }), "{err}");
    // A line of exactly the limit is read (and fails on its content, not its length).
    let exact = format!("{}\n", "7".repeat(ssdlab_trace::MAX_LINE_BYTES));
    let err = read(&temp_file("exact.trace", &exact), Some(Format::Mqsim)).unwrap_err();
    assert!(matches!(err, TraceError::FieldCount { line: 1, .. }), "{err}");
    // Echoes: 120 characters, then an ellipsis and the full length; escapes count as shown.
    let a200 = "a".repeat(200);
    assert_eq!(ssdlab_trace::echo(&a200), format!("{}… (200 bytes in all)", &a200[..120]));
    assert_eq!(ssdlab_trace::echo("x\u{0}\ty"), "x\\u{0}\\u{9}y");
    let bom = ssdlab_trace::echo("\u{feff}0.5");
    assert!(bom.starts_with("\\u{feff}0.5") && bom.contains("byte-order mark"), "{bom}");
}

/// A trace read with a limit of 5 requests: the 6th request's line (line 7, after a
/// comment) fails naming the limit and why; at 6 it reads whole.
#[test]
fn a_limited_read_stops_past_its_requests() {
    let mut text = String::from("# MSR trace\n");
    for i in 0..6 {
        text += &format!("{},hm,0,Read,{},4096,1\n", 128166385295514663u64 + i, i * 4096);
    }
    let path = temp_file("limited.csv", &text);
    let err = ssdlab_trace::read_limited(&path, Some(Format::Msr), None, Some((5, "test budget"))).unwrap_err();
    match &err {
        TraceError::TooManyRequests { line, limit, .. } => assert_eq!((*line, *limit), (7, 5)),
        other => panic!("expected TooManyRequests, got {other}"),
    }
    assert!(
        err.to_string().contains("more than 5 requests, the most this run can hold in memory (test budget)"),
        "{err}"
    );
    let whole = ssdlab_trace::read_limited(&path, Some(Format::Msr), None, Some((6, "test budget"))).unwrap();
    assert_eq!(whole.records.len(), 6);
}
