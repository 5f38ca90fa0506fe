//! What a file in a Kafka data directory is, from its name: as Kafka
//! writes it, or by its suffix alone for a renamed copy.

/// The kind of a file, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `<base>.log` segment data.
    Log,
    /// `<base>.index` offset index.
    OffsetIndex,
    /// `<base>.timeindex` time index.
    TimeIndex,
    /// `<base>.txnindex` aborted-transaction index.
    TxnIndex,
    /// `<offset>.snapshot` producer state.
    ProducerSnapshot,
    /// `leader-epoch-checkpoint`.
    LeaderEpochCheckpoint,
    /// `recovery-point-offset-checkpoint`, `log-start-offset-checkpoint`,
    /// `replication-offset-checkpoint` or `cleaner-offset-checkpoint`.
    OffsetCheckpoint,
    /// `partition.metadata`.
    PartitionMetadata,
    /// `meta.properties`.
    MetaProperties,
    /// `.kafka_cleanshutdown`.
    CleanShutdown,
    /// `quorum-state`: a KRaft replica's election state (JSON).
    QuorumState,
    /// A file renamed with `.deleted`, `.cleaned` or `.swap` appended.
    Stray,
    /// A KRaft metadata snapshot: `<end offset>-<epoch>.checkpoint` or
    /// `bootstrap.checkpoint` (record batches, like a `.log`).
    KraftSnapshot,
    /// Anything else.
    Unknown,
}

/// Suffixes Kafka appends to a file it is about to delete or swap in.
pub const STRAY_SUFFIXES: [&str; 3] = [".deleted", ".cleaned", ".swap"];

/// The kind of a file's contents: a stray file's name without its suffix.
pub fn classify_contents(name: &str) -> FileKind {
    STRAY_SUFFIXES
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .map_or_else(|| classify(name), classify)
}

/// End offset and epoch of a KRaft snapshot named `<20 digits>-<10 digits>.checkpoint`.
pub fn parse_kraft_snapshot(name: &str) -> Option<(i64, i32)> {
    let stem = name.strip_suffix(".checkpoint")?;
    let (offset, epoch) = stem.split_once('-')?;
    Some((offset.parse().ok()?, epoch.parse().ok()?))
}

/// Names of the offset checkpoint files in a log dir.
pub const OFFSET_CHECKPOINTS: [&str; 4] = [
    "recovery-point-offset-checkpoint",
    "log-start-offset-checkpoint",
    "replication-offset-checkpoint",
    "cleaner-offset-checkpoint",
];

/// Classifies a bare file name.
pub fn classify(name: &str) -> FileKind {
    if STRAY_SUFFIXES.iter().any(|s| name.ends_with(s)) {
        return FileKind::Stray;
    }
    if name == "bootstrap.checkpoint" || parse_kraft_snapshot(name).is_some() {
        return FileKind::KraftSnapshot;
    }
    match name {
        "leader-epoch-checkpoint" => return FileKind::LeaderEpochCheckpoint,
        "partition.metadata" => return FileKind::PartitionMetadata,
        "meta.properties" => return FileKind::MetaProperties,
        ".kafka_cleanshutdown" => return FileKind::CleanShutdown,
        "quorum-state" => return FileKind::QuorumState,
        n if OFFSET_CHECKPOINTS.contains(&n) => return FileKind::OffsetCheckpoint,
        _ => {}
    }
    if parse_base_offset(name).is_none() {
        return FileKind::Unknown;
    }
    by_extension(name)
}

/// The kind of a segment file by its extension alone.
fn by_extension(name: &str) -> FileKind {
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("log") => FileKind::Log,
        Some("index") => FileKind::OffsetIndex,
        Some("timeindex") => FileKind::TimeIndex,
        Some("txnindex") => FileKind::TxnIndex,
        Some("snapshot") => FileKind::ProducerSnapshot,
        _ => FileKind::Unknown,
    }
}

/// The kind a renamed copy's suffix tells (`copy.log`, `broken.index`,
/// `seg.timeindex.deleted`), as kafka-dump-log goes by the suffix alone.
pub fn classify_by_suffix(name: &str) -> FileKind {
    let name = STRAY_SUFFIXES
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(name);
    by_extension(name)
}

/// The base offset in a segment-style name: the digits before the first `.`.
pub fn parse_base_offset(name: &str) -> Option<i64> {
    let digits = name.split('.').next()?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `<20-digit base offset>.<ext>`.
pub fn segment_file_name(base_offset: i64, ext: &str) -> String {
    format!("{base_offset:020}.{ext}")
}

/// Which of Kafka's forms a partition directory's name takes
/// (`LocalLog.parseTopicPartitionName`; the suffixed forms are
/// `<topic>-<partition>.<uniqueId><suffix>`, the unique id a random UUID's
/// 32 hex digits, `LocalLog.logDirNameWithSuffix`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirForm {
    /// `<topic>-<partition>`: the replica the broker serves.
    Current,
    /// `….<uniqueId>-future`: a replica being copied here from another log
    /// dir of the same broker (JBOD, `kafka-reassign-partitions
    /// --reassignment-json-file` with a `log_dirs` entry).
    Future,
    /// `….<uniqueId>-delete`: a deleted topic's replica or the old side of a
    /// finished move, which the broker deletes.
    Delete,
    /// `….<uniqueId>-stray`: a replica the broker found it should not host,
    /// set aside at start.
    Stray,
}

impl DirForm {
    /// The name's suffix (`""` for the current form).
    pub fn suffix(self) -> &'static str {
        match self {
            Self::Current => "",
            Self::Future => "-future",
            Self::Delete => "-delete",
            Self::Stray => "-stray",
        }
    }

    /// `current`, `future`, `delete` or `stray`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Current => "current",
            Self::Future => "future",
            Self::Delete => "delete",
            Self::Stray => "stray",
        }
    }
}

/// A partition directory's name as Kafka reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionDirName {
    /// The topic (of a `-delete` or `-stray` name, cut short if the whole
    /// name would pass 255 characters: `LocalLog.logDirNameWithSuffixCappedLength`).
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// Which form the name takes.
    pub form: DirForm,
    /// The unique id of a suffixed form.
    pub unique_id: Option<String>,
}

/// Reads a partition directory name as `LocalLog.parseTopicPartitionName`
/// does: a name ending `-delete`, `-future` or `-stray` must be
/// `<topic>-<partition>.<uniqueId><suffix>` (no whitespace), and what comes
/// before its last `.` is read as `<topic>-<partition>`. `None` for a name
/// Kafka refuses ("is not in the form of topic-partition or
/// topic-partition.uniqueId-delete").
pub fn parse_dir_name(name: &str) -> Option<PartitionDirName> {
    let suffixed = [DirForm::Delete, DirForm::Future, DirForm::Stray]
        .into_iter()
        .find_map(|form| Some((form, name.strip_suffix(form.suffix())?)));
    let (form, base, unique_id) = match suffixed {
        Some((form, rest)) => {
            // `^(\S+)-(\S+)\.(\S+)<suffix>`: a `-` with something before
            // it, then a `.` with something on both sides.
            if rest.chars().any(char::is_whitespace) {
                return None;
            }
            let dash = rest.find('-').filter(|&i| i > 0)?;
            let dot = rest
                .rfind('.')
                .filter(|&i| i > dash + 1 && i + 1 < rest.len())?;
            (form, &rest[..dot], Some(rest[dot + 1..].to_string()))
        }
        None => (DirForm::Current, name, None),
    };
    let (topic, partition) = base.rsplit_once('-')?;
    if topic.is_empty() {
        return None;
    }
    Some(PartitionDirName {
        topic: topic.to_string(),
        partition: partition.parse().ok()?,
        form,
        unique_id,
    })
}

/// Splits a partition directory name into topic and partition, in any of
/// its forms (see [`parse_dir_name`]).
pub fn parse_partition_dir(name: &str) -> Option<(String, i32)> {
    parse_dir_name(name).map(|n| (n.topic, n.partition))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_every_kafka_file() {
        assert_eq!(classify("00000000000000004672.log"), FileKind::Log);
        assert_eq!(
            classify("00000000000000004672.index"),
            FileKind::OffsetIndex
        );
        assert_eq!(
            classify("00000000000000004672.timeindex"),
            FileKind::TimeIndex
        );
        assert_eq!(
            classify("00000000000000004672.txnindex"),
            FileKind::TxnIndex
        );
        assert_eq!(
            classify("00000000000000004672.snapshot"),
            FileKind::ProducerSnapshot
        );
        assert_eq!(
            classify("00000000000000004672.log.deleted"),
            FileKind::Stray
        );
        assert_eq!(classify("00000000000000004672.index.swap"), FileKind::Stray);
        assert_eq!(
            classify("leader-epoch-checkpoint"),
            FileKind::LeaderEpochCheckpoint
        );
        assert_eq!(
            classify("recovery-point-offset-checkpoint"),
            FileKind::OffsetCheckpoint
        );
        assert_eq!(classify("partition.metadata"), FileKind::PartitionMetadata);
        assert_eq!(classify("notes.log"), FileKind::Unknown);
        assert_eq!(
            classify("00000000000000000000-0000000001.checkpoint"),
            FileKind::KraftSnapshot
        );
        assert_eq!(classify("bootstrap.checkpoint"), FileKind::KraftSnapshot);
        assert_eq!(classify("quorum-state"), FileKind::QuorumState);
        assert_eq!(
            classify_contents("00000000000000000000.log.deleted"),
            FileKind::Log
        );
        assert_eq!(
            classify_contents("00000000000000000000.index.swap"),
            FileKind::OffsetIndex
        );
        assert_eq!(
            parse_kraft_snapshot("00000000000000000042-0000000003.checkpoint"),
            Some((42, 3))
        );
        assert_eq!(segment_file_name(4672, "log"), "00000000000000004672.log");
        assert_eq!(classify("copy.log"), FileKind::Unknown);
        assert_eq!(classify_by_suffix("copy.log"), FileKind::Log);
        assert_eq!(classify_by_suffix("broken.index"), FileKind::OffsetIndex);
        assert_eq!(
            classify_by_suffix("seg.timeindex.deleted"),
            FileKind::TimeIndex
        );
        assert_eq!(classify_by_suffix("x.snapshot"), FileKind::ProducerSnapshot);
        assert_eq!(classify_by_suffix("notes.txt"), FileKind::Unknown);
        assert_eq!(
            parse_partition_dir("my-topic-12"),
            Some(("my-topic".into(), 12))
        );
        let id = "3f2a9c1be0d84c7a9e5b6d7c8f9a0b1c";
        for (form, suffix) in [
            (DirForm::Future, "-future"),
            (DirForm::Delete, "-delete"),
            (DirForm::Stray, "-stray"),
        ] {
            let n = parse_dir_name(&format!("my.topic-12.{id}{suffix}")).unwrap();
            assert_eq!(
                (n.topic.as_str(), n.partition, n.form),
                ("my.topic", 12, form)
            );
            assert_eq!(n.unique_id.as_deref(), Some(id));
            // Kafka refuses a suffixed name without its unique id.
            assert_eq!(parse_dir_name(&format!("my-topic-12{suffix}")), None);
        }
        assert_eq!(
            parse_dir_name("my-topic-12").unwrap().form,
            DirForm::Current
        );
        assert_eq!(parse_dir_name("-12"), None);
        assert_eq!(parse_dir_name("my-topic-x.1-future"), None);
    }
}
