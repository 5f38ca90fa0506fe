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
    file: File,
    map: Option<Mmap>,
    cold_pages: Option<Vec<bool>>,
}

const PAGE: usize = 4096;

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
        let cold_pages = match (&map, policy) {
            (Some(map), CachePolicy::Restore) => {
                resident_pages(map).map(|r| r.into_iter().map(|hot| !hot).collect())
            }
            _ => None,
        };
        Ok(Self {
            path: path.to_path_buf(),
            file,
            map,
            cold_pages,
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

fn resident_pages(map: &Mmap) -> Option<Vec<bool>> {
    let pages = map.len().div_ceil(PAGE);
    let mut vec = vec![0u8; pages];
    // SAFETY: `vec` has one byte per page of the mapping, as mincore requires.
    let rc = unsafe {
        libc::mincore(
            map.as_ptr() as *mut libc::c_void,
            map.len(),
            vec.as_mut_ptr(),
        )
    };
    (rc == 0).then(|| vec.into_iter().map(|b| b & 1 == 1).collect())
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        let Some(cold) = self.cold_pages.take() else {
            return;
        };
        use std::os::fd::AsRawFd;
        let fd = self.file.as_raw_fd();
        let mut page = 0;
        while page < cold.len() {
            if !cold.get(page).copied().unwrap_or(false) {
                page += 1;
                continue;
            }
            let start = page;
            while cold.get(page).copied().unwrap_or(false) {
                page += 1;
            }
            // SAFETY: plain advisory syscall on an open descriptor.
            unsafe {
                libc::posix_fadvise(
                    fd,
                    (start * PAGE) as i64,
                    ((page - start) * PAGE) as i64,
                    libc::POSIX_FADV_DONTNEED,
                );
            }
        }
    }
}

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
