//! How `__cluster_metadata` loses old data: not by retention.ms or
//! retention.bytes (its `LogConfig` sets both to -1), but below snapshots.
//! Every minute the raft client runs `KafkaMetadataLog.maybeClean`: while
//! the log plus its snapshots exceed `metadata.max.retention.bytes`, then
//! while a snapshot's last contained log timestamp is older than
//! `metadata.max.retention.ms`, it deletes the oldest snapshot by moving
//! the log start offset up to the next snapshot and deleting the segments
//! wholly below it. The latest snapshot always stays.
//!
//! Facts from Kafka 1eb7644 (core/src/main/scala/kafka/raft/KafkaMetadataLog.scala):
//! `maybeClean` size then time (415-422); `cleanSnapshots` walks pairs of
//! snapshots oldest first and stops at the first kept, or the first that
//! cannot go (433-458); the time rule compares `now - timestamp >
//! retention` strictly, the timestamp being the snapshot header's
//! `lastContainedLogTimestamp` (397-401, 460-477); the size rule counts
//! `log.size` plus every remaining snapshot's file size (479-501);
//! `deleteBeforeSnapshot` needs the snapshot to be after the log start
//! offset, at or before the latest snapshot, and at or below the high
//! watermark (`UnifiedLog.maybeIncrementLogStartOffset`,
//! core/.../log/UnifiedLog.scala:1002-1004), then deletes segments by the
//! log-start-offset rule (364-383); at load, snapshots below the log start
//! offset are deleted (630-651); the cleaner runs every 60 s
//! (raft/.../KafkaRaftClient.java:308). Defaults: server/.../KRaftConfigs.java:98-105, 143-144.

use serde::Serialize;

use crate::format::BatchIter;
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::inspect::cluster::metadata::load::snapshots;
use crate::inspect::retention::config::RetentionConfig;
use crate::inspect::retention::rules::{LogState, SegmentFacts, delete_old_segments};
use crate::logdir::{CachePolicy, LogDirError, MappedFile, Partition};
use crate::schema::control::decode_control;
use crate::schema::topics::Decoded;

/// What the cleaning needs to know of one snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotFacts {
    /// Its end offset (the id's offset).
    pub end_offset: i64,
    /// Its epoch.
    pub epoch: i32,
    /// File size in bytes.
    pub size: u64,
    /// `lastContainedLogTimestamp` of its header, when it has one.
    pub last_contained_timestamp: Option<i64>,
}

/// The two limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataRetention {
    /// `metadata.max.retention.bytes` (-1: no size limit).
    pub max_bytes: i64,
    /// `metadata.max.retention.ms` (-1: no time limit).
    pub max_ms: i64,
}

/// One snapshot deleted, with the log start offset moved to the next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CleanStep {
    /// `cleanSnapshotsRetentionSize` or `cleanSnapshotsRetentionMs`.
    pub rule: &'static str,
    /// The snapshot deleted.
    pub snapshot_deleted: i64,
    /// The log start offset after the step (the next snapshot's end offset).
    pub log_start_offset_after: i64,
    /// Segments deleted (base offsets).
    pub segments_deleted: Vec<i64>,
    /// Why, in words.
    pub why: String,
}

/// The outcome of one `maybeClean` at `now`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataCleaning {
    /// Snapshots at the start, oldest first.
    pub snapshots: Vec<SnapshotFacts>,
    /// The limits used.
    pub max_bytes: i64,
    /// The limits used.
    pub max_ms: i64,
    /// What was deleted, in order.
    pub steps: Vec<CleanStep>,
    /// Why each rule stopped.
    pub stops: Vec<String>,
    /// Log start offset after.
    pub log_start_offset_after: i64,
    /// Snapshots left.
    pub snapshots_after: Vec<i64>,
}

/// The log's state while cleaning.
struct Cleaner<'a> {
    segments: Vec<SegmentFacts>,
    snapshots: Vec<SnapshotFacts>,
    state: LogState,
    steps: Vec<CleanStep>,
    stops: Vec<String>,
    config: &'a RetentionConfig,
}

impl Cleaner<'_> {
    fn log_size(&self) -> i64 {
        self.segments.iter().map(|s| s.size as i64).sum()
    }

    /// `deleteBeforeSnapshot(next)`: whether it deleted anything, or why not.
    fn delete_before(&mut self, next: i64, rule: &'static str, why: String) -> Result<(), String> {
        let latest = self.snapshots.last().map_or(i64::MIN, |s| s.end_offset);
        if !self.snapshots.iter().any(|s| s.end_offset == next) {
            return Err(format!("snapshot {next} is gone"));
        }
        if next <= self.state.log_start_offset {
            return Err(format!(
                "snapshot {next} is not after the log start offset {}",
                self.state.log_start_offset
            ));
        }
        if next > latest {
            return Err(format!(
                "snapshot {next} is after the latest snapshot {latest}"
            ));
        }
        if next > self.state.high_watermark {
            return Err(format!(
                "snapshot {next} is above the high watermark {}: the log start offset cannot move there",
                self.state.high_watermark
            ));
        }
        let state = LogState {
            log_start_offset: next,
            ..self.state
        };
        let pass = delete_old_segments(&self.segments, state, self.config);
        let deleted: Vec<i64> = pass.steps.iter().flat_map(|s| s.deleted.clone()).collect();
        self.segments.retain(|s| !deleted.contains(&s.base_offset));
        let forgotten: Vec<i64> = self
            .snapshots
            .iter()
            .filter(|s| s.end_offset < next)
            .map(|s| s.end_offset)
            .collect();
        self.snapshots.retain(|s| s.end_offset >= next);
        self.state.log_start_offset = next;
        if deleted.is_empty() && forgotten.is_empty() {
            return Err(format!("nothing below snapshot {next} to delete"));
        }
        for snapshot in forgotten {
            self.steps.push(CleanStep {
                rule,
                snapshot_deleted: snapshot,
                log_start_offset_after: next,
                segments_deleted: deleted.clone(),
                why: why.clone(),
            });
        }
        Ok(())
    }

    fn by_size(&mut self, max_bytes: i64) {
        let rule = "cleanSnapshotsRetentionSize";
        if max_bytes < 0 {
            return self
                .stops
                .push(format!("{rule}: skipped, metadata.max.retention.bytes < 0"));
        }
        let mut total: i64 = self.snapshots.iter().map(|s| s.size as i64).sum();
        let ids: Vec<SnapshotFacts> = self.snapshots.clone();
        for pair in ids.windows(2) {
            let (snapshot, next) = (pair[0], pair[1]);
            let size = self.log_size();
            if size + total <= max_bytes {
                return self.stops.push(format!(
                    "{rule}: log {size} + snapshots {total} bytes is within metadata.max.retention.bytes {max_bytes}"
                ));
            }
            let why = format!(
                "log {size} + snapshots {total} bytes > metadata.max.retention.bytes {max_bytes}"
            );
            total -= snapshot.size as i64;
            if let Err(e) = self.delete_before(next.end_offset, rule, why) {
                return self.stops.push(format!("{rule}: stopped: {e}"));
            }
        }
        self.stops
            .push(format!("{rule}: only the latest snapshot is left"));
    }

    fn by_time(&mut self, max_ms: i64) {
        let rule = "cleanSnapshotsRetentionMs";
        if max_ms < 0 {
            return self
                .stops
                .push(format!("{rule}: skipped, metadata.max.retention.ms < 0"));
        }
        let now = self.state.now;
        let ids: Vec<SnapshotFacts> = self.snapshots.clone();
        for pair in ids.windows(2) {
            let (snapshot, next) = (pair[0], pair[1]);
            let Some(ts) = snapshot.last_contained_timestamp else {
                return self.stops.push(format!(
                    "{rule}: snapshot {} has no header timestamp",
                    snapshot.end_offset
                ));
            };
            let age = now.saturating_sub(ts);
            if age <= max_ms {
                return self.stops.push(format!(
                    "{rule}: snapshot {} is {age} ms old, within metadata.max.retention.ms {max_ms}",
                    snapshot.end_offset,
                ));
            }
            let why = format!(
                "snapshot {} is {age} ms old > metadata.max.retention.ms {max_ms}",
                snapshot.end_offset,
            );
            if let Err(e) = self.delete_before(next.end_offset, rule, why) {
                return self.stops.push(format!("{rule}: stopped: {e}"));
            }
        }
        self.stops
            .push(format!("{rule}: only the latest snapshot is left"));
    }
}

/// One `maybeClean` at `state.now`.
pub fn maybe_clean(
    segments: &[SegmentFacts],
    snapshots: &[SnapshotFacts],
    state: LogState,
    limits: MetadataRetention,
) -> MetadataCleaning {
    let config = RetentionConfig {
        retention_ms: -1,
        retention_bytes: -1,
        ..RetentionConfig::defaults(4)
    };
    let mut snapshots: Vec<SnapshotFacts> = snapshots
        .iter()
        .filter(|s| s.end_offset >= state.log_start_offset)
        .copied()
        .collect();
    snapshots.sort_by_key(|s| (s.end_offset, s.epoch));
    let mut cleaner = Cleaner {
        segments: segments.to_vec(),
        snapshots: snapshots.clone(),
        state,
        steps: Vec::new(),
        stops: Vec::new(),
        config: &config,
    };
    if cleaner.snapshots.len() < 2 {
        cleaner
            .stops
            .push("fewer than two snapshots: the latest always stays, so nothing goes".into());
    } else {
        cleaner.by_size(limits.max_bytes);
        cleaner.by_time(limits.max_ms);
    }
    MetadataCleaning {
        snapshots,
        max_bytes: limits.max_bytes,
        max_ms: limits.max_ms,
        log_start_offset_after: cleaner.state.log_start_offset,
        snapshots_after: cleaner.snapshots.iter().map(|s| s.end_offset).collect(),
        steps: cleaner.steps,
        stops: cleaner.stops,
    }
}

/// The `lastContainedLogTimestamp` of a snapshot file: its first record,
/// the snapshot header.
fn header_timestamp(bytes: &[u8]) -> Option<i64> {
    let batch = BatchIter::new(bytes, 0).next()?.ok()?;
    let mut scratch = Vec::new();
    let records = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
    let first = records.records.first()?;
    let decoded = decode_control(first.key, first.value);
    match decoded.value {
        Decoded::Json(v) => v.pointer("/data/lastContainedLogTimestamp")?.as_i64(),
        _ => None,
    }
}

/// The KRaft snapshots (`<end offset>-<epoch>.checkpoint`) of `partition`,
/// by end offset, as the metadata loader lists them.
pub fn read_snapshots(partition: &Partition) -> Result<Vec<SnapshotFacts>, LogDirError> {
    snapshots(&partition.dir)?
        .into_iter()
        .map(|s| {
            let file = MappedFile::open(&s.path, CachePolicy::Restore)?;
            Ok(SnapshotFacts {
                end_offset: s.end_offset,
                epoch: s.epoch,
                size: file.bytes().len() as u64,
                last_contained_timestamp: header_timestamp(file.bytes()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(end_offset: i64, size: u64, ts: i64) -> SnapshotFacts {
        SnapshotFacts {
            end_offset,
            epoch: 1,
            size,
            last_contained_timestamp: Some(ts),
        }
    }

    fn state(now: i64) -> LogState {
        LogState {
            log_start_offset: 0,
            log_end_offset: 300,
            high_watermark: 300,
            now,
            upload_bound: None,
        }
    }

    const SEGMENTS: [SegmentFacts; 3] = [
        SegmentFacts {
            base_offset: 0,
            size: 100,
            largest_timestamp: 0,
        },
        SegmentFacts {
            base_offset: 100,
            size: 100,
            largest_timestamp: 0,
        },
        SegmentFacts {
            base_offset: 200,
            size: 100,
            largest_timestamp: 0,
        },
    ];

    #[test]
    fn old_snapshots_go_by_time_and_take_the_segments_below_the_next() {
        let snaps = [
            snap(0, 10, 1_000),
            snap(150, 10, 5_000),
            snap(250, 10, 9_000),
        ];
        let limits = MetadataRetention {
            max_bytes: -1,
            max_ms: 3_000,
        };
        let c = maybe_clean(&SEGMENTS, &snaps, state(6_000), limits);
        // Snapshot 0 is 5000 ms old: the log start moves to 150, segment 0
        // (next base 100 <= 150) goes; snapshot 150 is 1000 ms old: kept.
        assert_eq!(c.steps.len(), 1);
        assert_eq!(c.steps[0].snapshot_deleted, 0);
        assert_eq!(c.steps[0].segments_deleted, vec![0]);
        assert_eq!(c.log_start_offset_after, 150);
        assert_eq!(c.snapshots_after, vec![150, 250]);
        let at_limit = maybe_clean(&SEGMENTS, &snaps, state(4_000), limits);
        assert!(
            at_limit.steps.is_empty(),
            "an age of exactly the limit stays"
        );
    }

    #[test]
    fn size_counts_the_log_and_every_snapshot_and_keeps_the_latest() {
        let snaps = [snap(0, 10, 0), snap(150, 10, 0), snap(250, 10, 0)];
        let limits = MetadataRetention {
            max_bytes: 1,
            max_ms: -1,
        };
        let c = maybe_clean(&SEGMENTS, &snaps, state(0), limits);
        assert_eq!(c.snapshots_after, vec![250]);
        assert_eq!(c.log_start_offset_after, 250);
        assert_eq!(c.steps[1].segments_deleted, vec![100]);
        let roomy = MetadataRetention {
            max_bytes: 330,
            max_ms: -1,
        };
        assert!(
            maybe_clean(&SEGMENTS, &snaps, state(0), roomy)
                .steps
                .is_empty()
        );
    }

    #[test]
    fn a_single_snapshot_or_one_above_the_high_watermark_keeps_everything() {
        let limits = MetadataRetention {
            max_bytes: 0,
            max_ms: 0,
        };
        let one = maybe_clean(&SEGMENTS, &[snap(150, 10, 0)], state(10), limits);
        assert!(one.steps.is_empty());
        let st = LogState {
            high_watermark: 120,
            ..state(10)
        };
        let c = maybe_clean(&SEGMENTS, &[snap(0, 1, 0), snap(150, 1, 0)], st, limits);
        assert!(c.steps.is_empty());
        assert!(
            c.stops[0].contains("above the high watermark"),
            "{:?}",
            c.stops
        );
    }
}
