//! A follower's truncation, step by step, as its fetcher computes it
//! (`AbstractFetcherThread.truncateToEpochEndOffsets` and
//! `getOffsetTruncationState`, with the leader answering through
//! `LeaderEpochFileCache.endOffsetFor`), including KIP-279's loop: when the
//! leader answers with an epoch the follower does not know, the follower
//! truncates to the end of its largest epoch below it and asks again.

use serde::Serialize;

use super::batch::ReplicaBatch;
use super::epoch_cache::{EpochCache, EpochEndOffset};
use crate::format::checkpoint::LeaderEpochEntry;

/// The rule of `getOffsetTruncationState` (or the fetcher) that decided a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TruncationRule {
    /// The follower knows no epoch: it truncates to its high watermark.
    NoEpochHighWatermark,
    /// The leader answered `UNDEFINED_EPOCH_OFFSET`: the follower truncates
    /// to its initial fetch offset, its high watermark.
    UndefinedOffsetHighWatermark,
    /// The follower does not know the epoch the leader answered: it truncates
    /// to the end of its largest epoch below it and asks again.
    UnknownEpochAskAgain,
    /// Both know the epoch: the minimum of the leader's end offset, the
    /// follower's end offset for it and its log end offset.
    SameEpoch,
    /// The follower's cache gives no end offset for the answered epoch
    /// (`endOffsetForEpoch` is empty, as for a log without epochs): the
    /// minimum of the leader's end offset and the follower's log end offset.
    BelowFollowerEpochs,
}

/// One round of the follower's truncation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TruncationStep {
    /// The epoch asked for: the follower's latest (`None`: it has none).
    pub requested_epoch: Option<i32>,
    /// The leader's `endOffsetFor(requested, its log end offset)`.
    pub leader_answer: Option<EpochEndOffset>,
    /// The follower's own `endOffsetFor(answered epoch, its log end offset)`.
    pub follower_answer: Option<EpochEndOffset>,
    /// The rule that decided.
    pub rule: TruncationRule,
    /// The offset the follower truncates to.
    pub truncate_to: i64,
    /// The follower's log end offset before the step.
    pub log_end_before: i64,
    /// Its log end offset after (a batch straddling `truncate_to` goes whole).
    pub log_end_after: i64,
    /// Epoch entries the step removes from the follower's cache.
    pub epochs_removed: Vec<LeaderEpochEntry>,
    /// Whether truncation is complete after it.
    pub completed: bool,
}

/// A follower's whole truncation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FollowerTruncation {
    /// The steps in order.
    pub steps: Vec<TruncationStep>,
    /// Where the follower's log ends once it is done: it keeps the offsets
    /// below, loses the rest, and fetches from here.
    pub truncation_offset: i64,
    /// Its epoch cache once it is done.
    pub epochs_after: EpochCache,
}

/// What the leader side of the exchange needs.
#[derive(Debug, Clone, Copy)]
pub struct LeaderView<'a> {
    /// The leader's epoch cache.
    pub epochs: &'a EpochCache,
    /// The leader's log end offset.
    pub log_end_offset: i64,
}

/// What the follower side needs.
#[derive(Debug, Clone, Copy)]
pub struct FollowerView<'a> {
    /// The follower's epoch cache.
    pub epochs: &'a EpochCache,
    /// Its batches.
    pub batches: &'a [ReplicaBatch],
    /// Its log end offset.
    pub log_end_offset: i64,
    /// Its initial fetch offset: its high watermark (log start offset when none).
    pub fetch_offset: i64,
}

/// The log end offset after `UnifiedLog.truncateTo(target)`: the batch
/// holding `target` goes whole.
fn log_end_after(batches: &[ReplicaBatch], log_end: i64, target: i64) -> i64 {
    if target >= log_end {
        return log_end;
    }
    batches
        .iter()
        .take_while(|b| b.last_offset < target)
        .last()
        .map_or(target, |b| b.last_offset.saturating_add(1))
}

/// The follower's decision on the leader's answer.
fn decide(
    leader: EpochEndOffset,
    follower: &FollowerView<'_>,
    epochs: &EpochCache,
    log_end: i64,
) -> (Option<EpochEndOffset>, TruncationRule, i64, bool) {
    if leader.is_undefined() {
        return (
            None,
            TruncationRule::UndefinedOffsetHighWatermark,
            follower.fetch_offset,
            true,
        );
    }
    let own = epochs.end_offset_for(leader.epoch, log_end);
    if own.is_undefined() {
        return (
            None,
            TruncationRule::BelowFollowerEpochs,
            leader.end_offset.min(log_end),
            true,
        );
    }
    if own.epoch != leader.epoch {
        (
            Some(own),
            TruncationRule::UnknownEpochAskAgain,
            own.end_offset.min(log_end),
            false,
        )
    } else {
        (
            Some(own),
            TruncationRule::SameEpoch,
            own.end_offset.min(leader.end_offset).min(log_end),
            true,
        )
    }
}

/// Runs the follower's truncation against the leader.
pub fn truncate_follower(leader: LeaderView<'_>, follower: FollowerView<'_>) -> FollowerTruncation {
    let mut epochs = follower.epochs.clone();
    let mut log_end = follower.log_end_offset;
    let mut steps = Vec::new();
    // Every round but the last removes at least one epoch entry.
    for _ in 0..=follower.epochs.entries().len() + 1 {
        let requested = epochs.latest_epoch();
        let (leader_answer, follower_answer, rule, target, completed) = match requested {
            None => (
                None,
                None,
                TruncationRule::NoEpochHighWatermark,
                follower.fetch_offset,
                true,
            ),
            Some(epoch) => {
                let answer = leader.epochs.end_offset_for(epoch, leader.log_end_offset);
                let (own, rule, target, completed) = decide(answer, &follower, &epochs, log_end);
                (Some(answer), own, rule, target, completed)
            }
        };
        let after = log_end_after(follower.batches, log_end, target);
        let epochs_removed =
            epochs.truncate_from_end(if target >= log_end { log_end } else { target });
        steps.push(TruncationStep {
            requested_epoch: requested,
            leader_answer,
            follower_answer,
            rule,
            truncate_to: target,
            log_end_before: log_end,
            log_end_after: after,
            epochs_removed,
            completed,
        });
        log_end = after;
        if completed {
            break;
        }
    }
    FollowerTruncation {
        steps,
        truncation_offset: log_end,
        epochs_after: epochs,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn batch(base_offset: i64, last_offset: i64, epoch: i32) -> ReplicaBatch {
        ReplicaBatch {
            segment: 0,
            position: 0,
            size: 100,
            base_offset,
            last_offset,
            records: (last_offset - base_offset + 1) as u64,
            crc: 0,
            magic: 2,
            partition_leader_epoch: epoch,
            producer_id: -1,
            is_transactional: false,
            is_control: false,
            first_timestamp: 0,
            max_timestamp: 0,
        }
    }

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
    fn a_batch_straddling_the_target_goes_whole() {
        // Follower [0@0] with batches 0..9, 10..19; leader [0@0, 1@15]:
        // asked for 0 it answers (0, 15); the follower truncates to 15,
        // which falls inside 10..19, so its log ends at 10.
        let batches = [batch(0, 9, 0), batch(10, 19, 0)];
        let follower_epochs = cache(&[(0, 0)]);
        let leader_epochs = cache(&[(0, 0), (1, 15)]);
        let t = truncate_follower(
            LeaderView {
                epochs: &leader_epochs,
                log_end_offset: 30,
            },
            FollowerView {
                epochs: &follower_epochs,
                batches: &batches,
                log_end_offset: 20,
                fetch_offset: 0,
            },
        );
        assert_eq!(t.steps.len(), 1);
        assert_eq!(t.steps[0].truncate_to, 15);
        assert_eq!(t.truncation_offset, 10);
    }

    #[test]
    fn nothing_to_truncate_still_drops_an_epoch_at_the_log_end() {
        // A follower that was elected in epoch 2 at its log end 20 and
        // wrote nothing: asked for 2, the leader [0@0, 3@20] answers (0, 20);
        // the follower knows 0, ending where its 2 starts, 20:
        // min(20, 20, 20) = 20. truncateTo(20) cuts nothing but removes
        // 2@20, as UnifiedLog.truncateTo does at the log end.
        let batches = [batch(0, 19, 0)];
        let follower_epochs = cache(&[(0, 0), (2, 20)]);
        let leader_epochs = cache(&[(0, 0), (3, 20)]);
        let t = truncate_follower(
            LeaderView {
                epochs: &leader_epochs,
                log_end_offset: 25,
            },
            FollowerView {
                epochs: &follower_epochs,
                batches: &batches,
                log_end_offset: 20,
                fetch_offset: 0,
            },
        );
        let first = t.steps[0].leader_answer.unwrap();
        assert_eq!((first.epoch, first.end_offset), (0, 20));
        assert_eq!(t.steps[0].rule, TruncationRule::SameEpoch);
        assert_eq!(t.steps[0].epochs_removed.len(), 1);
        assert_eq!(t.steps.len(), 1);
        assert_eq!(t.truncation_offset, 20);
        assert_eq!(t.epochs_after, cache(&[(0, 0)]));
    }
}
