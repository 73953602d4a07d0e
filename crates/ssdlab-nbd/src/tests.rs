//! Tests against byte sequences written out from the protocol document, not from the code:
//! magics and codes appear here as literals.

use std::io::{self, Cursor, Read, Write};

use crate::*;

/// In-memory duplex: scripted client bytes in, server bytes out. Reading past the script
/// is an `UnexpectedEof` error.
struct Duplex {
    input: Cursor<Vec<u8>>,
    output: Vec<u8>,
}

impl Duplex {
    fn new(input: Vec<u8>) -> Duplex {
        Duplex { input: Cursor::new(input), output: Vec::new() }
    }
}

impl Read for Duplex {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.input.read(buf)?;
        if n == 0 && !buf.is_empty() {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "script exhausted"));
        }
        Ok(n)
    }
}

impl Write for Duplex {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.output.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Byte-string builder, big-endian as on the wire.
#[derive(Default)]
struct B(Vec<u8>);

impl B {
    fn u16(mut self, v: u16) -> B {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn u32(mut self, v: u32) -> B {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn u64(mut self, v: u64) -> B {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn bytes(mut self, v: &[u8]) -> B {
        self.0.extend_from_slice(v);
        self
    }
}

/// Server greeting: "NBDMAGIC", "IHAVEOPT", flags FIXED_NEWSTYLE (bit 0) | NO_ZEROES (bit 1).
const GREETING: &[u8] = b"NBDMAGICIHAVEOPT\x00\x03";

fn export() -> Export {
    Export {
        size: 1 << 30,
        flags: 0x0004 | 0x0008 | 0x0020 | 0x0040, // FLUSH, FUA, TRIM, WRITE_ZEROES
        min_block: 512,
        preferred_block: 4096,
        max_block: 1 << 25,
        description: Some("simulated SSD".into()),
    }
}

/// Client side: an option header ("IHAVEOPT", code, length) and its data.
fn option(b: B, code: u32, data: &[u8]) -> B {
    b.bytes(b"IHAVEOPT").u32(code).u32(data.len() as u32).bytes(data)
}

/// INFO/GO data: name length, name, count of info requests, the requests.
fn info_data(name: &str, wants: &[u16]) -> Vec<u8> {
    let mut b = B::default().u32(name.len() as u32).bytes(name.as_bytes()).u16(wants.len() as u16);
    for w in wants {
        b = b.u16(*w);
    }
    b.0
}

/// Server side: option reply magic 0x3e889045565a9, option, type, length, data.
fn reply(b: B, option: u32, kind: u32, data: &[u8]) -> B {
    b.u64(0x0003_e889_0455_65a9).u32(option).u32(kind).u32(data.len() as u32).bytes(data)
}

/// The INFO_EXPORT (0) and INFO_BLOCK_SIZE (3) replies for `export()`; transmission flags
/// gain HAS_FLAGS (bit 0): 0x6c | 0x01 = 0x6d.
fn export_and_block_size(b: B, option: u32) -> B {
    let ex = B::default().u16(0).u64(1 << 30).u16(0x006d).0;
    let bs = B::default().u16(3).u32(512).u32(4096).u32(1 << 25).0;
    reply(reply(b, option, 3, &ex), option, 3, &bs)
}

const FIXED: [u8; 4] = [0, 0, 0, 1];
const FIXED_NO_ZEROES: [u8; 4] = [0, 0, 0, 3];
const ERR_UNSUP: u32 = 0x8000_0001;
const ERR_INVALID: u32 = 0x8000_0003;

#[test]
fn greeting_bytes() {
    let mut s = Duplex::new(Vec::new());
    let err = handshake(&mut s, &export()).unwrap_err();
    assert!(matches!(err, HandshakeError::Io(ref e) if e.kind() == io::ErrorKind::UnexpectedEof));
    assert_eq!(s.output, GREETING);
    assert_eq!(&s.output[..8], &[0x4e, 0x42, 0x44, 0x4d, 0x41, 0x47, 0x49, 0x43]);
}

#[test]
fn info_then_go_with_block_size() {
    let data = info_data("", &[3]);
    let input = option(option(B::default().bytes(&FIXED), 6, &data), 7, &data);
    let mut s = Duplex::new(input.0);
    let got = handshake(&mut s, &export()).unwrap();
    assert_eq!(got, Negotiated { entry: Entry::Go, no_zeroes: false, name: String::new(), block_size_agreed: true });
    let mut want = reply(export_and_block_size(B::default().bytes(GREETING), 6), 6, 1, &[]);
    want = reply(export_and_block_size(want, 7), 7, 1, &[]);
    assert_eq!(s.output, want.0);
    // Nothing left unread, nothing (no zero padding) after GO's ACK.
    assert_eq!(s.input.position() as usize, s.input.get_ref().len());
}

#[test]
fn go_without_block_size_request_still_advertises_but_not_agreed() {
    let input = option(B::default().bytes(&FIXED_NO_ZEROES), 7, &info_data("disk", &[]));
    let mut s = Duplex::new(input.0);
    let got = handshake(&mut s, &export()).unwrap();
    assert_eq!(got.name, "disk");
    assert!(got.no_zeroes && !got.block_size_agreed && got.entry == Entry::Go);
    let want = reply(export_and_block_size(B::default().bytes(GREETING), 7), 7, 1, &[]);
    assert_eq!(s.output, want.0);
}

#[test]
fn info_name_and_description_when_asked() {
    let data = info_data("x", &[1, 2, 0x7777]);
    let input = option(option(B::default().bytes(&FIXED), 6, &data), 2, &[]);
    let mut s = Duplex::new(input.0);
    let err = handshake(&mut s, &export()).unwrap_err();
    assert!(matches!(err, HandshakeError::ClientAborted));
    let mut want = export_and_block_size(B::default().bytes(GREETING), 6);
    want = reply(want, 6, 3, &B::default().u16(1).bytes(b"x").0);
    want = reply(want, 6, 3, &B::default().u16(2).bytes(b"simulated SSD").0);
    want = reply(want, 6, 1, &[]); // INFO's ACK
    want = reply(want, 2, 1, &[]); // ABORT's ACK
    assert_eq!(s.output, want.0);
}

#[test]
fn export_name_with_zeroes() {
    let input = option(B::default().bytes(&FIXED), 1, b"");
    let mut s = Duplex::new(input.0);
    let got = handshake(&mut s, &export()).unwrap();
    assert_eq!(got.entry, Entry::ExportName);
    assert!(!got.no_zeroes && !got.block_size_agreed);
    let want = B::default().bytes(GREETING).u64(1 << 30).u16(0x006d).bytes(&[0u8; 124]);
    assert_eq!(s.output, want.0);
    assert_eq!(s.output.len(), 18 + 8 + 2 + 124);
}

#[test]
fn export_name_no_zeroes() {
    let input = option(B::default().bytes(&FIXED_NO_ZEROES), 1, b"any name");
    let mut s = Duplex::new(input.0);
    let got = handshake(&mut s, &export()).unwrap();
    assert_eq!(got.name, "any name");
    assert!(got.no_zeroes);
    assert_eq!(s.output, B::default().bytes(GREETING).u64(1 << 30).u16(0x006d).0);
}

#[test]
fn unknown_option_gets_unsup_and_loop_continues() {
    let mut input = option(B::default().bytes(&FIXED), 0x1234, b"abc");
    input = option(input, 1, b"");
    let mut s = Duplex::new(input.0);
    let got = handshake(&mut s, &export()).unwrap();
    assert_eq!(got.entry, Entry::ExportName);
    let want = reply(B::default().bytes(GREETING), 0x1234, ERR_UNSUP, &[]);
    let want = want.u64(1 << 30).u16(0x006d).bytes(&[0u8; 124]);
    assert_eq!(s.output, want.0);
}

#[test]
fn structured_reply_starttls_and_meta_context_get_unsup() {
    let mut input = option(B::default().bytes(&FIXED_NO_ZEROES), 8, &[]);
    input = option(input, 5, &[]);
    input = option(input, 10, &B::default().u32(0).u32(0).0);
    input = option(input, 11, &[]); // extended headers
    input = option(input, 2, &[]);
    let mut s = Duplex::new(input.0);
    assert!(matches!(handshake(&mut s, &export()), Err(HandshakeError::ClientAborted)));
    let mut want = B::default().bytes(GREETING);
    for code in [8, 5, 10, 11] {
        want = reply(want, code, ERR_UNSUP, &[]);
    }
    assert_eq!(s.output, reply(want, 2, 1, &[]).0);
}

#[test]
fn list_returns_one_empty_name() {
    let mut input = option(B::default().bytes(&FIXED), 3, &[]);
    input = option(input, 3, b"junk");
    input = option(input, 2, &[]);
    let mut s = Duplex::new(input.0);
    assert!(matches!(handshake(&mut s, &export()), Err(HandshakeError::ClientAborted)));
    let mut want = reply(B::default().bytes(GREETING), 3, 2, &[0, 0, 0, 0]);
    want = reply(want, 3, 1, &[]);
    want = reply(want, 3, ERR_INVALID, &[]);
    assert_eq!(s.output, reply(want, 2, 1, &[]).0);
}

#[test]
fn abort_without_waiting_for_ack_is_still_aborted() {
    struct Closed(Cursor<Vec<u8>>);
    impl Read for Closed {
        fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
            self.0.read(b)
        }
    }
    impl Write for Closed {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            if b.starts_with(b"NBDMAGIC") {
                return Ok(b.len());
            }
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let input = option(B::default().bytes(&FIXED), 2, &[]);
    let mut s = Closed(Cursor::new(input.0));
    assert!(matches!(handshake(&mut s, &export()), Err(HandshakeError::ClientAborted)));
}

#[test]
fn bad_info_lengths_get_invalid_and_loop_continues() {
    let cases: [Vec<u8>; 5] = [
        vec![],                                      // no name length
        B::default().u32(10).bytes(b"abc").u16(0).0, // name length past the end
        B::default().u32(0).u16(2).u16(3).0,         // two requests announced, one sent
        B::default().u32(0).u16(0).u16(3).0,         // trailing bytes
        B::default().u32(0xffff_ffff).u16(0).0,      // absurd name length
    ];
    let mut input = B::default().bytes(&FIXED);
    for c in &cases {
        input = option(input, 7, c);
    }
    input = option(input, 1, b"");
    let mut s = Duplex::new(input.0);
    assert_eq!(handshake(&mut s, &export()).unwrap().entry, Entry::ExportName);
    let mut want = B::default().bytes(GREETING);
    for _ in &cases {
        want = reply(want, 7, ERR_INVALID, &[]);
    }
    let want = want.u64(1 << 30).u16(0x006d).bytes(&[0u8; 124]);
    assert_eq!(s.output, want.0);
}

#[test]
fn client_without_fixed_newstyle_is_refused() {
    for flags in [[0u8, 0, 0, 0], [0, 0, 0, 2]] {
        let input = option(B::default().bytes(&flags), 1, b"");
        let mut s = Duplex::new(input.0);
        let err = handshake(&mut s, &export()).unwrap_err();
        assert!(matches!(err, HandshakeError::ClientTooOld(f) if f == u32::from(flags[3])));
        assert_eq!(s.output, GREETING, "nothing sent after the greeting");
    }
}

#[test]
fn unknown_client_flag_is_refused() {
    let mut s = Duplex::new(vec![0, 0, 0, 5]);
    let err = handshake(&mut s, &export()).unwrap_err();
    assert!(matches!(err, HandshakeError::UnknownClientFlags(5)));
}

#[test]
fn wrong_ihaveopt_magic_is_an_error() {
    let input = B::default().bytes(&FIXED).bytes(b"IHAVEOPX").u32(1).u32(0);
    let mut s = Duplex::new(input.0);
    let err = handshake(&mut s, &export()).unwrap_err();
    assert!(matches!(err, HandshakeError::BadOptionMagic(0x4948_4156_454f_5058)));
    assert!(err.to_string().contains("0x49484156454f5058"), "{err}");
}

#[test]
fn four_gib_option_does_not_allocate() {
    // Announces a 4 GiB - 1 payload and sends none of it.
    let input = B::default().bytes(&FIXED).bytes(b"IHAVEOPT").u32(7).u32(0xffff_ffff);
    let mut s = Duplex::new(input.0);
    let err = handshake(&mut s, &export()).unwrap_err();
    assert!(matches!(err, HandshakeError::OptionTooLong { option: 7, length: 0xffff_ffff }));
    assert_eq!(s.output, GREETING);
}

#[test]
fn truncated_option_is_an_error() {
    let input = B::default().bytes(&FIXED).bytes(b"IHAVEOPT").u32(1).u32(10).bytes(b"abc");
    let mut s = Duplex::new(input.0);
    assert!(matches!(handshake(&mut s, &export()), Err(HandshakeError::Io(_))));
}

/// A request: magic 0x25609513, flags, type, handle, offset, length.
fn request(flags: u16, kind: u16, handle: u64, offset: u64, length: u32) -> Vec<u8> {
    B::default().bytes(&[0x25, 0x60, 0x95, 0x13]).u16(flags).u16(kind).u64(handle).u64(offset).u32(length).0
}

#[test]
fn request_parsed_from_bytes() {
    let mut bytes = request(1, 1, 0xdead_beef_0000_0001, 4096, 8);
    bytes.extend_from_slice(b"payload!");
    bytes.extend(request(0, 0, 7, 0, 512));
    let mut r = Cursor::new(bytes);
    let w = read_request(&mut r).unwrap();
    assert_eq!(
        w,
        Request { handle: 0xdead_beef_0000_0001, command: Command::Write, flags: 1, offset: 4096, length: 8 }
    );
    let mut payload = [0u8; 8];
    r.read_exact(&mut payload).unwrap();
    assert_eq!(&payload, b"payload!");
    let rd = read_request(&mut r).unwrap();
    assert_eq!((rd.command, rd.handle, rd.length), (Command::Read, 7, 512));
    assert!(matches!(read_request(&mut r), Err(RequestError::Disconnected)));
}

#[test]
fn command_codes() {
    let codes = [
        (0, Command::Read),
        (1, Command::Write),
        (2, Command::Disc),
        (3, Command::Flush),
        (4, Command::Trim),
        (5, Command::Cache),
        (6, Command::WriteZeroes),
        (7, Command::Other(7)),
        (8, Command::Other(8)),
    ];
    for (code, c) in codes {
        let r = read_request(&mut Cursor::new(request(0, code, 0, 0, 0))).unwrap();
        assert_eq!(r.command, c);
        assert_eq!(c.code(), code);
    }
}

#[test]
fn truncated_request_is_an_error() {
    let bytes = request(0, 0, 1, 0, 512);
    for cut in 1..28 {
        let err = read_request(&mut Cursor::new(bytes[..cut].to_vec())).unwrap_err();
        assert!(matches!(err, RequestError::Truncated { received } if received == cut));
    }
    assert!(matches!(read_request(&mut Cursor::new(Vec::new())), Err(RequestError::Disconnected)));
}

#[test]
fn bad_request_magic_is_an_error() {
    let mut bytes = request(0, 0, 1, 0, 512);
    bytes[0] = 0x12;
    let err = read_request(&mut Cursor::new(bytes)).unwrap_err();
    assert!(matches!(err, RequestError::BadMagic(0x1260_9513)));
    assert!(err.to_string().contains("0x12609513"), "{err}");
}

#[test]
fn simple_reply_bytes() {
    let mut out = Vec::new();
    write_simple_reply(&mut out, 0x0102_0304_0506_0708, 0, b"data").unwrap();
    let mut want = vec![0x67, 0x44, 0x66, 0x98, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    want.extend_from_slice(b"data");
    assert_eq!(out, want);

    out.clear();
    write_simple_reply(&mut out, 9, 22, b"ignored").unwrap();
    assert_eq!(out, [0x67, 0x44, 0x66, 0x98, 0, 0, 0, 22, 0, 0, 0, 0, 0, 0, 0, 9]);
}

fn req(command: Command, flags: u16, offset: u64, length: u32) -> Request {
    Request { handle: 0, command, flags, offset, length }
}

#[test]
fn check_range_cases() {
    let e = export();
    let size = e.size;
    let ok = |c, o, l| check_range(&e, &req(c, 0, o, l));
    assert_eq!(ok(Command::Read, 0, 4096), Ok(()));
    assert_eq!(ok(Command::Write, size - 512, 512), Ok(()));
    // Past the end: writes ENOSPC, reads/trim/cache EINVAL.
    assert_eq!(ok(Command::Write, size - 512, 1024), Err(28));
    assert_eq!(ok(Command::WriteZeroes, size, 512), Err(28));
    assert_eq!(ok(Command::Read, size, 512), Err(22));
    assert_eq!(ok(Command::Trim, size - 512, 1024), Err(22));
    assert_eq!(ok(Command::Cache, size, 512), Err(22));
    // Overflow of offset + length.
    assert_eq!(ok(Command::Read, u64::MAX - 511, 1024), Err(22));
    assert_eq!(ok(Command::Write, u64::MAX - 511, 1024), Err(28));
    // Misaligned to min_block (512).
    assert_eq!(ok(Command::Read, 100, 512), Err(22));
    assert_eq!(ok(Command::Write, 512, 100), Err(22));
    // Over max_block (32 MiB) for READ/WRITE/CACHE/WRITE_ZEROES, not for TRIM.
    let big = (1 << 25) + 512;
    assert_eq!(ok(Command::Read, 0, big), Err(22));
    assert_eq!(ok(Command::Write, 0, big), Err(22));
    assert_eq!(ok(Command::Cache, 0, big), Err(22));
    assert_eq!(ok(Command::WriteZeroes, 0, big), Err(22));
    assert_eq!(ok(Command::Trim, 0, big), Ok(()));
    assert_eq!(check_range(&e, &req(Command::WriteZeroes, 0x10, 0, big)), Ok(()));
    // Zero length: a no-op if aligned and within the export.
    assert_eq!(ok(Command::Read, size, 0), Ok(()));
    assert_eq!(ok(Command::Write, size + 512, 0), Err(28));
    assert_eq!(ok(Command::Read, 1, 0), Err(22));
    // Commands without a range pass.
    assert_eq!(ok(Command::Flush, 0, 0), Ok(()));
    assert_eq!(ok(Command::Disc, 0, 0), Ok(()));
}

#[test]
fn check_request_cases() {
    let mut e = export();
    let c = |e: &Export, cmd, flags, o, l| check_request(e, &req(cmd, flags, o, l));
    assert_eq!(c(&e, Command::Write, 1, 0, 512), Ok(())); // FUA advertised
    assert_eq!(c(&e, Command::WriteZeroes, 2, 0, 512), Ok(())); // NO_HOLE
    assert_eq!(c(&e, Command::WriteZeroes, 0x10, 0, 512), Err(22)); // FAST_ZERO not advertised
    assert_eq!(c(&e, Command::Read, 4, 0, 512), Err(22)); // DF: no structured replies
    assert_eq!(c(&e, Command::Read, 0x100, 0, 512), Err(22)); // unknown flag
    assert_eq!(c(&e, Command::Other(7), 0, 0, 512), Err(22)); // BLOCK_STATUS
    assert_eq!(c(&e, Command::Other(99), 0, 0, 512), Err(22));
    assert_eq!(c(&e, Command::Flush, 0, 0, 0), Ok(()));
    assert_eq!(c(&e, Command::Flush, 0, 512, 0), Err(22));
    e.flags |= 0x0800; // SEND_FAST_ZERO
    assert_eq!(c(&e, Command::WriteZeroes, 0x10, 0, 512), Ok(()));
    e.flags = 0x0002; // READ_ONLY, no FUA
    assert_eq!(c(&e, Command::Write, 0, 0, 512), Err(1));
    assert_eq!(c(&e, Command::Trim, 0, 0, 512), Err(1));
    assert_eq!(c(&e, Command::WriteZeroes, 0, 0, 512), Err(1));
    assert_eq!(c(&e, Command::Read, 0, 0, 512), Ok(()));
    assert_eq!(c(&e, Command::Read, 1, 0, 512), Err(22)); // FUA not advertised
}

#[test]
fn transmission_flags_add_has_flags_and_drop_df() {
    let mut e = export();
    e.flags = 0x0080 | 0x0100; // SEND_DF | CAN_MULTI_CONN
    assert_eq!(e.transmission_flags(), 0x0101);
}

#[test]
fn export_validate() {
    assert_eq!(export().validate(), Ok(()));
    let mut e = export();
    e.min_block = 3;
    assert!(e.validate().is_err());
    let mut e = export();
    e.preferred_block = 256;
    assert!(e.validate().is_err());
    let mut e = export();
    e.max_block = 1000;
    assert!(e.validate().is_err());
    let mut e = export();
    e.max_block = u32::MAX;
    assert_eq!(e.validate(), Ok(()));
}

#[test]
fn constants_match_the_protocol() {
    assert_eq!(&NBDMAGIC.to_be_bytes(), b"NBDMAGIC");
    assert_eq!(&IHAVEOPT.to_be_bytes(), b"IHAVEOPT");
    assert_eq!(OPTION_REPLY_MAGIC, 0x3e889045565a9);
    assert_eq!(REQUEST_MAGIC, 0x25609513);
    assert_eq!(SIMPLE_REPLY_MAGIC, 0x67446698);
    assert_eq!((rep::ERR_UNSUP, rep::ERR_TLS_REQD, rep::ERR_TOO_BIG), (0x8000_0001, 0x8000_0005, 0x8000_0009));
    assert_eq!((errno::ENOTSUP, errno::ESHUTDOWN, errno::EOVERFLOW), (95, 108, 75));
}
