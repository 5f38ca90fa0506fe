//! Every topic config, the broker configs that stand for it when the topic
//! does not set it (in Kafka's order of preference), and Kafka's default.
//!
//! Facts from Kafka 1eb7644: the synonym lists are
//! `ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS`
//! (server-common/.../config/ServerTopicConfigSynonyms.java:54-95; the
//! first synonym set wins, hours and minutes converted to milliseconds);
//! the defaults are `LogConfig`'s (storage/.../log/LogConfig.java:171-190,
//! 264-333). Only a topic config's first synonym can be set dynamically:
//! `DynamicLogConfig.ReconfigurableConfigs` is the set of first synonyms
//! (core/.../server/DynamicBrokerConfig.scala:680-682), and the broker drops
//! any other name from its dynamic configs when it loads them
//! (`fromPersistentProps`, DynamicBrokerConfig.scala:407-419).

/// How a broker synonym's value converts to the topic config's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// The same unit.
    Same,
    /// Minutes to milliseconds (`log.retention.minutes`).
    Minutes,
    /// Hours to milliseconds (`log.retention.hours`, `log.roll.hours`, …).
    Hours,
}

/// A broker config that stands for a topic config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Synonym {
    /// The broker config's name.
    pub name: &'static str,
    /// Its unit.
    pub unit: Unit,
}

/// One topic config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicConfigDef {
    /// The topic config's name.
    pub name: &'static str,
    /// Its broker synonyms, first preferred (empty: no broker default).
    pub synonyms: &'static [Synonym],
    /// Kafka's default, as a string.
    pub default: &'static str,
}

const fn same(name: &'static str) -> Synonym {
    Synonym {
        name,
        unit: Unit::Same,
    }
}

const fn def(
    name: &'static str,
    synonyms: &'static [Synonym],
    default: &'static str,
) -> TopicConfigDef {
    TopicConfigDef {
        name,
        synonyms,
        default,
    }
}

const LONG_MAX: &str = "9223372036854775807";

/// Every topic config, by name.
pub const TOPIC_CONFIGS: &[TopicConfigDef] = &[
    def("cleanup.policy", &[same("log.cleanup.policy")], "delete"),
    def(
        "compression.gzip.level",
        &[same("compression.gzip.level")],
        "-1",
    ),
    def(
        "compression.lz4.level",
        &[same("compression.lz4.level")],
        "9",
    ),
    def("compression.type", &[same("compression.type")], "producer"),
    def(
        "compression.zstd.level",
        &[same("compression.zstd.level")],
        "3",
    ),
    def(
        "delete.retention.ms",
        &[same("log.cleaner.delete.retention.ms")],
        "86400000",
    ),
    def(
        "file.delete.delay.ms",
        &[same("log.segment.delete.delay.ms")],
        "60000",
    ),
    def(
        "flush.messages",
        &[same("log.flush.interval.messages")],
        LONG_MAX,
    ),
    def(
        "flush.ms",
        &[
            same("log.flush.interval.ms"),
            same("log.flush.scheduler.interval.ms"),
        ],
        LONG_MAX,
    ),
    def("follower.replication.throttled.replicas", &[], ""),
    def(
        "index.interval.bytes",
        &[same("log.index.interval.bytes")],
        "4096",
    ),
    def("leader.replication.throttled.replicas", &[], ""),
    def(
        "local.retention.bytes",
        &[same("log.local.retention.bytes")],
        "-2",
    ),
    def(
        "local.retention.ms",
        &[same("log.local.retention.ms")],
        "-2",
    ),
    def(
        "max.compaction.lag.ms",
        &[same("log.cleaner.max.compaction.lag.ms")],
        LONG_MAX,
    ),
    def("max.message.bytes", &[same("message.max.bytes")], "1048588"),
    def(
        "message.downconversion.enable",
        &[same("log.message.downconversion.enable")],
        "true",
    ),
    def(
        "message.format.version",
        &[same("log.message.format.version")],
        "3.0-IV1",
    ),
    def(
        "message.timestamp.after.max.ms",
        &[same("log.message.timestamp.after.max.ms")],
        LONG_MAX,
    ),
    def(
        "message.timestamp.before.max.ms",
        &[same("log.message.timestamp.before.max.ms")],
        LONG_MAX,
    ),
    def(
        "message.timestamp.difference.max.ms",
        &[same("log.message.timestamp.difference.max.ms")],
        LONG_MAX,
    ),
    def(
        "message.timestamp.type",
        &[same("log.message.timestamp.type")],
        "CreateTime",
    ),
    def(
        "min.cleanable.dirty.ratio",
        &[same("log.cleaner.min.cleanable.ratio")],
        "0.5",
    ),
    def(
        "min.compaction.lag.ms",
        &[same("log.cleaner.min.compaction.lag.ms")],
        "0",
    ),
    def("min.insync.replicas", &[same("min.insync.replicas")], "1"),
    def("preallocate", &[same("log.preallocate")], "false"),
    def("remote.log.copy.disable", &[], "false"),
    def("remote.log.delete.on.disable", &[], "false"),
    def("remote.storage.enable", &[], "false"),
    def("retention.bytes", &[same("log.retention.bytes")], "-1"),
    def(
        "retention.ms",
        &[
            same("log.retention.ms"),
            Synonym {
                name: "log.retention.minutes",
                unit: Unit::Minutes,
            },
            Synonym {
                name: "log.retention.hours",
                unit: Unit::Hours,
            },
        ],
        "604800000",
    ),
    def("segment.bytes", &[same("log.segment.bytes")], "1073741824"),
    def(
        "segment.index.bytes",
        &[same("log.index.size.max.bytes")],
        "10485760",
    ),
    def(
        "segment.jitter.ms",
        &[
            same("log.roll.jitter.ms"),
            Synonym {
                name: "log.roll.jitter.hours",
                unit: Unit::Hours,
            },
        ],
        "0",
    ),
    def(
        "segment.ms",
        &[
            same("log.roll.ms"),
            Synonym {
                name: "log.roll.hours",
                unit: Unit::Hours,
            },
        ],
        "604800000",
    ),
    def(
        "unclean.leader.election.enable",
        &[same("unclean.leader.election.enable")],
        "false",
    ),
];

/// The topic config named `name`.
pub fn topic_config(name: &str) -> Option<&'static TopicConfigDef> {
    TOPIC_CONFIGS.iter().find(|d| d.name == name)
}

/// The topic config a broker config stands for, and its unit.
pub fn topic_config_of_broker_name(name: &str) -> Option<(&'static TopicConfigDef, Unit)> {
    TOPIC_CONFIGS.iter().find_map(|d| {
        d.synonyms
            .iter()
            .find(|s| s.name == name)
            .map(|s| (d, s.unit))
    })
}

/// Kafka's default for `def` under major version `major`: Kafka 4.0 sets
/// `message.timestamp.after.max.ms` to one hour (KIP-1030).
pub fn default_value(def: &TopicConfigDef, major: u8) -> &'static str {
    if def.name == "message.timestamp.after.max.ms" && major >= 4 {
        "3600000"
    } else {
        def.default
    }
}

/// Whether a broker config named `name` that reaches topic configs can be
/// set dynamically (only the first synonym of each topic config, and not
/// `log.message.format.version`).
pub fn is_dynamic(name: &str) -> bool {
    TOPIC_CONFIGS.iter().any(|d| {
        d.name != "message.format.version" && d.synonyms.first().is_some_and(|s| s.name == name)
    })
}

/// `value` of a broker synonym in `unit`, converted to the topic config's
/// unit; `None` when it is not an integer. A negative time becomes -1, as
/// `KafkaConfig.logRetentionTimeMillis` does (core/.../KafkaConfig.scala:688).
pub fn convert(value: &str, unit: Unit) -> Option<String> {
    let factor: i64 = match unit {
        Unit::Same => return Some(value.trim().to_string()),
        Unit::Minutes => 60_000,
        Unit::Hours => 3_600_000,
    };
    let n: i64 = value.trim().parse().ok()?;
    Some(n.saturating_mul(factor).max(-1).to_string())
}

/// Whether `value` has the type of `def`'s values, judged by Kafka's
/// default: a number where the default is one, `true` or `false` where it
/// is a boolean (Kafka's `ConfigDef` parsing, trimmed, case-insensitive for
/// booleans); anything else is taken as it is.
pub fn fits_type(def: &TopicConfigDef, value: &str) -> bool {
    let (default, value) = (def.default.trim(), value.trim());
    if default.parse::<i64>().is_ok() {
        value.parse::<i64>().is_ok()
    } else if default.parse::<f64>().is_ok() {
        value.parse::<f64>().is_ok()
    } else if default == "true" || default == "false" {
        value.eq_ignore_ascii_case("true") || value.eq_ignore_ascii_case("false")
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_the_wrong_type_do_not_fit() {
        let retention = topic_config("retention.ms").unwrap();
        assert!(fits_type(retention, " 3600000 "));
        assert!(!fits_type(retention, "abc"));
        assert!(!fits_type(retention, "1h"));
        let ratio = topic_config("min.cleanable.dirty.ratio").unwrap();
        assert!(fits_type(ratio, "0.25") && !fits_type(ratio, "half"));
        let unclean = topic_config("unclean.leader.election.enable").unwrap();
        assert!(fits_type(unclean, "TRUE") && !fits_type(unclean, "yes"));
        let policy = topic_config("cleanup.policy").unwrap();
        assert!(fits_type(policy, "compact,delete"));
    }

    #[test]
    fn retention_ms_prefers_ms_then_minutes_then_hours() {
        let d = topic_config("retention.ms").unwrap();
        let names: Vec<&str> = d.synonyms.iter().map(|s| s.name).collect();
        assert_eq!(
            names,
            [
                "log.retention.ms",
                "log.retention.minutes",
                "log.retention.hours"
            ]
        );
        assert_eq!(convert("72", Unit::Hours).as_deref(), Some("259200000"));
        assert_eq!(convert("3", Unit::Minutes).as_deref(), Some("180000"));
        assert_eq!(convert("x", Unit::Hours), None);
        assert_eq!(convert("-1", Unit::Hours).as_deref(), Some("-1"));
    }

    #[test]
    fn only_first_synonyms_are_dynamic() {
        assert!(is_dynamic("log.retention.ms"));
        assert!(!is_dynamic("log.retention.hours"));
        assert!(!is_dynamic("log.roll.hours"));
        assert!(is_dynamic("log.segment.bytes"));
        assert!(!is_dynamic("log.message.format.version"));
        assert!(!is_dynamic("auto.create.topics.enable"));
        assert_eq!(
            topic_config_of_broker_name("log.roll.hours").map(|(d, u)| (d.name, u)),
            Some(("segment.ms", Unit::Hours))
        );
    }

    #[test]
    fn the_table_is_sorted_and_unique() {
        assert!(TOPIC_CONFIGS.windows(2).all(|w| w[0].name < w[1].name));
        assert_eq!(
            default_value(topic_config("message.timestamp.after.max.ms").unwrap(), 4),
            "3600000"
        );
    }
}
