//! Finding what to replay and replaying it: the latest snapshot
//! (`<endOffset>-<epoch>.checkpoint`) at or below the offset asked for,
//! then the log's records from the snapshot's end offset, as a broker
//! starting up does: its raft client hands a new listener the latest
//! snapshot, else the log from offset 0 (`KafkaRaftClient.updateListenersProgress`,
//! raft/src/main/java/org/apache/kafka/raft/KafkaRaftClient.java:387-410),
//! and `MetadataLoader` replays the snapshot (`handleLoadSnapshot`) then
//! each committed batch (`handleCommit`). Partial (`.checkpoint.part`) and
//! deleted snapshots are not snapshots (`KafkaMetadataLog.recoverSnapshots`,
//! core/src/main/scala/kafka/raft/KafkaMetadataLog.scala:642-647). Batches
//! stream past one buffer. Reading stops where the broker's log recovery
//! would truncate the log (a batch that fails its CRC, bytes that are not a
//! batch), with a warning naming the file and byte. A snapshot that does
//! not read cleanly is skipped, with a warning, for the next older one (or
//! the log from offset 0): the image is still the one the log holds.
//!
//! The broker's loader sees only committed records (below the quorum's
//! high watermark), which no file records; kseg replays the log to its end,
//! so the newest records may be ones the quorum never committed.
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use super::configs::SetBy;
use super::record::{self, MetadataRecord};
use super::replay::{Replayed, Replayer};
use super::snapshot_check::check_snapshot;
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::{BatchSummary, FileBatch, FormatError};
use crate::logdir::chunked::walk_batches;
use crate::logdir::file_name::parse_kraft_snapshot;
use crate::logdir::{LogDirError, Partition};
use crate::schema::control::decode_control;
use crate::schema::tree::Tree;
use crate::schema::{Decoded, InternalTopic};

/// The metadata partition's directory name.
pub const METADATA_PARTITION: &str = "__cluster_metadata-0";

/// A snapshot file and the offset its records reach (exclusive) and epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotFile {
    /// The `.checkpoint` file.
    pub path: PathBuf,
    /// Its end offset: the image is as of offset `end_offset - 1`.
    pub end_offset: i64,
    /// The epoch of that offset.
    pub epoch: i32,
}

impl SnapshotFile {
    /// The snapshot at `path`, its end offset and epoch taken from its name.
    pub fn from_path(path: &Path) -> Result<Self, LogDirError> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (end_offset, epoch) = parse_kraft_snapshot(&name).ok_or_else(|| {
            LogDirError::not_understood(
                path,
                "is not a KRaft snapshot (<endOffset>-<epoch>.checkpoint)",
            )
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            end_offset,
            epoch,
        })
    }
}

/// A replay and what it was built from: `T` is the [`Replayed`] image
/// ([`LoadedImage`]), or what [`replay_with`] replayed the log into.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded<T> {
    /// The replay: image, transactions, refused records.
    pub replayed: T,
    /// The partition directory, unless a lone `.checkpoint` was given.
    pub partition_dir: Option<PathBuf>,
    /// The snapshot replayed first, if any.
    pub snapshot: Option<SnapshotFile>,
    /// The first log offset replayed after the snapshot (none when only a snapshot was read).
    pub log_from: Option<i64>,
    /// The last offset the image includes (-1 for none).
    pub offset: i64,
    /// The offset asked for.
    pub at_offset: Option<i64>,
    /// The log end offset read (one past the last record seen).
    pub log_end_offset: Option<i64>,
    /// Where reading stopped early, and why.
    pub warnings: Vec<String>,
    /// What else the reader should know (an offset asked for past the log end).
    pub notes: Vec<String>,
}

/// The image and what it was built from.
pub type LoadedImage = Loaded<Replayed>;

impl<T> Loaded<T> {
    /// The same, with the replay made into `f`'s.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Loaded<U> {
        Loaded {
            replayed: f(self.replayed),
            partition_dir: self.partition_dir,
            snapshot: self.snapshot,
            log_from: self.log_from,
            offset: self.offset,
            at_offset: self.at_offset,
            log_end_offset: self.log_end_offset,
            warnings: self.warnings,
            notes: self.notes,
        }
    }
}

impl Loaded<Replayed> {
    /// The dynamic configs of the image.
    pub fn configs(&self) -> &super::configs::DynamicConfigs {
        &self.replayed.image.configs
    }
}

/// `<log_dir>/__cluster_metadata-0`, when it is a directory.
pub fn find_metadata_partition(log_dir: &Path) -> Option<PathBuf> {
    let dir = log_dir.join(METADATA_PARTITION);
    dir.is_dir().then_some(dir)
}

/// Whether `dir` is a metadata partition directory: named
/// `__cluster_metadata-N`, or holding the raft log's own files (a KRaft
/// snapshot or `quorum-state`) for a copy named otherwise.
fn looks_like_metadata_partition(dir: &Path) -> bool {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    if name.as_deref().and_then(InternalTopic::of_partition_dir)
        == Some(InternalTopic::ClusterMetadata)
    {
        return true;
    }
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name == "quorum-state" || parse_kraft_snapshot(&name).is_some()
        })
    })
}

/// The snapshots of a metadata partition directory, by end offset.
pub fn snapshots(dir: &Path) -> Result<Vec<SnapshotFile>, LogDirError> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| LogDirError::io(dir, e))? {
        let entry = entry.map_err(|e| LogDirError::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some((end_offset, epoch)) = parse_kraft_snapshot(&name) {
            found.push(SnapshotFile {
                path: entry.path(),
                end_offset,
                epoch,
            });
        }
    }
    found.sort_by_key(|s| (s.end_offset, s.epoch));
    Ok(found)
}

/// The image of `path`: a log dir holding `__cluster_metadata-0`, that
/// directory, or one `.checkpoint` file; as of `at_offset` (inclusive)
/// when given, else of the whole log.
pub fn load_image(path: &Path, at_offset: Option<i64>) -> Result<LoadedImage, LogDirError> {
    load_image_with_progress(path, &ImageRequest::at(at_offset), &|_| {})
}

/// Which image to build, and from which snapshot.
#[derive(Debug, Clone, Default)]
pub struct ImageRequest {
    /// The image as of this offset (inclusive); the whole log when `None`.
    pub at_offset: Option<i64>,
    /// The snapshot to start from, instead of the newest one that reads
    /// cleanly at or below the offset.
    pub snapshot: Option<PathBuf>,
    /// Start as early as the files allow instead (see [`Start::Oldest`]).
    pub start: Start,
}

/// Where the replay starts when no snapshot is named.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Start {
    /// From the newest snapshot that reads cleanly at or below the offset
    /// asked for, as the broker's loader does.
    #[default]
    Newest,
    /// From the oldest point the files still hold the records after: the
    /// empty image (or the bootstrap snapshot ending at offset 0) when the
    /// log starts at offset 0, else the oldest snapshot that reads cleanly
    /// and ends at or past the log's first offset.
    Oldest,
}

impl ImageRequest {
    /// The image as of `at_offset`, from the newest clean snapshot.
    pub fn at(at_offset: Option<i64>) -> Self {
        Self {
            at_offset,
            snapshot: None,
            start: Start::Newest,
        }
    }
}

/// [`load_image`] for `request`, calling `progress` with the bytes of
/// each batch read.
pub fn load_image_with_progress(
    path: &Path,
    request: &ImageRequest,
    progress: &dyn Fn(u64),
) -> Result<LoadedImage, LogDirError> {
    Ok(replay_with(path, request, progress, |r| r)?.map(Replayer::finish))
}

/// What takes the records of the log, in order, after the snapshot:
/// [`Replayer`] itself, or something built on it that watches each record
/// go in (`kseg history`).
pub trait Replay {
    /// The batch whose records come next: its header.
    fn batch(&mut self, _batch: &BatchSummary) {}
    /// A metadata record, as [`Replayer::record`] takes it.
    fn record(&mut self, value: Result<MetadataRecord<'_>, String>, at: SetBy);
    /// A KRaft control record, as [`Replayer::control`] takes it.
    fn control(
        &mut self,
        key: Option<&serde_json::Value>,
        value: Result<&serde_json::Value, String>,
        at: SetBy,
    );
}

impl Replay for Replayer {
    fn record(&mut self, value: Result<MetadataRecord<'_>, String>, at: SetBy) {
        Replayer::record(self, value, at);
    }
    fn control(
        &mut self,
        key: Option<&serde_json::Value>,
        value: Result<&serde_json::Value, String>,
        at: SetBy,
    ) {
        Replayer::control(self, key, value, at);
    }
}

/// Replays `path` as [`load_image_with_progress`] does, the snapshot into
/// a [`Replayer`] and the log into what `wrap` makes of it.
pub fn replay_with<R: Replay>(
    path: &Path,
    request: &ImageRequest,
    progress: &dyn Fn(u64),
    wrap: impl FnOnce(Replayer) -> R,
) -> Result<Loaded<R>, LogDirError> {
    let at_offset = request.at_offset;
    if path.is_file() {
        return Ok(load_snapshot_file(path, at_offset, progress)?.map(wrap));
    }
    let dir = metadata_dir(path)?;
    if let Some(n) = at_offset.filter(|&n| n < 0) {
        return Err(LogDirError::not_understood(
            path,
            format!("--at-offset {n}: offsets start at 0"),
        ));
    }
    let target = at_offset.unwrap_or(i64::MAX);
    let mut warnings = Vec::new();
    let partition = Partition::open(&dir)?;
    let log_start = partition.segments.first().map_or(0, |s| s.base_offset);
    let (snapshot, replayer) =
        start_image(&dir, target, log_start, request, &mut warnings, progress)?;
    let from = snapshot.as_ref().map_or(0, |s| s.end_offset);
    if log_start > from {
        let asked = at_offset.map_or("the image".to_string(), |n| format!("offset {n}"));
        return Err(LogDirError::not_understood(
            &dir,
            format!(
                "the log starts at offset {log_start}, and no snapshot at or below {asked} covers the offsets before it"
            ),
        ));
    }
    let mut walk = LogWalk {
        replayer: wrap(replayer),
        from,
        target,
        last: from - 1,
        first: None,
        end: None,
        warnings,
        scratch: Vec::new(),
        tree: Tree::default(),
        done: false,
        progress,
    };
    // Segments wholly below the snapshot's end hold nothing to replay: the
    // broker's loader starts reading at `from` too.
    let first = partition.floor_segment(from).unwrap_or(0);
    for segment in partition.segments.iter().skip(first) {
        if walk.done {
            break;
        }
        walk.segment(&segment.log_path())?;
    }
    let LogWalk {
        replayer,
        last,
        first,
        end,
        warnings,
        ..
    } = walk;
    let mut notes = Vec::new();
    if let (Some(n), Some(end)) = (at_offset, end) {
        if n >= end {
            notes.push(format!(
                "the log ends at offset {end}: offset {n} is past it; this is the latest image"
            ));
        }
    }
    Ok(Loaded {
        replayed: replayer,
        partition_dir: Some(dir),
        snapshot,
        log_from: Some(first.unwrap_or(from)),
        offset: last,
        at_offset,
        log_end_offset: end,
        warnings,
        notes,
    })
}

/// The metadata partition directory of `path`: `path` itself, or the
/// `__cluster_metadata-0` of a log dir.
fn metadata_dir(path: &Path) -> Result<PathBuf, LogDirError> {
    match find_metadata_partition(path) {
        Some(dir) => Ok(dir),
        None if looks_like_metadata_partition(path) => Ok(path.to_path_buf()),
        None if path.is_dir() => Err(LogDirError::not_understood(
            path,
            format!("holds no {METADATA_PARTITION} and is not a metadata partition directory"),
        )),
        None => Err(LogDirError::io(path, std::io::ErrorKind::NotFound.into())),
    }
}

/// A batch of the log: its last offset and append time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppendedBatch {
    /// Its last offset.
    pub last_offset: i64,
    /// Its append time (epoch ms).
    pub timestamp: i64,
}

/// The last batch of the metadata log of `path` appended at or before
/// `time`: the batches are read in log order up to the first appended
/// after it (or to damage, where the replay stops too); `None` when the
/// first batch is already later.
pub fn batch_at_time(path: &Path, time: i64) -> Result<Option<AppendedBatch>, LogDirError> {
    let dir = metadata_dir(path)?;
    let partition = Partition::open(&dir)?;
    let mut found = None;
    let mut later = false;
    let mut scratch = Vec::new();
    for segment in &partition.segments {
        walk_batches(&segment.log_path(), |batch| {
            let Ok(summary) = batch.summary(&mut scratch, DEFAULT_DECOMPRESS_LIMIT) else {
                return ControlFlow::Break(());
            };
            if summary.max_timestamp > time {
                later = true;
                return ControlFlow::Break(());
            }
            found = Some(AppendedBatch {
                last_offset: summary.last_offset,
                timestamp: summary.max_timestamp,
            });
            ControlFlow::Continue(())
        })?;
        if later {
            break;
        }
    }
    Ok(found)
}

/// The snapshot the image starts from and its records replayed: the one
/// `request` names, else the newest at or below `target + 1` that reads
/// cleanly (no damage the raft layer meets, every record decoded), each
/// newer one skipped with a warning saying why; none when no snapshot
/// reads, and the log is replayed from offset 0.
fn start_image(
    dir: &Path,
    target: i64,
    log_start: i64,
    request: &ImageRequest,
    warnings: &mut Vec<String>,
    progress: &dyn Fn(u64),
) -> Result<(Option<SnapshotFile>, Replayer), LogDirError> {
    if let Some(chosen) = &request.snapshot {
        let s = named_snapshot(chosen, target)?;
        let mut replayer = Replayer::new();
        read_snapshot(&s.path, s.end_offset, &mut replayer, progress)?;
        return Ok((Some(s), replayer));
    }
    let mut skipped = Vec::new();
    let mut chosen = None;
    let mut candidates: Vec<SnapshotFile> = snapshots(dir)?
        .into_iter()
        .filter(|s| s.end_offset <= target.saturating_add(1))
        .collect();
    match request.start {
        Start::Newest => candidates.reverse(),
        // From offset 0 nothing older is needed than the bootstrap
        // snapshot, if any; else the oldest that the log continues.
        Start::Oldest if log_start == 0 => candidates.retain(|s| s.end_offset == 0),
        Start::Oldest => candidates.retain(|s| s.end_offset >= log_start),
    }
    for s in candidates {
        let why = match check_snapshot(&s.path)?.damage {
            Some(d) => format!("at byte {}: {}", d.position(), d.reason()),
            None => {
                let mut replayer = Replayer::new();
                match read_snapshot(&s.path, s.end_offset, &mut replayer, progress) {
                    Ok(()) => {
                        chosen = Some((s, replayer));
                        break;
                    }
                    Err(e) => e.to_string(),
                }
            }
        };
        skipped.push((s.path, why));
    }
    let from = chosen
        .as_ref()
        .map_or("the log from offset 0".to_string(), |(s, _)| {
            format!("the older snapshot {}", s.path.display())
        });
    for (path, why) in skipped {
        warnings.push(format!(
            "{}: skipped ({why}); the image is built from {from} and the log after it (--snapshot FILE picks another)",
            path.display()
        ));
    }
    Ok(chosen.map_or((None, Replayer::new()), |(s, r)| (Some(s), r)))
}

/// The snapshot file `--snapshot` names, checked against the offset asked for.
fn named_snapshot(path: &Path, target: i64) -> Result<SnapshotFile, LogDirError> {
    let snapshot = SnapshotFile::from_path(path)?;
    let end_offset = snapshot.end_offset;
    if end_offset > target.saturating_add(1) {
        return Err(LogDirError::not_understood(
            path,
            format!(
                "holds the image as of offset {}, past the offset asked for",
                end_offset - 1
            ),
        ));
    }
    Ok(snapshot)
}

fn load_snapshot_file(
    path: &Path,
    at_offset: Option<i64>,
    progress: &dyn Fn(u64),
) -> Result<Loaded<Replayer>, LogDirError> {
    let snapshot = SnapshotFile::from_path(path)?;
    let end_offset = snapshot.end_offset;
    if let Some(n) = at_offset.filter(|&n| n != end_offset - 1) {
        return Err(LogDirError::not_understood(
            path,
            format!(
                "holds the image as of offset {} only; --at-offset {n} needs the partition directory",
                end_offset - 1
            ),
        ));
    }
    let mut replayer = Replayer::new();
    read_snapshot(path, end_offset, &mut replayer, progress)?;
    Ok(Loaded {
        replayed: replayer,
        partition_dir: None,
        snapshot: Some(snapshot),
        log_from: None,
        offset: end_offset - 1,
        at_offset,
        log_end_offset: None,
        warnings: Vec::new(),
        notes: Vec::new(),
    })
}

/// Replays every metadata record of the snapshot at `path`; any batch that
/// does not frame, fails its CRC or whose records do not parse is an error.
fn read_snapshot(
    path: &Path,
    end_offset: i64,
    replayer: &mut Replayer,
    progress: &dyn Fn(u64),
) -> Result<(), LogDirError> {
    let mut scratch = Vec::new();
    let mut tree = Tree::default();
    let mut failure = None;
    let set_by = SetBy::Snapshot { end_offset };
    let end = walk_batches(path, |batch| {
        progress(batch.size());
        match batch_records(batch, &mut scratch, &mut tree, |_, entry| {
            entry.replay(replayer, set_by)
        }) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failure = Some(e);
                ControlFlow::Break(())
            }
        }
    })?;
    match failure.or(end) {
        Some(err) => Err(LogDirError::format(path, err)),
        None => Ok(()),
    }
}

/// A record of a batch, decoded: a metadata record's value, or a KRaft
/// control record's key and value (or why it did not decode).
enum Entry<'v> {
    Metadata(Result<MetadataRecord<'v>, String>),
    Control(
        Option<&'v serde_json::Value>,
        Result<&'v serde_json::Value, String>,
    ),
}

impl Entry<'_> {
    /// Hands the record to the replayer as one set at `at`.
    fn replay(self, replayer: &mut impl Replay, at: SetBy) {
        match self {
            Self::Metadata(value) => replayer.record(value, at),
            Self::Control(key, value) => replayer.control(key, value, at),
        }
    }
}

/// Calls `visit` with the offset and decoded record of each record of a
/// batch (control batches hold KRaft's own records: voters, version,
/// leader changes); the batch's CRC or record framing failing is the error.
fn batch_records(
    batch: &FileBatch<'_>,
    scratch: &mut Vec<u8>,
    tree: &mut Tree,
    mut visit: impl FnMut(i64, Entry<'_>),
) -> Result<(), FormatError> {
    let summary = batch.summary(scratch, DEFAULT_DECOMPRESS_LIMIT)?;
    batch.ensure_valid()?;
    let decoded = batch.records(scratch, DEFAULT_DECOMPRESS_LIMIT);
    for record in &decoded.records {
        if summary.is_control {
            let d = decode_control(record.key, record.value);
            let key = match &d.key {
                Decoded::Json(k) => Some(k),
                _ => None,
            };
            let value = match &d.value {
                Decoded::Json(v) => Ok(v),
                Decoded::Failed(reason) => Err(reason.clone()),
                Decoded::Null | Decoded::NotDecoded => Err("the record has no value".into()),
            };
            visit(record.offset, Entry::Control(key, value));
        } else {
            visit(
                record.offset,
                Entry::Metadata(record::decode(record.value, tree)),
            );
        }
    }
    match decoded.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The walk over the log's segments.
struct LogWalk<'p, R> {
    replayer: R,
    from: i64,
    target: i64,
    last: i64,
    /// The first offset of the first batch replayed (the log may start past `from`).
    first: Option<i64>,
    end: Option<i64>,
    warnings: Vec<String>,
    scratch: Vec<u8>,
    tree: Tree,
    done: bool,
    progress: &'p dyn Fn(u64),
}

impl<R: Replay> LogWalk<'_, R> {
    fn segment(&mut self, log: &Path) -> Result<(), LogDirError> {
        let mut failure = None;
        let end = walk_batches(log, |batch| self.batch(batch, &mut failure))?;
        if let Some(err) = failure.or(end) {
            self.warnings.push(format!(
                "{}: {err}; the broker's log recovery truncates the log there, and the image stops at offset {}",
                log.display(),
                self.last
            ));
            self.done = true;
        }
        Ok(())
    }

    fn batch(
        &mut self,
        batch: &FileBatch<'_>,
        failure: &mut Option<FormatError>,
    ) -> ControlFlow<()> {
        let summary = match batch.summary(&mut self.scratch, DEFAULT_DECOMPRESS_LIMIT) {
            Ok(s) => s,
            Err(e) => {
                *failure = Some(e);
                return ControlFlow::Break(());
            }
        };
        (self.progress)(batch.size());
        self.end = Some(summary.last_offset.saturating_add(1));
        if summary.last_offset < self.from {
            return ControlFlow::Continue(());
        }
        if summary.base_offset > self.target {
            self.done = true;
            return ControlFlow::Break(());
        }
        let (from, target) = (self.from, self.target);
        self.first.get_or_insert(summary.base_offset.max(from));
        self.replayer.batch(&summary);
        let mut last = self.last;
        let replayer = &mut self.replayer;
        let result = batch_records(batch, &mut self.scratch, &mut self.tree, |offset, entry| {
            if (from..=target).contains(&offset) {
                entry.replay(replayer, SetBy::Log { offset });
                last = offset;
            }
        });
        self.last = if summary.is_control {
            summary.last_offset.min(target)
        } else {
            last
        };
        match result {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                *failure = Some(e);
                ControlFlow::Break(())
            }
        }
    }
}
