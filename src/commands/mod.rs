//! One module per subcommand: arguments in, library calls, rendered output,
//! exit code out.

mod cluster_args;
mod config;
mod diverge;
mod dump;
mod export;
mod generate;
mod groups;
mod locate;
mod metadata;
mod rebuild_index;
mod recover;
mod recover_salvage;
mod retention_report;
mod salvage;
mod time_arg;
mod transactions;
mod verify;

use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command};
use crate::exit_code::ExitCode;

/// Runs the chosen subcommand.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Dump(args) => dump::run(&args),
        Command::Locate(args) => locate::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Recover(args) => recover::run(&args),
        Command::RetentionReport(args) => retention_report::run(&args),
        Command::RebuildIndex(args) => rebuild_index::run(&args),
        Command::Diverge(args) => diverge::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Salvage(args) => salvage::run(&args),
        Command::Config(args) => config::run(&args),
        Command::Restore(args) => {
            for path in kseg::repair::backup::restore(&args.backup, args.ignore_lock)? {
                println!("restored {}", path.display());
            }
            Ok(ExitCode::Ok)
        }
        Command::Metadata(args) => metadata::run(&args),
        Command::Groups(args) => groups::run(&args),
        Command::Transactions(args) => transactions::run(&args),
        Command::Generate(args) => generate::run(&args),
    }
}

/// Where a writing command's backup goes: the directory asked for (which
/// must not exist yet), or a new `kseg-backup-<unix ms>-<pid>` (with `-2`,
/// `-3`, … appended if taken, so runs in a loop or in parallel never share
/// one) in the current directory, or beside the log dir when the current
/// directory is inside one. Never inside a log dir, where the broker would
/// take it for a partition and refuse to start; paths are compared after
/// resolving `..` and symlinks. Nothing is created yet.
pub fn backup_place(
    asked: Option<&Path>,
    log_dirs: &[PathBuf],
) -> anyhow::Result<kseg::repair::backup::LazyBackup> {
    let log_dirs = log_dirs
        .iter()
        .map(|d| resolved(d).map(|r| (d, r)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let inside = |path: &Path| log_dirs.iter().find(|(_, real)| path.starts_with(real));
    let dir = match asked {
        Some(dir) => resolved(dir)?,
        None => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            let name = format!("kseg-backup-{now}-{}", std::process::id());
            let cwd = resolved(Path::new("."))?;
            match inside(&cwd) {
                None => cwd.join(name),
                Some((_, log_dir)) => log_dir.parent().unwrap_or(Path::new("/")).join(name),
            }
        }
    };
    if let Some((log_dir, _)) = inside(&dir) {
        anyhow::bail!(
            "backup directory {} is inside log dir {}; Kafka would refuse to start with it there. Pass --backup-dir elsewhere",
            dir.display(),
            log_dir.display()
        );
    }
    Ok(kseg::repair::backup::LazyBackup::new(dir, asked.is_none()))
}

/// `path` made absolute, with symlinks and `..` resolved as far as it
/// exists, and the rest (not created yet) appended without `.` and `..`.
fn resolved(path: &Path) -> anyhow::Result<PathBuf> {
    let absolute = std::path::absolute(path)
        .map_err(|e| anyhow::anyhow!("resolving {}: {e}", path.display()))?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                match part {
                    std::path::Component::ParentDir => {
                        out.pop();
                    }
                    std::path::Component::Normal(name) => out.push(name),
                    _ => {}
                }
            }
            return Ok(out);
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return Ok(absolute),
        }
    }
}

/// What to say when a writing command fails after it began to change
/// files: where the originals are and the command that puts them back.
pub fn failed_midway(err: anyhow::Error, backup: Option<&Path>) -> anyhow::Error {
    match backup {
        Some(dir) => anyhow::anyhow!(
            "{err:#}\nsome files were already changed; their originals are in {0}: `kseg restore {0}` puts them back",
            dir.display()
        ),
        None => err,
    }
}

/// A byte-count progress bar on stderr, or a hidden one when stderr is not a
/// terminal or the output is JSON.
pub fn progress_bar(total: u64, json: bool) -> indicatif::ProgressBar {
    if json || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        return indicatif::ProgressBar::hidden();
    }
    let style = indicatif::ProgressStyle::with_template(
        "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    indicatif::ProgressBar::new(total).with_style(style)
}

/// Hands memory freed by the worker threads back to the system: each thread
/// allocates from its own arena, which the allocator would otherwise keep,
/// so resident memory would grow with the number of partitions walked.
pub fn release_freed_memory() {
    // SAFETY: malloc_trim only returns free pages of the allocator's arenas.
    #[cfg(target_env = "gnu")]
    unsafe {
        libc::malloc_trim(0);
    }
}

extern "C" fn on_sigbus(_: libc::c_int) {
    const MSG: &[u8] = b"kseg: a file shrank while kseg was reading it (SIGBUS): another process truncated it. Stop the broker or copy the files, then run kseg again.\n";
    // SAFETY: write(2) and _exit(2) are async-signal-safe.
    unsafe {
        libc::write(2, MSG.as_ptr().cast(), MSG.len());
        libc::_exit(2);
    }
}

/// Turns a SIGBUS from a mapped file truncated under kseg into a clear
/// message and exit code 2 instead of a crash.
pub fn install_sigbus_handler() {
    // SAFETY: installs a handler that only calls async-signal-safe functions.
    unsafe {
        libc::signal(libc::SIGBUS, on_sigbus as *const () as libc::sighandler_t);
    }
}
