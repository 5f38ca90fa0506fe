//! One segment's part of a lookup: the index search and the batch-header
//! scan.

use serde::Serialize;

use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::index_search::SearchTrace;
use crate::format::offset_index::{OFFSET_INDEX_ENTRY_SIZE, OffsetIndex};
use crate::format::time_index::{TIME_INDEX_ENTRY_SIZE, TimeIndex};
use crate::format::{BatchSummary, FileBatch, SummaryIter};
use crate::inspect::index::entry_count::EntryCount;
use crate::logdir::{CachePolicy, MappedFile, Segment};

/// A batch as the scan saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchRef {
    /// First offset.
    pub base_offset: i64,
    /// Last offset.
    pub last_offset: i64,
    /// Byte position in the segment.
    pub position: u64,
    /// Size in bytes.
    pub size_in_bytes: u64,
    /// Max timestamp in the header.
    pub max_timestamp: i64,
    /// Leader epoch in the header (-1 for legacy).
    pub partition_leader_epoch: i32,
}

impl From<&BatchSummary> for BatchRef {
    fn from(s: &BatchSummary) -> Self {
        Self {
            base_offset: s.base_offset,
            last_offset: s.last_offset,
            position: s.position,
            size_in_bytes: s.size,
            max_timestamp: s.max_timestamp,
            partition_leader_epoch: s.partition_leader_epoch,
        }
    }
}

/// The index step of a lookup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexStep {
    /// Real entries in the index (a preallocated tail not counted).
    pub entries: usize,
    /// Slots read by the binary search, in order.
    pub probes: Vec<usize>,
    /// Whether the warm tail section was searched.
    pub warm_section: bool,
    /// The floor entry's key (offset or timestamp).
    pub floor_key: i64,
    /// The floor entry's offset.
    pub floor_offset: i64,
    /// The floor entry's position (offset index only).
    pub floor_position: i64,
    /// Bytes of index read.
    pub bytes_read: u64,
    /// Set when the index could not be used (missing, wrong size).
    pub problem: Option<String>,
}

/// The batch-header scan of a segment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScanStep {
    /// Segment base offset.
    pub segment: i64,
    /// Position the scan started at.
    pub start_position: u64,
    /// Batches visited.
    pub visited: Vec<BatchRef>,
    /// The batch that answers, if any.
    pub found: Option<BatchRef>,
    /// Bytes of log read (batch headers and, for timestamps, the found batch).
    pub bytes_read: u64,
    /// A framing error that stopped the scan.
    pub error: Option<String>,
}

impl IndexStep {
    /// A step that found nothing: the floor is the segment start.
    fn empty(floor_key: i64, floor_offset: i64, floor_position: i64) -> Self {
        Self {
            entries: 0,
            probes: Vec::new(),
            warm_section: false,
            floor_key,
            floor_offset,
            floor_position,
            bytes_read: 0,
            problem: None,
        }
    }

    /// Records how the binary search went.
    fn searched(&mut self, trace: SearchTrace, entry_size: usize) {
        self.bytes_read = (trace.probes.len() * entry_size) as u64;
        self.probes = trace.probes;
        self.warm_section = trace.warm;
    }
}

/// Loads a segment's offset index and runs the floor search.
fn offset_index_step(segment: &Segment, target: i64, count: EntryCount) -> IndexStep {
    let mut step = IndexStep::empty(segment.base_offset, segment.base_offset, 0);
    let file = match MappedFile::open(&segment.offset_index_path(), CachePolicy::Restore) {
        Ok(f) => f,
        Err(e) => {
            step.problem = Some(format!(
                "cannot read the offset index ({e}); scanning the segment from position 0"
            ));
            return step;
        }
    };
    let index = OffsetIndex::new(file.bytes(), segment.base_offset);
    if let Err(e) = index.sanity_check() {
        step.problem = Some(format!(
            "{}; scanning the segment from position 0",
            e.kafka_message(&segment.offset_index_path().display().to_string())
        ));
        return step;
    }
    step.entries = count.pick(index.live_entries(), index.kafka_entries());
    let (entry, trace) = index.lookup(target, step.entries);
    step.searched(trace, OFFSET_INDEX_ENTRY_SIZE);
    step.floor_key = entry.offset;
    step.floor_offset = entry.offset;
    step.floor_position = entry.position;
    step
}

/// Scans batch headers from `start` for the first batch matching `done`.
fn scan<'a>(
    log: &'a [u8],
    segment: i64,
    start: u64,
    mut done: impl FnMut(&FileBatch<'a>, &BatchSummary) -> bool,
) -> ScanStep {
    let mut step = ScanStep {
        segment,
        start_position: start,
        ..ScanStep::default()
    };
    for item in SummaryIter::new(log, start, DEFAULT_DECOMPRESS_LIMIT) {
        match item {
            Ok((batch, s)) => {
                step.bytes_read += 17;
                step.visited.push(BatchRef::from(&s));
                if done(&batch, &s) {
                    step.found = Some(BatchRef::from(&s));
                    break;
                }
            }
            Err(e) => {
                if !matches!(e.kind, crate::format::FormatErrorKind::TrailingBytes { .. }) {
                    step.error = Some(e.to_string());
                }
                break;
            }
        }
    }
    step
}

/// A lookup by offset within one segment: index floor, then the scan for
/// the first batch whose last offset is >= `target`.
pub fn locate_in_segment(
    segment: &Segment,
    log: &[u8],
    target: i64,
    count: EntryCount,
) -> (IndexStep, ScanStep) {
    let index = offset_index_step(segment, target, count);
    let start = index.floor_position.max(0) as u64;
    let scan = scan(log, segment.base_offset, start, |_, s| {
        s.last_offset >= target
    });
    (index, scan)
}

/// The first batch of `log` (from position 0) whose last offset is >= `target`:
/// what a fetch gets when the floor segment holds nothing at or above it.
pub fn scan_next_segment(segment: &Segment, log: &[u8], target: i64) -> ScanStep {
    scan(log, segment.base_offset, 0, |_, s| s.last_offset >= target)
}

/// The time-index step: the floor entry for `target` ((-1, base) when none).
pub fn time_index_step(segment: &Segment, target: i64, count: EntryCount) -> IndexStep {
    let mut step = IndexStep::empty(-1, segment.base_offset, -1);
    let Ok(file) = MappedFile::open(&segment.time_index_path(), CachePolicy::Restore) else {
        step.problem =
            Some("the time index is missing; starting from the segment's base offset".into());
        return step;
    };
    let index = TimeIndex::new(file.bytes(), segment.base_offset);
    step.entries = count.pick(index.live_entries(), index.kafka_entries());
    let (entry, trace) = index.lookup(target, step.entries);
    step.searched(trace, TIME_INDEX_ENTRY_SIZE);
    step.floor_key = entry.timestamp;
    step.floor_offset = entry.offset;
    step
}

/// The record a timestamp lookup answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimestampAnswer {
    /// The record's timestamp.
    pub timestamp: i64,
    /// Its offset.
    pub offset: i64,
    /// The batch's leader epoch (None for legacy batches).
    pub leader_epoch: Option<i32>,
}

/// `LogSegment.findOffsetByTimestamp`: time-index floor, offset-index floor,
/// scan for the first batch with max timestamp >= `target`, then its first
/// record with timestamp >= `target` and offset >= `starting_offset`.
pub fn find_by_timestamp(
    segment: &Segment,
    log: &[u8],
    target: i64,
    starting_offset: i64,
    count: EntryCount,
) -> (IndexStep, IndexStep, ScanStep, Option<TimestampAnswer>) {
    let time = time_index_step(segment, target, count);
    let offset = offset_index_step(segment, time.floor_offset.max(starting_offset), count);
    let mut answer = None;
    let mut scratch = Vec::new();
    let mut bytes_read = 0;
    let scan = scan(
        log,
        segment.base_offset,
        offset.floor_position.max(0) as u64,
        |batch, s| {
            if s.max_timestamp < target {
                return false;
            }
            bytes_read += batch.size();
            let decoded = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
            answer = decoded
                .records
                .iter()
                .find(|r| r.timestamp >= target && r.offset >= starting_offset)
                .map(|r| TimestampAnswer {
                    timestamp: r.timestamp,
                    offset: r.offset,
                    leader_epoch: (s.partition_leader_epoch >= 0 && !batch.is_legacy())
                        .then_some(s.partition_leader_epoch),
                });
            answer.is_some()
        },
    );
    let scan = ScanStep {
        bytes_read: scan.bytes_read + bytes_read,
        ..scan
    };
    (time, offset, scan, answer)
}

/// The offset after the last whole batch of a segment (its base offset when
/// empty), as Kafka's `readNextOffset` finds it: from the last offset-index
/// entry's batch onwards (from the start when the index cannot be used).
pub fn next_offset(segment: &Segment, log: &[u8]) -> i64 {
    let last_entry = MappedFile::open(&segment.offset_index_path(), CachePolicy::Restore)
        .ok()
        .and_then(|file| {
            let index = OffsetIndex::new(file.bytes(), segment.base_offset);
            index.sanity_check().ok()?;
            index
                .live_entries()
                .checked_sub(1)
                .and_then(|i| index.entry(i))
        });
    let from = |start: u64| {
        SummaryIter::new(log, start, DEFAULT_DECOMPRESS_LIMIT)
            .map_while(Result::ok)
            .last()
            .map(|(_, s)| s.last_offset.wrapping_add(1))
    };
    let indexed = last_entry
        .and_then(|e| u64::try_from(e.position).ok())
        .and_then(from);
    indexed.or_else(|| from(0)).unwrap_or(segment.base_offset)
}
