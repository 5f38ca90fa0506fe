//! Producer state as Kafka's `ProducerStateManager` rebuilds it from the log
//! on recovery (origin REPLICATION: no sequence checks), and the snapshot
//! bytes it writes, entries in Java `HashMap` iteration order.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::producer_snapshot::{ProducerEntry, ProducerSnapshot, encode_producer_snapshot};
use crate::format::txn_index::AbortedTxn;
use crate::inspect::producer::batch::ProducerBatch;
use crate::inspect::producer::txn::OngoingTxns;
use crate::logdir::LogDirError;
use crate::logdir::chunked::walk_batches;

/// How many producer batches a partition check keeps in memory for the
/// replay (about 72 bytes each, so about 36 MiB); segments past it are read
/// again when the replay needs them, so memory stays bounded on partitions
/// of any size.
pub const PRODUCER_BATCHES_IN_MEMORY: usize = 1 << 19;

/// Batches are reserved from a [`BatchBudget`] this many at a time.
const RESERVE_STEP: usize = 4096;

/// A partition-wide allowance of producer batches kept in memory, shared by
/// the segments checked in parallel.
#[derive(Debug)]
pub struct BatchBudget(AtomicUsize);

impl BatchBudget {
    /// An allowance of `batches`.
    pub fn new(batches: usize) -> Self {
        Self(AtomicUsize::new(batches))
    }

    fn take(&self, n: usize) -> bool {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(n)
            })
            .is_ok()
    }

    fn give_back(&self, n: usize) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
}

/// Collects one segment's producer batches while the budget allows; past
/// it, collects nothing and hands its reservation back.
#[derive(Debug)]
pub struct ProducerBatchCollector<'b> {
    kept: Option<Vec<ProducerBatch>>,
    reserved: usize,
    budget: &'b BatchBudget,
}

impl<'b> ProducerBatchCollector<'b> {
    /// An empty collector drawing on `budget`.
    pub fn new(budget: &'b BatchBudget) -> Self {
        Self {
            kept: Some(Vec::new()),
            reserved: 0,
            budget,
        }
    }

    /// Keeps `batch`, unless the budget is spent.
    pub fn push(&mut self, batch: ProducerBatch) {
        let Some(kept) = self.kept.as_mut() else {
            return;
        };
        if kept.len() == self.reserved {
            if !self.budget.take(RESERVE_STEP) {
                self.kept = None;
                self.budget.give_back(self.reserved);
                self.reserved = 0;
                return;
            }
            self.reserved += RESERVE_STEP;
        }
        kept.push(batch);
    }

    /// Every producer batch of the segment, or `None` when they did not fit
    /// the budget and must be read again from the `.log`.
    pub fn finish(self) -> Option<Vec<ProducerBatch>> {
        self.kept
    }
}

/// Calls `visit` with the producer batches in the first `len` bytes of the
/// `.log` at `path`, in order, until it breaks: from `kept` when the check
/// kept them in memory, else read again from the file.
pub fn for_each_producer_batch(
    path: &Path,
    len: u64,
    kept: Option<&[ProducerBatch]>,
    mut visit: impl FnMut(&ProducerBatch) -> ControlFlow<()>,
) -> Result<(), LogDirError> {
    if let Some(batches) = kept {
        for b in batches.iter().take_while(|b| b.end <= len) {
            if visit(b).is_break() {
                break;
            }
        }
        return Ok(());
    }
    let mut scratch = Vec::new();
    walk_batches(path, |batch| {
        if batch.position + batch.bytes.len() as u64 > len {
            return ControlFlow::Break(());
        }
        if batch.is_legacy() {
            return ControlFlow::Continue(()); // no producer ids before magic 2
        }
        match batch.summary(&mut scratch, DEFAULT_DECOMPRESS_LIMIT) {
            Ok(s) => ProducerBatch::of(batch, &s).map_or(ControlFlow::Continue(()), |b| visit(&b)),
            Err(_) => ControlFlow::Continue(()),
        }
    })?;
    Ok(())
}

/// Kafka's default `producer.id.expiration.ms` (one day).
pub const DEFAULT_PRODUCER_ID_EXPIRATION_MS: i64 = 86_400_000;

/// When the broker loads a producer snapshot, it drops producers idle for
/// `producer.id.expiration.ms` by its clock, unless a transaction of theirs
/// is open (`ProducerStateManager.loadFromSnapshot`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerExpiry {
    /// The broker's clock at load (epoch ms).
    pub now_ms: i64,
    /// `producer.id.expiration.ms`.
    pub expiration_ms: i64,
}

impl ProducerExpiry {
    /// Whether loading a snapshot drops `entry`.
    pub fn expires(&self, entry: &ProducerEntry) -> bool {
        entry.current_txn_first_offset < 0
            && self.now_ms.saturating_sub(entry.timestamp) >= self.expiration_ms
    }
}

/// Producers known at `map_end_offset`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProducerState {
    /// Entries in the order they were first inserted.
    entries: Vec<ProducerEntry>,
    by_id: HashMap<i64, usize>,
    /// Open transactions (`ongoingTxns`).
    ongoing: OngoingTxns,
    /// Offset up to which the log has been applied.
    pub map_end_offset: i64,
}

fn empty_entry(producer_id: i64) -> ProducerEntry {
    ProducerEntry {
        producer_id,
        producer_epoch: -1,
        last_sequence: -1,
        last_offset: -1,
        offset_delta: 0,
        timestamp: -1,
        coordinator_epoch: -1,
        current_txn_first_offset: -1,
    }
}

impl ProducerState {
    /// An empty state at `offset`.
    pub fn empty(offset: i64) -> Self {
        Self {
            map_end_offset: offset,
            ..Self::default()
        }
    }

    /// The state a snapshot file at `offset` holds.
    pub fn from_snapshot(snapshot: &ProducerSnapshot, offset: i64) -> Self {
        let mut state = Self::empty(offset);
        for entry in &snapshot.entries {
            *state.entry(entry.producer_id) = *entry;
            if entry.current_txn_first_offset >= 0 {
                state
                    .ongoing
                    .begin(entry.current_txn_first_offset, entry.producer_id);
            }
        }
        state
    }

    fn entry(&mut self, producer_id: i64) -> &mut ProducerEntry {
        let next = self.entries.len();
        let i = *self.by_id.entry(producer_id).or_insert(next);
        if i == next {
            self.entries.push(empty_entry(producer_id));
        }
        &mut self.entries[i]
    }

    /// Applies one batch (`ProducerAppendInfo.append`, then
    /// `ProducerStateManager.update`). Returns the `.txnindex` entry when the
    /// batch is an ABORT marker closing a transaction with data.
    pub fn apply(&mut self, b: &ProducerBatch) -> Option<AbortedTxn> {
        let entry = self.entry(b.producer_id);
        if entry.producer_epoch != b.producer_epoch {
            // A new epoch starts with no batch metadata.
            entry.producer_epoch = b.producer_epoch;
            entry.last_sequence = -1;
            entry.last_offset = -1;
            entry.offset_delta = 0;
        }
        if b.is_control {
            let coordinator_epoch = b.end_marker?;
            let first_offset = entry.current_txn_first_offset;
            entry.coordinator_epoch = coordinator_epoch;
            entry.current_txn_first_offset = -1;
            entry.timestamp = b.max_timestamp;
            if first_offset < 0 {
                return None; // an empty transaction: no index entry
            }
            return self
                .ongoing
                .end(b.producer_id, first_offset, b.base_offset, b.aborts);
        }
        entry.last_sequence = b.last_sequence;
        entry.last_offset = b.last_offset;
        entry.offset_delta = b.last_offset.wrapping_sub(b.base_offset) as i32;
        entry.timestamp = b.max_timestamp;
        if b.is_transactional && entry.current_txn_first_offset < 0 {
            entry.current_txn_first_offset = b.base_offset;
            self.ongoing.begin(b.base_offset, b.producer_id);
        }
        None
    }

    /// Every producer known, in the order first seen; an open
    /// transaction's first offset is its `current_txn_first_offset`.
    pub fn entries(&self) -> &[ProducerEntry] {
        &self.entries
    }

    /// Whether no producer is known.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The snapshot file Kafka writes for this state.
    pub fn snapshot_bytes(&self) -> Vec<u8> {
        let order = java_hash_map_order(
            &self
                .entries
                .iter()
                .map(|e| e.producer_id)
                .collect::<Vec<_>>(),
        );
        let entries: Vec<ProducerEntry> = order.into_iter().map(|i| self.entries[i]).collect();
        encode_producer_snapshot(&entries)
    }
}

/// Indexes of `keys` (inserted in this order into a `java.util.HashMap<Long, _>`)
/// in the map's iteration order: by bucket, then by insertion.
pub fn java_hash_map_order(keys: &[i64]) -> Vec<usize> {
    let mut capacity = 16usize;
    while keys.len() * 4 > capacity * 3 {
        capacity *= 2;
    }
    let bucket = |k: i64| {
        let h = (k ^ ((k as u64) >> 32) as i64) as i32;
        let spread = h ^ ((h as u32) >> 16) as i32;
        (spread as u32 as usize) & (capacity - 1)
    };
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| bucket(keys[i]));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_like_a_java_hash_map() {
        // Seen in a Kafka-written snapshot: inserted 7022, 7122, 7222, 7922.
        let keys = [7022, 7122, 7222, 7922];
        let order: Vec<i64> = java_hash_map_order(&keys)
            .into_iter()
            .map(|i| keys[i])
            .collect();
        assert_eq!(order, vec![7122, 7922, 7222, 7022]);
    }
}
