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
        let key = e
            .span()
            .map(|s| text.get(s.start..s.end.min(text.len())).unwrap_or("").to_string())
            .unwrap_or_default();
        let message = e.message().trim().to_string();
        let message = if key.is_empty() { message } else { format!("{message} (at `{}`)", key.lines().next().unwrap_or("")) };
        Error::Config { file: file.to_string(), line, key, message }
    }
}
