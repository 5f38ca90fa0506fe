//! The configs the broker's own code gives its internal topics, which hold
//! even when no metadata log says so.
//!
//! Facts from Kafka 1eb7644:
//! - `__consumer_offsets` is created with cleanup.policy=compact,
//!   compression.type=producer and segment.bytes from
//!   `offsets.topic.segment.bytes` (default 100 MiB)
//!   (group-coordinator/.../GroupCoordinatorService.java:1169-1175;
//!   the old coordinator: core/.../group/GroupCoordinator.scala:94-101;
//!   GroupCoordinatorConfig.java:190-191), through
//!   `AutoTopicCreationManager.creatableTopic` (core/.../server/AutoTopicCreationManager.scala:235-249).
//! - `__transaction_state` is created with unclean.leader.election.enable=false,
//!   compression.type=uncompressed, cleanup.policy=compact,
//!   min.insync.replicas from `transaction.state.log.min.isr` (2) and
//!   segment.bytes from `transaction.state.log.segment.bytes` (100 MiB)
//!   (core/.../transaction/TransactionStateManager.scala:403-414;
//!   transaction-coordinator/.../TransactionLogConfig.java:35-45).
//! - `__share_group_state` is created with cleanup.policy=delete (KIP-932),
//!   compression.type=producer and segment.bytes from
//!   `share.coordinator.state.topic.segment.bytes` (100 MiB)
//!   (share-coordinator/.../ShareCoordinatorService.java:207-213;
//!   server/.../config/ShareCoordinatorConfig.java:46-47), when the broker
//!   runs a share coordinator (AutoTopicCreationManager.scala:250-259).
//! - `__cluster_metadata` gets its `LogConfig` from `KafkaMetadataLog.apply`
//!   alone, not from the broker's log configs: max.message.bytes 8 MiB,
//!   segment.bytes from `metadata.log.segment.bytes` (1 GiB), segment.ms
//!   from `metadata.log.segment.ms` (7 days), file.delete.delay.ms 60000,
//!   retention.ms and retention.bytes -1 (core/.../raft/KafkaMetadataLog.scala:565-575,
//!   core/.../MetadataLogConfig.scala:35-46, server/.../KRaftConfigs.java:140-144,
//!   raft/.../KafkaRaftClient.java:166). Its segments go only below a
//!   snapshot, by `metadata.max.retention.bytes` (100 MiB) and
//!   `metadata.max.retention.ms` (7 days): see
//!   [`crate::inspect::retention::metadata_log`].

use std::collections::BTreeMap;

use super::source::{ConfigSource, Resolved};

/// Kafka's internal topics with their own config rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InternalTopic {
    /// `__consumer_offsets`.
    ConsumerOffsets,
    /// `__transaction_state`.
    TransactionState,
    /// `__share_group_state`.
    ShareGroupState,
    /// `__cluster_metadata`.
    ClusterMetadata,
}

impl InternalTopic {
    /// The internal topic named `topic`.
    pub fn of(topic: &str) -> Option<Self> {
        match topic {
            "__consumer_offsets" => Some(Self::ConsumerOffsets),
            "__transaction_state" => Some(Self::TransactionState),
            "__share_group_state" => Some(Self::ShareGroupState),
            "__cluster_metadata" => Some(Self::ClusterMetadata),
            _ => None,
        }
    }

    /// Whether broker configs reach this topic (not `__cluster_metadata`,
    /// whose `LogConfig` is built from its own settings alone).
    pub fn takes_broker_configs(self) -> bool {
        self != Self::ClusterMetadata
    }
}

/// A value fixed by the broker's code.
fn fixed(value: &str, rule: String) -> Resolved {
    Resolved {
        rule: Some(rule),
        ..Resolved::new(value, ConfigSource::InternalTopicRule)
    }
}

/// A value the broker's code takes from broker config `name`: the static
/// config when it sets it, else `default`.
pub fn from_broker_config(
    name: &str,
    default: &str,
    static_props: Option<&BTreeMap<String, String>>,
    what: &str,
) -> Resolved {
    let (value, whence) = match static_props.and_then(|p| p.get(name)) {
        Some(v) => (v.trim().to_string(), "as server.properties sets it"),
        None => (default.to_string(), "its default"),
    };
    Resolved {
        synonym: Some(name.to_string()),
        rule: Some(format!("{what} from {name}, {whence}")),
        ..Resolved::new(value, ConfigSource::InternalTopicRule)
    }
}

/// The topic configs the broker's code sets for `topic`, by name.
pub fn rules(
    topic: InternalTopic,
    static_props: Option<&BTreeMap<String, String>>,
) -> BTreeMap<&'static str, Resolved> {
    let mut out = BTreeMap::new();
    match topic {
        InternalTopic::ConsumerOffsets => {
            let who = "the group coordinator creates __consumer_offsets with it";
            out.insert("cleanup.policy", fixed("compact", who.into()));
            out.insert("compression.type", fixed("producer", who.into()));
            out.insert(
                "segment.bytes",
                from_broker_config(
                    "offsets.topic.segment.bytes",
                    "104857600",
                    static_props,
                    who,
                ),
            );
        }
        InternalTopic::TransactionState => {
            let who = "the transaction coordinator creates __transaction_state with it";
            out.insert("cleanup.policy", fixed("compact", who.into()));
            out.insert("compression.type", fixed("uncompressed", who.into()));
            out.insert("unclean.leader.election.enable", fixed("false", who.into()));
            out.insert(
                "min.insync.replicas",
                from_broker_config("transaction.state.log.min.isr", "2", static_props, who),
            );
            out.insert(
                "segment.bytes",
                from_broker_config(
                    "transaction.state.log.segment.bytes",
                    "104857600",
                    static_props,
                    who,
                ),
            );
        }
        InternalTopic::ShareGroupState => {
            let who = "the share coordinator creates __share_group_state with it";
            out.insert("cleanup.policy", fixed("delete", who.into()));
            out.insert("compression.type", fixed("producer", who.into()));
            out.insert(
                "segment.bytes",
                from_broker_config(
                    "share.coordinator.state.topic.segment.bytes",
                    "104857600",
                    static_props,
                    who,
                ),
            );
        }
        InternalTopic::ClusterMetadata => {
            let who = "KafkaMetadataLog sets it";
            let off = "KafkaMetadataLog sets it: the metadata log is deleted only below a snapshot, by metadata.max.retention.bytes and metadata.max.retention.ms";
            out.insert("retention.ms", fixed("-1", off.into()));
            out.insert("retention.bytes", fixed("-1", off.into()));
            out.insert("max.message.bytes", fixed("8388608", who.into()));
            out.insert("file.delete.delay.ms", fixed("60000", who.into()));
            out.insert(
                "segment.bytes",
                from_broker_config(
                    "metadata.log.segment.bytes",
                    "1073741824",
                    static_props,
                    who,
                ),
            );
            out.insert(
                "segment.ms",
                from_broker_config("metadata.log.segment.ms", "604800000", static_props, who),
            );
        }
    }
    out
}

/// `metadata.max.retention.bytes` and `metadata.max.retention.ms`: the
/// static config's values, else Kafka's defaults (100 MiB, 7 days).
pub fn metadata_retention(static_props: Option<&BTreeMap<String, String>>) -> (Resolved, Resolved) {
    let one = |name: &str, default: &str| {
        let mut r = match static_props.and_then(|p| p.get(name)) {
            Some(v) => Resolved::new(v.trim(), ConfigSource::StaticBroker),
            None => Resolved::new(default, ConfigSource::Default),
        };
        r.synonym = Some(name.to_string());
        r
    };
    (
        one("metadata.max.retention.bytes", "104857600"),
        one("metadata.max.retention.ms", "604800000"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinators_topics_are_compacted_with_their_own_segment_size() {
        let r = rules(InternalTopic::ConsumerOffsets, None);
        assert_eq!(r["cleanup.policy"].value, "compact");
        assert_eq!(r["segment.bytes"].value, "104857600");
        assert_eq!(r["segment.bytes"].source, ConfigSource::InternalTopicRule);
        let props: BTreeMap<String, String> = [(
            "transaction.state.log.segment.bytes".to_string(),
            "5000".to_string(),
        )]
        .into();
        let t = rules(InternalTopic::TransactionState, Some(&props));
        assert_eq!(t["segment.bytes"].value, "5000");
        assert_eq!(t["compression.type"].value, "uncompressed");
        assert!(
            t["segment.bytes"]
                .describe()
                .contains("as server.properties sets it")
        );
    }

    #[test]
    fn the_metadata_log_has_no_time_or_size_retention() {
        let r = rules(InternalTopic::ClusterMetadata, None);
        assert_eq!(r["retention.ms"].value, "-1");
        assert_eq!(r["retention.bytes"].value, "-1");
        assert!(!InternalTopic::ClusterMetadata.takes_broker_configs());
        let (bytes, ms) = metadata_retention(None);
        assert_eq!(
            (bytes.value.as_str(), ms.value.as_str()),
            ("104857600", "604800000")
        );
        assert_eq!(bytes.source, ConfigSource::Default);
    }
}
