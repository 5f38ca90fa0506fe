//! The metadata image as plain data: what `MetadataImage` holds once the
//! loader has applied every record (topics, whose types are in
//! [`super::topics`], cluster, features, quotas, ACLs, producer ids,
//! configs), keyed the way Kafka's image keys it.

use std::collections::BTreeMap;

use super::configs::DynamicConfigs;
use super::topics::Topics;

/// A listener of a broker or controller registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Listener name.
    pub name: String,
    /// Host.
    pub host: String,
    /// Port.
    pub port: i64,
    /// Security protocol id (0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL).
    pub security_protocol: i64,
}

/// A feature range a broker or controller registers as supported
/// (`BrokerFeature`, `ControllerFeature`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupportedFeature {
    /// Feature name (`metadata.version`, `kraft.version`, …).
    pub name: String,
    /// Lowest level supported.
    pub min: i16,
    /// Highest level supported.
    pub max: i16,
}

/// A broker's registration (`BrokerRegistration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerImage {
    /// Node id.
    pub id: i32,
    /// Broker epoch: the offset of its registration record.
    pub epoch: i64,
    /// Incarnation id.
    pub incarnation_id: String,
    /// Whether it is fenced.
    pub fenced: bool,
    /// Whether it is in controlled shutdown.
    pub in_controlled_shutdown: bool,
    /// Rack, when set.
    pub rack: Option<String>,
    /// Listeners.
    pub endpoints: Vec<Endpoint>,
    /// Log directory ids (RegisterBrokerRecord v3, Kafka 3.7 on).
    pub log_dirs: Vec<String>,
    /// A ZooKeeper broker registered during a migration (v2 on).
    pub is_migrating_zk_broker: bool,
    /// The feature ranges it supports.
    pub features: Vec<SupportedFeature>,
}

/// A controller's registration (`ControllerRegistration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerImage {
    /// Node id.
    pub id: i32,
    /// Incarnation id.
    pub incarnation_id: String,
    /// Whether it is ready for a ZooKeeper migration.
    pub zk_migration_ready: bool,
    /// Listeners.
    pub endpoints: Vec<Endpoint>,
    /// The feature ranges it supports.
    pub features: Vec<SupportedFeature>,
}

/// A client quota entity: `(entity type, entity name)` pairs, a `None` name
/// being the default entity.
pub type QuotaEntity = Vec<(String, Option<String>)>;

/// The producer-id block (`ProducerIdsImage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerIds {
    /// The next producer id the controller hands out.
    pub next_producer_id: i64,
    /// The broker the last block went to.
    pub broker_id: i32,
    /// That broker's epoch.
    pub broker_epoch: i64,
}

/// The whole image.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetadataImage {
    /// Topics by id.
    pub topics: Topics,
    /// Registered brokers by id.
    pub brokers: BTreeMap<i32, BrokerImage>,
    /// Registered controllers by id.
    pub controllers: BTreeMap<i32, ControllerImage>,
    /// Finalized feature levels by name (`metadata.version` among them).
    pub features: BTreeMap<String, i16>,
    /// Client quotas: entity to quota key to value.
    pub client_quotas: BTreeMap<QuotaEntity, BTreeMap<String, f64>>,
    /// ACLs by id: `resourceType resourceName patternType principal host operation permission`.
    pub acls: BTreeMap<String, String>,
    /// The producer-id block, once one was handed out.
    pub producer_ids: Option<ProducerIds>,
    /// Topic, broker and cluster-default configs.
    pub configs: DynamicConfigs,
    /// Configs of other resource types (client metrics, groups), by
    /// `(resourceType, resourceName)`.
    pub other_configs: BTreeMap<(i8, String), super::configs::ConfigMap>,
}
