//! `kseg recover`: Kafka's recovery, offline, planned first and backed up.

use std::path::PathBuf;

use kseg::repair::recovery::apply_recovery;
use kseg::repair::{Backup, ensure_unlocked};

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
    let reports = super::verify::analyse(&args.target)?;
    let clean = super::verify::print_reports(&reports, args.target.json)?;
    if !args.apply {
        if !args.target.json {
            println!("dry run: nothing was changed; add --apply to carry this out");
        }
        return Ok(if clean {
            ExitCode::Ok
        } else {
            ExitCode::Findings
        });
    }
    let log_dirs: Vec<PathBuf> = reports.iter().map(|r| r.partition.log_dir()).collect();
    if !args.write.ignore_lock {
        for dir in &log_dirs {
            ensure_unlocked(dir)?;
        }
    }
    let mut backup = Backup::create(&super::backup_dir(
        args.write.backup_dir.as_deref(),
        &log_dirs,
    )?)?;
    for r in &reports {
        apply_recovery(
            &r.partition.dir,
            &r.plan,
            &r.checks,
            &r.snapshots,
            &r.state.leader_epochs,
            &mut backup,
        )?;
    }
    println!(
        "applied; originals of every changed file are in {} (undo with `kseg recover --undo {}`)",
        backup.dir().display(),
        backup.dir().display()
    );
    Ok(ExitCode::Ok)
}
