//! A slab of values addressed by `u32` ids, reusing freed slots: requests, memory requests
//! and transactions live in slabs so that events carry an index, never a pointer, and nothing
//! allocates per event once a slab has grown to its working size.

pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
    live: u32,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new(), live: 0 }
    }
}

impl<T> Slab<T> {
    pub fn new() -> Slab<T> {
        Slab::default()
    }

    pub fn insert(&mut self, v: T) -> u32 {
        self.live += 1;
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = v;
                i
            }
            None => {
                self.items.push(v);
                self.items.len() as u32 - 1
            }
        }
    }

    /// Free slot `id` (its value stays until the slot is reused).
    pub fn remove(&mut self, id: u32) {
        self.live -= 1;
        self.free.push(id);
    }

    /// Values in use.
    pub fn live(&self) -> u32 {
        self.live
    }

    /// Every slot, live or free, indexed by id: for layers that read records by id.
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }
}

impl<T> std::ops::Index<u32> for Slab<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: u32) -> &T {
        &self.items[i as usize]
    }
}

impl<T> std::ops::IndexMut<u32> for Slab<T> {
    #[inline]
    fn index_mut(&mut self, i: u32) -> &mut T {
        &mut self.items[i as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::Slab;

    #[test]
    fn freed_slots_are_reused_last_freed_first() {
        let mut s = Slab::new();
        let (a, b, c) = (s.insert('a'), s.insert('b'), s.insert('c'));
        assert_eq!((a, b, c), (0, 1, 2));
        s.remove(a);
        s.remove(c);
        assert_eq!(s.live(), 1);
        assert_eq!(s.insert('d'), 2);
        assert_eq!(s.insert('e'), 0);
        assert_eq!((s[0], s[1], s[2]), ('e', 'b', 'd'));
    }
}
