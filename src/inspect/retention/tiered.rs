//! Retention of a tiered partition's local segments (`UnifiedLog` with
//! remote storage enabled and copy enabled): `local.retention.ms` and
//! `local.retention.bytes` in place of retention.ms and retention.bytes,
//! the log-start-offset rule on the local log start, and no local segment
//! deleted before it is uploaded: its last offset must be at or below the
//! highest offset in remote storage, which kseg works out from
//! `__remote_log_metadata` and `leader-epoch-checkpoint` as the broker does.

use serde::Serialize;

use crate::inspect::cluster::remote::RemoteLogState;
use crate::inspect::cluster::remote::SegmentState;
use crate::inspect::cluster::remote::highest::highest_offset_in_remote_storage;
use crate::inspect::locate::{
    SourcedOffset, in_neither_tier, leader_epochs, remote_partition_key, tiered_log_start,
};
use crate::inspect::retention::config::RetentionConfig;
use crate::inspect::retention::remote_pass::{RemotePass, RemotePassInputs, remote_pass};
use crate::inspect::retention::rules::UploadBound;
use crate::logdir::Partition;

/// What local retention of a tiered partition goes by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TieredLog {
    /// Whether segments are uploaded (`remote.log.copy.disable` is false);
    /// when not, local retention goes by retention.ms and retention.bytes
    /// without waiting for uploads.
    pub uploads: bool,
    /// The partition as `__remote_log_metadata` names it.
    pub partition_key: Option<String>,
    /// The log start offset over both tiers, and where it came from.
    pub log_start_offset: SourcedOffset,
    /// The highest offset in remote storage (-1: none).
    pub highest_offset_in_remote_storage: i64,
    /// Where that came from.
    pub highest_from: String,
    /// Finished remote segments of the partition.
    pub remote_segments: usize,
    /// Their bytes.
    pub remote_bytes: i64,
    /// Local segments a pass now would delete were they uploaded: they
    /// wait for their upload (base offsets).
    pub waiting_for_upload: Vec<i64>,
    /// Offset ranges from the log start to the local log start that no
    /// finished remote segment holds: in neither tier, so a fetch of them
    /// gets OFFSET_OUT_OF_RANGE (first, last).
    pub in_neither_tier: Vec<(i64, i64)>,
    /// What the expiration task deletes from remote storage now, by
    /// retention.ms and retention.bytes over both tiers (`None`: no
    /// `__remote_log_metadata` or `leader-epoch-checkpoint` to judge by).
    pub remote_pass: Option<RemotePass>,
}

/// The local log a tiered partition's retention reads.
#[derive(Debug, Clone, Copy)]
pub struct LocalLog<'a> {
    /// The local log start offset.
    pub local_log_start: i64,
    /// The log start offset given on the command line, if any.
    pub given_log_start: Option<i64>,
    /// The log end offset.
    pub log_end_offset: i64,
    /// Each local segment's base offset and size.
    pub segments: &'a [(i64, u64)],
    /// The clock, epoch ms.
    pub now: i64,
}

impl TieredLog {
    /// The bound on local deletion, when segments are uploaded.
    pub fn upload_bound(&self) -> Option<UploadBound> {
        self.uploads.then_some(UploadBound {
            log_start_offset: self.log_start_offset.0,
            highest_offset_in_remote_storage: self.highest_offset_in_remote_storage,
        })
    }
}

/// The tiered facts of `partition`, a tiered topic's (`config`), against
/// `remote` (`None`: no `__remote_log_metadata` was found);
/// `None` when the topic is not tiered.
pub fn tiered_log(
    partition: &Partition,
    config: &RetentionConfig,
    remote: Option<&RemoteLogState>,
    local: LocalLog,
) -> Option<TieredLog> {
    let LocalLog {
        local_log_start,
        given_log_start: given,
        log_end_offset,
        ..
    } = local;
    if !config.remote_storage_enable {
        return None;
    }
    let key = remote_partition_key(partition);
    let state = key.as_ref().and_then(|k| remote?.partitions.get(k));
    let finished: Vec<_> = state
        .into_iter()
        .flat_map(|p| p.segments.values())
        .filter(|s| s.state == SegmentState::CopyFinished)
        .collect();
    let epochs = leader_epochs(partition);
    let (highest, highest_from) = match (remote, state, &epochs) {
        (None, _, _) => (
            -1,
            "no __remote_log_metadata found: -1, as a broker holds before its first upload pass"
                .to_string(),
        ),
        (Some(_), None, _) => (
            -1,
            "no __remote_log_metadata partition read names the partition: -1".to_string(),
        ),
        (Some(_), Some(_), Err(why)) => (-1, format!("{why}: -1")),
        (Some(_), Some(p), Ok(cache)) => {
            match highest_offset_in_remote_storage(p, cache, log_end_offset) {
                Some((offset, epoch)) => (
                    offset,
                    format!(
                        "__remote_log_metadata's highest finished offset of leader epoch {epoch}"
                    ),
                ),
                None => (
                    -1,
                    "no epoch of leader-epoch-checkpoint has a finished upload: -1".to_string(),
                ),
            }
        }
    };
    let log_start_offset = tiered_log_start(partition, given, state, local_log_start);
    let remote_pass = match (state, &epochs) {
        (Some(p), Ok(cache)) => Some(remote_pass(
            p,
            RemotePassInputs {
                epochs: cache,
                log_start_offset: log_start_offset.0,
                log_end_offset,
                only_local_bytes: local
                    .segments
                    .iter()
                    .filter(|(base, _)| *base >= highest)
                    .map(|(_, size)| *size as i64)
                    .sum(),
                retention_ms: config.retention_ms,
                retention_bytes: config.retention_bytes,
                now: local.now,
            },
        )),
        _ => None,
    };
    Some(TieredLog {
        remote_pass,
        uploads: config.uploads(),
        in_neither_tier: state.map_or_else(Vec::new, |p| {
            in_neither_tier(p, log_start_offset.0, local_log_start)
        }),
        log_start_offset,
        partition_key: key,
        highest_offset_in_remote_storage: highest,
        highest_from,
        remote_segments: finished.len(),
        remote_bytes: finished.iter().map(|s| s.size_in_bytes).sum(),
        waiting_for_upload: Vec::new(),
    })
}
