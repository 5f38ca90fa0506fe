//! A `__cluster_metadata` record as the replay takes it: its record type
//! (the schema's `apiKey`, which `MetadataDelta.replay` dispatches by) and
//! name, and its fields read in place from a reused [`Tree`], so the
//! replay builds no `serde_json::Value` per record.

use crate::schema::InternalTopic;
use crate::schema::registry::registry;
use crate::schema::topics::framed_parts;
use crate::schema::tree::{Node, Tree};

/// Record types (`apiKey`s of `metadata/*.json`) the replay dispatches on.
pub mod types {
    /// `RegisterBrokerRecord`.
    pub const REGISTER_BROKER: i16 = 0;
    /// `UnregisterBrokerRecord`.
    pub const UNREGISTER_BROKER: i16 = 1;
    /// `TopicRecord`.
    pub const TOPIC: i16 = 2;
    /// `PartitionRecord`.
    pub const PARTITION: i16 = 3;
    /// `ConfigRecord`.
    pub const CONFIG: i16 = 4;
    /// `PartitionChangeRecord`.
    pub const PARTITION_CHANGE: i16 = 5;
    /// `FenceBrokerRecord`.
    pub const FENCE_BROKER: i16 = 7;
    /// `UnfenceBrokerRecord`.
    pub const UNFENCE_BROKER: i16 = 8;
    /// `RemoveTopicRecord`.
    pub const REMOVE_TOPIC: i16 = 9;
    /// `FeatureLevelRecord`.
    pub const FEATURE_LEVEL: i16 = 12;
    /// `ClientQuotaRecord`.
    pub const CLIENT_QUOTA: i16 = 14;
    /// `ProducerIdsRecord`.
    pub const PRODUCER_IDS: i16 = 15;
    /// `BrokerRegistrationChangeRecord`.
    pub const BROKER_REGISTRATION_CHANGE: i16 = 17;
    /// `AccessControlEntryRecord`.
    pub const ACCESS_CONTROL_ENTRY: i16 = 18;
    /// `RemoveAccessControlEntryRecord`.
    pub const REMOVE_ACCESS_CONTROL_ENTRY: i16 = 19;
    /// `BeginTransactionRecord`.
    pub const BEGIN_TRANSACTION: i16 = 23;
    /// `EndTransactionRecord`.
    pub const END_TRANSACTION: i16 = 24;
    /// `AbortTransactionRecord`.
    pub const ABORT_TRANSACTION: i16 = 25;
    /// `RegisterControllerRecord`.
    pub const REGISTER_CONTROLLER: i16 = 27;
    /// `ClearElrRecord`.
    pub const CLEAR_ELR: i16 = 28;
}

/// One decoded metadata record.
#[derive(Debug, Clone, Copy)]
pub struct MetadataRecord<'t> {
    /// Its record type ([`types`]).
    pub api_key: i16,
    /// The type's name, as Kafka's `MetadataRecordType` has it
    /// (`PARTITION_CHANGE_RECORD`).
    pub kind: &'static str,
    /// Its fields (the decoder's `data` object).
    pub data: Node<'t>,
}

/// Decodes a metadata record's value into `tree` (emptied first), or says
/// why it does not decode, in the words `kseg dump` uses.
pub fn decode<'t>(value: Option<&[u8]>, tree: &'t mut Tree) -> Result<MetadataRecord<'t>, String> {
    let registry = registry()?;
    let value = value.ok_or("the record has no value")?;
    tree.clear();
    let folder = InternalTopic::ClusterMetadata.schema_folder();
    let framed = framed_parts(registry, folder, value, tree).map_err(|e| format!("value {e}"))?;
    Ok(MetadataRecord {
        api_key: framed.api_key,
        kind: framed.type_name,
        data: tree.node(framed.data),
    })
}

/// Test support: records made from JSON, as the decoder would give them.
#[cfg(test)]
pub mod testing {
    use serde_json::Value;

    use super::MetadataRecord;
    use crate::schema::emit::Emitter;
    use crate::schema::registry::registry;
    use crate::schema::tree::Tree;

    /// A tree holding `value` (`{"type", "data"}`, as `kseg dump` prints a
    /// metadata record), and its position there.
    pub fn tree_of(value: &Value) -> (Tree, u32) {
        let mut tree = Tree::default();
        let piece = tree.value(value);
        (tree, piece)
    }

    /// The record `tree_of` put at `piece`.
    pub fn record(tree: &Tree, piece: u32) -> MetadataRecord<'_> {
        let node = tree.node(piece);
        let kind = node.get("type").and_then(|t| t.as_str()).unwrap_or("?");
        let registry = registry().expect("schemas");
        let (api_key, kind) = (0..64)
            .find_map(|k| {
                let (_, name) = registry.record_type("metadata", k)?;
                (name == kind).then_some((k, name))
            })
            .expect("a known record type");
        MetadataRecord {
            api_key,
            kind,
            data: node.get("data").unwrap_or(node),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every record type the replay names is the schema's of that name.
    #[test]
    fn record_types_are_the_schemas_api_keys() {
        use types::*;
        let registry = registry().unwrap();
        for (key, name) in [
            (REGISTER_BROKER, "REGISTER_BROKER_RECORD"),
            (UNREGISTER_BROKER, "UNREGISTER_BROKER_RECORD"),
            (TOPIC, "TOPIC_RECORD"),
            (PARTITION, "PARTITION_RECORD"),
            (CONFIG, "CONFIG_RECORD"),
            (PARTITION_CHANGE, "PARTITION_CHANGE_RECORD"),
            (FENCE_BROKER, "FENCE_BROKER_RECORD"),
            (UNFENCE_BROKER, "UNFENCE_BROKER_RECORD"),
            (REMOVE_TOPIC, "REMOVE_TOPIC_RECORD"),
            (FEATURE_LEVEL, "FEATURE_LEVEL_RECORD"),
            (CLIENT_QUOTA, "CLIENT_QUOTA_RECORD"),
            (PRODUCER_IDS, "PRODUCER_IDS_RECORD"),
            (
                BROKER_REGISTRATION_CHANGE,
                "BROKER_REGISTRATION_CHANGE_RECORD",
            ),
            (ACCESS_CONTROL_ENTRY, "ACCESS_CONTROL_ENTRY_RECORD"),
            (
                REMOVE_ACCESS_CONTROL_ENTRY,
                "REMOVE_ACCESS_CONTROL_ENTRY_RECORD",
            ),
            (BEGIN_TRANSACTION, "BEGIN_TRANSACTION_RECORD"),
            (END_TRANSACTION, "END_TRANSACTION_RECORD"),
            (ABORT_TRANSACTION, "ABORT_TRANSACTION_RECORD"),
            (REGISTER_CONTROLLER, "REGISTER_CONTROLLER_RECORD"),
            (CLEAR_ELR, "CLEAR_ELR_RECORD"),
        ] {
            assert_eq!(registry.record_type("metadata", key).unwrap().1, name);
        }
    }

    /// A record decodes in place; one that does not says why as `dump` does.
    #[test]
    fn records_decode_into_the_tree() {
        let mut tree = Tree::default();
        // A FeatureLevelRecord v0: "metadata.version" at level 21.
        let mut value = vec![1, 12, 0, 17];
        value.extend_from_slice(b"metadata.version");
        value.extend_from_slice(&[0, 21, 0]);
        let r = decode(Some(&value), &mut tree).unwrap();
        assert_eq!((r.api_key, r.kind), (12, "FEATURE_LEVEL_RECORD"));
        assert_eq!(r.data.get("featureLevel").unwrap().as_i64(), Some(21));
        assert_eq!(
            decode(None, &mut tree).unwrap_err(),
            "the record has no value"
        );
        assert_eq!(
            decode(Some(&[2]), &mut tree).unwrap_err(),
            "value at byte 0: unknown frame version 2 (only 1 is supported)"
        );
    }
}
