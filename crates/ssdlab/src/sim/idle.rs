//! The idle timer of idle-time migration (`ftl/migration_job.rs`): once the host has had
//! nothing outstanding for the FTL's idle time, the FTL's migration job starts; a host
//! arrival bumps the epoch so a timer set before it is stale. The job's steps are applied
//! like every job's (`apply_steps`).

use super::Simulation;
use crate::check::DataEvent;
use crate::engine::Event;
use crate::stats::Seen;

/// The idle timer: bumped by every host request the device takes, so a check scheduled
/// before it is stale.
#[derive(Debug, Default)]
pub(super) struct IdleTimer {
    pub epoch: u32,
}

impl Simulation {
    /// The last outstanding host request completed: look again after the idle time.
    pub(super) fn host_went_idle(&mut self) {
        if let Some((idle_ps, _)) = self.ftl.idle_migration() {
            self.q.after(idle_ps, Event::Idle { epoch: self.idle.epoch });
        }
    }

    /// The idle time since the host's last request passed: if nothing came since, the
    /// FTL's migration starts.
    pub(super) fn idle_due(&mut self, epoch: u32) {
        if epoch != self.idle.epoch || self.ios.live() > 0 {
            return;
        }
        let mut steps = self.take_steps();
        self.ftl.start_idle_migration(&mut steps);
        self.apply_steps(steps);
    }

    /// A migration's read finished.
    pub(super) fn migration_read_done(&mut self, tx: u32) {
        let read = (tx, self.tsu.tx(tx).lpn, self.tsu.tx(tx).src_ppn);
        let mut steps = self.take_steps();
        self.ftl.migration_read_done(read, self.tsu.chip_load(), self.ios.live() > 0, &mut steps);
        self.apply_steps(steps);
    }

    /// A migration's program started on `ppn`: the map points at it if the page is still
    /// the one read (a host write since wins), and requests committed to the old plane
    /// follow it.
    pub(super) fn launch_migration(&mut self, lpn: u32, src: u32, ppn: u32, plane: u32) {
        if self.ftl.mapped_page(lpn) != src {
            return;
        }
        self.ftl.commit_write(lpn, ppn, self.q.now());
        self.stats.saw(Seen::MigrationPageProgrammed);
        let from = self.geo.plane_of(src);
        if from != plane {
            let n = self.committer.readdress(lpn, from, plane, &mut self.mrs);
            self.stats.saw(Seen::Readdressed(n));
        }
        if let Some(o) = &mut self.oracle {
            o.saw(DataEvent::Moved { src, dst: ppn });
        }
    }

    /// A migration's program finished: the next page.
    pub(super) fn migration_done(&mut self) {
        let mut steps = self.take_steps();
        self.ftl.migration_done(self.ios.live() > 0, &mut steps);
        self.apply_steps(steps);
    }
}
