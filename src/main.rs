//! The `kseg` binary: parse arguments, run one subcommand, map the outcome
//! to an exit code.

mod cli;
mod commands;
mod exit_code;
mod time_arg;

use clap::Parser;

use exit_code::ExitCode;

fn main() -> std::process::ExitCode {
    commands::install_sigbus_handler();
    let cli = cli::Cli::parse();
    let outcome = commands::run(cli);
    if std::env::var_os("KSEG_PEAK_RSS").is_some() {
        report_peak_rss();
    }
    match outcome {
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

/// With `KSEG_PEAK_RSS` set, prints this process's peak resident memory
/// (`VmHWM`) on stderr, for tests and benchmarks that bound it.
fn report_peak_rss() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        eprintln!(
            "kseg: peak RSS: {}",
            line.trim_start_matches("VmHWM:").trim()
        );
    }
}
