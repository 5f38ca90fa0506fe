//! The changes one metadata record makes, from the entity it touches
//! taken before it is applied ([`Before::of`]) and looked at again after
//! ([`Before::changes`]): only that entity is copied, never the image.

use super::event::Change;
use crate::inspect::cluster::metadata::apply::quota_entity;
use crate::inspect::cluster::metadata::configs::ConfigMap;
use crate::inspect::cluster::metadata::image::{BrokerImage, MetadataImage, QuotaEntity};
use crate::inspect::cluster::metadata::topics::PartitionImage;
use crate::schema::tree::Node;

/// The entity a record touches, as it was before the record.
#[derive(Debug, Clone, PartialEq)]
pub enum Before {
    /// A record of no entity kseg follows (`NoOpRecord`, SCRAM, …), or
    /// one that does not name its entity.
    Nothing,
    /// A `TopicRecord`'s topic id.
    Topic(String),
    /// A `RemoveTopicRecord`'s topic: its name and partition count.
    RemovedTopic(String, Option<(String, usize)>),
    /// A partition: topic id, partition id, its registration.
    Partition(String, i32, Option<PartitionImage>),
    /// A `ClearElrRecord`: every partition it may clear (topic name,
    /// partition id, registration), those with an ELR or last known ELR.
    Elr(Vec<(String, i32, PartitionImage)>),
    /// A broker: its id, its registration, and whether the record
    /// registers it afresh (`RegisterBrokerRecord`).
    Broker(i32, Option<BrokerImage>, bool),
    /// A feature and its level.
    Feature(String, Option<i16>),
    /// A config: resource type, resource, name, value.
    Config(i8, String, String, Option<String>),
    /// A quota: entity, key, value.
    Quota(QuotaEntity, String, Option<f64>),
    /// An ACL id and whether the image held it.
    Acl(String, Option<String>),
    /// The producer-id block.
    ProducerIds(Option<crate::inspect::cluster::metadata::image::ProducerIds>),
}

fn text(data: Node<'_>, name: &str) -> Option<String> {
    data.get(name).and_then(Node::as_str).map(str::to_string)
}

fn int(data: Node<'_>, name: &str) -> Option<i64> {
    data.get(name).and_then(Node::as_i64)
}

/// The config map of a resource, as the image keys it.
fn config_map<'i>(image: &'i MetadataImage, kind: i8, resource: &str) -> Option<&'i ConfigMap> {
    let c = &image.configs;
    match (kind, resource) {
        (2, _) => c.topics.get(resource),
        (4, "") => Some(&c.cluster_default),
        (4, _) => c.brokers.get(resource),
        _ => image.other_configs.get(&(kind, resource.to_string())),
    }
}

fn config_value(image: &MetadataImage, kind: i8, resource: &str, name: &str) -> Option<String> {
    config_map(image, kind, resource)?
        .get(name)
        .map(|v| v.value.clone())
}

fn partition(image: &MetadataImage, topic_id: &str, id: i32) -> Option<PartitionImage> {
    let topic = image.topics.get(topic_id)?;
    topic.partitions.get(id).cloned()
}

impl Before {
    /// What the record of `kind` with fields `data` touches, in `image`
    /// before it is applied.
    pub fn of(image: &MetadataImage, kind: &str, data: Node<'_>) -> Self {
        Self::touched(image, kind, data).unwrap_or(Self::Nothing)
    }

    fn touched(image: &MetadataImage, kind: &str, data: Node<'_>) -> Option<Self> {
        let broker = |field: &str| {
            let id = int(data, field)? as i32;
            let registers = kind == "REGISTER_BROKER_RECORD";
            Some(Self::Broker(id, image.brokers.get(&id).cloned(), registers))
        };
        match kind {
            "TOPIC_RECORD" => text(data, "topicId").map(Self::Topic),
            "REMOVE_TOPIC_RECORD" => {
                let id = text(data, "topicId")?;
                let t = image.topics.get(&id);
                let named = t.map(|t| (t.name.clone(), t.partitions.len()));
                Some(Self::RemovedTopic(id, named))
            }
            "PARTITION_RECORD" | "PARTITION_CHANGE_RECORD" => {
                let t = text(data, "topicId")?;
                let p = int(data, "partitionId")? as i32;
                let before = partition(image, &t, p);
                Some(Self::Partition(t, p, before))
            }
            "CLEAR_ELR_RECORD" => Some(Self::Elr(
                image
                    .topics
                    .in_id_order()
                    .flat_map(|t| t.partitions.iter().map(move |(id, p)| (t, id, p)))
                    .filter(|(_, _, p)| {
                        !p.eligible_leader_replicas.is_empty() || !p.last_known_elr.is_empty()
                    })
                    .map(|(t, id, p)| (t.id.clone(), id, p.clone()))
                    .collect(),
            )),
            "REGISTER_BROKER_RECORD"
            | "UNREGISTER_BROKER_RECORD"
            | "BROKER_REGISTRATION_CHANGE_RECORD" => broker("brokerId"),
            "FENCE_BROKER_RECORD" | "UNFENCE_BROKER_RECORD" => broker("id"),
            "FEATURE_LEVEL_RECORD" => {
                let name = text(data, "name")?;
                let level = image.features.get(&name).copied();
                Some(Self::Feature(name, level))
            }
            "CONFIG_RECORD" => {
                let kind = int(data, "resourceType")? as i8;
                let resource = text(data, "resourceName")?;
                let name = text(data, "name")?;
                let value = config_value(image, kind, &resource, &name);
                Some(Self::Config(kind, resource, name, value))
            }
            "CLIENT_QUOTA_RECORD" => {
                let entity = quota_entity(data);
                let key = text(data, "key")?;
                let value = image
                    .client_quotas
                    .get(&entity)
                    .and_then(|q| q.get(&key))
                    .copied();
                Some(Self::Quota(entity, key, value))
            }
            "ACCESS_CONTROL_ENTRY_RECORD" | "REMOVE_ACCESS_CONTROL_ENTRY_RECORD" => {
                let id = text(data, "id")?;
                let acl = image.acls.get(&id).cloned();
                Some(Self::Acl(id, acl))
            }
            "PRODUCER_IDS_RECORD" => Some(Self::ProducerIds(image.producer_ids)),
            _ => None,
        }
    }

    /// The changes the record made, `image` being the image after it was
    /// applied (the record was not refused).
    pub fn changes(self, image: &MetadataImage) -> Vec<Change> {
        let topic_name = |id: &str| image.topics.get(id).map(|t| t.name.clone());
        let one = match self {
            Self::Nothing => None,
            Self::Topic(id) => topic_name(&id).map(|topic| Change::TopicCreated {
                topic,
                topic_id: id,
            }),
            Self::RemovedTopic(id, named) => {
                named.map(|(topic, partitions)| Change::TopicDeleted {
                    topic,
                    topic_id: id,
                    partitions,
                })
            }
            Self::Partition(t, p, previous) => {
                let now = partition(image, &t, p);
                let topic = topic_name(&t);
                match (topic, now, previous) {
                    (Some(topic), Some(now), previous) if previous.is_none() => {
                        Some(Change::PartitionCreated {
                            topic,
                            partition: p,
                            now,
                            previous,
                        })
                    }
                    (Some(topic), Some(now), Some(previous)) => Some(Change::PartitionChanged {
                        topic,
                        partition: p,
                        now,
                        previous,
                    }),
                    _ => None,
                }
            }
            Self::Elr(before) => {
                return before
                    .into_iter()
                    .filter_map(|(t, p, previous)| {
                        let now = partition(image, &t, p)?;
                        (now != previous).then(|| Change::PartitionChanged {
                            topic: topic_name(&t).unwrap_or_default(),
                            partition: p,
                            now,
                            previous,
                        })
                    })
                    .collect();
            }
            Self::Broker(id, previous, registers) => {
                broker_change(id, previous, image.brokers.get(&id), registers)
            }
            // kraft.version is KRaft's own: its KRaftVersionRecord says it.
            Self::Feature(feature, previous) => {
                let level = image.features.get(&feature).copied();
                (feature != "kraft.version").then_some(Change::FeatureChanged {
                    feature,
                    level,
                    previous,
                })
            }
            Self::Config(kind, resource, name, previous) => {
                let value = config_value(image, kind, &resource, &name);
                Some(Change::ConfigChanged {
                    resource_type: kind,
                    resource,
                    name,
                    value,
                    previous,
                })
            }
            Self::Quota(entity, key, previous) => {
                let value = image
                    .client_quotas
                    .get(&entity)
                    .and_then(|q| q.get(&key))
                    .copied();
                Some(Change::QuotaChanged {
                    entity,
                    key,
                    value,
                    previous,
                })
            }
            Self::Acl(id, previous) => match (image.acls.get(&id), previous) {
                (Some(acl), _) => Some(Change::AclChanged {
                    id,
                    acl: acl.clone(),
                    added: true,
                }),
                (None, Some(acl)) => Some(Change::AclChanged {
                    id,
                    acl,
                    added: false,
                }),
                (None, None) => None,
            },
            Self::ProducerIds(previous) => image
                .producer_ids
                .map(|now| Change::ProducerIds { now, previous }),
        };
        one.into_iter().collect()
    }
}

/// A broker's registration before and after a record; `registers`: the
/// record is a registration.
fn broker_change(
    broker: i32,
    previous: Option<BrokerImage>,
    now: Option<&BrokerImage>,
    registers: bool,
) -> Option<Change> {
    match (previous, now) {
        (previous, Some(now)) if registers => Some(Change::BrokerRegistered {
            broker,
            epoch: now.epoch,
            fenced: now.fenced,
            rack: now.rack.clone(),
            previous_epoch: previous.map(|p| p.epoch),
        }),
        (Some(previous), Some(now)) => {
            let same = previous.fenced == now.fenced
                && previous.in_controlled_shutdown == now.in_controlled_shutdown;
            (!same).then_some(Change::BrokerState {
                broker,
                epoch: now.epoch,
                fenced: now.fenced,
                previous_fenced: previous.fenced,
                in_controlled_shutdown: now.in_controlled_shutdown,
                previous_in_controlled_shutdown: previous.in_controlled_shutdown,
            })
        }
        // A change to a broker not registered is refused before this.
        (None, Some(_)) => None,
        (previous, None) => Some(Change::BrokerUnregistered {
            broker,
            previous_epoch: previous.map(|p| p.epoch),
        }),
    }
}
