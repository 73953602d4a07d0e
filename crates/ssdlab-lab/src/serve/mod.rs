//! `ssdlab serve`: the simulated drive as a block device that real programs use, over the
//! Network Block Device protocol (`ssdlab_nbd`). Each client connection is a live flow of the
//! workload (`type = "live"`, its own submission queue and statistics); a request read from the
//! socket is handed to the simulation, and its reply leaves when the simulated drive completes
//! it:
//!
//! - `Pace::Real`: the simulation keeps step with the wall clock. A request arrives at the
//!   time it was read; its reply is sent when the wall clock reaches its simulated
//!   completion. How late replies leave (the lag) is measured and reported.
//! - `Pace::Simulated`: simulated time moves only while requests are in flight, as fast as the
//!   simulation goes. A request arrives at the simulated time its client sent it after a
//!   reply, so a client that answers each completion with a new request is a closed loop:
//!   after replying, the server waits up to `lockstep_us` of wall time for that request
//!   before simulated time moves on.
//!
//! Data is kept ([`store`]): writes are stored when they arrive, reads answered from the store
//! when they complete. Connections are read by a thread each ([`conn`]); this thread owns the
//! simulation, the store and every reply. `docs/serve.md` is the user's page.

mod conn;
pub mod store;

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ssdlab::host::{IoOp, IoRequest};
use ssdlab::{LiveDone, Simulation};
use ssdlab_nbd::{cmd_flag, errno, tflag, Command, Export, Request};

pub use conn::IN_FLIGHT_BYTES;
use conn::{Credit, Msg};
pub use store::{DataSpec, Store};

/// Where the server listens (`--listen unix:PATH | tcp:HOST:PORT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    Unix(std::path::PathBuf),
    Tcp(String),
}

/// How simulated time relates to the wall clock (`--pace`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    Real,
    Simulated,
}

/// The largest request the server takes (advertised as the NBD maximum block size).
pub const MAX_REQUEST_BYTES: u32 = 32 << 20;

/// `ssdlab serve`'s options beyond the drive and its flows.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub listen: Listen,
    pub pace: Pace,
    pub data: DataSpec,
    /// End after the last client disconnects (once one has connected).
    pub once: bool,
    /// Simulated pace: wall time to wait, after a reply, for the client's next request.
    pub lockstep_us: u64,
}

/// A served session's results: the run's outcome and what serving measured.
pub struct Served {
    pub outcome: ssdlab::sim::Outcome,
    pub pace: Pace,
    pub connections: u64,
    /// Real pace: how long after its simulated completion each reply left (ns).
    pub lag_ns: hdrhistogram::Histogram<u64>,
    /// Requests answered with an error (bad range, unknown command).
    pub errors: u64,
    /// Simulated pace: times simulated time moved on without the requests replies had freed
    /// (the client took longer than `lockstep_us`); 0 when every client kept a closed loop.
    pub lockstep_timeouts: u64,
}

/// A connected client.
struct Client {
    flow: usize,
    writer: Stream,
    credit: Arc<Credit>,
    /// A write to the socket failed: its replies are dropped.
    broken: bool,
}

/// A client's request in the simulated drive, to be answered when its last part completes.
struct Pending {
    conn: u32,
    handle: u64,
    command: Command,
    offset: u64,
    length: u32,
    /// Parts still in the drive: a TRIM or WRITE_ZEROES longer than [`MAX_REQUEST_BYTES`]
    /// goes in as requests of at most that much each, so that one client request never makes
    /// more work in the drive than the largest read or write.
    parts: u32,
}

/// A socket of either kind.
pub enum Stream {
    Unix(std::os::unix::net::UnixStream),
    Tcp(std::net::TcpStream),
}

impl Stream {
    fn try_clone(&self) -> std::io::Result<Stream> {
        Ok(match self {
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
        })
    }

    fn shutdown(&self) {
        let _ = match self {
            Stream::Unix(s) => s.shutdown(std::net::Shutdown::Both),
            Stream::Tcp(s) => s.shutdown(std::net::Shutdown::Both),
        };
    }
}

impl std::io::Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl std::io::Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.flush(),
            Stream::Tcp(s) => s.flush(),
        }
    }
}

/// The export a drive of `size` bytes and `sector` bytes per sector offers.
pub fn export(size: u64, sector: u32) -> Export {
    Export {
        size,
        flags: tflag::SEND_FLUSH
            | tflag::SEND_FUA
            | tflag::SEND_TRIM
            | tflag::SEND_WRITE_ZEROES
            | tflag::CAN_MULTI_CONN,
        min_block: sector,
        preferred_block: sector.max(4096),
        max_block: MAX_REQUEST_BYTES,
        description: Some("ssdlab simulated SSD".into()),
    }
}

/// Listen on `opts.listen`: the listener's thread hands each connection to a thread of its
/// own, which reads it and sends what it reads to `tx`.
///
/// `slots` counts the live flows no connection holds: a connection takes one when accepted
/// and gives it back when it ends; one that finds none is closed before the greeting.
fn listen(
    opts: &ServeOptions,
    export: Export,
    tx: Sender<Msg>,
    slots: Arc<AtomicUsize>,
) -> Result<String, ssdlab::Error> {
    let accept = move |stream: Stream, peer: String, n: u32| {
        if slots.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |free| free.checked_sub(1)).is_err() {
            eprintln!(
                "serve: connection {n} from {peer} refused: every live flow has a client (add flows with --flows)"
            );
            stream.shutdown();
            return;
        }
        let (export, tx) = (export.clone(), tx.clone());
        std::thread::spawn(move || conn::run(stream, n, peer, export, tx));
    };
    match &opts.listen {
        Listen::Unix(path) => {
            let l = std::os::unix::net::UnixListener::bind(path).map_err(|e| ssdlab::Error::io(path, e))?;
            let name = format!("unix:{}", path.display());
            std::thread::spawn(move || {
                for (n, s) in (1..).zip(l.incoming()) {
                    match s {
                        Ok(s) => accept(Stream::Unix(s), "unix socket".into(), n),
                        Err(e) => eprintln!("serve: accept failed: {e}"),
                    }
                }
            });
            Ok(name)
        }
        Listen::Tcp(addr) => {
            let l = std::net::TcpListener::bind(addr).map_err(|e| ssdlab::Error::io(std::path::Path::new(addr), e))?;
            let name = format!("tcp:{}", l.local_addr().map_or(addr.clone(), |a| a.to_string()));
            std::thread::spawn(move || {
                for (n, s) in (1..).zip(l.incoming()) {
                    match s {
                        Ok(s) => {
                            let _ = s.set_nodelay(true);
                            let peer = s.peer_addr().map_or("?".into(), |a| a.to_string());
                            accept(Stream::Tcp(s), peer, n)
                        }
                        Err(e) => eprintln!("serve: accept failed: {e}"),
                    }
                }
            });
            Ok(name)
        }
    }
}

/// Serve `sim` (built from a workload whose live flows are the connections' flows) until
/// `stop` is set, or with `once` the last client has gone. `ready` is called with the address
/// once the server listens.
pub fn serve(
    mut sim: Simulation,
    size: u64,
    sector: u32,
    opts: &ServeOptions,
    stop: &AtomicBool,
    ready: &mut dyn FnMut(&str),
) -> Result<Served, ssdlab::Error> {
    let export = export(size, sector);
    let store = Store::open(&opts.data, size)?;
    let (tx, rx) = mpsc::channel();
    let free: std::collections::BTreeSet<usize> =
        sim.live_flows().iter().enumerate().filter(|(_, &l)| l).map(|(f, _)| f).collect();
    let slots = Arc::new(AtomicUsize::new(free.len()));
    let name = listen(opts, export.clone(), tx, slots.clone())?;
    ready(&name);
    sim.start_live();
    let mut server = Server {
        sim,
        store,
        export,
        opts: opts.clone(),
        started: Instant::now(),
        clients: HashMap::new(),
        free,
        slots,
        parts: HashMap::new(),
        pending: HashMap::new(),
        next_pending: 0,
        pushed: HashMap::new(),
        done: Vec::new(),
        lag_ns: hdrhistogram::Histogram::new(3).expect("3 significant figures"),
        connections: 0,
        errors: 0,
        lockstep_timeouts: 0,
        awaiting: 0,
        lockstep_until: None,
        behind_warned: None,
        last_gone: None,
    };
    server.run(&rx, stop);
    let Server { sim, lag_ns, connections, errors, lockstep_timeouts, .. } = server;
    let outcome = sim.finish_live()?;
    Ok(Served { outcome, pace: opts.pace, connections, lag_ns, errors, lockstep_timeouts })
}

/// The simulation's thread: the simulation, the data, the clients' replies.
struct Server {
    sim: Simulation,
    store: Store,
    export: Export,
    opts: ServeOptions,
    started: Instant,
    clients: HashMap<u32, Client>,
    /// Live flows no connection holds, lowest first.
    free: std::collections::BTreeSet<usize>,
    /// Their count as the listener sees it ([`listen`]).
    slots: Arc<AtomicUsize>,
    /// By (flow, ordinal): the client request each request in the drive is a part of.
    parts: HashMap<(usize, u64), u64>,
    /// Client requests in the drive, by a number of the server's.
    pending: HashMap<u64, Pending>,
    next_pending: u64,
    /// By flow: requests handed to it so far (the next one's ordinal).
    pushed: HashMap<usize, u64>,
    done: Vec<LiveDone>,
    lag_ns: hdrhistogram::Histogram<u64>,
    connections: u64,
    errors: u64,
    lockstep_timeouts: u64,
    /// Simulated pace: replies sent whose follow-up requests have not come yet, and until when
    /// (wall) to wait for them.
    awaiting: u32,
    lockstep_until: Option<Instant>,
    /// Real pace: when the last "cannot keep up" warning went out.
    behind_warned: Option<Instant>,
    /// `--once`: since when no client has been connected.
    last_gone: Option<Instant>,
}

/// `--once`: how long after the last client has gone the server waits for another.
const ONCE_GRACE: Duration = Duration::from_millis(500);
/// How long the loop blocks at most when nothing is due, so that a stop is seen.
const POLL: Duration = Duration::from_millis(50);
/// Real pace: a deadline nearer than this is waited for by spinning, not sleeping (a sleep
/// overshoots by tens of microseconds).
const SPIN: Duration = Duration::from_micros(300);

impl Server {
    /// Picoseconds of wall time since the start: the real pace's simulated clock.
    fn wall_ps(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.started).as_nanos() as u64 * 1000
    }

    fn run(&mut self, rx: &Receiver<Msg>, stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) && !self.once_over() {
            match self.opts.pace {
                Pace::Real => self.real_round(rx),
                Pace::Simulated => self.simulated_round(rx),
            }
        }
    }

    /// `--once`: a client came, and every client has been gone for [`ONCE_GRACE`] (a client
    /// may reconnect at once: fio's nbd engine connects once to learn the size, then again
    /// for the job).
    fn once_over(&mut self) -> bool {
        if !self.opts.once || self.connections == 0 || !self.clients.is_empty() {
            self.last_gone = None;
            return false;
        }
        self.last_gone.get_or_insert_with(Instant::now).elapsed() > ONCE_GRACE
    }

    /// Real pace: take what arrived, run the simulation to now, wait for the next event or
    /// message.
    fn real_round(&mut self, rx: &Receiver<Msg>) {
        while let Ok(m) = rx.try_recv() {
            self.message(m);
        }
        let now = self.wall_ps(Instant::now());
        self.step(now.max(self.sim.now_ps()));
        let wait = match self.sim.next_event_ps() {
            Some(t) => Duration::from_nanos(t.saturating_sub(self.wall_ps(Instant::now())) / 1000),
            None => POLL,
        };
        if wait.is_zero() {
            return;
        }
        if wait > SPIN {
            if let Ok(m) = rx.recv_timeout((wait - SPIN).min(POLL)) {
                self.message(m);
            }
            return;
        }
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline {
            if let Ok(m) = rx.try_recv() {
                self.message(m);
                return;
            }
            std::hint::spin_loop();
        }
    }

    /// Simulated pace: take what arrived; after replies, wait for the requests they free;
    /// else run the simulation to its next event while requests are in flight.
    fn simulated_round(&mut self, rx: &Receiver<Msg>) {
        while let Ok(m) = rx.try_recv() {
            self.message(m);
        }
        if let Some(until) = self.lockstep_until.filter(|_| self.awaiting > 0) {
            match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(m) => self.message(m),
                Err(RecvTimeoutError::Timeout) => {
                    self.awaiting = 0;
                    if self.sim.requests_in_flight() > 0 {
                        self.lockstep_timeouts += 1;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {}
            }
            return;
        }
        if self.sim.requests_in_flight() > 0 {
            if let Some(t) = self.sim.next_event_ps() {
                self.step(t);
                return;
            }
        }
        if let Ok(m) = rx.recv_timeout(POLL) {
            self.message(m);
        }
    }

    /// Run the simulation to `until` and answer what completed.
    fn step(&mut self, until: u64) {
        let mut done = std::mem::take(&mut self.done);
        self.sim.step_until(until, &mut done);
        let sent = Instant::now();
        let mut replied = 0;
        for d in done.drain(..) {
            replied += u32::from(self.complete(d, sent));
        }
        self.done = done;
        if replied > 0 && self.opts.pace == Pace::Simulated {
            self.awaiting += replied;
            self.lockstep_until = Some(sent + Duration::from_micros(self.opts.lockstep_us));
        }
    }

    /// A request completed in the drive: answer its client. Whether a reply went out.
    fn complete(&mut self, d: LiveDone, sent: Instant) -> bool {
        let Some(id) = self.parts.remove(&(d.flow as usize, d.ordinal)) else { return false };
        let p = self.pending.get_mut(&id).expect("a part's request is pending");
        p.parts -= 1;
        if p.parts > 0 {
            return false;
        }
        let p = self.pending.remove(&id).expect("pending");
        if self.opts.pace == Pace::Real {
            let lag = self.wall_ps(sent).saturating_sub(d.done_ps) / 1000;
            self.lag_ns.saturating_record(lag);
            self.warn_if_behind(lag);
        }
        let mut data = Vec::new();
        let mut error = 0;
        if p.command == Command::Read {
            data = vec![0; p.length as usize];
            if let Err(e) = self.store.read(p.offset, &mut data) {
                eprintln!("serve: reading {} failed: {e}", self.store.name().display());
                error = errno::EIO;
            }
        }
        let credit = if matches!(p.command, Command::Read | Command::Write) { p.length as u64 } else { 0 };
        self.reply(p.conn, p.handle, error, &data, credit)
    }

    /// Real pace: a reply more than a millisecond late says the simulation fell behind the
    /// clock; say so loudly, at most every ten seconds.
    fn warn_if_behind(&mut self, lag_ns: u64) {
        if lag_ns > 1_000_000 && self.behind_warned.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
            eprintln!(
                "serve: WARNING: a reply left {:.1} ms after its simulated completion: the simulation cannot keep up with real time (see the lag in the report; --pace simulated does not lag)",
                lag_ns as f64 / 1e6
            );
            self.behind_warned = Some(Instant::now());
        }
    }

    /// Send a simple reply to `conn` and give back `credit` bytes. Whether it was sent.
    fn reply(&mut self, conn: u32, handle: u64, error: u32, data: &[u8], credit: u64) -> bool {
        let Some(c) = self.clients.get_mut(&conn) else { return false };
        c.credit.give(credit);
        if c.broken {
            return false;
        }
        let sent = ssdlab_nbd::write_simple_reply(&mut c.writer, handle, error, data).and_then(|()| c.writer.flush());
        if let Err(e) = sent {
            eprintln!("serve: connection {conn}: a reply could not be sent ({e}); dropping the rest");
            c.broken = true;
            c.writer.shutdown();
            return false;
        }
        true
    }

    fn message(&mut self, m: Msg) {
        match m {
            Msg::Ready { conn, writer, peer, credit } => self.connected(conn, writer, &peer, credit),
            Msg::Request { conn, req, data, wall } => {
                self.awaiting = self.awaiting.saturating_sub(1);
                self.request(conn, req, data, wall)
            }
            Msg::Gone { conn, why } => {
                if let Some(c) = self.clients.remove(&conn) {
                    self.free.insert(c.flow);
                }
                self.slots.fetch_add(1, Ordering::SeqCst);
                match why {
                    Some(why) => eprintln!("serve: connection {conn} ended: {why}"),
                    None => eprintln!("serve: connection {conn} closed"),
                }
            }
        }
    }

    fn connected(&mut self, conn: u32, writer: Stream, peer: &str, credit: Arc<Credit>) {
        let Some(flow) = self.free.pop_first() else {
            eprintln!(
                "serve: connection {conn} from {peer} refused: every live flow has a client ({} flows; add flows with --flows)",
                self.clients.len()
            );
            writer.shutdown();
            return;
        };
        self.connections += 1;
        let name = &self.sim.flow_names()[flow];
        eprintln!("serve: connection {conn} from {peer}: flow {name}");
        self.clients.insert(conn, Client { flow, writer, credit, broken: false });
    }

    /// A request from a client: answered at once (an error, FLUSH, a zero length) or handed
    /// to the simulated drive.
    fn request(&mut self, conn: u32, req: Request, data: Vec<u8>, wall: Instant) {
        let Some(flow) = self.clients.get(&conn).map(|c| c.flow) else { return };
        let credit = conn::credit_bytes(&req);
        if let Err(error) = ssdlab_nbd::check_request(&self.export, &req) {
            self.errors += 1;
            self.reply(conn, req.handle, error, &[], credit);
            return;
        }
        let op = match req.command {
            Command::Read => IoOp::Read,
            Command::Write => IoOp::Write,
            Command::WriteZeroes if req.flags & cmd_flag::NO_HOLE != 0 => IoOp::Write,
            Command::Trim | Command::WriteZeroes => IoOp::Trim,
            // DISC: the connection's thread ends it. FLUSH: every write answered is in the
            // simulated drive (whose cache counts as persistent, as in MQSim); CACHE: a hint.
            _ => {
                if req.command != Command::Disc {
                    self.reply(conn, req.handle, 0, &[], credit);
                }
                return;
            }
        };
        if req.length == 0 {
            self.reply(conn, req.handle, 0, &[], credit);
            return;
        }
        if let Err(error) = self.store_data(&req, &data) {
            self.reply(conn, req.handle, error, &[], credit);
            return;
        }
        let arrival = match self.opts.pace {
            Pace::Real => {
                let at = self.wall_ps(wall).max(self.sim.now_ps());
                self.step(at);
                at
            }
            Pace::Simulated => self.sim.now_ps(),
        };
        let sector = self.export.min_block as u64;
        let (id, piece) = (self.next_pending, MAX_REQUEST_BYTES as u64);
        self.next_pending += 1;
        let parts = (req.length as u64).div_ceil(piece);
        let pending = Pending {
            conn,
            handle: req.handle,
            command: req.command,
            offset: req.offset,
            length: req.length,
            parts: parts as u32,
        };
        self.pending.insert(id, pending);
        for part in 0..parts {
            let (offset, end) = (req.offset + part * piece, req.offset + req.length as u64);
            let io = IoRequest {
                arrival_ps: arrival,
                op,
                lba: offset / sector,
                sectors: ((end.min(offset + piece) - offset) / sector) as u32,
                fua: req.flags & cmd_flag::FUA != 0,
            };
            let ordinal = self.pushed.entry(flow).or_insert(0);
            self.parts.insert((flow, *ordinal), id);
            *ordinal += 1;
            self.sim.push_live(flow, io);
        }
    }

    /// Keep a write's data (zeros for TRIM and WRITE_ZEROES); an errno if the store failed.
    fn store_data(&mut self, req: &Request, data: &[u8]) -> Result<(), u32> {
        let stored = match req.command {
            Command::Write => self.store.write(req.offset, data),
            Command::Trim | Command::WriteZeroes => self.store.zero(req.offset, req.length as u64),
            _ => Ok(()),
        };
        stored.map_err(|e| {
            eprintln!("serve: writing {} failed: {e}", self.store.name().display());
            errno::EIO
        })
    }
}
