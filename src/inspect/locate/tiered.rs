//! An offset below a tiered partition's local log start, fetched as the
//! broker fetches it from remote storage (`ReplicaManager` sends a fetch
//! at or above the log start offset and below the local log start offset
//! to `RemoteLogManager.read`): the leader epoch of the offset from
//! `leader-epoch-checkpoint` (`epochForOffset`), then the finished remote
//! segment `RemoteLogMetadataCache.remoteLogSegmentMetadata(epoch, offset)`
//! names, from `__remote_log_metadata` replayed.

use crate::format::checkpoint::LeaderEpochEntry;
use crate::inspect::cluster::remote::object_key;
use crate::inspect::cluster::remote::placement::{DEFAULT_METADATA_PARTITIONS, metadata_partition};
use crate::inspect::cluster::remote::{
    RemoteLogState, RemotePartition, RemoteSegment, SegmentState,
};
use crate::inspect::diverge::epoch_cache::EpochCache;
use crate::inspect::diverge::replica::read_leader_epoch_checkpoint;
use crate::logdir::Partition;
use crate::logdir::properties_file::topic_id;

use super::SourcedOffset;

/// The remote half of a lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteFetch {
    /// The partition as `__remote_log_metadata` names it (`topicId:topic-partition`).
    pub partition_key: String,
    /// The log start offset (below it nothing is served) and its source.
    pub log_start_offset: SourcedOffset,
    /// The local log start offset (the first local offset).
    pub local_log_start_offset: i64,
    /// The `__remote_log_metadata` partition numbers replayed.
    pub metadata_partitions: Vec<i32>,
    /// The metadata partition holding this partition's segments with the
    /// default partition count.
    pub expected_metadata_partition: Option<i32>,
    /// The epoch `leader-epoch-checkpoint` puts the offset in.
    pub epoch: Option<LeaderEpochEntry>,
    /// The finished segments of that epoch, by where the epoch starts in each.
    pub epoch_segments: Vec<(i64, String)>,
    /// The answer.
    pub verdict: RemoteVerdict,
}

/// What a fetch below the local log start gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteVerdict {
    /// Served from this remote segment.
    Served {
        /// The segment.
        segment: RemoteSegment,
        /// Its `.log` in `LocalTieredStorage`'s layout.
        local_tiered_storage_key: String,
        /// Its `.log` in Aiven's layout (no prefix).
        aiven_key: String,
    },
    /// The offset is below the log start offset.
    BelowLogStart,
    /// The partition's leader epochs are unknown here (why).
    NoEpoch(String),
    /// No finished remote segment of the epoch holds the offset; a segment
    /// holding it whose upload or delete is under way, if one is known.
    NotUploaded(Option<RemoteSegment>),
    /// None of the metadata partitions read names the partition.
    NoMetadata,
}

impl RemoteFetch {
    /// Whether a consumer is served the offset from remote storage.
    pub fn is_served(&self) -> bool {
        matches!(self.verdict, RemoteVerdict::Served { .. })
    }
}

/// A tiered partition's log start offset (local and remote), and where
/// it came from: `given`, else `log-start-offset-checkpoint` as it is
/// (the broker does not raise it to the first local segment when the
/// topic is tiered), else the first remote segment's start, else the
/// local log start.
pub fn tiered_log_start(
    partition: &Partition,
    given: Option<i64>,
    remote: Option<&RemotePartition>,
    local_log_start: i64,
) -> SourcedOffset {
    let checkpointed = partition.checkpointed_offset("log-start-offset-checkpoint");
    match (given, checkpointed) {
        (Some(o), _) => (o, "given on the command line".to_string()),
        (None, Ok(Some(o))) => (o, "log-start-offset-checkpoint".to_string()),
        _ => match remote.and_then(|p| p.segments.values().map(|s| s.start_offset).min()) {
            Some(o) => (o, "the first remote segment's start offset".to_string()),
            None => (local_log_start, "the local log start offset".to_string()),
        },
    }
}

/// The ranges from `log_start` to before `local_log_start` that no
/// finished segment of `remote` holds (first, last): in neither tier, a
/// fetch of them gets OFFSET_OUT_OF_RANGE.
pub fn in_neither_tier(
    remote: &RemotePartition,
    log_start: i64,
    local_log_start: i64,
) -> Vec<(i64, i64)> {
    let mut held: Vec<(i64, i64)> = remote
        .segments
        .values()
        .filter(|s| s.state == SegmentState::CopyFinished)
        .map(|s| (s.start_offset, s.end_offset))
        .collect();
    held.sort();
    let mut gaps = Vec::new();
    let mut next = log_start;
    for (start, end) in held {
        if next >= local_log_start {
            break;
        }
        if start > next {
            gaps.push((next, (start - 1).min(local_log_start - 1)));
        }
        next = next.max(end + 1);
    }
    if next < local_log_start {
        gaps.push((next, local_log_start - 1));
    }
    gaps
}

/// The partition's topic, number and topic id (from its directory name
/// and `partition.metadata`), as `__remote_log_metadata` names it.
fn topic_id_partition(partition: &Partition) -> Option<(String, i32, String)> {
    let (topic, number) = partition.topic_partition.clone()?;
    let id = topic_id(&partition.dir).ok()?;
    Some((topic, number, id))
}

/// The partition's key in `__remote_log_metadata` (`topicId:topic-partition`),
/// from its directory name and `partition.metadata`.
pub fn remote_partition_key(partition: &Partition) -> Option<String> {
    let (topic, number, id) = topic_id_partition(partition)?;
    Some(format!("{id}:{topic}-{number}"))
}

/// The partition's leader epochs from `leader-epoch-checkpoint`, or why
/// they are unknown, naming the file.
pub fn leader_epochs(partition: &Partition) -> Result<EpochCache, String> {
    let path = partition.leader_epoch_checkpoint_path();
    match read_leader_epoch_checkpoint(partition) {
        None => Err(format!("{}: no such file", path.display())),
        Some(Err(why)) => Err(format!("{}: {why}", path.display())),
        Some(Ok(entries)) => Ok(EpochCache::from_entries(&entries)),
    }
}

/// The remote lookup of `target` in `partition`, whose local log starts at
/// `local_log_start`, against `remote` (replayed from the metadata
/// partitions numbered `metadata_partitions`); `given` is the log start
/// offset given on the command line. `None` when the partition has no
/// topic id or name to find it by.
pub fn remote_fetch(
    partition: &Partition,
    target: i64,
    (local_log_start, given): (i64, Option<i64>),
    remote: &RemoteLogState,
    metadata_partitions: Vec<i32>,
) -> Option<RemoteFetch> {
    let (topic, number, id) = topic_id_partition(partition)?;
    let partition_key = format!("{id}:{topic}-{number}");
    let state = remote.partitions.get(&partition_key);
    let log_start_offset = tiered_log_start(partition, given, state, local_log_start);
    let mut fetch = RemoteFetch {
        partition_key,
        log_start_offset,
        local_log_start_offset: local_log_start,
        metadata_partitions,
        expected_metadata_partition: metadata_partition(&id, number, DEFAULT_METADATA_PARTITIONS),
        epoch: None,
        epoch_segments: Vec::new(),
        verdict: RemoteVerdict::NoMetadata,
    };
    let Some(state) = state else {
        return Some(fetch);
    };
    if target < fetch.log_start_offset.0 {
        fetch.verdict = RemoteVerdict::BelowLogStart;
        return Some(fetch);
    }
    let epoch = leader_epochs(partition).map(|e| e.epoch_for_offset(target));
    let epoch = match epoch {
        Err(why) => {
            fetch.verdict = RemoteVerdict::NoEpoch(why);
            return Some(fetch);
        }
        Ok(None) => {
            fetch.verdict = RemoteVerdict::NoEpoch(format!(
                "leader-epoch-checkpoint has no epoch starting at or below {target}"
            ));
            return Some(fetch);
        }
        Ok(Some(e)) => e,
    };
    fetch.epoch = Some(epoch);
    let e = i64::from(epoch.epoch);
    fetch.epoch_segments = state
        .epoch_index
        .starts(e)
        .map(|(s, id)| (s, id.to_string()))
        .collect();
    fetch.verdict = match state.segment_for(e, target) {
        Some(s) => RemoteVerdict::Served {
            local_tiered_storage_key: object_key::local_tiered_storage(
                &topic,
                number,
                &id,
                s.start_offset,
                &s.id,
            ),
            aiven_key: object_key::aiven("", &topic, number, &id, s.start_offset, &s.id),
            segment: s.clone(),
        },
        None => RemoteVerdict::NotUploaded(
            state
                .segments
                .values()
                .find(|s| s.start_offset <= target && target <= s.end_offset)
                .cloned(),
        ),
    };
    Some(fetch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn finished(ranges: &[(i64, i64)]) -> RemotePartition {
        let mut p = RemotePartition::default();
        for (i, &(start, end)) in ranges.iter().enumerate() {
            p.segments.insert(
                i.to_string(),
                RemoteSegment {
                    id: i.to_string(),
                    start_offset: start,
                    end_offset: end,
                    max_timestamp_ms: 0,
                    broker_id: 0,
                    event_timestamp_ms: 0,
                    size_in_bytes: 0,
                    leader_epochs: BTreeMap::new(),
                    custom_metadata: None,
                    state: SegmentState::CopyFinished,
                    since_offset: 0,
                },
            );
        }
        p
    }

    #[test]
    fn gaps_between_the_log_start_and_the_local_log_start_are_found() {
        assert_eq!(
            in_neither_tier(&finished(&[(250, 399)]), 100, 384),
            [(100, 249)]
        );
        assert_eq!(
            in_neither_tier(&finished(&[(100, 199), (0, 49)]), 0, 300),
            [(50, 99), (200, 299)]
        );
        assert_eq!(in_neither_tier(&finished(&[(0, 120)]), 0, 100), []);
        assert_eq!(in_neither_tier(&finished(&[]), 384, 384), []);
        let mut deleting = finished(&[(0, 99)]);
        deleting.segments.get_mut("0").unwrap().state = SegmentState::DeleteStarted;
        assert_eq!(in_neither_tier(&deleting, 0, 100), [(0, 99)]);
    }
}
