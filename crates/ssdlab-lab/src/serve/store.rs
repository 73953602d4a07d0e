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

    /// Make `len` bytes at `offset` read as zeros (TRIM, WRITE_ZEROES): whole blocks freed
    /// and partial ones cleared in memory, a hole punched in the file (zeros written where
    /// the file system cannot punch one).
    pub fn zero(&mut self, offset: u64, len: u64) -> std::io::Result<()> {
        match self {
            Store::Memory(blocks) => {
                let (first, end) = (offset / BLOCK, (offset + len).div_ceil(BLOCK));
                // Clear the partial blocks at the ends, then drop the whole ones between:
                // by the map's keys when there are fewer of them than blocks in the range.
                for (at, chunk) in chunks(offset, len as usize).filter(|&(_, c)| c as u64 != BLOCK) {
                    if let Some(b) = blocks.get_mut(&(at / BLOCK)) {
                        b[(at % BLOCK) as usize..][..chunk].fill(0);
                    }
                }
                let whole = |k: u64| k * BLOCK >= offset && (k + 1) * BLOCK <= offset + len;
                if end - first > blocks.len() as u64 {
                    blocks.retain(|&k, _| !(first..end).contains(&k) || !whole(k));
                } else {
                    (first..end).filter(|&k| whole(k)).for_each(|k| {
                        blocks.remove(&k);
                    });
                }
                Ok(())
            }
            Store::File { file, .. } => punch_hole(file, offset, len),
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

/// Deallocate `len` bytes of `file` at `offset`, which then read as zeros; where the file
/// system cannot (EOPNOTSUPP), write zeros.
fn punch_hole(file: &File, offset: u64, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
    // SAFETY: fallocate(2) on an open descriptor with in-range values; no memory is passed.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), mode, offset as libc::off_t, len as libc::off_t) };
    if r == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() != Some(libc::EOPNOTSUPP) {
        return Err(e);
    }
    let zeros = vec![0u8; (len as usize).min(1 << 20)];
    let mut done = 0u64;
    while done < len {
        let n = (len - done).min(zeros.len() as u64) as usize;
        file.write_all_at(&zeros[..n], offset + done)?;
        done += n as u64;
    }
    Ok(())
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
            // A range of 2^18 blocks, more than the store holds: by the map's keys. Block 1
            // is gone already; block 0 is partly in the range (cleared there, kept); block 2
            // and the block at 1 MiB are whole in it (freed).
            s.write(1 << 20, &data[..4096]).unwrap();
            s.zero(4000, 1 << 30).unwrap();
            let mut all = vec![1u8; 12_288];
            s.read(0, &mut all).unwrap();
            assert!(all[..3000].iter().all(|&b| b == 0));
            assert_eq!(&all[3000..4000], &data[..1000], "before the range: kept");
            assert!(all[4000..].iter().all(|&b| b == 0));
            let mut mib = vec![1u8; 4096];
            s.read(1 << 20, &mut mib).unwrap();
            assert!(mib.iter().all(|&b| b == 0));
            if let DataSpec::File(p) = spec {
                std::fs::remove_file(p).unwrap();
            } else {
                assert_eq!(s.memory_bytes(), BLOCK, "block 0 kept; 1, 2 and 256 freed");
            }
        }
    }
}
