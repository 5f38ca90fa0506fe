//! Everything `kseg verify` learns about one segment in one pass: the walk
//! recovery would do (CRC included), and how its indexes relate to the log.

use std::ops::ControlFlow;

use crate::format::batch::{HEADER_SIZE_UP_TO_MAGIC, RecordBatchHeader, V2_HEADER_SIZE};
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::offset_index::{OffsetIndex, OffsetIndexEntry};
use crate::format::time_index::TimeIndex;
use crate::inspect::index::build::{IndexBuild, IndexBuilder, StopReason};
use crate::inspect::index::health::IndexHealth;
use crate::inspect::producer::batch::ProducerBatch;
use crate::inspect::producer::state::{BatchBudget, ProducerBatchCollector};
use crate::inspect::recovery::batch_audit::{BatchAudit, BatchAuditor};
use crate::inspect::recovery::txn_index::{TxnIndexCheck, TxnStart};
use crate::logdir::chunked::walk_batches;
use crate::logdir::mapped::{INDEX_READ_LIMIT, read_small};
use crate::logdir::{CachePolicy, LogDirError, PageCacheGuard, Segment};

/// One segment, checked.
#[derive(Debug, Clone)]
pub struct SegmentCheck {
    /// The segment's files.
    pub segment: Segment,
    /// `.log` size in bytes.
    pub log_size: u64,
    /// The walk recovery would do, with CRCs checked. It counts index
    /// entries rather than keeping them, so that memory stays flat on any
    /// partition (writing rebuilds them from the `.log`).
    pub build: IndexBuild,
    /// What the header (and with `deep`, record) walk found beyond recovery's checks.
    pub audit: BatchAudit,
    /// State of the `.index`.
    pub offset_index: IndexHealth,
    /// State of the `.timeindex`.
    pub time_index: IndexHealth,
    /// State of the `.txnindex`.
    pub txn_index: IndexHealth,
    /// Records in the batches from the first one recovery rejects to the
    /// end of what still frames as batches (what a truncation there drops).
    pub tail_records: u64,
    /// Whether bytes past what frames as batches hold records that cannot
    /// be counted (a torn batch, a length field past the file's end,
    /// garbage), so that [`SegmentCheck::tail_records`] is a lower bound.
    pub tail_records_at_least: bool,
    /// Every framable batch carrying a producer id, for the producer-state
    /// replay; `None` when they did not fit the partition's budget (the
    /// replay reads them again from the `.log`).
    pub producer_batches: Option<Vec<ProducerBatch>>,
}

impl SegmentCheck {
    /// Bytes recovery would cut from this segment (all of it on an invalid offset).
    pub fn bytes_to_truncate(&self) -> u64 {
        match self.build.stop {
            Some(StopReason::InvalidOffset { .. }) => self.log_size,
            _ => self.log_size - self.build.valid_bytes.min(self.log_size),
        }
    }
}

/// How to check a segment.
#[derive(Debug, Clone, Copy)]
pub struct SegmentCheckOptions {
    /// The topic's index.interval.bytes, for the indexes recovery rebuilds.
    pub interval: u64,
    /// Decompress and decode every record too.
    pub deep: bool,
    /// What reading leaves in the page cache.
    pub cache: CachePolicy,
    /// Producer batches the whole partition keeps in memory for the replay
    /// (normally
    /// [`PRODUCER_BATCHES_IN_MEMORY`](crate::inspect::producer::state::PRODUCER_BATCHES_IN_MEMORY)); the rest are read again.
    pub producer_batches_in_memory: usize,
}

/// Walks one segment with CRC checks, audits its batches (decoding every
/// record when `deep`) and checks its indexes against the log.
/// Producer batches are kept in memory while `budget` lasts; `txn_start` is
/// what is known of the transactions open at the segment's base offset.
pub fn check_segment(
    segment: &Segment,
    options: &SegmentCheckOptions,
    budget: &BatchBudget,
    txn_start: TxnStart,
) -> Result<SegmentCheck, LogDirError> {
    let SegmentCheckOptions {
        interval,
        deep,
        cache,
        ..
    } = *options;
    // One pass over every byte through a reused read buffer: CRCs for
    // recovery's walk, and the audit of every batch that still frames.
    let path = segment.log_path();
    // Notes which pages were cached; dropping it evicts the rest again.
    let _cache = (cache == CachePolicy::Restore)
        .then(|| PageCacheGuard::open(&path))
        .transpose()?;
    let log_size = std::fs::metadata(&path)
        .map_err(|e| LogDirError::io(&path, e))?
        .len();
    let mut builder = IndexBuilder::counting(segment.base_offset, interval, true);
    let mut auditor = BatchAuditor::new(deep);
    let mut auditing = true;
    let mut tail_records = 0;
    let mut txn_check = TxnIndexCheck::new(segment, txn_start)?;
    let mut producer_batches = ProducerBatchCollector::new(budget);
    let mut scratch = Vec::new();
    let (mut matcher, index_problem) = match read_offset_index(segment)? {
        Ok(entries) => (Some(EntryMatcher::new(entries)), None),
        Err(health) => (None, Some(health)),
    };
    let end = walk_batches(&path, |batch| {
        let summary = batch.summary(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
        let producer_batch = summary
            .as_ref()
            .ok()
            .and_then(|s| ProducerBatch::of(batch, s));
        if let (Ok(s), Some(m)) = (&summary, matcher.as_mut()) {
            m.batch(s.position, s.base_offset);
        }
        if builder.push_summarized(batch, summary.as_ref().map_err(|e| *e)) {
            if let Some(b) = &producer_batch {
                txn_check.batch(b);
            }
        } else {
            tail_records += batch.header().map_or(1, |h| {
                if batch.is_legacy() {
                    1
                } else {
                    h.records_count.max(0) as u64
                }
            });
        }
        if let Some(b) = producer_batch {
            producer_batches.push(b);
        }
        auditing = auditing && auditor.push(batch, summary.as_ref().ok());
        ControlFlow::Continue(())
    })?;
    let mut tail_records_at_least = false;
    if let Some(err) = end {
        let (claimed, at_least) = claimed_by_unframed_tail(&path, err.offset)?;
        tail_records += claimed;
        tail_records_at_least = at_least;
        builder.framing_ended(err);
    }
    let build = builder.finish();
    let time_index = time_index_health(segment, &build)?;
    Ok(SegmentCheck {
        offset_index: index_problem
            .unwrap_or_else(|| matcher.map_or(IndexHealth::Ok, |m| m.health())),
        time_index,
        txn_index: txn_check.finish(build.stop.is_none_or(|s| s.is_silent())),
        log_size,
        build,
        audit: auditor.finish(),
        tail_records,
        tail_records_at_least,
        producer_batches: producer_batches.finish(),
        segment: segment.clone(),
    })
}

/// The records the bytes at `position` of the `.log`, where framing
/// stopped, claim: a v2 header's record count, or 1 for a legacy entry,
/// and whether more may follow that cannot be counted (always, unless the
/// header's bytes are all zeros: space the file system extended, never
/// written).
fn claimed_by_unframed_tail(
    path: &std::path::Path,
    position: u64,
) -> Result<(u64, bool), LogDirError> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path).map_err(|e| LogDirError::io(path, e))?;
    let mut header = [0u8; V2_HEADER_SIZE];
    let mut filled = 0;
    while filled < header.len() {
        match file.read_at(
            header.get_mut(filled..).unwrap_or_default(),
            position + filled as u64,
        ) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(LogDirError::io(path, e)),
        }
    }
    let header = header.get(..filled).unwrap_or_default();
    if header.iter().all(|&b| b == 0) {
        return Ok((0, false));
    }
    let claimed = match header.get(HEADER_SIZE_UP_TO_MAGIC - 1) {
        Some(2) => {
            RecordBatchHeader::parse(header, position).map_or(0, |h| h.records_count.max(0) as u64)
        }
        Some(0 | 1) => 1,
        _ => 0,
    };
    Ok((claimed, true))
}

/// The offset index's live entries, or why it cannot be used as it is.
fn read_offset_index(
    segment: &Segment,
) -> Result<Result<Vec<OffsetIndexEntry>, IndexHealth>, LogDirError> {
    let path = segment.offset_index_path();
    if !path.exists() {
        return Ok(Err(IndexHealth::Missing));
    }
    let bytes = read_small(&path, INDEX_READ_LIMIT)?;
    Ok(offset_index_entries(
        &bytes,
        segment.base_offset,
        &path.display().to_string(),
    ))
}

/// The live entries of the `.index` bytes named `name`, or why Kafka's
/// sanity check rejects them.
pub(crate) fn offset_index_entries(
    bytes: &[u8],
    base_offset: i64,
    name: &str,
) -> Result<Vec<OffsetIndexEntry>, IndexHealth> {
    let index = OffsetIndex::new(bytes, base_offset);
    if let Err(e) = index.sanity_check() {
        return Err(IndexHealth::FailsSanityCheck(e.kafka_message(name)));
    }
    Ok(index.entries().collect())
}

/// Follows offset-index entries in order while the log is walked: each must
/// sit at a batch start whose base offset is at or below the entry's offset,
/// with offsets strictly increasing (correct for lookups, however grouped).
pub(crate) struct EntryMatcher {
    entries: Vec<OffsetIndexEntry>,
    next: usize,
    consistent: bool,
}

impl EntryMatcher {
    /// Follows `entries`.
    pub(crate) fn new(entries: Vec<OffsetIndexEntry>) -> Self {
        let consistent = entries
            .windows(2)
            .all(|w| matches!(w, [a, b] if a.offset < b.offset && a.position < b.position));
        Self {
            entries,
            next: 0,
            consistent,
        }
    }

    /// Notes the batch at `position` starting at `base_offset`.
    pub(crate) fn batch(&mut self, position: u64, base_offset: i64) {
        while let Some(entry) = self
            .entries
            .get(self.next)
            .filter(|e| e.position as u64 <= position)
        {
            if entry.position as u64 != position || entry.offset < base_offset {
                self.consistent = false;
            }
            self.next += 1;
        }
    }

    /// The verdict once every batch was seen.
    pub(crate) fn health(&self) -> IndexHealth {
        if self.consistent && self.next == self.entries.len() {
            IndexHealth::Ok
        } else {
            IndexHealth::Inconsistent(
                "an entry does not point at the start of a batch at or below its offset, or offsets do not increase".into(),
            )
        }
    }
}

fn time_index_health(segment: &Segment, build: &IndexBuild) -> Result<IndexHealth, LogDirError> {
    let path = segment.time_index_path();
    if !path.exists() {
        return Ok(IndexHealth::Missing);
    }
    let bytes = read_small(&path, INDEX_READ_LIMIT)?;
    Ok(time_index_bytes_health(
        &bytes,
        segment.base_offset,
        &path.display().to_string(),
        build,
    ))
}

/// How the `.timeindex` bytes named `name` relate to the walk of its log.
pub(crate) fn time_index_bytes_health(
    bytes: &[u8],
    base_offset: i64,
    name: &str,
    build: &IndexBuild,
) -> IndexHealth {
    let index = TimeIndex::new(bytes, base_offset);
    if let Err(e) = index.sanity_check() {
        // A preallocated active index fails Kafka's check (last slot is zero);
        // judge its live entries instead.
        let preallocated = index.live_entries() < index.kafka_entries();
        if !preallocated {
            return IndexHealth::FailsSanityCheck(e.kafka_message(name));
        }
    }
    if index.live_entries() == 0 && build.max_timestamp >= 0 {
        return IndexHealth::EmptyWithData;
    }
    let mut previous = (i64::MIN, i64::MIN);
    for entry in index.entries() {
        if entry.timestamp < previous.0 || entry.offset < previous.1 {
            return IndexHealth::Inconsistent(format!(
                "entry (timestamp {}, offset {}) goes backwards",
                entry.timestamp, entry.offset
            ));
        }
        // Past a bad batch the rest of the data is unknown; only a clean walk bounds the entries.
        let walked_all = build.stop.is_none_or(|s| s.is_silent());
        if walked_all
            && (entry.offset >= build.next_offset.max(base_offset.saturating_add(1))
                || entry.timestamp > build.max_timestamp)
        {
            return IndexHealth::Inconsistent(format!(
                "entry (timestamp {}, offset {}) is beyond the data (next offset {}, max timestamp {})",
                entry.timestamp, entry.offset, build.next_offset, build.max_timestamp
            ));
        }
        previous = (entry.timestamp, entry.offset);
    }
    IndexHealth::Ok
}
