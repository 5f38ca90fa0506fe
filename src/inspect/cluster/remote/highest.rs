//! The highest offset of a partition in remote storage, as the broker
//! works it out (`RemoteLogManager.findHighestRemoteOffset`) and keeps it
//! as `UnifiedLog.highestOffsetInRemoteStorage`: from the latest leader
//! epoch of `leader-epoch-checkpoint` back, the first epoch with a
//! finished upload gives its highest remote offset, capped below where
//! that epoch ends in the local epoch cache. Local retention of a tiered
//! topic deletes only segments at or below it.

use super::RemotePartition;
use crate::inspect::diverge::epoch_cache::EpochCache;

/// The highest offset in remote storage and the epoch it was found in;
/// `None` when no epoch of `epochs` has a finished upload (the broker
/// then holds -1).
pub fn highest_offset_in_remote_storage(
    remote: &RemotePartition,
    epochs: &EpochCache,
    log_end_offset: i64,
) -> Option<(i64, i32)> {
    epochs.entries().iter().rev().find_map(|entry| {
        let highest = (*remote
            .highest_offset_for_epoch
            .get(&i64::from(entry.epoch))?)?;
        let end = epochs.end_offset_for(entry.epoch, log_end_offset);
        Some(if end.end_offset <= highest {
            (end.end_offset - 1, end.epoch)
        } else {
            (highest, entry.epoch)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_epoch_with_a_finished_upload_answers_capped_below_its_local_end() {
        let mut remote = RemotePartition::default();
        remote.highest_offset_for_epoch.insert(1, Some(350));
        remote.highest_offset_for_epoch.insert(3, None);
        let epochs = EpochCache::from_pairs(&[(0, 0), (1, 100), (3, 300)]);
        // Epoch 3 has no finished upload; epoch 1 ends locally at 300, below
        // the remote 350 (an unclean election truncated it).
        assert_eq!(
            highest_offset_in_remote_storage(&remote, &epochs, 500),
            Some((299, 1))
        );
        remote.highest_offset_for_epoch.insert(3, Some(420));
        assert_eq!(
            highest_offset_in_remote_storage(&remote, &epochs, 500),
            Some((420, 3))
        );
        assert_eq!(
            highest_offset_in_remote_storage(&RemotePartition::default(), &epochs, 500),
            None
        );
    }
}
