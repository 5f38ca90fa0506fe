//! The retention settings of one topic for `kseg retention-report`: its
//! effective configs with the command line's settings laid over them
//! (a topic config's own name, then its broker synonyms), turned into a
//! [`RetentionConfig`], and, for `__cluster_metadata`, the metadata log's
//! own limits instead of retention.ms and retention.bytes, which
//! `KafkaMetadataLog` fixes at -1.

use std::collections::BTreeMap;

use super::config::RetentionConfig;
use super::metadata_log::MetadataRetention;
use crate::inspect::cluster::config::context::ConfigContext;
use crate::inspect::cluster::config::internal_topics::metadata_retention;
use crate::inspect::cluster::config::resolve::{TopicConfigs, apply_flags};
use crate::inspect::cluster::config::source::{ConfigSource, Resolved};
use crate::inspect::cluster::config::synonyms::{topic_config, topic_config_of_broker_name};
use crate::logdir::{LogDirError, Partition};

/// The metadata log's own limits, by name.
pub const METADATA_LIMITS: [&str; 2] =
    ["metadata.max.retention.bytes", "metadata.max.retention.ms"];

/// The broker's retention check interval, shown beside the topic's settings.
const CHECK_INTERVAL: &str = "log.retention.check.interval.ms";

/// The settings given on the command line: a properties file, then
/// `NAME=VALUE`, then `TOPIC:NAME=VALUE` by topic; each checked as a
/// retention setting when given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetentionFlags {
    shared: BTreeMap<String, String>,
    by_topic: BTreeMap<String, BTreeMap<String, String>>,
}

fn without_metadata_limits(settings: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    settings
        .iter()
        .filter(|(k, _)| !METADATA_LIMITS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn check(settings: &BTreeMap<String, String>) -> Result<(), String> {
    RetentionConfig::defaults(4).apply(&without_metadata_limits(settings))
}

impl RetentionFlags {
    /// Parses the settings: `file` (its name and properties, applied
    /// first) and each `[TOPIC:]NAME=VALUE`; the error names the one that
    /// does not parse or is no valid retention setting.
    pub fn parse(
        file: Option<(&str, &BTreeMap<String, String>)>,
        configs: &[String],
    ) -> Result<Self, String> {
        let mut shared = BTreeMap::new();
        if let Some((name, settings)) = file {
            check(settings).map_err(|e| format!("{name}: {e}"))?;
            shared.extend(settings.clone());
        }
        let mut given = BTreeMap::new();
        let mut by_topic: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for c in configs {
            let (k, v) = c.split_once('=').ok_or_else(|| {
                format!("--config {c:?}: expected NAME=VALUE or TOPIC:NAME=VALUE")
            })?;
            let (k, v) = (k.trim(), v.trim().to_string());
            match k.split_once(':') {
                Some((topic, name)) => {
                    by_topic
                        .entry(topic.to_string())
                        .or_default()
                        .insert(name.to_string(), v);
                }
                None => {
                    given.insert(k.to_string(), v);
                }
            }
        }
        check(&given).map_err(|e| format!("--config {e}"))?;
        for (topic, settings) in &by_topic {
            check(settings).map_err(|e| format!("--config {topic}:{e}"))?;
        }
        shared.extend(given);
        Ok(Self { shared, by_topic })
    }

    /// Every setting that applies to `topic`, the later ones winning.
    fn for_topic(&self, topic: Option<&str>) -> BTreeMap<String, String> {
        let mut out = self.shared.clone();
        if let Some(settings) = topic.and_then(|t| self.by_topic.get(t)) {
            out.extend(settings.clone());
        }
        out
    }
}

/// A topic's configs, flags laid over them, and the retention settings
/// made of them.
#[derive(Debug, Clone)]
pub struct TopicSettings {
    /// The effective configs, the command line's included.
    pub configs: TopicConfigs,
    /// The retention settings made of them.
    pub retention: RetentionConfig,
    /// The metadata log's own limits (`__cluster_metadata` only).
    pub metadata: Option<MetadataRetention>,
    /// Settings given for `__cluster_metadata` that Kafka fixes, and so ignored, each with why.
    pub ignored: Vec<String>,
}

impl TopicSettings {
    /// The names a report shows: the retention settings, the broker's
    /// check interval and, for the metadata log, its own limits.
    pub fn shown(&self) -> Vec<&str> {
        let tiered = self.retention.remote_storage_enable;
        self.configs
            .keys()
            .map(String::as_str)
            .filter(|n| {
                RetentionConfig::TOPIC_SETTINGS.contains(n)
                    || (tiered && RetentionConfig::TIERED_SETTINGS.contains(n))
                    || METADATA_LIMITS.contains(n)
                    || *n == CHECK_INTERVAL
            })
            .collect()
    }
}

/// Whether a setting names retention.ms or retention.bytes (or a broker
/// synonym of them), which `KafkaMetadataLog` fixes at -1 for the metadata
/// log whatever is configured.
fn fixed_for_metadata_log(name: &str) -> bool {
    let def = topic_config(name).or_else(|| topic_config_of_broker_name(name).map(|(d, _)| d));
    def.is_some_and(|d| matches!(d.name, "retention.ms" | "retention.bytes"))
}

fn parse_limit(r: &Resolved, name: &str) -> Result<i64, String> {
    r.value
        .trim()
        .parse()
        .map_err(|_| format!("{name}: {:?} is not an integer", r.value))
}

/// The value of a broker-only setting: the flag, else `server.properties`.
fn broker_setting(
    ctx: &ConfigContext,
    rest: &BTreeMap<String, String>,
    name: &str,
) -> Option<Resolved> {
    match (
        rest.get(name),
        ctx.static_props.as_ref().and_then(|p| p.get(name)),
    ) {
        (Some(flag), _) => Some(Resolved::new(flag.trim(), ConfigSource::Flag)),
        (None, Some(v)) => Some(Resolved::new(v.trim(), ConfigSource::StaticBroker)),
        (None, None) => None,
    }
}

/// The settings of `topic` (none: a partition directory whose name gives
/// no topic) under `ctx`, with `flags` laid over them.
pub fn settings_for(
    ctx: &ConfigContext,
    flags: &RetentionFlags,
    topic: Option<&str>,
) -> Result<TopicSettings, String> {
    let mut configs = ctx.topic(topic.unwrap_or_default());
    let mut given = flags.for_topic(topic);
    let is_metadata = topic == Some("__cluster_metadata");
    let mut ignored = Vec::new();
    if is_metadata {
        given.retain(|name, _| {
            let fixed = fixed_for_metadata_log(name);
            if fixed {
                ignored.push(format!(
                    "{name}: ignored for __cluster_metadata: Kafka fixes its retention.ms and retention.bytes at -1; its segments go only below a snapshot, by metadata.max.retention.bytes and metadata.max.retention.ms"
                ));
            }
            !fixed
        });
    }
    let mut rest = apply_flags(&mut configs, &given);
    let mut retention = RetentionConfig::defaults(ctx.kafka_major);
    let topic_values: BTreeMap<String, String> = configs
        .iter()
        .filter(|(n, _)| {
            RetentionConfig::TOPIC_SETTINGS.contains(&n.as_str())
                || RetentionConfig::TIERED_SETTINGS.contains(&n.as_str())
        })
        .map(|(n, r)| (n.clone(), r.value.clone()))
        .collect();
    retention.apply(&topic_values)?;
    if let Some(r) = broker_setting(ctx, &rest, CHECK_INTERVAL) {
        configs.insert(CHECK_INTERVAL.to_string(), r);
    }
    let metadata = if is_metadata {
        let (bytes, ms) = metadata_retention(ctx.static_props.as_ref());
        for (name, mut r) in METADATA_LIMITS.into_iter().zip([bytes, ms]) {
            if let Some(flag) = rest.get(name) {
                r = Resolved::new(flag.trim(), ConfigSource::Flag);
            }
            configs.insert(name.to_string(), r);
        }
        Some(MetadataRetention {
            max_bytes: parse_limit(&configs[METADATA_LIMITS[0]], METADATA_LIMITS[0])?,
            max_ms: parse_limit(&configs[METADATA_LIMITS[1]], METADATA_LIMITS[1])?,
        })
    } else {
        None
    };
    rest.retain(|k, _| !METADATA_LIMITS.contains(&k.as_str()));
    retention
        .apply(&rest)
        .map_err(|e| format!("--config {e}"))?;
    Ok(TopicSettings {
        configs,
        retention,
        metadata,
        ignored,
    })
}

/// A warning when the settings applied to a partition's topic contradict
/// what its log dir shows: an entry in `cleaner-offset-checkpoint` means
/// the cleaner compacts the topic, so `cleanup.policy` includes `compact`.
pub fn policy_warning(
    partition: &Partition,
    topic: Option<&str>,
    config: &RetentionConfig,
) -> Result<Option<String>, LogDirError> {
    if config.compact
        || partition
            .checkpointed_offset("cleaner-offset-checkpoint")?
            .is_none()
    {
        return Ok(None);
    }
    let topic = topic.unwrap_or("TOPIC");
    Ok(Some(format!(
        "warning: {} has an entry in cleaner-offset-checkpoint, so its topic is compacted, but the settings applied here have no compact in cleanup.policy; pass --config {topic}:cleanup.policy=compact (or compact,delete) for its real fates",
        partition.name()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topics_own_setting_wins_and_bad_ones_are_named() {
        let flags = RetentionFlags::parse(
            None,
            &["retention.ms=1000".into(), "t:retention.ms=2000".into()],
        )
        .unwrap();
        assert_eq!(flags.for_topic(Some("t"))["retention.ms"], "2000");
        assert_eq!(flags.for_topic(Some("u"))["retention.ms"], "1000");
        let err = RetentionFlags::parse(None, &["retention.ms".into()]).unwrap_err();
        assert!(err.contains("expected NAME=VALUE"), "{err}");
        let err = RetentionFlags::parse(None, &["t:retention.ms=soon".into()]).unwrap_err();
        assert!(err.starts_with("--config t:"), "{err}");
    }

    #[test]
    fn retention_ms_given_for_the_metadata_log_is_ignored_and_said() {
        let flags = RetentionFlags::parse(None, &["retention.ms=1000".into()]).unwrap();
        let ctx = ConfigContext {
            kafka_major: 4,
            ..ConfigContext::default()
        };
        let s = settings_for(&ctx, &flags, Some("__cluster_metadata")).unwrap();
        assert_eq!(s.ignored.len(), 1);
        assert!(s.metadata.is_some());
        assert!(
            settings_for(&ctx, &flags, Some("t"))
                .unwrap()
                .ignored
                .is_empty()
        );
    }
}
