//! Errors from bad input: a config, a workload, a trace. Each names the file, the line (when
//! there is one) and the offending value, and maps to exit code 2 in the CLI. Broken internal
//! invariants are not errors: they panic with a message saying which invariant.

use std::path::Path;

pub type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A config or workload key or value that cannot be used.
    #[error("{file}{}: {message}", line_suffix(*line))]
    Config { file: String, line: usize, key: String, message: String },
    #[error("{file}: {source}")]
    Io { file: String, source: std::io::Error },
    #[error(transparent)]
    Trace(#[from] ssdlab_trace::TraceError),
    /// A request that does not fit the drive (address past the end, zero size).
    #[error("{file}{}: {message}", line_suffix(*line))]
    Request { file: String, line: usize, message: String },
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

    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io { file: path.display().to_string(), source }
    }

    /// A TOML parse or typing error, with the line number taken from its span.
    pub fn toml(file: &str, text: &str, e: toml::de::Error) -> Error {
        let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1).unwrap_or(0);
        let key =
            e.span().map(|s| text.get(s.start..s.end.min(text.len())).unwrap_or("").to_string()).unwrap_or_default();
        let message = e.message().trim().to_string();
        let message =
            if key.is_empty() { message } else { format!("{message} (at `{}`)", key.lines().next().unwrap_or("")) };
        Error::Config { file: file.to_string(), line, key, message }
    }
}

/// The 1-based line where `key` (dotted, with `name[i]` for the i-th `[[name]]` table) is
/// set in TOML `text`, or 0 if it is not written there (a default, or a `--set`).
pub fn line_of_key(text: &str, key: &str) -> usize {
    let (table, leaf) = match key.rfind('.') {
        Some(i) => (&key[..i], &key[i + 1..]),
        None => ("", key),
    };
    let mut current = String::new();
    let mut arrays: Vec<(String, usize)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if let Some(name) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
            let name = name.trim().to_string();
            let count = match arrays.iter_mut().find(|(a, _)| *a == name) {
                Some((_, c)) => {
                    *c += 1;
                    *c
                }
                None => {
                    arrays.push((name.clone(), 0));
                    0
                }
            };
            current = format!("{name}[{count}]");
        } else if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name.trim().to_string();
        } else if let Some((k, _)) = line.split_once('=') {
            let k = k.trim().trim_matches('"');
            let full = if current.is_empty() { k.to_string() } else { format!("{current}.{k}") };
            if full == key || (current == table && k == leaf) {
                return n + 1;
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::line_of_key;

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
}
