//! One event of the cluster's history: where it is in the metadata log,
//! when its batch was appended, what changed.

use crate::inspect::cluster::metadata::image::{ProducerIds, QuotaEntity};
use crate::inspect::cluster::metadata::topics::PartitionImage;

/// Whether an event's change is in the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Applied: outside a metadata transaction, or in a committed one.
    Applied,
    /// In a metadata transaction that was aborted: not applied.
    Aborted,
    /// In a metadata transaction still open where the log ends: not applied.
    Open,
}

/// What changed.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A `TopicRecord`.
    TopicCreated {
        /// Its name.
        topic: String,
        /// Its id.
        topic_id: String,
    },
    /// A `RemoveTopicRecord`.
    TopicDeleted {
        /// Its name.
        topic: String,
        /// Its id.
        topic_id: String,
        /// How many partitions it had.
        partitions: usize,
    },
    /// A `PartitionRecord`: a new partition, or one registered afresh.
    PartitionCreated {
        /// Its topic's name.
        topic: String,
        /// Its id.
        partition: i32,
        /// Its registration.
        now: PartitionImage,
        /// The registration it replaced, if any.
        previous: Option<PartitionImage>,
    },
    /// A `PartitionChangeRecord` or a `ClearElrRecord`.
    PartitionChanged {
        /// Its topic's name.
        topic: String,
        /// Its id.
        partition: i32,
        /// Its registration after the record.
        now: PartitionImage,
        /// Before it.
        previous: PartitionImage,
    },
    /// A `RegisterBrokerRecord`.
    BrokerRegistered {
        /// Node id.
        broker: i32,
        /// Its broker epoch.
        epoch: i64,
        /// Whether it registered fenced.
        fenced: bool,
        /// Its rack.
        rack: Option<String>,
        /// The epoch of the registration it replaced, if any.
        previous_epoch: Option<i64>,
    },
    /// A fencing or controlled-shutdown change of a registered broker
    /// (`FenceBrokerRecord`, `UnfenceBrokerRecord`,
    /// `BrokerRegistrationChangeRecord`).
    BrokerState {
        /// Node id.
        broker: i32,
        /// Its broker epoch.
        epoch: i64,
        /// Fenced after the record.
        fenced: bool,
        /// Before it.
        previous_fenced: bool,
        /// In controlled shutdown after the record.
        in_controlled_shutdown: bool,
        /// Before it.
        previous_in_controlled_shutdown: bool,
    },
    /// An `UnregisterBrokerRecord`.
    BrokerUnregistered {
        /// Node id.
        broker: i32,
        /// The epoch of the registration it ended, if it was registered.
        previous_epoch: Option<i64>,
    },
    /// A `LeaderChange` control record: a controller won an election.
    ControllerElected {
        /// The new leader (-1 for none).
        leader: i32,
        /// The leader of the previous `LeaderChange` replayed, if any.
        previous_leader: Option<i32>,
        /// The epoch it leads (its batch's partition leader epoch).
        epoch: i32,
        /// The voters that granted it their vote.
        granting_voters: Vec<i32>,
    },
    /// A `VotersRecord` (KIP-853) that changes the voter set.
    VotersChanged {
        /// The voter ids after it.
        voters: Vec<i32>,
        /// Before it (`None`: the static `controller.quorum.voters`).
        previous: Option<Vec<i32>>,
    },
    /// A `FeatureLevelRecord`, or a `KRaftVersionRecord` for `kraft.version`.
    FeatureChanged {
        /// Feature name.
        feature: String,
        /// Its level after (`None`: removed).
        level: Option<i16>,
        /// Before.
        previous: Option<i16>,
    },
    /// A `ConfigRecord`.
    ConfigChanged {
        /// Resource type (2 topic, 4 broker, 16 client metrics, 32 group).
        resource_type: i8,
        /// Resource name (a topic, a node id, empty for the cluster default).
        resource: String,
        /// Config name.
        name: String,
        /// The value after (`None`: deleted).
        value: Option<String>,
        /// Before.
        previous: Option<String>,
    },
    /// A `ClientQuotaRecord`.
    QuotaChanged {
        /// The entity.
        entity: QuotaEntity,
        /// Quota key.
        key: String,
        /// The value after (`None`: removed).
        value: Option<f64>,
        /// Before.
        previous: Option<f64>,
    },
    /// An `AccessControlEntryRecord` or `RemoveAccessControlEntryRecord`.
    AclChanged {
        /// The ACL's id.
        id: String,
        /// `resourceType resourceName patternType principal host operation permission`.
        acl: String,
        /// Added (else removed).
        added: bool,
    },
    /// A `ProducerIdsRecord`: a block of producer ids handed out.
    ProducerIds {
        /// The block after.
        now: ProducerIds,
        /// Before.
        previous: Option<ProducerIds>,
    },
}

impl Change {
    /// The event's kind as `--json` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::TopicCreated { .. } => "topicCreated",
            Self::TopicDeleted { .. } => "topicDeleted",
            Self::PartitionCreated { .. } => "partitionCreated",
            Self::PartitionChanged { .. } => "partitionChanged",
            Self::BrokerRegistered { .. } => "brokerRegistered",
            Self::BrokerState { fenced: true, .. } => "brokerFenced",
            Self::BrokerState { .. } => "brokerUnfenced",
            Self::BrokerUnregistered { .. } => "brokerUnregistered",
            Self::ControllerElected { .. } | Self::VotersChanged { .. } => "controllerChanged",
            Self::FeatureChanged { .. } => "featureChanged",
            Self::ConfigChanged { .. } => "configChanged",
            Self::QuotaChanged { .. } => "quotaChanged",
            Self::AclChanged { .. } => "aclChanged",
            Self::ProducerIds { .. } => "producerIds",
        }
    }

    /// The topic it is about, if any.
    pub fn topic(&self) -> Option<&str> {
        match self {
            Self::TopicCreated { topic, .. }
            | Self::TopicDeleted { topic, .. }
            | Self::PartitionCreated { topic, .. }
            | Self::PartitionChanged { topic, .. } => Some(topic),
            Self::ConfigChanged {
                resource_type: 2,
                resource,
                ..
            } => Some(resource),
            _ => None,
        }
    }

    /// The partition it is about, if any.
    pub fn partition(&self) -> Option<i32> {
        match self {
            Self::PartitionCreated { partition, .. } | Self::PartitionChanged { partition, .. } => {
                Some(*partition)
            }
            _ => None,
        }
    }

    /// Whether it names broker `id`: its registration or state, a
    /// partition it leads, follows or is a replica of (before or after), a
    /// config of it, a producer-id block it got.
    pub fn names_broker(&self, id: i32) -> bool {
        let in_partition =
            |p: &PartitionImage| p.leader == id || p.isr.contains(&id) || p.replicas.contains(&id);
        match self {
            Self::BrokerRegistered { broker, .. }
            | Self::BrokerState { broker, .. }
            | Self::BrokerUnregistered { broker, .. } => *broker == id,
            Self::PartitionCreated { now, previous, .. } => {
                in_partition(now) || previous.as_ref().is_some_and(in_partition)
            }
            Self::PartitionChanged { now, previous, .. } => {
                in_partition(now) || in_partition(previous)
            }
            Self::ConfigChanged {
                resource_type: 4,
                resource,
                ..
            } => resource.parse() == Ok(id),
            Self::ProducerIds { now, .. } => now.broker_id == id,
            _ => false,
        }
    }
}

/// One event: where, when, what, and whether it is in the image.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The record's offset in the metadata log.
    pub offset: i64,
    /// Its batch's append time (epoch ms).
    pub timestamp: i64,
    /// What changed.
    pub change: Change,
    /// Whether it is applied.
    pub status: Status,
}
