//! One `__consumer_offsets` partition's records applied in log order, as
//! `GroupCoordinatorShard.replay` dispatches them by record type to
//! `OffsetMetadataManager.replay` (types 0 and 1) and
//! `GroupMetadataManager.replay` (2 to 14), and end markers to
//! `replayEndTransactionMarker`. Where Kafka's replay would throw and fail
//! the load, a note says so and the record is skipped.

use std::collections::BTreeMap;

use serde_json::Value;

use super::offsets::{CommittedOffset, MarkerOutcome, OffsetStore};
use super::state::{Group, GroupType, LEAVE_GROUP_MEMBER_EPOCH, ModernMember};
use crate::inspect::cluster::capped::Capped;

/// What the coordinator holds after replaying one partition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CoordinatorState {
    /// Groups by id.
    pub groups: BTreeMap<String, Group>,
    /// Committed and pending offsets.
    pub offsets: OffsetStore,
    /// Records Kafka's replay would refuse, and why (with their offsets).
    pub notes: Capped<String>,
}

fn text<'v>(data: &'v Value, name: &str) -> Option<&'v str> {
    data.get(name).and_then(Value::as_str)
}

fn int(data: &Value, name: &str) -> Option<i64> {
    data.get(name).and_then(Value::as_i64)
}

fn epoch(data: &Value, name: &str) -> i32 {
    int(data, name)
        .and_then(|v| i32::try_from(v).ok())
        .unwrap_or(-1)
}

/// The record families of types 3 to 14: the same shapes for consumer
/// (3-8) and share groups (11, 9, 10, 12, 13, 14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Modern {
    GroupEpoch,
    PartitionMetadata,
    MemberMetadata,
    TargetAssignmentEpoch,
    TargetAssignmentMember,
    CurrentAssignment,
}

fn modern(record_type: i64) -> Option<(GroupType, Modern)> {
    use Modern::*;
    let (t, m) = match record_type {
        3 => (GroupType::Consumer, GroupEpoch),
        4 => (GroupType::Consumer, PartitionMetadata),
        5 => (GroupType::Consumer, MemberMetadata),
        6 => (GroupType::Consumer, TargetAssignmentEpoch),
        7 => (GroupType::Consumer, TargetAssignmentMember),
        8 => (GroupType::Consumer, CurrentAssignment),
        9 => (GroupType::Share, PartitionMetadata),
        10 => (GroupType::Share, MemberMetadata),
        11 => (GroupType::Share, GroupEpoch),
        12 => (GroupType::Share, TargetAssignmentEpoch),
        13 => (GroupType::Share, TargetAssignmentMember),
        14 => (GroupType::Share, CurrentAssignment),
        _ => return None,
    };
    Some((t, m))
}

impl CoordinatorState {
    /// Applies one decoded record at `offset` of a batch by `producer_id`:
    /// `key` is the key's JSON (`{"type", "data"}`), `value` the value's
    /// data, `None` for a tombstone.
    pub fn apply(&mut self, offset: i64, producer_id: i64, key: &Value, value: Option<&Value>) {
        let record_type = key
            .get("type")
            .and_then(Value::as_str)
            .and_then(|t| t.parse::<i64>().ok());
        let Some(record_type) = record_type else {
            self.notes.push(format!(
                "offset {offset}: a key without a record type; skipped"
            ));
            return;
        };
        let null = Value::Null;
        let k = key.get("data").unwrap_or(&null);
        match record_type {
            0 | 1 => self.offset_commit(offset, producer_id, k, value),
            2 => self.group_metadata(k, value),
            t => match modern(t) {
                Some((group_type, family)) => self.modern(offset, group_type, family, k, value),
                None => self.notes.push(format!(
                    "offset {offset}: record type {t} is not replayed by the group coordinator \
                     (GroupCoordinatorShard.replay has no case for it and throws, failing the load); skipped"
                )),
            },
        }
    }

    /// A COMMIT or ABORT marker of `producer_id`.
    pub fn end_transaction(&mut self, producer_id: i64, commit: bool) -> MarkerOutcome {
        self.offsets.end_transaction(producer_id, commit)
    }

    fn offset_commit(&mut self, offset: i64, producer_id: i64, k: &Value, value: Option<&Value>) {
        let (Some(group), Some(topic), Some(partition)) = (
            text(k, "group"),
            text(k, "topic"),
            int(k, "partition").and_then(|p| i32::try_from(p).ok()),
        ) else {
            self.notes.push(format!(
                "offset {offset}: an offset commit key without group, topic or partition; skipped"
            ));
            return;
        };
        let tp = (topic.to_string(), partition);
        let Some(value) = value else {
            self.offsets.delete(group, &tp);
            return;
        };
        let Some(committed) = CommittedOffset::from_value(offset, value) else {
            self.notes.push(format!(
                "offset {offset}: an offset commit value without an offset; skipped"
            ));
            return;
        };
        // A commit for an unknown group creates an empty classic group
        // (a "simple consumer group").
        self.groups
            .entry(group.to_string())
            .or_insert_with(|| Group::new(GroupType::Classic));
        self.offsets.commit(producer_id, group, tp, committed);
    }

    fn group_metadata(&mut self, k: &Value, value: Option<&Value>) {
        let Some(id) = text(k, "group") else { return };
        match value {
            None => {
                self.groups.remove(id);
            }
            Some(data) => {
                let mut group = Group::new(GroupType::Classic);
                group.classic = Some(data.clone());
                self.groups.insert(id.to_string(), group);
            }
        }
    }

    fn modern(
        &mut self,
        offset: i64,
        group_type: GroupType,
        family: Modern,
        k: &Value,
        value: Option<&Value>,
    ) {
        let Some(id) = text(k, "groupId") else { return };
        let member_id = text(k, "memberId").unwrap_or_default().to_string();
        if value.is_none() && !self.groups.contains_key(id) {
            return; // a tombstone for a group that does not exist is ignored
        }
        let group = self
            .groups
            .entry(id.to_string())
            .or_insert_with(|| Group::new(group_type));
        if group.group_type != group_type {
            self.notes.push(format!(
                "offset {offset}: a {} group record for {id}, a {} group; it replaces it",
                group_type.name(),
                group.group_type.name()
            ));
            *group = Group::new(group_type);
        }
        let refusal = match (family, value) {
            (Modern::GroupEpoch, Some(v)) => {
                group.group_epoch = epoch(v, "epoch");
                None
            }
            (Modern::GroupEpoch, None) => {
                let emptied = group.members.is_empty()
                    && group.target_assignment.is_empty()
                    && group.assignment_epoch == -1;
                if emptied {
                    self.groups.remove(id);
                    None
                } else {
                    Some(
                        "a group tombstone while members, target assignments or an assignment epoch remain",
                    )
                }
            }
            (Modern::PartitionMetadata, v) => {
                group.partition_metadata = v.cloned();
                None
            }
            (Modern::MemberMetadata, Some(v)) => {
                group.members.entry(member_id).or_default().metadata = Some(v.clone());
                None
            }
            (Modern::MemberMetadata, None) => match group.members.get(&member_id) {
                None => None,
                Some(m) if m.member_epoch != LEAVE_GROUP_MEMBER_EPOCH => {
                    Some("a member tombstone before its current assignment's tombstone")
                }
                Some(_) if group.target_assignment.contains_key(&member_id) => {
                    Some("a member tombstone before its target assignment's tombstone")
                }
                Some(_) => {
                    group.members.remove(&member_id);
                    None
                }
            },
            (Modern::TargetAssignmentEpoch, Some(v)) => {
                group.assignment_epoch = epoch(v, "assignmentEpoch");
                None
            }
            (Modern::TargetAssignmentEpoch, None) => {
                group.assignment_epoch = -1;
                None
            }
            (Modern::TargetAssignmentMember, Some(v)) => {
                group.target_assignment.insert(member_id, v.clone());
                None
            }
            (Modern::TargetAssignmentMember, None) => {
                group.target_assignment.remove(&member_id);
                None
            }
            (Modern::CurrentAssignment, Some(v)) => {
                let member = group.members.entry(member_id).or_default();
                member.member_epoch = epoch(v, "memberEpoch");
                member.state = int(v, "state").unwrap_or(0);
                member.current_assignment = Some(v.clone());
                None
            }
            (Modern::CurrentAssignment, None) => {
                if let Some(member) = group.members.get_mut(&member_id) {
                    *member = ModernMember {
                        metadata: member.metadata.take(),
                        current_assignment: None,
                        member_epoch: LEAVE_GROUP_MEMBER_EPOCH,
                        state: 0,
                    };
                }
                None
            }
        };
        if let Some(why) = refusal {
            self.notes.push(format!(
                "offset {offset}: {why} in group {id}; Kafka's replay throws here and the load fails; skipped"
            ));
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(t: &str, data: Value) -> Value {
        json!({"type": t, "data": data})
    }

    #[test]
    fn a_group_tombstone_removes_the_group_but_not_its_offsets() {
        let mut s = CoordinatorState::default();
        let commit = key("1", json!({"group": "g", "topic": "t", "partition": 0}));
        s.apply(
            0,
            -1,
            &commit,
            Some(&json!({"offset": 5, "commitTimestamp": 1})),
        );
        assert_eq!(s.groups["g"].protocol_type(), None);
        s.apply(
            1,
            -1,
            &key("2", json!({"group": "g"})),
            Some(&json!({"protocolType": "consumer", "generation": 1, "members": []})),
        );
        assert_eq!(s.groups["g"].protocol_type(), Some("consumer"));
        s.apply(2, -1, &key("2", json!({"group": "g"})), None);
        assert!(s.groups.is_empty());
        assert_eq!(s.offsets.committed["g"][&("t".into(), 0)].offset, 5);
    }

    #[test]
    fn a_member_leaves_only_after_its_assignment_tombstone() {
        let mut s = CoordinatorState::default();
        let member = key("5", json!({"groupId": "c", "memberId": "m"}));
        s.apply(0, -1, &member, Some(&json!({"clientId": "x"})));
        s.apply(1, -1, &member, None);
        assert_eq!(s.notes.items.len(), 1);
        s.apply(
            2,
            -1,
            &key("8", json!({"groupId": "c", "memberId": "m"})),
            None,
        );
        s.apply(3, -1, &member, None);
        assert!(s.groups["c"].members.is_empty());
        s.apply(4, -1, &key("3", json!({"groupId": "c"})), None);
        assert!(s.groups.is_empty());
        s.apply(5, -1, &key("15", json!({"groupId": "s"})), None);
        assert_eq!(s.notes.items.len(), 2);
    }
}
