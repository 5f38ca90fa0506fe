//! `kseg rebuild-index`'s output: a line (or JSON object) per index file
//! and a summary table.

use std::io::{self, Write};
use std::path::Path;

use comfy_table::Table;
use serde_json::json;

use crate::inspect::index::build::StopReason;
use crate::inspect::index::compare::IndexStatus;
use crate::inspect::index::interval::{IndexInterval, IntervalSource};
use crate::inspect::index::plan::{IndexAction, SegmentIndexPlan};

use super::OutputFormat;

/// Counts over a whole run, for the summary table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RebuildTally {
    /// Segments looked at.
    pub segments: usize,
    /// Index files written.
    pub written: usize,
    /// Index files that match (or need no rewrite).
    pub unchanged: usize,
    /// Index files that need a rebuild.
    pub needing_rebuild: usize,
    /// Segments that could not be checked or written.
    pub errors: usize,
}

/// An index file's state in words.
pub fn describe(status: &IndexStatus) -> String {
    match status {
        IndexStatus::Same => "OK".into(),
        IndexStatus::Missing => "missing".into(),
        IndexStatus::EmptyButLogHasData => "empty, but the log has data (Kafka recreated it empty; retention falls back to the file's mtime)".into(),
        IndexStatus::Preallocated { file_size } => format!("OK, preallocated active index ({file_size} bytes; Kafka trims it at roll or close)"),
        IndexStatus::Differs { slot, existing_entries, rebuilt_entries, consistent_with_log } => format!(
            "differs from entry {slot} ({existing_entries} entries on disk, {rebuilt_entries} rebuilt); {}",
            if *consistent_with_log { "consistent with the log (grouped as a follower or the cleaner writes it)" } else { "corrupt" }
        ),
    }
}

/// Where and why a segment's rebuild stopped short of the end of its `.log`.
pub fn stop_message(plan: &SegmentIndexPlan, stop: &StopReason, verify: bool) -> String {
    format!(
        "{}: rebuild stops at byte {} ({}): {}",
        plan.log.display(),
        stop.position(),
        if verify {
            "recovery would truncate here"
        } else {
            "the rest is not batches"
        },
        match stop {
            StopReason::Framing(e) | StopReason::Invalid(e) => e.kind.to_string(),
            other => format!("{other:?}"),
        }
    )
}

/// Says which `index.interval.bytes` a partition's indexes are rebuilt
/// with, and where it came from.
pub fn write_interval(
    out: &mut impl Write,
    partition: &str,
    interval: &IndexInterval,
    format: OutputFormat,
) -> io::Result<()> {
    match format {
        OutputFormat::Json => {
            serde_json::to_writer(
                &mut *out,
                &json!({"type": "indexInterval", "partition": partition,
                    "bytes": interval.bytes, "source": interval_source_json(&interval.source)}),
            )?;
            writeln!(out)
        }
        OutputFormat::Text => writeln!(out, "{partition}: {}", interval.describe()),
    }
}

/// Where an interval came from, as JSON.
pub fn interval_source_json(source: &IntervalSource) -> serde_json::Value {
    match source {
        IntervalSource::Given => json!({"kind": "given"}),
        IntervalSource::Configured {
            source,
            described,
            offset,
        } => {
            json!({"kind": "config", "configSource": source, "described": described, "offset": offset})
        }
        IntervalSource::Inferred { segments, min, max } => {
            json!({"kind": "inferred", "segments": segments, "min": min, "max": max})
        }
        IntervalSource::Default { why } => json!({"kind": "default", "why": why}),
    }
}

/// Notes, in text output, that a segment's `.txnindex` is left alone.
pub fn write_txn_index_note(out: &mut impl Write, txn_index: &Path) -> io::Result<()> {
    writeln!(
        out,
        "{}: left as it is (kseg rebuilds .index and .timeindex; Kafka rebuilds .txnindex from producer state during recovery)",
        txn_index.display()
    )
}

/// Writes one segment's files and adds them to `tally`.
pub fn write_segment(
    out: &mut impl Write,
    plan: &SegmentIndexPlan,
    format: OutputFormat,
    tally: &mut RebuildTally,
) -> io::Result<()> {
    for file in &plan.files {
        if file.status.needs_write() {
            tally.needing_rebuild += 1;
        } else {
            tally.unchanged += 1;
        }
        if file.action == IndexAction::Write {
            tally.written += 1;
        }
        let action = match file.action {
            IndexAction::Keep => "",
            IndexAction::WouldWrite => "would write",
            IndexAction::Write => "written",
        };
        match format {
            OutputFormat::Json => {
                serde_json::to_writer(
                    &mut *out,
                    &json!({"type": "index", "path": file.path.display().to_string(),
                    "status": describe(&file.status), "ok": !file.status.needs_write(),
                    "rebuiltEntries": file.rebuilt_entries, "action": action}),
                )?;
                writeln!(out)?;
            }
            OutputFormat::Text => writeln!(
                out,
                "{}: {}{}",
                file.path.display(),
                describe(&file.status),
                if action.is_empty() {
                    String::new()
                } else {
                    format!(" -> {action} ({} entries)", file.rebuilt_entries)
                }
            )?,
        }
    }
    Ok(())
}

/// The summary table and, when files were replaced, where their backup is.
pub fn write_summary(
    out: &mut impl Write,
    tally: &RebuildTally,
    backup: Option<&Path>,
) -> io::Result<()> {
    let mut table = Table::new();
    table.set_header([
        "segments",
        "indexes written",
        "unchanged",
        "needing a rebuild",
        "errors",
    ]);
    table.add_row([
        tally.segments,
        tally.written,
        tally.unchanged,
        tally.needing_rebuild,
        tally.errors,
    ]);
    writeln!(out, "{table}")?;
    if let Some(dir) = backup {
        writeln!(
            out,
            "backup of replaced files: {} (undo with `kseg restore {}`)",
            dir.display(),
            dir.display()
        )?;
    }
    Ok(())
}
