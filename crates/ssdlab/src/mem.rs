//! Memory hints for the large per-page arrays (map, reverse map).
//!
//! A preconditioned drive touches its map and reverse map at random, hundreds of megabytes of
//! them; with 4 KiB pages nearly every access also misses the TLB. Where the arrays are going
//! to be filled anyway (preconditioning), they are marked for transparent huge pages before
//! they are touched. Fresh drives are not marked: there memory must grow only with what is
//! written, and a huge page would commit 2 MiB for a single entry.

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
