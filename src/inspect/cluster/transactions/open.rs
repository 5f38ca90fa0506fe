//! The transactions a data partition holds open, from the producer state
//! the broker rebuilds when it loads the partition (`ProducerStateManager`:
//! the latest producer snapshot at or below the log end, then the batches
//! after it), and the last stable offset they hold back
//! (`UnifiedLog.lastStableOffset`: the first open transaction's first
//! offset, `ProducerStateManager.firstUnstableOffset`, when below the high
//! watermark).

use std::ops::ControlFlow;

use crate::format::producer_snapshot::parse_producer_snapshot;
use crate::inspect::cluster::groups::lag::log_end_offset;
use crate::inspect::producer::state::{ProducerState, for_each_producer_batch};
use crate::logdir::mapped::read_small;
use crate::logdir::{LogDirError, Partition};

/// Producer snapshots are small: an entry is 42 bytes.
const SNAPSHOT_READ_LIMIT: u64 = 1 << 30;

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
    /// Where read_committed consumers stop: the first open transaction's
    /// first offset when below the high watermark, else the high watermark.
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
            let bytes = read_small(&path, SNAPSHOT_READ_LIMIT).ok()?;
            let snapshot = parse_producer_snapshot(&bytes).ok()?;
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
    for (i, segment) in partition.segments.iter().enumerate() {
        let next_base = partition.segments.get(i + 1).map(|s| s.base_offset);
        if next_base.is_some_and(|next| next <= start) {
            continue;
        }
        for_each_producer_batch(&segment.log_path(), segment.log_size(), None, |b| {
            if b.base_offset >= start {
                state.apply(b);
            }
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
    let high_watermark = partition
        .checkpointed_offset("replication-offset-checkpoint")?
        .unwrap_or(log_end_offset);
    let last_stable_offset = open
        .first()
        .map(|t| t.first_offset)
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
