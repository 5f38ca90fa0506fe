//! Holding the log dir's `.lock` while kseg writes, the way a broker holds
//! it (see [`crate::logdir::lock`]): kseg refuses to start while a broker
//! holds it, and a broker that starts while kseg writes fails to take it
//! and stops instead of loading files kseg is changing.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::error::{AtStep, RepairError};
use super::ownership::FileOwner;
use crate::logdir::lock::{LockHolder, record_lock_holder, try_flock};

/// `<log dir>/.lock`, held until dropped. A POSIX record lock is released
/// when the process closes any descriptor of the file, so nothing else in
/// kseg opens `.lock` while one is held.
#[derive(Debug)]
pub struct LogDirLock {
    _file: File,
}

impl LogDirLock {
    /// Takes `<log_dir>/.lock` (created if missing, as the broker does,
    /// with the owner and mode of the log dir's other files), or
    /// fails naming who holds it.
    pub fn acquire(log_dir: &Path) -> Result<Self, RepairError> {
        let path = log_dir.join(".lock");
        let existed = path.exists();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .at("opening the log dir's lock file", &path)?;
        if !existed {
            // The broker opens `.lock` for writing as its own user.
            if let Err(cause) = FileOwner::for_new_file_in(log_dir).and_then(|o| o.apply(&file)) {
                let _ = std::fs::remove_file(&path);
                return Err(cause).at(
                    "giving the new lock file the owner and mode of the log dir's files",
                    &path,
                );
            }
        }
        // SAFETY: a zeroed C struct is a valid `flock`.
        let mut request: libc::flock = unsafe { std::mem::zeroed() };
        request.l_type = libc::F_WRLCK as libc::c_short;
        request.l_whence = libc::SEEK_SET as libc::c_short;
        // SAFETY: F_SETLK reads the struct we pass, on a descriptor we own.
        if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &request) } != 0 {
            let err = std::io::Error::last_os_error();
            if !matches!(err.raw_os_error(), Some(libc::EAGAIN | libc::EACCES)) {
                return Err(err).at("locking", &path);
            }
            let holder = record_lock_holder(&file)
                .at("asking who holds the lock on", &path)?
                .unwrap_or(LockHolder::RecordLock(None));
            return Err(RepairError::Locked { path, holder });
        }
        if !try_flock(&file).at("locking (flock)", &path)? {
            return Err(RepairError::Locked {
                path,
                holder: LockHolder::Flock,
            });
        }
        Ok(Self { _file: file })
    }
}

/// Takes the `.lock` of every distinct log dir among `log_dirs`, each once.
pub fn lock_log_dirs(log_dirs: &[PathBuf]) -> Result<Vec<LogDirLock>, RepairError> {
    let mut dirs = log_dirs
        .iter()
        .map(|d| d.canonicalize().at("resolving log dir", d))
        .collect::<Result<Vec<_>, _>>()?;
    dirs.sort();
    dirs.dedup();
    dirs.iter().map(|d| LogDirLock::acquire(d)).collect()
}
