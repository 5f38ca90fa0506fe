//! Whether a segment's `.txnindex` agrees with the abort markers in its
//! log, checked during the segment's one walk. Every ABORT marker that
//! closes a transaction with data must have its entry (producer, first
//! offset, marker offset, last stable offset), in order, and no other entry
//! may be there. A missing or short `.txnindex` below the recovery point is
//! damage Kafka never repairs: `read_committed` consumers then receive the
//! aborted records.
//!
//! The open transactions at the segment's base offset come from the
//! producer snapshot the broker took there, or are none for a log starting
//! at offset 0. Without either, a transaction's first offset and the last
//! stable offset may depend on history that is gone: entries are then
//! matched to markers by producer and offset, and checked where known.

use crate::format::producer_snapshot::parse_producer_snapshot;
use crate::format::txn_index::{AbortedTxn, TXN_INDEX_ENTRY_SIZE, parse_txn_index};
use crate::inspect::index::health::IndexHealth;
use crate::inspect::producer::batch::ProducerBatch;
use crate::inspect::producer::txn::TxnTracker;
use crate::logdir::mapped::read_small;
use crate::logdir::{LogDirError, Segment};

/// What is known of the open transactions at a segment's base offset.
#[derive(Debug, Clone, Default)]
pub struct TxnStart {
    tracker: TxnTracker,
    exact: bool,
}

impl TxnStart {
    /// Nothing is known.
    pub fn unknown() -> Self {
        Self::default()
    }

    /// For the segment at `base_offset`: from the producer snapshot taken
    /// there (its bytes, if the file exists and parses), or none open when
    /// the log starts at offset 0.
    pub fn at(base_offset: i64, snapshot: Option<&[u8]>) -> Self {
        match snapshot.and_then(|b| parse_producer_snapshot(b).ok()) {
            Some(s) => Self {
                tracker: TxnTracker::from_snapshot(&s),
                exact: true,
            },
            None => Self {
                tracker: TxnTracker::default(),
                exact: base_offset == 0,
            },
        }
    }
}

/// Follows one segment's valid batches and judges its `.txnindex`.
#[derive(Debug)]
pub struct TxnIndexCheck {
    start: TxnStart,
    on_disk: Vec<AbortedTxn>,
    next: usize,
    problem: Option<String>,
}

impl TxnIndexCheck {
    /// Reads the segment's `.txnindex` (absent: no entries).
    pub fn new(segment: &Segment, start: TxnStart) -> Result<Self, LogDirError> {
        let path = segment.txn_index_path();
        let bytes = if path.exists() {
            read_small(&path, 1 << 30)?
        } else {
            Vec::new()
        };
        let on_disk = parse_txn_index(&bytes).map_err(|e| LogDirError::format(&path, e))?;
        let problem = if bytes.len() % TXN_INDEX_ENTRY_SIZE != 0 {
            Some(format!(
                "{} bytes is not a whole number of {TXN_INDEX_ENTRY_SIZE}-byte entries: a torn entry at byte {}",
                bytes.len(),
                bytes.len() - bytes.len() % TXN_INDEX_ENTRY_SIZE
            ))
        } else {
            on_disk.windows(2).enumerate().find_map(|(i, w)| match w {
                [a, b] if a.last_offset >= b.last_offset => Some(format!(
                    "the entry at byte {} (offset {}) does not come after the one before it (offset {})",
                    (i + 1) * TXN_INDEX_ENTRY_SIZE,
                    b.last_offset,
                    a.last_offset
                )),
                _ => None,
            })
        };
        Ok(Self {
            start,
            on_disk,
            next: 0,
            problem,
        })
    }

    /// Takes the next valid batch carrying a producer id.
    pub fn batch(&mut self, b: &ProducerBatch) {
        let expected = self.start.tracker.apply(b);
        if !(b.is_control && b.aborts) || self.problem.is_some() {
            return;
        }
        let found = self
            .on_disk
            .get(self.next)
            .filter(|d| d.producer_id == b.producer_id && d.last_offset == b.base_offset)
            .copied();
        let entry_byte = self.next * TXN_INDEX_ENTRY_SIZE;
        self.problem = match (expected, found) {
            (Some(e), Some(d)) => {
                let lso_differs = self.start.exact && d.last_stable_offset != e.last_stable_offset;
                (d.first_offset != e.first_offset || lso_differs).then(|| format!(
                    "the entry at byte {entry_byte} (producer {}, offset {}) says first offset {} and last stable offset {}; the log (ABORT marker at byte {} of the .log) gives {} and {}",
                    d.producer_id, d.last_offset, d.first_offset, d.last_stable_offset, b.position, e.first_offset, e.last_stable_offset
                ))
            }
            (Some(e), None) => Some(format!(
                "no entry for producer {}'s transaction aborted at offset {} (ABORT marker at byte {} of the .log, first offset {}): read_committed consumers receive its records",
                e.producer_id, e.last_offset, b.position, e.first_offset
            )),
            (None, Some(d)) if self.start.exact => Some(format!(
                "the entry at byte {entry_byte} (producer {}, offset {}) is for a transaction that had no data",
                d.producer_id, d.last_offset
            )),
            (None, _) => None,
        };
        if found.is_some() {
            self.next += 1;
        }
    }

    /// The verdict once the walk is over; `walked_all`: it reached the end
    /// of the data (past a bad batch, entries cannot be matched).
    pub fn finish(self, walked_all: bool) -> IndexHealth {
        let entry_byte = self.next * TXN_INDEX_ENTRY_SIZE;
        let leftover = self.on_disk.get(self.next).filter(|_| walked_all).map(|d| {
            format!(
                "the entry at byte {entry_byte} (producer {}, offset {}) matches no ABORT marker in this segment",
                d.producer_id, d.last_offset
            )
        });
        match self.problem.or(leftover) {
            Some(problem) => IndexHealth::Inconsistent(problem),
            None => IndexHealth::Ok,
        }
    }
}
