//! `kseg locate`'s trace: numbered step lines ending in the answer, or one
//! JSON object holding the same steps beside every number behind them.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::inspect::locate::{OffsetLookup, OffsetVerdict, RecordAt, TimestampLookup};

use super::{ByteEncoding, OutputFormat};

/// A lookup ready to print: its step lines (the last is the answer in
/// words) and its JSON form.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    steps: Vec<String>,
    json: Value,
}

impl Trace {
    fn finish(mut steps: Vec<String>, mut json: Value, message: String) -> Self {
        steps.push(message.clone());
        json["message"] = json!(message);
        json["steps"] = json!(steps);
        Self { steps, json }
    }

    /// The number of the last numbered step before the answer (0 if none).
    pub(crate) fn last_step_number(&self) -> usize {
        self.steps
            .iter()
            .rev()
            .skip(1)
            .find_map(|s| s.split_once(". ")?.0.parse().ok())
            .unwrap_or(0)
    }

    /// Replaces the answer (the last step) by `steps`, then `message` as
    /// the new answer, with `value` under `key` in the JSON form.
    pub(crate) fn replace_answer(
        &mut self,
        steps: Vec<String>,
        key: &str,
        value: Value,
        message: String,
    ) {
        self.steps.pop();
        self.steps.extend(steps);
        self.steps.push(message.clone());
        self.json[key] = value;
        self.json["message"] = json!(message);
        self.json["steps"] = json!(self.steps);
    }

    /// Writes the trace: one line per step, or the JSON object.
    pub fn write(&self, out: &mut impl Write, format: OutputFormat) -> io::Result<()> {
        match format {
            OutputFormat::Json => {
                serde_json::to_writer_pretty(&mut *out, &self.json)?;
                writeln!(out)
            }
            OutputFormat::Text => self.steps.iter().try_for_each(|s| writeln!(out, "{s}")),
        }
    }
}

/// A record as one line: offset, timestamp, key, value and headers.
fn record_line(r: &RecordAt) -> String {
    let show = |b: Option<&[u8]>| b.map_or("null".to_string(), |b| ByteEncoding::Utf8.render(b));
    let headers: Vec<String> = r
        .headers
        .iter()
        .map(|(k, v)| format!("{}={}", String::from_utf8_lossy(k), show(v.as_deref())))
        .collect();
    format!(
        "offset: {} timestamp: {} key: {} value: {} headers: [{}]",
        r.offset,
        r.timestamp,
        show(r.key.as_deref()),
        show(r.value.as_deref()),
        headers.join(",")
    )
}

/// The trace of a lookup by offset; `deep` adds the record found as a step.
pub fn offset_trace(lookup: &OffsetLookup, deep: bool) -> Trace {
    let target = lookup.target;
    let bases = &lookup.segment_bases;
    let mut steps = Vec::new();
    let mut json = json!({"target": {"offset": target}, "logStartOffset": lookup.log_start_offset,
        "logEndOffset": lookup.log_end_offset, "segmentCount": bases.len()});
    let Some(floor) = &lookup.floor else {
        steps.push(format!(
            "1. segment: no segment has a base offset <= {target} (first segment starts at {})",
            bases.first().copied().unwrap_or_default()
        ));
        return Trace::finish(steps, json, offset_message(lookup));
    };
    let base = bases[floor.segment_index];
    steps.push(format!(
        "1. segment: {} segments; {base} <= {target}{} -> segment {base:020}",
        bases.len(),
        bases
            .get(floor.segment_index + 1)
            .map_or(String::new(), |n| format!(" < {n}")),
    ));
    let index = &floor.index;
    steps.push(match &index.problem {
        Some(problem) => format!("2. index: {problem}"),
        None => format!(
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
        ),
    });
    for b in &floor.scan.visited {
        steps.push(format!(
            "3. scan: batch {}..{} at position {} size {}",
            b.base_offset, b.last_offset, b.position, b.size_in_bytes
        ));
    }
    json["segment"] = json!(base);
    json["index"] = json!(index);
    json["scan"] = json!(floor.scan);
    if let Some(err) = &floor.scan.error {
        steps.push(format!("3. scan stopped: {err}"));
        json["error"] = json!(err);
    }
    if let (Some(next), Some(found)) = (&floor.served_by_next, &lookup.found) {
        steps.push(format!(
            "3. nothing at or above {target} in this segment; the read moves on to segment {:020}",
            found.segment
        ));
        json["servedByNextSegment"] = json!(next);
    }
    json["indexBytesRead"] = json!(index.bytes_read);
    json["logBytesRead"] = json!(floor.scan.bytes_read);
    if let Some(found) = &lookup.found {
        let b = &found.batch;
        steps.push(format!(
            "4. found: batch {}..{} at position {} size {} in segment {:020}",
            b.base_offset, b.last_offset, b.position, b.size_in_bytes, found.segment
        ));
        json["result"] = json!({"segment": found.segment, "batch": b});
        if let Some(record) = &found.record {
            let line = record_line(record);
            if deep {
                steps.push(format!("   record: {line}"));
            }
            json["result"]["record"] = json!(line);
        }
        if let OffsetVerdict::Compacted { next_offset } = lookup.verdict {
            json["result"]["nextExistingOffset"] = json!(next_offset);
        }
    }
    Trace::finish(steps, json, offset_message(lookup))
}

/// The answer to a lookup by offset, in words.
fn offset_message(lookup: &OffsetLookup) -> String {
    let (target, log_start) = (lookup.target, lookup.log_start_offset);
    match &lookup.verdict {
        OffsetVerdict::BeforeFirstSegment => format!(
            "offset {target} is before the log start; the earliest available offset is {log_start}"
        ),
        OffsetVerdict::PastLogEnd => format!(
            "offset {target} is at or past the log end offset {}",
            lookup.log_end_offset
        ),
        OffsetVerdict::NotFound(why) => format!("offset {target} was not found: {why}"),
        OffsetVerdict::Compacted { next_offset } => format!(
            "offset {target} was removed by compaction; a consumer fetching it gets offset {next_offset}, the next that exists"
        ),
        OffsetVerdict::BeforeLogStart => format!(
            "offset {target} is before the log start offset {log_start}; the earliest available offset is {log_start}"
        ),
        OffsetVerdict::Found => match &lookup.found {
            Some(f) => format!(
                "offset {target} is in batch {}..{}",
                f.batch.base_offset, f.batch.last_offset
            ),
            None => format!("offset {target} was found"),
        },
    }
}

/// The trace of a lookup by timestamp.
pub fn timestamp_trace(lookup: &TimestampLookup) -> Trace {
    let target = lookup.target;
    let mut steps = Vec::new();
    let mut json =
        json!({"target": {"timestamp": target}, "logStartOffset": lookup.log_start_offset});
    let Some(seg) = &lookup.segment else {
        json["result"] = Value::Null;
        return Trace::finish(
            steps,
            json,
            format!("timestamp {target} is newer than every record; Kafka returns no offset"),
        );
    };
    steps.push(format!(
        "1. segment: {:020} is the first whose largest timestamp ({}) is >= {target}",
        seg.base_offset, seg.largest_timestamp
    ));
    let (time, offset) = (&seg.time_index, &seg.offset_index);
    steps.push(match &time.problem {
        Some(problem) => format!("2. time index: {problem}"),
        None => format!(
            "2. time index: {} entries, slots {:?} -> ({}, {})",
            time.entries, time.probes, time.floor_key, time.floor_offset
        ),
    });
    steps.push(match &offset.problem {
        Some(problem) => format!(
            "3. offset index: {problem} -> position {}",
            offset.floor_position
        ),
        None => format!(
            "3. offset index: {} -> position {}",
            offset.floor_offset, offset.floor_position
        ),
    });
    for b in &seg.scan.visited {
        steps.push(format!(
            "4. scan: batch {}..{} at position {} max timestamp {}",
            b.base_offset, b.last_offset, b.position, b.max_timestamp
        ));
    }
    json["segment"] = json!(seg.base_offset);
    json["largestTimestamp"] = json!(seg.largest_timestamp);
    json["timeIndex"] = json!(time);
    json["index"] = json!(offset);
    json["scan"] = json!(seg.scan);
    json["result"] = json!(seg.answer);
    let message = match seg.answer {
        Some(a) => format!(
            "timestamp {target}: offset {} (timestamp {})",
            a.offset, a.timestamp
        ),
        None => format!(
            "timestamp {target}: no record in segment {:020} qualifies; Kafka does not look further",
            seg.base_offset
        ),
    };
    Trace::finish(steps, json, message)
}
