//! `kseg groups` and `kseg transactions` against Kafka's own reading of
//! the internal-topic cases: committed offsets, group states and
//! transactional ids computed by hand here from `kafka-view.json`, open
//! transactions from the view's producer snapshot, hanging transactions
//! and lag on log dirs assembled from copies of the corpus.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::corpus::root;
use super::util::{copy_dir, json_lines, kseg, stderr};

fn view(case: &str) -> Value {
    let text = std::fs::read_to_string(root().join(case).join("kafka-view.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Every batch of the view's partition, in log order, with its segment's base offset.
fn batches(view: &Value) -> Vec<(i64, &Value)> {
    view["partition"]["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            let base = s["baseOffset"].as_i64().unwrap();
            s["log"]["batches"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |b| (base, b))
        })
        .collect()
}

const OFFSETS: &str = "internal-consumer-offsets";
const OFFSETS_DIR: &str = "__consumer_offsets-0";

/// A log dir in `tmp` holding a copy of `__consumer_offsets-0` cut just
/// before the batch at `cut` (the whole partition for `None`).
fn offsets_log_dir(tmp: &Path, cut: Option<i64>) -> PathBuf {
    let log_dir = tmp.join("logdir");
    let dir = log_dir.join(OFFSETS_DIR);
    copy_dir(&root().join(OFFSETS).join(OFFSETS_DIR), &dir);
    if let Some(cut) = cut {
        let v = view(OFFSETS);
        let (segment, batch) = batches(&v)
            .into_iter()
            .find(|(_, b)| b["baseOffset"] == json!(cut))
            .unwrap();
        let log = dir.join(format!("{segment:020}.log"));
        let file = std::fs::OpenOptions::new().write(true).open(&log).unwrap();
        file.set_len(batch["position"].as_u64().unwrap()).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            let base = name.get(..20).and_then(|b| b.parse::<i64>().ok());
            if base.is_some_and(|b| b > segment) {
                std::fs::remove_file(path).unwrap();
            }
        }
    }
    log_dir
}

fn groups_json(path: &Path) -> BTreeMap<String, Value> {
    let out = kseg(["groups", path.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    json_lines(&out)
        .into_iter()
        .map(|g| (g["group"].as_str().unwrap().to_string(), g))
        .collect()
}

type Key = (String, String, i64);

/// What the coordinator must hold after the records before `cut`, by hand:
/// the last record per key among those not inside an aborted or still
/// open transaction (a tombstone as last record: no offset); and the
/// records of open transactions.
fn expected_offsets(cut: i64) -> (BTreeMap<Key, Value>, BTreeSet<(i64, Key)>) {
    let v = view(OFFSETS);
    let all = batches(&v);
    let before: Vec<&Value> = all
        .iter()
        .map(|(_, b)| *b)
        .filter(|b| b["baseOffset"].as_i64().unwrap() < cut)
        .collect();
    // Each transactional batch's fate: the next marker of its producer.
    let fate = |pid: i64, offset: i64| -> Option<String> {
        before
            .iter()
            .filter(|b| b["isControl"] == json!(true) && b["producerId"] == json!(pid))
            .find(|b| b["baseOffset"].as_i64().unwrap() > offset)
            .map(|b| {
                b["records"][0]["key"]["controlType"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
    };
    let mut last: BTreeMap<Key, Option<Value>> = BTreeMap::new();
    let mut pending = BTreeSet::new();
    for b in &before {
        if b["isControl"] == json!(true) {
            continue;
        }
        let pid = b["producerId"].as_i64().unwrap();
        let fate = (pid >= 0).then(|| fate(pid, b["baseOffset"].as_i64().unwrap()));
        for r in b["records"].as_array().unwrap() {
            let t = r["key"]["type"].as_str().unwrap();
            if t != "0" && t != "1" {
                continue;
            }
            let k = &r["key"]["data"];
            let key = (
                k["group"].as_str().unwrap().to_string(),
                k["topic"].as_str().unwrap().to_string(),
                k["partition"].as_i64().unwrap(),
            );
            match &fate {
                Some(None) => {
                    pending.insert((pid, key));
                }
                Some(Some(marker)) if marker == "ABORT" => {}
                _ => {
                    last.insert(key, r["value"].get("data").cloned());
                }
            }
        }
    }
    let committed = last
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect();
    (committed, pending)
}

/// The offsets kseg printed, as the view's fields.
fn printed_offsets(groups: &BTreeMap<String, Value>, field: &str) -> BTreeMap<Key, Value> {
    let mut out = BTreeMap::new();
    for (id, g) in groups {
        for o in g[field].as_array().unwrap() {
            let key = (
                id.clone(),
                o["topic"].as_str().unwrap().to_string(),
                o["partition"].as_i64().unwrap(),
            );
            out.insert(key, o.clone());
        }
    }
    out
}

fn same_commit(key: &Key, printed: &Value, expected: &Value) {
    let sentinel = |v: &Value| {
        if *v == json!(-1) {
            Value::Null
        } else {
            v.clone()
        }
    };
    let checks = [
        ("offset", "offset"),
        ("leaderEpoch", "leaderEpoch"),
        ("metadata", "metadata"),
        ("commitTimestamp", "commitTimestamp"),
        ("expireTimestamp", "expireTimestamp"),
    ];
    for (ours, kafkas) in checks {
        let want = sentinel(expected.get(kafkas).unwrap_or(&Value::Null));
        assert_eq!(printed[ours], want, "{key:?} {ours}");
    }
}

#[test]
fn committed_offsets_are_the_last_commit_per_key_without_aborted_or_open_transactions() {
    let end = view(OFFSETS)["logEndOffset"].as_i64().unwrap();
    // 94: both transactions still open; 96: one committed, one aborted,
    // before the tombstones that follow; the end: everything.
    for cut in [94, 96, end] {
        let tmp = tempfile::tempdir().unwrap();
        let log_dir = offsets_log_dir(tmp.path(), (cut < end).then_some(cut));
        let groups = groups_json(&log_dir);
        let (expected, expected_pending) = expected_offsets(cut);
        let printed = printed_offsets(&groups, "offsets");
        assert_eq!(
            printed.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "cut at {cut}"
        );
        for (key, want) in &expected {
            same_commit(key, &printed[key], want);
        }
        let pending: BTreeSet<(i64, Key)> = printed_offsets(&groups, "pendingTransactionalOffsets")
            .into_iter()
            .map(|(k, o)| (o["producerId"].as_i64().unwrap(), k))
            .collect();
        assert_eq!(pending, expected_pending, "cut at {cut}");
    }
    // The discriminating cases, spelled out: at 96 the committed
    // transaction's acme.orders-1 (record 90) is in, the aborted one's
    // acme.payments-0 (record 92, offset 1091) is not; at 94 both pend.
    let tmp = tempfile::tempdir().unwrap();
    let groups = groups_json(&offsets_log_dir(tmp.path(), Some(96)));
    let orders = &groups["acme-orders-app"]["offsets"];
    let find = |topic: &str, p: i64| {
        orders
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["topic"] == json!(topic) && o["partition"] == json!(p))
            .cloned()
            .unwrap()
    };
    assert_eq!(find("acme.orders", 1)["offset"], json!(1262));
    assert_eq!(find("acme.orders", 1)["metadata"], json!("txn"));
    assert_ne!(find("acme.payments", 0)["offset"], json!(1091));
    let tmp = tempfile::tempdir().unwrap();
    let groups = groups_json(&offsets_log_dir(tmp.path(), Some(94)));
    assert_eq!(
        groups["acme-orders-app"]["pendingTransactionalOffsets"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

/// By hand: each group's type, generation and, for classic and share
/// groups, state, from the records before `cut`.
fn expected_groups(cut: i64) -> BTreeMap<String, (String, i64, Option<String>)> {
    let v = view(OFFSETS);
    let mut groups: BTreeMap<String, (String, i64, Option<String>)> = BTreeMap::new();
    let mut share_members: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, b) in batches(&v) {
        if b["baseOffset"].as_i64().unwrap() >= cut || b["isControl"] == json!(true) {
            continue;
        }
        for r in b["records"].as_array().unwrap() {
            let k = &r["key"]["data"];
            let value = r["value"].get("data");
            match r["key"]["type"].as_str().unwrap() {
                "0" | "1" if value.is_some() => {
                    let id = k["group"].as_str().unwrap().to_string();
                    groups
                        .entry(id)
                        .or_insert(("classic".into(), 0, Some("Empty".into())));
                }
                "2" => {
                    let id = k["group"].as_str().unwrap().to_string();
                    match value {
                        None => {
                            groups.remove(&id);
                        }
                        Some(d) => {
                            let members = d["members"].as_array().unwrap().len();
                            let state = if members == 0 { "Empty" } else { "Stable" };
                            let generation = d["generation"].as_i64().unwrap();
                            groups.insert(id, ("classic".into(), generation, Some(state.into())));
                        }
                    }
                }
                t @ ("3" | "11") => {
                    let id = k["groupId"].as_str().unwrap().to_string();
                    let kind = if t == "3" { "consumer" } else { "share" };
                    match value {
                        None => {
                            groups.remove(&id);
                        }
                        Some(d) => {
                            groups.insert(id, (kind.into(), d["epoch"].as_i64().unwrap(), None));
                        }
                    }
                }
                "10" => {
                    let set = share_members
                        .entry(k["groupId"].as_str().unwrap().to_string())
                        .or_default();
                    let member = k["memberId"].as_str().unwrap().to_string();
                    if value.is_some() {
                        set.insert(member);
                    } else {
                        set.remove(&member);
                    }
                }
                _ => {}
            }
        }
    }
    for (id, (kind, _, state)) in &mut groups {
        if kind == "share" {
            let n = share_members.get(id).map_or(0, BTreeSet::len);
            *state = Some(if n == 0 { "Empty" } else { "Stable" }.into());
        }
    }
    groups
}

#[test]
fn group_types_generations_and_states_match_the_view_replayed_by_hand() {
    let end = view(OFFSETS)["logEndOffset"].as_i64().unwrap();
    for cut in [82, end] {
        let tmp = tempfile::tempdir().unwrap();
        let groups = groups_json(&offsets_log_dir(tmp.path(), (cut < end).then_some(cut)));
        let expected = expected_groups(cut);
        let with_group: BTreeMap<&String, &Value> = groups
            .iter()
            .filter(|(_, g)| !g["type"].is_null())
            .collect();
        assert_eq!(
            with_group.keys().copied().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "cut at {cut}"
        );
        for (id, (kind, generation, state)) in &expected {
            let g = with_group[id];
            assert_eq!(g["type"], json!(kind), "{id}");
            assert_eq!(g["generation"], json!(generation), "{id}");
            if let Some(state) = state {
                assert_eq!(g["state"], json!(state), "{id}");
            }
        }
    }
    // At 82 the consumer group's target assignment is at epoch 3 while
    // two of its three members are still at epoch 2: Reconciling.
    let tmp = tempfile::tempdir().unwrap();
    let groups = groups_json(&offsets_log_dir(tmp.path(), Some(82)));
    let inventory = &groups["acme-inventory-svc-34"];
    assert_eq!(inventory["state"], json!("Reconciling"));
    assert_eq!(inventory["assignmentEpoch"], json!(3));
    let epochs: Vec<&Value> = inventory["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["memberEpoch"])
        .collect();
    assert_eq!(epochs, [&json!(2), &json!(2), &json!(3)]);
    // Classic members' subscriptions come decoded by the consumer protocol.
    let orders = &groups["acme-orders-app"];
    assert_eq!(orders["protocol"], json!("cooperative-sticky"));
    let member = &orders["members"][0];
    assert!(member["subscription"]["topics"].is_array(), "{member}");
}

/// A `TransactionLogValue` v1 field of record `r` (data `d`) as Kafka's
/// reading gives it, its default where the record leaves it out; null for
/// a v0 value, which has no such field.
fn v1(r: &Value, d: &Value, name: &str, default: i64) -> Value {
    if r["value"]["version"] == 0 || r["value"]["version"] == "0" {
        return Value::Null;
    }
    d.get(name).cloned().unwrap_or(json!(default))
}

#[test]
fn transactional_ids_match_the_last_value_per_id_in_the_view() {
    let v = view("internal-transaction-state");
    let mut expected: BTreeMap<String, Value> = BTreeMap::new();
    for (_, b) in batches(&v) {
        for r in b["records"].as_array().unwrap() {
            let id = r["key"]["data"]["transactionalId"]
                .as_str()
                .unwrap()
                .to_string();
            match r["value"].get("data") {
                None => {
                    expected.remove(&id);
                }
                Some(d) => {
                    let partitions: Vec<Value> = d["transactionPartitions"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .flat_map(|tp| {
                            let topic = tp["topic"].clone();
                            tp["partitionIds"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(move |p| json!({"topic": topic, "partition": p}))
                        })
                        .collect();
                    expected.insert(
                        id.clone(),
                        json!({
                            "transactionalId": id,
                            "producerId": d["producerId"],
                            "producerEpoch": d["producerEpoch"],
                            "state": r["transactionState"],
                            "partitions": partitions,
                            "timeoutMs": d["transactionTimeoutMs"],
                            "txnStartTimestamp": d["transactionStartTimestampMs"],
                            "txnLastUpdateTimestamp": d["transactionLastUpdateTimestampMs"],
                            // TransactionLogValue v1's tagged fields
                            // (transactions v2), absent at their defaults.
                            "transactionVersion": d.get("clientTransactionVersion").cloned().unwrap_or(json!(0)),
                            "previousProducerId": v1(r, d, "previousProducerId", -1),
                            "nextProducerId": v1(r, d, "nextProducerId", -1),
                            "nextProducerEpoch": v1(r, d, "nextProducerEpoch", -1),
                        }),
                    );
                }
            }
        }
    }
    assert!(!expected.is_empty());
    let dir = root().join("internal-transaction-state/__transaction_state-0");
    let out = kseg(["transactions", dir.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed: BTreeMap<String, Value> = json_lines(&out)
        .into_iter()
        .map(|mut o| {
            let id = o["transactionalId"].as_str().unwrap().to_string();
            let m = o.as_object_mut().unwrap();
            m.retain(|k, _| expected[&id].get(k).is_some());
            (id, o)
        })
        .collect();
    assert_eq!(printed, expected);
}

/// The open transaction the view's last producer snapshot of txn-0 holds.
fn open_in_txn_view() -> Value {
    let v = view("transactional");
    let snapshot = v["partition"]["producerSnapshots"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let open: Vec<Value> = snapshot["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| !e["currentTxnFirstOffset"].is_null())
        .cloned()
        .collect();
    assert_eq!(open.len(), 1, "{open:?}");
    open[0].clone()
}

fn open_transactions(log_dir: &Path, now: i64) -> (Vec<Value>, std::process::Output) {
    let out = kseg([
        "transactions",
        log_dir.to_str().unwrap(),
        "--json",
        "--now",
        &now.to_string(),
    ]);
    let open = json_lines(&out)
        .into_iter()
        .filter_map(|o| o.get("openTransaction").cloned())
        .collect();
    (open, out)
}

#[test]
fn an_open_transaction_the_coordinator_lacks_is_hanging() {
    let expected = open_in_txn_view();
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = tmp.path().join("logdir");
    copy_dir(
        &root().join("internal-transaction-state/__transaction_state-0"),
        &log_dir.join("__transaction_state-0"),
    );
    copy_dir(&root().join("transactional/txn-0"), &log_dir.join("txn-0"));
    empty_coordinator_partitions(&log_dir, 1..50);
    let last = expected["lastTimestamp"].as_i64().unwrap();
    let (open, out) = open_transactions(&log_dir, last + 900_001);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(open.len(), 1, "{open:?}");
    let t = &open[0];
    let first = &expected["currentTxnFirstOffset"];
    assert_eq!((&t["topic"], &t["partition"]), (&json!("txn"), &json!(0)));
    assert_eq!(t["producerId"], expected["producerId"]);
    assert_eq!(t["producerEpoch"], expected["producerEpoch"]);
    assert_eq!(&t["firstOffset"], first);
    assert_eq!(&t["lastStableOffset"], first);
    assert_eq!(t["logEndOffset"], view("transactional")["logEndOffset"]);
    assert_eq!(t["ageMs"], json!(900_001));
    assert_eq!(t["hanging"], json!(true), "{t}");
    assert_eq!(t["transactionalId"], Value::Null);
    let abort = &t["abort"];
    assert_eq!(&abort["startOffset"], first);
    assert_eq!(abort["producerId"], expected["producerId"]);
    assert_eq!(abort["producerEpoch"], expected["producerEpoch"]);
    assert_eq!(abort["coordinatorEpoch"], expected["coordinatorEpoch"]);
    assert!(
        abort["command"].as_str().unwrap().ends_with(&format!(
            "abort --topic txn --partition 0 --start-offset {first}"
        )),
        "{abort}"
    );
    assert_eq!(t["highWatermark"], t["logEndOffset"]);
    // --hanging lists it alone, after a summary that counts it.
    let now = (last + 900_001).to_string();
    let dir = log_dir.to_str().unwrap();
    let hanging = kseg(["transactions", "--hanging", "--now", &now, dir]);
    let text = super::util::stdout(&hanging);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("Summary: ")
            && lines[0].ends_with("1 open transactions in the data partitions read, 1 hanging"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("open transaction in txn-0: ") && lines[2].starts_with("  HANGING"),
        "{text}"
    );
    assert!(lines[3..].iter().all(|l| l.starts_with("  ")), "{text}");
    // A high watermark below the transaction's start is the last stable offset.
    std::fs::write(
        log_dir.join("replication-offset-checkpoint"),
        "0\n1\ntxn 0 100\n",
    )
    .unwrap();
    let (open, _) = open_transactions(&log_dir, last + 900_001);
    assert_eq!(
        (&open[0]["highWatermark"], &open[0]["lastStableOffset"]),
        (&json!(100), &json!(100))
    );
    std::fs::remove_file(log_dir.join("replication-offset-checkpoint")).unwrap();
    // Within the timeout it is not counted yet, as find-hanging counts.
    let (open, out) = open_transactions(&log_dir, last + 1000);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(open[0]["hanging"], json!(false));
    // Without the coordinator's partitions nothing can be told.
    for n in 0..50 {
        std::fs::remove_dir_all(log_dir.join(format!("__transaction_state-{n}"))).unwrap();
    }
    let (open, out) = open_transactions(&log_dir, last + 900_001);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(open[0]["hanging"], Value::Null);
    assert_eq!(open[0]["verdict"], json!("unknown"));
    assert!(
        open[0]["reason"]
            .as_str()
            .unwrap()
            .contains("unknown: 0 of 50 coordinator partitions read")
    );
}

/// Empty `__transaction_state-N` partitions (one empty segment each), as a
/// broker leaves them for coordinator partitions no id hashed to.
fn empty_coordinator_partitions(log_dir: &Path, numbers: std::ops::Range<i32>) {
    for n in numbers {
        let dir = log_dir.join(format!("__transaction_state-{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("00000000000000000000.log"), b"").unwrap();
    }
}

#[test]
fn a_transaction_is_not_called_hanging_while_a_coordinator_partition_is_unread() {
    let expected = open_in_txn_view();
    let last = expected["lastTimestamp"].as_i64().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = tmp.path().join("logdir");
    copy_dir(
        &root().join("internal-transaction-state/__transaction_state-0"),
        &log_dir.join("__transaction_state-0"),
    );
    copy_dir(&root().join("transactional/txn-0"), &log_dir.join("txn-0"));
    // 49 of the default 50: partition 49 might hold the producer's id.
    empty_coordinator_partitions(&log_dir, 1..49);
    let (open, out) = open_transactions(&log_dir, last + 900_001);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let t = &open[0];
    assert_eq!(t["verdict"], json!("unknown"), "{t}");
    assert_eq!(t["hanging"], Value::Null);
    assert!(
        t["reason"]
            .as_str()
            .unwrap()
            .contains("unknown: 49 of 50 coordinator partitions read"),
        "{t}"
    );
    assert_eq!(t["abort"]["command"], Value::Null, "{t}");
    assert_eq!(t["abort"]["startOffset"], expected["currentTxnFirstOffset"]);
    assert!(
        err.contains("49 of 50 __transaction_state partitions read"),
        "{err}"
    );
    // In words: no abort command offered as the fix, only what it would need.
    let out = kseg([
        "transactions",
        log_dir.to_str().unwrap(),
        "--now",
        &(last + 900_001).to_string(),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("  UNKNOWN: "), "{text}");
    assert!(!text.contains("abort it:"), "{text}");
    assert!(
        text.contains("if it does hang, abort would need --topic txn --partition 0"),
        "{text}"
    );
    // Told there are 49, the read is complete.
    let out = kseg([
        "transactions",
        "--json",
        "--transaction-partitions",
        "49",
        log_dir.to_str().unwrap(),
        "--now",
        &(last + 900_001).to_string(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let told = json_lines(&out);
    let told = told.iter().find_map(|l| l.get("openTransaction")).unwrap();
    assert_eq!(told["verdict"], json!("hanging"), "{told}");
    // A coordinator partition outside 0..N-1 does not complete it.
    empty_coordinator_partitions(&log_dir, 50..51);
    let (open, _) = open_transactions(&log_dir, last + 900_001);
    assert_eq!(open[0]["verdict"], json!("unknown"));
    // The 50th makes it complete.
    empty_coordinator_partitions(&log_dir, 49..50);
    let (open, out) = open_transactions(&log_dir, last + 900_001);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(open[0]["verdict"], json!("hanging"));
    assert!(open[0]["abort"]["command"].is_string());
}

/// The transactional ids `kseg transactions --json` prints, by id.
fn printed_ids(paths: &[&Path]) -> (BTreeMap<String, Value>, String) {
    let mut args = vec!["transactions".to_string(), "--json".to_string()];
    args.extend(paths.iter().map(|p| p.to_str().unwrap().to_string()));
    let out = kseg(args);
    let ids = json_lines(&out)
        .into_iter()
        .filter_map(|o| Some((o.get("transactionalId")?.as_str()?.to_string(), o)))
        .collect();
    (ids, stderr(&out))
}

#[test]
fn of_two_replicas_of_a_coordinator_partition_the_longer_one_is_loaded() {
    // Replica a holds all of __transaction_state-0, replica b (later in
    // path order) its segments before offset 77 only.
    let tmp = tempfile::tempdir().unwrap();
    let full = tmp.path().join("a").join("__transaction_state-0");
    let short = tmp.path().join("b").join("__transaction_state-0");
    let source = root().join("internal-transaction-state/__transaction_state-0");
    copy_dir(&source, &full);
    copy_dir(&source, &short);
    for entry in std::fs::read_dir(&short).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name
            .get(..20)
            .and_then(|b| b.parse::<i64>().ok())
            .is_some_and(|b| b >= 77)
        {
            std::fs::remove_file(path).unwrap();
        }
    }
    let (alone, _) = printed_ids(&[&full]);
    let (short_alone, _) = printed_ids(&[&short]);
    assert_ne!(alone, short_alone, "the cut must change some id");
    let (both, err) = printed_ids(&[&full, &short]);
    assert_eq!(both, alone);
    assert!(
        err.contains(&format!(
            "__transaction_state-0: two replicas; loading {}",
            full.display()
        )),
        "{err}"
    );
    // The same for __consumer_offsets-0: each group once, from the longer.
    let full = tmp.path().join("c").join(OFFSETS_DIR);
    let short = tmp.path().join("d").join(OFFSETS_DIR);
    copy_dir(&root().join(OFFSETS).join(OFFSETS_DIR), &full);
    let cut_log_dir = offsets_log_dir(&tmp.path().join("cut"), Some(82));
    copy_dir(&cut_log_dir.join(OFFSETS_DIR), &short);
    let out = kseg([
        "groups",
        full.to_str().unwrap(),
        short.to_str().unwrap(),
        "--json",
    ]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let printed: Vec<Value> = json_lines(&out);
    let names: Vec<&str> = printed
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(names.len(), unique.len(), "{names:?}");
    let alone = groups_json(&full);
    let both: BTreeMap<String, Value> = printed
        .into_iter()
        .map(|g| (g["group"].as_str().unwrap().to_string(), g))
        .collect();
    assert_eq!(both, alone);
    assert!(err.contains("two replicas; loading"), "{err}");
}

#[test]
fn lag_is_the_log_end_offset_of_a_partition_in_the_same_log_dir_minus_the_commit() {
    // Before the tombstones at 96, acme-legacy-app still has acme.clicks-3
    // at the key type 0 / v0 commit of record 9.
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = offsets_log_dir(tmp.path(), Some(96));
    copy_dir(
        &root().join("codec-gzip/codec-0"),
        &log_dir.join("acme.clicks-3"),
    );
    let log_end = view("codec-gzip")["logEndOffset"].as_i64().unwrap();
    // The high watermark comes from the log dir's checkpoint, beside it.
    std::fs::write(
        log_dir.join("replication-offset-checkpoint"),
        "0\n1\nacme.clicks 3 350\n",
    )
    .unwrap();
    let (expected, _) = expected_offsets(96);
    let committed =
        expected[&("acme-legacy-app".to_string(), "acme.clicks".to_string(), 3)]["offset"]
            .as_i64()
            .unwrap();
    let groups = groups_json(&log_dir);
    for o in groups["acme-legacy-app"]["offsets"].as_array().unwrap() {
        if o["partition"] == json!(3) {
            assert_eq!(o["logEndOffset"], json!(log_end));
            assert_eq!(o["lag"], json!(log_end - committed));
            assert_eq!(o["highWatermark"], json!(350));
        } else {
            assert_eq!(
                (&o["logEndOffset"], &o["lag"]),
                (&Value::Null, &Value::Null)
            );
        }
    }
}

#[test]
fn lagging_keeps_the_groups_behind_a_partition_in_the_same_log_dir() {
    // Before the tombstones at 96, acme-legacy-app has acme.clicks-3.
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = offsets_log_dir(tmp.path(), Some(96));
    copy_dir(
        &root().join("codec-gzip/codec-0"),
        &log_dir.join("acme.clicks-3"),
    );
    let out = kseg(["groups", "--json", log_dir.to_str().unwrap()]);
    let behind: Vec<String> = json_lines(&out)
        .into_iter()
        .filter(|g| {
            g["offsets"]
                .as_array()
                .unwrap()
                .iter()
                .any(|o| o["lag"].as_i64().is_some_and(|l| l > 0))
        })
        .map(|g| g["group"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(behind, ["acme-legacy-app"]);
    let out = kseg(["groups", "--json", "--lagging", log_dir.to_str().unwrap()]);
    let kept: Vec<String> = json_lines(&out)
        .into_iter()
        .map(|g| g["group"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kept, behind);
}

#[test]
fn a_truncated_or_garbage_consumer_offsets_segment_is_named_with_its_byte_position() {
    let v = view(OFFSETS);
    let second = batches(&v)[1].1["position"].as_u64().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = offsets_log_dir(tmp.path(), None);
    let log = log_dir.join(OFFSETS_DIR).join("00000000000000000000.log");
    // Truncated in the middle of the second batch.
    let file = std::fs::OpenOptions::new().write(true).open(&log).unwrap();
    file.set_len(second + 30).unwrap();
    let out = kseg(["groups", log_dir.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{}: at byte {second}:", log.display())),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // Garbage where the records of the first batch are: its CRC fails and
    // its records do not decode; still no panic, file and position named.
    let mut bytes = std::fs::read(&log).unwrap();
    for b in &mut bytes[80..200] {
        *b = 0xff;
    }
    std::fs::write(&log, &bytes).unwrap();
    let out = kseg(["groups", log_dir.to_str().unwrap(), "--json"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{}: at byte 0:", log.display())),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// A partition where producer `producer_id` (epoch 0) left a transaction open.
fn write_open_transaction(dir: &Path, producer_id: i64) {
    use kseg::fixture::{PartitionWriter, WriterConfig, fixture_value};
    use kseg::format::encode::{BatchSpec, RecordSpec};
    let config = WriterConfig {
        segment_bytes: 1 << 20,
        index_interval_bytes: 4096,
    };
    let mut w = PartitionWriter::create(dir, config).unwrap();
    w.append(BatchSpec {
        producer_id,
        producer_epoch: 0,
        transactional: true,
        records: vec![RecordSpec {
            timestamp: 1_733_223_647_400,
            value: Some(fixture_value(0, 50)),
            ..RecordSpec::default()
        }],
        ..BatchSpec::default()
    })
    .unwrap();
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
    // The fixture writer's snapshots hold no producers; without one the
    // producer state comes from the log, as after a crash.
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "snapshot") {
            std::fs::remove_file(path).unwrap();
        }
    }
}

#[test]
fn an_open_transaction_the_coordinator_still_has_in_flight_does_not_hang() {
    // The coordinator's last word on acme-ledger-writer-38, by hand.
    let v = view("internal-transaction-state");
    let last = batches(&v)
        .into_iter()
        .flat_map(|(_, b)| b["records"].as_array().unwrap().iter())
        .rfind(|r| r["key"]["data"]["transactionalId"] == json!("acme-ledger-writer-38"))
        .unwrap()
        .clone();
    assert_eq!(last["transactionState"], json!("Ongoing"));
    let producer = last["value"]["data"]["producerId"].as_i64().unwrap();
    let in_txn: Vec<i64> = last["value"]["data"]["transactionPartitions"][0]["partitionIds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    let topic = last["value"]["data"]["transactionPartitions"][0]["topic"]
        .as_str()
        .unwrap();
    let outside = (0..).find(|p| !in_txn.contains(p)).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = tmp.path().join("logdir");
    copy_dir(
        &root().join("internal-transaction-state/__transaction_state-0"),
        &log_dir.join("__transaction_state-0"),
    );
    empty_coordinator_partitions(&log_dir, 1..50);
    write_open_transaction(&log_dir.join(format!("{topic}-{}", in_txn[0])), producer);
    write_open_transaction(&log_dir.join(format!("{topic}-{outside}")), producer);
    let (open, out) = open_transactions(&log_dir, 1_800_000_000_000);
    assert_eq!(out.status.code(), Some(1), "{}{open:?}", stderr(&out));
    let by_partition: BTreeMap<i64, &Value> = open
        .iter()
        .map(|t| (t["partition"].as_i64().unwrap(), t))
        .collect();
    let inside = by_partition[&in_txn[0]];
    assert_eq!(inside["hanging"], json!(false), "{inside}");
    assert_eq!(inside["transactionalId"], json!("acme-ledger-writer-38"));
    let stray = by_partition[&outside];
    assert_eq!(stray["hanging"], json!(true), "{stray}");
    assert!(
        stray["reason"]
            .as_str()
            .unwrap()
            .contains("without this partition")
    );
    assert_eq!(stray["abort"]["startOffset"], json!(0));
    assert_eq!(stray["abort"]["coordinatorEpoch"], json!(0));
}

#[test]
fn the_load_stops_at_the_first_batch_that_fails_its_crc_as_recovery_truncates_there() {
    // Batch 82 damaged: what loads is what loads from the log cut there,
    // later batches and segments included in neither.
    let v = view(OFFSETS);
    let (segment, batch) = batches(&v)
        .into_iter()
        .find(|(_, b)| b["baseOffset"] == json!(82))
        .unwrap();
    let position = batch["position"].as_u64().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = offsets_log_dir(tmp.path(), None);
    let log = log_dir.join(OFFSETS_DIR).join(format!("{segment:020}.log"));
    let mut bytes = std::fs::read(&log).unwrap();
    let at = usize::try_from(position).unwrap() + 70;
    bytes[at] ^= 0x01;
    std::fs::write(&log, &bytes).unwrap();
    let out = kseg(["groups", log_dir.to_str().unwrap(), "--json"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{}: at byte {position}:", log.display())),
        "{err}"
    );
    assert!(err.contains("truncates the log here"), "{err}");
    assert!(err.contains("the records before offset 82"), "{err}");
    let damaged: BTreeMap<String, Value> = json_lines(&out)
        .into_iter()
        .map(|g| (g["group"].as_str().unwrap().to_string(), g))
        .collect();
    let cut = tempfile::tempdir().unwrap();
    let expected = groups_json(&offsets_log_dir(cut.path(), Some(82)));
    let whole = tempfile::tempdir().unwrap();
    assert_ne!(expected, groups_json(&offsets_log_dir(whole.path(), None)));
    assert_eq!(damaged, expected);
}

/// A partition `name` under `root` holding one record with `key` and a
/// 2-byte value.
fn one_record_partition(root: &Path, name: &str, key: Vec<u8>) -> PathBuf {
    use kseg::fixture::{PartitionWriter, WriterConfig};
    use kseg::format::encode::{BatchSpec, RecordSpec};
    let dir = root.join(name);
    let config = WriterConfig {
        segment_bytes: 1 << 20,
        index_interval_bytes: 4096,
    };
    let mut w = PartitionWriter::create(&dir, config).unwrap();
    w.append(BatchSpec {
        records: vec![RecordSpec {
            timestamp: 1_733_223_647_400,
            key: Some(key),
            value: Some(vec![0, 0]),
            ..RecordSpec::default()
        }],
        ..BatchSpec::default()
    })
    .unwrap();
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
    dir
}

#[test]
fn a_record_of_an_unknown_type_is_skipped_as_kafka_skips_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = one_record_partition(tmp.path(), OFFSETS_DIR, vec![0x7f, 0xff, 0, 0]);
    let out = kseg(["groups", dir.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(
            "offset 0: record type 32767 has no schema; Kafka skips it (unknown record type)"
        ),
        "{err}"
    );
    assert!(!err.contains("fails"), "{err}");
}

#[test]
fn a_transaction_completed_past_the_high_watermark_still_holds_the_last_stable_offset() {
    // By hand from the view: each transaction of txn-0 after the producer
    // snapshot at 136, as (first offset, marker offset), and the open one.
    let v = view("transactional");
    let mut first: BTreeMap<i64, i64> = BTreeMap::new();
    let mut completed = Vec::new();
    for (_, b) in batches(&v) {
        let pid = b["producerId"].as_i64().unwrap();
        let base = b["baseOffset"].as_i64().unwrap();
        if base < 136 {
            continue;
        }
        if b["isControl"] == json!(true) {
            if let Some(f) = first.remove(&pid) {
                completed.push((f, base));
            }
        } else if b["isTransactional"] == json!(true) {
            first.entry(pid).or_insert(base);
        }
    }
    let open = *first.values().min().unwrap();
    // A transaction begun before the open one and ended after it: a high
    // watermark between its marker and the open one's start.
    let &(begun, marker) = completed
        .iter()
        .find(|(f, m)| *f < open && *m > open + 1)
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = tmp.path().join("logdir");
    copy_dir(&root().join("transactional/txn-0"), &log_dir.join("txn-0"));
    // Without the snapshot at the log end the broker replays from 136.
    std::fs::remove_file(log_dir.join("txn-0/00000000000000000239.snapshot")).unwrap();
    let lso = |hw: i64| {
        std::fs::write(
            log_dir.join("replication-offset-checkpoint"),
            format!("0\n1\ntxn 0 {hw}\n"),
        )
        .unwrap();
        let (open, out) = open_transactions(&log_dir, 0);
        assert!(out.status.code().is_some(), "{}", stderr(&out));
        open[0]["lastStableOffset"].as_i64().unwrap()
    };
    // Its marker at or past the high watermark: it is unreplicated.
    assert_eq!(lso(marker), begun);
    // Below it: replicated; the earliest unstable is the earliest of the
    // open one and those ended at or past the high watermark.
    let expected = completed
        .iter()
        .filter(|(_, m)| *m > marker)
        .map(|(f, _)| *f)
        .chain([open])
        .min()
        .unwrap();
    assert_eq!(lso(marker + 1), expected);
}

#[test]
fn a_transaction_log_key_of_an_unknown_version_is_skipped_as_kafka_skips_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = one_record_partition(tmp.path(), "__transaction_state-0", vec![0, 9, 0, 1, b'x']);
    let out = kseg(["transactions", dir.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("does not decode"), "{err}");
}

#[test]
fn the_coordinator_partition_count_is_looked_for_in_the_log_dirs_metadata_image() {
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = tmp.path().join("logdir");
    copy_dir(
        &root().join("internal-transaction-state/__transaction_state-0"),
        &log_dir.join("__transaction_state-0"),
    );
    copy_dir(&root().join("transactional/txn-0"), &log_dir.join("txn-0"));
    copy_dir(
        &root().join("internal-cluster-metadata/__cluster_metadata-0"),
        &log_dir.join("__cluster_metadata-0"),
    );
    let (open, out) = open_transactions(&log_dir, 1_800_000_000_000);
    let err = stderr(&out);
    assert_eq!(open[0]["verdict"], json!("unknown"));
    // The corpus image has no __transaction_state topic: the default, said so.
    assert!(
        err.contains(&format!(
            "1 of 50 __transaction_state partitions read (N from transaction.state.log.num.partitions' default, as the metadata image in {} has no __transaction_state topic)",
            log_dir.display()
        )),
        "{err}"
    );
}
