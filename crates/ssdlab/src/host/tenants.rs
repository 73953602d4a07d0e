//! The flows at run time: how many requests each has outstanding and when its next one
//! comes.

use crate::engine::Ps;
use crate::host::{Flow, IoRequest};

pub struct Tenants {
    flows: Vec<Flow>,
    outstanding: Vec<u32>,
    /// Whether the flow's next (future) arrival has an event scheduled.
    arrival_scheduled: Vec<bool>,
}

/// What a flow does next.
#[derive(Debug, Clone, Copy)]
pub enum Next {
    /// Submit this request now.
    Submit(IoRequest),
    /// Its next request arrives at this time: schedule the arrival.
    ArriveAt(Ps),
    /// Nothing now (its queue is full, its arrival is scheduled, or it has finished).
    Wait,
}

impl Tenants {
    /// Bytes `flows` hold as tenants: per flow its record, name and size table and its
    /// counters; the requests trace flows hold are [`Tenants::request_bytes`].
    pub fn flow_bytes(flows: &[Flow]) -> u64 {
        let per_flow = (std::mem::size_of::<Flow>() + 4 + 1) as u64;
        flows.iter().map(|f| per_flow + f.name.capacity() as u64 + f.source.table_bytes()).sum()
    }

    /// Bytes of the requests trace flows hold in memory.
    pub fn request_bytes(flows: &[Flow]) -> u64 {
        flows.iter().map(|f| f.source.request_bytes()).sum()
    }

    pub fn new(flows: Vec<Flow>) -> Tenants {
        let n = flows.len();
        Tenants { flows, outstanding: vec![0; n], arrival_scheduled: vec![false; n] }
    }

    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    pub fn names(&self) -> Vec<String> {
        self.flows.iter().map(|f| f.name.clone()).collect()
    }

    pub fn priorities(&self) -> Vec<u8> {
        self.flows.iter().map(|f| f.priority).collect()
    }

    /// Flow `f`'s next step at `now`: submit while its queue depth allows and a request has
    /// arrived.
    #[inline(always)]
    pub fn next(&mut self, f: usize, now: Ps) -> Next {
        if self.outstanding[f] >= self.flows[f].queue_depth {
            return Next::Wait;
        }
        let Some(at) = self.flows[f].peek_arrival(now) else { return Next::Wait };
        if at > now {
            if self.arrival_scheduled[f] {
                return Next::Wait;
            }
            self.arrival_scheduled[f] = true;
            return Next::ArriveAt(at);
        }
        self.outstanding[f] += 1;
        Next::Submit(self.flows[f].take(now).expect("peeked"))
    }

    /// Requests flow `f` has issued.
    pub fn issued(&self, f: usize) -> u64 {
        self.flows[f].issued
    }

    /// Flow `f`'s scheduled arrival happened.
    pub fn arrived(&mut self, f: usize) {
        self.arrival_scheduled[f] = false;
    }

    /// A request of flow `f` completed.
    pub fn completed(&mut self, f: usize) {
        self.outstanding[f] -= 1;
    }

    /// Whether no flow will issue another request.
    pub fn all_done(&self, now: Ps) -> bool {
        self.flows.iter().all(|f| f.peek_arrival(now).is_none() && !f.is_open_live())
    }

    /// Hand live flow `f` a request (`Flow::push_live`).
    pub fn push_live(&mut self, f: usize, req: IoRequest) {
        self.flows[f].push_live(req);
    }

    /// No more requests for any live flow.
    pub fn close_live(&mut self) {
        self.flows.iter_mut().for_each(Flow::close_live);
    }

    /// Which flows are live (`type = "live"`).
    pub fn live(&self) -> Vec<bool> {
        self.flows.iter().map(|f| matches!(f.source, crate::host::Source::Live { .. })).collect()
    }
}
