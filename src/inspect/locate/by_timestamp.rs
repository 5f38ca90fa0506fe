//! `offsetsForTimes` across a partition: the first segment whose largest
//! timestamp reaches the target, then that segment's search.

use crate::inspect::index::entry_count::EntryCount;
use crate::inspect::locate::segment_time::largest_timestamp;
use crate::logdir::{CachePolicy, LogDirError, MappedFile, Partition};

use super::segment::{IndexStep, ScanStep, TimestampAnswer, find_by_timestamp};

/// The whole lookup of one timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimestampLookup {
    /// The timestamp asked for (epoch ms).
    pub target: i64,
    /// The log start offset assumed (no answer below it).
    pub log_start_offset: i64,
    /// The segment searched; `None` when every record is older than the target.
    pub segment: Option<TimestampSegment>,
}

impl TimestampLookup {
    /// Whether Kafka answers with an offset.
    pub fn is_served(&self) -> bool {
        self.segment.as_ref().is_some_and(|s| s.answer.is_some())
    }
}

/// The search inside the first segment whose largest timestamp reaches the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimestampSegment {
    /// Its base offset.
    pub base_offset: i64,
    /// Its largest timestamp, as Kafka takes it.
    pub largest_timestamp: i64,
    /// The time-index search.
    pub time_index: IndexStep,
    /// The offset-index search for the time index's floor offset.
    pub offset_index: IndexStep,
    /// The batch scan.
    pub scan: ScanStep,
    /// The record found; `None` means Kafka answers nothing (it does not
    /// look in later segments).
    pub answer: Option<TimestampAnswer>,
}

/// Looks `target` up in `partition` as `offsetsForTimes` does.
pub fn lookup_timestamp(
    partition: &Partition,
    target: i64,
    log_start: i64,
    count: EntryCount,
) -> Result<TimestampLookup, LogDirError> {
    super::bounds::require_segments(partition)?;
    let last = partition.segments.len() - 1;
    let mut lookup = TimestampLookup {
        target,
        log_start_offset: log_start,
        segment: None,
    };
    for (i, segment) in partition.segments.iter().enumerate() {
        let log = MappedFile::open(&segment.log_path(), CachePolicy::Restore)?;
        let largest = largest_timestamp(segment, log.bytes(), i == last, count).value;
        if largest < target {
            continue;
        }
        let (time_index, offset_index, scan, answer) =
            find_by_timestamp(segment, log.bytes(), target, log_start, count);
        lookup.segment = Some(TimestampSegment {
            base_offset: segment.base_offset,
            largest_timestamp: largest,
            time_index,
            offset_index,
            scan,
            answer,
        });
        break;
    }
    Ok(lookup)
}
