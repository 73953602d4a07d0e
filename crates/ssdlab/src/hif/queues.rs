//! The host interface at work: the hosts' submission queues, the arbiter that picks which
//! one the device fetches from, and the two directions of the link.

use std::collections::VecDeque;

use crate::config::{ns_to_ps, Config};
use crate::engine::Ps;
use crate::hif::{Arbiter, Link};

/// A command waiting in a submission queue.
#[derive(Debug, Clone, Copy)]
struct Queued {
    io: u32,
    /// Submission order over all queues (SATA serves it; NVMe arbitrates by flow).
    seq: u64,
}

pub struct HostInterface {
    /// One submission queue per flow.
    queues: Vec<VecDeque<Queued>>,
    waiting: u32,
    arbiter: Arbiter,
    heads: Vec<Option<u64>>,
    priorities: Vec<u8>,
    link: Link,
    to_device_free_ps: Ps,
    to_host_free_ps: Ps,
    command_latency_ps: Ps,
}

impl HostInterface {
    /// `priorities[f]`: flow f's NVMe priority class (0 urgent .. 3 low).
    pub fn new(cfg: &Config, priorities: Vec<u8>) -> HostInterface {
        let flows = priorities.len();
        HostInterface {
            queues: (0..flows).map(|_| VecDeque::new()).collect(),
            waiting: 0,
            arbiter: Arbiter::from_config(cfg),
            heads: vec![None; flows],
            priorities,
            link: Link::from_config(cfg),
            to_device_free_ps: 0,
            to_host_free_ps: 0,
            command_latency_ps: ns_to_ps(cfg.hif.command_latency_ns),
        }
    }

    /// Commands in submission queues, not yet fetched.
    #[inline]
    pub fn waiting(&self) -> u32 {
        self.waiting
    }

    /// Time from a command's fetch to the device seeing it.
    #[inline]
    pub fn command_latency_ps(&self) -> Ps {
        self.command_latency_ps
    }

    /// A host puts request `io` (submitted `seq`-th) in flow `flow`'s submission queue.
    #[inline(always)]
    pub fn submit(&mut self, flow: usize, io: u32, seq: u64) {
        self.queues[flow].push_back(Queued { io, seq });
        self.waiting += 1;
    }

    /// The command the device fetches next, by the arbitration rule.
    #[inline(always)]
    pub fn fetch(&mut self) -> Option<u32> {
        if self.waiting == 0 {
            return None;
        }
        for (h, q) in self.heads.iter_mut().zip(&self.queues) {
            *h = q.front().map(|c| c.seq);
        }
        let f = self.arbiter.pick(&self.heads, &self.priorities)?;
        let c = self.queues[f].pop_front().expect("arbiter picked a non-empty queue");
        self.waiting -= 1;
        Some(c.io)
    }

    /// Move `sectors` of write data to the device, after what is already on its way: when
    /// the data has arrived.
    #[inline]
    pub fn to_device(&mut self, now: Ps, sectors: u64) -> Ps {
        let end = now.max(self.to_device_free_ps) + self.link.transfer_sectors_ps(sectors);
        self.to_device_free_ps = end;
        end
    }

    /// Move `sectors` of read data to the host: when they have arrived.
    #[inline]
    pub fn to_host(&mut self, now: Ps, sectors: u64) -> Ps {
        let end = now.max(self.to_host_free_ps) + self.link.transfer_sectors_ps(sectors);
        self.to_host_free_ps = end;
        end
    }
}
