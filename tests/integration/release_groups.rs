//! `kseg groups` on the 4.0, 4.1 and 4.2 cases of a streams group (4.1 on)
//! and a share group (`internal-consumer-offsets-groups`, one coherent
//! story each),
//! against the groups replayed by hand here from Kafka's own reading of
//! every record (`kafka-view.json`), as `GroupMetadataManager.replay`
//! applies those records.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::util::{json_lines, kseg, stderr, unpacked};

/// A streams or share group as the hand replay leaves it.
#[derive(Default)]
struct Replayed {
    share: bool,
    group_epoch: i64,
    validated_topology_epoch: i64,
    assignment_epoch: i64,
    topology: Option<Value>,
    /// The subscribed topics' metadata (ShareGroupPartitionMetadata, 4.0).
    subscription_metadata: Option<Value>,
    share_state_partitions: Option<Value>,
    /// Member id to (member metadata, current assignment).
    members: BTreeMap<String, (Option<Value>, Option<Value>)>,
    targets: BTreeMap<String, Value>,
    /// (topic, partition) to the commit and its record's offset.
    offsets: BTreeMap<(String, i64), (Value, i64)>,
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
                validated_topology_epoch: -1,
                assignment_epoch: -1,
                ..Replayed::default()
            });
            let member = k.get("memberId").and_then(Value::as_str).map(String::from);
            let int = |name: &str| v.and_then(|d| d[name].as_i64());
            let t = r["key"]["type"].as_str().unwrap();
            g.share |= matches!(t, "9" | "10" | "11" | "12" | "13" | "14" | "15");
            match t {
                "1" => {
                    let key = (
                        k["topic"].as_str().unwrap().to_string(),
                        k["partition"].as_i64().unwrap(),
                    );
                    g.offsets
                        .insert(key, (v.unwrap().clone(), r["offset"].as_i64().unwrap()));
                }
                "11" | "17" => {
                    g.group_epoch = int("epoch").unwrap();
                    // StreamsGroupMetadataValue's tagged field (4.2), -1 by default.
                    g.validated_topology_epoch = v
                        .and_then(|d| d.get("validatedTopologyEpoch"))
                        .map_or(-1, |e| e.as_i64().unwrap());
                }
                "23" => g.topology = v.cloned(),
                "9" => g.subscription_metadata = v.map(|d| d["topics"].clone()),
                "15" => g.share_state_partitions = v.cloned(),
                "12" | "20" => g.assignment_epoch = int("assignmentEpoch").unwrap_or(-1),
                "10" | "19" => match v {
                    Some(d) => g.members.entry(member.unwrap()).or_default().0 = Some(d.clone()),
                    None => {
                        g.members.remove(&member.unwrap());
                    }
                },
                "13" | "21" => match v {
                    Some(d) => {
                        g.targets.insert(member.unwrap(), d.clone());
                    }
                    None => {
                        g.targets.remove(&member.unwrap());
                    }
                },
                "14" | "22" => {
                    // A tombstone sets the member's epoch to -2 (left); its
                    // member tombstone follows.
                    let m = g.members.entry(member.unwrap()).or_default();
                    m.1 = v.cloned();
                }
                other => panic!("{release}: record type {other} is not in the story"),
            }
        }
    }
    groups
}

/// The member state names (`streams.MemberState`: STABLE 1,
/// UNREVOKED_TASKS 2, UNRELEASED_TASKS 3; `modern.MemberState`: STABLE 0).
fn member_state(share: bool, id: i64) -> &'static str {
    match (share, id) {
        (false, 1) | (true, 0) => "STABLE",
        (false, 2) => "UNREVOKED_TASKS",
        (false, 3) => "UNRELEASED_TASKS",
        _ => panic!("state {id} is not in the story"),
    }
}

/// The group state after the load. Share groups: Empty or Stable
/// (`ShareGroup.maybeUpdateGroupState`). Streams groups, 4.1: NotReady
/// while the configured topology is missing, which only a heartbeat sets
/// (`GroupMetadataManager.streamsGroupHeartbeat`, never replay); 4.2:
/// NotReady unless the topology's epoch is the validated one, then
/// Assigning, Reconciling or Stable (`StreamsGroup.maybeUpdateGroupState`).
fn group_state(release: &str, g: &Replayed) -> &'static str {
    if g.members.is_empty() {
        return "Empty";
    }
    if g.share {
        return "Stable";
    }
    let topology_epoch = g.topology.as_ref().and_then(|t| t["epoch"].as_i64());
    if release == "4.1" || topology_epoch != Some(g.validated_topology_epoch) {
        return "NotReady";
    }
    if g.group_epoch > g.assignment_epoch {
        return "Assigning";
    }
    let reconciled = g.members.values().all(|(_, c)| {
        let c = c.as_ref().unwrap();
        c["state"] == 1 && c["memberEpoch"].as_i64() == Some(g.assignment_epoch)
    });
    if reconciled { "Stable" } else { "Reconciling" }
}

fn expected_members(g: &Replayed) -> BTreeMap<String, Value> {
    let fields: &[&str] = if g.share {
        &["assignedPartitions", "partitionsPendingRevocation"]
    } else {
        &[
            "activeTasks",
            "standbyTasks",
            "warmupTasks",
            "activeTasksPendingRevocation",
        ]
    };
    g.members
        .iter()
        .map(|(id, (metadata, current))| {
            let c = current.as_ref().unwrap();
            let mut m = json!({
                "memberId": id,
                "memberEpoch": c["memberEpoch"],
                "state": member_state(g.share, c["state"].as_i64().unwrap()),
                "metadata": metadata,
                "targetAssignment": g.targets.get(id),
            });
            for f in fields {
                m[*f] = c.get(*f).cloned().unwrap_or(Value::Null);
            }
            // Partitions are named by the subscription metadata's topics
            // (4.0), else by the share-partitions' metadata (4.1 on).
            let topics = g.subscription_metadata.clone().or_else(|| {
                g.share_state_partitions
                    .as_ref()
                    .map(|s| s["initializedTopics"].clone())
            });
            if let Some(topics) = &topics {
                named(&mut m["assignedPartitions"], topics);
                named(&mut m["targetAssignment"]["topicPartitions"], topics);
            }
            (id.clone(), m)
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

fn groups_match_a_hand_replay(release: &str) {
    let expected = replayed(release);
    let story: &[&str] = if release == "4.0" {
        &["audit-share"]
    } else {
        &["audit-share", "orders-app"]
    };
    assert_eq!(expected.keys().collect::<Vec<_>>(), story, "{release}");
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
        assert_eq!(p["type"], if g.share { "share" } else { "streams" }, "{at}");
        assert_eq!(p["state"], group_state(release, g), "{at}: state");
        assert_eq!(p["generation"], g.group_epoch, "{at}: group epoch");
        assert_eq!(p["assignmentEpoch"], g.assignment_epoch, "{at}");
        if let Some(t) = &g.topology {
            let want = json!({"epoch": t["epoch"], "validatedTopologyEpoch": g.validated_topology_epoch,
                "subtopologies": t["subtopologies"]});
            assert_eq!(p["topology"], want, "{at}: topology");
        }
        assert_eq!(
            p["subscriptionMetadata"],
            g.subscription_metadata.clone().unwrap_or(Value::Null),
            "{at}: subscription metadata"
        );
        assert_eq!(
            p["shareStatePartitions"],
            g.share_state_partitions.clone().unwrap_or(Value::Null),
            "{at}"
        );
        let members: BTreeMap<String, Value> = p["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["memberId"].as_str().unwrap().to_string(), m.clone()))
            .collect();
        assert_eq!(members, expected_members(g), "{at}: members");
        let offsets: BTreeMap<(String, i64), Value> = p["offsets"]
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
            .collect();
        let want: BTreeMap<(String, i64), Value> = g
            .offsets
            .iter()
            .map(|(k, (v, at))| {
                (
                    k.clone(),
                    json!({"offset": v["offset"], "leaderEpoch": v["leaderEpoch"],
                        "metadata": v["metadata"], "commitTimestamp": v["commitTimestamp"],
                        "recordOffset": at}),
                )
            })
            .collect();
        assert_eq!(offsets, want, "{at}: offsets");
    }
    // The story: a member of each group left; the share group has its
    // subscription metadata (4.0) or its initialized share-partitions.
    let share = &expected["audit-share"];
    assert_eq!(share.members.len(), 1);
    assert_eq!(
        (
            share.subscription_metadata.is_some(),
            share.share_state_partitions.is_some()
        ),
        (release == "4.0", release != "4.0"),
        "{release}"
    );
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
    }
}

#[test]
fn share_group_of_4_0_replays_as_by_hand() {
    groups_match_a_hand_replay("4.0");
}

#[test]
fn streams_and_share_groups_of_4_1_replay_as_by_hand() {
    groups_match_a_hand_replay("4.1");
}

#[test]
fn streams_and_share_groups_of_4_2_replay_as_by_hand() {
    groups_match_a_hand_replay("4.2");
    // 4.2's validated topology epoch makes the group ready: its state
    // comes from the epochs (m3 has not released its task yet).
    let expected = replayed("4.2");
    assert_eq!(group_state("4.2", &expected["orders-app"]), "Reconciling");
}
