//! Where an effective config value came from, under the names Kafka's
//! `DescribeConfigs` gives its sources (`ConfigEntry.ConfigSource`), plus
//! the two kseg adds: a rule of the broker's own code for an internal
//! topic, and a flag on kseg's command line.

use serde::Serialize;

use crate::inspect::cluster::metadata::configs::SetBy;

/// A config's source, in order of precedence (first wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum ConfigSource {
    /// Given on kseg's command line (`--config`, `--config-file`, `--index-interval-bytes`).
    #[serde(rename = "FLAG")]
    Flag,
    /// A topic override (`ConfigRecord` of resource type TOPIC).
    #[serde(rename = "DYNAMIC_TOPIC_CONFIG")]
    DynamicTopic,
    /// A value the broker's code fixes for an internal topic (the
    /// coordinators' topic configs at creation, `KafkaMetadataLog`'s own).
    #[serde(rename = "INTERNAL_TOPIC_RULE")]
    InternalTopicRule,
    /// A dynamic config of this broker (`ConfigRecord` of resource type
    /// BROKER named by its node id).
    #[serde(rename = "DYNAMIC_BROKER_CONFIG")]
    DynamicBroker,
    /// A cluster-wide dynamic broker default (resource type BROKER, empty name).
    #[serde(rename = "DYNAMIC_DEFAULT_BROKER_CONFIG")]
    DynamicDefaultBroker,
    /// The broker's `server.properties` (`--server-properties`).
    #[serde(rename = "STATIC_BROKER_CONFIG")]
    StaticBroker,
    /// Kafka's default.
    #[serde(rename = "DEFAULT_CONFIG")]
    Default,
}

impl ConfigSource {
    /// The name in JSON (`DescribeConfigs`' name for Kafka's own sources).
    pub fn name(self) -> &'static str {
        match self {
            Self::Flag => "FLAG",
            Self::DynamicTopic => "DYNAMIC_TOPIC_CONFIG",
            Self::InternalTopicRule => "INTERNAL_TOPIC_RULE",
            Self::DynamicBroker => "DYNAMIC_BROKER_CONFIG",
            Self::DynamicDefaultBroker => "DYNAMIC_DEFAULT_BROKER_CONFIG",
            Self::StaticBroker => "STATIC_BROKER_CONFIG",
            Self::Default => "DEFAULT_CONFIG",
        }
    }

    /// Whether the value lives in the metadata log.
    pub fn is_metadata_log(self) -> bool {
        matches!(
            self,
            Self::DynamicTopic | Self::DynamicBroker | Self::DynamicDefaultBroker
        )
    }
}

/// One effective value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resolved {
    /// The value as the topic config takes it (broker values in hours or
    /// minutes converted to milliseconds).
    pub value: String,
    /// Its source.
    pub source: ConfigSource,
    /// The config name that was set, when it is not the topic config's own
    /// (a broker synonym such as `log.retention.hours`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synonym: Option<String>,
    /// The metadata log offset of the record that set it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    /// The end offset of the snapshot holding the record that set it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_end_offset: Option<i64>,
    /// For [`ConfigSource::InternalTopicRule`]: the rule, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// What else decides the setting, when this broker's value is not the
    /// whole story.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Resolved {
    /// A value from `source`, set under its own name.
    pub fn new(value: impl Into<String>, source: ConfigSource) -> Self {
        Self {
            value: value.into(),
            source,
            synonym: None,
            offset: None,
            snapshot_end_offset: None,
            rule: None,
            note: None,
        }
    }

    /// Notes where in the metadata log it was set.
    pub fn set_by(mut self, set_by: SetBy) -> Self {
        (self.offset, self.snapshot_end_offset) = set_by.offsets();
        self
    }

    /// The source in words: `DYNAMIC_TOPIC_CONFIG, metadata log offset 57`,
    /// `DEFAULT_CONFIG via log.retention.hours`, …
    pub fn describe(&self) -> String {
        let mut out = self.source.name().to_string();
        if let Some(name) = &self.synonym {
            out.push_str(&format!(" via {name}"));
        }
        out.push_str(&SetBy::describe_offsets(
            self.offset,
            self.snapshot_end_offset,
        ));
        if let Some(rule) = &self.rule {
            out.push_str(&format!(": {rule}"));
        }
        if let Some(note) = &self.note {
            out.push_str(&format!("; {note}"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_source_synonym_and_offset() {
        let r = Resolved {
            synonym: Some("log.retention.ms".into()),
            ..Resolved::new("5", ConfigSource::DynamicDefaultBroker)
        }
        .set_by(SetBy::Log { offset: 18 });
        assert_eq!(
            r.describe(),
            "DYNAMIC_DEFAULT_BROKER_CONFIG via log.retention.ms, metadata log offset 18"
        );
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::json!({"value": "5", "source": "DYNAMIC_DEFAULT_BROKER_CONFIG", "synonym": "log.retention.ms", "offset": 18})
        );
        assert!(ConfigSource::Flag < ConfigSource::DynamicTopic);
    }
}
