//! A client connection's reading side: the NBD handshake, then each request (and a write's
//! data) read from the socket, stamped with the wall-clock time it arrived, and handed to the
//! simulation's thread. Replies are written by that thread ([`super::Server`]), which owns
//! the simulation and the data.

use std::io::{BufReader, Read};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use ssdlab_nbd::{Command, Export, Request, RequestError};

use super::Stream;

/// Bytes a connection may have in flight (read, not yet answered): it stops reading its socket
/// while more are. A connection's memory is bounded by this and one request.
pub const IN_FLIGHT_BYTES: u64 = 64 << 20;

/// The most a WRITE may carry: longer ones end the connection (their data cannot be skipped
/// cheaply, and the server advertises 32 MiB as its largest request).
const MAX_WRITE_BYTES: u32 = 64 << 20;

/// What a connection's thread tells the simulation's.
pub enum Msg {
    /// Connection `conn` finished its handshake: this is where its replies go.
    Ready { conn: u32, writer: Stream, peer: String, credit: Arc<Credit> },
    /// A request (with a write's data), read at `wall`.
    Request { conn: u32, req: Request, data: Vec<u8>, wall: Instant },
    /// The connection ended: `why` is None for a clean NBD_CMD_DISC or end of stream.
    Gone { conn: u32, why: Option<String> },
}

/// Bytes in flight on a connection, with a wait for room.
#[derive(Default)]
pub struct Credit {
    used: Mutex<u64>,
    room: Condvar,
}

impl Credit {
    fn take(&self, bytes: u64) {
        let mut used = self.used.lock().expect("credit lock");
        while *used > 0 && *used + bytes > IN_FLIGHT_BYTES {
            used = self.room.wait(used).expect("credit lock");
        }
        *used += bytes;
    }

    /// A request of `bytes` was answered.
    pub fn give(&self, bytes: u64) {
        let mut used = self.used.lock().expect("credit lock");
        *used = used.saturating_sub(bytes);
        self.room.notify_all();
    }
}

/// The bytes a request holds while in flight (its data, to or from the client), taken from the
/// connection's [`Credit`] when read and given back when answered.
pub fn credit_bytes(req: &Request) -> u64 {
    match req.command {
        Command::Write | Command::Read => req.length.min(MAX_WRITE_BYTES) as u64,
        _ => 0,
    }
}

/// Serve connection `conn` until it ends; every outcome is a message to the simulation.
pub fn run(mut stream: Stream, conn: u32, peer: String, export: Export, tx: Sender<Msg>) {
    if let Err(e) = ssdlab_nbd::handshake(&mut stream, &export) {
        let _ = tx.send(Msg::Gone { conn, why: Some(format!("handshake: {e}")) });
        return;
    }
    let writer = match stream.try_clone() {
        Ok(w) => w,
        Err(e) => {
            let _ = tx.send(Msg::Gone { conn, why: Some(format!("cannot clone the socket: {e}")) });
            return;
        }
    };
    let credit = Arc::new(Credit::default());
    if tx.send(Msg::Ready { conn, writer, peer, credit: credit.clone() }).is_err() {
        return;
    }
    let why = requests(BufReader::with_capacity(1 << 16, stream), conn, &credit, &tx).err();
    let _ = tx.send(Msg::Gone { conn, why });
}

/// Read requests until a DISC, the end of the stream or an error (its text).
fn requests(mut r: BufReader<Stream>, conn: u32, credit: &Credit, tx: &Sender<Msg>) -> Result<(), String> {
    loop {
        let req = match ssdlab_nbd::read_request(&mut r) {
            Ok(req) => req,
            Err(RequestError::Disconnected) => return Ok(()),
            Err(e) => return Err(e.to_string()),
        };
        let mut data = Vec::new();
        match req.command {
            Command::Write if req.length > MAX_WRITE_BYTES => {
                return Err(format!(
                    "a write of {} bytes, more than the {MAX_WRITE_BYTES} a request may carry",
                    req.length
                ));
            }
            Command::Write => {
                credit.take(credit_bytes(&req));
                data = vec![0; req.length as usize];
                r.read_exact(&mut data).map_err(|e| format!("a write's data: {e}"))?;
            }
            Command::Read => credit.take(credit_bytes(&req)),
            _ => {}
        }
        let disc = req.command == Command::Disc;
        if tx.send(Msg::Request { conn, req, data, wall: Instant::now() }).is_err() || disc {
            return Ok(());
        }
    }
}
