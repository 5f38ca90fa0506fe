//! Checks every segment of a partition (in parallel) and predicts Kafka's
//! recovery of it.

use rayon::prelude::*;

use std::collections::BTreeMap;

use crate::format::checkpoint::{LeaderEpochEntry, parse_leader_epoch_checkpoint};
use crate::format::partition_metadata::{
    PartitionMetadataError, UnreadableOutcome, is_metadata_topic_id, read_partition_metadata,
};
use crate::format::txn_index::{AbortedTxn, encode_txn_index};
use crate::inspect::index::interval::IndexInterval;
use crate::inspect::producer::state::{BatchBudget, ProducerExpiry};
use crate::inspect::recovery::plan::{PartitionState, RecoveryPlan, plan_recovery};
use crate::inspect::recovery::raft_log::{LogBounds, RaftLogCheck, check_raft_log};
use crate::inspect::recovery::segment::{SegmentCheck, SegmentCheckOptions, check_segment};
use crate::inspect::recovery::snapshots::{SnapshotPlan, plan_snapshots};
use crate::inspect::recovery::txn_index::TxnStart;
use crate::logdir::file_name::segment_file_name;
use crate::logdir::mapped::read_small;
use crate::logdir::{LogDirError, Partition};

/// A checked partition and its recovery prediction.
#[derive(Debug)]
pub struct PartitionReport {
    /// The partition.
    pub partition: Partition,
    /// One check per segment, in order.
    pub checks: Vec<SegmentCheck>,
    /// Recovery point, marker, snapshots and epochs used.
    pub state: PartitionState,
    /// Where the recovery point came from, in words.
    pub recovery_point_source: String,
    /// What Kafka will do.
    pub plan: RecoveryPlan,
    /// The producer snapshot files loading leaves.
    pub snapshots: SnapshotPlan,
    /// Segment base offsets (past the first segment) without the producer
    /// snapshot the broker takes at every roll: loading then replays
    /// producer state from an earlier snapshot or the log start.
    pub snapshots_missing: Vec<i64>,
    /// Why the broker cannot read the partition's `partition.metadata`,
    /// when it cannot (it reads the file of every partition at start).
    pub partition_metadata: Option<PartitionMetadataError>,
    /// Why the broker cannot read the partition's `leader-epoch-checkpoint`,
    /// when it cannot (the log's leader epoch cache reads it as it opens).
    pub leader_epochs_unreadable: Option<CheckpointUnreadable>,
    /// For the KRaft metadata log: its snapshots and `quorum-state` as the
    /// node's raft layer judges them at start.
    pub raft: Option<RaftLogCheck>,
}

impl PartitionReport {
    /// Files Kafka deletes or renames at start-up: `.deleted`, `.cleaned`
    /// and `.swap` files, and indexes without a `.log`.
    pub fn stray_files(&self) -> Vec<String> {
        self.partition
            .stray
            .iter()
            .chain(&self.partition.orphan_indexes)
            .map(|p| p.display().to_string())
            .collect()
    }

    /// Whether Kafka's next start changes nothing here.
    pub fn is_clean(&self) -> bool {
        self.plan.is_clean()
            && self.stray_files().is_empty()
            && self.partition_metadata.is_none()
            && self.leader_epochs_unreadable.is_none()
            && self.raft.as_ref().is_none_or(RaftLogCheck::is_clean)
    }
}

/// A partition checked, with the `index.interval.bytes` its rebuilt
/// indexes use.
#[derive(Debug)]
pub struct CheckedPartition {
    /// What the check found and what Kafka will do.
    pub report: PartitionReport,
    /// The interval recovery rebuilds indexes with, and where it came from.
    pub interval: IndexInterval,
}

/// Whether writing `aborted` as a `.txnindex` whose file holds `now` (absent:
/// `None`) changes it: Kafka empties an existing file and creates a missing
/// one only for a first entry.
fn txn_index_changes(now: Option<&[u8]>, aborted: &[AbortedTxn]) -> bool {
    match now {
        Some(bytes) => bytes != encode_txn_index(aborted).as_slice(),
        None => !aborted.is_empty(),
    }
}

/// What the broker's start brings besides the files.
#[derive(Debug, Clone, Copy)]
pub struct LoadInputs {
    /// Overrides the log dir's `recovery-point-offset-checkpoint`.
    pub recovery_point: Option<i64>,
    /// The broker's clock and `producer.id.expiration.ms`.
    pub expiry: ProducerExpiry,
}

/// The recovery point Kafka starts from, and where it came from.
fn recovery_point(partition: &Partition, given: Option<i64>) -> Result<(i64, String), LogDirError> {
    Ok(match given {
        Some(rp) => (rp, "given on the command line".to_string()),
        None => match partition.checkpointed_offset("recovery-point-offset-checkpoint")? {
            Some(rp) => (rp, "from recovery-point-offset-checkpoint".to_string()),
            None => (
                0,
                "no recovery-point-offset-checkpoint entry, so 0: every segment".to_string(),
            ),
        },
    })
}

/// The bytes of every producer snapshot in the partition, by offset.
fn read_snapshots(partition: &Partition) -> Result<BTreeMap<i64, Vec<u8>>, LogDirError> {
    let mut existing = BTreeMap::new();
    for &offset in &partition.snapshots {
        let path = partition.dir.join(segment_file_name(offset, "snapshot"));
        existing.insert(offset, read_small(&path, 1 << 30)?);
    }
    Ok(existing)
}

/// Checks every segment, in parallel. The replay normally reads the
/// segments from the recovery point on, the last one and those recovered
/// for a missing index: they get the in-memory budget; any other segment
/// is read again if it is needed.
fn check_segments(
    partition: &Partition,
    options: &SegmentCheckOptions,
    recovery_point: i64,
    snapshots: &BTreeMap<i64, Vec<u8>>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<SegmentCheck>, LogDirError> {
    let budget = BatchBudget::new(options.producer_batches_in_memory);
    let no_budget = BatchBudget::new(0);
    let replay_from = partition.floor_segment(recovery_point).unwrap_or(0);
    let last = partition.segments.len().saturating_sub(1);
    partition
        .segments
        .par_iter()
        .enumerate()
        .map(|(i, s)| {
            let replayed = i >= replay_from || i == last || !s.offset_index_path().exists();
            let budget = if replayed { &budget } else { &no_budget };
            let txn_start = TxnStart::at(
                s.base_offset,
                snapshots.get(&s.base_offset).map(Vec::as_slice),
            );
            let check = check_segment(s, options, budget, txn_start);
            progress(s.log_size());
            check
        })
        .collect()
}

/// Why the broker cannot read `partition.metadata`, or what its absence
/// does. The KRaft metadata log's own file is read as the node's raft
/// layer starts, so any failure there stops the node; when it is absent
/// the raft layer writes it.
fn partition_metadata_problem(partition: &Partition) -> Option<PartitionMetadataError> {
    use std::io::Read;
    let path = partition.dir.join("partition.metadata");
    let metadata_log = partition.is_metadata_log();
    if !path.exists() {
        // A directory not named `<topic>-<partition>` is not a log Kafka
        // loads (a loose copy of a segment, say): nothing to judge.
        let loaded = partition.topic_partition.is_some();
        return (loaded && !metadata_log).then_some(PartitionMetadataError {
            line: 0,
            reason: "there is no partition.metadata",
            outcome: UnreadableOutcome::StrayAtStart,
        });
    }
    // The reader needs only the first lines: a bounded prefix will do.
    let mut bytes = Vec::new();
    let read = std::fs::File::open(&path)
        .and_then(|f| f.take(PARTITION_METADATA_READ).read_to_end(&mut bytes));
    let found = match read {
        // Opening or reading it fails with an IOException in Kafka too.
        Err(_) => Err(PartitionMetadataError {
            line: 1,
            reason: "the file cannot be opened or read",
            outcome: UnreadableOutcome::LogDirOffline,
        }),
        Ok(_) => read_partition_metadata(&bytes),
    };
    let found = match found {
        Ok(m) if metadata_log && !is_metadata_topic_id(&m.topic_id) => {
            Err(PartitionMetadataError {
                line: 2,
                reason: "the metadata log's topic id is not the metadata topic's (AAAAAAAAAAAAAAAAAAAAAQ)",
                outcome: UnreadableOutcome::BrokerFails,
            })
        }
        other => other,
    };
    found.err().map(|mut e| {
        if metadata_log {
            e.outcome = UnreadableOutcome::BrokerFails;
        }
        e
    })
}

/// How much of a `partition.metadata` is read: far more than its two lines.
const PARTITION_METADATA_READ: u64 = 16 << 20;

/// A checkpoint file Kafka's reader rejects, and what the broker does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointUnreadable {
    /// The file.
    pub file: std::path::PathBuf,
    /// What the reader meets.
    pub reason: String,
    /// What follows at start.
    pub outcome: UnreadableOutcome,
}

/// Larger than any `leader-epoch-checkpoint`.
const LEADER_EPOCH_CHECKPOINT_LIMIT: u64 = 64 << 20;

/// The entries of `leader-epoch-checkpoint` (none when it is absent), or
/// why Kafka's checkpoint reader rejects it. Its `IOException` marks the
/// log dir offline (`CheckpointFileWithFailureHandler.read`); the
/// metadata log opens its log outside the log manager, so there the
/// exception stops the node.
fn read_leader_epochs(
    partition: &Partition,
) -> Result<(Vec<LeaderEpochEntry>, Option<CheckpointUnreadable>), LogDirError> {
    let path = partition.leader_epoch_checkpoint_path();
    if !path.exists() {
        return Ok((Vec::new(), None));
    }
    let text = read_small(&path, LEADER_EPOCH_CHECKPOINT_LIMIT)?;
    Ok(
        match parse_leader_epoch_checkpoint(&String::from_utf8_lossy(&text)) {
            Ok(entries) => (entries, None),
            Err(e) => (
                Vec::new(),
                Some(CheckpointUnreadable {
                    file: path,
                    reason: e.to_string(),
                    outcome: if partition.is_metadata_log() {
                        UnreadableOutcome::BrokerFails
                    } else {
                        UnreadableOutcome::LogDirOffline
                    },
                }),
            ),
        },
    )
}

/// Base offsets of the `.txnindex` files whose bytes recovery changes.
fn txn_indexes_written(
    partition: &Partition,
    snapshots: &SnapshotPlan,
) -> Result<Vec<i64>, LogDirError> {
    let mut written = Vec::new();
    for (&base, aborted) in &snapshots.txn_indexes {
        let path = partition.dir.join(segment_file_name(base, "txnindex"));
        let now = path
            .exists()
            .then(|| read_small(&path, 1 << 30))
            .transpose()?;
        if txn_index_changes(now.as_deref(), aborted) {
            written.push(base);
        }
    }
    Ok(written)
}

/// Checks every segment of `partition` in parallel, then plans Kafka's
/// recovery as a broker started with `load` would do it; `progress` is
/// called with the bytes of each segment when it is done.
pub fn check_partition(
    partition: &Partition,
    options: &SegmentCheckOptions,
    load: &LoadInputs,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<PartitionReport, LogDirError> {
    let (recovery_point, recovery_point_source) = recovery_point(partition, load.recovery_point)?;
    let existing = read_snapshots(partition)?;
    let (leader_epochs, leader_epochs_unreadable) = read_leader_epochs(partition)?;
    let checks = check_segments(partition, options, recovery_point, &existing, progress)?;
    let state = PartitionState {
        recovery_point,
        clean_shutdown: partition.log_dir().join(".kafka_cleanshutdown").exists(),
        leader_epochs,
    };
    let mut plan = plan_recovery(&checks, &state);
    let log_start_checkpoint = partition
        .checkpointed_offset("log-start-offset-checkpoint")?
        .unwrap_or(0);
    let snapshots = plan_snapshots(&checks, &plan, existing, log_start_checkpoint, load.expiry)?;
    plan.snapshots_written.clone_from(&snapshots.written);
    plan.snapshots_deleted.clone_from(&snapshots.deleted);
    plan.txn_indexes_written = txn_indexes_written(partition, &snapshots)?;
    let snapshots_missing = partition
        .segments
        .iter()
        .skip(1)
        .map(|s| s.base_offset)
        .filter(|base| !partition.snapshots.contains(base))
        .collect();
    // The name, or the raft layer's own file for a copy named otherwise: one
    // stat, not another listing of every partition directory.
    let metadata_log = partition.is_metadata_log() || partition.dir.join("quorum-state").is_file();
    let raft = if metadata_log {
        let bounds = LogBounds::after_recovery(
            partition,
            plan.log_end_offset,
            leader_epochs_unreadable
                .is_none()
                .then_some(state.leader_epochs.as_slice()),
            &plan.leader_epochs_removed,
        );
        Some(check_raft_log(partition, bounds)?)
    } else {
        None
    };
    Ok(PartitionReport {
        raft,
        snapshots_missing,
        partition_metadata: partition_metadata_problem(partition),
        leader_epochs_unreadable,
        partition: partition.clone(),
        checks,
        state,
        recovery_point_source,
        plan,
        snapshots,
    })
}
