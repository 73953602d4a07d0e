//! The host interface at work: the hosts' submission queues, the arbiter that picks which
//! one the device fetches from, and the two directions of the link.

use std::collections::VecDeque;

use crate::engine::Ps;
use crate::hif::config::{HifConfig, ReadData};
use crate::hif::{Arbiter, Link};
use crate::validate::ns_to_ps;

/// A command waiting in a submission queue.
#[derive(Debug, Clone, Copy)]
struct Queued {
    io: u32,
    /// Submission order over all queues (SATA serves it; NVMe arbitrates by flow).
    seq: u64,
    /// When the device learns of it: submission, or with NVMe messages the arrival of the
    /// host's doorbell write.
    visible_ps: Ps,
}

/// NVMe's protocol messages (`hif.nvme`, when `messages` is on), in bytes of payload.
#[derive(Debug, Clone, Copy)]
struct Messages {
    doorbell: u64,
    read_request: u64,
    sqe: u64,
    cqe: u64,
    interrupt: u64,
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
    /// Link time spent per direction: to the device, to the host.
    pub link_busy_ps: [u64; 2],
    command_latency_ps: Ps,
    messages: Option<Messages>,
    /// `hif.read_data = "whole_request"`.
    whole_request_reads: bool,
}

impl HostInterface {
    /// Bytes of the flows' submission queues, each holding up to its flow's queue depth
    /// (room doubling as a queue grows), with its head and priority.
    pub fn estimate_bytes(queue_depths: impl Iterator<Item = u32>) -> u64 {
        let queue = |qd: u32| (qd as u64).next_power_of_two() * std::mem::size_of::<Queued>() as u64;
        let per_flow = (std::mem::size_of::<VecDeque<Queued>>() + std::mem::size_of::<Option<u64>>() + 1) as u64;
        queue_depths.map(|qd| per_flow + queue(qd)).sum()
    }

    /// `priorities[f]`: flow f's NVMe priority class (0 urgent .. 3 low).
    pub fn new(hif: &HifConfig, sector_bytes: u32, priorities: Vec<u8>) -> HostInterface {
        let flows = priorities.len();
        HostInterface {
            queues: (0..flows).map(|_| VecDeque::new()).collect(),
            waiting: 0,
            arbiter: Arbiter::from_config(hif),
            heads: vec![None; flows],
            priorities,
            link: Link::from_config(hif, sector_bytes),
            to_device_free_ps: 0,
            to_host_free_ps: 0,
            link_busy_ps: [0; 2],
            command_latency_ps: ns_to_ps(hif.command_latency_ns),
            messages: hif.nvme.messages.then(|| {
                let m = &hif.nvme;
                Messages {
                    doorbell: m.doorbell_bytes as u64,
                    read_request: m.read_request_bytes as u64,
                    sqe: m.sqe_bytes as u64,
                    cqe: m.cqe_bytes as u64,
                    interrupt: m.interrupt_bytes as u64,
                }
            }),
            whole_request_reads: hif.read_data == ReadData::WholeRequest,
        }
    }

    /// Whether a read's data goes to the host in one transfer after its last page.
    #[inline]
    pub fn whole_request_reads(&self) -> bool {
        self.whole_request_reads
    }

    /// Commands in submission queues, not yet fetched.
    #[inline]
    pub fn waiting(&self) -> u32 {
        self.waiting
    }

    /// A host puts request `io` (submitted `seq`-th) in flow `flow`'s submission queue at
    /// `now`; with NVMe messages it rings the queue's doorbell.
    #[inline(always)]
    pub fn submit(&mut self, flow: usize, io: u32, seq: u64, now: Ps) {
        let visible_ps = match self.messages {
            Some(m) => self.send_to_device(now, m.doorbell),
            None => now,
        };
        self.queues[flow].push_back(Queued { io, seq, visible_ps });
        self.waiting += 1;
    }

    /// The command the device fetches next at `now`, by the arbitration rule, and when the
    /// device holds it: after `hif.command_latency_ns`, and with NVMe messages after its
    /// read request went to the host (once the doorbell arrived) and the host's submission
    /// queue entry came back.
    #[inline(always)]
    pub fn fetch(&mut self, now: Ps) -> Option<(u32, Ps)> {
        let c = self.pick()?;
        let at = match self.messages {
            None => now,
            Some(m) => {
                let asked = self.send_to_host(now.max(c.visible_ps), m.read_request);
                self.send_to_device(asked, m.sqe)
            }
        };
        Some((c.io, at + self.command_latency_ps))
    }

    /// A request's last memory request is done at `now`: when the host learns it is
    /// complete. With whole-request reads its `read_sectors` of data cross the link first;
    /// with NVMe messages the completion entry and the interrupt follow. Without either,
    /// `now`.
    pub fn respond(&mut self, now: Ps, read_sectors: u64) -> Ps {
        let mut t = now;
        if self.whole_request_reads && read_sectors > 0 {
            t = self.to_host(t, read_sectors);
        }
        if let Some(m) = self.messages {
            t = self.send_to_host(t, m.cqe);
            if m.interrupt > 0 {
                t = self.send_to_host(t, m.interrupt);
            }
        }
        t
    }

    /// The command the arbitration rule picks, taken out of its queue.
    #[inline(always)]
    fn pick(&mut self) -> Option<Queued> {
        if self.waiting == 0 {
            return None;
        }
        for (h, q) in self.heads.iter_mut().zip(&self.queues) {
            *h = q.front().map(|c| c.seq);
        }
        let f = self.arbiter.pick(&self.heads, &self.priorities)?;
        let c = self.queues[f].pop_front().expect("arbiter picked a non-empty queue");
        self.waiting -= 1;
        Some(c)
    }

    /// Move `sectors` of write data to the device, after what is already on its way: when
    /// the data has arrived. With NVMe messages the device asks for it first (a read
    /// request to the host).
    #[inline]
    pub fn to_device(&mut self, now: Ps, sectors: u64) -> Ps {
        let start = match self.messages {
            Some(m) => self.send_to_host(now, m.read_request),
            None => now,
        };
        let took = self.link.transfer_sectors_ps(sectors);
        let end = start.max(self.to_device_free_ps) + took;
        self.to_device_free_ps = end;
        self.link_busy_ps[0] += took;
        end
    }

    /// A message of `bytes` to the device from `at` on, after what is on its way.
    fn send_to_device(&mut self, at: Ps, bytes: u64) -> Ps {
        let took = self.link.transfer_ps(bytes);
        let end = at.max(self.to_device_free_ps) + took;
        self.to_device_free_ps = end;
        self.link_busy_ps[0] += took;
        end
    }

    /// A message of `bytes` to the host from `at` on, after what is on its way.
    fn send_to_host(&mut self, at: Ps, bytes: u64) -> Ps {
        let took = self.link.transfer_ps(bytes);
        let end = at.max(self.to_host_free_ps) + took;
        self.to_host_free_ps = end;
        self.link_busy_ps[1] += took;
        end
    }

    /// Move `sectors` of read data to the host: when they have arrived.
    #[inline]
    pub fn to_host(&mut self, now: Ps, sectors: u64) -> Ps {
        let took = self.link.transfer_sectors_ps(sectors);
        let end = now.max(self.to_host_free_ps) + took;
        self.to_host_free_ps = end;
        self.link_busy_ps[1] += took;
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The config sections these tests set (the whole `Config` is composed above this layer).
    #[derive(Default)]
    struct Sections {
        pub hif: crate::hif::config::HifConfig,
        pub nand: crate::nand::config::NandConfig,
    }

    /// 4 lanes × 1 GB/s, 128-byte packets with 28 bytes of framing: 250 ps per wire byte.
    fn with_messages() -> HostInterface {
        let mut c = Sections::default();
        c.hif.pcie.tlp_payload_bytes = 128;
        c.hif.pcie.tlp_overhead_bytes = 28;
        c.hif.nvme.messages = true;
        c.hif.read_data = ReadData::WholeRequest;
        HostInterface::new(&c.hif, c.nand.sector_bytes, vec![1, 1])
    }

    #[test]
    fn fetch_waits_for_the_doorbell_then_asks_for_the_entry() {
        let mut h = with_messages();
        // Doorbell: 4 + 28 wire bytes = 8 ns. Read request: 4 + 28 = 8 ns. SQE: 64 + 28 = 23 ns.
        h.submit(0, 7, 1, 1_000_000);
        assert_eq!(h.fetch(1_000_000), Some((7, 1_000_000 + 8_000 + 8_000 + 23_000)));
        // Two commands of two flows submitted together: doorbells at 0 → 8 and 8 → 16 ns on
        // the host-to-device direction. The first read request goes 8 → 16 ns, and its entry
        // follows the second doorbell, 16 → 39 ns.
        let mut h = with_messages();
        h.submit(0, 1, 1, 0);
        h.submit(1, 2, 2, 0);
        assert_eq!(h.fetch(0), Some((1, 39_000)));
        // The second read request goes 16 → 24 ns; its entry waits for the first: 39 → 62 ns.
        assert_eq!(h.fetch(0), Some((2, 62_000)));
    }

    #[test]
    fn a_whole_read_is_followed_by_its_completion_entry_and_interrupt() {
        let mut h = with_messages();
        // 8 sectors = 4096 B in 32 packets: 4992 wire bytes = 1248 ns; CQE 16 + 28 = 11 ns;
        // interrupt 4 + 28 = 8 ns.
        assert_eq!(h.respond(0, 8), 1_248_000 + 11_000 + 8_000);
        // A write: no data to the host.
        let mut h = with_messages();
        assert_eq!(h.respond(5_000, 0), 5_000 + 11_000 + 8_000);
    }
}
