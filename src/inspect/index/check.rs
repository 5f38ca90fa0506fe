//! kafka-dump-log's `--verify-index-only` checks: does each index entry point
//! where it claims to in the `.log`?

use crate::format::SummaryIter;
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::offset_index::OffsetIndex;
use crate::format::time_index::TimeIndex;

/// An offset-index entry whose batch does not end at the indexed offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetMismatch {
    /// Offset in the index entry.
    pub index_offset: i64,
    /// Last offset of the batch at the entry's position (-1 if none).
    pub log_offset: i64,
}

/// Findings of a time-index check, in kafka-dump-log's three groups.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimeIndexFindings {
    /// (index timestamp, max record timestamp of the batch).
    pub timestamp_mismatches: Vec<(i64, i64)>,
    /// (index timestamp, previously indexed timestamp).
    pub out_of_order: Vec<(i64, i64)>,
    /// (indexed offset, last offset of the batch found, or -1).
    pub offsets_not_found: Vec<(i64, i64)>,
}

impl TimeIndexFindings {
    /// Whether nothing was found.
    pub fn is_clean(&self) -> bool {
        self.timestamp_mismatches.is_empty()
            && self.out_of_order.is_empty()
            && self.offsets_not_found.is_empty()
    }
}

fn last_offset_at(log: &[u8], position: i64) -> Option<i64> {
    let (_, s) = SummaryIter::new(log, position.max(0) as u64, DEFAULT_DECOMPRESS_LIMIT)
        .next()?
        .ok()?;
    Some(s.last_offset)
}

/// Checks every live offset-index entry against the batch at its position.
pub fn check_offset_index(index: &OffsetIndex<'_>, log: &[u8]) -> Vec<OffsetMismatch> {
    index
        .entries()
        .filter_map(|e| {
            let log_offset = last_offset_at(log, e.position).unwrap_or(-1);
            (log_offset != e.offset).then_some(OffsetMismatch {
                index_offset: e.offset,
                log_offset,
            })
        })
        .collect()
}

/// Checks every live time-index entry as kafka-dump-log does: find the batch
/// through the offset index, then compare the max record timestamp.
pub fn check_time_index(
    time_index: &TimeIndex<'_>,
    offset_index: &OffsetIndex<'_>,
    log: &[u8],
) -> TimeIndexFindings {
    let mut findings = TimeIndexFindings::default();
    let mut prev: Option<i64> = None;
    let mut scratch = Vec::new();
    let live = offset_index.live_entries();
    for entry in time_index.entries() {
        let (floor, _) = offset_index.lookup(entry.offset, live);
        let found = SummaryIter::new(log, floor.position.max(0) as u64, DEFAULT_DECOMPRESS_LIMIT)
            .map_while(Result::ok)
            .find(|(_, s)| s.last_offset >= entry.offset);
        match found {
            None => findings.offsets_not_found.push((entry.offset, -1)),
            Some((_, s)) if s.last_offset != entry.offset => findings
                .offsets_not_found
                .push((entry.offset, s.last_offset)),
            Some((batch, _)) => {
                let decoded = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
                let max = decoded
                    .records
                    .iter()
                    .map(|r| r.timestamp)
                    .max()
                    .unwrap_or(-1);
                if max != entry.timestamp {
                    findings.timestamp_mismatches.push((entry.timestamp, max));
                }
                if let Some(p) = prev.filter(|&p| p >= entry.timestamp) {
                    findings.out_of_order.push((entry.timestamp, p));
                }
            }
        }
        prev = Some(entry.timestamp);
    }
    findings
}
