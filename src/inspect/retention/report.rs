//! The facts `kseg retention-report` prints for a partition: per segment
//! its timestamps as Kafka takes them, when retention lets it go, what a
//! pass at "now" deletes, when the active segment rolls, warnings drawn from
//! the data, and the cleaner's view of compacted topics.

use serde::Serialize;

use crate::format::SummaryIter;
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::inspect::cluster::remote::RemoteLogState;
use crate::inspect::index::entry_count::EntryCount;
use crate::inspect::locate::segment_time::{
    TimestampSource, batches_max_timestamp, first_batch_timestamp, largest_timestamp,
};
use crate::inspect::locate::{SourcedOffset, log_start_offset, next_offset};
use crate::inspect::retention::config::RetentionConfig;
use crate::inspect::retention::metadata_log::{
    MetadataCleaning, MetadataRetention, maybe_clean, read_snapshots,
};
use crate::inspect::retention::rules::{
    DeletionPass, LogState, SegmentFacts, delete_old_segments, eligible_at,
};
use crate::inspect::retention::tiered::{LocalLog, TieredLog, tiered_log};
use crate::logdir::{CachePolicy, LogDirError, MappedFile, Partition};

/// One segment's row.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentRow {
    /// Base offset.
    pub base_offset: i64,
    /// Last offset held (the next segment's base - 1 for closed segments).
    pub last_offset: i64,
    /// `.log` size.
    pub size: u64,
    /// First batch's max timestamp.
    pub first_timestamp: Option<i64>,
    /// The largest timestamp Kafka uses.
    pub largest_timestamp: i64,
    /// Where Kafka takes it from.
    pub largest_timestamp_source: TimestampSource,
    /// The batches' real largest timestamp, when it was read (active
    /// segment, or a closed one whose time index gives none).
    pub batches_max_timestamp: Option<i64>,
    /// Whether this is the active segment.
    pub active: bool,
    /// Earliest clock at which retention.ms lets a pass delete it.
    pub eligible_at: Option<i64>,
    /// The rule that deletes it in a pass at `now`, if one does.
    pub deleted_now_by: Option<&'static str>,
    /// For a tiered topic: whether its last offset is in remote storage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uploaded: Option<bool>,
}

/// When the active segment rolls.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveRoll {
    /// Bytes left before `segment.bytes`.
    pub bytes_left: i64,
    /// The append whose max timestamp passes this rolls it by `segment.ms`
    /// (first batch's timestamp + segment.ms - jitter; jitter is unknown offline).
    pub roll_by_time_after: Option<(i64, i64)>,
}

/// The cleaner's view of a compacted log.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionView {
    /// First dirty offset (cleaner checkpoint, else the log start offset).
    pub first_dirty_offset: i64,
    /// Where it came from.
    pub first_dirty_source: &'static str,
    /// First offset the cleaner may not clean (active segment, min lag).
    pub first_uncleanable_offset: i64,
    /// Bytes already clean.
    pub clean_bytes: u64,
    /// Bytes the cleaner may clean now.
    pub cleanable_bytes: u64,
    /// cleanable / (clean + cleanable).
    pub dirty_ratio: f64,
    /// Whether the ratio passes `min.cleanable.dirty.ratio`.
    pub will_clean: bool,
    /// Earliest delete horizon stamped on batches (tombstones go after it).
    pub earliest_delete_horizon: Option<i64>,
    /// Batches carrying a delete horizon.
    pub batches_with_delete_horizon: u64,
    /// What the cleaner does with closed segments whose newest record is
    /// far older than retention.ms (with `delete` in the policy, retention
    /// deletes them instead; see the warnings).
    pub old_segments: Vec<OldSegmentFate>,
}

/// A closed segment of old data, as the cleaner sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OldSegmentFate {
    /// Base offset.
    pub base_offset: i64,
    /// now - its largest timestamp.
    pub age_ms: i64,
    /// Where it stands against the cleaner's offsets.
    pub state: CleanState,
    /// Its data is older than max.compaction.lag.ms, so the cleaner takes
    /// it on its next pass whatever the dirty ratio.
    pub past_max_compaction_lag: bool,
}

/// Where a segment stands against the cleaner's offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CleanState {
    /// Below the first dirty offset: compacted already.
    Cleaned,
    /// Between the first dirty and the first uncleanable offset.
    Cleanable,
    /// At or past the first uncleanable offset (min.compaction.lag.ms).
    NotYet,
}

/// Everything about one partition.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PartitionRetention {
    /// `topic-partition`.
    pub partition: String,
    /// Rows, oldest first.
    pub segments: Vec<SegmentRow>,
    /// Total `.log` bytes.
    pub total_bytes: u64,
    /// Log start offset used, and where it came from (for a tiered topic,
    /// the local log start offset: at least the first local segment's base).
    pub log_start_offset: SourcedOffset,
    /// High watermark used, and where it came from.
    pub high_watermark: SourcedOffset,
    /// Log end offset.
    pub log_end_offset: i64,
    /// The clock.
    pub now: i64,
    /// What one pass at `now` deletes.
    pub pass_now: DeletionPass,
    /// When the active segment rolls.
    pub active_roll: Option<ActiveRoll>,
    /// The cleaner's view (compacted topics).
    pub compaction: Option<CompactionView>,
    /// Age of the oldest data (now - the largest timestamp of the oldest non-empty segment).
    pub oldest_data_age_ms: Option<i64>,
    /// Things in the data that change the answer.
    pub warnings: Vec<String>,
    /// For the metadata log: what `KafkaMetadataLog.maybeClean` deletes now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_log: Option<MetadataCleaning>,
    /// For a tiered topic: what local retention goes by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiered: Option<TieredLog>,
}

/// Overrides and the clock.
#[derive(Debug, Clone, Copy)]
pub struct ReportInputs<'a> {
    /// `now` in epoch ms.
    pub now: i64,
    /// Log start offset override.
    pub log_start_offset: Option<i64>,
    /// High watermark override.
    pub high_watermark: Option<i64>,
    /// For `__cluster_metadata`: its own deletion limits, which replace
    /// retention.ms and retention.bytes.
    pub metadata_retention: Option<MetadataRetention>,
    /// Tiered storage's `__remote_log_metadata` replayed, when found.
    pub remote: Option<&'a RemoteLogState>,
}

/// What reading a partition's segments gives: a row per segment, in order.
struct SegmentScan {
    rows: Vec<SegmentRow>,
    log_end_offset: i64,
    active_roll: Option<ActiveRoll>,
    warnings: Vec<String>,
}

/// Reads each segment's sizes and timestamps as Kafka's retention sees them.
fn scan_segments(
    partition: &Partition,
    config: &RetentionConfig,
) -> Result<SegmentScan, LogDirError> {
    let n = partition.segments.len();
    let mut scan = SegmentScan {
        rows: Vec::with_capacity(n),
        log_end_offset: 0,
        active_roll: None,
        warnings: Vec::new(),
    };
    for (i, segment) in partition.segments.iter().enumerate() {
        let log = MappedFile::open(&segment.log_path(), CachePolicy::Restore)?;
        let active = i + 1 == n;
        let largest = largest_timestamp(segment, log.bytes(), active, EntryCount::Live);
        let batches_max = match (active, largest.source) {
            (true, _) | (false, TimestampSource::LogMtime) => batches_max_timestamp(log.bytes()),
            _ => None,
        };
        let first = first_batch_timestamp(log.bytes());
        let last_offset = match partition.segments.get(i + 1) {
            Some(next) => next.base_offset.wrapping_sub(1),
            None => {
                // Offsets wrap as Kafka's longs do (a batch at i64::MAX).
                scan.log_end_offset = next_offset(segment, log.bytes());
                scan.log_end_offset.wrapping_sub(1)
            }
        };
        if !active && largest.source == TimestampSource::LogMtime && batches_max.is_some() {
            scan.warnings.push(format!(
                "segment {:020}: its time index is empty, so Kafka uses the .log mtime ({}) instead of its records' largest timestamp ({}); `kseg rebuild-index` restores it",
                segment.base_offset,
                largest.value,
                batches_max.unwrap_or(-1)
            ));
        }
        if active {
            scan.active_roll = Some(ActiveRoll {
                bytes_left: config.segment_bytes - log.bytes().len() as i64,
                roll_by_time_after: first.map(|f| {
                    (
                        f + config.segment_ms - config.segment_jitter_ms.min(config.segment_ms),
                        f + config.segment_ms,
                    )
                }),
            });
        }
        scan.rows.push(SegmentRow {
            base_offset: segment.base_offset,
            last_offset,
            size: log.bytes().len() as u64,
            first_timestamp: first,
            largest_timestamp: largest.value,
            largest_timestamp_source: largest.source,
            batches_max_timestamp: batches_max,
            active,
            eligible_at: None,
            deleted_now_by: None,
            uploaded: None,
        });
    }
    Ok(scan)
}

/// The high watermark retention works with, and where it came from: the
/// command line, `replication-offset-checkpoint`, or the log end offset.
fn high_watermark(
    partition: &Partition,
    given: Option<i64>,
    log_end_offset: i64,
) -> Result<SourcedOffset, LogDirError> {
    Ok(
        match (
            given,
            partition.checkpointed_offset("replication-offset-checkpoint")?,
        ) {
            (Some(o), _) => (o, "given on the command line".to_string()),
            (None, Some(o)) => (
                o,
                "replication-offset-checkpoint (may lag by up to 5 s)".to_string(),
            ),
            (None, None) => (
                log_end_offset,
                "no replication-offset-checkpoint entry; assumed the log end offset".to_string(),
            ),
        },
    )
}

/// What the deletion rules read of each row.
fn segment_facts(rows: &[SegmentRow]) -> Vec<SegmentFacts> {
    rows.iter()
        .map(|r| SegmentFacts {
            base_offset: r.base_offset,
            size: r.size,
            largest_timestamp: r.largest_timestamp,
        })
        .collect()
}

/// Runs a retention pass at `state.now` and notes on each row which rule
/// deletes it now, and from when retention.ms lets it go.
fn judge_rows(rows: &mut [SegmentRow], state: LogState, config: &RetentionConfig) -> DeletionPass {
    let facts = segment_facts(rows);
    let pass = delete_old_segments(&facts, state, config);
    for step in &pass.steps {
        for base in &step.deleted {
            if let Some(row) = rows.iter_mut().find(|r| r.base_offset == *base) {
                row.deleted_now_by = Some(step.rule);
            }
        }
    }
    for (row, at) in rows.iter_mut().zip(eligible_at(&facts, state, config)) {
        row.eligible_at = at;
    }
    pass
}

/// Builds the report for `partition`.
pub fn report_partition(
    partition: &Partition,
    config: &RetentionConfig,
    inputs: ReportInputs,
) -> Result<PartitionRetention, LogDirError> {
    let local_config = config.for_local_segments();
    let SegmentScan {
        mut rows,
        log_end_offset,
        active_roll,
        mut warnings,
    } = scan_segments(partition, config)?;
    let log_start_offset = log_start_offset(partition, inputs.log_start_offset)?;
    let high_watermark = high_watermark(partition, inputs.high_watermark, log_end_offset)?;
    let sizes: Vec<(i64, u64)> = rows.iter().map(|r| (r.base_offset, r.size)).collect();
    let mut tiered = tiered_log(
        partition,
        config,
        inputs.remote,
        LocalLog {
            local_log_start: log_start_offset.0,
            given_log_start: inputs.log_start_offset,
            log_end_offset,
            segments: &sizes,
            now: inputs.now,
        },
    );
    let state = LogState {
        log_start_offset: log_start_offset.0,
        log_end_offset,
        high_watermark: high_watermark.0,
        now: inputs.now,
        upload_bound: tiered.as_ref().and_then(TieredLog::upload_bound),
    };
    let pass_now = judge_rows(&mut rows, state, &local_config);
    if let Some(t) = tiered.as_mut() {
        mark_uploads(&mut rows, t, state, &local_config);
    }
    let metadata_log = inputs
        .metadata_retention
        .map(|limits| metadata_cleaning(partition, &mut rows, state, limits))
        .transpose()?;
    data_warnings(&rows, config, inputs.now, &mut warnings);
    let compaction = config
        .compact
        .then(|| compaction_view(partition, &rows, config, log_start_offset.0, inputs.now))
        .transpose()?;
    Ok(PartitionRetention {
        partition: partition.name(),
        total_bytes: rows.iter().map(|r| r.size).sum(),
        oldest_data_age_ms: rows
            .iter()
            .find(|r| r.size > 0)
            .map(|r| inputs.now - r.largest_timestamp),
        segments: rows,
        log_start_offset,
        high_watermark,
        log_end_offset,
        now: inputs.now,
        pass_now,
        active_roll,
        compaction,
        warnings,
        metadata_log,
        tiered,
    })
}

/// Notes on each row whether it is uploaded, and on `tiered` the segments
/// a pass now would delete were they uploaded.
fn mark_uploads(
    rows: &mut [SegmentRow],
    tiered: &mut TieredLog,
    state: LogState,
    config: &RetentionConfig,
) {
    let Some(bound) = state.upload_bound else {
        return;
    };
    let bases: Vec<i64> = rows.iter().map(|r| r.base_offset).collect();
    for (i, row) in rows.iter_mut().enumerate() {
        let upper = bases.get(i + 1).copied().unwrap_or(state.log_end_offset);
        row.uploaded = Some(upper > 0 && upper - 1 <= bound.highest_offset_in_remote_storage);
    }
    let unbound = LogState {
        upload_bound: None,
        ..state
    };
    let without = delete_old_segments(&segment_facts(rows), unbound, config);
    tiered.waiting_for_upload = without
        .steps
        .iter()
        .flat_map(|s| s.deleted.iter().copied())
        .filter(|b| {
            rows.iter()
                .any(|r| r.base_offset == *b && r.deleted_now_by.is_none())
        })
        .collect();
}

/// Runs `maybeClean` on the metadata log and notes on each row the rule
/// that deletes it now.
fn metadata_cleaning(
    partition: &Partition,
    rows: &mut [SegmentRow],
    state: LogState,
    limits: MetadataRetention,
) -> Result<MetadataCleaning, LogDirError> {
    let facts = segment_facts(rows);
    let cleaning = maybe_clean(&facts, &read_snapshots(partition)?, state, limits);
    for step in &cleaning.steps {
        for base in &step.segments_deleted {
            if let Some(row) = rows.iter_mut().find(|r| r.base_offset == *base) {
                row.deleted_now_by = Some(step.rule);
            }
        }
    }
    Ok(cleaning)
}

/// Whether a closed segment's newest record is far older than
/// retention.ms: data written with old timestamps (a replay, a migration).
fn far_past_retention(row: &SegmentRow, config: &RetentionConfig, now: i64) -> bool {
    config.retention_ms >= 0
        && !row.active
        && row.largest_timestamp_source == TimestampSource::TimeIndex
        && now - row.largest_timestamp > config.retention_ms.saturating_mul(2)
}

/// Warnings about what in the data changes the answer. Those about time
/// retention apply only when `delete` is in cleanup.policy.
fn data_warnings(
    rows: &[SegmentRow],
    config: &RetentionConfig,
    now: i64,
    warnings: &mut Vec<String>,
) {
    let future_limit = now.saturating_add(config.timestamp_after_max_ms.min(3_600_000));
    for row in rows {
        let from_records = match row.largest_timestamp_source {
            TimestampSource::LogMtime => row.batches_max_timestamp,
            _ => row.batches_max_timestamp.or(Some(row.largest_timestamp)),
        };
        if let Some(real) = from_records.filter(|&t| config.delete && t > future_limit) {
            warnings.push(format!(
                "segment {:020}: timestamps up to {real}, {} ms in the future: it stays until the clock passes them plus retention.ms, and every newer segment waits behind it",
                row.base_offset,
                real - now
            ));
        }
        if config.delete && far_past_retention(row, config, now) {
            warnings.push(format!(
                "segment {:020}: its newest record is {} ms old, far beyond retention.ms: data written with old timestamps (a replay?) is deletable at once",
                row.base_offset,
                now - row.largest_timestamp
            ));
        }
    }
    let small = rows
        .iter()
        .filter(|r| {
            !r.active
                && r.size > 0
                && (r.size as i64) < config.segment_bytes / 100
                && config.segment_bytes > 1 << 20
        })
        .count();
    if small > 0 {
        warnings.push(format!(
            "{small} closed segments are under 1% of segment.bytes ({}): rolled by segment.ms, or the topic's segment.bytes is smaller (pass it with --config); many small segments mean many files and memory maps",
            config.segment_bytes
        ));
    }
    if let Some(active) = rows.last().filter(|r| r.active && r.size > 0) {
        if let Some(first) = active.first_timestamp {
            let rolls_at = first.saturating_add(config.segment_ms);
            if config.delete
                && config.retention_ms >= 0
                && rolls_at > active.largest_timestamp.saturating_add(config.retention_ms)
            {
                warnings.push(format!(
                    "the active segment {:020} only rolls on an append after {rolls_at} (segment.ms from its first batch); with little traffic its data outlives retention.ms until its newest record is retention.ms old",
                    active.base_offset
                ));
            }
        }
    }
}

fn compaction_view(
    partition: &Partition,
    rows: &[SegmentRow],
    config: &RetentionConfig,
    log_start: i64,
    now: i64,
) -> Result<CompactionView, LogDirError> {
    let active_base = rows.last().map_or(0, |r| r.base_offset);
    let log_end = rows.last().map_or(0, |r| r.last_offset + 1);
    let (mut first_dirty, mut source) =
        match partition.checkpointed_offset("cleaner-offset-checkpoint")? {
            Some(o) => (o, "cleaner-offset-checkpoint"),
            None => (log_start, "the log start offset (no cleaner checkpoint)"),
        };
    if first_dirty < log_start || first_dirty > log_end {
        first_dirty = log_start;
        source = "the log start offset (the checkpoint was out of range)";
    }
    let min_lag_limit = (config.min_compaction_lag_ms > 0)
        .then(|| {
            rows.iter()
                .filter(|r| !r.active && r.last_offset >= first_dirty)
                .find(|r| r.largest_timestamp > now - config.min_compaction_lag_ms)
                .map(|r| r.base_offset)
        })
        .flatten();
    let first_uncleanable = min_lag_limit.map_or(active_base, |m| m.min(active_base));
    // Segments overlapping [from, to): the one containing `from` and those starting before `to`.
    let overlapping = |from: i64, to: i64| -> u64 {
        rows.iter()
            .filter(|r| r.last_offset >= from && r.base_offset < to)
            .map(|r| r.size)
            .sum()
    };
    let clean_bytes = overlapping(log_start, first_dirty);
    let cleanable_bytes = overlapping(first_dirty, first_uncleanable);
    let dirty_ratio = if clean_bytes + cleanable_bytes == 0 {
        0.0
    } else {
        cleanable_bytes as f64 / (clean_bytes + cleanable_bytes) as f64
    };
    let mut earliest_delete_horizon: Option<i64> = None;
    let mut batches_with_delete_horizon = 0;
    for segment in &partition.segments {
        let log = MappedFile::open(&segment.log_path(), CachePolicy::Restore)?;
        for (_, s) in
            SummaryIter::new(log.bytes(), 0, DEFAULT_DECOMPRESS_LIMIT).map_while(Result::ok)
        {
            if let Some(h) = s.delete_horizon_ms {
                batches_with_delete_horizon += 1;
                earliest_delete_horizon = Some(earliest_delete_horizon.map_or(h, |e| e.min(h)));
            }
        }
    }
    let old_segments = rows
        .iter()
        .filter(|r| r.size > 0 && far_past_retention(r, config, now))
        .map(|r| OldSegmentFate {
            base_offset: r.base_offset,
            age_ms: now - r.largest_timestamp,
            state: if r.last_offset < first_dirty {
                CleanState::Cleaned
            } else if r.base_offset < first_uncleanable {
                CleanState::Cleanable
            } else {
                CleanState::NotYet
            },
            past_max_compaction_lag: now - r.largest_timestamp > config.max_compaction_lag_ms,
        })
        .collect();
    Ok(CompactionView {
        old_segments,
        first_dirty_offset: first_dirty,
        first_dirty_source: source,
        first_uncleanable_offset: first_uncleanable,
        clean_bytes,
        cleanable_bytes,
        dirty_ratio,
        will_clean: dirty_ratio > config.min_cleanable_dirty_ratio && cleanable_bytes > 0,
        earliest_delete_horizon,
        batches_with_delete_horizon,
    })
}

/// Which partitions `kseg retention-report` lists on a log dir; every
/// field empty or false keeps all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetentionFilter {
    /// Only these topics' partitions.
    pub topics: Vec<String>,
    /// Only partitions a retention check now deletes segments from.
    pub deletable_now: bool,
    /// Only partitions with a warning (old timestamps, small segments, a
    /// compacted topic read with delete settings, …).
    pub with_warnings: bool,
}

impl RetentionFilter {
    /// Whether a partition of `topic` is read at all.
    pub fn keeps_topic(&self, topic: Option<&str>) -> bool {
        self.topics.is_empty() || topic.is_some_and(|t| self.topics.iter().any(|x| x == t))
    }

    /// Whether a partition with this report (and the topic-policy
    /// warning, if any) is listed.
    pub fn keeps(&self, report: &PartitionRetention, policy_warning: bool) -> bool {
        let deletes = report.pass_now.steps.iter().any(|s| !s.deleted.is_empty());
        (!self.deletable_now || deletes)
            && (!self.with_warnings || policy_warning || !report.warnings.is_empty())
    }
}
