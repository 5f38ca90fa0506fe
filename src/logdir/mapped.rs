//! The only place kseg maps files. Empty files get an empty slice. Reads of a
//! file that another process truncates while it is mapped raise SIGBUS; the
//! binary installs a handler that names the problem and exits with code 2.
//!
//! With [`CachePolicy::Restore`], pages that were not in the page cache when
//! the file was opened are dropped again (`posix_fadvise(DONTNEED)`) when the
//! mapping is dropped, so a read on a live broker does not evict the data its
//! consumers are reading.

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::error::LogDirError;
use super::page_cache::PageCacheGuard;

/// What to do with the page cache after reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CachePolicy {
    /// Leave pages kseg pulled in cached.
    #[default]
    Keep,
    /// Drop pages that were not cached before kseg read them.
    Restore,
}

/// A read-only memory map of a whole file.
#[derive(Debug)]
pub struct MappedFile {
    path: PathBuf,
    // Declared first, so unmapped before `_cache` evicts: the kernel keeps
    // pages that are still mapped.
    map: Option<Mmap>,
    _cache: Option<PageCacheGuard>,
}

impl MappedFile {
    /// Maps `path` read-only.
    pub fn open(path: &Path, policy: CachePolicy) -> Result<Self, LogDirError> {
        let file = File::open(path).map_err(|e| LogDirError::io(path, e))?;
        let len = file.metadata().map_err(|e| LogDirError::io(path, e))?.len();
        let map = if len == 0 {
            None
        } else {
            // SAFETY: the map is read-only; a concurrent truncation raises
            // SIGBUS, which the binary reports as an error (see module docs).
            Some(unsafe { Mmap::map(&file) }.map_err(|e| LogDirError::io(path, e))?)
        };
        let cache = match policy {
            CachePolicy::Restore => Some(PageCacheGuard::open(path)?),
            CachePolicy::Keep => None,
        };
        Ok(Self {
            path: path.to_path_buf(),
            map,
            _cache: cache,
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or_default()
    }

    /// The path it was opened with.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Index files are at most this big when read whole: a broker never writes
/// one larger (`segment.index.bytes` is an int).
pub const INDEX_READ_LIMIT: u64 = 1 << 31;

/// Reads a small file (index, checkpoint, snapshot) wholly into memory,
/// refusing anything over `limit` bytes.
pub fn read_small(path: &Path, limit: u64) -> Result<Vec<u8>, LogDirError> {
    let len = std::fs::metadata(path)
        .map_err(|e| LogDirError::io(path, e))?
        .len();
    if len > limit {
        return Err(LogDirError::not_understood(
            path,
            format!("file is {len} bytes, more than the {limit} expected for its kind"),
        ));
    }
    std::fs::read(path).map_err(|e| LogDirError::io(path, e))
}
