//! A replica's leader-epoch cache as its broker loads it: the entries of
//! `leader-epoch-checkpoint`, then, for every batch of the segments
//! recovery replays (`LogSegment.recover`), its partition leader epoch when
//! it is above the latest; then trimmed to the log (`LogLoader`:
//! `truncateFromEnd` at the log end offset, `truncateFromStart` at the log
//! start offset). A missing file is thus rebuilt from the batches only as
//! far as recovery replays them, and not at all after a clean shutdown.
//! The result is checked against the epochs all the batches carry.

use serde::Serialize;

use super::batch::ReplicaBatch;
use super::epoch_cache::EpochCache;
use crate::format::checkpoint::LeaderEpochEntry;

/// How a replica's epoch cache was obtained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "source")]
pub enum EpochSource {
    /// `leader-epoch-checkpoint`, which loading leaves as it is.
    Checkpoint,
    /// Loading rebuilt or changed it.
    Loaded {
        /// How, in words.
        why: String,
    },
}

/// The cache a replica's broker holds, and how it compares with the batches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadedEpochs {
    /// The cache used.
    pub cache: EpochCache,
    /// Where it came from.
    pub source: EpochSource,
    /// The epochs the batches carry, when the cache disagrees with them.
    pub batches_disagree: Option<EpochCache>,
}

impl LoadedEpochs {
    /// The source and the check in words.
    pub fn describe(&self) -> String {
        let source = match &self.source {
            EpochSource::Checkpoint => "from leader-epoch-checkpoint".to_string(),
            EpochSource::Loaded { why } => why.clone(),
        };
        match &self.batches_disagree {
            None => format!("{source}; agrees with the batches' partition leader epochs"),
            Some(b) => format!(
                "{source}; DISAGREES with the batches' partition leader epochs {}: Kafka follows its cache, and so does this",
                show(b.entries())
            ),
        }
    }
}

/// What loading needs to know besides the checkpoint.
#[derive(Debug, Clone, Copy)]
pub struct LoadView<'a> {
    /// Every batch the loaded log holds.
    pub batches: &'a [ReplicaBatch],
    /// Whether each batch's segment is replayed by recovery (same length as `batches`).
    pub replayed: &'a [bool],
    /// Whether the log dir holds the clean-shutdown marker.
    pub clean_shutdown: bool,
    /// Log start offset.
    pub log_start: i64,
    /// Log end offset.
    pub log_end: i64,
}

/// Assigns the epochs of `batches` as `LogSegment.recover` does.
fn replay<'a>(cache: &mut EpochCache, batches: impl Iterator<Item = &'a ReplicaBatch>) {
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
}

/// Trims `cache` as the loader does, but keeps an entry at the log end
/// offset: a broker that becomes leader records its new epoch before it
/// writes anything, and holds it while it runs.
fn trim(cache: &mut EpochCache, log_start: i64, log_end: i64) {
    let past_end = cache.truncate_from_end(log_end);
    cache.truncate_from_start(log_start);
    for e in past_end.into_iter().filter(|e| e.start_offset == log_end) {
        if cache.latest_epoch().is_none_or(|l| e.epoch > l) {
            cache.assign(e);
        }
    }
}

fn show(entries: &[LeaderEpochEntry]) -> String {
    let parts: Vec<String> = entries
        .iter()
        .map(|e| format!("{}@{}", e.epoch, e.start_offset))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// The cache loading leaves, from the checkpoint (`None` when absent,
/// `Err` when it does not parse) and the loaded log.
pub fn load_epochs(
    checkpoint: Option<Result<Vec<LeaderEpochEntry>, String>>,
    view: LoadView<'_>,
) -> LoadedEpochs {
    let (stored, missing) = match &checkpoint {
        Some(Ok(entries)) => (EpochCache::from_entries(entries), None),
        None => (
            EpochCache::new(),
            Some("there is no leader-epoch-checkpoint".to_string()),
        ),
        Some(Err(e)) => (
            EpochCache::new(),
            Some(format!(
                "leader-epoch-checkpoint does not parse ({e}; the broker fails to read it and takes the log dir offline)"
            )),
        ),
    };
    let mut cache = stored.clone();
    let replayed = view
        .batches
        .iter()
        .zip(view.replayed)
        .filter(|(_, r)| **r)
        .map(|(b, _)| b);
    replay(&mut cache, replayed);
    trim(&mut cache, view.log_start, view.log_end);
    let mut from_batches = EpochCache::new();
    replay(&mut from_batches, view.batches.iter());
    trim(&mut from_batches, view.log_start, view.log_end);
    let mut stored_trimmed = stored;
    trim(&mut stored_trimmed, view.log_start, view.log_end);
    let replays = if view.clean_shutdown {
        "after a clean shutdown recovery replays no batch".to_string()
    } else if view.replayed.iter().all(|r| *r) {
        "recovery replays every batch (no clean-shutdown marker, recovery point at the start)"
            .to_string()
    } else {
        "recovery replays the batches from the recovery point on".to_string()
    };
    let source = match missing {
        Some(why) => EpochSource::Loaded {
            why: format!("{why}; {replays}, so the cache is rebuilt from those batches"),
        },
        None if cache != stored_trimmed => EpochSource::Loaded {
            why: format!(
                "leader-epoch-checkpoint {}, extended while {replays}",
                show(stored_trimmed.entries())
            ),
        },
        None => EpochSource::Checkpoint,
    };
    // Entries at the log end are a new leader's: no batch carries them.
    let below_end = cache
        .entries()
        .iter()
        .filter(|e| e.start_offset < view.log_end);
    let batches_disagree = below_end
        .ne(from_batches.entries().iter())
        .then_some(from_batches);
    LoadedEpochs {
        cache,
        source,
        batches_disagree,
    }
}
