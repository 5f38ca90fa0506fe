//! One module per subcommand: arguments in, library calls, rendered output,
//! exit code out.

mod cluster_args;
mod config;
mod diverge;
mod dump;
mod export;
mod generate;
mod groups;
mod history;
mod locate;
mod metadata;
mod rebuild_index;
mod recover;
mod recover_salvage;
mod remote;
mod report;
mod retention_report;
mod salvage;
mod transactions;
mod verify;
mod verify_remote;

use std::path::Path;

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
        Command::History(args) => history::run(&args),
        Command::Groups(args) => groups::run(&args),
        Command::Transactions(args) => transactions::run(&args),
        Command::Remote(args) => remote::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Generate(args) => generate::run(&args),
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
