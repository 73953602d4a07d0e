//! Compressed traces, read and written as streams: gzip, bzip2, zstd and xz.
//!
//! Reading goes by the file's first bytes (its magic number), so a compressed file is read
//! whatever its name; a name that promises compression (`.gz`, `.bz2`, `.zst`, `.xz`) on a
//! file that is not is an error, not a silent misread. Data is decompressed as it is read:
//! a trace is never held whole in memory, compressed or not. Multi-member gzip and bzip2
//! files (concatenated, as `pigz`/`pbzip2` write them) are read to the end.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

/// A compression format of trace files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Zstd,
    Xz,
}

impl Compression {
    const KNOWN: [(Compression, &'static str, &'static [u8]); 4] = [
        (Compression::Gzip, "gz", &[0x1f, 0x8b]),
        (Compression::Bzip2, "bz2", b"BZh"),
        (Compression::Zstd, "zst", &[0x28, 0xb5, 0x2f, 0xfd]),
        (Compression::Xz, "xz", &[0xfd, b'7', b'z', b'X', b'Z', 0x00]),
    ];

    /// The compression a file name promises by its last extension (`trace.csv.gz`: gzip).
    pub fn of_name(path: &Path) -> Compression {
        let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        let ext = if ext == "gzip" {
            "gz".to_string()
        } else if ext == "zstd" {
            "zst".to_string()
        } else {
            ext
        };
        Self::KNOWN.iter().find(|k| k.1 == ext).map_or(Compression::None, |k| k.0)
    }

    /// The compression whose magic number `head` starts with.
    pub fn of_magic(head: &[u8]) -> Compression {
        Self::KNOWN.iter().find(|k| head.starts_with(k.2)).map_or(Compression::None, |k| k.0)
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "uncompressed",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
        }
    }
}

/// `path` without its compression extension (`a.ascii.gz` → `a.ascii`), for the format's
/// extension tie-breakers.
pub(crate) fn inner_name(path: &str) -> &str {
    match Compression::of_name(Path::new(path)) {
        Compression::None => path,
        _ => path.rsplit_once('.').map_or(path, |(stem, _)| stem),
    }
}

/// Opens `path` for reading, decompressing as it is read when its magic number is one of
/// [`Compression`]'s. Fails if the name promises a compression the content does not have.
pub fn open(path: &Path) -> io::Result<Box<dyn BufRead>> {
    let mut file = BufReader::with_capacity(1 << 16, File::open(path)?);
    let by_magic = Compression::of_magic(file.fill_buf()?);
    let by_name = Compression::of_name(path);
    if by_name != Compression::None && by_magic != by_name {
        let msg = format!("the name says {} but the content is {}", by_name.name(), by_magic.name());
        return Err(io::Error::new(io::ErrorKind::InvalidData, msg));
    }
    let buffered = |r: Box<dyn io::Read>| -> Box<dyn BufRead> { Box::new(BufReader::with_capacity(1 << 16, r)) };
    Ok(match by_magic {
        Compression::None => Box::new(file),
        Compression::Gzip => buffered(Box::new(flate2::bufread::MultiGzDecoder::new(file))),
        Compression::Bzip2 => buffered(Box::new(bzip2::bufread::MultiBzDecoder::new(file))),
        Compression::Zstd => buffered(Box::new(zstd::stream::read::Decoder::with_buffer(file)?)),
        Compression::Xz => buffered(Box::new(xz2::bufread::XzDecoder::new_multi_decoder(file))),
    })
}

/// Runs `body` on `out`, compressed with `compression`, and finishes the stream (so a
/// truncated archive cannot pass for a complete one).
pub fn create<W: Write>(
    out: W,
    compression: Compression,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    match compression {
        Compression::None => {
            let mut out = out;
            body(&mut out)?;
            out.flush()
        }
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(out, flate2::Compression::default());
            body(&mut e)?;
            e.finish()?.flush()
        }
        Compression::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(out, bzip2::Compression::default());
            body(&mut e)?;
            e.finish()?.flush()
        }
        Compression::Zstd => {
            let mut e = zstd::stream::write::Encoder::new(out, 3)?;
            body(&mut e)?;
            e.finish()?.flush()
        }
        Compression::Xz => {
            let mut e = xz2::write::XzEncoder::new(out, 6);
            body(&mut e)?;
            e.finish()?.flush()
        }
    }
}
