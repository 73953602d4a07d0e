//! Property tests of the config and workload loaders (issue 20, item 4).
//!
//! 1. Arbitrary text and bytes given to [`Config::from_toml_str`], [`Config::load`] and
//!    [`WorkloadSpec::load`] never panic; an error names the file (as `file:` or, with a
//!    line, `file:LINE:` within the text).
//! 2. Near-valid files: a shipped preset (`presets/*.toml`) or workload with one key's value
//!    replaced by an arbitrary TOML value (or by text that is not one) never panics and an
//!    error names the file; an unknown key added to any table is always rejected, naming the
//!    file, the key and the line it is on (nothing is silently ignored).
//! 3. `Config::validate` on a preset with arbitrary numbers in its geometry,
//!    overprovisioning, GC thresholds and queue depths never panics, and a `--set` of the
//!    same numbers never panics either.
//!
//! Budgets are fixed in code ([`config`]); failing cases are not persisted and the seed is
//! fixed. `PROPTEST_CASES` / `PROPTEST_RNG_SEED` explore further by hand.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use ssdlab::{Config, WorkloadSpec};
use std::path::{Path, PathBuf};

/// Cases per property; the whole file runs in a few seconds.
const CASES: u32 = 256;

#[path = "../../ssdlab-trace/tests/common/fixed_config.rs"]
mod fixed_config;

/// [`fixed_config::config`] with this file's shrinking budget.
fn config(cases: u32) -> ProptestConfig {
    fixed_config::config(cases, 256)
}

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The shipped presets, by file name, and their text.
fn presets() -> Vec<(String, String)> {
    let dir = Path::new(ROOT).join("presets");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("presets/")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            (
                p.file_name().unwrap_or_default().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).expect("preset"),
            )
        })
        .collect();
    out.sort();
    assert!(out.len() >= 5, "presets/ has {} files", out.len());
    out
}

/// Valid workloads: the shipped example, and flows using every other key (a trace flow, a
/// column-mapped one, a synthetic one).
fn workloads() -> Vec<String> {
    let example = std::fs::read_to_string(Path::new(ROOT).join("examples/read-qd16.toml")).expect("example");
    let trace = "seed = 7\n\n[precondition]\noccupancy = 0.5\npattern = \"sequential\"\n\n[[flows]]\nname = \"t\"\n\
                 type = \"trace\"\npath = \"t.trace\"\nformat = \"mqsim\"\nreplay = \"timestamps\"\nspeedup = 2.0\n\
                 address_mode = \"wrap\"\nloop = true\nrequests = 100\n";
    let mixed = "[[flows]]\nname = \"w\"\ntype = \"synthetic\"\nread_ratio = 0.3\ntrim_ratio = 0.1\nfua_ratio = 0.2\n\
                 address = \"hotcold\"\nhot_fraction = 0.1\nhot_access = 0.9\nrequest_bytes_choices = [[4096, 1.0], [65536, 0.5]]\n\
                 align_bytes = 4096\nfootprint = 0.5\nstart_bytes = 0\nrate_iops = 1000.0\nduration_ms = 10.0\n\
                 priority = \"low\"\nqueue_depth = 8\nseed = 3\n";
    let columns = "[[flows]]\nname = \"c\"\ntype = \"trace\"\npath = \"t.csv\"\n\
                   columns = \"time=1:us,op=4,offset=5:sectors,size=6:bytes,device=2\"\nops = \"28=read,2a=write\"\n\
                   separator = \";\"\nheader = true\nskip_lines = 2\ndevice = 3\n";
    vec![example, trace.to_string(), mixed.to_string(), columns.to_string()]
}

/// A scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("ssdlab-props-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).expect("write scratch file");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Longest error message beyond the file name: a key, echoes of bounded length, and prose
/// (a list of a section's keys is the longest).
const MAX_MESSAGE_BYTES: usize = 4096;

/// An error of a loader names `file`, and a line it names is one of `text`'s; it is of bounded
/// length and shows no raw control characters (the text may be binary).
fn check_error(err: &ssdlab::Error, file: &str, text: &str) -> Result<(), TestCaseError> {
    let msg = err.to_string();
    prop_assert!(msg.starts_with(&format!("{file}:")), "error does not name {file}: {msg}");
    let shown = &msg[file.len()..];
    prop_assert!(shown.len() <= MAX_MESSAGE_BYTES, "a message of {} bytes: {}…", msg.len(), &msg[..200]);
    prop_assert!(!shown.chars().any(|c| c.is_control() && c != '\n'), "raw control character in {msg:?}");
    if let ssdlab::Error::Config { line, .. } = err {
        if *line > 0 {
            let lines = text.lines().count().max(1);
            prop_assert!(*line <= lines, "line {line} of a {lines}-line text: {msg}");
            prop_assert!(msg.starts_with(&format!("{file}:{line}: ")), "{msg}");
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

/// Pieces of TOML and of things that are not.
const TOML_TOKENS: &[&str] = &[
    "\n",
    "\n",
    " ",
    "=",
    " = ",
    "[",
    "]",
    "[[",
    "]]",
    "{",
    "}",
    ",",
    ".",
    "\"",
    "'",
    "\"\"\"",
    "'''",
    "#",
    "\\",
    "-",
    "+",
    "0",
    "1",
    "1.5",
    "1e400",
    "nan",
    "inf",
    "-inf",
    "true",
    "false",
    "0x1f",
    "1_000",
    "1979-05-27T07:32:00Z",
    "[nand]",
    "[nand.bus]",
    "[ftl]",
    "[ftl.gc]",
    "[cache]",
    "[hil]",
    "[hif]",
    "[tsu]",
    "[stats]",
    "[[flows]]",
    "[precondition]",
    "channels",
    "blocks_per_plane",
    "overprovisioning_ratio",
    "threshold",
    "queue_depth",
    "policy",
    "cell",
    "\"mlc\"",
    "type",
    "\"trace\"",
    "path",
    "requests",
    "flows",
    "seed",
    "\u{0}",
    "\u{feff}",
    "é",
    "\u{202e}",
    "99999999999999999999999",
];

fn toml_soup() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(prop::sample::select(TOML_TOKENS), 0..200).prop_map(|t| t.concat()),
        any::<String>(),
        prop::collection::vec(any::<u8>(), 0..512).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

/// A TOML value, written inline.
fn toml_value() -> impl Strategy<Value = String> {
    let float = prop_oneof![
        any::<f64>(),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(-0.0),
        0.0..1.0f64,
        -1.0..0.0f64,
    ]
    .prop_map(toml_float);
    let string = prop_oneof![
        ".{0,16}",
        prop::sample::select(vec!["mlc", "slc", "tlc", "ooo", "flin", "cwdp", "full", "dftl", "greedy", "lru", "spd"])
            .prop_map(str::to_string),
        Just("x".repeat(5000)),
    ]
    .prop_map(|s| toml::Value::String(s).to_string());
    let scalar = prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        prop_oneof![Just(0i64), Just(1), Just(-1), Just(u32::MAX as i64), Just(u32::MAX as i64 + 1), 0i64..100000]
            .prop_map(|i| i.to_string()),
        float,
        any::<bool>().prop_map(|b| b.to_string()),
        string,
        Just("1979-05-27T07:32:00Z".to_string()),
    ];
    scalar.prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(("[a-z_]{1,6}", inner), 0..3).prop_map(|kv| {
                let kv: Vec<String> = kv.into_iter().map(|(k, v)| format!("{k} = {v}")).collect();
                format!("{{ {} }}", kv.join(", "))
            }),
        ]
    })
}

/// Text in a value's place that is not a TOML value.
fn not_a_value() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "",
            "=",
            "[",
            "{",
            "\"unterminated",
            "99999999999999999999",
            "1e999",
            "0x",
            "1__0",
            "+",
            "nan.5",
            "[1,",
            "{ a = }",
            "'''",
            "tru",
            "1979-13-45",
        ])
        .prop_map(str::to_string),
        "[^\n]{0,20}",
    ]
}

/// One change to a valid TOML file.
#[derive(Debug, Clone)]
enum Edit {
    /// The value of the `n`-th `key = value` line becomes `text`.
    Value(usize, String),
    /// The value of the `n`-th `key = value` line becomes another of its type: a number
    /// from [`number`] (the `f64` written as an integer for an integer key), a flipped
    /// boolean, a choice of [`CHOICES`], or the array's first element repeated `k` times.
    SameType(usize, f64, usize),
    /// `key = value` inserted after the `n`-th line that opens a table (0: at the top).
    UnknownKey(usize, String, String),
}

/// Strings that name choices of some key (most keys reject most of them).
const CHOICES: &[&str] = &[
    "mlc",
    "slc",
    "tlc",
    "qlc",
    "ooo",
    "flin",
    "fifo",
    "cwdp",
    "cwd",
    "pcwd",
    "full",
    "dftl",
    "cdftl",
    "tpftl",
    "fmmu",
    "greedy",
    "random",
    "d_choices",
    "lru",
    "spd",
    "baseline_p",
    "when_full",
    "eager",
    "nvme",
    "sata",
    "spk1",
    "spk3",
    "vas",
    "pas",
    "die",
    "twin",
    "block",
    "buffer",
    "pad",
    "lv_partition",
    "pacp",
    "dynamic_rr",
    "zero",
    "error",
    "sequential",
    "uniform",
    "hotcold",
    "trace",
    "synthetic",
    "timestamps",
    "closed_loop",
    "wrap",
    "scale",
    "reject",
    "urgent",
    "high",
    "medium",
    "low",
    "mqsim",
    "msr",
    "csv",
    "",
];

/// A number around the edges of what keys accept.
fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        0.0..1.0f64,
        -2.0..2.0f64,
        (0u32..70).prop_map(f64::from),
        (0u32..33).prop_map(|e| 2f64.powi(e as i32)),
        (0u32..33).prop_map(|e| 2f64.powi(e as i32) - 1.0),
        Just(u32::MAX as f64 + 1.0),
        Just(1e18),
        Just(-1.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        any::<f64>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        6 => (any::<usize>(), number(), 0usize..4).prop_map(|(n, x, k)| Edit::SameType(n, x, k)),
        3 => (any::<usize>(), toml_value()).prop_map(|(n, v)| Edit::Value(n, v)),
        1 => (any::<usize>(), not_a_value()).prop_map(|(n, v)| Edit::Value(n, v)),
        1 => (any::<usize>(), "zz_[a-z_]{0,8}", toml_value()).prop_map(|(n, k, v)| Edit::UnknownKey(n, k, v)),
    ]
}

/// `f` as a TOML float (`nan`, `inf`, `-inf` for the non-finite).
fn toml_float(f: f64) -> String {
    if f.is_nan() {
        "nan".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{f:?}")
    }
}

/// Another value of the type of the TOML value `old` (see [`Edit::SameType`]).
fn same_type(old: &str, x: f64, k: usize) -> String {
    let float = toml_float;
    if old == "true" || old == "false" {
        return (old == "false").to_string();
    }
    if old.starts_with('"') {
        let i = if x.is_finite() { x.abs() as usize } else { 0 };
        return format!("\"{}\"", CHOICES[i % CHOICES.len()]);
    }
    if let Some(inner) = old.strip_prefix('[') {
        let first = inner.split([',', ']']).next().unwrap_or("").trim();
        let element = if first.is_empty() { float(x) } else { same_type(first, x, k) };
        return format!("[{}]", vec![element; k].join(", "));
    }
    let is_int = !old.is_empty() && old.bytes().all(|b| b.is_ascii_digit() || b == b'-' || b == b'_');
    if is_int && x.is_finite() && x.fract() == 0.0 && x.abs() < 9.2e18 {
        return format!("{}", x as i64);
    }
    float(x)
}

/// Applies `edit` to `text`; for an unknown key with a valid value, returns its name and its
/// 1-based line.
fn apply(text: &str, edit: &Edit) -> (String, Option<(String, usize)>) {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let is_assignment = |l: &str| {
        let t = l.trim_start();
        !t.starts_with('#') && !t.starts_with('[') && t.contains('=')
    };
    let assignments: Vec<usize> = (0..lines.len()).filter(|&i| is_assignment(&lines[i])).collect();
    match edit {
        Edit::SameType(n, x, k) => {
            let i = assignments[n % assignments.len()];
            let (key, old) = lines[i].split_once('=').unwrap_or(("", ""));
            let value = same_type(old.split('#').next().unwrap_or("").trim(), *x, *k);
            lines[i] = format!("{key}= {value}");
            (lines.join("\n"), None)
        }
        Edit::Value(n, value) => {
            let i = assignments[n % assignments.len()];
            let key = lines[i].split('=').next().unwrap_or("").to_string();
            lines[i] = format!("{key}= {value}");
            (lines.join("\n"), None)
        }
        Edit::UnknownKey(n, key, value) => {
            let headers: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].trim_start().starts_with('[')).collect();
            // Before the first header, or right after a chosen one.
            let at = match n % (headers.len() + 1) {
                0 => 0,
                k => headers[k - 1] + 1,
            };
            lines.insert(at, format!("{key} = {value}"));
            // A value that is not TOML (an inline table with a key twice) fails first.
            let valid = toml::from_str::<toml::Table>(&format!("k = {value}")).is_ok();
            (lines.join("\n"), valid.then(|| (key.clone(), at + 1)))
        }
    }
}

/// Near-valid text is read or rejected properly; an unknown key always is rejected, at its
/// line, by name.
fn check_edited(
    result: Result<(), ssdlab::Error>,
    file: &str,
    text: &str,
    unknown: Option<(String, usize)>,
) -> Result<(), TestCaseError> {
    match (result, unknown) {
        (Ok(()), None) => {}
        (Ok(()), Some((key, line))) => prop_assert!(false, "unknown key `{key}` on line {line} accepted:\n{text}"),
        (Err(e), unknown) => {
            check_error(&e, file, text)?;
            if let Some((key, line)) = unknown {
                let msg = e.to_string();
                prop_assert!(msg.starts_with(&format!("{file}:{line}: ")), "want line {line}: {msg}\n{text}");
                prop_assert!(msg.contains(&key), "the unknown key `{key}` is not named: {msg}");
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/// The numbers [`validate_never_panics`] puts into a config.
#[derive(Debug, Clone)]
struct Numbers {
    preset: usize,
    geometry: [u32; 8],
    ratios: [f64; 4],
    /// `None`: the preset's value (some keys only apply to some schedulers).
    counts: [Option<u32>; 5],
    cache_bytes: u64,
    cache_on: bool,
}

/// Mostly counts in `typical`, sometimes the edges.
fn count_in(typical: std::ops::RangeInclusive<u32>) -> impl Strategy<Value = u32> {
    prop_oneof![60 => typical, 1 => Just(0u32), 1 => Just(1u32), 1 => Just(u32::MAX), 1 => any::<u32>()]
}

fn count() -> impl Strategy<Value = u32> {
    count_in(1..=8)
}

fn ratio() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => 0.0..0.5f64,
        3 => 0.0..0.1f64,
        2 => Just(0.0),
        1 => 0.5..0.9f64,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(-0.0),
        1 => any::<f64>(),
    ]
}

fn numbers() -> impl Strategy<Value = Numbers> {
    (
        any::<usize>(),
        (
            [count_in(1..=8), count_in(1..=8), count_in(1..=4), count_in(1..=4), count_in(8..=512), count_in(1..=256)],
            prop_oneof![4 => Just((4096u32, 512u32)), 1 => (count_in(512..=16384), count_in(1..=4096))],
        ),
        prop_oneof![
            // Overprovisioning, and GC thresholds ordered as they must be (hard ≤ start <
            // background, or background off).
            3 => (0.0..0.5f64, 0.0..0.5f64, 0.0..1.0f64, prop_oneof![Just(0.0), 0.0..1.0f64]).prop_map(
                |(op, t, h, b)| [op, t, t * h, if b == 0.0 { 0.0 } else { t + (0.5 - t) * b }]
            ),
            1 => prop::array::uniform4(ratio()),
        ],
        prop::array::uniform5(prop::option::weighted(0.5, count())),
        prop_oneof![any::<u64>(), 0u64..1 << 30, (0u64..1 << 10).prop_map(|p| p * 4096)],
        any::<bool>(),
    )
        .prop_map(|(preset, (g, (page, sector)), ratios, counts, cache_bytes, cache_on)| Numbers {
            preset,
            geometry: [g[0], g[1], g[2], g[3], g[4], g[5], page, sector],
            ratios,
            counts,
            cache_bytes,
            cache_on,
        })
}

/// The `--set` overrides that put `n` into a config.
fn overrides(n: &Numbers) -> Vec<String> {
    let keys = [
        "nand.channels",
        "nand.chips_per_channel",
        "nand.dies_per_chip",
        "nand.planes_per_die",
        "nand.blocks_per_plane",
        "nand.pages_per_block",
        "nand.page_bytes",
        "nand.sector_bytes",
    ];
    let mut out: Vec<String> = keys.iter().zip(n.geometry).map(|(k, v)| format!("{k}={v}")).collect();
    let float = |f: f64| {
        if f.is_nan() {
            "nan".into()
        } else if f.is_infinite() {
            format!("{}inf", if f > 0.0 { "" } else { "-" })
        } else {
            format!("{f:?}")
        }
    };
    let ratio_keys =
        ["ftl.overprovisioning_ratio", "ftl.gc.threshold", "ftl.gc.hard_threshold", "ftl.gc.background_threshold"];
    out.extend(ratio_keys.iter().zip(n.ratios).map(|(k, v)| format!("{k}={}", float(v))));
    let count_keys = ["hil.queue_depth", "hil.plane_slots", "hil.max_bypass", "tsu.scan_limit", "ftl.gc.d"];
    out.extend(count_keys.iter().zip(n.counts).filter_map(|(k, v)| Some(format!("{k}={}", v?))));
    out.push(format!("cache.capacity_bytes={}", n.cache_bytes.min(i64::MAX as u64)));
    out.push(format!("cache.enabled={}", n.cache_on));
    out
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn config_from_arbitrary_text_never_panics(text in toml_soup()) {
        if let Err(e) = Config::from_toml_str(&text, "soup.toml", &[]) {
            check_error(&e, "soup.toml", &text)?;
        }
    }

    #[test]
    fn config_and_workload_files_of_arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512), soup in toml_soup()) {
        let dir = Scratch::new("files");
        for (name, content) in [("bytes.toml", bytes.as_slice()), ("soup.toml", soup.as_bytes())] {
            let path = dir.write(name, content);
            let (file, text) = (path.display().to_string(), String::from_utf8_lossy(content));
            if let Err(e) = Config::load(&path, &[]) {
                check_error(&e, &file, &text)?;
            }
            if let Err(e) = WorkloadSpec::load(&path) {
                check_error(&e, &file, &text)?;
            }
        }
    }

    #[test]
    fn near_valid_presets_never_panic_and_unknown_keys_are_rejected(which in any::<usize>(), edit in edit()) {
        let presets = presets();
        let (name, text) = &presets[which % presets.len()];
        let (text, unknown) = apply(text, &edit);
        let file = format!("near-{name}");
        let result = Config::from_toml_str(&text, &file, &[]).map(|_| ());
        check_edited(result, &file, &text, unknown)?;
    }

    #[test]
    fn near_valid_workloads_never_panic_and_unknown_keys_are_rejected(which in any::<usize>(), edit in edit()) {
        let workloads = workloads();
        let (text, unknown) = apply(&workloads[which % workloads.len()], &edit);
        let dir = Scratch::new("workload");
        let path = dir.write("w.toml", text.as_bytes());
        let result = WorkloadSpec::load(&path).map(|_| ());
        check_edited(result, &path.display().to_string(), &text, unknown)?;
    }

    #[test]
    fn validate_never_panics(n in numbers()) {
        let presets = presets();
        let (name, text) = &presets[n.preset % presets.len()];
        let mut c = Config::from_toml_str(text, name, &[]).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let g = n.geometry;
        (c.nand.channels, c.nand.chips_per_channel, c.nand.dies_per_chip, c.nand.planes_per_die) = (g[0], g[1], g[2], g[3]);
        (c.nand.blocks_per_plane, c.nand.pages_per_block, c.nand.page_bytes, c.nand.sector_bytes) = (g[4], g[5], g[6], g[7]);
        c.ftl.overprovisioning_ratio = n.ratios[0];
        (c.ftl.gc.threshold, c.ftl.gc.hard_threshold, c.ftl.gc.background_threshold) = (n.ratios[1], n.ratios[2], n.ratios[3]);
        let k = n.counts;
        c.hil.queue_depth = k[0].unwrap_or(c.hil.queue_depth);
        c.hil.plane_slots = k[1].unwrap_or(c.hil.plane_slots);
        c.hil.max_bypass = k[2].unwrap_or(c.hil.max_bypass);
        c.tsu.scan_limit = k[3].unwrap_or(c.tsu.scan_limit);
        c.ftl.gc.d = k[4].unwrap_or(c.ftl.gc.d);
        (c.cache.capacity_bytes, c.cache.enabled) = (n.cache_bytes, n.cache_on);
        if let Err(e) = c.validate(name) {
            prop_assert!(e.to_string().starts_with(&format!("{name}:")), "{e}");
        }
        // The same numbers as `--set` overrides: an error names the file or `--set`.
        if let Err(e) = Config::from_toml_str(text, name, &overrides(&n)) {
            let msg = e.to_string();
            prop_assert!(msg.starts_with(&format!("{name}:")) || msg.starts_with("--set:"), "{msg}");
        }
    }
}

/// The texts the near-valid properties edit are valid as they are.
#[test]
fn the_edited_presets_and_workloads_are_valid() {
    for (name, text) in presets() {
        Config::from_toml_str(&text, &name, &[]).unwrap_or_else(|e| panic!("{e}"));
    }
    let dir = Scratch::new("valid");
    for (i, text) in workloads().iter().enumerate() {
        let path = dir.write(&format!("w{i}.toml"), text.as_bytes());
        WorkloadSpec::load(&path).unwrap_or_else(|e| panic!("{e}"));
    }
}
