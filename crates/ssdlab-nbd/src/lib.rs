//! The server side of the Network Block Device (NBD) protocol, for `ssdlab serve`.
//!
//! `ssdlab serve` exports a simulated SSD to real NBD clients (fio's `nbd` engine through
//! libnbd, `nbdcopy`, the Linux kernel client). This crate holds the wire format only: it
//! negotiates a connection ([`handshake`]), parses requests ([`read_request`]), writes
//! replies ([`write_simple_reply`]) and validates requests against the export
//! ([`check_request`], [`check_range`]). It does no I/O of its own beyond the stream it is
//! handed, so every function is generic over [`std::io::Read`]/[`std::io::Write`] and blocking.
//!
//! The facts and constants follow the NBD protocol (NetworkBlockDevice/nbd, doc/proto.md).
//!
//! # What is implemented
//!
//! * Fixed newstyle negotiation only. The server greets with `NBDMAGIC`, `IHAVEOPT` and the
//!   handshake flags `FIXED_NEWSTYLE | NO_ZEROES`; a client that does not answer with
//!   `FIXED_NEWSTYLE`, or sets a client flag we do not know, is refused (the caller closes
//!   the connection).
//! * One export, served under any name (the empty default name included).
//! * Options: `EXPORT_NAME`, `INFO`, `GO` (replies `INFO_EXPORT`, always `INFO_BLOCK_SIZE`,
//!   and `INFO_NAME` / `INFO_DESCRIPTION` when asked), `LIST` (one entry, the empty name),
//!   `ABORT`.
//! * Transmission with simple replies: `READ`, `WRITE`, `DISC`, `FLUSH`, `TRIM`, `CACHE`,
//!   `WRITE_ZEROES` are parsed and range-checked; executing them is the caller's job.
//!
//! # What is refused
//!
//! * Structured replies (`OPT_STRUCTURED_REPLY` gets `ERR_UNSUP`), hence also metadata
//!   contexts and `CMD_BLOCK_STATUS` (the meta-context options get `ERR_UNSUP`; the command
//!   is parsed as [`Command::Other`] and [`check_request`] answers `EINVAL`).
//! * TLS (`OPT_STARTTLS` gets `ERR_UNSUP`: we run in the protocol's no-TLS mode).
//! * Extended headers (`OPT_EXTENDED_HEADERS` gets `ERR_UNSUP`; requests are always the
//!   28-byte compact form).
//! * `CMD_RESIZE` and any unknown command ([`Command::Other`], `EINVAL`).
//! * Oldstyle and non-fixed newstyle negotiation.
//!
//! Because `SEND_DF` only makes sense with structured replies, the server never advertises
//! it, whatever [`Export::flags`] says (see [`Export::transmission_flags`]).

mod handshake;
mod transmission;

#[cfg(test)]
mod tests;

pub use handshake::{handshake, Entry, Export, HandshakeError, Negotiated, MAX_OPTION_LEN};
pub use transmission::{
    check_flags, check_range, check_request, read_request, write_simple_reply, Command, Request, RequestError,
    REQUEST_LEN,
};

/// `NBDMAGIC`, the first eight bytes the server sends.
pub const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
/// `IHAVEOPT`: sent by the server after `NBDMAGIC`, and by the client before every option.
pub const IHAVEOPT: u64 = 0x4948_4156_454f_5054;
/// Magic at the start of every option reply from the server.
pub const OPTION_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
/// Magic at the start of every transmission request (`NBD_REQUEST_MAGIC`).
pub const REQUEST_MAGIC: u32 = 0x2560_9513;
/// Magic at the start of every simple reply (`NBD_SIMPLE_REPLY_MAGIC`).
pub const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;

/// Handshake flags (16 bits, server to client, right after `IHAVEOPT`).
pub mod handshake_flags {
    /// The server speaks fixed newstyle.
    pub const FIXED_NEWSTYLE: u16 = 1 << 0;
    /// The server can leave out the 124 zero bytes after `EXPORT_NAME`.
    pub const NO_ZEROES: u16 = 1 << 1;
}

/// Client flags (32 bits, client to server, answering the handshake flags).
pub mod client_flags {
    /// The client speaks fixed newstyle.
    pub const FIXED_NEWSTYLE: u32 = 1 << 0;
    /// The client wants no 124 zero bytes after `EXPORT_NAME`.
    pub const NO_ZEROES: u32 = 1 << 1;
    /// Every flag this server knows; any other bit makes it refuse the client.
    pub const KNOWN: u32 = FIXED_NEWSTYLE | NO_ZEROES;
}

/// Option codes (`NBD_OPT_*`), sent by the client during option haggling.
pub mod opt {
    pub const EXPORT_NAME: u32 = 1;
    pub const ABORT: u32 = 2;
    pub const LIST: u32 = 3;
    /// Withdrawn, never used.
    pub const PEEK_EXPORT: u32 = 4;
    pub const STARTTLS: u32 = 5;
    pub const INFO: u32 = 6;
    pub const GO: u32 = 7;
    pub const STRUCTURED_REPLY: u32 = 8;
    pub const LIST_META_CONTEXT: u32 = 9;
    pub const SET_META_CONTEXT: u32 = 10;
    pub const EXTENDED_HEADERS: u32 = 11;
}

/// Option reply types (`NBD_REP_*`). Errors have bit 31 set.
pub mod rep {
    pub const ACK: u32 = 1;
    pub const SERVER: u32 = 2;
    pub const INFO: u32 = 3;
    pub const META_CONTEXT: u32 = 4;
    const ERR: u32 = 1 << 31;
    pub const ERR_UNSUP: u32 = ERR + 1;
    pub const ERR_POLICY: u32 = ERR + 2;
    pub const ERR_INVALID: u32 = ERR + 3;
    pub const ERR_PLATFORM: u32 = ERR + 4;
    pub const ERR_TLS_REQD: u32 = ERR + 5;
    pub const ERR_UNKNOWN: u32 = ERR + 6;
    pub const ERR_SHUTDOWN: u32 = ERR + 7;
    pub const ERR_BLOCK_SIZE_REQD: u32 = ERR + 8;
    pub const ERR_TOO_BIG: u32 = ERR + 9;
}

/// Information types (`NBD_INFO_*`) asked for by `INFO`/`GO` and answered in `REP_INFO`.
pub mod info {
    pub const EXPORT: u16 = 0;
    pub const NAME: u16 = 1;
    pub const DESCRIPTION: u16 = 2;
    pub const BLOCK_SIZE: u16 = 3;
}

/// Transmission flags (16 bits, describing the export; `HAS_FLAGS` is always set).
pub mod tflag {
    pub const HAS_FLAGS: u16 = 1 << 0;
    pub const READ_ONLY: u16 = 1 << 1;
    pub const SEND_FLUSH: u16 = 1 << 2;
    pub const SEND_FUA: u16 = 1 << 3;
    pub const ROTATIONAL: u16 = 1 << 4;
    pub const SEND_TRIM: u16 = 1 << 5;
    pub const SEND_WRITE_ZEROES: u16 = 1 << 6;
    /// Needs structured replies; never sent by this server.
    pub const SEND_DF: u16 = 1 << 7;
    pub const CAN_MULTI_CONN: u16 = 1 << 8;
    pub const SEND_RESIZE: u16 = 1 << 9;
    pub const SEND_CACHE: u16 = 1 << 10;
    pub const SEND_FAST_ZERO: u16 = 1 << 11;
}

/// Command codes (the request's 16-bit type field).
pub mod cmd {
    pub const READ: u16 = 0;
    pub const WRITE: u16 = 1;
    pub const DISC: u16 = 2;
    pub const FLUSH: u16 = 3;
    pub const TRIM: u16 = 4;
    pub const CACHE: u16 = 5;
    pub const WRITE_ZEROES: u16 = 6;
    pub const BLOCK_STATUS: u16 = 7;
    pub const RESIZE: u16 = 8;
}

/// Command flags (the request's 16-bit flags field).
pub mod cmd_flag {
    /// Force unit access: persist before replying (valid on any command if `SEND_FUA`).
    pub const FUA: u16 = 1 << 0;
    /// `WRITE_ZEROES` must allocate rather than punch a hole.
    pub const NO_HOLE: u16 = 1 << 1;
    /// Don't fragment a structured read reply (unused here: no structured replies).
    pub const DF: u16 = 1 << 2;
    /// `BLOCK_STATUS`: one extent only (unused here).
    pub const REQ_ONE: u16 = 1 << 3;
    /// `WRITE_ZEROES`: fail with `ENOTSUP` unless zeroing is faster than writing.
    pub const FAST_ZERO: u16 = 1 << 4;
}

/// Error values for the reply's error field. They match the common Linux `errno` values,
/// but the protocol defines them itself; only these may be sent.
pub mod errno {
    pub const EPERM: u32 = 1;
    pub const EIO: u32 = 5;
    pub const ENOMEM: u32 = 12;
    pub const EINVAL: u32 = 22;
    pub const ENOSPC: u32 = 28;
    pub const EOVERFLOW: u32 = 75;
    pub const ENOTSUP: u32 = 95;
    pub const ESHUTDOWN: u32 = 108;
}
