//! A partition directory: its segments sorted by base offset, snapshots,
//! checkpoints and stray files.

use std::path::{Path, PathBuf};

use super::error::LogDirError;
use super::file_name::{DirForm, FileKind, classify, parse_base_offset, parse_dir_name};
use super::segment::Segment;

/// The files of one partition directory.
#[derive(Debug, Clone)]
pub struct Partition {
    /// The directory.
    pub dir: PathBuf,
    /// Topic and partition, when the directory name has that shape (in
    /// any of its forms: `…-future`, `…-stray` too).
    pub topic_partition: Option<(String, i32)>,
    /// Which form the name takes (current for a name Kafka does not read).
    pub form: DirForm,
    /// Segments in base-offset order.
    pub segments: Vec<Segment>,
    /// Producer snapshot offsets in order.
    pub snapshots: Vec<i64>,
    /// Index files with no `.log` beside them.
    pub orphan_indexes: Vec<PathBuf>,
    /// `.deleted`, `.cleaned` and `.swap` files.
    pub stray: Vec<PathBuf>,
}

impl Partition {
    /// Lists `dir`.
    pub fn open(dir: &Path) -> Result<Self, LogDirError> {
        if dir.exists() && !dir.is_dir() {
            let what = super::file_type::special_kind_of(dir).unwrap_or("a file");
            return Err(LogDirError::not_understood(
                dir,
                format!("is {what}, not a partition directory"),
            ));
        }
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| LogDirError::io(dir, e))? {
            let entry = entry.map_err(|e| LogDirError::io(dir, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        let mut logs = Vec::new();
        let mut snapshots = Vec::new();
        let mut index_bases = Vec::new();
        let mut stray = Vec::new();
        for name in &names {
            let base = parse_base_offset(name);
            match (classify(name), base) {
                (FileKind::Log, Some(b)) => logs.push(b),
                (FileKind::ProducerSnapshot, Some(b)) => snapshots.push(b),
                (FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex, Some(b)) => {
                    index_bases.push((b, name))
                }
                (FileKind::Stray, _) => stray.push(dir.join(name)),
                _ => {}
            }
        }
        logs.sort_unstable();
        snapshots.sort_unstable();
        let orphan_indexes = index_bases
            .into_iter()
            .filter(|(b, _)| logs.binary_search(b).is_err())
            .map(|(_, n)| dir.join(n))
            .collect();
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parsed = parse_dir_name(&name);
        Ok(Self {
            dir: dir.to_path_buf(),
            form: parsed.as_ref().map_or(DirForm::Current, |n| n.form),
            topic_partition: parsed.map(|n| (n.topic, n.partition)),
            segments: logs.into_iter().map(|b| Segment::new(dir, b)).collect(),
            snapshots,
            orphan_indexes,
            stray,
        })
    }

    /// Whether this is the KRaft metadata log, `__cluster_metadata-N`.
    pub fn is_metadata_log(&self) -> bool {
        self.topic_partition
            .as_ref()
            .is_some_and(|(topic, _)| topic == "__cluster_metadata")
    }

    /// `topic-partition`, or the directory name (of a `…-future` or
    /// `…-stray` form too, so that it is told from the current replica).
    pub fn name(&self) -> String {
        match &self.topic_partition {
            Some(_) if self.form != DirForm::Current => self.dir_name(),
            Some((t, p)) => format!("{t}-{p}"),
            None => self.dir_name(),
        }
    }

    fn dir_name(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The key of this partition in the log dir's offset checkpoints:
    /// `topic-partition` whatever the directory's form (Kafka keys them by
    /// the `TopicPartition` the name parses to), else the directory name.
    pub fn checkpoint_key(&self) -> String {
        match &self.topic_partition {
            Some((t, p)) => format!("{t}-{p}"),
            None => self.dir_name(),
        }
    }

    /// The last segment, which the broker appends to.
    pub fn active_segment(&self) -> Option<&Segment> {
        self.segments.last()
    }

    /// Index of the segment whose base offset is the floor of `offset`.
    pub fn floor_segment(&self, offset: i64) -> Option<usize> {
        self.segments
            .partition_point(|s| s.base_offset <= offset)
            .checked_sub(1)
    }

    /// The log dir holding this partition: its parent directory (`.` for a
    /// partition named by a bare relative path).
    pub fn log_dir(&self) -> PathBuf {
        match self.dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// This partition's entry in the log dir's offset checkpoint `name`
    /// (`recovery-point-offset-checkpoint`, `log-start-offset-checkpoint`, …),
    /// `None` when the file or the entry is absent.
    pub fn checkpointed_offset(&self, name: &str) -> Result<Option<i64>, LogDirError> {
        super::checkpoint_file::checkpointed_offset_in(
            &self.log_dir(),
            name,
            &self.checkpoint_key(),
        )
    }

    /// `leader-epoch-checkpoint`.
    pub fn leader_epoch_checkpoint_path(&self) -> PathBuf {
        self.dir.join("leader-epoch-checkpoint")
    }

    /// Whether `dir` looks like a partition directory (holds a `.log`).
    pub fn looks_like(dir: &Path) -> bool {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| classify(&e.file_name().to_string_lossy()) == FileKind::Log)
        })
    }
}
