//! TwinBlk — Twin Block Management (Tavakkol, Mehrvarzy, Sarbazi-Azad, IEEE CAL 2016, DOI
//! 10.1109/LCA.2015.2461162), one of SPD's baselines (docs/techniques.md §3.6, §11.3 item 9).
//!
//! The blocks of one index in the planes of a die are twins: they are allocated together
//! and erased together, so the planes' use of block addresses stays symmetric and reads,
//! writes and erases can pair into multi-plane commands. In ssdlab it is a combination of
//! three settings, with no code of its own beyond GC's unit:
//! - `ftl.allocation = "CWD"`: the die fixed by the page, the plane chosen per write among
//!   the die's planes with the fewest writes waiting, then the lowest write point, then in
//!   rotation — the round-robin over planes the slides describe (s.21) [I];
//! - `ftl.block_alignment = "die"`: a plane opens the twin of the block its sibling opened;
//! - `ftl.gc.unit = "twin"`: the victim is a twin set (the one with the fewest valid pages
//!   in all [I], [`crate::ftl::gc::die_gc::aligned_victim`]), its valid pages move within their
//!   own planes (so, unlike SPD's Die-GC, the planes' GC write points may part), and the set
//!   is erased with one multi-plane erase once every move is done.
//!
//! Unlike SPD, there is no buffer reshaping: a lone write still takes one plane [I].
