//! Retention of a tiered partition's remote segments: what one run of the
//! leader's remote-log expiration task (`RemoteLogManager.RLMExpirationTask`,
//! every `remote.log.manager.task.interval.ms`) deletes, and the log start
//! offset it then sets.
//!
//! The rules (Kafka's storage module, 4.2):
//! - The leader epochs are `leader-epoch-checkpoint` as the broker loads it
//!   (truncated from the start at the log start offset), without the
//!   epochs that hold no records (`buildFilteredLeaderEpochMap`).
//! - Epoch by epoch, the segments `RemoteLogMetadataCache` lists for it
//!   (by start offset) are taken in turn: one already in
//!   DELETE_SEGMENT_STARTED is deleted again (a retry); one whose epochs
//!   all sit at or below the first epoch and which ends below the log
//!   start offset is deleted (log start offset breach); one within the
//!   leader epoch lineage (`isRemoteSegmentWithinLeaderEpochs`) is deleted
//!   when its largest timestamp is at or below now - retention.ms, or else
//!   when retention.bytes is breached by at least its size; the first
//!   segment in the lineage that stays ends the pass.
//! - retention.bytes is weighed against the local segments not yet in
//!   remote storage (`onlyLocalLogSegmentsSize`: base offset at or above
//!   the highest offset in remote storage) plus the finished remote
//!   segments in the lineage.
//! - The log start offset moves to one past the last segment deleted by
//!   time or size.
//! - Then every segment whose leader epochs all lie below the epoch
//!   cache's earliest epoch goes (an unclean election left it outside the
//!   lineage), whatever its state; the cache is read after the new log
//!   start offset truncated it.
//!
//! Offline, kseg assumes no upload is in progress (the broker is stopped)
//! and that each delete succeeds.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::inspect::cluster::remote::{RemotePartition, RemoteSegment, SegmentState};
use crate::inspect::diverge::epoch_cache::EpochCache;

/// Why the expiration task deletes a remote segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RemoteRule {
    /// A delete that started in an earlier pass and did not finish, retried.
    DeleteRetry,
    /// It ends below the log start offset, in epochs at or below the first.
    LogStartOffset,
    /// Its largest timestamp is at or below now - retention.ms.
    RetentionMs,
    /// retention.bytes over both tiers is breached by at least its size.
    RetentionBytes,
    /// All its leader epochs lie below the earliest epoch the leader knows.
    BelowEarliestEpoch,
}

impl RemoteRule {
    /// The rule in words.
    pub fn describe(self) -> &'static str {
        match self {
            Self::DeleteRetry => "a delete left in DELETE_SEGMENT_STARTED, retried",
            Self::LogStartOffset => "log start offset breach",
            Self::RetentionMs => "retention.ms",
            Self::RetentionBytes => "retention.bytes",
            Self::BelowEarliestEpoch => {
                "all its leader epochs below the earliest the leader knows: an unclean election"
            }
        }
    }
}

/// One remote segment and what the pass does with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteSegmentFate {
    /// The segment's id.
    pub id: String,
    /// First offset.
    pub start_offset: i64,
    /// Last offset.
    pub end_offset: i64,
    /// Size in bytes.
    pub size_in_bytes: i64,
    /// Largest record timestamp.
    pub max_timestamp_ms: i64,
    /// Its state (Kafka's name).
    pub state: &'static str,
    /// Whether its epochs and offsets lie within the partition's leader
    /// epoch lineage (only such segments go by retention.ms and bytes).
    pub in_lineage: bool,
    /// The rule that deletes it in a pass now, if one does.
    pub deleted_now_by: Option<RemoteRule>,
    /// The earliest clock at which retention.ms lets a pass delete it.
    pub eligible_at: Option<i64>,
}

/// One pass of the expiration task over a partition's remote segments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemotePass {
    /// The topic's retention.ms, over both tiers.
    pub retention_ms: i64,
    /// The topic's retention.bytes, over both tiers.
    pub retention_bytes: i64,
    /// Bytes retention.bytes is weighed against: local segments not yet
    /// in remote storage plus finished remote segments in the lineage
    /// (`None`: retention.bytes is unlimited).
    pub retained_bytes: Option<i64>,
    /// The local part of it (`onlyLocalLogSegmentsSize`).
    pub only_local_bytes: i64,
    /// Bytes over retention.bytes when the pass starts (0: none).
    pub breached_bytes: i64,
    /// Segments whose largest timestamp is at or below this go by
    /// retention.ms (`None`: unlimited).
    pub cleanup_until_ms: Option<i64>,
    /// Every remote segment, by start offset.
    pub segments: Vec<RemoteSegmentFate>,
    /// The segments deleted, in the order the task deletes them.
    pub deleted: Vec<(String, RemoteRule)>,
    /// The segment in the lineage that stays and so ends the pass, if one does.
    pub kept_from: Option<String>,
    /// The log start offset the pass hands the log: one past the last
    /// segment deleted by time or size (`None`: none was); the log takes
    /// it when it is higher than its own.
    pub remote_log_start_offset: Option<i64>,
}

/// What the pass reads besides the remote segments.
#[derive(Debug, Clone, Copy)]
pub struct RemotePassInputs<'a> {
    /// `leader-epoch-checkpoint`'s entries.
    pub epochs: &'a EpochCache,
    /// The log start offset over both tiers.
    pub log_start_offset: i64,
    /// The log end offset.
    pub log_end_offset: i64,
    /// `onlyLocalLogSegmentsSize`.
    pub only_local_bytes: i64,
    /// The topic's retention.ms (over both tiers).
    pub retention_ms: i64,
    /// The topic's retention.bytes (over both tiers).
    pub retention_bytes: i64,
    /// The clock, epoch ms.
    pub now: i64,
}

/// Epoch to start offset, without the epochs holding no records (an
/// epoch starting where the next one does).
fn with_records(epochs: impl IntoIterator<Item = (i64, i64)>) -> BTreeMap<i64, i64> {
    let mut filtered = BTreeMap::new();
    let mut previous: Option<(i64, i64)> = None;
    for (epoch, start) in epochs {
        if let Some((p_epoch, p_start)) = previous
            && p_start != start
        {
            filtered.insert(p_epoch, p_start);
        }
        previous = Some((epoch, start));
    }
    if let Some((epoch, start)) = previous {
        filtered.insert(epoch, start);
    }
    filtered
}

/// Whether `segment` lies within the leader epoch `lineage`
/// (`isRemoteSegmentWithinLeaderEpochs`): its epochs from the first one
/// the lineage still holds start and end where the lineage's do, and it
/// ends below the log end offset.
fn within_lineage(
    segment: &RemoteSegment,
    log_end_offset: i64,
    lineage: &BTreeMap<i64, i64>,
) -> bool {
    let own = with_records(segment.leader_epochs.iter().map(|(e, s)| (*e, *s)));
    let (Some((&own_last, _)), Some((&first, _)), Some((&last, _))) = (
        own.last_key_value(),
        lineage.first_key_value(),
        lineage.last_key_value(),
    ) else {
        return false;
    };
    if own_last < first || own_last > last {
        return false;
    }
    let Some((&own_first, _)) = own.range(first..).next() else {
        return false;
    };
    let higher =
        |map: &BTreeMap<i64, i64>, epoch: i64| map.range(epoch + 1..).next().map(|(e, s)| (*e, *s));
    for (&epoch, &offset) in own.range(own_first..) {
        let Some(&start) = lineage.get(&epoch) else {
            return false;
        };
        if epoch == own_first && lineage.range(..epoch).next().is_some() && offset < start {
            return false;
        }
        if epoch == own_last {
            if higher(lineage, epoch).is_some_and(|(_, next)| segment.end_offset > next - 1) {
                return false;
            }
        } else if higher(lineage, epoch) != higher(&own, epoch) {
            return false;
        }
    }
    segment.end_offset < log_end_offset
}

/// The segments the cache lists for `epoch`: those it maps offsets of the
/// epoch to, in offset order, then the others naming the epoch (uploads
/// not finished, replaced or being deleted), all sorted by start offset
/// once there are any of the latter.
fn listed_for(partition: &RemotePartition, epoch: i64) -> Vec<&RemoteSegment> {
    let mut listed: Vec<&RemoteSegment> = partition
        .epoch_index
        .starts(epoch)
        .filter_map(|(_, id)| partition.segments.get(id))
        .collect();
    let referenced: BTreeSet<&str> = listed.iter().map(|s| s.id.as_str()).collect();
    let before = listed.len();
    listed.extend(
        partition.segments.values().filter(|s| {
            s.leader_epochs.contains_key(&epoch) && !referenced.contains(s.id.as_str())
        }),
    );
    if listed.len() > before {
        listed.sort_by_key(|s| s.start_offset);
    }
    listed
}

/// The bytes retention.bytes counts in remote storage: finished segments
/// in the lineage, each once.
fn lineage_bytes(
    partition: &RemotePartition,
    lineage: &BTreeMap<i64, i64>,
    log_end_offset: i64,
) -> i64 {
    let mut seen = BTreeSet::new();
    let mut bytes = 0;
    for &epoch in lineage.keys() {
        for s in listed_for(partition, epoch) {
            if s.state == SegmentState::CopyFinished
                && within_lineage(s, log_end_offset, lineage)
                && seen.insert(s.id.as_str())
            {
                bytes += s.size_in_bytes;
            }
        }
    }
    bytes
}

/// The segments a pass deletes, in order, each once.
#[derive(Default)]
struct Deletions {
    order: Vec<(String, RemoteRule)>,
    ids: BTreeMap<String, RemoteRule>,
}

impl Deletions {
    fn contains(&self, id: &str) -> bool {
        self.ids.contains_key(id)
    }

    fn add(&mut self, id: &str, rule: RemoteRule) {
        if self.ids.insert(id.to_string(), rule).is_none() {
            self.order.push((id.to_string(), rule));
        }
    }
}

/// The first loop's outcome beyond its deletions: the segment that ends
/// it, and the log start offset it hands the log.
struct FirstLoop {
    kept_from: Option<String>,
    remote_log_start_offset: Option<i64>,
}

/// The task's first loop: epoch by epoch through the lineage until a
/// segment in it stays; `remaining` is the retention.bytes breach left.
fn first_loop(
    partition: &RemotePartition,
    lineage: &BTreeMap<i64, i64>,
    (inputs, cleanup_until, mut remaining): (&RemotePassInputs, Option<i64>, i64),
    deleted: &mut Deletions,
) -> FirstLoop {
    let mut outcome = FirstLoop {
        kept_from: None,
        remote_log_start_offset: None,
    };
    let first_epoch = lineage.keys().next().copied();
    for &epoch in lineage.keys() {
        for s in listed_for(partition, epoch) {
            if s.state == SegmentState::DeleteStarted {
                deleted.add(&s.id, RemoteRule::DeleteRetry);
                continue;
            }
            if deleted.contains(&s.id) {
                continue;
            }
            let below_start = first_epoch.is_some_and(|f| s.leader_epochs.keys().all(|&e| e <= f))
                && s.end_offset < inputs.log_start_offset;
            let valid = !below_start && within_lineage(s, inputs.log_end_offset, lineage);
            let rule = if below_start {
                RemoteRule::LogStartOffset
            } else if valid && cleanup_until.is_some_and(|until| s.max_timestamp_ms <= until) {
                remaining = (remaining - s.size_in_bytes).max(0);
                RemoteRule::RetentionMs
            } else if valid && remaining > 0 && remaining - s.size_in_bytes >= 0 {
                remaining -= s.size_in_bytes;
                RemoteRule::RetentionBytes
            } else if valid {
                outcome.kept_from = Some(s.id.clone());
                return outcome;
            } else {
                continue;
            };
            if rule != RemoteRule::LogStartOffset {
                let next = s.end_offset + 1;
                outcome.remote_log_start_offset = Some(
                    outcome
                        .remote_log_start_offset
                        .map_or(next, |o| o.max(next)),
                );
            }
            deleted.add(&s.id, rule);
        }
    }
    outcome
}

/// The task's last phase: every segment left whose leader epochs all lie
/// below `earliest`, listed epoch by epoch.
fn below_earliest(partition: &RemotePartition, earliest: i64, deleted: &mut Deletions) {
    let remote_epochs: BTreeSet<i64> = partition
        .segments
        .values()
        .flat_map(|s| s.leader_epochs.keys().copied())
        .collect();
    let gone: BTreeSet<String> = deleted.ids.keys().cloned().collect();
    for &epoch in remote_epochs.range(..earliest) {
        for s in listed_for(partition, epoch) {
            if !gone.contains(&s.id) && s.leader_epochs.keys().all(|&e| e < earliest) {
                deleted.add(&s.id, RemoteRule::BelowEarliestEpoch);
            }
        }
    }
}

/// Runs the expiration task once over `partition`.
pub fn remote_pass(partition: &RemotePartition, inputs: RemotePassInputs) -> RemotePass {
    let mut loaded = inputs.epochs.clone();
    loaded.truncate_from_start(inputs.log_start_offset);
    let lineage = with_records(
        loaded
            .entries()
            .iter()
            .map(|e| (i64::from(e.epoch), e.start_offset)),
    );
    let only_local = inputs.only_local_bytes;
    let retained = (inputs.retention_bytes > -1)
        .then(|| only_local + lineage_bytes(partition, &lineage, inputs.log_end_offset));
    let breached = retained.map_or(0, |r| (r - inputs.retention_bytes).max(0));
    let cleanup_until = (inputs.retention_ms > -1 && inputs.now - inputs.retention_ms >= 0)
        .then(|| inputs.now - inputs.retention_ms);
    let mut deleted = Deletions::default();
    let first = first_loop(
        partition,
        &lineage,
        (&inputs, cleanup_until, breached),
        &mut deleted,
    );
    // The log takes the new start offset before the last phase, and with
    // it truncates its epoch cache, whose earliest epoch that phase reads.
    if let Some(start) = first
        .remote_log_start_offset
        .filter(|&o| o > inputs.log_start_offset)
    {
        loaded.truncate_from_start(start);
    }
    if let Some(earliest) = loaded.entries().first() {
        below_earliest(partition, i64::from(earliest.epoch), &mut deleted);
    }
    let mut segments: Vec<RemoteSegmentFate> = partition
        .segments
        .values()
        .map(|s| {
            let in_lineage = within_lineage(s, inputs.log_end_offset, &lineage);
            RemoteSegmentFate {
                id: s.id.clone(),
                start_offset: s.start_offset,
                end_offset: s.end_offset,
                size_in_bytes: s.size_in_bytes,
                max_timestamp_ms: s.max_timestamp_ms,
                state: s.state.name(),
                in_lineage,
                deleted_now_by: deleted.ids.get(&s.id).copied(),
                eligible_at: (in_lineage && inputs.retention_ms > -1)
                    .then(|| s.max_timestamp_ms.saturating_add(inputs.retention_ms)),
            }
        })
        .collect();
    segments.sort_by(|a, b| (a.start_offset, &a.id).cmp(&(b.start_offset, &b.id)));
    RemotePass {
        retention_ms: inputs.retention_ms,
        retention_bytes: inputs.retention_bytes,
        retained_bytes: retained,
        only_local_bytes: only_local,
        breached_bytes: breached,
        cleanup_until_ms: cleanup_until,
        segments,
        deleted: deleted.order,
        kept_from: first.kept_from,
        remote_log_start_offset: first.remote_log_start_offset,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::cluster::remote::RemoteLogState;
    use serde_json::json;

    const TP: &str = "AAAAAAAAAAAAAAAAAAAAAA:t-0";

    /// Segments uploaded in order: (id, start, end, epochs, size, max
    /// timestamp, finished).
    type Spec<'a> = (&'a str, i64, i64, &'a [(i64, i64)], i64, i64, bool);

    fn partition(specs: &[Spec]) -> RemotePartition {
        let mut state = RemoteLogState::default();
        let tp = json!({"id": "AAAAAAAAAAAAAAAAAAAAAA", "name": "t", "partition": 0});
        for (n, &(id, start, end, epochs, size, max_ts, finished)) in specs.iter().enumerate() {
            let seg = json!({"topicIdPartition": tp, "id": id});
            let epochs: Vec<_> = epochs
                .iter()
                .map(|(e, o)| json!({"leaderEpoch": e, "offset": o}))
                .collect();
            let add = json!({"type": "REMOTE_LOG_SEGMENT_METADATA_RECORD", "data": {
                "remoteLogSegmentId": seg, "startOffset": start, "endOffset": end,
                "brokerId": 0, "maxTimestampMs": max_ts, "eventTimestampMs": 0,
                "segmentLeaderEpochs": epochs, "segmentSizeInBytes": size,
                "remoteLogSegmentState": 0}});
            state.apply(2 * n as i64, &add).unwrap();
            if finished {
                let done = json!({"type": "REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD", "data": {
                    "remoteLogSegmentId": seg, "brokerId": 0, "eventTimestampMs": 0,
                    "remoteLogSegmentState": 1}});
                state.apply(2 * n as i64 + 1, &done).unwrap();
            }
        }
        state.partitions.remove(TP).unwrap()
    }

    fn inputs(epochs: &EpochCache) -> RemotePassInputs<'_> {
        RemotePassInputs {
            epochs,
            log_start_offset: 0,
            log_end_offset: 1000,
            only_local_bytes: 0,
            retention_ms: -1,
            retention_bytes: -1,
            now: 10_000,
        }
    }

    fn deleted(pass: &RemotePass) -> Vec<(&str, RemoteRule)> {
        pass.deleted
            .iter()
            .map(|(id, r)| (id.as_str(), *r))
            .collect()
    }

    fn lineage(entries: &[(i64, i64)]) -> BTreeMap<i64, i64> {
        entries.iter().copied().collect()
    }

    #[test]
    fn an_overlapping_upload_of_a_later_leader_stays_in_the_lineage() {
        // The lineage after the first segment's deletion moved the log
        // start to 51: {(7, 51), (9, 100)}; the later leader's segment
        // 14..150 with epochs {(5, 14), (7, 15), (9, 100)} still lies in it.
        let p = partition(&[("S2", 14, 150, &[(5, 14), (7, 15), (9, 100)], 1, 0, true)]);
        let s = &p.segments["S2"];
        assert!(within_lineage(s, 200, &lineage(&[(7, 51), (9, 100)])));
        // Not once it reaches the log end offset, nor when epoch 9 starts
        // elsewhere in the lineage, nor when epoch 7 is unknown to it.
        assert!(!within_lineage(s, 150, &lineage(&[(7, 51), (9, 100)])));
        assert!(!within_lineage(s, 200, &lineage(&[(7, 51), (9, 90)])));
        assert!(!within_lineage(s, 200, &lineage(&[(6, 51), (9, 100)])));
        // Its last epoch beyond the lineage's last.
        assert!(!within_lineage(s, 200, &lineage(&[(5, 0), (7, 15)])));
        // Its first epoch starting before the lineage's epoch does, with an
        // earlier epoch in the lineage.
        assert!(!within_lineage(
            s,
            200,
            &lineage(&[(3, 0), (5, 20), (7, 15), (9, 100)])
        ));
    }

    #[test]
    fn epochs_without_records_are_left_out() {
        assert_eq!(
            with_records([(1, 0), (2, 10), (3, 10), (4, 20)]),
            lineage(&[(1, 0), (3, 10), (4, 20)])
        );
    }

    #[test]
    fn retention_ms_deletes_from_the_oldest_until_a_segment_stays() {
        let p = partition(&[
            ("A", 0, 99, &[(0, 0)], 100, 1000, true),
            ("B", 100, 199, &[(0, 100)], 100, 2000, true),
            ("C", 200, 299, &[(0, 200)], 100, 5000, true),
            ("D", 300, 399, &[(0, 300)], 100, 1500, true),
        ]);
        let epochs = EpochCache::from_pairs(&[(0, 0)]);
        let pass = remote_pass(
            &p,
            RemotePassInputs {
                retention_ms: 3000,
                now: 5500,
                ..inputs(&epochs)
            },
        );
        assert_eq!(pass.cleanup_until_ms, Some(2500));
        // D is old too, but C stays first and ends the pass.
        assert_eq!(
            deleted(&pass),
            [
                ("A", RemoteRule::RetentionMs),
                ("B", RemoteRule::RetentionMs)
            ]
        );
        assert_eq!(pass.kept_from.as_deref(), Some("C"));
        assert_eq!(pass.remote_log_start_offset, Some(200));
    }

    #[test]
    fn retention_bytes_counts_local_only_bytes_and_deletes_whole_segments() {
        let p = partition(&[
            ("A", 0, 99, &[(0, 0)], 100, 0, true),
            ("B", 100, 199, &[(0, 100)], 100, 0, true),
            ("C", 200, 299, &[(0, 200)], 100, 0, true),
            // An upload that never finished counts for nothing.
            ("D", 300, 399, &[(0, 300)], 100, 0, false),
        ]);
        let epochs = EpochCache::from_pairs(&[(0, 0)]);
        let run = |only_local_bytes, retention_bytes| {
            remote_pass(
                &p,
                RemotePassInputs {
                    only_local_bytes,
                    retention_bytes,
                    ..inputs(&epochs)
                },
            )
        };
        // 150 local + 300 remote against 300: 150 over, so A goes and B,
        // which would leave it 50 under, stays.
        let pass = run(150, 300);
        assert_eq!(pass.retained_bytes, Some(450));
        assert_eq!(pass.breached_bytes, 150);
        assert_eq!(deleted(&pass), [("A", RemoteRule::RetentionBytes)]);
        assert_eq!(pass.remote_log_start_offset, Some(100));
        // 200 over: A and B.
        assert_eq!(
            deleted(&run(200, 300)),
            [
                ("A", RemoteRule::RetentionBytes),
                ("B", RemoteRule::RetentionBytes)
            ]
        );
        // Not over: nothing, and the first segment ends the pass.
        let kept = run(0, 300);
        assert!(kept.deleted.is_empty());
        assert_eq!(kept.kept_from.as_deref(), Some("A"));
        assert_eq!(kept.remote_log_start_offset, None);
    }

    #[test]
    fn segments_below_the_log_start_and_retried_deletes_go_without_moving_it() {
        let mut p = partition(&[
            ("A", 0, 99, &[(0, 0)], 100, 0, true),
            ("B", 100, 199, &[(0, 100)], 100, 0, true),
            ("C", 200, 299, &[(1, 200)], 100, 0, true),
        ]);
        p.segments.get_mut("B").unwrap().state = SegmentState::DeleteStarted;
        // The log start moved to 150 (DeleteRecords); the epoch cache is
        // truncated there as the broker loads it.
        let epochs = EpochCache::from_pairs(&[(0, 0), (1, 200)]);
        let pass = remote_pass(
            &p,
            RemotePassInputs {
                log_start_offset: 150,
                ..inputs(&epochs)
            },
        );
        assert_eq!(
            deleted(&pass),
            [
                ("A", RemoteRule::LogStartOffset),
                ("B", RemoteRule::DeleteRetry)
            ]
        );
        assert_eq!(pass.kept_from.as_deref(), Some("C"));
        assert_eq!(pass.remote_log_start_offset, None);
    }

    #[test]
    fn the_last_phase_reads_the_epochs_the_new_log_start_leaves() {
        // A goes by time and moves the log start to 100, which leaves epoch
        // 1 the earliest; X, an upload of epoch 0 running past where the
        // epoch ends, is outside the lineage, so the first loop passes it,
        // and the last phase removes it.
        let p = partition(&[
            ("A", 0, 99, &[(0, 0)], 100, 0, true),
            ("X", 0, 120, &[(0, 0)], 100, 0, false),
            ("B", 100, 199, &[(1, 100)], 100, 5000, true),
        ]);
        let epochs = EpochCache::from_pairs(&[(0, 0), (1, 100)]);
        let pass = remote_pass(
            &p,
            RemotePassInputs {
                retention_ms: 3000,
                now: 5500,
                ..inputs(&epochs)
            },
        );
        assert_eq!(
            deleted(&pass),
            [
                ("A", RemoteRule::RetentionMs),
                ("X", RemoteRule::BelowEarliestEpoch)
            ]
        );
        assert_eq!(pass.kept_from.as_deref(), Some("B"));
        assert_eq!(pass.remote_log_start_offset, Some(100));
    }

    #[test]
    fn segments_of_epochs_before_the_earliest_go_after_the_pass() {
        // An unclean election: the new leader's lineage starts at epoch 2,
        // offset 150; the old leader's segments of epoch 0 and 1 remain.
        let p = partition(&[
            ("A", 0, 99, &[(0, 0)], 100, 0, true),
            ("B", 100, 199, &[(0, 100), (1, 150)], 100, 0, false),
            ("C", 150, 249, &[(2, 150)], 100, 0, true),
        ]);
        let epochs = EpochCache::from_pairs(&[(2, 150)]);
        let pass = remote_pass(
            &p,
            RemotePassInputs {
                log_start_offset: 150,
                ..inputs(&epochs)
            },
        );
        assert_eq!(
            deleted(&pass),
            [
                ("A", RemoteRule::BelowEarliestEpoch),
                ("B", RemoteRule::BelowEarliestEpoch)
            ]
        );
        assert_eq!(pass.kept_from.as_deref(), Some("C"));
        let fates: Vec<bool> = pass.segments.iter().map(|s| s.in_lineage).collect();
        assert_eq!(fates, [false, false, true]);
    }
}
