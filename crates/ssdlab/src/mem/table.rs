//! [`ChunkedTable`]: a dense table whose memory, address space included, grows with what is
//! written.

use super::{advise_huge_pages, bytes_of, prefetch, try_zeroed, zeroed, Zeroed};
use crate::error::{Error, Result};

/// Entries per chunk of a [`ChunkedTable`] (4 KiB of `u32`, one memory page).
pub const CHUNK_BITS: u32 = 10;
const CHUNK: usize = 1 << CHUNK_BITS;

/// A table of `len` entries indexed densely, zero where never written, whose memory (the
/// address space too, not only what is resident) grows with what is written: a chunk of
/// 2^[`CHUNK_BITS`] entries is allocated the first time one of its entries is written. A table
/// about to be filled (a preconditioned drive) becomes one flat allocation instead
/// ([`ChunkedTable::make_flat`]), backed by huge pages, where a read costs what a plain
/// array's does. Reads of the flat table take one bounds check, as a `Vec`'s do; a chunked
/// table's one more load.
#[derive(Clone)]
pub struct ChunkedTable<T: Zeroed> {
    flat: Vec<T>,
    /// Per chunk: its entries, or nothing (an empty slice) if none was written.
    chunks: Vec<Box<[T]>>,
    len: usize,
    allocated: u64,
}

impl<T: Zeroed> std::fmt::Debug for ChunkedTable<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ChunkedTable {{ len: {}, flat: {}, chunks written: {} }}",
            self.len,
            !self.flat.is_empty(),
            self.allocated
        )
    }
}

impl<T: Zeroed> ChunkedTable<T> {
    /// An empty table of `len` entries: only its chunk list is allocated (16 bytes per
    /// 1024 entries).
    pub fn new(len: usize) -> ChunkedTable<T> {
        let chunks = (0..len.div_ceil(CHUNK)).map(|_| Box::default()).collect();
        ChunkedTable { flat: Vec::new(), chunks, len, allocated: 0 }
    }

    /// [`ChunkedTable::new`], fallibly, naming `what` if the chunk list cannot be had.
    pub fn try_new(len: usize, what: &str) -> Result<ChunkedTable<T>> {
        let mut chunks = Vec::new();
        let n = len.div_ceil(CHUNK);
        super::fallibly(|| chunks.try_reserve_exact(n))
            .map_err(|_| Error::out_of_memory(what, bytes_of::<Box<[T]>>(n)))?;
        chunks.extend((0..n).map(|_| Box::default()));
        Ok(ChunkedTable { flat: Vec::new(), chunks, len, allocated: 0 })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, i: usize) -> T {
        match self.flat.get(i) {
            Some(&v) => v,
            None => self.chunks[i >> CHUNK_BITS].get(i & (CHUNK - 1)).copied().unwrap_or(T::ZERO),
        }
    }

    /// The entry at `i`, for writing (its chunk allocated if it was not).
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut T {
        if i < self.flat.len() {
            return &mut self.flat[i];
        }
        let c = i >> CHUNK_BITS;
        if self.chunks[c].is_empty() {
            self.new_chunk(c);
        }
        &mut self.chunks[c][i & (CHUNK - 1)]
    }

    #[inline]
    pub fn set(&mut self, i: usize, v: T) {
        *self.get_mut(i) = v;
    }

    /// Zero the entries of `range` (chunks never written stay unallocated).
    pub fn zero(&mut self, range: std::ops::Range<usize>) {
        if !self.flat.is_empty() {
            self.flat[range].fill(T::ZERO);
            return;
        }
        for i in range {
            if let Some(e) = self.chunks[i >> CHUNK_BITS].get_mut(i & (CHUNK - 1)) {
                *e = T::ZERO;
            }
        }
    }

    #[cold]
    fn new_chunk(&mut self, c: usize) {
        let what = "a chunk of a table that grows with what is written";
        let chunk = zeroed::<T>(CHUNK, what, false).expect("an infallible allocation returns");
        self.chunks[c] = chunk.into_boxed_slice();
        self.allocated += 1;
    }

    /// Start loading entry `i`'s cache line (see [`prefetch`]); flat tables only.
    #[inline]
    pub fn prefetch(&self, i: usize) {
        if let Some(e) = self.flat.get(i) {
            prefetch(e);
        }
    }

    /// Turn the table into one flat allocation (it is about to be filled), backed by huge
    /// pages; [`Error::OutOfMemory`] naming `what` if it cannot be had.
    pub fn make_flat(&mut self, what: &str) -> Result<()> {
        if !self.flat.is_empty() || self.len == 0 {
            return Ok(());
        }
        let mut flat = try_zeroed::<T>(self.len, what)?;
        advise_huge_pages(&mut flat);
        for (c, chunk) in std::mem::take(&mut self.chunks).into_iter().enumerate() {
            let base = c * CHUNK;
            let n = chunk.len().min(self.len.saturating_sub(base));
            flat[base..base + n].copy_from_slice(&chunk[..n]);
        }
        self.flat = flat;
        self.allocated = 0;
        Ok(())
    }

    /// Bytes held now.
    pub fn bytes(&self) -> u64 {
        bytes_of::<T>(self.flat.len()) + bytes_of::<Box<[T]>>(self.chunks.len()) + self.allocated * bytes_of::<T>(CHUNK)
    }

    /// Bytes a table of `len` entries holds: flat, or chunked with `chunks_written` chunks
    /// written (at most all of them).
    pub fn estimate_bytes(len: u64, flat: bool, chunks_written: u64) -> u64 {
        let chunks = len.div_ceil(CHUNK as u64);
        match flat {
            true => len * std::mem::size_of::<T>() as u64,
            false => chunks * 16 + chunks_written.min(chunks) * (CHUNK * std::mem::size_of::<T>()) as u64,
        }
    }
}

/// Chunks of a [`ChunkedTable`] that the runs of entries (`first`, `n`), in ascending order
/// and not overlapping, fall in, each chunk counted once.
pub fn chunks_spanned(runs: impl Iterator<Item = (u64, u64)>) -> u64 {
    let (mut count, mut next) = (0, 0);
    for (first, n) in runs.filter(|&(_, n)| n > 0) {
        let (a, b) = ((first / CHUNK as u64).max(next), (first + n - 1) / CHUNK as u64);
        if b >= a {
            count += b - a + 1;
            next = b + 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3,000 entries are 3 chunks of 1024; writing entry 5 and 2,999 allocates chunks 0 and
    /// 2 only (2 × 4 KiB of u32, and 3 × 16 bytes of chunk list); entries never written read
    /// 0; a flat table keeps every entry and holds 3,000 × 4 bytes.
    #[test]
    fn chunks_are_allocated_where_written() {
        let mut t = ChunkedTable::<u32>::new(3000);
        t.set(5, 7);
        *t.get_mut(2999) = 9;
        assert_eq!((t.get(5), t.get(2999), t.get(1500), t.get(0)), (7, 9, 0, 0));
        assert_eq!(t.bytes(), 3 * 16 + 2 * 4096);
        assert_eq!(ChunkedTable::<u32>::estimate_bytes(3000, false, 2), 3 * 16 + 2 * 4096);
        t.zero(0..10);
        assert_eq!(t.get(5), 0);
        t.set(6, 1);
        t.make_flat("test").unwrap();
        assert_eq!((t.get(6), t.get(2999), t.bytes()), (1, 9, 3000 * 4));
        assert_eq!(ChunkedTable::<u32>::estimate_bytes(3000, true, 0), 3000 * 4);
        // Entries 1000..1100 fall in chunks 0 and 1, 1500..1600 in chunk 1 again, 2048..3072
        // in chunk 2 alone: 3 chunks.
        assert_eq!(chunks_spanned([(1000, 100), (1500, 100), (2048, 1024), (4000, 0)].into_iter()), 3);
    }
}
