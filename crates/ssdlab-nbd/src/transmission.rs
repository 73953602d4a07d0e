//! Transmission phase: request parsing, simple replies, request validation.

use std::io::{self, Read, Write};

use crate::handshake::be_array;
use crate::{cmd, cmd_flag, errno, tflag, Export, REQUEST_MAGIC, SIMPLE_REPLY_MAGIC};

/// Size of a (compact) request header on the wire.
pub const REQUEST_LEN: usize = 28;

/// A request's command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Read,
    /// The `length` bytes of data follow the header; [`read_request`] leaves them unread.
    Write,
    /// Soft disconnect: no reply; close after finishing outstanding requests.
    Disc,
    Flush,
    Trim,
    Cache,
    WriteZeroes,
    /// Anything else, including `BLOCK_STATUS` (7) and `RESIZE` (8), which this server
    /// does not support.
    Other(u16),
}

impl Command {
    /// The command for a wire code.
    pub fn from_code(code: u16) -> Command {
        match code {
            cmd::READ => Command::Read,
            cmd::WRITE => Command::Write,
            cmd::DISC => Command::Disc,
            cmd::FLUSH => Command::Flush,
            cmd::TRIM => Command::Trim,
            cmd::CACHE => Command::Cache,
            cmd::WRITE_ZEROES => Command::WriteZeroes,
            other => Command::Other(other),
        }
    }

    /// The wire code.
    pub fn code(self) -> u16 {
        match self {
            Command::Read => cmd::READ,
            Command::Write => cmd::WRITE,
            Command::Disc => cmd::DISC,
            Command::Flush => cmd::FLUSH,
            Command::Trim => cmd::TRIM,
            Command::Cache => cmd::CACHE,
            Command::WriteZeroes => cmd::WRITE_ZEROES,
            Command::Other(code) => code,
        }
    }
}

/// One transmission request header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Opaque cookie to echo in the reply.
    pub handle: u64,
    pub command: Command,
    /// Command flags ([`crate::cmd_flag`]).
    pub flags: u16,
    pub offset: u64,
    pub length: u32,
}

/// Why no request could be read. Every variant ends the connection.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// Reading from the client failed.
    #[error("NBD request I/O error: {0}")]
    Io(#[from] io::Error),
    /// The stream ended cleanly between requests (no byte of a new request was read).
    #[error("NBD client closed the connection")]
    Disconnected,
    /// The stream ended inside a request header.
    #[error("NBD client closed the connection {received} bytes into a {REQUEST_LEN}-byte request")]
    Truncated {
        /// Header bytes received before the end of the stream.
        received: usize,
    },
    /// The header did not start with the request magic.
    #[error("NBD request has magic {0:#010x}, expected {REQUEST_MAGIC:#010x}")]
    BadMagic(u32),
}

/// Reads one 28-byte request header: magic, command flags, type, handle, offset, length.
///
/// For [`Command::Write`], the `length` bytes of payload follow on the stream and are
/// **not** read here: the caller must read (or, having refused the request, discard) exactly
/// `length` bytes before the next call, or the stream loses sync. A caller should bound
/// what it is willing to buffer (e.g. by `max_block`) and drop the connection otherwise.
///
/// A stream that ends before the first byte gives [`RequestError::Disconnected`]; one that
/// ends later gives [`RequestError::Truncated`].
pub fn read_request<R: Read>(r: &mut R) -> Result<Request, RequestError> {
    let mut buf = [0u8; REQUEST_LEN];
    let mut filled = 0;
    while filled < REQUEST_LEN {
        match r.read(&mut buf[filled..]) {
            Ok(0) if filled == 0 => return Err(RequestError::Disconnected),
            Ok(0) => return Err(RequestError::Truncated { received: filled }),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(RequestError::Io(e)),
        }
    }
    let magic = u32::from_be_bytes(be_array(&buf[0..4]));
    if magic != REQUEST_MAGIC {
        return Err(RequestError::BadMagic(magic));
    }
    Ok(Request {
        flags: u16::from_be_bytes(be_array(&buf[4..6])),
        command: Command::from_code(u16::from_be_bytes(be_array(&buf[6..8]))),
        handle: u64::from_be_bytes(be_array(&buf[8..16])),
        offset: u64::from_be_bytes(be_array(&buf[16..24])),
        length: u32::from_be_bytes(be_array(&buf[24..28])),
    })
}

/// Writes a simple reply: magic, `error`, `handle`, then `data` if `error` is zero.
///
/// `data` belongs only in the reply to a successful `READ` and must then be exactly the
/// requested length; for every other reply pass an empty slice. With a nonzero `error` the
/// protocol forbids a payload, so `data` is ignored. The writer is not flushed.
pub fn write_simple_reply<W: Write>(w: &mut W, handle: u64, error: u32, data: &[u8]) -> io::Result<()> {
    let mut header = [0u8; 16];
    header[..4].copy_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
    header[4..8].copy_from_slice(&error.to_be_bytes());
    header[8..].copy_from_slice(&handle.to_be_bytes());
    w.write_all(&header)?;
    if error == 0 && !data.is_empty() {
        w.write_all(data)?;
    }
    Ok(())
}

/// Validates a request completely: the command, its flags ([`check_flags`]), the
/// read-only rule, then its range ([`check_range`]). `Err` holds the errno to reply with.
///
/// * Unknown or unsupported command (`BLOCK_STATUS`, `RESIZE`, ...): `EINVAL`.
/// * `WRITE`, `TRIM` or `WRITE_ZEROES` on a `READ_ONLY` export: `EPERM`.
/// * `FLUSH` with a nonzero offset or length (both are reserved, must be zero): `EINVAL`.
/// * `DISC` always passes (it gets no reply).
pub fn check_request(export: &Export, req: &Request) -> Result<(), u32> {
    if let Command::Other(_) = req.command {
        return Err(errno::EINVAL);
    }
    check_flags(export, req)?;
    let writes = matches!(req.command, Command::Write | Command::Trim | Command::WriteZeroes);
    if writes && export.flags & tflag::READ_ONLY != 0 {
        return Err(errno::EPERM);
    }
    if req.command == Command::Flush && (req.offset != 0 || req.length != 0) {
        return Err(errno::EINVAL);
    }
    check_range(export, req)
}

/// Checks the command flags: `FUA` is accepted on any command if the export advertises
/// `SEND_FUA`; `NO_HOLE` on `WRITE_ZEROES`; `FAST_ZERO` on `WRITE_ZEROES` if the export
/// advertises `SEND_FAST_ZERO`. Any other bit (including `DF` and `REQ_ONE`, which need
/// structured replies) gets `EINVAL`, as the protocol recommends for flags not documented
/// for the command.
pub fn check_flags(export: &Export, req: &Request) -> Result<(), u32> {
    let mut allowed = 0u16;
    if export.flags & tflag::SEND_FUA != 0 {
        allowed |= cmd_flag::FUA;
    }
    if req.command == Command::WriteZeroes {
        allowed |= cmd_flag::NO_HOLE;
        if export.flags & tflag::SEND_FAST_ZERO != 0 {
            allowed |= cmd_flag::FAST_ZERO;
        }
    }
    if req.flags & !allowed != 0 {
        return Err(errno::EINVAL);
    }
    Ok(())
}

/// Checks offset and length against the export's size and block sizes, for the commands
/// that address a range (`READ`, `WRITE`, `TRIM`, `CACHE`, `WRITE_ZEROES`; others pass).
/// Checked in this order:
///
/// 1. `offset + length` overflows or exceeds the size: `ENOSPC` for `WRITE` and
///    `WRITE_ZEROES` (the protocol's answer to writes past the end), `EINVAL` for `READ`,
///    `TRIM` and `CACHE`.
/// 2. `offset` or `length` not a multiple of `min_block`: `EINVAL`.
/// 3. `length > max_block` for `READ`, `WRITE`, `CACHE`, and `WRITE_ZEROES` without
///    `FAST_ZERO`: `EINVAL`. (`TRIM`, and `WRITE_ZEROES` with `FAST_ZERO`, are not bounded
///    by the maximum block size.)
///
/// A zero length is unspecified by the protocol (clients should not send it; the server
/// should not disconnect). Here it passes if the offset is aligned and within the export
/// (`offset <= size`), and the caller treats it as a successful no-op (a `READ` replies
/// with no data).
pub fn check_range(export: &Export, req: &Request) -> Result<(), u32> {
    let past_end = match req.command {
        Command::Write | Command::WriteZeroes => errno::ENOSPC,
        Command::Read | Command::Trim | Command::Cache => errno::EINVAL,
        Command::Disc | Command::Flush | Command::Other(_) => return Ok(()),
    };
    match req.offset.checked_add(u64::from(req.length)) {
        Some(end) if end <= export.size => {}
        _ => return Err(past_end),
    }
    let min = u64::from(export.min_block.max(1));
    if !req.offset.is_multiple_of(min) || !u64::from(req.length).is_multiple_of(min) {
        return Err(errno::EINVAL);
    }
    let bounded = match req.command {
        Command::WriteZeroes => req.flags & cmd_flag::FAST_ZERO == 0,
        Command::Trim => false,
        _ => true,
    };
    if bounded && req.length > export.max_block {
        return Err(errno::EINVAL);
    }
    Ok(())
}
