//! PACP's GC-aware migration at idle time (§3.3; docs/techniques.md §10.5 item 2): once the host
//! has had nothing outstanding for `ftl.partition.idle_us`, the read-predicted valid pages of
//! the Write-channel block with the most invalid pages move, one at a time, to Read
//! channels, at most `ftl.partition.idle_pages` per idle period; a host arrival stops it
//! after the page in flight. The FTL chooses the pages and their planes; this file routes
//! their transactions.

use super::Simulation;
use crate::engine::Event;
use crate::ftl::LivePage;
use crate::nand::FlashOp;
use crate::tsu::{NewTx, TxKind};

/// An idle period's migration: the host activity it belongs to and the pages left.
#[derive(Debug, Default)]
pub(super) struct IdleMigration {
    /// Bumped by every host request the device takes: a check scheduled before it is stale.
    pub epoch: u32,
    pages: Vec<LivePage>,
    /// A page's read or program is in flight.
    in_flight: bool,
}

impl Simulation {
    /// The last outstanding host request completed: look again after the idle time.
    pub(super) fn host_went_idle(&mut self) {
        if let Some((idle_ps, _)) = self.ftl.idle_migration() {
            self.q.after(idle_ps, Event::Idle { epoch: self.idle.epoch });
        }
    }

    /// The idle time since the host's last request passed: if nothing came since, start
    /// this period's migration.
    pub(super) fn idle_due(&mut self, epoch: u32) {
        if epoch != self.idle.epoch || self.ios.live() > 0 || self.idle.in_flight {
            return;
        }
        let (_, max) = self.ftl.idle_migration().expect("idle migration is on");
        let mut pages = std::mem::take(&mut self.idle.pages);
        self.ftl.idle_migration_pages(max, &mut pages);
        pages.reverse();
        self.idle.pages = pages;
        self.migrate_next();
    }

    /// Read the next page to move, if the host is still idle.
    fn migrate_next(&mut self) {
        self.idle.in_flight = false;
        if self.ios.live() > 0 {
            self.idle.pages.clear();
            return;
        }
        let Some(page) = self.idle.pages.pop() else { return };
        let plane = self.geo.plane_of(page.ppn);
        let spec = NewTx {
            src_ppn: page.ppn,
            ..NewTx::new(TxKind::Migration, FlashOp::Read, plane, page.lpn, self.full_mask())
        };
        let tx = self.tsu.create(spec, self.q.now());
        self.idle.in_flight = true;
        self.enqueue(tx);
    }

    /// A migration's read finished: program the page on a Read channel, unless the host
    /// rewrote it meanwhile or no Read-channel plane has room (then on to the next page).
    pub(super) fn migration_read_done(&mut self, tx: u32) {
        let (lpn, src) = (self.tsu.tx(tx).lpn, self.tsu.tx(tx).src_ppn);
        match self.ftl.idle_migration_plane(lpn, src, self.tsu.chip_load()) {
            Some(plane) => {
                self.tsu.retarget(tx, plane);
                self.tsu.turn_into_program(tx, self.q.now());
                self.enqueue(tx);
            }
            None => {
                self.tsu.free(tx);
                self.migrate_next();
            }
        }
    }

    /// A migration's program started on `ppn`: the map points at it if the page is still
    /// the one read (a host write since wins), and requests committed to the old plane
    /// follow it.
    pub(super) fn launch_migration(&mut self, lpn: u32, src: u32, ppn: u32, plane: u32) {
        if self.ftl.mapped_page(lpn) != src {
            return;
        }
        self.ftl.commit_write(lpn, ppn, self.q.now());
        self.stats.migration_pages_programmed += 1;
        let from = self.geo.plane_of(src);
        if from != plane {
            self.stats.readdressed += self.committer.readdress(lpn, from, plane, &mut self.mrs);
        }
        if let Some(o) = &mut self.oracle {
            o.moved(src, ppn);
        }
    }

    /// A migration's program finished: the next page.
    pub(super) fn migration_done(&mut self) {
        debug_assert!(self.idle.in_flight);
        self.migrate_next();
    }
}
