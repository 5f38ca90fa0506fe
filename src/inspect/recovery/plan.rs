//! What Kafka's log loader will do to a partition on its next start
//! (`LogLoader.load`: segment loading, `recoverLog`, snapshot and epoch
//! clean-up), computed from [`SegmentCheck`]s, plus the damage it will not see.

use serde::Serialize;

use crate::format::checkpoint::LeaderEpochEntry;
use crate::inspect::index::build::StopReason;
use crate::inspect::index::health::IndexHealth;
use crate::inspect::recovery::segment::SegmentCheck;

/// Why a segment is recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RecoverWhy {
    /// At or past the recovery point after an unclean shutdown.
    PastRecoveryPoint,
    /// Its `.index` is missing (recovered whatever the shutdown was).
    MissingIndex,
}

/// What happens to one segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "action"
)]
pub enum SegmentAction {
    /// Loaded as it is.
    Keep,
    /// Loaded as it is, but its missing `.timeindex` is recreated empty.
    CreateEmptyTimeIndex,
    /// Recovered: indexes rebuilt, the log truncated to `valid_bytes`.
    Recover {
        /// Why.
        why: RecoverWhy,
        /// Size the `.log` keeps.
        valid_bytes: u64,
        /// Bytes cut from its end.
        truncated_bytes: u64,
        /// Offset after the last kept batch.
        next_offset: i64,
        /// Entries of the rebuilt `.index`.
        offset_index_entries: usize,
        /// Entries of the rebuilt `.timeindex`.
        time_index_entries: usize,
        /// What stopped the walk, in words.
        stopped_by: Option<String>,
    },
    /// Deleted with its indexes and producer snapshot, after an earlier truncation.
    Delete {
        /// Its `.log` size.
        bytes: u64,
    },
    /// Kafka splits it (offset overflow) and restarts loading; kseg cannot predict past this.
    Split,
}

/// The plan for one segment.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentPlan {
    /// Base offset.
    pub base_offset: i64,
    /// `.log` size now.
    pub log_size: u64,
    /// What Kafka does to it.
    #[serde(flatten)]
    pub action: SegmentAction,
}

/// Where the log loses data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// Segment cut.
    pub segment: i64,
    /// Byte position it is cut at.
    pub position: u64,
    /// First offset lost.
    pub first_lost_offset: i64,
    /// Bytes dropped in total (the cut plus every deleted segment).
    pub bytes_dropped: u64,
    /// Records dropped, counted from batch headers: those of every batch
    /// past the cut, and the count a torn or unframable batch's header
    /// claims.
    pub records_dropped: u64,
    /// Whether [`Truncation::records_dropped`] is a lower bound: bytes past
    /// a torn batch, or past a length field that runs off the file, hold
    /// records no header counts.
    pub records_dropped_at_least: bool,
}

/// Damage the loader will not look at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnseenDamage {
    /// Segment.
    pub segment: i64,
    /// What is wrong, in words.
    pub problem: String,
}

/// The whole prediction for a partition.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryPlan {
    /// Recovery point used.
    pub recovery_point: i64,
    /// Whether `.kafka_cleanshutdown` was found.
    pub clean_shutdown: bool,
    /// Per segment, in order.
    pub segments: Vec<SegmentPlan>,
    /// The truncation, if any.
    pub truncation: Option<Truncation>,
    /// Log end offset after loading.
    pub log_end_offset: i64,
    /// Producer snapshots Kafka deletes (offsets); see [`crate::inspect::recovery::snapshots`].
    pub snapshots_deleted: Vec<i64>,
    /// Producer snapshots Kafka writes or rewrites with new bytes (offsets).
    pub snapshots_written: Vec<i64>,
    /// Recovered segments (base offsets) whose `.txnindex` gets new bytes.
    pub txn_indexes_written: Vec<i64>,
    /// Leader epochs removed from `leader-epoch-checkpoint`.
    pub leader_epochs_removed: Vec<LeaderEpochEntry>,
    /// Problems Kafka will not notice at start-up.
    pub unseen_damage: Vec<UnseenDamage>,
}

impl RecoveryPlan {
    /// Whether loading changes nothing but rewriting indexes to the same bytes.
    pub fn is_clean(&self) -> bool {
        self.truncation.is_none()
            && self.unseen_damage.is_empty()
            && self.txn_indexes_written.is_empty()
            && self.segments.iter().all(|s| match &s.action {
                SegmentAction::Keep => true,
                SegmentAction::Recover {
                    why,
                    truncated_bytes,
                    ..
                } => *truncated_bytes == 0 && *why == RecoverWhy::PastRecoveryPoint,
                _ => false,
            })
    }

    /// Segments Kafka recovers.
    pub fn recovered(&self) -> impl Iterator<Item = &SegmentPlan> {
        self.segments
            .iter()
            .filter(|s| matches!(s.action, SegmentAction::Recover { .. }))
    }
}

fn stop_words(stop: &StopReason) -> String {
    match stop {
        StopReason::Framing(e) | StopReason::Invalid(e) => e.to_string(),
        StopReason::InvalidOffset {
            position,
            offset,
            previous,
        } => format!(
            "at byte {position}: offset {offset} is not above the previous index entry {previous} (InvalidOffsetException: the whole segment is emptied)"
        ),
        StopReason::OffsetOverflow { position, offset } => {
            format!("at byte {position}: offset {offset} overflows the segment's relative offsets")
        }
    }
}

fn recover(check: &SegmentCheck, why: RecoverWhy) -> SegmentAction {
    if matches!(check.build.stop, Some(StopReason::OffsetOverflow { .. })) {
        return SegmentAction::Split;
    }
    let emptied = matches!(check.build.stop, Some(StopReason::InvalidOffset { .. }));
    SegmentAction::Recover {
        why,
        valid_bytes: if emptied { 0 } else { check.build.valid_bytes },
        truncated_bytes: check.bytes_to_truncate(),
        next_offset: if emptied {
            check.segment.base_offset
        } else {
            check.build.next_offset
        },
        offset_index_entries: if emptied {
            0
        } else {
            check.build.offset_entry_count
        },
        time_index_entries: if emptied {
            0
        } else {
            check.build.time_entry_count
        },
        stopped_by: check.build.stop.as_ref().map(stop_words),
    }
}

/// Inputs of the plan besides the segments.
#[derive(Debug, Clone, Default)]
pub struct PartitionState {
    /// From `recovery-point-offset-checkpoint` (0 when absent).
    pub recovery_point: i64,
    /// `.kafka_cleanshutdown` exists in the log dir.
    pub clean_shutdown: bool,
    /// `leader-epoch-checkpoint` entries.
    pub leader_epochs: Vec<LeaderEpochEntry>,
}

/// Predicts `LogLoader.load` for the checked segments (in base-offset order).
pub fn plan_recovery(checks: &[SegmentCheck], state: &PartitionState) -> RecoveryPlan {
    let floor = checks
        .iter()
        .rposition(|c| c.segment.base_offset <= state.recovery_point)
        .unwrap_or(0);
    let mut segments: Vec<SegmentPlan> = Vec::with_capacity(checks.len());
    let mut truncation: Option<Truncation> = None;
    for (i, check) in checks.iter().enumerate() {
        let in_recovery = !state.clean_shutdown && i >= floor;
        let action = if truncation.is_some() {
            SegmentAction::Delete {
                bytes: check.log_size,
            }
        } else if check.offset_index == IndexHealth::Missing {
            // Recovered while loading segment files; a truncation there does
            // not delete later segments, and recoverLog then finds nothing to cut.
            let action = recover(check, RecoverWhy::MissingIndex);
            if in_recovery && check.bytes_to_truncate() > 0 {
                truncation = Some(cut(check));
            }
            action
        } else if in_recovery {
            let action = recover(check, RecoverWhy::PastRecoveryPoint);
            if check.bytes_to_truncate() > 0 {
                truncation = Some(cut(check));
            }
            action
        } else if check.time_index == IndexHealth::Missing {
            SegmentAction::CreateEmptyTimeIndex
        } else {
            SegmentAction::Keep
        };
        segments.push(SegmentPlan {
            base_offset: check.segment.base_offset,
            log_size: check.log_size,
            action,
        });
    }
    if let Some(t) = truncation.as_mut() {
        let deleted = checks
            .iter()
            .zip(&segments)
            .filter(|(_, p)| matches!(p.action, SegmentAction::Delete { .. }));
        for (check, _) in deleted {
            t.bytes_dropped += check.log_size;
            t.records_dropped += check.build.records + check.tail_records;
            t.records_dropped_at_least |= check.tail_records_at_least;
        }
    }
    let log_end_offset = segments
        .iter()
        .zip(checks)
        .rev()
        .find_map(|(p, c)| match &p.action {
            SegmentAction::Delete { .. } => None,
            SegmentAction::Recover { next_offset, .. } => Some(*next_offset),
            _ => Some(c.build.next_offset),
        })
        .unwrap_or(0);
    RecoveryPlan {
        recovery_point: state.recovery_point,
        clean_shutdown: state.clean_shutdown,
        truncation,
        log_end_offset,
        snapshots_deleted: Vec::new(),
        snapshots_written: Vec::new(),
        txn_indexes_written: Vec::new(),
        leader_epochs_removed: state
            .leader_epochs
            .iter()
            .copied()
            .filter(|e| e.start_offset >= log_end_offset)
            .collect(),
        unseen_damage: unseen_damage(checks, &segments, &state.leader_epochs),
        segments,
    }
}

fn cut(check: &SegmentCheck) -> Truncation {
    let emptied = matches!(check.build.stop, Some(StopReason::InvalidOffset { .. }));
    let records_after = check.tail_records;
    Truncation {
        segment: check.segment.base_offset,
        position: if emptied { 0 } else { check.build.valid_bytes },
        first_lost_offset: if emptied {
            check.segment.base_offset
        } else {
            check.build.next_offset
        },
        bytes_dropped: check.bytes_to_truncate(),
        records_dropped: if emptied {
            check.build.records + records_after
        } else {
            records_after
        },
        records_dropped_at_least: check.tail_records_at_least,
    }
}

/// Compares `leader-epoch-checkpoint` with the epochs the batches carry.
fn epoch_mismatches(
    checks: &[SegmentCheck],
    leader_epochs: &[LeaderEpochEntry],
) -> Vec<UnseenDamage> {
    let mut out = Vec::new();
    let mut latest = -1;
    for check in checks {
        for &(epoch, start) in &check.audit.epoch_starts {
            if epoch <= latest {
                continue;
            }
            latest = epoch;
            let problem = match leader_epochs.iter().find(|e| e.epoch == epoch) {
                // Compaction and retention remove batches, so the first one left
                // may start later than the epoch did; earlier is impossible.
                Some(e) if e.start_offset <= start => continue,
                Some(e) => format!(
                    "leader-epoch-checkpoint says epoch {epoch} starts at offset {}, but the log has epoch-{epoch} batches from {start}",
                    e.start_offset
                ),
                // Epochs before the checkpoint's first can be gone with truncated history.
                None if leader_epochs.is_empty()
                    || leader_epochs.iter().all(|e| e.epoch > epoch) =>
                {
                    continue;
                }
                None => format!(
                    "epoch {epoch} (from offset {start}) is missing from leader-epoch-checkpoint"
                ),
            };
            out.push(UnseenDamage {
                segment: check.segment.base_offset,
                problem,
            });
        }
    }
    out
}

fn unseen_damage(
    checks: &[SegmentCheck],
    plans: &[SegmentPlan],
    leader_epochs: &[LeaderEpochEntry],
) -> Vec<UnseenDamage> {
    let mut out = Vec::new();
    for (check, plan) in checks.iter().zip(plans) {
        let base = check.segment.base_offset;
        let mut note = |problem: String| {
            out.push(UnseenDamage {
                segment: base,
                problem,
            })
        };
        if let Some(first) = check.audit.first_offset.filter(|&first| first < base) {
            note(format!(
                "the first batch starts at offset {first}, below the file name's base offset {base}"
            ));
        }
        for anomaly in &check.audit.anomalies {
            note(anomaly.clone());
        }
        if check.audit.more_anomalies > 0 {
            note(format!(
                "and {} more such problems",
                check.audit.more_anomalies
            ));
        }
        if !matches!(
            plan.action,
            SegmentAction::Keep | SegmentAction::CreateEmptyTimeIndex
        ) {
            continue;
        }
        if let Some(stop) = &check.build.stop {
            note(format!(
                "{} ({} bytes from there are not served correctly; consumers or replicas hit it later)",
                stop_words(stop),
                check.bytes_to_truncate()
            ));
        }
        for (name, health) in [
            ("offset index", &check.offset_index),
            ("time index", &check.time_index),
        ] {
            match health {
                IndexHealth::Ok | IndexHealth::Missing => {}
                IndexHealth::EmptyWithData => note(format!(
                    "the {name} is empty although the log has data: retention uses the .log mtime and timestamp lookups skip this segment (kseg rebuild-index fixes it)"
                )),
                IndexHealth::FailsSanityCheck(m) | IndexHealth::Inconsistent(m) => note(format!(
                    "the {name} is corrupt and will be used as it is: {m} (kseg rebuild-index fixes it)"
                )),
            }
        }
        if let IndexHealth::Inconsistent(m) = &check.txn_index {
            note(format!(
                "the transaction index disagrees with the abort markers and will be used as it is: {m} (a recovery from this segment rebuilds it: kseg recover --recovery-point {base})"
            ));
        }
    }
    out.extend(epoch_mismatches(checks, leader_epochs));
    for pair in checks.windows(2) {
        if let [a, b] = pair {
            if a.build.next_offset > b.segment.base_offset && a.build.stop.is_none() {
                out.push(UnseenDamage {
                    segment: a.segment.base_offset,
                    problem: format!(
                        "its offsets run to {} past the next segment's base offset {}",
                        a.build.next_offset - 1,
                        b.segment.base_offset
                    ),
                });
            }
        }
    }
    out
}
