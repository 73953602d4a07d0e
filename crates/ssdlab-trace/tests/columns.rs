//! Column-mapped traces (`--format csv --columns ...`) and compressed traces, against values
//! worked by hand and against the built-in readers.

use std::path::{Path, PathBuf};

use ssdlab_trace::{
    create, parse_str, parse_str_with, read, read_with, write, ColumnMap, Compression, Format, Op, Record, TraceError,
};

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-columns-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces").join(rel)
}

fn rec(arrival_ps: u64, device: u32, op: Op, offset_bytes: u64, size_bytes: u64) -> Record {
    Record { arrival_ps, device, op, offset_bytes, size_bytes }
}

/// A SCSI-style CSV: a header, times in µs, hex op codes (0x28 read, 0x2a write, 0x42 unmap),
/// offsets in 512 B sectors, sizes in bytes, the columns in their own order. By hand:
/// line 3 at 10.5 µs = 10,500,000 ps, sector 8 = 4096 B; line 4 re-based from 10.5 µs.
#[test]
fn a_csv_with_a_header_hex_op_codes_and_sector_offsets_reads_by_hand() {
    let text = "# exported by some tool\n\
                Time(us);Device;Lba;Bytes;Cmd\n\
                10.5;3;8;4096;0x28\n\
                12.25;3;16;8192;2A\n\
                11;4;100;512;42\n";
    let map = ColumnMap::parse(
        "time=Time(us):us,device=Device,offset=Lba:sectors,size=Bytes,op=Cmd",
        Some("28=read,2a=write,42=trim"),
        Some(";"),
        true,
        0,
    )
    .expect("a map");
    let t = parse_str_with(text, Format::Csv, Some(&map), "scsi.csv").expect("parses");
    assert_eq!(
        t.records,
        vec![
            rec(0, 3, Op::Read, 4096, 4096),
            rec(500_000, 4, Op::Trim, 51_200, 512),
            rec(1_750_000, 3, Op::Write, 8192, 8192),
        ]
    );
    assert_eq!(t.lines, vec![3, 5, 4]);
}

/// Columns by number, blank-separated, blocks of 4 KiB, no time column (all at 0), a preamble
/// of two lines skipped.
#[test]
fn numbered_columns_blocks_and_a_skipped_preamble() {
    let text = "generated 2026\nvolume A\nW 10 2\nR 11 1\n";
    let map = ColumnMap::parse("op=1,offset=2:blocks4096,size=3:blocks4096", None, Some("blanks"), false, 2).unwrap();
    let t = parse_str_with(text, Format::Csv, Some(&map), "blocks.txt").unwrap();
    assert_eq!(t.records, vec![rec(0, 0, Op::Write, 40_960, 8192), rec(0, 0, Op::Read, 45_056, 4096)]);
}

/// Each built-in format's named map reads its own sample lines exactly as its own reader does.
#[test]
fn every_built_in_format_that_fits_is_a_named_map_of_its_own_reader() {
    let samples = [
        (
            Format::Msr,
            "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295515175,hm,1,Read,5548077056,4096,2320\n",
        ),
        (Format::Replayer, "0.5 1 4096 8192 1\n1.25 0 0 512 0\n"),
        (Format::ReplayerSectors, "0.5 1 8 16 1\n1.25 0 0 1 0\n"),
        (Format::Ssdsim, "1000 0 8 16 1\n2500 1 0 8 0\n"),
        (Format::Mqsim, "1000 0 8 16 1\n2500 1 0 8 0\n"),
        (Format::Umass, "0,303567,3584,w,0.000000\n1,55590,3072,r,0.000366\n"),
        (Format::Tencent, "1538323200,10,8,0,1063\n1538323201,20,16,1,1063\n"),
    ];
    for (format, text) in samples {
        let own = parse_str(text, format, "sample").unwrap();
        let map = ColumnMap::named(format).unwrap_or_else(|| panic!("{format} has a map"));
        let mapped = parse_str_with(text, Format::Csv, Some(&map), "sample").unwrap();
        assert_eq!(mapped.records, own.records, "{format}");
        let by_name = ColumnMap::parse(format.name(), None, None, false, 0).unwrap();
        assert_eq!(by_name, map, "--columns {format}");
    }
    assert!(ColumnMap::named(Format::Disksim).is_none() && ColumnMap::named(Format::Blkparse).is_none());
}

/// ssdlab's own CSV: what `trace convert --to csv` writes reads back unchanged, trims included.
#[test]
fn ssdlab_csv_round_trips_every_request() {
    let records = vec![
        rec(0, 0, Op::Read, 512, 4096),
        rec(1_234_567, 7, Op::Trim, 1 << 40, 1 << 20),
        rec(9_999_999_999, 2, Op::Write, 0, 512),
    ];
    let mut out = Vec::new();
    write(&records, Format::Csv, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("time_ns,device,op,offset_bytes,size_bytes\n0.000,0,read,512,4096\n1234.567,7,trim"),
        "{text}"
    );
    assert_eq!(parse_str(&text, Format::Csv, "own.csv").unwrap().records, records);
}

#[test]
fn bad_column_maps_and_lines_are_errors_naming_what_is_wrong() {
    let err = |c: &str, ops: Option<&str>| ColumnMap::parse(c, ops, None, false, 0).unwrap_err();
    assert!(err("time=1,op=2,offset=3", None).contains("needs `size=COLUMN`"));
    assert!(err("time=0,op=2,offset=3,size=4", None).contains("count from 1"));
    assert!(err("time=1:fortnights,op=2,offset=3,size=4", None).contains("fortnights"));
    assert!(err("op=2,offset=3:pages,size=4", None).contains("blocksN"));
    assert!(err("op=2,offset=3,size=4,op=5", None).contains("twice"));
    assert!(err("op=Cmd,offset=3,size=4", None).contains("needs a header"));
    assert!(err("op=2,offset=3,size=4", Some("28=read,28=write")).contains("twice"));
    assert!(err("op=2,offset=3,size=4", Some("28=erase")).contains("erase"));
    assert!(err("blkparse", None).contains("no column map"));
    let map = ColumnMap::parse("op=1,offset=2,size=3", Some("r=read"), None, false, 0).unwrap();
    let e = parse_str_with("r,0,512\nq,0,512\n", Format::Csv, Some(&map), "t.csv").unwrap_err();
    assert_eq!(e.to_string(), "t.csv:2: op `q` is none of `r` (read)");
    let e = parse_str_with("r,0\n", Format::Csv, Some(&map), "t.csv").unwrap_err();
    assert!(matches!(e, TraceError::FieldCount { line: 1, found: 2, .. }), "{e}");
    let header = ColumnMap::parse("op=Op,offset=Off,size=Size", None, None, true, 0).unwrap();
    let e = parse_str_with("Op,Offset,Size\nr,0,512\n", Format::Csv, Some(&header), "h.csv").unwrap_err();
    assert!(e.to_string().starts_with("h.csv:1: header `Op,Offset,Size` has no column named `Off`"), "{e}");
}

/// The shipped MSR excerpt compressed with each of the four formats reads back exactly as the
/// plain file, by content; named `.gz` but not gzip is an error, not a misread.
#[test]
fn compressed_traces_read_as_the_plain_file() {
    let plain = shared("msr/hm_0.sample1000.csv");
    let expected = read(&plain, None).expect("the shipped excerpt");
    let bytes = std::fs::read(&plain).unwrap();
    for (c, ext) in
        [(Compression::Gzip, "gz"), (Compression::Bzip2, "bz2"), (Compression::Zstd, "zst"), (Compression::Xz, "xz")]
    {
        let path = temp_path(&format!("hm_0.csv.{ext}"));
        let file = std::fs::File::create(&path).unwrap();
        create(file, c, |w| w.write_all(&bytes)).unwrap();
        assert_eq!(Compression::of_magic(&std::fs::read(&path).unwrap()), c);
        let t = read(&path, None).unwrap_or_else(|e| panic!("{ext}: {e}"));
        assert_eq!((t.format, &t.records), (Format::Msr, &expected.records), "{ext}");
        // The magic decides, not the name.
        let renamed = temp_path(&format!("hm_0-{ext}.data"));
        std::fs::rename(&path, &renamed).unwrap();
        assert_eq!(read(&renamed, None).unwrap().records, expected.records);
    }
    let liar = temp_path("plain.csv.gz");
    std::fs::write(&liar, &bytes).unwrap();
    let e = read(&liar, None).unwrap_err().to_string();
    assert!(e.contains("plain.csv.gz") && e.contains("the name says gzip but the content is uncompressed"), "{e}");
}

/// A compressed trace with a format extension inside (`.ascii.gz`) keeps the extension's
/// tie-break: integer-time five-field lines read as ssdsim, not mqsim.
#[test]
fn the_extension_under_the_compression_still_breaks_ties() {
    let path = temp_path("fin.ascii.gz");
    create(std::fs::File::create(&path).unwrap(), Compression::Gzip, |w| w.write_all(b"100 0 8 16 1\n")).unwrap();
    assert_eq!(read(&path, None).unwrap().format, Format::Ssdsim);
    let map = ColumnMap::named(Format::Mqsim).unwrap();
    assert_eq!(read_with(&path, None, Some(&map)).unwrap().records, vec![rec(0, 0, Op::Read, 4096, 8192)]);
}
