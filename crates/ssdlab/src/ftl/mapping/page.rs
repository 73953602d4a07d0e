//! The full page map: [`PageMap`] keeps one 4-byte entry per written logical page. Memory grows with what
//! has been written, not with the drive's capacity: the table is cut into chunks of
//! 2^19 logical pages (2 MiB when dense); a chunk starts empty, holds its first entries in a
//! hash table and turns into a dense array once that would be smaller. A drive about to be
//! filled (preconditioning) gets one flat table instead, backed by huge pages: a 2 MiB chunk
//! of its own is never 2 MiB-aligned, so the kernel could back none of it with a huge page,
//! and every random lookup would miss the TLB.

use rustc_hash::FxHashMap;

use super::Mapping;
use crate::nand::{Lpn, Ppn, NONE};

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
    /// The whole table, once [`PageMap::make_dense`] ran; `chunks` is then empty.
    flat: Vec<Ppn>,
    logical_pages: u32,
    mapped: u64,
}

impl PageMap {
    pub fn new(logical_pages: u32) -> PageMap {
        let n = (logical_pages as usize).div_ceil(CHUNK);
        PageMap { chunks: (0..n).map(|_| Chunk::Empty).collect(), flat: Vec::new(), logical_pages, mapped: 0 }
    }

    pub fn logical_pages(&self) -> u32 {
        self.logical_pages
    }

    /// Logical pages that currently map to flash.
    pub fn mapped(&self) -> u64 {
        self.mapped
    }

    /// Turn the map into one flat table up front (preconditioning writes most of the
    /// drive), backed by huge pages; [`crate::Error::OutOfMemory`] if it cannot be had.
    pub fn make_dense(&mut self) -> crate::error::Result<()> {
        if !self.flat.is_empty() {
            return Ok(());
        }
        let mut flat: Vec<Ppn> = Vec::new();
        let n = self.logical_pages as usize;
        crate::mem::try_reserve(&mut flat, n, "the map (a physical page per logical page)")?;
        crate::mem::advise_huge_pages(flat.spare_capacity_mut());
        flat.resize(self.logical_pages as usize, NONE);
        for (c, chunk) in std::mem::take(&mut self.chunks).into_iter().enumerate() {
            let base = c * CHUNK;
            match chunk {
                Chunk::Empty => {}
                Chunk::Sparse(m) => {
                    for (off, ppn) in m {
                        flat[base + off as usize] = ppn;
                    }
                }
                Chunk::Dense(d) => {
                    let n = d.len().min(flat.len() - base);
                    flat[base..base + n].copy_from_slice(&d[..n]);
                }
            }
        }
        self.flat = flat;
        Ok(())
    }

    /// Bytes of a map of `logical_pages` entries: flat (`flat`, a preconditioned drive), or
    /// with `written` entries written at random over the first `footprint` logical pages
    /// (each chunk they fall in sparse, about 12 bytes an entry, or dense past a third of
    /// its entries).
    pub fn estimate_bytes(logical_pages: u64, flat: bool, written: u64, footprint: u64) -> u64 {
        let chunks = logical_pages.div_ceil(CHUNK as u64);
        let chunk_list = chunks * std::mem::size_of::<Chunk>() as u64;
        if flat {
            return chunk_list + logical_pages * 4;
        }
        let touched = footprint.min(logical_pages).div_ceil(CHUNK as u64).max(1);
        let per_chunk = written.min(footprint) / touched;
        let chunk_bytes = match per_chunk as usize {
            0 => 0,
            n if n > SPARSE_LIMIT => (CHUNK * 4) as u64,
            // A hash table of (u32, u32) and a control byte per slot, at most 7/8 full, its
            // slots a power of two.
            n => (n * 8 / 7).next_power_of_two() as u64 * (std::mem::size_of::<(u32, Ppn)>() as u64 + 1),
        };
        chunk_list + touched * chunk_bytes
    }

    /// Start loading `lpn`'s entry into the cache (see [`crate::mem::prefetch`]).
    #[inline]
    pub fn prefetch(&self, lpn: Lpn) {
        if let Some(e) = self.flat.get(lpn as usize) {
            crate::mem::prefetch(e);
        } else if let Some(Chunk::Dense(d)) = self.chunks.get((lpn >> CHUNK_BITS) as usize) {
            crate::mem::prefetch(&d[lpn as usize & (CHUNK - 1)]);
        }
    }

    fn densify(&mut self, c: usize) {
        let mut dense: Box<[Ppn]> = vec![NONE; CHUNK].into_boxed_slice();
        if let Chunk::Sparse(m) = std::mem::replace(&mut self.chunks[c], Chunk::Empty) {
            for (off, ppn) in m {
                dense[off as usize] = ppn;
            }
        }
        self.chunks[c] = Chunk::Dense(dense);
    }
}

impl Mapping for PageMap {
    #[inline]
    fn get(&self, lpn: Lpn) -> Ppn {
        if !self.flat.is_empty() {
            return self.flat[lpn as usize];
        }
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
        let was = match self.flat.get_mut(lpn as usize) {
            Some(e) => std::mem::replace(e, ppn),
            None => match &mut self.chunks[c] {
                Chunk::Empty => {
                    let mut m = FxHashMap::default();
                    m.insert(off as u32, ppn);
                    self.chunks[c] = Chunk::Sparse(m);
                    NONE
                }
                Chunk::Sparse(m) => {
                    let was = m.insert(off as u32, ppn).unwrap_or(NONE);
                    if m.len() > SPARSE_LIMIT {
                        self.densify(c);
                    }
                    was
                }
                Chunk::Dense(d) => std::mem::replace(&mut d[off], ppn),
            },
        };
        if was == NONE {
            self.mapped += 1;
        }
    }

    fn clear(&mut self, lpn: Lpn) {
        let (c, off) = ((lpn >> CHUNK_BITS) as usize, lpn as usize & (CHUNK - 1));
        let was = match self.flat.get_mut(lpn as usize) {
            Some(e) => std::mem::replace(e, NONE),
            None => match &mut self.chunks[c] {
                Chunk::Empty => NONE,
                Chunk::Sparse(m) => m.remove(&(off as u32)).unwrap_or(NONE),
                Chunk::Dense(d) => std::mem::replace(&mut d[off], NONE),
            },
        };
        if was != NONE {
            self.mapped -= 1;
        }
    }

    fn state_bytes(&self) -> u64 {
        let mut bytes = (self.chunks.len() * std::mem::size_of::<Chunk>() + self.flat.len() * 4) as u64;
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
    fn a_flat_table_keeps_every_entry_of_the_chunks() {
        // Chunk 0 dense, chunk 1 sparse, chunk 2 empty and partial (the space is not a
        // whole number of chunks).
        let pages = 2 * CHUNK as u32 + 1000;
        let mut m = PageMap::new(pages);
        for i in 0..(SPARSE_LIMIT as u32 + 1) {
            m.set(i, i + 7);
        }
        m.set(CHUNK as u32 + 5, 42);
        assert!(matches!(m.chunks[0], Chunk::Dense(_)));
        let mapped = m.mapped();
        m.make_dense().unwrap();
        assert!(m.chunks.is_empty());
        assert_eq!(m.mapped(), mapped);
        assert_eq!(m.get(0), 7);
        assert_eq!(m.get(SPARSE_LIMIT as u32), SPARSE_LIMIT as u32 + 7);
        assert_eq!(m.get(SPARSE_LIMIT as u32 + 1), NONE);
        assert_eq!(m.get(CHUNK as u32 + 5), 42);
        assert_eq!(m.get(pages - 1), NONE);
        m.set(pages - 1, 9);
        m.clear(CHUNK as u32 + 5);
        assert_eq!((m.get(pages - 1), m.get(CHUNK as u32 + 5)), (9, NONE));
        assert_eq!(m.mapped(), mapped);
        assert_eq!(m.state_bytes(), pages as u64 * 4);
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

    /// 2^20 logical pages are two chunks of 2^19. Flat: 4 bytes a page and the chunk list
    /// (an empty map's bytes). 1,000 entries over the whole space: 500 a chunk, sparse, a
    /// hash table of 1,024 buckets (500 × 8 / 7 rounded up to a power of two) of 9 bytes
    /// (an entry of 8, a control byte). 200,000 a chunk (past a third of 2^19): dense, 2 MiB
    /// each.
    #[test]
    fn the_estimate_is_the_sizes_the_map_allocates() {
        let pages = 1u64 << 20;
        let list = PageMap::new(pages as u32).state_bytes();
        assert_eq!(PageMap::estimate_bytes(pages, true, 0, 0), list + pages * 4);
        assert_eq!(PageMap::estimate_bytes(pages, false, 1000, pages), list + 2 * 1024 * 9);
        assert_eq!(PageMap::estimate_bytes(pages, false, 400_000, pages), list + 2 * (1 << 21));
        assert_eq!(PageMap::estimate_bytes(pages, false, 0, 0), list);
    }
}
