//! What a PATH argument names: one segment, a partition directory, or a log
//! dir of partitions.

use std::path::{Path, PathBuf};

use super::error::LogDirError;
use super::file_name::{FileKind, classify, classify_by_suffix, parse_base_offset};
use super::file_type::special_kind_of;
use super::log_dir::LogDir;
use super::partition::Partition;

/// A partition and, when the PATH named one segment, that segment's base.
#[derive(Debug, Clone)]
pub struct Target {
    /// The partition.
    pub partition: Partition,
    /// Only this segment, if the PATH was a `.log`.
    pub only_segment: Option<i64>,
}

impl Target {
    /// The log dir holding the partition (its parent directory).
    pub fn log_dir(&self) -> PathBuf {
        self.partition.log_dir()
    }

    /// The segments selected.
    pub fn segments(&self) -> impl Iterator<Item = &super::segment::Segment> {
        self.partition
            .segments
            .iter()
            .filter(move |s| self.only_segment.is_none_or(|b| b == s.base_offset))
    }
}

/// A partition directory not opened yet (a log dir of thousands of
/// partitions is listed as these, each opened when its turn comes), and the
/// segment the PATH named.
#[derive(Debug, Clone)]
pub struct PendingTarget {
    /// The partition directory.
    pub dir: PathBuf,
    /// Only this segment, if the PATH was a `.log`.
    pub only_segment: Option<i64>,
}

impl PendingTarget {
    /// Lists the partition directory.
    pub fn open(&self) -> Result<Target, LogDirError> {
        Ok(Target {
            partition: Partition::open(&self.dir)?,
            only_segment: self.only_segment,
        })
    }

    /// The log dir holding the partition (its parent directory).
    pub fn log_dir(&self) -> PathBuf {
        match self.dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }
}

/// Resolves PATH into targets.
pub fn resolve(path: &Path) -> Result<Vec<Target>, LogDirError> {
    resolve_pending(path)?
        .iter()
        .map(PendingTarget::open)
        .collect()
}

/// Resolves PATH into partition directories to open one by one.
pub fn resolve_pending(path: &Path) -> Result<Vec<PendingTarget>, LogDirError> {
    if let Some(kind) = special_kind_of(path) {
        return Err(LogDirError::not_understood(
            path,
            format!(
                "is {kind}: not a regular file; expected a .log segment, a partition directory or a log dir"
            ),
        ));
    }
    if path.is_file() {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if classify(&name) != FileKind::Log {
            let why = if classify_by_suffix(&name) == FileKind::Log {
                "a .log whose name carries no base offset: this command reads a segment in its partition, named <20-digit base offset>.log; give the partition directory, or `kseg dump` this copy"
            } else {
                "expected a .log segment, a partition directory or a log dir"
            };
            return Err(LogDirError::not_understood(path, why));
        }
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        return Ok(vec![PendingTarget {
            dir: dir.to_path_buf(),
            only_segment: parse_base_offset(&name),
        }]);
    }
    if !path.is_dir() {
        return Err(LogDirError::io(
            path,
            std::io::Error::from(std::io::ErrorKind::NotFound),
        ));
    }
    if Partition::looks_like(path) {
        return Ok(vec![PendingTarget {
            dir: path.to_path_buf(),
            only_segment: None,
        }]);
    }
    if LogDir::looks_like(path) {
        return Ok(LogDir::partition_dirs(path)?
            .into_iter()
            .map(|dir| PendingTarget {
                dir,
                only_segment: None,
            })
            .collect());
    }
    Err(LogDirError::not_understood(
        path,
        "no .log segments here or in its subdirectories",
    ))
}
