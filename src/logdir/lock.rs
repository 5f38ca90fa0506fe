//! The broker's log-dir lock: `<log dir>/.lock`. Kafka takes it with Java's
//! `FileChannel.tryLock`, which on Linux is a POSIX record lock (`fcntl`),
//! not `flock`; the two kinds do not see each other, so kseg asks about both.
//! Asking is read-only for the POSIX lock (`F_GETLK` takes nothing), so a
//! broker starting at the same moment is never refused because of kseg.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Who holds a log dir's `.lock`, as far as the kernel tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockHolder {
    /// A POSIX record lock, as a Kafka broker holds it; the pid is absent
    /// when the holder is in another PID namespace or holds an
    /// open-file-description lock.
    RecordLock(Option<u32>),
    /// An exclusive `flock`.
    Flock,
}

impl std::fmt::Display for LockHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::RecordLock(Some(pid)) => write!(f, "process {pid} (a Kafka broker?)"),
            Self::RecordLock(None) => f.write_str("a running process (a Kafka broker?)"),
            Self::Flock => f.write_str("a running process (flock)"),
        }
    }
}

/// Who holds `<log_dir>/.lock`; `None` when nobody does or there is no
/// such file.
pub fn lock_holder(log_dir: &Path) -> io::Result<Option<LockHolder>> {
    let Ok(file) = File::open(log_dir.join(".lock")) else {
        return Ok(None);
    };
    if let Some(holder) = record_lock_holder(&file)? {
        return Ok(Some(holder));
    }
    Ok((!try_flock(&file)?).then_some(LockHolder::Flock))
}

/// Takes an exclusive `flock` on `file` without waiting (held until it
/// closes); false when another open file holds one.
pub fn try_flock(file: &File) -> io::Result<bool> {
    // SAFETY: flock on a descriptor the caller owns.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
        return Ok(false);
    }
    Err(err)
}

/// The holder of a POSIX lock on any part of `file` that conflicts with a
/// write lock; locks of this process never conflict and are not reported.
pub fn record_lock_holder(file: &File) -> io::Result<Option<LockHolder>> {
    // SAFETY: `flock` is a plain C struct; all-zero is a valid value.
    let mut query: libc::flock = unsafe { std::mem::zeroed() };
    query.l_type = libc::F_WRLCK as libc::c_short;
    query.l_whence = libc::SEEK_SET as libc::c_short;
    // l_start 0 and l_len 0: the whole file, however long it grows.
    // SAFETY: F_GETLK reads and writes the `flock` struct we pass.
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &mut query) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    if query.l_type == libc::F_UNLCK as libc::c_short {
        return Ok(None);
    }
    Ok(Some(LockHolder::RecordLock(
        u32::try_from(query.l_pid).ok().filter(|&pid| pid > 0),
    )))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn no_lock_file_means_unlocked() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(lock_holder(dir.path()).unwrap(), None);
        std::fs::write(dir.path().join(".lock"), b"").unwrap();
        assert_eq!(lock_holder(dir.path()).unwrap(), None);
    }
}
