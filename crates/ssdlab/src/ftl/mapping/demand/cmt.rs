//! The engine's first cache level (the CMT): DFTL's, CDFTL's and FMMU's [`BlockCache`], or
//! TPFTL's clustered TP nodes ([`TpNodes`]). Both answer the same calls, so the engine's
//! misses, flushes and batch updates are the same code for every scheme; the tag is a CMT
//! block's (TP nodes hold single entries: the tag is the LPN).

use super::blocks::{BlockCache, Evicted};
use crate::ftl::mapping::demand::tpftl::nodes::TpNodes;

pub enum Cmt {
    Blocks(BlockCache),
    Nodes(TpNodes),
}

impl Cmt {
    #[inline]
    pub fn contains(&self, tag: u32) -> bool {
        match self {
            Cmt::Blocks(c) => c.contains(tag),
            Cmt::Nodes(n) => n.contains(tag),
        }
    }

    #[inline]
    pub fn is_dirty(&self, tag: u32) -> bool {
        match self {
            Cmt::Blocks(c) => c.is_dirty(tag),
            Cmt::Nodes(n) => n.is_dirty(tag),
        }
    }

    #[inline]
    pub fn touch(&mut self, tag: u32) {
        match self {
            Cmt::Blocks(c) => c.touch(tag),
            Cmt::Nodes(n) => n.touch(tag),
        }
    }

    pub fn set_dirty(&mut self, tag: u32, dirty: bool) {
        match self {
            Cmt::Blocks(c) => c.set_dirty(tag, dirty),
            Cmt::Nodes(n) => n.set_dirty(tag, dirty),
        }
    }

    pub fn insert(&mut self, tag: u32) -> Option<Evicted> {
        match self {
            Cmt::Blocks(c) => c.insert(tag),
            Cmt::Nodes(n) => n.insert(tag),
        }
    }

    pub fn capacity(&self) -> u32 {
        match self {
            Cmt::Blocks(c) => c.capacity(),
            Cmt::Nodes(n) => n.capacity(),
        }
    }

    pub fn dirty_blocks(&self) -> u32 {
        match self {
            Cmt::Blocks(c) => c.dirty_blocks(),
            Cmt::Nodes(n) => n.dirty_blocks(),
        }
    }

    pub fn non_dirty(&self) -> u32 {
        match self {
            Cmt::Blocks(c) => c.non_dirty(),
            Cmt::Nodes(n) => n.non_dirty(),
        }
    }

    /// Blocks a flush of translation page `vtpn` visits to find its dirty ones without dirty
    /// links: every CMT block, or for TP nodes only the page's node (TPFTL's clustering).
    pub fn flush_scan(&self, vtpn: u32) -> u32 {
        match self {
            Cmt::Blocks(c) => c.capacity(),
            Cmt::Nodes(n) => n.node_entries(vtpn),
        }
    }

    /// The tag of the least recently used dirty block (entry for TP nodes), found by scanning
    /// the cache, and the blocks that search visits beyond the flush's own scan: none for a
    /// block cache (one pass over every block notes the least recent dirty one and each dirty
    /// block's page, then cleans the chosen page's from that note [I]), every cached entry
    /// for TP nodes (whose flush visits only its node).
    pub fn lru_dirty(&self) -> Option<(u32, u32)> {
        match self {
            Cmt::Blocks(c) => c.lru_dirty().map(|t| (t, 0)),
            Cmt::Nodes(n) => n.lru_dirty().map(|t| (t, n.len())),
        }
    }

    pub fn state_bytes(&self) -> u64 {
        match self {
            Cmt::Blocks(c) => c.state_bytes(),
            Cmt::Nodes(n) => n.state_bytes(),
        }
    }
}
