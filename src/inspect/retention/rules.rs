//! Kafka's retention (`UnifiedLog.deleteOldSegments`): the log-start-offset,
//! retention.bytes and retention.ms rules in that order, each walking from
//! the oldest segment and stopping at the first it keeps; only segments below
//! the high watermark; the active segment rolled first when it goes too.

use serde::Serialize;

use crate::inspect::retention::config::RetentionConfig;

/// What retention needs to know about one segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentFacts {
    /// Base offset.
    pub base_offset: i64,
    /// `.log` size in bytes.
    pub size: u64,
    /// The largest timestamp as Kafka takes it (time index, or mtime).
    pub largest_timestamp: i64,
}

/// One rule's pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleStep {
    /// Kafka's method name for the rule.
    pub rule: &'static str,
    /// Base offsets deleted by this rule.
    pub deleted: Vec<i64>,
    /// Why it did nothing, when it was skipped.
    pub note: Option<&'static str>,
    /// Log size after each deletion (retention.bytes).
    pub size_after_each: Vec<u64>,
    /// Log start offset after the step, when it deleted something.
    pub log_start_offset_after: Option<i64>,
    /// Base offset of the empty segment rolled first, when the active one goes.
    pub rolled_new_segment_first: Option<i64>,
}

/// The outcome of one retention pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeletionPass {
    /// The three rules in order.
    pub steps: Vec<RuleStep>,
    /// Base offsets left.
    pub segments_after: Vec<i64>,
    /// Log start offset after the pass.
    pub log_start_offset_after: i64,
}

/// The log's state a pass starts from.
#[derive(Debug, Clone, Copy)]
pub struct LogState {
    /// Log start offset.
    pub log_start_offset: i64,
    /// Log end offset.
    pub log_end_offset: i64,
    /// High watermark (only segments wholly below it can go).
    pub high_watermark: i64,
    /// The clock, epoch ms.
    pub now: i64,
    /// For a tiered topic that uploads: what a local segment must be
    /// below to be deleted.
    pub upload_bound: Option<UploadBound>,
}

/// A tiered log's bound on local deletion (`isSegmentEligibleForDeletion`):
/// a local segment goes only once its last offset is in remote storage,
/// or once the log start offset has passed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadBound {
    /// The log start offset (below it nothing is served, in either tier).
    pub log_start_offset: i64,
    /// The highest offset in remote storage (-1: none known).
    pub highest_offset_in_remote_storage: i64,
}

impl UploadBound {
    /// Whether the segment ending before `upper`, followed by `next`, may go.
    pub fn allows(&self, next: Option<&SegmentFacts>, upper: i64) -> bool {
        (upper > 0 && upper - 1 <= self.highest_offset_in_remote_storage)
            || next.is_some_and(|n| self.log_start_offset >= n.base_offset)
    }
}

/// Runs one `deleteOldSegments()` pass at `state.now`.
pub fn delete_old_segments(
    segments: &[SegmentFacts],
    state: LogState,
    config: &RetentionConfig,
) -> DeletionPass {
    let mut live: Vec<SegmentFacts> = segments.to_vec();
    let mut log_start = state.log_start_offset;
    let mut steps = Vec::new();
    let start = log_start;
    let start_rule = |_: &SegmentFacts, next: Option<&SegmentFacts>| {
        next.is_some_and(|n| n.base_offset <= start)
    };
    steps.push(run_rule(
        "deleteLogStartOffsetBreachedSegments",
        &mut live,
        &mut log_start,
        state,
        None,
        start_rule,
    ));
    if !config.delete {
        return finish(steps, live, log_start);
    }
    let total: u64 = live.iter().map(|s| s.size).sum();
    if config.retention_bytes < 0 || (total as i64) < config.retention_bytes {
        steps.push(skipped(
            "deleteRetentionSizeBreachedSegments",
            "skipped: retention.bytes < 0 or size < retention.bytes",
        ));
    } else {
        let mut diff = total as i64 - config.retention_bytes;
        let size_rule = |s: &SegmentFacts, _: Option<&SegmentFacts>| {
            if diff - s.size as i64 >= 0 {
                diff -= s.size as i64;
                true
            } else {
                false
            }
        };
        steps.push(run_rule(
            "deleteRetentionSizeBreachedSegments",
            &mut live,
            &mut log_start,
            state,
            Some(total),
            size_rule,
        ));
    }
    if config.retention_ms < 0 {
        steps.push(skipped(
            "deleteRetentionMsBreachedSegments",
            "skipped: retention.ms < 0",
        ));
    } else {
        let time_rule = |s: &SegmentFacts, _: Option<&SegmentFacts>| {
            state.now - s.largest_timestamp > config.retention_ms
        };
        steps.push(run_rule(
            "deleteRetentionMsBreachedSegments",
            &mut live,
            &mut log_start,
            state,
            None,
            time_rule,
        ));
    }
    finish(steps, live, log_start)
}

fn finish(steps: Vec<RuleStep>, live: Vec<SegmentFacts>, log_start: i64) -> DeletionPass {
    DeletionPass {
        steps,
        segments_after: live.iter().map(|s| s.base_offset).collect(),
        log_start_offset_after: log_start,
    }
}

fn skipped(rule: &'static str, note: &'static str) -> RuleStep {
    RuleStep {
        rule,
        deleted: Vec::new(),
        note: Some(note),
        size_after_each: Vec::new(),
        log_start_offset_after: None,
        rolled_new_segment_first: None,
    }
}

/// `deletableSegments` + `deleteSegments` for one predicate.
fn run_rule(
    rule: &'static str,
    live: &mut Vec<SegmentFacts>,
    log_start: &mut i64,
    state: LogState,
    total_size: Option<u64>,
    mut predicate: impl FnMut(&SegmentFacts, Option<&SegmentFacts>) -> bool,
) -> RuleStep {
    let mut step = skipped(rule, "");
    step.note = None;
    let mut count = 0;
    for (i, s) in live.iter().enumerate() {
        let next = live.get(i + 1);
        let upper = next.map_or(state.log_end_offset, |n| n.base_offset);
        let last_and_empty = next.is_none() && s.size == 0;
        let uploaded = state.upload_bound.is_none_or(|b| b.allows(next, upper));
        if !(state.high_watermark >= upper && !last_and_empty && predicate(s, next) && uploaded) {
            break;
        }
        count += 1;
    }
    if count == 0 {
        return step;
    }
    let mut size = total_size.unwrap_or(0);
    for s in live.drain(..count) {
        step.deleted.push(s.base_offset);
        if total_size.is_some() {
            size -= s.size;
            step.size_after_each.push(size);
        }
    }
    if live.is_empty() {
        live.push(SegmentFacts {
            base_offset: state.log_end_offset,
            size: 0,
            largest_timestamp: -1,
        });
        step.rolled_new_segment_first = Some(state.log_end_offset);
    }
    // The log start offset moves up to the first remaining segment (never back).
    let first = live.first().map_or(state.log_end_offset, |s| s.base_offset);
    *log_start = (*log_start).max(first);
    step.log_start_offset_after = Some(*log_start);
    step
}

/// When retention.ms lets each segment go: the earliest clock at which one
/// pass deletes it (the walk stops at the first segment kept, so a segment
/// waits for every older one). `None` when retention.ms is unlimited or the
/// segment is not below the high watermark.
pub fn eligible_at(
    segments: &[SegmentFacts],
    state: LogState,
    config: &RetentionConfig,
) -> Vec<Option<i64>> {
    let mut out = Vec::with_capacity(segments.len());
    let mut earliest = i64::MIN;
    let mut blocked = config.retention_ms < 0 || !config.delete;
    for (i, s) in segments.iter().enumerate() {
        let upper = segments
            .get(i + 1)
            .map_or(state.log_end_offset, |n| n.base_offset);
        blocked |= state.high_watermark < upper
            || (i + 1 == segments.len() && s.size == 0)
            || state
                .upload_bound
                .is_some_and(|b| !b.allows(segments.get(i + 1), upper));
        if blocked {
            out.push(None);
            continue;
        }
        earliest = earliest.max(
            s.largest_timestamp
                .saturating_add(config.retention_ms)
                .saturating_add(1),
        );
        out.push(Some(earliest));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(base: i64, size: u64, ts: i64) -> SegmentFacts {
        SegmentFacts {
            base_offset: base,
            size,
            largest_timestamp: ts,
        }
    }

    fn state(now: i64) -> LogState {
        LogState {
            log_start_offset: 0,
            log_end_offset: 30,
            high_watermark: 30,
            now,
            upload_bound: None,
        }
    }

    fn config(ms: i64, bytes: i64) -> RetentionConfig {
        RetentionConfig {
            retention_ms: ms,
            retention_bytes: bytes,
            ..RetentionConfig::defaults(3)
        }
    }

    #[test]
    fn time_rule_is_strict_and_stops_at_the_first_kept_segment() {
        let segs = [seg(0, 10, 100), seg(10, 10, 500), seg(20, 10, 200)];
        let pass = delete_old_segments(&segs, state(1100), &config(1000, -1));
        assert!(
            pass.steps[2].deleted.is_empty(),
            "an age of exactly retention.ms is kept"
        );
        let pass = delete_old_segments(&segs, state(1101), &config(1000, -1));
        assert_eq!(
            pass.steps[2].deleted,
            vec![0],
            "segment 10 is newer and blocks segment 20"
        );
        assert_eq!(pass.log_start_offset_after, 10);
    }

    #[test]
    fn size_rule_deletes_while_the_rest_stays_at_or_above_the_limit() {
        let segs = [seg(0, 10, 0), seg(10, 10, 0), seg(20, 5, 0)];
        let pass = delete_old_segments(&segs, state(0), &config(-1, 14));
        assert_eq!(pass.steps[1].deleted, vec![0]);
        assert_eq!(pass.steps[1].size_after_each, vec![15]);
        let pass = delete_old_segments(&segs, state(0), &config(-1, 26));
        assert_eq!(
            pass.steps[1].note,
            Some("skipped: retention.bytes < 0 or size < retention.bytes")
        );
    }

    #[test]
    fn deleting_every_segment_rolls_an_empty_one_first() {
        let segs = [seg(0, 10, 0), seg(10, 10, 0)];
        let st = LogState {
            log_end_offset: 20,
            high_watermark: 20,
            ..state(10_000)
        };
        let pass = delete_old_segments(&segs, st, &config(1, -1));
        assert_eq!(pass.steps[2].rolled_new_segment_first, Some(20));
        assert_eq!(pass.segments_after, vec![20]);
    }

    #[test]
    fn only_segments_below_the_high_watermark_go() {
        let segs = [seg(0, 10, 0), seg(10, 10, 0)];
        let st = LogState {
            high_watermark: 9,
            ..state(10_000)
        };
        assert!(
            delete_old_segments(&segs, st, &config(1, -1)).steps[2]
                .deleted
                .is_empty()
        );
    }

    #[test]
    fn log_start_offset_rule_needs_the_next_segment_at_or_below_it() {
        let segs = [seg(0, 10, 0), seg(10, 10, 0), seg(20, 10, 0)];
        let st = LogState {
            log_start_offset: 15,
            ..state(0)
        };
        let pass = delete_old_segments(&segs, st, &config(-1, -1));
        assert_eq!(pass.steps[0].deleted, vec![0]);
        assert_eq!(pass.log_start_offset_after, 15);
    }

    #[test]
    fn compact_only_topics_skip_size_and_time() {
        let segs = [seg(0, 10, 0), seg(10, 10, 0)];
        let cfg = RetentionConfig {
            delete: false,
            compact: true,
            ..config(1, 1)
        };
        assert_eq!(
            delete_old_segments(&segs, state(10_000), &cfg).steps.len(),
            1
        );
    }

    #[test]
    fn eligibility_waits_for_older_segments() {
        let segs = [seg(0, 10, 500), seg(10, 10, 100), seg(20, 10, 900)];
        assert_eq!(
            eligible_at(&segs, state(0), &config(1000, -1)),
            vec![Some(1501), Some(1501), Some(1901)]
        );
    }
}
