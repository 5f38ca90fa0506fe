//! `--metadata` and `--server-properties`: the config context a command
//! gives each topic.

use std::path::Path;

use kseg::inspect::cluster::config::context::ConfigContext;

use crate::cli::ClusterConfigArgs;

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
