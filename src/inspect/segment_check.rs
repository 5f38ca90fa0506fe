//! Everything `kseg verify` learns about one segment in one pass: the walk
//! recovery would do (CRC included), and how its indexes relate to the log.

use std::sync::Arc;

use serde::Serialize;

use super::batch_audit::{BatchAudit, audit_batches};
use super::index_build::{IndexBuild, StopReason, build_indexes};
use super::index_compare::offset_index_consistent;
use crate::format::offset_index::OffsetIndex;
use crate::format::time_index::TimeIndex;
use crate::logdir::mapped::read_small;
use crate::logdir::{CachePolicy, LogDirError, MappedFile, Segment};

/// Index files are read whole; a broker never writes one over this size.
const INDEX_READ_LIMIT: u64 = 1 << 31;

/// What is wrong with an index file, if anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "state", content = "detail")]
pub enum IndexHealth {
    /// Present and consistent with the log.
    Ok,
    /// The file does not exist.
    Missing,
    /// Present but empty while the log has data (a recreated `.timeindex`).
    EmptyWithData,
    /// Kafka's own sanity check rejects it.
    FailsSanityCheck(String),
    /// Entries that do not agree with the log (the first one is described).
    Inconsistent(String),
}

impl IndexHealth {
    /// Whether the index is usable as it is.
    pub fn is_ok(&self) -> bool {
        matches!(self, Self::Ok)
    }
}

/// One segment, checked.
#[derive(Debug, Clone)]
pub struct SegmentCheck {
    /// The segment's files.
    pub segment: Segment,
    /// `.log` size in bytes.
    pub log_size: u64,
    /// The walk recovery would do, with CRCs checked.
    pub build: IndexBuild,
    /// What the header (and with `deep`, record) walk found beyond recovery's checks.
    pub audit: BatchAudit,
    /// State of the `.index`.
    pub offset_index: IndexHealth,
    /// State of the `.timeindex`.
    pub time_index: IndexHealth,
    /// The mapped `.log`, kept so later steps read pages already mapped.
    pub log: Arc<MappedFile>,
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

/// Walks one segment with CRC checks, audits its batches (decoding every
/// record when `deep`) and checks its indexes against the log.
pub fn check_segment(
    segment: &Segment,
    interval: u64,
    deep: bool,
) -> Result<SegmentCheck, LogDirError> {
    let log = Arc::new(MappedFile::open(&segment.log_path(), CachePolicy::Restore)?);
    let bytes = log.bytes();
    let build = build_indexes(bytes, segment.base_offset, interval, true);
    let audit = audit_batches(bytes, deep);
    Ok(SegmentCheck {
        offset_index: offset_index_health(segment, bytes)?,
        time_index: time_index_health(segment, &build)?,
        log_size: bytes.len() as u64,
        build,
        audit,
        segment: segment.clone(),
        log: Arc::clone(&log),
    })
}

fn offset_index_health(segment: &Segment, log: &[u8]) -> Result<IndexHealth, LogDirError> {
    let path = segment.offset_index_path();
    if !path.exists() {
        return Ok(IndexHealth::Missing);
    }
    let bytes = read_small(&path, INDEX_READ_LIMIT)?;
    let index = OffsetIndex::new(&bytes, segment.base_offset);
    if let Err(e) = index.sanity_check() {
        return Ok(IndexHealth::FailsSanityCheck(
            e.kafka_message(&path.display().to_string()),
        ));
    }
    if !offset_index_consistent(&index, log) {
        return Ok(IndexHealth::Inconsistent(
            "an entry does not point at the start of a batch at or below its offset, or offsets do not increase".into(),
        ));
    }
    Ok(IndexHealth::Ok)
}

fn time_index_health(segment: &Segment, build: &IndexBuild) -> Result<IndexHealth, LogDirError> {
    let path = segment.time_index_path();
    if !path.exists() {
        return Ok(IndexHealth::Missing);
    }
    let bytes = read_small(&path, INDEX_READ_LIMIT)?;
    let index = TimeIndex::new(&bytes, segment.base_offset);
    if let Err(e) = index.sanity_check() {
        // A preallocated active index fails Kafka's check (last slot is zero);
        // judge its live entries instead.
        let preallocated = index.live_entries() < index.kafka_entries();
        if !preallocated {
            return Ok(IndexHealth::FailsSanityCheck(
                e.kafka_message(&path.display().to_string()),
            ));
        }
    }
    if index.live_entries() == 0 && build.max_timestamp >= 0 {
        return Ok(IndexHealth::EmptyWithData);
    }
    let mut previous = (i64::MIN, i64::MIN);
    for entry in index.entries() {
        if entry.timestamp < previous.0 || entry.offset < previous.1 {
            return Ok(IndexHealth::Inconsistent(format!(
                "entry (timestamp {}, offset {}) goes backwards",
                entry.timestamp, entry.offset
            )));
        }
        // Past a bad batch the rest of the data is unknown; only a clean walk bounds the entries.
        let walked_all = build.stop.is_none_or(|s| s.is_silent());
        if walked_all
            && (entry.offset >= build.next_offset.max(segment.base_offset.saturating_add(1))
                || entry.timestamp > build.max_timestamp)
        {
            return Ok(IndexHealth::Inconsistent(format!(
                "entry (timestamp {}, offset {}) is beyond the data (next offset {}, max timestamp {})",
                entry.timestamp, entry.offset, build.next_offset, build.max_timestamp
            )));
        }
        previous = (entry.timestamp, entry.offset);
    }
    Ok(IndexHealth::Ok)
}
