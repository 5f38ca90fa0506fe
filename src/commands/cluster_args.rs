//! `--metadata` and `--server-properties`: the config context a command
//! gives each topic.

use std::path::Path;

use kseg::inspect::cluster::config::context::ConfigContext;
use kseg::inspect::cluster::config::source::ConfigSource;
use kseg::inspect::index::interval::{IndexInterval, IntervalSource, choose_interval};
use kseg::logdir::{LogDirError, Partition};

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

/// The context [`interval_for`] needs: none at all when the interval is
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

/// The `index.interval.bytes` for `partition`: `--index-interval-bytes`
/// when given; else the topic's config when something sets it (the
/// metadata log, server.properties, an internal topic's rule); else
/// inferred from its offset indexes, as before.
pub fn interval_for(
    ctx: &ConfigContext,
    partition: &Partition,
    given: Option<u64>,
) -> Result<IndexInterval, LogDirError> {
    if given.is_some() {
        return choose_interval(partition, given);
    }
    let configured = partition
        .topic_partition
        .as_ref()
        .and_then(|(topic, _)| ctx.topic(topic).remove("index.interval.bytes"))
        .filter(|r| r.source != ConfigSource::Default);
    if let Some(r) = configured {
        if let Ok(bytes) = r.value.trim().parse::<u64>() {
            return Ok(IndexInterval {
                bytes,
                source: IntervalSource::Configured {
                    source: r.source.name(),
                    described: r.describe(),
                    offset: r.offset,
                },
            });
        }
    }
    choose_interval(partition, None)
}
