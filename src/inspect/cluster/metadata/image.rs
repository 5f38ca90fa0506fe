//! The metadata image as plain data: what `MetadataImage` holds once the
//! loader has applied every record (topics, cluster, features, quotas,
//! ACLs, producer ids, configs), keyed the way Kafka's image keys it.

use std::borrow::Borrow;
use std::collections::BTreeMap;

use super::configs::DynamicConfigs;

/// How many bytes of text a [`TopicKey`] holds in place (a topic id is 22).
const INLINE: usize = 30;

/// A topic id as the image keys topics by it: its text (Kafka's
/// `Uuid.toString`) held in place, so a lookup compares bytes in the map's
/// own nodes; ordered and compared as the text.
#[derive(Clone)]
pub struct TopicKey(Text);

#[derive(Clone)]
enum Text {
    Inline(u8, [u8; INLINE]),
    Heap(Box<str>),
}

impl TopicKey {
    /// The id's text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Made from a `&str`, cut where it ends.
            Text::Inline(len, bytes) => {
                std::str::from_utf8(bytes.get(..usize::from(*len)).unwrap_or_default())
                    .unwrap_or_default()
            }
            Text::Heap(text) => text,
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Text::Inline(len, bytes) => bytes.get(..usize::from(*len)).unwrap_or_default(),
            Text::Heap(text) => text.as_bytes(),
        }
    }
}

impl From<&str> for TopicKey {
    fn from(text: &str) -> Self {
        let mut bytes = [0; INLINE];
        match bytes.get_mut(..text.len()) {
            Some(to) => {
                to.copy_from_slice(text.as_bytes());
                Self(Text::Inline(text.len() as u8, bytes))
            }
            None => Self(Text::Heap(text.into())),
        }
    }
}

impl From<String> for TopicKey {
    fn from(text: String) -> Self {
        Self::from(text.as_str())
    }
}

impl Borrow<str> for TopicKey {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for TopicKey {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for TopicKey {}

impl PartialOrd for TopicKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for TopicKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // `str`'s order, so that `Borrow<str>` lookups agree.
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl std::fmt::Debug for TopicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_str().fmt(f)
    }
}

/// A partition's registration (`PartitionRegistration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionImage {
    /// Replicas, in assignment order.
    pub replicas: Vec<i32>,
    /// In-sync replicas.
    pub isr: Vec<i32>,
    /// Replicas being removed by a reassignment.
    pub removing_replicas: Vec<i32>,
    /// Replicas being added by a reassignment.
    pub adding_replicas: Vec<i32>,
    /// The leader, -1 for none.
    pub leader: i32,
    /// 0 recovered, 1 recovering after an unclean election.
    pub leader_recovery_state: i8,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The partition epoch: one more at every change.
    pub partition_epoch: i32,
    /// Each replica's log directory id, as Kafka prints a `Uuid`.
    pub directories: Vec<String>,
    /// Eligible leader replicas (KIP-966).
    pub eligible_leader_replicas: Vec<i32>,
    /// Last known eligible leader replicas (KIP-966).
    pub last_known_elr: Vec<i32>,
}

/// A topic (`TopicImage`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicImage {
    /// Its name.
    pub name: String,
    /// Its id, as Kafka prints a `Uuid` (base64url, no padding).
    pub id: String,
    /// Partitions by id.
    pub partitions: BTreeMap<i32, PartitionImage>,
}

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
    pub topics: BTreeMap<TopicKey, TopicImage>,
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

impl MetadataImage {
    /// The topic named `name`.
    pub fn topic_by_name(&self, name: &str) -> Option<&TopicImage> {
        self.topics.values().find(|t| t.name == name)
    }
}
