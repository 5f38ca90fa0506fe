//! Share groups' delivery state as the share coordinator loads it from a
//! `__share_group_state` partition (`ShareCoordinatorShard.replay`, Kafka
//! 4.2 share-coordinator/…/ShareCoordinatorShard.java:225-298): a
//! `ShareSnapshot` record (type 0) is a share-partition's whole state, a
//! `ShareUpdate` record (type 1) is applied on top of it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::inspect::cluster::capped::Capped;

/// A share-partition: the share group, and the topic (by id) and partition
/// it consumes.
pub type SharePartitionKey = (String, String, i32);

/// A run of offsets in one delivery state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateBatch {
    /// The first offset.
    pub first_offset: i64,
    /// The last offset (inclusive).
    pub last_offset: i64,
    /// 0 available, 2 acknowledged, 4 archived (`RecordState`).
    pub delivery_state: i8,
    /// How many times the records were delivered.
    pub delivery_count: i16,
}

impl StateBatch {
    fn from_json(v: &Value) -> Option<Self> {
        Some(Self {
            first_offset: v.get("firstOffset")?.as_i64()?,
            last_offset: v.get("lastOffset")?.as_i64()?,
            delivery_state: i8::try_from(v.get("deliveryState")?.as_i64()?).ok()?,
            delivery_count: i16::try_from(v.get("deliveryCount")?.as_i64()?).ok()?,
        })
    }

    /// Which of two overlapping batches an offset keeps: the higher
    /// delivery count, then the higher state
    /// (`PersisterStateBatchCombiner.compareBatchDeliveryInfo`).
    fn priority(&self) -> (i16, i8) {
        (self.delivery_count, self.delivery_state)
    }
}

/// One share-partition's state.
#[derive(Debug, Clone, PartialEq)]
pub struct SharePartitionState {
    /// The snapshot epoch of the last snapshot (or first update).
    pub snapshot_epoch: i32,
    /// The state epoch of the last snapshot (-1 when only updates came).
    pub state_epoch: i32,
    /// The leader epoch of the share-partition's state.
    pub leader_epoch: i32,
    /// The share-partition start offset: records below it are done.
    pub start_offset: i64,
    /// How many records at or above the start offset are done (Kafka 4.2
    /// on; -1 when the record does not say).
    pub delivery_complete_count: i64,
    /// The in-flight records' states, by offset.
    pub batches: Vec<StateBatch>,
    /// The offset of the last record applied.
    pub record_offset: i64,
}

/// What the share coordinator holds after loading one partition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShareStateStore {
    /// Each share-partition's state.
    pub partitions: BTreeMap<SharePartitionKey, SharePartitionState>,
    /// Records Kafka's load would refuse or trip over, with their offsets.
    pub notes: Capped<String>,
}

fn int(v: &Value, name: &str) -> Option<i64> {
    v.get(name).and_then(Value::as_i64)
}

fn int32(v: &Value, name: &str) -> i32 {
    int(v, name)
        .and_then(|n| i32::try_from(n).ok())
        .unwrap_or(-1)
}

fn batches(v: &Value) -> Vec<StateBatch> {
    v.get("stateBatches")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(StateBatch::from_json)
        .collect()
}

impl ShareStateStore {
    /// Applies one decoded record at `offset`: `key` is the key's JSON
    /// (`{"type", "data"}`), `value` the value's data (`None` for a
    /// tombstone).
    pub fn apply(&mut self, offset: i64, key: &Value, value: Option<&Value>) {
        let record_type = key.get("type").and_then(Value::as_str);
        let k = &key["data"];
        let share_partition = (
            k.get("groupId").and_then(Value::as_str),
            k.get("topicId").and_then(Value::as_str),
            int(k, "partition").and_then(|p| i32::try_from(p).ok()),
        );
        let (Some(group), Some(topic_id), Some(partition)) = share_partition else {
            self.notes.push(format!(
                "offset {offset}: a share-state key without group, topic id or partition; skipped"
            ));
            return;
        };
        let id = (group.to_string(), topic_id.to_string(), partition);
        match (record_type, value) {
            (Some("0"), None) => {
                self.partitions.remove(&id);
            }
            (Some("0"), Some(v)) => {
                let state = Self::snapshot(offset, v, int32(v, "stateEpoch"));
                self.partitions.insert(id, state);
            }
            (Some("1"), Some(v)) => {
                let update = Self::snapshot(offset, v, -1);
                let merged = match self.partitions.remove(&id) {
                    None => update,
                    Some(so_far) => merge(so_far, update),
                };
                self.partitions.insert(id, merged);
            }
            (Some("1"), None) => self.notes.push(format!(
                "offset {offset}: a share update tombstone for {group} {topic_id}-{partition}; \
                 Kafka's replay reads the missing value and the load fails; skipped"
            )),
            (other, _) => self.notes.push(format!(
                "offset {offset}: share-state record type {} is not replayed; skipped",
                other.unwrap_or("?")
            )),
        }
    }

    fn snapshot(offset: i64, v: &Value, state_epoch: i32) -> SharePartitionState {
        SharePartitionState {
            snapshot_epoch: int32(v, "snapshotEpoch"),
            state_epoch,
            leader_epoch: int32(v, "leaderEpoch"),
            start_offset: int(v, "startOffset").unwrap_or(-1),
            delivery_complete_count: int(v, "deliveryCompleteCount").unwrap_or(-1),
            batches: batches(v),
            record_offset: offset,
        }
    }
}

/// An update applied on a state (`ShareCoordinatorShard.merge`): a start
/// offset or leader epoch of -1 keeps the old one, the snapshot and state
/// epochs stay, the batches combine.
fn merge(so_far: SharePartitionState, update: SharePartitionState) -> SharePartitionState {
    let start_offset = if update.start_offset == -1 {
        so_far.start_offset
    } else {
        update.start_offset
    };
    let mut all = so_far.batches;
    all.extend(update.batches);
    SharePartitionState {
        snapshot_epoch: so_far.snapshot_epoch,
        state_epoch: so_far.state_epoch,
        leader_epoch: if update.leader_epoch == -1 {
            so_far.leader_epoch
        } else {
            update.leader_epoch
        },
        start_offset,
        delivery_complete_count: update.delivery_complete_count,
        batches: combine(all, start_offset),
        record_offset: update.record_offset,
    }
}

/// The batches as `PersisterStateBatchCombiner` leaves them: offsets below
/// `start_offset` (unless -1) dropped; where batches overlap, each offset
/// keeps the state of the batch with the higher delivery count, then the
/// higher state; neighbouring runs in the same state and count joined.
pub fn combine(batches: Vec<StateBatch>, start_offset: i64) -> Vec<StateBatch> {
    let floor = if start_offset == -1 {
        i64::MIN
    } else {
        start_offset
    };
    let batches: Vec<StateBatch> = batches
        .into_iter()
        .filter(|b| b.last_offset >= floor && b.first_offset <= b.last_offset)
        .map(|b| StateBatch {
            first_offset: b.first_offset.max(floor),
            ..b
        })
        .collect();
    // Every offset where the winning batch can change.
    let mut cuts: Vec<i64> = batches
        .iter()
        .flat_map(|b| [b.first_offset, b.last_offset.saturating_add(1)])
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut out: Vec<StateBatch> = Vec::new();
    for pair in cuts.windows(2) {
        let (from, to) = (pair[0], pair[1] - 1);
        let winner = batches
            .iter()
            .filter(|b| b.first_offset <= from && b.last_offset >= to)
            .max_by_key(|b| b.priority());
        let Some(w) = winner else { continue };
        match out.last_mut() {
            Some(last) if last.last_offset + 1 == from && last.priority() == w.priority() => {
                last.last_offset = to;
            }
            _ => out.push(StateBatch {
                first_offset: from,
                last_offset: to,
                ..*w
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn b(first: i64, last: i64, state: i8, count: i16) -> StateBatch {
        StateBatch {
            first_offset: first,
            last_offset: last,
            delivery_state: state,
            delivery_count: count,
        }
    }

    #[test]
    fn overlapping_batches_keep_the_higher_count_then_state() {
        // Acknowledged 10-19 over available 0-29, both delivered once; a
        // redelivered 25-34.
        let got = combine(vec![b(0, 29, 0, 1), b(10, 19, 2, 1), b(25, 34, 0, 2)], -1);
        assert_eq!(
            got,
            vec![
                b(0, 9, 0, 1),
                b(10, 19, 2, 1),
                b(20, 24, 0, 1),
                b(25, 34, 0, 2)
            ]
        );
        // The start offset cuts what lies below it; same-state runs join.
        let got = combine(vec![b(0, 9, 2, 1), b(10, 19, 2, 1), b(20, 29, 0, 1)], 5);
        assert_eq!(got, vec![b(5, 19, 2, 1), b(20, 29, 0, 1)]);
    }

    #[test]
    fn an_update_applies_on_the_snapshot_and_a_snapshot_replaces_it() {
        let mut s = ShareStateStore::default();
        let key =
            |t: &str| json!({"type": t, "data": {"groupId": "g", "topicId": "T", "partition": 0}});
        let snapshot = json!({"snapshotEpoch": 1, "stateEpoch": 3, "leaderEpoch": 5, "startOffset": 100,
            "stateBatches": [{"firstOffset": 100, "lastOffset": 109, "deliveryState": 0, "deliveryCount": 1}]});
        s.apply(0, &key("0"), Some(&snapshot));
        let update = json!({"snapshotEpoch": 1, "leaderEpoch": -1, "startOffset": 105,
            "stateBatches": [{"firstOffset": 105, "lastOffset": 106, "deliveryState": 2, "deliveryCount": 1}]});
        s.apply(1, &key("1"), Some(&update));
        let state = &s.partitions[&("g".into(), "T".into(), 0)];
        assert_eq!(
            (state.start_offset, state.leader_epoch, state.state_epoch),
            (105, 5, 3)
        );
        assert_eq!(state.batches, vec![b(105, 106, 2, 1), b(107, 109, 0, 1)]);
        s.apply(2, &key("0"), None);
        assert!(s.partitions.is_empty());
        s.apply(3, &key("1"), None);
        assert!(s.notes.items[0].contains("the load fails"));
    }
}
