//! A fetch by offset across a partition: the floor segment, its index and
//! scan, the move to a later segment, and the verdict.

use crate::format::BatchIter;
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::inspect::index::entry_count::EntryCount;
use crate::logdir::{CachePolicy, LogDirError, MappedFile, Partition};

use super::segment::{
    BatchRef, IndexStep, ScanStep, locate_in_segment, next_offset, scan_next_segment,
};

/// The whole lookup of one offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetLookup {
    /// The offset asked for.
    pub target: i64,
    /// The log start offset assumed.
    pub log_start_offset: i64,
    /// The offset after the last batch of the last segment.
    pub log_end_offset: i64,
    /// Base offsets of the partition's segments, in order.
    pub segment_bases: Vec<i64>,
    /// The floor segment's steps; `None` when no segment starts at or below
    /// the target.
    pub floor: Option<FloorSteps>,
    /// The batch that answers, wherever it was found.
    pub found: Option<FoundBatch>,
    /// What the broker answers.
    pub verdict: OffsetVerdict,
}

/// The steps taken inside the floor segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FloorSteps {
    /// Its position among the segments.
    pub segment_index: usize,
    /// The offset-index search.
    pub index: IndexStep,
    /// The batch-header scan from the index's floor.
    pub scan: ScanStep,
    /// The scan of a later segment that served the fetch, when the floor
    /// segment held nothing at or above the target (emptied by compaction).
    pub served_by_next: Option<ScanStep>,
}

/// The batch a fetch of the target returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundBatch {
    /// Base offset of the segment holding it.
    pub segment: i64,
    /// The batch.
    pub batch: BatchRef,
    /// Its first record at or after the target, when the records decode.
    pub record: Option<RecordAt>,
}

/// One record, copied out of its batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordAt {
    /// Offset.
    pub offset: i64,
    /// Timestamp.
    pub timestamp: i64,
    /// Key (`None` for a null key).
    pub key: Option<Vec<u8>>,
    /// Value (`None` for a tombstone).
    pub value: Option<Vec<u8>>,
    /// Header keys and values.
    pub headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

/// What a consumer fetching the target gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OffsetVerdict {
    /// The target is in the batch found.
    Found,
    /// No segment starts at or below the target.
    BeforeFirstSegment,
    /// The target is below the log start offset (the batch may still be on disk).
    BeforeLogStart,
    /// Compaction removed the target; the fetch returns this next offset.
    Compacted {
        /// The next offset that exists.
        next_offset: i64,
    },
    /// The target is at or past the log end offset.
    PastLogEnd,
    /// Nothing holds the target: why (a framing error, or no batch).
    NotFound(String),
}

impl OffsetVerdict {
    /// Whether the broker serves the target itself.
    pub fn is_served(&self) -> bool {
        matches!(self, Self::Found)
    }
}

fn open(partition: &Partition, i: usize) -> Result<MappedFile, LogDirError> {
    MappedFile::open(&partition.segments[i].log_path(), CachePolicy::Restore)
}

/// Looks `target` up in `partition` as a fetch does, with `log_start` as
/// the log start offset and `count` choosing which index entries are searched.
pub fn lookup_offset(
    partition: &Partition,
    target: i64,
    log_start: i64,
    count: EntryCount,
) -> Result<OffsetLookup, LogDirError> {
    super::bounds::require_segments(partition)?;
    let last = partition.segments.len() - 1;
    let mut lookup = OffsetLookup {
        target,
        log_start_offset: log_start,
        log_end_offset: next_offset(&partition.segments[last], open(partition, last)?.bytes()),
        segment_bases: partition.segments.iter().map(|s| s.base_offset).collect(),
        floor: None,
        found: None,
        verdict: OffsetVerdict::BeforeFirstSegment,
    };
    let Some(i) = partition.floor_segment(target) else {
        return Ok(lookup);
    };
    let segment = &partition.segments[i];
    let floor_log = open(partition, i)?;
    let (index, scan) = locate_in_segment(segment, floor_log.bytes(), target, count);
    let mut found = scan.found.map(|b| (i, b));
    let mut served_by_next = None;
    if found.is_none() && scan.error.is_none() {
        for j in i + 1..partition.segments.len() {
            let next_scan =
                scan_next_segment(&partition.segments[j], open(partition, j)?.bytes(), target);
            if let Some(b) = next_scan.found {
                found = Some((j, b));
                served_by_next = Some(next_scan);
                break;
            }
        }
    }
    let scan_error = scan.error.clone();
    lookup.floor = Some(FloorSteps {
        segment_index: i,
        index,
        scan,
        served_by_next,
    });
    let Some((j, batch)) = found else {
        lookup.verdict = if target >= lookup.log_end_offset {
            OffsetVerdict::PastLogEnd
        } else {
            OffsetVerdict::NotFound(scan_error.unwrap_or_else(|| "no batch holds it".into()))
        };
        return Ok(lookup);
    };
    let later_log;
    let log = if j == i {
        &floor_log
    } else {
        later_log = open(partition, j)?;
        &later_log
    };
    let record = first_record_at_or_after(log.bytes(), batch.position, target);
    lookup.verdict = match &record {
        Some(r) if r.offset != target && target >= log_start => OffsetVerdict::Compacted {
            next_offset: r.offset,
        },
        _ if target < log_start => OffsetVerdict::BeforeLogStart,
        _ => OffsetVerdict::Found,
    };
    lookup.found = Some(FoundBatch {
        segment: partition.segments[j].base_offset,
        batch,
        record,
    });
    Ok(lookup)
}

/// The first record at or after `target` in the batch at `position`.
fn first_record_at_or_after(log: &[u8], position: u64, target: i64) -> Option<RecordAt> {
    let batch = BatchIter::new(log, position).next()?.ok()?;
    let mut scratch = Vec::new();
    let decoded = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
    let r = decoded.records.iter().find(|r| r.offset >= target)?;
    Some(RecordAt {
        offset: r.offset,
        timestamp: r.timestamp,
        key: r.key.map(<[u8]>::to_vec),
        value: r.value.map(<[u8]>::to_vec),
        headers: r
            .headers
            .iter()
            .map(|h| (h.key.to_vec(), h.value.map(<[u8]>::to_vec)))
            .collect(),
    })
}
