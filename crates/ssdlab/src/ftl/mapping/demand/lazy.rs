//! A table of `u32` indexed densely whose memory the operating system provides only where
//! it has been written: entries are kept plus one (0 = NONE), so the table is allocated
//! zeroed and untouched pages cost nothing. A map cache's per-entry tables (the translation
//! pages' copy of the map, the CMT's tag index) are as long as the drive's logical space,
//! while a run touches a part of it.

pub struct LazyTable(Vec<u32>);

impl LazyTable {
    pub fn new(len: usize) -> LazyTable {
        LazyTable(vec![0; len])
    }

    /// The value at `i`, NONE if never set.
    #[inline]
    pub fn get(&self, i: u32) -> u32 {
        self.0[i as usize].wrapping_sub(1)
    }

    #[inline]
    pub fn set(&mut self, i: u32, v: u32) {
        self.0[i as usize] = v.wrapping_add(1);
    }

    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.0.len()
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
