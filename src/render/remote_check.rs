//! `kseg verify --remote`'s lines: one per remote segment, its findings
//! beneath it, and a summary per prefix.

use std::io::{self, Write};

use serde_json::json;

use super::OutputFormat;
use crate::inspect::recovery::remote_segment::RemoteSegmentCheck;

/// Writes one remote segment's check with its `findings`.
pub fn write_remote_check(
    out: &mut impl Write,
    check: &RemoteSegmentCheck,
    findings: &[String],
    format: OutputFormat,
) -> io::Result<()> {
    let build = &check.build;
    match format {
        OutputFormat::Json => {
            let v = json!({
                "type": "remoteSegment",
                "url": check.url,
                "layout": check.layout,
                "baseOffset": check.base_offset,
                "size": check.size,
                "batches": build.batches,
                "records": build.records,
                "validBytes": build.valid_bytes,
                "nextOffset": build.next_offset,
                "maxTimestamp": build.max_timestamp,
                "offsetIndex": check.offset_index,
                "timeIndex": check.time_index,
                "findings": findings,
            });
            serde_json::to_writer(&mut *out, &v)?;
            writeln!(out)
        }
        OutputFormat::Text => {
            let offsets = if build.batches == 0 {
                "no batches".to_string()
            } else {
                format!(
                    "offsets {}..{}, {} batches",
                    check.audit.first_offset.unwrap_or(build.next_offset),
                    build.next_offset - 1,
                    build.batches
                )
            };
            let verdict = if findings.is_empty() {
                "ok"
            } else {
                "FINDINGS"
            };
            writeln!(
                out,
                "{} ({}): {offsets}, {} bytes: {verdict}",
                check.url, check.layout, check.size
            )?;
            for finding in findings {
                writeln!(out, "  {finding}")?;
            }
            Ok(())
        }
    }
}

/// Writes the summary of the remote segments under `url`.
pub fn write_remote_summary(
    out: &mut impl Write,
    url: &str,
    segments: usize,
    with_findings: usize,
    format: OutputFormat,
) -> io::Result<()> {
    match format {
        OutputFormat::Json => {
            let v = json!({"type": "remoteSummary", "url": url, "segments": segments, "withFindings": with_findings});
            serde_json::to_writer(&mut *out, &v)?;
            writeln!(out)
        }
        OutputFormat::Text => writeln!(
            out,
            "{url}: {segments} remote segments, {with_findings} with findings"
        ),
    }
}
