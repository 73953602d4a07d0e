//! What a flow's input is worth a warning about: a run that goes ahead, but whose result the
//! reader should weigh. Each warning names the flow and ends up in the report's `warnings`
//! (and on stderr for `ssdlab run`): requests `address_mode` moved, arrival times that many
//! requests share, and arrivals faster than the drive could ever serve, the mark of a trace
//! read in the wrong time unit.

use ssdlab_trace::{Arrivals, Record};

use super::{AddressMode, Flow, Source};

/// A trace flow's warnings and the unit its times were read in (for [`arrival_rate_warning`]).
pub(crate) struct TraceNotes {
    pub warnings: Vec<String>,
    pub time_unit: &'static str,
}

/// `address_mode` moved `moved` of `requests` requests (wrap or scale), on a drive of
/// `drive_bytes` logical bytes; None when it moved none.
pub(crate) fn moved_warning(
    name: &str,
    mode: AddressMode,
    moved: u64,
    requests: usize,
    drive_bytes: u64,
) -> Option<String> {
    let pct = 100.0 * moved as f64 / requests.max(1) as f64;
    let how = match mode {
        AddressMode::Reject => return None,
        _ if moved == 0 => return None,
        AddressMode::Wrap => format!(
            "those ending past the drive's {drive_bytes} logical bytes, each to its first sector modulo the room left"
        ),
        AddressMode::Scale => {
            format!("rescaling the trace's address space onto the drive's {drive_bytes} logical bytes")
        }
    };
    let mode = if mode == AddressMode::Wrap { "wrap" } else { "scale" };
    Some(format!(
        "flow `{name}`: address_mode = \"{mode}\" moved {moved} of its {requests} requests ({pct:.1}%), {how}"
    ))
}

/// Timestamps replay of a trace where at least half the requests share their arrival time
/// with another: each such group arrives at once, a burst that may come from the trace's
/// coarse times (`unit`) rather than from its load.
pub(crate) fn shared_time_warning(name: &str, records: &[Record], unit: &str) -> Option<String> {
    let n = records.len();
    let a = Arrivals::of(records.iter().map(|r| r.arrival_ps));
    if n < 2 || a.shared_share < 0.5 {
        return None;
    }
    if a.distinct == 1 {
        return Some(format!(
            "flow `{name}`: all {n} requests arrive at the same time, so timestamps replay issues them at once; replay = \"closed_loop\" (--replay closed_loop) ignores the times"
        ));
    }
    Some(format!(
        "flow `{name}`: {:.1}% of its {n} requests share their arrival time with another ({} distinct times, read in {unit}): timestamps replay issues each such group at once, a burst that may come from the trace's coarse times rather than from its load",
        100.0 * a.shared_share,
        a.distinct
    ))
}

/// The drive's ceiling on arrivals, for [`arrival_rate_warning`]: every plane reading one
/// page back to back at its fastest read time.
pub struct PeakRate {
    pub planes: u64,
    pub t_read_us: f64,
}

impl PeakRate {
    pub fn per_s(&self) -> f64 {
        self.planes as f64 * 1e6 / self.t_read_us
    }
}

/// A trace flow replayed at its timestamps whose mean arrival rate, (n − 1) / span, is above
/// what the drive could serve even if every request were a one-page read on its own idle
/// plane: the requests can only queue, and latencies then measure the backlog. Most often
/// the trace's times are in another unit than its format says (µs read as ns); `speedup`
/// is the flow's.
pub fn arrival_rate_warning(flow: &Flow, speedup: f64, peak: &PeakRate) -> Option<String> {
    let Source::Trace { requests, timestamps: true, .. } = &flow.source else { return None };
    let first = requests.iter().map(|r| r.arrival_ps).min()?;
    let span_ps = requests.iter().map(|r| r.arrival_ps).max()? - first;
    if span_ps == 0 {
        return None; // all at once: shared_time_warning says so
    }
    let rate = (requests.len() - 1) as f64 / (span_ps as f64 / 1e12);
    if rate <= peak.per_s() {
        return None;
    }
    let sped = if speedup == 1.0 { String::new() } else { format!(" at speedup = {speedup}") };
    Some(format!(
        "flow `{}`: its {} requests arrive within {} (a mean of {rate:.3e} requests/s{sped}), faster than the drive could serve even if each were a one-page read on an idle plane ({:.3e}/s: {} planes, tR {} us): they can only queue, and the latencies measure that backlog. The trace's times were read in {}; if they count another unit, read it with the --format or --columns time=N:UNIT that says so (`ssdlab trace info` shows its span and arrivals)",
        flow.name,
        requests.len(),
        human_time(span_ps),
        peak.per_s(),
        peak.planes,
        peak.t_read_us,
        flow.time_unit
    ))
}

/// `ps` in the largest unit that keeps it at least 1: "7.200 ms", "12.5 s".
fn human_time(ps: u64) -> String {
    let units = [(1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns")];
    let (scale, unit) = units.into_iter().find(|&(scale, _)| ps as f64 >= scale).unwrap_or((1.0, "ps"));
    format!("{:.3} {unit}", ps as f64 / scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{IoOp, IoRequest};

    fn trace_flow(arrivals_ns: &[u64]) -> Flow {
        let requests = arrivals_ns
            .iter()
            .map(|&t| IoRequest { arrival_ps: t * 1000, op: IoOp::Read, lba: 0, sectors: 8, fua: false })
            .collect();
        Flow {
            name: "t".into(),
            priority: 1,
            queue_depth: 8,
            source: Source::Trace { requests, next: 0, timestamps: true, looping: false, period_ps: 0, pass: 0 },
            limit: 0,
            end_ps: 0,
            issued: 0,
            warnings: Vec::new(),
            time_unit: "ns",
        }
    }

    /// 4 planes reading every 50 us serve at most 4 × 20,000 = 80,000 reads/s. Five requests
    /// 10 us apart arrive at 4 / 40 us = 100,000/s: above it. 20 us apart: 4 / 80 us =
    /// 50,000/s, below it.
    #[test]
    fn arrivals_faster_than_every_plane_reading_are_flagged() {
        let peak = PeakRate { planes: 4, t_read_us: 50.0 };
        assert_eq!(peak.per_s(), 80_000.0);
        let w = arrival_rate_warning(&trace_flow(&[0, 10_000, 20_000, 30_000, 40_000]), 1.0, &peak);
        let w = w.expect("100,000/s is above 80,000/s");
        assert!(
            w.starts_with("flow `t`: its 5 requests arrive within 40.000 us (a mean of 1.000e5 requests/s), faster than the drive could serve even if each were a one-page read on an idle plane (8.000e4/s: 4 planes, tR 50 us)"),
            "{w}"
        );
        assert!(w.contains("read in ns"), "{w}");
        assert!(arrival_rate_warning(&trace_flow(&[0, 20_000, 40_000, 60_000, 80_000]), 1.0, &peak).is_none());
    }

    /// 10 requests at times 0, 0, 0, 1, 1, 2, 3, 4, 5, 6: five share theirs (50%), 7 distinct.
    #[test]
    fn half_the_requests_sharing_their_time_is_flagged() {
        let rec =
            |t: u64| Record { arrival_ps: t, device: 0, op: ssdlab_trace::Op::Read, offset_bytes: 0, size_bytes: 512 };
        let records: Vec<Record> = [0, 0, 0, 1, 1, 2, 3, 4, 5, 6].into_iter().map(rec).collect();
        let w = shared_time_warning("t", &records, "s").expect("half share");
        assert!(w.starts_with("flow `t`: 50.0% of its 10 requests share their arrival time with another (7 distinct times, read in s)"), "{w}");
        assert!(shared_time_warning("t", &records[3..], "s").is_none(), "2 of 7 share");
        let all: Vec<Record> = [5, 5, 5].into_iter().map(rec).collect();
        assert!(shared_time_warning("t", &all, "s")
            .unwrap()
            .starts_with("flow `t`: all 3 requests arrive at the same time"));
    }

    #[test]
    fn wrap_and_scale_say_how_many_requests_they_moved() {
        let w = moved_warning("t", AddressMode::Wrap, 3, 12, 4096).unwrap();
        assert_eq!(w, "flow `t`: address_mode = \"wrap\" moved 3 of its 12 requests (25.0%), those ending past the drive's 4096 logical bytes, each to its first sector modulo the room left");
        assert!(moved_warning("t", AddressMode::Scale, 0, 12, 4096).is_none());
        assert!(moved_warning("t", AddressMode::Reject, 0, 12, 4096).is_none());
    }
}
