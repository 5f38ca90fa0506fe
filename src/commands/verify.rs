//! `kseg verify`: CRCs and structure of every segment, and the verdict that
//! matters: what Kafka's recovery will do on the next start.

use std::io::Write;

use comfy_table::Table;
use serde_json::json;

use std::path::PathBuf;

use rayon::prelude::*;

use kseg::inspect::index_interval::{IndexInterval, choose_interval};
use kseg::inspect::partition_check::{LoadInputs, PartitionReport, check_partition};
use kseg::inspect::producer_state::{PRODUCER_BATCHES_IN_MEMORY, ProducerExpiry};
use kseg::inspect::recovery::SegmentAction;
use kseg::inspect::segment_check::SegmentCheckOptions;
use kseg::logdir::lock::lock_holder;
use kseg::logdir::target::resolve;
use kseg::logdir::{CachePolicy, LogDirError};
use kseg::render::index_rebuild::interval_source_json;
use kseg::render::recovery::write_plan;

use crate::cli::{PageCacheArg, RecoveryTargetArgs, VerifyArgs};
use crate::exit_code::ExitCode;

/// One partition, checked, with the `index.interval.bytes` its rebuilt
/// indexes use.
pub struct Checked {
    /// What the check found and what Kafka will do.
    pub report: PartitionReport,
    /// The interval recovery rebuilds indexes with, and where it came from.
    pub interval: IndexInterval,
}

/// Checks every partition the paths name (partitions and their segments in
/// parallel), with a progress bar on a terminal. `locked_by_us`: kseg holds
/// the log dirs' locks itself (asking about them would release them).
pub fn analyse(args: &RecoveryTargetArgs, locked_by_us: bool) -> anyhow::Result<Vec<Checked>> {
    let mut targets = Vec::new();
    for path in &args.paths {
        targets.extend(resolve(path)?);
    }
    let mut log_dirs: Vec<PathBuf> = targets.iter().map(|t| t.partition.log_dir()).collect();
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
    let now_ms = super::time_arg::clock(args.now.as_deref())?;
    let load = LoadInputs {
        recovery_point: args.recovery_point,
        expiry: ProducerExpiry {
            now_ms,
            expiration_ms: args.producer_id_expiration_ms,
        },
    };
    let total: u64 = targets
        .iter()
        .flat_map(|t| &t.partition.segments)
        .map(|s| s.log_size())
        .sum();
    let bar = super::progress_bar(total, args.json);
    let reports = targets
        .par_iter()
        .map(|target| {
            let cache = if restoring.contains(&target.partition.log_dir()) {
                CachePolicy::Restore
            } else {
                CachePolicy::Keep
            };
            let interval = choose_interval(&target.partition, args.index_interval_bytes.0)?;
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
            Ok::<_, LogDirError>(Checked { report, interval })
        })
        .collect::<Result<Vec<_>, _>>()?;
    bar.finish_and_clear();
    Ok(reports)
}

/// Partition directories marked for deletion in the log dirs among `paths`.
pub fn marked_for_deletion(paths: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    paths
        .iter()
        .filter(|p| kseg::logdir::LogDir::looks_like(p))
        .filter_map(|p| kseg::logdir::LogDir::open(p).ok())
        .flat_map(|d| d.marked_for_deletion)
        .collect()
}

/// Prints the reports; returns whether every partition is clean.
pub fn print_reports(checked: &[Checked], json_output: bool) -> anyhow::Result<bool> {
    let mut out = std::io::stdout().lock();
    let mut clean = true;
    let mut table = Table::new();
    table.set_header([
        "partition",
        "segments",
        "recovered",
        "bytes dropped",
        "segments deleted",
        "unseen damage",
        "stray files",
    ]);
    for Checked {
        report: r,
        interval,
    } in checked
    {
        let stray: Vec<String> = r
            .partition
            .stray
            .iter()
            .chain(&r.partition.orphan_indexes)
            .map(|p| p.display().to_string())
            .collect();
        clean &= r.plan.is_clean() && stray.is_empty();
        if json_output {
            serde_json::to_writer(
                &mut out,
                &json!({"type": "partition", "partition": r.partition.name(), "dir": r.partition.dir.display().to_string(),
                    "recoveryPointSource": r.recovery_point_source, "strayFiles": stray,
                    "snapshotsMissing": r.snapshots_missing, "plan": r.plan,
                    "indexInterval": {"bytes": interval.bytes, "source": interval_source_json(&interval.source)}}),
            )?;
            writeln!(out)?;
            continue;
        }
        write_plan(
            &mut out,
            &r.partition.name(),
            &r.plan,
            &r.recovery_point_source,
        )?;
        if r.plan.recovered().next().is_some() {
            writeln!(out, "  indexes rebuilt with {}", interval.describe())?;
        }
        for s in &stray {
            writeln!(
                out,
                "  stray file (Kafka deletes or renames it at start-up): {s}"
            )?;
        }
        if !r.snapshots_missing.is_empty() {
            writeln!(
                out,
                "  no producer snapshot at segment bases {:?}: loading replays producer state from an earlier snapshot or the log start (a slower start; nothing is lost)",
                r.snapshots_missing
            )?;
        }
        let deleted = r
            .plan
            .segments
            .iter()
            .filter(|s| matches!(s.action, SegmentAction::Delete { .. }))
            .count();
        table.add_row([
            r.partition.name(),
            r.plan.segments.len().to_string(),
            r.plan.recovered().count().to_string(),
            r.plan.truncation.map_or(0, |t| t.bytes_dropped).to_string(),
            deleted.to_string(),
            r.plan.unseen_damage.len().to_string(),
            stray.len().to_string(),
        ]);
    }
    if !json_output {
        writeln!(out, "{table}")?;
    }
    Ok(clean)
}

/// Runs `kseg verify`.
pub fn run(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let reports = analyse(&args.target, false)?;
    let clean = print_reports(&reports, args.target.json)?;
    for dir in marked_for_deletion(&args.target.paths) {
        if args.target.json {
            println!(
                "{}",
                json!({"type": "markedForDeletion", "dir": dir.display().to_string()})
            );
        } else {
            println!(
                "{}: marked for deletion; the broker removes it in the background",
                dir.display()
            );
        }
    }
    Ok(if clean {
        ExitCode::Ok
    } else {
        ExitCode::Findings
    })
}
