//! The broker-level offset checkpoint files of a log dir
//! (`recovery-point-offset-checkpoint`, `log-start-offset-checkpoint`,
//! `replication-offset-checkpoint`, `cleaner-offset-checkpoint`), read into
//! a map by partition.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

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

/// A checkpoint file as last read: what identified its content, and its
/// entries sorted by `topic-partition`.
struct Cached {
    path: std::path::PathBuf,
    stamp: Option<(u64, std::time::SystemTime, u64)>,
    entries: Arc<Vec<(Box<str>, i64)>>,
}

/// Checkpoint files kept parsed (a few log dirs times four names).
const CACHED_FILES: usize = 16;

static CACHE: Mutex<Vec<Cached>> = Mutex::new(Vec::new());

/// The file's size, modification time and inode, or `None` when absent.
fn stamp(path: &Path) -> Result<Option<(u64, std::time::SystemTime, u64)>, LogDirError> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => Ok(Some((
            m.len(),
            m.modified().map_err(|e| LogDirError::io(path, e))?,
            m.ino(),
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(LogDirError::io(path, e)),
    }
}

/// The offset `partition` (`topic-partition`) has in checkpoint `name` of
/// `dir`. The file is parsed once and kept while its size, modification
/// time and inode stay the same, so asking for each of a log dir's
/// thousands of partitions costs a `stat`, not a parse of the whole file.
pub fn checkpointed_offset_in(
    dir: &Path,
    name: &str,
    partition: &str,
) -> Result<Option<i64>, LogDirError> {
    let path = dir.join(name);
    let now = stamp(&path)?;
    let entries = {
        let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .iter()
            .find(|c| c.path == path && c.stamp == now)
            .map(|c| Arc::clone(&c.entries))
    };
    let entries = match entries {
        Some(e) => e,
        None => {
            let mut sorted: Vec<(Box<str>, i64)> = offset_checkpoint_in(dir, name)?
                .into_iter()
                .map(|(k, v)| (k.into_boxed_str(), v))
                .collect();
            sorted.shrink_to_fit();
            let entries = Arc::new(sorted);
            let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
            cache.retain(|c| c.path != path);
            if cache.len() >= CACHED_FILES {
                cache.remove(0);
            }
            cache.push(Cached {
                path,
                stamp: now,
                entries: Arc::clone(&entries),
            });
            entries
        }
    };
    Ok(entries
        .binary_search_by(|(k, _)| (**k).cmp(partition))
        .ok()
        .and_then(|i| entries.get(i))
        .map(|(_, v)| *v))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rewritten checkpoint is read again; an absent one has no entries.
    #[test]
    fn a_changed_checkpoint_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let name = "recovery-point-offset-checkpoint";
        let at = |p| checkpointed_offset_in(dir.path(), name, p).unwrap();
        assert_eq!(at("a-0"), None);
        std::fs::write(dir.path().join(name), "0\n2\na 0 5\nb 1 7\n").unwrap();
        assert_eq!((at("a-0"), at("b-1"), at("b-0")), (Some(5), Some(7), None));
        // Written as Kafka does: a new file renamed over the old one.
        let tmp = dir.path().join(format!("{name}.tmp"));
        std::fs::write(&tmp, "0\n1\na 0 9\n").unwrap();
        std::fs::rename(&tmp, dir.path().join(name)).unwrap();
        assert_eq!((at("a-0"), at("b-1")), (Some(9), None));
        std::fs::remove_file(dir.path().join(name)).unwrap();
        assert_eq!(at("a-0"), None);
    }
}
