//! The broker's log-dir lock: `<log dir>/.lock`, held with flock while the
//! broker runs.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Fails when a process holds an exclusive lock on `<log_dir>/.lock`.
pub fn ensure_unlocked(log_dir: &Path) -> io::Result<()> {
    let path = log_dir.join(".lock");
    let Ok(file) = File::open(&path) else {
        return Ok(());
    };
    // SAFETY: flock on a descriptor we own; released when `file` closes.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(());
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
        return Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            format!(
                "{} is locked by a running process (a Kafka broker?); stop it first, or pass --ignore-lock if you are sure nothing writes here",
                path.display()
            ),
        ));
    }
    Err(err)
}
