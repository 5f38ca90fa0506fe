//! Tiered storage's `__remote_log_metadata` replayed: each release's
//! Kafka-written case (`internal-remote-log-metadata`), decoded by `kseg
//! dump` and replayed by `kseg::inspect::cluster::remote`, against what
//! that release's own `RemoteLogMetadataCache` lists after the same
//! records (the view's `remoteLogMetadataCache`).

use kseg::inspect::cluster::remote::RemoteLogState;
use serde_json::{Value, json};

use super::util::{json_lines, kseg, unpacked};

const RELEASES: [&str; 7] = ["3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2"];

fn replay(release: &str) -> (RemoteLogState, Value) {
    let dir = unpacked(release).join("internal-remote-log-metadata");
    let view: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("kafka-view.json")).unwrap())
            .unwrap();
    let log = dir.join("__remote_log_metadata-0/00000000000000000000.log");
    let out = kseg(["dump", "--json", "--deep-iteration", log.to_str().unwrap()]);
    let mut state = RemoteLogState::default();
    let mut applied = 0;
    for record in json_lines(&out).iter().filter(|l| l["type"] == "record") {
        state
            .apply(record["offset"].as_i64().unwrap(), &record["value"])
            .unwrap();
        applied += 1;
    }
    assert_eq!(applied, view["logEndOffset"].as_i64().unwrap(), "{release}");
    (state, view["remoteLogMetadataCache"].clone())
}

#[test]
fn each_releases_remote_log_metadata_replays_as_its_remote_log_metadata_cache() {
    for release in RELEASES {
        let (state, cache) = replay(release);
        assert!(state.dropped.is_empty(), "{release}: {:?}", state.dropped);
        for (partition, kafka) in cache.as_object().unwrap() {
            let mut theirs: Vec<Value> = kafka["listAllRemoteLogSegments"]
                .as_array()
                .unwrap()
                .clone();
            theirs.sort_by_key(|s| s["startOffset"].as_i64());
            let Some(mine) = state.partitions.get(partition) else {
                // DELETE_PARTITION_FINISHED drops the partition's cache
                // (RemotePartitionMetadataStore); the lab's bare cache had
                // every segment deleted by then.
                assert!(theirs.is_empty(), "{release} {partition}: {theirs:?}");
                continue;
            };
            let mut ours: Vec<Value> = mine
                .segments
                .values()
                .map(|s| {
                    json!({
                        "id": s.id,
                        "startOffset": s.start_offset,
                        "endOffset": s.end_offset,
                        "state": s.state.name(),
                        "brokerId": s.broker_id,
                        "eventTimestampMs": s.event_timestamp_ms,
                        "maxTimestampMs": s.max_timestamp_ms,
                        "segmentSizeInBytes": s.size_in_bytes,
                        "segmentLeaderEpochs": s.leader_epochs.iter()
                            .map(|(e, o)| (e.to_string(), json!(o)))
                            .collect::<serde_json::Map<_, _>>(),
                        "customMetadata": s.custom_metadata,
                    })
                })
                .collect();
            ours.sort_by_key(|s| s["startOffset"].as_i64());
            assert_eq!(ours, theirs, "{release} {partition}");
            let highest: serde_json::Map<String, Value> = mine
                .highest_offset_for_epoch
                .iter()
                .map(|(e, o)| (e.to_string(), json!(o)))
                .collect();
            assert_eq!(
                Value::Object(highest),
                kafka["highestOffsetForEpoch"],
                "{release} {partition}: highestOffsetForEpoch"
            );
        }
        assert_eq!(
            state.partitions.len(),
            3,
            "{release}: clicks-0 is gone once its delete finished"
        );
        let stuck: Vec<(String, &str)> = state
            .stuck()
            .map(|(p, s)| (format!("{p} {}", s.id), s.state.name()))
            .collect();
        assert_eq!(
            stuck,
            [
                (
                    "p0G5fUJtSTSKtB9ciVR1GA:orders-0 AAAAAAAAQACAAAAAAAAAAg".to_string(),
                    "DELETE_SEGMENT_STARTED"
                ),
                (
                    "p0G5fUJtSTSKtB9ciVR1GA:orders-1 AAAAAAAAQACAAAAAAAAABQ".to_string(),
                    "COPY_SEGMENT_STARTED"
                ),
            ],
            "{release}"
        );
    }
}

/// Every (epoch, offset) the view's `remoteLogSegmentMetadata` runs cover:
/// offset, epoch and the segment id Kafka's cache answered.
fn kafka_lookups(kafka: &Value) -> Vec<(i64, i64, Option<String>)> {
    let mut all = Vec::new();
    for (epoch, runs) in kafka["remoteLogSegmentMetadata"].as_object().unwrap() {
        for run in runs.as_array().unwrap() {
            let (from, to) = (run[0].as_i64().unwrap(), run[1].as_i64().unwrap());
            for offset in from..=to {
                let id = run[2].as_str().map(str::to_string);
                all.push((epoch.parse().unwrap(), offset, id));
            }
        }
    }
    all
}

/// The segment a remote fetch reads for each leader epoch and offset is
/// the one each release's own `RemoteLogMetadataCache.remoteLogSegmentMetadata`
/// names, over every offset of every partition: deleted and unfinished
/// segments never serve, and payments-0's longer re-upload replaces the
/// later segment it covers but not the earlier one.
#[test]
fn each_releases_remote_fetch_reads_the_segment_its_cache_names() {
    for release in RELEASES {
        let (state, cache) = replay(release);
        let (mut served, mut asked) = (0, 0);
        for (partition, kafka) in cache.as_object().unwrap() {
            for (epoch, offset, theirs) in kafka_lookups(kafka) {
                asked += 1;
                let ours = state
                    .partitions
                    .get(partition)
                    .and_then(|p| p.segment_for(epoch, offset))
                    .map(|s| s.id.clone());
                assert_eq!(
                    ours, theirs,
                    "{release} {partition} epoch {epoch} offset {offset}"
                );
                served += usize::from(ours.is_some());
            }
        }
        // orders-0 [250, 399], orders-1 [0, 49], payments-0 [0, 250] over two epochs.
        assert_eq!(served, 150 + 50 + 50 + 150 + 51, "{release}");
        // Offsets -1 to one past the last end, per epoch named: clicks-0,
        // orders-0, orders-1, payments-0.
        assert_eq!(asked, 12 + 3 * 402 + 2 * 123 + 2 * 253, "{release}");
    }
}

/// The `__remote_log_metadata` partition of each topic-partition is the
/// one each release's `RemoteLogMetadataTopicPartitioner` gives, for 1, 7
/// and 50 metadata partitions.
#[test]
fn each_partitions_metadata_partition_is_the_one_kafkas_partitioner_gives() {
    use kseg::inspect::cluster::remote::placement::metadata_partition;
    for release in RELEASES {
        let (_, cache) = replay(release);
        for (partition, kafka) in cache.as_object().unwrap() {
            let (id, tp) = partition.split_once(':').unwrap();
            let number: i32 = tp.rsplit_once('-').unwrap().1.parse().unwrap();
            let placed = kafka["metadataPartition"].as_object().unwrap();
            assert_eq!(placed.len(), 3);
            for (count, theirs) in placed {
                let ours = metadata_partition(id, number, count.parse().unwrap());
                assert_eq!(
                    ours.map(i64::from),
                    theirs.as_i64(),
                    "{release} {partition} of {count}"
                );
            }
        }
    }
}

#[test]
fn transitions_kafka_rejects_are_dropped_and_said() {
    let (mut state, _) = replay("4.2");
    // orders-0's first segment was deleted: an update for it is refused;
    // the third one is COPY_SEGMENT_FINISHED: back to STARTED is dropped.
    let seg = |id: &str, s: i64| {
        json!({"type": "REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD", "version": 0, "data": {
            "remoteLogSegmentId": {"topicIdPartition": {"name": "orders", "id": "p0G5fUJtSTSKtB9ciVR1GA", "partition": 0}, "id": id},
            "brokerId": 9, "eventTimestampMs": 1, "customMetadata": null, "remoteLogSegmentState": s}})
    };
    state.apply(100, &seg("AAAAAAAAQACAAAAAAAAAAQ", 1)).unwrap();
    state.apply(101, &seg("AAAAAAAAQACAAAAAAAAAAw", 0)).unwrap();
    state.apply(102, &seg("AAAAAAAAQACAAAAAAAAAAw", 3)).unwrap();
    let offsets: Vec<i64> = state.dropped.iter().map(|d| d.offset).collect();
    assert_eq!(offsets, [100, 101, 102], "{:?}", state.dropped);
    let third =
        &state.partitions["p0G5fUJtSTSKtB9ciVR1GA:orders-0"].segments["AAAAAAAAQACAAAAAAAAAAw"];
    assert_eq!(third.state.name(), "COPY_SEGMENT_FINISHED");
    assert_eq!(third.broker_id, 1, "a dropped update changes nothing");
}

/// `kseg remote` prints each release's replay, partition by partition,
/// names the two segments left STARTED and exits 1 for them.
#[test]
fn the_remote_command_lists_each_partitions_segments_and_the_stuck_ones() {
    for release in RELEASES {
        let (state, cache) = replay(release);
        let mut replaced_ids = Vec::new();
        let dir = unpacked(release).join("internal-remote-log-metadata");
        let out = kseg(["remote", "--json", dir.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{release}");
        let lines = json_lines(&out);
        assert_eq!(lines.len(), state.partitions.len(), "{release}");
        let mut stuck = Vec::new();
        for (line, (key, p)) in lines.iter().zip(&state.partitions) {
            assert_eq!(line["partition"], key.as_str(), "{release}");
            let segments = line["segments"].as_array().unwrap();
            assert_eq!(segments.len(), p.segments.len(), "{release} {key}");
            for (s, (id, expected)) in segments.iter().zip(&p.segments) {
                assert_eq!(s["id"], id.as_str());
                assert_eq!(s["startOffset"], expected.start_offset);
                assert_eq!(s["endOffset"], expected.end_offset);
                assert_eq!(s["state"], expected.state.name());
                // Replaced: finished, yet no lookup of Kafka's cache names it.
                let named = cache[key.as_str()]["remoteLogSegmentMetadata"]
                    .as_object()
                    .unwrap()
                    .values()
                    .flat_map(|runs| runs.as_array().unwrap())
                    .any(|r| r[2] == id.as_str());
                let replaced = expected.state.name() == "COPY_SEGMENT_FINISHED" && !named;
                assert_eq!(s["replaced"], replaced, "{release} {id}");
                replaced_ids.extend(replaced.then(|| id.clone()));
                if s["stuck"] == true {
                    stuck.push(s["state"].as_str().unwrap().to_string());
                }
            }
        }
        stuck.sort();
        assert_eq!(
            stuck,
            ["COPY_SEGMENT_STARTED", "DELETE_SEGMENT_STARTED"],
            "{release}"
        );
        assert_eq!(replaced_ids, ["AAAAAAAAQACAAAAAAAAACA"], "{release}");
        let text = kseg(["remote", dir.to_str().unwrap()]);
        assert_eq!(super::util::stdout(&text).matches(": STUCK, ").count(), 2);
        assert_eq!(
            super::util::stdout(&text).matches(": REPLACED, ").count(),
            1
        );
        let clicks = kseg([
            "remote",
            "--json",
            "--topic",
            "clicks",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(
            json_lines(&clicks).len(),
            0,
            "{release}: clicks-0 was deleted"
        );
    }
}
