//! `ssdlab serve` with real clients: fio's `nbd` engine (libnbd), skipped with a message where
//! fio or its nbd engine is missing, and a client written here from the NBD protocol for what
//! fio will not do (malformed handshakes, a disconnect in the middle of a write).
//!
//! What is asserted comes from outside the server: fio's own counts, verification and
//! latencies; the bytes a client wrote read back; the protocol's error numbers (EINVAL 22,
//! ENOSPC 28) for requests the protocol says are wrong.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::Child;
use std::sync::Mutex;

use super::*;

/// Serve tests one at a time: the real-pace latencies are wall-clock times.
static ONE_SERVER: Mutex<()> = Mutex::new(());

/// A running `ssdlab serve --once` on a Unix socket in its own directory.
struct Server {
    child: Child,
    dir: TempDir,
    sock: PathBuf,
}

impl Server {
    fn start(tag: &str, extra: &[&str]) -> Server {
        let dir = TempDir::new(tag);
        let sock = dir.path("nbd.sock");
        let mut args = vec!["serve", "--config", MQSIM_DEFAULT, "--once"];
        let (listen, out) = (format!("unix:{}", p(&sock)), p(&dir.path("report.json")));
        args.extend(["--listen", &listen, "--out", &out]);
        args.extend(extra);
        let child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(dir.path("stdout")).expect("stdout"))
            .stderr(std::fs::File::create(dir.path("stderr")).expect("stderr"))
            .spawn()
            .expect("spawn ssdlab serve");
        let start = Instant::now();
        while !sock.exists() {
            assert!(start.elapsed() < Duration::from_secs(30), "the server did not listen");
            std::thread::sleep(Duration::from_millis(10));
        }
        Server { child, dir, sock }
    }

    fn uri(&self) -> String {
        format!("--uri=nbd+unix:///?socket={}", p(&self.sock))
    }

    /// Wait for the server to end (it does, `--once`, after its last client); its exit code,
    /// stderr and report.
    fn finish(mut self) -> (Option<i32>, String, Value) {
        let start = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break s;
            }
            if start.elapsed() > TIMEOUT {
                let _ = self.child.kill();
                panic!("ssdlab serve did not end after its last client");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let stderr = std::fs::read_to_string(self.dir.path("stderr")).unwrap_or_default();
        let report = if status.success() { read_json(&self.dir.path("report.json")) } else { Value::Null };
        (status.code(), stderr, report)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// fio with its nbd engine, or None (the test is skipped, saying why).
fn fio_nbd() -> Option<()> {
    let engines = Command::new("fio").arg("--enghelp").output().ok()?;
    if !String::from_utf8_lossy(&engines.stdout).contains("nbd") {
        eprintln!("skipped: this fio has no nbd engine (built without libnbd)");
        return None;
    }
    Some(())
}

/// Run fio with `args` (a JSON report into `server`'s directory); the report's first job
/// list.
fn fio(server: &Server, args: &[&str]) -> Value {
    let json = server.dir.path(&format!("fio-{}.json", Instant::now().elapsed().as_nanos()));
    let mut all: Vec<String> = vec!["--ioengine=nbd".into(), server.uri(), "--output-format=json".into()];
    all.push(format!("--output={}", p(&json)));
    all.extend(args.iter().map(|a| a.to_string()));
    run_program("fio", "fio", &all).assert_success();
    read_json(&json)
}

#[test]
fn fio_verifies_random_writes_read_back() {
    let _one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(()) = fio_nbd() else { return };
    verify(64 << 20);
}

#[test]
#[ignore = "long: a GiB of 4 KiB writes through fio and back (about 35 s)"]
fn fio_verifies_a_gib_of_random_writes_read_back() {
    let _one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(()) = fio_nbd() else { return };
    verify(1 << 30);
}

/// fio writes `bytes` in random 4 KiB blocks, then reads each back and checks its crc32c;
/// every block is written and read once, with no verify error.
fn verify(bytes: u64) {
    let server = Server::start("verify", &["--pace", "simulated"]);
    let size = format!("--size={bytes}");
    let args = ["--name=v", "--rw=randwrite", "--bs=4k", &size, "--iodepth=16", "--verify=crc32c", "--verify_fatal=1"];
    let report = fio(&server, &args);
    let job = at(&report, "jobs.0");
    assert_eq!(uint(job, "error"), 0, "{job}");
    let blocks = bytes / 4096;
    assert_eq!((uint(job, "write.total_ios"), uint(job, "read.total_ios")), (blocks, blocks));
    let (code, stderr, served) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(uint(&served, "sim.latency_us.all.count"), 2 * blocks, "every request went through the drive");
}

/// fio's mean completion latency at QD 1 and QD 16 against the report's mean for the same
/// requests, in real pace: within 15% or 25 µs, whichever is larger. fio's clock includes the
/// socket round trip; the report's is the simulated drive's alone.
#[test]
fn real_pace_latencies_are_the_simulated_drives() {
    let _one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(()) = fio_nbd() else { return };
    for (depth, size) in [(1, "2m"), (16, "32m")] {
        let server = Server::start("pace", &[]);
        let (depth_arg, size_arg) = (format!("--iodepth={depth}"), format!("--size={size}"));
        let report = fio(&server, &["--name=w", "--rw=randwrite", "--bs=4k", &size_arg, &depth_arg]);
        let fio_us = num(at(&report, "jobs.0"), "write.clat_ns.mean") / 1e3;
        let (code, stderr, served) = server.finish();
        assert_eq!(code, Some(0), "{stderr}");
        let ours_us = num(&served, "sim.latency_us.all.mean");
        let allowed = (0.15 * ours_us).max(25.0);
        eprintln!("QD {depth}: fio {fio_us:.1} us, ssdlab {ours_us:.1} us, lag {}", at(&served, "serve.lag_us"));
        assert!((fio_us - ours_us).abs() <= allowed, "QD {depth}: fio {fio_us:.1} us against {ours_us:.1} us");
    }
}

/// Two fio jobs are two connections and two flows, each with its job's requests.
#[test]
fn two_fio_jobs_are_two_flows() {
    let _one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(()) = fio_nbd() else { return };
    let server = Server::start("flows", &["--pace", "simulated", "--flows", "tenant_a:high,tenant_b:low"]);
    let common = ["--rw=randwrite", "--bs=4k", "--iodepth=8"];
    let mut args: Vec<&str> = vec!["--name=a", "--size=8m"];
    args.extend(common);
    args.extend(["--name=b", "--size=12m"]);
    args.extend(common);
    let report = fio(&server, &args);
    let mut jobs: Vec<u64> = (0..2).map(|j| uint(at(&report, &format!("jobs.{j}")), "write.total_ios")).collect();
    let (code, stderr, served) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let flows = at(&served, "sim.flows").as_array().expect("flows");
    let names: Vec<&str> = flows.iter().map(|f| f["name"].as_str().expect("name")).collect();
    assert_eq!(names, ["tenant_a", "tenant_b"]);
    let mut counts: Vec<u64> = flows.iter().map(|f| uint(f, "requests_completed")).collect();
    jobs.sort();
    counts.sort();
    assert_eq!((jobs.clone(), counts), (vec![2048, 3072], jobs));
}

// A client written from the NBD protocol, for what fio does not do.

const IHAVEOPT: u64 = 0x4948_4156_454f_5054;
const REQUEST_MAGIC: u32 = 0x2560_9513;
const REPLY_MAGIC: u32 = 0x6744_6698;
const READ: u16 = 0;
const WRITE: u16 = 1;
const DISC: u16 = 2;

/// Connect, read the greeting and send `client_flags`.
fn greet(sock: &Path, client_flags: u32) -> UnixStream {
    let mut s = UnixStream::connect(sock).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    let mut greeting = [0u8; 18];
    s.read_exact(&mut greeting).expect("greeting");
    assert_eq!(&greeting[..16], b"NBDMAGICIHAVEOPT");
    s.write_all(&client_flags.to_be_bytes()).expect("flags");
    s
}

/// A connection in transmission: fixed newstyle with no zeroes (flags 3), then
/// NBD_OPT_EXPORT_NAME (1) with the empty name, answered by the size and transmission flags.
fn connect(sock: &Path) -> (UnixStream, u64) {
    let mut s = greet(sock, 3);
    let mut opt = IHAVEOPT.to_be_bytes().to_vec();
    opt.extend(1u32.to_be_bytes());
    opt.extend(0u32.to_be_bytes());
    s.write_all(&opt).expect("option");
    let mut answer = [0u8; 10];
    s.read_exact(&mut answer).expect("export size and flags");
    (s, u64::from_be_bytes(answer[..8].try_into().expect("8 bytes")))
}

fn send(s: &mut UnixStream, command: u16, handle: u64, offset: u64, length: u32, data: &[u8]) {
    let mut req = REQUEST_MAGIC.to_be_bytes().to_vec();
    req.extend(0u16.to_be_bytes());
    req.extend(command.to_be_bytes());
    req.extend(handle.to_be_bytes());
    req.extend(offset.to_be_bytes());
    req.extend(length.to_be_bytes());
    req.extend(data);
    s.write_all(&req).expect("request");
}

/// A simple reply: (error, handle), and `data` bytes read after it when it is a success.
fn reply(s: &mut UnixStream, data: usize) -> (u32, u64, Vec<u8>) {
    let mut head = [0u8; 16];
    s.read_exact(&mut head).expect("reply");
    assert_eq!(u32::from_be_bytes(head[..4].try_into().expect("4")), REPLY_MAGIC);
    let error = u32::from_be_bytes(head[4..8].try_into().expect("4"));
    let mut body = vec![0u8; if error == 0 { data } else { 0 }];
    s.read_exact(&mut body).expect("read data");
    (error, u64::from_be_bytes(head[8..].try_into().expect("8")), body)
}

/// Clients that break the handshake (no fixed newstyle, a wrong option magic, a hang-up after
/// the greeting) are logged and dropped; the server stays up, and a good client after them
/// gets the protocol's errors for bad requests: EINVAL (22) for an unknown command, a read
/// past the end and a misaligned offset, ENOSPC (28) for a write past the end.
#[test]
fn malformed_handshakes_and_bad_requests_leave_the_server_up() {
    let _one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let server = Server::start("malformed", &["--pace", "simulated"]);
    let mut s = greet(&server.sock, 0);
    assert_eq!(s.read(&mut [0u8; 1]).expect("closed"), 0, "a client without fixed newstyle is refused");
    let mut s = greet(&server.sock, 3);
    s.write_all(b"XXXXXXXX\0\0\0\x01\0\0\0\0").expect("bad option");
    assert_eq!(s.read(&mut [0u8; 1]).unwrap_or(0), 0, "a wrong option magic ends the connection");
    drop(greet(&server.sock, 3));
    let (mut s, size) = connect(&server.sock);
    assert_eq!(size, 511_272_902_656, "mqsim-default's logical capacity (ssdlab validate)");
    send(&mut s, 9, 1, 0, 4096, &[]);
    send(&mut s, READ, 2, size, 4096, &[]);
    send(&mut s, READ, 3, 100, 4096, &[]);
    send(&mut s, WRITE, 4, size - 512, 4096, &[0u8; 4096]);
    let errors: Vec<(u32, u64)> = (0..4).map(|_| reply(&mut s, 0)).map(|(e, h, _)| (e, h)).collect();
    assert_eq!(errors, [(22, 1), (22, 2), (22, 3), (28, 4)]);
    send(&mut s, DISC, 5, 0, 0, &[]);
    drop(s);
    let (code, stderr, served) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr.matches("ended: handshake").count(), 3, "{stderr}");
    assert_eq!(uint(&served, "serve.error_replies"), 4);
}

/// A write acknowledged before its client dropped mid-way through the next write's data is
/// kept; the half-sent write is not.
#[test]
fn a_disconnect_mid_request_loses_nothing_acknowledged() {
    let _one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let server = Server::start("disconnect", &["--pace", "simulated"]);
    let block: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 251) as u8).collect();
    let (mut s, _) = connect(&server.sock);
    send(&mut s, WRITE, 1, 1 << 20, 4096, &block);
    assert_eq!(reply(&mut s, 0).0, 0, "the first write is acknowledged");
    send(&mut s, WRITE, 2, 2 << 20, 8192, &block[..100]);
    drop(s);
    let (mut s, _) = connect(&server.sock);
    send(&mut s, READ, 3, 1 << 20, 4096, &[]);
    send(&mut s, READ, 4, 2 << 20, 8192, &[]);
    let (first, second) = (reply(&mut s, 4096), reply(&mut s, 8192));
    assert_eq!((first.0, first.1), (0, 3));
    assert!(first.2 == block, "the acknowledged write reads back");
    assert_eq!((second.0, second.1), (0, 4));
    assert!(second.2.iter().all(|&b| b == 0), "the half-sent write left nothing");
    send(&mut s, DISC, 5, 0, 0, &[]);
    drop(s);
    let (code, stderr, served) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("connection 1 ended: a write's data"), "{stderr}");
    assert_eq!(uint(&served, "sim.latency_us.all.count"), 3, "one write and two reads reached the drive");
}

/// A million random 4 KiB reads and writes (half each, over 1 GiB) replayed by fio at QD 16
/// through the server in simulated pace, against `ssdlab run` replaying the same trace closed
/// loop at QD 16 with the same seed: the report's latency statistics and IOPS agree within 1%.
/// In simulated pace a client that answers each completion with its next request is a closed
/// loop in simulated time, so only the order in which simultaneous events meet may differ.
#[test]
#[ignore = "long: a million requests through fio (about 70 s)"]
fn simulated_pace_is_a_closed_loop_run() {
    let _one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(()) = fio_nbd() else { return };
    let server = Server::start("closed", &["--pace", "simulated"]);
    let dir = TempDir::new("closed-run");
    let (trace, iolog) = (dir.path("mix.trace"), dir.path("mix.iolog"));
    let mut text = String::new();
    let mut x = 7u64;
    for i in 0..1_000_000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let (block, write) = ((x >> 33) % (1 << 18), (x >> 20) & 1);
        text += &format!("{} 0 {} 8 {}\n", i * 1000, block * 8, 1 - write);
    }
    std::fs::write(&trace, text).expect("trace");
    ssdlab(["trace", "convert", &p(&trace), "--to", "fio_iolog", "--out", &p(&iolog)]).assert_success();
    let replay = format!("--read_iolog={}", p(&iolog));
    let report = fio(&server, &["--name=r", &replay, "--replay_no_stall=1", "--iodepth=16"]);
    assert_eq!(uint(at(&report, "jobs.0"), "error"), 0);
    let (code, stderr, served) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    // At the end of the replay the last replies free no request: at most one wait each.
    let timeouts = uint(&served, "serve.lockstep_timeouts");
    eprintln!("lockstep timeouts: {timeouts}");
    assert!(timeouts <= 16, "{timeouts} times simulated time moved on without fio's next request");
    let wl = closed_loop_workload(&trace);
    let out = dir.path("run.json");
    ssdlab(["run", "--config", MQSIM_DEFAULT, "--workload", &p(&wl), "--out", &p(&out)]).assert_success();
    let run = read_json(&out);
    for key in ["sim.latency_us.all.mean", "sim.latency_us.all.p50", "sim.latency_us.all.p99", "sim.flows.0.iops"] {
        let (ours, theirs) = (num(&served, key), num(&run, key));
        eprintln!("{key}: serve {ours:.2}, run {theirs:.2}");
        assert!((ours - theirs).abs() <= 0.01 * theirs, "{key}: serve {ours} against run {theirs}");
    }
    assert_eq!(uint(&served, "sim.latency_us.all.count"), 1_000_000);
}

/// A workload beside `trace` replaying it closed loop at QD 16.
fn closed_loop_workload(trace: &Path) -> PathBuf {
    let wl = trace.with_extension("toml");
    let text = format!(
        "[[flows]]\nname = \"mix\"\ntype = \"trace\"\npath = {:?}\nreplay = \"closed_loop\"\nqueue_depth = 16\n",
        p(trace)
    );
    std::fs::write(&wl, text).expect("workload");
    wl
}

/// Without `--once` the server runs until SIGTERM (or SIGINT), then writes its report: here
/// after a client wrote 8 KiB and read it back over TCP, with the integrity oracle on.
#[test]
fn sigterm_writes_the_report() {
    let _one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = TempDir::new("sigterm");
    let (err, out) = (dir.path("stderr"), dir.path("report.json"));
    let mut child = Command::new(BIN)
        .args(["serve", "--config", MQSIM_DEFAULT, "--listen", "tcp:127.0.0.1:0", "--check", "--out", &p(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err).expect("stderr"))
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    let addr = loop {
        let text = std::fs::read_to_string(&err).unwrap_or_default();
        if let Some(rest) = text.split("listening on tcp:").nth(1) {
            break rest.split(':').take(2).collect::<Vec<_>>().join(":");
        }
        assert!(start.elapsed() < Duration::from_secs(30), "no listening line: {text}");
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut s = std::net::TcpStream::connect(&addr).expect("connect");
    let mut greeting = [0u8; 18];
    s.read_exact(&mut greeting).expect("greeting");
    let mut hello = 3u32.to_be_bytes().to_vec();
    hello.extend(IHAVEOPT.to_be_bytes());
    hello.extend([0, 0, 0, 1, 0, 0, 0, 0]);
    s.write_all(&hello).expect("export name");
    s.read_exact(&mut [0u8; 10]).expect("size and flags");
    let data: Vec<u8> = (0..8192u32).map(|i| (i % 253) as u8).collect();
    let mut write = REQUEST_MAGIC.to_be_bytes().to_vec();
    write.extend([0, 0, 0, WRITE as u8, 0, 0, 0, 0, 0, 0, 0, 1]);
    write.extend((64u64 << 20).to_be_bytes());
    write.extend(8192u32.to_be_bytes());
    write.extend(&data);
    let mut read = REQUEST_MAGIC.to_be_bytes().to_vec();
    read.extend([0, 0, 0, READ as u8, 0, 0, 0, 0, 0, 0, 0, 2]);
    read.extend((64u64 << 20).to_be_bytes());
    read.extend(8192u32.to_be_bytes());
    s.write_all(&write).expect("write");
    let mut ack = [0u8; 16];
    s.read_exact(&mut ack).expect("write's reply");
    assert_eq!(&ack[4..8], &[0, 0, 0, 0]);
    s.write_all(&read).expect("read");
    let mut back = vec![0u8; 16 + 8192];
    s.read_exact(&mut back).expect("read's reply");
    assert!(back[16..] == data[..], "the write reads back over TCP");
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let status = child.wait().expect("wait");
    let stderr = std::fs::read_to_string(&err).unwrap_or_default();
    assert_eq!(status.code(), Some(0), "{stderr}");
    let report = read_json(&out);
    assert_eq!(uint(&report, "sim.latency_us.all.count"), 2);
    assert_eq!(uint(&report, "check.violations"), 0, "the oracle found the drive consistent");
    assert!(uint(&report, "check.reads_checked") >= 1);
}

/// With one flow, a second client while the first is connected is closed before the
/// greeting; once the first has gone, the next client gets the flow.
#[test]
fn a_client_beyond_the_flows_is_closed_and_the_flow_is_reused() {
    let _one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let server = Server::start("slots", &["--pace", "simulated", "--flows", "only"]);
    let (mut first, _) = connect(&server.sock);
    let mut second = UnixStream::connect(&server.sock).expect("connect");
    second.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    assert_eq!(second.read(&mut [0u8; 18]).unwrap_or(0), 0, "no greeting for a client without a flow");
    send(&mut first, DISC, 1, 0, 0, &[]);
    drop(first);
    std::thread::sleep(Duration::from_millis(100)); // the flow is given back when the server reads the DISC
    let (mut third, _) = connect(&server.sock);
    send(&mut third, WRITE, 2, 0, 4096, &[1u8; 4096]);
    assert_eq!(reply(&mut third, 0), (0, 2, Vec::new()));
    send(&mut third, DISC, 3, 0, 0, &[]);
    drop(third);
    let (code, stderr, served) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("connection 2 from unix socket refused: every live flow has a client"), "{stderr}");
    assert_eq!(uint(&served, "serve.connections"), 2);
    assert_eq!(uint(&served, "sim.flows.0.requests_completed"), 1);
}

/// A TRIM longer than the 32 MiB the server takes as one request goes into the drive as
/// parts of at most 32 MiB (100 MiB: 4 parts), answered once, when the last is done; what
/// it covered reads as zeros.
#[test]
fn a_long_trim_goes_in_as_parts_and_is_answered_once() {
    const TRIM: u16 = 4;
    let _one = ONE_SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let server = Server::start("trim", &["--pace", "simulated"]);
    let (mut s, _) = connect(&server.sock);
    send(&mut s, WRITE, 1, 40 << 20, 4096, &[9u8; 4096]);
    assert_eq!(reply(&mut s, 0), (0, 1, Vec::new()));
    send(&mut s, TRIM, 2, 0, 100 << 20, &[]);
    assert_eq!(reply(&mut s, 0), (0, 2, Vec::new()), "one reply for the whole trim");
    send(&mut s, READ, 3, 40 << 20, 4096, &[]);
    assert_eq!(reply(&mut s, 4096), (0, 3, vec![0u8; 4096]));
    send(&mut s, DISC, 4, 0, 0, &[]);
    drop(s);
    let (code, stderr, served) = server.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(uint(&served, "sim.latency_us.all.count"), 1 + 4 + 1, "the write, 4 trim parts, the read");
}
