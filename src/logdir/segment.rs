//! A segment: a `.log` with its companion index files, by base offset.

use std::path::{Path, PathBuf};

use super::file_name::segment_file_name;

/// The files of one segment (the indexes may be missing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Base offset from the file name.
    pub base_offset: i64,
    /// Directory holding the files.
    pub dir: PathBuf,
}

impl Segment {
    /// The segment at `base_offset` in `dir`.
    pub fn new(dir: &Path, base_offset: i64) -> Self {
        Self {
            base_offset,
            dir: dir.to_path_buf(),
        }
    }

    fn file(&self, ext: &str) -> PathBuf {
        self.dir.join(segment_file_name(self.base_offset, ext))
    }

    /// `<base>.log`.
    pub fn log_path(&self) -> PathBuf {
        self.file("log")
    }
    /// `<base>.index`.
    pub fn offset_index_path(&self) -> PathBuf {
        self.file("index")
    }
    /// `<base>.timeindex`.
    pub fn time_index_path(&self) -> PathBuf {
        self.file("timeindex")
    }
    /// `<base>.txnindex`.
    pub fn txn_index_path(&self) -> PathBuf {
        self.file("txnindex")
    }
    /// `<base>.snapshot` (producer state at this offset).
    pub fn snapshot_path(&self) -> PathBuf {
        self.file("snapshot")
    }

    /// Size of the `.log` in bytes (0 if it cannot be read).
    pub fn log_size(&self) -> u64 {
        std::fs::metadata(self.log_path()).map_or(0, |m| m.len())
    }
}
