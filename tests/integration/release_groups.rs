//! `kseg groups` on every release's `internal-consumer-offsets-groups`
//! case (one coherent story: classic groups, a KIP-848 consumer group, a
//! share group from 4.0, a streams group from 4.1), against the groups
//! replayed by hand here from Kafka's own reading of every record
//! (`kafka-view.json`), as each release's `GroupMetadataManager.replay`
//! and `OffsetMetadataManager.replay` apply those records.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::util::{json_lines, kseg, stderr, unpacked};

/// Every release with a groups case.
const RELEASES: [&str; 7] = ["3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2"];

/// A group as the hand replay leaves it.
#[derive(Default)]
struct Replayed {
    /// `classic`, `consumer`, `share` or `streams`.
    kind: &'static str,
    /// Classic groups: the `GroupMetadataValue` data.
    classic: Option<Value>,
    /// A group tombstone came (classic groups).
    deleted: bool,
    group_epoch: i64,
    validated_topology_epoch: i64,
    assignment_epoch: i64,
    topology: Option<Value>,
    /// The subscribed topics' metadata (ConsumerGroupPartitionMetadata
    /// before 4.1, ShareGroupPartitionMetadata in 4.0).
    subscription_metadata: Option<Value>,
    share_state_partitions: Option<Value>,
    /// Member id to (member metadata, current assignment).
    members: BTreeMap<String, (Option<Value>, Option<Value>)>,
    targets: BTreeMap<String, Value>,
    /// (topic, partition) to the commit and its record's offset.
    offsets: BTreeMap<(String, i64), (Value, i64)>,
}

/// The group type a record type belongs to (offset commits, 0 and 1, to none).
fn kind_of(record_type: &str) -> Option<&'static str> {
    match record_type.parse::<u32>().unwrap() {
        0 | 1 => None,
        2 => Some("classic"),
        3..=8 => Some("consumer"),
        9..=15 => Some("share"),
        17..=23 => Some("streams"),
        other => panic!("record type {other} is not in the story"),
    }
}

/// Applies one record of a modern group (consumer, share, streams): the
/// families share their shapes.
fn modern(g: &mut Replayed, t: &str, member: Option<String>, v: Option<&Value>) {
    let int = |name: &str| v.and_then(|d| d[name].as_i64());
    match t {
        "3" | "11" | "17" => {
            g.group_epoch = int("epoch").unwrap();
            // StreamsGroupMetadataValue's tagged field (4.2), -1 by default.
            g.validated_topology_epoch = v
                .and_then(|d| d.get("validatedTopologyEpoch"))
                .map_or(-1, |e| e.as_i64().unwrap());
        }
        "23" => g.topology = v.cloned(),
        "4" | "9" => g.subscription_metadata = v.map(|d| d["topics"].clone()),
        "15" => g.share_state_partitions = v.cloned(),
        "6" | "12" | "20" => g.assignment_epoch = int("assignmentEpoch").unwrap_or(-1),
        "5" | "10" | "19" => match v {
            Some(d) => g.members.entry(member.unwrap()).or_default().0 = Some(d.clone()),
            None => {
                g.members.remove(&member.unwrap());
            }
        },
        "7" | "13" | "21" => match v {
            Some(d) => {
                g.targets.insert(member.unwrap(), d.clone());
            }
            None => {
                g.targets.remove(&member.unwrap());
            }
        },
        "8" | "14" | "22" => {
            // A tombstone sets the member's epoch to -2 (left); its
            // member tombstone follows.
            g.members.entry(member.unwrap()).or_default().1 = v.cloned();
        }
        other => panic!("record type {other} is not in the story"),
    }
}

/// The case's groups, replayed by hand from Kafka's reading.
fn replayed(release: &str) -> BTreeMap<String, Replayed> {
    let case = unpacked(release).join("internal-consumer-offsets-groups");
    let view: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("kafka-view.json")).unwrap())
            .unwrap();
    assert_eq!(view["release"], release);
    let mut groups: BTreeMap<String, Replayed> = BTreeMap::new();
    for batch in view["partition"]["segments"][0]["log"]["batches"]
        .as_array()
        .unwrap()
    {
        for r in batch["records"].as_array().unwrap() {
            let (k, v) = (&r["key"]["data"], r["value"].get("data"));
            let id = k
                .get("groupId")
                .or_else(|| k.get("group"))
                .and_then(Value::as_str)
                .unwrap()
                .to_string();
            let g = groups.entry(id).or_insert_with(|| Replayed {
                kind: "classic",
                validated_topology_epoch: -1,
                assignment_epoch: -1,
                ..Replayed::default()
            });
            let t = r["key"]["type"].as_str().unwrap();
            if let Some(kind) = kind_of(t) {
                g.kind = kind;
            }
            let member = k.get("memberId").and_then(Value::as_str).map(String::from);
            match t {
                "0" | "1" => {
                    let key = (
                        k["topic"].as_str().unwrap().to_string(),
                        k["partition"].as_i64().unwrap(),
                    );
                    match v {
                        Some(d) => {
                            let at = r["offset"].as_i64().unwrap();
                            g.offsets.insert(key, (d.clone(), at));
                        }
                        None => {
                            g.offsets.remove(&key);
                        }
                    }
                }
                "2" => {
                    g.deleted = v.is_none();
                    g.classic = v.cloned();
                }
                _ => modern(g, t, member, v),
            }
        }
    }
    // A deleted group whose offsets are gone is gone.
    groups.retain(|_, g| !(g.deleted && g.offsets.is_empty()));
    groups
}

/// Whether `current` holds partitions in its list `name`.
fn pending(current: &Value, name: &str) -> bool {
    current[name].as_array().is_some_and(|l| !l.is_empty())
}

/// The member state's name: consumer groups' `MemberState` ids (3.8 on:
/// STABLE 0, UNREVOKED_PARTITIONS 1, UNRELEASED_PARTITIONS 2) or, before,
/// the state 3.6-3.7 derive from the pending partitions; share groups'
/// STABLE 0; streams groups' `streams.MemberState` (STABLE 1,
/// UNREVOKED_TASKS 2, UNRELEASED_TASKS 3).
fn member_state(kind: &str, current: &Value) -> &'static str {
    if current.get("targetMemberEpoch").is_some() {
        return if pending(current, "partitionsPendingRevocation") {
            "REVOKING"
        } else if pending(current, "partitionsPendingAssignment") {
            "ASSIGNING"
        } else {
            "STABLE"
        };
    }
    match (kind, current["state"].as_i64().unwrap()) {
        ("streams", 1) | ("consumer" | "share", 0) => "STABLE",
        ("consumer", 1) => "UNREVOKED_PARTITIONS",
        ("consumer", 2) => "UNRELEASED_PARTITIONS",
        ("streams", 2) => "UNREVOKED_TASKS",
        ("streams", 3) => "UNRELEASED_TASKS",
        (_, id) => panic!("state {id} is not in the story"),
    }
}

/// Whether a member is reconciled to the group's target assignment:
/// 3.6-3.7 compare its target member epoch and want no partition pending
/// (`ConsumerGroup.maybeUpdateGroupState` there), later releases its
/// member epoch and a STABLE state (`isReconciledTo`).
fn reconciled(kind: &str, current: &Value, assignment_epoch: i64) -> bool {
    let epoch = current
        .get("targetMemberEpoch")
        .unwrap_or(&current["memberEpoch"]);
    epoch.as_i64() == Some(assignment_epoch) && member_state(kind, current) == "STABLE"
}

/// The group state after the load. Classic groups: Empty without members,
/// else Stable. Share groups: Empty or Stable
/// (`ShareGroup.maybeUpdateGroupState`). Streams groups, 4.1: NotReady
/// while the configured topology is missing, which only a heartbeat sets
/// (`GroupMetadataManager.streamsGroupHeartbeat`, never replay); 4.2:
/// NotReady unless the topology's epoch is the validated one. Consumer and
/// streams groups: then Assigning, Reconciling or Stable from the epochs.
fn group_state(release: &str, g: &Replayed) -> &'static str {
    if g.kind == "classic" {
        let members = g
            .classic
            .as_ref()
            .map_or(0, |c| c["members"].as_array().unwrap().len());
        return if members == 0 { "Empty" } else { "Stable" };
    }
    if g.members.is_empty() {
        return "Empty";
    }
    if g.kind == "share" {
        return "Stable";
    }
    if g.kind == "streams" {
        let topology_epoch = g.topology.as_ref().and_then(|t| t["epoch"].as_i64());
        if release == "4.1" || topology_epoch != Some(g.validated_topology_epoch) {
            return "NotReady";
        }
    }
    if g.group_epoch > g.assignment_epoch {
        return "Assigning";
    }
    let all = g
        .members
        .values()
        .all(|(_, c)| reconciled(g.kind, c.as_ref().unwrap(), g.assignment_epoch));
    if all { "Stable" } else { "Reconciling" }
}

fn expected_members(g: &Replayed) -> Vec<Value> {
    if g.kind == "classic" {
        return g
            .classic
            .as_ref()
            .map_or_else(Vec::new, |c| c["members"].as_array().unwrap().clone());
    }
    let fields: &[&str] = if g.kind == "streams" {
        &[
            "activeTasks",
            "standbyTasks",
            "warmupTasks",
            "activeTasksPendingRevocation",
        ]
    } else {
        &["assignedPartitions", "partitionsPendingRevocation"]
    };
    // Partitions are named by the subscription metadata's topics (consumer
    // groups before 4.1, share groups in 4.0), else by the share-partitions'
    // metadata (share groups, 4.1 on).
    let topics = g.subscription_metadata.clone().or_else(|| {
        g.share_state_partitions
            .as_ref()
            .map(|s| s["initializedTopics"].clone())
    });
    g.members
        .iter()
        .map(|(id, (metadata, current))| {
            let c = current.as_ref().unwrap();
            let mut m = json!({
                "memberId": id,
                "memberEpoch": c["memberEpoch"],
                "state": member_state(g.kind, c),
                "metadata": metadata,
                "targetAssignment": g.targets.get(id),
            });
            for f in fields {
                m[*f] = c.get(*f).cloned().unwrap_or(Value::Null);
            }
            if let Some(target) = c.get("targetMemberEpoch") {
                m["targetMemberEpoch"] = target.clone();
                m["partitionsPendingAssignment"] = c["partitionsPendingAssignment"].clone();
            }
            if let Some(topics) = &topics {
                for list in [
                    "assignedPartitions",
                    "partitionsPendingRevocation",
                    "partitionsPendingAssignment",
                ] {
                    if let Some(partitions) = m.get_mut(list) {
                        named(partitions, topics);
                    }
                }
                named(&mut m["targetAssignment"]["topicPartitions"], topics);
            }
            m
        })
        .collect()
}

/// Adds `topic` to each `{topicId, partitions}` of `list` whose id the
/// subscription metadata's `topics` name.
fn named(list: &mut Value, topics: &Value) {
    for entry in list.as_array_mut().into_iter().flatten() {
        let name = topics
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["topicId"] == entry["topicId"])
            .map(|t| t["topicName"].clone());
        if let Some(name) = name {
            entry["topic"] = name;
        }
    }
}

/// The groups each release's story leaves (nightly-report was deleted).
fn story(release: &str) -> Vec<&'static str> {
    let mut ids = vec!["billing", "checkout", "ops-tool"];
    if release.starts_with('4') {
        ids.insert(0, "audit-share");
    }
    if release >= "4.1" {
        ids.push("orders-app");
    }
    ids
}

/// The offsets `kseg groups --json` printed for a group, the fields the
/// commit records carry.
fn printed_offsets(p: &Value) -> BTreeMap<(String, i64), Value> {
    p["offsets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let key = (
                o["topic"].as_str().unwrap().to_string(),
                o["partition"].as_i64().unwrap(),
            );
            let fields = ["offset", "leaderEpoch", "metadata", "commitTimestamp"];
            let kept: serde_json::Map<String, Value> = fields
                .iter()
                .map(|f| (f.to_string(), o[*f].clone()))
                .chain([("recordOffset".to_string(), o["recordOffset"].clone())])
                .collect();
            (key, Value::Object(kept))
        })
        .collect()
}

fn expected_offsets(g: &Replayed) -> BTreeMap<(String, i64), Value> {
    g.offsets
        .iter()
        .map(|(k, (v, at))| {
            (
                k.clone(),
                json!({"offset": v["offset"], "leaderEpoch": v["leaderEpoch"],
                    "metadata": v["metadata"], "commitTimestamp": v["commitTimestamp"],
                    "recordOffset": at}),
            )
        })
        .collect()
}

/// The group-wide fields `kseg groups --json` prints, as the hand replay
/// has them.
fn expected_header(release: &str, g: &Replayed) -> Value {
    let classic = |name: &str| g.classic.as_ref().map_or(Value::Null, |c| c[name].clone());
    let modern = g.kind != "classic";
    json!({
        "type": g.kind,
        "state": group_state(release, g),
        "generation": if modern { json!(g.group_epoch) } else { classic("generation").as_i64().map_or(json!(0), |v| json!(v)) },
        "protocolType": classic("protocolType"),
        // Modern groups: the server assignor of the first member naming one.
        "protocol": if modern {
            g.members.values().find_map(|(m, _)| m.as_ref()?.get("serverAssignor").cloned()).unwrap_or(Value::Null)
        } else {
            classic("protocol")
        },
        "leader": classic("leader"),
        "assignmentEpoch": if modern { json!(g.assignment_epoch) } else { Value::Null },
        "subscriptionMetadata": g.subscription_metadata.clone().unwrap_or(Value::Null),
        "shareStatePartitions": g.share_state_partitions.clone().unwrap_or(Value::Null),
        "topology": g.topology.as_ref().map_or(Value::Null, |t| json!({"epoch": t["epoch"],
            "validatedTopologyEpoch": g.validated_topology_epoch, "subtopologies": t["subtopologies"]})),
    })
}

fn groups_match_a_hand_replay(release: &str) {
    let expected = replayed(release);
    assert_eq!(
        expected.keys().collect::<Vec<_>>(),
        story(release),
        "{release}"
    );
    let case = unpacked(release).join("internal-consumer-offsets-groups/__consumer_offsets-0");
    let out = kseg(["groups", "--json", case.to_str().unwrap()]);
    assert!(out.status.success(), "{release}: {}", stderr(&out));
    let printed: BTreeMap<String, Value> = json_lines(&out)
        .into_iter()
        .map(|g| (g["group"].as_str().unwrap().to_string(), g))
        .collect();
    assert_eq!(printed.len(), expected.len(), "{release}: {printed:?}");
    for (id, g) in &expected {
        let p = &printed[id];
        let at = format!("{release} {id}");
        let want = expected_header(release, g);
        for (field, value) in want.as_object().unwrap() {
            assert_eq!(&p[field], value, "{at}: {field}");
        }
        assert_eq!(p["members"], json!(expected_members(g)), "{at}: members");
        assert_eq!(printed_offsets(p), expected_offsets(g), "{at}: offsets");
    }
    story_holds(release, &expected);
}

/// What the story tells, so that a case that lost it fails here.
fn story_holds(release: &str, expected: &BTreeMap<String, Replayed>) {
    let early_access = release < "3.8";
    // billing: c2 left at generation 2; ops-tool only commits offsets.
    let billing = expected["billing"].classic.as_ref().unwrap();
    assert_eq!(billing["generation"], 2);
    assert_eq!(billing["members"].as_array().unwrap().len(), 1);
    assert!(expected["ops-tool"].classic.is_none());
    // checkout: k2 left, k1 still revokes carts-1, which k3 waits for.
    let checkout = &expected["checkout"];
    assert_eq!(checkout.members.keys().collect::<Vec<_>>(), ["k1", "k3"]);
    let state = |m: &str| member_state("consumer", checkout.members[m].1.as_ref().unwrap());
    let (revoking, waiting) = if early_access {
        ("REVOKING", "ASSIGNING")
    } else {
        ("UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS")
    };
    assert_eq!((state("k1"), state("k3")), (revoking, waiting), "{release}");
    assert_eq!(group_state(release, checkout), "Reconciling");
    assert_eq!(checkout.subscription_metadata.is_some(), release < "4.1");
    if let Some(share) = expected.get("audit-share") {
        // A member left; the share group has its subscription metadata
        // (4.0) or its initialized share-partitions.
        assert_eq!(share.members.len(), 1);
        assert_eq!(
            (
                share.subscription_metadata.is_some(),
                share.share_state_partitions.is_some()
            ),
            (release == "4.0", release != "4.0"),
            "{release}"
        );
    }
    if let Some(streams) = expected.get("orders-app") {
        // m2 left, the topology grew a second subtopology, m1 holds standby
        // and warm-up tasks, m3 is still releasing a task at epoch 2.
        assert_eq!(streams.members.keys().collect::<Vec<_>>(), ["m1", "m3"]);
        let topology = streams.topology.as_ref().unwrap();
        assert_eq!(topology["subtopologies"].as_array().unwrap().len(), 2);
        let (_, m1) = &streams.members["m1"];
        let m1 = m1.as_ref().unwrap();
        assert_ne!(m1["standbyTasks"], json!([]));
        assert_ne!(m1["warmupTasks"], json!([]));
        assert_eq!(streams.members["m3"].1.as_ref().unwrap()["state"], 3);
        // 4.2's validated topology epoch makes the group ready: its state
        // comes from the epochs (m3 has not released its task yet).
        let want = if release == "4.1" {
            "NotReady"
        } else {
            "Reconciling"
        };
        assert_eq!(group_state(release, streams), want);
    }
}

#[test]
fn groups_of_every_release_replay_as_by_hand() {
    for release in RELEASES {
        groups_match_a_hand_replay(release);
    }
}
