//! Frames typed from JSON and CSV as the module's rules say, and written to Parquet files
//! that the `parquet` crate's own reader reads back with the names, types and values put in.

use ::parquet::basic::{LogicalType, Repetition, Type as Physical};
use ::parquet::file::reader::{FileReader, SerializedFileReader};
use ::parquet::record::Field;
use serde_json::json;

use super::*;

fn column(name: &str, values: Values) -> Column {
    Column { name: name.to_string(), values }
}

/// Five columns, one of each type, two rows, with a missing value and the largest seed.
fn small() -> Frame {
    Frame::new(vec![
        column("run", Values::Text(vec![Some("a".into()), Some("b,c \"q\"".into())])),
        column("seed", Values::UInt(vec![Some(1), Some(u64::MAX)])),
        column("requests", Values::Int(vec![Some(5000), None])),
        column("iops", Values::Float(vec![Some(1234.5), Some(-0.125)])),
        column("gc", Values::Bool(vec![Some(true), Some(false)])),
    ])
}

fn temp_file(tag: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("ssdlab-table-test-{}-{tag}.parquet", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_frame_reads_back_through_the_parquet_crates_reader() {
    let path = temp_file("reader", &parquet::to_bytes(&small()));
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let found: Vec<(String, Physical, Option<LogicalType>, Repetition)> = schema
        .columns()
        .iter()
        .map(|c| {
            let rep = c.self_type().get_basic_info().repetition();
            (c.name().to_string(), c.physical_type(), c.logical_type_ref().cloned(), rep)
        })
        .collect();
    let want = [
        ("run", Physical::BYTE_ARRAY, Some(LogicalType::String), Repetition::REQUIRED),
        ("seed", Physical::INT64, Some(LogicalType::integer(64, false)), Repetition::REQUIRED),
        ("requests", Physical::INT64, None, Repetition::OPTIONAL),
        ("iops", Physical::DOUBLE, None, Repetition::REQUIRED),
        ("gc", Physical::BOOLEAN, None, Repetition::REQUIRED),
    ];
    let want: Vec<_> = want.into_iter().map(|(n, p, l, r)| (n.to_string(), p, l, r)).collect();
    assert_eq!(found, want);
    assert_eq!(reader.metadata().file_metadata().num_rows(), 2);
    let rows: Vec<Vec<(String, Field)>> = reader
        .get_row_iter(None)
        .unwrap()
        .map(|r| r.unwrap().get_column_iter().map(|(n, f)| (n.clone(), f.clone())).collect())
        .collect();
    let row = |cells: [Field; 5]| -> Vec<(String, Field)> {
        ["run", "seed", "requests", "iops", "gc"].iter().map(|n| n.to_string()).zip(cells).collect()
    };
    assert_eq!(
        rows,
        vec![
            row([Field::Str("a".into()), Field::ULong(1), Field::Long(5000), Field::Double(1234.5), Field::Bool(true)]),
            row([
                Field::Str("b,c \"q\"".into()),
                Field::ULong(18_446_744_073_709_551_615),
                Field::Null,
                Field::Double(-0.125),
                Field::Bool(false)
            ]),
        ]
    );
    // Our reader gives the frame back; the same frame gives the same bytes.
    assert_eq!(parquet::read(std::fs::File::open(&path).unwrap()).unwrap(), small());
    assert_eq!(parquet::to_bytes(&small()), parquet::to_bytes(&small()));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_file_that_is_not_parquet_is_an_error_not_a_panic() {
    let path = temp_file("bad", b"scheduler,tsu\ndirect,ooo\n");
    let e = parquet::read(std::fs::File::open(&path).unwrap()).unwrap_err();
    assert!(e.starts_with("not a Parquet file ssdlab reads"), "{e}");
    std::fs::remove_file(&path).unwrap();
}

/// JSON columns: booleans, whole numbers (unsigned only when needed), numbers (an integer
/// among floats is a float), and anything mixed as text, as the CSV writes it.
#[test]
fn json_columns_are_typed_by_their_values() {
    let columns: Vec<String> = ["b", "i", "u", "f", "mixed", "none"].iter().map(|s| s.to_string()).collect();
    let rows = vec![
        vec![json!(true), json!(-4), json!(u64::MAX), json!(1), json!(4), json!(null)],
        vec![json!(null), json!(7), json!(0), json!(2.5), json!("auto"), json!(null)],
    ];
    let f = Frame::from_json(&columns, &rows);
    let values: Vec<&Values> = f.columns.iter().map(|c| &c.values).collect();
    assert_eq!(
        values,
        [
            &Values::Bool(vec![Some(true), None]),
            &Values::Int(vec![Some(-4), Some(7)]),
            &Values::UInt(vec![Some(u64::MAX), Some(0)]),
            &Values::Float(vec![Some(1.0), Some(2.5)]),
            &Values::Text(vec![Some("4".into()), Some("auto".into())]),
            &Values::Float(vec![None, None]),
        ]
    );
}

/// CSV columns as pandas' read_csv types them: an empty cell is missing, quoted cells keep
/// their commas and quotes.
#[test]
fn csv_columns_are_typed_as_pandas_reads_them() {
    let text = "trace,n,share,flag,note\r\nhm_0,3,0.25,true,\n\"a,b\"\"\",,1e3,False,x\n\n";
    let f = Frame::from_csv(text).unwrap();
    let want = Frame::new(vec![
        column("trace", Values::Text(vec![Some("hm_0".into()), Some("a,b\"".into())])),
        column("n", Values::Int(vec![Some(3), None])),
        column("share", Values::Float(vec![Some(0.25), Some(1000.0)])),
        column("flag", Values::Bool(vec![Some(true), Some(false)])),
        column("note", Values::Text(vec![None, Some("x".into())])),
    ]);
    assert_eq!(f, want);
    let e = Frame::from_csv("a,b\n1,2\n3\n").unwrap_err();
    assert_eq!(e, "line 3: 1 cells where the header has 2");
}

/// Rows are appended only to a frame of the same columns, else the first that differs.
#[test]
fn append_needs_the_same_columns() {
    let mut f = small();
    f.append(small()).unwrap();
    assert_eq!(f.rows(), 4);
    assert_eq!(f.columns[2].values, Values::Int(vec![Some(5000), None, Some(5000), None]));
    let mut other = small();
    other.columns[1].values = Values::Int(vec![Some(1), Some(2)]);
    let e = small().append(other).unwrap_err();
    assert_eq!(e, "column 2 is `seed` (INT64 (unsigned)) where the new rows have `seed` (INT64)");
    let mut shorter = small();
    shorter.columns.pop();
    let e = small().append(shorter).unwrap_err();
    assert_eq!(e, "column 5 is `gc` (BOOLEAN) where the new rows have (nothing)");
}

/// `run --parquet`'s report columns are `--csv`'s: the same names in the same order, and
/// values that the CSV's rounding turns into its cells; 300 requests, as the workload asks.
#[test]
fn report_columns_are_the_csv_columns_typed() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let small =
        ["nand.blocks_per_plane=128", "nand.pages_per_block=64", "ftl.overprovisioning_ratio=0.25"].map(String::from);
    let config = ssdlab::Config::load(&root.join("presets/mqsim-default.toml"), &small).unwrap();
    let text = "[[flows]]\nname = \"mix\"\nread_ratio = 0.5\nrequest_bytes = 4096\nqueue_depth = 4\nrequests = 300\n";
    let workload = ssdlab::WorkloadSpec::from_toml_str(text, "w", std::path::Path::new(".")).unwrap();
    let r = ssdlab::run(&config, &workload, None, &Default::default()).unwrap();
    let columns = report_columns(std::slice::from_ref(&r));
    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.join(","), Report::CSV_HEADER);
    // The CSV's decimals per column (Report::csv_row's format).
    let decimals = [0, 0, 0, 3, 3, 3, 3, 3, 3, 6, 6, 6, 6, 9, 6, 0, 9, 0];
    let cells: Vec<String> = columns
        .iter()
        .zip(decimals)
        .map(|(c, d)| match &c.values {
            Values::Text(v) => v[0].clone().unwrap(),
            Values::Int(v) => v[0].unwrap().to_string(),
            Values::Float(v) => format!("{:.*}", d, v[0].unwrap()),
            other => panic!("{}: {other:?}", c.name),
        })
        .collect();
    assert_eq!(cells.join(","), r.csv_row());
    assert_eq!(columns[2].values, Values::Int(vec![Some(300)]));
}
