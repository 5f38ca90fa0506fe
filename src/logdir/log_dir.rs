//! A broker log dir: partition directories plus the broker-level files
//! (checkpoints, `.kafka_cleanshutdown`, `.lock`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::checkpoint_file::offset_checkpoint_in;
use super::error::LogDirError;
use super::partition::Partition;

/// The partitions of a log dir and its broker-level state.
#[derive(Debug, Clone)]
pub struct LogDir {
    /// The directory.
    pub path: PathBuf,
    /// Partition directories, sorted by name.
    pub partitions: Vec<Partition>,
    /// Whether `.kafka_cleanshutdown` exists.
    pub clean_shutdown: bool,
    /// Partition directories renamed `…-delete` (a deleted topic or a moved
    /// replica), which the broker removes in the background.
    pub marked_for_deletion: Vec<PathBuf>,
}

impl LogDir {
    /// Lists the partition directories directly under `path`.
    pub fn open(path: &Path) -> Result<Self, LogDirError> {
        let (dirs, marked_for_deletion) = Self::list(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            partitions: dirs
                .iter()
                .map(|d| Partition::open(d))
                .collect::<Result<_, _>>()?,
            clean_shutdown: path.join(".kafka_cleanshutdown").exists(),
            marked_for_deletion,
        })
    }

    /// The partition directories directly under `path`, sorted by name,
    /// not opened.
    pub fn partition_dirs(path: &Path) -> Result<Vec<PathBuf>, LogDirError> {
        Ok(Self::list(path)?.0)
    }

    /// The partition directories under `path` renamed `…-delete`, not
    /// opened.
    pub fn marked_dirs(path: &Path) -> Result<Vec<PathBuf>, LogDirError> {
        Ok(Self::list(path)?.1)
    }

    /// Partition directories and those marked for deletion.
    fn list(path: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), LogDirError> {
        let mut partitions = Vec::new();
        let mut marked_for_deletion = Vec::new();
        for entry in walkdir::WalkDir::new(path)
            .min_depth(1)
            .max_depth(1)
            .sort_by_file_name()
        {
            let entry = entry.map_err(|e| LogDirError::io(path, e.into()))?;
            if !entry.file_type().is_dir() {
                continue;
            }
            if entry.file_name().to_string_lossy().ends_with("-delete") {
                marked_for_deletion.push(entry.path().to_path_buf());
            } else if Partition::looks_like(entry.path()) {
                partitions.push(entry.into_path());
            }
        }
        Ok((partitions, marked_for_deletion))
    }

    /// Whether `path` holds partition directories.
    pub fn looks_like(path: &Path) -> bool {
        std::fs::read_dir(path).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().is_dir() && Partition::looks_like(&e.path()))
        })
    }

    /// The entries of an offset checkpoint file in this dir, keyed
    /// `topic-partition`; empty when the file is absent.
    pub fn offset_checkpoint(&self, name: &str) -> Result<BTreeMap<String, i64>, LogDirError> {
        offset_checkpoint_in(&self.path, name)
    }
}
