//! `kseg groups`: a share group's delivery state per share-partition, with
//! how far its start offset is behind the log end.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::inspect::cluster::groups::filter::GroupFilter;
use crate::inspect::cluster::groups::lag::{PartitionEnd, ShareLogEnds};
use crate::inspect::cluster::groups::shard::ShareStateShard;
use crate::inspect::cluster::groups::share_state::{SharePartitionKey, SharePartitionState};

/// Everything printed about one share-partition.
#[derive(Debug, Clone, Copy)]
pub struct SharePartitionReport<'a> {
    /// The `__share_group_state` partition it was loaded from.
    pub shard: &'a str,
    /// The share group, topic id and partition.
    pub key: &'a SharePartitionKey,
    /// Its state.
    pub state: &'a SharePartitionState,
    /// The topic's name and where the partition ends, when its directory
    /// is in the same log dir.
    pub end: Option<&'a (String, PartitionEnd)>,
}

/// Kafka's name of a delivery state id (`RecordState`).
fn delivery_state(id: i8) -> String {
    match id {
        0 => "AVAILABLE".into(),
        1 => "ACQUIRED".into(),
        2 => "ACKNOWLEDGED".into(),
        4 => "ARCHIVED".into(),
        n => format!("Unknown({n})"),
    }
}

/// The share-partition as one JSON object.
pub fn share_partition_json(r: &SharePartitionReport<'_>) -> Value {
    let (group, topic_id, partition) = r.key;
    let s = r.state;
    let log_end = r.end.map(|(_, e)| e.log_end_offset);
    let batches: Vec<Value> = s
        .batches
        .iter()
        .map(|b| {
            json!({
                "firstOffset": b.first_offset,
                "lastOffset": b.last_offset,
                "deliveryState": b.delivery_state,
                "deliveryStateName": delivery_state(b.delivery_state),
                "deliveryCount": b.delivery_count,
            })
        })
        .collect();
    json!({
        "shareGroup": group,
        "coordinatorPartition": r.shard,
        "topicId": topic_id,
        "topic": r.end.map(|(name, _)| name),
        "partition": partition,
        "startOffset": s.start_offset,
        "stateEpoch": s.state_epoch,
        "leaderEpoch": s.leader_epoch,
        "snapshotEpoch": s.snapshot_epoch,
        "deliveryCompleteCount": (s.delivery_complete_count >= 0).then_some(s.delivery_complete_count),
        "stateBatches": batches,
        "recordOffset": s.record_offset,
        "logEndOffset": log_end,
        "lag": log_end.map(|end| end - s.start_offset),
    })
}

/// The share-partition in words, one line and one per in-flight batch.
pub fn write_share_partition_text(
    w: &mut impl Write,
    r: &SharePartitionReport<'_>,
) -> io::Result<()> {
    let (group, topic_id, partition) = r.key;
    let s = r.state;
    let topic = r.end.map_or(topic_id.as_str(), |(name, _)| name.as_str());
    let lag = match r.end {
        Some((_, end)) => format!(
            ", log end {}, {} behind",
            end.log_end_offset,
            end.log_end_offset - s.start_offset
        ),
        None => String::new(),
    };
    writeln!(
        w,
        "share group {group} [{}]: {topic}-{partition}: start offset {}, state epoch {}, leader epoch {}, {} in-flight batches{lag}",
        r.shard,
        s.start_offset,
        s.state_epoch,
        s.leader_epoch,
        s.batches.len()
    )?;
    for b in &s.batches {
        writeln!(
            w,
            "  {}-{}: {}, delivered {} times",
            b.first_offset,
            b.last_offset,
            delivery_state(b.delivery_state),
            b.delivery_count
        )?;
    }
    Ok(())
}

/// Every share-partition of `shards` whose share group `filter` keeps
/// by id and type (a share-partition has no group state or committed
/// offset to choose it by, so `--state` and `--lagging` leave them out),
/// `ends[i]` where shard `i`'s topic-partitions end; returns how many it
/// printed.
pub fn write_share_states(
    out: &mut impl Write,
    shards: &[ShareStateShard],
    ends: &[ShareLogEnds],
    filter: &GroupFilter,
    json: bool,
) -> io::Result<usize> {
    let mut printed = 0;
    let share_type =
        filter.types.is_empty() || filter.types.iter().any(|t| t.eq_ignore_ascii_case("share"));
    let by_group_alone = share_type && filter.states.is_empty() && !filter.lagging;
    for (shard, ends) in shards.iter().zip(ends) {
        for (key, state) in &shard.state.partitions {
            if !by_group_alone || !filter.keeps_id(&key.0) {
                continue;
            }
            let report = SharePartitionReport {
                shard: &shard.partition,
                key,
                state,
                end: ends.get(&(key.1.clone(), key.2)),
            };
            if json {
                writeln!(out, "{}", share_partition_json(&report))?;
            } else {
                write_share_partition_text(out, &report)?;
            }
            printed += 1;
        }
    }
    Ok(printed)
}
