//! `kseg rebuild-index`: rebuild `.index`/`.timeindex` as Kafka's recovery
//! would, check existing ones, or write the ones that differ.

use std::io::Write;
use std::path::PathBuf;

use rayon::prelude::*;

use kseg::inspect::index::plan::{SegmentIndexPlan, WriteMode, plan_segment};
use kseg::logdir::Segment;
use kseg::logdir::target::{PendingTarget, resolve_pending};
use kseg::render::OutputFormat;
use kseg::render::index_rebuild::{
    RebuildTally, stop_message, write_interval, write_segment, write_summary, write_txn_index_note,
};
use kseg::repair::index_rebuild::IndexWriter;
use kseg::repair::{Backup, lock_log_dirs};

use crate::cli::RebuildIndexArgs;
use crate::exit_code::ExitCode;

/// Partitions planned in parallel at a time.
const PARTITIONS_AT_A_TIME: usize = 64;

/// Runs `kseg rebuild-index`.
pub fn run(args: &RebuildIndexArgs) -> anyhow::Result<ExitCode> {
    let mut targets: Vec<PendingTarget> = Vec::new();
    for path in &args.paths {
        targets.extend(resolve_pending(path)?);
    }
    let mode = match (args.check, args.dry_run, args.force) {
        (true, _, _) => WriteMode::Check,
        (_, true, _) => WriteMode::DryRun,
        (_, _, true) => WriteMode::Force,
        _ => WriteMode::Write,
    };
    let log_dirs: Vec<PathBuf> = targets.iter().map(PendingTarget::log_dir).collect();
    // Held from before reading until the end: a broker starting meanwhile
    // cannot take it.
    let _locks = if mode.writes() && !args.write.ignore_lock {
        lock_log_dirs(&log_dirs)?
    } else {
        Vec::new()
    };
    let writer = index_writer(args, mode, &log_dirs)?;
    let ctx = super::cluster_args::interval_context(
        log_dirs.first().map(PathBuf::as_path),
        &args.cluster,
        args.index_interval_bytes.0,
    )?;
    // Grows as each chunk of partitions is opened.
    let bar = super::progress_bar(0, args.json);
    let format = OutputFormat::json_if(args.json);
    let mut out = std::io::stdout().lock();
    let mut tally = RebuildTally::default();
    // A chunk of partitions at a time, each printed and dropped before the
    // next: memory does not grow with the number of partitions.
    for pending in targets.chunks(PARTITIONS_AT_A_TIME) {
        let chunk = pending
            .iter()
            .map(PendingTarget::open)
            .collect::<Result<Vec<_>, _>>()?;
        let intervals = chunk
            .iter()
            .map(|t| {
                kseg::inspect::index::interval::configured_interval(
                    &ctx,
                    &t.partition,
                    args.index_interval_bytes.0,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let segments: Vec<(&Segment, u64)> = chunk
            .iter()
            .zip(&intervals)
            .flat_map(|(t, i)| t.segments().map(|s| (s, i.bytes)))
            .collect();
        tally.segments += segments.len();
        bar.inc_length(segments.iter().map(|(s, _)| s.log_size()).sum());
        let plans: Vec<anyhow::Result<SegmentIndexPlan>> = segments
            .par_iter()
            .map(|&(s, interval)| {
                let (plan, rebuilt) = plan_segment(s, interval, args.verify, mode)?;
                if let Some(w) = &writer {
                    w.apply(&plan, &rebuilt)?;
                }
                bar.inc(s.log_size());
                Ok(plan)
            })
            .collect();
        for (target, interval) in chunk.iter().zip(&intervals) {
            write_interval(&mut out, &target.partition.name(), interval, format)?;
        }
        for ((segment, _), plan) in segments.iter().zip(plans) {
            let plan = match plan {
                Ok(p) => p,
                Err(err) => {
                    eprintln!("kseg: {}: {err:#}", segment.log_path().display());
                    tally.errors += 1;
                    continue;
                }
            };
            if let Some(stop) = &plan.stop {
                eprintln!("kseg: {}", stop_message(&plan, stop, args.verify));
            }
            let txn_index = segment.txn_index_path();
            if txn_index.exists() && format == OutputFormat::Text {
                write_txn_index_note(&mut out, &txn_index)?;
            }
            write_segment(&mut out, &plan, format, &mut tally)?;
        }
    }
    bar.finish_and_clear();
    let backup = writer.map(IndexWriter::into_backup).transpose()?.flatten();
    if format == OutputFormat::Text {
        write_summary(&mut out, &tally, backup.as_ref().map(Backup::dir))?;
    }
    out.flush()?;
    Ok(outcome(&tally, backup.as_ref(), mode))
}

/// The writer of a run that writes, with its backup unless `--no-backup`.
fn index_writer(
    args: &RebuildIndexArgs,
    mode: WriteMode,
    log_dirs: &[PathBuf],
) -> anyhow::Result<Option<IndexWriter>> {
    if !mode.writes() {
        return Ok(None);
    }
    let backup = if args.no_backup {
        None
    } else {
        Some(kseg::repair::backup_place::backup_place(
            args.write.backup_dir.as_deref(),
            log_dirs,
        )?)
    };
    Ok(Some(IndexWriter::new(backup)))
}

/// The exit code, after saying where the originals are when segments failed.
fn outcome(tally: &RebuildTally, backup: Option<&Backup>, mode: WriteMode) -> ExitCode {
    if tally.errors > 0 {
        if let Some(dir) = backup.map(Backup::dir) {
            eprintln!(
                "kseg: {} segments failed; files already changed have their originals in {1}: `kseg restore {1}` puts them back",
                tally.errors,
                dir.display()
            );
        }
        ExitCode::Error
    } else if tally.needing_rebuild > 0 && !mode.writes() {
        ExitCode::Findings
    } else {
        ExitCode::Ok
    }
}
