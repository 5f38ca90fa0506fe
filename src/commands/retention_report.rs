//! `kseg retention-report`: when retention deletes each segment, and why
//! old data is still on disk.

use std::io::Write;

use kseg::inspect::retention::report::{ReportInputs, report_partition};
use kseg::inspect::retention::settings::{policy_warning, settings_for};
use kseg::logdir::target::resolve_pending;
use kseg::render::config::{Defaults, configs_json, write_ignored, write_settings};
use kseg::render::retention::{LogDirSummary, write_report};

use crate::cli::RetentionReportArgs;
use crate::exit_code::ExitCode;

fn max_map_count() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Runs `kseg retention-report`.
pub fn run(args: &RetentionReportArgs) -> anyhow::Result<ExitCode> {
    let flags = args.flags()?;
    let now = crate::time_arg::clock(args.now);
    let targets = resolve_pending(&args.path)?;
    let log_dir = targets.first().map(|t| t.log_dir());
    let major = args.kafka_version.major();
    let ctx = super::cluster_args::context(log_dir.as_deref(), &args.cluster, major)?;
    let mut out = std::io::stdout().lock();
    let mut summary = LogDirSummary::default();
    let filter = args.filter();
    // Replayed once, when the first tiered topic needs it.
    let mut remote = None;
    for pending in &targets {
        let target = pending.open()?;
        let topic = target
            .partition
            .topic_partition
            .as_ref()
            .map(|(t, _)| t.as_str());
        if !filter.keeps_topic(topic) {
            continue;
        }
        let settings = settings_for(&ctx, &flags, topic).map_err(anyhow::Error::msg)?;
        for ignored in &settings.ignored {
            eprintln!("kseg: {ignored}");
        }
        if remote.is_none()
            && settings.retention.remote_storage_enable
            && let Some(dir) = &log_dir
        {
            remote = Some(super::remote::remote_metadata(
                &args.remote_log_metadata,
                dir,
            )?);
        }
        let inputs = ReportInputs {
            now,
            log_start_offset: args.log_start_offset,
            high_watermark: args.high_watermark,
            metadata_retention: settings.metadata,
            remote: remote
                .as_ref()
                .and_then(Option::as_ref)
                .map(|(state, _)| state),
        };
        let config = &settings.retention;
        let report = report_partition(&target.partition, config, inputs)?;
        let warning = policy_warning(&target.partition, topic, config)?;
        // A tiered topic's local segments go by its local retention settings.
        let config = &config.for_local_segments();
        if !filter.keeps(&report, warning.is_some()) {
            continue;
        }
        let names = settings.shown();
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
    if summary.is_empty() && !targets.is_empty() {
        eprintln!("kseg: no partition matches the filters");
    } else if targets.len() > 1 && !args.json {
        summary.write(&mut out, max_map_count())?;
    }
    Ok(super::cluster_args::code(&ctx))
}
