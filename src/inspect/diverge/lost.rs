//! What a follower loses when it truncates: the batches at and past its
//! truncation point, split by its high watermark into those that were
//! committed (acknowledged to `acks=all` producers) and those that never
//! were, and the transactions the truncation cuts in the middle.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::batch::ReplicaBatch;

/// A run of lost batches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LostSpan {
    /// Batches.
    pub batches: u64,
    /// Records.
    pub records: u64,
    /// Bytes.
    pub bytes: u64,
    /// First offset (`None` when empty).
    pub first_offset: Option<i64>,
    /// Last offset.
    pub last_offset: Option<i64>,
}

impl LostSpan {
    fn add(&mut self, b: &ReplicaBatch) {
        self.batches += 1;
        self.records += b.records;
        self.bytes += b.size;
        self.first_offset.get_or_insert(b.base_offset);
        self.last_offset = Some(b.last_offset);
    }
}

/// A transaction begun below the truncation point whose end the truncation removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CutTransaction {
    /// Producer id.
    pub producer_id: i64,
    /// Offset of its first batch (kept).
    pub first_offset: i64,
    /// Its COMMIT/ABORT marker among the lost batches (`None`: never written).
    pub lost_marker_offset: Option<i64>,
    /// Whether the leader's log has no marker for it past the truncation
    /// point either: the transaction hangs there, holding back the last
    /// stable offset, until it is aborted.
    pub open_on_leader: bool,
}

/// Everything lost by one replica.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LostRecords {
    /// All lost batches.
    pub all: LostSpan,
    /// Those below the high watermark (a batch counts when all of it is
    /// below): `None` when there is no high watermark.
    pub committed: Option<LostSpan>,
    /// Those at or past it (all of them without a high watermark).
    pub uncommitted: LostSpan,
    /// The high watermark used.
    pub high_watermark: Option<i64>,
    /// Leader epochs of the lost batches.
    pub epochs: Vec<i32>,
    /// Producer ids of the lost batches.
    pub producer_ids: Vec<i64>,
    /// Earliest record timestamp lost (`None` when unknown).
    pub first_timestamp: Option<i64>,
    /// Latest record timestamp lost.
    pub last_timestamp: Option<i64>,
    /// Transactions cut in the middle.
    pub transactions_cut: Vec<CutTransaction>,
}

/// Transactions open (producer id -> first offset) after `kept`.
fn open_transactions(kept: &[ReplicaBatch]) -> BTreeMap<i64, i64> {
    let mut open = BTreeMap::new();
    for b in kept.iter().filter(|b| b.producer_id >= 0) {
        if b.is_control {
            open.remove(&b.producer_id);
        } else if b.is_transactional {
            open.entry(b.producer_id).or_insert(b.base_offset);
        }
    }
    open
}

/// What truncating `batches` at `truncation_offset` loses; batches ending
/// below it are kept whole, the others go whole. `leader` is the leader's
/// log, to tell whether a transaction cut here ends there.
pub fn lost_records(
    batches: &[ReplicaBatch],
    truncation_offset: i64,
    high_watermark: Option<i64>,
    leader: &[ReplicaBatch],
) -> LostRecords {
    let split = batches.partition_point(|b| b.last_offset < truncation_offset);
    let (kept, lost) = batches.split_at(split);
    let mut all = LostSpan::default();
    let mut committed = high_watermark.map(|_| LostSpan::default());
    let mut uncommitted = LostSpan::default();
    let mut epochs = BTreeSet::new();
    let mut producers = BTreeSet::new();
    let mut first_timestamp: Option<i64> = None;
    let mut last_timestamp: Option<i64> = None;
    for b in lost {
        all.add(b);
        match (&mut committed, high_watermark) {
            (Some(c), Some(hw)) if b.last_offset < hw => c.add(b),
            _ => uncommitted.add(b),
        }
        epochs.insert(b.partition_leader_epoch);
        if b.producer_id >= 0 {
            producers.insert(b.producer_id);
        }
        if b.first_timestamp >= 0 {
            first_timestamp =
                Some(first_timestamp.map_or(b.first_timestamp, |t| t.min(b.first_timestamp)));
        }
        if b.max_timestamp >= 0 {
            last_timestamp =
                Some(last_timestamp.map_or(b.max_timestamp, |t| t.max(b.max_timestamp)));
        }
    }
    let transactions_cut = open_transactions(kept)
        .into_iter()
        .map(|(producer_id, first_offset)| CutTransaction {
            producer_id,
            first_offset,
            lost_marker_offset: lost
                .iter()
                .find(|b| b.is_control && b.producer_id == producer_id)
                .map(|b| b.base_offset),
            open_on_leader: !leader.iter().any(|b| {
                b.is_control && b.producer_id == producer_id && b.base_offset >= truncation_offset
            }),
        })
        .collect();
    LostRecords {
        all,
        committed,
        uncommitted,
        high_watermark,
        epochs: epochs.into_iter().collect(),
        producer_ids: producers.into_iter().collect(),
        first_timestamp,
        last_timestamp,
        transactions_cut,
    }
}
