//! A recovery plan in plain words.

use std::io::{self, Write};

use comfy_table::Table;
use serde_json::json;

use super::OutputFormat;
use super::index_rebuild::interval_source_json;
use crate::format::partition_metadata::UnreadableOutcome;
use crate::inspect::recovery::partition::CheckedPartition;
use crate::inspect::recovery::plan::{RecoverWhy, RecoveryPlan, SegmentAction};
use crate::inspect::recovery::raft_log::{RaftFinding, RaftLogCheck};

/// Partitions the summary table lists in full; past this many it lists only
/// those that are not clean (at most this many) and a totals row, so
/// memory stays bounded on a log dir of any size.
pub const SUMMARY_ROWS: usize = 100;

/// One summary row: partition, segments, recovered, bytes dropped, segments
/// deleted, unseen damage, stray files.
type Row = (String, [u64; 6]);

/// The columns of the summary table of `verify` and `recover`, one row a
/// partition (the report's findings table has them too).
pub const SUMMARY_COLUMNS: [&str; 7] = [
    "partition",
    "segments",
    "recovered",
    "bytes dropped",
    "segments deleted",
    "unseen damage",
    "stray files",
];

/// Writes `verify`'s and `recover`'s reports as each partition is done: per
/// partition its plan in words (a summary table at the end), or one JSON
/// object per partition. Keeps only the totals and a bounded number of rows.
#[derive(Debug)]
pub struct ReportWriter {
    format: OutputFormat,
    partitions: usize,
    clean: bool,
    totals: [u64; 6],
    rows: Vec<Row>,
    with_findings: Vec<Row>,
    findings: usize,
}

impl ReportWriter {
    /// A writer printing in `format`.
    pub fn new(format: OutputFormat) -> Self {
        Self {
            format,
            partitions: 0,
            clean: true,
            totals: [0; 6],
            rows: Vec::new(),
            with_findings: Vec::new(),
            findings: 0,
        }
    }

    /// Whether every partition written so far is clean.
    pub fn clean(&self) -> bool {
        self.clean
    }

    /// Writes one partition's report and counts it for the summary.
    pub fn write(&mut self, out: &mut impl Write, checked: &CheckedPartition) -> io::Result<()> {
        let CheckedPartition {
            report: r,
            interval,
        } = checked;
        self.partitions += 1;
        self.clean &= r.is_clean();
        let stray = r.stray_files();
        if self.format == OutputFormat::Json {
            serde_json::to_writer(
                &mut *out,
                &json!({"type": "partition", "partition": r.partition.name(), "dir": r.partition.dir.display().to_string(),
                    "recoveryPointSource": r.recovery_point_source, "strayFiles": stray,
                    "snapshotsMissing": r.snapshots_missing, "plan": r.plan,
                    "partitionMetadataUnreadable": r.partition_metadata.map(|e| json!({
                        "line": e.line, "reason": e.reason, "outcome": e.outcome})),
                    "leaderEpochCheckpointUnreadable": r.leader_epochs_unreadable,
                    "raftLog": r.raft, "dirForm": super::dir_form::fate_json(&r.partition.dir),
                    "indexInterval": {"bytes": interval.bytes, "source": interval_source_json(&interval.source)}}),
            )?;
            return writeln!(out);
        }
        write_plan(out, &r.partition.name(), &r.plan, &r.recovery_point_source)?;
        if let Some(line) = super::dir_form::fate_line(&r.partition.dir) {
            writeln!(out, "{line}")?;
        }
        if r.plan.recovered().next().is_some() {
            writeln!(out, "  indexes rebuilt with {}", interval.describe())?;
        }
        for s in &stray {
            writeln!(
                out,
                "  stray file (Kafka deletes or renames it at start-up): {s}"
            )?;
        }
        if let Some(e) = &r.partition_metadata {
            let metadata_log = r.partition.is_metadata_log();
            let missing = e.outcome == UnreadableOutcome::StrayAtStart;
            let id = if metadata_log {
                "`topic_id: AAAAAAAAAAAAAAAAAAAAAQ` (the metadata topic's)"
            } else {
                "`topic_id: <the topic's id>` (`kseg metadata` on the log dir of __cluster_metadata shows it)"
            };
            let without = if metadata_log {
                ""
            } else {
                "; without the file the broker takes the partition for a stray replica and renames its directory `-stray` (LogManager.isStrayKraftReplica)"
            };
            if missing {
                writeln!(
                    out,
                    "  {}; kseg does not write it: write `version: 0` and {id}",
                    e.to_string().replacen("there is no", "no", 1)
                )?;
            } else {
                writeln!(
                    out,
                    "  partition.metadata cannot be read ({e}); kseg does not rewrite it: write `version: 0` and {id}, as the broker wrote it{without}"
                )?;
            }
        }
        if let Some(e) = &r.leader_epochs_unreadable {
            writeln!(
                out,
                "  {} cannot be read ({}): {}; kseg does not rewrite it; with it moved aside the broker starts with only the leader epochs of the segments it recovers",
                e.file.display(),
                e.reason,
                e.outcome.describe()
            )?;
        }
        if let Some(raft) = &r.raft {
            write_raft_log(out, raft)?;
        }
        if !r.snapshots_missing.is_empty() {
            writeln!(
                out,
                "  no producer snapshot at segment bases {:?}: loading replays producer state from an earlier snapshot or the log start (a slower start; nothing is lost)",
                r.snapshots_missing
            )?;
        }
        let deleted = r
            .plan
            .segments
            .iter()
            .filter(|s| matches!(s.action, SegmentAction::Delete { .. }))
            .count();
        let counts = [
            r.plan.segments.len() as u64,
            r.plan.recovered().count() as u64,
            r.plan.truncation.map_or(0, |t| t.bytes_dropped),
            deleted as u64,
            r.plan.unseen_damage.len() as u64,
            stray.len() as u64,
        ];
        for (total, n) in self.totals.iter_mut().zip(counts) {
            *total += n;
        }
        if self.rows.len() < SUMMARY_ROWS {
            self.rows.push((r.partition.name(), counts));
        }
        if !r.is_clean() {
            self.findings += 1;
            if self.with_findings.len() < SUMMARY_ROWS {
                self.with_findings.push((r.partition.name(), counts));
            }
        }
        Ok(())
    }

    /// Writes the summary table (text only).
    pub fn finish(self, out: &mut impl Write) -> io::Result<()> {
        if self.format != OutputFormat::Text {
            return Ok(());
        }
        let mut table = Table::new();
        table.set_header(SUMMARY_COLUMNS);
        let all = self.partitions <= SUMMARY_ROWS;
        let rows = if all { &self.rows } else { &self.with_findings };
        for (name, counts) in rows {
            table.add_row(std::iter::once(name.clone()).chain(counts.iter().map(u64::to_string)));
        }
        if !all {
            table.add_row(
                std::iter::once(format!("all {} partitions", self.partitions))
                    .chain(self.totals.iter().map(u64::to_string)),
            );
        }
        writeln!(out, "{table}")?;
        if !all {
            writeln!(
                out,
                "{} partitions: the table lists those that are not clean ({} of them{})",
                self.partitions,
                self.findings,
                if self.findings > SUMMARY_ROWS {
                    format!(", the first {SUMMARY_ROWS} shown")
                } else {
                    String::new()
                }
            )?;
        }
        Ok(())
    }
}

/// Writes `verify`'s and `recover`'s reports for `checked` (see
/// [`ReportWriter`]).
pub fn write_reports(
    out: &mut impl Write,
    checked: &[CheckedPartition],
    format: OutputFormat,
) -> io::Result<()> {
    let mut writer = ReportWriter::new(format);
    for c in checked {
        writer.write(out, c)?;
    }
    writer.finish(out)
}

/// Writes what Kafka will do to partition `name` on its next start.
pub fn write_plan(
    w: &mut dyn Write,
    name: &str,
    plan: &RecoveryPlan,
    recovery_point_source: &str,
) -> io::Result<()> {
    write_header(w, name, plan, recovery_point_source)?;
    for s in &plan.segments {
        if let Some(what) = segment_line(&s.action) {
            writeln!(w, "  segment {:020}: {what}", s.base_offset)?;
        }
    }
    match &plan.truncation {
        Some(t) => writeln!(
            w,
            "  verdict: Kafka truncates segment {:020} at byte {}; first lost offset {}; {} bytes and {}{} records dropped",
            t.segment,
            t.position,
            t.first_lost_offset,
            t.bytes_dropped,
            if t.records_dropped_at_least {
                "at least "
            } else {
                ""
            },
            t.records_dropped
        )?,
        None => writeln!(w, "  verdict: Kafka loses no data")?,
    }
    write_side_effects(w, plan)
}

/// The metadata log's raft files: each finding with what the node does,
/// then what `recover --apply` would move aside.
fn write_raft_log(w: &mut dyn Write, raft: &RaftLogCheck) -> io::Result<()> {
    for f in &raft.findings {
        writeln!(w, "  {}", finding_line(f))?;
    }
    for m in &raft.move_aside {
        writeln!(
            w,
            "  recover --apply moves {} into its backup: {}",
            m.file.display(),
            m.because
        )?;
    }
    Ok(())
}

/// A raft or node file finding in one line: the file, the byte, what is
/// wrong and what the node does.
fn finding_line(f: &RaftFinding) -> String {
    let at = f
        .position
        .map_or(String::new(), |p| format!(" at byte {p}"));
    format!(
        "{}{at}: {} ({})",
        f.file.display(),
        f.problem,
        f.outcome.describe()
    )
}

/// The node's own files in its log dirs (`meta.properties`,
/// `bootstrap.checkpoint`, its identity in the voter set): one line, or
/// one JSON object of type `nodeFile`, per finding.
pub fn write_node_findings(
    w: &mut dyn Write,
    findings: &[RaftFinding],
    format: OutputFormat,
) -> io::Result<()> {
    for f in findings {
        if format == OutputFormat::Json {
            let mut v = serde_json::to_value(f).map_err(io::Error::other)?;
            v["type"] = "nodeFile".into();
            writeln!(w, "{v}")?;
        } else {
            writeln!(w, "{}", finding_line(f))?;
        }
    }
    Ok(())
}

/// The partition's line and how the recovery point was chosen.
fn write_header(
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
        let past = plan
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
        let others = plan.recovered().count() - past;
        let also = if others > 0 {
            format!(", and {others} more for a missing .index")
        } else {
            String::new()
        };
        writeln!(
            w,
            "  no clean-shutdown marker; recovery point {} ({recovery_point_source}): Kafka recovers the segment containing it and every later one ({past} here{also})",
            plan.recovery_point
        )?;
    }
    Ok(())
}

/// What happens to one segment, in words (`None`: it is kept as it is).
fn segment_line(action: &SegmentAction) -> Option<String> {
    let what = match action {
        SegmentAction::Keep => return None,
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
    Some(what)
}

/// Snapshots, `.txnindex` files and leader epochs the recovery changes,
/// and the damage it does not see.
fn write_side_effects(w: &mut dyn Write, plan: &RecoveryPlan) -> io::Result<()> {
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
