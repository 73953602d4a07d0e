//! The timeline of a run: bus and cell activity of every chip, written as Chrome trace-event
//! JSON for Perfetto or chrome://tracing. The NAND PHY records into it while it runs; the
//! report only writes it out.

use crate::engine::Ps;
use crate::nand::FlashOp;

/// Whose work a flash operation is: the host's, GC's (moves and erases), the map cache's
/// (translation pages), an idle-time migration's, or a dummy page keeping write points equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    User,
    Gc,
    Map,
    Migration,
    Pad,
}

impl Work {
    pub fn name(self) -> &'static str {
        match self {
            Work::User => "user",
            Work::Gc => "gc",
            Work::Map => "map",
            Work::Migration => "migration",
            Work::Pad => "pad",
        }
    }
}

/// Bus and cell activity for Perfetto / chrome://tracing: one process per chip, thread 0 its
/// bus activity, thread 1 + d die d's array operations.
pub struct Timeline {
    start_ps: Ps,
    end_ps: Ps,
    events: Vec<Activity>,
    chips_seen: Vec<(u32, u32)>,
    pub dropped: u64,
}

/// One span of activity: a chip's share of its channel bus (thread 0) or a die's array
/// operation (thread 1 + die).
#[derive(Debug, Clone, Copy)]
struct Activity {
    chip: u32,
    thread: u32,
    start: Ps,
    end: Ps,
    op: FlashOp,
    bus: bool,
    work: Work,
}

/// At most this many timeline events are kept; later ones are counted in `dropped`.
pub const TIMELINE_LIMIT: usize = 2_000_000;

impl Timeline {
    /// Bytes of a full timeline: [`TIMELINE_LIMIT`] events (room doubling as it grows), and
    /// its JSON text when written (at most about 140 bytes an event: `{"name":"copyback
    /// bus","cat":"cell","ph":"X","pid":65535,"tid":17,"ts":1000000000.000000,"dur":
    /// 10000.000000,"args":{"work":"migration"}},` and a newline is 138; room doubling).
    pub fn estimate_bytes() -> u64 {
        let events = TIMELINE_LIMIT.next_power_of_two() as u64;
        events * std::mem::size_of::<Activity>() as u64 + (TIMELINE_LIMIT as u64 * 140).next_power_of_two()
    }

    pub fn new(start_ps: Ps, end_ps: Ps) -> Timeline {
        Timeline { start_ps, end_ps, events: Vec::new(), chips_seen: Vec::new(), dropped: 0 }
    }

    fn push(&mut self, chip: u32, thread: u32, span: (Ps, Ps), op: FlashOp, bus: bool, work: Work) {
        let (start, end) = span;
        if end <= self.start_ps || start >= self.end_ps || end == start {
            return;
        }
        if self.events.len() >= TIMELINE_LIMIT {
            self.dropped += 1;
            return;
        }
        self.events.push(Activity { chip, thread, start, end, op, bus, work });
    }

    #[cold]
    pub fn bus(&mut self, channel: u32, chip: u32, start: Ps, end: Ps, op: FlashOp, work: Work) {
        if !self.chips_seen.iter().any(|&(c, _)| c == chip) {
            self.chips_seen.push((chip, channel));
        }
        self.push(chip, 0, (start, end), op, true, work);
    }

    #[cold]
    pub fn cell(&mut self, chip: u32, die: u32, start: Ps, end: Ps, op: FlashOp, work: Work) {
        self.push(chip, 1 + die, (start, end), op, false, work);
    }

    /// Chrome trace-event JSON (times in microseconds).
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !first {
                out.push_str(",\n");
            }
            first = false;
        };
        let mut chips = self.chips_seen.clone();
        chips.sort_unstable();
        for (chip, channel) in chips {
            sep(&mut out);
            out += &format!("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{chip},\"args\":{{\"name\":\"chip {chip} (channel {channel})\"}}}}");
        }
        for &Activity { chip, thread, start, end, op, bus, work } in &self.events {
            sep(&mut out);
            let name = match (op, bus) {
                (FlashOp::Read, true) => "read bus",
                (FlashOp::Program, true) => "program bus",
                (FlashOp::Erase, true) => "erase bus",
                (FlashOp::Copyback, true) => "copyback bus",
                (FlashOp::Read, false) => "tR",
                (FlashOp::Program, false) => "tPROG",
                (FlashOp::Erase, false) => "tBERS",
                (FlashOp::Copyback, false) => "copyback",
            };
            out += &format!(
                "{{\"name\":\"{name}\",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":{chip},\"tid\":{thread},\"ts\":{:.6},\"dur\":{:.6},\"args\":{{\"work\":\"{}\"}}}}",
                if bus { "bus" } else { "cell" },
                start as f64 / 1e6,
                (end - start) as f64 / 1e6,
                work.name()
            );
        }
        out.push_str("\n]}\n");
        out
    }
}
