//! The broker-level offset checkpoint files of a log dir
//! (`recovery-point-offset-checkpoint`, `log-start-offset-checkpoint`,
//! `replication-offset-checkpoint`, `cleaner-offset-checkpoint`), read into
//! a map by partition.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::error::LogDirError;
use super::mapped::read_small;
use crate::format::checkpoint::{offset_checkpoint_lines, parse_offset_checkpoint};

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

/// A checkpoint file's entries, compact: every `topic-partition` key in one
/// string, and (key start, key length, offset) sorted by key, so a log dir
/// of thousands of partitions costs no allocation per entry.
#[derive(Debug, Default)]
struct Entries {
    keys: String,
    sorted: Vec<(u32, u32, i64)>,
}

impl Entries {
    fn key(&self, &(start, len, _): &(u32, u32, i64)) -> &str {
        self.keys
            .get(start as usize..start as usize + len as usize)
            .unwrap_or_default()
    }

    fn get(&self, partition: &str) -> Option<i64> {
        self.sorted
            .binary_search_by(|e| self.key(e).cmp(partition))
            .ok()
            .and_then(|i| self.sorted.get(i))
            .map(|e| e.2)
    }

    /// Reads the checkpoint `name` in `dir` (absent: no entries); where a
    /// partition is named twice the later entry counts, as in
    /// [`offset_checkpoint_in`].
    fn read(dir: &Path, name: &str) -> Result<Self, LogDirError> {
        use std::fmt::Write;
        let path = dir.join(name);
        if !path.exists() {
            return Ok(Self::default());
        }
        let bytes = read_small(&path, 64 << 20)?;
        let text = String::from_utf8_lossy(&bytes);
        let mut entries = Self::default();
        let too_big = || LogDirError::not_understood(&path, "too large for a checkpoint");
        for line in offset_checkpoint_lines(&text).map_err(|e| LogDirError::format(&path, e))? {
            let e = line.map_err(|e| LogDirError::format(&path, e))?;
            let start = entries.keys.len();
            let _ = write!(entries.keys, "{}-{}", e.topic, e.partition);
            let len = entries.keys.len() - start;
            entries.sorted.push((
                u32::try_from(start).map_err(|_| too_big())?,
                u32::try_from(len).map_err(|_| too_big())?,
                e.offset,
            ));
        }
        drop(text);
        drop(bytes);
        let mut sorted = std::mem::take(&mut entries.sorted);
        // A key's later entries start later in `keys`: sorted latest first
        // within a key, the dedup keeps the latest.
        sorted.sort_unstable_by(|a, b| {
            entries
                .key(a)
                .cmp(entries.key(b))
                .then_with(|| b.0.cmp(&a.0))
        });
        sorted.dedup_by(|later, kept| entries.key(later) == entries.key(kept));
        sorted.shrink_to_fit();
        entries.keys.shrink_to_fit();
        entries.sorted = sorted;
        Ok(entries)
    }
}

/// A checkpoint file as last read: what identified its content, and its
/// entries.
struct Cached {
    path: std::path::PathBuf,
    stamp: Option<(u64, std::time::SystemTime, u64)>,
    entries: Arc<Entries>,
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
/// `dir`. The file is parsed once (by one thread; others wait) and kept
/// while its size, modification time and inode stay the same, so asking for
/// each of a log dir's thousands of partitions costs a `stat`, not a parse
/// of the whole file.
pub fn checkpointed_offset_in(
    dir: &Path,
    name: &str,
    partition: &str,
) -> Result<Option<i64>, LogDirError> {
    let path = dir.join(name);
    let now = stamp(&path)?;
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = cache.iter().find(|c| c.path == path && c.stamp == now) {
        return Ok(c.entries.get(partition));
    }
    let entries = Arc::new(Entries::read(dir, name)?);
    cache.retain(|c| c.path != path);
    if cache.len() >= CACHED_FILES {
        cache.remove(0);
    }
    cache.push(Cached {
        path,
        stamp: now,
        entries: Arc::clone(&entries),
    });
    Ok(entries.get(partition))
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
        // Named twice: the later entry counts, as in the map.
        std::fs::write(dir.path().join(name), "0\n3\na 0 1\nb 0 2\na 0 3\n").unwrap();
        assert_eq!((at("a-0"), at("b-0")), (Some(3), Some(2)));
        assert_eq!(offset_checkpoint_in(dir.path(), name).unwrap()["a-0"], 3);
    }
}
