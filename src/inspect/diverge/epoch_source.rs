//! Where a replica's leader-epoch cache comes from: `leader-epoch-checkpoint`
//! when it agrees with the partition leader epochs in the batches, else the
//! cache rebuilt from those epochs as the loader's recovery assigns them
//! (`LogSegment.recover`: a batch's epoch when it is above the latest),
//! trimmed to the log as `LogLoader` trims it.

use serde::Serialize;

use super::epoch_cache::EpochCache;
use super::replica::ReplicaBatch;
use crate::format::checkpoint::LeaderEpochEntry;

/// How a replica's epoch cache was obtained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "source")]
pub enum EpochSource {
    /// `leader-epoch-checkpoint` agrees with the batches.
    Checkpoint,
    /// Rebuilt from the batches.
    Rebuilt {
        /// Why, in words.
        why: String,
    },
}

impl EpochSource {
    /// The source in words.
    pub fn describe(&self) -> String {
        match self {
            Self::Checkpoint => {
                "from leader-epoch-checkpoint (it agrees with the batches' partition leader epochs)"
                    .to_string()
            }
            Self::Rebuilt { why } => {
                format!("rebuilt from the batches' partition leader epochs: {why}")
            }
        }
    }
}

/// The cache the batches imply, as recovery assigns it.
fn from_batches(batches: &[ReplicaBatch]) -> EpochCache {
    let mut cache = EpochCache::new();
    for b in batches {
        if b.magic >= 2
            && b.partition_leader_epoch >= 0
            && cache
                .latest_epoch()
                .is_none_or(|l| b.partition_leader_epoch > l)
        {
            cache.assign(LeaderEpochEntry {
                epoch: b.partition_leader_epoch,
                start_offset: b.base_offset,
            });
        }
    }
    cache
}

fn show(entries: &[LeaderEpochEntry]) -> String {
    let parts: Vec<String> = entries
        .iter()
        .map(|e| format!("{}@{}", e.epoch, e.start_offset))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// The cache to use, from the checkpoint (`None` when absent; `Err` when it
/// does not parse) and the batches of a log from `log_start` to `log_end`.
/// An entry at the log end offset with no batch after it is kept: a broker
/// that becomes leader records its new epoch before it writes anything.
pub fn load_epochs(
    checkpoint: Option<Result<Vec<LeaderEpochEntry>, String>>,
    batches: &[ReplicaBatch],
    log_start: i64,
    log_end: i64,
) -> (EpochCache, EpochSource) {
    let mut rebuilt = from_batches(batches);
    rebuilt.truncate_from_start(log_start);
    let entries = match checkpoint {
        None => {
            return (
                rebuilt,
                EpochSource::Rebuilt {
                    why: "there is no leader-epoch-checkpoint".to_string(),
                },
            );
        }
        Some(Err(e)) => {
            return (
                rebuilt,
                EpochSource::Rebuilt {
                    why: format!("leader-epoch-checkpoint does not parse ({e})"),
                },
            );
        }
        Some(Ok(entries)) => entries,
    };
    let mut stored = EpochCache::from_entries(&entries);
    let past_end = stored.truncate_from_end(log_end);
    stored.truncate_from_start(log_start);
    let pending: Vec<LeaderEpochEntry> = past_end
        .into_iter()
        .filter(|e| e.start_offset == log_end)
        .collect();
    let agrees = stored == rebuilt;
    let mut cache = if agrees {
        stored.clone()
    } else {
        rebuilt.clone()
    };
    for e in pending {
        if cache.latest_epoch().is_none_or(|l| e.epoch > l) {
            cache.assign(e);
        }
    }
    if agrees {
        (cache, EpochSource::Checkpoint)
    } else {
        let why = format!(
            "leader-epoch-checkpoint says {} below the log end offset {log_end}, the batches say {}",
            show(stored.entries()),
            show(rebuilt.entries())
        );
        (cache, EpochSource::Rebuilt { why })
    }
}
