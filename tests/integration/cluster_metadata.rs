//! `kseg metadata`: the image of `internal-cluster-metadata` checked
//! against its `kafka-view.json` records replayed by hand here (a small
//! replay over Kafka's own JSON of each record, with metadata transactions
//! applied at their End and dropped at their Abort); stray replicas of a
//! log dir assembled from corpus copies; damaged snapshots and logs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::corpus;
use super::util::{copy_dir, json_lines, kseg, stderr, stdout};

fn case() -> PathBuf {
    corpus::root().join("internal-cluster-metadata")
}

fn view() -> Value {
    let text = std::fs::read_to_string(case().join("kafka-view.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Every data record of the view's log, in offset order: (offset, value).
fn log_records(view: &Value) -> Vec<(i64, Value)> {
    let mut out = Vec::new();
    for segment in view["partition"]["segments"].as_array().unwrap() {
        for batch in segment["log"]["batches"].as_array().unwrap() {
            if batch["isControl"].as_bool().unwrap() {
                continue;
            }
            for r in batch["records"].as_array().unwrap() {
                out.push((r["offset"].as_i64().unwrap(), r["value"].clone()));
            }
        }
    }
    out
}

/// The image, replayed by hand, in the shape of kseg's JSON (only the
/// members compared).
#[derive(Default, Clone)]
struct Hand {
    topics: BTreeMap<String, Value>,
    brokers: BTreeMap<i64, Value>,
    features: BTreeMap<String, i64>,
    /// (resourceType, resourceName) -> name -> (value, offset).
    configs: BTreeMap<(i64, String), BTreeMap<String, (String, i64)>>,
    acls: std::collections::BTreeSet<String>,
    quotas: BTreeMap<String, BTreeMap<String, f64>>,
    next_producer_id: Option<i64>,
}

impl Hand {
    fn apply(&mut self, offset: i64, v: &Value) {
        let d = &v["data"];
        match v["type"].as_str().unwrap() {
            "TOPIC_RECORD" => {
                self.topics.insert(
                    d["topicId"].as_str().unwrap().into(),
                    json!({"name": d["name"], "partitions": {}}),
                );
            }
            "PARTITION_RECORD" => {
                let t = self.topics.get_mut(d["topicId"].as_str().unwrap()).unwrap();
                t["partitions"][d["partitionId"].to_string()] = json!({
                    "leader": d["leader"], "leaderEpoch": d["leaderEpoch"],
                    "partitionEpoch": d["partitionEpoch"], "replicas": d["replicas"], "isr": d["isr"],
                });
            }
            "PARTITION_CHANGE_RECORD" => {
                let t = self.topics.get_mut(d["topicId"].as_str().unwrap()).unwrap();
                let p = &mut t["partitions"][d["partitionId"].to_string()];
                for field in ["isr", "replicas"] {
                    if !d[field].is_null() {
                        p[field] = d[field].clone();
                    }
                }
                if d["leader"].as_i64().is_some_and(|l| l != -2) {
                    p["leader"] = d["leader"].clone();
                    p["leaderEpoch"] = json!(p["leaderEpoch"].as_i64().unwrap() + 1);
                }
                p["partitionEpoch"] = json!(p["partitionEpoch"].as_i64().unwrap() + 1);
            }
            "REMOVE_TOPIC_RECORD" => {
                let t = self.topics.remove(d["topicId"].as_str().unwrap()).unwrap();
                let name = t["name"].as_str().unwrap().to_string();
                self.configs.remove(&(2, name));
            }
            "REGISTER_BROKER_RECORD" => {
                self.brokers.insert(
                    d["brokerId"].as_i64().unwrap(),
                    json!({"id": d["brokerId"], "epoch": d["brokerEpoch"], "fenced": d["fenced"],
                           "inControlledShutdown": d["inControlledShutdown"], "rack": d["rack"]}),
                );
            }
            "UNREGISTER_BROKER_RECORD" => {
                self.brokers.remove(&d["brokerId"].as_i64().unwrap());
            }
            "FENCE_BROKER_RECORD" | "UNFENCE_BROKER_RECORD" => {
                let b = self.brokers.get_mut(&d["id"].as_i64().unwrap()).unwrap();
                b["fenced"] = json!(v["type"] == "FENCE_BROKER_RECORD");
            }
            "BROKER_REGISTRATION_CHANGE_RECORD" => {
                let b = self
                    .brokers
                    .get_mut(&d["brokerId"].as_i64().unwrap())
                    .unwrap();
                match d["fenced"].as_i64() {
                    Some(1) => b["fenced"] = json!(true),
                    Some(-1) => b["fenced"] = json!(false),
                    _ => {}
                }
                if d["inControlledShutdown"].as_i64() == Some(1) {
                    b["inControlledShutdown"] = json!(true);
                }
            }
            "FEATURE_LEVEL_RECORD" => {
                self.features.insert(
                    d["name"].as_str().unwrap().into(),
                    d["featureLevel"].as_i64().unwrap(),
                );
            }
            "CONFIG_RECORD" => {
                let key = (
                    d["resourceType"].as_i64().unwrap(),
                    d["resourceName"].as_str().unwrap().to_string(),
                );
                let map = self.configs.entry(key.clone()).or_default();
                let name = d["name"].as_str().unwrap().to_string();
                match d["value"].as_str() {
                    Some(value) => {
                        map.insert(name, (value.into(), offset));
                    }
                    None => {
                        map.remove(&name);
                    }
                }
            }
            "ACCESS_CONTROL_ENTRY_RECORD" => {
                self.acls.insert(d["id"].as_str().unwrap().into());
            }
            "REMOVE_ACCESS_CONTROL_ENTRY_RECORD" => {
                assert!(self.acls.remove(d["id"].as_str().unwrap()));
            }
            "CLIENT_QUOTA_RECORD" => {
                let entity = d["entity"].to_string();
                let key = d["key"].as_str().unwrap().to_string();
                if d["remove"].as_bool().unwrap() {
                    let q = self.quotas.get_mut(&entity).unwrap();
                    q.remove(&key);
                    if q.is_empty() {
                        self.quotas.remove(&entity);
                    }
                } else {
                    self.quotas
                        .entry(entity)
                        .or_default()
                        .insert(key, d["value"].as_f64().unwrap());
                }
            }
            "PRODUCER_IDS_RECORD" => self.next_producer_id = d["nextProducerId"].as_i64(),
            _ => {}
        }
    }
}

/// The image as of `at` (inclusive), replayed by hand from the log's first
/// record: a transaction's records wait in a list until its End.
fn replay_by_hand(view: &Value, at: i64) -> Hand {
    let mut hand = Hand::default();
    let mut pending: Option<Vec<(i64, Value)>> = None;
    for (offset, v) in log_records(view).into_iter().filter(|(o, _)| *o <= at) {
        match v["type"].as_str().unwrap() {
            "BEGIN_TRANSACTION_RECORD" => pending = Some(Vec::new()),
            "END_TRANSACTION_RECORD" => {
                for (o, r) in pending.take().unwrap() {
                    hand.apply(o, &r);
                }
            }
            "ABORT_TRANSACTION_RECORD" => pending = None,
            _ => match &mut pending {
                Some(list) => list.push((offset, v)),
                None => hand.apply(offset, &v),
            },
        }
    }
    hand
}

/// `kseg metadata PATH --json [--at-offset N]`'s one line, exit code 0.
pub(super) fn metadata_json(path: &Path, at: Option<i64>) -> Value {
    metadata_json_exit(path, at, 0)
}

fn metadata_json_exit(path: &Path, at: Option<i64>, code: i32) -> Value {
    let mut args = vec![
        "metadata".to_string(),
        path.display().to_string(),
        "--json".into(),
    ];
    if let Some(n) = at {
        args.extend(["--at-offset".into(), n.to_string()]);
    }
    let out = kseg(&args);
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
    let mut lines = json_lines(&out);
    assert_eq!(lines.len(), 1);
    lines.remove(0)
}

/// The end offset of the snapshot kseg should start from for `at`.
fn snapshot_end_for(view: &Value, at: i64) -> i64 {
    view["partition"]["kraftSnapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["snapshotReader"]["snapshotIdEndOffset"].as_i64().unwrap())
        .filter(|&end| end <= at + 1)
        .max()
        .unwrap()
}

fn compare(kseg: &Value, hand: &Hand, snapshot_end: i64, at: i64) {
    let ctx = format!("as of offset {at}");
    let mut topics: Vec<Value> = hand
        .topics
        .iter()
        .map(|(id, t)| {
            let parts: Vec<Value> = t["partitions"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(p, v)| {
                    let mut v = v.clone();
                    v["partition"] = json!(p.parse::<i64>().unwrap());
                    v
                })
                .collect();
            json!({"name": t["name"], "topicId": id, "partitions": parts})
        })
        .collect();
    topics.sort_by_key(|t| t["name"].as_str().unwrap().to_string());
    let mut got: Vec<Value> = kseg["topics"].as_array().unwrap().clone();
    for t in &mut got {
        let o = t.as_object_mut().unwrap();
        let mut parts = o["partitions"].as_array().unwrap().clone();
        parts.sort_by_key(|p| p["partition"].as_i64().unwrap());
        for p in &mut parts {
            p.as_object_mut().unwrap().retain(|k, _| {
                [
                    "partition",
                    "leader",
                    "leaderEpoch",
                    "partitionEpoch",
                    "replicas",
                    "isr",
                ]
                .contains(&k.as_str())
            });
        }
        o["partitions"] = json!(parts);
    }
    for t in &mut topics {
        let mut parts = t["partitions"].as_array().unwrap().clone();
        parts.sort_by_key(|p| p["partition"].as_i64().unwrap());
        t["partitions"] = json!(parts);
    }
    assert_eq!(got, topics, "topics {ctx}");

    let brokers: Vec<Value> = kseg["brokers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            json!({"id": b["id"], "epoch": b["epoch"], "fenced": b["fenced"],
                   "inControlledShutdown": b["inControlledShutdown"], "rack": b["rack"]})
        })
        .collect();
    assert_eq!(
        brokers,
        hand.brokers.values().cloned().collect::<Vec<_>>(),
        "brokers {ctx}"
    );
    assert_eq!(kseg["features"], json!(hand.features), "features {ctx}");
    assert_eq!(kseg["aclCount"], json!(hand.acls.len()), "ACLs {ctx}");
    assert_eq!(
        kseg["clientQuotas"].as_array().unwrap().len(),
        hand.quotas.len(),
        "{ctx}"
    );
    for q in kseg["clientQuotas"].as_array().unwrap() {
        assert_eq!(
            q["quotas"],
            json!(hand.quotas[&q["entity"].to_string()]),
            "{ctx}"
        );
    }
    assert_eq!(
        kseg["producerIds"]["nextProducerId"].as_i64(),
        hand.next_producer_id,
        "producer ids {ctx}"
    );

    // Configs: each value, and where it was set (in the snapshot kseg
    // started from, or at its offset of the log).
    let expect = |v: &(String, i64)| {
        if v.1 < snapshot_end {
            json!({"value": v.0, "snapshotEndOffset": snapshot_end})
        } else {
            json!({"value": v.0, "offset": v.1})
        }
    };
    let mut topics_cfg = serde_json::Map::new();
    let mut brokers_cfg = serde_json::Map::new();
    let mut cluster_cfg = serde_json::Map::new();
    for ((kind, name), map) in &hand.configs {
        let m: serde_json::Map<String, Value> =
            map.iter().map(|(k, v)| (k.clone(), expect(v))).collect();
        match (kind, name.as_str()) {
            (2, _) if !m.is_empty() => drop(topics_cfg.insert(name.clone(), m.into())),
            (4, "") => cluster_cfg = m,
            (4, _) if !m.is_empty() => drop(brokers_cfg.insert(name.clone(), m.into())),
            _ => {}
        }
    }
    assert_eq!(
        kseg["configs"]["topics"],
        Value::Object(topics_cfg),
        "topic configs {ctx}"
    );
    assert_eq!(
        kseg["configs"]["brokers"],
        Value::Object(brokers_cfg),
        "broker configs {ctx}"
    );
    assert_eq!(
        kseg["configs"]["clusterDefault"],
        Value::Object(cluster_cfg),
        "cluster configs {ctx}"
    );
}

/// The latest image, and the image as of offsets inside each metadata
/// transaction (bootstrap, the aborted one, the ACL one), before the
/// snapshot, at its last offset, and between.
#[test]
fn image_matches_the_view_replayed_by_hand() {
    let view = view();
    let last = log_records(&view).last().unwrap().0;
    for at in [
        None,
        Some(5),
        Some(8),
        Some(60),
        Some(101),
        Some(102),
        Some(120),
        Some(150),
        Some(151),
        Some(154),
    ] {
        let n = at.unwrap_or(last);
        let got = metadata_json(&case(), at);
        let end = snapshot_end_for(&view, n);
        assert_eq!(
            got["snapshot"]["endOffset"],
            json!(end),
            "snapshot for {at:?}"
        );
        assert_eq!(got["offset"], json!(n));
        compare(&got, &replay_by_hand(&view, n), end, n);
    }
}

/// Inside an open transaction the image leaves its records out and says so.
#[test]
fn an_open_transaction_is_not_applied() {
    let inside = metadata_json(&case(), Some(154));
    assert_eq!(inside["openTransaction"]["name"], "Bulk ACL import");
    assert_eq!(inside["openTransaction"]["beginOffset"], 152);
    assert_eq!(inside["openTransaction"]["records"], 2);
    let after = metadata_json(&case(), Some(156));
    assert!(after["openTransaction"].is_null());
    assert_eq!(
        after["aclCount"].as_i64().unwrap(),
        inside["aclCount"].as_i64().unwrap() + 3
    );
    // Bootstrap: the feature levels come only with the EndTransactionRecord at 8.
    assert_eq!(metadata_json(&case(), Some(7))["features"], json!({}));
    assert_eq!(
        metadata_json(&case(), Some(8))["features"]["metadata.version"],
        22
    );
}

/// The aborted transaction's ConfigRecord (num.io.threads at offset 150)
/// appears at no offset; the text says the transaction was aborted.
#[test]
fn the_aborted_config_never_appears() {
    for at in [Some(150), Some(151), Some(152), None] {
        let got = metadata_json(&case(), at);
        assert!(
            got["configs"]["clusterDefault"]
                .get("num.io.threads")
                .is_none(),
            "at {at:?}: {}",
            got["configs"]
        );
        assert_eq!(
            got["configs"]["clusterDefault"]["log.retention.hours"]["value"],
            "72"
        );
    }
    let aborted = &metadata_json(&case(), None)["abortedTransactions"][0];
    assert_eq!(aborted["name"], "Partial config import");
    assert_eq!(aborted["abortOffset"], 151);
    assert_eq!(aborted["abortReason"], "Controller failover");
    let text = stdout(&kseg(["metadata".as_ref(), case().as_os_str()]));
    assert!(
        text.contains("\"Partial config import\" begun at offset 149 aborted at offset 151"),
        "{text}"
    );
}

/// A ConfigRecord with a null value deletes the config: acme.orders's
/// retention.ms (259200000, set at 57, in the snapshot) goes at 104.
#[test]
fn a_null_config_value_deletes_it() {
    let before = metadata_json(&case(), Some(103));
    assert_eq!(
        before["configs"]["topics"]["acme.orders"]["retention.ms"],
        json!({"value": "259200000", "snapshotEndOffset": 102})
    );
    let after = metadata_json(&case(), Some(104));
    assert!(
        after["configs"]["topics"]["acme.orders"]
            .get("retention.ms")
            .is_none()
    );
    assert_eq!(
        after["configs"]["topics"]["acme.orders"]["segment.bytes"]["value"],
        "536870912"
    );
    // A removed topic's configs go with it (acme.clicks, removed at 102).
    assert!(before["configs"]["topics"].get("acme.clicks").is_none());
    assert!(
        metadata_json(&case(), Some(101))["configs"]["topics"]
            .get("acme.clicks")
            .is_some()
    );
}

/// The snapshot file alone gives the image as of its last offset, the same
/// as the partition at that offset; the text and JSON name what was replayed.
#[test]
fn a_checkpoint_file_alone() {
    let file = case().join("__cluster_metadata-0/00000000000000000102-0000000002.checkpoint");
    let alone = metadata_json(&file, None);
    let mut at = metadata_json(&case(), Some(101));
    assert_eq!(alone["offset"], 101);
    for key in [
        "topics",
        "brokers",
        "features",
        "configs",
        "aclCount",
        "clientQuotas",
    ] {
        assert_eq!(alone[key], at[key], "{key}");
    }
    at["logFrom"] = Value::Null;
    assert!(alone["logFrom"].is_null());
    let out = kseg([
        "metadata".as_ref(),
        file.as_os_str(),
        "--at-offset".as_ref(),
        "50".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("needs the partition directory"),
        "{}",
        stderr(&out)
    );
}

/// The log dir assembled from corpus copies: the metadata partition, the
/// multi-partition log dir's partitions and meta.properties, transactional's
/// txn-0, and directories made to match the image (or not) by their
/// partition.metadata; node.id 2.
fn assembled_log_dir() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = corpus::root();
    let dir = tmp.path();
    copy_dir(
        &case().join("__cluster_metadata-0"),
        &dir.join("__cluster_metadata-0"),
    );
    copy_dir(&root.join("multi-partition-logdir/logdir"), dir);
    copy_dir(&root.join("transactional/txn-0"), &dir.join("txn-0"));
    let meta = std::fs::read_to_string(dir.join("meta.properties")).unwrap();
    assert!(meta.contains("node.id=0"));
    std::fs::write(
        dir.join("meta.properties"),
        meta.replace("node.id=0", "node.id=2"),
    )
    .unwrap();
    let with_id = |name: &str, id: &str| {
        copy_dir(&dir.join("payments-0"), &dir.join(name));
        std::fs::write(
            dir.join(name).join("partition.metadata"),
            format!("version: 0\ntopic_id: {id}\n"),
        )
        .unwrap();
    };
    let orders = "br3Wi8ZEFzwwztmrkqAPBA";
    let late0 = "YwKw8pGWt7nJs_Pn3nVp4A";
    with_id("acme.orders-1", orders); // replicas [2, 3, 1]: here
    with_id("acme.late-0-1", late0); // replicas [2, 3]: here
    with_id("acme.late-0-2", late0); // replicas [3, 1]: not on broker 2
    with_id("acme.orders-9", orders); // no partition 9
    with_id("renamed-0", orders); // acme.orders's id under another name
    with_id("acme.clicks-0", "dlt2Bm3QqFlthOgUL_-o7Q"); // removed at offset 102
    with_id("badmeta-0", "AAAAAAAAAAAAAAAAAAAAAA"); // the zero UUID: unreadable
    copy_dir(&dir.join("payments-0"), &dir.join("nometa-0"));
    std::fs::remove_file(dir.join("nometa-0/partition.metadata")).unwrap();
    tmp
}

fn expected_strays() -> BTreeMap<&'static str, &'static str> {
    BTreeMap::from([
        ("acme.clicks-0", "unknownTopicId"),
        ("acme.late-0-2", "notAReplica"),
        ("acme.orders-9", "unknownPartition"),
        ("badmeta-0", "unreadableTopicId"),
        ("audit-0", "unknownTopicId"),
        ("nometa-0", "noTopicId"),
        ("payments-0", "unknownTopicId"),
        ("payments-1", "unknownTopicId"),
        ("payments-2", "unknownTopicId"),
        ("renamed-0", "nameMismatch"),
        ("txn-0", "unknownTopicId"),
    ])
}

fn dir_name(v: &Value) -> String {
    Path::new(v["dir"].as_str().unwrap())
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn stray_replicas_of_an_assembled_log_dir() {
    let tmp = assembled_log_dir();
    let got = metadata_json_exit(tmp.path(), None, 1);
    assert_eq!(got["nodeId"], 2);
    let strays: BTreeMap<String, String> = got["strayReplicas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (dir_name(s), s["reason"].as_str().unwrap().to_string()))
        .collect();
    let expected: BTreeMap<String, String> = expected_strays()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(strays, expected);
    let text = stdout(&kseg(["metadata".as_ref(), tmp.path().as_os_str()]));
    assert!(text.contains("(broker 2): 2 matched, 11 stray"), "{text}");
    assert!(
        text.contains("badmeta-0: unreadable partition.metadata: ")
            && text.contains("partition.metadata: line 2: the topic id is the zero UUID: the broker takes this whole log dir offline at start"),
        "{text}"
    );
    assert!(
        text.contains("acme.late-0-2 (topic id YwKw8pGWt7nJs_Pn3nVp4A): stray replica: broker 2 is not among the replicas [3, 1] of the partition"),
        "{text}"
    );
    assert!(!text.contains("acme.orders-1: stray"), "{text}");
    // An earlier image is not what the broker judges its replicas by.
    let earlier = metadata_json_exit(tmp.path(), Some(120), 0);
    assert_eq!(earlier.get("strayReplicas"), None, "{earlier}");
}

/// verify lists the same strays and exits 1 for them; without strays (the
/// matched directories and the metadata partition alone) it exits 0.
#[test]
fn verify_reports_stray_replicas() {
    let tmp = assembled_log_dir();
    let out = kseg(["verify".as_ref(), tmp.path().as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let strays: BTreeMap<String, String> = json_lines(&out)
        .into_iter()
        .filter(|v| v["type"] == "strayReplica")
        .map(|v| (dir_name(&v), v["reason"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(strays.len(), expected_strays().len());
    for name in std::fs::read_dir(tmp.path()).unwrap() {
        let name = name.unwrap().file_name().to_string_lossy().into_owned();
        if ![
            "__cluster_metadata-0",
            "acme.orders-1",
            "acme.late-0-1",
            "meta.properties",
        ]
        .contains(&name.as_str())
        {
            let p = tmp.path().join(&name);
            if p.is_dir() {
                std::fs::remove_dir_all(p).unwrap();
            } else {
                std::fs::remove_file(p).unwrap();
            }
        }
    }
    let out = kseg(["verify".as_ref(), tmp.path().as_os_str()]);
    assert!(!stdout(&out).contains("stray replica"), "{}", stdout(&out));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

fn damaged_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(
        &case().join("__cluster_metadata-0"),
        &tmp.path().join("__cluster_metadata-0"),
    );
    tmp
}

/// A truncated or overwritten snapshot is skipped with a warning naming
/// the file and the byte, and the image is built from the older snapshot
/// and the log (exit 1); a truncated log stops the image there with a
/// warning (exit 1).
#[test]
fn damaged_snapshot_and_log() {
    let snapshot = "00000000000000000102-0000000002.checkpoint";
    for damage in ["truncate", "garbage"] {
        let tmp = damaged_copy();
        let file = tmp.path().join("__cluster_metadata-0").join(snapshot);
        let mut bytes = std::fs::read(&file).unwrap();
        match damage {
            "truncate" => bytes.truncate(3000),
            _ => bytes[2000..2100].fill(0x5a),
        }
        std::fs::write(&file, &bytes).unwrap();
        let out = kseg(["metadata".as_ref(), tmp.path().as_os_str()]);
        assert_eq!(out.status.code(), Some(1), "{damage}");
        let err = stderr(&out);
        assert!(
            err.contains(snapshot) && err.contains("at byte") && err.contains("skipped"),
            "{damage}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    let tmp = damaged_copy();
    let log = tmp
        .path()
        .join("__cluster_metadata-0/00000000000000000076.log");
    let bytes = std::fs::read(&log).unwrap();
    std::fs::write(&log, &bytes[..5000]).unwrap();
    let out = kseg([
        "metadata".as_ref(),
        tmp.path().as_os_str(),
        "--json".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("00000000000000000076.log: at byte 4980"),
        "{err}"
    );
    let got = &json_lines(&out)[0];
    // The batch at byte 4980 holds offsets 149-151: the image stops at 148.
    assert_eq!(got["offset"], 148);
    compare(got, &replay_by_hand(&view(), 148), 102, 148);
    // Garbage where a log should be.
    std::fs::write(&log, vec![0xffu8; 64]).unwrap();
    let out = kseg(["metadata".as_ref(), tmp.path().as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("00000000000000000076.log: at byte 0"),
        "{}",
        stderr(&out)
    );
}

/// A directory that is not the metadata partition nor holds one is refused;
/// an offset past the log end gives the latest image with a note (exit 0).
#[test]
fn paths_and_offsets_out_of_reach() {
    let logdir = corpus::root().join("multi-partition-logdir/logdir");
    let out = kseg(["metadata".as_ref(), logdir.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("holds no __cluster_metadata-0"),
        "{}",
        stderr(&out)
    );
    let out = kseg(["metadata", "/nonexistent/__cluster_metadata-0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("does not exist"), "{}", stderr(&out));
    let out = kseg([
        "metadata".as_ref(),
        case().as_os_str(),
        "--at-offset".as_ref(),
        "-1".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let past = metadata_json(&case(), Some(1000));
    assert_eq!(past["offset"], 156);
    assert_eq!(
        past["notes"][0],
        "the log ends at offset 157: offset 1000 is past it; this is the latest image"
    );
}

/// An offset before the log start with no snapshot to cover it is refused.
#[test]
fn an_offset_the_log_no_longer_holds() {
    let tmp = damaged_copy();
    let dir = tmp.path().join("__cluster_metadata-0");
    for f in [
        "00000000000000000000.log",
        "00000000000000000000.index",
        "00000000000000000000.timeindex",
    ] {
        std::fs::remove_file(dir.join(f)).unwrap();
    }
    let out = kseg([
        "metadata".as_ref(),
        dir.as_os_str(),
        "--at-offset".as_ref(),
        "50".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the log starts at offset 76"),
        "{}",
        stderr(&out)
    );
    // From the snapshot at 102 the rest is still there.
    assert_eq!(metadata_json(&dir, Some(120))["offset"], 120);
}

/// Offsets and epochs at the end of their range neither panic nor stop the
/// image: a batch at i64::MAX in the log (read before its CRC is), and
/// `metadata`, `config` and `retention-report` on it.
#[test]
fn offsets_at_the_end_of_their_range_do_not_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("__cluster_metadata-0");
    std::fs::create_dir(&dir).unwrap();
    let batch = kseg::format::encode::encode_batch(&kseg::format::encode::BatchSpec {
        base_offset: i64::MAX,
        records: vec![kseg::format::encode::RecordSpec {
            timestamp: i64::MIN,
            value: Some(vec![1, 2, 3]),
            ..Default::default()
        }],
        ..Default::default()
    });
    std::fs::write(dir.join("00000000000000000000.log"), batch).unwrap();
    for args in [
        vec!["metadata".as_ref(), dir.as_os_str()],
        vec!["config".as_ref(), tmp.path().as_os_str()],
        vec![
            "retention-report".as_ref(),
            dir.as_os_str(),
            "--now".as_ref(),
            "2026-01-01T00:00:00Z".as_ref(),
        ],
    ] {
        let out = kseg(&args);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(matches!(out.status.code(), Some(0..=2)), "{args:?}: {err}");
    }
}

/// A log whose first batch is past offset 0 (here the bootstrap batch at
/// 0..=2 is gone and no snapshot is left) names the offsets it replayed,
/// not 0 onwards, in text and JSON.
#[test]
fn the_offsets_named_are_those_replayed() {
    let tmp = damaged_copy();
    let dir = tmp.path().join("__cluster_metadata-0");
    for f in [
        "00000000000000000000-0000000000.checkpoint",
        "00000000000000000102-0000000002.checkpoint",
    ] {
        std::fs::remove_file(dir.join(f)).unwrap();
    }
    let log = dir.join("00000000000000000000.log");
    let bytes = std::fs::read(&log).unwrap();
    let first = 12 + u32::from_be_bytes(bytes[8..12].try_into().unwrap()) as usize;
    assert_eq!(
        i64::from_be_bytes(bytes[first..first + 8].try_into().unwrap()),
        3
    );
    std::fs::write(&log, &bytes[first..]).unwrap();
    let out = kseg(["metadata".as_ref(), dir.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .ends_with(": replayed log offsets 3..=156; the image is as of offset 156"),
        "{text}"
    );
    let got = metadata_json(&dir, None);
    assert_eq!(
        (got["logFrom"].clone(), got["offset"].clone()),
        (json!(3), json!(156))
    );
    // As of an offset inside the first batch read, the range starts there too.
    let got = metadata_json(&dir, Some(5));
    assert_eq!(
        (got["logFrom"].clone(), got["offset"].clone()),
        (json!(3), json!(5))
    );
}

/// A metadata record as the controller frames it: frame version 1, api
/// key, version 0, then the flexible body (its fields, no tagged fields).
fn metadata_record(api_key: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![1, api_key, 0];
    out.extend_from_slice(body);
    out.push(0);
    out
}

fn compact_string(s: &str) -> Vec<u8> {
    let mut out = vec![u8::try_from(s.len() + 1).unwrap()];
    out.extend_from_slice(s.as_bytes());
    out
}

/// The corpus metadata partition with one more batch at its end (offset
/// 157): acme.late-0's min.insync.replicas set to 2, and broker 3 fenced.
fn late_0_min_isr_2_broker_3_fenced() -> tempfile::TempDir {
    let tmp = damaged_copy();
    let mut config = vec![2u8];
    for s in ["acme.late-0", "min.insync.replicas", "2"] {
        config.extend(compact_string(s));
    }
    let mut fence = 3i32.to_be_bytes().to_vec();
    fence.extend(81i64.to_be_bytes());
    let record = |value: Vec<u8>| kseg::format::encode::RecordSpec {
        timestamp: 1_700_000_000_000,
        value: Some(value),
        ..Default::default()
    };
    let batch = kseg::format::encode::encode_batch(&kseg::format::encode::BatchSpec {
        base_offset: 157,
        partition_leader_epoch: 2,
        records: vec![
            record(metadata_record(4, &config)),
            record(metadata_record(7, &fence)),
        ],
        ..Default::default()
    });
    let log = tmp
        .path()
        .join("__cluster_metadata-0/00000000000000000076.log");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.extend(batch);
    std::fs::write(&log, bytes).unwrap();
    tmp
}

/// A big cluster's image reads from a summary first, then compact tables
/// (one line a partition, no rule between rows), and lists only the
/// partitions asked for: by topic, under-replicated, unavailable (no
/// leader, or its leader fenced), under min ISR (from the topic's
/// min.insync.replicas), in text and JSON.
#[test]
fn a_summary_first_then_only_the_partitions_asked_for() {
    let tmp = late_0_min_isr_2_broker_3_fenced();
    let run = |extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec!["metadata".as_ref(), tmp.path().as_os_str()];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        let out = kseg(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out
    };
    let text = stdout(&run(&[]));
    let lines: Vec<&str> = text.lines().collect();
    let summary = "Summary: 8 topics, 22 partitions: 2 offline, 19 under-replicated, 2 under min ISR, 0 leaderless; 2 brokers, 1 fenced";
    let at = lines
        .iter()
        .position(|l| *l == summary)
        .unwrap_or_else(|| panic!("{text}"));
    let brokers = lines
        .iter()
        .position(|l| l.starts_with("Brokers ("))
        .unwrap();
    let partitions = lines
        .iter()
        .position(|l| *l == "Partitions (22 of 22)")
        .unwrap();
    assert!(at < brokers && brokers < partitions, "{text}");
    assert!(!text.contains("+--") && !text.contains("| "), "{text}");
    assert_eq!(
        lines[partitions + 1].split_whitespace().collect::<Vec<_>>()[..3],
        ["TOPIC", "TOPIC", "ID"]
    );
    let late_0_2 = lines
        .iter()
        .find(|l| l.starts_with("acme.late-0 ") && l.split_whitespace().nth(2) == Some("2"))
        .unwrap();
    assert!(
        late_0_2.ends_with("leader not live, under-replicated, under min ISR 2"),
        "{late_0_2}"
    );

    let listed = |extra: &[&str]| -> Vec<(String, i64)> {
        let mut args = extra.to_vec();
        args.push("--json");
        let v: Value = serde_json::from_str(&stdout(&run(&args))).unwrap();
        assert_eq!(v["summary"]["brokersFenced"], 1);
        assert_eq!(v["summary"]["underMinIsr"], 2);
        v["topics"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| {
                t["partitions"].as_array().unwrap().iter().map(|p| {
                    (
                        t["name"].as_str().unwrap().to_string(),
                        p["partition"].as_i64().unwrap(),
                    )
                })
            })
            .collect()
    };
    let pairs = |v: &[(&str, i64)]| -> Vec<(String, i64)> {
        v.iter().map(|(t, p)| (t.to_string(), *p)).collect()
    };
    assert_eq!(listed(&[]).len(), 22);
    assert_eq!(
        listed(&["--unavailable-partitions"]),
        pairs(&[("acme.late-0", 2), ("acme.late-2", 2)])
    );
    assert_eq!(
        listed(&["--under-min-isr-partitions"]),
        pairs(&[("acme.late-0", 0), ("acme.late-0", 2)])
    );
    assert_eq!(
        listed(&["--topic", "acme.late-1", "--topic", "acme.late-2"]).len(),
        5
    );
    // Chosen conditions add up (a partition any of them holds for), and
    // --topic narrows them.
    assert_eq!(
        listed(&[
            "--topic",
            "acme.late-2",
            "--under-replicated-partitions",
            "--unavailable-partitions",
        ]),
        pairs(&[("acme.late-2", 0), ("acme.late-2", 2)])
    );
    assert_eq!(listed(&["--under-replicated-partitions"]).len(), 19);
    let text = stdout(&run(&[
        "--unavailable-partitions",
        "--topic",
        "acme.orders",
    ]));
    assert!(
        text.contains("Partitions (0 of 22; unavailable; topics acme.orders)\nConfigs\n"),
        "{text}"
    );
    assert!(
        text.contains("topic acme.orders ") && !text.contains("topic acme.payments"),
        "{text}"
    );
}
