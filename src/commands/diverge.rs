//! `kseg diverge`: what each replica truncates when it follows the leader
//! and which records that loses; `--export` writes the lost batches.

use std::path::{Path, PathBuf};

use kseg::inspect::diverge::{DivergeReport, Replica, analyze, load_replica};
use kseg::render::OutputFormat;
use kseg::render::diverge::write_report;
use kseg::repair::lost_export::export_batches;

use crate::cli::DivergeArgs;
use crate::exit_code::ExitCode;

fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// The replicas to load and the index of `--leader` among them (appended
/// when it is not one of the directories given).
fn replica_dirs(args: &DivergeArgs) -> (Vec<PathBuf>, Option<usize>) {
    let mut dirs = args.dirs.clone();
    let leader = args.leader.as_ref().map(|l| {
        let wanted = absolute(l);
        dirs.iter()
            .position(|d| absolute(d) == wanted)
            .unwrap_or_else(|| {
                dirs.push(l.clone());
                dirs.len() - 1
            })
    });
    (dirs, leader)
}

/// Writes each follower's lost batches under `out`.
fn export(report: &DivergeReport, out: &Path) -> anyhow::Result<()> {
    let target = absolute(out.parent().unwrap_or(Path::new(".")));
    for r in &report.replicas {
        if target.starts_with(absolute(&r.dir)) {
            anyhow::bail!(
                "--export {} is inside replica {}: kseg diverge never writes to its inputs",
                out.display(),
                r.dir.display()
            );
        }
    }
    if out.exists() {
        anyhow::bail!(
            "--export {} exists already; give a new directory",
            out.display()
        );
    }
    for f in &report.followers {
        let r: &Replica = &report.replicas[f.replica];
        let split = r
            .batches
            .partition_point(|b| b.last_offset < f.truncation.truncation_offset);
        let lost = r.batches.get(split..).unwrap_or_default();
        if lost.is_empty() {
            continue;
        }
        let dir = out
            .join(format!("replica-{}", f.replica + 1))
            .join(r.partition.name());
        let files = export_batches(&r.dir, lost, &dir, r.topic_id.as_deref())?;
        eprintln!(
            "exported {} lost batches of {} to {} ({} segment{})",
            lost.len(),
            r.dir.display(),
            dir.display(),
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

/// Runs `kseg diverge`.
pub fn run(args: &DivergeArgs) -> anyhow::Result<ExitCode> {
    let (dirs, leader) = replica_dirs(args);
    let replicas = dirs
        .iter()
        .map(|d| load_replica(d))
        .collect::<Result<Vec<_>, _>>()?;
    let report = analyze(replicas, leader)?;
    write_report(
        &mut std::io::stdout().lock(),
        &report,
        OutputFormat::json_if(args.json),
    )?;
    if let Some(out) = &args.export {
        export(&report, out)?;
    }
    let diverged = report
        .followers
        .iter()
        .any(|f| f.lost.all.batches > 0 || f.prefix.first_divergence.is_some());
    Ok(if diverged {
        ExitCode::Findings
    } else {
        ExitCode::Ok
    })
}
