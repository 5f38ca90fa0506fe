//! One replica of the partition as its broker will hold it: the log that
//! recovery leaves (`LogLoader`), header by header, its leader-epoch cache,
//! its high watermark and its topic id.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use super::batch::ReplicaBatch;
use super::epoch_source::{LoadView, LoadedEpochs, load_epochs};
use crate::format::checkpoint::{LeaderEpochEntry, parse_leader_epoch_checkpoint};
use crate::inspect::producer::state::{PRODUCER_BATCHES_IN_MEMORY, ProducerExpiry};
use crate::inspect::recovery::partition::{LoadInputs, check_partition};
use crate::inspect::recovery::plan::SegmentAction;
use crate::inspect::recovery::segment::SegmentCheckOptions;
use crate::logdir::chunked::walk_summaries;
use crate::logdir::mapped::read_small;
use crate::logdir::page_cache::PageCacheGuard;
use crate::logdir::properties_file::topic_id;
use crate::logdir::{CachePolicy, LogDirError, Partition};

/// A replica, loaded.
#[derive(Debug, Clone)]
pub struct Replica {
    /// The directory as given.
    pub dir: PathBuf,
    /// Its files.
    pub partition: Partition,
    /// Topic id from `partition.metadata`.
    pub topic_id: Option<String>,
    /// The batches recovery keeps, in offset order.
    pub batches: Vec<ReplicaBatch>,
    /// Log start offset (`log-start-offset-checkpoint`, at least the first segment's base).
    pub log_start_offset: i64,
    /// Log end offset after loading.
    pub log_end_offset: i64,
    /// The leader-epoch cache its broker holds, where it came from, and
    /// how it compares with the batches.
    pub epochs: LoadedEpochs,
    /// From the log dir's `replication-offset-checkpoint`, bounded by the log
    /// as the broker bounds it at load; `None` without an entry.
    pub high_watermark: Option<i64>,
    /// What recovery truncates first when the log is damaged, in words.
    pub recovery_note: Option<String>,
}

/// How many bytes of each segment recovery keeps (`None`: every batch that frames).
fn kept_bytes(action: &SegmentAction, dir: &Path) -> Result<Option<u64>, LogDirError> {
    Ok(match action {
        SegmentAction::Keep | SegmentAction::CreateEmptyTimeIndex => None,
        SegmentAction::Recover { valid_bytes, .. } => Some(*valid_bytes),
        SegmentAction::Delete { .. } => Some(0),
        SegmentAction::Split => {
            return Err(LogDirError::not_understood(
                dir,
                "a segment overflows its relative offsets: Kafka splits it while loading, which kseg cannot predict",
            ));
        }
    })
}

/// The batches of `partition` that a load leaves, reading `kept[i]` bytes
/// of segment `i`.
fn read_batches(
    partition: &Partition,
    kept: &[Option<u64>],
) -> Result<Vec<ReplicaBatch>, LogDirError> {
    let mut batches = Vec::new();
    for (segment, limit) in partition.segments.iter().zip(kept) {
        if *limit == Some(0) {
            continue;
        }
        // Dropped after the walk: evicts what it brought into the page cache.
        let _cache = PageCacheGuard::open(&segment.log_path())?;
        walk_summaries(&segment.log_path(), |summary| {
            let Ok(s) = summary else {
                return ControlFlow::Break(());
            };
            if limit.is_some_and(|l| s.position + s.size > l) {
                return ControlFlow::Break(());
            }
            batches.push(ReplicaBatch {
                segment: segment.base_offset,
                position: s.position,
                size: s.size,
                base_offset: s.base_offset,
                last_offset: s.last_offset,
                records: s.count.map_or(1, |c| c.max(0) as u64),
                crc: s.crc,
                magic: s.magic,
                partition_leader_epoch: s.partition_leader_epoch,
                producer_id: s.producer_id,
                is_transactional: s.is_transactional,
                is_control: s.is_control,
                first_timestamp: s.base_timestamp,
                max_timestamp: s.max_timestamp,
            });
            ControlFlow::Continue(())
        })?;
    }
    Ok(batches)
}

/// `leader-epoch-checkpoint`: `None` when absent, else its entries or why it does not parse.
pub fn read_leader_epoch_checkpoint(
    partition: &Partition,
) -> Option<Result<Vec<LeaderEpochEntry>, String>> {
    let path = partition.leader_epoch_checkpoint_path();
    if !path.exists() {
        return None;
    }
    Some(
        read_small(&path, 64 << 20)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                parse_leader_epoch_checkpoint(&String::from_utf8_lossy(&text))
                    .map_err(|e| e.to_string())
            }),
    )
}

/// The topic id in `partition.metadata`, if the file is there and parses.
fn read_topic_id(partition: &Partition) -> Option<String> {
    topic_id(&partition.dir).ok()
}

/// Loads the replica in `dir` as its broker would on start.
pub fn load_replica(dir: &Path) -> Result<Replica, LogDirError> {
    let partition = Partition::open(dir)?;
    if partition.segments.is_empty() {
        return Err(LogDirError::not_understood(
            dir,
            "no .log segment: not a partition directory",
        ));
    }
    let options = SegmentCheckOptions {
        interval: 4096,
        deep: false,
        cache: CachePolicy::Restore,
        producer_batches_in_memory: PRODUCER_BATCHES_IN_MEMORY,
    };
    let load = LoadInputs {
        recovery_point: None,
        expiry: ProducerExpiry {
            now_ms: 0,
            expiration_ms: i64::MAX,
        },
    };
    let report = check_partition(&partition, &options, &load, &|_| {})?;
    let kept = report
        .plan
        .segments
        .iter()
        .map(|s| kept_bytes(&s.action, dir))
        .collect::<Result<Vec<_>, _>>()?;
    let batches = read_batches(&partition, &kept)?;
    let first_base = partition.segments.first().map_or(0, |s| s.base_offset);
    let log_start_offset = partition
        .checkpointed_offset("log-start-offset-checkpoint")?
        .unwrap_or(0)
        .max(first_base);
    let log_end_offset = batches.last().map_or(report.plan.log_end_offset, |b| {
        b.last_offset.saturating_add(1)
    });
    let replayed_segments: Vec<i64> = report.plan.recovered().map(|s| s.base_offset).collect();
    let replayed: Vec<bool> = batches
        .iter()
        .map(|b| replayed_segments.contains(&b.segment))
        .collect();
    let epochs = load_epochs(
        read_leader_epoch_checkpoint(&partition),
        LoadView {
            batches: &batches,
            replayed: &replayed,
            clean_shutdown: report.state.clean_shutdown,
            log_start: log_start_offset,
            log_end: log_end_offset,
        },
    );
    let high_watermark = partition
        .checkpointed_offset("replication-offset-checkpoint")?
        .map(|hw| hw.clamp(log_start_offset, log_end_offset.max(log_start_offset)));
    let recovery_note = report.plan.truncation.as_ref().map(|t| {
        format!(
            "damaged: Kafka's recovery first truncates segment {:020} at byte {} (first lost offset {}; {} bytes and {} records dropped); the log it leaves is used",
            t.segment, t.position, t.first_lost_offset, t.bytes_dropped, t.records_dropped
        )
    });
    Ok(Replica {
        dir: dir.to_path_buf(),
        topic_id: read_topic_id(&partition),
        partition,
        batches,
        log_start_offset,
        log_end_offset,
        epochs,
        high_watermark,
        recovery_note,
    })
}
