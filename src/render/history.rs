//! `kseg history`'s events: one line each for a person in an incident, or
//! one JSON object each (`{"offset", "timestamp", "time", "kind", …}`).

use serde_json::{Map, Value, json};

use super::time::utc;
use crate::inspect::cluster::history::partition_story::{StoryChange, StoryEvent};
use crate::inspect::cluster::history::{Change, Event, Status};
use crate::inspect::cluster::metadata::image::QuotaEntity;
use crate::inspect::cluster::metadata::topics::PartitionImage;

/// A list as `[1,2,3]`.
fn list<T: std::fmt::Display>(items: &[T]) -> String {
    let items: Vec<String> = items.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(","))
}

/// What a config's resource is, for people: `topic orders`, `broker 2`,
/// `cluster default`, `client metrics m`, `group g`.
fn resource_label(kind: i8, resource: &str) -> String {
    match (kind, resource) {
        (2, _) => format!("topic {resource}"),
        (4, "") => "cluster default".into(),
        (4, _) => format!("broker {resource}"),
        (16, _) => format!("client metrics {resource}"),
        (32, _) => format!("group {resource}"),
        _ => format!("resource type {kind} {resource}"),
    }
}

/// A config resource type as JSON names it.
fn resource_type_name(kind: i8) -> Value {
    match kind {
        2 => "topic".into(),
        4 => "broker".into(),
        16 => "clientMetrics".into(),
        32 => "group".into(),
        other => other.into(),
    }
}

fn entity_label(entity: &QuotaEntity) -> String {
    let parts: Vec<String> = entity
        .iter()
        .map(|(t, n)| format!("{t}={}", n.as_deref().unwrap_or("<default>")))
        .collect();
    parts.join(",")
}

/// The name of an ACL code, as Kafka's enums name it (`ResourceType`,
/// `PatternType`, `AclOperation`, `AclPermissionType`), else the code.
fn acl_code(names: &[&str], code: &str) -> String {
    code.parse::<usize>()
        .ok()
        .and_then(|c| names.get(c))
        .map_or(code.to_string(), |n| n.to_string())
}

/// `ALLOW User:app READ on TOPIC orders (LITERAL) from host *`, from the
/// image's `resourceType resourceName patternType principal host operation
/// permission`; the codes as written when the text is not in that shape.
fn acl_label(acl: &str) -> String {
    let [kind, name, pattern, principal, host, operation, permission] =
        acl.split(' ').collect::<Vec<_>>()[..]
    else {
        return acl.to_string();
    };
    let resource = [
        "UNKNOWN",
        "ANY",
        "TOPIC",
        "GROUP",
        "CLUSTER",
        "TRANSACTIONAL_ID",
        "DELEGATION_TOKEN",
        "USER",
    ];
    let patterns = ["UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"];
    let operations = [
        "UNKNOWN",
        "ANY",
        "ALL",
        "READ",
        "WRITE",
        "CREATE",
        "DELETE",
        "ALTER",
        "DESCRIBE",
        "CLUSTER_ACTION",
        "DESCRIBE_CONFIGS",
        "ALTER_CONFIGS",
        "IDEMPOTENT_WRITE",
        "CREATE_TOKENS",
        "DESCRIBE_TOKENS",
        "TWO_PHASE_COMMIT",
    ];
    let permissions = ["UNKNOWN", "ANY", "DENY", "ALLOW"];
    format!(
        "{} {principal} {} on {} {name} ({}) from host {host}",
        acl_code(&permissions, permission),
        acl_code(&operations, operation),
        acl_code(&resource, kind),
        acl_code(&patterns, pattern)
    )
}

fn or_none<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("none".into(), |v| v.to_string())
}

/// The fields of a partition's registration that changed, as `name a -> b`.
fn partition_diff(p: &PartitionImage, n: &PartitionImage) -> Vec<String> {
    let mut out = Vec::new();
    if p.leader != n.leader {
        out.push(format!(
            "leader {} -> {} (epoch {} -> {})",
            p.leader, n.leader, p.leader_epoch, n.leader_epoch
        ));
    } else if p.leader_epoch != n.leader_epoch {
        out.push(format!(
            "leader {} again (epoch {} -> {})",
            n.leader, p.leader_epoch, n.leader_epoch
        ));
    }
    let lists = [
        ("isr", &p.isr, &n.isr),
        ("replicas", &p.replicas, &n.replicas),
        ("adding", &p.adding_replicas, &n.adding_replicas),
        ("removing", &p.removing_replicas, &n.removing_replicas),
        (
            "elr",
            &p.eligible_leader_replicas,
            &n.eligible_leader_replicas,
        ),
        ("last known elr", &p.last_known_elr, &n.last_known_elr),
    ];
    for (name, a, b) in lists {
        if a != b {
            out.push(format!("{name} {} -> {}", list(a), list(b)));
        }
    }
    if p.leader_recovery_state != n.leader_recovery_state {
        let state = |s: i8| if s == 1 { "recovering" } else { "recovered" };
        out.push(format!(
            "leader recovery {} -> {}",
            state(p.leader_recovery_state),
            state(n.leader_recovery_state)
        ));
    }
    if p.directories != n.directories {
        out.push(format!(
            "directories {} -> {}",
            list(&p.directories),
            list(&n.directories)
        ));
    }
    out
}

/// What the event says, without where and when.
fn describe(change: &Change) -> String {
    match change {
        Change::TopicCreated { topic, topic_id } => {
            format!("topic {topic} created (id {topic_id})")
        }
        Change::TopicDeleted {
            topic,
            topic_id,
            partitions,
        } => format!("topic {topic} deleted (id {topic_id}, {partitions} partitions)"),
        Change::PartitionCreated {
            topic,
            partition,
            now,
            previous,
        } => format!(
            "partition {topic}-{partition} {}: leader {} (epoch {}), isr {}, replicas {}",
            if previous.is_some() {
                "registered afresh"
            } else {
                "created"
            },
            now.leader,
            now.leader_epoch,
            list(&now.isr),
            list(&now.replicas)
        ),
        Change::PartitionChanged {
            topic,
            partition,
            now,
            previous,
        } => {
            let diff = partition_diff(previous, now);
            if diff.is_empty() {
                format!(
                    "partition {topic}-{partition} unchanged (partition epoch {} -> {})",
                    previous.partition_epoch, now.partition_epoch
                )
            } else {
                format!("partition {topic}-{partition} {}", diff.join(", "))
            }
        }
        Change::BrokerRegistered {
            broker,
            epoch,
            fenced,
            rack,
            previous_epoch,
        } => {
            let what = match previous_epoch {
                Some(p) => format!("re-registered (epoch {p} -> {epoch}"),
                None => format!("registered (epoch {epoch}"),
            };
            let rack = rack
                .as_ref()
                .map_or(String::new(), |r| format!(", rack {r}"));
            let fenced = if *fenced { ", fenced" } else { ", unfenced" };
            format!("broker {broker} {what}{fenced}{rack})")
        }
        Change::BrokerState {
            broker,
            epoch,
            fenced,
            previous_fenced,
            in_controlled_shutdown,
            previous_in_controlled_shutdown,
        } => {
            let mut what = Vec::new();
            if fenced != previous_fenced {
                what.push(if *fenced { "fenced" } else { "unfenced" });
            }
            if in_controlled_shutdown != previous_in_controlled_shutdown {
                what.push(if *in_controlled_shutdown {
                    "in controlled shutdown"
                } else {
                    "out of controlled shutdown"
                });
            }
            format!("broker {broker} {} (epoch {epoch})", what.join(", "))
        }
        Change::BrokerUnregistered {
            broker,
            previous_epoch,
        } => match previous_epoch {
            Some(e) => format!("broker {broker} unregistered (epoch {e})"),
            None => format!("broker {broker} unregistered (it was not registered)"),
        },
        Change::ControllerElected {
            leader,
            previous_leader,
            epoch,
            granting_voters,
        } => format!(
            "controller {leader} leads the quorum (epoch {epoch}{}, votes from {})",
            previous_leader.map_or(String::new(), |p| format!(", was {p}")),
            list(granting_voters)
        ),
        Change::VotersChanged { voters, previous } => format!(
            "controller voters {} -> {}",
            previous
                .as_ref()
                .map_or("controller.quorum.voters".into(), |p| list(p)),
            list(voters)
        ),
        Change::FeatureChanged {
            feature,
            level,
            previous,
        } => format!(
            "feature {feature} {} -> {}",
            or_none(*previous),
            or_none(*level)
        ),
        Change::ConfigChanged {
            resource_type,
            resource,
            name,
            value,
            previous,
        } => {
            let what = match value {
                Some(v) => format!("{name}={v}"),
                None => format!("{name} deleted"),
            };
            format!(
                "config {} {what} (was {})",
                resource_label(*resource_type, resource),
                previous.as_deref().unwrap_or("unset")
            )
        }
        Change::QuotaChanged {
            entity,
            key,
            value,
            previous,
        } => format!(
            "quota {} {key} {} -> {}",
            entity_label(entity),
            or_none(*previous),
            or_none(*value)
        ),
        Change::AclChanged { id, acl, added } => format!(
            "acl {} {} (id {id})",
            if *added { "added" } else { "removed" },
            acl_label(acl)
        ),
        Change::ProducerIds { now, previous } => format!(
            "producer ids: block to broker {} (epoch {}), next producer id {} -> {}",
            now.broker_id,
            now.broker_epoch,
            or_none(previous.map(|p| p.next_producer_id)),
            now.next_producer_id
        ),
    }
}

/// `offset 1234 2026-12-01T14:03:11.123Z partition orders-3 leader 2 -> 4 (epoch 7 -> 8), isr [2,3,4] -> [3,4]`,
/// with `(aborted transaction: not applied)` after an aborted event.
pub fn text_line(event: &Event) -> String {
    let status = match event.status {
        Status::Applied => "",
        Status::Aborted => " (aborted transaction: not applied)",
        Status::Open => " (transaction still open at the log end: not applied)",
    };
    format!(
        "offset {} {} {}{status}",
        event.offset,
        utc(event.timestamp),
        describe(&event.change)
    )
}

/// A partition's registration after (and before) as JSON fields: each
/// `x` with its `previousX` (null when there was none), and `changed`, the
/// fields that differ.
fn partition_fields(
    out: &mut Map<String, Value>,
    now: &PartitionImage,
    prev: Option<&PartitionImage>,
) {
    let fields = |p: &PartitionImage| {
        [
            ("leader", json!(p.leader)),
            ("isr", json!(p.isr)),
            ("replicas", json!(p.replicas)),
            ("addingReplicas", json!(p.adding_replicas)),
            ("removingReplicas", json!(p.removing_replicas)),
            ("eligibleLeaderReplicas", json!(p.eligible_leader_replicas)),
            ("lastKnownElr", json!(p.last_known_elr)),
            ("leaderEpoch", json!(p.leader_epoch)),
            ("partitionEpoch", json!(p.partition_epoch)),
            ("leaderRecoveryState", json!(p.leader_recovery_state)),
            ("directories", json!(p.directories)),
        ]
    };
    let before = prev.map(fields);
    let mut changed = Vec::new();
    for (i, (name, value)) in fields(now).into_iter().enumerate() {
        let previous = before.as_ref().map_or(Value::Null, |b| b[i].1.clone());
        if prev.is_some() && previous != value && name != "partitionEpoch" {
            changed.push(name);
        }
        let mut upper = name.to_string();
        upper[..1].make_ascii_uppercase();
        out.insert(format!("previous{upper}"), previous);
        out.insert(name.into(), value);
    }
    out.insert("changed".into(), json!(changed));
}

/// The kind's own fields.
fn change_fields(change: &Change) -> Map<String, Value> {
    let mut out = Map::new();
    let mut put = |k: &str, v: Value| {
        out.insert(k.into(), v);
    };
    match change {
        Change::TopicCreated { topic, topic_id } => {
            put("topic", json!(topic));
            put("topicId", json!(topic_id));
        }
        Change::TopicDeleted {
            topic,
            topic_id,
            partitions,
        } => {
            put("topic", json!(topic));
            put("topicId", json!(topic_id));
            put("partitions", json!(partitions));
        }
        Change::PartitionCreated {
            topic,
            partition,
            now,
            previous,
        } => {
            put("topic", json!(topic));
            put("partition", json!(partition));
            partition_fields(&mut out, now, previous.as_ref());
        }
        Change::PartitionChanged {
            topic,
            partition,
            now,
            previous,
        } => {
            put("topic", json!(topic));
            put("partition", json!(partition));
            partition_fields(&mut out, now, Some(previous));
        }
        Change::BrokerRegistered {
            broker,
            epoch,
            fenced,
            rack,
            previous_epoch,
        } => {
            put("broker", json!(broker));
            put("epoch", json!(epoch));
            put("fenced", json!(fenced));
            put("rack", json!(rack));
            put("previousEpoch", json!(previous_epoch));
        }
        Change::BrokerState {
            broker,
            epoch,
            fenced,
            previous_fenced,
            in_controlled_shutdown,
            previous_in_controlled_shutdown,
        } => {
            put("broker", json!(broker));
            put("epoch", json!(epoch));
            put("fenced", json!(fenced));
            put("previousFenced", json!(previous_fenced));
            put("inControlledShutdown", json!(in_controlled_shutdown));
            put(
                "previousInControlledShutdown",
                json!(previous_in_controlled_shutdown),
            );
        }
        Change::BrokerUnregistered {
            broker,
            previous_epoch,
        } => {
            put("broker", json!(broker));
            put("previousEpoch", json!(previous_epoch));
        }
        Change::ControllerElected {
            leader,
            previous_leader,
            epoch,
            granting_voters,
        } => {
            put("change", json!("leader"));
            put("leader", json!(leader));
            put("previousLeader", json!(previous_leader));
            put("epoch", json!(epoch));
            put("grantingVoters", json!(granting_voters));
        }
        Change::VotersChanged { voters, previous } => {
            put("change", json!("voters"));
            put("voters", json!(voters));
            put("previousVoters", json!(previous));
        }
        Change::FeatureChanged {
            feature,
            level,
            previous,
        } => {
            put("feature", json!(feature));
            put("level", json!(level));
            put("previousLevel", json!(previous));
        }
        Change::ConfigChanged {
            resource_type,
            resource,
            name,
            value,
            previous,
        } => {
            put("resourceType", resource_type_name(*resource_type));
            put("resource", json!(resource));
            put("name", json!(name));
            put("value", json!(value));
            put("previousValue", json!(previous));
        }
        Change::QuotaChanged {
            entity,
            key,
            value,
            previous,
        } => {
            let entity: Vec<Value> = entity
                .iter()
                .map(|(t, n)| json!({"entityType": t, "entityName": n}))
                .collect();
            put("entity", json!(entity));
            put("key", json!(key));
            put("value", json!(value));
            put("previousValue", json!(previous));
        }
        Change::AclChanged { id, acl, added } => {
            put("id", json!(id));
            put("acl", json!(acl));
            put("change", json!(if *added { "added" } else { "removed" }));
        }
        Change::ProducerIds { now, previous } => {
            put("nextProducerId", json!(now.next_producer_id));
            put(
                "previousNextProducerId",
                json!(previous.map(|p| p.next_producer_id)),
            );
            put("broker", json!(now.broker_id));
            put("brokerEpoch", json!(now.broker_epoch));
        }
    }
    out
}

/// The event as one JSON object: `offset`, `timestamp` (epoch ms), `time`,
/// `kind`, the kind's fields, and `aborted` or `openTransaction` (true)
/// when it is not applied.
pub fn to_json(event: &Event) -> Value {
    let mut out = Map::new();
    out.insert("offset".into(), json!(event.offset));
    out.insert("timestamp".into(), json!(event.timestamp));
    out.insert("time".into(), json!(utc(event.timestamp)));
    out.insert("kind".into(), json!(event.change.kind()));
    out.extend(change_fields(&event.change));
    match event.status {
        Status::Applied => {}
        Status::Aborted => drop(out.insert("aborted".into(), json!(true))),
        Status::Open => drop(out.insert("openTransaction".into(), json!(true))),
    }
    out.into()
}

/// A line of a data partition's story, as `partition DIR` then what its
/// files say: `offset 91204 2026-12-01T14:03:11.123Z partition orders-3
/// (files): leader epoch 7 starts`.
pub fn story_line(name: &str, event: &StoryEvent) -> String {
    let time = event.timestamp.map_or("-".into(), utc);
    let what = match &event.change {
        StoryChange::SegmentStarts { file } => format!("segment {file} starts"),
        StoryChange::LeaderEpochStarts { epoch } => format!("leader epoch {epoch} starts"),
        StoryChange::ProducerEpochBumped {
            producer_id,
            epoch,
            previous,
        } => format!("producer {producer_id} epoch {previous} -> {epoch}"),
        StoryChange::TransactionAborted { producer_id, epoch } => {
            format!("producer {producer_id} (epoch {epoch}) aborted its transaction")
        }
        StoryChange::RecoveryPoint { log_end_offset } => format!(
            "recovery point (recovery-point-offset-checkpoint; the log ends at offset {log_end_offset})"
        ),
    };
    format!(
        "offset {} {time} partition {name} (its files): {what}",
        event.offset
    )
}

/// The story event as JSON: `source` `partition`, `partitionDir`,
/// `offset`, `timestamp` and `time` (null without a batch), `kind`
/// (`segmentStarts`, `leaderEpochStarts`, `producerEpochBumped`,
/// `transactionAborted`, `recoveryPoint`) and its fields.
pub fn story_json(dir: &str, event: &StoryEvent) -> Value {
    let mut out = json!({
        "source": "partition",
        "partitionDir": dir,
        "offset": event.offset,
        "timestamp": event.timestamp,
        "time": event.timestamp.map(utc),
    });
    let fields = match &event.change {
        StoryChange::SegmentStarts { file } => json!({"kind": "segmentStarts", "file": file}),
        StoryChange::LeaderEpochStarts { epoch } => {
            json!({"kind": "leaderEpochStarts", "leaderEpoch": epoch})
        }
        StoryChange::ProducerEpochBumped {
            producer_id,
            epoch,
            previous,
        } => json!({"kind": "producerEpochBumped", "producerId": producer_id,
            "producerEpoch": epoch, "previousProducerEpoch": previous}),
        StoryChange::TransactionAborted { producer_id, epoch } => json!({
            "kind": "transactionAborted", "producerId": producer_id, "producerEpoch": epoch}),
        StoryChange::RecoveryPoint { log_end_offset } => {
            json!({"kind": "recoveryPoint", "logEndOffset": log_end_offset})
        }
    };
    if let (Some(out), Value::Object(fields)) = (out.as_object_mut(), fields) {
        out.extend(fields);
    }
    out
}

/// The leader epoch a partition event gives, when it is one that starts
/// an epoch (created, or a new leader elected).
pub fn new_leader_epoch(change: &Change) -> Option<i32> {
    match change {
        Change::PartitionCreated { now, .. } => Some(now.leader_epoch),
        Change::PartitionChanged { now, previous, .. } => {
            (now.leader_epoch != previous.leader_epoch).then_some(now.leader_epoch)
        }
        _ => None,
    }
}
