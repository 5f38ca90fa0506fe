//! The remote half of `kseg locate`'s trace: an offset below a tiered
//! partition's local log start, looked up in `__remote_log_metadata` as
//! the broker's remote fetch does, as steps and as JSON.

use serde_json::{Value, json};

use super::locate::Trace;
use crate::inspect::locate::{RemoteFetch, RemoteVerdict};

fn fetch_json(f: &RemoteFetch) -> Value {
    let mut v = json!({
        "partition": f.partition_key,
        "logStartOffset": f.log_start_offset.0,
        "logStartOffsetSource": f.log_start_offset.1,
        "localLogStartOffset": f.local_log_start_offset,
        "metadataPartitionsRead": f.metadata_partitions,
        "metadataPartitionByDefaultCount": f.expected_metadata_partition,
        "leaderEpoch": f.epoch.map(|e| json!({"epoch": e.epoch, "startOffset": e.start_offset})),
        "epochSegments": f.epoch_segments.iter()
            .map(|(start, id)| json!({"epochStartOffset": start, "id": id}))
            .collect::<Vec<_>>(),
        "served": f.is_served(),
    });
    v["verdict"] = match &f.verdict {
        RemoteVerdict::Served {
            segment: s,
            local_tiered_storage_key,
            aiven_key,
        } => json!({
            "servedBy": {"id": s.id, "startOffset": s.start_offset, "endOffset": s.end_offset,
                "sizeInBytes": s.size_in_bytes, "state": s.state.name(),
                "localTieredStorageKey": local_tiered_storage_key, "aivenKey": aiven_key},
        }),
        RemoteVerdict::BelowLogStart => json!("belowLogStart"),
        RemoteVerdict::NoEpoch(why) => json!({"noEpoch": why}),
        RemoteVerdict::NotUploaded(None) => json!("notInRemoteStorage"),
        RemoteVerdict::NotUploaded(Some(s)) => json!({"notInRemoteStorage": {
            "heldBy": {"id": s.id, "startOffset": s.start_offset, "endOffset": s.end_offset, "state": s.state.name()},
        }}),
        RemoteVerdict::NoMetadata => json!("noMetadata"),
    };
    v
}

fn where_read(f: &RemoteFetch) -> String {
    let read: Vec<String> = f.metadata_partitions.iter().map(i32::to_string).collect();
    format!("__remote_log_metadata partitions read: {}", read.join(", "))
}

fn answer(f: &RemoteFetch, target: i64) -> String {
    match &f.verdict {
        RemoteVerdict::Served {
            segment: s,
            local_tiered_storage_key,
            aiven_key,
        } => format!(
            "offset {target} is only in remote storage: segment {} [{}, {}], {} bytes, {}; its .log is {local_tiered_storage_key} under LocalTieredStorage's directory, or {aiven_key} after the prefix in Aiven's tiered storage",
            s.id,
            s.start_offset,
            s.end_offset,
            s.size_in_bytes,
            s.state.name()
        ),
        RemoteVerdict::BelowLogStart => format!(
            "offset {target} is before the log start offset {}; the earliest available offset is {}",
            f.log_start_offset.0, f.log_start_offset.0
        ),
        RemoteVerdict::NoEpoch(why) => format!(
            "offset {target} is below the local log start offset {} and its leader epoch is unknown ({why}): a fetch gets OFFSET_OUT_OF_RANGE",
            f.local_log_start_offset
        ),
        RemoteVerdict::NotUploaded(held) => format!(
            "offset {target} is below the local log start offset {} and no finished remote segment holds it{}: a fetch gets OFFSET_OUT_OF_RANGE",
            f.local_log_start_offset,
            held.as_ref().map_or(String::new(), |s| format!(
                " (segment {} [{}, {}] does, in {}, which the broker does not read from)",
                s.id,
                s.start_offset,
                s.end_offset,
                s.state.name()
            ))
        ),
        RemoteVerdict::NoMetadata => {
            let expected = f.expected_metadata_partition.map_or(String::new(), |p| {
                format!(" (with the default 50 metadata partitions its segments are in __remote_log_metadata-{p})")
            });
            format!(
                "offset {target} is below the local log start offset {}; no __remote_log_metadata partition read names {}{expected}: give the broker copy that has it with --remote-log-metadata",
                f.local_log_start_offset, f.partition_key
            )
        }
    }
}

/// `trace` with its answer replaced by the remote lookup of `target`,
/// the remote steps numbered on from its last.
pub fn with_remote(mut trace: Trace, target: i64, f: &RemoteFetch) -> Trace {
    let n = trace.last_step_number() + 1;
    let mut steps = vec![format!(
        "{n}. tiered: {target} < local log start offset {}; log start offset {} ({}); {}",
        f.local_log_start_offset,
        f.log_start_offset.0,
        f.log_start_offset.1,
        where_read(f)
    )];
    if let Some(e) = f.epoch {
        steps.push(format!(
            "{}. leader epoch: leader-epoch-checkpoint puts {target} in epoch {} (from offset {})",
            n + 1,
            e.epoch,
            e.start_offset
        ));
        let starts: Vec<String> = f
            .epoch_segments
            .iter()
            .map(|(start, id)| format!("{start} ({id})"))
            .collect();
        let starts = if starts.is_empty() {
            "none".to_string()
        } else {
            starts.join(", ")
        };
        steps.push(format!(
            "{}. remote: epoch {}'s finished segments, by where the epoch starts in them: {starts}",
            n + 2,
            e.epoch
        ));
    }
    trace.replace_answer(steps, "remote", fetch_json(f), answer(f, target));
    trace
}
