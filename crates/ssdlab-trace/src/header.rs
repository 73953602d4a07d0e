//! Headered text traces met without a column map: a first line that names columns
//! (`Timestamp,Op,Offset,Size`) is recognised, and the error suggests the `--columns` map its
//! names imply, since only a column map reads such a file.

use super::echo;

/// Where a header's columns are split, as `--separator` names it (None: `,`, the default).
fn separator_of(line: &str) -> (Option<&'static str>, Vec<&str>) {
    fn unquote(f: &str) -> &str {
        f.trim().trim_matches('"')
    }
    if line.contains(',') {
        (None, line.split(',').map(unquote).collect())
    } else if line.contains('\t') {
        (Some("tab"), line.split('\t').map(unquote).collect())
    } else if line.contains(';') {
        (Some(";"), line.split(';').map(unquote).collect())
    } else {
        (Some("blanks"), line.split_whitespace().map(unquote).collect())
    }
}

/// Whether `line` names columns: three or more fields (a trace has at least an op, an
/// offset and a size), each starting with a letter or `_`. A request line always holds a
/// number (a time, an offset, a size), so none qualifies.
pub(crate) fn is_header(line: &str) -> bool {
    let (_, names) = separator_of(line);
    names.len() >= 3 && names.iter().all(|n| n.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_'))
}

/// What a header line's columns are, and the column map that would read them: each role
/// (time, device, op, offset, size) taken by the first unused column whose name holds one of
/// the role's words; the unit from the name where it says one (`time_us`, `offset_sectors`),
/// else `UNIT` for the user to fill in. A role no name fits is `?`.
pub(crate) fn hint(line: &str) -> (String, String) {
    let (separator, names) = separator_of(line);
    let roles: [(&str, &[&str]); 5] = [
        ("time", &["time", "stamp", "ts"]),
        ("device", &["device", "dev", "disk", "volume", "asu", "lun"]),
        ("op", &["op", "type", "rw", "cmd", "action", "kind"]),
        ("offset", &["offset", "lba", "lsn", "sector", "addr", "blkno", "block", "pos"]),
        ("size", &["size", "len", "bytes", "count", "nblocks"]),
    ];
    // A word of two letters must start the name (`ts_ns`, `opcode`, `rwbs`), a longer one
    // may be anywhere in it (`iotype`, `start_lba`).
    let fits = |name: &str, w: &str| if w.len() <= 2 { name.starts_with(w) } else { name.contains(w) };
    let lower = |n: &str| n.to_ascii_lowercase();
    let mut used = vec![false; names.len()];
    let mut clauses = Vec::new();
    for (role, words) in roles {
        let found = (0..names.len()).find(|&i| !used[i] && words.iter().any(|w| fits(&lower(names[i]), w)));
        let Some(i) = found else {
            if role != "device" {
                clauses.push(format!("{role}=?"));
            }
            continue;
        };
        used[i] = true;
        let name = names[i];
        let clause = match role {
            "time" => format!("time={name}:{}", time_unit(&lower(name))),
            "offset" | "size" => format!("{role}={name}:{}", address_unit(&lower(name))),
            _ => format!("{role}={name}"),
        };
        clauses.push(clause);
    }
    let shown = echo(&names.join(", "));
    let separator = separator.map(|s| format!(" --separator {s}")).unwrap_or_default();
    let map = echo(&clauses.join(","));
    let mut fill = Vec::new();
    if map.contains("UNIT") {
        fill.push("each UNIT (time: ns, us, ms, s or filetime; addresses: bytes, sectors or blocksN)");
    }
    if map.contains('?') {
        fill.push("a column number or name for each ?");
    }
    let fill = if fill.is_empty() { String::new() } else { format!(", putting in {}", fill.join(" and ")) };
    let hint = format!(
        "read it with --header --columns \"{map}\"{separator} (in a workload file: header = true, columns = \"{map}\"){fill}; check the result with `ssdlab trace head`"
    );
    (shown, hint)
}

/// The time unit a column name states (`time_us`, `Timestamp(ms)`), or `UNIT`.
fn time_unit(name: &str) -> &'static str {
    let ends = |u: &str| name.ends_with(&format!("_{u}")) || name.ends_with(&format!("({u})"));
    ["ns", "us", "ms", "s", "filetime"].into_iter().find(|u| ends(u)).unwrap_or("UNIT")
}

/// The address unit a column name states (`offset_bytes`, `lba`, `size_sectors`), or `UNIT`.
fn address_unit(name: &str) -> &'static str {
    if name.contains("byte") {
        "bytes"
    } else if ["sector", "lba", "lsn", "blkno"].iter().any(|w| name.contains(w)) {
        "sectors"
    } else {
        "UNIT"
    }
}

#[cfg(test)]
mod tests {
    use super::{hint, is_header};

    #[test]
    fn a_line_of_names_is_a_header_and_a_request_line_is_not() {
        assert!(is_header("Timestamp,Op,Offset,Size"));
        assert!(is_header("\"time_us\"\t\"lba\"\t\"len\""));
        assert!(!is_header("128166385295514663,hm,0,Write,9056014336,2048,2833"));
        assert!(!is_header("0,303567,3584,w,0.000000"));
        assert!(!is_header("Read"));
        assert!(!is_header("hello world"));
    }

    /// Each role by its name: `Timestamp` is the time (no unit in the name), `Op` the op,
    /// `Offset` and `Size` the addresses; `Disk` is the device. Units a name states are used.
    #[test]
    fn the_hint_maps_each_name_to_its_role() {
        let (names, h) = hint("Timestamp,Disk,Op,Offset,Size");
        assert_eq!(names, "Timestamp, Disk, Op, Offset, Size");
        assert!(
            h.starts_with("read it with --header --columns \"time=Timestamp:UNIT,device=Disk,op=Op,offset=Offset:UNIT,size=Size:UNIT\" (in a workload file"),
            "{h}"
        );
        let (_, h) = hint("time_us lba size_bytes rw");
        assert!(
            h.contains(
                "--columns \"time=time_us:us,op=rw,offset=lba:sectors,size=size_bytes:bytes\" --separator blanks"
            ),
            "{h}"
        );
        let (_, h) = hint("when,what,where");
        assert!(h.contains("--columns \"time=?,op=?,offset=?,size=?\""), "{h}");
    }
}
