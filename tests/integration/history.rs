//! `kseg history` over the Kafka-written metadata logs (the corpus's
//! `internal-cluster-metadata` and each release's), checked against the
//! records of the case's `kafka-view.json` replayed by hand here: each
//! event's offset, its batch's append time, its kind, its previous and new
//! values; an aborted transaction's events marked and left out of the
//! state the later ones come from. Then the filters, and `kseg metadata
//! --at-time` against `--at-offset`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::util::{json_lines, kseg, stderr, stdout, unpacked};

const RELEASES: [&str; 7] = ["3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2"];

/// The partition fields compared, each with its `previous…`.
const FIELDS: [&str; 9] = [
    "leader",
    "isr",
    "replicas",
    "addingReplicas",
    "removingReplicas",
    "eligibleLeaderReplicas",
    "lastKnownElr",
    "leaderEpoch",
    "partitionEpoch",
];

/// One record of the view with its batch's append time and leader epoch.
struct Rec {
    offset: i64,
    time: i64,
    epoch: i64,
    control: Option<String>,
    value: Value,
}

fn records(batches: &Value) -> Vec<Rec> {
    let mut out = Vec::new();
    for b in batches.as_array().unwrap() {
        for r in b["records"].as_array().unwrap() {
            out.push(Rec {
                offset: r["offset"].as_i64().unwrap(),
                time: b["maxTimestamp"].as_i64().unwrap(),
                epoch: b["partitionLeaderEpoch"].as_i64().unwrap(),
                control: b["isControl"]
                    .as_bool()
                    .unwrap()
                    .then(|| r["key"]["controlType"].as_str().unwrap().to_string()),
                value: r["value"].clone(),
            });
        }
    }
    out
}

/// The cluster state the events' previous values come from.
#[derive(Clone, Default)]
struct State {
    /// topic id -> (name, partition -> the FIELDS).
    topics: BTreeMap<String, (String, BTreeMap<i64, Value>)>,
    /// broker -> (epoch, fenced, in controlled shutdown).
    brokers: BTreeMap<i64, (i64, bool, bool)>,
    features: BTreeMap<String, i64>,
    configs: BTreeMap<(i64, String, String), String>,
    quotas: BTreeMap<(String, String), f64>,
    acls: BTreeSet<String>,
    next_producer_id: Option<i64>,
}

fn upper(name: &str) -> String {
    let mut s = name.to_string();
    s[..1].make_ascii_uppercase();
    format!("previous{s}")
}

fn list_or_empty(v: &Value) -> Value {
    if v.is_null() { json!([]) } else { v.clone() }
}

/// The FIELDS of a partition, now and before.
fn partition_event(kind: &str, topic: &str, p: i64, now: &Value, before: Option<&Value>) -> Value {
    let mut e = json!({"kind": kind, "topic": topic, "partition": p});
    for f in FIELDS {
        e[f] = now[f].clone();
        e[upper(f)] = before.map_or(Value::Null, |b| b[f].clone());
    }
    e
}

impl State {
    /// The events of a metadata record, or `None` when the image refuses it.
    fn apply(&mut self, kind: &str, d: &Value) -> Option<Vec<Value>> {
        let int = |f: &str| d[f].as_i64();
        let s = |f: &str| d[f].as_str().map(str::to_string);
        let one = |e: Value| Some(vec![e]);
        match kind {
            "TOPIC_RECORD" => {
                let (id, name) = (s("topicId")?, s("name")?);
                self.topics
                    .insert(id.clone(), (name.clone(), BTreeMap::new()));
                one(json!({"kind": "topicCreated", "topic": name, "topicId": id}))
            }
            "REMOVE_TOPIC_RECORD" => {
                let (name, _) = self.topics.remove(&s("topicId")?)?;
                self.configs.retain(|(t, r, _), _| !(*t == 2 && *r == name));
                one(json!({"kind": "topicDeleted", "topic": name, "topicId": d["topicId"]}))
            }
            "PARTITION_RECORD" => {
                let (name, parts) = self.topics.get_mut(&s("topicId")?)?;
                let mut p = json!({});
                for f in &FIELDS[..7] {
                    p[*f] = list_or_empty(&d[*f]);
                }
                p["leader"] = d["leader"].clone();
                p["leaderEpoch"] = json!(int("leaderEpoch").unwrap_or(-1));
                p["partitionEpoch"] = json!(int("partitionEpoch").unwrap_or(-1));
                let id = int("partitionId")?;
                let before = parts.insert(id, p.clone());
                one(partition_event(
                    "partitionCreated",
                    name,
                    id,
                    &p,
                    before.as_ref(),
                ))
            }
            "PARTITION_CHANGE_RECORD" => {
                let (name, parts) = self.topics.get_mut(&s("topicId")?)?;
                let id = int("partitionId")?;
                let p = parts.get_mut(&id)?;
                let before = p.clone();
                for f in &FIELDS[1..7] {
                    if !d[*f].is_null() {
                        p[*f] = d[*f].clone();
                    }
                }
                let leader = int("leader").unwrap_or(-2);
                if leader != -2 {
                    p["leader"] = json!(leader);
                    p["leaderEpoch"] = json!(p["leaderEpoch"].as_i64().unwrap() + 1);
                }
                p["partitionEpoch"] = json!(p["partitionEpoch"].as_i64().unwrap() + 1);
                one(partition_event(
                    "partitionChanged",
                    name,
                    id,
                    p,
                    Some(&before),
                ))
            }
            "CLEAR_ELR_RECORD" => {
                let topic = s("topicName").unwrap_or_default();
                let mut events = Vec::new();
                let mut found = topic.is_empty();
                for (name, parts) in self.topics.values_mut() {
                    if !topic.is_empty() && *name != topic {
                        continue;
                    }
                    found = true;
                    for (id, p) in parts.iter_mut() {
                        let before = p.clone();
                        let elr = ["eligibleLeaderReplicas", "lastKnownElr"];
                        if elr.iter().all(|f| p[*f] == json!([])) {
                            continue;
                        }
                        for f in elr {
                            p[f] = json!([]);
                        }
                        p["partitionEpoch"] = json!(p["partitionEpoch"].as_i64().unwrap() + 1);
                        events.push(partition_event(
                            "partitionChanged",
                            name,
                            *id,
                            p,
                            Some(&before),
                        ));
                    }
                }
                found.then_some(events)
            }
            "REGISTER_BROKER_RECORD" => {
                let id = int("brokerId")?;
                let fenced = d["fenced"].as_bool().unwrap_or(true);
                let ics = d["inControlledShutdown"].as_bool().unwrap_or(false);
                let before = self.brokers.insert(id, (int("brokerEpoch")?, fenced, ics));
                one(
                    json!({"kind": "brokerRegistered", "broker": id, "epoch": d["brokerEpoch"],
                    "fenced": fenced, "previousEpoch": before.map(|b| b.0)}),
                )
            }
            "UNREGISTER_BROKER_RECORD" => {
                let id = int("brokerId")?;
                let before = self.brokers.remove(&id);
                one(json!({"kind": "brokerUnregistered", "broker": id,
                    "previousEpoch": before.map(|b| b.0)}))
            }
            "FENCE_BROKER_RECORD" | "UNFENCE_BROKER_RECORD" => {
                let fenced = Some(kind == "FENCE_BROKER_RECORD");
                self.broker_state(int("id")?, int("epoch")?, fenced, None)
            }
            "BROKER_REGISTRATION_CHANGE_RECORD" => {
                let fenced = match int("fenced").unwrap_or(0) {
                    -1 => Some(false),
                    0 => None,
                    1 => Some(true),
                    _ => return None,
                };
                let ics = match int("inControlledShutdown").unwrap_or(0) {
                    0 => None,
                    1 => Some(true),
                    _ => return None,
                };
                self.broker_state(int("brokerId")?, int("brokerEpoch")?, fenced, ics)
            }
            "FEATURE_LEVEL_RECORD" => {
                let name = s("name")?;
                if name == "kraft.version" {
                    return Some(vec![]);
                }
                let level = int("featureLevel")?;
                let previous = if level == 0 && name != "metadata.version" {
                    self.features.remove(&name)
                } else {
                    self.features.insert(name.clone(), level)
                };
                let now = self.features.get(&name);
                one(
                    json!({"kind": "featureChanged", "feature": name, "level": now,
                    "previousLevel": previous}),
                )
            }
            "CONFIG_RECORD" => {
                let key = (int("resourceType")?, s("resourceName")?, s("name")?);
                let previous = match s("value") {
                    Some(v) => self.configs.insert(key.clone(), v),
                    None => self.configs.remove(&key),
                };
                one(
                    json!({"kind": "configChanged", "resource": key.1, "name": key.2,
                    "value": d["value"], "previousValue": previous}),
                )
            }
            "CLIENT_QUOTA_RECORD" => {
                let entity = d["entity"].to_string();
                let key = (entity, s("key")?);
                let previous = if d["remove"].as_bool().unwrap_or(false) {
                    self.quotas.remove(&key)
                } else {
                    self.quotas.insert(key.clone(), d["value"].as_f64()?)
                };
                one(json!({"kind": "quotaChanged", "key": key.1,
                    "value": self.quotas.get(&key), "previousValue": previous}))
            }
            "ACCESS_CONTROL_ENTRY_RECORD" => {
                self.acls.insert(s("id")?);
                one(json!({"kind": "aclChanged", "id": d["id"], "change": "added"}))
            }
            "REMOVE_ACCESS_CONTROL_ENTRY_RECORD" => {
                self.acls.remove(&s("id")?).then_some(())?;
                one(json!({"kind": "aclChanged", "id": d["id"], "change": "removed"}))
            }
            "PRODUCER_IDS_RECORD" => {
                let previous = self.next_producer_id.replace(int("nextProducerId")?);
                one(
                    json!({"kind": "producerIds", "nextProducerId": d["nextProducerId"],
                    "previousNextProducerId": previous}),
                )
            }
            _ => Some(vec![]),
        }
    }

    fn broker_state(
        &mut self,
        id: i64,
        epoch: i64,
        fenced: Option<bool>,
        ics: Option<bool>,
    ) -> Option<Vec<Value>> {
        let b = self.brokers.get_mut(&id).filter(|b| b.0 == epoch)?;
        let before = *b;
        b.1 = fenced.unwrap_or(b.1);
        b.2 = ics.unwrap_or(b.2);
        if *b == before {
            return Some(vec![]);
        }
        let kind = if b.1 {
            "brokerFenced"
        } else {
            "brokerUnfenced"
        };
        Some(vec![
            json!({"kind": kind, "broker": id, "epoch": epoch, "fenced": b.1,
            "previousFenced": before.1, "inControlledShutdown": b.2,
            "previousInControlledShutdown": before.2}),
        ])
    }
}

/// The replay by hand: the state, the KRaft control state, the events.
#[derive(Default)]
struct Hand {
    state: State,
    /// The state before the open transaction, and its events so far
    /// (each with whether the transaction decides it).
    open: Option<(State, Vec<(Value, bool)>)>,
    voters: Option<Vec<i64>>,
    kraft_version: Option<i64>,
    controller: Option<i64>,
    events: Vec<Value>,
}

impl Hand {
    fn push(&mut self, r: &Rec, mut e: Value, transactional: bool) {
        e["offset"] = json!(r.offset);
        e["timestamp"] = json!(r.time);
        e["aborted"] = json!(false);
        e["openTransaction"] = json!(false);
        match &mut self.open {
            Some((_, pending)) => pending.push((e, transactional)),
            None => self.events.push(e),
        }
    }

    fn flush(&mut self, mark: Option<&str>) {
        for (mut e, transactional) in self.open.take().map(|o| o.1).unwrap_or_default() {
            if let (Some(mark), true) = (mark, transactional) {
                e[mark] = json!(true);
            }
            self.events.push(e);
        }
    }

    /// Replays `r`; `events` false for the starting snapshot's records.
    fn record(&mut self, r: &Rec, events: bool) {
        let d = &r.value["data"];
        if let Some(kind) = &r.control {
            let ids = |l: &Value| -> Vec<i64> {
                l.as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v["voterId"].as_i64().unwrap())
                    .collect()
            };
            let e = match kind.as_str() {
                "LEADER_CHANGE" => {
                    let leader = d["leaderId"].as_i64().unwrap();
                    Some(
                        json!({"kind": "controllerChanged", "change": "leader", "leader": leader,
                        "previousLeader": self.controller.replace(leader), "epoch": r.epoch,
                        "grantingVoters": ids(&d["grantingVoters"])}),
                    )
                }
                "KRAFT_VOTERS" => {
                    let now = ids(&d["voters"]);
                    let before = self.voters.replace(now.clone());
                    (before.as_ref() != Some(&now)).then(|| {
                        json!({"kind": "controllerChanged",
                        "change": "voters", "voters": now, "previousVoters": before})
                    })
                }
                "KRAFT_VERSION" => {
                    let now = d["kRaftVersion"].as_i64().unwrap();
                    let before = self.kraft_version.replace(now);
                    (before != Some(now)).then(|| {
                        json!({"kind": "featureChanged",
                        "feature": "kraft.version", "level": now, "previousLevel": before})
                    })
                }
                _ => None,
            };
            if let Some(e) = e.filter(|_| events) {
                self.push(r, e, false);
            }
            return;
        }
        let kind = r.value["type"].as_str().unwrap();
        match (kind, self.open.is_some()) {
            ("BEGIN_TRANSACTION_RECORD", false) => self.open = Some((self.state.clone(), vec![])),
            ("END_TRANSACTION_RECORD", true) => self.flush(None),
            ("ABORT_TRANSACTION_RECORD", true) => {
                self.state = self.open.as_ref().unwrap().0.clone();
                self.flush(Some("aborted"));
            }
            (k, _) if k.ends_with("_TRANSACTION_RECORD") => {}
            _ => {
                for e in self.state.apply(kind, d).unwrap_or_default() {
                    if events {
                        self.push(r, e, true);
                    }
                }
            }
        }
    }

    fn finish(mut self) -> Vec<Value> {
        self.flush(Some("openTransaction"));
        self.events
    }
}

fn view(case: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(case.join("kafka-view.json")).unwrap()).unwrap()
}

/// The events replayed by hand from the case's view: the snapshot whose
/// file name is `snapshot` (its records the state, not events), then the
/// log from its end offset.
fn by_hand(view: &Value, snapshot: Option<&str>) -> Vec<Value> {
    let p = &view["partition"];
    let mut hand = Hand::default();
    let mut from = 0;
    if let Some(name) = snapshot {
        let s = p["kraftSnapshots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["file"] == name)
            .unwrap();
        for r in records(&s["records"]["batches"]) {
            hand.record(&r, false);
        }
        from = name[..20].parse().unwrap();
    }
    for s in p["segments"].as_array().unwrap() {
        for r in records(&s["log"]["batches"])
            .iter()
            .filter(|r| r.offset >= from)
        {
            hand.record(r, true);
        }
    }
    hand.finish()
}

/// kseg's events, each cut to the fields the hand's event has.
fn kseg_events(args: &[&str], hand: &[Value]) -> Vec<Value> {
    let out = kseg(args.iter().copied().chain(["--json"]));
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    let got = json_lines(&out);
    got.iter()
        .zip(hand)
        .map(|(g, h)| {
            let mut cut = json!({});
            for k in h.as_object().unwrap().keys() {
                cut[k] = match (k.as_str(), &g[k]) {
                    ("aborted" | "openTransaction", Value::Null) => json!(false),
                    (_, v) => v.clone(),
                };
            }
            cut
        })
        .chain(got.iter().skip(hand.len()).cloned())
        .collect()
}

fn assert_events(ctx: &str, got: &[Value], hand: &[Value]) {
    for (i, (g, h)) in got.iter().zip(hand).enumerate() {
        assert_eq!(g, h, "{ctx}: event {i}");
    }
    assert_eq!(got.len(), hand.len(), "{ctx}: events");
}

fn corpus_case() -> PathBuf {
    super::corpus::root().join("internal-cluster-metadata")
}

/// The corpus case from offset 0 (after the bootstrap snapshot) and from
/// its snapshot at offset 102, every kind of event there, the aborted
/// transaction's config left out of the state after it.
#[test]
fn corpus_history_is_its_view_replayed_by_hand() {
    let case = corpus_case();
    let view = view(&case);
    let dir = case.join("__cluster_metadata-0");
    let hand = by_hand(&view, Some("00000000000000000000-0000000000.checkpoint"));
    let got = kseg_events(&["history", dir.to_str().unwrap()], &hand);
    assert_events("from offset 0", &got, &hand);
    let kinds: BTreeSet<&str> = hand.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    for kind in [
        "topicCreated",
        "topicDeleted",
        "partitionCreated",
        "partitionChanged",
        "brokerRegistered",
        "brokerFenced",
        "brokerUnfenced",
        "brokerUnregistered",
        "controllerChanged",
        "featureChanged",
        "configChanged",
        "quotaChanged",
        "aclChanged",
        "producerIds",
    ] {
        assert!(kinds.contains(kind), "no {kind} event in the corpus case");
    }
    let aborted: Vec<&Value> = hand.iter().filter(|e| e["aborted"] == true).collect();
    assert_eq!(aborted.len(), 1, "the aborted transaction's ConfigRecord");
    assert_eq!(aborted[0]["name"], "num.io.threads");

    let snapshot = "00000000000000000102-0000000002.checkpoint";
    let hand = by_hand(&view, Some(snapshot));
    let args = ["history", dir.to_str().unwrap(), "--snapshot"];
    let path = dir.join(snapshot);
    let got = kseg_events(&[&args[..], &[path.to_str().unwrap()]].concat(), &hand);
    assert_events("from the snapshot at 102", &got, &hand);
    assert_eq!(got[0]["offset"], 102);
    assert_eq!(got[0]["kind"], "topicDeleted");
}

/// Every release's case, from offset 0: their values are random, so many
/// records are refused and make no event; the 4.0-on ones clear ELRs.
#[test]
fn each_release_history_is_its_view_replayed_by_hand() {
    for release in RELEASES {
        let case = unpacked(release).join("internal-cluster-metadata");
        let view = view(&case);
        let hand = by_hand(&view, None);
        let dir = case.join("__cluster_metadata-0");
        let got = kseg_events(&["history", dir.to_str().unwrap()], &hand);
        assert_events(release, &got, &hand);
        assert!(hand.len() > 10, "{release}: {} events", hand.len());
    }
}

/// The text lines say the change as a person reads it, one a line, with
/// the summary line last.
#[test]
fn text_lines_read_as_the_changes() {
    let dir = corpus_case().join("__cluster_metadata-0");
    let out = kseg([
        "history",
        dir.to_str().unwrap(),
        "--partition",
        "acme.orders-2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..4],
        [
            "offset 26 2024-12-02T10:00:05.975Z topic acme.orders created (id br3Wi8ZEFzwwztmrkqAPBA)",
            "offset 31 2024-12-02T10:00:05.975Z partition acme.orders-2 created: leader 3 (epoch 0), isr [3,1,2], replicas [3,1,2]",
            "offset 61 2024-12-02T10:00:06.693Z partition acme.orders-2 leader 3 -> 1 (epoch 0 -> 1), isr [3,1,2] -> [1,2]",
            "offset 85 2024-12-02T10:00:11.414Z partition acme.orders-2 isr [1,2] -> [1,2,3]",
        ]
    );
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("5 events through offset 156, from the state of the snapshot ")
    );
    let out = kseg(["history", dir.to_str().unwrap()]);
    assert!(stdout(&out).contains(
        "offset 126 2024-12-02T10:01:16.164Z acl removed ALLOW User:acme-app READ on TOPIC acme.orders (LITERAL) from host * (id ROTWMsvPWH1uzux0KjLGKw)"
    ));
    assert!(stdout(&out).contains(
        "offset 150 2024-12-02T10:01:16.585Z config cluster default num.io.threads=16 (was unset) (aborted transaction: not applied)"
    ));
}

/// --since/--until, --topic, --partition and --broker keep the events
/// the hand's rule keeps, and only those.
#[test]
fn filters_keep_what_they_name() {
    let case = corpus_case();
    let dir = case.join("__cluster_metadata-0");
    let d = dir.to_str().unwrap();
    let all = by_hand(
        &view(&case),
        Some("00000000000000000000-0000000000.checkpoint"),
    );
    let (since, until) = (1_733_133_606_590_i64, 1_733_133_671_741_i64);
    let names_broker = |e: &Value, b: i64| {
        let has = |f: &str| e[f] == b || e[f].as_array().is_some_and(|l| l.contains(&json!(b)));
        e["broker"] == b
            || (e["resource"].as_str() == Some(&b.to_string()) && e["kind"] == "configChanged")
            || [
                "leader",
                "isr",
                "replicas",
                "previousLeader",
                "previousIsr",
                "previousReplicas",
            ]
            .iter()
            .any(|f| e["kind"].as_str().unwrap().starts_with("partition") && has(f))
    };
    type Rule<'a> = Box<dyn Fn(&Value) -> bool + 'a>;
    let cases: Vec<(Vec<String>, Rule)> = vec![
        (
            vec![
                "--since".into(),
                "2024-12-02T10:00:06.590Z".into(),
                "--until".into(),
                until.to_string(),
            ],
            Box::new(|e: &Value| (since..=until).contains(&e["timestamp"].as_i64().unwrap())),
        ),
        (
            vec!["--topic".into(), "acme.orders".into()],
            Box::new(|e: &Value| e["topic"] == "acme.orders" || e["resource"] == "acme.orders"),
        ),
        (
            vec!["--partition".into(), "acme.late-0-1".into()],
            Box::new(|e: &Value| {
                e["topic"] == "acme.late-0" && (e["partition"] == 1 || e["partition"].is_null())
            }),
        ),
        (
            vec!["--broker".into(), "3".into()],
            Box::new(|e: &Value| names_broker(e, 3)),
        ),
    ];
    for (flags, rule) in cases {
        let hand: Vec<Value> = all.iter().filter(|e| rule(e)).cloned().collect();
        assert!(!hand.is_empty() && hand.len() < all.len(), "{flags:?}");
        let args: Vec<&str> = ["history", d]
            .into_iter()
            .chain(flags.iter().map(String::as_str))
            .collect();
        let got = kseg_events(&args, &hand);
        assert_events(&format!("{flags:?}"), &got, &hand);
    }
}

/// A metadata log of one topic with 100 partitions and then `changes`
/// PartitionChangeRecords (ISR shrinking and growing back, the leader
/// moving), 1000 to a batch, each batch a millisecond after the last:
/// records built by hand (MetadataRecordSerde's frame: version 1, api
/// key, record version, then the flexible-version fields).
fn generated_log(dir: &Path, changes: u32) {
    use kseg::format::encode::{BatchSpec, RecordSpec, encode_batch};
    use std::io::Write as _;
    const TOPIC_ID: [u8; 16] = *b"generated-topic!";
    let frame = |api_key: u8, body: &[u8]| [&[1, api_key, 0][..], body].concat();
    let ints = |list: &[i32]| {
        let mut out = vec![list.len() as u8 + 1];
        for i in list {
            out.extend_from_slice(&i.to_be_bytes());
        }
        out
    };
    let topic = frame(2, &[&[10][..], b"generated", &TOPIC_ID, &[0]].concat());
    let partition = |p: i32| {
        let mut body = [&p.to_be_bytes()[..], &TOPIC_ID].concat();
        for list in [&[1, 2, 3][..], &[1, 2, 3], &[], &[]] {
            body.extend(ints(list));
        }
        body.extend_from_slice(&1i32.to_be_bytes());
        body.extend_from_slice(&0i32.to_be_bytes());
        body.extend_from_slice(&0i32.to_be_bytes());
        body.push(0);
        frame(3, &body)
    };
    let change = |i: u32| {
        let p = (i % 100) as i32;
        let isr: &[i32] = if (i / 100).is_multiple_of(2) {
            &[1, 2]
        } else {
            &[1, 2, 3]
        };
        let isr = ints(isr);
        let mut body = [&p.to_be_bytes()[..], &TOPIC_ID, &[2, 0, isr.len() as u8]].concat();
        body.extend(isr);
        body.extend_from_slice(&[1, 4]);
        body.extend_from_slice(&(1 + (i / 100) as i32 % 3).to_be_bytes());
        frame(5, &body)
    };
    let part = dir.join("__cluster_metadata-0");
    std::fs::create_dir_all(&part).unwrap();
    let log = std::fs::File::create(part.join("00000000000000000000.log")).unwrap();
    let mut log = std::io::BufWriter::new(log);
    let values = std::iter::once(topic)
        .chain((0..100).map(partition))
        .chain((0..changes).map(change));
    let mut offset = 0i64;
    let mut batch = Vec::new();
    let mut flush = |batch: &mut Vec<Vec<u8>>, offset: &mut i64| {
        let time = 1_700_000_000_000 + *offset / 1000;
        let spec = BatchSpec {
            base_offset: *offset,
            partition_leader_epoch: 1,
            append_time: time,
            records: batch
                .drain(..)
                .map(|v| RecordSpec {
                    timestamp: time,
                    key: None,
                    value: Some(v),
                    headers: vec![],
                })
                .collect(),
            ..BatchSpec::default()
        };
        *offset += spec.records.len() as i64;
        log.write_all(&encode_batch(&spec)).unwrap();
    };
    for v in values {
        batch.push(v);
        if batch.len() == 1000 {
            flush(&mut batch, &mut offset);
        }
    }
    flush(&mut batch, &mut offset);
}

/// Peak RSS (KiB) of `kseg history --json` over a generated log, and the
/// events it printed; stdout is counted as it comes, never kept.
fn history_peak_rss(dir: &Path) -> (i64, u64) {
    use std::io::BufRead as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kseg"))
        .args(["history", "--json"])
        .arg(dir)
        .env("KSEG_PEAK_RSS", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut events = 0;
    for line in out.lines() {
        let line = line.unwrap();
        assert!(line.starts_with("{\"offset\""), "{line}");
        events += 1;
    }
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr).into_owned();
    assert_eq!(done.status.code(), Some(0), "{err}");
    let kib = err
        .lines()
        .find_map(|l| l.strip_prefix("kseg: peak RSS: "))
        .unwrap_or_else(|| panic!("no peak RSS: {err}"))
        .trim_end_matches(" kB")
        .trim()
        .parse()
        .unwrap();
    (kib, events)
}

/// The history of a 2-million-record metadata log streams: its peak
/// memory is that of a log ten times smaller, within a few MiB (the
/// image is the same size; only the records differ), and every record is
/// an event printed.
#[test]
fn history_memory_stays_flat_with_the_records() {
    let tmp = tempfile::tempdir().unwrap();
    let mut peaks = Vec::new();
    for changes in [200_000u32, 2_000_000] {
        let dir = tmp.path().join(changes.to_string());
        generated_log(&dir, changes);
        let (kib, events) = history_peak_rss(&dir);
        assert_eq!(events, u64::from(changes) + 101, "{changes} changes");
        peaks.push(kib);
    }
    eprintln!("peak RSS: {peaks:?} KiB for 200k and 2M changes");
    assert!(
        peaks[1] < peaks[0] + 4096,
        "peak RSS grows with the records: {peaks:?} KiB"
    );
}

/// `kseg metadata --at-time T` is `--at-offset N` for N the last offset
/// of the last batch appended at or before T (the view's batches in log
/// order up to the first later one): at each batch's time and a
/// millisecond before it; a time before the first batch is an error.
#[test]
fn metadata_at_time_is_at_offset_of_the_last_batch_by_then() {
    let case = corpus_case();
    let view = view(&case);
    let dir = case.join("__cluster_metadata-0");
    let batches: Vec<(i64, i64)> = view["partition"]["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["log"]["batches"].as_array().unwrap().clone())
        .map(|b| {
            (
                b["maxTimestamp"].as_i64().unwrap(),
                b["lastOffset"].as_i64().unwrap(),
            )
        })
        .collect();
    let expected = |t: i64| {
        batches
            .iter()
            .take_while(|(time, _)| *time <= t)
            .last()
            .map(|(_, last)| *last)
    };
    let metadata = |flag: &str, value: String| {
        let out = kseg([
            "metadata".into(),
            dir.display().to_string(),
            "--json".into(),
            flag.into(),
            value,
        ]);
        (out.status.code(), stdout(&out), stderr(&out))
    };
    let times: BTreeSet<i64> = batches.iter().flat_map(|(t, _)| [*t, t - 1]).collect();
    let mut distinct = BTreeSet::new();
    for t in times {
        let Some(offset) = expected(t) else {
            let (code, _, err) = metadata("--at-time", t.to_string());
            assert_eq!(code, Some(2), "{t}: {err}");
            assert!(err.contains("first batch was appended after it"), "{err}");
            continue;
        };
        let (code, by_time, err) = metadata("--at-time", t.to_string());
        assert_eq!(code, Some(0), "{t}: {err}");
        assert!(
            err.contains(&format!("the image as of offset {offset},")),
            "{t}: {err}"
        );
        let (_, by_offset, _) = metadata("--at-offset", offset.to_string());
        assert_eq!(
            by_time, by_offset,
            "--at-time {t} against --at-offset {offset}"
        );
        distinct.insert(offset);
    }
    assert!(distinct.len() > 10, "{distinct:?}");
    assert!(
        distinct.iter().any(|&o| o >= 102),
        "a time past the snapshot: {distinct:?}"
    );
}

/// The story a data partition's view tells by hand: each segment's start
/// (its first batch's time), each leader epoch's start (the time of the
/// batch holding it), producer epoch bumps, ABORT markers (control key
/// type 0), in offset order.
fn story_by_hand(view: &Value) -> Vec<Value> {
    let p = &view["partition"];
    let mut epochs: Vec<(i64, i64)> = p["leaderEpochCheckpoint"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["epoch"].as_i64().unwrap(),
                e["startOffset"].as_i64().unwrap(),
            )
        })
        .collect();
    epochs.reverse();
    let mut producers = BTreeMap::new();
    let mut out = Vec::new();
    for s in p["segments"].as_array().unwrap() {
        for (i, b) in s["log"]["batches"].as_array().unwrap().iter().enumerate() {
            let time = &b["maxTimestamp"];
            if i == 0 {
                out.push(
                    json!({"kind": "segmentStarts", "offset": s["baseOffset"], "timestamp": time}),
                );
            }
            while epochs
                .last()
                .is_some_and(|e| e.1 <= b["lastOffset"].as_i64().unwrap())
            {
                let (epoch, start) = epochs.pop().unwrap();
                out.push(
                    json!({"kind": "leaderEpochStarts", "offset": start, "timestamp": time,
                    "leaderEpoch": epoch}),
                );
            }
            let (pid, epoch) = (
                b["producerId"].as_i64().unwrap(),
                b["producerEpoch"].as_i64().unwrap(),
            );
            if pid >= 0 {
                if let Some(previous) = producers.insert(pid, epoch).filter(|p| *p < epoch) {
                    out.push(
                        json!({"kind": "producerEpochBumped", "offset": b["baseOffset"],
                        "timestamp": time, "producerId": pid, "producerEpoch": epoch,
                        "previousProducerEpoch": previous}),
                    );
                }
            }
            if b["isControl"] == true && b["isTransactional"] == true {
                for r in b["records"].as_array().unwrap() {
                    if r["key"]["base64"] == "AAAAAA==" {
                        out.push(json!({"kind": "transactionAborted", "offset": r["offset"],
                            "timestamp": time, "producerId": pid, "producerEpoch": epoch}));
                    }
                }
            }
        }
    }
    out
}

/// `history --partition T-N LOGDIR` with the partition's directory in the
/// log dir adds its files' story after the metadata events, as its view
/// tells it by hand (the transactional case's aborts, the idempotent
/// case's producer epoch bump), then its recovery point; the metadata's
/// partition creation names where its leader epoch starts in the files.
#[test]
fn partition_story_from_its_files() {
    for case in ["transactional", "idempotent"] {
        let source = super::corpus::root().join(case);
        let view = view(&source);
        let tmp = tempfile::tempdir().unwrap();
        let logdir = tmp.path();
        super::util::copy_dir(
            &corpus_case().join("__cluster_metadata-0"),
            &logdir.join("__cluster_metadata-0"),
        );
        let data = logdir.join("acme.orders-0");
        super::util::copy_dir(
            &source.join(view["partition"]["dir"].as_str().unwrap()),
            &data,
        );
        std::fs::write(
            logdir.join("recovery-point-offset-checkpoint"),
            "0\n1\nacme.orders 0 57\n",
        )
        .unwrap();
        let args = [
            "history",
            "--partition",
            "acme.orders-0",
            logdir.to_str().unwrap(),
            "--json",
        ];
        let out = kseg(args);
        assert_eq!(out.status.code(), Some(0), "{case}: {}", stderr(&out));
        let lines = json_lines(&out);
        let story: Vec<&Value> = lines
            .iter()
            .filter(|l| l["source"] == "partition")
            .collect();
        let mut hand = story_by_hand(&view);
        let end = view["partition"]["segments"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["log"]["batches"].as_array().unwrap().clone())
            .last()
            .unwrap()["lastOffset"]
            .as_i64()
            .unwrap()
            + 1;
        hand.push(
            json!({"kind": "recoveryPoint", "offset": 57, "timestamp": null, "logEndOffset": end}),
        );
        let cut: Vec<Value> = story
            .iter()
            .zip(&hand)
            .map(|(g, h)| {
                let mut c = json!({});
                for k in h.as_object().unwrap().keys() {
                    c[k] = g[k].clone();
                }
                c
            })
            .collect();
        assert_eq!(cut, hand[..cut.len()], "{case}");
        assert_eq!(story.len(), hand.len(), "{case}");
        let kinds: BTreeSet<&str> = hand.iter().map(|e| e["kind"].as_str().unwrap()).collect();
        let special = if case == "transactional" {
            "transactionAborted"
        } else {
            "producerEpochBumped"
        };
        assert!(kinds.contains(special), "{case}: {kinds:?}");
        let created = lines
            .iter()
            .find(|l| l["kind"] == "partitionCreated")
            .unwrap();
        assert_eq!(created["leaderEpochStartOffset"], 0, "{case}");
        assert!(
            lines
                .iter()
                .all(|l| l["kind"] != "partitionChanged" || l["leaderEpochStartOffset"].is_null()),
            "no epoch past 0 in the files"
        );

        let out = kseg(&args[..4]);
        assert!(stdout(&out).contains(
            "offset 29 2024-12-02T10:00:05.975Z partition acme.orders-0 created: leader 1 (epoch 0), isr [1,2,3], replicas [1,2,3]; its files: leader epoch 0 starts at offset 0"
        ), "{case}: {}", stdout(&out));
    }
}
