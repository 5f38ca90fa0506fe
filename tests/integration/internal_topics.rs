//! Kafka's internal topics decoded: every record of the internal-topic
//! corpus cases, decoded by `kseg dump`, against the key and value Kafka's
//! own serdes and JSON converters produced (`kafka-view.json`); every
//! embedded schema reachable by dispatch; corrupt records reported, never
//! a panic.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Map, Value};

use kseg::schema::registry::{embedded, registry};
use kseg::schema::spec::record_type_name;
use kseg::schema::{Decoded, InternalTopic, decode_record};

use super::corpus::{cases, decode_base64};
use super::util::{json_lines, kseg, stdout};

const CASES: [&str; 3] = [
    "internal-consumer-offsets",
    "internal-transaction-state",
    "internal-cluster-metadata",
];

/// A view's key or value without the raw-bytes members kept beside Kafka's decoding.
fn decoded_members(view: &Value) -> Value {
    match view {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "base64" && *k != "utf8")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}

/// Every (file, records) a view lists: the segments' logs and the snapshots.
fn record_files(partition: &Value) -> Vec<(String, Vec<Value>)> {
    let records = |log: &Value| -> Vec<Value> {
        log["batches"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|b| b["records"].as_array().unwrap().clone())
            .collect()
    };
    let mut out: Vec<(String, Vec<Value>)> = partition["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["log"]["file"].as_str().unwrap().to_string(),
                records(&s["log"]),
            )
        })
        .collect();
    for snap in partition
        .get("kraftSnapshots")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push((
            snap["file"].as_str().unwrap().to_string(),
            records(&snap["records"]),
        ));
    }
    out
}

fn dump_records(path: &Path) -> Vec<Value> {
    let out = kseg([
        "dump",
        "--json",
        "--deep-iteration",
        "--encoding",
        "base64",
        path.to_str().unwrap(),
    ]);
    json_lines(&out)
        .into_iter()
        .filter(|l| l["type"] == "record")
        .collect()
}

/// What a decoded record is, for the coverage list (`__consumer_offsets key 1 value 3`).
fn kind_of(view: &Value) -> String {
    let part = |v: &Value| match v {
        Value::Null => "null".to_string(),
        v => ["type", "version", "controlType"]
            .iter()
            .filter_map(|k| v.get(*k).map(|x| format!("{k}={x}")))
            .collect::<Vec<_>>()
            .join(","),
    };
    format!(
        "key[{}] value[{}]",
        part(&view["key"]),
        part(&view["value"])
    )
}

#[test]
fn every_internal_topic_record_decodes_as_kafka_decodes_it() {
    let all = cases();
    let mut compared = 0;
    let mut kinds = BTreeSet::new();
    for name in CASES {
        let case = all
            .iter()
            .find(|c| c.name == name)
            .expect("internal-topic case in the corpus");
        for p in case.partitions() {
            for (file, expected) in record_files(p.view) {
                let ours = dump_records(&p.dir.join(&file));
                assert_eq!(
                    ours.len(),
                    expected.len(),
                    "{}/{file}: record count",
                    p.label
                );
                for (kafka, mine) in expected.iter().zip(&ours) {
                    let label = format!("{}/{file} offset {}", p.label, kafka["offset"]);
                    assert_eq!(kafka["offset"], mine["offset"], "{label}");
                    for part in ["key", "value"] {
                        assert_eq!(mine.get(format!("{part}Error")), None, "{label}: {part}");
                        assert_eq!(mine[part], decoded_members(&kafka[part]), "{label}: {part}");
                    }
                    kinds.insert(format!("{name} {}", kind_of(mine)));
                    compared += 1;
                }
            }
        }
    }
    eprintln!("compared {compared} records of {} kinds", kinds.len());
    // 275 + 84 + 157 log records, 4 + 31 snapshot records (see the cases' README.txt).
    assert!(compared > 500, "{compared}");
    for expected in [
        "internal-consumer-offsets key[type=\"0\"] value[version=\"0\"]",
        "internal-consumer-offsets key[type=\"15\"] value[version=\"0\"]",
        "internal-consumer-offsets key[type=\"2\"] value[version=\"4\"]",
        "internal-consumer-offsets key[type=\"8\"] value[null]",
        "internal-transaction-state key[version=0] value[version=1]",
        "internal-cluster-metadata key[null] value[type=\"PARTITION_CHANGE_RECORD\",version=1]",
        "internal-cluster-metadata key[type=6,version=0,controlType=\"KRAFT_VOTERS\"] value[version=0]",
    ] {
        assert!(kinds.contains(expected), "{expected} not among {kinds:#?}");
    }
}

/// The ` key: …` and ` payload: …` of a decoded text line, parsed back.
fn text_parts(line: &str) -> (Option<Value>, Value) {
    let (before, payload) = line.split_once(" payload: ").expect("a payload");
    let key = before
        .split_once(" key: ")
        .map(|(_, k)| serde_json::from_str(k).unwrap());
    let payload = if payload == "<DELETE>" {
        Value::Null
    } else {
        serde_json::from_str(payload).unwrap()
    };
    (key, payload)
}

#[test]
fn text_keys_and_payloads_are_kafkas_json() {
    let all = cases();
    for (name, file) in [
        (
            "internal-consumer-offsets",
            "__consumer_offsets-0/00000000000000000000.log",
        ),
        (
            "internal-cluster-metadata",
            "__cluster_metadata-0/00000000000000000076.log",
        ),
    ] {
        let case = all.iter().find(|c| c.name == name).unwrap();
        let path = case.dir.join(file);
        let text = stdout(&kseg(["dump", "--print-data-log", path.to_str().unwrap()]));
        let json = dump_records(&path);
        let lines: Vec<&str> = text.lines().filter(|l| l.contains(" payload: ")).collect();
        let data: Vec<&Value> = json
            .iter()
            .filter(|r| r.get("controlType").is_none())
            .collect();
        assert_eq!(lines.len(), data.len(), "{name}");
        for (line, record) in lines.iter().zip(data) {
            let (key, payload) = text_parts(line);
            assert_eq!(key.unwrap_or(Value::Null), record["key"], "{line}");
            assert_eq!(payload, record["value"], "{line}");
        }
    }
}

#[test]
fn the_transaction_log_prints_in_kafka_dump_logs_words() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "internal-transaction-state")
        .unwrap();
    let path = case
        .dir
        .join("__transaction_state-0/00000000000000000040.log");
    let text = stdout(&kseg(["dump", "--print-data-log", path.to_str().unwrap()]));
    assert!(
        text.contains(" key: transaction_metadata::transactionalId=acme-fraud-scorer-54 payload: producerId:4128,producerEpoch:0,state=Ongoing,partitions=[acme.ledger-5],txnLastUpdateTimestamp=1733223636389,txnTimeoutMs=900000\n"),
        "{text}"
    );
    let last = case
        .dir
        .join("__transaction_state-0/00000000000000000081.log");
    let text = stdout(&kseg(["dump", "--print-data-log", last.to_str().unwrap()]));
    assert!(text.contains(" payload: <DELETE>\n"), "{text}");
}

#[test]
fn every_embedded_schema_is_reached_by_dispatch() {
    let r = registry().unwrap();
    let mut reached = BTreeSet::new();
    let mut reached_files = BTreeSet::new();
    for topic in InternalTopic::ALL {
        let folder = topic.schema_folder();
        for file in r.files.iter().filter(|f| f.folder == folder) {
            let spec = &file.spec;
            // Kafka 4.1 on: coordinator keys and values name their record
            // type in `apiKey`; before, a key's versions were its types.
            let coordinator = spec.kind.starts_with("coordinator-");
            let found = match spec.api_key {
                Some(key) if !coordinator => r.by_api_key(folder, key).map(|s| s.name.clone()),
                _ if spec.name.ends_with("Key") && file.variant.is_none() => {
                    let (low, high) = match (coordinator, spec.api_key) {
                        (true, Some(t)) => (t, t),
                        _ => spec.valid_versions.bounds().unwrap(),
                    };
                    for v in low..=high {
                        let key = r.coordinator_key(folder, v).unwrap();
                        assert_eq!(key.name, spec.name, "{folder}: key version {v}");
                        assert!(r.coordinator_value(folder, key).is_some());
                        // Every layout of the value, older releases' too.
                        for value in r.coordinator_values(folder, key) {
                            let f = r.files.iter().find(|f| std::ptr::eq(&f.spec, value));
                            reached_files.insert(f.unwrap().path.trim_end_matches(".json"));
                        }
                    }
                    Some(spec.name.clone())
                }
                _ => None,
            };
            if let Some(name) = found {
                assert_eq!(
                    name, spec.name,
                    "{folder}: dispatch finds the schema itself"
                );
                reached.insert(format!("{folder}/{name}"));
            }
        }
    }
    // The transaction log's key and value have fixed names; a key version
    // 0 and value versions 0-1 decode with them.
    for name in ["TransactionLogKey", "TransactionLogValue"] {
        reached.insert(format!(
            "transaction-coordinator/{}",
            r.by_name("transaction-coordinator", name).unwrap().name
        ));
    }
    for control in 2..=6 {
        let schema =
            kseg::schema::control::control_schema(kseg::format::ControlType::from_id(control))
                .unwrap();
        reached.insert(format!(
            "clients/{}",
            r.by_name("clients", schema).unwrap().name
        ));
    }
    for (_, schema) in kseg::schema::consumer_protocol::MEMBER_PROTOCOLS {
        reached.insert(format!(
            "clients/{}",
            r.by_name("clients", schema).unwrap().name
        ));
    }
    let all: BTreeSet<String> = embedded()
        .iter()
        .map(|(path, _)| path.trim_end_matches(".json").to_string())
        .collect();
    // A schema's file is named after it, but not always exactly (ZkMigrationRecord.json).
    let file_of = |name: &String| -> String {
        let (folder, message) = name.split_once('/').unwrap();
        let file = r
            .files
            .iter()
            .find(|f| f.folder == folder && f.spec.name == message);
        file.map_or(name.clone(), |f| {
            f.path.trim_end_matches(".json").to_string()
        })
    };
    let mut reached: BTreeSet<String> = reached.iter().map(file_of).collect();
    reached.extend(reached_files.into_iter().map(str::to_string));
    let unreached: Vec<_> = all.difference(&reached).collect();
    let missing: Vec<_> = reached.difference(&all).collect();
    assert!(
        unreached.is_empty() && missing.is_empty(),
        "schemas no dispatch reaches: {unreached:?}; dispatched to no file: {missing:?}"
    );
    assert!(all.len() >= 70);
}

#[test]
fn metadata_record_names_are_kafkas_enum_names() {
    let r = registry().unwrap();
    let names: BTreeSet<String> = r
        .files
        .iter()
        .filter(|f| f.folder == "metadata")
        .map(|f| record_type_name(&f.spec.name))
        .collect();
    for name in [
        "REGISTER_BROKER_RECORD",
        "ZK_MIGRATION_STATE_RECORD",
        "USER_SCRAM_CREDENTIAL_RECORD",
    ] {
        assert!(names.contains(name), "{name}");
    }
}

/// Decodes a record both ways and checks the JSON text written straight
/// from the bytes is what the decoded values print, errors included.
fn decode_both(
    topic: InternalTopic,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> kseg::schema::DecodedRecord {
    let values = decode_record(topic, key, value);
    let mut scratch = kseg::schema::emit::TextEmitter::default();
    let text = kseg::schema::decode_record_text(topic, key, value, &mut scratch);
    let printed = kseg::schema::DecodedRecord {
        key: values.key.clone().map(|v| v.to_string()),
        value: values.value.clone().map(|v| v.to_string()),
    };
    assert_eq!(text, printed, "{topic:?} key {key:?} value {value:?}");
    values
}

/// A record's key and value bytes.
type KeyValue = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Every key and value of the corpus, as bytes.
fn corpus_records(name: &str) -> Vec<KeyValue> {
    let case = cases().into_iter().find(|c| c.name == name).unwrap();
    let bytes = |v: &Value| v.get("base64").and_then(Value::as_str).map(decode_base64);
    record_files(&case.view["partition"])
        .into_iter()
        .flat_map(|(_, records)| records)
        .filter(|r| r.get("controlType").is_none())
        .map(|r| (bytes(&r["key"]), bytes(&r["value"])))
        .collect()
}

#[test]
fn truncated_values_fail_with_a_position_and_never_panic() {
    for (name, topic) in [
        ("internal-consumer-offsets", InternalTopic::ConsumerOffsets),
        (
            "internal-transaction-state",
            InternalTopic::TransactionState,
        ),
        ("internal-cluster-metadata", InternalTopic::ClusterMetadata),
    ] {
        let mut failures = 0;
        for (key, value) in corpus_records(name) {
            let Some(value) = value else { continue };
            for cut in 0..value.len() {
                let d = decode_both(topic, key.as_deref(), Some(&value[..cut]));
                if let Decoded::Failed(reason) = d.value {
                    assert!(reason.contains("at byte "), "{name}: {reason}");
                    failures += 1;
                }
            }
            let whole = decode_both(topic, key.as_deref(), Some(&value));
            assert!(matches!(whole.value, Decoded::Json(_)), "{name}: {whole:?}");
        }
        assert!(failures > 100, "{name}: {failures}");
    }
}

#[test]
fn a_huge_length_is_refused_before_anything_is_allocated() {
    // OffsetCommitKey (type 1) whose group string claims 32767 bytes.
    let key = [0, 1, 0x7f, 0xff, b'g'];
    let d = decode_record(InternalTopic::ConsumerOffsets, Some(&key), None);
    assert_eq!(
        d.key,
        Decoded::Failed(
            "key at byte 2: field group has length 32767, but only 1 bytes are left".into()
        )
    );
    // A metadata array (PartitionRecord's replicas) claiming 2^31 elements.
    let mut value = vec![1, 3, 0, 0, 0, 0, 0];
    value.extend([0u8; 16]);
    value.extend([0xff, 0xff, 0xff, 0xff, 0x07]);
    let d = decode_record(InternalTopic::ClusterMetadata, None, Some(&value));
    assert!(
        matches!(d.value, Decoded::Failed(ref r) if r.contains("bytes are left")),
        "{d:?}"
    );
}

#[test]
fn a_forced_decoder_on_other_records_reports_each_and_goes_on() {
    let log = super::util::classic().join("00000000000000000000.log");
    let out = kseg([
        "dump",
        "--offsets-decoder",
        "--max-bytes",
        "2000",
        log.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    let records: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| offset:"))
        .collect();
    assert_eq!(records.len(), 8, "{text}");
    for line in records {
        assert!(
            line.contains(" decodeError: the record has no key"),
            "{line}"
        );
        assert!(line.contains(" payload: "), "{line}");
    }
}

#[test]
fn no_decode_prints_the_raw_bytes() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "internal-consumer-offsets")
        .unwrap();
    let path = case
        .dir
        .join("__consumer_offsets-0/00000000000000000000.log");
    let lines = json_lines(&kseg([
        "dump",
        "--json",
        "--deep-iteration",
        "--no-decode",
        "--encoding",
        "base64",
        path.to_str().unwrap(),
    ]));
    let first = lines.iter().find(|l| l["type"] == "record").unwrap();
    assert_eq!(first["key"], "AAIAD2FjbWUtbGVnYWN5LWFwcA==");
}

#[test]
fn quorum_state_dumps_as_kafka_reads_it() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "internal-cluster-metadata")
        .unwrap();
    let path = case.dir.join("__cluster_metadata-0/quorum-state");
    let out = kseg(["dump", "--json", path.to_str().unwrap()]);
    assert!(out.status.success());
    let lines = json_lines(&out);
    let state = lines.iter().find(|l| l["type"] == "quorumState").unwrap();
    assert_eq!(
        state["state"],
        case.view["partition"]["quorumState"]["json"]
    );
    let text = stdout(&kseg(["dump", path.to_str().unwrap()]));
    assert!(
        text.contains("\nleaderId: 3001\nleaderEpoch: 2\n"),
        "{text}"
    );
}

#[test]
fn a_bootstrap_checkpoint_dumps_as_a_metadata_snapshot_wherever_it_is() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "internal-cluster-metadata")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bootstrap = dir.path().join("bootstrap.checkpoint");
    std::fs::copy(
        case.dir
            .join("__cluster_metadata-0/00000000000000000102-0000000002.checkpoint"),
        &bootstrap,
    )
    .unwrap();
    let text = stdout(&kseg([
        "dump",
        "--print-data-log",
        bootstrap.to_str().unwrap(),
    ]));
    assert!(text.contains("KRaft bootstrap snapshot\n"), "{text}");
    assert!(text.contains(" SnapshotHeader {\"version\":0,"), "{text}");
    assert!(
        text.contains(" payload: {\"type\":\"FEATURE_LEVEL_RECORD\",\"version\":0,\"data\":{\"name\":\"metadata.version\",\"featureLevel\":22}}"),
        "{text}"
    );
    let renamed = dir.path().join("copy.checkpoint");
    std::fs::copy(&bootstrap, &renamed).unwrap();
    let forced = stdout(&kseg([
        "dump",
        "--cluster-metadata-decoder",
        renamed.to_str().unwrap(),
    ]));
    assert!(forced.contains("FEATURE_LEVEL_RECORD"), "{forced}");
}

#[test]
fn corpus_records_with_a_byte_changed_never_panic_and_print_alike() {
    // Every position of a sample of real records, set to 0x00, 0x7f and 0xff.
    for (name, topic) in [
        ("internal-consumer-offsets", InternalTopic::ConsumerOffsets),
        (
            "internal-transaction-state",
            InternalTopic::TransactionState,
        ),
        ("internal-cluster-metadata", InternalTopic::ClusterMetadata),
    ] {
        for (key, value) in corpus_records(name).into_iter().step_by(7) {
            let Some(value) = value else { continue };
            for at in 0..value.len() {
                for byte in [0x00, 0x7f, 0xff] {
                    let mut changed = value.clone();
                    changed[at] = byte;
                    decode_both(topic, key.as_deref(), Some(&changed));
                }
            }
        }
    }
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes_decode_or_fail_in_words(
        topic in 0usize..5,
        key in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
        value in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
    ) {
        let topic = InternalTopic::ALL[topic];
        for d in [
            decode_both(topic, Some(&key), Some(&value)),
            kseg::schema::decode_control(Some(&key), Some(&value)),
        ] {
            for part in [d.key, d.value] {
                if let Decoded::Failed(reason) = part {
                    proptest::prop_assert!(reason.contains("at byte ") || reason.contains("no key"), "{}", reason);
                }
            }
        }
    }
}
