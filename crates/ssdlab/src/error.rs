//! Errors from bad input: a config, a workload, a trace. Each names the file, the line (when
//! there is one) and the offending value, and maps to exit code 2 in the CLI. Broken internal
//! invariants are not errors: they panic with a message saying which invariant.

use std::path::Path;

pub type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A config or workload key or value that cannot be used.
    #[error("{file}{}: {}", line_suffix(*line), short_numbers(message))]
    Config { file: String, line: usize, key: String, message: String },
    #[error("{file}: {source}")]
    Io { file: String, source: std::io::Error },
    #[error(transparent)]
    Trace(#[from] ssdlab_trace::TraceError),
    /// A request that does not fit the drive (address past the end, zero size).
    #[error("{file}{}: {}", line_suffix(*line), short_numbers(message))]
    Request { file: String, line: usize, message: String },
    /// A run of a sweep that broke an internal invariant (where a panic unwinds: in Python).
    /// Not bad input: a bug, reported as the failure of that run alone.
    #[error("{run}: internal error (a bug in ssdlab; please report it): {message}")]
    Internal { run: String, message: String },
    /// A sweep or reproduction stopped (Ctrl-C in Python) before its last run.
    #[error("interrupted: the runs that ended are kept in {dir}; run again to resume")]
    Interrupted { dir: String },
    /// A large table (the map, block state, the integrity oracle, a trace) could not be
    /// allocated: the operating system or a limit (`ulimit -v`, a cgroup) refused it.
    #[error("out of memory: {what} needs {}, which could not be allocated; `ssdlab validate` estimates what a run needs", bytes_text(*bytes))]
    OutOfMemory { what: String, bytes: u64 },
    /// A run whose memory estimate is above the limit, refused before it starts; `run` names
    /// it within a sweep or reproduction (empty for a single run).
    #[error("{}this run needs about {} of memory (estimate), more than {}: {limit_source}; largest parts: {parts}", if run.is_empty() { String::new() } else { format!("{run}: ") }, bytes_text(*estimate), bytes_text(*limit))]
    MemoryLimit { run: String, estimate: u64, limit: u64, limit_source: String, parts: String },
}

/// `bytes` for people: `512 B`, `3.2 KiB`, `1.47 GiB` (binary units, three significant digits).
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    match u {
        0 => format!("{bytes} B"),
        _ if v >= 100.0 => format!("{v:.0} {}", UNITS[u]),
        _ if v >= 10.0 => format!("{v:.1} {}", UNITS[u]),
        _ => format!("{v:.2} {}", UNITS[u]),
    }
}

/// Digits a number of a message may have before its integer part is shown in scientific
/// notation: 20, the most a 64-bit integer has.
const NUMBER_DIGITS: usize = 20;

/// `message` with every number whose integer part has more than [`NUMBER_DIGITS`] digits in
/// scientific notation (`1e300`): Rust prints a float such as 1e300 with all of its 301
/// digits, and so does a parser that echoes one.
pub fn short_numbers(message: &str) -> std::borrow::Cow<'_, str> {
    let bytes = message.as_bytes();
    let (mut out, mut done, mut i) = (String::new(), 0, 0);
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && bytes[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        let int_end = i + bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let frac = bytes.get(int_end) == Some(&b'.') && bytes.get(int_end + 1).is_some_and(u8::is_ascii_digit);
        let end = if frac {
            int_end + 1 + bytes[int_end + 1..].iter().take_while(|b| b.is_ascii_digit()).count()
        } else {
            int_end
        };
        if int_end - i > NUMBER_DIGITS {
            if let Ok(x) = message[i..end].parse::<f64>() {
                out.push_str(&message[done..i]);
                out.push_str(&format!("{x:e}"));
                done = end;
            }
        }
        i = end;
    }
    if done == 0 {
        return std::borrow::Cow::Borrowed(message);
    }
    out.push_str(&message[done..]);
    std::borrow::Cow::Owned(out)
}

fn line_suffix(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}

impl Error {
    pub fn config(file: &str, line: usize, key: &str, message: &str) -> Error {
        Error::Config { file: file.to_string(), line, key: key.to_string(), message: message.to_string() }
    }

    pub fn out_of_memory(what: &str, bytes: u64) -> Error {
        Error::OutOfMemory { what: what.to_string(), bytes }
    }

    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io { file: path.display().to_string(), source }
    }

    /// A TOML parse or typing error, with the line number taken from its span. A bad value
    /// (an unknown choice, a wrong type) is named by its dotted key, as `validate` names the
    /// values it rejects: `tsu.policy = "bogus": unknown variant ...`.
    pub fn toml(file: &str, text: &str, e: toml::de::Error) -> Error {
        // The parser's message can quote the file (a string value, an unknown key), and the
        // key is the file's text: both bounded and escaped, like `at`.
        let message = &parser_message(e.message().trim());
        let Some(span) = e.span() else {
            return Error::config(file, 0, "", message);
        };
        let start = span.start.min(text.len());
        // At the end of a text that ends in a newline (an unclosed string), the last line.
        let line = (text[..start].matches('\n').count() + 1).min(text.lines().count().max(1));
        let at = text.get(start..span.end.min(text.len())).unwrap_or("");
        // Echoed cut to a bounded length with non-printables escaped: the file may be binary.
        let at = &ssdlab_trace::echo(at.lines().next().unwrap_or(""));
        match key_of_value_at(text, start) {
            Some(key) => {
                let message = format!("{} = {at}: {message}", ssdlab_trace::echo(&key));
                Error::Config { file: file.to_string(), line, key, message }
            }
            None if at.is_empty() => Error::config(file, line, "", message),
            None => Error::config(file, line, at, &format!("{message} (at `{at}`)")),
        }
    }
}

/// Characters of a TOML parser's message an error shows; enough for the longest list of a
/// section's keys that an unknown key gets.
const MESSAGE_CHARS: usize = 1000;

/// A TOML parser's message as an error shows it: control characters escaped, cut to
/// [`MESSAGE_CHARS`], since it can quote a long or binary value from the file.
fn parser_message(message: &str) -> String {
    let mut out = String::new();
    for (i, c) in message.chars().enumerate() {
        if i == MESSAGE_CHARS {
            out.push('…');
            break;
        }
        match c.is_control() {
            true => out.extend(c.escape_default()),
            false => out.push(c),
        }
    }
    out
}

/// Follows the table headers of TOML text line by line, naming tables as config errors do:
/// dotted, with `name[i]` for the i-th `[[name]]` table.
#[derive(Default)]
struct Tables {
    current: String,
    arrays: Vec<(String, usize)>,
}

impl Tables {
    /// Reads one line. Returns the key it assigns and where its `=` is, or None for a header,
    /// a comment or a blank line.
    fn line<'a>(&mut self, raw: &'a str) -> Option<(&'a str, usize)> {
        let line = raw.split('#').next().unwrap_or("").trim();
        if let Some(name) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
            let name = name.trim().to_string();
            let count = match self.arrays.iter_mut().find(|(a, _)| *a == name) {
                Some((_, c)) => {
                    *c += 1;
                    *c
                }
                None => {
                    self.arrays.push((name.clone(), 0));
                    0
                }
            };
            self.current = format!("{name}[{count}]");
        } else if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            self.current = name.trim().to_string();
        } else if let Some(eq) = raw.split('#').next().unwrap_or("").find('=') {
            return Some((raw[..eq].trim().trim_matches('"'), eq));
        }
        None
    }

    /// `key` in the current table, dotted.
    fn full(&self, key: &str) -> String {
        if self.current.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.current)
        }
    }
}

/// The dotted key whose value starts at byte `offset` of TOML `text`, if the value sits on
/// its key's line (`key = value`; not inside an inline table or a multi-line array).
fn key_of_value_at(text: &str, offset: usize) -> Option<String> {
    let mut tables = Tables::default();
    let mut line_start = 0;
    for raw in text.split_inclusive('\n') {
        let assigns = tables.line(raw);
        let line_end = line_start + raw.len();
        if offset < line_end {
            let (key, eq) = assigns?;
            // The span starts after the `=`, and not inside an inline table or an array.
            let before = raw.get(eq + 1..offset - line_start)?;
            return (!before.contains(['{', '[', ','])).then(|| tables.full(key));
        }
        line_start = line_end;
    }
    None
}

/// The 1-based line where `key` (dotted, with `name[i]` for the i-th `[[name]]` table) is
/// set in TOML `text`, or 0 if it is not written there (a default, or a `--set`).
pub fn line_of_key(text: &str, key: &str) -> usize {
    let (table, leaf) = match key.rfind('.') {
        Some(i) => (&key[..i], &key[i + 1..]),
        None => ("", key),
    };
    let mut tables = Tables::default();
    for (n, raw) in text.lines().enumerate() {
        if let Some((k, _)) = tables.line(raw) {
            if tables.full(k) == key || (tables.current == table && k == leaf) {
                return n + 1;
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::{bytes_text, key_of_value_at, line_of_key};
    use crate::Config;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(bytes_text(1023), "1023 B");
        assert_eq!(bytes_text(1536), "1.50 KiB");
        assert_eq!(bytes_text(15 << 20), "15.0 MiB");
        assert_eq!(bytes_text(4_294_967_296), "4.00 GiB");
        assert_eq!(bytes_text(300 << 30), "300 GiB");
    }

    /// Found by tests/props.rs: a control character in a key, or a long string value, reached
    /// the message raw and whole; an error at the end of a text ending in a newline named the
    /// line after the last.
    #[test]
    fn toml_errors_escape_keys_and_bound_quoted_values() {
        let err = Config::from_toml_str("\u{1} = 1", "c.toml", &[]).unwrap_err().to_string();
        assert!(err.starts_with("c.toml:1: ") && !err.chars().any(char::is_control), "{err:?}");
        let long = format!("[nand]\nchannels = \"{}\"\n", "x".repeat(5000));
        let err = Config::from_toml_str(&long, "c.toml", &[]).unwrap_err().to_string();
        assert!(err.starts_with("c.toml:2: nand.channels = ") && err.len() < 1500, "{} bytes", err.len());
        let err = Config::from_toml_str("a = \"\"\"\n", "c.toml", &[]).unwrap_err().to_string();
        assert!(err.starts_with("c.toml:1: "), "the only line: {err}");
        let unknown = "[nand]\n\"a\\u0007b\" = 1\n";
        let err = Config::from_toml_str(unknown, "c.toml", &[]).unwrap_err().to_string();
        assert!(err.contains("unknown field") && !err.chars().any(char::is_control), "{err:?}");
    }

    /// 1e300 prints as 301 digits in Rust; a message shows it as `1e300`. 2^64 − 1 (20
    /// digits) and a number inside a word stay as they are.
    #[test]
    fn long_numbers_in_messages_are_shown_in_scientific_notation() {
        let digits = format!("{}", 1e300f64);
        assert_eq!(digits.len(), 301);
        let m = format!(
            "read_ratio = {digits}: must be in [0, 1]; `{digits}.0`, 18446744073709551615, x123456789012345678901234"
        );
        assert_eq!(
            super::short_numbers(&m),
            "read_ratio = 1e300: must be in [0, 1]; `1e300`, 18446744073709551615, x123456789012345678901234"
        );
        let e = Config::from_toml_str("[nand]\nchannels = 1e300\n", "c.toml", &[]).unwrap_err().to_string();
        assert!(e.starts_with("c.toml:2: nand.channels = 1e300: invalid type: floating point `1e300`"), "{e}");
    }

    #[test]
    fn finds_keys_in_tables_and_arrays_of_tables() {
        let text = "seed = 1\n[nand]\nchannels = 8 # comment\n[nand.bus]\nrate_mt_s = 333\n[[flows]]\nname = \"a\"\n[[flows]]\nread_ratio = 1.5\n";
        assert_eq!(line_of_key(text, "seed"), 1);
        assert_eq!(line_of_key(text, "nand.channels"), 3);
        assert_eq!(line_of_key(text, "nand.bus.rate_mt_s"), 5);
        assert_eq!(line_of_key(text, "flows[1].read_ratio"), 9);
        assert_eq!(line_of_key(text, "flows[0].read_ratio"), 0);
        assert_eq!(line_of_key(text, "nand.dies_per_chip"), 0);
    }

    #[test]
    fn names_the_key_whose_value_an_offset_falls_in() {
        let text = "seed = 1\n[nand]\nchannels = \"x\" # c = d\nbus = { rate_mt_s = \"y\" }\n[[flows]]\n[[flows]]\npriority = 3\n";
        let at = |needle: &str| key_of_value_at(text, text.find(needle).unwrap());
        assert_eq!(at("1\n").as_deref(), Some("seed"));
        assert_eq!(at("\"x\"").as_deref(), Some("nand.channels"));
        assert_eq!(at("3\n").as_deref(), Some("flows[1].priority"));
        // A key itself, or a value inside an inline table: not a key's own value.
        assert_eq!(at("channels"), None);
        assert_eq!(at("\"y\""), None);
    }
}
