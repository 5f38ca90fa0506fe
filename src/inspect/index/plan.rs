//! `rebuild-index`'s decisions as data: for each segment, how its
//! `.index` and `.timeindex` relate to the ones Kafka's recovery would
//! build, and which of them a run writes. The judging functions work over
//! bytes (the log's only when an index differs, through the opener they are
//! given); only [`plan_segment`] opens files.

use std::convert::Infallible;
use std::path::{Path, PathBuf};

use crate::format::offset_index::{OFFSET_INDEX_ENTRY_SIZE, OffsetIndex};
use crate::format::time_index::{TIME_INDEX_ENTRY_SIZE, TimeIndex};
use crate::inspect::index::build::{IndexBuild, StopReason, build_indexes_from_file};
use crate::inspect::index::compare::{
    IndexStatus, compare, offset_index_consistent, time_index_consistent,
};
use crate::logdir::mapped::{INDEX_READ_LIMIT, read_small};
use crate::logdir::page_cache::PageCacheGuard;
use crate::logdir::{CachePolicy, LogDirError, MappedFile, Segment};

/// What a run does with index files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// Compare only (`--check`).
    Check,
    /// Say what would be written (`--dry-run`).
    DryRun,
    /// Write the files that need it.
    Write,
    /// Write every file (`--force`).
    Force,
}

impl WriteMode {
    /// Whether the run writes files.
    pub fn writes(self) -> bool {
        matches!(self, Self::Write | Self::Force)
    }
}

/// What happens to one index file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexAction {
    /// Left as it is.
    Keep,
    /// Would be written (a dry run).
    WouldWrite,
    /// To be written (or written, once applied).
    Write,
}

/// One index file's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFilePlan {
    /// The file.
    pub path: PathBuf,
    /// How it relates to the rebuild.
    pub status: IndexStatus,
    /// Entries in the rebuild.
    pub rebuilt_entries: usize,
    /// What the run does with it.
    pub action: IndexAction,
}

/// One segment's plan: its offset index first, then its time index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentIndexPlan {
    /// The segment's `.log`.
    pub log: PathBuf,
    /// Where the rebuild stopped short of the end of the `.log`, if it did.
    pub stop: Option<StopReason>,
    /// `.index` and `.timeindex`.
    pub files: [IndexFilePlan; 2],
}

/// The rebuilt bytes of a segment's two indexes, in the order of
/// [`SegmentIndexPlan::files`].
pub type RebuiltIndexes = [Vec<u8>; 2];

/// The action for a file in `status` under `mode`.
pub fn action_for(status: &IndexStatus, mode: WriteMode) -> IndexAction {
    match mode {
        WriteMode::Force => IndexAction::Write,
        _ if !status.needs_write() => IndexAction::Keep,
        WriteMode::Write => IndexAction::Write,
        WriteMode::DryRun => IndexAction::WouldWrite,
        WriteMode::Check => IndexAction::Keep,
    }
}

/// Judges an existing offset index (`None`: missing) against its rebuild,
/// checking a differing one entry by entry against the log `open_log`
/// gives (called only then: a matching index needs no look at the log).
pub fn judge_offset_index<L: AsRef<[u8]>>(
    existing: Option<&[u8]>,
    rebuilt: &[u8],
    build: &IndexBuild,
    base_offset: i64,
    open_log: impl FnOnce() -> Result<L, LogDirError>,
) -> Result<IndexStatus, LogDirError> {
    let status = match compare(existing, rebuilt, OFFSET_INDEX_ENTRY_SIZE) {
        // An empty offset index only makes lookups scan from position 0: a
        // chunk appended by a follower or the cleaner can leave it so.
        IndexStatus::EmptyButLogHasData => IndexStatus::Differs {
            slot: 0,
            existing_entries: 0,
            rebuilt_entries: build.offset_entries.len(),
            consistent_with_log: true,
        },
        status => status,
    };
    with_consistency(status, existing, |bytes| {
        let index = OffsetIndex::new(bytes, base_offset);
        Ok(index.sanity_check().is_ok() && offset_index_consistent(&index, open_log()?.as_ref()))
    })
}

/// Judges an existing time index (`None`: missing) against its rebuild. A
/// live active segment's file lacks the closing entry the rebuild adds, and
/// is preallocated, not different.
pub fn judge_time_index(
    existing: Option<&[u8]>,
    rebuilt: &[u8],
    build: &IndexBuild,
    base_offset: i64,
) -> IndexStatus {
    let mut status = compare(existing, rebuilt, TIME_INDEX_ENTRY_SIZE);
    if matches!(status, IndexStatus::Differs { .. }) {
        let before_close = rebuilt
            .get(..rebuilt.len().saturating_sub(TIME_INDEX_ENTRY_SIZE))
            .unwrap_or_default();
        if let preallocated @ IndexStatus::Preallocated { .. } =
            compare(existing, before_close, TIME_INDEX_ENTRY_SIZE)
        {
            status = preallocated;
        }
    }
    let Ok(status) = with_consistency(status, existing, |bytes| {
        let index = TimeIndex::new(bytes, base_offset);
        Ok::<_, Infallible>(
            index.sanity_check().is_ok() && time_index_consistent(&index, build, base_offset),
        )
    });
    status
}

/// Fills in `consistent_with_log` of a differing file with `check`.
fn with_consistency<E>(
    mut status: IndexStatus,
    existing: Option<&[u8]>,
    check: impl FnOnce(&[u8]) -> Result<bool, E>,
) -> Result<IndexStatus, E> {
    if let (
        IndexStatus::Differs {
            consistent_with_log,
            ..
        },
        Some(bytes),
    ) = (&mut status, existing)
    {
        *consistent_with_log = check(bytes)?;
    }
    Ok(status)
}

/// Rebuilds `segment`'s indexes from its `.log` with `interval` (checking
/// CRCs with `verify`) and judges the files on disk against them.
pub fn plan_segment(
    segment: &Segment,
    interval: u64,
    verify: bool,
    mode: WriteMode,
) -> Result<(SegmentIndexPlan, RebuiltIndexes), LogDirError> {
    let base = segment.base_offset;
    // Notes which pages of the log are cached; dropped at the end, it
    // evicts what the walk (and a consistency check) brought in.
    let _cache = PageCacheGuard::open(&segment.log_path())?;
    let build = build_indexes_from_file(&segment.log_path(), base, interval, verify)?;
    let rebuilt = [build.offset_index_bytes(base), build.time_index_bytes(base)];
    let existing = [
        read_existing(&segment.offset_index_path())?,
        read_existing(&segment.time_index_path())?,
    ];
    // Mapped only to check a differing index against it.
    let index_status =
        judge_offset_index(existing[0].as_deref(), &rebuilt[0], &build, base, || {
            MappedFile::open(&segment.log_path(), CachePolicy::Keep)
        })?;
    let time_status = judge_time_index(existing[1].as_deref(), &rebuilt[1], &build, base);
    let file = |path: PathBuf, status: IndexStatus, rebuilt_entries: usize| IndexFilePlan {
        path,
        action: action_for(&status, mode),
        status,
        rebuilt_entries,
    };
    let plan = SegmentIndexPlan {
        log: segment.log_path(),
        files: [
            file(
                segment.offset_index_path(),
                index_status,
                build.offset_entries.len(),
            ),
            file(
                segment.time_index_path(),
                time_status,
                build.time_entries.len(),
            ),
        ],
        stop: build.stop,
    };
    Ok((plan, rebuilt))
}

/// An index file's bytes, `None` when it does not exist (any other failure
/// to read it is an error, not a missing file to write).
fn read_existing(path: &Path) -> Result<Option<Vec<u8>>, LogDirError> {
    path.exists()
        .then(|| read_small(path, INDEX_READ_LIMIT))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::encode::{BatchSpec, RecordSpec, encode_batch};
    use crate::inspect::index::build::build_indexes;

    /// 40 one-record batches of about 100 bytes, offsets 0..40, timestamps 1000..1040.
    fn log() -> Vec<u8> {
        (0..40)
            .flat_map(|i| {
                encode_batch(&BatchSpec {
                    base_offset: i,
                    records: vec![RecordSpec {
                        timestamp: 1000 + i,
                        value: Some(vec![7; 30]),
                        ..RecordSpec::default()
                    }],
                    ..BatchSpec::default()
                })
            })
            .collect()
    }

    #[test]
    fn the_plan_judges_each_kind_of_index_file() {
        let log = log();
        let build = build_indexes(&log, 0, 300, true);
        let rebuilt = build.offset_index_bytes(0);
        assert!(build.offset_entries.len() > 4);
        let judge = |existing: Option<&[u8]>| {
            judge_offset_index(existing, &rebuilt, &build, 0, || Ok(&log[..])).unwrap()
        };
        assert_eq!(judge(Some(&rebuilt)), IndexStatus::Same);
        assert_eq!(judge(None), IndexStatus::Missing);
        // Every other entry: sparser, still right for lookups.
        let sparse: Vec<u8> = rebuilt.chunks(8).step_by(2).flatten().copied().collect();
        let consistent = judge(Some(&sparse));
        assert!(
            matches!(
                consistent,
                IndexStatus::Differs {
                    consistent_with_log: true,
                    ..
                }
            ),
            "{consistent:?}"
        );
        // An entry pointing into the middle of a batch.
        let mut torn = rebuilt.clone();
        torn[7] ^= 1;
        let corrupt = judge(Some(&torn));
        assert!(
            matches!(
                corrupt,
                IndexStatus::Differs {
                    consistent_with_log: false,
                    ..
                }
            ),
            "{corrupt:?}"
        );
        let mut preallocated = rebuilt.clone();
        preallocated.resize(rebuilt.len() + 80, 0);
        assert!(matches!(
            judge(Some(&preallocated)),
            IndexStatus::Preallocated { .. }
        ));

        for (status, keep_by_default) in [
            (IndexStatus::Same, true),
            (consistent, true),
            (IndexStatus::Preallocated { file_size: 1 }, true),
            (IndexStatus::Missing, false),
            (corrupt, false),
        ] {
            let expected = if keep_by_default {
                IndexAction::Keep
            } else {
                IndexAction::Write
            };
            assert_eq!(
                action_for(&status, WriteMode::Write),
                expected,
                "{status:?}"
            );
            assert_eq!(action_for(&status, WriteMode::Check), IndexAction::Keep);
            assert_eq!(action_for(&status, WriteMode::Force), IndexAction::Write);
            let dry = if keep_by_default {
                IndexAction::Keep
            } else {
                IndexAction::WouldWrite
            };
            assert_eq!(action_for(&status, WriteMode::DryRun), dry, "{status:?}");
        }
    }

    #[test]
    fn a_live_active_time_index_lacks_only_its_closing_entry() {
        let log = log();
        let build = build_indexes(&log, 0, 300, true);
        let rebuilt = build.time_index_bytes(0);
        let before_close = &rebuilt[..rebuilt.len() - 12];
        let mut live = before_close.to_vec();
        live.resize(before_close.len() + 120, 0);
        assert!(matches!(
            judge_time_index(Some(&live), &rebuilt, &build, 0),
            IndexStatus::Preallocated { .. }
        ));
        assert_eq!(
            judge_time_index(Some(&rebuilt), &rebuilt, &build, 0),
            IndexStatus::Same
        );
    }
}
