//! Holding the log dir's `.lock` while kseg writes, the way a broker holds
//! it (see [`crate::logdir::lock`]): kseg refuses to start while a broker
//! holds it, and a broker that starts while kseg writes fails to take it
//! and stops instead of loading files kseg is changing.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use crate::logdir::lock::{LockHolder, record_lock_holder, try_flock};

/// `<log dir>/.lock`, held until dropped. A POSIX record lock is released
/// when the process closes any descriptor of the file, so nothing else in
/// kseg opens `.lock` while one is held.
#[derive(Debug)]
pub struct LogDirLock {
    _file: File,
}

impl LogDirLock {
    /// Takes `<log_dir>/.lock` (created if missing, as the broker does), or
    /// fails naming who holds it.
    pub fn acquire(log_dir: &Path) -> io::Result<Self> {
        let path = log_dir.join(".lock");
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        // SAFETY: a zeroed C struct is a valid `flock`.
        let mut request: libc::flock = unsafe { std::mem::zeroed() };
        request.l_type = libc::F_WRLCK as libc::c_short;
        request.l_whence = libc::SEEK_SET as libc::c_short;
        // SAFETY: F_SETLK reads the struct we pass, on a descriptor we own.
        if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &request) } != 0 {
            let err = io::Error::last_os_error();
            if !matches!(err.raw_os_error(), Some(libc::EAGAIN | libc::EACCES)) {
                return Err(err);
            }
            let holder = record_lock_holder(&file)?.unwrap_or(LockHolder::RecordLock(None));
            return Err(locked(&path, holder));
        }
        if !try_flock(&file)? {
            return Err(locked(&path, LockHolder::Flock));
        }
        Ok(Self { _file: file })
    }
}

fn locked(path: &Path, holder: LockHolder) -> io::Error {
    io::Error::new(
        io::ErrorKind::WouldBlock,
        format!(
            "{} is locked by {holder}; stop the broker first, or pass --ignore-lock if you are sure nothing writes here",
            path.display()
        ),
    )
}

/// Takes the `.lock` of every distinct log dir among `log_dirs`, each once.
pub fn lock_log_dirs(log_dirs: &[PathBuf]) -> io::Result<Vec<LogDirLock>> {
    let mut dirs = log_dirs
        .iter()
        .map(|d| d.canonicalize())
        .collect::<io::Result<Vec<_>>>()?;
    dirs.sort();
    dirs.dedup();
    dirs.iter().map(|d| LogDirLock::acquire(d)).collect()
}
