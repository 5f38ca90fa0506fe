//! A segment's timestamps as Kafka sees them: the largest one retention and
//! timestamp lookups use, and where it came from.

use serde::Serialize;

use crate::format::SummaryIter;
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::time_index::TimeIndex;
use crate::inspect::index::entry_count::EntryCount;
use crate::logdir::{CachePolicy, MappedFile, Segment};

/// Where Kafka's largest timestamp of a segment comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TimestampSource {
    /// The last time-index entry (closed segments).
    TimeIndex,
    /// The batches' max timestamps (the active segment, in memory).
    Batches,
    /// The `.log` file's modification time: no timestamps at all.
    LogMtime,
}

/// The largest timestamp Kafka holds for a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KafkaTimestamp {
    /// Epoch ms.
    pub value: i64,
    /// Where it came from.
    pub source: TimestampSource,
}

/// For a closed segment the last time-index entry (the `.log` mtime when
/// the time index is empty); for the active one the largest batch max
/// timestamp. With [`EntryCount::AsOpened`], the last slot of the time index
/// file, as `LogSegment.open` on unrecovered files reads it.
pub fn largest_timestamp(
    segment: &Segment,
    log: &[u8],
    active: bool,
    count: EntryCount,
) -> KafkaTimestamp {
    let from_index = MappedFile::open(&segment.time_index_path(), CachePolicy::Restore)
        .ok()
        .and_then(|file| {
            let index = TimeIndex::new(file.bytes(), segment.base_offset);
            let last = match count {
                EntryCount::Live => index.last_entry(),
                EntryCount::AsOpened => index
                    .kafka_entries()
                    .checked_sub(1)
                    .and_then(|i| index.entry(i)),
            };
            last.map(|e| e.timestamp)
        });
    let from_batches = (active && count == EntryCount::Live)
        .then(|| batches_max_timestamp(log))
        .flatten();
    let (value, source) = match (from_batches, from_index) {
        (Some(b), i) if i.is_none_or(|i| b >= i) => (b, TimestampSource::Batches),
        (_, Some(i)) => (i, TimestampSource::TimeIndex),
        (_, None) => (-1, TimestampSource::LogMtime),
    };
    if value >= 0 {
        return KafkaTimestamp { value, source };
    }
    KafkaTimestamp {
        value: log_mtime_ms(segment),
        source: TimestampSource::LogMtime,
    }
}

/// The largest batch max timestamp in `log` (a header walk), if any is >= 0.
pub fn batches_max_timestamp(log: &[u8]) -> Option<i64> {
    SummaryIter::new(log, 0, DEFAULT_DECOMPRESS_LIMIT)
        .map_while(Result::ok)
        .map(|(_, s)| s.max_timestamp)
        .max()
        .filter(|&t| t >= 0)
}

/// The first batch's max timestamp: what Kafka's `segment.ms` clock counts
/// from for a reloaded segment.
pub fn first_batch_timestamp(log: &[u8]) -> Option<i64> {
    SummaryIter::new(log, 0, DEFAULT_DECOMPRESS_LIMIT)
        .next()
        .and_then(Result::ok)
        .map(|(_, s)| s.max_timestamp)
        .filter(|&t| t >= 0)
}

/// The `.log` file's modification time in epoch ms (0 when unknown).
pub fn log_mtime_ms(segment: &Segment) -> i64 {
    std::fs::metadata(segment.log_path())
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64)
}
