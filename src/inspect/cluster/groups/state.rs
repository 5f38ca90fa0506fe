//! The groups the coordinator holds after loading: classic groups as
//! `GroupMetadataValue` describes them (`ClassicGroup`), consumer and share
//! groups as their records build them (`ConsumerGroup`, `ShareGroup`,
//! `ModernGroup`), and the state names each reports.

use std::collections::BTreeMap;

use serde_json::Value;

use super::classic::ClassicData;

/// Which protocol a group speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupType {
    /// The classic (JoinGroup/SyncGroup) protocol, or a group that only
    /// commits offsets.
    Classic,
    /// KIP-848 consumer group.
    Consumer,
    /// KIP-932 share group.
    Share,
    /// KIP-1071 streams group (Kafka 4.1 on).
    Streams,
}

impl GroupType {
    /// Kafka's name of the type (`Group.GroupType.toString`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Classic => "classic",
            Self::Consumer => "consumer",
            Self::Share => "share",
            Self::Streams => "streams",
        }
    }
}

/// A member of a consumer or share group, from its records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModernMember {
    /// `ConsumerGroupMemberMetadataValue` / `ShareGroupMemberMetadataValue` data.
    pub metadata: Option<Value>,
    /// `…CurrentMemberAssignmentValue` data; `None` before the first.
    pub current_assignment: Option<Value>,
    /// The member epoch (-2, `LEAVE_GROUP_MEMBER_EPOCH`, after the current
    /// assignment's tombstone).
    pub member_epoch: i32,
    /// The member's state id (0 is `STABLE`).
    pub state: i64,
    /// Consumer groups of Kafka 3.6-3.7 (KIP-848 early access), whose
    /// current assignment holds no state id: the target member epoch and
    /// the state `ConsumerGroupMember` derives from the pending partitions.
    pub early_access: Option<EarlyAccess>,
}

/// A 3.6-3.7 consumer group member's reconciliation, as that release's
/// `ConsumerGroupMember.Builder.build` and `ConsumerGroup.maybeUpdateGroupState`
/// read it (group-coordinator/…/consumer/ConsumerGroupMember.java:237-245 and
/// ConsumerGroup.java at tag 3.7.1): the group is reconciled when every
/// member's target member epoch is the assignment epoch and its state STABLE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EarlyAccess {
    /// The epoch of the target assignment the member reconciles towards.
    pub target_member_epoch: i32,
    /// Its state.
    pub state: EarlyAccessState,
}

/// The member states of Kafka 3.6-3.7's `ConsumerGroupMember.MemberState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EarlyAccessState {
    /// Partitions pending revocation.
    Revoking,
    /// No revocation pending, partitions pending assignment.
    Assigning,
    /// Neither.
    Stable,
}

impl EarlyAccessState {
    /// The state's name, upper case as kseg names every member state.
    pub fn name(self) -> &'static str {
        match self {
            Self::Revoking => "REVOKING",
            Self::Assigning => "ASSIGNING",
            Self::Stable => "STABLE",
        }
    }
}

impl ModernMember {
    /// Whether the member is reconciled to the target assignment `epoch`
    /// with a member state id of `stable`.
    fn is_reconciled_to(&self, epoch: i32, stable: i64) -> bool {
        match self.early_access {
            Some(e) => e.target_member_epoch == epoch && e.state == EarlyAccessState::Stable,
            None => self.state == stable && self.member_epoch == epoch,
        }
    }
}

/// Epoch -2: the member left (a current assignment tombstone).
pub const LEAVE_GROUP_MEMBER_EPOCH: i32 = -2;

/// A group as loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Its type.
    pub group_type: GroupType,
    /// Classic: the `GroupMetadataValue` data (protocol type, protocol,
    /// generation, leader, members with decoded subscriptions and
    /// assignments); `None` for a group created by an offset commit alone.
    pub classic: Option<ClassicData>,
    /// Modern groups: the group epoch (`…GroupMetadataValue.epoch`).
    pub group_epoch: i32,
    /// Modern groups: the target assignment epoch (0 for a new group, as
    /// `ModernGroup`'s `TimelineInteger` starts; -1 after its tombstone).
    pub assignment_epoch: i32,
    /// Modern groups: members by id.
    pub members: BTreeMap<String, ModernMember>,
    /// Modern groups: each member's target assignment data.
    pub target_assignment: BTreeMap<String, Value>,
    /// Modern groups: the subscribed topics' metadata (`…PartitionMetadataValue` data).
    pub partition_metadata: Option<Value>,
    /// Consumer groups: resolved regular expressions by expression
    /// (`ConsumerGroupRegularExpressionValue` data, Kafka 4.0 on).
    pub resolved_regexes: BTreeMap<String, Value>,
    /// Streams groups: the topology (`StreamsGroupTopologyValue` data).
    pub topology: Option<Value>,
    /// Streams groups: the topology epoch the group metadata says was
    /// validated (`StreamsGroupMetadataValue.validatedTopologyEpoch`).
    pub validated_topology_epoch: i32,
}

impl Group {
    /// An empty group of `group_type`, as `getOrMaybeCreate…Group` makes it.
    pub fn new(group_type: GroupType) -> Self {
        Self {
            group_type,
            classic: None,
            group_epoch: 0,
            assignment_epoch: 0,
            members: BTreeMap::new(),
            target_assignment: BTreeMap::new(),
            partition_metadata: None,
            resolved_regexes: BTreeMap::new(),
            topology: None,
            validated_topology_epoch: 0,
        }
    }

    /// A "simple" classic group: no protocol type and no members, as
    /// offset commits alone make it (`ClassicGroup.isSimpleGroup`,
    /// group-coordinator/src/main/java/org/apache/kafka/coordinator/group/classic/ClassicGroup.java:289-291).
    pub fn is_simple(&self) -> bool {
        self.group_type == GroupType::Classic
            && self.protocol_type().is_none()
            && self.classic_members().is_empty()
    }

    fn classic_field(&self, name: &str) -> Option<&Value> {
        self.classic.as_ref().and_then(|c| c.data().get(name))
    }

    /// Classic groups' members as `GroupMetadataValue` holds them.
    pub fn classic_members(&self) -> &[Value] {
        self.classic_field("members")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The protocol type (classic groups; `None` when empty).
    pub fn protocol_type(&self) -> Option<&str> {
        self.classic_field("protocolType")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }

    /// The chosen protocol (classic) or the server assignor of the first
    /// member that names one (consumer groups).
    pub fn protocol(&self) -> Option<&str> {
        match self.group_type {
            GroupType::Classic => self.classic_field("protocol").and_then(Value::as_str),
            _ => self.members.values().find_map(|m| {
                m.metadata
                    .as_ref()?
                    .get("serverAssignor")
                    .and_then(Value::as_str)
            }),
        }
    }

    /// The generation (classic) or the group epoch (modern groups).
    pub fn generation(&self) -> i64 {
        match self.group_type {
            GroupType::Classic => self
                .classic_field("generation")
                .and_then(Value::as_i64)
                .unwrap_or(0),
            _ => i64::from(self.group_epoch),
        }
    }

    /// The state Kafka reports after loading: classic groups are `Empty`
    /// or `Stable` (`GroupMetadataManager.replay(GroupMetadataKey…)`);
    /// consumer groups `Empty`, `Assigning`, `Reconciling` or `Stable`
    /// (`ConsumerGroup.maybeUpdateGroupState`); share groups `Empty` or
    /// `Stable` (`ShareGroup.maybeUpdateGroupState`); streams groups also
    /// `NotReady` while no topology of the validated epoch is there
    /// (`StreamsGroup.maybeUpdateGroupState`, Kafka 4.2
    /// group-coordinator/…/streams/StreamsGroup.java:878-897).
    pub fn state(&self) -> &'static str {
        match self.group_type {
            GroupType::Classic if self.classic_members().is_empty() => "Empty",
            GroupType::Classic => "Stable",
            _ if self.members.is_empty() => "Empty",
            GroupType::Share => "Stable",
            GroupType::Streams if self.topology_epoch() != Some(self.validated_topology_epoch) => {
                "NotReady"
            }
            _ if self.group_epoch > self.assignment_epoch => "Assigning",
            GroupType::Consumer | GroupType::Streams => {
                // A member's STABLE state id: 0 in consumer groups
                // (`MemberState`), 1 in streams groups (`streams.MemberState`).
                let stable = if self.group_type == GroupType::Streams {
                    1
                } else {
                    0
                };
                let reconciled =
                    |m: &ModernMember| m.is_reconciled_to(self.assignment_epoch, stable);
                if self.members.values().all(reconciled) {
                    "Stable"
                } else {
                    "Reconciling"
                }
            }
        }
    }

    /// Streams groups: the topology's epoch, when there is one.
    pub fn topology_epoch(&self) -> Option<i32> {
        let epoch = self.topology.as_ref()?.get("epoch")?.as_i64()?;
        i32::try_from(epoch).ok()
    }

    /// A topic id's name, from the group's partition metadata.
    pub fn topic_name(&self, topic_id: &str) -> Option<&str> {
        self.partition_metadata
            .as_ref()?
            .get("topics")?
            .as_array()?
            .iter()
            .find(|t| t.get("topicId").and_then(Value::as_str) == Some(topic_id))?
            .get("topicName")?
            .as_str()
    }
}

/// A topic id's name, from a share group's share-partition metadata
/// (`ShareGroupStatePartitionMetadataValue` data, type 15), which names
/// every topic it lists as initialized, initializing or deleting.
pub fn share_state_topic_name<'v>(share_state: &'v Value, topic_id: &str) -> Option<&'v str> {
    ["initializedTopics", "initializingTopics", "deletingTopics"]
        .iter()
        .filter_map(|list| share_state.get(*list)?.as_array())
        .flatten()
        .find(|t| t.get("topicId").and_then(Value::as_str) == Some(topic_id))?
        .get("topicName")?
        .as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn consumer_group_states_follow_the_epochs() {
        let mut g = Group::new(GroupType::Consumer);
        assert_eq!(g.state(), "Empty");
        g.group_epoch = 2;
        g.assignment_epoch = 1;
        g.members.insert(
            "m".into(),
            ModernMember {
                member_epoch: 1,
                ..Default::default()
            },
        );
        assert_eq!(g.state(), "Assigning");
        g.assignment_epoch = 2;
        assert_eq!(g.state(), "Reconciling");
        if let Some(m) = g.members.get_mut("m") {
            m.member_epoch = 2;
        }
        assert_eq!(g.state(), "Stable");
    }

    #[test]
    fn early_access_members_reconcile_on_their_target_epoch_and_pending_partitions() {
        let mut g = Group::new(GroupType::Consumer);
        g.group_epoch = 2;
        g.assignment_epoch = 2;
        let early = |target_member_epoch, state| ModernMember {
            member_epoch: 2,
            early_access: Some(EarlyAccess {
                target_member_epoch,
                state,
            }),
            ..Default::default()
        };
        // At the assignment epoch but still waiting for a partition:
        // 3.7 reports the group Reconciling.
        g.members
            .insert("m".into(), early(2, EarlyAccessState::Assigning));
        assert_eq!(g.state(), "Reconciling");
        g.members
            .insert("m".into(), early(1, EarlyAccessState::Stable));
        assert_eq!(g.state(), "Reconciling");
        g.members
            .insert("m".into(), early(2, EarlyAccessState::Stable));
        assert_eq!(g.state(), "Stable");
    }

    #[test]
    fn a_classic_group_with_members_is_stable() {
        let mut g = Group::new(GroupType::Classic);
        assert_eq!((g.state(), g.protocol_type()), ("Empty", None));
        g.classic = Some(ClassicData::from_data(
            json!({"protocolType": "consumer", "generation": 3, "members": [{}]}),
        ));
        assert_eq!((g.state(), g.generation()), ("Stable", 3));
    }

    #[test]
    fn share_partition_metadata_names_the_topics_it_lists() {
        let state = json!({
            "initializedTopics": [{"topicId": "A", "topicName": "audit", "partitions": [0]}],
            "initializingTopics": [],
            "deletingTopics": [{"topicId": "D", "topicName": "gone"}],
        });
        assert_eq!(share_state_topic_name(&state, "A"), Some("audit"));
        assert_eq!(share_state_topic_name(&state, "D"), Some("gone"));
        assert_eq!(share_state_topic_name(&state, "X"), None);
    }
}
