//! Firmware time: the controller's cores run the FTL's work for each memory request
//! (`ftl.firmware`: `cores`, `op_cost_ns` per request). A request committed to the flash side
//! waits for the core that frees first (lowest index on ties), then takes `op_cost_ns` of it.
//! A cost of 0 (the default) spends no time and schedules nothing.

use crate::config::{ns_to_ps, Config};
use crate::engine::Ps;

pub struct Firmware {
    /// Per core: when it is free.
    free_ps: Vec<Ps>,
    cost_ps: Ps,
}

impl Firmware {
    pub fn new(config: &Config) -> Firmware {
        let f = &config.ftl.firmware;
        Firmware { free_ps: vec![0; f.cores as usize], cost_ps: ns_to_ps(f.op_cost_ns) }
    }

    /// A memory request arrives at `now`: when the firmware is done with it, or None if
    /// firmware time is not modelled (it is done at once).
    #[inline]
    pub fn request_done_at(&mut self, now: Ps) -> Option<Ps> {
        if self.cost_ps == 0 {
            return None;
        }
        let (core, &free) = self.free_ps.iter().enumerate().min_by_key(|&(i, &t)| (t, i)).expect("at least one core");
        let end = now.max(free) + self.cost_ps;
        self.free_ps[core] = end;
        Some(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two cores of 1 µs: requests at 0, 0, 0 and 2.5 µs finish at 1, 1, 2 and 3.5 µs (the
    /// third waits for core 0, the fourth finds core 1 free since 1 µs).
    #[test]
    fn requests_queue_for_the_core_that_frees_first() {
        let mut c = Config::default();
        c.ftl.firmware.cores = 2;
        c.ftl.firmware.op_cost_ns = 1000.0;
        let mut f = Firmware::new(&c);
        let us = 1_000_000;
        let ends: Vec<Option<Ps>> = [0, 0, 0, 2 * us + us / 2].iter().map(|&t| f.request_done_at(t)).collect();
        assert_eq!(ends, vec![Some(us), Some(us), Some(2 * us), Some(3 * us + us / 2)]);
        c.ftl.firmware.op_cost_ns = 0.0;
        assert_eq!(Firmware::new(&c).request_done_at(5), None);
    }
}
