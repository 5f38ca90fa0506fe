//! Which producer snapshot files Kafka's log loader leaves behind, and with
//! which bytes: `recoverSegment` (rebuild producer state up to the segment,
//! recover it, snapshot its end), the deletion of later segments' snapshots,
//! `removeStraySnapshots`, and the final `rebuildProducerState` to the log end.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::PathBuf;

use crate::format::producer_snapshot::parse_producer_snapshot;
use crate::format::txn_index::AbortedTxn;
use crate::inspect::index::build::StopReason;
use crate::inspect::producer::batch::ProducerBatch;
use crate::inspect::producer::state::{ProducerExpiry, ProducerState, for_each_producer_batch};
use crate::inspect::recovery::plan::{RecoveryPlan, SegmentAction};
use crate::inspect::recovery::segment::SegmentCheck;
use crate::logdir::LogDirError;

/// The producer-state side of loading: snapshot files after loading,
/// compared with those before, and the `.txnindex` of every recovered segment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotPlan {
    /// Every snapshot file after loading: offset and bytes.
    pub files: BTreeMap<i64, Vec<u8>>,
    /// Offsets whose file is new or gets new bytes.
    pub written: Vec<i64>,
    /// Offsets whose file goes away.
    pub deleted: Vec<i64>,
    /// Per recovered segment (by base offset), the aborted transactions its
    /// `.txnindex` holds after `LogSegment.recover` rebuilt it.
    pub txn_indexes: BTreeMap<i64, Vec<AbortedTxn>>,
}

struct Segment<'c> {
    base: i64,
    /// Bytes of the `.log` recovery keeps.
    len: u64,
    /// The `.log`.
    path: PathBuf,
    /// Its batches with a producer id, unless they must be read again.
    batches: Option<&'c [ProducerBatch]>,
    /// Offset after its last valid magic-2 batch.
    recovered_map_end: Option<i64>,
}

impl Segment<'_> {
    /// Calls `visit` with the producer batches in the part of the `.log`
    /// recovery keeps, in order, until it breaks.
    fn for_each_kept(
        &self,
        visit: impl FnMut(&ProducerBatch) -> ControlFlow<()>,
    ) -> Result<(), LogDirError> {
        for_each_producer_batch(&self.path, self.len, self.batches, visit)
    }
}

struct Loader<'c> {
    expiry: ProducerExpiry,
    snaps: BTreeMap<i64, Vec<u8>>,
    segments: Vec<Segment<'c>>,
    txn_indexes: BTreeMap<i64, Vec<AbortedTxn>>,
}

impl Loader<'_> {
    /// `ProducerStateManager.truncateAndReload`: drop snapshots outside
    /// (log start, log end], load the latest one that parses, without the
    /// producers that have expired.
    fn truncate_and_reload(&mut self, log_start: i64, log_end: i64) -> (ProducerState, i64) {
        self.snaps.retain(|&o, _| o <= log_end && o > log_start);
        while let Some((&offset, bytes)) = self.snaps.iter().next_back() {
            match parse_producer_snapshot(bytes) {
                Ok(mut snapshot) => {
                    snapshot.entries.retain(|e| !self.expiry.expires(e));
                    return (ProducerState::from_snapshot(&snapshot, offset), offset);
                }
                Err(_) => {
                    self.snaps.remove(&offset);
                }
            }
        }
        (ProducerState::empty(log_start), log_start)
    }

    fn take_snapshot(&mut self, state: &ProducerState, last_snapshot: &mut i64) {
        if state.map_end_offset > *last_snapshot {
            self.snaps
                .insert(state.map_end_offset, state.snapshot_bytes());
            *last_snapshot = state.map_end_offset;
        }
    }

    /// `UnifiedLog.rebuildProducerState` with a fresh state manager.
    fn rebuild(
        &mut self,
        log_start: i64,
        last_offset: i64,
        clean_shutdown: bool,
    ) -> Result<(ProducerState, i64), LogDirError> {
        let n = self.segments.len();
        let mut to_snapshot = vec![last_offset];
        to_snapshot.extend(
            self.segments
                .iter()
                .skip(n.saturating_sub(2))
                .map(|s| s.base),
        );
        if self.snaps.is_empty() && clean_shutdown {
            let mut state = ProducerState::empty(0);
            let mut last = 0;
            for offset in [to_snapshot.get(1), to_snapshot.get(2), to_snapshot.first()]
                .into_iter()
                .flatten()
            {
                state.map_end_offset = *offset;
                self.take_snapshot(&state, &mut last);
            }
            return Ok((state, last));
        }
        let empty_before = last_offset <= 0;
        let (mut state, mut last) = self.truncate_and_reload(log_start, last_offset);
        if last_offset > state.map_end_offset && !empty_before {
            let floor_of_last = self.segments.iter().rposition(|s| s.base <= last_offset);
            let floor_of_map_end = self
                .segments
                .iter()
                .rposition(|s| s.base <= state.map_end_offset);
            for i in 0..n {
                let base = self.segments[i].base;
                if !(Some(i) == floor_of_map_end || base > state.map_end_offset)
                    || base >= last_offset
                {
                    continue;
                }
                let start = base.max(state.map_end_offset).max(log_start);
                state.map_end_offset = start;
                if to_snapshot.contains(&base) {
                    self.take_snapshot(&state, &mut last);
                }
                let stop_at_last = Some(i) == floor_of_last;
                let mut started = false;
                self.segments[i].for_each_kept(|b| {
                    started = started || b.last_offset >= start;
                    if !started {
                        return ControlFlow::Continue(());
                    }
                    if stop_at_last && b.last_offset >= last_offset {
                        return ControlFlow::Break(());
                    }
                    state.apply(b);
                    ControlFlow::Continue(())
                })?;
            }
        }
        state.map_end_offset = last_offset;
        self.take_snapshot(&state, &mut last);
        Ok((state, last))
    }

    /// `LogLoader.recoverSegment`: state up to the segment, then its valid
    /// batches, which also rebuild its `.txnindex`.
    fn recover_segment(&mut self, i: usize, log_start: i64) -> Result<(), LogDirError> {
        let base = self.segments[i].base;
        let (mut state, mut last) = self.rebuild(log_start, base, false)?;
        let mut aborted = Vec::new();
        self.segments[i].for_each_kept(|b| {
            aborted.extend(state.apply(b));
            ControlFlow::Continue(())
        })?;
        self.txn_indexes.insert(base, aborted);
        if let Some(end) = self.segments[i].recovered_map_end {
            state.map_end_offset = end;
        }
        self.take_snapshot(&state, &mut last);
        Ok(())
    }
}

/// Simulates the snapshot side of loading for `plan`. `snapshots` are the
/// existing files; `log_start_checkpoint` is the log start offset checkpoint
/// (0 when absent); `expiry` is the broker's clock and expiration setting.
/// Segments whose producer batches were not kept in memory are read again.
pub fn plan_snapshots(
    checks: &[SegmentCheck],
    plan: &RecoveryPlan,
    snapshots: BTreeMap<i64, Vec<u8>>,
    log_start_checkpoint: i64,
    expiry: ProducerExpiry,
) -> Result<SnapshotPlan, LogDirError> {
    let before = snapshots.clone();
    let mut segments = Vec::with_capacity(checks.len());
    for check in checks {
        segments.push(Segment {
            base: check.segment.base_offset,
            len: check.log_size,
            path: check.segment.log_path(),
            batches: check.producer_batches.as_deref(),
            recovered_map_end: check.build.last_v2_next_offset,
        });
    }
    let mut loader = Loader {
        expiry,
        snaps: snapshots,
        segments,
        txn_indexes: BTreeMap::new(),
    };
    let mut deleted_bases = Vec::new();
    let recovered = |why_missing: bool| {
        plan.segments
            .iter()
            .enumerate()
            .filter_map(move |(i, p)| match &p.action {
                SegmentAction::Recover {
                    why, valid_bytes, ..
                } if (*why == crate::inspect::recovery::plan::RecoverWhy::MissingIndex)
                    == why_missing =>
                {
                    Some((i, *valid_bytes))
                }
                _ => None,
            })
    };
    for (i, valid) in recovered(true).chain(recovered(false)) {
        loader.segments[i].len = valid;
        let emptied = matches!(checks[i].build.stop, Some(StopReason::InvalidOffset { .. }));
        if emptied {
            loader
                .txn_indexes
                .insert(loader.segments[i].base, Vec::new());
        } else {
            loader.recover_segment(i, log_start_checkpoint)?;
        }
    }
    for (i, p) in plan.segments.iter().enumerate().rev() {
        if matches!(p.action, SegmentAction::Delete { .. }) {
            deleted_bases.push(loader.segments.remove(i).base);
        }
    }
    for base in &deleted_bases {
        loader.snaps.remove(base);
        loader.txn_indexes.remove(base);
    }
    let bases: Vec<i64> = loader.segments.iter().map(|s| s.base).collect();
    if let Some(&latest) = loader.snaps.keys().next_back() {
        loader
            .snaps
            .retain(|o, _| bases.contains(o) || *o == latest);
    }
    let log_start = bases
        .first()
        .map_or(log_start_checkpoint, |&b| b.max(log_start_checkpoint));
    loader.rebuild(log_start, plan.log_end_offset, plan.clean_shutdown)?;
    let written = loader
        .snaps
        .iter()
        .filter(|(o, b)| before.get(o) != Some(b))
        .map(|(o, _)| *o)
        .collect();
    let deleted = before
        .keys()
        .filter(|o| !loader.snaps.contains_key(o))
        .copied()
        .collect();
    Ok(SnapshotPlan {
        files: loader.snaps,
        written,
        deleted,
        txn_indexes: loader.txn_indexes,
    })
}
