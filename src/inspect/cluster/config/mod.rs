//! What configs does each topic run with, and where does each value come
//! from? The broker's precedence (`ConfigHelper.createTopicConfigEntry`,
//! `DynamicBrokerConfig`, `LogConfig.fromProps`, `ServerTopicConfigSynonyms`)
//! over the metadata image's dynamic configs, the static
//! `server.properties`, Kafka's defaults, and the internal topics' own
//! rules (the coordinators' topic configs, `KafkaMetadataLog`).

pub mod context;
pub mod internal_topics;
pub mod listing;
pub mod resolve;
pub mod source;
pub mod synonyms;
