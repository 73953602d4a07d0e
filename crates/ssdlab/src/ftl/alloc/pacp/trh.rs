//! PACP's transaction history (TRH, §3.1; docs/techniques.md §10.2): per logical page, the types
//! of its last N host requests, kept beside its map entry.

use crate::mem::ChunkedTable;
use crate::nand::Lpn;

/// What a page's history predicts for its next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prediction {
    /// No request recorded yet.
    None,
    Read,
    Write,
    /// As many reads as writes (an even N): the caller decides by the page's channel.
    Tie,
}

/// One byte per logical page: bits 0..N hold the last N types (1 = write; bit 0 the most
/// recent), bits 4..7 how many are recorded (at most N); kept in chunks allocated where pages
/// are requested.
#[derive(Debug, Clone)]
pub struct Trh {
    bits: u8,
    hist: ChunkedTable<u8>,
    /// Requests predicted from a history (accuracy's denominator, §10.9 [I]).
    pub predicted: u64,
    /// Of those, predictions that matched the request's type (a tie counted by the page's
    /// channel type, as Algorithm 1 decides it).
    pub correct: u64,
}

impl Trh {
    /// Histories of `bits` (1 to 3) requests for `pages` logical pages.
    pub fn new(pages: u32, bits: u8) -> Trh {
        assert!((1..=3).contains(&bits), "TRH keeps 1 to 3 requests");
        Trh { bits, hist: ChunkedTable::new(pages as usize), predicted: 0, correct: 0 }
    }

    /// The majority type of `lpn`'s history.
    pub fn predict(&self, lpn: Lpn) -> Prediction {
        let h = self.hist.get(lpn as usize);
        let n = h >> 4;
        if n == 0 {
            return Prediction::None;
        }
        let writes = (h & 0x0f & ((1 << n) - 1)).count_ones() as u8;
        match (2 * writes).cmp(&n) {
            std::cmp::Ordering::Greater => Prediction::Write,
            std::cmp::Ordering::Less => Prediction::Read,
            std::cmp::Ordering::Equal => Prediction::Tie,
        }
    }

    /// A host request of `lpn` (a write if `write`): score the prediction its history made
    /// (`on_write_channel`: where the page sits, for a tie), then record it.
    pub fn record(&mut self, lpn: Lpn, write: bool, on_write_channel: bool) {
        let predicted_write = match self.predict(lpn) {
            Prediction::None => None,
            Prediction::Read => Some(false),
            Prediction::Write => Some(true),
            Prediction::Tie => Some(on_write_channel),
        };
        if let Some(p) = predicted_write {
            self.predicted += 1;
            self.correct += u64::from(p == write);
        }
        let h = self.hist.get_mut(lpn as usize);
        let n = ((*h >> 4) + 1).min(self.bits);
        let kept = ((*h & 0x0f) << 1 | u8::from(write)) & ((1 << self.bits) - 1);
        *h = n << 4 | kept;
    }

    /// Share of predicted requests predicted right (0 with none).
    pub fn accuracy(&self) -> f64 {
        if self.predicted == 0 {
            0.0
        } else {
            self.correct as f64 / self.predicted as f64
        }
    }
}
