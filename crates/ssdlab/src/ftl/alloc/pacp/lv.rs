//! Lv et al.'s access characteristic (DAC 2020; docs/techniques.md §6.3): data is
//! write-dominant while it was written within the last `window` host page accesses, and
//! read-dominant when it was not but was read at least twice in that window. GC-piggybacked
//! migration moves read-dominant pages off the write area (§6.3 item 3), so Lv et al.'s
//! partition places **and** migrates by characteristic.
//!
//! The window and the granularity (a region of consecutive logical pages, 2 MiB by default)
//! are ssdlab's choices [I]: the DAC abstract names neither. Per region the window keeps the
//! access clock of the last write and of the last two reads (24 bytes per region).

use crate::nand::Lpn;

/// The last accesses of every region, on a clock of host page accesses.
#[derive(Debug, Clone)]
pub struct AccessWindow {
    /// `lpn >> shift` is the region.
    shift: u32,
    window: u64,
    /// Host page accesses so far, started at `window` so that "never" (0) is outside it.
    clock: u64,
    last_write: Vec<u64>,
    /// The last read and the one before it.
    last_reads: Vec<[u64; 2]>,
}

impl AccessWindow {
    /// A window of `window` page accesses over `logical_pages`, in regions of
    /// `pages_per_region` (a power of two) pages.
    pub fn new(logical_pages: u32, pages_per_region: u32, window: u64) -> AccessWindow {
        debug_assert!(pages_per_region.is_power_of_two());
        let shift = pages_per_region.trailing_zeros();
        let regions = (logical_pages as usize).div_ceil(pages_per_region as usize).max(1);
        AccessWindow { shift, window, clock: window, last_write: vec![0; regions], last_reads: vec![[0; 2]; regions] }
    }

    /// A host access of `lpn`.
    pub fn record(&mut self, lpn: Lpn, write: bool) {
        self.clock += 1;
        let r = (lpn >> self.shift) as usize;
        if write {
            self.last_write[r] = self.clock;
        } else {
            let [last, _] = self.last_reads[r];
            self.last_reads[r] = [self.clock, last];
        }
    }

    /// No write within the window and at least two reads in it.
    pub fn read_dominant(&self, lpn: Lpn) -> bool {
        let r = (lpn >> self.shift) as usize;
        let since = self.clock - self.window;
        self.last_write[r] <= since && self.last_reads[r][1] > since
    }

    /// RAM the window takes.
    pub fn state_bytes(&self) -> u64 {
        (self.last_write.len() * 24) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::AccessWindow;

    /// Worked by hand with a window of 4 accesses and regions of 2 pages: reads of page 0, 1
    /// (region 0 read twice: read-dominant), a write of page 1 (now write-dominant), then 4
    /// more accesses elsewhere push that write out of the window, but also both reads: not
    /// read-dominant until two new reads; page 3 (region 1) was only written.
    #[test]
    fn read_dominant_means_no_write_and_two_reads_in_the_window() {
        let mut w = AccessWindow::new(8, 2, 4);
        w.record(0, false);
        assert!(!w.read_dominant(1), "one read");
        w.record(1, false);
        assert!(w.read_dominant(0));
        w.record(1, true);
        assert!(!w.read_dominant(0), "written in the window");
        w.record(3, true);
        for _ in 0..4 {
            w.record(6, false);
        }
        assert!(!w.read_dominant(0), "the write left the window, and so did the reads");
        w.record(0, false);
        w.record(0, false);
        assert!(w.read_dominant(1));
        assert!(!w.read_dominant(3));
        assert!(w.read_dominant(7), "region 3 read four times, the last two within the window");
    }
}
