//! `kseg rebuild-index`: rebuild `.index`/`.timeindex` as Kafka's recovery
//! would, check existing ones, or write the ones that differ.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use comfy_table::Table;
use rayon::prelude::*;
use serde_json::json;

use kseg::format::offset_index::OffsetIndex;
use kseg::format::time_index::TimeIndex;
use kseg::inspect::index_build::{StopReason, build_indexes_from_file};
use kseg::inspect::index_compare::{
    IndexStatus, compare, offset_index_consistent, time_index_consistent,
};
use kseg::logdir::mapped::{INDEX_READ_LIMIT, read_small};
use kseg::logdir::target::{Target, resolve};
use kseg::logdir::{CachePolicy, LogDirError, MappedFile, Segment};
use kseg::repair::{Backup, lock_log_dirs, replace_file};

use crate::cli::RebuildIndexArgs;
use crate::exit_code::ExitCode;

/// One index file: its state and, until it is written, the rebuilt bytes.
struct FileReport {
    path: PathBuf,
    status: IndexStatus,
    bytes: Vec<u8>,
    entries: usize,
    written: bool,
}

/// One segment's rebuild. Index bytes are dropped once written or judged,
/// so memory does not grow with the number of segments.
struct SegmentReport {
    log: PathBuf,
    stop: Option<StopReason>,
    files: [FileReport; 2],
}

/// Where rebuilt files go, when the run writes.
struct Writer {
    force: bool,
    backup: Option<Mutex<Backup>>,
}

impl Writer {
    /// Writes the files of `report` that need it (all with `force`),
    /// each backed up first, then forgets their bytes.
    fn write(&self, report: &mut SegmentReport) -> anyhow::Result<()> {
        for file in &mut report.files {
            if self.force || file.status.needs_write() {
                if let Some(backup) = &self.backup {
                    backup
                        .lock()
                        .map_err(|_| anyhow::anyhow!("a backup write failed on another thread"))?
                        .save(&file.path)?;
                }
                replace_file(&file.path, &file.bytes)?;
                file.written = true;
            }
            file.bytes = Vec::new();
        }
        Ok(())
    }
}

fn describe(status: &IndexStatus) -> String {
    match status {
        IndexStatus::Same => "OK".into(),
        IndexStatus::Missing => "missing".into(),
        IndexStatus::EmptyButLogHasData => "empty, but the log has data (Kafka recreated it empty; retention falls back to the file's mtime)".into(),
        IndexStatus::Preallocated { file_size } => format!("OK, preallocated active index ({file_size} bytes; Kafka trims it at roll or close)"),
        IndexStatus::Differs { slot, existing_entries, rebuilt_entries, consistent_with_log } => format!(
            "differs from entry {slot} ({existing_entries} entries on disk, {rebuilt_entries} rebuilt); {}",
            if *consistent_with_log { "consistent with the log (grouped as a follower or the cleaner writes it)" } else { "corrupt" }
        ),
    }
}

fn check_segment(segment: &Segment, args: &RebuildIndexArgs) -> anyhow::Result<SegmentReport> {
    // Page-cache bookkeeping only; the rebuild reads headers with pread
    // (every byte through a small buffer with --verify).
    let cache = MappedFile::open(&segment.log_path(), CachePolicy::Restore)?;
    let build = build_indexes_from_file(
        &segment.log_path(),
        segment.base_offset,
        args.index_interval_bytes,
        args.verify,
    )?;
    let index_bytes = build.offset_index_bytes(segment.base_offset);
    let time_bytes = build.time_index_bytes(segment.base_offset);
    let existing_index = read_existing(&segment.offset_index_path())?;
    let existing_time = read_existing(&segment.time_index_path())?;
    let mut index_status = match compare(existing_index.as_deref(), &index_bytes, 8) {
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
    if let (
        IndexStatus::Differs {
            consistent_with_log,
            ..
        },
        Some(existing),
    ) = (&mut index_status, &existing_index)
    {
        let index = OffsetIndex::new(existing, segment.base_offset);
        *consistent_with_log =
            index.sanity_check().is_ok() && offset_index_consistent(&index, cache.bytes());
    }
    let mut time_status = compare(existing_time.as_deref(), &time_bytes, 12);
    if matches!(time_status, IndexStatus::Differs { .. }) {
        // A live active segment has not had its closing time entry yet.
        let before_close = time_bytes
            .get(..time_bytes.len().saturating_sub(12))
            .unwrap_or_default();
        if let status @ IndexStatus::Preallocated { .. } =
            compare(existing_time.as_deref(), before_close, 12)
        {
            time_status = status;
        }
    }
    if let (
        IndexStatus::Differs {
            consistent_with_log,
            ..
        },
        Some(existing),
    ) = (&mut time_status, &existing_time)
    {
        let index = TimeIndex::new(existing, segment.base_offset);
        *consistent_with_log = index.sanity_check().is_ok()
            && time_index_consistent(&index, &build, segment.base_offset);
    }
    Ok(SegmentReport {
        log: segment.log_path(),
        stop: build.stop,
        files: [
            FileReport {
                path: segment.offset_index_path(),
                status: index_status,
                entries: build.offset_entries.len(),
                bytes: index_bytes,
                written: false,
            },
            FileReport {
                path: segment.time_index_path(),
                status: time_status,
                entries: build.time_entries.len(),
                bytes: time_bytes,
                written: false,
            },
        ],
    })
}

/// An index file's bytes, `None` when it does not exist (any other failure
/// to read it is an error, not a missing file to write).
fn read_existing(path: &Path) -> Result<Option<Vec<u8>>, LogDirError> {
    path.exists()
        .then(|| read_small(path, INDEX_READ_LIMIT))
        .transpose()
}

/// Runs `kseg rebuild-index`.
pub fn run(args: &RebuildIndexArgs) -> anyhow::Result<ExitCode> {
    let mut targets: Vec<Target> = Vec::new();
    for path in &args.paths {
        targets.extend(resolve(path)?);
    }
    let segments: Vec<&Segment> = targets.iter().flat_map(Target::segments).collect();
    let writing = !args.check && !args.dry_run;
    // Held from before reading until the end: a broker starting meanwhile
    // cannot take it.
    let _locks = if writing && !args.write.ignore_lock {
        lock_log_dirs(&targets.iter().map(Target::log_dir).collect::<Vec<_>>())?
    } else {
        Vec::new()
    };
    let writer = if writing {
        let backup = if args.no_backup {
            None
        } else {
            let log_dirs: Vec<PathBuf> = targets.iter().map(Target::log_dir).collect();
            Some(Mutex::new(Backup::create(&super::backup_dir(
                args.write.backup_dir.as_deref(),
                &log_dirs,
            )?)?))
        };
        Some(Writer {
            force: args.force,
            backup,
        })
    } else {
        None
    };
    let bar = super::progress_bar(segments.iter().map(|s| s.log_size()).sum(), args.json);
    let reports: Vec<anyhow::Result<SegmentReport>> = segments
        .par_iter()
        .map(|s| {
            let mut report = check_segment(s, args)?;
            match &writer {
                Some(w) => w.write(&mut report)?,
                None => report.files.iter_mut().for_each(|f| f.bytes = Vec::new()),
            }
            bar.inc(s.log_size());
            Ok(report)
        })
        .collect();
    bar.finish_and_clear();
    let backup = writer
        .and_then(|w| w.backup)
        .map(|m| {
            m.into_inner()
                .map_err(|_| anyhow::anyhow!("a backup write failed"))
        })
        .transpose()?;
    let mut out = std::io::stdout().lock();
    let (mut written, mut unchanged, mut errors, mut differ) = (0, 0, 0, 0);
    for (segment, report) in segments.iter().zip(reports) {
        let report = match report {
            Ok(r) => r,
            Err(err) => {
                eprintln!("kseg: {}: {err:#}", segment.log_path().display());
                errors += 1;
                continue;
            }
        };
        if let Some(stop) = &report.stop {
            eprintln!(
                "kseg: {}: rebuild stops at byte {} ({}): {}",
                report.log.display(),
                stop.position(),
                if args.verify {
                    "recovery would truncate here"
                } else {
                    "the rest is not batches"
                },
                match stop {
                    StopReason::Framing(e) | StopReason::Invalid(e) => e.kind.to_string(),
                    other => format!("{other:?}"),
                }
            );
        }
        let txn_index = segment.txn_index_path();
        if txn_index.exists() && !args.json {
            writeln!(
                out,
                "{}: left as it is (kseg rebuilds .index and .timeindex; Kafka rebuilds .txnindex from producer state during recovery)",
                txn_index.display()
            )?;
        }
        for file in &report.files {
            let write = file.written;
            if file.status.needs_write() {
                differ += 1;
            } else {
                unchanged += 1;
            }
            let action = if write {
                "written"
            } else if file.status.needs_write() && !args.check {
                "would write"
            } else {
                ""
            };
            if args.json {
                serde_json::to_writer(
                    &mut out,
                    &json!({"type": "index", "path": file.path.display().to_string(),
                    "status": describe(&file.status), "ok": !file.status.needs_write(), "rebuiltEntries": file.entries, "action": action}),
                )?;
                writeln!(out)?;
            } else {
                writeln!(
                    out,
                    "{}: {}{}",
                    file.path.display(),
                    describe(&file.status),
                    if action.is_empty() {
                        String::new()
                    } else {
                        format!(" -> {action} ({} entries)", file.entries)
                    }
                )?;
            }
            if write {
                written += 1;
            }
        }
    }
    if !args.json {
        let mut table = Table::new();
        table.set_header([
            "segments",
            "indexes written",
            "unchanged",
            "needing a rebuild",
            "errors",
        ]);
        table.add_row([segments.len(), written, unchanged, differ, errors]);
        writeln!(out, "{table}")?;
        if let Some(b) = &backup {
            writeln!(
                out,
                "backup of replaced files: {} (undo with `kseg restore {}`)",
                b.dir().display(),
                b.dir().display()
            )?;
        }
    }
    Ok(if errors > 0 {
        ExitCode::Error
    } else if differ > 0 && !writing {
        ExitCode::Findings
    } else {
        ExitCode::Ok
    })
}
