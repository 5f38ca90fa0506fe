//! Topic and broker settings that decide retention, under Kafka's names,
//! with Kafka's defaults for 3.x and 4.x.

use std::collections::BTreeMap;

/// The settings `retention-report` needs.
#[derive(Debug, Clone, PartialEq)]
pub struct RetentionConfig {
    /// `retention.ms` (-1: unlimited).
    pub retention_ms: i64,
    /// `retention.bytes` (-1: unlimited).
    pub retention_bytes: i64,
    /// `segment.ms`.
    pub segment_ms: i64,
    /// `segment.bytes`.
    pub segment_bytes: i64,
    /// `segment.jitter.ms`.
    pub segment_jitter_ms: i64,
    /// `segment.index.bytes`.
    pub segment_index_bytes: i64,
    /// `cleanup.policy` contains `delete`.
    pub delete: bool,
    /// `cleanup.policy` contains `compact`.
    pub compact: bool,
    /// `delete.retention.ms`.
    pub delete_retention_ms: i64,
    /// `min.cleanable.dirty.ratio`.
    pub min_cleanable_dirty_ratio: f64,
    /// `min.compaction.lag.ms`.
    pub min_compaction_lag_ms: i64,
    /// `max.compaction.lag.ms`.
    pub max_compaction_lag_ms: i64,
    /// `message.timestamp.after.max.ms`.
    pub timestamp_after_max_ms: i64,
    /// Broker `log.retention.check.interval.ms`.
    pub retention_check_interval_ms: i64,
    /// `file.delete.delay.ms` (broker `log.segment.delete.delay.ms`).
    pub file_delete_delay_ms: i64,
    /// `remote.storage.enable`: the topic is tiered.
    pub remote_storage_enable: bool,
    /// `remote.log.copy.disable`: a tiered topic whose uploads are stopped.
    pub remote_log_copy_disable: bool,
    /// `local.retention.ms` (-2: retention.ms).
    pub local_retention_ms: i64,
    /// `local.retention.bytes` (-2: retention.bytes).
    pub local_retention_bytes: i64,
}

impl RetentionConfig {
    /// The topic configs these settings are made of (the rest are broker
    /// settings: `log.retention.check.interval.ms`).
    pub const TOPIC_SETTINGS: &'static [&'static str] = &[
        "cleanup.policy",
        "delete.retention.ms",
        "file.delete.delay.ms",
        "max.compaction.lag.ms",
        "message.timestamp.after.max.ms",
        "min.cleanable.dirty.ratio",
        "min.compaction.lag.ms",
        "retention.bytes",
        "retention.ms",
        "segment.bytes",
        "segment.index.bytes",
        "segment.jitter.ms",
        "segment.ms",
    ];

    /// The topic configs of tiered storage retention reads (shown for a
    /// tiered topic only).
    pub const TIERED_SETTINGS: &'static [&'static str] = &[
        "local.retention.bytes",
        "local.retention.ms",
        "remote.log.copy.disable",
        "remote.storage.enable",
    ];

    /// Whether Kafka uploads this topic's segments
    /// (`remoteLogEnabledAndRemoteCopyEnabled`): local retention then
    /// applies, and only to uploaded segments.
    pub fn uploads(&self) -> bool {
        self.remote_storage_enable && !self.remote_log_copy_disable
    }

    /// The settings local segments are deleted by: for a topic that
    /// uploads, `local.retention.ms` and `local.retention.bytes` in place
    /// of retention.ms and retention.bytes (-2 meaning those), as
    /// `UnifiedLog.localRetentionMs` and `localRetentionSize` take them.
    pub fn for_local_segments(&self) -> Self {
        let mut local = self.clone();
        if self.uploads() {
            if self.local_retention_ms != -2 {
                local.retention_ms = self.local_retention_ms;
            }
            if self.local_retention_bytes != -2 {
                local.retention_bytes = self.local_retention_bytes;
            }
        }
        local
    }

    /// Kafka's defaults for major version `major` (3 or 4).
    pub fn defaults(major: u8) -> Self {
        Self {
            retention_ms: 604_800_000,
            retention_bytes: -1,
            segment_ms: 604_800_000,
            segment_bytes: 1 << 30,
            segment_jitter_ms: 0,
            segment_index_bytes: 10 << 20,
            delete: true,
            compact: false,
            delete_retention_ms: 86_400_000,
            min_cleanable_dirty_ratio: 0.5,
            min_compaction_lag_ms: 0,
            max_compaction_lag_ms: i64::MAX,
            timestamp_after_max_ms: if major >= 4 { 3_600_000 } else { i64::MAX },
            retention_check_interval_ms: 300_000,
            file_delete_delay_ms: 60_000,
            remote_storage_enable: false,
            remote_log_copy_disable: false,
            local_retention_ms: -2,
            local_retention_bytes: -2,
        }
    }

    /// Applies `name=value` settings (topic names, or the broker's `log.` names).
    pub fn apply(&mut self, settings: &BTreeMap<String, String>) -> Result<(), String> {
        for (name, value) in settings {
            let int = || {
                value
                    .trim()
                    .parse::<i64>()
                    .map_err(|_| format!("{name}: {value:?} is not an integer"))
            };
            match name.as_str() {
                "retention.ms" | "log.retention.ms" => self.retention_ms = int()?,
                "log.retention.minutes" => self.retention_ms = int()? * 60_000,
                "log.retention.hours" => self.retention_ms = int()? * 3_600_000,
                "retention.bytes" | "log.retention.bytes" => self.retention_bytes = int()?,
                "segment.ms" | "log.roll.ms" => self.segment_ms = int()?,
                "log.roll.hours" => self.segment_ms = int()? * 3_600_000,
                "segment.bytes" | "log.segment.bytes" => self.segment_bytes = int()?,
                "segment.jitter.ms" | "log.roll.jitter.ms" => self.segment_jitter_ms = int()?,
                "segment.index.bytes" | "log.index.size.max.bytes" => {
                    self.segment_index_bytes = int()?
                }
                "delete.retention.ms" | "log.cleaner.delete.retention.ms" => {
                    self.delete_retention_ms = int()?
                }
                "min.compaction.lag.ms" | "log.cleaner.min.compaction.lag.ms" => {
                    self.min_compaction_lag_ms = int()?
                }
                "max.compaction.lag.ms" | "log.cleaner.max.compaction.lag.ms" => {
                    self.max_compaction_lag_ms = int()?
                }
                "message.timestamp.after.max.ms" | "log.message.timestamp.after.max.ms" => {
                    self.timestamp_after_max_ms = int()?
                }
                "log.retention.check.interval.ms" => self.retention_check_interval_ms = int()?,
                "file.delete.delay.ms" | "log.segment.delete.delay.ms" => {
                    self.file_delete_delay_ms = int()?
                }
                "min.cleanable.dirty.ratio" | "log.cleaner.min.cleanable.ratio" => {
                    self.min_cleanable_dirty_ratio = value
                        .trim()
                        .parse()
                        .map_err(|_| format!("{name}: {value:?} is not a number"))?
                }
                "local.retention.ms" | "log.local.retention.ms" => self.local_retention_ms = int()?,
                "local.retention.bytes" | "log.local.retention.bytes" => {
                    self.local_retention_bytes = int()?
                }
                "remote.storage.enable" => self.remote_storage_enable = boolean(name, value)?,
                "remote.log.copy.disable" => self.remote_log_copy_disable = boolean(name, value)?,
                "cleanup.policy" | "log.cleanup.policy" => {
                    let policies: Vec<&str> = value.split(',').map(str::trim).collect();
                    self.delete = policies.contains(&"delete");
                    self.compact = policies.contains(&"compact");
                }
                _ => return Err(format!("{name}: not a setting retention-report uses")),
            }
        }
        Ok(())
    }
}

/// A boolean setting as Kafka's config parser takes it (case does not matter).
fn boolean(name: &str, value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{name}: {value:?} is not true or false")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_topic_and_broker_names() {
        let mut c = RetentionConfig::defaults(3);
        let settings: BTreeMap<String, String> = [
            ("log.retention.hours", "24"),
            ("cleanup.policy", "compact,delete"),
            ("retention.bytes", "100"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        c.apply(&settings).unwrap();
        assert_eq!(c.retention_ms, 86_400_000);
        assert!(c.compact && c.delete);
        assert_eq!(c.retention_bytes, 100);
        assert!(
            c.apply(
                &[("retention.ms".to_string(), "x".to_string())]
                    .into_iter()
                    .collect()
            )
            .is_err()
        );
        assert_eq!(
            RetentionConfig::defaults(4).timestamp_after_max_ms,
            3_600_000
        );
    }
}
