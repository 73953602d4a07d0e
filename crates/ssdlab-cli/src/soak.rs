//! `ssdlab soak`: the integrity soak's command, each combination in a child process (the
//! soak itself is the library's `ssdlab_lab::soak`).

use std::path::{Path, PathBuf};

use crate::InputError;

pub(crate) struct SoakArgs {
    pub(crate) writes: Option<u64>,
    pub(crate) seed: u64,
    pub(crate) threads: usize,
    pub(crate) config: Option<PathBuf>,
    pub(crate) set: Vec<String>,
    pub(crate) only: Option<String>,
    pub(crate) every: bool,
    pub(crate) list: bool,
    pub(crate) timeout_s: Option<u64>,
    pub(crate) child: bool,
}

impl SoakArgs {
    /// The arguments that choose the drive and the combinations, as given (for a child
    /// process and for the command that reruns one combination).
    fn drive_args(&self) -> Vec<String> {
        let mut args: Vec<String> = Vec::new();
        if let Some(c) = &self.config {
            args.extend(["--config".into(), c.display().to_string()]);
        }
        self.set.iter().for_each(|s| args.extend(["--set".into(), s.clone()]));
        if self.every {
            args.push("--every".into());
        }
        args
    }
}

/// `ssdlab soak`: plan, say what is skipped, run each combination in a child process (so a
/// broken invariant's panic fails that combination, not the soak), a line per combination,
/// then the totals.
pub(crate) fn soak(args: SoakArgs) -> Result<(), InputError> {
    use ssdlab_lab::soak;
    let (drive, about) = soak::drive(args.config.as_deref(), &args.set)?;
    let selection = if args.every { soak::Selection::Every } else { soak::Selection::AllPairs };
    let plan = soak::plan(&drive, selection, args.only.as_deref());
    if plan.runs.is_empty() {
        let only = args.only.as_deref().map(|o| format!(" named by --only {o}")).unwrap_or_default();
        return Err(InputError(format!("soak: no combination{only} validates on {about}")));
    }
    if args.list {
        plan.runs.iter().for_each(|r| outln!("{}", r.combination.name()));
        plan.skipped.iter().for_each(|s| outln!("skip {}: {}", s.what, s.reason));
        return Ok(());
    }
    let writes = args.writes.ok_or_else(|| InputError("soak: --writes N is required".into()))?;
    if args.child {
        let result = soak::run_one(&plan.runs[0], writes, args.seed);
        outln!("{}", serde_json::to_string(&result)?);
        return Ok(());
    }
    let shares = soak::shares(writes, plan.runs.len())?;
    let (least, most) = (shares[shares.len() - 1], shares[0]);
    let each = if least == most { format!("{most}") } else { format!("{least} to {most}") };
    outln!("drive: {about}");
    let n = plan.runs.len();
    outln!(
        "{writes} writes over {n} combinations ({each} each), seed {}, {} threads, --check on",
        args.seed,
        args.threads
    );
    if !plan.skipped.is_empty() {
        out!("{}", soak::skipped_summary(&plan.skipped));
    }
    let exe = std::env::current_exe()?;
    let wall = std::time::Instant::now();
    let run = |p: &soak::Planned, w: u64| soak_child(&exe, &args, &p.combination.name(), w);
    let results = soak::run_all(&plan.runs, &shares, args.threads, run, |k, r| outln!("[{k:>3}/{n}] {}", r.line()));
    out!("{}", soak::summary(&results, wall.elapsed().as_secs_f64()));
    let failed: Vec<&soak::SoakResult> = results.iter().filter(|r| !r.passed()).collect();
    if failed.is_empty() {
        return Ok(());
    }
    for r in &failed {
        let w = shares[plan.runs.iter().position(|p| p.combination.name() == r.name).unwrap_or(0)];
        let mut again = vec!["ssdlab soak --writes".to_string(), w.to_string(), "--seed".into(), args.seed.to_string()];
        again.extend(args.drive_args());
        again.extend(["--only".into(), r.name.clone()]);
        eprintln!("error: soak failed in {}; run it alone with: {}", r.name, again.join(" "));
    }
    // Exit code 1, not bad input's 2: the drive lost data, broke an invariant or failed a run.
    std::process::exit(1);
}

/// Run one combination in a child `ssdlab soak --child` and read its result. A child that
/// ends without one (a panic: exit 101, or SIGABRT in a release build) fails the combination
/// with the panic's message, and its whole stderr is passed on; one still running after
/// the time limit (a hang) is killed and fails the combination.
fn soak_child(exe: &Path, args: &SoakArgs, name: &str, writes: u64) -> ssdlab_lab::soak::SoakResult {
    use ssdlab_lab::soak::SoakResult;
    let wall = std::time::Instant::now();
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["soak", "--child", "--writes", &writes.to_string(), "--seed", &args.seed.to_string(), "--only", name]);
    cmd.args(args.drive_args());
    let limit_s = args.timeout_s.unwrap_or_else(|| ssdlab_lab::soak::time_limit_s(writes));
    let (status, stdout, stderr) = match output_within(&mut cmd, limit_s) {
        Ok(out) => out,
        Err(e) => return SoakResult::failed(name, format!("could not run: {e}"), 0.0),
    };
    let wall_s = wall.elapsed().as_secs_f64();
    let Some(status) = status else {
        return SoakResult::failed(name, format!("no result after {limit_s} s (a hang?): killed"), wall_s);
    };
    if status.success() {
        if let Ok(r) = serde_json::from_slice::<SoakResult>(&stdout) {
            return r;
        }
    }
    let stderr = String::from_utf8_lossy(&stderr);
    eprintln!("--- {name}: stderr of the failed run ---\n{stderr}--- end of {name} ---");
    // The panic's message is the line after `panicked at FILE:LINE:COL:`.
    let mut lines = stderr.lines().skip_while(|l| !l.contains("panicked at"));
    let panic = lines.nth(1).map(|m| m.chars().take(200).collect::<String>());
    let why = match (panic, status.code()) {
        (Some(m), _) => format!("panicked: {m}"),
        (None, Some(code)) => format!("exited with code {code}"),
        (None, None) => "killed by a signal".to_string(),
    };
    SoakResult::failed(name, why, wall_s)
}

/// A child's exit status (None if killed at its time limit), stdout and stderr.
type Collected = (Option<std::process::ExitStatus>, Vec<u8>, Vec<u8>);

/// Run `cmd` and collect its stdout and stderr, killing it after `limit_s` seconds. The
/// outputs are read while it runs, so a full pipe never stalls it.
fn output_within(cmd: &mut std::process::Command, limit_s: u64) -> std::io::Result<Collected> {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(limit_s);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if std::time::Instant::now() >= deadline {
            child.kill()?;
            child.wait()?;
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let joined = |h: std::thread::JoinHandle<Vec<u8>>| h.join().unwrap_or_default();
    Ok((status, joined(stdout), joined(stderr)))
}
