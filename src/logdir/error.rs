//! Errors that name the file: an I/O failure or a format error in it.

use std::path::{Path, PathBuf};

use crate::format::FormatError;

/// A failure tied to one path. Its message is the whole story (`path:
/// what went wrong`); it chains no source, so an error report that prints
/// every cause says each clause once.
#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", path.display())]
pub struct LogDirError {
    /// The file or directory.
    pub path: PathBuf,
    /// What went wrong.
    pub kind: LogDirErrorKind,
}

/// What went wrong with the path.
#[derive(Debug, thiserror::Error)]
pub enum LogDirErrorKind {
    /// The path does not exist.
    #[error("does not exist")]
    Missing,
    /// The operating system refused.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The bytes do not parse.
    #[error("{0}")]
    Format(#[from] FormatError),
    /// The path is not what the command needs.
    #[error("{0}")]
    NotUnderstood(String),
}

impl LogDirError {
    /// An I/O error on `path` (one saying the path does not exist
    /// becomes [`LogDirErrorKind::Missing`]).
    pub fn io(path: &Path, err: std::io::Error) -> Self {
        Self {
            path: path.to_path_buf(),
            kind: if err.kind() == std::io::ErrorKind::NotFound {
                LogDirErrorKind::Missing
            } else {
                LogDirErrorKind::Io(err)
            },
        }
    }

    /// A format error in `path`.
    pub fn format(path: &Path, err: FormatError) -> Self {
        Self {
            path: path.to_path_buf(),
            kind: LogDirErrorKind::Format(err),
        }
    }

    /// A path that is not a segment, partition or log dir.
    pub fn not_understood(path: &Path, why: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            kind: LogDirErrorKind::NotUnderstood(why.into()),
        }
    }
}
