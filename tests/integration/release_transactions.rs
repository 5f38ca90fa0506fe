//! `kseg transactions` on each release's Kafka-written transaction log
//! (`tests/releases/<release>.tar.zst`, case `internal-transaction-state`),
//! against the coordinator's state replayed by hand here from Kafka's own
//! reading of every record (`kafka-view.json`), as
//! `TransactionStateManager.loadTransactionMetadata` loads it: the latest
//! value of each transactional id, a tombstone removing it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::util::{json_lines, kseg, stderr, unpacked};

/// The clock `kseg transactions` is given: a day after the cases' records.
const NOW: i64 = 1_733_310_000_000;

/// A field of a `TransactionLogValue` v1 as Kafka's reading gives it, its
/// default where the record leaves it out; null for a v0 value, which has
/// no such field.
fn v1_field(version: &Value, data: &Value, name: &str, default: i64) -> Value {
    if version == 0 {
        return Value::Null;
    }
    data.get(name).cloned().unwrap_or(json!(default))
}

/// Kafka's reading of a release's case.
fn view(release: &str) -> Value {
    let case = unpacked(release).join("internal-transaction-state");
    let view: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("kafka-view.json")).unwrap())
            .unwrap();
    assert_eq!(view["release"], release);
    view
}

/// Each transactional id's state after the log, by hand from Kafka's
/// reading, and how many ids a tombstone removed.
fn replayed(release: &str) -> (BTreeMap<String, Value>, usize) {
    let view = view(release);
    let mut ids: BTreeMap<String, Value> = BTreeMap::new();
    let mut removed = 0;
    for segment in view["partition"]["segments"].as_array().unwrap() {
        for batch in segment["log"]["batches"].as_array().unwrap() {
            for r in batch["records"].as_array().unwrap() {
                let id = r["key"]["data"]["transactionalId"]
                    .as_str()
                    .unwrap()
                    .to_string();
                let value = &r["value"];
                if value.is_null() {
                    assert!(ids.remove(&id).is_some(), "{release}: {id} was not there");
                    removed += 1;
                    continue;
                }
                let (version, d) = (&value["version"], &value["data"]);
                // An Empty value's partitions are not read back
                // (readTxnRecordValue adds them only past Empty).
                let partitions: Vec<Value> = if r["transactionState"] == "Empty" {
                    Vec::new()
                } else {
                    d["transactionPartitions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .flat_map(|tp| {
                            let topic = tp["topic"].clone();
                            tp["partitionIds"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(move |p| json!({"topic": topic, "partition": p}))
                        })
                        .collect()
                };
                let start = d["transactionStartTimestampMs"].as_i64().unwrap();
                let timeout = d["transactionTimeoutMs"].as_i64().unwrap();
                ids.insert(
                    id.clone(),
                    json!({
                        "transactionalId": id,
                        "producerId": d["producerId"],
                        "producerEpoch": d["producerEpoch"],
                        "state": r["transactionState"],
                        "partitions": partitions,
                        "timeoutMs": timeout,
                        "txnStartTimestamp": start,
                        "txnLastUpdateTimestamp": d["transactionLastUpdateTimestampMs"],
                        // TransactionStateManager.timedOutTransactions.
                        "timedOut": r["transactionState"] == "Ongoing" && start + timeout < NOW,
                        "recordOffset": r["offset"],
                        "transactionVersion": d.get("clientTransactionVersion").cloned().unwrap_or(json!(0)),
                        "previousProducerId": v1_field(version, d, "previousProducerId", -1),
                        "nextProducerId": v1_field(version, d, "nextProducerId", -1),
                        "nextProducerEpoch": v1_field(version, d, "nextProducerEpoch", -1),
                    }),
                );
            }
        }
    }
    (ids, removed)
}

/// The ids' states, with how many ids are in each.
fn states(ids: &BTreeMap<String, Value>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for v in ids.values() {
        *out.entry(v["state"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    out
}

fn transactions_match_a_hand_replay(release: &str) {
    let (expected, removed) = replayed(release);
    // The story the case tells: commits, an abort, a transaction left
    // Ongoing (past its timeout by NOW), two ids expired.
    let by_state = states(&expected);
    assert!(by_state["CompleteCommit"] >= 2, "{release}: {by_state:?}");
    assert_eq!(by_state["CompleteAbort"], 1, "{release}: {by_state:?}");
    assert_eq!(by_state["Ongoing"], 1, "{release}: {by_state:?}");
    assert_eq!(removed, 2, "{release}");
    assert!(expected.values().any(|v| v["timedOut"] == true));
    let dir = unpacked(release).join("internal-transaction-state/__transaction_state-0");
    let out = kseg([
        "transactions",
        "--json",
        "--now",
        &NOW.to_string(),
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{release}: {}", stderr(&out));
    let printed: BTreeMap<String, Value> = json_lines(&out)
        .into_iter()
        .map(|o| (o["transactionalId"].as_str().unwrap().to_string(), o))
        .collect();
    assert_eq!(
        printed.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{release}: transactional ids"
    );
    for (id, want) in &expected {
        assert_eq!(&printed[id], want, "{release}: {id}");
    }
}

/// Transactions v2 (KIP-890) in the 4.x cases: the coordinator's
/// ClientTransactionVersion 2 on the ids of a v2 client, with the epoch
/// bumped at every end; and the producer-id rotation whose
/// PreviousProducerId the case's last value carries.
fn transactions_v2_fields_are_those_of_the_view(release: &str) {
    let (expected, _) = replayed(release);
    let v2: Vec<&String> = expected
        .iter()
        .filter(|(_, v)| v["transactionVersion"] == 2)
        .map(|(id, _)| id)
        .collect();
    assert!(v2.len() >= 3, "{release}: {v2:?}");
    let rotated = &expected["rotating-producer"];
    assert!(
        rotated["previousProducerId"].as_i64().unwrap() >= 0,
        "{rotated}"
    );
    assert_ne!(rotated["previousProducerId"], rotated["producerId"]);
}

#[test]
fn transactions_of_3_6_replay_as_by_hand() {
    transactions_match_a_hand_replay("3.6");
}

#[test]
fn transactions_of_3_7_replay_as_by_hand() {
    transactions_match_a_hand_replay("3.7");
}

#[test]
fn transactions_of_3_8_replay_as_by_hand() {
    transactions_match_a_hand_replay("3.8");
}

#[test]
fn transactions_of_3_9_replay_as_by_hand() {
    transactions_match_a_hand_replay("3.9");
}

#[test]
fn transactions_of_4_0_replay_as_by_hand() {
    transactions_match_a_hand_replay("4.0");
    transactions_v2_fields_are_those_of_the_view("4.0");
}

#[test]
fn transactions_of_4_1_replay_as_by_hand() {
    transactions_match_a_hand_replay("4.1");
    transactions_v2_fields_are_those_of_the_view("4.1");
}

#[test]
fn transactions_of_4_2_replay_as_by_hand() {
    transactions_match_a_hand_replay("4.2");
    transactions_v2_fields_are_those_of_the_view("4.2");
}

/// The value versions each release's transaction log writes, in Kafka's
/// reading of the case: v0 through 3.8; from the failover (partition
/// leader epoch 1) on, v1 in 3.9 (transaction.version 1) and 4.x
/// (transaction.version 2).
#[test]
fn each_release_writes_the_value_versions_its_transaction_log_chooses() {
    for (release, after) in [
        ("3.6", 0),
        ("3.7", 0),
        ("3.8", 0),
        ("3.9", 1),
        ("4.0", 1),
        ("4.1", 1),
        ("4.2", 1),
    ] {
        let view = view(release);
        let mut seen = BTreeMap::new();
        for batch in view["partition"]["segments"][0]["log"]["batches"]
            .as_array()
            .unwrap()
        {
            let epoch = batch["partitionLeaderEpoch"].as_i64().unwrap();
            for r in batch["records"].as_array().unwrap() {
                if let Some(v) = r["value"].get("version") {
                    *seen.entry((epoch, v.as_i64().unwrap())).or_insert(0) += 1;
                }
            }
        }
        let versions: Vec<(i64, i64)> = seen.keys().copied().collect();
        assert_eq!(versions, [(0, 0), (1, after)], "{release}: {seen:?}");
    }
}
