//! Whether each segment's `.txnindex` agrees with the abort markers in its
//! log. Producer state is replayed forward through the partition as the
//! broker appended it; every ABORT marker closing a transaction with data
//! must have its entry (producer, first offset, marker offset, last stable
//! offset) in the `.txnindex` of the segment holding the marker, and no
//! other entry may be there. A missing or short `.txnindex` below the
//! recovery point is damage Kafka never repairs: `read_committed` consumers
//! then receive the aborted records.
//!
//! The replay starts from the producer snapshot at the first segment's base
//! offset, or from nothing when the log starts at offset 0. Otherwise (and
//! after a segment with a bad batch) a transaction's first offset and the
//! last stable offset may depend on history that is gone; entries are then
//! only matched to markers by producer and offset.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use super::producer_state::{ProducerState, for_each_producer_batch};
use super::segment_check::{IndexHealth, SegmentCheck};
use crate::format::producer_snapshot::parse_producer_snapshot;
use crate::format::txn_index::{AbortedTxn, TXN_INDEX_ENTRY_SIZE, parse_txn_index};
use crate::logdir::LogDirError;
use crate::logdir::mapped::read_small;

/// The health of every segment's `.txnindex`, in order; `snapshots` are the
/// partition's producer snapshot files by offset.
pub fn check_txn_indexes(
    checks: &[SegmentCheck],
    snapshots: &BTreeMap<i64, Vec<u8>>,
) -> Result<Vec<IndexHealth>, LogDirError> {
    let has_txn_files = checks.iter().any(|c| c.segment.txn_index_path().exists());
    if !has_txn_files && checks.iter().all(|c| c.control_batches == 0) {
        return Ok(vec![IndexHealth::Ok; checks.len()]);
    }
    let first_base = checks.first().map_or(0, |c| c.segment.base_offset);
    let snapshot = snapshots
        .get(&first_base)
        .and_then(|bytes| parse_producer_snapshot(bytes).ok());
    let mut exact = snapshot.is_some() || first_base == 0;
    let mut state = snapshot.map_or_else(
        || ProducerState::empty(first_base),
        |s| ProducerState::from_snapshot(&s, first_base),
    );
    let mut out = Vec::with_capacity(checks.len());
    for check in checks {
        let mut expected = Vec::new();
        let mut abort_markers = Vec::new();
        for_each_producer_batch(
            &check.segment.log_path(),
            check.build.valid_bytes,
            check.producer_batches.as_deref(),
            |b| {
                if b.is_control && b.aborts {
                    abort_markers.push((b.producer_id, b.base_offset));
                }
                expected.extend(state.apply(b));
                ControlFlow::Continue(())
            },
        )?;
        out.push(compare(check, &expected, &abort_markers, exact)?);
        exact = exact && check.build.stop.is_none_or(|s| s.is_silent());
    }
    Ok(out)
}

/// The segment's `.txnindex` against the entries the replay expects.
fn compare(
    check: &SegmentCheck,
    expected: &[AbortedTxn],
    abort_markers: &[(i64, i64)],
    exact: bool,
) -> Result<IndexHealth, LogDirError> {
    let path = check.segment.txn_index_path();
    let bytes = if path.exists() {
        read_small(&path, 1 << 30)?
    } else {
        Vec::new()
    };
    let inconsistent = |m: String| Ok(IndexHealth::Inconsistent(m));
    if bytes.len() % TXN_INDEX_ENTRY_SIZE != 0 {
        return inconsistent(format!(
            "{} bytes is not a whole number of {TXN_INDEX_ENTRY_SIZE}-byte entries",
            bytes.len()
        ));
    }
    let on_disk = parse_txn_index(&bytes).map_err(|e| LogDirError::format(&path, e))?;
    for pair in on_disk.windows(2) {
        if let [a, b] = pair {
            if a.last_offset >= b.last_offset {
                return inconsistent(format!(
                    "entry at offset {} does not come after the one at {}",
                    b.last_offset, a.last_offset
                ));
            }
        }
    }
    let found = |e: &AbortedTxn| {
        on_disk
            .iter()
            .find(|d| d.producer_id == e.producer_id && d.last_offset == e.last_offset)
    };
    for e in expected {
        let Some(d) = found(e) else {
            return inconsistent(format!(
                "no entry for producer {}'s transaction aborted at offset {} (first offset {}): read_committed consumers receive its records",
                e.producer_id, e.last_offset, e.first_offset
            ));
        };
        let lso_differs = exact && d.last_stable_offset != e.last_stable_offset;
        if d.first_offset != e.first_offset || lso_differs {
            return inconsistent(format!(
                "entry for producer {} at offset {} says first offset {} and last stable offset {}; the log gives {} and {}",
                d.producer_id,
                d.last_offset,
                d.first_offset,
                d.last_stable_offset,
                e.first_offset,
                e.last_stable_offset
            ));
        }
    }
    for d in &on_disk {
        let marker = abort_markers.contains(&(d.producer_id, d.last_offset));
        let known = expected
            .iter()
            .any(|e| e.producer_id == d.producer_id && e.last_offset == d.last_offset);
        if !known && (exact || !marker) {
            return inconsistent(format!(
                "entry for producer {} at offset {} matches no aborted transaction in this segment",
                d.producer_id, d.last_offset
            ));
        }
    }
    Ok(IndexHealth::Ok)
}
