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
        let cache = match policy {
            CachePolicy::Restore => Some(PageCacheGuard::open(path)?),
            CachePolicy::Keep => None,
        };
        Self::with_guard(path, cache)
    }

    /// Maps `path` read-only for a read of its first `len` bytes only, and
    /// restores the page cache of those ([`PageCacheGuard::open_prefix`]).
    /// Nothing past them is read ahead (`MADV_RANDOM` on the mapping), so
    /// that the pages the read brings in all lie where the guard looks; the
    /// prefix itself is asked for ahead (`MADV_WILLNEED`, 128 KiB a call,
    /// since the kernel reads at most its readahead window a call), up to
    /// 4 MiB; past that only the pages read are read.
    pub fn open_restoring_prefix(path: &Path, len: u64) -> Result<Self, LogDirError> {
        let mapped = Self::with_guard(path, Some(PageCacheGuard::open_prefix(path, len)?))?;
        if let Some(map) = &mapped.map {
            // Advisory, both: without them the same bytes are read, with
            // more of them read ahead, or a page a fault.
            let _ = map.advise(memmap2::Advice::Random);
            let prefix = usize::try_from(len)
                .unwrap_or(usize::MAX)
                .min(map.len())
                .min(WILLNEED_LIMIT);
            for from in (0..prefix).step_by(WILLNEED_STEP) {
                let step = WILLNEED_STEP.min(prefix - from);
                let _ = map.advise_range(memmap2::Advice::WillNeed, from, step);
            }
        }
        Ok(mapped)
    }

    fn with_guard(path: &Path, cache: Option<PageCacheGuard>) -> Result<Self, LogDirError> {
        let file = File::open(path).map_err(|e| LogDirError::io(path, e))?;
        let len = file.metadata().map_err(|e| LogDirError::io(path, e))?.len();
        let map = if len == 0 {
            None
        } else {
            // SAFETY: the map is read-only; a concurrent truncation raises
            // SIGBUS, which the binary reports as an error (see module docs).
            Some(unsafe { Mmap::map(&file) }.map_err(|e| LogDirError::io(path, e))?)
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

impl AsRef<[u8]> for MappedFile {
    fn as_ref(&self) -> &[u8] {
        self.bytes()
    }
}

/// How much of a prefix one `MADV_WILLNEED` asks for: the kernel's default
/// readahead window (`read_ahead_kb`), the most it reads a call unless the
/// device allows more.
const WILLNEED_STEP: usize = 128 << 10;

/// How much of a prefix `MappedFile::open_restoring_prefix` asks for
/// ahead: a read of headers only touches a page every batch, so the pages
/// between them are worth reading ahead only while batches are small.
const WILLNEED_LIMIT: usize = 4 << 20;

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
