//! `kseg export --format parquet` read back with the parquet crate: row
//! for row, the records `export --json` prints (and so Kafka's own, which
//! the JSON export is checked against in `export`), for every clean
//! corpus partition.

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use base64::Engine as _;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Value, json};

use super::corpus::cases;
use super::util::{json_lines, kseg, stderr};

fn b64(bytes: &[u8]) -> Value {
    base64::engine::general_purpose::STANDARD
        .encode(bytes)
        .into()
}

fn binary(batch: &RecordBatch, name: &str, row: usize) -> Value {
    let column = batch.column_by_name(name).unwrap().as_binary::<i32>();
    if column.is_null(row) {
        Value::Null
    } else {
        b64(column.value(row))
    }
}

fn int<T: arrow_array::types::ArrowPrimitiveType>(
    batch: &RecordBatch,
    name: &str,
    row: usize,
) -> Value
where
    T::Native: Into<i64>,
{
    let column = batch.column_by_name(name).unwrap().as_primitive::<T>();
    json!(column.value(row).into())
}

fn text(batch: &RecordBatch, name: &str, row: usize) -> Option<String> {
    let column = batch.column_by_name(name).unwrap().as_string::<i32>();
    (!column.is_null(row)).then(|| column.value(row).to_string())
}

fn boolean(batch: &RecordBatch, name: &str, row: usize) -> bool {
    batch.column_by_name(name).unwrap().as_boolean().value(row)
}

/// Row `row` in the shape of an `export --json --encoding base64` line.
fn row_as_json(batch: &RecordBatch, row: usize) -> Value {
    let headers = batch.column_by_name("headers").unwrap().as_list::<i32>();
    let entries = headers.value(row);
    let entries = entries.as_struct();
    let keys = entries.column(0).as_string::<i32>();
    let values = entries.column(1).as_binary::<i32>();
    let headers: Vec<Value> = (0..entries.len())
        .map(|i| {
            let value = if values.is_null(i) {
                Value::Null
            } else {
                b64(values.value(i))
            };
            json!({"key": keys.value(i), "value": value})
        })
        .collect();
    let topic = text(batch, "topic", row).unwrap();
    let partition = batch
        .column_by_name("partition")
        .unwrap()
        .as_primitive::<Int32Type>()
        .value(row);
    let mut line = json!({
        "partition": format!("{topic}-{partition}"),
        "offset": int::<Int64Type>(batch, "offset", row),
        "timestamp": int::<Int64Type>(batch, "timestamp", row),
        "timestampType": text(batch, "timestampType", row).unwrap(),
        "key": binary(batch, "key", row),
        "value": binary(batch, "value", row),
        "headers": headers,
        "producerId": int::<Int64Type>(batch, "producerId", row),
        "producerEpoch": int::<Int16Type>(batch, "producerEpoch", row),
        "sequence": int::<Int32Type>(batch, "sequence", row),
        "partitionLeaderEpoch": int::<Int32Type>(batch, "partitionLeaderEpoch", row),
        "isTransactional": boolean(batch, "isTransactional", row),
        "isControl": boolean(batch, "isControl", row),
    });
    if let Some(control) = text(batch, "controlType", row) {
        line["controlType"] = control.into();
    }
    line
}

/// Every row of the Parquet file at `path`.
fn rows(path: &Path) -> Vec<Value> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        out.extend((0..batch.num_rows()).map(|row| row_as_json(&batch, row)));
    }
    out
}

#[test]
fn a_parquet_export_holds_what_the_json_export_prints_row_for_row() {
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for case in cases() {
        if case.name.starts_with("unclean-") || case.name.starts_with("internal-") {
            continue;
        }
        for p in case.partitions() {
            let dir = p.dir.display().to_string();
            let file = tmp
                .path()
                .join(format!("{}.parquet", p.label.replace('/', "_")));
            let file_arg = file.display().to_string();
            let out = kseg([
                "export",
                "--include-control",
                "--format",
                "parquet",
                "-o",
                &file_arg,
                &dir,
            ]);
            let json = kseg(["export", "--include-control", "--encoding", "base64", &dir]);
            assert_eq!(
                out.status.code(),
                json.status.code(),
                "{}: {}",
                p.label,
                stderr(&out)
            );
            let expected = json_lines(&json);
            let got = rows(&file);
            assert_eq!(got.len(), expected.len(), "{}: rows", p.label);
            for (g, e) in got.iter().zip(&expected) {
                assert_eq!(g, e, "{}", p.label);
            }
            checked += got.len();
        }
    }
    assert!(checked > 10_000, "only {checked} records compared");
}

#[test]
fn a_parquet_export_needs_a_file_and_leaves_none_when_it_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let out = kseg(["export", "--format", "parquet", "testdata/orders-0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--output"), "{}", stderr(&out));
    let file = tmp.path().join("out.parquet");
    let missing = tmp.path().join("no-such-partition");
    let out = kseg([
        "export",
        "--format",
        "parquet",
        "-o",
        file.to_str().unwrap(),
        missing.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(0));
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}
