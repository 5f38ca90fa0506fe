//! The transactions a data partition holds open, from the producer state
//! the broker rebuilds when it loads the partition (`ProducerStateManager`:
//! the latest producer snapshot at or below the log end, then the batches
//! after it), and the last stable offset they hold back
//! (`UnifiedLog.lastStableOffset`: `ProducerStateManager.firstUnstableOffset`
//! when below the high watermark, which is the first offset of the earliest
//! transaction still open or completed by a marker at or past the high
//! watermark, storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java:247-267).

use std::ops::ControlFlow;

use crate::format::producer_snapshot::parse_producer_snapshot;
use crate::inspect::locate::log_end_offset;
use crate::inspect::producer::state::{ProducerState, for_each_producer_batch};
use crate::logdir::{CachePolicy, LogDirError, MappedFile, Partition};

/// A transaction open in a partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenTxn {
    /// Its producer.
    pub producer_id: i64,
    /// The producer's epoch.
    pub producer_epoch: i16,
    /// The transaction's first offset.
    pub first_offset: i64,
    /// The producer's last batch's timestamp (`lastTimestamp`).
    pub last_timestamp: i64,
    /// The coordinator epoch of the producer's last marker here (-1: none).
    pub coordinator_epoch: i32,
}

/// One data partition's open transactions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionTxns {
    /// `topic-partition` (the directory name when it has no such shape).
    pub name: String,
    /// Topic and partition, when the directory name has that shape.
    pub topic_partition: Option<(String, i32)>,
    /// Open transactions, by first offset.
    pub open: Vec<OpenTxn>,
    /// The log end offset.
    pub log_end_offset: i64,
    /// The high watermark: the log dir's `replication-offset-checkpoint`
    /// entry, else the log end offset.
    pub high_watermark: i64,
    /// Where read_committed consumers stop: the first offset of the
    /// earliest transaction open, or ended by a marker at or past the high
    /// watermark, when below the high watermark; else the high watermark.
    pub last_stable_offset: i64,
    /// The producer snapshot the replay started from, if any.
    pub from_snapshot: Option<i64>,
}

/// The latest producer snapshot at or below `log_end` that parses.
fn latest_snapshot(partition: &Partition, log_end: i64) -> Option<(i64, ProducerState)> {
    partition
        .snapshots
        .iter()
        .rev()
        .filter(|&&o| o <= log_end)
        .find_map(|&offset| {
            let path = crate::logdir::Segment::new(&partition.dir, offset).snapshot_path();
            // Mapped, not read: nothing is allocated for the file's bytes,
            // and the entries parsed are bounded by its length.
            let file = MappedFile::open(&path, CachePolicy::Restore).ok()?;
            let snapshot = parse_producer_snapshot(file.bytes()).ok()?;
            Some((offset, ProducerState::from_snapshot(&snapshot, offset)))
        })
}

/// Rebuilds `partition`'s producer state and lists its open transactions.
pub fn open_transactions(partition: &Partition) -> Result<PartitionTxns, LogDirError> {
    let log_end_offset = log_end_offset(partition)?;
    let snapshot = latest_snapshot(partition, log_end_offset);
    let from_snapshot = snapshot.as_ref().map(|(o, _)| *o);
    let (start, mut state) = snapshot.unwrap_or_else(|| {
        let start = partition.segments.first().map_or(0, |s| s.base_offset);
        (start, ProducerState::empty(start))
    });
    let high_watermark = partition
        .checkpointed_offset("replication-offset-checkpoint")?
        .unwrap_or(log_end_offset);
    // The first offset of the earliest transaction whose marker is at or
    // past the high watermark (`unreplicatedTxns`).
    let mut unreplicated: Option<i64> = None;
    for (i, segment) in partition.segments.iter().enumerate() {
        let next_base = partition.segments.get(i + 1).map(|s| s.base_offset);
        if next_base.is_some_and(|next| next <= start) {
            continue;
        }
        for_each_producer_batch(&segment.log_path(), segment.log_size(), None, |b| {
            if b.base_offset < start {
                return ControlFlow::Continue(());
            }
            if b.end_marker.is_some() && b.base_offset >= high_watermark {
                let first = state
                    .entries()
                    .iter()
                    .find(|e| e.producer_id == b.producer_id)
                    .map_or(-1, |e| e.current_txn_first_offset);
                if first >= 0 {
                    unreplicated = Some(unreplicated.map_or(first, |u| u.min(first)));
                }
            }
            state.apply(b);
            ControlFlow::Continue(())
        })?;
    }
    let mut open: Vec<OpenTxn> = state
        .entries()
        .iter()
        .filter(|e| e.current_txn_first_offset >= 0)
        .map(|e| OpenTxn {
            producer_id: e.producer_id,
            producer_epoch: e.producer_epoch,
            first_offset: e.current_txn_first_offset,
            last_timestamp: e.timestamp,
            coordinator_epoch: e.coordinator_epoch,
        })
        .collect();
    open.sort_by_key(|t| t.first_offset);
    let undecided = open.first().map(|t| t.first_offset);
    let first_unstable = match (undecided, unreplicated) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let last_stable_offset = first_unstable
        .filter(|&first| first < high_watermark)
        .unwrap_or(high_watermark);
    Ok(PartitionTxns {
        name: partition.name(),
        topic_partition: partition.topic_partition.clone(),
        open,
        log_end_offset,
        high_watermark,
        last_stable_offset,
        from_snapshot,
    })
}
