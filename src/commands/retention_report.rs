//! `kseg retention-report`: when retention deletes each segment, and why
//! old data is still on disk.

use std::collections::BTreeMap;
use std::io::Write;

use kseg::format::properties::parse_properties;
use kseg::inspect::retention::config::RetentionConfig;
use kseg::inspect::retention::report::{ReportInputs, report_partition};
use kseg::logdir::target::resolve;
use kseg::render::retention::{LogDirSummary, write_report};

use crate::cli::{KafkaVersion, RetentionReportArgs};
use crate::exit_code::ExitCode;

/// The settings every topic gets (Kafka's defaults, `--config-file`, then
/// `--config NAME=VALUE`), and the `--config TOPIC:NAME=VALUE` overrides by
/// topic.
struct Configs {
    shared: RetentionConfig,
    by_topic: BTreeMap<String, BTreeMap<String, String>>,
}

impl Configs {
    fn from_args(args: &RetentionReportArgs) -> anyhow::Result<Self> {
        let mut shared = RetentionConfig::defaults(match args.kafka_version {
            KafkaVersion::V3 => 3,
            KafkaVersion::V4 => 4,
        });
        if let Some(file) = &args.config_file {
            let text = std::fs::read_to_string(file)
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            shared
                .apply(&parse_properties(&text).into_iter().collect())
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        }
        let mut settings = BTreeMap::new();
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
                    settings.insert(k.to_string(), v);
                }
            }
        }
        shared
            .apply(&settings)
            .map_err(|e| anyhow::anyhow!("--config {e}"))?;
        let configs = Self { shared, by_topic };
        for topic in configs.by_topic.keys() {
            configs.for_topic(Some(topic))?;
        }
        Ok(configs)
    }

    /// The settings of `topic`: the shared ones with its overrides.
    fn for_topic(&self, topic: Option<&str>) -> anyhow::Result<RetentionConfig> {
        let mut config = self.shared.clone();
        if let Some(settings) = topic.and_then(|t| self.by_topic.get(t)) {
            config
                .apply(settings)
                .map_err(|e| anyhow::anyhow!("--config {}:{e}", topic.unwrap_or_default()))?;
        }
        Ok(config)
    }
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
    let configs = Configs::from_args(args)?;
    let now = super::time_arg::clock(args.now.as_deref())?;
    let inputs = ReportInputs {
        now,
        log_start_offset: args.log_start_offset,
        high_watermark: args.high_watermark,
    };
    let targets = resolve(&args.path)?;
    let mut out = std::io::stdout().lock();
    let mut summary = LogDirSummary::default();
    for target in &targets {
        let topic = target
            .partition
            .topic_partition
            .as_ref()
            .map(|(t, _)| t.as_str());
        let config = configs.for_topic(topic)?;
        let report = report_partition(&target.partition, &config, inputs)?;
        let warning = policy_warning(&target.partition, topic, &config)?;
        if args.json {
            serde_json::to_writer(
                &mut out,
                &serde_json::json!({"type": "partition", "report": report, "warning": warning}),
            )?;
            writeln!(out)?;
        } else {
            write_report(&mut out, &report, &config)?;
            if let Some(warning) = &warning {
                writeln!(out, "  {warning}")?;
            }
            writeln!(out)?;
        }
        summary.add(&report);
    }
    if targets.len() > 1 && !args.json {
        summary.write(&mut out, max_map_count())?;
    }
    Ok(ExitCode::Ok)
}
