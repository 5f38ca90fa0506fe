//! A data partition's own story, from its directory: where each segment
//! starts, where each leader epoch starts (`leader-epoch-checkpoint`, with
//! the time of the batch there), producer epoch bumps and aborted
//! transactions (the batches and their ABORT markers), and the recovery
//! point the log dir checkpoints. Read in one walk of the batches; what is
//! kept is the last epoch of each producer, never the records.

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::path::Path;

use crate::format::checkpoint::{LeaderEpochEntry, parse_leader_epoch_checkpoint};
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::logdir::chunked::walk_batches;
use crate::logdir::{LogDirError, Partition};

/// What the partition's files say happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoryChange {
    /// A segment starts here (its first batch's time, if it has one).
    SegmentStarts {
        /// Its `.log` file name.
        file: String,
    },
    /// A leader epoch starts here (`leader-epoch-checkpoint`).
    LeaderEpochStarts {
        /// The epoch.
        epoch: i32,
    },
    /// A producer's first batch of a higher epoch.
    ProducerEpochBumped {
        /// Producer id.
        producer_id: i64,
        /// Its new epoch.
        epoch: i16,
        /// Its epoch before.
        previous: i16,
    },
    /// An ABORT marker: the producer's open transaction is aborted.
    TransactionAborted {
        /// Producer id.
        producer_id: i64,
        /// Its epoch.
        epoch: i16,
    },
    /// The log dir's `recovery-point-offset-checkpoint` entry: the broker
    /// trusts the log below it and recovers from it on an unclean start.
    RecoveryPoint {
        /// The log end offset the files hold.
        log_end_offset: i64,
    },
}

/// One line of the story: where in the partition, when, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoryEvent {
    /// The offset in the data partition.
    pub offset: i64,
    /// The append time of the batch there, when there is one.
    pub timestamp: Option<i64>,
    /// What.
    pub change: StoryChange,
}

/// The leader epochs of `leader-epoch-checkpoint` by epoch: each one's
/// start offset. Empty when the file is absent; unreadable is an error
/// naming it.
pub fn leader_epoch_starts(partition: &Partition) -> Result<BTreeMap<i32, i64>, LogDirError> {
    Ok(read_epochs(partition)?
        .into_iter()
        .map(|e| (e.epoch, e.start_offset))
        .collect())
}

fn read_epochs(partition: &Partition) -> Result<Vec<LeaderEpochEntry>, LogDirError> {
    let path = partition.leader_epoch_checkpoint_path();
    match std::fs::read_to_string(&path) {
        Ok(text) => parse_leader_epoch_checkpoint(&text).map_err(|e| LogDirError::format(&path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(LogDirError::io(&path, e)),
    }
}

/// Walks the partition at `dir`, handing each event of its story to
/// `emit` in offset order (the recovery point last). Returns where the
/// walk stopped early at damage, if it did.
pub fn partition_story(
    dir: &Path,
    mut emit: impl FnMut(StoryEvent),
) -> Result<Option<String>, LogDirError> {
    let partition = Partition::open(dir)?;
    let mut epochs = read_epochs(&partition)?.into_iter().peekable();
    let mut producers: HashMap<i64, i16> = HashMap::new();
    let mut scratch = Vec::new();
    let mut end = partition.segments.first().map_or(0, |s| s.base_offset);
    let mut stopped = None;
    for segment in &partition.segments {
        let log = segment.log_path();
        let file = log
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut first = true;
        let damage = walk_batches(&log, |batch| {
            let Ok(s) = batch.summary(&mut scratch, DEFAULT_DECOMPRESS_LIMIT) else {
                return ControlFlow::Break(());
            };
            let at = |offset, change| StoryEvent {
                offset,
                timestamp: Some(s.max_timestamp),
                change,
            };
            if std::mem::take(&mut first) {
                emit(at(
                    segment.base_offset,
                    StoryChange::SegmentStarts { file: file.clone() },
                ));
            }
            while let Some(e) = epochs.next_if(|e| e.start_offset <= s.last_offset) {
                emit(at(
                    e.start_offset,
                    StoryChange::LeaderEpochStarts { epoch: e.epoch },
                ));
            }
            if s.producer_id >= 0 {
                let previous = producers.insert(s.producer_id, s.producer_epoch);
                if let Some(previous) = previous.filter(|p| *p < s.producer_epoch) {
                    let change = StoryChange::ProducerEpochBumped {
                        producer_id: s.producer_id,
                        epoch: s.producer_epoch,
                        previous,
                    };
                    emit(at(s.base_offset, change));
                }
            }
            if s.is_control && s.is_transactional {
                for r in &batch
                    .records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT)
                    .records
                {
                    if r.key.is_some_and(|k| k.get(2..4) == Some(&[0, 0])) {
                        let change = StoryChange::TransactionAborted {
                            producer_id: s.producer_id,
                            epoch: s.producer_epoch,
                        };
                        emit(at(r.offset, change));
                    }
                }
            }
            end = s.last_offset + 1;
            ControlFlow::Continue(())
        })?;
        if let Some(d) = damage {
            stopped = Some(format!("{}: {d}; the story stops there", log.display()));
            break;
        }
    }
    for e in epochs {
        emit(StoryEvent {
            offset: e.start_offset,
            timestamp: None,
            change: StoryChange::LeaderEpochStarts { epoch: e.epoch },
        });
    }
    if let Some(offset) = partition.checkpointed_offset("recovery-point-offset-checkpoint")? {
        emit(StoryEvent {
            offset,
            timestamp: None,
            change: StoryChange::RecoveryPoint {
                log_end_offset: end,
            },
        });
    }
    Ok(stopped)
}
