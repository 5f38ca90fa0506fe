//! `kseg recover`: Kafka's recovery, offline, planned first and backed up.

use std::path::PathBuf;

use kseg::logdir::target::resolve;
use kseg::repair::lock_log_dirs;
use kseg::repair::recovery::apply_checked;

use crate::cli::RecoverArgs;
use crate::exit_code::ExitCode;

/// Runs `kseg recover`.
pub fn run(args: &RecoverArgs) -> anyhow::Result<ExitCode> {
    if let Some(backup) = &args.undo {
        for path in kseg::repair::backup::restore(backup, args.write.ignore_lock)? {
            println!("restored {}", path.display());
        }
        return Ok(ExitCode::Ok);
    }
    if args.salvage {
        return super::recover_salvage::run(args);
    }
    // With --apply the log dirs are locked before they are read, and held
    // until the end: a broker starting meanwhile cannot take them.
    let locks = if args.apply && !args.write.ignore_lock {
        let mut log_dirs = Vec::new();
        for path in &args.target.paths {
            log_dirs.extend(resolve(path)?.iter().map(|t| t.partition.log_dir()));
        }
        lock_log_dirs(&log_dirs)?
    } else {
        Vec::new()
    };
    if !args.apply {
        let (clean, metadata) = super::verify::check_and_print(&args.target, false)?;
        let metadata = super::verify::metadata_or_load(&args.target.paths, metadata);
        let node =
            super::verify::node_files(&args.target.paths, args.target.json, metadata.as_ref())?;
        if node && !args.target.json {
            println!(
                "recover does not change meta.properties, bootstrap.checkpoint or the voter set: the findings above are for the operator"
            );
        }
        if !args.target.json {
            println!("dry run: nothing was changed; add --apply to carry this out");
        }
        return Ok(if clean && !node {
            ExitCode::Ok
        } else {
            ExitCode::Findings
        });
    }
    let reports = super::verify::analyse(&args.target, !locks.is_empty())?;
    super::verify::print_reports(&reports, args.target.json)?;
    let log_dirs: Vec<PathBuf> = reports
        .iter()
        .map(|c| c.report.partition.log_dir())
        .collect();
    let mut backup =
        kseg::repair::backup_place::backup_place(args.write.backup_dir.as_deref(), &log_dirs)?;
    if !args.target.json {
        println!(
            "backup: originals of the files this changes go to {}",
            backup.planned_dir().display()
        );
    }
    for checked in &reports {
        apply_checked(checked, &mut backup)
            .map_err(|err| super::failed_midway(err.into(), backup.created_dir()))?;
    }
    let backup = backup.into_backup();
    let dir = backup.as_ref().map(|b| b.dir().display().to_string());
    match (args.target.json, &dir) {
        (true, _) => println!("{}", serde_json::json!({"type": "applied", "backup": dir})),
        (false, Some(dir)) => println!(
            "applied; originals of every changed file are in {dir} (undo with `kseg recover --undo {dir}`)"
        ),
        (false, None) => println!("applied; nothing needed changing, so no backup was made"),
    }
    Ok(ExitCode::Ok)
}
