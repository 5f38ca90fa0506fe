//! The topic's `index.interval.bytes`, inferred from the offset indexes
//! Kafka already wrote for a partition.
//!
//! Kafka adds an offset-index entry for a batch when more than
//! `index.interval.bytes` bytes lie between the last indexed batch and this
//! one (`LogSegment.append` and `LogSegment.recover` alike), and the entry
//! holds the batch's last offset. So every batch of a segment bounds the
//! interval: an indexed batch `gap` bytes after the previous entry says
//! interval < gap, an unindexed one says interval >= gap. The bounds of a
//! few segments, intersected, give the range of settings that reproduce
//! their indexes exactly.

use crate::format::BatchIter;
use crate::format::batch::V2_HEADER_SIZE;
use crate::format::offset_index::{OffsetIndex, OffsetIndexEntry};
use crate::inspect::cluster::config::context::ConfigContext;
use crate::inspect::cluster::config::source::ConfigSource;
use crate::logdir::{CachePolicy, LogDirError, MappedFile, Partition};

use crate::inspect::index::build::DEFAULT_INDEX_INTERVAL_BYTES;

/// How many segments, newest first, inference reads.
const SEGMENTS_READ: usize = 4;

/// How many entries of each index inference reads (batch headers are read
/// up to the last of them, so the cost does not grow with segment size).
const ENTRIES_READ: usize = 64;

/// Kafka's largest `index.interval.bytes` (an `int` setting).
const MAX_INTERVAL: u64 = i32::MAX as u64;

/// The `index.interval.bytes` a command uses for a partition, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexInterval {
    /// The interval in bytes.
    pub bytes: u64,
    /// Where it came from.
    pub source: IntervalSource,
}

/// Where an [`IndexInterval`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntervalSource {
    /// Given on the command line.
    Given,
    /// The topic's effective config: the metadata log, the static broker
    /// config, or an internal topic's rule.
    Configured {
        /// The source, as Kafka's `DescribeConfigs` names it.
        source: &'static str,
        /// The source in words (with the metadata log offset that set it).
        described: String,
        /// The metadata log offset that set it.
        offset: Option<i64>,
    },
    /// Inferred from existing offset indexes.
    Inferred {
        /// Base offsets of the segments whose indexes were read.
        segments: Vec<i64>,
        /// The smallest interval that reproduces them.
        min: u64,
        /// The largest.
        max: u64,
    },
    /// Kafka's default, because nothing could be inferred.
    Default {
        /// Why nothing could be inferred.
        why: String,
    },
}

/// The bounds one segment's offset index puts on the interval, from its
/// live `entries` and the `(position, last offset)` of each batch in order.
/// `None` when the entries were not written one batch at a time (grouped
/// by a follower or the cleaner, corrupt, or not at batch starts), or when
/// there are none.
pub fn interval_bounds(
    entries: &[OffsetIndexEntry],
    batches: impl IntoIterator<Item = (u64, i64)>,
) -> Option<(u64, u64)> {
    let last_position = u64::try_from(entries.last()?.position).ok()?;
    let (mut min, mut max) = (0, MAX_INTERVAL);
    let mut next = entries.iter().peekable();
    let mut indexed_at = 0u64;
    for (position, last_offset) in batches {
        if position > last_position {
            break;
        }
        let gap = position - indexed_at;
        let entry = next.peek().copied();
        match entry {
            Some(e) if e.position >= 0 && e.position as u64 == position => {
                if e.offset != last_offset || gap == 0 {
                    return None;
                }
                max = max.min(gap - 1);
                indexed_at = position;
                next.next();
            }
            Some(e) if (e.position.max(0) as u64) < position => return None,
            _ => min = min.max(gap),
        }
    }
    (next.peek().is_none() && min <= max).then_some((min, max))
}

/// The setting to report from a range that reproduces the indexes: Kafka's
/// default when it fits, else the roundest value in the range (a power of
/// two, then a multiple of 1000, 100 or 10), else its smallest.
pub fn pick_interval(min: u64, max: u64) -> u64 {
    if (min..=max).contains(&DEFAULT_INDEX_INTERVAL_BYTES) {
        return DEFAULT_INDEX_INTERVAL_BYTES;
    }
    let power_of_two = min.max(1).checked_next_power_of_two();
    if let Some(p) = power_of_two.filter(|p| *p <= max) {
        return p;
    }
    [1000, 100, 10]
        .iter()
        .map(|step| min.div_ceil(*step) * step)
        .find(|m| *m <= max)
        .unwrap_or(min)
}

/// The bounds of one segment's existing offset index, reading at most
/// [`ENTRIES_READ`] entries and the batch headers up to the last of them.
fn segment_bounds(segment: &crate::logdir::Segment) -> Result<Option<(u64, u64)>, LogDirError> {
    let index_path = segment.offset_index_path();
    if !index_path.exists() {
        return Ok(None);
    }
    let index_file = MappedFile::open(&index_path, CachePolicy::Restore)?;
    let index = OffsetIndex::new(index_file.bytes(), segment.base_offset);
    if index.sanity_check().is_err() {
        return Ok(None);
    }
    let entries: Vec<OffsetIndexEntry> = index.entries().take(ENTRIES_READ).collect();
    let Some(last) = entries.last().and_then(|e| u64::try_from(e.position).ok()) else {
        return Ok(None);
    };
    // The walk reads headers up to the one at the last entry's position.
    let read = last.saturating_add(V2_HEADER_SIZE as u64);
    let log = MappedFile::open_restoring_prefix(&segment.log_path(), read)?;
    // Stops before framing a batch past the last entry (framing reads its
    // header, which may lie past the prefix the guard looks at).
    let mut iter = BatchIter::new(log.bytes(), 0);
    let batches = std::iter::from_fn(|| (iter.position() <= last).then(|| iter.next()).flatten())
        .map_while(Result::ok)
        .map_while(|b| Some((b.position, b.last_offset().ok()?)));
    Ok(interval_bounds(&entries, batches))
}

/// The interval for `partition`: `given` if set, else inferred from the
/// offset indexes of its newest segments (newest first, as long as they
/// agree: the setting may have changed over the partition's life), else
/// Kafka's default.
pub fn choose_interval(
    partition: &Partition,
    given: Option<u64>,
) -> Result<IndexInterval, LogDirError> {
    if let Some(bytes) = given {
        return Ok(IndexInterval {
            bytes,
            source: IntervalSource::Given,
        });
    }
    let (mut min, mut max) = (0, MAX_INTERVAL);
    let mut used = Vec::new();
    for segment in partition.segments.iter().rev() {
        if used.len() == SEGMENTS_READ {
            break;
        }
        let Some((lo, hi)) = segment_bounds(segment)? else {
            continue;
        };
        if lo.max(min) > hi.min(max) {
            break;
        }
        (min, max) = (lo.max(min), hi.min(max));
        used.push(segment.base_offset);
    }
    Ok(if used.is_empty() {
        IndexInterval {
            bytes: DEFAULT_INDEX_INTERVAL_BYTES,
            source: IntervalSource::Default {
                why: "no segment has an offset index written one batch at a time to infer it from"
                    .into(),
            },
        }
    } else {
        IndexInterval {
            bytes: pick_interval(min, max),
            source: IntervalSource::Inferred {
                segments: used,
                min,
                max,
            },
        }
    })
}

impl IndexInterval {
    /// The interval and its source in words.
    pub fn describe(&self) -> String {
        match &self.source {
            IntervalSource::Given => format!("index.interval.bytes {} (given)", self.bytes),
            IntervalSource::Configured { described, .. } => {
                format!(
                    "index.interval.bytes {} (the topic's config: {described})",
                    self.bytes
                )
            }
            IntervalSource::Inferred { segments, min, max } => format!(
                "index.interval.bytes {} (inferred from the offset indexes of segments {segments:?}: any value from {min} to {max} reproduces them)",
                self.bytes
            ),
            IntervalSource::Default { why } => format!(
                "index.interval.bytes {} (Kafka's default: {why}; pass --index-interval-bytes if the topic sets another)",
                self.bytes
            ),
        }
    }
}

/// The `index.interval.bytes` for `partition`: `--index-interval-bytes`
/// when given; else the topic's config when something sets it (the
/// metadata log, server.properties, an internal topic's rule); else
/// inferred from its offset indexes, as before.
pub fn configured_interval(
    ctx: &ConfigContext,
    partition: &Partition,
    given: Option<u64>,
) -> Result<IndexInterval, LogDirError> {
    if given.is_some() {
        return choose_interval(partition, given);
    }
    let configured = partition
        .topic_partition
        .as_ref()
        .and_then(|(topic, _)| ctx.topic(topic).remove("index.interval.bytes"))
        .filter(|r| r.source != ConfigSource::Default);
    if let Some(r) = configured {
        if let Ok(bytes) = r.value.trim().parse::<u64>() {
            return Ok(IndexInterval {
                bytes,
                source: IntervalSource::Configured {
                    source: r.source.name(),
                    described: r.describe(),
                    offset: r.offset,
                },
            });
        }
    }
    choose_interval(partition, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(offset: i64, position: i64) -> OffsetIndexEntry {
        OffsetIndexEntry { offset, position }
    }

    /// Batches of one record, 100 bytes each, at offsets 0, 1, 2, …
    fn batches(n: u64) -> impl Iterator<Item = (u64, i64)> {
        (0..n).map(|i| (i * 100, i as i64))
    }

    #[test]
    fn an_index_every_third_batch_bounds_the_interval() {
        // Entries at 300 and 600: gaps of 300 indexed, 200 not.
        let entries = [entry(3, 300), entry(6, 600)];
        assert_eq!(interval_bounds(&entries, batches(9)), Some((200, 299)));
        assert_eq!(pick_interval(200, 299), 256);
    }

    #[test]
    fn grouped_or_misplaced_entries_tell_nothing() {
        // The entry's offset is not its batch's last offset (a follower's chunk).
        assert_eq!(interval_bounds(&[entry(4, 300)], batches(9)), None);
        // An entry between batch starts.
        assert_eq!(interval_bounds(&[entry(3, 350)], batches(9)), None);
        // An entry past the log.
        assert_eq!(interval_bounds(&[entry(30, 3000)], batches(9)), None);
        // No entries.
        assert_eq!(interval_bounds(&[], batches(9)), None);
        // Gaps that contradict each other: 300 indexed, then 300 not.
        let entries = [entry(3, 300), entry(9, 900)];
        assert_eq!(interval_bounds(&entries, batches(10)), None);
    }

    #[test]
    fn the_default_and_round_values_win_within_the_range() {
        assert_eq!(pick_interval(4000, 4484), 4096);
        assert_eq!(pick_interval(550, 640), 600);
        assert_eq!(pick_interval(0, 0), 0);
        assert_eq!(pick_interval(1001, 1003), 1001);
    }
}
