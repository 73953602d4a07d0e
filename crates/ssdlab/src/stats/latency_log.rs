//! The per-request latency log (like fio's `write_lat_log`): one CSV row per completed
//! request that the statistics count, written as the request completes, so its memory is
//! the writer's buffer whatever the run's length.
//!
//! Columns ([`LatencyLog::HEADER`]): the flow's name, the operation, the first sector (`lba`,
//! in `nand.sector_bytes` units, after `address_mode` moved it), the bytes moved, and arrival,
//! completion and latency in microseconds with six decimals: whole picoseconds, the engine's
//! unit, so the rows' latencies add up to the report's exact mean.

use std::io::Write;

use crate::engine::Ps;
use crate::host::{IoOp, IoRequest};

/// A stream of rows into a writer; the first write error stops it and is kept for the end of
/// the run ([`LatencyLog::finish`]).
pub struct LatencyLog {
    out: Box<dyn Write + Send>,
    /// What the log is called in messages (its file).
    name: String,
    /// Each flow's name, quoted for CSV where it needs to be.
    flows: Vec<String>,
    rows: u64,
    error: Option<std::io::Error>,
}

impl LatencyLog {
    pub const HEADER: &'static str = "flow,op,lba,bytes,arrival_us,completion_us,latency_us";

    /// A log of these flows into `out`, named `name` in messages; the header is written now.
    pub fn new(out: Box<dyn Write + Send>, name: &str, flow_names: &[String]) -> LatencyLog {
        let mut log = LatencyLog {
            out,
            name: name.to_string(),
            flows: flow_names.iter().map(|n| csv_field(n)).collect(),
            rows: 0,
            error: None,
        };
        let written = writeln!(log.out, "{}", Self::HEADER);
        log.keep(written);
        log
    }

    /// A request of `flow` completed at `completion_ps`, moving `bytes`.
    pub fn row(&mut self, flow: usize, req: &IoRequest, completion_ps: Ps, bytes: u64) {
        if self.error.is_some() {
            return;
        }
        let op = match req.op {
            IoOp::Read => "read",
            IoOp::Write => "write",
            IoOp::Trim => "trim",
        };
        let written = writeln!(
            self.out,
            "{},{op},{},{bytes},{},{},{}",
            self.flows[flow],
            req.lba,
            Micros(req.arrival_ps),
            Micros(completion_ps),
            Micros(completion_ps - req.arrival_ps)
        );
        self.rows += 1;
        self.keep(written);
    }

    fn keep(&mut self, written: std::io::Result<()>) {
        if let Err(e) = written {
            self.error = Some(e);
        }
    }

    /// Flushes the writer: the rows written, or the first write error with the log's name.
    pub fn finish(mut self) -> Result<u64, (String, std::io::Error)> {
        let flushed = self.out.flush();
        self.keep(flushed);
        match self.error {
            Some(e) => Err((self.name, e)),
            None => Ok(self.rows),
        }
    }
}

/// Picoseconds shown as microseconds with six decimals: exact.
struct Micros(Ps);

impl std::fmt::Display for Micros {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:06}", self.0 / 1_000_000, self.0 % 1_000_000)
    }
}

/// `text` as one CSV field: quoted, with quotes doubled, when it holds a comma, a quote or a
/// line break.
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer the test can read back after the log took it.
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Worked by hand: a read of 8 sectors at sector 16 arriving at 1.5 µs (1,500,000 ps) and
    /// completing at 101.250001 µs has latency 99.750001 µs; a flow named `a,b` is quoted.
    #[test]
    fn a_row_shows_picoseconds_exactly_in_microseconds() {
        let buf = Shared::default();
        let mut log = LatencyLog::new(Box::new(buf.clone()), "log", &["a,b".into(), "w".into()]);
        let req = IoRequest { arrival_ps: 1_500_000, op: IoOp::Read, lba: 16, sectors: 8, fua: false };
        log.row(0, &req, 101_250_001, 4096);
        let write = IoRequest { arrival_ps: 0, op: IoOp::Write, ..req };
        log.row(1, &write, 7, 4096);
        assert_eq!(log.finish().unwrap(), 2);
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let want = format!(
            "{}\n\"a,b\",read,16,4096,1.500000,101.250001,99.750001\nw,write,16,4096,0.000000,0.000007,0.000007\n",
            LatencyLog::HEADER
        );
        assert_eq!(text, want);
    }

    /// A write error is kept, later rows are dropped, and `finish` reports it by the log's name.
    #[test]
    fn a_write_error_is_reported_at_the_end() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut log = LatencyLog::new(Box::new(Full), "lat.csv", &["f".into()]);
        let req = IoRequest { arrival_ps: 0, op: IoOp::Read, lba: 0, sectors: 1, fua: false };
        log.row(0, &req, 1, 512);
        let (name, e) = log.finish().unwrap_err();
        assert_eq!((name.as_str(), e.kind()), ("lat.csv", std::io::ErrorKind::StorageFull));
    }
}
