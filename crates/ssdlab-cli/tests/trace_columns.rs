//! The commands of docs/workload.md's "Column-mapped traces", "Compressed traces" and
//! "Multi-device traces", run as written there. Expected values are worked from the files'
//! text (request counts, reads, devices, bytes).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_ssdlab");
const MQSIM_DEFAULT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/mqsim-default.toml");
const HM0: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/msr/hm_0.sample1000.csv");

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ssdlab-cli-columns-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Exit code, stdout, stderr.
fn ssdlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().expect("runs");
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

const SCSI: &str = "Time(us);Device;Lba;Bytes;Cmd\n10.5;3;8;4096;0x28\n12.25;3;16;8192;2A\n11;4;100;512;2a\n";
const SCSI_COLUMNS: &str = "time=Time(us):us,device=Device,offset=Lba:sectors,size=Bytes,op=Cmd";

/// The docs' CSV command: a header, hex op codes, sector offsets — 3 requests (1 read), 1 of
/// them on device 4; 4096 + 8192 + 512 bytes moved.
#[test]
fn a_csv_trace_with_a_header_hex_ops_and_sector_offsets_runs_in_one_command() {
    let d = dir("csv");
    let trace = d.join("scsi.csv");
    std::fs::write(&trace, SCSI).unwrap();
    let t = trace.to_str().unwrap();
    let map = ["--columns", SCSI_COLUMNS, "--ops", "28=read,2a=write", "--separator", ";", "--header"];
    let mut args = vec!["run", "--config", MQSIM_DEFAULT, "--workload", t, "--json"];
    args.extend(map);
    let (code, out, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let host = &r["sim"]["host"];
    assert_eq!(host["requests_completed"], 3);
    let lat = &r["sim"]["latency_us"];
    assert_eq!((lat["read"]["count"].as_u64(), lat["write"]["count"].as_u64()), (Some(1), Some(2)));
    let mut info = vec!["trace", "info", t, "--device", "4"];
    info.extend(map);
    let (code, out, err) = ssdlab(&info);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("requests       1\n") && out.contains("devices        1 (4)"), "{out}");
}

/// Bad column maps and lines exit 2 naming the option, or the file and line.
#[test]
fn bad_maps_and_lines_exit_2_with_the_file_and_line() {
    let d = dir("bad");
    let trace = d.join("scsi.csv");
    std::fs::write(&trace, SCSI).unwrap();
    let t = trace.to_str().unwrap();
    let (code, _, err) = ssdlab(&["trace", "info", t, "--columns", SCSI_COLUMNS, "--separator", ";", "--header"]);
    assert_eq!(code, 2);
    assert!(err.contains("scsi.csv:2: op `0x28` is none of"), "{err}");
    let (code, _, err) = ssdlab(&["trace", "info", t, "--columns", "op=1,offset=2"]);
    assert_eq!(code, 2);
    assert!(err.contains("needs `size=COLUMN`"), "{err}");
    let (code, _, err) = ssdlab(&["trace", "info", t, "--header"]);
    assert_eq!(code, 2);
    assert!(err.contains("need --columns"), "{err}");
}

/// The docs' gzip command: the shipped MSR excerpt, gzip-compressed, runs directly and gives
/// the plain file's report; `trace info` sees the README's 1000 requests, 508 reads.
#[test]
fn a_gzip_compressed_msr_trace_runs_directly() {
    let d = dir("gz");
    let gz = d.join("hm_0.sample1000.csv.gz");
    let mut e = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::default());
    e.write_all(&std::fs::read(HM0).unwrap()).unwrap();
    e.finish().unwrap();
    let run = |w: &str| {
        let (code, out, err) =
            ssdlab(&["run", "--config", MQSIM_DEFAULT, "--workload", w, "--address-mode", "wrap", "--json"]);
        assert_eq!(code, 0, "{err}");
        let mut r: Value = serde_json::from_str(&out).unwrap();
        r["run"] = Value::Null;
        r["workload"] = Value::Null;
        r["sim"]["flows"][0]["name"] = Value::Null; // the file's name
        r
    };
    let compressed = run(gz.to_str().unwrap());
    assert_eq!(compressed["sim"]["host"]["requests_completed"], 1000);
    assert_eq!(compressed, run(HM0), "the same report as the plain file");
    let (code, out, _) = ssdlab(&["trace", "info", gz.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        out.contains("compression    gzip")
            && out.contains("requests       1000\n")
            && out.contains("reads          508"),
        "{out}"
    );
}

/// `trace convert` to ssdlab's CSV, compressed by the output's name, reads back to the same
/// requests as the source (`trace info` figures equal).
#[test]
fn convert_writes_any_format_compressed_by_name_and_reads_back() {
    let d = dir("convert");
    for ext in ["csv.zst", "csv.xz", "csv.bz2", "csv"] {
        let out = d.join(format!("hm_0.{ext}"));
        let o = out.to_str().unwrap();
        let (code, _, err) = ssdlab(&["trace", "convert", HM0, "--to", "csv", "--out", o]);
        assert_eq!(code, 0, "{err}");
        let info = |args: &[&str]| {
            let (code, out, err) = ssdlab(args);
            assert_eq!(code, 0, "{err}");
            out.lines()
                .filter(|l| !l.starts_with("file") && !l.starts_with("format") && !l.starts_with("compression"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(info(&["trace", "info", o, "--format", "csv"]), info(&["trace", "info", HM0]), "{ext}");
        assert_eq!(info(&["trace", "info", o]), info(&["trace", "info", HM0]), "{ext}: detected by its header");
    }
}

/// One flow per device of a two-device trace: each flow replays its own device's requests
/// (3 on device 0, 2 on device 1); a device the trace lacks is an error listing those it has.
#[test]
fn a_workload_maps_a_multi_device_trace_to_one_flow_per_device() {
    let d = dir("devices");
    // mqsim layout: arrival_ns device lba sectors type(1 = read)
    std::fs::write(d.join("two.trace"), "0 0 0 8 1\n10 1 8 8 0\n20 0 16 8 1\n30 1 24 8 1\n40 0 32 8 0\n").unwrap();
    let flow = |name: &str, device: u32| {
        format!("[[flows]]\nname = \"{name}\"\ntype = \"trace\"\npath = \"two.trace\"\ndevice = {device}\nqueue_depth = 1\n")
    };
    let wl = d.join("devices.toml");
    std::fs::write(&wl, format!("{}{}", flow("dev0", 0), flow("dev1", 1))).unwrap();
    let (code, out, err) = ssdlab(&["run", "--config", MQSIM_DEFAULT, "--workload", wl.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let flows = r["sim"]["flows"].as_array().unwrap();
    let counts: Vec<(String, u64)> = flows
        .iter()
        .map(|f| (f["name"].as_str().unwrap().to_string(), f["requests_completed"].as_u64().unwrap()))
        .collect();
    assert_eq!(counts, vec![("dev0".into(), 3), ("dev1".into(), 2)]);
    std::fs::write(&wl, flow("dev7", 7)).unwrap();
    let (code, _, err) = ssdlab(&["run", "--config", MQSIM_DEFAULT, "--workload", wl.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("two.trace: device = 7: no request of that device; the trace has devices 0, 1"), "{err}");
}

/// `trace head` shows what the map read, in replay (arrival) order, each request with its
/// line: times from the earliest (10.5 µs), sectors × 512, ops from the hex codes.
#[test]
fn trace_head_shows_each_request_as_read_with_its_line() {
    let d = dir("head");
    let trace = d.join("scsi.csv");
    std::fs::write(&trace, SCSI).unwrap();
    let t = trace.to_str().unwrap();
    let map = ["--columns", SCSI_COLUMNS, "--ops", "28=read,2a=write", "--separator", ";", "--header"];
    let mut args = vec!["trace", "head", t];
    args.extend(map);
    let (code, out, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<Vec<&str>> = out.lines().skip(1).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(
        rows,
        [
            ["2", "0.000", "3", "read", "4096", "4096"],
            ["4", "0.500", "4", "write", "51200", "512"],
            ["3", "1.750", "3", "write", "8192", "8192"],
        ]
    );
    args.extend(["--device", "3", "-n", "1"]);
    let (_, out, _) = ssdlab(&args);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.lines().nth(1).unwrap().split_whitespace().eq(["2", "0.000", "3", "read", "4096", "4096"]));
}
