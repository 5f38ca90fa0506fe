//! A partition's leader-epoch cache as the broker holds it in memory
//! (`LeaderEpochFileCache`): epochs in increasing order, each with the
//! first offset written in it, and the two questions replication asks of it.

use serde::Serialize;

use crate::format::checkpoint::LeaderEpochEntry;

/// Kafka's `UNDEFINED_EPOCH` (-1).
pub const UNDEFINED_EPOCH: i32 = -1;

/// Kafka's `UNDEFINED_EPOCH_OFFSET` (-1).
pub const UNDEFINED_EPOCH_OFFSET: i64 = -1;

/// What `endOffsetFor` answers, and which of its cases gave the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EpochEndOffset {
    /// The epoch answered (`UNDEFINED_EPOCH` when unknown).
    pub epoch: i32,
    /// Its end offset (`UNDEFINED_EPOCH_OFFSET` when unknown).
    pub end_offset: i64,
    /// The case of `endOffsetFor` that applied.
    pub case: EndOffsetCase,
}

impl EpochEndOffset {
    /// Whether the answer is `UNDEFINED_EPOCH_OFFSET`.
    pub fn is_undefined(&self) -> bool {
        self.end_offset == UNDEFINED_EPOCH_OFFSET
    }
}

/// The branches of `endOffsetFor(requestedEpoch, logEndOffset)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EndOffsetCase {
    /// The requested epoch is `UNDEFINED_EPOCH`: undefined answer.
    RequestedUndefined,
    /// The requested epoch is the latest: the log end offset.
    Latest,
    /// No epoch above the requested one is known: undefined answer.
    NoHigherEpoch,
    /// The requested epoch is below every known epoch: the start offset of
    /// the first epoch, answered with the requested epoch.
    BelowFirst,
    /// The largest known epoch at or below the requested one, ending where
    /// the next known epoch starts.
    Floor,
}

/// The epochs of one replica, in increasing order of epoch and start offset.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct EpochCache {
    entries: Vec<LeaderEpochEntry>,
}

impl EpochCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// A cache built by assigning `entries` in order, as the broker does
    /// with the lines of `leader-epoch-checkpoint`.
    pub fn from_entries(entries: &[LeaderEpochEntry]) -> Self {
        let mut cache = Self::new();
        for e in entries {
            cache.assign(*e);
        }
        cache
    }

    /// A cache of `(epoch, start offset)` pairs, for tests.
    #[cfg(test)]
    pub fn from_pairs(pairs: &[(i32, i64)]) -> Self {
        let entries: Vec<LeaderEpochEntry> = pairs
            .iter()
            .map(|&(epoch, start_offset)| LeaderEpochEntry {
                epoch,
                start_offset,
            })
            .collect();
        Self::from_entries(&entries)
    }

    /// The entries.
    pub fn entries(&self) -> &[LeaderEpochEntry] {
        &self.entries
    }

    /// The latest entry.
    pub fn latest(&self) -> Option<LeaderEpochEntry> {
        self.entries.last().copied()
    }

    /// `epochForOffset`: the entry whose epoch holds `offset`: the one
    /// starting exactly at it, else the last one starting below it (none
    /// when every epoch starts after it).
    pub fn epoch_for_offset(&self, offset: i64) -> Option<LeaderEpochEntry> {
        let mut previous = None;
        for e in &self.entries {
            if e.start_offset == offset {
                return Some(*e);
            }
            if e.start_offset > offset {
                return previous;
            }
            previous = Some(*e);
        }
        previous
    }

    /// The latest epoch.
    pub fn latest_epoch(&self) -> Option<i32> {
        self.latest().map(|e| e.epoch)
    }

    /// `assign`: ignores invalid entries and entries already implied by the
    /// latest one; otherwise removes the entries that conflict with the new
    /// one (an epoch at or above it, or a start offset at or past it) and
    /// appends it. Returns whether the cache changed.
    pub fn assign(&mut self, entry: LeaderEpochEntry) -> bool {
        if entry.epoch < 0 || entry.start_offset < 0 {
            return false;
        }
        if self
            .latest()
            .is_some_and(|l| l.epoch == entry.epoch && entry.start_offset >= l.start_offset)
        {
            return false;
        }
        while self
            .latest()
            .is_some_and(|l| l.epoch >= entry.epoch || l.start_offset >= entry.start_offset)
        {
            self.entries.pop();
        }
        self.entries.push(entry);
        true
    }

    /// `truncateFromEnd`: removes the entries starting at or after
    /// `end_offset`, returning them.
    pub fn truncate_from_end(&mut self, end_offset: i64) -> Vec<LeaderEpochEntry> {
        let keep = self
            .entries
            .partition_point(|e| e.start_offset < end_offset);
        if end_offset < 0 {
            return Vec::new();
        }
        self.entries.split_off(keep)
    }

    /// `truncateFromStart`: drops the entries starting at or before
    /// `start_offset` but the last of them, which is moved to start there.
    pub fn truncate_from_start(&mut self, start_offset: i64) {
        let covered = self
            .entries
            .partition_point(|e| e.start_offset <= start_offset);
        if let Some(last) = covered.checked_sub(1) {
            self.entries.drain(..last);
            if let Some(first) = self.entries.first_mut() {
                first.start_offset = start_offset;
            }
        }
    }

    /// `endOffsetFor(requested, logEndOffset)`.
    pub fn end_offset_for(&self, requested: i32, log_end_offset: i64) -> EpochEndOffset {
        let answer = |epoch, end_offset, case| EpochEndOffset {
            epoch,
            end_offset,
            case,
        };
        let undefined = |case| answer(UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, case);
        if requested == UNDEFINED_EPOCH {
            return undefined(EndOffsetCase::RequestedUndefined);
        }
        if self.latest_epoch() == Some(requested) {
            return answer(requested, log_end_offset, EndOffsetCase::Latest);
        }
        let higher = self.entries.iter().find(|e| e.epoch > requested);
        let floor = self.entries.iter().rev().find(|e| e.epoch <= requested);
        match (higher, floor) {
            (None, _) => undefined(EndOffsetCase::NoHigherEpoch),
            (Some(h), None) => answer(requested, h.start_offset, EndOffsetCase::BelowFirst),
            (Some(h), Some(f)) => answer(f.epoch, h.start_offset, EndOffsetCase::Floor),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn cache(pairs: &[(i32, i64)]) -> EpochCache {
        EpochCache::from_entries(
            &pairs
                .iter()
                .map(|&(epoch, start_offset)| LeaderEpochEntry {
                    epoch,
                    start_offset,
                })
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn end_offset_for_covers_every_case() {
        let c = cache(&[(1, 10), (3, 50), (5, 80)]);
        let at = |e| {
            let a = c.end_offset_for(e, 100);
            (a.epoch, a.end_offset, a.case)
        };
        assert_eq!(at(5), (5, 100, EndOffsetCase::Latest));
        assert_eq!(at(4), (3, 80, EndOffsetCase::Floor));
        assert_eq!(at(3), (3, 80, EndOffsetCase::Floor));
        assert_eq!(at(2), (1, 50, EndOffsetCase::Floor));
        assert_eq!(at(0), (0, 10, EndOffsetCase::BelowFirst));
        assert_eq!(at(6), (-1, -1, EndOffsetCase::NoHigherEpoch));
        assert_eq!(at(-1), (-1, -1, EndOffsetCase::RequestedUndefined));
    }

    #[test]
    fn assign_drops_conflicting_entries_and_truncation_trims() {
        let mut c = cache(&[(1, 10), (3, 50), (5, 80)]);
        assert!(!c.assign(LeaderEpochEntry {
            epoch: 5,
            start_offset: 90
        }));
        assert!(c.assign(LeaderEpochEntry {
            epoch: 4,
            start_offset: 60
        }));
        assert_eq!(c, cache(&[(1, 10), (3, 50), (4, 60)]));
        assert_eq!(c.truncate_from_end(60).len(), 1);
        assert_eq!(c, cache(&[(1, 10), (3, 50)]));
        c.truncate_from_start(20);
        assert_eq!(c, cache(&[(1, 20), (3, 50)]));
        c.truncate_from_start(5);
        assert_eq!(c, cache(&[(1, 20), (3, 50)]));
    }
}
