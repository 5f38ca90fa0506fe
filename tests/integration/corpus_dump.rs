//! `kseg dump --json` against Kafka's own reading of every corpus file.

use std::path::Path;

use serde_json::Value;

use super::corpus::{PartitionCase, cases, view_bytes};
use super::util::{json_lines, kseg};

fn dump_json(path: &Path, extra: &[&str]) -> Vec<Value> {
    // Raw bytes, to compare with the view's: internal_topics.rs checks the decoded form.
    let mut args = vec!["dump", "--json", "--no-decode", "--encoding", "base64"];
    args.extend_from_slice(extra);
    let out = kseg(
        args.iter()
            .map(|s| s.to_string())
            .chain([path.display().to_string()]),
    );
    json_lines(&out)
}

fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

const BATCH_FIELDS: [(&str, &str); 19] = [
    ("baseOffset", "baseOffset"),
    ("lastOffset", "lastOffset"),
    ("count", "count"),
    ("position", "position"),
    ("sizeInBytes", "size"),
    ("magic", "magic"),
    ("crc", "crc"),
    ("isValid", "isValid"),
    ("compressionType", "compression"),
    ("timestampType", "timestampType"),
    ("maxTimestamp", "maxTimestamp"),
    ("producerId", "producerId"),
    ("producerEpoch", "producerEpoch"),
    ("baseSequence", "baseSequence"),
    ("lastSequence", "lastSequence"),
    ("partitionLeaderEpoch", "partitionLeaderEpoch"),
    ("isTransactional", "isTransactional"),
    ("isControl", "isControl"),
    ("deleteHorizonMs", "deleteHorizonMs"),
];

fn b64(v: &Value) -> Option<Vec<u8>> {
    v.as_str().map(super::corpus::decode_base64)
}

fn check_record(label: &str, kafka: &Value, ours: &Value) {
    for field in ["offset", "timestamp", "sizeInBytes"] {
        assert_eq!(kafka[field], ours[field], "{label}: record {field}");
    }
    assert_eq!(
        view_bytes(&kafka["key"]),
        b64(&ours["key"]),
        "{label}: record key"
    );
    assert_eq!(
        view_bytes(&kafka["value"]),
        b64(&ours["value"]),
        "{label}: record value"
    );
    let kh = kafka["headers"].as_array().unwrap();
    let oh = ours["headers"].as_array().unwrap();
    assert_eq!(kh.len(), oh.len(), "{label}: header count");
    for (k, o) in kh.iter().zip(oh) {
        assert_eq!(k["key"], o["key"], "{label}: header key");
        assert_eq!(
            view_bytes(&k["value"]),
            b64(&o["value"]),
            "{label}: header value"
        );
    }
    if let Some(control) = kafka.get("controlType") {
        assert_eq!(control, &ours["controlType"], "{label}: control type");
    }
    if let Some(marker) = kafka.get("endTxnMarker") {
        assert_eq!(
            marker["coordinatorEpoch"], ours["coordinatorEpoch"],
            "{label}: coordinator epoch"
        );
    }
}

/// Groups dump lines into (batch, records) pairs.
fn batches_with_records(lines: &[Value]) -> Vec<(&Value, Vec<&Value>)> {
    let mut out: Vec<(&Value, Vec<&Value>)> = Vec::new();
    for line in lines {
        match line["type"].as_str() {
            Some("batch") => out.push((line, Vec::new())),
            Some("record") => out.last_mut().expect("record after batch").1.push(line),
            _ => {}
        }
    }
    out
}

fn check_log(p: &PartitionCase<'_>, seg: &Value) {
    let log = &seg["log"];
    let path = p.dir.join(log["file"].as_str().unwrap());
    let lines = dump_json(&path, &["--deep-iteration"]);
    let ours = batches_with_records(&lines);
    assert_eq!(
        ours.len() as u64,
        log["batchCount"].as_u64().unwrap(),
        "{}: batch count of {}",
        p.label,
        path.display()
    );
    let covered: u64 = ours.iter().map(|(b, _)| b["size"].as_u64().unwrap()).sum();
    assert_eq!(
        covered,
        log["bytesCoveredByBatches"].as_u64().unwrap(),
        "{}: bytes covered",
        p.label
    );
    let trailing = of_type(&lines, "trailingBytes");
    let expected_trailing = log
        .get("trailingBytesNotParsedAsBatch")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    assert_eq!(
        trailing
            .first()
            .map_or(0, |t| t["length"].as_u64().unwrap()),
        expected_trailing,
        "{}: trailing bytes",
        p.label
    );
    for kafka in log["batches"].as_array().unwrap() {
        let label = format!(
            "{} {} batch at {}",
            p.label,
            path.display(),
            kafka["position"]
        );
        let (batch, records) = ours
            .iter()
            .find(|(b, _)| b["position"] == kafka["position"])
            .unwrap_or_else(|| panic!("{label}: missing"));
        for (k, o) in BATCH_FIELDS {
            assert_eq!(kafka[k], batch[o], "{label}: {k}");
        }
        if kafka["magic"].as_i64() == Some(2) {
            assert_eq!(
                kafka["baseTimestamp"], batch["baseTimestamp"],
                "{label}: baseTimestamp"
            );
        }
        if let Some(kr) = kafka.get("records").and_then(Value::as_array) {
            assert_eq!(kr.len(), records.len(), "{label}: record count");
            for (k, o) in kr.iter().zip(records) {
                check_record(&label, k, o);
            }
        }
    }
}

fn check_index(
    p: &PartitionCase<'_>,
    seg: &Value,
    key: &str,
    entry_type: &str,
    fields: &[&str],
) -> usize {
    let view = &seg[key];
    if view["exists"] != true {
        return 0;
    }
    let path = p.dir.join(view["file"].as_str().unwrap());
    let Some(expected) = view.get("entries").and_then(Value::as_array) else {
        return 0;
    };
    let lines = dump_json(&path, &[]);
    let ours = of_type(&lines, entry_type);
    assert_eq!(
        ours.len(),
        expected.len(),
        "{}: entries of {}",
        p.label,
        path.display()
    );
    for (k, o) in expected.iter().zip(&ours) {
        for f in fields {
            assert_eq!(k[*f], o[*f], "{}: {} {f}", p.label, path.display());
        }
    }
    1
}

fn check_txn_index(p: &PartitionCase<'_>, seg: &Value) -> usize {
    let view = &seg["txnindex"];
    if view["exists"] != true {
        return 0;
    }
    let lines = dump_json(&p.dir.join(view["file"].as_str().unwrap()), &[]);
    let ours = of_type(&lines, "abortedTxn");
    let expected = view["abortedTxns"].as_array().unwrap();
    assert_eq!(ours.len(), expected.len(), "{}: aborted txns", p.label);
    for (k, o) in expected.iter().zip(ours) {
        for f in [
            "version",
            "producerId",
            "firstOffset",
            "lastOffset",
            "lastStableOffset",
        ] {
            assert_eq!(k[f], o[f], "{}: txn {f}", p.label);
        }
    }
    1
}

fn check_snapshots(p: &PartitionCase<'_>) -> usize {
    let snapshots = p.view["producerSnapshots"].as_array().unwrap();
    for snap in snapshots {
        let lines = dump_json(&p.dir.join(snap["file"].as_str().unwrap()), &[]);
        let ours = of_type(&lines, "producer");
        let expected = snap["entries"].as_array().unwrap();
        assert_eq!(
            ours.len(),
            expected.len(),
            "{}: {} entries",
            p.label,
            snap["file"]
        );
        for (k, o) in expected.iter().zip(ours) {
            for f in [
                "producerId",
                "producerEpoch",
                "coordinatorEpoch",
                "currentTxnFirstOffset",
                "lastTimestamp",
                "batchMetadata",
            ] {
                assert_eq!(k[f], o[f], "{}: {} {f}", p.label, snap["file"]);
            }
        }
    }
    snapshots.len()
}

fn check_partition_files(p: &PartitionCase<'_>) {
    if let Some(epochs) = p.view.get("leaderEpochCheckpoint") {
        let lines = dump_json(&p.dir.join("leader-epoch-checkpoint"), &[]);
        let ours: Vec<Value> = of_type(&lines, "leaderEpoch")
            .into_iter()
            .map(|l| serde_json::json!({"epoch": l["epoch"], "startOffset": l["startOffset"]}))
            .collect();
        assert_eq!(
            &Value::Array(ours),
            &epochs["entries"],
            "{}: leader epochs",
            p.label
        );
    }
    if let Some(meta) = p.view.get("partitionMetadata") {
        let lines = dump_json(&p.dir.join("partition.metadata"), &[]);
        let topic_id = of_type(&lines, "property")
            .into_iter()
            .find(|l| l["key"] == "topic_id")
            .unwrap()["value"]
            .clone();
        assert_eq!(topic_id, meta["topicId"], "{}: topic id", p.label);
    }
}

#[test]
fn dump_json_matches_kafka_view_for_every_corpus_file() {
    let mut counts = [0usize; 5];
    for case in cases() {
        for p in case.partitions() {
            for seg in p.view["segments"].as_array().unwrap() {
                check_log(&p, seg);
                counts[0] += 1;
                counts[1] += check_index(&p, seg, "index", "indexEntry", &["offset", "position"]);
                counts[2] += check_index(
                    &p,
                    seg,
                    "timeindex",
                    "timeIndexEntry",
                    &["timestamp", "offset"],
                );
                counts[3] += check_txn_index(&p, seg);
            }
            counts[4] += check_snapshots(&p);
            check_partition_files(&p);
        }
    }
    eprintln!(
        "compared {} logs, {} indexes, {} time indexes, {} txn indexes, {} snapshots",
        counts[0], counts[1], counts[2], counts[3], counts[4]
    );
    assert!(
        counts.iter().all(|&c| c > 0),
        "every file kind must be compared: {counts:?}"
    );
}

#[test]
fn offset_checkpoints_of_the_log_dir_match_kafka() {
    for case in cases() {
        let (Some(dir), Some(checkpoints)) = (case.log_dir(), case.view.get("checkpoints")) else {
            continue;
        };
        for (name, view) in checkpoints.as_object().unwrap() {
            let lines = dump_json(&dir.join(name), &[]);
            let ours: serde_json::Map<String, Value> = of_type(&lines, "checkpointEntry")
                .into_iter()
                .map(|l| {
                    (
                        format!("{}-{}", l["topic"].as_str().unwrap(), l["partition"]),
                        l["offset"].clone(),
                    )
                })
                .collect();
            assert_eq!(
                Value::Object(ours),
                view["readByOffsetCheckpointFile"],
                "{}: {name}",
                case.name
            );
        }
    }
}
