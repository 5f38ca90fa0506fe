//! `kseg groups`: each group the coordinator loads, with its members and
//! committed offsets, as text or as one JSON object per group.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::time::utc;
use crate::inspect::cluster::groups::filter::{GroupFilter, GroupsSummary, group_ids, total_lag};
use crate::inspect::cluster::groups::lag::{ConsumerLogEnds, PartitionEnd};
use crate::inspect::cluster::groups::offsets::{CommittedOffset, TopicPartition};
use crate::inspect::cluster::groups::shard::Shard;
use crate::inspect::cluster::groups::state::{
    Group, GroupType, ModernMember, share_state_topic_name,
};

/// Everything printed about one group.
#[derive(Debug, Clone, Copy)]
pub struct GroupReport<'a> {
    /// The group id.
    pub id: &'a str,
    /// The `__consumer_offsets` partition it was loaded from.
    pub shard: &'a str,
    /// The group, `None` when only offsets remain for the id.
    pub group: Option<&'a Group>,
    /// Its committed offsets.
    pub offsets: Option<&'a BTreeMap<TopicPartition, CommittedOffset>>,
    /// Its transactional commits still waiting for a marker, by producer.
    pub pending: &'a [(i64, &'a TopicPartition, &'a CommittedOffset)],
    /// Log end offsets of the partitions in the same log dir.
    pub log_ends: &'a BTreeMap<TopicPartition, PartitionEnd>,
    /// Share groups: which share-partitions are initialised (type 15).
    pub share_state_partitions: Option<&'a Value>,
}

/// Kafka's name of a member state id (`MemberState`; for streams groups
/// `streams.MemberState`, whose ids start at 1).
fn member_state(group_type: GroupType, id: i64) -> String {
    let name = match (group_type == GroupType::Streams, id) {
        (true, 1) | (false, 0) => "STABLE",
        (true, 2) => "UNREVOKED_TASKS",
        (true, 3) => "UNRELEASED_TASKS",
        (false, 1) => "UNREVOKED_PARTITIONS",
        (false, 2) => "UNRELEASED_PARTITIONS",
        (_, 127) => "UNKNOWN",
        _ => return format!("Unknown({id})"),
    };
    name.to_string()
}

/// Where a modern group's topic ids get their names: the group's partition
/// metadata (consumer groups, share groups before 4.1), else a share
/// group's share-partition metadata (type 15, which names every topic it
/// lists).
struct TopicNames<'a> {
    group: &'a Group,
    share_state_partitions: Option<&'a Value>,
}

impl TopicNames<'_> {
    fn name(&self, topic_id: &str) -> Option<&str> {
        self.group
            .topic_name(topic_id)
            .or_else(|| share_state_topic_name(self.share_state_partitions?, topic_id))
    }
}

/// Adds `"topic"` beside each `"topicId"` of the assignment lists in
/// `data` whose name `names` knows.
fn with_topic_names(names: &TopicNames<'_>, data: &Value) -> Value {
    match data {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                out.insert(k.clone(), with_topic_names(names, v));
            }
            let name = map
                .get("topicId")
                .and_then(Value::as_str)
                .and_then(|id| names.name(id));
            if let (Some(name), false) = (name, map.contains_key("topicName")) {
                out.insert("topic".into(), json!(name));
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| with_topic_names(names, v)).collect())
        }
        other => other.clone(),
    }
}

fn modern_member_json(names: &TopicNames<'_>, id: &str, m: &ModernMember) -> Value {
    let group = names.group;
    let current = m
        .current_assignment
        .as_ref()
        .map(|a| with_topic_names(names, a));
    let field = |name: &str| current.as_ref().and_then(|c| c.get(name)).cloned();
    let mut member = json!({
        "memberId": id,
        "memberEpoch": m.member_epoch,
        "state": m.early_access.map_or_else(|| member_state(group.group_type, m.state), |e| e.state.name().to_string()),
        "metadata": m.metadata,
        "targetAssignment": group.target_assignment.get(id).map(|t| with_topic_names(names, t)),
    });
    let fields: &[&str] = if group.group_type == GroupType::Streams {
        &[
            "activeTasks",
            "standbyTasks",
            "warmupTasks",
            "activeTasksPendingRevocation",
        ]
    } else {
        &["assignedPartitions", "partitionsPendingRevocation"]
    };
    for name in fields {
        member[*name] = field(name).unwrap_or(Value::Null);
    }
    if let Some(early) = m.early_access {
        // Kafka 3.6-3.7: what the member reconciles towards, and what it waits for.
        member["targetMemberEpoch"] = json!(early.target_member_epoch);
        member["partitionsPendingAssignment"] =
            field("partitionsPendingAssignment").unwrap_or(Value::Null);
    }
    member
}

fn members_json(group: &Group, share_state_partitions: Option<&Value>) -> Vec<Value> {
    let names = TopicNames {
        group,
        share_state_partitions,
    };
    match group.group_type {
        GroupType::Classic => group.classic_members().to_vec(),
        _ => group
            .members
            .iter()
            .map(|(id, m)| modern_member_json(&names, id, m))
            .collect(),
    }
}

fn offset_json(
    tp: &TopicPartition,
    o: &CommittedOffset,
    end: Option<&PartitionEnd>,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("topic".into(), json!(tp.0));
    m.insert("partition".into(), json!(tp.1));
    m.insert("offset".into(), json!(o.offset));
    m.insert("leaderEpoch".into(), json!(o.leader_epoch));
    m.insert("metadata".into(), json!(o.metadata));
    m.insert("commitTimestamp".into(), json!(o.commit_timestamp));
    m.insert("expireTimestamp".into(), json!(o.expire_timestamp));
    m.insert("recordOffset".into(), json!(o.record_offset));
    let log_end = end.map(|e| e.log_end_offset);
    m.insert("logEndOffset".into(), json!(log_end));
    m.insert("lag".into(), json!(log_end.map(|end| end - o.offset)));
    m.insert(
        "highWatermark".into(),
        json!(end.and_then(|e| e.high_watermark)),
    );
    m
}

/// The group as one JSON object.
pub fn group_json(r: &GroupReport<'_>) -> Value {
    let offsets: Vec<Value> = r
        .offsets
        .into_iter()
        .flatten()
        .map(|(tp, o)| Value::Object(offset_json(tp, o, r.log_ends.get(tp))))
        .collect();
    let pending: Vec<Value> = r
        .pending
        .iter()
        .map(|(producer, tp, o)| {
            let mut m = offset_json(tp, o, r.log_ends.get(*tp));
            m.insert("producerId".into(), json!(producer));
            Value::Object(m)
        })
        .collect();
    let g = r.group;
    let modern = g.filter(|g| g.group_type != GroupType::Classic);
    json!({
        "group": r.id,
        "coordinatorPartition": r.shard,
        "type": g.map(|g| g.group_type.name()),
        "state": g.map(Group::state),
        "protocolType": g.and_then(Group::protocol_type),
        "protocol": g.and_then(Group::protocol),
        "generation": g.map(Group::generation),
        "leader": g.and_then(|g| g.classic.as_ref()?.data().get("leader").cloned()),
        "assignmentEpoch": modern.map(|g| g.assignment_epoch),
        "subscriptionMetadata": modern.and_then(|g| g.partition_metadata.as_ref()?.get("topics").cloned()),
        "resolvedRegularExpressions": g.filter(|g| !g.resolved_regexes.is_empty()).map(|g| &g.resolved_regexes),
        "topology": g.filter(|g| g.group_type == GroupType::Streams).map(|g| json!({
            "epoch": g.topology_epoch(),
            "validatedTopologyEpoch": g.validated_topology_epoch,
            "subtopologies": g.topology.as_ref().and_then(|t| t.get("subtopologies")),
        })),
        "shareStatePartitions": r.share_state_partitions,
        "members": g.map(|g| members_json(g, r.share_state_partitions)).unwrap_or_default(),
        "offsets": offsets,
        "pendingTransactionalOffsets": pending,
    })
}

/// `topic-0,1,2 other-3` from an assignment list
/// (`[{"topic"|"topicId", "partitions"}]`).
fn partitions_text(list: Option<&Value>) -> String {
    let parts: Vec<String> = list
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|tp| {
            let topic = ["topic", "topicName", "topicId"]
                .iter()
                .find_map(|k| tp.get(*k).and_then(Value::as_str))
                .unwrap_or("?");
            let ps: Vec<String> = tp
                .get("partitions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(Value::to_string)
                .collect();
            format!("{topic}-{}", ps.join(","))
        })
        .collect();
    if parts.is_empty() {
        "nothing".to_string()
    } else {
        parts.join(" ")
    }
}

/// A streams member's tasks: `active 0:0,1 1:2; standby 0:2` (subtopology
/// id, then its partitions).
fn tasks_text(member: &Value) -> String {
    let kinds: Vec<String> = ["active", "standby", "warmup"]
        .iter()
        .filter_map(|kind| {
            let tasks = member.get(format!("{kind}Tasks"))?.as_array()?;
            let list: Vec<String> = tasks
                .iter()
                .map(|t| {
                    let ps: Vec<String> = t
                        .get("partitions")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .map(Value::to_string)
                        .collect();
                    let id = t
                        .get("subtopologyId")
                        .and_then(Value::as_str)
                        .unwrap_or("?");
                    format!("{id}:{}", ps.join(","))
                })
                .collect();
            (!list.is_empty()).then(|| format!("{kind} {}", list.join(" ")))
        })
        .collect();
    if kinds.is_empty() {
        "no tasks".to_string()
    } else {
        kinds.join("; ")
    }
}

fn write_members(w: &mut impl Write, group: &Value) -> io::Result<()> {
    for m in group["members"].as_array().into_iter().flatten() {
        let text = |k: &str| {
            m.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let client = m
            .get("metadata")
            .and_then(|md| md.get("clientId"))
            .and_then(Value::as_str)
            .map_or_else(|| text("clientId"), str::to_string);
        let assigned = m
            .get("assignment")
            .and_then(|a| a.get("assignedPartitions"))
            .or_else(|| m.get("assignedPartitions"));
        let epoch = m
            .get("memberEpoch")
            .map(|e| format!(" epoch {e}"))
            .unwrap_or_default();
        // A member still reconciling says how far it is.
        let state = m
            .get("state")
            .and_then(Value::as_str)
            .filter(|s| *s != "STABLE")
            .map(|s| format!(" {s}"))
            .unwrap_or_default();
        let assigned = if m.get("activeTasks").is_some() {
            tasks_text(m)
        } else if assigned.is_some_and(Value::is_array) {
            partitions_text(assigned)
        } else {
            "(not decoded)".to_string()
        };
        writeln!(
            w,
            "  member {}{epoch}{state} (client {client}): assigned {assigned}",
            text("memberId"),
        )?;
    }
    Ok(())
}

/// One committed offset in words, as `write_group_text` prints it.
fn write_offset(
    w: &mut impl Write,
    tp: &TopicPartition,
    o: &CommittedOffset,
    end: Option<&PartitionEnd>,
) -> io::Result<()> {
    write!(w, "{}-{}: offset {}", tp.0, tp.1, o.offset)?;
    if let Some(e) = o.leader_epoch {
        write!(w, " (leader epoch {e})")?;
    }
    write!(w, ", committed {}", utc(o.commit_timestamp))?;
    if let Some(e) = o.expire_timestamp {
        write!(w, ", expires {}", utc(e))?;
    }
    if !o.metadata.is_empty() {
        write!(w, ", metadata {:?}", o.metadata)?;
    }
    if let Some(end) = end {
        write!(w, ", log end {}", end.log_end_offset)?;
        if let Some(hw) = end.high_watermark {
            write!(w, ", high watermark {hw}")?;
        }
        write!(w, ", lag {}", end.log_end_offset - o.offset)?;
    }
    writeln!(w)
}

/// The group in words.
pub fn write_group_text(w: &mut impl Write, r: &GroupReport<'_>) -> io::Result<()> {
    // The offsets are printed from the store, not from the JSON.
    let j = group_json(&GroupReport {
        offsets: None,
        pending: &[],
        ..*r
    });
    let opt = |k: &str| j[k].as_str().map(str::to_string);
    match r.group {
        None => writeln!(
            w,
            "group {} [{}]: no group record, only offsets",
            r.id, r.shard
        )?,
        Some(g) => {
            let protocol = match (opt("protocolType"), opt("protocol")) {
                (Some(t), Some(p)) => format!(", protocol type {t}, protocol {p}"),
                (Some(t), None) => format!(", protocol type {t}"),
                (None, Some(p)) => format!(", assignor {p}"),
                (None, None) => String::new(),
            };
            let generation = match g.group_type {
                GroupType::Classic => format!("generation {}", g.generation()),
                _ => format!(
                    "group epoch {}, assignment epoch {}",
                    g.group_epoch, g.assignment_epoch
                ),
            };
            writeln!(
                w,
                "group {} [{}]: {} group, {}, {generation}{protocol}",
                r.id,
                r.shard,
                g.group_type.name(),
                g.state()
            )?;
            if let Some(leader) = opt("leader") {
                writeln!(w, "  leader {leader}")?;
            }
            if g.group_type == GroupType::Streams {
                let subtopologies = j["topology"]["subtopologies"]
                    .as_array()
                    .map_or(0, Vec::len);
                match g.topology_epoch() {
                    Some(epoch) => writeln!(
                        w,
                        "  topology epoch {epoch} ({subtopologies} subtopologies), validated epoch {}",
                        g.validated_topology_epoch
                    )?,
                    None => writeln!(w, "  no topology yet")?,
                }
            }
            for regex in g.resolved_regexes.keys() {
                writeln!(w, "  regular expression {regex:?} resolved")?;
            }
            write_members(w, &j)?;
        }
    }
    for (tp, o) in r.offsets.into_iter().flatten() {
        write!(w, "  ")?;
        write_offset(w, tp, o, r.log_ends.get(tp))?;
    }
    for (producer, tp, o) in r.pending {
        write!(w, "  pending (producer {producer}, no marker yet): ")?;
        write_offset(w, tp, o, r.log_ends.get(*tp))?;
    }
    Ok(())
}

/// The summary line printed before the groups.
pub fn write_groups_summary(w: &mut impl Write, s: &GroupsSummary) -> io::Result<()> {
    let counts = |m: &BTreeMap<&str, usize>| {
        let parts: Vec<String> = m.iter().map(|(k, n)| format!("{k} {n}")).collect();
        parts.join(", ")
    };
    let lag = if s.measured > 0 {
        format!(
            ", lag {} over the {} whose partition is here",
            s.lag, s.measured
        )
    } else {
        String::new()
    };
    let share = if s.share_partitions > 0 {
        format!("; {} share-partitions", s.share_partitions)
    } else {
        String::new()
    };
    writeln!(
        w,
        "Summary: {} groups ({}; {}), {} committed offsets{lag}{share}",
        s.groups(),
        counts(&s.by_type),
        counts(&s.by_state),
        s.offsets
    )
}

/// Every group of `shards` that `filter` keeps, with the lag against
/// `ends`; returns how many it printed.
pub fn write_groups(
    out: &mut impl Write,
    shards: &[Shard],
    ends: &ConsumerLogEnds<'_>,
    filter: &GroupFilter,
    json: bool,
) -> io::Result<usize> {
    let mut printed = 0usize;
    let no_ends = BTreeMap::new();
    for shard in shards {
        let s = &shard.state;
        let log_ends = ends.get(shard.log_dir.as_path()).unwrap_or(&no_ends);
        for id in group_ids(shard) {
            let offsets = s.offsets.committed.get(id);
            let (lag, _) = total_lag(offsets, log_ends);
            if !filter.keeps(id, s.groups.get(id), lag) {
                continue;
            }
            let pending: Vec<_> = s
                .offsets
                .pending
                .iter()
                .filter_map(|(producer, groups)| Some((*producer, groups.get(id)?)))
                .flat_map(|(producer, offsets)| {
                    offsets.iter().map(move |(tp, o)| (producer, tp, o))
                })
                .collect();
            let report = GroupReport {
                id,
                shard: &shard.partition,
                group: s.groups.get(id),
                offsets,
                pending: &pending,
                log_ends,
                share_state_partitions: s.share_state_partitions.get(id),
            };
            if json {
                writeln!(out, "{}", group_json(&report))?;
            } else {
                write_group_text(out, &report)?;
            }
            printed += 1;
        }
    }
    Ok(printed)
}
