//! The command's global allocator: out of memory is exit code 2 with a message.

/// The system allocator, except that running out of memory ends the program with exit code 2
/// and a message, instead of Rust's abort (exit 134 and a backtrace). The library's large
/// tables are allocated fallibly ([`ssdlab::mem::allocating_fallibly`]) and name themselves
/// in their error: for those the null goes back to the caller.
struct ExitWhenOutOfMemory;

#[global_allocator]
static ALLOCATOR: ExitWhenOutOfMemory = ExitWhenOutOfMemory;

// SAFETY: every call is passed on to the system allocator unchanged; only a failure's null is
// looked at.
unsafe impl std::alloc::GlobalAlloc for ExitWhenOutOfMemory {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract is the system allocator's.
        checked(unsafe { std::alloc::System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as above.
        checked(unsafe { std::alloc::System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        checked(unsafe { std::alloc::System.realloc(ptr, layout, new_size) }, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: as above.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

/// `ptr`, unless it is a failed allocation of `bytes` outside a fallible one: then the
/// message and exit code 2, written and taken without allocating.
#[inline(always)]
fn checked(ptr: *mut u8, bytes: usize) -> *mut u8 {
    if ptr.is_null() && !ssdlab::mem::allocating_fallibly() {
        out_of_memory(bytes);
    }
    ptr
}

#[cold]
fn out_of_memory(bytes: usize) -> ! {
    use std::fmt::Write as _;
    /// A message on the stack: no allocation is possible now.
    struct Line {
        text: [u8; 512],
        len: usize,
    }
    impl std::fmt::Write for Line {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let n = s.len().min(self.text.len() - self.len);
            self.text[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
            self.len += n;
            Ok(())
        }
    }
    let mut line = Line { text: [0; 512], len: 0 };
    let _ = writeln!(
        line,
        "error: out of memory: allocating {bytes} more bytes failed (a limit such as ulimit -v, a cgroup, or the machine); `ssdlab validate` estimates what the run needs, and `run --max-memory` refuses a run that would not fit before it starts"
    );
    // SAFETY: writes `len` initialised bytes to stderr, then ends the process without running
    // anything that could allocate.
    unsafe {
        libc::write(2, line.text.as_ptr().cast(), line.len);
        libc::_exit(2);
    }
}
