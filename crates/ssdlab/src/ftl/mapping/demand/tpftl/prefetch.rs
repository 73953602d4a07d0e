//! TPFTL's selective prefetch (docs/techniques.md §5.4): when the lookups run sequentially, a
//! translation page read for a miss also loads the entries that follow, as many as the run
//! is long, up to the end of the page. They come with the page: no extra flash read.
//!
//! Detection [I] (the paper's signal, the number of cached TP nodes falling over several
//! misses [S], gives no run length and fires on random loads that empty small nodes; this one
//! reads the addresses instead). A lookup's *run* is the number of lookups of consecutive
//! LPNs ending with it. Lookups of several streams interleave (flows, queued requests), so
//! runs are followed in a table of [`STREAMS`] streams, each the next LPN it expects and its
//! run so far: a lookup at a stream's next LPN extends it, a repeat of a stream's last LPN
//! leaves it as it is, and any other lookup starts a run of 1 in place of the stream used
//! least recently. A miss is *sequential* when the run is longer than one and either
//! it is the first lookup to wait on its page's read (it continues a run the previous
//! request began, or that crossed from the previous page) or that read already prefetches
//! (later pages of the same sequential request widen it). The pages of one random request
//! run too, but their first page is the one that waits first and its run is 1: random
//! requests prefetch nothing unless one crosses a translation page boundary. A sequential
//! miss on `lpn` with run `r` asks for `lpn + 1 ..= lpn + r`, cut at the page's end; the
//! asks on one read are merged into one range. Request-level prefetch (all the entries of a
//! multi-page request) needs nothing here: every page of a request is looked up at once, and
//! their misses on one page share its read.

use std::ops::Range;

use crate::nand::{Lpn, NONE};

/// Sequential streams followed at once [I].
pub const STREAMS: usize = 8;

#[derive(Clone, Copy)]
struct Stream {
    /// The LPN that would extend the run (NONE: unused).
    next: Lpn,
    run: u32,
    /// When it was last extended or started, in lookups.
    used: u64,
}

pub struct Prefetch {
    entries_per_tp: u32,
    logical_pages: u32,
    streams: [Stream; STREAMS],
    lookups: u64,
    /// The run of the last lookup.
    run: u32,
    /// Per translation page: whether a lookup waits on its read, and the entries to load
    /// when it arrives (empty: none).
    waited: Vec<bool>,
    range: Vec<Range<Lpn>>,
}

impl Prefetch {
    pub fn new(logical_pages: u32, entries_per_tp: u32) -> Prefetch {
        let tps = logical_pages.div_ceil(entries_per_tp) as usize;
        Prefetch {
            entries_per_tp,
            logical_pages,
            streams: [Stream { next: NONE, run: 0, used: 0 }; STREAMS],
            lookups: 0,
            run: 0,
            waited: vec![false; tps],
            range: vec![0..0; tps],
        }
    }

    /// The last lookup's run.
    pub fn run(&self) -> u32 {
        self.run
    }

    /// A lookup of `lpn` (hit or miss): the stream it extends or repeats, or a new one in
    /// place of the least recently used (the first of equals).
    pub fn looked_up(&mut self, lpn: Lpn) {
        self.lookups += 1;
        let extends = self.streams.iter().position(|s| s.next == lpn);
        let s = match extends.or_else(|| self.streams.iter().position(|s| s.next == lpn + 1)) {
            Some(i) => {
                let s = &mut self.streams[i];
                if s.next == lpn {
                    (s.next, s.run) = (lpn + 1, s.run + 1);
                }
                s
            }
            None => {
                let lru = self.streams.iter_mut().min_by_key(|s| s.used).expect("streams");
                *lru = Stream { next: lpn + 1, run: 1, used: 0 };
                lru
            }
        };
        s.used = self.lookups;
        self.run = s.run;
    }

    /// The lookup of `lpn` just made missed and waits on its translation page's read.
    pub fn missed(&mut self, lpn: Lpn) {
        let vtpn = (lpn / self.entries_per_tp) as usize;
        let first = !std::mem::replace(&mut self.waited[vtpn], true);
        let r = &mut self.range[vtpn];
        let active = r.start < r.end;
        if self.run < 2 || !(first || active) {
            return;
        }
        let page_end = ((vtpn as u32 + 1) * self.entries_per_tp).min(self.logical_pages);
        let (from, to) = (lpn + 1, (lpn as u64 + 1 + self.run as u64).min(page_end as u64) as Lpn);
        if from >= to {
            return;
        }
        *r = if active { r.start.min(from)..r.end.max(to) } else { from..to };
    }

    /// Translation page `vtpn` arrived: the entries to load with it.
    pub fn take(&mut self, vtpn: u32) -> Range<Lpn> {
        self.waited[vtpn as usize] = false;
        std::mem::replace(&mut self.range[vtpn as usize], 0..0)
    }

    pub fn state_bytes(&self) -> u64 {
        self.waited.len() as u64 * 9 + (STREAMS * 16) as u64
    }
}
