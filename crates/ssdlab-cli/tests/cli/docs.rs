//! The documents against the tool: the README's sample output is what its first command
//! prints, every preset is named where the presets are listed, and the README states the
//! workspace's minimum Rust version.

#[allow(unused_imports)]
use super::*;

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read_doc(rel: &str) -> String {
    let path = repo().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether `line` matches `pattern`, where each `...` in the pattern stands for any text
/// (none included) and everything else must be there as written.
fn matches_sample(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("...").collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == line;
    }
    if !line.starts_with(first) || line.len() < first.len() + last.len() || !line.ends_with(last) {
        return false;
    }
    // Leftmost placement of each middle part is enough: any text may fill the gaps.
    let mut at = first.len();
    let end = line.len() - last.len();
    for part in &parts[1..parts.len() - 1] {
        match line[at..end].find(part) {
            Some(i) => at += i + part.len(),
            None => return false,
        }
    }
    true
}

#[test]
fn sample_patterns_match_as_written() {
    // Cases worked by hand from the rule: literal text must match, `...` takes any text.
    assert!(matches_sample("a b", "a b"));
    assert!(!matches_sample("a b", "a b "));
    assert!(matches_sample("x ... y", "x 12.5 y"));
    assert!(matches_sample("x ... y", "x  y"));
    assert!(!matches_sample("x ... y", "x 12.5 z"));
    assert!(matches_sample("...% (...%)", "81.2% (26.1%)"));
    assert!(!matches_sample("...% (...%)", "81.2% 26.1%)"));
    // Parts keep their order.
    assert!(matches_sample("a ... b ... c", "a 1 b 2 c"));
    assert!(!matches_sample("a ... c ... b", "a 1 b 2 c"));
    // Prefix and suffix may not overlap.
    assert!(!matches_sample("ab...ba", "aba"));
}

/// The README's first command (its arguments after `cargo run --`) and the block
/// after "The first prints something like:".
fn readme_sample() -> (Vec<String>, Vec<String>) {
    let readme = read_doc("README.md");
    let command =
        readme.lines().find_map(|l| l.strip_prefix("cargo run -- ")).expect("README has a `cargo run -- ...` command");
    let args = command.split_whitespace().map(str::to_string).collect();
    let after = readme.split_once("The first prints something like:").expect("README introduces its sample output").1;
    let block = after.split_once("```\n").expect("a code block follows").1;
    let block = block.split_once("```").expect("the code block ends").0;
    (args, block.lines().map(str::to_string).collect())
}

#[test]
fn readme_sample_output_is_what_its_first_command_prints() {
    let (args, sample) = readme_sample();
    assert_eq!(args.first().map(String::as_str), Some("run"), "the README's first command is a run: {args:?}");
    // Paths in the README are relative to the repository's root.
    let args: Vec<String> =
        args.iter().map(|a| if repo().join(a).exists() { p(&repo().join(a)) } else { a.clone() }).collect();
    let out = ssdlab(&args);
    out.assert_success();
    let printed: Vec<&str> = out.stdout.lines().collect();
    for (i, (want, got)) in sample.iter().zip(&printed).enumerate() {
        assert!(
            matches_sample(want, got),
            "README sample line {} does not match the output (`...` stands for any text)\n  README: {want}\n  output: {got}\n{}",
            i + 1,
            out.describe()
        );
    }
    assert_eq!(
        sample.len(),
        printed.len(),
        "the README's sample has {} lines, the run printed {}\n{}",
        sample.len(),
        printed.len(),
        out.describe()
    );
}

#[test]
fn every_preset_is_named_in_the_config_doc_and_the_readme() {
    let mut presets: Vec<String> = std::fs::read_dir(repo().join("presets"))
        .expect("presets/")
        .map(|e| e.expect("a presets/ entry").file_name().to_string_lossy().into_owned())
        .collect();
    presets.sort();
    assert!(presets.len() >= 8, "presets/ holds {presets:?}");
    for doc in ["docs/config.md", "README.md"] {
        let text = read_doc(doc);
        let missing: Vec<&String> = presets.iter().filter(|f| !text.contains(f.as_str())).collect();
        assert!(missing.is_empty(), "{doc} does not name presets {missing:?}");
    }
}

#[test]
fn the_readme_states_the_workspaces_minimum_rust_version() {
    let cargo = read_doc("Cargo.toml");
    let msrv = cargo
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .map(|v| v.trim_matches('"'))
        .expect("the workspace's Cargo.toml sets rust-version");
    let readme = read_doc("README.md");
    let stated = format!("Rust {msrv} or later");
    assert!(readme.contains(&stated), "README should say `{stated}` (Cargo.toml's rust-version)");
}

/// docs/workload.md, "Seeds": `--seed` is the run's seed, from which a synthetic flow without
/// a seed of its own draws its requests; a flow's own `seed` pins its stream.
#[test]
fn seed_changes_derived_flow_streams_and_not_pinned_ones() {
    let dir = TempDir::new("seeds");
    let flow = "[[flows]]\ntype = \"synthetic\"\nread_ratio = 0.5\naddress = \"uniform\"\nrequest_bytes = 4096\nqueue_depth = 8\nrequests = 2000\n";
    let derived = dir.write("derived.toml", flow);
    let pinned = dir.write("pinned.toml", &format!("{flow}seed = 99\n"));
    let sim = |workload: &Path, seed: &str| {
        let json = dir.path(&format!("{}-{seed}.json", workload.file_stem().unwrap().to_string_lossy()));
        let out =
            ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(workload), "--seed", seed, "--out", &p(&json)]);
        out.assert_success();
        let report = read_json(&json);
        assert_eq!(uint(&report, "seed"), seed.parse::<u64>().unwrap(), "the report's seed is --seed");
        at(&report, "sim").clone()
    };
    // Other draws: other addresses and another read/write mix, so another simulation.
    let (derived_1, derived_2) = (sim(&derived, "1"), sim(&derived, "2"));
    assert_ne!(derived_1, derived_2, "--seed 1 and 2 gave the same run for a flow without its own seed");
    assert_eq!(sim(&pinned, "1"), sim(&pinned, "2"), "a flow's own seed pins its stream under any --seed");
}
