//! Errors of the writing commands, each naming the step and the path, so
//! that a failed write never reads as a bare `os error N`.

use std::io;
use std::path::{Path, PathBuf};

use crate::logdir::LogDirError;
use crate::logdir::lock::LockHolder;

/// Why a writing command stopped.
#[derive(Debug, thiserror::Error)]
pub enum RepairError {
    /// An operating-system call failed at one step, on one path.
    #[error("{step} {}: {cause}", path.display())]
    Io {
        /// What kseg was doing ("creating the backup directory", "renaming", …).
        step: &'static str,
        /// The file or directory it was doing it to.
        path: PathBuf,
        /// What the operating system said.
        cause: io::Error,
    },
    /// Another process holds a log dir's `.lock`.
    #[error("{} is locked by {holder}; stop the broker first, or pass --ignore-lock if you are sure nothing writes here", path.display())]
    Locked {
        /// The `.lock` file.
        path: PathBuf,
        /// Who holds it.
        holder: LockHolder,
    },
    /// A file could not be read or parsed while planning a write.
    #[error(transparent)]
    LogDir(#[from] LogDirError),
    /// kseg will not carry the change out, and says why.
    #[error("{0}")]
    Refused(String),
}

/// Attaches a step and a path to an I/O result.
pub trait AtStep<T> {
    /// The error, if any, as a [`RepairError::Io`] at `step` on `path`.
    fn at(self, step: &'static str, path: &Path) -> Result<T, RepairError>;
}

impl<T> AtStep<T> for io::Result<T> {
    fn at(self, step: &'static str, path: &Path) -> Result<T, RepairError> {
        self.map_err(|cause| RepairError::Io {
            step,
            path: path.to_path_buf(),
            cause,
        })
    }
}
