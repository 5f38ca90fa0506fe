//! Reads a `__remote_log_metadata-N` partition's segments in order into a
//! [`RemoteLogState`], as the broker's consumer of that topic reads them
//! (CRCs checked; reading stops at the first batch that does not frame or
//! check, named by file and byte position).

use std::ops::ControlFlow;

use super::RemoteLogState;
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::logdir::chunked::walk_batches;
use crate::logdir::{LogDirError, Partition};
use crate::schema::{Decoded, InternalTopic, decode_record};

/// Applies every record of `partition` to `state`; returns the problems
/// met (a damaged batch, a record that does not decode or apply), each
/// naming its file and position or offset.
pub fn load_remote_partition(
    partition: &Partition,
    state: &mut RemoteLogState,
) -> Result<Vec<String>, LogDirError> {
    let mut problems = Vec::new();
    let mut scratch = Vec::new();
    for segment in &partition.segments {
        let path = segment.log_path();
        let mut stopped = false;
        let end = walk_batches(&path, |batch| {
            if let Err(e) = batch.ensure_valid() {
                problems.push(format!("{}: {e}: reading stops here", path.display()));
                stopped = true;
                return ControlFlow::Break(());
            }
            let decoded = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
            let is_control = batch.header().is_ok_and(|h| h.is_control());
            for record in decoded.records.iter().filter(|_| !is_control) {
                let value =
                    decode_record(InternalTopic::RemoteLogMetadata, record.key, record.value);
                let applied = match value.value {
                    Decoded::Json(v) => state.apply(record.offset, &v),
                    Decoded::Failed(reason) => Err(reason),
                    Decoded::Null | Decoded::NotDecoded => Err("the record has no value".into()),
                };
                if let Err(why) = applied {
                    problems.push(format!(
                        "{}: offset {}: {why}: the record is not applied",
                        path.display(),
                        record.offset
                    ));
                }
            }
            if let Some(e) = decoded.error {
                problems.push(format!("{}: {e}: reading stops here", path.display()));
                stopped = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        })?;
        if let Some(e) = end.filter(|_| !stopped) {
            problems.push(format!("{}: {e}: reading stops here", path.display()));
            stopped = true;
        }
        if stopped {
            break;
        }
    }
    Ok(problems)
}
