//! A recovery plan in plain words.

use std::io::{self, Write};

use crate::inspect::recovery::{RecoverWhy, RecoveryPlan, SegmentAction};

/// Writes what Kafka will do to partition `name` on its next start.
pub fn write_plan(
    w: &mut dyn Write,
    name: &str,
    plan: &RecoveryPlan,
    recovery_point_source: &str,
) -> io::Result<()> {
    writeln!(
        w,
        "{name}: {} segments, log end offset after loading {}",
        plan.segments.len(),
        plan.log_end_offset
    )?;
    if plan.clean_shutdown {
        writeln!(
            w,
            "  clean-shutdown marker found: Kafka recovers no segment (except those missing an .index)"
        )?;
    } else {
        let recovered = plan
            .recovered()
            .filter(|s| {
                matches!(
                    s.action,
                    SegmentAction::Recover {
                        why: RecoverWhy::PastRecoveryPoint,
                        ..
                    }
                )
            })
            .count();
        writeln!(
            w,
            "  no clean-shutdown marker; recovery point {} ({recovery_point_source}): Kafka recovers the segment containing it and every later one ({recovered} here)",
            plan.recovery_point
        )?;
    }
    for s in &plan.segments {
        let what = match &s.action {
            SegmentAction::Keep => continue,
            SegmentAction::CreateEmptyTimeIndex => "its missing .timeindex is recreated EMPTY, not rebuilt (retention then uses the .log mtime; run kseg rebuild-index)".to_string(),
            SegmentAction::Recover { why, valid_bytes, truncated_bytes, next_offset, offset_index_entries, time_index_entries, stopped_by } => {
                let why = match why {
                    RecoverWhy::PastRecoveryPoint => "past the recovery point",
                    RecoverWhy::MissingIndex => "its .index is missing",
                };
                let cut = match (truncated_bytes, stopped_by) {
                    (0, _) => "nothing cut".to_string(),
                    (n, Some(reason)) => format!("truncated to {valid_bytes} bytes ({n} bytes cut): {reason}"),
                    (n, None) => format!("truncated to {valid_bytes} bytes ({n} bytes cut)"),
                };
                format!("recovered ({why}): {cut}; next offset {next_offset}; indexes rebuilt ({offset_index_entries} + {time_index_entries} entries)")
            }
            SegmentAction::Delete { bytes } => format!("DELETED ({bytes} bytes), because an earlier segment was truncated"),
            SegmentAction::Split => "split (offset overflow); loading restarts after that".to_string(),
        };
        writeln!(w, "  segment {:020}: {what}", s.base_offset)?;
    }
    match &plan.truncation {
        Some(t) => writeln!(
            w,
            "  verdict: Kafka truncates segment {:020} at byte {}; first lost offset {}; {} bytes and {} records dropped",
            t.segment, t.position, t.first_lost_offset, t.bytes_dropped, t.records_dropped
        )?,
        None => writeln!(w, "  verdict: Kafka loses no data")?,
    }
    if !plan.snapshots_deleted.is_empty() {
        writeln!(
            w,
            "  producer snapshots deleted: {:?}",
            plan.snapshots_deleted
        )?;
    }
    if !plan.snapshots_written.is_empty() {
        writeln!(
            w,
            "  producer snapshots written: {:?}",
            plan.snapshots_written
        )?;
    }
    if !plan.txn_indexes_written.is_empty() {
        writeln!(
            w,
            "  .txnindex rebuilt with new bytes for segments: {:?}",
            plan.txn_indexes_written
        )?;
    }
    for e in &plan.leader_epochs_removed {
        writeln!(
            w,
            "  leader epoch {} (from offset {}) removed from leader-epoch-checkpoint",
            e.epoch, e.start_offset
        )?;
    }
    for d in &plan.unseen_damage {
        writeln!(
            w,
            "  not seen by Kafka at start-up: segment {:020}: {}",
            d.segment, d.problem
        )?;
    }
    Ok(())
}
