//! `kseg locate`: where an offset or a timestamp is, found the way the
//! broker finds it, with every step's numbers.

use std::io::Write;

use serde_json::{Value, json};

use kseg::format::BatchIter;
use kseg::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use kseg::inspect::locate::{
    EntryCount, find_by_timestamp, locate_in_segment, next_offset, scan_next_segment,
};
use kseg::inspect::segment_time::largest_timestamp;
use kseg::logdir::log_dir::offset_checkpoint_in;
use kseg::logdir::{CachePolicy, MappedFile, Partition};
use kseg::render::ByteEncoding;

use crate::cli::LocateArgs;
use crate::exit_code::ExitCode;

/// Runs `kseg locate`.
pub fn run(args: &LocateArgs) -> anyhow::Result<ExitCode> {
    let partition = Partition::open(&args.dir)?;
    anyhow::ensure!(
        !partition.segments.is_empty(),
        "{}: no segments (.log files) here",
        args.dir.display()
    );
    let log_start = match args.log_start_offset {
        Some(o) => o,
        None => log_start_from_checkpoint(&partition).unwrap_or(partition.segments[0].base_offset),
    };
    let count = if args.as_opened {
        EntryCount::AsOpened
    } else {
        EntryCount::Live
    };
    let (trace, code) = match (args.offset, &args.timestamp) {
        (Some(offset), _) => by_offset(&partition, offset, log_start, args.deep, count)?,
        (None, Some(ts)) => by_timestamp(
            &partition,
            super::time_arg::parse_time(ts)?,
            log_start,
            count,
        )?,
        (None, None) => unreachable!("clap requires one target"),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &trace)?;
        writeln!(out)?;
    } else {
        for line in trace["steps"].as_array().into_iter().flatten() {
            writeln!(out, "{}", line.as_str().unwrap_or_default())?;
        }
    }
    Ok(code)
}

fn log_start_from_checkpoint(partition: &Partition) -> Option<i64> {
    let checkpoint =
        offset_checkpoint_in(&partition.log_dir(), "log-start-offset-checkpoint").ok()?;
    let first = partition.segments.first()?.base_offset;
    checkpoint.get(&partition.name()).map(|&o| o.max(first))
}

fn open(partition: &Partition, i: usize) -> anyhow::Result<MappedFile> {
    Ok(MappedFile::open(
        &partition.segments[i].log_path(),
        CachePolicy::Restore,
    )?)
}

fn by_offset(
    partition: &Partition,
    target: i64,
    log_start: i64,
    deep: bool,
    count: EntryCount,
) -> anyhow::Result<(Value, ExitCode)> {
    let bases: Vec<i64> = partition.segments.iter().map(|s| s.base_offset).collect();
    let last = partition.segments.len() - 1;
    let log_end = next_offset(&partition.segments[last], open(partition, last)?.bytes());
    let mut steps = Vec::new();
    let mut trace = json!({"target": {"offset": target}, "logStartOffset": log_start, "logEndOffset": log_end, "segmentCount": bases.len()});
    let Some(i) = partition.floor_segment(target) else {
        steps.push(format!(
            "1. segment: no segment has a base offset <= {target} (first segment starts at {})",
            bases[0]
        ));
        return finish(
            trace,
            steps,
            None,
            format!(
                "offset {target} is before the log start; the earliest available offset is {log_start}"
            ),
        );
    };
    let seg = &partition.segments[i];
    let next = bases.get(i + 1);
    steps.push(format!(
        "1. segment: {} segments; {} <= {target}{} -> segment {:020}",
        bases.len(),
        seg.base_offset,
        next.map_or(String::new(), |n| format!(" < {n}")),
        seg.base_offset
    ));
    let log = open(partition, i)?;
    let (index, scan) = locate_in_segment(seg, log.bytes(), target, count);
    if let Some(problem) = &index.problem {
        steps.push(format!("2. index: {problem}"));
    } else {
        steps.push(format!(
            "2. index: {} entries, {}binary search read slots {:?} -> {} -> position {}",
            index.entries,
            if index.warm_section {
                "warm-section "
            } else {
                ""
            },
            index.probes,
            index.floor_offset,
            index.floor_position
        ));
    }
    for b in &scan.visited {
        steps.push(format!(
            "3. scan: batch {}..{} at position {} size {}",
            b.base_offset, b.last_offset, b.position, b.size_in_bytes
        ));
    }
    trace["segment"] = json!(seg.base_offset);
    trace["index"] = serde_json::to_value(&index)?;
    trace["scan"] = serde_json::to_value(&scan)?;
    let mut found = scan.found.map(|b| (seg.base_offset, b, log.bytes().len()));
    if let Some(err) = &scan.error {
        steps.push(format!("3. scan stopped: {err}"));
        trace["error"] = json!(err);
    }
    if found.is_none() && scan.error.is_none() {
        for (j, next_seg) in partition.segments.iter().enumerate().skip(i + 1) {
            let next_log = open(partition, j)?;
            let next_scan = scan_next_segment(next_seg, next_log.bytes(), target);
            if let Some(b) = next_scan.found {
                steps.push(format!("3. nothing at or above {target} in this segment; the read moves on to segment {:020}", next_seg.base_offset));
                found = Some((next_seg.base_offset, b, 0));
                trace["servedByNextSegment"] = serde_json::to_value(&next_scan)?;
                break;
            }
        }
    }
    trace["indexBytesRead"] = json!(index.bytes_read);
    trace["logBytesRead"] = json!(scan.bytes_read);
    let Some((segment_base, batch, _)) = found else {
        let message = if target >= log_end {
            format!("offset {target} is at or past the log end offset {log_end}")
        } else {
            format!(
                "offset {target} was not found: {}",
                scan.error
                    .clone()
                    .unwrap_or_else(|| "no batch holds it".into())
            )
        };
        return finish(trace, steps, None, message);
    };
    steps.push(format!(
        "4. found: batch {}..{} at position {} size {} in segment {segment_base:020}",
        batch.base_offset, batch.last_offset, batch.position, batch.size_in_bytes
    ));
    trace["result"] = json!({"segment": segment_base, "batch": batch});
    let seg_index = partition
        .segments
        .iter()
        .position(|s| s.base_offset == segment_base)
        .unwrap_or(i);
    let seg_log = open(partition, seg_index)?;
    let record = first_record_at_or_after(seg_log.bytes(), batch.position, target);
    if let Some((offset, line)) = &record {
        if deep {
            steps.push(format!("   record: {line}"));
        }
        trace["result"]["record"] = json!(line);
        if *offset != target && target >= log_start {
            let message = format!(
                "offset {target} was removed by compaction; a consumer fetching it gets offset {offset}, the next that exists"
            );
            trace["result"]["nextExistingOffset"] = json!(offset);
            return finish(trace, steps, Some(ExitCode::Findings), message);
        }
    }
    if target < log_start {
        return finish(
            trace,
            steps,
            None,
            format!(
                "offset {target} is before the log start offset {log_start}; the earliest available offset is {log_start}"
            ),
        );
    }
    finish(
        trace,
        steps,
        Some(ExitCode::Ok),
        format!(
            "offset {target} is in batch {}..{}",
            batch.base_offset, batch.last_offset
        ),
    )
}

fn first_record_at_or_after(log: &[u8], position: u64, target: i64) -> Option<(i64, String)> {
    let batch = BatchIter::new(log, position).next()?.ok()?;
    let mut scratch = Vec::new();
    let decoded = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
    let r = decoded.records.iter().find(|r| r.offset >= target)?;
    let show = |b: Option<&[u8]>| b.map_or("null".to_string(), |b| ByteEncoding::Utf8.render(b));
    let headers: Vec<String> = r
        .headers
        .iter()
        .map(|h| format!("{}={}", String::from_utf8_lossy(h.key), show(h.value)))
        .collect();
    Some((
        r.offset,
        format!(
            "offset: {} timestamp: {} key: {} value: {} headers: [{}]",
            r.offset,
            r.timestamp,
            show(r.key),
            show(r.value),
            headers.join(",")
        ),
    ))
}

fn finish(
    mut trace: Value,
    mut steps: Vec<String>,
    code: Option<ExitCode>,
    message: String,
) -> anyhow::Result<(Value, ExitCode)> {
    steps.push(message.clone());
    trace["message"] = json!(message);
    trace["steps"] = json!(steps);
    Ok((trace, code.unwrap_or(ExitCode::Findings)))
}

fn by_timestamp(
    partition: &Partition,
    target: i64,
    log_start: i64,
    count: EntryCount,
) -> anyhow::Result<(Value, ExitCode)> {
    let last = partition.segments.len() - 1;
    let mut steps = Vec::new();
    let mut trace = json!({"target": {"timestamp": target}, "logStartOffset": log_start});
    for (i, seg) in partition.segments.iter().enumerate() {
        let log = open(partition, i)?;
        let largest = largest_timestamp(seg, log.bytes(), i == last, count).value;
        if largest < target {
            continue;
        }
        steps.push(format!(
            "1. segment: {:020} is the first whose largest timestamp ({largest}) is >= {target}",
            seg.base_offset
        ));
        let (time, offset, scan, answer) =
            find_by_timestamp(seg, log.bytes(), target, log_start, count);
        steps.push(format!(
            "2. time index: {} entries, slots {:?} -> ({}, {})",
            time.entries, time.probes, time.floor_key, time.floor_offset
        ));
        steps.push(format!(
            "3. offset index: {} -> position {}",
            offset.floor_offset, offset.floor_position
        ));
        for b in &scan.visited {
            steps.push(format!(
                "4. scan: batch {}..{} at position {} max timestamp {}",
                b.base_offset, b.last_offset, b.position, b.max_timestamp
            ));
        }
        trace["segment"] = json!(seg.base_offset);
        trace["largestTimestamp"] = json!(largest);
        trace["timeIndex"] = serde_json::to_value(&time)?;
        trace["index"] = serde_json::to_value(&offset)?;
        trace["scan"] = serde_json::to_value(&scan)?;
        trace["result"] = serde_json::to_value(answer)?;
        return match answer {
            Some(a) => finish(
                trace,
                steps,
                Some(ExitCode::Ok),
                format!(
                    "timestamp {target}: offset {} (timestamp {})",
                    a.offset, a.timestamp
                ),
            ),
            None => finish(
                trace,
                steps,
                None,
                format!(
                    "timestamp {target}: no record in segment {:020} qualifies; Kafka does not look further",
                    seg.base_offset
                ),
            ),
        };
    }
    trace["result"] = Value::Null;
    finish(
        trace,
        steps,
        None,
        format!("timestamp {target} is newer than every record; Kafka returns no offset"),
    )
}
