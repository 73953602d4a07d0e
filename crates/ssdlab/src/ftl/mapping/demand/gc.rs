//! GC moves under DFTL's rule (`ftl.map_cache.gc_update = "batch"`; Gupta et al., ASPLOS
//! 2009, section 3.3; docs/techniques.md §5.2). A moved page's entry that is in the cache is
//! updated there and marked dirty ("lazy copying"). The others are grouped by translation
//! page while the victim is being moved, and each of those pages gets one read–modify–write
//! when the victim's last move is done ("batch update"); the entries never enter the cache.
//! With `gc_update = "cache"` (FMMU's) a move is an update like a host write's
//! ([`DemandMap::update`]).
//!
//! Between the move and its page's write the translation page still points at the victim:
//! the entry is pending on the page (`TpState::gc_moved`), which the checks allow for, and
//! the page's next write (for any reason) carries it.

use super::config::{GcUpdate, UpdateTarget};
use super::{DemandMap, Phase};
use crate::ftl::mapping::page::PageMap;
use crate::ftl::mapping::Mapping;
use crate::nand::Lpn;

impl DemandMap {
    /// Whether GC moves take DFTL's batch rule (else [`DemandMap::update`]).
    #[inline]
    pub fn batches_gc(&self) -> bool {
        self.p.gc_update == GcUpdate::Batch
    }

    /// A GC move of a page of the victim on `plane` gave `lpn` a new address.
    pub fn gc_moved(&mut self, lpn: Lpn, plane: u32, truth: &PageMap) {
        let tag = lpn / self.p.block_entries;
        let vtpn = self.vtpn(lpn);
        // The CTP counts as the cache only when updates go there (`update_target = "ctp"`);
        // under "cmt" an entry not in the CMT is batched, and its page's batch write merges
        // into the CTP copy if the page is there (a CMT flush into the CTP).
        let in_ctp = self.p.update_target == UpdateTarget::Ctp && self.ctp_has(vtpn);
        if self.cmt.contains(tag) || in_ctp {
            // Lazy copying: the cached entry takes the new address (no recency change).
            self.stats.gc_lazy_updates += 1;
            self.dirty(lpn);
            self.maintain(truth);
            return;
        }
        self.stats.gc_batched_entries += 1;
        let t = &mut self.tps[vtpn as usize];
        if t.gc_moved.is_empty() {
            let batch = &mut self.gc_batch[plane as usize];
            if !batch.contains(&vtpn) {
                batch.push(vtpn);
            }
        }
        t.gc_moved.push(lpn);
    }

    /// The victim on `plane` has no move left: each translation page still holding one of
    /// its moved entries is written once (read first if it is only on flash).
    pub fn gc_victim_done(&mut self, plane: u32, truth: &PageMap) {
        let mut batch = std::mem::take(&mut self.gc_batch[plane as usize]);
        for &vtpn in &batch {
            if self.tps[vtpn as usize].gc_moved.is_empty() {
                continue; // Another write of the page carried them already.
            }
            self.stats.gc_batch_pages += 1;
            if self.tps[vtpn as usize].phase == Phase::Writing {
                // Its program has not started: the entries join it.
                self.assemble(vtpn, truth);
            } else {
                self.flush(vtpn, truth);
            }
        }
        batch.clear();
        self.gc_batch[plane as usize] = batch;
        self.maintain(truth);
    }

    /// Put `vtpn`'s pending moved entries into its copy (it is being written, or loaded into
    /// the CTP where entries are kept current).
    pub(super) fn apply_gc_moves(&mut self, vtpn: u32, truth: &PageMap) {
        let moved = std::mem::take(&mut self.tps[vtpn as usize].gc_moved);
        for &l in &moved {
            self.image.set(l, truth.get(l));
        }
        let mut moved = moved;
        moved.clear();
        self.tps[vtpn as usize].gc_moved = moved;
    }

    /// Whether `lpn`'s new address from a GC move waits for its page's batch write.
    pub(super) fn gc_pending(&self, lpn: Lpn) -> bool {
        self.tps[self.vtpn(lpn) as usize].gc_moved.contains(&lpn)
    }
}
