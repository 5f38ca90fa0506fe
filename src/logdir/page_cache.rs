//! Leaving the page cache as kseg found it. [`PageCacheGuard`] notes which
//! pages of a file were cached before kseg read it and, when dropped, drops
//! the others again (`posix_fadvise(DONTNEED)`), so reading on a live broker
//! does not evict the data its consumers read.
//!
//! Noting costs a walk of the file's page-cache entries, so it is done as
//! cheaply as the kernel allows: one `cachestat` call (Linux 6.5+) answers
//! "all cached" or "none cached" outright; only a partly cached file is
//! looked at page by page with `mincore`, which is also the fallback on
//! older kernels.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

use memmap2::MmapOptions;

use super::error::LogDirError;

/// Which pages kseg will drop again.
#[derive(Debug)]
enum Cold {
    /// The file was wholly cached (or is empty): nothing to drop.
    None,
    /// Nothing of the file was cached: drop it all.
    All,
    /// Per page, whether it was absent.
    Pages(Vec<bool>),
}

/// A file's page-cache residency when it was opened (the whole file, or
/// the first bytes of it that will be read); restores it on drop.
#[derive(Debug)]
pub struct PageCacheGuard {
    file: File,
    /// Bytes from the start of the file that were noted.
    noted: u64,
    cold: Cold,
}

impl PageCacheGuard {
    /// Notes which pages of `path` are cached now.
    pub fn open(path: &Path) -> Result<Self, LogDirError> {
        Self::open_prefix(path, u64::MAX)
    }

    /// Notes which of the pages holding the first `len` bytes of `path` are
    /// cached now, and restores only those: for a read that stays in them,
    /// this costs what they cost, not what the file does.
    pub fn open_prefix(path: &Path, len: u64) -> Result<Self, LogDirError> {
        let io = |e| LogDirError::io(path, e);
        let file = File::open(path).map_err(io)?;
        let noted = file.metadata().map_err(io)?.len().min(len);
        let pages = noted.div_ceil(page_size());
        let cold = match cached_pages(&file, noted) {
            _ if pages == 0 => Cold::None,
            Some(cached) if cached >= pages => Cold::None,
            Some(0) => Cold::All,
            _ => resident_pages(&file, noted)
                .map_err(io)?
                .map_or(Cold::None, |resident| {
                    Cold::Pages(resident.into_iter().map(|hot| !hot).collect())
                }),
        };
        Ok(Self { file, noted, cold })
    }
}

impl Drop for PageCacheGuard {
    fn drop(&mut self) {
        let page = page_size();
        match &self.cold {
            Cold::None => {}
            Cold::All => self.drop_range(0, self.noted.next_multiple_of(page)),
            Cold::Pages(cold) => {
                let mut i = 0;
                while i < cold.len() {
                    let start = i;
                    let value = cold.get(i).copied().unwrap_or(false);
                    while cold.get(i).copied() == Some(value) {
                        i += 1;
                    }
                    if value {
                        self.drop_range(start as u64 * page, (i - start) as u64 * page);
                    }
                }
            }
        }
    }
}

impl PageCacheGuard {
    /// Evicts `len` bytes from `start`.
    fn drop_range(&self, start: u64, len: u64) {
        // SAFETY: a plain advisory syscall on a descriptor we own.
        unsafe {
            libc::posix_fadvise(
                self.file.as_raw_fd(),
                start as libc::off_t,
                len as libc::off_t,
                libc::POSIX_FADV_DONTNEED,
            );
        }
    }
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).ok().filter(|&s| s > 0).unwrap_or(4096)
}

/// How many of the pages holding the file's first `len` bytes are cached,
/// from one `cachestat` call; `None` where the kernel (or a seccomp filter)
/// does not offer it.
fn cached_pages(file: &File, len: u64) -> Option<u64> {
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    {
        /// `cachestat`'s number in the generic syscall table.
        const SYS_CACHESTAT: libc::c_long = 451;
        #[repr(C)]
        struct Range {
            off: u64,
            len: u64,
        }
        #[repr(C)]
        #[derive(Default)]
        struct Stat {
            nr_cache: u64,
            nr_dirty: u64,
            nr_writeback: u64,
            nr_evicted: u64,
            nr_recently_evicted: u64,
        }
        let range = Range { off: 0, len };
        let mut stat = Stat::default();
        // SAFETY: cachestat reads `range` and writes `stat`, both live
        // #[repr(C)] values laid out as the kernel's structs; flags must be 0.
        let rc = unsafe {
            libc::syscall(
                SYS_CACHESTAT,
                file.as_raw_fd(),
                &range as *const Range,
                &mut stat as *mut Stat,
                0 as libc::c_uint,
            )
        };
        (rc == 0).then_some(stat.nr_cache)
    }
    #[cfg(not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )))]
    {
        let _ = (file, len);
        None
    }
}

/// Per page holding the file's first `len` bytes (not 0, not past its end),
/// whether it is cached (`mincore` on a mapping that is never touched, so
/// mapping it faults nothing in).
fn resident_pages(file: &File, len: u64) -> std::io::Result<Option<Vec<bool>>> {
    let len =
        usize::try_from(len).map_err(|_| std::io::Error::from(std::io::ErrorKind::FileTooLarge))?;
    // SAFETY: the map is read-only and never read; it exists for mincore.
    let map = unsafe { MmapOptions::new().len(len).map(file) }?;
    let pages = (map.len() as u64).div_ceil(page_size()) as usize;
    let mut vec = vec![0u8; pages];
    // SAFETY: `vec` has one byte per page of the mapping, as mincore requires.
    let rc = unsafe {
        libc::mincore(
            map.as_ptr() as *mut libc::c_void,
            map.len(),
            vec.as_mut_ptr(),
        )
    };
    Ok((rc == 0).then(|| vec.into_iter().map(|b| b & 1 == 1).collect()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn cached(path: &Path) -> Vec<bool> {
        let file = File::open(path).unwrap();
        let len = file.metadata().unwrap().len();
        resident_pages(&file, len).unwrap().unwrap()
    }

    fn read_range(path: &Path, start: u64, len: usize) {
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0u8; len];
        File::open(path)
            .unwrap()
            .read_exact_at(&mut buf, start)
            .unwrap();
    }

    /// Writes a 64-page file beside the build (not on tmpfs, which cannot
    /// evict) and evicts it.
    fn cold_file() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let path = dir.path().join("seg.log");
        std::fs::write(&path, vec![7u8; 64 * page_size() as usize]).unwrap();
        let file = File::open(&path).unwrap();
        file.sync_all().unwrap();
        drop(PageCacheGuard {
            file,
            noted: 64 * page_size(),
            cold: Cold::All,
        });
        assert!(
            cached(&path).iter().all(|c| !c),
            "{}: this file system keeps pages it is asked to drop",
            path.display()
        );
        (dir, path)
    }

    #[test]
    fn drops_exactly_the_pages_that_were_not_cached() {
        let (_dir, path) = cold_file();
        let page = page_size();
        // Pages 8..16 are cached before kseg reads; the rest are not.
        read_range(&path, 8 * page, 8 * page as usize);
        let guard = PageCacheGuard::open(&path).unwrap();
        assert!(matches!(guard.cold, Cold::Pages(_)), "{:?}", guard.cold);
        read_range(&path, 0, 64 * page as usize);
        assert!(cached(&path).iter().all(|&c| c));
        drop(guard);
        let after = cached(&path);
        let expected: Vec<bool> = (0..64).map(|i| (8..16).contains(&i)).collect();
        assert_eq!(after, expected);
    }

    #[test]
    fn a_guard_on_a_prefix_notes_and_drops_only_the_prefix() {
        let (_dir, path) = cold_file();
        let page = page_size();
        // Page 2 is cached before kseg reads; the rest are not.
        read_range(&path, 2 * page, page as usize);
        let len = 16 * page - 5;
        let before = cached(&path);
        assert!(!before[0] && before[2], "{before:?}");
        let guard = PageCacheGuard::open_prefix(&path, len).unwrap();
        assert_eq!(guard.noted, len);
        read_range(&path, 0, 64 * page as usize);
        drop(guard);
        let after = cached(&path);
        assert_eq!(after[..16], before[..16], "the prefix is as it was");
        assert!(after[16..].iter().all(|&c| c), "past the prefix: {after:?}");
    }

    #[test]
    fn a_wholly_cached_file_stays_cached_and_a_cold_one_is_dropped() {
        let (_dir, path) = cold_file();
        let page = page_size() as usize;
        let guard = PageCacheGuard::open(&path).unwrap();
        assert!(matches!(guard.cold, Cold::All), "{:?}", guard.cold);
        read_range(&path, 0, 64 * page);
        drop(guard);
        assert!(cached(&path).iter().all(|&c| !c), "cold before, cold after");
        read_range(&path, 0, 64 * page);
        let guard = PageCacheGuard::open(&path).unwrap();
        assert!(matches!(guard.cold, Cold::None), "{:?}", guard.cold);
        read_range(&path, 0, 64 * page);
        drop(guard);
        assert!(
            cached(&path).iter().all(|&c| c),
            "cached before, cached after"
        );
    }
}
