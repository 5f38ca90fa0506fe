//! `kseg config`: every topic's effective configs, with where each value
//! comes from.

use std::io::Write;

use kseg::inspect::cluster::config::listing::{topics, topics_of_partition};
use kseg::logdir::target::resolve;
use kseg::render::config::{Defaults, configs_json, write_ignored, write_settings};

use crate::cli::ConfigArgs;
use crate::exit_code::ExitCode;

/// Runs `kseg config`.
pub fn run(args: &ConfigArgs) -> anyhow::Result<ExitCode> {
    let path = &args.path;
    let is_partition = kseg::logdir::Partition::looks_like(path);
    let (log_dir, partitions) = if is_partition {
        let partition = kseg::logdir::Partition::open(path)?;
        (partition.log_dir(), vec![partition])
    } else {
        let partitions: Vec<_> = resolve(path)?.into_iter().map(|t| t.partition).collect();
        (path.clone(), partitions)
    };
    let ctx =
        super::cluster_args::context(Some(&log_dir), &args.cluster, args.kafka_version.major())?;
    let mut only = args.topic.clone();
    if is_partition && only.is_empty() {
        only = topics_of_partition(&partitions[0]);
    }
    // The metadata partition as PATH: every topic of its image.
    let whole_image = is_partition && only.is_empty();
    if whole_image && args.json {
        eprintln!(
            "kseg: {} is the metadata partition: every topic its image names is described",
            path.display()
        );
    }
    let entries = topics(&ctx, &partitions, &only);
    for missing in only
        .iter()
        .filter(|t| !entries.iter().any(|e| &e.topic == *t))
    {
        eprintln!(
            "kseg: topic {missing}: neither the metadata image nor the log dir has it; its configs would be the broker's"
        );
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        for e in &entries {
            serde_json::to_writer(
                &mut out,
                &serde_json::json!({
                    "type": "topic",
                    "topic": e.topic,
                    "topicId": e.topic_id,
                    "inMetadata": e.in_metadata,
                    "partitionDirs": e.partition_dirs,
                    "configs": configs_json(&e.configs, &[]),
                }),
            )?;
            writeln!(out)?;
        }
        for i in ctx.ignored() {
            let mut v = serde_json::to_value(&i)?;
            v["type"] = "ignoredBrokerConfig".into();
            serde_json::to_writer(&mut out, &v)?;
            writeln!(out)?;
        }
        return Ok(super::cluster_args::code(&ctx));
    }
    writeln!(out, "configs from: {}", ctx.describe())?;
    if whole_image {
        writeln!(
            out,
            "topics: every topic the metadata image names (PATH is the metadata partition; give the log dir for its other partition directories)"
        )?;
    }
    for e in &entries {
        let id = e.topic_id.as_deref().unwrap_or("unknown");
        let whence = match (e.in_metadata, e.partition_dirs.is_empty()) {
            (true, true) => "in the metadata image; no partition here".to_string(),
            (true, false) => format!(
                "in the metadata image; partitions here {:?}",
                e.partition_dirs
            ),
            (false, _) => format!(
                "not in the metadata image; partitions here {:?}",
                e.partition_dirs
            ),
        };
        writeln!(out, "\n{} (topic id {id}; {whence})", e.topic)?;
        let defaults = if args.all {
            Defaults::Each
        } else {
            Defaults::Counted
        };
        write_settings(&mut out, "  ", &e.configs, &[], defaults)?;
    }
    let ignored = ctx.ignored();
    if !ignored.is_empty() {
        writeln!(out)?;
        write_ignored(&mut out, "", &ignored)?;
    }
    Ok(super::cluster_args::code(&ctx))
}
