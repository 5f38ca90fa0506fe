//! A consumer's lag offline: the log end offset of a committed
//! topic-partition whose directory sits in the same log dir, found as the
//! broker's `LogSegment.readNextOffset` finds it on the last segment, and
//! the high watermark the log dir's `replication-offset-checkpoint` holds
//! for it (what `kafka-consumer-groups.sh` measures lag against on a
//! running cluster: ListOffsets `latest` at READ_UNCOMMITTED).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::offsets::TopicPartition;
use super::shard::{Shard, ShareStateShard};
use crate::format::partition_metadata::read_partition_metadata;
use crate::inspect::locate::log_end_offset;
use crate::logdir::{LogDirError, Partition};

/// Where a partition of the log dir ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionEnd {
    /// Its log end offset.
    pub log_end_offset: i64,
    /// Its entry in `replication-offset-checkpoint`, if any.
    pub high_watermark: Option<i64>,
}

fn partition_end(dir: &Path) -> Result<PartitionEnd, LogDirError> {
    let partition = Partition::open(dir)?;
    Ok(PartitionEnd {
        log_end_offset: log_end_offset(&partition)?,
        high_watermark: partition.checkpointed_offset("replication-offset-checkpoint")?,
    })
}

/// The ends of those of `wanted` (topic id, partition) whose partition
/// directory in `log_dir` names that topic id in its `partition.metadata`,
/// with the topic's name.
fn log_end_offsets_by_topic_id(
    log_dir: &Path,
    wanted: &BTreeSet<(&str, i32)>,
) -> Result<ShareLogEnds, LogDirError> {
    let mut found = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(log_dir) else {
        return Ok(found);
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((topic, partition)) = name.rsplit_once('-') else {
            continue;
        };
        let Ok(partition) = partition.parse::<i32>() else {
            continue;
        };
        if !wanted.iter().any(|(_, p)| *p == partition) {
            continue;
        }
        let dir = entry.path();
        let Ok(bytes) = std::fs::read(dir.join("partition.metadata")) else {
            continue;
        };
        let Ok(metadata) = read_partition_metadata(&bytes) else {
            continue;
        };
        if wanted.contains(&(metadata.topic_id.as_str(), partition)) {
            let end = partition_end(&dir)?;
            found.insert((metadata.topic_id, partition), (topic.to_string(), end));
        }
    }
    Ok(found)
}

/// The ends of those of `wanted` that have a partition directory
/// (`<topic>-<partition>`) in `log_dir`.
pub fn log_end_offsets<'t>(
    log_dir: &Path,
    wanted: impl IntoIterator<Item = &'t TopicPartition>,
) -> Result<BTreeMap<TopicPartition, PartitionEnd>, LogDirError> {
    let mut found = BTreeMap::new();
    let wanted: BTreeSet<&TopicPartition> = wanted.into_iter().collect();
    for tp in wanted {
        let dir = log_dir.join(format!("{}-{}", tp.0, tp.1));
        if !dir.is_dir() {
            continue;
        }
        found.insert(tp.clone(), partition_end(&dir)?);
    }
    Ok(found)
}

/// Where each topic-partition a log dir's shards hold offsets for ends, by
/// log dir: each partition is opened once, however many shards hold its
/// groups' offsets.
pub type ConsumerLogEnds<'s> = BTreeMap<&'s Path, BTreeMap<TopicPartition, PartitionEnd>>;

/// The log end offsets of the data partitions the shards hold committed or
/// pending offsets for.
pub fn consumer_log_ends(shards: &[Shard]) -> Result<ConsumerLogEnds<'_>, LogDirError> {
    let mut wanted: BTreeMap<&Path, Vec<&TopicPartition>> = BTreeMap::new();
    for shard in shards {
        let offsets = &shard.state.offsets;
        let committed = offsets.committed.values().flat_map(BTreeMap::keys);
        let pending = offsets
            .pending
            .values()
            .flat_map(|g| g.values())
            .flat_map(BTreeMap::keys);
        wanted
            .entry(&shard.log_dir)
            .or_default()
            .extend(committed.chain(pending));
    }
    let mut ends = BTreeMap::new();
    for (log_dir, tps) in wanted {
        ends.insert(log_dir, log_end_offsets(log_dir, tps)?);
    }
    Ok(ends)
}

/// Where each share-partition's topic-partition ends, by (topic id,
/// partition), with the topic's name: found in the shard's log dir.
pub type ShareLogEnds = BTreeMap<(String, i32), (String, PartitionEnd)>;

/// The ends of the topic-partitions a `__share_group_state` shard holds
/// share-partitions of.
pub fn share_partition_ends(shard: &ShareStateShard) -> Result<ShareLogEnds, LogDirError> {
    let keys = shard.state.partitions.keys();
    let wanted: BTreeSet<(&str, i32)> = keys.map(|(_, t, p)| (t.as_str(), *p)).collect();
    log_end_offsets_by_topic_id(&shard.log_dir, &wanted)
}
