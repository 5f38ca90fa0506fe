//! Which topics `kseg config` describes: those the metadata image names,
//! and those whose partition directories are in the log dir.

use std::collections::BTreeMap;

use serde::Serialize;

use super::context::ConfigContext;
use super::resolve::TopicConfigs;
use crate::logdir::Partition;
use crate::logdir::properties_file::topic_id;
use crate::schema::InternalTopic;

/// One topic and its effective configs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopicEntry {
    /// The topic.
    pub topic: String,
    /// Its id: from the metadata image, else from a partition directory's
    /// `partition.metadata`.
    pub topic_id: Option<String>,
    /// Whether the metadata image has the topic.
    pub in_metadata: bool,
    /// Its partitions with a directory in the log dir.
    pub partition_dirs: Vec<i32>,
    /// The effective configs.
    pub configs: TopicConfigs,
}

fn dir_topic_id(partition: &Partition) -> Option<String> {
    topic_id(&partition.dir).ok()
}

/// The topics of the image and of `partitions`, by name, each with its
/// configs; only `only` when it is not empty.
pub fn topics(ctx: &ConfigContext, partitions: &[Partition], only: &[String]) -> Vec<TopicEntry> {
    let mut by_name: BTreeMap<String, (Option<String>, bool, Vec<i32>)> = BTreeMap::new();
    for (name, id) in &ctx.topic_ids {
        by_name.insert(name.clone(), (Some(id.clone()), true, Vec::new()));
    }
    for p in partitions {
        let Some((topic, partition)) = &p.topic_partition else {
            continue;
        };
        let entry = by_name
            .entry(topic.clone())
            .or_insert_with(|| (dir_topic_id(p), false, Vec::new()));
        entry.2.push(*partition);
    }
    by_name
        .into_iter()
        .filter(|(name, _)| only.is_empty() || only.contains(name))
        .map(|(topic, (topic_id, in_metadata, mut partition_dirs))| {
            partition_dirs.sort_unstable();
            TopicEntry {
                configs: ctx.topic(&topic),
                topic,
                topic_id,
                in_metadata,
                partition_dirs,
            }
        })
        .collect()
}

/// The topics `kseg config` describes when given one partition directory:
/// that partition's topic; none named (every topic, as for the log dir)
/// for the metadata partition, whose image names them all.
pub fn topics_of_partition(partition: &Partition) -> Vec<String> {
    match &partition.topic_partition {
        Some((topic, _)) if topic == InternalTopic::ClusterMetadata.topic_name() => Vec::new(),
        Some((topic, _)) => vec![topic.clone()],
        None => Vec::new(),
    }
}
