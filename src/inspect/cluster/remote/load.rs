//! Reads a `__remote_log_metadata-N` partition into a [`RemoteLogState`]
//! through the internal-topic loader the coordinators use
//! ([`load_partition`]: CRCs checked, reading stops at the first batch
//! that does not frame or check, named by file and byte position).

use super::RemoteLogState;
use crate::inspect::cluster::capped::Capped;
use crate::inspect::cluster::groups::load::{LoadEvent, LoadProblem, load_partition};
use crate::logdir::{LogDirError, Partition};
use crate::schema::InternalTopic;

/// Applies every record of `partition` to `state`; returns where reading
/// stopped or skipped a record, and the records the state refused (by
/// offset, with why).
pub fn load_remote_partition(
    partition: &Partition,
    state: &mut RemoteLogState,
) -> Result<(Capped<LoadProblem>, Vec<String>), LogDirError> {
    let mut refused = Vec::new();
    let problems = load_partition(
        partition,
        InternalTopic::RemoteLogMetadata,
        &mut |_| {},
        &mut |event| {
            if let LoadEvent::Keyless { offset, value } = event
                && let Err(why) = state.apply(offset, value)
            {
                refused.push(format!(
                    "{}: offset {offset}: {why}: the record is not applied",
                    partition.dir.display()
                ));
            }
        },
    )?;
    Ok((problems, refused))
}
