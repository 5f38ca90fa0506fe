//! Refusing to write while a broker runs: see [`crate::logdir::lock`] for
//! how the broker's lock is found.

use std::io;
use std::path::Path;

use crate::logdir::lock::lock_holder;

/// Fails when any process holds `<log_dir>/.lock`.
pub fn ensure_unlocked(log_dir: &Path) -> io::Result<()> {
    match lock_holder(log_dir)? {
        None => Ok(()),
        Some(holder) => Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            format!(
                "{} is locked by {holder}; stop the broker first, or pass --ignore-lock if you are sure nothing writes here",
                log_dir.join(".lock").display()
            ),
        )),
    }
}
