//! `kseg metadata` over each release's `internal-cluster-metadata` case
//! (`tests/releases/<release>.tar.zst`), checked against the case's
//! `kafka-view.json` (each record as that release's converters print it)
//! replayed by hand here: registered brokers with every field of their
//! registration (log dirs, ZooKeeper migration, supported features),
//! controllers, feature levels, partitions with their eligible leader
//! replicas, the KRaft voters and kraft.version from the control records,
//! and which records the image refuses. The case's values are random, not
//! a coherent cluster, so most changes name a broker or topic that is not
//! there; the refusals are part of what is compared. Once from the
//! snapshot, once from the log alone (`--at-offset` below the snapshot).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::cluster_metadata::metadata_json;
use super::util::unpacked;

const RELEASES: [&str; 7] = ["3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2"];

/// One record of the view: where it is (`offset N` or the snapshot), and
/// for a control record its control type.
#[derive(Clone)]
struct ViewRecord {
    at: String,
    control: Option<String>,
    value: Value,
}

fn records_of(batches: &Value, at: impl Fn(i64) -> String) -> Vec<ViewRecord> {
    let mut out = Vec::new();
    for batch in batches.as_array().unwrap() {
        let control = batch["isControl"].as_bool().unwrap();
        for r in batch["records"].as_array().unwrap() {
            out.push(ViewRecord {
                at: at(r["offset"].as_i64().unwrap()),
                control: control.then(|| r["key"]["controlType"].as_str().unwrap().to_string()),
                value: r["value"].clone(),
            });
        }
    }
    out
}

/// The image replayed by hand, in the shape of kseg's JSON.
#[derive(Default)]
struct Hand {
    /// topic id -> (name, partition id -> registration).
    topics: BTreeMap<String, (String, BTreeMap<i64, Value>)>,
    brokers: BTreeMap<i64, Value>,
    controllers: BTreeMap<i64, Value>,
    features: BTreeMap<String, i64>,
    acls: std::collections::BTreeSet<String>,
    voters: Value,
    kraft_version: Value,
    /// (at, type) of each record the image does not take.
    refused: Vec<(String, String)>,
}

/// A partition's list fields, empty when a record leaves them out.
const PARTITION_LISTS: [&str; 7] = [
    "replicas",
    "isr",
    "removingReplicas",
    "addingReplicas",
    "eligibleLeaderReplicas",
    "lastKnownElr",
    "directories",
];

fn or_default(v: &Value, default: Value) -> Value {
    if v.is_null() { default } else { v.clone() }
}

fn at_json(at: &str) -> Value {
    match at.strip_prefix("offset ") {
        Some(n) => json!({"offset": n.parse::<i64>().unwrap()}),
        None => {
            json!({"snapshotEndOffset": at.rsplit(' ').next().unwrap().parse::<i64>().unwrap()})
        }
    }
}

impl Hand {
    /// Applies a metadata record; false when Kafka's delta would throw on it.
    fn apply(&mut self, kind: &str, d: &Value) -> bool {
        let id = |f: &str| d[f].as_i64().unwrap();
        match kind {
            "TOPIC_RECORD" => {
                let t = (d["name"].as_str().unwrap().to_string(), BTreeMap::new());
                self.topics.insert(d["topicId"].as_str().unwrap().into(), t);
            }
            "PARTITION_RECORD" => {
                let Some((_, parts)) = self.topics.get_mut(d["topicId"].as_str().unwrap()) else {
                    return false;
                };
                let mut p = json!({});
                for f in PARTITION_LISTS {
                    p[f] = or_default(&d[f], json!([]));
                }
                for (f, default) in [("leader", -1), ("leaderEpoch", -1), ("partitionEpoch", -1)] {
                    p[f] = or_default(&d[f], json!(default));
                }
                parts.insert(id("partitionId"), p);
            }
            "PARTITION_CHANGE_RECORD" => {
                let Some((_, parts)) = self.topics.get_mut(d["topicId"].as_str().unwrap()) else {
                    return false;
                };
                let Some(p) = parts.get_mut(&id("partitionId")) else {
                    return false;
                };
                for f in PARTITION_LISTS {
                    if !d[f].is_null() {
                        p[f] = d[f].clone();
                    }
                }
                let leader = d["leader"].as_i64().unwrap_or(-2);
                if leader != -2 {
                    p["leader"] = json!(leader);
                    p["leaderEpoch"] = json!(p["leaderEpoch"].as_i64().unwrap() + 1);
                }
                p["partitionEpoch"] = json!(p["partitionEpoch"].as_i64().unwrap() + 1);
            }
            "CLEAR_ELR_RECORD" => {
                let name = d["topicName"].as_str().unwrap_or_default();
                let mut any = false;
                for (topic, parts) in self.topics.values_mut() {
                    if !name.is_empty() && topic != name {
                        continue;
                    }
                    any = true;
                    for p in parts.values_mut() {
                        let had = [&p["eligibleLeaderReplicas"], &p["lastKnownElr"]]
                            .iter()
                            .any(|l| !l.as_array().unwrap().is_empty());
                        if had {
                            p["eligibleLeaderReplicas"] = json!([]);
                            p["lastKnownElr"] = json!([]);
                            p["partitionEpoch"] = json!(p["partitionEpoch"].as_i64().unwrap() + 1);
                        }
                    }
                }
                return any || name.is_empty();
            }
            "REMOVE_TOPIC_RECORD" => {
                return self.topics.remove(d["topicId"].as_str().unwrap()).is_some();
            }
            "REGISTER_BROKER_RECORD" => {
                let endpoints: Vec<Value> = d["endPoints"].as_array().unwrap().clone();
                self.brokers.insert(
                    id("brokerId"),
                    json!({
                        "id": d["brokerId"], "epoch": d["brokerEpoch"], "incarnationId": d["incarnationId"],
                        "fenced": or_default(&d["fenced"], json!(true)),
                        "inControlledShutdown": or_default(&d["inControlledShutdown"], json!(false)),
                        "rack": d["rack"], "endpoints": endpoints,
                        "logDirs": or_default(&d["logDirs"], json!([])),
                        "isMigratingZkBroker": or_default(&d["isMigratingZkBroker"], json!(false)),
                        "features": d["features"],
                    }),
                );
            }
            "ACCESS_CONTROL_ENTRY_RECORD" => {
                self.acls.insert(d["id"].as_str().unwrap().into());
            }
            "REMOVE_ACCESS_CONTROL_ENTRY_RECORD" => {
                return self.acls.remove(d["id"].as_str().unwrap());
            }
            "UNREGISTER_BROKER_RECORD" => {
                self.brokers.remove(&id("brokerId"));
            }
            "FENCE_BROKER_RECORD" | "UNFENCE_BROKER_RECORD" => {
                match self.brokers.get_mut(&id("id")) {
                    Some(b) if b["epoch"] == d["epoch"] => {
                        b["fenced"] = json!(kind == "FENCE_BROKER_RECORD")
                    }
                    _ => return false,
                }
            }
            "BROKER_REGISTRATION_CHANGE_RECORD" => {
                let fenced = d["fenced"].as_i64().unwrap_or(0);
                let shutdown = d["inControlledShutdown"].as_i64().unwrap_or(0);
                let Some(b) = self.brokers.get_mut(&id("brokerId")) else {
                    return false;
                };
                if b["epoch"] != d["brokerEpoch"]
                    || !(-1..=1).contains(&fenced)
                    || !(0..=1).contains(&shutdown)
                {
                    return false;
                }
                if fenced != 0 {
                    b["fenced"] = json!(fenced == 1);
                }
                if shutdown == 1 {
                    b["inControlledShutdown"] = json!(true);
                }
                if d["logDirs"].as_array().is_some_and(|l| !l.is_empty()) {
                    b["logDirs"] = d["logDirs"].clone();
                }
            }
            "REGISTER_CONTROLLER_RECORD" => {
                self.controllers.insert(
                    id("controllerId"),
                    json!({"id": d["controllerId"], "incarnationId": d["incarnationId"],
                           "zkMigrationReady": d["zkMigrationReady"], "endpoints": d["endPoints"],
                           "features": d["features"]}),
                );
            }
            "FEATURE_LEVEL_RECORD" => {
                let name = d["name"].as_str().unwrap().to_string();
                let level = id("featureLevel");
                if name == "kraft.version" {
                } else if level == 0 && name != "metadata.version" {
                    self.features.remove(&name);
                } else {
                    self.features.insert(name, level);
                }
            }
            _ => {}
        }
        true
    }

    fn control(&mut self, kind: &str, d: &Value, at: &str) {
        match kind {
            "KRAFT_VOTERS" => {
                let voters: Vec<Value> = d["voters"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| {
                        json!({"id": v["voterId"], "directoryId": v["voterDirectoryId"],
                               "endpoints": v["endpoints"], "kraftVersion": v["kRaftVersionFeature"]})
                    })
                    .collect();
                self.voters = json!({"at": at_json(at), "voters": voters});
            }
            "KRAFT_VERSION" => {
                self.kraft_version = json!({"level": d["kRaftVersion"], "at": at_json(at)});
            }
            _ => {}
        }
    }
}

/// Replays `records` by hand: a metadata transaction's records wait until
/// its End and go at its Abort; a Begin inside one, an End or Abort
/// outside one, is refused.
fn replay(records: &[ViewRecord]) -> Hand {
    let mut hand = Hand::default();
    let mut pending: Option<Vec<(String, String, Value)>> = None;
    for r in records {
        if let Some(kind) = &r.control {
            hand.control(kind, &r.value["data"], &r.at);
            continue;
        }
        let kind = r.value["type"].as_str().unwrap().to_string();
        let data = r.value["data"].clone();
        match (kind.as_str(), pending.is_some()) {
            ("BEGIN_TRANSACTION_RECORD", false) => pending = Some(Vec::new()),
            ("END_TRANSACTION_RECORD", true) => {
                for (at, kind, data) in pending.take().unwrap() {
                    if !hand.apply(&kind, &data) {
                        hand.refused.push((at, kind));
                    }
                }
            }
            ("ABORT_TRANSACTION_RECORD", true) => pending = None,
            ("BEGIN_TRANSACTION_RECORD", true)
            | ("END_TRANSACTION_RECORD" | "ABORT_TRANSACTION_RECORD", false) => {
                hand.refused.push((r.at.clone(), kind))
            }
            (_, true) => pending.as_mut().unwrap().push((r.at.clone(), kind, data)),
            (_, false) => {
                if !hand.apply(&kind, &data) {
                    hand.refused.push((r.at.clone(), kind));
                }
            }
        }
    }
    hand
}

fn compare(release: &str, got: &Value, hand: &Hand, ctx: &str) {
    let ctx = format!("{release} {ctx}");
    let mut topics: Vec<Value> = hand
        .topics
        .iter()
        .map(|(id, (name, parts))| {
            let parts: Vec<Value> = parts
                .iter()
                .map(|(p, v)| {
                    let mut v = v.clone();
                    v["partition"] = json!(p);
                    v
                })
                .collect();
            json!({"name": name, "topicId": id, "partitions": parts})
        })
        .collect();
    topics.sort_by_key(|t| (t["name"].to_string(), t["topicId"].to_string()));
    let mut kseg_topics = got["topics"].as_array().unwrap().clone();
    for t in &mut kseg_topics {
        for p in t["partitions"].as_array_mut().unwrap() {
            p.as_object_mut().unwrap().retain(|k, _| {
                [
                    "partition",
                    "replicas",
                    "isr",
                    "removingReplicas",
                    "addingReplicas",
                    "eligibleLeaderReplicas",
                    "lastKnownElr",
                    "directories",
                    "leader",
                    "leaderEpoch",
                    "partitionEpoch",
                ]
                .contains(&k.as_str())
            });
        }
    }
    kseg_topics.sort_by_key(|t| (t["name"].to_string(), t["topicId"].to_string()));
    assert_eq!(kseg_topics, topics, "topics, {ctx}");
    assert_eq!(
        got["brokers"],
        json!(hand.brokers.values().collect::<Vec<_>>()),
        "brokers, {ctx}"
    );
    assert_eq!(
        got["controllers"],
        json!(hand.controllers.values().collect::<Vec<_>>()),
        "controllers, {ctx}"
    );
    assert_eq!(got["features"], json!(hand.features), "features, {ctx}");
    assert_eq!(got["aclCount"], json!(hand.acls.len()), "ACLs, {ctx}");
    assert_eq!(got["voters"], hand.voters, "voters, {ctx}");
    assert_eq!(
        got["kraftVersion"], hand.kraft_version,
        "kraft.version, {ctx}"
    );
    let refused: Vec<(String, String)> = got["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["at"].as_str().unwrap().into(),
                r["type"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(refused, hand.refused, "refused records, {ctx}");
}

/// Every release's case replays as its view replayed by hand does, from
/// its snapshot and from its log; the 3.8-on cases carry voters (KIP-853),
/// the 3.7-on ones log dirs, the 4.0-on ones ClearElrRecords.
#[test]
fn each_release_replays_as_its_view_by_hand() {
    for release in RELEASES {
        let case = unpacked(release).join("internal-cluster-metadata");
        let view: Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("kafka-view.json")).unwrap())
                .unwrap();
        let partition = &view["partition"];
        let dir = case.join(partition["dir"].as_str().unwrap());
        let log: Vec<ViewRecord> = partition["segments"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| records_of(&s["log"]["batches"], |o| format!("offset {o}")))
            .collect();
        let snapshot = &partition["kraftSnapshots"][0];
        let end: i64 = snapshot["file"].as_str().unwrap()[..20].parse().unwrap();
        let snap_at = format!("the snapshot ending at offset {end}");
        let mut from_snapshot = records_of(&snapshot["records"]["batches"], |_| snap_at.clone());
        from_snapshot.extend(
            log.iter()
                .filter(|r| at_json(&r.at)["offset"].as_i64().is_some_and(|o| o >= end))
                .cloned(),
        );
        let hand = replay(&from_snapshot);
        compare(
            release,
            &metadata_json(&dir, None),
            &hand,
            "from the snapshot",
        );

        let before = end - 2;
        let prefix: Vec<ViewRecord> = log
            .iter()
            .filter(|r| at_json(&r.at)["offset"].as_i64().unwrap() <= before)
            .cloned()
            .collect();
        let hand = replay(&prefix);
        compare(
            release,
            &metadata_json(&dir, Some(before)),
            &hand,
            &format!("as of offset {before}"),
        );
        let has_voters = !hand.voters.is_null();
        assert_eq!(has_voters, release >= "3.8", "{release}: voters in the log");
        if release >= "3.7" {
            assert!(
                hand.brokers
                    .values()
                    .any(|b| !b["logDirs"].as_array().unwrap().is_empty()),
                "{release}"
            );
        }
    }
}
