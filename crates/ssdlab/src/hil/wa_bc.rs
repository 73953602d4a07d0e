//! WA-BC (Jun & Shin, NVMSA 2015): budget-based fairness with GC-cost compensation, as FLIN's
//! evaluation puts it on top of Sprinkler ("Sprinkler+Fairness"): it decides which flow's
//! request the device takes next; the device-level scheduler then schedules it.
//!
//! Each flow has a budget of device time per round (`hil.wa_bc_round_us` × chips; equal
//! weights). Only flows with budget left may have memory requests committed; each committed
//! page costs its flash time: a read tR + transfer, a write tPROG + transfer plus the GC it
//! causes — the drive's GC pages moved per user page written so far, each move a read and a
//! program. When every flow with work pending has spent its budget, a new round adds a budget
//! to each (debts carry over). The model follows the abstract and docs/techniques.md §2; blocks are not
//! segregated per flow, so a flow's GC share is its share of the writes.

use crate::engine::Ps;
use crate::hil::config::HilConfig;
use crate::nand::{Geometry, Timing};
use crate::validate::us_to_ps;

#[derive(Debug, Clone)]
pub struct WaBc {
    budget: Vec<i128>,
    round_ps: i128,
    /// Flash time of one page read and one page written (without GC).
    read_ps: Ps,
    write_ps: Ps,
}

impl WaBc {
    /// WA-BC's budgets: a round of `hil.wa_bc_round_us` per chip; a page read costs a mean tR
    /// plus its transfer, a page written a mean tPROG plus its transfer.
    pub fn from_config(hil: &HilConfig, geo: &Geometry, t: &Timing, flows: usize) -> WaBc {
        let mean = |v: &[u64]| v.iter().sum::<u64>() / v.len().max(1) as u64;
        let xfer = t.bus_transfer_ps(geo.page_bytes as u64);
        WaBc::new(
            flows,
            us_to_ps(hil.wa_bc_round_us) * geo.chips() as u64,
            mean(&t.t_read_ps) + xfer,
            mean(&t.t_program_ps) + xfer,
        )
    }

    pub fn new(flows: usize, round_ps: Ps, read_ps: Ps, write_ps: Ps) -> WaBc {
        WaBc { budget: vec![round_ps as i128; flows], round_ps: round_ps as i128, read_ps, write_ps }
    }

    /// Which flows may have memory requests committed now: those with budget left. When no
    /// flow with work pending (`pending[f]`) has any, new rounds start until one has.
    pub fn allowed(&mut self, pending: &[bool], allowed: &mut [bool]) {
        if pending.iter().any(|&p| p) {
            while !(0..pending.len()).any(|f| pending[f] && self.budget[f] > 0) {
                for b in &mut self.budget {
                    *b += self.round_ps;
                }
            }
        }
        for (a, &b) in allowed.iter_mut().zip(&self.budget) {
            *a = b > 0;
        }
    }

    /// Charge flow `f` for `pages` pages committed; `gc_per_write` is GC pages moved per user
    /// page written so far.
    pub fn charge(&mut self, f: usize, write: bool, pages: u64, gc_per_write: f64) {
        let cost = if write {
            let gc = gc_per_write * (self.read_ps + self.write_ps) as f64;
            pages as f64 * (self.write_ps as f64 + gc)
        } else {
            (pages * self.read_ps) as f64
        };
        self.budget[f] -= cost.round() as i128;
    }

    pub fn budget(&self, f: usize) -> i128 {
        self.budget[f]
    }
}

#[cfg(test)]
mod tests {
    use super::WaBc;

    /// Round 100; reads cost 10 per page, writes 50 (+ GC 0.5 × 60 = 30) per page. Both flows
    /// commit one page per turn while allowed: the reader spends its 100 in 10 pages, the
    /// writer in 2 (80 + 80 > 100); then neither is allowed until a new round adds 100 each
    /// (debts carry: the writer has 40).
    #[test]
    fn budgets_share_device_time_and_charge_gc_to_writes() {
        let mut w = WaBc::new(2, 100, 10, 50);
        let mut allowed = [false; 2];
        let mut served = [0; 2];
        for _ in 0..10 {
            w.allowed(&[true, true], &mut allowed);
            for f in 0..2 {
                if allowed[f] {
                    served[f] += 1;
                    w.charge(f, f == 1, 1, 0.5);
                }
            }
            if !allowed.iter().any(|&a| a) {
                break;
            }
        }
        assert_eq!(served, [10, 2]);
        assert_eq!((w.budget(0), w.budget(1)), (0, -60));
        // A new round, then the writer may go again (budget 40 > 0).
        w.allowed(&[true, true], &mut allowed);
        assert_eq!(allowed, [true, true]);
        assert_eq!((w.budget(0), w.budget(1)), (100, 40));
        // Nothing pending: no new round.
        let mut w = WaBc::new(1, 100, 10, 50);
        w.charge(0, false, 20, 0.0);
        w.allowed(&[false], &mut allowed[..1]);
        assert_eq!((allowed[0], w.budget(0)), (false, -100));
    }
}
