//! Where a partition's readable offsets start and end: the log start offset
//! lookups and retention assume, the log end offset, and the check that
//! there is a segment to look in at all.

use super::next_offset;
use crate::logdir::{CachePolicy, LogDirError, MappedFile, Partition};

/// An offset and, in words, where it came from.
pub type SourcedOffset = (i64, String);

/// The log start offset lookups and retention assume, and where it came
/// from: `given`, else the partition's entry in `log-start-offset-checkpoint`
/// (never below the first segment's base), else the first segment's base
/// offset.
pub fn log_start_offset(
    partition: &Partition,
    given: Option<i64>,
) -> Result<SourcedOffset, LogDirError> {
    let first = partition.segments.first().map_or(0, |s| s.base_offset);
    Ok(
        match (
            given,
            partition.checkpointed_offset("log-start-offset-checkpoint")?,
        ) {
            (Some(o), _) => (o, "given on the command line".to_string()),
            (None, Some(o)) => (o.max(first), "log-start-offset-checkpoint".to_string()),
            (None, None) => (first, "the first segment's base offset".to_string()),
        },
    )
}

/// Fails on a partition directory without segments: nothing to look up.
pub(super) fn require_segments(partition: &Partition) -> Result<(), LogDirError> {
    if partition.segments.is_empty() {
        return Err(LogDirError::not_understood(
            &partition.dir,
            "no segments (.log files) here",
        ));
    }
    Ok(())
}

/// The log end offset of `partition`: the offset after the last whole
/// batch of its last segment (0 for a partition without segments).
pub fn log_end_offset(partition: &Partition) -> Result<i64, LogDirError> {
    let Some(segment) = partition.active_segment() else {
        return Ok(0);
    };
    let log = MappedFile::open(&segment.log_path(), CachePolicy::Restore)?;
    Ok(next_offset(segment, log.bytes()))
}
