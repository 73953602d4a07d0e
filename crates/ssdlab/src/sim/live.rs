//! A live simulation: flows of `type = "live"` are handed their requests from outside as they
//! arrive (`ssdlab serve`: a request read from an NBD connection), and the clock moves only
//! as far as the outside says. The routes are the run's; only who decides when time moves
//! differs. [`Simulation::step_until`] runs the events up to a time and hands back the
//! requests that completed, each named by its flow and its number in the flow (the order it
//! was handed in), so the caller can answer the client that sent it.

use std::collections::HashMap;
use std::time::Instant;

use super::Simulation;
use crate::engine::Ps;
use crate::error::Result;
use crate::host::IoRequest;

/// A request of a live simulation that completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveDone {
    pub flow: u32,
    /// The flow's requests issued before it: for a live flow, those handed in before it.
    pub ordinal: u64,
    /// When it completed (simulated).
    pub done_ps: Ps,
}

/// What a live simulation keeps beyond a run's state.
pub(super) struct Live {
    /// Completions not yet handed back.
    done: Vec<LiveDone>,
    /// By request (its submission number, `Io::seq`): its number in its flow. Kept here,
    /// not in every request, so that runs do not pay for it.
    ordinals: HashMap<u64, u64>,
    started: Instant,
}

impl Live {
    /// Request `seq` was issued as its flow's request number `ordinal`.
    pub(super) fn issued(&mut self, seq: u64, ordinal: u64) {
        self.ordinals.insert(seq, ordinal);
    }

    /// Request `seq` of `flow` completed at `done_ps`.
    pub(super) fn completed(&mut self, flow: u32, seq: u64, done_ps: Ps) {
        let ordinal = self.ordinals.remove(&seq).expect("an issued request completes once");
        self.done.push(LiveDone { flow, ordinal, done_ps });
    }
}

impl Simulation {
    /// Start the simulation for requests handed in from outside ([`Simulation::push_live`]):
    /// the other flows' first requests are issued, and completions are collected from now on.
    pub fn start_live(&mut self) {
        assert!(self.live.is_none(), "started twice");
        self.live = Some(Live { done: Vec::new(), ordinals: HashMap::new(), started: Instant::now() });
        self.start();
    }

    /// Which flows take their requests from outside (by flow index).
    pub fn live_flows(&self) -> Vec<bool> {
        self.tenants.live()
    }

    /// The flows' names, by index.
    pub fn flow_names(&self) -> Vec<String> {
        self.tenants.names()
    }

    /// The drive's logical capacity in bytes: what a client sees.
    pub fn logical_bytes(&self) -> u64 {
        self.ftl.logical_pages() as u64 * self.geo.page_bytes as u64
    }

    /// The simulated clock.
    pub fn now_ps(&self) -> Ps {
        self.q.now()
    }

    /// When the next event is due, if any: the time a caller keeping pace with the wall clock
    /// must next step to.
    pub fn next_event_ps(&self) -> Option<Ps> {
        self.q.next_time()
    }

    /// Requests in the drive or waiting to enter it.
    pub fn requests_in_flight(&self) -> u32 {
        self.ios.live()
    }

    /// Hand live flow `f` a request. It arrives at its `arrival_ps`, or now if that has
    /// passed; step to the arrival first ([`Simulation::step_until`]) so that nothing due
    /// before it is left behind.
    pub fn push_live(&mut self, f: usize, mut req: IoRequest) {
        assert!(self.live.is_some(), "push_live before start_live");
        req.arrival_ps = req.arrival_ps.max(self.q.now());
        self.tenants.push_live(f, req);
        self.refill_flow(f);
        self.end_of_event();
    }

    /// Run every event due at or before `until_ps`, move the clock there, and append the
    /// requests that completed to `done`.
    pub fn step_until(&mut self, until_ps: Ps, done: &mut Vec<LiveDone>) {
        while self.q.next_time().is_some_and(|t| t <= until_ps) {
            let ev = self.q.pop().expect("an event is due");
            let now = self.q.now();
            self.advance_stats(now);
            self.route(ev);
            self.end_of_event();
            if self.q.is_empty() && self.ios.live() > 0 {
                self.unstick();
            }
        }
        if until_ps > self.q.now() {
            self.advance_stats(until_ps);
            self.q.advance_to(until_ps);
        }
        done.append(&mut self.live.as_mut().expect("started").done);
    }

    /// No more requests from outside: the requests in flight complete, and the outcome is
    /// taken as a run's (the completions they make are not handed back).
    pub fn finish_live(mut self) -> Result<super::Outcome> {
        let started = self.live.take().expect("started").started;
        self.tenants.close_live();
        if self.ios.live() == 0 && self.all_flows_done() {
            self.finished = true;
        }
        if !self.finished {
            self.run_events(started);
        }
        self.conclude(started)
    }
}
