//! How healthy the image's partitions are, as `kafka-topics.sh --describe`
//! judges them (`TopicCommand.PartitionDescription`): under-replicated
//! when the ISR is smaller than the replicas (those being added by a
//! reassignment not counted), unavailable when there is no leader or the
//! leader is not a live broker (registered and unfenced, as
//! `DescribeCluster` lists them), under min ISR when there is no leader or
//! the ISR is smaller than the topic's `min.insync.replicas`. Leaderless
//! partitions are those with leader -1; offline ones are the unavailable.
//! The filters keep a partition that any chosen condition holds for, as
//! kafka-topics' do.

use std::collections::BTreeSet;

use serde::Serialize;

use super::image::MetadataImage;
use super::topics::PartitionImage;
use crate::inspect::cluster::config::resolve::{BrokerLayers, resolve_topic};

/// What holds for one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PartitionHealth {
    /// Its ISR is smaller than its replicas (less those being added).
    pub under_replicated: bool,
    /// No leader, or the leader is not a live broker.
    pub unavailable: bool,
    /// No leader, or its ISR is smaller than `min_insync_replicas`.
    pub under_min_isr: bool,
    /// Leader -1.
    pub leaderless: bool,
    /// The topic's `min.insync.replicas`.
    pub min_insync_replicas: i32,
}

/// Judges one partition, given the live brokers and the topic's min ISR.
pub fn partition_health(p: &PartitionImage, live: &BTreeSet<i32>, min_isr: i32) -> PartitionHealth {
    let leaderless = p.leader < 0;
    let replication_factor = p.replicas.len().saturating_sub(p.adding_replicas.len());
    PartitionHealth {
        under_replicated: p.isr.len() < replication_factor,
        unavailable: leaderless || !live.contains(&p.leader),
        under_min_isr: leaderless
            || i64::try_from(p.isr.len()).unwrap_or(i64::MAX) < i64::from(min_isr),
        leaderless,
        min_insync_replicas: min_isr,
    }
}

/// Which partitions to list: by topic name (none named: every topic), and
/// by condition (none chosen: every partition).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartitionFilter {
    /// Only these topics.
    pub topics: Vec<String>,
    /// Keep under-replicated partitions.
    pub under_replicated: bool,
    /// Keep unavailable partitions.
    pub unavailable: bool,
    /// Keep partitions under min ISR.
    pub under_min_isr: bool,
}

impl PartitionFilter {
    /// Whether the topic is one asked for.
    pub fn keeps_topic(&self, topic: &str) -> bool {
        self.topics.is_empty() || self.topics.iter().any(|t| t == topic)
    }

    /// Whether some condition is chosen.
    pub fn by_condition(&self) -> bool {
        self.under_replicated || self.unavailable || self.under_min_isr
    }

    /// Whether a partition in a topic asked for, with health `h`, is listed.
    pub fn keeps(&self, h: &PartitionHealth) -> bool {
        !self.by_condition()
            || (self.under_replicated && h.under_replicated)
            || (self.unavailable && h.unavailable)
            || (self.under_min_isr && h.under_min_isr)
    }
}

/// Counts over the whole image.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Topics.
    pub topics: usize,
    /// Partitions.
    pub partitions: usize,
    /// Unavailable partitions.
    pub offline: usize,
    /// Under-replicated partitions.
    pub under_replicated: usize,
    /// Partitions under min ISR.
    pub under_min_isr: usize,
    /// Partitions with leader -1.
    pub leaderless: usize,
    /// Registered brokers.
    pub brokers: usize,
    /// Of them, fenced.
    pub brokers_fenced: usize,
}

/// One listed partition.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed<'a> {
    /// Its topic's name.
    pub topic: &'a str,
    /// Its topic's id.
    pub topic_id: &'a str,
    /// Its index.
    pub partition: i32,
    /// Its image.
    pub image: &'a PartitionImage,
    /// What holds for it.
    pub health: PartitionHealth,
}

/// The summary and the partitions the filter keeps, by topic name then
/// partition.
#[derive(Debug, Clone, PartialEq)]
pub struct HealthReport<'a> {
    /// Counts over the whole image.
    pub summary: Summary,
    /// The partitions listed.
    pub listed: Vec<Listed<'a>>,
}

/// `min.insync.replicas` of `topic` from the image's dynamic configs: the
/// topic's override, else the cluster-wide dynamic default, else Kafka's
/// default (server.properties and per-broker configs are not in the image's
/// reach here); a value that is not a number counts as 1.
pub fn min_insync_replicas(image: &MetadataImage, topic: &str) -> i32 {
    let layers = BrokerLayers {
        dynamic: &image.configs,
        node_id: None,
        static_props: None,
        kafka_major: 4,
        image_topics: None,
    };
    resolve_topic(topic, &layers)
        .get("min.insync.replicas")
        .and_then(|r| r.value.trim().parse().ok())
        .unwrap_or(1)
}

/// Judges every partition of the image and lists those `filter` keeps.
pub fn assess<'a>(image: &'a MetadataImage, filter: &PartitionFilter) -> HealthReport<'a> {
    let live: BTreeSet<i32> = image
        .brokers
        .values()
        .filter(|b| !b.fenced)
        .map(|b| b.id)
        .collect();
    let mut summary = Summary {
        topics: image.topics.len(),
        brokers: image.brokers.len(),
        brokers_fenced: image.brokers.len() - live.len(),
        ..Summary::default()
    };
    let mut topics: Vec<_> = image.topics.in_id_order().collect();
    topics.sort_by(|a, b| a.name.cmp(&b.name));
    let mut listed = Vec::new();
    for t in topics {
        let min_isr = min_insync_replicas(image, &t.name);
        let wanted = filter.keeps_topic(&t.name);
        for (partition, p) in t.partitions.iter() {
            let health = partition_health(p, &live, min_isr);
            summary.partitions += 1;
            summary.offline += usize::from(health.unavailable);
            summary.under_replicated += usize::from(health.under_replicated);
            summary.under_min_isr += usize::from(health.under_min_isr);
            summary.leaderless += usize::from(health.leaderless);
            if wanted && filter.keeps(&health) {
                listed.push(Listed {
                    topic: &t.name,
                    topic_id: &t.id,
                    partition,
                    image: p,
                    health,
                });
            }
        }
    }
    HealthReport { summary, listed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partition(leader: i32, replicas: &[i32], isr: &[i32], adding: &[i32]) -> PartitionImage {
        PartitionImage {
            replicas: replicas.to_vec(),
            isr: isr.to_vec(),
            removing_replicas: Vec::new(),
            adding_replicas: adding.to_vec(),
            leader,
            leader_recovery_state: 0,
            leader_epoch: 0,
            partition_epoch: 0,
            directories: Vec::new(),
            eligible_leader_replicas: Vec::new(),
            last_known_elr: Vec::new(),
        }
    }

    #[test]
    fn conditions_follow_kafka_topics() {
        let live = BTreeSet::from([1, 2]);
        let healthy = partition_health(&partition(1, &[1, 2], &[1, 2], &[]), &live, 2);
        assert!(!healthy.under_replicated && !healthy.unavailable && !healthy.under_min_isr);
        // A replica being added is not yet owed a place in the ISR.
        let adding = partition_health(&partition(1, &[1, 2, 3], &[1, 2], &[3]), &live, 2);
        assert!(!adding.under_replicated);
        let short = partition_health(&partition(1, &[1, 2, 3], &[1], &[]), &live, 2);
        assert!(short.under_replicated && short.under_min_isr && !short.unavailable);
        // A leader on a fenced broker: unavailable, not leaderless.
        let fenced = partition_health(&partition(3, &[3], &[3], &[]), &live, 1);
        assert!(fenced.unavailable && !fenced.leaderless && !fenced.under_min_isr);
        let none = partition_health(&partition(-1, &[1], &[1], &[]), &live, 1);
        assert!(none.unavailable && none.leaderless && none.under_min_isr);
    }

    #[test]
    fn filters_keep_a_partition_any_chosen_condition_holds_for() {
        let live = BTreeSet::from([1]);
        let short = partition_health(&partition(1, &[1, 2], &[1], &[]), &live, 1);
        let mut f = PartitionFilter::default();
        assert!(f.keeps(&short));
        f.unavailable = true;
        assert!(!f.keeps(&short));
        f.under_replicated = true;
        assert!(f.keeps(&short));
        f.topics = vec!["a".into()];
        assert!(f.keeps_topic("a") && !f.keeps_topic("b"));
    }
}
