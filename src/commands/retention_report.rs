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

fn config(args: &RetentionReportArgs) -> anyhow::Result<RetentionConfig> {
    let mut config = RetentionConfig::defaults(match args.kafka_version {
        KafkaVersion::V3 => 3,
        KafkaVersion::V4 => 4,
    });
    if let Some(file) = &args.config_file {
        let text = std::fs::read_to_string(file)
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        config
            .apply(&parse_properties(&text).into_iter().collect())
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    }
    let mut settings = BTreeMap::new();
    for c in &args.configs {
        let (k, v) = c
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--config {c:?}: expected NAME=VALUE"))?;
        settings.insert(k.trim().to_string(), v.trim().to_string());
    }
    config
        .apply(&settings)
        .map_err(|e| anyhow::anyhow!("--config {e}"))?;
    Ok(config)
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
    let config = config(args)?;
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
        let report = report_partition(&target.partition, &config, inputs)?;
        if args.json {
            serde_json::to_writer(
                &mut out,
                &serde_json::json!({"type": "partition", "report": report}),
            )?;
            writeln!(out)?;
        } else {
            write_report(&mut out, &report, &config)?;
            writeln!(out)?;
        }
        summary.add(&report);
    }
    if targets.len() > 1 && !args.json {
        summary.write(&mut out, max_map_count())?;
    }
    Ok(ExitCode::Ok)
}
