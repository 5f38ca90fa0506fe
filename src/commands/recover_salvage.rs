//! `kseg recover --salvage`: instead of Kafka's truncation, cut only the
//! damaged byte ranges out and keep every valid batch and segment after
//! them; then rebuild indexes, `.txnindex` files and producer snapshots by
//! Kafka's recovery from the first cut segment on. Planned first, locked,
//! backed up, atomic, undone by `kseg restore`.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;

use kseg::format::checkpoint::{LeaderEpochEntry, parse_leader_epoch_checkpoint};
use kseg::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use kseg::inspect::recovery::salvage::{
    CostTracker, ReadOptions, RecordFilter, SalvageReport, read_partition,
};
use kseg::logdir::target::{Target, resolve};
use kseg::render::OutputFormat;
use kseg::render::salvage::{write_cost, write_report};
use kseg::repair::backup::LazyBackup;
use kseg::repair::lock_log_dirs;
use kseg::repair::recovery::apply_checked;
use kseg::repair::salvage::cut_damaged_ranges;

use crate::cli::{RecoverArgs, RecoveryTargetArgs};
use crate::exit_code::ExitCode;

fn leader_epochs(target: &Target) -> anyhow::Result<Vec<LeaderEpochEntry>> {
    let path = target.partition.leader_epoch_checkpoint_path();
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
    parse_leader_epoch_checkpoint(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// The recovery inputs of `args` for one partition directory, recovering
/// from `recovery_point`.
fn recovery_args(
    args: &RecoveryTargetArgs,
    dir: PathBuf,
    recovery_point: i64,
) -> RecoveryTargetArgs {
    RecoveryTargetArgs {
        paths: vec![dir],
        recovery_point: Some(recovery_point),
        index_interval_bytes: args.index_interval_bytes,
        deep: args.deep,
        json: args.json,
        page_cache: args.page_cache,
        now: args.now,
        producer_id_expiration_ms: args.producer_id_expiration_ms,
        cluster: args.cluster.clone(),
    }
}

/// Cuts one partition's damaged ranges out, then runs Kafka's recovery from
/// the first cut segment on.
fn cut_and_recover(
    out: &mut impl Write,
    target: &Target,
    report: &SalvageReport,
    args: &RecoverArgs,
    format: OutputFormat,
    backup: &mut LazyBackup,
) -> anyhow::Result<()> {
    for segment in &report.segments {
        let cut = cut_damaged_ranges(segment, backup)?;
        match (cut, format) {
            (0, _) => {}
            (_, OutputFormat::Json) => writeln!(
                out,
                "{}",
                serde_json::json!({"type": "cut", "file": segment.file.display().to_string(), "bytes": cut})
            )?,
            (_, OutputFormat::Text) => {
                writeln!(out, "cut {cut} bytes out of {}", segment.file.display())?
            }
        }
    }
    let first_cut = report
        .segments
        .iter()
        .find(|s| !s.damages.is_empty())
        .map_or(0, |s| s.base_offset);
    let recovery = recovery_args(&args.target, target.partition.dir.clone(), first_cut);
    let checked = super::verify::analyse(&recovery, true)?;
    super::verify::print_reports(&checked, args.target.json)?;
    for c in &checked {
        apply_checked(c, backup)?;
    }
    Ok(())
}

/// Runs `kseg recover --salvage`.
pub fn run(args: &RecoverArgs) -> anyhow::Result<ExitCode> {
    let mut targets = Vec::new();
    for path in &args.target.paths {
        // A cut changes the whole partition's offsets: always whole partitions.
        targets.extend(resolve(path)?.into_iter().map(|t| Target {
            only_segment: None,
            ..t
        }));
    }
    let log_dirs: Vec<PathBuf> = targets.iter().map(Target::log_dir).collect();
    let _locks = if args.apply && !args.write.ignore_lock {
        lock_log_dirs(&log_dirs)?
    } else {
        Vec::new()
    };
    let options = ReadOptions {
        salvage: true,
        max_batch_bytes: DEFAULT_DECOMPRESS_LIMIT,
        filter: RecordFilter::everything(),
    };
    let format = OutputFormat::json_if(args.target.json);
    let mut out = io::stdout().lock();
    let mut damaged: Vec<(Target, SalvageReport)> = Vec::new();
    for target in targets {
        let mut cost = CostTracker::default();
        let report = read_partition(&target, options, |_, event| {
            cost.event(&event);
            ControlFlow::Continue(())
        })?;
        write_report(&mut out, &report, format)?;
        if report.is_clean() {
            continue;
        }
        let cost = cost.finish(&report, &leader_epochs(&target)?);
        write_cost(&mut out, &report.partition, &cost, format)?;
        if format == OutputFormat::Text {
            writeln!(
                out,
                "  NOTE {}: only this broker's copy changes; replicas on other brokers are left as they are (as a follower this broker truncates to its leader's log; as the leader, its followers fetch across the gap)",
                report.partition
            )?;
        }
        damaged.push((target, report));
    }
    if !args.apply {
        if !args.target.json {
            writeln!(
                out,
                "dry run: nothing was changed; add --apply to cut the damaged ranges out and rebuild indexes, .txnindex files and producer snapshots"
            )?;
        }
        return Ok(if damaged.is_empty() {
            ExitCode::Ok
        } else {
            ExitCode::Findings
        });
    }
    let mut backup =
        kseg::repair::backup_place::backup_place(args.write.backup_dir.as_deref(), &log_dirs)?;
    for (target, report) in &damaged {
        cut_and_recover(&mut out, target, report, args, format, &mut backup)?;
    }
    let backup = backup.into_backup();
    let dir = backup.as_ref().map(|b| b.dir().display().to_string());
    if format == OutputFormat::Json {
        writeln!(
            out,
            "{}",
            serde_json::json!({"type": "applied", "backup": dir})
        )?;
        return Ok(ExitCode::Ok);
    }
    match dir {
        Some(dir) => writeln!(
            out,
            "applied; originals of every changed file are in {dir} (undo with `kseg restore {dir}`)"
        )?,
        None => writeln!(
            out,
            "applied; nothing needed changing, so no backup was made"
        )?,
    }
    Ok(ExitCode::Ok)
}
