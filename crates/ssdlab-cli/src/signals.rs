//! Stop signals (Ctrl-C's SIGINT, SIGTERM): the first sets a flag the command polls, so it
//! can end cleanly (a sweep keeps the runs under way, `serve` writes its report); a second
//! ends the process as usual (the handler is reset when it runs).

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// Catch `signals` once each.
pub(crate) fn catch(signals: &[libc::c_int]) {
    for &signal in signals {
        // SAFETY: a zeroed `sigaction` is a valid empty one; the handler only stores to an
        // atomic, which is async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESETHAND;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// The flag a caught signal sets.
pub(crate) fn stop_flag() -> &'static AtomicBool {
    &STOP
}
