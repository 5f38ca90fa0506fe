//! `kseg retention-report`: when retention deletes each segment, and why
//! old data is still on disk.

use std::collections::BTreeMap;
use std::io::Write;

use kseg::format::properties::parse_properties;
use kseg::inspect::cluster::config::context::ConfigContext;
use kseg::inspect::cluster::config::internal_topics::metadata_retention;
use kseg::inspect::cluster::config::resolve::{TopicConfigs, apply_flags};
use kseg::inspect::cluster::config::source::{ConfigSource, Resolved};
use kseg::inspect::cluster::config::synonyms::{topic_config, topic_config_of_broker_name};
use kseg::inspect::retention::config::RetentionConfig;
use kseg::inspect::retention::metadata_log::MetadataRetention;
use kseg::inspect::retention::report::{ReportInputs, report_partition};
use kseg::logdir::target::resolve_pending;
use kseg::render::config::{Defaults, configs_json, write_ignored, write_settings};
use kseg::render::retention::{LogDirSummary, write_report};

use crate::cli::{KafkaVersion, RetentionReportArgs};
use crate::exit_code::ExitCode;

/// The metadata log's own limits, by name.
const METADATA_LIMITS: [&str; 2] = ["metadata.max.retention.bytes", "metadata.max.retention.ms"];

/// The settings given on the command line: `--config-file`, then
/// `--config NAME=VALUE`, then `--config TOPIC:NAME=VALUE` by topic.
struct Flags {
    shared: BTreeMap<String, String>,
    by_topic: BTreeMap<String, BTreeMap<String, String>>,
}

impl Flags {
    fn from_args(args: &RetentionReportArgs) -> anyhow::Result<Self> {
        let mut shared: BTreeMap<String, String> = BTreeMap::new();
        if let Some(file) = &args.config_file {
            let text = std::fs::read_to_string(file)
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let settings: BTreeMap<String, String> = parse_properties(&text).into_iter().collect();
            RetentionConfig::defaults(4)
                .apply(&without_metadata_limits(&settings))
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            shared.extend(settings);
        }
        let mut given = BTreeMap::new();
        let mut by_topic: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for c in &args.configs {
            let (k, v) = c.split_once('=').ok_or_else(|| {
                anyhow::anyhow!("--config {c:?}: expected NAME=VALUE or TOPIC:NAME=VALUE")
            })?;
            let (k, v) = (k.trim(), v.trim().to_string());
            match k.split_once(':') {
                Some((topic, name)) => {
                    by_topic
                        .entry(topic.to_string())
                        .or_default()
                        .insert(name.to_string(), v);
                }
                None => {
                    given.insert(k.to_string(), v);
                }
            }
        }
        RetentionConfig::defaults(4)
            .apply(&without_metadata_limits(&given))
            .map_err(|e| anyhow::anyhow!("--config {e}"))?;
        for (topic, settings) in &by_topic {
            RetentionConfig::defaults(4)
                .apply(&without_metadata_limits(settings))
                .map_err(|e| anyhow::anyhow!("--config {topic}:{e}"))?;
        }
        shared.extend(given);
        Ok(Self { shared, by_topic })
    }

    /// Every flag that applies to `topic`, the later ones winning.
    fn for_topic(&self, topic: Option<&str>) -> BTreeMap<String, String> {
        let mut out = self.shared.clone();
        if let Some(settings) = topic.and_then(|t| self.by_topic.get(t)) {
            out.extend(settings.clone());
        }
        out
    }
}

fn without_metadata_limits(settings: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    settings
        .iter()
        .filter(|(k, _)| !METADATA_LIMITS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// A topic's configs, flags laid over them, and the retention settings
/// made of them.
struct TopicSettings {
    configs: TopicConfigs,
    retention: RetentionConfig,
    metadata: Option<MetadataRetention>,
}

/// Whether a setting names retention.ms or retention.bytes (or a broker
/// synonym of them), which `KafkaMetadataLog` fixes at -1 for the metadata
/// log whatever is configured: given for `__cluster_metadata`, it is
/// ignored, with a warning.
fn fixed_for_metadata_log(name: &str) -> bool {
    let def = topic_config(name).or_else(|| topic_config_of_broker_name(name).map(|(d, _)| d));
    let fixed = def.is_some_and(|d| matches!(d.name, "retention.ms" | "retention.bytes"));
    if fixed {
        eprintln!(
            "kseg: {name}: ignored for __cluster_metadata: Kafka fixes its retention.ms and retention.bytes at -1; its segments go only below a snapshot, by metadata.max.retention.bytes and metadata.max.retention.ms"
        );
    }
    fixed
}

fn parse_limit(r: &Resolved, name: &str) -> anyhow::Result<i64> {
    r.value
        .trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("{name}: {:?} is not an integer", r.value))
}

fn settings_for(
    ctx: &ConfigContext,
    flags: &Flags,
    topic: Option<&str>,
) -> anyhow::Result<TopicSettings> {
    let mut configs = ctx.topic(topic.unwrap_or_default());
    let mut given = flags.for_topic(topic);
    if topic == Some("__cluster_metadata") {
        given.retain(|name, _| !fixed_for_metadata_log(name));
    }
    let mut rest = apply_flags(&mut configs, &given);
    let mut retention = RetentionConfig::defaults(ctx.kafka_major);
    let topic_values: BTreeMap<String, String> = configs
        .iter()
        .filter(|(n, _)| RetentionConfig::TOPIC_SETTINGS.contains(&n.as_str()))
        .map(|(n, r)| (n.clone(), r.value.clone()))
        .collect();
    retention
        .apply(&topic_values)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let check = "log.retention.check.interval.ms";
    if let Some(v) = ctx.static_props.as_ref().and_then(|p| p.get(check)) {
        let mut r = Resolved::new(v.trim(), ConfigSource::StaticBroker);
        if let Some(flag) = rest.get(check) {
            r = Resolved::new(flag.trim(), ConfigSource::Flag);
        }
        configs.insert(check.to_string(), r);
    } else if let Some(flag) = rest.get(check) {
        configs.insert(
            check.to_string(),
            Resolved::new(flag.trim(), ConfigSource::Flag),
        );
    }
    let metadata = if topic == Some("__cluster_metadata") {
        let (bytes, ms) = metadata_retention(ctx.static_props.as_ref());
        for (name, mut r) in METADATA_LIMITS.into_iter().zip([bytes, ms]) {
            if let Some(flag) = rest.get(name) {
                r = Resolved::new(flag.trim(), ConfigSource::Flag);
            }
            configs.insert(name.to_string(), r);
        }
        Some(MetadataRetention {
            max_bytes: parse_limit(&configs[METADATA_LIMITS[0]], METADATA_LIMITS[0])?,
            max_ms: parse_limit(&configs[METADATA_LIMITS[1]], METADATA_LIMITS[1])?,
        })
    } else {
        None
    };
    rest.retain(|k, _| !METADATA_LIMITS.contains(&k.as_str()));
    retention
        .apply(&rest)
        .map_err(|e| anyhow::anyhow!("--config {e}"))?;
    Ok(TopicSettings {
        configs,
        retention,
        metadata,
    })
}

/// The names shown for a report: the retention settings, the broker's
/// check interval and, for the metadata log, its own limits.
fn shown(settings: &TopicSettings) -> Vec<&str> {
    settings
        .configs
        .keys()
        .map(String::as_str)
        .filter(|n| {
            RetentionConfig::TOPIC_SETTINGS.contains(n)
                || METADATA_LIMITS.contains(n)
                || *n == "log.retention.check.interval.ms"
        })
        .collect()
}

/// A warning when the settings given for a partition's topic contradict
/// what its log dir shows: an entry in `cleaner-offset-checkpoint` means
/// the cleaner compacts the topic, so `cleanup.policy` includes `compact`.
fn policy_warning(
    partition: &kseg::logdir::Partition,
    topic: Option<&str>,
    config: &RetentionConfig,
) -> anyhow::Result<Option<String>> {
    if config.compact
        || partition
            .checkpointed_offset("cleaner-offset-checkpoint")?
            .is_none()
    {
        return Ok(None);
    }
    let topic = topic.unwrap_or("TOPIC");
    Ok(Some(format!(
        "warning: {} has an entry in cleaner-offset-checkpoint, so its topic is compacted, but the settings applied here have no compact in cleanup.policy; pass --config {topic}:cleanup.policy=compact (or compact,delete) for its real fates",
        partition.name()
    )))
}

fn max_map_count() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Runs `kseg retention-report`.
pub fn run(args: &RetentionReportArgs) -> anyhow::Result<ExitCode> {
    let flags = Flags::from_args(args)?;
    let now = super::time_arg::clock(args.now.as_deref())?;
    let targets = resolve_pending(&args.path)?;
    let major = match args.kafka_version {
        KafkaVersion::V3 => 3,
        KafkaVersion::V4 => 4,
    };
    let log_dir = targets.first().map(|t| t.log_dir());
    let ctx = super::cluster_args::context(log_dir.as_deref(), &args.cluster, major)?;
    let mut out = std::io::stdout().lock();
    let mut summary = LogDirSummary::default();
    for pending in &targets {
        let target = pending.open()?;
        let topic = target
            .partition
            .topic_partition
            .as_ref()
            .map(|(t, _)| t.as_str());
        let settings = settings_for(&ctx, &flags, topic)?;
        let inputs = ReportInputs {
            now,
            log_start_offset: args.log_start_offset,
            high_watermark: args.high_watermark,
            metadata_retention: settings.metadata,
        };
        let config = &settings.retention;
        let report = report_partition(&target.partition, config, inputs)?;
        let warning = policy_warning(&target.partition, topic, config)?;
        let names = shown(&settings);
        if args.json {
            serde_json::to_writer(
                &mut out,
                &serde_json::json!({
                    "type": "partition",
                    "report": report,
                    "warning": warning,
                    "configs": configs_json(&settings.configs, &names),
                    "configsFrom": ctx.describe(),
                }),
            )?;
            writeln!(out)?;
        } else {
            write_report(&mut out, &report, config)?;
            if let Some(warning) = &warning {
                writeln!(out, "  {warning}")?;
            }
            writeln!(out, "  settings ({}):", ctx.describe())?;
            write_settings(&mut out, "    ", &settings.configs, &names, Defaults::Named)?;
            writeln!(out)?;
        }
        summary.add(&report);
    }
    if !args.json {
        write_ignored(&mut out, "", &ctx.ignored())?;
    }
    if targets.len() > 1 && !args.json {
        summary.write(&mut out, max_map_count())?;
    }
    Ok(ExitCode::Ok)
}
