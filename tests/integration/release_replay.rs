//! `kseg groups` replaying each release's Kafka-written cases
//! (`tests/releases/`), against state replayed by hand here from Kafka's
//! own reading of every record (`kafka-view.json`).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use super::util::unpacked;
use super::util::{copy_dir, json_lines, kseg, stderr};

/// Every record of a case's log as Kafka read it: (offset, key, value).
fn kafka_records(case: &Path) -> Vec<(i64, Value, Value)> {
    let view: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("kafka-view.json")).unwrap())
            .unwrap();
    let mut out = Vec::new();
    for segment in view["partition"]["segments"].as_array().unwrap() {
        for batch in segment["log"]["batches"].as_array().unwrap() {
            for r in batch["records"].as_array().unwrap() {
                out.push((
                    r["offset"].as_i64().unwrap(),
                    r["key"].clone(),
                    r["value"].clone(),
                ));
            }
        }
    }
    out
}

/// Share-partitions' states by (group, topic id, partition).
type SharePartitions = BTreeMap<(String, String, i64), Value>;

/// A share-partition's state as `ShareCoordinatorShard.replay` leaves it,
/// for the records these cases hold: a snapshot sets it, a snapshot
/// tombstone removes it, an update with no state yet becomes the state
/// (state epoch -1, `UNINITIALIZED_EPOCH`).
fn replayed_share_state(case: &Path) -> (SharePartitions, Vec<i64>) {
    let mut states = BTreeMap::new();
    let mut failing = Vec::new();
    for (offset, key, value) in kafka_records(case) {
        let k = &key["data"];
        let id = (
            k["groupId"].as_str().unwrap().to_string(),
            k["topicId"].as_str().unwrap().to_string(),
            k["partition"].as_i64().unwrap(),
        );
        let v = &value["data"];
        match (key["type"].as_str().unwrap(), value.is_null()) {
            ("0", true) => {
                states.remove(&id);
            }
            ("0", false) => {
                states.insert(id, v.clone());
            }
            ("1", false) => {
                assert!(
                    !states.contains_key(&id),
                    "an update on a state: this hand replay does not combine batches"
                );
                let mut state = v.clone();
                state["stateEpoch"] = json!(-1);
                states.insert(id, state);
            }
            // An update tombstone: Kafka's replay reads its value and fails.
            _ => failing.push(offset),
        }
    }
    (states, failing)
}

fn share_state_matches_a_hand_replay(release: &str) {
    let case = unpacked(release).join("internal-share-group-state");
    let (expected, failing) = replayed_share_state(&case);
    assert!(expected.len() >= 2, "{release}: {expected:?}");
    let out = kseg([
        "groups",
        "--json",
        case.join("__share_group_state-0").to_str().unwrap(),
    ]);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), expected.len(), "{release}: {lines:?}");
    for line in &lines {
        let id = (
            line["shareGroup"].as_str().unwrap().to_string(),
            line["topicId"].as_str().unwrap().to_string(),
            line["partition"].as_i64().unwrap(),
        );
        let want = &expected[&id];
        for field in ["startOffset", "stateEpoch", "leaderEpoch", "snapshotEpoch"] {
            assert_eq!(line[field], want[field], "{release} {id:?}: {field}");
        }
        let batches: Vec<Value> = line["stateBatches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                json!({"firstOffset": b["firstOffset"], "lastOffset": b["lastOffset"],
                    "deliveryState": b["deliveryState"], "deliveryCount": b["deliveryCount"]})
            })
            .collect();
        assert_eq!(&json!(batches), &want["stateBatches"], "{release} {id:?}");
        // 4.2's values carry DeliveryCompleteCount; earlier ones do not.
        assert_eq!(
            line["deliveryCompleteCount"],
            want.get("deliveryCompleteCount")
                .cloned()
                .unwrap_or(Value::Null),
            "{release} {id:?}"
        );
    }
    let err = stderr(&out);
    for offset in failing {
        assert!(
            err.contains(&format!("offset {offset}: a share update tombstone")),
            "{release}: offset {offset} not reported in {err}"
        );
    }
}

#[test]
fn share_group_state_of_4_0_replays_as_by_hand() {
    share_state_matches_a_hand_replay("4.0");
}

#[test]
fn share_group_state_of_4_1_replays_as_by_hand() {
    share_state_matches_a_hand_replay("4.1");
}

#[test]
fn share_group_state_of_4_2_replays_as_by_hand() {
    share_state_matches_a_hand_replay("4.2");
}

#[test]
fn a_share_partition_is_measured_against_its_topic_partitions_log_end() {
    let case = unpacked("4.2").join("internal-share-group-state");
    let (expected, _) = replayed_share_state(&case);
    let ((group, topic_id, partition), state) = expected.iter().next().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log_dir = dir.path();
    copy_dir(
        &case.join("__share_group_state-0"),
        &log_dir.join("__share_group_state-0"),
    );
    // A data partition of that topic id, from another 4.2 case.
    let data = unpacked("4.2").join("data-idempotent/acme.orders-0");
    let target = log_dir.join(format!("orders-{partition}"));
    copy_dir(&data, &target);
    std::fs::write(
        target.join("partition.metadata"),
        format!("version: 0\ntopic_id: {topic_id}\n"),
    )
    .unwrap();
    let mut logs: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    let end = json_lines(&kseg([
        "dump",
        "--json",
        logs.last().unwrap().to_str().unwrap(),
    ]))
    .iter()
    .filter(|l| l["type"] == "batch")
    .map(|b| b["lastOffset"].as_i64().unwrap() + 1)
    .max()
    .unwrap();
    let out = kseg([
        "groups",
        "--json",
        "--group",
        group,
        log_dir.to_str().unwrap(),
    ]);
    let lines = json_lines(&out);
    let line = lines
        .iter()
        .find(|l| l["partition"].as_i64() == Some(*partition) && l["topicId"] == *topic_id)
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert_eq!(line["topic"], "orders");
    assert_eq!(line["logEndOffset"], end);
    let start = state["startOffset"].as_i64().unwrap();
    assert_eq!(line["lag"], end - start);
    let text = super::util::stdout(&kseg([
        "groups",
        "--group",
        group,
        log_dir.to_str().unwrap(),
    ]));
    assert!(
        text.contains(&format!("orders-{partition}: start offset {start}"))
            && text.contains(&format!("log end {end}, {} behind", end - start)),
        "{text}"
    );
}

/// Streams groups' records (Kafka 4.1 on) in the 4.1 and 4.2 cases all
/// name group `acme-groupId-1`, which the case's consumer group records
/// made a consumer group: Kafka's replay throws on each
/// (`getOrMaybeCreatePersistedStreamsGroup`: "is not a streams group"),
/// and kseg says so at each one's offset.
#[test]
fn streams_records_for_a_consumer_group_are_refused_at_their_offsets() {
    for release in ["4.1", "4.2"] {
        let case = unpacked(release).join("internal-consumer-offsets");
        let records = kafka_records(&case);
        let streams: Vec<i64> = records
            .iter()
            .filter(|(_, k, _)| {
                matches!(
                    k["type"].as_str(),
                    Some("17" | "19" | "20" | "21" | "22" | "23")
                ) && k["data"]["groupId"] == "acme-groupId-1"
            })
            .map(|(o, _, _)| *o)
            .collect();
        assert!(streams.len() >= 12, "{release}: {streams:?}");
        let out = kseg([
            "groups",
            "--json",
            case.join("__consumer_offsets-0").to_str().unwrap(),
        ]);
        let group = json_lines(&out)
            .into_iter()
            .find(|g| g["group"] == "acme-groupId-1")
            .unwrap();
        assert_eq!(group["type"], "consumer", "{release}");
        let err = stderr(&out);
        for offset in streams {
            assert!(
                err.contains(&format!(
                    "offset {offset}: group acme-groupId-1 is a consumer group, not a streams group"
                )),
                "{release}: offset {offset} in {err}"
            );
        }
    }
}

/// `kseg transactions` on each release's data partition: the open
/// transactions are those Kafka's reading of the newest producer snapshot
/// holds (an entry with a current transaction's first offset; the
/// idempotent producers of these cases have none), and every producer of
/// the snapshot is rebuilt without a finding.
#[test]
fn each_releases_data_partition_holds_the_open_transactions_its_snapshot_says() {
    for release in ["3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2"] {
        let case = unpacked(release).join("data-idempotent");
        let view: Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("kafka-view.json")).unwrap())
                .unwrap();
        let snapshots = view["partition"]["producerSnapshots"].as_array().unwrap();
        let newest = snapshots.last().unwrap();
        let entries = newest["entries"].as_array().unwrap();
        assert!(!entries.is_empty(), "{release}");
        let open: Vec<(i64, i64)> = entries
            .iter()
            .filter(|e| !e["currentTxnFirstOffset"].is_null())
            .map(|e| {
                (
                    e["producerId"].as_i64().unwrap(),
                    e["currentTxnFirstOffset"].as_i64().unwrap(),
                )
            })
            .collect();
        let dir = case.join("acme.orders-0");
        let out = kseg(["transactions", "--json", dir.to_str().unwrap()]);
        assert!(out.status.success(), "{release}: {}", stderr(&out));
        let printed: Vec<(i64, i64)> = json_lines(&out)
            .into_iter()
            .filter_map(|o| {
                let t = o.get("openTransaction")?;
                Some((t["producerId"].as_i64()?, t["firstOffset"].as_i64()?))
            })
            .collect();
        assert_eq!(printed, open, "{release}");
    }
}
