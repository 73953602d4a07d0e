//! Column-mapped text traces (`--format csv --columns ...`): any separator, header lines,
//! columns in any order, times and addresses in any unit, any op encoding.
//!
//! A [`ColumnMap`] says which column holds the arrival time, the op, the offset, the size and
//! optionally the device, each given as a 1-based number or, with a header line, by name:
//!
//! ```text
//! --columns "time=1:us,op=4,offset=5:sectors,size=6:bytes,device=2"
//! --columns "time=Timestamp:filetime,op=Type,offset=Offset,size=Size" --header
//! --ops "28=read,2a=write,42=trim"
//! ```
//!
//! - Time units: `ns`, `us`, `ms`, `s` (decimals allowed, converted exactly) and `filetime`
//!   (Windows 100 ns ticks). No `time` column: every request arrives at 0 (closed-loop replay).
//! - Address units: `bytes` (default), `sectors` (512 B) or `blocksN` (N-byte blocks, e.g.
//!   `blocks4096`); offset and size each have their own.
//! - Op codes: `--ops` lists `code=read|write|trim`, matched case-insensitively after
//!   trimming; a hex code may be written with or without `0x` in the trace. Without `--ops`:
//!   `read`/`r`, `write`/`w`, `trim`/`discard`/`d` (any case).
//! - Separator: one character (`,` by default, `tab`, `;`, `|`, ...) or `blanks` (runs of
//!   spaces and tabs). Extra columns are ignored.
//! - `skip` lines are dropped first (a preamble); with `header`, the next content line names
//!   the columns.
//!
//! Every built-in format whose layout fits is a named map ([`ColumnMap::named`]), e.g.
//! `--columns msr`; reading a file with its named map gives the same requests as its own
//! reader.

use std::fmt;

use super::{echo, Ctx, Format, Op, Raw, TraceError, SECTOR_BYTES};

/// Unit of the time column, as a power of ten of picoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Ns,
    Us,
    Ms,
    S,
    /// Windows FILETIME: 100 ns ticks.
    Filetime,
}

impl TimeUnit {
    fn digits(self) -> u32 {
        match self {
            TimeUnit::Ns => 3,
            TimeUnit::Filetime => 5,
            TimeUnit::Us => 6,
            TimeUnit::Ms => 9,
            TimeUnit::S => 12,
        }
    }

    /// The unit as `--columns` spells it.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Ns => "ns",
            TimeUnit::Us => "us",
            TimeUnit::Ms => "ms",
            TimeUnit::S => "s",
            TimeUnit::Filetime => "filetime",
        }
    }
}

/// Where a column is: a 0-based index, or a header name still to be resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    Index(usize),
    Name(String),
}

/// One column of the map and its unit.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Column<U> {
    place: Place,
    unit: U,
}

/// How fields are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Separator {
    /// Runs of spaces and tabs.
    Blanks,
    Char(char),
}

/// Which column holds what, in which unit; see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnMap {
    time: Option<Column<TimeUnit>>,
    op: Place,
    offset: Column<u64>,
    size: Column<u64>,
    device: Option<Place>,
    ops: Vec<(String, Op)>,
    pub separator: Separator,
    /// The first content line (after `skip`) names the columns.
    pub header: bool,
    /// Lines dropped before anything else (a preamble), counted as lines of the file.
    pub skip: usize,
}

/// The header line of ssdlab's own CSV (what `trace convert --to csv` writes).
pub const SSDLAB_HEADER: &str = "time_ns,device,op,offset_bytes,size_bytes";

/// The op spellings accepted without `--ops`.
const DEFAULT_OPS: [(&str, Op); 7] = [
    ("read", Op::Read),
    ("r", Op::Read),
    ("write", Op::Write),
    ("w", Op::Write),
    ("trim", Op::Trim),
    ("discard", Op::Trim),
    ("d", Op::Trim),
];

impl ColumnMap {
    /// A map from the `--columns` text, the `--ops` codes (None: the default spellings), the
    /// separator (None: `,`), and the header and skip settings. A built-in format's name as
    /// `columns` gives its map ([`ColumnMap::named`]). The error says what is wrong.
    pub fn parse(
        columns: &str,
        ops: Option<&str>,
        separator: Option<&str>,
        header: bool,
        skip: usize,
    ) -> Result<ColumnMap, String> {
        let mut map = match columns.trim().parse::<Format>() {
            Ok(f) => ColumnMap::named(f)
                .ok_or_else(|| format!("format {f} has no column map (its layout does not fit one)"))?,
            Err(_) => parse_columns(columns)?,
        };
        if let Some(ops) = ops {
            map.ops = parse_ops(ops)?;
        }
        if let Some(sep) = separator {
            map.separator = parse_separator(sep)?;
        }
        map.header |= header;
        map.skip = map.skip.max(skip);
        let named = [map.op.clone(), map.offset.place.clone(), map.size.place.clone()]
            .into_iter()
            .chain(map.time.as_ref().map(|t| t.place.clone()))
            .chain(map.device.clone())
            .any(|p| matches!(p, Place::Name(_)));
        if named && !map.header {
            return Err("a column given by name needs a header line (--header, or header = true)".into());
        }
        Ok(map)
    }

    /// ssdlab's own CSV: a header line [`SSDLAB_HEADER`], then `time_ns,device,op,offset_bytes,
    /// size_bytes` with ops `read`, `write`, `trim` (`--format csv` without `--columns`).
    pub fn ssdlab() -> ColumnMap {
        let columns = "time=time_ns:ns,device=device,op=op,offset=offset_bytes:bytes,size=size_bytes:bytes";
        ColumnMap::parse(columns, None, None, true, 0).expect("ssdlab's own map parses")
    }

    /// The map of a built-in format whose layout is columns (all but `disksim`, whose op is a
    /// flag bit, and `blkparse`).
    pub fn named(format: Format) -> Option<ColumnMap> {
        let binary = |one_is_read: bool| {
            let (one, zero) = if one_is_read { (Op::Read, Op::Write) } else { (Op::Write, Op::Read) };
            vec![("1".to_string(), one), ("0".to_string(), zero)]
        };
        let words = |read: &str, write: &str| vec![(read.to_string(), Op::Read), (write.to_string(), Op::Write)];
        let (sep, [time, device, op, offset, size], time_unit, (offset_unit, size_unit), ops) = match format {
            Format::Msr => (',', [0, 2, 3, 4, 5], TimeUnit::Filetime, (1, 1), words("read", "write")),
            Format::Replayer => (' ', [0, 1, 4, 2, 3], TimeUnit::Ms, (1, 1), binary(true)),
            Format::ReplayerSectors => (' ', [0, 1, 4, 2, 3], TimeUnit::Ms, (SECTOR_BYTES, SECTOR_BYTES), binary(true)),
            Format::Ssdsim | Format::Mqsim => {
                (' ', [0, 1, 4, 2, 3], TimeUnit::Ns, (SECTOR_BYTES, SECTOR_BYTES), binary(true))
            }
            Format::Umass => (',', [4, 0, 3, 1, 2], TimeUnit::S, (SECTOR_BYTES, 1), words("r", "w")),
            Format::Tencent => (',', [0, 4, 3, 1, 2], TimeUnit::S, (SECTOR_BYTES, SECTOR_BYTES), binary(false)),
            Format::Disksim | Format::Blkparse | Format::Csv | Format::FioIolog => return None,
        };
        Some(ColumnMap {
            time: Some(Column { place: Place::Index(time), unit: time_unit }),
            op: Place::Index(op),
            offset: Column { place: Place::Index(offset), unit: offset_unit },
            size: Column { place: Place::Index(size), unit: size_unit },
            device: Some(Place::Index(device)),
            ops,
            separator: if sep == ' ' { Separator::Blanks } else { Separator::Char(sep) },
            header: false,
            skip: 0,
        })
    }

    /// The time column's unit; None when the map has no time column (every request arrives
    /// at 0).
    pub fn time_unit(&self) -> Option<TimeUnit> {
        self.time.as_ref().map(|t| t.unit)
    }

    /// The fields of a content line.
    pub(crate) fn split<'a>(&self, line: &'a str, out: &mut Vec<&'a str>) {
        out.clear();
        match self.separator {
            Separator::Blanks => out.extend(line.split_whitespace()),
            Separator::Char(c) => out.extend(line.split(c).map(str::trim)),
        }
    }

    /// Names resolved against the header's fields; the error names the missing column.
    pub(crate) fn resolve(&mut self, header: &[&str], ctx: &Ctx) -> Result<(), TraceError> {
        let find = |p: &mut Place| -> Result<(), TraceError> {
            if let Place::Name(name) = p {
                let at = header.iter().position(|h| h.trim_matches('"').eq_ignore_ascii_case(name));
                let at =
                    at.ok_or_else(|| ctx.bad("header", ctx.text, format!("has no column named `{}`", echo(name))))?;
                *p = Place::Index(at);
            }
            Ok(())
        };
        find(&mut self.op)?;
        find(&mut self.offset.place)?;
        find(&mut self.size.place)?;
        if let Some(t) = &mut self.time {
            find(&mut t.place)?;
        }
        if let Some(d) = &mut self.device {
            find(d)?;
        }
        Ok(())
    }

    /// One request from a content line's fields.
    pub(crate) fn record(&self, f: &[&str], ctx: &Ctx) -> Result<Raw, TraceError> {
        let get = |p: &Place, role: &'static str| -> Result<&str, TraceError> {
            let Place::Index(i) = p else { unreachable!("names resolved at the header") };
            let n = i + 1;
            f.get(*i)
                .copied()
                .ok_or_else(|| ctx.too_few_fields(f, format!("at least {n} fields (the {role} column is column {n})")))
        };
        let time_ps = match &self.time {
            Some(t) => ctx.decimal_ps("time", get(&t.place, "time")?, t.unit.digits())?,
            None => 0,
        };
        let device = match &self.device {
            Some(p) => ctx.u32("device", get(p, "device")?)?,
            None => 0,
        };
        let op_text = get(&self.op, "op")?;
        let op =
            self.op_of(op_text).ok_or_else(|| ctx.bad("op", op_text, format!("is none of {}", self.op_names())))?;
        let offset = get(&self.offset.place, "offset")?;
        let size = get(&self.size.place, "size")?;
        let extent = ctx.extent(("offset", offset), ("size", size), (self.offset.unit, self.size.unit))?;
        Ok(super::raw(time_ps, device, op, extent).expect("a record"))
    }

    fn op_of(&self, text: &str) -> Option<Op> {
        let t = text.trim().trim_matches('"');
        let bare = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
        self.ops.iter().find(|(code, _)| code.eq_ignore_ascii_case(t) || code.eq_ignore_ascii_case(bare)).map(|c| c.1)
    }

    fn op_names(&self) -> String {
        let names: Vec<String> = self.ops.iter().map(|(c, op)| format!("`{c}` ({op:?})").to_lowercase()).collect();
        names.join(", ")
    }
}

impl fmt::Display for ColumnMap {
    /// The map as `--columns` text (names of unresolved columns kept).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = |p: &Place| match p {
            Place::Index(i) => (i + 1).to_string(),
            Place::Name(n) => n.clone(),
        };
        let unit = |u: u64| match u {
            1 => "bytes".to_string(),
            SECTOR_BYTES => "sectors".to_string(),
            n => format!("blocks{n}"),
        };
        if let Some(t) = &self.time {
            write!(f, "time={}:{},", place(&t.place), t.unit.name())?;
        }
        write!(
            f,
            "op={},offset={}:{},size={}:{}",
            place(&self.op),
            place(&self.offset.place),
            unit(self.offset.unit),
            place(&self.size.place),
            unit(self.size.unit)
        )?;
        if let Some(d) = &self.device {
            write!(f, ",device={}", place(d))?;
        }
        Ok(())
    }
}

/// `time=1:us,op=4,offset=5:sectors,size=6,device=2`.
fn parse_columns(text: &str) -> Result<ColumnMap, String> {
    let (mut time, mut op, mut offset, mut size, mut device) = (None, None, None, None, None);
    for clause in text.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        let (role, rest) = clause.split_once('=').ok_or_else(|| format!("`{clause}` is not role=column[:unit]"))?;
        let (at, unit) = match rest.split_once(':') {
            Some((a, u)) => (a.trim(), Some(u.trim())),
            None => (rest.trim(), None),
        };
        let place = parse_place(at, clause)?;
        let role = role.trim();
        if unit.is_some() && matches!(role, "op" | "device") {
            return Err(format!("`{clause}`: {role} takes no unit"));
        }
        let taken = match role {
            "time" => time.replace(Column { place, unit: parse_time_unit(unit.unwrap_or("s"))? }).is_some(),
            "op" => op.replace(place).is_some(),
            "offset" => offset.replace(Column { place, unit: parse_addr_unit(unit)? }).is_some(),
            "size" => size.replace(Column { place, unit: parse_addr_unit(unit)? }).is_some(),
            "device" => device.replace(place).is_some(),
            other => return Err(format!("unknown column role `{other}` (expected time, op, offset, size, device)")),
        };
        if taken {
            return Err(format!("`{role}` is given twice"));
        }
    }
    let need = |what: &str| format!("--columns needs `{what}=COLUMN`");
    Ok(ColumnMap {
        time,
        op: op.ok_or_else(|| need("op"))?,
        offset: offset.ok_or_else(|| need("offset"))?,
        size: size.ok_or_else(|| need("size"))?,
        device,
        ops: DEFAULT_OPS.iter().map(|&(c, op)| (c.to_string(), op)).collect(),
        separator: Separator::Char(','),
        header: false,
        skip: 0,
    })
}

fn parse_place(at: &str, clause: &str) -> Result<Place, String> {
    if at.is_empty() {
        return Err(format!("`{clause}`: no column given"));
    }
    if !at.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(Place::Name(at.to_string()));
    }
    match at.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(Place::Index(n - 1)),
        _ => Err(format!("`{clause}`: columns count from 1")),
    }
}

fn parse_time_unit(u: &str) -> Result<TimeUnit, String> {
    let all = [TimeUnit::Ns, TimeUnit::Us, TimeUnit::Ms, TimeUnit::S, TimeUnit::Filetime];
    all.into_iter()
        .find(|t| t.name().eq_ignore_ascii_case(u))
        .ok_or_else(|| format!("time unit `{u}` is not one of ns, us, ms, s, filetime"))
}

/// `bytes`, `sectors` or `blocksN`, as bytes per unit.
fn parse_addr_unit(u: Option<&str>) -> Result<u64, String> {
    let u = u.unwrap_or("bytes").to_ascii_lowercase();
    match u.as_str() {
        "bytes" | "b" => Ok(1),
        "sectors" | "s" => Ok(SECTOR_BYTES),
        _ => u
            .strip_prefix("blocks")
            .and_then(|n| n.parse::<u64>().ok())
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("address unit `{u}` is not bytes, sectors or blocksN (N > 0 bytes per block)")),
    }
}

/// `28=read,2a=write,1=trim`.
fn parse_ops(text: &str) -> Result<Vec<(String, Op)>, String> {
    let mut ops = Vec::new();
    for clause in text.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        let (code, op) =
            clause.split_once('=').ok_or_else(|| format!("--ops: `{clause}` is not code=read|write|trim"))?;
        let op = match op.trim().to_ascii_lowercase().as_str() {
            "read" => Op::Read,
            "write" => Op::Write,
            "trim" => Op::Trim,
            other => return Err(format!("--ops: `{other}` is not read, write or trim")),
        };
        let code = code.trim();
        if code.is_empty() || ops.iter().any(|(c, _): &(String, Op)| c.eq_ignore_ascii_case(code)) {
            return Err(format!("--ops: code `{code}` is empty or given twice"));
        }
        ops.push((code.to_string(), op));
    }
    if ops.is_empty() {
        return Err("--ops lists no codes".into());
    }
    Ok(ops)
}

fn parse_separator(s: &str) -> Result<Separator, String> {
    match s {
        "blanks" | "whitespace" | " " => Ok(Separator::Blanks),
        "tab" | "\\t" | "\t" => Ok(Separator::Char('\t')),
        "comma" => Ok(Separator::Char(',')),
        "semicolon" => Ok(Separator::Char(';')),
        _ => {
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if !c.is_alphanumeric() && c != '.' && c != '-' => Ok(Separator::Char(c)),
                _ => Err(format!(
                    "separator `{s}` is not one character (not a letter, digit, `.` or `-`), tab or blanks"
                )),
            }
        }
    }
}
