//! The `kseg` binary: parse arguments, run one subcommand, map the outcome
//! to an exit code.

mod cli;
mod commands;
mod exit_code;

use clap::Parser;

use exit_code::ExitCode;

fn main() -> std::process::ExitCode {
    commands::install_sigbus_handler();
    let cli = cli::Cli::parse();
    match commands::run(cli) {
        Ok(code) => code.into(),
        Err(err) if is_broken_pipe(&err) => ExitCode::Ok.into(),
        Err(err) => {
            eprintln!("kseg: {err:#}");
            ExitCode::Error.into()
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
