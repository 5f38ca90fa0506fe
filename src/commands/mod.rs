//! One module per subcommand: arguments in, library calls, rendered output,
//! exit code out.

mod dump;
mod generate;

use crate::cli::{Cli, Command};
use crate::exit_code::ExitCode;

/// Runs the chosen subcommand.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Dump(args) => dump::run(&args),
        Command::Generate(args) => generate::run(&args),
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
