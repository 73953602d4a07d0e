//! A table of `u32` indexed densely whose memory grows with what has been written: entries
//! are kept plus one (0 = NONE) in a [`ChunkedTable`], so chunks never written cost nothing.
//! A map cache's per-entry tables (the translation pages' copy of the map, the CMT's tag
//! index) are as long as the drive's logical space, while a run touches a part of it.

use crate::mem::ChunkedTable;

pub struct LazyTable(ChunkedTable<u32>);

impl LazyTable {
    pub fn new(len: usize) -> LazyTable {
        LazyTable(ChunkedTable::new(len))
    }

    /// The value at `i`, NONE if never set.
    #[inline]
    pub fn get(&self, i: u32) -> u32 {
        self.0.get(i as usize).wrapping_sub(1)
    }

    #[inline]
    pub fn set(&mut self, i: u32, v: u32) {
        self.0.set(i as usize, v.wrapping_add(1));
    }

    /// Bytes held now.
    pub fn bytes(&self) -> u64 {
        self.0.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::NONE;

    #[test]
    fn unset_entries_read_none_and_values_round_trip() {
        let mut t = LazyTable::new(4);
        assert_eq!(t.get(2), NONE);
        t.set(2, 0);
        t.set(3, 7);
        assert_eq!((t.get(2), t.get(3)), (0, 7));
        t.set(3, NONE);
        assert_eq!(t.get(3), NONE);
    }
}
