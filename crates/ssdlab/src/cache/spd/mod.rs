//! SPD — plane-level parallelism "all the time" (Gao, Shi, Xue, Ji, Yang, Zhang, MSST 2019;
//! TPDS 31(9), 2020), and the buffer policies of its baselines. docs/techniques.md §3 (mechanism)
//! and §11 (evaluation, and the corrections to §3 this follows).
//!
//! A multi-plane program runs only when every plane of a die programs at the same page
//! offset. SPD keeps a die's write points aligned by shaping what leaves the write buffer:
//! - **Die-Write** ([`DieLists`], slides s.16–17): the buffer keeps one LRU list of dirty
//!   pages per die and a die queue; an eviction takes, from the first die in the queue whose
//!   list holds at least N pages (N = planes per die), its N least recently used pages, and
//!   writes page i to plane i of the die, one N-plane program. The die of a page is fixed by
//!   its logical page number (static channel, chip and die; §11.3 item 1), the plane chosen
//!   at eviction (`ftl.allocation = "CWD"`, a plane-dynamic scheme).
//! - **Aligned block sets** ([`crate::ftl::blocks::aligned_block`]): the planes of a die open the block with the
//!   same index when their write points reach a block's end (`ftl.block_alignment = "die"`),
//!   so a die's write points stay at equal (block, page) offsets.
//! - **Die-Read** is the transaction builder's rule for reads (`tsu::builder`): queued reads
//!   of one die on distinct planes at one page offset go as one multi-plane read.
//!
//! The baselines' buffer policies (slide s.21, §11.3 item 8) use the same die lists:
//! Baseline-D evicts one page at a time, from the die queue's next die (so consecutive
//! evictions go to different dies); Baseline-P evicts the die's least recently used page and,
//! with it, the least recently used page bound to each other plane of the die (planes fixed
//! by a static allocation order), whatever their write points.
//!
//! - **Die-GC** ([`crate::ftl::gc::die_gc`], `ftl.gc.unit = "die"`): the victim is an aligned block set,
//!   its valid pages move N at a time as aligned N-plane programs (the last, partial group
//!   padded, or put into the die's buffer list with `ftl.gc.die_leftover = "buffer"`), and
//!   its N blocks are erased with one multi-plane erase.
//!
//! When no die list holds N pages, SPD stalls (`validate` then requires a buffer of more
//! than (N − 1) × dies pages, which always has an eligible die when full) or, with
//! `cache.spd_fallback = "pad"`, writes a die's fewer pages with dummy pages beside them.
//!
//! The write buffer's slots (`cache.slot_release`): SPD's simulator (SSDsim, per
//! docs/techniques.md §3.7) frees an evicted page's slot at once; ssdlab's default holds it until
//! the program ends. At SPD's floor that decides whether a second write must wait
//! (`reproduce spd` runs both).

//! This module holds SPD's part in the write cache (Die-Write and the baselines' buffer
//! policies); its other parts live in the layer each changes: Die-GC in
//! [`crate::ftl::gc::die_gc`], aligned block sets in [`crate::ftl::blocks`], Die-Read in the
//! transaction builder.

mod die_lists;

pub use die_lists::DieLists;

#[cfg(test)]
mod tests;
