//! Which finished remote segment serves an offset of a leader epoch, as
//! `RemoteLogMetadataCache.remoteLogSegmentMetadata(epoch, offset)` answers
//! it: per epoch, the finished segments keyed by the offset the epoch
//! starts at in each (`RemoteLogLeaderEpochState`'s offset map). A finished
//! upload replaces the epoch's later entries it covers; a delete that
//! starts takes the segment out; uploads not finished are never in it.

use std::collections::BTreeMap;

/// Per leader epoch, segment ids by the offset the epoch starts at in them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EpochIndex {
    epochs: BTreeMap<i64, BTreeMap<i64, String>>,
}

impl EpochIndex {
    /// Records a finished upload's part of `epoch`: from `start` to `end`
    /// in segment `id`. `highest` is the epoch's highest remote offset
    /// before this upload: entries at or above `start` give way when it is
    /// at most `end` (`handleSegmentWithCopySegmentFinishedState`).
    pub fn finish(&mut self, epoch: i64, start: i64, end: i64, id: &str, highest: Option<i64>) {
        let starts = self.epochs.entry(epoch).or_default();
        while let Some((&last, _)) = starts.last_key_value() {
            if last >= start && highest.is_some_and(|h| h <= end) {
                starts.pop_last();
            } else {
                break;
            }
        }
        starts.insert(start, id.to_string());
    }

    /// Takes segment `id` out of `epoch` where it starts the epoch at
    /// `start` (a delete started; another segment there stays).
    pub fn remove(&mut self, epoch: i64, start: i64, id: &str) {
        if let Some(starts) = self.epochs.get_mut(&epoch)
            && starts.get(&start).is_some_and(|s| s == id)
        {
            starts.remove(&start);
        }
    }

    /// The segment whose part of `epoch` starts at or below `offset`
    /// nearest to it, with that start: the candidate the cache checks.
    pub fn floor(&self, epoch: i64, offset: i64) -> Option<(i64, &str)> {
        let (&start, id) = self.epochs.get(&epoch)?.range(..=offset).next_back()?;
        Some((start, id.as_str()))
    }

    /// The starts and segment ids `epoch` maps, in offset order.
    pub fn starts(&self, epoch: i64) -> impl Iterator<Item = (i64, &str)> {
        self.epochs
            .get(&epoch)
            .into_iter()
            .flat_map(|m| m.iter().map(|(s, id)| (*s, id.as_str())))
    }

    /// Whether any epoch maps offsets to segment `id`: a finished segment
    /// no epoch maps is never read (a longer upload replaced it).
    pub fn references(&self, id: &str) -> bool {
        self.epochs.values().any(|m| m.values().any(|s| s == id))
    }
}
