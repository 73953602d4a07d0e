//! Logical-to-physical mapping.
//!
//! [`Mapping`] is the extension point for mapping schemes: the full page table here, and
//! demand-based schemes (DFTL, CDFTL, FMMU) whose translation pages live in flash in later
//! work. [`PageMap`] keeps one 4-byte entry per written logical page. Memory grows with what
//! has been written, not with the drive's capacity: the table is cut into chunks of
//! 2^19 logical pages (2 MiB when dense, one huge page); a chunk starts empty, holds its first
//! entries in a hash table and turns into a dense array once that would be smaller.

use rustc_hash::FxHashMap;

use crate::nand::{Lpn, Ppn, NONE};

/// A logical-to-physical page map.
pub trait Mapping {
    /// The physical page holding `lpn`, or [`NONE`] if it was never written (or trimmed).
    fn get(&self, lpn: Lpn) -> Ppn;
    /// Point `lpn` at `ppn`.
    fn set(&mut self, lpn: Lpn, ppn: Ppn);
    /// Forget `lpn` (TRIM).
    fn clear(&mut self, lpn: Lpn);
    /// Bytes of memory the map uses now.
    fn state_bytes(&self) -> u64;
}

const CHUNK_BITS: u32 = 19;
const CHUNK: usize = 1 << CHUNK_BITS;
/// A sparse chunk costs about 12 bytes per entry; beyond this many entries dense is smaller.
const SPARSE_LIMIT: usize = CHUNK / 3;

enum Chunk {
    Empty,
    Sparse(FxHashMap<u32, Ppn>),
    Dense(Box<[Ppn]>),
}

pub struct PageMap {
    chunks: Vec<Chunk>,
    logical_pages: u32,
    mapped: u64,
}

impl PageMap {
    pub fn new(logical_pages: u32) -> PageMap {
        let n = (logical_pages as usize).div_ceil(CHUNK);
        PageMap { chunks: (0..n).map(|_| Chunk::Empty).collect(), logical_pages, mapped: 0 }
    }

    pub fn logical_pages(&self) -> u32 {
        self.logical_pages
    }

    /// Logical pages that currently map to flash.
    pub fn mapped(&self) -> u64 {
        self.mapped
    }

    /// Make every chunk dense up front (preconditioning writes most of the drive), backed by
    /// huge pages.
    pub fn make_dense(&mut self) {
        for c in 0..self.chunks.len() {
            self.densify(c, true);
        }
    }

    fn densify(&mut self, c: usize, huge: bool) {
        let mut dense: Box<[Ppn]> = if huge {
            let mut v: Vec<Ppn> = Vec::with_capacity(CHUNK);
            crate::mem::advise_huge_pages(v.spare_capacity_mut());
            v.resize(CHUNK, NONE);
            v.into_boxed_slice()
        } else {
            vec![NONE; CHUNK].into_boxed_slice()
        };
        match std::mem::replace(&mut self.chunks[c], Chunk::Empty) {
            Chunk::Empty => {}
            Chunk::Sparse(m) => {
                for (off, ppn) in m {
                    dense[off as usize] = ppn;
                }
            }
            Chunk::Dense(d) => dense = d,
        }
        self.chunks[c] = Chunk::Dense(dense);
    }
}

impl Mapping for PageMap {
    #[inline]
    fn get(&self, lpn: Lpn) -> Ppn {
        let (c, off) = ((lpn >> CHUNK_BITS) as usize, lpn as usize & (CHUNK - 1));
        match &self.chunks[c] {
            Chunk::Empty => NONE,
            Chunk::Sparse(m) => m.get(&(off as u32)).copied().unwrap_or(NONE),
            Chunk::Dense(d) => d[off],
        }
    }

    #[inline]
    fn set(&mut self, lpn: Lpn, ppn: Ppn) {
        debug_assert!(ppn != NONE);
        assert!(lpn < self.logical_pages, "lpn {lpn} past the logical space");
        let (c, off) = ((lpn >> CHUNK_BITS) as usize, lpn as usize & (CHUNK - 1));
        let was = match &mut self.chunks[c] {
            Chunk::Empty => {
                let mut m = FxHashMap::default();
                m.insert(off as u32, ppn);
                self.chunks[c] = Chunk::Sparse(m);
                NONE
            }
            Chunk::Sparse(m) => {
                let was = m.insert(off as u32, ppn).unwrap_or(NONE);
                if m.len() > SPARSE_LIMIT {
                    self.densify(c, false);
                }
                was
            }
            Chunk::Dense(d) => std::mem::replace(&mut d[off], ppn),
        };
        if was == NONE {
            self.mapped += 1;
        }
    }

    fn clear(&mut self, lpn: Lpn) {
        let (c, off) = ((lpn >> CHUNK_BITS) as usize, lpn as usize & (CHUNK - 1));
        let was = match &mut self.chunks[c] {
            Chunk::Empty => NONE,
            Chunk::Sparse(m) => m.remove(&(off as u32)).unwrap_or(NONE),
            Chunk::Dense(d) => std::mem::replace(&mut d[off], NONE),
        };
        if was != NONE {
            self.mapped -= 1;
        }
    }

    fn state_bytes(&self) -> u64 {
        let mut bytes = (self.chunks.len() * std::mem::size_of::<Chunk>()) as u64;
        for c in &self.chunks {
            bytes += match c {
                Chunk::Empty => 0,
                Chunk::Sparse(m) => (m.capacity() * (std::mem::size_of::<(u32, Ppn)>() + 1)) as u64,
                Chunk::Dense(d) => (d.len() * 4) as u64,
            };
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_chunks_turn_dense_without_losing_entries() {
        let mut m = PageMap::new(3 * CHUNK as u32);
        for i in 0..(SPARSE_LIMIT as u32 + 10) {
            m.set(CHUNK as u32 + i * 2 % CHUNK as u32, i);
        }
        const { assert!(SPARSE_LIMIT * 2 < CHUNK, "the test writes distinct offsets") };
        assert!(matches!(m.chunks[1], Chunk::Dense(_)));
        assert!(matches!(m.chunks[0], Chunk::Empty));
        for i in 0..(SPARSE_LIMIT as u32 + 10) {
            assert_eq!(m.get(CHUNK as u32 + i * 2 % CHUNK as u32), i);
        }
        assert_eq!(m.get(1), NONE);
        m.clear(CHUNK as u32);
        assert_eq!(m.get(CHUNK as u32), NONE);
        assert_eq!(m.mapped(), SPARSE_LIMIT as u64 + 9);
    }

    #[test]
    fn memory_grows_with_what_is_written() {
        let mut m = PageMap::new(1 << 26);
        let empty = m.state_bytes();
        assert!(empty < 200_000, "empty map of 2^26 pages uses {empty} bytes");
        for i in 0..100_000u32 {
            m.set(i.wrapping_mul(2_654_435_761) % (1 << 26), i);
        }
        // 100,000 scattered entries stay sparse: far below the 256 MiB of a dense table.
        assert!(m.state_bytes() < empty + 100_000 * 32, "{} bytes", m.state_bytes());
    }
}
