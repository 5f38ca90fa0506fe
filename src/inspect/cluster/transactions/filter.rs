//! Which transactional ids and open transactions `kseg transactions`
//! lists (as `kafka-transactions.sh list` and `find-hanging` narrow them),
//! and the summary of all of them printed first.

use std::collections::BTreeMap;

use super::coordinator::TxnMetadata;
use super::hanging::{Status, Verdict};

/// What is asked for; every list empty (and `hanging` false) keeps all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TxnFilter {
    /// Only these transactional ids (and the open transactions of their
    /// producers).
    pub ids: Vec<String>,
    /// Only ids in these states (Kafka's names, any case).
    pub states: Vec<String>,
    /// Only open transactions judged hanging, no ids.
    pub hanging: bool,
}

impl TxnFilter {
    /// Whether transactional id `id` is listed.
    pub fn keeps_id(&self, id: &str, meta: &TxnMetadata) -> bool {
        !self.hanging
            && (self.ids.is_empty() || self.ids.iter().any(|i| i == id))
            && (self.states.is_empty()
                || self
                    .states
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(&meta.state)))
    }

    /// Whether an open transaction with `verdict` is listed: a state
    /// filter alone leaves open transactions out, an id filter keeps those
    /// of the id's producer.
    pub fn keeps_open(&self, verdict: &Verdict) -> bool {
        let by_id = self.ids.is_empty()
            || verdict
                .transactional_id
                .as_ref()
                .is_some_and(|id| self.ids.contains(id));
        by_id
            && (self.states.is_empty() || !self.ids.is_empty())
            && (!self.hanging || verdict.status == Status::Hanging)
    }
}

/// How many transactional ids are in each state, and how many open
/// transactions the data partitions hold and hang.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TxnSummary {
    /// Transactional ids by state.
    pub by_state: BTreeMap<String, usize>,
    /// Open transactions in the data partitions read.
    pub open: usize,
    /// Of which judged hanging.
    pub hanging: usize,
    /// Of which not judged (a coordinator partition unread).
    pub unknown: usize,
}

impl TxnSummary {
    /// The summary of `ids` and the `verdicts` on the open transactions.
    pub fn of<'a>(
        ids: impl IntoIterator<Item = &'a TxnMetadata>,
        verdicts: impl IntoIterator<Item = &'a Verdict>,
    ) -> Self {
        let mut s = Self::default();
        for meta in ids {
            *s.by_state.entry(meta.state.clone()).or_default() += 1;
        }
        for v in verdicts {
            s.open += 1;
            match v.status {
                Status::Hanging => s.hanging += 1,
                Status::Unknown => s.unknown += 1,
                Status::NotHanging => {}
            }
        }
        s
    }

    /// How many transactional ids were counted.
    pub fn ids(&self) -> usize {
        self.by_state.values().sum()
    }
}
