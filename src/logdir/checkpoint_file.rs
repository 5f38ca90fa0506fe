//! The broker-level offset checkpoint files of a log dir
//! (`recovery-point-offset-checkpoint`, `log-start-offset-checkpoint`,
//! `replication-offset-checkpoint`, `cleaner-offset-checkpoint`), read into
//! a map by partition.

use std::collections::BTreeMap;
use std::path::Path;

use super::error::LogDirError;
use super::mapped::read_small;
use crate::format::checkpoint::parse_offset_checkpoint;

/// Reads the offset checkpoint `name` in directory `dir`, keyed `topic-partition`.
pub fn offset_checkpoint_in(dir: &Path, name: &str) -> Result<BTreeMap<String, i64>, LogDirError> {
    let path = dir.join(name);
    if !path.exists() {
        return Ok(BTreeMap::new());
    }
    let bytes = read_small(&path, 64 << 20)?;
    let entries = parse_offset_checkpoint(&String::from_utf8_lossy(&bytes))
        .map_err(|e| LogDirError::format(&path, e))?;
    Ok(entries
        .into_iter()
        .map(|e| (format!("{}-{}", e.topic, e.partition), e.offset))
        .collect())
}
