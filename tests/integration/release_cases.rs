//! Kafka's releases, each in its own words: the cases `lab/build.sh` wrote
//! with one release's own classes (`tests/releases/<release>.tar.zst`),
//! every record decoded by `kseg dump` and compared field by field with
//! that release's own reading of it (`kafka-view.json`), batch headers
//! included; for the data partition also its offset and time indexes and
//! producer snapshots.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::util::{json_lines, kseg, repo, unpacked};

/// A view's key or value without the raw bytes kept beside Kafka's
/// decoding, nor the `kafka` line (a remote log metadata record's
/// deserialized toString, which kseg does not print).
fn decoded_members(view: &Value) -> Value {
    match view {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "base64" && *k != "kafka")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}

/// kseg's batch fields and the names Kafka's view gives them.
const BATCH_FIELDS: [(&str, &str); 16] = [
    ("baseOffset", "baseOffset"),
    ("lastOffset", "lastOffset"),
    ("count", "count"),
    ("position", "position"),
    ("size", "sizeInBytes"),
    ("magic", "magic"),
    ("crc", "crc"),
    ("isValid", "isValid"),
    ("compression", "compressionType"),
    ("timestampType", "timestampType"),
    ("maxTimestamp", "maxTimestamp"),
    ("producerId", "producerId"),
    ("producerEpoch", "producerEpoch"),
    ("baseSequence", "baseSequence"),
    ("partitionLeaderEpoch", "partitionLeaderEpoch"),
    ("isControl", "isControl"),
];

/// Record fields compared as they are.
const RECORD_FIELDS: [&str; 6] = [
    "offset",
    "timestamp",
    "sizeInBytes",
    "keySize",
    "valueSize",
    "headers",
];

/// Every (file, Kafka's log object) of a case: its segments and snapshots.
fn record_files(partition: &Value) -> Vec<(String, &Value)> {
    let mut out: Vec<(String, &Value)> = partition["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["log"]["file"].as_str().unwrap().to_string(), &s["log"]))
        .collect();
    for snap in partition
        .get("kraftSnapshots")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push((snap["file"].as_str().unwrap().to_string(), &snap["records"]));
    }
    out
}

/// Compares one case of one release: every batch header field, index
/// entry and producer snapshot must match Kafka's reading, and every
/// record's key and value must decode to the JSON Kafka's converters write
/// (the first difference of each kind of record is reported, `type 16 v0
/// value`, `CLEAR_ELR_RECORD v0 value`). Returns how many records it
/// compared.
fn compare_case(release: &str, case: &str) -> usize {
    let dir = unpacked(release).join(case);
    let view: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("kafka-view.json")).unwrap())
            .unwrap();
    assert_eq!(
        view["release"], release,
        "{case}: the view names its release"
    );
    let partition = &view["partition"];
    let part_dir = dir.join(partition["dir"].as_str().unwrap());
    let mut compared = 0;
    let mut failures = BTreeMap::new();
    for (file, log) in record_files(partition) {
        compared += compare_file(
            release,
            &format!("{release}/{case}/{file}"),
            &part_dir.join(&file),
            log,
            &mut failures,
        );
    }
    for segment in partition["segments"].as_array().unwrap() {
        for (index, kind) in [("index", "indexEntry"), ("timeindex", "timeIndexEntry")] {
            if let Some(view) = segment.get(index) {
                compare_index(&part_dir.join(view["file"].as_str().unwrap()), view, kind);
            }
        }
    }
    for snapshot in partition
        .get("producerSnapshots")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        compare_producer_snapshot(&part_dir.join(snapshot["file"].as_str().unwrap()), snapshot);
    }
    let detail: Vec<String> = failures
        .iter()
        .map(|(kind, first)| format!("  {kind:?}: {first}"))
        .collect();
    assert!(
        detail.is_empty(),
        "{release}/{case}: records kseg reads otherwise than Kafka {release}:\n{}",
        detail.join("\n")
    );
    assert!(compared >= 6, "{release}/{case}: only {compared} records");
    compared
}

/// An offset or time index's entries, as kseg dumps them, against the
/// entries Kafka's OffsetIndex/TimeIndex read.
fn compare_index(path: &Path, view: &Value, kind: &str) {
    let lines = json_lines(&kseg(["dump", "--json", path.to_str().unwrap()]));
    let mine: Vec<&Value> = lines.iter().filter(|l| l["type"] == kind).collect();
    let theirs = view["entries"].as_array().unwrap();
    assert_eq!(mine.len(), theirs.len(), "{}: entries", path.display());
    assert!(!theirs.is_empty(), "{}: no entries", path.display());
    for (m, t) in mine.iter().zip(theirs) {
        for (field, _) in t.as_object().unwrap() {
            assert_eq!(m[field], t[field], "{}: {field} of {t}", path.display());
        }
    }
}

/// A producer snapshot's entries, as kseg dumps them, against
/// ProducerStateManager.readSnapshot's (whose sequences and last data
/// offset are those of the entry's newest batch metadata).
fn compare_producer_snapshot(path: &Path, view: &Value) {
    let lines = json_lines(&kseg(["dump", "--json", path.to_str().unwrap()]));
    let mine: Vec<&Value> = lines.iter().filter(|l| l["type"] == "producer").collect();
    let theirs = view["entries"].as_array().unwrap();
    assert_eq!(mine.len(), theirs.len(), "{}: producers", path.display());
    assert!(!theirs.is_empty(), "{}: no producers", path.display());
    for (m, t) in mine.iter().zip(theirs) {
        let at = format!("{}: producer {}", path.display(), t["producerId"]);
        for field in [
            "producerId",
            "producerEpoch",
            "coordinatorEpoch",
            "lastTimestamp",
            "currentTxnFirstOffset",
        ] {
            assert_eq!(m[field], t[field], "{at}: {field}");
        }
        let last = m["batchMetadata"].as_array().unwrap().last().unwrap();
        assert_eq!(last["firstSeq"], t["firstSeq"], "{at}: firstSeq");
        assert_eq!(last["lastSeq"], t["lastSeq"], "{at}: lastSeq");
        assert_eq!(
            last["lastOffset"], t["lastDataOffset"],
            "{at}: lastDataOffset"
        );
    }
}

/// Compares a file's batches and records; a record that differs is noted
/// under its kind (with the first such record's details), so a run lists
/// every kind kseg reads otherwise.
fn compare_file(
    release: &str,
    label: &str,
    path: &Path,
    log: &Value,
    failures: &mut BTreeMap<String, String>,
) -> usize {
    let out = kseg([
        "dump",
        "--json",
        "--deep-iteration",
        "--encoding",
        "base64",
        path.to_str().unwrap(),
    ]);
    let lines = json_lines(&out);
    let batches: Vec<&Value> = lines.iter().filter(|l| l["type"] == "batch").collect();
    let records: Vec<&Value> = lines.iter().filter(|l| l["type"] == "record").collect();
    let kafka_batches = log["batches"].as_array().unwrap();
    assert_eq!(batches.len(), kafka_batches.len(), "{label}: batch count");
    for (mine, kafka) in batches.iter().zip(kafka_batches) {
        for (ours, theirs) in BATCH_FIELDS {
            assert_eq!(
                mine[ours], kafka[theirs],
                "{label}: batch at {} field {ours}",
                kafka["baseOffset"]
            );
        }
    }
    let expected: Vec<&Value> = kafka_batches
        .iter()
        .flat_map(|b| b["records"].as_array().unwrap())
        .collect();
    assert_eq!(records.len(), expected.len(), "{label}: record count");
    for (kafka, mine) in expected.iter().zip(&records) {
        let at = format!("{label} offset {}", kafka["offset"]);
        for field in RECORD_FIELDS {
            assert_eq!(mine[field], kafka[field], "{at}: {field}");
        }
        for part in ["key", "value"] {
            let theirs = match &kafka[part] {
                // A data record's bytes, which kseg prints as base64.
                Value::Object(m) if m.len() == 1 && m.contains_key("base64") => m["base64"].clone(),
                other => renamed(release, decoded_members(other)),
            };
            let why = match mine.get(format!("{part}Error")) {
                Some(error) => format!("kseg: {error}"),
                None if mine[part] == theirs => continue,
                None => format!("kseg {} vs Kafka {theirs}", mine[part]),
            };
            failures
                .entry(format!("{} {part}", kind(kafka)))
                .or_insert(format!("{at}: {why}"));
        }
    }
    expected.len()
}

/// Fields a release's JSON converters name otherwise than the newest
/// release's schemas, for the same bytes: (release, its name, the newest
/// name). 3.7's PartitionRecord and PartitionChangeRecord v2 named
/// `LastKnownELR` what 3.8 on call `LastKnownElr`.
const RENAMED_FIELDS: &[(&str, &str, &str)] = &[("3.7", "lastKnownELR", "lastKnownElr")];

/// Kafka's JSON with the fields `release` named otherwise given the newest
/// release's names, at every depth.
fn renamed(release: &str, json: Value) -> Value {
    match json {
        Value::Object(members) => Value::Object(
            members
                .into_iter()
                .map(|(name, v)| {
                    let name = RENAMED_FIELDS
                        .iter()
                        .find(|(r, old, _)| *r == release && *old == name)
                        .map_or(name, |(_, _, new)| new.to_string());
                    (name, renamed(release, v))
                })
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| renamed(release, v)).collect())
        }
        other => other,
    }
}

/// What a record is, for the report: `type 16 v0` or `type 16
/// tombstone` (coordinator records: key type, value version; `key v0 v1`
/// for the transaction log, whose keys are version-prefixed),
/// `CLEAR_ELR_RECORD v0` (metadata), `KRAFT_VOTERS v0` (control).
fn kind(record: &Value) -> String {
    let (key, value) = (&record["key"], &record["value"]);
    if let Some(control) = record.get("controlType").and_then(Value::as_str) {
        return format!("{control} v{}", value["version"]);
    }
    if key.is_null() {
        return format!(
            "{} v{}",
            value["type"].as_str().unwrap_or("?"),
            value["version"]
        );
    }
    let version = match value.get("version") {
        Some(Value::String(v)) => format!("v{v}"),
        Some(Value::Number(v)) => format!("v{v}"),
        _ => "tombstone".to_string(),
    };
    match key["type"].as_str() {
        Some(t) => format!("type {t} {version}"),
        // A transaction log record: its key's 2-byte prefix.
        None => format!("key v{} {version}", key["version"]),
    }
}

/// One test per release and case, named `release_<release>_<case>`
/// (dots and dashes as underscores).
macro_rules! release_case {
    ($name:ident, $release:literal, $case:literal) => {
        #[test]
        fn $name() {
            let n = compare_case($release, $case);
            eprintln!("{}/{}: {n} records as Kafka reads them", $release, $case);
        }
    };
}

release_case!(
    release_3_6_internal_consumer_offsets,
    "3.6",
    "internal-consumer-offsets"
);
release_case!(
    release_3_6_internal_cluster_metadata,
    "3.6",
    "internal-cluster-metadata"
);
release_case!(
    release_3_7_internal_consumer_offsets,
    "3.7",
    "internal-consumer-offsets"
);
release_case!(
    release_3_7_internal_cluster_metadata,
    "3.7",
    "internal-cluster-metadata"
);
release_case!(release_3_6_data_idempotent, "3.6", "data-idempotent");
release_case!(release_3_7_data_idempotent, "3.7", "data-idempotent");
release_case!(release_3_8_data_idempotent, "3.8", "data-idempotent");
release_case!(
    release_3_8_internal_consumer_offsets,
    "3.8",
    "internal-consumer-offsets"
);
release_case!(
    release_3_8_internal_cluster_metadata,
    "3.8",
    "internal-cluster-metadata"
);
release_case!(
    release_3_9_internal_consumer_offsets,
    "3.9",
    "internal-consumer-offsets"
);
release_case!(
    release_3_9_internal_cluster_metadata,
    "3.9",
    "internal-cluster-metadata"
);
release_case!(release_3_9_data_idempotent, "3.9", "data-idempotent");
release_case!(release_4_0_data_idempotent, "4.0", "data-idempotent");
release_case!(
    release_4_0_internal_consumer_offsets,
    "4.0",
    "internal-consumer-offsets"
);
release_case!(
    release_4_0_internal_share_group_state,
    "4.0",
    "internal-share-group-state"
);
release_case!(
    release_4_0_internal_cluster_metadata,
    "4.0",
    "internal-cluster-metadata"
);
release_case!(release_4_1_data_idempotent, "4.1", "data-idempotent");
release_case!(
    release_4_1_internal_consumer_offsets,
    "4.1",
    "internal-consumer-offsets"
);
release_case!(
    release_4_1_internal_share_group_state,
    "4.1",
    "internal-share-group-state"
);
release_case!(
    release_4_1_internal_cluster_metadata,
    "4.1",
    "internal-cluster-metadata"
);
release_case!(release_4_2_data_idempotent, "4.2", "data-idempotent");
release_case!(
    release_4_2_internal_consumer_offsets,
    "4.2",
    "internal-consumer-offsets"
);
release_case!(
    release_4_2_internal_share_group_state,
    "4.2",
    "internal-share-group-state"
);
release_case!(
    release_4_2_internal_cluster_metadata,
    "4.2",
    "internal-cluster-metadata"
);

release_case!(
    release_3_6_internal_remote_log_metadata,
    "3.6",
    "internal-remote-log-metadata"
);
release_case!(
    release_3_7_internal_remote_log_metadata,
    "3.7",
    "internal-remote-log-metadata"
);
release_case!(
    release_3_8_internal_remote_log_metadata,
    "3.8",
    "internal-remote-log-metadata"
);
release_case!(
    release_3_9_internal_remote_log_metadata,
    "3.9",
    "internal-remote-log-metadata"
);
release_case!(
    release_4_0_internal_remote_log_metadata,
    "4.0",
    "internal-remote-log-metadata"
);
release_case!(
    release_4_1_internal_remote_log_metadata,
    "4.1",
    "internal-remote-log-metadata"
);
release_case!(
    release_4_2_internal_remote_log_metadata,
    "4.2",
    "internal-remote-log-metadata"
);

release_case!(
    release_3_6_internal_transaction_state,
    "3.6",
    "internal-transaction-state"
);
release_case!(
    release_3_7_internal_transaction_state,
    "3.7",
    "internal-transaction-state"
);
release_case!(
    release_3_8_internal_transaction_state,
    "3.8",
    "internal-transaction-state"
);
release_case!(
    release_3_9_internal_transaction_state,
    "3.9",
    "internal-transaction-state"
);
release_case!(
    release_4_0_internal_transaction_state,
    "4.0",
    "internal-transaction-state"
);
release_case!(
    release_4_1_internal_transaction_state,
    "4.1",
    "internal-transaction-state"
);
release_case!(
    release_4_2_internal_transaction_state,
    "4.2",
    "internal-transaction-state"
);

release_case!(
    release_3_6_internal_consumer_offsets_groups,
    "3.6",
    "internal-consumer-offsets-groups"
);
release_case!(
    release_3_7_internal_consumer_offsets_groups,
    "3.7",
    "internal-consumer-offsets-groups"
);
release_case!(
    release_3_8_internal_consumer_offsets_groups,
    "3.8",
    "internal-consumer-offsets-groups"
);
release_case!(
    release_3_9_internal_consumer_offsets_groups,
    "3.9",
    "internal-consumer-offsets-groups"
);
release_case!(
    release_4_0_internal_consumer_offsets_groups,
    "4.0",
    "internal-consumer-offsets-groups"
);
release_case!(
    release_4_1_internal_consumer_offsets_groups,
    "4.1",
    "internal-consumer-offsets-groups"
);
release_case!(
    release_4_2_internal_consumer_offsets_groups,
    "4.2",
    "internal-consumer-offsets-groups"
);

#[test]
fn every_packed_release_has_a_test_and_names_its_commit() {
    let readme = std::fs::read_to_string(repo().join("tests/releases/README.md")).unwrap();
    let source =
        std::fs::read_to_string(repo().join("tests/integration/release_cases.rs")).unwrap();
    let mut releases = Vec::new();
    for entry in std::fs::read_dir(repo().join("tests/releases")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(release) = name.strip_suffix(".tar.zst") else {
            continue;
        };
        let dir = unpacked(release);
        let mut commits = Vec::new();
        for case in std::fs::read_dir(&dir).unwrap() {
            let case = case.unwrap();
            let view: Value = serde_json::from_str(
                &std::fs::read_to_string(case.path().join("kafka-view.json")).unwrap(),
            )
            .unwrap();
            let case_name = case.file_name().to_string_lossy().into_owned();
            let test = format!("release_{release}_{case_name}").replace(['.', '-'], "_");
            assert!(
                source.contains(&format!("{test},")),
                "{release}/{case_name} has no release_case! test named {test}"
            );
            commits.push(view["kafkaCommit"].as_str().unwrap().to_string());
        }
        commits.dedup();
        assert_eq!(commits.len(), 1, "{release}: one commit per release");
        assert!(
            readme.contains(&commits[0]),
            "tests/releases/README.md does not name {release}'s commit {}",
            commits[0]
        );
        releases.push(release.to_string());
    }
    assert!(releases.iter().any(|r| r == "3.9"), "{releases:?}");
}
