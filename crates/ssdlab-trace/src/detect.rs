//! Format detection ([`detect()`], [`detect_explained`], [`detect_str`]): the rules of the crate
//! docs ("Format detection") over a trace's first content lines. Re-exported from the crate root.

use std::path::Path;

use crate::{
    columns, content_lines, echo, field, fio, header, header_error, parse_maj_min, stream, Format, Lines, TraceError,
    DETECT_SAMPLE_LINES, SECTOR_BYTES,
};

/// A detected format and why: which shape of the sampled lines decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    pub format: Format,
    pub reason: String,
}

/// Detects the format of the file at `path` from its first lines (see the crate docs).
pub fn detect(path: &Path) -> Result<Format, TraceError> {
    detect_explained(path).map(|d| d.format)
}

/// [`detect`], with the reason for the choice.
pub fn detect_explained(path: &Path) -> Result<Detection, TraceError> {
    let mut lines = Lines::open(path)?;
    let mut sample = Vec::new();
    while sample.len() < DETECT_SAMPLE_LINES {
        match lines.next_content()? {
            Some((line, text)) => sample.push((line, text.to_string())),
            None => break,
        }
    }
    let sample: Vec<(usize, &str)> = sample.iter().map(|(l, t)| (*l, t.as_str())).collect();
    detect_sample(&sample, &lines.file)
}

/// Detects the format of trace text; `file_name` is used for errors and as extension tie-breaker.
pub fn detect_str(text: &str, file_name: &str) -> Result<Format, TraceError> {
    let sample: Vec<(usize, &str)> = content_lines(text).take(DETECT_SAMPLE_LINES).collect();
    detect_sample(&sample, file_name).map(|d| d.format)
}

/// The detection rules of the crate docs over the first content lines (1-based line, text).
pub(crate) fn detect_sample(sample: &[(usize, &str)], file_name: &str) -> Result<Detection, TraceError> {
    let &(line, first) = sample.first().ok_or_else(|| TraceError::Empty { file: file_name.to_string() })?;
    let unknown = || TraceError::UnknownFormat { file: file_name.to_string(), line, text: echo(first) };
    let inner = stream::inner_name(file_name);
    let ext = Path::new(inner).extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let found = |format, reason: &str| Ok(Detection { format, reason: reason.to_string() });
    if first == columns::SSDLAB_HEADER {
        return found(Format::Csv, "ssdlab's own CSV header (`trace convert --to csv`)");
    }
    if fio::is_header(first) {
        return found(Format::FioIolog, "first line `fio version N iolog`");
    }
    if header::is_header(first) {
        return Err(header_error(file_name, line, first));
    }
    let words: Vec<&str> = first.split_whitespace().collect();
    if words.len() >= 6 && parse_maj_min(words[0]).is_some() {
        return found(Format::Blkparse, "first field `major,minor` and six or more fields");
    }
    if first.contains(',') {
        let f: Vec<&str> = first.split(',').map(str::trim).collect();
        let op = f.get(3).copied().unwrap_or("");
        let is_num = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        return if f.len() == 7 && ["read", "write"].iter().any(|w| op.eq_ignore_ascii_case(w)) {
            found(Format::Msr, "7 comma-separated fields with Read/Write in field 4")
        } else if f.len() >= 5 && ["r", "w"].iter().any(|w| op.eq_ignore_ascii_case(w)) {
            found(Format::Umass, "5 or more comma-separated fields with r/w in field 4")
        } else if f.len() == 5 && f.iter().all(|s| is_num(s)) && (op == "0" || op == "1") {
            found(Format::Tencent, "5 numeric comma-separated fields with 0/1 in field 4")
        } else {
            Err(unknown())
        };
    }
    let is_int = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if words.len() != 5 || !words[1..].iter().all(|s| is_int(s)) {
        return Err(unknown());
    }
    if !sample.iter().any(|&(_, l)| field(l, 0).contains('.')) {
        return match ext.as_str() {
            "ascii" => found(Format::Ssdsim, "5 blank-separated fields, integer times, `.ascii` extension"),
            "disksim" => found(Format::Disksim, "5 blank-separated fields, integer times, `.disksim` extension"),
            _ => found(Format::Mqsim, "5 blank-separated fields, integer times (ns)"),
        };
    }
    detect_decimal_time(sample, file_name, &ext)
}

/// Five blank-separated fields with decimal times: byte units (`replayer`) when every sampled
/// offset and size is whole 512 B sectors, as block I/O in bytes always is; sector units
/// otherwise, where only the extension can tell `disksim` from `replayer_sectors`.
fn detect_decimal_time(sample: &[(usize, &str)], file_name: &str, ext: &str) -> Result<Detection, TraceError> {
    let unaligned = |l: &str, i: usize| field(l, i).parse::<u64>().map_or(true, |v| v % SECTOR_BYTES != 0);
    let odd = sample.iter().find_map(|&(line, l)| {
        let which = [(3, "size"), (2, "offset")].into_iter().find(|&(i, _)| unaligned(l, i))?;
        Some((line, l, which))
    });
    let Some((line, text, (index, name))) = odd else {
        let reason = format!(
            "decimal times (ms) and every offset and size of the first {} lines a multiple of 512, \
             so read as bytes; pass --format replayer_sectors if they count 512 B sectors",
            sample.len()
        );
        return Ok(Detection { format: Format::Replayer, reason });
    };
    let reason = format!(
        "decimal time and {name} `{}` is not a multiple of 512 bytes, so the units are sectors",
        echo(field(text, index))
    );
    if ext == "disksim" || ext == "ascii" {
        return Ok(Detection { format: Format::Disksim, reason: format!("{reason}; `.{ext}` extension") });
    }
    Err(TraceError::Ambiguous {
        file: file_name.to_string(),
        line,
        candidates: "disksim (`time_ms devno blkno size_blocks flags`, flags bit 0 = read) or \
                     replayer_sectors (`ts_ms dev offset_sectors size_sectors op`, 1 = read, 0 = write)"
            .to_string(),
        reason,
        text: echo(text),
    })
}
