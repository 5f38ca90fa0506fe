//! Open transactions and the `.txnindex` entries their ends produce, as
//! `ProducerStateManager` keeps them (`ongoingTxns`, `lastStableOffset`,
//! `completeTxn`).

use std::collections::{BTreeMap, HashMap};

use crate::format::producer_snapshot::ProducerSnapshot;
use crate::format::txn_index::AbortedTxn;
use crate::inspect::producer::batch::ProducerBatch;

/// Transactions begun and not yet ended, by first offset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OngoingTxns(BTreeMap<i64, i64>);

impl OngoingTxns {
    /// Producer `producer_id` began a transaction at `first_offset`.
    pub fn begin(&mut self, first_offset: i64, producer_id: i64) {
        self.0.insert(first_offset, producer_id);
    }

    /// Ends the transaction begun at `first_offset` by the marker at
    /// `marker_offset`; an ABORT yields its `.txnindex` entry, whose last
    /// stable offset is the first offset of the earliest transaction another
    /// producer still has open, else the marker's offset + 1.
    pub fn end(
        &mut self,
        producer_id: i64,
        first_offset: i64,
        marker_offset: i64,
        aborts: bool,
    ) -> Option<AbortedTxn> {
        let last_stable_offset = self
            .0
            .iter()
            .find(|&(_, &producer)| producer != producer_id)
            .map_or(marker_offset.wrapping_add(1), |(&first, _)| first);
        self.0.remove(&first_offset);
        aborts.then_some(AbortedTxn {
            version: 0,
            producer_id,
            first_offset,
            last_offset: marker_offset,
            last_stable_offset,
        })
    }
}

/// Only the transactional side of producer state: enough to compute a
/// segment's `.txnindex` without keeping every producer's entry.
#[derive(Debug, Clone, Default)]
pub struct TxnTracker {
    ongoing: OngoingTxns,
    /// First offset of each producer's open transaction.
    open: HashMap<i64, i64>,
}

impl TxnTracker {
    /// The transactions open in `snapshot`.
    pub fn from_snapshot(snapshot: &ProducerSnapshot) -> Self {
        let mut tracker = Self::default();
        for e in snapshot
            .entries
            .iter()
            .filter(|e| e.current_txn_first_offset >= 0)
        {
            tracker
                .open
                .insert(e.producer_id, e.current_txn_first_offset);
            tracker
                .ongoing
                .begin(e.current_txn_first_offset, e.producer_id);
        }
        tracker
    }

    /// Applies one batch; returns the `.txnindex` entry an ABORT marker
    /// closing a transaction with data produces.
    pub fn apply(&mut self, b: &ProducerBatch) -> Option<AbortedTxn> {
        if b.is_control {
            b.end_marker?;
            let first = self.open.remove(&b.producer_id)?;
            return self
                .ongoing
                .end(b.producer_id, first, b.base_offset, b.aborts);
        }
        if b.is_transactional && !self.open.contains_key(&b.producer_id) {
            self.open.insert(b.producer_id, b.base_offset);
            self.ongoing.begin(b.base_offset, b.producer_id);
        }
        None
    }
}
