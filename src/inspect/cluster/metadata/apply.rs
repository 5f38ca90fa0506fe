//! One metadata record applied to the image, as `MetadataDelta.replay`
//! dispatches it by record type (Kafka: `metadata/src/main/java/org/apache/kafka/image/`
//! `TopicsDelta`, `ClusterDelta`, `FeaturesDelta`, `ConfigurationsDelta`,
//! `ClientQuotasDelta`, `AclsDelta`, `ProducerIdsDelta`). The record's
//! fields are the decoder's `data` object, read in place; a record Kafka's
//! delta would refuse (a change to a broker that is not registered, an
//! unknown fencing value) is refused here with the reason and leaves the
//! image as it was.

use super::configs::{ConfigValue, SetBy};
use super::image::{
    BrokerImage, ControllerImage, Endpoint, MetadataImage, ProducerIds, QuotaEntity,
    SupportedFeature,
};
use super::record::{MetadataRecord, types};
use super::topics::{PartitionImage, TopicImage};
use crate::schema::tree::Node;

/// Why a record was not applied.
pub type Refused = String;

fn int(data: Node<'_>, name: &str) -> Option<i64> {
    data.get(name).and_then(Node::as_i64)
}

fn req_int(data: Node<'_>, name: &str) -> Result<i64, Refused> {
    int(data, name).ok_or_else(|| format!("no integer field {name}"))
}

fn str_of<'t>(data: Node<'t>, name: &str) -> Option<&'t str> {
    data.get(name).and_then(Node::as_str)
}

fn req_str<'t>(data: Node<'t>, name: &str) -> Result<&'t str, Refused> {
    str_of(data, name).ok_or_else(|| format!("no string field {name}"))
}

fn text(data: Node<'_>, name: &str) -> Option<String> {
    str_of(data, name).map(str::to_string)
}

fn req_text(data: Node<'_>, name: &str) -> Result<String, Refused> {
    req_str(data, name).map(str::to_string)
}

fn flag(data: Node<'_>, name: &str) -> Option<bool> {
    data.get(name).and_then(Node::as_bool)
}

/// An `[]int32` field; `None` when absent or null (a tagged field left at
/// its null default: "did not change").
fn ints(data: Node<'_>, name: &str) -> Option<Vec<i32>> {
    data.get(name)?
        .as_array()
        .map(|a| a.filter_map(Node::as_i64).map(|v| v as i32).collect())
}

fn texts(data: Node<'_>, name: &str) -> Option<Vec<String>> {
    data.get(name)?
        .as_array()
        .map(|a| a.filter_map(Node::as_str).map(str::to_string).collect())
}

/// The elements of an array field (none when absent or null).
fn elements<'t>(data: Node<'t>, name: &str) -> impl Iterator<Item = Node<'t>> {
    data.get(name)
        .and_then(Node::as_array)
        .into_iter()
        .flatten()
}

fn supported_features(data: Node<'_>) -> Vec<SupportedFeature> {
    elements(data, "features")
        .map(|f| SupportedFeature {
            name: text(f, "name").unwrap_or_default(),
            min: int(f, "minSupportedVersion").unwrap_or(0) as i16,
            max: int(f, "maxSupportedVersion").unwrap_or(0) as i16,
        })
        .collect()
}

fn endpoints(data: Node<'_>) -> Vec<Endpoint> {
    elements(data, "endPoints")
        .map(|e| Endpoint {
            name: text(e, "name").unwrap_or_default(),
            host: text(e, "host").unwrap_or_default(),
            port: int(e, "port").unwrap_or(-1),
            security_protocol: int(e, "securityProtocol").unwrap_or(-1),
        })
        .collect()
}

/// Applies `record` to `image`; `set_by` says where a config it sets was set.
pub fn apply(
    image: &mut MetadataImage,
    record: MetadataRecord<'_>,
    set_by: SetBy,
) -> Result<(), Refused> {
    let data = record.data;
    match record.api_key {
        types::TOPIC => topic(image, data),
        types::PARTITION => partition(image, data),
        types::PARTITION_CHANGE => partition_change(image, data),
        types::REMOVE_TOPIC => remove_topic(image, data),
        types::CLEAR_ELR => clear_elr(image, data),
        types::REGISTER_BROKER => register_broker(image, data),
        types::UNREGISTER_BROKER => {
            image.brokers.remove(&(req_int(data, "brokerId")? as i32));
            Ok(())
        }
        types::FENCE_BROKER => change_broker(image, data, "id", "epoch", Some(true), None),
        types::UNFENCE_BROKER => change_broker(image, data, "id", "epoch", Some(false), None),
        types::BROKER_REGISTRATION_CHANGE => registration_change(image, data),
        types::REGISTER_CONTROLLER => register_controller(image, data),
        types::FEATURE_LEVEL => feature(image, data),
        types::CONFIG => config(image, data, set_by),
        types::CLIENT_QUOTA => client_quota(image, data),
        types::ACCESS_CONTROL_ENTRY => acl(image, data),
        types::REMOVE_ACCESS_CONTROL_ENTRY => remove_acl(image, data),
        types::PRODUCER_IDS => {
            image.producer_ids = Some(ProducerIds {
                next_producer_id: req_int(data, "nextProducerId")?,
                broker_id: int(data, "brokerId").unwrap_or(-1) as i32,
                broker_epoch: int(data, "brokerEpoch").unwrap_or(-1),
            });
            Ok(())
        }
        // Records of state the image keeps but kseg does not show (SCRAM
        // credentials, delegation tokens, the ZK migration state) or that
        // change nothing (NoOpRecord).
        _ => Ok(()),
    }
}

fn topic(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let id = req_text(data, "topicId")?;
    let name = req_text(data, "name")?;
    // A TopicRecord starts the topic afresh (`TopicsDelta.replay(TopicRecord)`).
    image.topics.insert(TopicImage {
        name,
        id,
        partitions: Default::default(),
    });
    Ok(())
}

fn topic_mut<'i>(
    image: &'i mut MetadataImage,
    data: Node<'_>,
) -> Result<&'i mut TopicImage, Refused> {
    let id = req_str(data, "topicId")?;
    image
        .topics
        .get_mut(id)
        .ok_or_else(|| format!("no topic with id {id}"))
}

fn partition(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let id = req_int(data, "partitionId")? as i32;
    let registration = PartitionImage {
        replicas: ints(data, "replicas").unwrap_or_default(),
        isr: ints(data, "isr").unwrap_or_default(),
        removing_replicas: ints(data, "removingReplicas").unwrap_or_default(),
        adding_replicas: ints(data, "addingReplicas").unwrap_or_default(),
        leader: req_int(data, "leader")? as i32,
        leader_recovery_state: int(data, "leaderRecoveryState").unwrap_or(0) as i8,
        leader_epoch: int(data, "leaderEpoch").unwrap_or(-1) as i32,
        partition_epoch: int(data, "partitionEpoch").unwrap_or(-1) as i32,
        directories: texts(data, "directories").unwrap_or_default(),
        eligible_leader_replicas: ints(data, "eligibleLeaderReplicas").unwrap_or_default(),
        last_known_elr: ints(data, "lastKnownElr").unwrap_or_default(),
    };
    topic_mut(image, data)?.partitions.insert(id, registration);
    Ok(())
}

/// `PartitionRegistration.merge`: each absent (null) field keeps its value;
/// a leader other than -2 is a new leader and bumps the leader epoch; the
/// partition epoch goes up by one at every change.
fn partition_change(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let id = req_int(data, "partitionId")? as i32;
    let topic = topic_mut(image, data)?;
    let Some(p) = topic.partitions.get_mut(id) else {
        return Err(format!("no partition {}-{id}", topic.name));
    };
    // Each list the record carries replaces the one there, in place.
    let keep = |field: &mut Vec<i32>, name: &str| {
        if let Some(items) = data.get(name).and_then(Node::as_array) {
            field.clear();
            field.extend(items.filter_map(Node::as_i64).map(|v| v as i32));
        }
    };
    keep(&mut p.replicas, "replicas");
    keep(&mut p.isr, "isr");
    keep(&mut p.removing_replicas, "removingReplicas");
    keep(&mut p.adding_replicas, "addingReplicas");
    keep(&mut p.eligible_leader_replicas, "eligibleLeaderReplicas");
    keep(&mut p.last_known_elr, "lastKnownElr");
    if let Some(dirs) = texts(data, "directories") {
        p.directories = dirs;
    }
    let leader = int(data, "leader").unwrap_or(-2);
    if leader != -2 {
        p.leader = leader as i32;
        // Java int arithmetic: an epoch at i32::MAX wraps, it does not stop the load.
        p.leader_epoch = p.leader_epoch.wrapping_add(1);
    }
    let recovery = int(data, "leaderRecoveryState").unwrap_or(-1);
    if recovery != -1 {
        p.leader_recovery_state = recovery as i8;
    }
    p.partition_epoch = p.partition_epoch.wrapping_add(1);
    Ok(())
}

/// KIP-966's `ClearElrRecord` (Kafka 4.0 on): the named topic's, or with
/// an empty name every topic's, partitions lose their eligible and last
/// known leader replicas; each partition that had either gets a new
/// partition epoch, as a `PartitionChangeRecord` setting both empty does
/// (`TopicsDelta.replay(ClearElrRecord)`, `TopicDelta.maybeClearElr`). A
/// name no topic has is refused, as Kafka's delta throws on it.
fn clear_elr(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let name = str_of(data, "topicName").unwrap_or_default();
    let mut found = false;
    for topic in image.topics.values_mut() {
        if !name.is_empty() && topic.name != name {
            continue;
        }
        found = true;
        for p in topic.partitions.values_mut() {
            if !p.eligible_leader_replicas.is_empty() || !p.last_known_elr.is_empty() {
                p.eligible_leader_replicas.clear();
                p.last_known_elr.clear();
                p.partition_epoch = p.partition_epoch.wrapping_add(1);
            }
        }
    }
    if name.is_empty() || found {
        Ok(())
    } else {
        Err(format!("no topic named {name} to clear the ELR of"))
    }
}

/// The topic goes, and with it its configs (`ConfigurationsDelta.replay(RemoveTopicRecord, …)`).
fn remove_topic(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let id = req_str(data, "topicId")?;
    let topic = image
        .topics
        .remove(id)
        .ok_or_else(|| format!("no topic with id {id} to remove"))?;
    image.configs.topics.remove(&topic.name);
    Ok(())
}

fn register_broker(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let id = req_int(data, "brokerId")? as i32;
    let broker = BrokerImage {
        id,
        epoch: req_int(data, "brokerEpoch")?,
        incarnation_id: text(data, "incarnationId").unwrap_or_default(),
        fenced: flag(data, "fenced").unwrap_or(true),
        in_controlled_shutdown: flag(data, "inControlledShutdown").unwrap_or(false),
        rack: text(data, "rack"),
        endpoints: endpoints(data),
        log_dirs: texts(data, "logDirs").unwrap_or_default(),
        is_migrating_zk_broker: flag(data, "isMigratingZkBroker").unwrap_or(false),
        features: supported_features(data),
    };
    image.brokers.insert(id, broker);
    Ok(())
}

/// A change to a registered broker whose epoch matches
/// (`ClusterDelta.getBrokerOrThrow`).
fn change_broker(
    image: &mut MetadataImage,
    data: Node<'_>,
    id_field: &str,
    epoch_field: &str,
    fenced: Option<bool>,
    in_controlled_shutdown: Option<bool>,
) -> Result<(), Refused> {
    let id = req_int(data, id_field)? as i32;
    let epoch = req_int(data, epoch_field)?;
    let broker = image
        .brokers
        .get_mut(&id)
        .ok_or_else(|| format!("broker {id} is not registered"))?;
    if broker.epoch != epoch {
        return Err(format!(
            "epoch {epoch} is not broker {id}'s current epoch {}",
            broker.epoch
        ));
    }
    if let Some(f) = fenced {
        broker.fenced = f;
    }
    if let Some(s) = in_controlled_shutdown {
        broker.in_controlled_shutdown = s;
    }
    Ok(())
}

/// `fenced`: -1 unfence, 0 no change, 1 fence (`BrokerRegistrationFencingChange`);
/// `inControlledShutdown`: 0 no change, 1 in controlled shutdown
/// (`BrokerRegistrationInControlledShutdownChange`); `logDirs`, when not
/// empty, replaces the broker's directories.
fn registration_change(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let fenced = match int(data, "fenced").unwrap_or(0) {
        -1 => Some(false),
        0 => None,
        1 => Some(true),
        other => return Err(format!("unknown value {other} of the fenced field")),
    };
    let shutdown = match int(data, "inControlledShutdown").unwrap_or(0) {
        0 => None,
        1 => Some(true),
        other => return Err(format!("unknown value {other} of inControlledShutdown")),
    };
    change_broker(image, data, "brokerId", "brokerEpoch", fenced, shutdown)?;
    if let Some(dirs) = texts(data, "logDirs").filter(|d| !d.is_empty()) {
        let id = req_int(data, "brokerId")? as i32;
        if let Some(b) = image.brokers.get_mut(&id) {
            b.log_dirs = dirs;
        }
    }
    Ok(())
}

fn register_controller(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let id = req_int(data, "controllerId")? as i32;
    image.controllers.insert(
        id,
        ControllerImage {
            id,
            incarnation_id: text(data, "incarnationId").unwrap_or_default(),
            zk_migration_ready: flag(data, "zkMigrationReady").unwrap_or(false),
            endpoints: endpoints(data),
            features: supported_features(data),
        },
    );
    Ok(())
}

/// Level 0 removes a feature (`FeaturesDelta.replay`); `metadata.version`
/// is kept like the others here. A `kraft.version` record is skipped, as
/// Kafka 4.0 on skips it (KAFKA-18979, `FeaturesDelta.java:69-72`): that
/// level is KRaft's own, from its `KRaftVersionRecord` ([`super::quorum`]).
fn feature(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let name = req_text(data, "name")?;
    if name == "kraft.version" {
        return Ok(());
    }
    let level = req_int(data, "featureLevel")? as i16;
    if level == 0 && name != "metadata.version" {
        image.features.remove(&name);
    } else {
        image.features.insert(name, level);
    }
    Ok(())
}

/// Resource type 2 is a topic, 4 a broker (an empty name: the cluster
/// default); a null value deletes the config (`ConfigurationDelta.replay`).
fn config(image: &mut MetadataImage, data: Node<'_>, set_by: SetBy) -> Result<(), Refused> {
    let resource_type = req_int(data, "resourceType")? as i8;
    let resource = req_text(data, "resourceName")?;
    let name = req_text(data, "name")?;
    let value = text(data, "value");
    let configs = &mut image.configs;
    let map = match (resource_type, resource.as_str()) {
        (2, _) => configs.topics.entry(resource.clone()).or_default(),
        (4, "") => &mut configs.cluster_default,
        (4, _) => configs.brokers.entry(resource.clone()).or_default(),
        (other, _) => image
            .other_configs
            .entry((other, resource.clone()))
            .or_default(),
    };
    match value {
        Some(value) => {
            map.insert(name, ConfigValue { value, set_by });
        }
        None => {
            map.remove(&name);
        }
    }
    // A resource left with no config is gone from the image.
    if map.is_empty() {
        match (resource_type, resource.as_str()) {
            (2, _) => drop(configs.topics.remove(&resource)),
            (4, "") => {}
            (4, _) => drop(configs.brokers.remove(&resource)),
            (other, _) => drop(image.other_configs.remove(&(other, resource))),
        }
    }
    Ok(())
}

/// The entity a `ClientQuotaRecord` names: its `(entityType, entityName)` pairs.
pub fn quota_entity(data: Node<'_>) -> QuotaEntity {
    elements(data, "entity")
        .map(|e| {
            (
                text(e, "entityType").unwrap_or_default(),
                text(e, "entityName"),
            )
        })
        .collect()
}

fn client_quota(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let entity = quota_entity(data);
    let key = req_text(data, "key")?;
    let remove = flag(data, "remove").unwrap_or(false);
    if remove {
        if let Some(quotas) = image.client_quotas.get_mut(&entity) {
            quotas.remove(&key);
            if quotas.is_empty() {
                image.client_quotas.remove(&entity);
            }
        }
    } else {
        let value = data
            .get("value")
            .and_then(Node::as_f64)
            .ok_or("no number field value")?;
        image
            .client_quotas
            .entry(entity)
            .or_default()
            .insert(key, value);
    }
    Ok(())
}

fn acl(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let id = req_text(data, "id")?;
    let describe = [
        "resourceType",
        "resourceName",
        "patternType",
        "principal",
        "host",
        "operation",
        "permissionType",
    ]
    .map(|f| match data.get(f) {
        Some(v) => match v.as_str() {
            Some(s) => s.to_string(),
            None => v.to_value().to_string(),
        },
        None => String::new(),
    })
    .join(" ");
    image.acls.insert(id, describe);
    Ok(())
}

/// Removing an ACL the image does not hold is refused (`AclsDelta.replay`).
fn remove_acl(image: &mut MetadataImage, data: Node<'_>) -> Result<(), Refused> {
    let id = req_text(data, "id")?;
    image
        .acls
        .remove(&id)
        .map(drop)
        .ok_or_else(|| format!("no ACL with id {id} to remove"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::inspect::cluster::metadata::record::testing::{record, tree_of};

    fn run(records: &[(&str, Value)]) -> (MetadataImage, Vec<Refused>) {
        let mut image = MetadataImage::default();
        let mut refused = Vec::new();
        for (offset, (kind, data)) in records.iter().enumerate() {
            let at = SetBy::Log {
                offset: offset as i64,
            };
            let (tree, piece) = tree_of(&json!({"type": kind, "data": data}));
            if let Err(e) = apply(&mut image, record(&tree, piece), at) {
                refused.push(e);
            }
        }
        (image, refused)
    }

    fn partition(topic: &str, id: i32, elr: &[i32], last_known: &[i32]) -> (&'static str, Value) {
        (
            "PARTITION_RECORD",
            json!({"topicId": topic, "partitionId": id, "replicas": [1, 2, 3],
            "isr": [1], "leader": 1, "leaderEpoch": 4, "partitionEpoch": 7,
            "eligibleLeaderReplicas": elr, "lastKnownElr": last_known}),
        )
    }

    /// A named ClearElrRecord empties that topic's ELR and last known ELR
    /// and bumps the epoch of the partitions that had one; a partition with
    /// neither keeps its epoch; another topic is untouched; an empty name
    /// clears every topic; an unknown name is refused.
    #[test]
    fn clear_elr_clears_the_named_topic_or_all() {
        let (image, refused) = run(&[
            ("TOPIC_RECORD", json!({"topicId": "A", "name": "a"})),
            ("TOPIC_RECORD", json!({"topicId": "B", "name": "b"})),
            partition("A", 0, &[2, 3], &[]),
            partition("A", 1, &[], &[3]),
            partition("A", 2, &[], &[]),
            partition("B", 0, &[2], &[3]),
            ("CLEAR_ELR_RECORD", json!({"topicName": "a"})),
            ("CLEAR_ELR_RECORD", json!({"topicName": "c"})),
        ]);
        let a = &image.topics.get("A").unwrap().partitions;
        assert!(
            a.values()
                .all(|p| p.eligible_leader_replicas.is_empty() && p.last_known_elr.is_empty())
        );
        let epochs: Vec<i32> = a.values().map(|p| p.partition_epoch).collect();
        assert_eq!(epochs, [8, 8, 7]);
        assert_eq!(a.get(0).unwrap().leader_epoch, 4);
        let b = &image.topics.get("B").unwrap().partitions.get(0).unwrap();
        assert_eq!(
            (b.eligible_leader_replicas.as_slice(), b.partition_epoch),
            (&[2][..], 7)
        );
        assert_eq!(refused, ["no topic named c to clear the ELR of"]);

        let (image, refused) = run(&[
            ("TOPIC_RECORD", json!({"topicId": "B", "name": "b"})),
            partition("B", 0, &[2], &[3]),
            ("CLEAR_ELR_RECORD", json!({"topicName": ""})),
        ]);
        let b = &image.topics.get("B").unwrap().partitions.get(0).unwrap();
        assert!(b.eligible_leader_replicas.is_empty() && b.last_known_elr.is_empty());
        assert_eq!(b.partition_epoch, 8);
        assert!(refused.is_empty());
    }

    /// A PartitionChangeRecord sets the ELR fields it carries and keeps
    /// those it leaves null.
    #[test]
    fn partition_change_sets_elr_fields_it_carries() {
        let (image, _) = run(&[
            ("TOPIC_RECORD", json!({"topicId": "A", "name": "a"})),
            partition("A", 0, &[2], &[3]),
            (
                "PARTITION_CHANGE_RECORD",
                json!({"topicId": "A", "partitionId": 0, "leader": -2,
                "eligibleLeaderReplicas": [2, 3], "lastKnownElr": null}),
            ),
        ]);
        let p = &image.topics.get("A").unwrap().partitions.get(0).unwrap();
        assert_eq!(p.eligible_leader_replicas, [2, 3]);
        assert_eq!(p.last_known_elr, [3]);
        assert_eq!((p.leader_epoch, p.partition_epoch), (4, 8));
    }

    /// A FeatureLevelRecord for kraft.version changes nothing (Kafka 4.0
    /// on); level 0 removes another feature.
    #[test]
    fn kraft_version_feature_records_are_skipped() {
        let (image, _) = run(&[
            (
                "FEATURE_LEVEL_RECORD",
                json!({"name": "kraft.version", "featureLevel": 1}),
            ),
            (
                "FEATURE_LEVEL_RECORD",
                json!({"name": "group.version", "featureLevel": 1}),
            ),
            (
                "FEATURE_LEVEL_RECORD",
                json!({"name": "metadata.version", "featureLevel": 21}),
            ),
            (
                "FEATURE_LEVEL_RECORD",
                json!({"name": "group.version", "featureLevel": 0}),
            ),
        ]);
        assert_eq!(
            image.features.into_iter().collect::<Vec<_>>(),
            [("metadata.version".to_string(), 21)]
        );
    }
}
