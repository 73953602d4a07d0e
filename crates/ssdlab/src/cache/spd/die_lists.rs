//! Per-die LRU lists of the buffer's dirty pages and the die queue (SPD's Die-Write,
//! docs/techniques.md §3.3 and §11.3 items 2–4).

use crate::nand::NONE;

/// Each dirty page the buffer may evict (dirty and not already on its way to flash) sits in
/// its die's list, most recently used at the head. Pages are named by their buffer slot.
/// The die queue is a cursor over dies served round-robin [I, §11.3 item 2]: an eviction
/// starts at the cursor, and the cursor moves past the die it took pages from.
#[derive(Debug, Clone)]
pub struct DieLists {
    /// Per slot: its die, or NONE when it is not listed.
    die: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Per die: most and least recently used slot, and how many are listed.
    head: Vec<u32>,
    tail: Vec<u32>,
    len: Vec<u32>,
    cursor: u32,
}

impl DieLists {
    pub fn new(dies: u32) -> DieLists {
        let d = dies as usize;
        DieLists {
            die: Vec::new(),
            prev: Vec::new(),
            next: Vec::new(),
            head: vec![NONE; d],
            tail: vec![NONE; d],
            len: vec![0; d],
            cursor: 0,
        }
    }

    /// Pages listed for `die`.
    pub fn len(&self, die: u32) -> u32 {
        self.len[die as usize]
    }

    pub fn is_listed(&self, slot: u32) -> bool {
        self.die.get(slot as usize).is_some_and(|&d| d != NONE)
    }

    /// List `slot` as the most recently used page of `die`.
    pub fn insert(&mut self, slot: u32, die: u32) {
        let s = slot as usize;
        if s >= self.die.len() {
            self.die.resize(s + 1, NONE);
            self.prev.resize(s + 1, NONE);
            self.next.resize(s + 1, NONE);
        }
        assert_eq!(self.die[s], NONE, "slot {slot} listed twice");
        self.die[s] = die;
        self.push_front(slot);
    }

    /// `slot` was used: the head of its die's list (nothing if it is not listed).
    pub fn touch(&mut self, slot: u32) {
        if self.is_listed(slot) && self.head[self.die[slot as usize] as usize] != slot {
            self.unlink(slot);
            self.push_front(slot);
        }
    }

    /// Take `slot` off its die's list (nothing if it is not listed).
    pub fn remove(&mut self, slot: u32) {
        if self.is_listed(slot) {
            self.unlink(slot);
            self.die[slot as usize] = NONE;
        }
    }

    /// The first die from the die queue's cursor listing at least `min` pages; the cursor
    /// moves past it. None if no die lists that many.
    pub fn next_die(&mut self, min: u32) -> Option<u32> {
        let dies = self.len.len() as u32;
        let die = (0..dies).map(|k| (self.cursor + k) % dies).find(|&d| self.len[d as usize] >= min)?;
        self.cursor = (die + 1) % dies;
        Some(die)
    }

    /// The slots of `die`, least recently used first.
    pub fn lru_first(&self, die: u32) -> impl Iterator<Item = u32> + '_ {
        let mut s = self.tail[die as usize];
        std::iter::from_fn(move || {
            (s != NONE).then(|| {
                let cur = s;
                s = self.prev[cur as usize];
                cur
            })
        })
    }

    fn push_front(&mut self, slot: u32) {
        let (s, d) = (slot as usize, self.die[slot as usize] as usize);
        self.prev[s] = NONE;
        self.next[s] = self.head[d];
        if self.head[d] != NONE {
            self.prev[self.head[d] as usize] = slot;
        }
        self.head[d] = slot;
        if self.tail[d] == NONE {
            self.tail[d] = slot;
        }
        self.len[d] += 1;
    }

    fn unlink(&mut self, slot: u32) {
        let (s, d) = (slot as usize, self.die[slot as usize] as usize);
        let (p, n) = (self.prev[s], self.next[s]);
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            self.head[d] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        } else {
            self.tail[d] = p;
        }
        self.len[d] -= 1;
    }
}
