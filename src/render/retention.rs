//! `retention-report` as a table and plain words.

use std::io::{self, Write};

use super::table::Compact;

use super::time::{age, duration, utc};
use crate::inspect::locate::segment_time::TimestampSource;
use crate::inspect::retention::config::RetentionConfig;
use crate::inspect::retention::metadata_log::MetadataCleaning;
use crate::inspect::retention::remote_pass::RemotePass;
use crate::inspect::retention::report::{
    CleanState, CompactionView, OldSegmentFate, PartitionRetention, SegmentRow,
};
use crate::inspect::retention::tiered::TieredLog;

fn source(s: TimestampSource) -> &'static str {
    match s {
        TimestampSource::TimeIndex => "time index",
        TimestampSource::Batches => "batches",
        TimestampSource::LogMtime => ".log mtime",
    }
}

fn fate(row: &SegmentRow, r: &PartitionRetention, config: &RetentionConfig) -> String {
    if let Some(rule) = row.deleted_now_by {
        return format!("deleted by a check now ({rule})");
    }
    match row.eligible_at {
        Some(at) => format!("deletable from {} (in {})", utc(at), duration(at - r.now)),
        None if r.metadata_log.is_some() => {
            "kept until a later snapshot lets the log start move past it".to_string()
        }
        None if row.uploaded == Some(false) => {
            "kept: not uploaded yet (a tiered topic's local segment goes only once it is in remote storage)".to_string()
        }
        None if config.retention_ms < 0 || !config.delete => "kept: no time retention".to_string(),
        None => "kept: not wholly below the high watermark, or empty".to_string(),
    }
}

/// A tiered topic's local retention: what it goes by, the highest offset
/// in remote storage, and the segments that wait for their upload.
fn write_tiered(
    w: &mut dyn Write,
    t: &TieredLog,
    r: &PartitionRetention,
    config: &RetentionConfig,
) -> io::Result<()> {
    if !t.uploads {
        return writeln!(
            w,
            "  tiered storage, uploads stopped (remote.log.copy.disable): local segments go by retention.ms and retention.bytes without waiting for uploads; log start offset {} ({})",
            t.log_start_offset.0, t.log_start_offset.1
        );
    }
    writeln!(
        w,
        "  tiered storage: local segments go by local.retention.ms {} and local.retention.bytes {} (shown above as retention.ms and retention.bytes), only once uploaded; highest offset in remote storage {} ({}); {} finished remote segments, {} bytes; log start offset over both tiers {} ({})",
        config.retention_ms,
        config.retention_bytes,
        t.highest_offset_in_remote_storage,
        t.highest_from,
        t.remote_segments,
        t.remote_bytes,
        t.log_start_offset.0,
        t.log_start_offset.1
    )?;
    for (first, last) in &t.in_neither_tier {
        writeln!(
            w,
            "  offsets {first}..{last} are in neither tier (above the log start offset, below the local log start, in no finished remote segment): a fetch of them gets OFFSET_OUT_OF_RANGE"
        )?;
    }
    if !t.waiting_for_upload.is_empty() {
        let bytes: u64 = r
            .segments
            .iter()
            .filter(|s| t.waiting_for_upload.contains(&s.base_offset))
            .map(|s| s.size)
            .sum();
        writeln!(
            w,
            "  waiting for upload: local retention would delete {} segments ({bytes} bytes) now, from {}, but they are not in remote storage yet: an upload that lags or is stuck (see kseg remote) keeps them on this disk",
            t.waiting_for_upload.len(),
            t.waiting_for_upload[0]
        )?;
    }
    if let Some(pass) = &t.remote_pass {
        write_remote_pass(w, pass, r.now)?;
    }
    Ok(())
}

/// What the remote-log expiration task deletes now, and each remote
/// segment's fate.
fn write_remote_pass(w: &mut dyn Write, pass: &RemotePass, now: i64) -> io::Result<()> {
    let bytes = match pass.retained_bytes {
        Some(b) => format!(
            "{b} bytes count against retention.bytes {} ({} local not yet uploaded, the rest finished remote segments in the leader epoch lineage)",
            pass.retention_bytes, pass.only_local_bytes
        ),
        None => "retention.bytes is unlimited".to_string(),
    };
    let verdict = if pass.deleted.is_empty() {
        "deletes nothing".to_string()
    } else {
        let ids: Vec<&str> = pass.deleted.iter().map(|(id, _)| id.as_str()).collect();
        format!("deletes {} remote segments ({})", ids.len(), ids.join(", "))
    };
    let start = pass.remote_log_start_offset.map_or(String::new(), |o| {
        format!("; the log start offset moves to {o}")
    });
    writeln!(
        w,
        "  remote retention (the leader's expiration task, every remote.log.manager.task.interval.ms, by retention.ms {} and retention.bytes over both tiers): {bytes}; a pass now {verdict}{start}",
        pass.retention_ms
    )?;
    if pass.segments.is_empty() {
        return Ok(());
    }
    let mut table = Compact::new([
        "remote segment",
        "offsets",
        "size",
        "largest timestamp",
        "state",
        "fate",
    ]);
    for s in &pass.segments {
        let fate = match (s.deleted_now_by, s.eligible_at) {
            (Some(rule), _) => format!("deleted by a pass now ({})", rule.describe()),
            (None, _) if pass.kept_from.as_deref() == Some(s.id.as_str()) => {
                "kept: the first segment retention keeps; the pass stops here".to_string()
            }
            (None, _) if !s.in_lineage => {
                "kept: outside the leader epoch lineage, not judged by retention".to_string()
            }
            (None, Some(at)) if at > now => {
                format!("deletable from {} (in {})", utc(at), duration(at - now))
            }
            (None, _) => "kept: the pass stops before it".to_string(),
        };
        table.add_row([
            s.id.clone(),
            format!("{}..{}", s.start_offset, s.end_offset),
            s.size_in_bytes.to_string(),
            utc(s.max_timestamp_ms),
            s.state.to_string(),
            fate,
        ]);
    }
    table.write(w)
}

/// What the cleaner does with a segment of old data, in words.
fn cleaner_fate(old: &OldSegmentFate, c: &CompactionView) -> String {
    let state = match old.state {
        CleanState::Cleaned => format!(
            "already compacted (below the first dirty offset {})",
            c.first_dirty_offset
        ),
        CleanState::Cleanable if old.past_max_compaction_lag => {
            "past max.compaction.lag.ms, so the next cleaner pass compacts it whatever the dirty ratio".to_string()
        }
        CleanState::Cleanable if c.will_clean => "compacted on the next cleaner pass".to_string(),
        CleanState::Cleanable => {
            "compacted once the dirty ratio passes min.cleanable.dirty.ratio".to_string()
        }
        CleanState::NotYet => format!(
            "not cleanable yet (at or past the first uncleanable offset {})",
            c.first_uncleanable_offset
        ),
    };
    format!(
        "  cleaner: segment {:020}: its newest record is {}; compaction removes records by key, not by age (the newest record of each key stays, tombstones go after delete.retention.ms): {state}",
        old.base_offset,
        age(old.age_ms)
    )
}

fn roll_line(r: &PartitionRetention, config: &RetentionConfig) -> Option<String> {
    let roll = r.active_roll.as_ref()?;
    let active = r.segments.last()?;
    let by_time = roll.roll_by_time_after.map_or(String::new(), |(from, to)| {
        let when = if from == to {
            utc(to)
        } else {
            format!("{}..{}", utc(from), utc(to))
        };
        format!(
            ", or on an append whose timestamp is past {when} (segment.ms from its first batch)"
        )
    });
    Some(format!(
        "  active segment {}: rolls after {} more bytes (segment.bytes){by_time}{}",
        active.base_offset,
        roll.bytes_left.max(0),
        if config.delete && config.retention_ms >= 0 {
            "; retention rolls it itself once its newest record passes retention.ms"
        } else {
            ""
        }
    ))
}

/// Writes one partition's report.
pub fn write_report(
    w: &mut dyn Write,
    r: &PartitionRetention,
    config: &RetentionConfig,
) -> io::Result<()> {
    writeln!(
        w,
        "{}: {} segments, {} bytes; {}log start offset {} ({}); high watermark {} ({}); log end offset {}; now {}",
        r.partition,
        r.segments.len(),
        r.total_bytes,
        if r.tiered.is_some() { "local " } else { "" },
        r.log_start_offset.0,
        r.log_start_offset.1,
        r.high_watermark.0,
        r.high_watermark.1,
        r.log_end_offset,
        utc(r.now)
    )?;
    let mut table = Compact::new([
        "segment",
        "last offset",
        "size",
        "first timestamp",
        "largest timestamp (source)",
        "fate",
    ]);
    for row in &r.segments {
        table.add_row([
            format!(
                "{}{}",
                row.base_offset,
                if row.active { " (active)" } else { "" }
            ),
            row.last_offset.to_string(),
            row.size.to_string(),
            row.first_timestamp.map_or("-".into(), utc),
            format!(
                "{} ({})",
                utc(row.largest_timestamp),
                source(row.largest_timestamp_source)
            ),
            fate(row, r, config),
        ]);
    }
    table.write(w)?;
    writeln!(w, "{}", bottom_line(r, config))?;
    if let Some(t) = &r.tiered {
        write_tiered(w, t, r, config)?;
    }
    if let Some(line) = roll_line(r, config) {
        writeln!(w, "{line}")?;
    }
    for step in &r.pass_now.steps {
        if !step.size_after_each.is_empty() {
            writeln!(
                w,
                "  {}: log size after each deletion: {:?}",
                step.rule, step.size_after_each
            )?;
        }
    }
    if let Some(c) = &r.compaction {
        writeln!(
            w,
            "  cleaner: first dirty offset {} ({}), first uncleanable {}; clean {} bytes, cleanable {} bytes; dirty ratio {:.3} {} min.cleanable.dirty.ratio {}",
            c.first_dirty_offset,
            c.first_dirty_source,
            c.first_uncleanable_offset,
            c.clean_bytes,
            c.cleanable_bytes,
            c.dirty_ratio,
            if c.will_clean { ">" } else { "<=" },
            config.min_cleanable_dirty_ratio
        )?;
        for old in &c.old_segments {
            writeln!(w, "{}", cleaner_fate(old, c))?;
        }
        if let Some(h) = c.earliest_delete_horizon {
            writeln!(
                w,
                "  tombstones: {} batches carry a delete horizon; the cleaner may drop their tombstones from {}",
                c.batches_with_delete_horizon,
                utc(h)
            )?;
        }
    }
    for warning in &r.warnings {
        writeln!(w, "  warning: {warning}")?;
    }
    Ok(())
}

/// The metadata log's answer: what a `maybeClean` now deletes, or why it
/// keeps everything.
fn metadata_line(m: &MetadataCleaning) -> String {
    let snapshots: Vec<i64> = m.snapshots.iter().map(|s| s.end_offset).collect();
    let head = format!(
        "the metadata log is not deleted by retention.ms or retention.bytes, only below snapshots (KafkaMetadataLog.maybeClean, every 60 s, with metadata.max.retention.bytes {} and metadata.max.retention.ms {}); snapshots at {snapshots:?}",
        m.max_bytes, m.max_ms
    );
    if m.steps.is_empty() {
        return format!(
            "{head}: a clean now deletes nothing ({})",
            m.stops.join("; ")
        );
    }
    let steps: Vec<String> = m
        .steps
        .iter()
        .map(|s| {
            format!(
                "snapshot {} ({}: {}), log start offset to {}, segments {:?}",
                s.snapshot_deleted, s.rule, s.why, s.log_start_offset_after, s.segments_deleted
            )
        })
        .collect();
    format!("{head}: a clean now deletes {}", steps.join("; then "))
}

/// The answer in plain words: how old the oldest data is and why it is there.
pub fn bottom_line(r: &PartitionRetention, config: &RetentionConfig) -> String {
    if let Some(m) = &r.metadata_log {
        return metadata_line(m);
    }
    let tail = format!(
        "then up to {} until the next retention check (log.retention.check.interval.ms) and {} before the .deleted files are removed (file.delete.delay.ms)",
        duration(config.retention_check_interval_ms),
        duration(config.file_delete_delay_ms)
    );
    let deleted: Vec<i64> = r
        .pass_now
        .steps
        .iter()
        .flat_map(|s| s.deleted.iter().copied())
        .collect();
    if !deleted.is_empty() {
        return format!("a retention check now deletes segments {deleted:?}; {tail}");
    }
    let Some(oldest) = r.segments.iter().find(|s| s.size > 0) else {
        return "no data".into();
    };
    let oldest_age = r.now - oldest.largest_timestamp;
    let holds = if oldest_age < 0 {
        format!(
            "holds data {} (its newest timestamp is past --now)",
            age(oldest_age)
        )
    } else {
        format!("holds data up to {}", age(oldest_age))
    };
    if config.compact && !config.delete {
        return format!(
            "cleanup.policy=compact: no time or size deletion; segment {} {holds}",
            oldest.base_offset,
        );
    }
    match oldest.eligible_at {
        Some(at) => format!(
            "segment {} {holds}; it stays until its newest record is {} old ({}); {tail}",
            oldest.base_offset,
            duration(config.retention_ms),
            utc(at)
        ),
        None if config.retention_ms < 0 => format!(
            "retention.ms is unlimited; segment {} {holds}",
            oldest.base_offset,
        ),
        None => format!(
            "segment {} is not wholly below the high watermark (or is the only, empty segment), so retention cannot delete it yet",
            oldest.base_offset
        ),
    }
}

/// Partitions the summary table lists; past this many it lists those with
/// the oldest data and a totals row, so memory stays bounded on a log dir
/// of any size.
pub const SUMMARY_ROWS: usize = 100;

/// The summary of a log dir's partitions: sizes, oldest data, and the
/// memory maps their indexes take against `vm.max_map_count`.
#[derive(Debug, Default)]
pub struct LogDirSummary {
    /// (oldest data age, row); at most `2 * SUMMARY_ROWS`.
    rows: Vec<(i64, [String; 5])>,
    partitions: usize,
    bytes: u64,
    segments: usize,
    maps: usize,
}

impl LogDirSummary {
    /// Adds a partition's row.
    pub fn add(&mut self, report: &PartitionRetention) {
        let maps = 2 * report.segments.len();
        self.maps += maps;
        self.partitions += 1;
        self.bytes += report.total_bytes;
        self.segments += report.segments.len();
        self.rows.push((
            report.oldest_data_age_ms.unwrap_or(i64::MIN),
            [
                report.partition.clone(),
                report.total_bytes.to_string(),
                report.segments.len().to_string(),
                report.oldest_data_age_ms.map_or("-".into(), age_cell),
                maps.to_string(),
            ],
        ));
        if self.rows.len() >= 2 * SUMMARY_ROWS {
            self.keep_oldest();
        }
    }

    /// Whether no partition was added.
    pub fn is_empty(&self) -> bool {
        self.partitions == 0
    }

    fn keep_oldest(&mut self) {
        self.rows.sort_by_key(|(age, _)| std::cmp::Reverse(*age));
        self.rows.truncate(SUMMARY_ROWS);
    }

    /// Writes the table and, with the host's `vm.max_map_count`, whether
    /// the broker's maps come close to it.
    pub fn write(mut self, w: &mut dyn Write, max_map_count: Option<u64>) -> io::Result<()> {
        let all = self.partitions <= SUMMARY_ROWS;
        if !all {
            self.keep_oldest();
        }
        let mut table = Compact::new([
            "partition",
            "bytes",
            "segments",
            "oldest data",
            "memory maps (about 2 per segment)",
        ]);
        for (_, row) in &self.rows {
            table.add_row(row.clone());
        }
        if !all {
            table.add_row([
                format!("all {} partitions", self.partitions),
                self.bytes.to_string(),
                self.segments.to_string(),
                String::new(),
                self.maps.to_string(),
            ]);
        }
        table.write(w)?;
        if !all {
            writeln!(
                w,
                "{} partitions: the table lists the {SUMMARY_ROWS} holding the oldest data",
                self.partitions
            )?;
        }
        if let Some(limit) = max_map_count {
            writeln!(
                w,
                "the broker maps about {} index files for these partitions; vm.max_map_count on this host is {limit}{}",
                self.maps,
                if self.maps as u64 * 2 > limit {
                    ": too close, expect \"Map failed\" (raise vm.max_map_count)"
                } else {
                    ""
                }
            )?;
        }
        Ok(())
    }
}

/// An age for the summary's "oldest data" column: `3d 2h`, or
/// `1h 13m in the future` past the clock.
fn age_cell(ms: i64) -> String {
    if ms < 0 { age(ms) } else { duration(ms) }
}
