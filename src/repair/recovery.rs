//! Carries out a [`RecoveryPlan`] offline: truncations, rebuilt indexes,
//! deleted segments and snapshots, trimmed leader epochs, damaged KRaft
//! snapshots and `quorum-state` moved aside. Every file is backed up
//! before it changes.

use std::fs;
use std::path::Path;

use super::backup::LazyBackup;
use super::error::{AtStep, RepairError};
use super::write::{replace_file, truncate_file};
use crate::format::checkpoint::{LeaderEpochEntry, encode_leader_epoch_checkpoint};
use crate::format::txn_index::{AbortedTxn, encode_txn_index};
use crate::inspect::index::build::build_indexes_from_file;
use crate::inspect::recovery::partition::CheckedPartition;
use crate::inspect::recovery::plan::{RecoveryPlan, SegmentAction};
use crate::inspect::recovery::segment::SegmentCheck;
use crate::inspect::recovery::snapshots::SnapshotPlan;
use crate::logdir::Segment;
use crate::logdir::file_name::segment_file_name;

fn remove(backup: &mut LazyBackup, path: &Path) -> Result<(), RepairError> {
    if path.exists() {
        backup.save(path)?;
        fs::remove_file(path).at("removing", path)?;
    }
    Ok(())
}

fn write(backup: &mut LazyBackup, path: &Path, bytes: &[u8]) -> Result<(), RepairError> {
    backup.save(path)?;
    replace_file(path, bytes)
}

/// The entry counts and size a recovered segment's plan expects.
struct Expected {
    valid_bytes: u64,
    offset_index_entries: usize,
    time_index_entries: usize,
}

/// The `.index` and `.timeindex` bytes Kafka's recovery leaves for `s`,
/// built again from its `.log` now; refused when the walk no longer ends
/// where the plan says (the file changed since it was checked).
fn rebuilt_indexes(
    s: &Segment,
    expected: &Expected,
    interval: u64,
) -> Result<(Vec<u8>, Vec<u8>), RepairError> {
    if expected.valid_bytes == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let build = build_indexes_from_file(&s.log_path(), s.base_offset, interval, true)?;
    if build.valid_bytes != expected.valid_bytes
        || build.offset_entry_count != expected.offset_index_entries
        || build.time_entry_count != expected.time_index_entries
    {
        return Err(RepairError::Refused(format!(
            "{} changed since it was checked: its valid data now ends at byte {}, not {}; nothing more was changed (run recover again)",
            s.log_path().display(),
            build.valid_bytes,
            expected.valid_bytes
        )));
    }
    Ok((
        build.offset_index_bytes(s.base_offset),
        build.time_index_bytes(s.base_offset),
    ))
}

/// Recovers one segment: truncates its `.log` and writes its rebuilt
/// indexes (and `.txnindex`, when the plan rewrites it).
fn recover_segment(
    s: &Segment,
    expected: &Expected,
    truncated_bytes: u64,
    aborted: Option<&[AbortedTxn]>,
    interval: u64,
    backup: &mut LazyBackup,
) -> Result<(), RepairError> {
    let (index, time_index) = rebuilt_indexes(s, expected, interval)?;
    if truncated_bytes > 0 {
        backup.save(&s.log_path())?;
        truncate_file(&s.log_path(), expected.valid_bytes)?;
    }
    write(backup, &s.offset_index_path(), &index)?;
    write(backup, &s.time_index_path(), &time_index)?;
    if let Some(aborted) = aborted {
        write(backup, &s.txn_index_path(), &encode_txn_index(aborted))?;
    }
    Ok(())
}

/// Removes a segment's files.
fn delete_segment(s: &Segment, backup: &mut LazyBackup) -> Result<(), RepairError> {
    for path in [
        s.log_path(),
        s.offset_index_path(),
        s.time_index_path(),
        s.txn_index_path(),
    ] {
        remove(backup, &path)?;
    }
    Ok(())
}

/// Deletes and writes the producer snapshots loading leaves.
fn apply_snapshots(
    dir: &Path,
    snapshots: &SnapshotPlan,
    backup: &mut LazyBackup,
) -> Result<(), RepairError> {
    for offset in &snapshots.deleted {
        remove(backup, &dir.join(segment_file_name(*offset, "snapshot")))?;
    }
    for offset in &snapshots.written {
        let bytes = snapshots
            .files
            .get(offset)
            .map(Vec::as_slice)
            .unwrap_or_default();
        write(
            backup,
            &dir.join(segment_file_name(*offset, "snapshot")),
            bytes,
        )?;
    }
    Ok(())
}

/// Rewrites `leader-epoch-checkpoint` without the entries the plan removes.
fn trim_leader_epochs(
    dir: &Path,
    plan: &RecoveryPlan,
    leader_epochs: &[LeaderEpochEntry],
    backup: &mut LazyBackup,
) -> Result<(), RepairError> {
    if plan.leader_epochs_removed.is_empty() {
        return Ok(());
    }
    let kept: Vec<LeaderEpochEntry> = leader_epochs
        .iter()
        .copied()
        .filter(|e| !plan.leader_epochs_removed.contains(e))
        .collect();
    write(
        backup,
        &dir.join("leader-epoch-checkpoint"),
        encode_leader_epoch_checkpoint(&kept).as_bytes(),
    )
}

/// Carries out the recovery a partition check planned, with the index
/// interval it found: [`apply_recovery`] on a [`CheckedPartition`].
pub fn apply_checked(
    checked: &CheckedPartition,
    backup: &mut LazyBackup,
) -> Result<(), RepairError> {
    let r = &checked.report;
    apply_recovery(
        &r.partition.dir,
        &r.plan,
        &r.checks,
        &r.snapshots,
        &r.state.leader_epochs,
        checked.interval.bytes,
        backup,
    )?;
    for m in r.raft.iter().flat_map(|raft| &raft.move_aside) {
        remove(backup, &m.file)?;
    }
    Ok(())
}

/// Applies `plan` to the partition in `dir`; `checks` are the segment checks
/// the plan was made from, in the same order, with the topic's
/// index.interval.bytes `interval`. A recovered segment's indexes are built
/// again from its `.log` first, and nothing is changed if that walk no
/// longer agrees with the plan (the file changed since).
pub fn apply_recovery(
    dir: &Path,
    plan: &RecoveryPlan,
    checks: &[SegmentCheck],
    snapshots: &SnapshotPlan,
    leader_epochs: &[LeaderEpochEntry],
    interval: u64,
    backup: &mut LazyBackup,
) -> Result<(), RepairError> {
    if plan
        .segments
        .iter()
        .any(|s| matches!(s.action, SegmentAction::Split))
    {
        return Err(RepairError::Refused(
            "a segment overflows its relative offsets; Kafka splits it on load, kseg does not: start the broker instead".into(),
        ));
    }
    for (segment, check) in plan.segments.iter().zip(checks) {
        let s = &check.segment;
        match &segment.action {
            SegmentAction::Keep | SegmentAction::Split => {}
            SegmentAction::CreateEmptyTimeIndex => write(backup, &s.time_index_path(), &[])?,
            SegmentAction::Recover {
                valid_bytes,
                truncated_bytes,
                offset_index_entries,
                time_index_entries,
                ..
            } => {
                let expected = Expected {
                    valid_bytes: *valid_bytes,
                    offset_index_entries: *offset_index_entries,
                    time_index_entries: *time_index_entries,
                };
                let aborted = plan.txn_indexes_written.contains(&s.base_offset).then(|| {
                    snapshots
                        .txn_indexes
                        .get(&s.base_offset)
                        .map_or(&[][..], Vec::as_slice)
                });
                recover_segment(s, &expected, *truncated_bytes, aborted, interval, backup)?;
            }
            SegmentAction::Delete { .. } => delete_segment(s, backup)?,
        }
    }
    apply_snapshots(dir, snapshots, backup)?;
    trim_leader_epochs(dir, plan, leader_epochs, backup)
}
