//! A [`Frame`] as a Parquet file and back, with the `parquet` crate's low-level column
//! writer (no Arrow): one row group, a column chunk per column, pages compressed with
//! snappy (what pandas writes by default). The schema is flat: a column's type is its
//! [`Values`]' ([`super`] lists them), OPTIONAL if it holds a null, else REQUIRED. The file
//! is the same bytes for the same frame.

use std::sync::Arc;

use ::parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use ::parquet::data_type::{BoolType, ByteArray, ByteArrayType, DataType, DoubleType, Int64Type};
use ::parquet::file::properties::WriterProperties;
use ::parquet::file::reader::{FileReader, SerializedFileReader};
use ::parquet::file::writer::SerializedFileWriter;
use ::parquet::record::Field;
use ::parquet::schema::types::{ColumnDescriptor, Type};

use super::{Column, Frame, Values};

/// The frame as a Parquet file's bytes.
pub fn to_bytes(frame: &Frame) -> Vec<u8> {
    let fields = frame.columns.iter().map(|c| Arc::new(field(c))).collect();
    let schema =
        Type::group_type_builder("schema").with_fields(fields).build().expect("a flat schema of named columns");
    let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    let mut writer =
        SerializedFileWriter::new(Vec::new(), Arc::new(schema), Arc::new(props)).expect("writing to memory");
    let mut group = writer.next_row_group().expect("writing to memory");
    for c in &frame.columns {
        let mut column = group.next_column().expect("writing to memory").expect("a writer per column");
        let w = &mut column;
        match &c.values {
            Values::Int(v) => write::<Int64Type, _>(w.typed(), v, |x| *x),
            Values::UInt(v) => write::<Int64Type, _>(w.typed(), v, |x| *x as i64), // bits kept: unsigned
            Values::Float(v) => write::<DoubleType, _>(w.typed(), v, |x| *x),
            Values::Bool(v) => write::<BoolType, _>(w.typed(), v, |x| *x),
            Values::Text(v) => write::<ByteArrayType, _>(w.typed(), v, |x| ByteArray::from(x.as_str())),
        }
        column.close().expect("writing to memory");
    }
    group.close().expect("writing to memory");
    writer.into_inner().expect("writing to memory")
}

/// The schema field of a column.
fn field(c: &Column) -> Type {
    let (physical, logical) = match &c.values {
        Values::Int(_) => (Physical::INT64, None),
        Values::UInt(_) => (Physical::INT64, Some(LogicalType::integer(64, false))),
        Values::Float(_) => (Physical::DOUBLE, None),
        Values::Bool(_) => (Physical::BOOLEAN, None),
        Values::Text(_) => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
    };
    let repetition = if c.values.has_null() { Repetition::OPTIONAL } else { Repetition::REQUIRED };
    Type::primitive_type_builder(&c.name, physical)
        .with_repetition(repetition)
        .with_logical_type(logical)
        .build()
        .expect("a primitive type with its annotation")
}

/// A column's values: the present ones, and a definition level per row (1 present, 0
/// missing) if the column is nullable.
fn write<T: DataType, V>(
    w: &mut ::parquet::column::writer::ColumnWriterImpl<'_, T>,
    values: &[Option<V>],
    to: impl Fn(&V) -> T::T,
) {
    let present: Vec<T::T> = values.iter().flatten().map(to).collect();
    let levels: Vec<i16> = values.iter().map(|v| i16::from(v.is_some())).collect();
    let nullable = values.iter().any(Option::is_none);
    w.write_batch(&present, nullable.then_some(&levels[..]), None).expect("writing to memory");
}

/// The frame in a Parquet file of flat columns of the types [`to_bytes`] writes (INT64,
/// signed or not, DOUBLE, BOOLEAN, UTF-8 strings); a file of other types, or not Parquet,
/// is an error saying why.
pub fn read(file: std::fs::File) -> Result<Frame, String> {
    let reader = SerializedFileReader::new(file).map_err(|e| format!("not a Parquet file ssdlab reads: {e}"))?;
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    if schema.root_schema().get_fields().iter().any(|f| !f.is_primitive()) {
        return Err("a nested column (ssdlab's tables are flat)".into());
    }
    let mut columns = schema.columns().iter().map(|c| empty(c)).collect::<Result<Vec<_>, _>>()?;
    let rows = reader.get_row_iter(None).map_err(|e| e.to_string())?;
    for row in rows {
        let row = row.map_err(|e| e.to_string())?;
        for (column, (_, cell)) in columns.iter_mut().zip(row.get_column_iter()) {
            push(column, cell)?;
        }
    }
    Ok(Frame::new(columns))
}

/// A column of the type `c` describes, with no values yet.
fn empty(c: &ColumnDescriptor) -> Result<Column, String> {
    let values = match (c.physical_type(), c.logical_type_ref()) {
        (Physical::INT64, None) => Values::Int(Vec::new()),
        (Physical::INT64, Some(LogicalType::Integer(t))) if t.bit_width == 64 && t.is_signed => Values::Int(Vec::new()),
        (Physical::INT64, Some(LogicalType::Integer(t))) if t.bit_width == 64 => Values::UInt(Vec::new()),
        (Physical::DOUBLE, None) => Values::Float(Vec::new()),
        (Physical::BOOLEAN, None) => Values::Bool(Vec::new()),
        (Physical::BYTE_ARRAY, Some(LogicalType::String)) => Values::Text(Vec::new()),
        (p, l) => {
            let annotated = l.map(|l| format!(" ({l:?})")).unwrap_or_default();
            return Err(format!("column `{}` is {p}{annotated}, not a type ssdlab writes", c.name()));
        }
    };
    Ok(Column { name: c.name().to_string(), values })
}

fn push(column: &mut Column, cell: &Field) -> Result<(), String> {
    match (&mut column.values, cell) {
        (Values::Int(v), Field::Long(x)) => v.push(Some(*x)),
        (Values::UInt(v), Field::ULong(x)) => v.push(Some(*x)),
        (Values::Float(v), Field::Double(x)) => v.push(Some(*x)),
        (Values::Bool(v), Field::Bool(x)) => v.push(Some(*x)),
        (Values::Text(v), Field::Str(x)) => v.push(Some(x.clone())),
        (Values::Int(v), Field::Null) => v.push(None),
        (Values::UInt(v), Field::Null) => v.push(None),
        (Values::Float(v), Field::Null) => v.push(None),
        (Values::Bool(v), Field::Null) => v.push(None),
        (Values::Text(v), Field::Null) => v.push(None),
        (_, other) => return Err(format!("column `{}`: value {other} is not of its type", column.name)),
    }
    Ok(())
}
