//! A consumer's lag offline: the log end offset of a committed
//! topic-partition whose directory sits in the same log dir, found as the
//! broker's `LogSegment.readNextOffset` finds it on the last segment, and
//! the high watermark the log dir's `replication-offset-checkpoint` holds
//! for it (what `kafka-consumer-groups.sh` measures lag against on a
//! running cluster: ListOffsets `latest` at READ_UNCOMMITTED).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::offsets::TopicPartition;
use crate::inspect::locate::log_end_offset;
use crate::logdir::{LogDirError, Partition};

/// Where a partition of the log dir ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionEnd {
    /// Its log end offset.
    pub log_end_offset: i64,
    /// Its entry in `replication-offset-checkpoint`, if any.
    pub high_watermark: Option<i64>,
}

/// The ends of those of `wanted` that have a partition directory
/// (`<topic>-<partition>`) in `log_dir`.
pub fn log_end_offsets<'t>(
    log_dir: &Path,
    wanted: impl IntoIterator<Item = &'t TopicPartition>,
) -> Result<BTreeMap<TopicPartition, PartitionEnd>, LogDirError> {
    let mut found = BTreeMap::new();
    let wanted: BTreeSet<&TopicPartition> = wanted.into_iter().collect();
    for tp in wanted {
        let dir = log_dir.join(format!("{}-{}", tp.0, tp.1));
        if !dir.is_dir() {
            continue;
        }
        let partition = Partition::open(&dir)?;
        let end = PartitionEnd {
            log_end_offset: log_end_offset(&partition)?,
            high_watermark: partition.checkpointed_offset("replication-offset-checkpoint")?,
        };
        found.insert(tp.clone(), end);
    }
    Ok(found)
}
