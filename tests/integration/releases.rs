//! Records of Kafka releases newer than kseg knows, records only 4.x
//! writes, and the README's table of record types by release.

use std::path::Path;

use kseg::fixture::{PartitionWriter, WriterConfig};
use kseg::format::encode::{BatchSpec, RecordSpec};
use serde_json::{Value, json};

use super::util::{json_lines, kseg, repo, stderr, stdout};

/// A `__consumer_offsets-0` with one batch of these (key, value) records.
fn offsets_partition(root: &Path, records: &[(Vec<u8>, Vec<u8>)]) -> std::path::PathBuf {
    let dir = root.join("__consumer_offsets-0");
    let mut w = PartitionWriter::create(&dir, WriterConfig::default()).unwrap();
    w.append(BatchSpec {
        records: records
            .iter()
            .map(|(k, v)| RecordSpec {
                key: Some(k.clone()),
                value: Some(v.clone()),
                ..RecordSpec::default()
            })
            .collect(),
        ..BatchSpec::default()
    })
    .unwrap();
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
    dir.join("00000000000000000000.log")
}

fn string(s: &str) -> Vec<u8> {
    let mut out = (s.len() as i16).to_be_bytes().to_vec();
    out.extend_from_slice(s.as_bytes());
    out
}

/// An offset commit key (type 1): group, topic, partition.
fn offset_commit_key() -> Vec<u8> {
    let mut key = vec![0, 1];
    key.extend(string("g"));
    key.extend(string("t"));
    key.extend(3i32.to_be_bytes());
    key
}

#[test]
fn a_value_version_newer_than_every_known_release_prints_raw_and_warns() {
    let tmp = tempfile::tempdir().unwrap();
    // OffsetCommitValue version 9: no release kseg knows writes past 4.
    let value = vec![0, 9, 1, 2, 3];
    let log = offsets_partition(tmp.path(), &[(offset_commit_key(), value)]);
    let log = log.to_str().unwrap();

    let out = kseg(["dump", "--print-data-log", "--encoding", "hex", log]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text.lines().find(|l| l.starts_with("| offset: 0")).unwrap();
    assert!(line.contains(" payload: 0009010203"), "{line}");
    assert!(
        line.contains(" decodeError: value at byte 2: OffsetCommitValue has no version 9"),
        "{line}"
    );
    assert!(
        line.contains(" newerThanKnown: OffsetCommitValue version 9 is newer than any release kseg knows (the newest, 4.2 ("),
        "{line}"
    );
    assert!(line.ends_with("writes up to 4)"), "{line}");
    assert!(stderr(&out).contains("record at offset 0: OffsetCommitValue version 9"));

    let out = kseg([
        "dump",
        "--print-data-log",
        "--json",
        "--encoding",
        "hex",
        log,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let records: Vec<Value> = json_lines(&out)
        .into_iter()
        .filter(|l| l["type"] == "record")
        .collect();
    assert_eq!(records.len(), 1);
    let r = &records[0];
    assert_eq!(r["value"], json!("0009010203"));
    assert_eq!(r["key"]["type"], json!("1"));
    assert!(
        r["valueError"]
            .as_str()
            .unwrap()
            .contains("has no version 9")
    );
    let newer = r["newerThanKnown"].as_str().unwrap();
    assert!(
        newer.contains("newer than any release kseg knows (the newest, 4.2"),
        "{newer}"
    );
}

#[test]
fn a_record_type_no_release_has_prints_raw_and_warns() {
    let tmp = tempfile::tempdir().unwrap();
    // Type 18 is in no release (4.1 skipped it).
    let log = offsets_partition(tmp.path(), &[(vec![0, 18, 0, 0], vec![0, 0])]);
    let out = kseg([
        "dump",
        "--print-data-log",
        "--json",
        "--encoding",
        "hex",
        log.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = json_lines(&out)
        .into_iter()
        .find(|l| l["type"] == "record")
        .unwrap();
    assert_eq!(r["key"], json!("00120000"));
    let newer = r["newerThanKnown"].as_str().unwrap();
    assert!(
        newer.starts_with("record type 18 is in no release kseg knows (the newest: 4.2"),
        "{newer}"
    );
    // A record that merely fails (a truncated known one) is not "newer".
    let tmp = tempfile::tempdir().unwrap();
    let log = offsets_partition(tmp.path(), &[(offset_commit_key(), vec![0, 3, 1])]);
    let out = kseg(["dump", "--print-data-log", "--json", log.to_str().unwrap()]);
    let r = json_lines(&out)
        .into_iter()
        .find(|l| l["type"] == "record")
        .unwrap();
    assert!(r["valueError"].is_string(), "{r}");
    assert!(r.get("newerThanKnown").is_none(), "{r}");
}

#[test]
fn a_streams_group_record_of_kafka_4_1_decodes_with_its_fields() {
    let tmp = tempfile::tempdir().unwrap();
    // StreamsGroupMetadataKey (type 17): GroupId.
    let mut key = vec![0, 17];
    key.extend(string("orders-app"));
    // StreamsGroupMetadataValue v0 (flexible): Epoch, MetadataHash, then
    // one tagged field, ValidatedTopologyEpoch (tag 0) = 3.
    let mut value = vec![0, 0];
    value.extend(7i32.to_be_bytes());
    value.extend(42i64.to_be_bytes());
    value.extend([1, 0, 4, 0, 0, 0, 3]);
    let log = offsets_partition(tmp.path(), &[(key, value)]);
    let out = kseg(["dump", "--print-data-log", "--json", log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = json_lines(&out)
        .into_iter()
        .find(|l| l["type"] == "record")
        .unwrap();
    assert_eq!(
        r["key"],
        json!({"type": "17", "data": {"groupId": "orders-app"}})
    );
    assert_eq!(
        r["value"],
        json!({"version": "0", "data": {"epoch": 7, "metadataHash": 42, "validatedTopologyEpoch": 3}})
    );
    assert!(r.get("newerThanKnown").is_none());
}

#[test]
fn the_readme_table_of_record_types_is_generated_from_releases_json() {
    let path = repo().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- record-types:begin -->\n", "<!-- record-types:end -->");
    let start = readme
        .find(begin)
        .expect("README has the record-type table")
        + begin.len();
    let stop = readme[start..].find(end).unwrap() + start;
    let table = kseg::schema::releases::record_type_table();
    if std::env::var_os("KSEG_UPDATE_GOLDEN").is_some() {
        let updated = format!("{}{table}{}", &readme[..start], &readme[stop..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert_eq!(
        &readme[start..stop],
        table,
        "README's table is stale; rerun with KSEG_UPDATE_GOLDEN=1"
    );
}
