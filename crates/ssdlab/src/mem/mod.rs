//! Memory: the large tables' allocation, and hints for them.
//!
//! A run's big tables (map, reverse map, the integrity oracle, traces) are allocated
//! fallibly ([`try_vec`], [`try_zeroed`]): when the memory cannot be had the run ends with
//! [`Error::OutOfMemory`] naming the table, never an abort. Tables the run fills only where it
//! writes are [`ChunkedTable`]s, whose address space too grows with what is written (a
//! zeroed allocation's resident memory does, but its address space counts against `ulimit
//! -v` whole). [`Estimate`] is a run's peak memory by part, each layer computing its own from
//! the sizes it allocates; [`limits`] what the process may still take.
//!
//! A preconditioned drive touches its map and reverse map at random, hundreds of megabytes of
//! them; with 4 KiB pages nearly every access also misses the TLB. Where the arrays are going
//! to be filled anyway (preconditioning), they are marked for transparent huge pages before
//! they are touched. Fresh drives are not marked: there memory must grow only with what is
//! written, and a huge page would commit 2 MiB for a single entry.

use std::cell::Cell;

use crate::error::{Error, Result};

mod budget;
mod table;

pub use budget::{limits, resident_bytes, Estimate, Held, Limit, LimitKind, Part};
pub use table::{chunks_spanned, ChunkedTable, CHUNK_BITS};

thread_local! {
    /// Set while this thread makes a fallible allocation ([`try_vec`], [`try_zeroed`]).
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside a fallible allocation: a global allocator that ends the
/// process when memory runs out (the `ssdlab` command's) must then return null instead, so
/// the caller gets its error ([`Error::OutOfMemory`]) and says what it was allocating.
pub fn allocating_fallibly() -> bool {
    FALLIBLE.with(Cell::get)
}

pub(crate) fn fallibly<R>(f: impl FnOnce() -> R) -> R {
    FALLIBLE.with(|c| c.set(true));
    let r = f();
    FALLIBLE.with(|c| c.set(false));
    r
}

/// Bytes of `len` values of `T`.
pub fn bytes_of<T>(len: usize) -> u64 {
    (len as u64).saturating_mul(std::mem::size_of::<T>() as u64)
}

/// `len` copies of `value`, or [`Error::OutOfMemory`] naming `what` when the memory cannot be
/// had (a limit such as `ulimit -v`, or more than the machine can give).
pub fn try_vec<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    fallibly(|| v.try_reserve_exact(len)).map_err(|_| Error::out_of_memory(what, bytes_of::<T>(len)))?;
    v.resize(len, value);
    Ok(v)
}

/// Reserve room for `additional` more values in `v`, or [`Error::OutOfMemory`] naming `what`.
pub fn try_reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    fallibly(|| v.try_reserve_exact(additional))
        .map_err(|_| Error::out_of_memory(what, bytes_of::<T>(v.len() + additional)))
}

/// Types whose all-zero bytes are a valid value (so a zeroed allocation holds zeros).
///
/// # Safety
/// Implement only for types for which every value made of zero bytes is valid.
pub unsafe trait Zeroed: Copy {
    const ZERO: Self;
}
// SAFETY: integers are valid for every bit pattern.
unsafe impl Zeroed for u8 {
    const ZERO: Self = 0;
}
// SAFETY: as above.
unsafe impl Zeroed for u16 {
    const ZERO: Self = 0;
}
// SAFETY: as above.
unsafe impl Zeroed for u32 {
    const ZERO: Self = 0;
}
// SAFETY: as above.
unsafe impl Zeroed for u64 {
    const ZERO: Self = 0;
}
// SAFETY: the zero byte is `false`.
unsafe impl Zeroed for bool {
    const ZERO: Self = false;
}

/// `len` zeros, allocated zeroed: the operating system provides the memory (resident) only
/// where it is written, though the address space is taken at once. [`Error::OutOfMemory`]
/// naming `what` when it cannot be had; a null pointer from the allocator when `fallible`.
pub(crate) fn zeroed<T: Zeroed>(len: usize, what: &str, fallible: bool) -> Result<Vec<T>> {
    let fail = || Error::out_of_memory(what, bytes_of::<T>(len));
    let layout = std::alloc::Layout::array::<T>(len).map_err(|_| fail())?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the layout has a non-zero size.
    let ptr = match fallible {
        true => fallibly(|| unsafe { std::alloc::alloc_zeroed(layout) }),
        false => unsafe { std::alloc::alloc_zeroed(layout) },
    };
    if ptr.is_null() {
        if !fallible {
            std::alloc::handle_alloc_error(layout);
        }
        return Err(fail());
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `len` values of
    // `T`, and its zero bytes are `len` valid values (`T: Zeroed`).
    Ok(unsafe { Vec::from_raw_parts(ptr as *mut T, len, len) })
}

/// [`zeroed`], fallibly: `len` zeros or [`Error::OutOfMemory`] naming `what`.
pub fn try_zeroed<T: Zeroed>(len: usize, what: &str) -> Result<Vec<T>> {
    zeroed(len, what, true)
}

/// Bytes of a hash table (Rust's, hashbrown) that holds `entries` entries of `entry_bytes`:
/// its buckets are a power of two at most 7/8 full, each with a control byte.
pub fn hash_table_bytes(entries: u64, entry_bytes: u64) -> u64 {
    if entries == 0 {
        return 0;
    }
    let buckets = if entries < 8 { 8 } else { (entries * 8).div_ceil(7).next_power_of_two() };
    buckets * (entry_bytes + 1)
}

/// The most a config or workload file may hold: 64 MiB, far beyond any config (a workload of
/// 65,535 flows is about 10 MB). `--config /dev/zero`, or a pipe that never ends, stops here
/// with an error instead of filling memory.
pub const MAX_TEXT_FILE_BYTES: u64 = 64 << 20;

/// The text of `path`, a `what` file (config, workload), at most [`MAX_TEXT_FILE_BYTES`].
pub fn read_text(path: &std::path::Path, what: &str) -> Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_TEXT_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_TEXT_FILE_BYTES {
        let limit = crate::error::bytes_text(MAX_TEXT_FILE_BYTES);
        let message = format!("longer than {limit}, the most a {what} file may hold (is it the right file?)");
        return Err(Error::config(&path.display().to_string(), 0, "", &message));
    }
    String::from_utf8(bytes).map_err(|e| Error::io(path, std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

/// A size as a person writes it: bytes (`4000000000`), or a number with a unit: `K`, `M`,
/// `G`, `T` or `KiB`, `MiB`, `GiB`, `TiB` (powers of 1024), `KB`, `MB`, `GB`, `TB` (powers of
/// 1000), `B`; a fraction is allowed (`1.5G`). The error says what was expected.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = (&t[..split], t[split..].trim());
    let expected = || format!("`{text}`: expected a size such as 8G, 512MiB or 4000000000");
    if number.is_empty() {
        return Err(expected());
    }
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KIB" => 1 << 10,
        "M" | "MIB" => 1 << 20,
        "G" | "GIB" => 1 << 30,
        "T" | "TIB" => 1 << 40,
        "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (bytes, or K, M, G, T / KiB ... TiB, or KB ... TB)")),
    };
    let value: f64 = number.parse().map_err(|_| expected())?;
    let bytes = value * scale as f64;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("`{text}`: a size of at least one byte and below 16 EiB"));
    }
    Ok(bytes.round() as u64)
}

/// Keep large allocations lazily committed, as the estimate assumes: glibc serves an
/// allocation of 128 KiB or more from fresh zeroed pages of its own mapping (so a zeroed table
/// becomes resident only where written), but raises that threshold (up to 32 MiB) each time
/// such a mapping is freed, and below it a zeroed allocation reuses freed heap memory and
/// clears it, making the whole table resident at once. A trace's page bitmap, freed before the
/// run, was enough to make a 64-chip drive's per-block tables resident (16 MB more than
/// estimated). Fixing the threshold at glibc's default turns that adjustment off. Call once,
/// at the start of a program (the `ssdlab` command, the Python module); a no-op elsewhere
/// than glibc.
pub fn keep_large_allocations_lazy() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes an allocator parameter; any value is valid.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// Ask the kernel to back `slice` with huge pages (Linux; a no-op elsewhere or on failure).
pub fn advise_huge_pages<T>(slice: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = slice.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(slice);
        let aligned = start.div_ceil(PAGE) * PAGE;
        if end > aligned {
            // SAFETY: the range lies inside memory this slice owns; MADV_HUGEPAGE changes
            // only how the kernel backs it, never its contents.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, end - aligned, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = slice;
}

/// Start loading the cache line holding `value` (a hint: it changes no result). The map and
/// reverse map are hundreds of megabytes read at random; a lookup known an event or more
/// ahead (a write's map entry when its data starts to cross the link, a GC move's entry when
/// its read ends) can overlap the memory access with the work in between.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing architecturally and cannot fault; SSE is part of
    // the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(value as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_binary_and_decimal_units() {
        assert_eq!(parse_size("4000000000"), Ok(4_000_000_000));
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert_eq!(parse_size("4GB"), Ok(4_000_000_000));
        assert!(parse_size("lots").unwrap_err().contains("expected a size such as 8G"));
        assert!(parse_size("3 furlongs").unwrap_err().contains("unknown unit `furlongs`"));
        assert!(parse_size("0").is_err());
    }

    /// A fallible allocation past what the address space holds (2^62 bytes) is an error
    /// naming the table, not an abort.
    #[test]
    fn an_allocation_too_large_is_an_error_naming_what_it_was_for() {
        let err = try_zeroed::<u64>(1 << 59, "the test table").unwrap_err().to_string();
        assert!(err.starts_with("out of memory: the test table needs 4096 PiB"), "{err}");
        assert!(try_vec(1 << 59, 7u64, "the test table").is_err());
        assert_eq!(try_zeroed::<u32>(3, "small").unwrap(), vec![0, 0, 0]);
    }
}
