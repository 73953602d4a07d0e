//! Property test of the `ssdlab` binary on garbage traces (issue 20, item 4): a file of
//! arbitrary bytes given to `ssdlab trace info FILE` and `ssdlab run --workload FILE` never
//! crashes the program (exit 101 = panic, or a signal); when the library cannot read it
//! (`ssdlab_trace::read`, the oracle), both commands exit with code 2 and print the library's
//! error, which names the file. Each case spawns two processes, so the budget is small
//! ([`CASES`]); the readers' own property tests (crates/ssdlab-trace/tests/props.rs) cover
//! far more inputs in-process.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_ssdlab");
const MQSIM_DEFAULT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/mqsim-default.toml");
/// Cases: two processes each.
const CASES: u32 = 16;
/// A child running longer than this is treated as hung (a garbage trace fails in milliseconds).
const TIMEOUT: Duration = Duration::from_secs(120);

#[path = "../../ssdlab-trace/tests/common/fixed_config.rs"]
mod fixed_config;

/// [`fixed_config::config`] with this file's shrinking budget.
fn config(cases: u32) -> ProptestConfig {
    fixed_config::config(cases, 32)
}

/// A scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("ssdlab-cli-props-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the binary; exit code (`None`: killed by a signal) and stderr.
fn ssdlab(args: &[&str], scratch: &Path) -> (Option<i32>, String) {
    let (out, err) = (scratch.join("stdout"), scratch.join("stderr"));
    let mut child = Command::new(BIN)
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"))
        .spawn()
        .expect("spawn ssdlab");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hung for {TIMEOUT:?}: ssdlab {}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (status.code(), std::fs::read_to_string(&err).unwrap_or_default())
}

/// Pieces of trace lines and of binary files.
const TOKENS: &[&[u8]] = &[
    b"\n",
    b"\n",
    b" ",
    b",",
    b".",
    b"-",
    b"#",
    b"0",
    b"1",
    b"512",
    b"Read",
    b"w",
    b"Q",
    b"8,0",
    b"\0",
    b"\xff",
    b"\x1f\x8b",
    b"BZh",
    "é".as_bytes(),
    b"0 0 0 8 1\n",
    b"0,303567,3584,w,0.0\n",
    b"99999999999999999999",
];

fn garbage() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..1024),
        prop::collection::vec(prop::sample::select(TOKENS), 0..100).prop_map(|t| t.concat()),
    ]
}

/// Trace file names: extensions that break detection ties, and two that promise a compression.
const NAMES: &[&str] = &["g.trace", "g.csv", "g.ascii", "g.disksim", "g", "g.csv.gz", "g.trace.xz"];

fn check_garbage(bytes: &[u8], name: &str) -> Result<(), TestCaseError> {
    let dir = Scratch::new("garbage");
    let path = dir.0.join(name);
    std::fs::write(&path, bytes).expect("write trace");
    let file = path.display().to_string();
    let library = ssdlab_trace::read(&path, None);
    let commands: [&[&str]; 2] = [&["trace", "info", &file], &["run", "--config", MQSIM_DEFAULT, "--workload", &file]];
    for args in commands {
        let (code, stderr) = ssdlab(args, &dir.0);
        let cmd = args.join(" ");
        prop_assert!(matches!(code, Some(0) | Some(2)), "`{cmd}` exited with {code:?} (101: panic)\n{stderr}");
        match &library {
            Err(e) => {
                prop_assert_eq!(code, Some(2), "`{}`", cmd);
                let msg = e.to_string();
                prop_assert!(msg.starts_with(&format!("{file}:")), "{msg}");
                prop_assert!(stderr.contains(&format!("error: {msg}")), "`{cmd}` said\n{stderr}\nnot\n{msg}");
            }
            // Readable: `trace info` summarises it; a run may still reject addresses past
            // the drive, naming the file.
            Ok(_) if args[0] == "trace" => prop_assert_eq!(code, Some(0), "`{}`\n{}", cmd, stderr),
            Ok(_) => prop_assert!(code == Some(0) || stderr.contains(&file), "`{cmd}`\n{stderr}"),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn garbage_traces_exit_2_naming_the_file(bytes in garbage(), name in prop::sample::select(NAMES)) {
        check_garbage(&bytes, name)?;
    }
}
