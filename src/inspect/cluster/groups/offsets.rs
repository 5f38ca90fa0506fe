//! Committed offsets as `OffsetMetadataManager` keeps them: a store of the
//! latest commit per group and topic-partition, and, per producer, the
//! transactional commits waiting for that producer's end marker
//! (`OffsetMetadataManager.replay`, `replayEndTransactionMarker`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::schema::tree::Node;

/// A topic-partition: the topic's name and the partition number.
pub type TopicPartition = (String, i32);

/// One committed offset, as `OffsetAndMetadata.fromRecord` reads an
/// `OffsetCommitValue`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedOffset {
    /// The offset committed.
    pub offset: i64,
    /// The leader epoch committed with it (`None` for -1 or before v3).
    pub leader_epoch: Option<i32>,
    /// The consumer's metadata string.
    pub metadata: String,
    /// When it was committed (epoch ms).
    pub commit_timestamp: i64,
    /// When it expires (v1 values only; `None` for -1).
    pub expire_timestamp: Option<i64>,
    /// The offset of the record in `__consumer_offsets` that holds it.
    pub record_offset: i64,
}

impl CommittedOffset {
    /// Reads the `data` of a decoded `OffsetCommitValue` stored at
    /// `record_offset`; `None` when the offset field is missing.
    pub fn from_value(record_offset: i64, data: Node<'_>) -> Option<Self> {
        let int = |name: &str| data.get(name).and_then(Node::as_i64);
        let sentinel = |v: Option<i64>| v.filter(|&v| v != -1);
        Some(Self {
            offset: int("offset")?,
            leader_epoch: sentinel(int("leaderEpoch")).and_then(|v| i32::try_from(v).ok()),
            metadata: data
                .get("metadata")
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_string(),
            commit_timestamp: int("commitTimestamp").unwrap_or(-1),
            expire_timestamp: sentinel(int("expireTimestamp")),
            record_offset,
        })
    }
}

/// The offsets of each group, by topic-partition.
pub type GroupOffsets = HashMap<String, BTreeMap<TopicPartition, CommittedOffset>>;

/// What a transaction marker did to the pending commits of its producer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerOutcome {
    /// No commit of this producer was pending.
    NothingPending,
    /// This many pending commits became committed (others were older than
    /// the committed offset already there and were skipped).
    Committed(usize),
    /// This many pending commits were dropped.
    Aborted(usize),
}

/// The committed offsets and the pending transactional ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffsetStore {
    /// Committed offsets.
    pub committed: GroupOffsets,
    /// Transactional commits by producer id, not yet ended by a marker.
    pub pending: BTreeMap<i64, GroupOffsets>,
}

impl OffsetStore {
    /// A commit record (`producer_id` -1 for a non-transactional batch).
    pub fn commit(
        &mut self,
        producer_id: i64,
        group: &str,
        tp: TopicPartition,
        o: CommittedOffset,
    ) {
        let target = if producer_id < 0 {
            &mut self.committed
        } else {
            self.pending.entry(producer_id).or_default()
        };
        match target.get_mut(group) {
            Some(by_tp) => {
                by_tp.insert(tp, o);
            }
            None => {
                target.insert(group.to_string(), BTreeMap::from([(tp, o)]));
            }
        }
    }

    /// A commit tombstone: deletes the committed offset and the pending
    /// ones of every producer for the same group and topic-partition.
    pub fn delete(&mut self, group: &str, tp: &TopicPartition) {
        remove(&mut self.committed, group, tp);
        for pending in self.pending.values_mut() {
            remove(pending, group, tp);
        }
    }

    /// A COMMIT (`commit`) or ABORT marker of `producer_id`: its pending
    /// commits are materialized, each only when its record is later than
    /// the committed offset's record, or dropped.
    pub fn end_transaction(&mut self, producer_id: i64, commit: bool) -> MarkerOutcome {
        let Some(pending) = self.pending.remove(&producer_id) else {
            return MarkerOutcome::NothingPending;
        };
        let count = pending.values().map(BTreeMap::len).sum();
        if !commit {
            return MarkerOutcome::Aborted(count);
        }
        for (group, offsets) in pending {
            let committed = self.committed.entry(group).or_default();
            for (tp, o) in offsets {
                let newer = committed
                    .get(&tp)
                    .is_none_or(|existing| o.record_offset > existing.record_offset);
                if newer {
                    committed.insert(tp, o);
                }
            }
        }
        MarkerOutcome::Committed(count)
    }

    /// The groups that have committed or pending offsets.
    pub fn groups(&self) -> BTreeSet<&str> {
        let pending = self.pending.values().flat_map(|p| p.keys());
        self.committed
            .keys()
            .chain(pending)
            .map(String::as_str)
            .collect()
    }
}

fn remove(offsets: &mut GroupOffsets, group: &str, tp: &TopicPartition) {
    if let Some(by_tp) = offsets.get_mut(group) {
        by_tp.remove(tp);
        if by_tp.is_empty() {
            offsets.remove(group);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn at(record_offset: i64, offset: i64) -> CommittedOffset {
        CommittedOffset {
            offset,
            leader_epoch: None,
            metadata: String::new(),
            commit_timestamp: 0,
            expire_timestamp: None,
            record_offset,
        }
    }

    fn tp() -> TopicPartition {
        ("t".to_string(), 0)
    }

    #[test]
    fn a_committed_transaction_keeps_the_later_record() {
        let mut s = OffsetStore::default();
        s.commit(7, "g", tp(), at(10, 100));
        s.commit(-1, "g", tp(), at(11, 50));
        assert_eq!(s.end_transaction(7, true), MarkerOutcome::Committed(1));
        assert_eq!(s.committed["g"][&tp()].offset, 50);
        s.commit(7, "g", tp(), at(12, 200));
        s.end_transaction(7, true);
        assert_eq!(s.committed["g"][&tp()].offset, 200);
    }

    #[test]
    fn an_abort_drops_and_a_tombstone_deletes_pending_commits() {
        let mut s = OffsetStore::default();
        s.commit(7, "g", tp(), at(1, 100));
        assert_eq!(s.end_transaction(7, false), MarkerOutcome::Aborted(1));
        assert!(s.committed.is_empty());
        s.commit(8, "g", tp(), at(2, 100));
        s.delete("g", &tp());
        assert_eq!(s.end_transaction(8, true), MarkerOutcome::Committed(0));
        assert!(s.committed.is_empty());
        assert_eq!(s.end_transaction(9, true), MarkerOutcome::NothingPending);
    }

    #[test]
    fn sentinels_read_as_absent() {
        let v = serde_json::json!({"offset": 5, "leaderEpoch": -1, "metadata": "m", "commitTimestamp": 9, "expireTimestamp": -1});
        let mut tree = crate::schema::tree::Tree::default();
        let piece = crate::schema::emit::Emitter::value(&mut tree, &v);
        let o = CommittedOffset::from_value(3, tree.node(piece)).unwrap();
        assert_eq!(
            (o.leader_epoch, o.expire_timestamp, o.metadata.as_str()),
            (None, None, "m")
        );
    }
}
