//! One metadata record applied to the image, as `MetadataDelta.replay`
//! dispatches it (Kafka: `metadata/src/main/java/org/apache/kafka/image/`
//! `TopicsDelta`, `ClusterDelta`, `FeaturesDelta`, `ConfigurationsDelta`,
//! `ClientQuotasDelta`, `AclsDelta`, `ProducerIdsDelta`). The record is the
//! decoder's `data` object, named by its `type` (`TOPIC_RECORD`, …); a
//! record Kafka's delta would refuse (a change to a broker that is not
//! registered, an unknown fencing value) is refused here with the reason
//! and leaves the image as it was.

use serde_json::Value;

use super::configs::{ConfigValue, SetBy};
use super::image::{
    BrokerImage, ControllerImage, Endpoint, MetadataImage, PartitionImage, ProducerIds, TopicImage,
};

/// Why a record was not applied.
pub type Refused = String;

fn int(data: &Value, name: &str) -> Option<i64> {
    data.get(name).and_then(Value::as_i64)
}

fn req_int(data: &Value, name: &str) -> Result<i64, Refused> {
    int(data, name).ok_or_else(|| format!("no integer field {name}"))
}

fn text(data: &Value, name: &str) -> Option<String> {
    data.get(name).and_then(Value::as_str).map(str::to_string)
}

fn req_text(data: &Value, name: &str) -> Result<String, Refused> {
    text(data, name).ok_or_else(|| format!("no string field {name}"))
}

/// An `[]int32` field; `None` when absent or null (a tagged field left at
/// its null default: "did not change").
fn ints(data: &Value, name: &str) -> Option<Vec<i32>> {
    data.get(name)?.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_i64)
            .map(|v| v as i32)
            .collect()
    })
}

fn texts(data: &Value, name: &str) -> Option<Vec<String>> {
    data.get(name)?.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}

fn endpoints(data: &Value) -> Vec<Endpoint> {
    data.get("endPoints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|e| Endpoint {
            name: text(e, "name").unwrap_or_default(),
            host: text(e, "host").unwrap_or_default(),
            port: int(e, "port").unwrap_or(-1),
            security_protocol: int(e, "securityProtocol").unwrap_or(-1),
        })
        .collect()
}

/// Applies the record of `kind` with fields `data` to `image`; `set_by`
/// says where a config it sets was set.
pub fn apply(
    image: &mut MetadataImage,
    kind: &str,
    data: &Value,
    set_by: SetBy,
) -> Result<(), Refused> {
    match kind {
        "TOPIC_RECORD" => topic(image, data),
        "PARTITION_RECORD" => partition(image, data),
        "PARTITION_CHANGE_RECORD" => partition_change(image, data),
        "REMOVE_TOPIC_RECORD" => remove_topic(image, data),
        "REGISTER_BROKER_RECORD" => register_broker(image, data),
        "UNREGISTER_BROKER_RECORD" => {
            image.brokers.remove(&(req_int(data, "brokerId")? as i32));
            Ok(())
        }
        "FENCE_BROKER_RECORD" => change_broker(image, data, "id", "epoch", Some(true), None),
        "UNFENCE_BROKER_RECORD" => change_broker(image, data, "id", "epoch", Some(false), None),
        "BROKER_REGISTRATION_CHANGE_RECORD" => registration_change(image, data),
        "REGISTER_CONTROLLER_RECORD" => register_controller(image, data),
        "FEATURE_LEVEL_RECORD" => feature(image, data),
        "CONFIG_RECORD" => config(image, data, set_by),
        "CLIENT_QUOTA_RECORD" => client_quota(image, data),
        "ACCESS_CONTROL_ENTRY_RECORD" => acl(image, data),
        "REMOVE_ACCESS_CONTROL_ENTRY_RECORD" => remove_acl(image, data),
        "PRODUCER_IDS_RECORD" => {
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

fn topic(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
    let id = req_text(data, "topicId")?;
    let name = req_text(data, "name")?;
    // A TopicRecord starts the topic afresh (`TopicsDelta.replay(TopicRecord)`).
    image.topics.insert(
        id.clone(),
        TopicImage {
            name,
            id,
            partitions: Default::default(),
        },
    );
    Ok(())
}

fn topic_mut<'i>(
    image: &'i mut MetadataImage,
    data: &Value,
) -> Result<&'i mut TopicImage, Refused> {
    let id = req_text(data, "topicId")?;
    image
        .topics
        .get_mut(&id)
        .ok_or_else(|| format!("no topic with id {id}"))
}

fn partition(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
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
fn partition_change(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
    let id = req_int(data, "partitionId")? as i32;
    let topic = topic_mut(image, data)?;
    let name = topic.name.clone();
    let p = topic
        .partitions
        .get_mut(&id)
        .ok_or_else(|| format!("no partition {name}-{id}"))?;
    let keep = |field: &mut Vec<i32>, name: &str| {
        if let Some(v) = ints(data, name) {
            *field = v;
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

/// The topic goes, and with it its configs (`ConfigurationsDelta.replay(RemoveTopicRecord, …)`).
fn remove_topic(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
    let id = req_text(data, "topicId")?;
    let topic = image
        .topics
        .remove(&id)
        .ok_or_else(|| format!("no topic with id {id} to remove"))?;
    image.configs.topics.remove(&topic.name);
    Ok(())
}

fn register_broker(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
    let id = req_int(data, "brokerId")? as i32;
    let broker = BrokerImage {
        id,
        epoch: req_int(data, "brokerEpoch")?,
        incarnation_id: text(data, "incarnationId").unwrap_or_default(),
        fenced: data.get("fenced").and_then(Value::as_bool).unwrap_or(true),
        in_controlled_shutdown: data
            .get("inControlledShutdown")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        rack: text(data, "rack"),
        endpoints: endpoints(data),
        log_dirs: texts(data, "logDirs").unwrap_or_default(),
    };
    image.brokers.insert(id, broker);
    Ok(())
}

/// A change to a registered broker whose epoch matches
/// (`ClusterDelta.getBrokerOrThrow`).
fn change_broker(
    image: &mut MetadataImage,
    data: &Value,
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
fn registration_change(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
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

fn register_controller(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
    let id = req_int(data, "controllerId")? as i32;
    image.controllers.insert(
        id,
        ControllerImage {
            id,
            incarnation_id: text(data, "incarnationId").unwrap_or_default(),
            endpoints: endpoints(data),
        },
    );
    Ok(())
}

/// Level 0 removes a feature (`FeaturesDelta.replay`); `metadata.version`
/// is kept like the others here.
fn feature(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
    let name = req_text(data, "name")?;
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
fn config(image: &mut MetadataImage, data: &Value, set_by: SetBy) -> Result<(), Refused> {
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

fn client_quota(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
    let entity = data
        .get("entity")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|e| {
            (
                text(e, "entityType").unwrap_or_default(),
                text(e, "entityName"),
            )
        })
        .collect::<Vec<_>>();
    let key = req_text(data, "key")?;
    let remove = data.get("remove").and_then(Value::as_bool).unwrap_or(false);
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
            .and_then(Value::as_f64)
            .ok_or("no number field value")?;
        image
            .client_quotas
            .entry(entity)
            .or_default()
            .insert(key, value);
    }
    Ok(())
}

fn acl(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
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
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    })
    .join(" ");
    image.acls.insert(id, describe);
    Ok(())
}

/// Removing an ACL the image does not hold is refused (`AclsDelta.replay`).
fn remove_acl(image: &mut MetadataImage, data: &Value) -> Result<(), Refused> {
    let id = req_text(data, "id")?;
    image
        .acls
        .remove(&id)
        .map(drop)
        .ok_or_else(|| format!("no ACL with id {id} to remove"))
}
