//! Kafka's read path, step by step: the floor segment, the offset-index
//! binary search, the batch-header scan; and the `offsetsForTimes` path by
//! timestamp. Every step keeps the numbers it used, as plain data that
//! `render::locate` prints as text or JSON.

mod by_offset;
mod by_timestamp;
mod segment;

pub use crate::inspect::entry_count::EntryCount;
pub use by_offset::{FoundBatch, OffsetLookup, OffsetVerdict, RecordAt, lookup_offset};
pub use by_timestamp::{TimestampLookup, TimestampSegment, lookup_timestamp};
pub use segment::{
    BatchRef, IndexStep, ScanStep, TimestampAnswer, find_by_timestamp, locate_in_segment,
    next_offset, scan_next_segment, time_index_step,
};

use crate::logdir::{LogDirError, Partition};

/// An offset and, in words, where it came from.
pub type SourcedOffset = (i64, String);

/// The log start offset lookups and retention assume, and where it came
/// from: `given`, else the partition's entry in `log-start-offset-checkpoint`
/// (never below the first segment's base), else the first segment's base
/// offset.
pub fn log_start_offset(
    partition: &Partition,
    given: Option<i64>,
) -> Result<SourcedOffset, LogDirError> {
    let first = partition.segments.first().map_or(0, |s| s.base_offset);
    Ok(
        match (
            given,
            partition.checkpointed_offset("log-start-offset-checkpoint")?,
        ) {
            (Some(o), _) => (o, "given on the command line".to_string()),
            (None, Some(o)) => (o.max(first), "log-start-offset-checkpoint".to_string()),
            (None, None) => (first, "the first segment's base offset".to_string()),
        },
    )
}

/// Fails on a partition directory without segments: nothing to look up.
fn require_segments(partition: &Partition) -> Result<(), LogDirError> {
    if partition.segments.is_empty() {
        return Err(LogDirError::not_understood(
            &partition.dir,
            "no segments (.log files) here",
        ));
    }
    Ok(())
}
