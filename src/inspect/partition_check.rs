//! Checks every segment of a partition (in parallel) and predicts Kafka's
//! recovery of it.

use rayon::prelude::*;

use std::collections::BTreeMap;

use super::producer_state::{BatchBudget, ProducerExpiry};
use super::recovery::{PartitionState, RecoveryPlan, plan_recovery};
use super::segment_check::{SegmentCheck, SegmentCheckOptions, check_segment};
use super::snapshot_plan::{SnapshotPlan, plan_snapshots};
use super::txn_check::TxnStart;
use crate::format::checkpoint::parse_leader_epoch_checkpoint;
use crate::format::txn_index::{AbortedTxn, encode_txn_index};
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

/// Checks every segment of `partition` in parallel, then plans Kafka's
/// recovery as a broker started with `load` would do it; `progress` is
/// called with the bytes of each segment when it is done.
pub fn check_partition(
    partition: &Partition,
    options: &SegmentCheckOptions,
    load: &LoadInputs,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<PartitionReport, LogDirError> {
    let recovery_point = load.recovery_point;
    let log_dir = &partition.log_dir();
    let (recovery_point, recovery_point_source) = match recovery_point {
        Some(rp) => (rp, "given on the command line".to_string()),
        None => match partition.checkpointed_offset("recovery-point-offset-checkpoint")? {
            Some(rp) => (rp, "from recovery-point-offset-checkpoint".to_string()),
            None => (
                0,
                "no recovery-point-offset-checkpoint entry, so 0: every segment".to_string(),
            ),
        },
    };
    let mut existing = BTreeMap::new();
    for &offset in &partition.snapshots {
        let path = partition.dir.join(segment_file_name(offset, "snapshot"));
        existing.insert(offset, read_small(&path, 1 << 30)?);
    }
    // The replay normally reads the segments from the recovery point on,
    // the last one and those recovered for a missing index: they get the
    // in-memory budget; any other segment is read again if it is needed.
    let budget = BatchBudget::new(options.producer_batches_in_memory);
    let no_budget = BatchBudget::new(0);
    let replay_from = partition.floor_segment(recovery_point).unwrap_or(0);
    let last = partition.segments.len().saturating_sub(1);
    let checks = partition
        .segments
        .par_iter()
        .enumerate()
        .map(|(i, s)| {
            let replayed = i >= replay_from || i == last || !s.offset_index_path().exists();
            let budget = if replayed { &budget } else { &no_budget };
            let txn_start = TxnStart::at(
                s.base_offset,
                existing.get(&s.base_offset).map(Vec::as_slice),
            );
            let check = check_segment(s, options, budget, txn_start);
            progress(s.log_size());
            check
        })
        .collect::<Result<Vec<_>, _>>()?;
    let epochs_path = partition.leader_epoch_checkpoint_path();
    let leader_epochs = if epochs_path.exists() {
        let text = read_small(&epochs_path, 64 << 20)?;
        parse_leader_epoch_checkpoint(&String::from_utf8_lossy(&text))
            .map_err(|e| LogDirError::format(&epochs_path, e))?
    } else {
        Vec::new()
    };
    let state = PartitionState {
        recovery_point,
        clean_shutdown: log_dir.join(".kafka_cleanshutdown").exists(),
        leader_epochs,
    };
    let mut plan = plan_recovery(&checks, &state);
    let log_start_checkpoint = partition
        .checkpointed_offset("log-start-offset-checkpoint")?
        .unwrap_or(0);
    let snapshots = plan_snapshots(&checks, &plan, existing, log_start_checkpoint, load.expiry)?;
    plan.snapshots_written.clone_from(&snapshots.written);
    plan.snapshots_deleted.clone_from(&snapshots.deleted);
    for (&base, aborted) in &snapshots.txn_indexes {
        let path = partition.dir.join(segment_file_name(base, "txnindex"));
        let now = path
            .exists()
            .then(|| read_small(&path, 1 << 30))
            .transpose()?;
        if txn_index_changes(now.as_deref(), aborted) {
            plan.txn_indexes_written.push(base);
        }
    }
    let snapshots_missing = partition
        .segments
        .iter()
        .skip(1)
        .map(|s| s.base_offset)
        .filter(|base| !partition.snapshots.contains(base))
        .collect();
    Ok(PartitionReport {
        snapshots_missing,
        partition: partition.clone(),
        checks,
        state,
        recovery_point_source,
        plan,
        snapshots,
    })
}
