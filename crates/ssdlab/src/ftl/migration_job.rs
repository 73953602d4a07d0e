//! Idle-time migration as a flash job (PACP's, [`crate::ftl::alloc::pacp`]; docs/techniques.md
//! §10.5 item 2): once the host has been idle for `ftl.partition.idle_us`, the pages the
//! partition chooses ([`Ftl::idle_migration_pages`]) move one at a time, each read then
//! programmed on a plane it chooses, at most `ftl.partition.idle_pages` per idle period; a
//! host request stops the period after the page in flight. The loop keeps the idle timer
//! and applies the [`Step`]s.

use super::job::Step;
use super::{Ftl, LivePage};
use crate::nand::{Lpn, Ppn};

/// An idle period's migration: the pages left (last to move first) and whether one is in
/// flight.
#[derive(Debug, Default)]
pub struct MigrationJob {
    pages: Vec<LivePage>,
    in_flight: bool,
}

impl Ftl {
    /// The host has been idle for the idle time: unless a page is in flight, choose this
    /// period's pages and read the first.
    pub fn start_idle_migration(&mut self, steps: &mut Vec<Step>) {
        if self.migration.in_flight {
            return;
        }
        let (_, max) = self.idle_migration().expect("idle migration is on");
        let mut pages = std::mem::take(&mut self.migration.pages);
        self.idle_migration_pages(max, &mut pages);
        pages.reverse();
        self.migration.pages = pages;
        self.next_migration(false, steps);
    }

    /// The next page's read, unless the host is busy again (the period ends).
    fn next_migration(&mut self, host_busy: bool, steps: &mut Vec<Step>) {
        self.migration.in_flight = false;
        if host_busy {
            self.migration.pages.clear();
            return;
        }
        let Some(page) = self.migration.pages.pop() else { return };
        self.migration.in_flight = true;
        steps.push(Step::MigrateRead { page, plane: self.geo.plane_of(page.ppn) });
    }

    /// A migration's read of `lpn` off `src` (transaction `tx`) finished: its program on a
    /// plane the partition chooses, unless the host rewrote the page meanwhile or no plane
    /// has room (then on to the next page).
    pub fn migration_read_done(
        &mut self,
        read: (u32, Lpn, Ppn),
        chip_load: &[u32],
        host_busy: bool,
        steps: &mut Vec<Step>,
    ) {
        let (tx, lpn, src) = read;
        match self.idle_migration_plane(lpn, src, chip_load) {
            Some(plane) => steps.push(Step::Program { tx, plane: Some(plane) }),
            None => {
                steps.push(Step::Free { tx });
                self.next_migration(host_busy, steps);
            }
        }
    }

    /// A migration's program finished: the next page.
    pub fn migration_done(&mut self, host_busy: bool, steps: &mut Vec<Step>) {
        debug_assert!(self.migration.in_flight);
        self.next_migration(host_busy, steps);
    }

    /// The migration's program was dropped before it started: GC had moved its page. The
    /// page stays where GC put it; the job goes on with the next.
    pub fn migration_dropped(&mut self, host_busy: bool, steps: &mut Vec<Step>) {
        debug_assert!(self.migration.in_flight);
        if let Some(p) = self.partition.as_mut() {
            p.idle_migration_dropped();
        }
        self.next_migration(host_busy, steps);
    }
}
