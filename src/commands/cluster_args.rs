//! `--metadata` and `--server-properties`: the config context a command
//! gives each topic.

use std::path::Path;

use kseg::inspect::cluster::config::context::ConfigContext;

use crate::cli::ClusterConfigArgs;
use crate::exit_code::ExitCode;

/// The context for partitions of `log_dir`: `--server-properties`, the
/// node id from `meta.properties`, and the metadata log named by
/// `--metadata` or found in the log dir.
pub fn context(
    log_dir: Option<&Path>,
    args: &ClusterConfigArgs,
    kafka_major: u8,
) -> anyhow::Result<ConfigContext> {
    let ctx = ConfigContext::load(
        log_dir,
        args.metadata.as_deref(),
        args.server_properties.as_deref(),
        kafka_major,
    )?;
    for warning in &ctx.warnings {
        eprintln!("kseg: metadata log: {warning}");
    }
    Ok(ctx)
}

/// The context `interval_for` needs: none at all when the interval is
/// given on the command line (the metadata log is then not read).
pub fn interval_context(
    log_dir: Option<&Path>,
    args: &ClusterConfigArgs,
    given: Option<u64>,
) -> anyhow::Result<ConfigContext> {
    match given {
        Some(_) => Ok(ConfigContext::default()),
        None => context(log_dir, args, 4),
    }
}

/// Exit code 1 when the metadata log's image was built around damage (a
/// snapshot skipped for an older one, a log that stops early, a metadata
/// log that does not read), as `kseg metadata` exits: the configs shown
/// may not be the ones the broker holds.
pub fn code(ctx: &ConfigContext) -> ExitCode {
    if ctx.warnings.is_empty() {
        ExitCode::Ok
    } else {
        ExitCode::Findings
    }
}
