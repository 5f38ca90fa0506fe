//! `kseg remote` output: each partition's remote segments as
//! `__remote_log_metadata` leaves them, uploads and deletes that never
//! finished named, as text or one JSON object per partition.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::time::utc;
use crate::inspect::cluster::remote::{
    RemoteLogState, RemotePartition, RemoteSegment, SegmentState,
};

/// Whether the segment's upload or delete never finished.
fn is_stuck(s: &RemoteSegment) -> bool {
    matches!(
        s.state,
        SegmentState::CopyStarted | SegmentState::DeleteStarted
    )
}

/// What a segment stuck in its state means for the operator.
fn stuck_reason(s: &RemoteSegment) -> &'static str {
    match s.state {
        SegmentState::CopyStarted => {
            "an upload that never finished: its objects may lie partly in remote storage, and readers are not served from it (the cache maps offsets only to finished copies)"
        }
        _ => {
            "a delete that never finished: its objects may still lie in remote storage, taking space, while readers are no longer served from it"
        }
    }
}

fn segment_json(p: &RemotePartition, s: &RemoteSegment) -> Value {
    json!({
        "replaced": p.is_replaced(s),
        "id": s.id, "startOffset": s.start_offset, "endOffset": s.end_offset,
        "leaderEpochs": s.leader_epochs.iter().map(|(e, o)| json!({"epoch": e, "startOffset": o})).collect::<Vec<_>>(),
        "sizeInBytes": s.size_in_bytes, "brokerId": s.broker_id,
        "maxTimestampMs": s.max_timestamp_ms, "eventTimestampMs": s.event_timestamp_ms,
        "state": s.state.name(), "customMetadata": s.custom_metadata, "stuck": is_stuck(s),
    })
}

/// One partition as a JSON object of type `remotePartition`.
pub fn partition_json(key: &str, p: &RemotePartition) -> Value {
    json!({
        "type": "remotePartition", "partition": key, "deleteState": p.delete_state,
        "highestOffsetForEpoch": p.highest_offset_for_epoch.iter()
            .map(|(e, o)| (e.to_string(), json!(o)))
            .collect::<serde_json::Map<_, _>>(),
        "segments": p.segments.values().map(|s| segment_json(p, s)).collect::<Vec<_>>(),
    })
}

/// Writes one partition's lines.
pub fn write_partition_text(w: &mut dyn Write, key: &str, p: &RemotePartition) -> io::Result<()> {
    let bytes: i64 = p.segments.values().map(|s| s.size_in_bytes).sum();
    let delete = p
        .delete_state
        .map_or(String::new(), |d| format!("; partition delete {d}"));
    writeln!(
        w,
        "{key}: {} remote segments, {bytes} bytes{delete}",
        p.segments.len()
    )?;
    if !p.highest_offset_for_epoch.is_empty() {
        let ends: Vec<String> = p
            .highest_offset_for_epoch
            .iter()
            .map(|(e, o)| o.map_or(format!("{e}:none"), |o| format!("{e}:{o}")))
            .collect();
        let unfinished = p.highest_offset_for_epoch.values().any(Option::is_none);
        writeln!(
            w,
            "  highest remote offset by leader epoch: {}{}",
            ends.join(" "),
            if unfinished {
                " (none: no upload of it finished)"
            } else {
                ""
            }
        )?;
    }
    let mut segments: Vec<&RemoteSegment> = p.segments.values().collect();
    segments.sort_by_key(|s| (s.start_offset, s.id.clone()));
    for s in segments {
        let epochs: Vec<String> = s
            .leader_epochs
            .iter()
            .map(|(e, o)| format!("{e}@{o}"))
            .collect();
        writeln!(
            w,
            "  {} offsets {}..{} epochs [{}] {} bytes, broker {}, {} at {}{}",
            s.id,
            s.start_offset,
            s.end_offset,
            epochs.join(" "),
            s.size_in_bytes,
            s.broker_id,
            s.state.name(),
            utc(s.event_timestamp_ms),
            if is_stuck(s) {
                format!(": STUCK, {}", stuck_reason(s))
            } else if p.is_replaced(s) {
                ": REPLACED, a longer upload covers every epoch of it: no fetch reads it, and its objects take space until remote retention removes them".to_string()
            } else {
                String::new()
            }
        )?;
    }
    Ok(())
}

/// Writes every partition whose key passes `keep`, then the records
/// dropped; returns the number of stuck segments listed.
pub fn write_remote(
    w: &mut dyn Write,
    state: &RemoteLogState,
    keep: &dyn Fn(&str) -> bool,
    json_output: bool,
) -> io::Result<usize> {
    let mut stuck = 0;
    for (key, p) in state.partitions.iter().filter(|(k, _)| keep(k)) {
        stuck += p.segments.values().filter(|s| is_stuck(s)).count();
        if json_output {
            writeln!(w, "{}", partition_json(key, p))?;
        } else {
            write_partition_text(w, key, p)?;
        }
    }
    for d in &state.dropped {
        if json_output {
            writeln!(
                w,
                "{}",
                json!({"type": "dropped", "offset": d.offset, "why": d.why})
            )?;
        } else {
            writeln!(w, "record at offset {} not applied: {}", d.offset, d.why)?;
        }
    }
    Ok(stuck)
}
