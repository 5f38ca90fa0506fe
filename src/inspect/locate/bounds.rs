//! Where a partition's readable offsets start: the log start offset
//! lookups and retention assume, and the check that there is a segment to
//! look in at all.

use crate::logdir::{LogDirError, Partition};

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
