//! The dirty translation list (FMMU §4.2, §4.5; docs/techniques.md §9.5): translation pages
//! with dirty CMT blocks, in the order they first became dirty, each with its dirty-block
//! count and an `updated` bit, and the choice of the page a watermark flush writes.
//!
//! FMMU links a page's dirty blocks through `next` pointers so a flush visits only them;
//! here the blocks of a page are found by index (they are consecutive tags), and the
//! firmware model charges the flush for what it would visit: the page's dirty blocks along
//! the links, or every CMT block without them (`ftl.map_cache.flush_find = "scan"`, the
//! list then only choosing the page).

use std::collections::VecDeque;

use super::config::FlushVictim;

/// Entries the cost-benefit choice looks at from the head [I].
const WINDOW: usize = 16;

pub struct Dtl {
    /// Pages in registration order, with the registration's generation (a page flushed and
    /// dirtied again is registered anew at the tail; its old place is skipped).
    order: VecDeque<(u32, u32)>,
    gen: Vec<u32>,
    count: Vec<u32>,
    updated: Vec<bool>,
    blocks_per_tp: u32,
}

impl Dtl {
    pub fn new(tps: u32, blocks_per_tp: u32) -> Dtl {
        let n = tps as usize;
        Dtl { order: VecDeque::new(), gen: vec![0; n], count: vec![0; n], updated: vec![false; n], blocks_per_tp }
    }

    /// A CMT block of `vtpn` became dirty.
    pub fn block_dirtied(&mut self, vtpn: u32) {
        let v = vtpn as usize;
        if self.count[v] == 0 {
            self.gen[v] += 1;
            self.order.push_back((vtpn, self.gen[v]));
        }
        self.count[v] += 1;
    }

    /// A dirty CMT block of `vtpn` was cleaned or left the cache.
    pub fn block_cleaned(&mut self, vtpn: u32) {
        let v = vtpn as usize;
        debug_assert!(self.count[v] > 0, "translation page {vtpn} had no dirty block");
        self.count[v] -= 1;
        if self.count[v] == 0 {
            // Its place in `order` goes stale.
            self.gen[v] += 1;
        }
    }

    /// An Update or CondUpdate changed an entry of `vtpn`.
    pub fn updated(&mut self, vtpn: u32) {
        self.updated[vtpn as usize] = true;
    }

    fn live(&self, e: (u32, u32)) -> bool {
        self.gen[e.0 as usize] == e.1 && self.count[e.0 as usize] > 0
    }

    /// The page to flush next, or None if no page is dirty. Cost-benefit maximises
    /// cnt / blocks_per_page + (1 − pos / 16) + (updated ? 0 : 1) over the first 16 live
    /// entries, then clears their `updated` bits (their second chance) [I].
    pub fn pick(&mut self, how: FlushVictim) -> Option<u32> {
        while self.order.front().is_some_and(|&e| !self.live(e)) {
            self.order.pop_front();
        }
        let window: Vec<u32> = self.order.iter().filter(|&&e| self.live(e)).take(WINDOW).map(|e| e.0).collect();
        let first = *window.first()?;
        let pick = match how {
            FlushVictim::Oldest => first,
            FlushVictim::Greedy => {
                *window.iter().max_by_key(|&&v| (self.count[v as usize], std::cmp::Reverse(v))).expect("non-empty")
            }
            FlushVictim::LruUpdate => window.iter().copied().find(|&v| !self.updated[v as usize]).unwrap_or(first),
            FlushVictim::CostBenefit => {
                let score = |pos: usize, v: u32| {
                    self.count[v as usize] as f64 / self.blocks_per_tp as f64
                        + (1.0 - pos as f64 / WINDOW as f64)
                        + if self.updated[v as usize] { 0.0 } else { 1.0 }
                };
                let mut best = (first, f64::MIN);
                for (pos, &v) in window.iter().enumerate() {
                    let s = score(pos, v);
                    if s > best.1 {
                        best = (v, s);
                    }
                }
                best.0
            }
        };
        for &v in &window {
            self.updated[v as usize] = false;
        }
        Some(pick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages 3, 5, 7 registered in that order with 1, 4, 2 dirty blocks; 3 and 7 updated
    /// since the last scan. Oldest: 3. Greedy: 5. Least recently updated: 5 (the first not
    /// updated). Cost-benefit with 8 blocks per page: 3 → 1/8 + 1 + 0 = 1.125, 5 → 4/8 +
    /// 15/16 + 1 = 2.4375, 7 → 2/8 + 14/16 + 0 = 1.125: 5.
    #[test]
    fn each_victim_rule_picks_by_hand() {
        let build = || {
            let mut d = Dtl::new(8, 8);
            for (v, n) in [(3, 1), (5, 4), (7, 2)] {
                for _ in 0..n {
                    d.block_dirtied(v);
                }
            }
            d.updated(3);
            d.updated(7);
            d
        };
        assert_eq!(build().pick(FlushVictim::Oldest), Some(3));
        assert_eq!(build().pick(FlushVictim::Greedy), Some(5));
        assert_eq!(build().pick(FlushVictim::LruUpdate), Some(5));
        assert_eq!(build().pick(FlushVictim::CostBenefit), Some(5));
        // A page cleaned and dirtied again moves to the tail.
        let mut d = build();
        d.block_cleaned(3);
        d.block_dirtied(3);
        assert_eq!(d.pick(FlushVictim::Oldest), Some(5));
    }
}
