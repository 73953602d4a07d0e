//! Fixed newstyle negotiation: greeting, client flags and the option haggling loop.

use std::io::{self, Read, Write};

use crate::OPTION_REPLY_MAGIC;
use crate::{client_flags, handshake_flags, info, opt, rep, tflag, IHAVEOPT, NBDMAGIC};

/// Largest option payload the server accepts, in bytes. A longer option ends the handshake
/// with [`HandshakeError::OptionTooLong`] before anything is allocated or read. The largest
/// legitimate option here is `INFO`/`GO`: a name of at most 4096 bytes plus a short list of
/// information requests, far below this bound.
pub const MAX_OPTION_LEN: u32 = 64 * 1024;

/// Longest export name accepted in `INFO`/`GO` (the protocol's string limit).
const MAX_NAME_LEN: usize = 4096;

/// The one export this server offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// Size in bytes.
    pub size: u64,
    /// Transmission flags ([`crate::tflag`]). The server adds `HAS_FLAGS` and removes
    /// `SEND_DF`; see [`Export::transmission_flags`].
    pub flags: u16,
    /// Minimum block size: a power of two, 1..=65536. Offsets and lengths must be multiples.
    pub min_block: u32,
    /// Preferred block size: a power of two, at least `max(min_block, 512)`.
    pub preferred_block: u32,
    /// Maximum length of one `READ`/`WRITE`/`CACHE`/`WRITE_ZEROES`; a multiple of
    /// `min_block`, or `0xffff_ffff` for no limit.
    pub max_block: u32,
    /// Sent as `INFO_DESCRIPTION` when a client asks for it.
    pub description: Option<String>,
}

impl Export {
    /// The transmission flags as sent on the wire: [`Export::flags`] with `HAS_FLAGS` set
    /// and `SEND_DF` cleared (the protocol forbids `SEND_DF` without structured replies,
    /// which this server never negotiates).
    pub fn transmission_flags(&self) -> u16 {
        (self.flags | tflag::HAS_FLAGS) & !tflag::SEND_DF
    }

    /// Checks the block sizes against the protocol's rules for advertised constraints.
    /// The handshake does not call this; a caller should, once, before serving.
    pub fn validate(&self) -> Result<(), String> {
        let (min, pref, max) = (self.min_block, self.preferred_block, self.max_block);
        if !min.is_power_of_two() || min > 65536 {
            return Err(format!("min_block {min} is not a power of two in 1..=65536"));
        }
        if !pref.is_power_of_two() || pref < min.max(512) {
            return Err(format!("preferred_block {pref} is not a power of two >= max(min_block, 512)"));
        }
        if max != u32::MAX && !max.is_multiple_of(min) {
            return Err(format!("max_block {max} is not a multiple of min_block {min}"));
        }
        if u64::from(max) < u64::from(pref).min(self.size) {
            return Err(format!("max_block {max} is below min(preferred_block, size)"));
        }
        Ok(())
    }
}

/// The option by which a client entered transmission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// `NBD_OPT_EXPORT_NAME` (the old way; no block size constraints were agreed).
    ExportName,
    /// `NBD_OPT_GO`.
    Go,
}

/// The outcome of a successful handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Negotiated {
    /// How the client entered transmission.
    pub entry: Entry,
    /// The client set `NBD_FLAG_C_NO_ZEROES`.
    pub no_zeroes: bool,
    /// The export name the client asked for (lossily decoded; any name is accepted).
    pub name: String,
    /// The client entered with `GO` and asked for `INFO_BLOCK_SIZE`, so it has promised to
    /// respect the advertised block sizes. With `EXPORT_NAME`, or `GO` without that request,
    /// it has not, and requests outside the constraints must be refused cleanly.
    pub block_size_agreed: bool,
}

/// Why a handshake ended without entering transmission. After any of these the caller
/// should close the connection.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    /// Reading from or writing to the client failed (including end of stream).
    #[error("NBD handshake I/O error: {0}")]
    Io(#[from] io::Error),
    /// An option header did not start with `IHAVEOPT`.
    #[error("NBD option header has magic {0:#018x}, expected IHAVEOPT ({IHAVEOPT:#018x})")]
    BadOptionMagic(u64),
    /// The client did not set `NBD_FLAG_C_FIXED_NEWSTYLE`; only fixed newstyle is served.
    #[error("NBD client flags {0:#010x} lack FIXED_NEWSTYLE; only fixed newstyle clients are served")]
    ClientTooOld(u32),
    /// The client set a flag this server does not know or did not offer.
    #[error("NBD client flags {0:#010x} include unknown bits")]
    UnknownClientFlags(u32),
    /// An option's payload is longer than [`MAX_OPTION_LEN`]; nothing of it was read.
    #[error("NBD option {option} has a {length}-byte payload, over the {MAX_OPTION_LEN}-byte limit")]
    OptionTooLong {
        /// The option code.
        option: u32,
        /// The announced payload length.
        length: u32,
    },
    /// The client sent `NBD_OPT_ABORT` (the server acknowledged it, best effort).
    #[error("NBD client aborted the handshake")]
    ClientAborted,
}

/// Runs the server side of the fixed newstyle handshake on `s` until the client enters
/// transmission (with `EXPORT_NAME` or a successful `GO`).
///
/// The server greets, reads the client flags, then answers options one by one, flushing
/// `s` after each answer. `export` is served under any name. On `Ok`, the next bytes on
/// `s` are transmission requests ([`crate::read_request`]). On `Err`, close the connection.
pub fn handshake<S: Read + Write>(s: &mut S, export: &Export) -> Result<Negotiated, HandshakeError> {
    let mut greeting = [0u8; 18];
    greeting[..8].copy_from_slice(&NBDMAGIC.to_be_bytes());
    greeting[8..16].copy_from_slice(&IHAVEOPT.to_be_bytes());
    let hflags = handshake_flags::FIXED_NEWSTYLE | handshake_flags::NO_ZEROES;
    greeting[16..].copy_from_slice(&hflags.to_be_bytes());
    s.write_all(&greeting)?;
    s.flush()?;

    let cflags = read_u32(s)?;
    if cflags & client_flags::FIXED_NEWSTYLE == 0 {
        return Err(HandshakeError::ClientTooOld(cflags));
    }
    if cflags & !client_flags::KNOWN != 0 {
        return Err(HandshakeError::UnknownClientFlags(cflags));
    }
    let no_zeroes = cflags & client_flags::NO_ZEROES != 0;

    loop {
        let (option, payload) = read_option(s)?;
        let done = answer_option(s, export, option, &payload, no_zeroes)?;
        s.flush()?;
        if let Some(negotiated) = done {
            return Ok(negotiated);
        }
    }
}

/// Reads one option header and its payload (bounded by [`MAX_OPTION_LEN`]).
fn read_option<R: Read>(r: &mut R) -> Result<(u32, Vec<u8>), HandshakeError> {
    let mut header = [0u8; 16];
    r.read_exact(&mut header)?;
    let magic = u64::from_be_bytes(be_array(&header[..8]));
    if magic != IHAVEOPT {
        return Err(HandshakeError::BadOptionMagic(magic));
    }
    let option = u32::from_be_bytes(be_array(&header[8..12]));
    let length = u32::from_be_bytes(be_array(&header[12..16]));
    if length > MAX_OPTION_LEN {
        return Err(HandshakeError::OptionTooLong { option, length });
    }
    let mut payload = vec![0u8; length as usize];
    r.read_exact(&mut payload)?;
    Ok((option, payload))
}

/// Answers one option. `Ok(Some(_))` means transmission starts now.
fn answer_option<W: Write>(
    w: &mut W,
    export: &Export,
    option: u32,
    payload: &[u8],
    no_zeroes: bool,
) -> Result<Option<Negotiated>, HandshakeError> {
    match option {
        opt::EXPORT_NAME => {
            w.write_all(&export.size.to_be_bytes())?;
            w.write_all(&export.transmission_flags().to_be_bytes())?;
            if !no_zeroes {
                w.write_all(&[0u8; 124])?;
            }
            let name = String::from_utf8_lossy(payload).into_owned();
            let entry = Entry::ExportName;
            Ok(Some(Negotiated { entry, no_zeroes, name, block_size_agreed: false }))
        }
        opt::ABORT => {
            // Best effort: the client may already have hung up.
            let _ = write_option_reply(w, option, rep::ACK, &[]).and_then(|()| w.flush());
            Err(HandshakeError::ClientAborted)
        }
        opt::LIST if !payload.is_empty() => Ok(reply_none(w, option, rep::ERR_INVALID)?),
        opt::LIST => {
            // One export, whose name is the empty string (a 4-byte zero name length).
            write_option_reply(w, option, rep::SERVER, &0u32.to_be_bytes())?;
            Ok(reply_none(w, option, rep::ACK)?)
        }
        opt::INFO | opt::GO => answer_info(w, export, option, payload, no_zeroes),
        // STRUCTURED_REPLY, STARTTLS, the meta-context options, EXTENDED_HEADERS and
        // anything unknown: the payload has been read; say we do not support it.
        _ => Ok(reply_none(w, option, rep::ERR_UNSUP)?),
    }
}

/// Sends a data-less option reply and keeps haggling.
fn reply_none<W: Write>(w: &mut W, option: u32, reply: u32) -> io::Result<Option<Negotiated>> {
    write_option_reply(w, option, reply, &[])?;
    Ok(None)
}

/// A parsed `INFO`/`GO` payload.
struct InfoRequest {
    name: String,
    wants: Vec<u16>,
}

/// Parses `INFO`/`GO` data: u32 name length, name, u16 count, count × u16 info types.
/// `None` if the lengths do not add up exactly (or the name is over-long).
fn parse_info(payload: &[u8]) -> Option<InfoRequest> {
    let name_len = usize::try_from(u32::from_be_bytes(be_array(payload.get(..4)?))).ok()?;
    if name_len > MAX_NAME_LEN {
        return None;
    }
    let name = payload.get(4..4 + name_len)?;
    let rest = payload.get(4 + name_len..)?;
    let count = usize::from(u16::from_be_bytes(be_array(rest.get(..2)?)));
    let list = rest.get(2..)?;
    if list.len() != count * 2 {
        return None;
    }
    let wants = list.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
    Some(InfoRequest { name: String::from_utf8_lossy(name).into_owned(), wants })
}

/// Answers `INFO` or `GO`: `INFO_EXPORT`, `INFO_BLOCK_SIZE` (always), `INFO_NAME` and
/// `INFO_DESCRIPTION` if asked for, then `ACK`. A malformed payload gets `ERR_INVALID`.
fn answer_info<W: Write>(
    w: &mut W,
    export: &Export,
    option: u32,
    payload: &[u8],
    no_zeroes: bool,
) -> Result<Option<Negotiated>, HandshakeError> {
    let Some(req) = parse_info(payload) else {
        return Ok(reply_none(w, option, rep::ERR_INVALID)?);
    };
    let mut data = Vec::with_capacity(14);
    data.extend_from_slice(&info::EXPORT.to_be_bytes());
    data.extend_from_slice(&export.size.to_be_bytes());
    data.extend_from_slice(&export.transmission_flags().to_be_bytes());
    write_option_reply(w, option, rep::INFO, &data)?;

    data.clear();
    data.extend_from_slice(&info::BLOCK_SIZE.to_be_bytes());
    for b in [export.min_block, export.preferred_block, export.max_block] {
        data.extend_from_slice(&b.to_be_bytes());
    }
    write_option_reply(w, option, rep::INFO, &data)?;

    if req.wants.contains(&info::NAME) {
        write_info_string(w, option, info::NAME, &req.name)?;
    }
    if let (true, Some(d)) = (req.wants.contains(&info::DESCRIPTION), &export.description) {
        write_info_string(w, option, info::DESCRIPTION, d)?;
    }
    write_option_reply(w, option, rep::ACK, &[])?;
    if option != opt::GO {
        return Ok(None);
    }
    let block_size_agreed = req.wants.contains(&info::BLOCK_SIZE);
    Ok(Some(Negotiated { entry: Entry::Go, no_zeroes, name: req.name, block_size_agreed }))
}

/// Sends an `INFO_NAME`/`INFO_DESCRIPTION` reply, truncating the text to the protocol's
/// 4096-byte string limit (at a character boundary).
fn write_info_string<W: Write>(w: &mut W, option: u32, kind: u16, text: &str) -> io::Result<()> {
    let mut end = text.len().min(MAX_NAME_LEN);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut data = Vec::with_capacity(2 + end);
    data.extend_from_slice(&kind.to_be_bytes());
    data.extend_from_slice(&text.as_bytes()[..end]);
    write_option_reply(w, option, rep::INFO, &data)
}

/// Writes one option reply: magic, option, reply type, data length, data.
fn write_option_reply<W: Write>(w: &mut W, option: u32, reply: u32, data: &[u8]) -> io::Result<()> {
    let len =
        u32::try_from(data.len()).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "option reply too long"))?;
    let mut header = [0u8; 20];
    header[..8].copy_from_slice(&OPTION_REPLY_MAGIC.to_be_bytes());
    header[8..12].copy_from_slice(&option.to_be_bytes());
    header[12..16].copy_from_slice(&reply.to_be_bytes());
    header[16..].copy_from_slice(&len.to_be_bytes());
    w.write_all(&header)?;
    w.write_all(data)
}

fn read_u32<R: Read>(r: &mut R) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_be_bytes(b))
}

/// Copies a slice into a fixed array; callers pass slices of exactly `N` bytes.
pub(crate) fn be_array<const N: usize>(s: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    let n = s.len().min(N);
    a[..n].copy_from_slice(&s[..n]);
    a
}
