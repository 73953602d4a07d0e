//! The served drive's data: what clients wrote, kept so that reads return it. The simulation
//! models time, not contents, so the bytes live here, in memory or in a file, sparse either
//! way: a block never written reads as zeros, and so does a trimmed or zeroed one.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes of a block of the memory store.
const BLOCK: u64 = 4096;

/// Where the data goes (`--data memory|FILE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataSpec {
    Memory,
    File(PathBuf),
}

/// The data of a drive of `size` bytes.
pub enum Store {
    /// 4 KiB blocks by index; a missing block is zeros.
    Memory(HashMap<u64, Box<[u8; BLOCK as usize]>>),
    /// A file of the drive's size (created sparse); the kernel keeps holes as zeros.
    File { file: File, path: PathBuf },
}

impl Store {
    pub fn open(spec: &DataSpec, size: u64) -> Result<Store, ssdlab::Error> {
        match spec {
            DataSpec::Memory => Ok(Store::Memory(HashMap::new())),
            DataSpec::File(path) => {
                let io = |e| ssdlab::Error::io(path, e);
                let file = std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(path)
                    .map_err(io)?;
                let len = file.metadata().map_err(io)?.len();
                if len < size {
                    file.set_len(size).map_err(io)?;
                }
                Ok(Store::File { file, path: path.clone() })
            }
        }
    }

    /// Bytes held in memory (the file store holds none).
    pub fn memory_bytes(&self) -> u64 {
        match self {
            Store::Memory(blocks) => blocks.len() as u64 * BLOCK,
            Store::File { .. } => 0,
        }
    }

    pub fn read(&self, offset: u64, out: &mut [u8]) -> std::io::Result<()> {
        match self {
            Store::Memory(blocks) => {
                for (at, chunk) in chunks(offset, out.len()) {
                    let dst = &mut out[(at - offset) as usize..][..chunk];
                    match blocks.get(&(at / BLOCK)) {
                        Some(b) => dst.copy_from_slice(&b[(at % BLOCK) as usize..][..chunk]),
                        None => dst.fill(0),
                    }
                }
                Ok(())
            }
            Store::File { file, .. } => file.read_exact_at(out, offset),
        }
    }

    pub fn write(&mut self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        match self {
            Store::Memory(blocks) => {
                for (at, chunk) in chunks(offset, data.len()) {
                    let b = blocks.entry(at / BLOCK).or_insert_with(|| Box::new([0; BLOCK as usize]));
                    b[(at % BLOCK) as usize..][..chunk].copy_from_slice(&data[(at - offset) as usize..][..chunk]);
                }
                Ok(())
            }
            Store::File { file, .. } => file.write_all_at(data, offset),
        }
    }

    /// Make `len` bytes at `offset` read as zeros (TRIM, WRITE_ZEROES).
    pub fn zero(&mut self, offset: u64, len: u64) -> std::io::Result<()> {
        match self {
            Store::Memory(blocks) => {
                for (at, chunk) in chunks(offset, len as usize) {
                    if chunk as u64 == BLOCK {
                        blocks.remove(&(at / BLOCK));
                    } else if let Some(b) = blocks.get_mut(&(at / BLOCK)) {
                        b[(at % BLOCK) as usize..][..chunk].fill(0);
                    }
                }
                Ok(())
            }
            Store::File { file, .. } => {
                let zeros = vec![0u8; (len as usize).min(1 << 20)];
                let mut done = 0u64;
                while done < len {
                    let n = (len - done).min(zeros.len() as u64) as usize;
                    file.write_all_at(&zeros[..n], offset + done)?;
                    done += n as u64;
                }
                Ok(())
            }
        }
    }

    /// The file's name, for messages ("memory" for the memory store).
    pub fn name(&self) -> &Path {
        match self {
            Store::Memory(_) => Path::new("memory"),
            Store::File { path, .. } => path,
        }
    }
}

/// `len` bytes from `offset` cut at block boundaries: (start, length) of each piece.
fn chunks(offset: u64, len: usize) -> impl Iterator<Item = (u64, usize)> {
    let end = offset + len as u64;
    let mut at = offset;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let next = ((at / BLOCK + 1) * BLOCK).min(end);
        let piece = (at, (next - at) as usize);
        at = next;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwritten_bytes_read_as_zeros_and_writes_read_back_across_blocks() {
        for spec in [
            DataSpec::Memory,
            DataSpec::File(std::env::temp_dir().join(format!("ssdlab-store-{}", std::process::id()))),
        ] {
            let mut s = Store::open(&spec, 1 << 20).unwrap();
            let mut out = vec![7u8; 10_000];
            s.read(1000, &mut out).unwrap();
            assert!(out.iter().all(|&b| b == 0));
            // 6,000 bytes from 3,000: the end of block 0, all of block 1 (4,096..8,192), the start of block 2.
            let data: Vec<u8> = (0..6000u32).map(|i| (i % 251) as u8 + 1).collect();
            s.write(3000, &data).unwrap();
            let mut back = vec![0u8; 8000];
            s.read(2000, &mut back).unwrap();
            assert!(back[..1000].iter().all(|&b| b == 0));
            assert_eq!(&back[1000..7000], &data[..]);
            assert!(back[7000..].iter().all(|&b| b == 0));
            // Zero the whole of block 1 and 100 bytes around it.
            s.zero(4000, 4192 + 100).unwrap();
            s.read(2000, &mut back).unwrap();
            assert_eq!(&back[1000..2000], &data[..1000]);
            assert!(back[2000..6292].iter().all(|&b| b == 0));
            assert_eq!(&back[6292..7000], &data[5292..6000]);
            if let DataSpec::File(p) = spec {
                std::fs::remove_file(p).unwrap();
            } else {
                assert_eq!(s.memory_bytes(), 2 * BLOCK, "block 1 was zeroed whole: freed");
            }
        }
    }
}
