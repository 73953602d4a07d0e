//! End-to-end tests of `ssdlab soak`: a short soak passes and prints a line for every
//! combination `--list` names; bad input exits with code 2 naming what is wrong.

use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_ssdlab");

struct Output {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn ssdlab(args: &[&str]) -> Output {
    let out = Command::new(BIN)
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("spawn ssdlab: {e}"));
    Output {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The combinations `--list` names, and its `skip` lines.
fn listed() -> (Vec<String>, Vec<String>) {
    let out = ssdlab(&["soak", "--list"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let (skips, runs): (Vec<String>, Vec<String>) =
        out.stdout.lines().map(str::to_string).partition(|l| l.starts_with("skip "));
    (runs, skips)
}

#[test]
fn a_short_soak_passes_and_reports_every_combination() {
    let (runs, skips) = listed();
    // Every mapping and the kinds of allocation run (the full list is checked in the library's
    // unit tests); Die-GC on a demand-based map never validates.
    for part in ["full", "dftl", "cdftl", "tpftl", "fmmu", "CWDP", "CW", "dynamic", "dynamic_rr", "pacp", "PDWC"] {
        assert!(runs.iter().any(|r| r.split('/').any(|p| p == part)), "no combination with {part}");
    }
    assert!(skips.iter().any(|s| s.starts_with("skip dftl + die:")), "{skips:?}");

    let writes = 3 * runs.len();
    let out = ssdlab(&["soak", "--writes", &writes.to_string(), "--threads", "2"]);
    assert_eq!(out.code, Some(0), "stdout:\n{}\nstderr:\n{}", out.stdout, out.stderr);
    let progress: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(progress.len(), runs.len(), "one line per combination:\n{}", out.stdout);
    for name in &runs {
        let named = |l: &&&str| l.split_once("] ").and_then(|(_, rest)| rest.split_whitespace().next()) == Some(name);
        let line = progress.iter().find(named);
        let line = line.unwrap_or_else(|| panic!("no line for {name}:\n{}", out.stdout));
        assert!(line.ends_with(" ok") && line.contains(" 0 violations"), "{line}");
    }
    let summary = out.stdout.lines().last().unwrap_or_default();
    assert!(summary.starts_with(&format!("soak: {} combinations", runs.len())), "{summary}");
    assert!(summary.contains(" 0 violations") && summary.ends_with("PASS"), "{summary}");
    assert!(out.stdout.contains("skipped, as Config::validate rejects them"), "{}", out.stdout);
}

#[test]
fn only_runs_the_named_combinations_with_all_the_writes() {
    let out = ssdlab(&["soak", "--writes", "400", "--only", "full/CWDP/off/plane"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("400 writes over 1 combinations (400 each)"), "{}", out.stdout);
    assert_eq!(out.stdout.lines().filter(|l| l.starts_with('[')).count(), 1, "{}", out.stdout);
}

#[test]
fn bad_input_exits_with_code_2_naming_it() {
    let cases: [(&[&str], &str); 5] = [
        (&["soak"], "--writes"),
        (&["soak", "--writes", "0"], "--writes 0"),
        (&["soak", "--writes", "100", "--only", "nosuch"], "--only nosuch"),
        (&["soak", "--writes", "100", "--set", "nand.bogus=1"], "bogus"),
        (&["soak", "--writes", "100", "--set", "hil.hazards=war"], "hil.hazards"),
    ];
    for (args, needle) in cases {
        let out = ssdlab(args);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(needle), "{args:?}: stderr should name `{needle}`: {}", out.stderr);
    }
}
