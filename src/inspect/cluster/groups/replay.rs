//! One `__consumer_offsets` partition's records applied in log order, as
//! `GroupCoordinatorShard.replay` dispatches them by record type to
//! `OffsetMetadataManager.replay` (types 0 and 1) and
//! `GroupMetadataManager.replay` (2 to 23: classic, consumer, share and,
//! Kafka 4.1 on, streams groups), and end markers to
//! `replayEndTransactionMarker`. Where Kafka's replay would throw and fail
//! the load, a note says so and the record is skipped: a consumer group
//! record for a group of another type (a "simple" classic group, made by
//! offset commits alone, is replaced silently), a share group record for a
//! group of another type, or one that needs the share group and finds
//! none (`getOrMaybeCreatePersisted{Consumer,Share}Group`).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::classic::ClassicData;
use super::offsets::{CommittedOffset, MarkerOutcome, OffsetStore};
use super::state::{
    EarlyAccess, EarlyAccessState, Group, GroupType, LEAVE_GROUP_MEMBER_EPOCH, ModernMember,
};
use crate::inspect::cluster::capped::Capped;
use crate::schema::tree::Node;

/// What the coordinator holds after replaying one partition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CoordinatorState {
    /// Groups by id (hashed: a replay looks one up at every record;
    /// listings sort the ids).
    pub groups: HashMap<String, Group>,
    /// Committed and pending offsets.
    pub offsets: OffsetStore,
    /// Share groups' share-partition initialisation state by group
    /// (`ShareGroupStatePartitionMetadataValue` data, type 15, Kafka 4.1 on).
    pub share_state_partitions: BTreeMap<String, Value>,
    /// Records Kafka's replay would refuse, and why (with their offsets).
    pub notes: Capped<String>,
}

fn text<'v>(data: Node<'v>, name: &str) -> Option<&'v str> {
    data.get(name).and_then(Node::as_str)
}

fn int(data: Node<'_>, name: &str) -> Option<i64> {
    data.get(name).and_then(Node::as_i64)
}

fn epoch(data: Node<'_>, name: &str) -> i32 {
    int(data, name)
        .and_then(|v| i32::try_from(v).ok())
        .unwrap_or(-1)
}

/// The record families of types 3 to 14 and 17 to 23: the same shapes for
/// consumer (3-8), share (11, 9, 10, 12, 13, 14) and streams groups (17,
/// 19-22, with 23 the topology).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Modern {
    GroupEpoch,
    PartitionMetadata,
    MemberMetadata,
    TargetAssignmentEpoch,
    TargetAssignmentMember,
    CurrentAssignment,
    Topology,
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
        17 => (GroupType::Streams, GroupEpoch),
        19 => (GroupType::Streams, MemberMetadata),
        20 => (GroupType::Streams, TargetAssignmentEpoch),
        21 => (GroupType::Streams, TargetAssignmentMember),
        22 => (GroupType::Streams, CurrentAssignment),
        23 => (GroupType::Streams, Topology),
        _ => return None,
    };
    Some((t, m))
}

impl CoordinatorState {
    /// Applies one decoded record at `offset` of a batch by `producer_id`:
    /// `key` is the key's JSON (`{"type", "data"}`), `value` the value's
    /// data and `raw` its bytes, `None` for a tombstone. A classic group's
    /// metadata is kept as its bytes when given them ([`ClassicData`]).
    pub fn apply(
        &mut self,
        offset: i64,
        producer_id: i64,
        key: Node<'_>,
        value: Option<Node<'_>>,
        raw: Option<&[u8]>,
    ) {
        let record_type = key
            .get("type")
            .and_then(Node::as_str)
            .and_then(|t| t.parse::<i64>().ok());
        let Some(record_type) = record_type else {
            self.notes.push(format!(
                "offset {offset}: a key without a record type; skipped"
            ));
            return;
        };
        let k = key.get("data").unwrap_or(Node::NULL);
        match record_type {
            0 | 1 => self.offset_commit(offset, producer_id, k, value),
            2 => self.group_metadata(k, value, raw),
            15 => self.share_state_partition_metadata(offset, k, value),
            16 => self.regular_expression(offset, k, value),
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

    fn offset_commit(
        &mut self,
        offset: i64,
        producer_id: i64,
        k: Node<'_>,
        value: Option<Node<'_>>,
    ) {
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
        if !self.groups.contains_key(group) {
            self.groups
                .insert(group.to_string(), Group::new(GroupType::Classic));
        }
        self.offsets.commit(producer_id, group, tp, committed);
    }

    fn group_metadata(&mut self, k: Node<'_>, value: Option<Node<'_>>, raw: Option<&[u8]>) {
        let Some(id) = text(k, "group") else { return };
        match value {
            None => {
                self.groups.remove(id);
            }
            Some(data) => {
                let mut group = Group::new(GroupType::Classic);
                group.classic = Some(match raw {
                    Some(bytes) => ClassicData::from_bytes(bytes),
                    None => ClassicData::from_data(data.to_value()),
                });
                self.groups.insert(id.to_string(), group);
            }
        }
    }

    /// The group `getOrMaybeCreatePersisted{Consumer,Share}Group` hands the
    /// replay, `Ok(None)` when a consumer group's record is to be ignored
    /// (a tombstone for a group that does not exist), `Err` where Kafka
    /// throws (GroupMetadataManager.java:846-875 and 984-1006).
    fn persisted(
        &mut self,
        id: &str,
        group_type: GroupType,
        create: bool,
    ) -> Result<Option<&mut Group>, String> {
        let existing = self.groups.get(id).map(|g| (g.group_type, g.is_simple()));
        match (existing, group_type) {
            (None, GroupType::Consumer | GroupType::Streams) if !create => Ok(None),
            (None, _) if !create => Err(format!(
                "share group {id} does not exist (the record needs it)"
            )),
            (Some((t, _)), _) if t == group_type => Ok(self.groups.get_mut(id)),
            // A simple classic group, made by offset commits alone, is
            // replaced by the consumer group silently.
            (None, _) | (Some((GroupType::Classic, true)), GroupType::Consumer) => {
                self.groups.insert(id.to_string(), Group::new(group_type));
                Ok(self.groups.get_mut(id))
            }
            (Some((t, _)), _) => Err(format!(
                "group {id} is a {} group, not a {} group",
                t.name(),
                group_type.name()
            )),
        }
    }

    /// Type 15: which share-partitions of a share group are initialised,
    /// initialising or being deleted; a tombstone for a missing group is
    /// ignored (Kafka 4.2 GroupMetadataManager.java:5999-6036).
    fn share_state_partition_metadata(
        &mut self,
        offset: i64,
        k: Node<'_>,
        value: Option<Node<'_>>,
    ) {
        let Some(id) = text(k, "groupId") else { return };
        match self.persisted(id, GroupType::Share, value.is_some()) {
            Err(why) if value.is_some() || !why.contains("does not exist") => {
                return self.refused(offset, id, &why);
            }
            _ => {}
        }
        match value {
            Some(v) => self
                .share_state_partitions
                .insert(id.to_string(), v.to_value()),
            None => self.share_state_partitions.remove(id),
        };
    }

    /// Type 16: a consumer group's resolved regular expression (Kafka 4.2
    /// GroupMetadataManager.java:5547-5580).
    fn regular_expression(&mut self, offset: i64, k: Node<'_>, value: Option<Node<'_>>) {
        let (Some(id), Some(regex)) = (text(k, "groupId"), text(k, "regularExpression")) else {
            return;
        };
        match self.persisted(id, GroupType::Consumer, value.is_some()) {
            Ok(None) => {}
            Ok(Some(group)) => match value {
                Some(v) => {
                    group
                        .resolved_regexes
                        .insert(regex.to_string(), v.to_value());
                }
                None => {
                    group.resolved_regexes.remove(regex);
                }
            },
            Err(why) => self.refused(offset, id, &why),
        }
    }

    fn refused(&mut self, offset: i64, id: &str, why: &str) {
        self.notes.push(format!(
            "offset {offset}: {why} in group {id}; Kafka's replay throws here and the load fails; skipped"
        ));
    }

    fn modern(
        &mut self,
        offset: i64,
        group_type: GroupType,
        family: Modern,
        k: Node<'_>,
        value: Option<Node<'_>>,
    ) {
        let Some(id) = text(k, "groupId") else { return };
        let member_id = text(k, "memberId").unwrap_or_default().to_string();
        let share = group_type == GroupType::Share;
        // Share groups' partition metadata, target assignment and current
        // assignment records need the group (createIfNotExists=false,
        // GroupMetadataManager.java:3625-3745); every other record creates
        // it unless it is a tombstone.
        let create = value.is_some()
            && !(share
                && matches!(
                    family,
                    Modern::PartitionMetadata
                        | Modern::TargetAssignmentEpoch
                        | Modern::TargetAssignmentMember
                        | Modern::CurrentAssignment
                ));
        let outcome = match self.persisted(id, group_type, create) {
            Ok(None) => return,
            Ok(Some(group)) => Self::apply_modern(group, share, family, &member_id, value),
            Err(why) => Outcome::Refused(why),
        };
        match outcome {
            Outcome::Applied => {}
            Outcome::RemoveGroup => {
                self.groups.remove(id);
            }
            Outcome::Refused(why) => self.refused(offset, id, &why),
        }
    }

    /// One record of `family` applied to `group`.
    fn apply_modern(
        group: &mut Group,
        share: bool,
        family: Modern,
        member_id: &str,
        value: Option<Node<'_>>,
    ) -> Outcome {
        let refuse = |why: &str| Outcome::Refused(why.to_string());
        let streams = group.group_type == GroupType::Streams;
        match (family, value) {
            (Modern::GroupEpoch, Some(v)) => {
                group.group_epoch = epoch(v, "epoch");
                if streams {
                    group.validated_topology_epoch = epoch(v, "validatedTopologyEpoch");
                }
                Outcome::Applied
            }
            (Modern::Topology, v) => {
                group.topology = v.map(Node::to_value);
                Outcome::Applied
            }
            (Modern::GroupEpoch, None) => {
                if !group.members.is_empty() {
                    refuse("a group tombstone while members remain")
                } else if !streams && !group.target_assignment.is_empty() {
                    refuse("a group tombstone while target assignments remain")
                } else if group.assignment_epoch != -1 {
                    refuse("a group tombstone before the target assignment epoch's tombstone")
                } else {
                    Outcome::RemoveGroup
                }
            }
            (Modern::PartitionMetadata, v) => {
                group.partition_metadata = v.map(Node::to_value);
                Outcome::Applied
            }
            (Modern::MemberMetadata, Some(v)) => {
                group
                    .members
                    .entry(member_id.to_string())
                    .or_default()
                    .metadata = Some(v.to_value());
                Outcome::Applied
            }
            (Modern::MemberMetadata, None) => match group.members.get(member_id) {
                None if share => refuse("a member tombstone for a member the share group lacks"),
                None => Outcome::Applied,
                Some(m) if m.member_epoch != LEAVE_GROUP_MEMBER_EPOCH => {
                    refuse("a member tombstone before its current assignment's tombstone")
                }
                Some(_) if group.target_assignment.contains_key(member_id) => {
                    refuse("a member tombstone before its target assignment's tombstone")
                }
                Some(_) => {
                    group.members.remove(member_id);
                    Outcome::Applied
                }
            },
            (Modern::TargetAssignmentEpoch, Some(v)) => {
                group.assignment_epoch = epoch(v, "assignmentEpoch");
                Outcome::Applied
            }
            (Modern::TargetAssignmentEpoch, None) if !group.target_assignment.is_empty() => {
                refuse("a target assignment epoch tombstone while member target assignments remain")
            }
            (Modern::TargetAssignmentEpoch, None) => {
                group.assignment_epoch = -1;
                Outcome::Applied
            }
            (Modern::TargetAssignmentMember, Some(v)) => {
                group
                    .target_assignment
                    .insert(member_id.to_string(), v.to_value());
                Outcome::Applied
            }
            (Modern::TargetAssignmentMember, None) => {
                group.target_assignment.remove(member_id);
                Outcome::Applied
            }
            (Modern::CurrentAssignment, _) if share && !group.members.contains_key(member_id) => {
                refuse("a current assignment for a member the share group lacks")
            }
            (Modern::CurrentAssignment, Some(v)) => {
                let member = group.members.entry(member_id.to_string()).or_default();
                member.member_epoch = epoch(v, "memberEpoch");
                member.state = int(v, "state").unwrap_or(0);
                member.early_access = early_access(v);
                member.current_assignment = Some(v.to_value());
                Outcome::Applied
            }
            (Modern::CurrentAssignment, None) => {
                if let Some(member) = group.members.get_mut(member_id) {
                    *member = ModernMember {
                        metadata: member.metadata.take(),
                        current_assignment: None,
                        member_epoch: LEAVE_GROUP_MEMBER_EPOCH,
                        state: 0,
                        early_access: None,
                    };
                }
                Outcome::Applied
            }
        }
    }
}

/// A consumer group member's reconciliation in Kafka 3.6-3.7's layout of
/// its current assignment (a target member epoch and pending partitions in
/// place of a state id); `None` for later layouts.
fn early_access(v: Node<'_>) -> Option<EarlyAccess> {
    let target_member_epoch = i32::try_from(int(v, "targetMemberEpoch")?).ok()?;
    let pending = |name| {
        v.get(name)
            .and_then(Node::as_array)
            .is_some_and(|a| a.len() > 0)
    };
    let state = if pending("partitionsPendingRevocation") {
        EarlyAccessState::Revoking
    } else if pending("partitionsPendingAssignment") {
        EarlyAccessState::Assigning
    } else {
        EarlyAccessState::Stable
    };
    Some(EarlyAccess {
        target_member_epoch,
        state,
    })
}

/// What one modern group record does.
enum Outcome {
    /// Applied to the group.
    Applied,
    /// A group tombstone Kafka accepts: the group goes.
    RemoveGroup,
    /// Kafka's replay throws, for this reason.
    Refused(String),
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(t: &str, data: Value) -> Value {
        json!({"type": t, "data": data})
    }

    impl CoordinatorState {
        /// [`CoordinatorState::apply`] of a key and value given as JSON.
        fn apply_json(
            &mut self,
            offset: i64,
            producer_id: i64,
            key: &Value,
            value: Option<&Value>,
        ) {
            use crate::schema::emit::Emitter;
            let mut tree = crate::schema::tree::Tree::default();
            let key = tree.value(key);
            let value = value.map(|v| tree.value(v));
            self.apply(
                offset,
                producer_id,
                tree.node(key),
                value.map(|v| tree.node(v)),
                None,
            );
        }
    }

    #[test]
    fn a_group_tombstone_removes_the_group_but_not_its_offsets() {
        let mut s = CoordinatorState::default();
        let commit = key("1", json!({"group": "g", "topic": "t", "partition": 0}));
        s.apply_json(
            0,
            -1,
            &commit,
            Some(&json!({"offset": 5, "commitTimestamp": 1})),
        );
        assert_eq!(s.groups["g"].protocol_type(), None);
        s.apply_json(
            1,
            -1,
            &key("2", json!({"group": "g"})),
            Some(&json!({"protocolType": "consumer", "generation": 1, "members": []})),
        );
        assert_eq!(s.groups["g"].protocol_type(), Some("consumer"));
        s.apply_json(2, -1, &key("2", json!({"group": "g"})), None);
        assert!(s.groups.is_empty());
        assert_eq!(s.offsets.committed["g"][&("t".into(), 0)].offset, 5);
    }

    #[test]
    fn a_member_leaves_only_after_its_assignment_tombstone() {
        let mut s = CoordinatorState::default();
        let member = key("5", json!({"groupId": "c", "memberId": "m"}));
        s.apply_json(0, -1, &member, Some(&json!({"clientId": "x"})));
        s.apply_json(1, -1, &member, None);
        assert_eq!(s.notes.items.len(), 1);
        s.apply_json(
            2,
            -1,
            &key("8", json!({"groupId": "c", "memberId": "m"})),
            None,
        );
        s.apply_json(3, -1, &member, None);
        assert!(s.groups["c"].members.is_empty());
        // A new group's assignment epoch is 0, not -1: its tombstone must
        // come before the group's (ModernGroup's TimelineInteger starts at 0).
        assert_eq!(s.groups["c"].assignment_epoch, 0);
        s.apply_json(4, -1, &key("3", json!({"groupId": "c"})), None);
        assert_eq!(s.notes.items.len(), 2);
        assert!(s.groups.contains_key("c"));
        s.apply_json(5, -1, &key("6", json!({"groupId": "c"})), None);
        s.apply_json(6, -1, &key("3", json!({"groupId": "c"})), None);
        assert!(s.groups.is_empty());
        // Kafka 4.1 on replays type 15; its tombstone for a share group
        // that does not exist is ignored.
        s.apply_json(7, -1, &key("15", json!({"groupId": "s"})), None);
        assert_eq!(s.notes.items.len(), 2, "{:?}", s.notes);
    }

    #[test]
    fn a_streams_group_lives_through_its_records() {
        let mut s = CoordinatorState::default();
        let g = json!({"groupId": "app"});
        let m = json!({"groupId": "app", "memberId": "m1"});
        s.apply_json(
            0,
            -1,
            &key("17", g.clone()),
            Some(&json!({"epoch": 3, "validatedTopologyEpoch": 2})),
        );
        s.apply_json(
            1,
            -1,
            &key("19", m.clone()),
            Some(&json!({"clientId": "c", "processId": "p"})),
        );
        assert_eq!(s.groups["app"].group_type, GroupType::Streams);
        // No topology of the validated epoch yet.
        assert_eq!(s.groups["app"].state(), "NotReady");
        s.apply_json(
            2,
            -1,
            &key("23", g.clone()),
            Some(&json!({"epoch": 2, "subtopologies": []})),
        );
        assert_eq!(s.groups["app"].state(), "Assigning");
        s.apply_json(
            3,
            -1,
            &key("20", g.clone()),
            Some(&json!({"assignmentEpoch": 3})),
        );
        s.apply_json(
            4,
            -1,
            &key("21", m.clone()),
            Some(&json!({"activeTasks": []})),
        );
        // State 1 is a streams member's STABLE.
        s.apply_json(
            5,
            -1,
            &key("22", m.clone()),
            Some(&json!({"memberEpoch": 3, "state": 1})),
        );
        assert_eq!(s.groups["app"].state(), "Stable");
        s.apply_json(
            6,
            -1,
            &key("22", m.clone()),
            Some(&json!({"memberEpoch": 2, "state": 1})),
        );
        assert_eq!(s.groups["app"].state(), "Reconciling");
        // The group goes only once its members and assignment epoch have.
        s.apply_json(7, -1, &key("17", g.clone()), None);
        assert_eq!(s.notes.items.len(), 1);
        for (i, (t, k)) in [("22", &m), ("21", &m), ("19", &m), ("20", &g), ("17", &g)]
            .into_iter()
            .enumerate()
        {
            s.apply_json(8 + i as i64, -1, &key(t, k.clone()), None);
        }
        assert!(s.groups.is_empty(), "{:?} {:?}", s.groups, s.notes);
        assert_eq!(s.notes.items.len(), 1);
        // Tombstones for a streams group that is not there are ignored;
        // a streams record for a consumer group fails the load.
        s.apply_json(20, -1, &key("23", g.clone()), None);
        assert!(s.groups.is_empty() && s.notes.items.len() == 1);
        s.apply_json(21, -1, &key("3", g.clone()), Some(&json!({"epoch": 1})));
        s.apply_json(22, -1, &key("17", g), Some(&json!({"epoch": 1})));
        assert!(s.notes.items[1].contains("is a consumer group, not a streams group"));
    }

    #[test]
    fn a_consumer_group_keeps_its_resolved_regular_expressions() {
        let mut s = CoordinatorState::default();
        let k = key(
            "16",
            json!({"groupId": "c", "regularExpression": "orders-.*"}),
        );
        s.apply_json(
            0,
            -1,
            &k,
            Some(&json!({"topics": ["orders-1"], "version": 7, "timestamp": 1})),
        );
        assert_eq!(s.groups["c"].resolved_regexes["orders-.*"]["version"], 7);
        s.apply_json(1, -1, &k, None);
        assert!(s.groups["c"].resolved_regexes.is_empty());
    }

    fn commit(s: &mut CoordinatorState, offset: i64, group: &str) {
        let k = key("1", json!({"group": group, "topic": "t", "partition": 0}));
        s.apply_json(
            offset,
            -1,
            &k,
            Some(&json!({"offset": 5, "commitTimestamp": 1})),
        );
    }

    #[test]
    fn a_consumer_group_replaces_only_a_simple_classic_group() {
        let mut s = CoordinatorState::default();
        commit(&mut s, 0, "simple");
        s.apply_json(
            1,
            -1,
            &key("3", json!({"groupId": "simple"})),
            Some(&json!({"epoch": 4})),
        );
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        assert_eq!(s.groups["simple"].group_type, GroupType::Consumer);
        assert_eq!(s.groups["simple"].group_epoch, 4);
        s.apply_json(
            2,
            -1,
            &key("2", json!({"group": "classic"})),
            Some(&json!({"protocolType": "consumer", "generation": 1, "members": []})),
        );
        s.apply_json(
            3,
            -1,
            &key("3", json!({"groupId": "classic"})),
            Some(&json!({"epoch": 1})),
        );
        assert_eq!(s.groups["classic"].group_type, GroupType::Classic);
        assert!(
            s.notes.items[0].contains("is a classic group, not a consumer group")
                && s.notes.items[0].contains("the load fails"),
            "{:?}",
            s.notes
        );
    }

    #[test]
    fn share_group_records_need_a_share_group() {
        let mut s = CoordinatorState::default();
        // Even a simple classic group is not replaced by a share group.
        commit(&mut s, 0, "g");
        s.apply_json(
            1,
            -1,
            &key("11", json!({"groupId": "g"})),
            Some(&json!({"epoch": 1})),
        );
        assert_eq!(s.groups["g"].group_type, GroupType::Classic);
        assert!(s.notes.items[0].contains("not a share group"));
        // Partition metadata, target and current assignments of a share
        // group that does not exist: Kafka throws.
        for (i, t) in ["9", "12", "13", "14"].into_iter().enumerate() {
            let k = key(t, json!({"groupId": "missing", "memberId": "m"}));
            s.apply_json(2, -1, &k, Some(&json!({})));
            assert_eq!(s.notes.items.len(), i + 2, "type {t}");
            assert!(s.notes.items[i + 1].contains("share group missing does not exist"));
        }
        assert!(!s.groups.contains_key("missing"));
        // So does a tombstone for one.
        s.apply_json(3, -1, &key("11", json!({"groupId": "missing"})), None);
        assert_eq!(s.notes.items.len(), 6);
    }
}
