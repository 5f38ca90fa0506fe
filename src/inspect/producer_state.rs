//! Producer state as Kafka's `ProducerStateManager` rebuilds it from the log
//! on recovery (origin REPLICATION: no sequence checks), and the snapshot
//! bytes it writes, entries in Java `HashMap` iteration order.

use std::collections::HashMap;

use crate::format::producer_snapshot::{ProducerEntry, ProducerSnapshot, encode_producer_snapshot};
use crate::format::record::{ControlType, parse_control_record};
use crate::format::{BatchSummary, FileBatch};

/// Producers known at `map_end_offset`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProducerState {
    /// Entries in the order they were first inserted.
    entries: Vec<ProducerEntry>,
    by_id: HashMap<i64, usize>,
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

    /// Applies one batch (`ProducerAppendInfo.append`); batches without a
    /// producer id change nothing.
    pub fn apply(&mut self, batch: &FileBatch<'_>, s: &BatchSummary) {
        if s.producer_id < 0 || s.magic < 2 {
            return;
        }
        let entry = self.entry(s.producer_id);
        if entry.producer_epoch != s.producer_epoch {
            // A new epoch starts with no batch metadata.
            entry.producer_epoch = s.producer_epoch;
            entry.last_sequence = -1;
            entry.last_offset = -1;
            entry.offset_delta = 0;
        }
        if s.is_control {
            let mut scratch = Vec::new();
            let decoded = batch.records(&mut scratch, 1 << 20);
            let marker = decoded
                .records
                .first()
                .and_then(|r| parse_control_record(r).ok());
            if let Some(m) = marker
                .filter(|m| matches!(m.control_type, ControlType::Abort | ControlType::Commit))
            {
                entry.coordinator_epoch = m.coordinator_epoch.unwrap_or(entry.coordinator_epoch);
                entry.current_txn_first_offset = -1;
                entry.timestamp = s.max_timestamp;
            }
            return;
        }
        entry.last_sequence = s.last_sequence;
        entry.last_offset = s.last_offset;
        entry.offset_delta = s.last_offset.wrapping_sub(s.base_offset) as i32;
        entry.timestamp = s.max_timestamp;
        if s.is_transactional && entry.current_txn_first_offset < 0 {
            entry.current_txn_first_offset = s.base_offset;
        }
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
