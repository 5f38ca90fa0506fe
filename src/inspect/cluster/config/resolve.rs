//! A topic's effective configs with the broker's precedence: the topic's
//! override, then (for a topic config with broker synonyms, each in
//! Kafka's order of preference) this broker's dynamic config, the
//! cluster-wide dynamic default, the static `server.properties`, and
//! Kafka's default.
//!
//! Facts from Kafka 1eb7644: `ConfigHelper.createTopicConfigEntry` and
//! `configSynonyms` (core/.../server/ConfigHelper.scala:213-236, 262-278)
//! list a topic config's sources in that order, each source trying every
//! synonym before the next source; `DynamicBrokerConfig.overrideProps`
//! (DynamicBrokerConfig.scala:545-560) builds the value the same way, a
//! dynamic `log.retention.ms` removing a static `log.retention.hours`. The
//! broker applies only its own node's per-broker configs
//! (core/.../metadata/DynamicConfigPublisher.scala:73-103).

use std::collections::BTreeMap;

use serde::Serialize;

use super::internal_topics::{InternalTopic, rules};
use super::source::{ConfigSource, Resolved};
use super::synonyms::{
    TOPIC_CONFIGS, TopicConfigDef, convert, default_value, fits_type, is_dynamic, topic_config,
    topic_config_of_broker_name,
};
use crate::inspect::cluster::metadata::configs::{ConfigMap, DynamicConfigs};

/// The broker-level layers a topic's configs fall back to.
#[derive(Debug, Clone, Copy)]
pub struct BrokerLayers<'a> {
    /// The metadata image's dynamic configs (empty without a metadata log).
    pub dynamic: &'a DynamicConfigs,
    /// This broker's node id (`node.id` in `meta.properties`), which picks
    /// its per-broker configs.
    pub node_id: Option<&'a str>,
    /// `server.properties`, when given.
    pub static_props: Option<&'a BTreeMap<String, String>>,
    /// Kafka major version whose defaults apply.
    pub kafka_major: u8,
    /// The topics of the metadata image, by name (`None` without one).
    pub image_topics: Option<&'a BTreeMap<String, String>>,
}

/// A topic's effective configs, by topic config name.
pub type TopicConfigs = BTreeMap<String, Resolved>;

/// A dynamic broker config the broker drops when it loads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IgnoredConfig {
    /// The config's name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// Per-broker or cluster default.
    pub source: ConfigSource,
    /// The metadata log offset of the record that set it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    /// The end offset of the snapshot holding the record that set it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_end_offset: Option<i64>,
    /// Why the broker ignores it.
    pub why: String,
}

/// The value `map` gives topic config `def` from its dynamic broker
/// synonyms, with the record that set it.
fn dynamic_value(def: &TopicConfigDef, map: &ConfigMap, source: ConfigSource) -> Option<Resolved> {
    def.synonyms.iter().find_map(|s| {
        if !is_dynamic(s.name) {
            return None;
        }
        let set = map.get(s.name)?;
        // The broker drops a dynamic value of the wrong type on loading.
        let value = convert(&set.value, s.unit).filter(|v| fits_type(def, v))?;
        Some(
            Resolved {
                synonym: (s.name != def.name).then(|| s.name.to_string()),
                ..Resolved::new(value, source)
            }
            .set_by(set.set_by),
        )
    })
}

/// The value the static config gives `def` through its synonyms.
fn static_value(def: &TopicConfigDef, props: &BTreeMap<String, String>) -> Option<Resolved> {
    def.synonyms.iter().find_map(|s| {
        let value = convert(props.get(s.name)?, s.unit)?;
        Some(Resolved {
            synonym: (s.name != def.name).then(|| s.name.to_string()),
            ..Resolved::new(value, ConfigSource::StaticBroker)
        })
    })
}

/// The broker-level value of `def` (no topic override).
fn broker_value(def: &TopicConfigDef, layers: &BrokerLayers) -> Resolved {
    let per_broker = layers.node_id.and_then(|id| layers.dynamic.brokers.get(id));
    per_broker
        .and_then(|m| dynamic_value(def, m, ConfigSource::DynamicBroker))
        .or_else(|| {
            dynamic_value(
                def,
                &layers.dynamic.cluster_default,
                ConfigSource::DynamicDefaultBroker,
            )
        })
        .or_else(|| layers.static_props.and_then(|p| static_value(def, p)))
        .unwrap_or_else(|| {
            Resolved::new(
                default_value(def, layers.kafka_major),
                ConfigSource::Default,
            )
        })
}

/// Every topic config of `topic` with its source.
pub fn resolve_topic(topic: &str, layers: &BrokerLayers) -> TopicConfigs {
    let internal = InternalTopic::of(topic);
    let takes_broker = internal.is_none_or(InternalTopic::takes_broker_configs);
    // A coordinator writes its topic's rules as topic configs when it
    // creates the topic: where the image holds the topic, its configs are
    // what stands (an operator may have changed or deleted them since).
    let created_in_image =
        takes_broker && layers.image_topics.is_some_and(|t| t.contains_key(topic));
    let internal_rules = internal
        .filter(|_| !created_in_image)
        .map(|t| rules(t, layers.static_props))
        .unwrap_or_default();
    let overrides = layers.dynamic.topics.get(topic).filter(|_| takes_broker);
    TOPIC_CONFIGS
        .iter()
        .map(|def| {
            let value = overrides
                .and_then(|o| o.get(def.name))
                .map(|set| Resolved::new(&set.value, ConfigSource::DynamicTopic).set_by(set.set_by))
                .or_else(|| internal_rules.get(def.name).cloned())
                .unwrap_or_else(|| {
                    if takes_broker {
                        broker_value(def, layers)
                    } else {
                        Resolved::new(
                            default_value(def, layers.kafka_major),
                            ConfigSource::Default,
                        )
                    }
                });
            (def.name.to_string(), decided_elsewhere(def.name, value))
        })
        .collect()
}

/// Notes on a value this broker's configs do not decide alone: leader
/// elections, clean or unclean, are the active controller's, which reads
/// the topic config, then its own broker-level configs
/// (`ConfigurationControlManager`, used by `ReplicationControlManager`).
fn decided_elsewhere(name: &str, mut value: Resolved) -> Resolved {
    let broker_level = !matches!(
        value.source,
        ConfigSource::DynamicTopic | ConfigSource::Flag
    );
    if name == "unclean.leader.election.enable" && broker_level {
        value.note = Some(
            "elections are decided by the active controller, with its own broker-level configs, which may differ from this broker's".into(),
        );
    }
    value
}

/// Dynamic broker configs that would reach topic configs but that the
/// broker drops on loading: names that are not dynamic broker configs
/// (`log.retention.hours`, `log.roll.hours`, …), and values that do not
/// parse (`DynamicBrokerConfig.fromPersistentProps` and
/// `removeInvalidConfigs`, DynamicBrokerConfig.scala:407-419, 496-516).
pub fn ignored_dynamic(layers: &BrokerLayers) -> Vec<IgnoredConfig> {
    let per_broker = layers
        .node_id
        .and_then(|id| layers.dynamic.brokers.get(id))
        .map(|m| (m, ConfigSource::DynamicBroker));
    let default = Some((
        &layers.dynamic.cluster_default,
        ConfigSource::DynamicDefaultBroker,
    ));
    let mut out = Vec::new();
    for (map, source) in per_broker.into_iter().chain(default) {
        for (name, set) in map {
            let Some((def, unit)) = topic_config_of_broker_name(name) else {
                continue;
            };
            let why = if !is_dynamic(name) {
                format!(
                    "not a dynamic broker config: the broker drops it when it loads its dynamic configs, so it does not reach {}",
                    def.name
                )
            } else if !convert(&set.value, unit).is_some_and(|v| fits_type(def, &v)) {
                format!("{:?} is not a valid value; the broker drops it", set.value)
            } else {
                continue;
            };
            let (offset, snapshot_end_offset) = set.set_by.offsets();
            out.push(IgnoredConfig {
                name: name.clone(),
                value: set.value.clone(),
                source,
                offset,
                snapshot_end_offset,
                why,
            });
        }
    }
    out
}

/// Overlays command-line settings on `configs`: a topic config's own name
/// first, then its broker synonyms in Kafka's order. Returns the settings
/// that are not topic configs or their synonyms (broker-only settings such
/// as `log.retention.check.interval.ms`), for the caller.
pub fn apply_flags(
    configs: &mut TopicConfigs,
    flags: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    for def in TOPIC_CONFIGS {
        let own = flags.get(def.name).map(|v| (v.trim().to_string(), None));
        let chosen = own.or_else(|| {
            def.synonyms.iter().find_map(|s| {
                let v = convert(flags.get(s.name)?, s.unit)?;
                Some((v, (s.name != def.name).then(|| s.name.to_string())))
            })
        });
        if let Some((value, synonym)) = chosen {
            configs.insert(
                def.name.to_string(),
                Resolved {
                    synonym,
                    ..Resolved::new(value, ConfigSource::Flag)
                },
            );
        }
    }
    flags
        .iter()
        .filter(|(name, _)| {
            topic_config(name).is_none() && topic_config_of_broker_name(name).is_none()
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::cluster::metadata::configs::{ConfigValue, SetBy};

    fn at(offset: i64, value: &str) -> ConfigValue {
        ConfigValue {
            value: value.to_string(),
            set_by: SetBy::Log { offset },
        }
    }

    fn map(entries: &[(&str, ConfigValue)]) -> ConfigMap {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn props(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn layers<'a>(
        dynamic: &'a DynamicConfigs,
        static_props: Option<&'a BTreeMap<String, String>>,
    ) -> BrokerLayers<'a> {
        BrokerLayers {
            dynamic,
            node_id: Some("2"),
            static_props,
            kafka_major: 3,
            image_topics: None,
        }
    }

    #[test]
    fn topic_override_then_broker_then_default_then_static_then_default() {
        let mut dynamic = DynamicConfigs::default();
        dynamic
            .topics
            .insert("t".into(), map(&[("retention.ms", at(30, "1000"))]));
        dynamic
            .brokers
            .insert("2".into(), map(&[("log.segment.bytes", at(20, "2000"))]));
        dynamic.brokers.insert(
            "3".into(),
            map(&[("log.cleanup.policy", at(21, "compact"))]),
        );
        dynamic.cluster_default = map(&[
            ("log.segment.bytes", at(10, "3000")),
            ("log.index.interval.bytes", at(11, "8192")),
        ]);
        let statics = props(&[
            ("log.index.interval.bytes", "1024"),
            ("log.retention.bytes", "77"),
        ]);
        let c = resolve_topic("t", &layers(&dynamic, Some(&statics)));
        assert_eq!(c["retention.ms"].value, "1000");
        assert_eq!(c["retention.ms"].source, ConfigSource::DynamicTopic);
        assert_eq!(c["retention.ms"].offset, Some(30));
        assert_eq!(c["segment.bytes"].value, "2000");
        assert_eq!(c["segment.bytes"].source, ConfigSource::DynamicBroker);
        assert_eq!(c["index.interval.bytes"].value, "8192");
        assert_eq!(
            c["index.interval.bytes"].source,
            ConfigSource::DynamicDefaultBroker
        );
        assert_eq!(c["retention.bytes"].value, "77");
        assert_eq!(c["retention.bytes"].source, ConfigSource::StaticBroker);
        assert_eq!(
            c["cleanup.policy"].value, "delete",
            "broker 3's config is not ours"
        );
        assert_eq!(c["cleanup.policy"].source, ConfigSource::Default);
        let other = resolve_topic("u", &layers(&dynamic, None));
        assert_eq!(other["retention.ms"].source, ConfigSource::Default);
        assert_eq!(other["retention.ms"].value, "604800000");
    }

    #[test]
    fn static_synonyms_prefer_ms_over_minutes_over_hours() {
        let dynamic = DynamicConfigs::default();
        let hours = props(&[("log.retention.hours", "72")]);
        let c = resolve_topic("t", &layers(&dynamic, Some(&hours)));
        assert_eq!(c["retention.ms"].value, "259200000");
        assert_eq!(
            c["retention.ms"].synonym.as_deref(),
            Some("log.retention.hours")
        );
        let both = props(&[
            ("log.retention.hours", "72"),
            ("log.retention.minutes", "10"),
            ("log.retention.ms", "5000"),
            ("log.roll.hours", "2"),
        ]);
        let c = resolve_topic("t", &layers(&dynamic, Some(&both)));
        assert_eq!(c["retention.ms"].value, "5000");
        assert_eq!(
            c["retention.ms"].synonym.as_deref(),
            Some("log.retention.ms")
        );
        assert_eq!(c["segment.ms"].value, "7200000");
        let minutes = props(&[
            ("log.retention.hours", "72"),
            ("log.retention.minutes", "10"),
        ]);
        let c = resolve_topic("t", &layers(&dynamic, Some(&minutes)));
        assert_eq!(c["retention.ms"].value, "600000");
    }

    #[test]
    fn a_dynamic_default_beats_a_static_synonym_and_dynamic_hours_are_dropped() {
        let mut dynamic = DynamicConfigs {
            cluster_default: map(&[("log.retention.ms", at(5, "1234"))]),
            ..DynamicConfigs::default()
        };
        let statics = props(&[("log.retention.hours", "1")]);
        let c = resolve_topic("t", &layers(&dynamic, Some(&statics)));
        assert_eq!(c["retention.ms"].value, "1234");
        assert_eq!(c["retention.ms"].source, ConfigSource::DynamicDefaultBroker);

        dynamic.cluster_default = map(&[("log.retention.hours", at(18, "72"))]);
        let l = layers(&dynamic, Some(&statics));
        let c = resolve_topic("t", &l);
        assert_eq!(c["retention.ms"].value, "3600000", "the static hours stay");
        assert_eq!(c["retention.ms"].source, ConfigSource::StaticBroker);
        let ignored = ignored_dynamic(&l);
        assert_eq!(ignored.len(), 1);
        assert_eq!(ignored[0].name, "log.retention.hours");
        assert_eq!(ignored[0].offset, Some(18));

        // A dynamic value of the wrong type is dropped too: the static one stands.
        dynamic.cluster_default = map(&[("log.retention.ms", at(20, "a week"))]);
        let l = layers(&dynamic, Some(&statics));
        let c = resolve_topic("t", &l);
        assert_eq!(c["retention.ms"].source, ConfigSource::StaticBroker);
        let ignored = ignored_dynamic(&l);
        assert_eq!(ignored[0].name, "log.retention.ms");
        assert!(
            ignored[0].why.contains("not a valid value"),
            "{:?}",
            ignored[0]
        );
    }

    #[test]
    fn internal_topics_follow_their_rules_unless_the_topic_overrides() {
        let mut dynamic = DynamicConfigs {
            cluster_default: map(&[("log.segment.bytes", at(5, "4000"))]),
            ..DynamicConfigs::default()
        };
        let l = layers(&dynamic, None);
        let c = resolve_topic("__consumer_offsets", &l);
        assert_eq!(c["cleanup.policy"].value, "compact");
        assert_eq!(c["cleanup.policy"].source, ConfigSource::InternalTopicRule);
        assert_eq!(c["segment.bytes"].value, "104857600");
        assert_eq!(c["retention.ms"].source, ConfigSource::Default);
        dynamic.topics.insert(
            "__consumer_offsets".into(),
            map(&[("segment.bytes", at(9, "9000"))]),
        );
        let c = resolve_topic("__consumer_offsets", &layers(&dynamic, None));
        assert_eq!(c["segment.bytes"].value, "9000");
        assert_eq!(c["segment.bytes"].source, ConfigSource::DynamicTopic);
        let m = resolve_topic("__cluster_metadata", &layers(&dynamic, None));
        assert_eq!(m["retention.ms"].value, "-1");
        assert_eq!(
            m["segment.bytes"].value, "1073741824",
            "broker defaults do not reach it"
        );
        assert_eq!(m["index.interval.bytes"].source, ConfigSource::Default);
    }

    #[test]
    fn a_coordinator_topic_in_the_image_has_the_configs_the_image_holds() {
        // Created by the coordinator, which wrote its rules as topic
        // configs; someone deleted cleanup.policy since: the broker's
        // value stands, not the creation rule.
        let dynamic = DynamicConfigs {
            topics: BTreeMap::from([(
                "__consumer_offsets".to_string(),
                map(&[("segment.bytes", at(3, "104857600"))]),
            )]),
            ..DynamicConfigs::default()
        };
        let topics = BTreeMap::from([("__consumer_offsets".to_string(), "id".to_string())]);
        let l = BrokerLayers {
            image_topics: Some(&topics),
            ..layers(&dynamic, None)
        };
        let c = resolve_topic("__consumer_offsets", &l);
        assert_eq!(c["cleanup.policy"].value, "delete");
        assert_eq!(c["cleanup.policy"].source, ConfigSource::Default);
        assert_eq!(c["segment.bytes"].source, ConfigSource::DynamicTopic);
        let election = "unclean.leader.election.enable";
        assert!(c[election].note.as_deref().unwrap().contains("controller"));
        assert_eq!(c["cleanup.policy"].note, None);
        // The metadata log's own settings are not topic configs: they stay.
        let m = resolve_topic("__cluster_metadata", &l);
        assert_eq!(m["retention.ms"].source, ConfigSource::InternalTopicRule);
    }

    #[test]
    fn flags_win_with_the_topic_name_before_synonyms() {
        let dynamic = DynamicConfigs::default();
        let mut c = resolve_topic("t", &layers(&dynamic, None));
        let rest = apply_flags(
            &mut c,
            &props(&[
                ("log.retention.hours", "1"),
                ("log.roll.hours", "2"),
                ("segment.ms", "5"),
                ("log.retention.check.interval.ms", "10"),
            ]),
        );
        assert_eq!(c["retention.ms"].value, "3600000");
        assert_eq!(c["retention.ms"].source, ConfigSource::Flag);
        assert_eq!(c["segment.ms"].value, "5");
        assert_eq!(rest.len(), 1);
    }
}
