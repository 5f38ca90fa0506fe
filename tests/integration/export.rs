//! `kseg export` against Kafka's own reading of every corpus partition:
//! the same records, byte for byte, in the same order.

use std::path::Path;

use serde_json::Value;

use super::corpus::{cases, decode_base64, view_bytes};
use super::util::{copy_dir, json_lines, kseg, stderr, stdout};

/// One record as Kafka read it, with where its batch sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewRecord {
    pub offset: i64,
    pub timestamp: i64,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(String, Option<Vec<u8>>)>,
    pub timestamp_type: String,
    pub producer_id: i64,
    pub producer_epoch: i64,
    /// The batch's base sequence plus the record's offset delta (wrapping
    /// past `i32::MAX`), or -1.
    pub sequence: i64,
    pub partition_leader_epoch: i64,
    pub is_transactional: bool,
    pub is_control: bool,
    /// The `.log` file and byte position of the record's batch.
    pub batch: (String, u64),
}

/// Every record of a partition view, in log order.
pub fn view_records(view: &Value) -> Vec<ViewRecord> {
    let mut out = Vec::new();
    for segment in view["segments"].as_array().unwrap() {
        let file = segment["log"]["file"].as_str().unwrap().to_string();
        for batch in segment["log"]["batches"].as_array().unwrap() {
            for r in batch["records"].as_array().into_iter().flatten() {
                out.push(ViewRecord {
                    offset: r["offset"].as_i64().unwrap(),
                    timestamp: r["timestamp"].as_i64().unwrap(),
                    key: view_bytes(&r["key"]),
                    value: view_bytes(&r["value"]),
                    headers: r["headers"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|h| {
                            (
                                h["key"].as_str().unwrap().to_string(),
                                view_bytes(&h["value"]),
                            )
                        })
                        .collect(),
                    timestamp_type: batch["timestampType"].as_str().unwrap().to_string(),
                    producer_id: batch["producerId"].as_i64().unwrap(),
                    producer_epoch: batch["producerEpoch"].as_i64().unwrap(),
                    sequence: match batch["baseSequence"].as_i64().unwrap() {
                        -1 => -1,
                        base => {
                            (base + r["offset"].as_i64().unwrap()
                                - batch["baseOffset"].as_i64().unwrap())
                                % (1 << 31)
                        }
                    },
                    partition_leader_epoch: batch["partitionLeaderEpoch"].as_i64().unwrap(),
                    is_transactional: batch["isTransactional"].as_bool().unwrap(),
                    is_control: batch["isControl"].as_bool().unwrap(),
                    batch: (file.clone(), batch["position"].as_u64().unwrap()),
                });
            }
        }
    }
    out
}

fn b64(v: &Value) -> Option<Vec<u8>> {
    v.as_str().map(decode_base64)
}

/// Compares exported lines (`--encoding base64`) with Kafka's records.
pub fn assert_same_records(label: &str, ours: &[Value], kafka: &[ViewRecord], partition: &str) {
    assert_eq!(ours.len(), kafka.len(), "{label}: record count");
    for (o, k) in ours.iter().zip(kafka) {
        let at = format!("{label}: offset {}", k.offset);
        assert_eq!(o["partition"], partition, "{at}: partition");
        assert_eq!(o["offset"].as_i64(), Some(k.offset), "{at}: offset");
        assert_eq!(
            o["timestamp"].as_i64(),
            Some(k.timestamp),
            "{at}: timestamp"
        );
        assert_eq!(
            o["timestampType"],
            k.timestamp_type.as_str(),
            "{at}: timestampType"
        );
        assert_eq!(b64(&o["key"]), k.key, "{at}: key");
        assert_eq!(b64(&o["value"]), k.value, "{at}: value");
        let headers: Vec<(String, Option<Vec<u8>>)> = o["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["key"].as_str().unwrap().to_string(), b64(&h["value"])))
            .collect();
        assert_eq!(headers, k.headers, "{at}: headers");
        assert_eq!(
            o["producerId"].as_i64(),
            Some(k.producer_id),
            "{at}: producerId"
        );
        assert_eq!(
            o["producerEpoch"].as_i64(),
            Some(k.producer_epoch),
            "{at}: producerEpoch"
        );
        assert_eq!(o["sequence"].as_i64(), Some(k.sequence), "{at}: sequence");
        assert_eq!(
            o["partitionLeaderEpoch"].as_i64(),
            Some(k.partition_leader_epoch),
            "{at}: partitionLeaderEpoch"
        );
        assert_eq!(
            o["isTransactional"].as_bool(),
            Some(k.is_transactional),
            "{at}: isTransactional"
        );
        assert_eq!(
            o["isControl"].as_bool(),
            Some(k.is_control),
            "{at}: isControl"
        );
    }
}

fn export(args: &[&str], path: &Path) -> std::process::Output {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.push(path.display().to_string());
    kseg(all)
}

fn has_invalid_batch(view: &Value) -> bool {
    view["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["log"]["batches"].as_array().unwrap())
        .any(|b| b["isValid"] == false)
}

/// Partitions whose `.log` files Kafka reads to the end without damage,
/// with every record listed.
fn clean_cases() -> Vec<(String, std::path::PathBuf, Value)> {
    let mut out = Vec::new();
    for case in cases() {
        if case.name.starts_with("unclean-") && case.name != "unclean-base" {
            continue;
        }
        for p in case.partitions() {
            if p.view["recordsListed"] == "all" && !has_invalid_batch(p.view) {
                out.push((p.label.clone(), p.dir.clone(), p.view.clone()));
            }
        }
    }
    out
}

fn dir_name(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn export_gives_kafkas_records_for_every_corpus_partition() {
    let clean = clean_cases();
    assert!(clean.len() >= 18, "only {} clean partitions", clean.len());
    for (label, dir, view) in &clean {
        let kafka = view_records(view);
        for salvage in [false, true] {
            let mut args = vec!["export", "--include-control", "--encoding", "base64"];
            if salvage {
                args.push("--salvage");
            }
            let out = export(&args, dir);
            assert_eq!(out.status.code(), Some(0), "{label}: {}", stderr(&out));
            assert_same_records(
                &format!("{label} salvage={salvage}"),
                &json_lines(&out),
                &kafka,
                &dir_name(dir),
            );
        }
        let out = export(&["export", "--encoding", "base64"], dir);
        let data: Vec<ViewRecord> = kafka.iter().filter(|r| !r.is_control).cloned().collect();
        assert_same_records(
            &format!("{label} without control"),
            &json_lines(&out),
            &data,
            &dir_name(dir),
        );
    }
}

#[test]
fn control_records_name_their_type() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "transactional")
        .unwrap();
    let p = &case.partitions()[0];
    let out = export(&["export", "--include-control"], &p.dir);
    let lines = json_lines(&out);
    let controls: Vec<&Value> = lines.iter().filter(|l| l["isControl"] == true).collect();
    assert_eq!(controls.len(), 24);
    assert!(
        controls
            .iter()
            .all(|c| c["controlType"] == "COMMIT" || c["controlType"] == "ABORT")
    );
    assert!(
        lines
            .iter()
            .filter(|l| l["isControl"] == false)
            .all(|l| l.get("controlType").is_none())
    );
}

#[test]
fn sampled_partitions_agree_on_every_listed_record() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "seed-order-demo")
        .unwrap();
    let p = &case.partitions()[0];
    let kafka = view_records(p.view);
    let out = export(&["export", "--encoding", "base64"], &p.dir);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out);
    let first = lines[0]["offset"].as_i64().unwrap();
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(
            line["offset"].as_i64(),
            Some(first + i as i64),
            "offsets follow each other"
        );
    }
    let ours: Vec<Value> = kafka
        .iter()
        .map(|k| lines[(k.offset - first) as usize].clone())
        .collect();
    assert_same_records(&p.label, &ours, &kafka, &dir_name(&p.dir));
}

#[test]
fn utf8_falls_back_to_marked_hex_and_hex_is_hex() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "codec-zstd")
        .unwrap();
    let p = &case.partitions()[0];
    let kafka = view_records(p.view);
    let utf8 = json_lines(&export(&["export"], &p.dir));
    let hex = json_lines(&export(&["export", "--encoding", "hex"], &p.dir));
    let unhex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    for ((u, h), k) in utf8.iter().zip(&hex).zip(&kafka) {
        for field in ["key", "value"] {
            let expected = if field == "key" { &k.key } else { &k.value };
            assert_eq!(h[field].as_str().map(unhex), *expected, "hex {field}");
            let marked = u.get(format!("{field}Encoding").as_str()).is_some();
            let decoded = u[field].as_str().map(|s| {
                if marked {
                    unhex(s)
                } else {
                    s.as_bytes().to_vec()
                }
            });
            assert_eq!(decoded, *expected, "utf8 {field} at {}", k.offset);
            assert_eq!(
                marked,
                expected
                    .as_ref()
                    .is_some_and(|b| std::str::from_utf8(b).is_err())
            );
        }
    }
}

#[test]
fn offset_and_time_ranges_are_inclusive() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "timestamps-out-of-order")
        .unwrap();
    let p = &case.partitions()[0];
    let kafka = view_records(p.view);
    let out = json_lines(&export(
        &["export", "--from-offset", "100", "--to-offset", "180"],
        &p.dir,
    ));
    let offsets: Vec<i64> = out.iter().map(|l| l["offset"].as_i64().unwrap()).collect();
    let expected: Vec<i64> = kafka
        .iter()
        .map(|r| r.offset)
        .filter(|o| (100..=180).contains(o))
        .collect();
    assert_eq!(offsets, expected);
    let mut times: Vec<i64> = kafka.iter().map(|r| r.timestamp).collect();
    times.sort_unstable();
    let (from, to) = (times[times.len() / 4], times[times.len() / 2]);
    let out = json_lines(&export(
        &[
            "export",
            "--from-time",
            &from.to_string(),
            "--to-time",
            &to.to_string(),
        ],
        &p.dir,
    ));
    let offsets: Vec<i64> = out.iter().map(|l| l["offset"].as_i64().unwrap()).collect();
    let expected: Vec<i64> = kafka
        .iter()
        .filter(|r| (from..=to).contains(&r.timestamp))
        .map(|r| r.offset)
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(offsets, expected);
}

#[test]
fn a_segment_path_exports_that_segment_and_a_log_dir_every_partition() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "multi-partition-logdir")
        .unwrap();
    let out = json_lines(&export(&["export"], &case.log_dir().unwrap()));
    let mut expected = 0;
    for p in case.partitions() {
        let name = dir_name(&p.dir);
        let n = view_records(p.view).len();
        assert_eq!(
            out.iter()
                .filter(|l| l["partition"] == name.as_str())
                .count(),
            n,
            "{name}"
        );
        expected += n;
    }
    assert_eq!(out.len(), expected);
    let case = cases()
        .into_iter()
        .find(|c| c.name == "unclean-base")
        .unwrap();
    let p = &case.partitions()[0];
    let segment = p.dir.join("00000000000000000089.log");
    let out = json_lines(&export(&["export"], &segment));
    let kafka: Vec<i64> = view_records(p.view)
        .iter()
        .filter(|r| r.batch.0 == "00000000000000000089.log")
        .map(|r| r.offset)
        .collect();
    assert_eq!(
        out.iter()
            .map(|l| l["offset"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        kafka
    );
}

/// A key and a value as a producer sends them.
type KeyValue = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Reads lines the way kafka-console-producer's `LineMessageReader` does
/// with `parse.key=true`: the key up to the first separator, the value
/// after it, the null marker for null.
fn console_producer_reads(text: &str, separator: &str, null: &str) -> Vec<KeyValue> {
    let field = |s: &str| (s != null).then(|| s.as_bytes().to_vec());
    text.lines()
        .map(|line| {
            let at = line.find(separator).expect("a separator on every line");
            (field(&line[..at]), field(&line[at + separator.len()..]))
        })
        .collect()
}

#[test]
fn lines_read_back_as_the_records_they_came_from() {
    let case = cases().into_iter().find(|c| c.name == "compacted").unwrap();
    let p = &case.partitions()[0];
    let out = export(
        &["export", "--format", "line", "--null-marker", "<null>"],
        &p.dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let read = console_producer_reads(&stdout(&out), "\t", "<null>");
    let kafka: Vec<_> = view_records(p.view)
        .into_iter()
        .map(|r| (r.key, r.value))
        .collect();
    assert_eq!(read, kafka);
    let out = export(
        &[
            "export",
            "--format",
            "line",
            "--key-separator",
            "::",
            "--null-marker",
            "NULL",
        ],
        &p.dir,
    );
    assert_eq!(console_producer_reads(&stdout(&out), "::", "NULL"), kafka);
}

#[test]
fn lines_refuse_a_record_that_would_not_read_back() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "codec-gzip")
        .unwrap();
    let p = &case.partitions()[0];
    let kafka = view_records(p.view);
    let out = export(&["export", "--format", "line"], &p.dir);
    assert_eq!(out.status.code(), Some(2));
    let first_null = kafka
        .iter()
        .find(|r| r.key.is_none() || r.value.is_none())
        .unwrap();
    assert!(
        stderr(&out).contains(&format!("offset {}: the", first_null.offset)),
        "{}",
        stderr(&out)
    );
    let written = stdout(&out).lines().count();
    assert_eq!(written, kafka.iter().position(|r| r == first_null).unwrap());
    let out = export(&["export", "--format", "line", "--encoding", "hex"], &p.dir);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn export_stops_at_a_damaged_batch_naming_file_and_position() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "unclean-flipped-byte")
        .unwrap();
    let p = &case.partitions()[0];
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("events-0");
    copy_dir(&p.dir, &dir);
    let out = export(&["export", "--encoding", "base64"], &dir);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("00000000000000000346.log: at byte 4236: crc mismatch"),
        "{err}"
    );
    let kafka: Vec<ViewRecord> = view_records(p.view)
        .into_iter()
        .take_while(|r| r.batch != ("00000000000000000346.log".into(), 4236))
        .collect();
    assert_same_records(&p.label, &json_lines(&out), &kafka, "events-0");
}
