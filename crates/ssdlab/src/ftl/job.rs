//! Flash jobs: work that spans layers (a GC unit's victims, an idle-time migration), decided
//! in the FTL and handed to the loop as [`Step`]s, which the loop applies in order the same
//! way for every job (`sim::apply_steps`). GC's steps are made in `gc_job.rs`, a migration's
//! in `migration_job.rs`.

use super::LivePage;

/// One thing a job asks of the flash side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A GC invocation started (the statistics count it).
    Started,
    /// Move a victim's live page: its read (or copyback) on `plane`.
    Move {
        page: LivePage,
        plane: u32,
    },
    /// Start GC on `plane` now ([`Ftl::collect`]); with `if_idle`, only if it is not
    /// collecting by then.
    Collect {
        plane: u32,
        if_idle: bool,
    },
    /// A move's read found its page live: transaction `tx` becomes its program, on `plane`
    /// if given (the move leaves its plane), else on its own.
    Program {
        tx: u32,
        plane: Option<u32>,
    },
    /// Moves to program together, move i on plane `first_plane + i`, the planes after them
    /// up to the die's last given dummy pages, all reaching the chips together; with
    /// `buffer_first`, first offer them to the write buffer instead (it may refuse).
    ProgramGroup {
        txs: Vec<u32>,
        first_plane: u32,
        buffer_first: bool,
    },
    /// `count` dummy GC pages on `plane` (ParaGC aligning its GC write points).
    Pads {
        plane: u32,
        count: u32,
    },
    /// Steps up to [`Step::GroupEnd`] reach the chips together (one multi-plane command).
    GroupStart,
    GroupEnd,
    /// Erase `plane`'s victim `victim`.
    Erase {
        plane: u32,
        victim: u32,
    },
    /// A move off `plane` is done ([`Ftl::move_finished`]).
    MoveDone {
        plane: u32,
    },
    /// The map cache has translation-page I/O to issue.
    MapIo,
    /// An idle-time migration's read of `page`, on `plane`.
    MigrateRead {
        page: LivePage,
        plane: u32,
    },
    /// Transaction `tx` is done with: free its record.
    Free {
        tx: u32,
    },
}
