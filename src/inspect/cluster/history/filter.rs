//! Which events `kseg history` prints: a time window, a topic, a
//! partition, a broker; every condition given must hold.

use super::event::Event;

/// The events to keep.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryFilter {
    /// Appended at or after this time (epoch ms).
    pub since: Option<i64>,
    /// Appended at or before this time (epoch ms).
    pub until: Option<i64>,
    /// About this topic (its creation, deletion, partitions, configs).
    pub topic: Option<String>,
    /// About this partition (`topic`, id), or its topic's creation or deletion.
    pub partition: Option<(String, i32)>,
    /// Naming this broker ([`super::event::Change::names_broker`]).
    pub broker: Option<i32>,
}

/// `topic-N` as a topic and a partition id: the last `-` splits them.
pub fn parse_partition(text: &str) -> Result<(String, i32), String> {
    text.rsplit_once('-')
        .and_then(|(topic, n)| Some((topic.to_string(), n.parse().ok()?)))
        .filter(|(topic, n)| !topic.is_empty() && *n >= 0)
        .ok_or_else(|| format!("{text:?} is not topic-N"))
}

impl HistoryFilter {
    /// Whether a time is within `--since` and `--until` (`None`, no time: kept).
    pub fn keeps_time(&self, time: Option<i64>) -> bool {
        time.is_none_or(|t| self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t <= u))
    }

    /// Whether `event` is kept.
    pub fn keeps(&self, event: &Event) -> bool {
        let c = &event.change;
        self.keeps_time(Some(event.timestamp))
            && self.topic.as_ref().is_none_or(|t| c.topic() == Some(t))
            && self.partition.as_ref().is_none_or(|(t, p)| {
                c.topic() == Some(t)
                    && c.partition().is_none_or(|id| id == *p)
                    && (c.partition().is_some()
                        || matches!(c.kind(), "topicCreated" | "topicDeleted"))
            })
            && self.broker.is_none_or(|b| c.names_broker(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_split_at_the_last_dash() {
        assert_eq!(
            parse_partition("acme.late-1-3"),
            Ok(("acme.late-1".into(), 3))
        );
        assert!(parse_partition("orders").is_err());
        assert!(parse_partition("-3").is_err());
    }
}
