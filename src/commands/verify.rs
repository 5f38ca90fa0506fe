//! `kseg verify`: CRCs and structure of every segment, and the verdict that
//! matters: what Kafka's recovery will do on the next start.

use serde_json::json;

use std::path::PathBuf;

use rayon::prelude::*;

use kseg::inspect::cluster::config::context::MetadataOrigin;
use kseg::inspect::cluster::metadata::find_metadata_partition;
use kseg::inspect::producer::state::{PRODUCER_BATCHES_IN_MEMORY, ProducerExpiry};
use kseg::inspect::recovery::node_files::{MetadataLogView, check_node_files};
use kseg::inspect::recovery::partition::{CheckedPartition, LoadInputs, check_partition};
use kseg::inspect::recovery::segment::SegmentCheckOptions;
use kseg::logdir::lock::lock_holder;
use kseg::logdir::target::{PendingTarget, resolve_pending};
use kseg::logdir::{CachePolicy, LogDirError};
use kseg::render::OutputFormat;
use kseg::render::recovery::{ReportWriter, write_reports};

use std::io::Write;

use crate::cli::{PageCacheArg, RecoveryTargetArgs, VerifyArgs};
use crate::exit_code::ExitCode;

/// Partitions checked in parallel at a time: their reports are handed on
/// and dropped before the next ones start, so memory does not grow with
/// the number of partitions.
const PARTITIONS_AT_A_TIME: usize = 64;

/// Checks every partition the paths name (partitions and their segments in
/// parallel), with a progress bar on a terminal. `locked_by_us`: kseg holds
/// the log dirs' locks itself (asking about them would release them).
pub fn analyse(
    args: &RecoveryTargetArgs,
    locked_by_us: bool,
) -> anyhow::Result<Vec<CheckedPartition>> {
    let mut all = Vec::new();
    analyse_each(args, locked_by_us, &mut |c| {
        all.push(c);
        Ok(())
    })?;
    Ok(all)
}

/// [`analyse`], handing each partition's report to `each` in order as soon
/// as it and those before it are done. Returns the metadata image read for
/// the topics' configs, if one was.
pub fn analyse_each(
    args: &RecoveryTargetArgs,
    locked_by_us: bool,
    each: &mut dyn FnMut(CheckedPartition) -> anyhow::Result<()>,
) -> anyhow::Result<Option<MetadataOrigin>> {
    let mut targets = Vec::new();
    for path in &args.paths {
        targets.extend(resolve_pending(path)?);
    }
    let mut log_dirs: Vec<PathBuf> = targets.iter().map(PendingTarget::log_dir).collect();
    log_dirs.sort();
    log_dirs.dedup();
    let mut restoring = Vec::new();
    for dir in log_dirs {
        let holder = if locked_by_us {
            None
        } else {
            lock_holder(&dir).map_err(|e| LogDirError::io(&dir.join(".lock"), e))?
        };
        if let Some(holder) = holder {
            eprintln!(
                "kseg: {} is held by {holder}: these are live files, read as they are now",
                dir.join(".lock").display()
            );
        }
        let restore = match args.page_cache {
            PageCacheArg::Auto => holder.is_some(),
            PageCacheArg::Keep => false,
            PageCacheArg::Restore => true,
        };
        if restore {
            restoring.push(dir);
        }
    }
    let now_ms = crate::time_arg::clock(args.now);
    let load = LoadInputs {
        recovery_point: args.recovery_point,
        expiry: ProducerExpiry {
            now_ms,
            expiration_ms: args.producer_id_expiration_ms,
        },
    };
    let ctx = super::cluster_args::interval_context(
        targets.first().map(|t| t.log_dir()).as_deref(),
        &args.cluster,
        args.index_interval_bytes.0,
    )?;
    // Grows as each chunk of partitions is opened.
    let bar = super::progress_bar(0, args.json);
    for pending in targets.chunks(PARTITIONS_AT_A_TIME) {
        let chunk = pending
            .iter()
            .map(PendingTarget::open)
            .collect::<Result<Vec<_>, _>>()?;
        bar.inc_length(
            chunk
                .iter()
                .flat_map(|t| &t.partition.segments)
                .map(|s| s.log_size())
                .sum(),
        );
        let reports = chunk
            .par_iter()
            .map(|target| {
                let cache = if restoring.contains(&target.partition.log_dir()) {
                    CachePolicy::Restore
                } else {
                    CachePolicy::Keep
                };
                let interval = kseg::inspect::index::interval::configured_interval(
                    &ctx,
                    &target.partition,
                    args.index_interval_bytes.0,
                )?;
                let report = check_partition(
                    &target.partition,
                    &SegmentCheckOptions {
                        interval: interval.bytes,
                        deep: args.deep,
                        cache,
                        producer_batches_in_memory: PRODUCER_BATCHES_IN_MEMORY,
                    },
                    &load,
                    &|n| bar.inc(n),
                )?;
                Ok::<_, LogDirError>(CheckedPartition { report, interval })
            })
            .collect::<Result<Vec<_>, _>>()?;
        for report in reports {
            each(report)?;
        }
        super::release_freed_memory();
    }
    bar.finish_and_clear();
    Ok(ctx.metadata)
}

/// Partition directories marked for deletion in the log dirs among `paths`.
pub fn marked_for_deletion(paths: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    paths
        .iter()
        .filter(|p| kseg::logdir::LogDir::looks_like(p))
        .filter_map(|p| kseg::logdir::LogDir::marked_dirs(p).ok())
        .flatten()
        .collect()
}

/// Prints the reports as text or JSON; returns whether every partition is clean.
pub fn print_reports(checked: &[CheckedPartition], json_output: bool) -> anyhow::Result<bool> {
    let format = OutputFormat::json_if(json_output);
    write_reports(&mut std::io::stdout().lock(), checked, format)?;
    Ok(checked.iter().all(|c| c.report.is_clean()))
}

/// Checks and prints every partition the paths name, each as it is done
/// (see [`analyse_each`]); returns whether every partition is clean, and
/// the metadata image read on the way.
pub fn check_and_print(
    args: &RecoveryTargetArgs,
    locked_by_us: bool,
) -> anyhow::Result<(bool, Option<MetadataOrigin>)> {
    let mut writer = ReportWriter::new(OutputFormat::json_if(args.json));
    let stdout = std::io::stdout();
    let metadata = analyse_each(args, locked_by_us, &mut |c| {
        let mut out = stdout.lock();
        writer.write(&mut out, &c)?;
        out.flush()?;
        Ok(())
    })?;
    let clean = writer.clean();
    writer.finish(&mut stdout.lock())?;
    Ok((clean, metadata))
}

/// The metadata image read while checking, else the one of the first
/// path holding a metadata log (none when it does not load: the commands
/// using it say why).
pub fn metadata_or_load(
    paths: &[PathBuf],
    metadata: Option<MetadataOrigin>,
) -> Option<MetadataOrigin> {
    metadata.or_else(|| {
        let path = paths
            .iter()
            .find(|p| find_metadata_partition(p).is_some())?;
        MetadataOrigin::load(path).ok().map(|(origin, _)| origin)
    })
}

/// Judges the node files of the log dirs among `paths` (`meta.properties`,
/// `bootstrap.checkpoint`, the node in the voter set) and prints the
/// findings; returns whether any counts.
pub fn node_files(
    paths: &[PathBuf],
    json: bool,
    metadata: Option<&MetadataOrigin>,
) -> anyhow::Result<bool> {
    let dirs: Vec<PathBuf> = paths
        .iter()
        .filter(|p| kseg::logdir::LogDir::looks_like(p))
        .cloned()
        .collect();
    let view = metadata.map(|m| MetadataLogView {
        partition_dir: &m.path,
        voters: m.quorum.voters.as_ref(),
        empty: m.offset < 0,
    });
    let findings = check_node_files(&dirs, view)?;
    kseg::render::recovery::write_node_findings(
        &mut std::io::stdout().lock(),
        &findings,
        OutputFormat::json_if(json),
    )?;
    Ok(findings.iter().any(|f| f.outcome.counts()))
}

/// Runs `kseg verify`.
pub fn run(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let remote = !args.remote.is_empty() && super::verify_remote::verify_remote(args)?;
    if args.target.paths.is_empty() && !args.remote.is_empty() {
        return Ok(if remote {
            ExitCode::Findings
        } else {
            ExitCode::Ok
        });
    }
    let (clean, metadata) = check_and_print(&args.target, false)?;
    for dir in marked_for_deletion(&args.target.paths) {
        if args.target.json {
            let fate = kseg::render::dir_form::fate_json(&dir);
            let v = json!({"type": "markedForDeletion", "dir": dir.display().to_string(), "dirForm": fate});
            println!("{v}");
        } else {
            println!("{}: marked for deletion", dir.display());
            if let Some(line) = kseg::render::dir_form::fate_line(&dir) {
                println!("{line}");
            }
        }
    }
    let metadata = metadata_or_load(&args.target.paths, metadata);
    // A stray replica is a finding: the broker moves it aside on its next start.
    let strays =
        super::metadata::verify_strays(&args.target.paths, args.target.json, metadata.as_ref())?;
    let node = node_files(&args.target.paths, args.target.json, metadata.as_ref())?;
    let tiers = super::remote::verify_tiers(&args.target.paths, args.target.json)?;
    Ok(if clean && !strays && !node && !tiers && !remote {
        ExitCode::Ok
    } else {
        ExitCode::Findings
    })
}
