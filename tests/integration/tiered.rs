//! Both tiers in one answer: a tiered partition whose oldest segments
//! local retention removed after upload, beside the release's
//! Kafka-written `__remote_log_metadata-0`
//! (`internal-remote-log-metadata`: orders-0's segments [0, 99] deleted,
//! [100, 249] with its delete started, [250, 399] uploaded). `kseg locate`
//! below the local log start answers from the remote segments Kafka's own
//! `RemoteLogMetadataCache` lists for the partition.

use std::path::{Path, PathBuf};

use kseg::fixture::{FIXTURE_T0, PartitionWriter, WriterConfig, fixture_value};
use kseg::format::encode::{BatchSpec, RecordSpec};
use serde_json::Value;

use super::util::{copy_dir, kseg, stdout, unpacked};

const RELEASES: [&str; 7] = ["3.6", "3.7", "3.8", "3.9", "4.0", "4.1", "4.2"];
const ORDERS_ID: &str = "p0G5fUJtSTSKtB9ciVR1GA";
/// orders-0's leader epochs, as its remote segments name them.
const EPOCHS: [(i32, i64); 3] = [(0, 0), (1, 180), (3, 300)];
/// The log start offset: the segment [0, 99] is deleted from remote storage.
const LOG_START: i64 = 100;

/// A log dir: `__remote_log_metadata-0` of `release`, and orders-0 written
/// to offset 450 with the local segments before the one holding 400
/// removed. Returns the partition dir and its local log start offset.
fn tiered_log_dir(root: &Path, release: &str) -> (PathBuf, i64) {
    tiered_log_dir_from(root, release, 400)
}

/// As [`tiered_log_dir`], keeping local segments from the one holding `keep`.
fn tiered_log_dir_from(root: &Path, release: &str, keep: i64) -> (PathBuf, i64) {
    let case = unpacked(release).join("internal-remote-log-metadata");
    copy_dir(
        &case.join("__remote_log_metadata-0"),
        &root.join("__remote_log_metadata-0"),
    );
    let dir = root.join("orders-0");
    let config = WriterConfig {
        segment_bytes: 8 << 10,
        index_interval_bytes: 1024,
    };
    let mut w = PartitionWriter::create(&dir, config).unwrap();
    for offset in 0..450 {
        let epoch = EPOCHS.iter().rev().find(|(_, s)| *s <= offset).unwrap().0;
        w.start_epoch(epoch);
        w.append(BatchSpec {
            partition_leader_epoch: epoch,
            records: vec![RecordSpec {
                timestamp: FIXTURE_T0 + offset,
                value: Some(fixture_value(offset, 100)),
                ..RecordSpec::default()
            }],
            ..BatchSpec::default()
        })
        .unwrap();
    }
    w.close(ORDERS_ID).unwrap();
    let mut bases: Vec<i64> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".log")?.parse().ok()
        })
        .collect();
    bases.sort();
    let local_start = *bases.iter().rfind(|&&b| b <= keep).unwrap();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let stem: Option<i64> = path.file_stem().and_then(|s| s.to_str()?.parse().ok());
        if stem.is_some_and(|b| b < local_start) {
            std::fs::remove_file(path).unwrap();
        }
    }
    std::fs::write(
        root.join("log-start-offset-checkpoint"),
        format!("0\n1\norders 0 {LOG_START}\n"),
    )
    .unwrap();
    (dir, local_start)
}

/// The segments Kafka's cache lists for orders-0.
fn kafka_listed(release: &str) -> Vec<Value> {
    orders0_cache(release)["listAllRemoteLogSegments"]
        .as_array()
        .unwrap()
        .clone()
}

fn orders0_cache(release: &str) -> Value {
    let view: Value = serde_json::from_str(
        &std::fs::read_to_string(
            unpacked(release).join("internal-remote-log-metadata/kafka-view.json"),
        )
        .unwrap(),
    )
    .unwrap();
    view["remoteLogMetadataCache"][format!("{ORDERS_ID}:orders-0")].clone()
}

/// The segment Kafka's cache answered for the offset in its epoch
/// (`remoteLogSegmentMetadata`, recorded as runs), by id.
fn kafka_segment_for(release: &str, offset: i64) -> Option<String> {
    let epoch = EPOCHS.iter().rev().find(|(_, s)| *s <= offset)?.0;
    let cache = orders0_cache(release);
    let runs = cache["remoteLogSegmentMetadata"][epoch.to_string()]
        .as_array()?
        .clone();
    let run = runs
        .iter()
        .find(|r| r[0].as_i64() <= Some(offset) && Some(offset) <= r[1].as_i64())
        .unwrap_or_else(|| panic!("{release}: no run holds {offset}"));
    run[2].as_str().map(str::to_string)
}

fn locate(dir: &Path, offset: i64) -> (Value, i32) {
    let out = kseg([
        "locate",
        dir.to_str().unwrap(),
        "--offset",
        &offset.to_string(),
        "--json",
    ]);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
    (v, out.status.code().unwrap())
}

#[test]
fn locate_below_the_local_log_start_answers_from_kafkas_remote_segments() {
    for release in RELEASES {
        let root = tempfile::tempdir().unwrap();
        let (dir, local_start) = tiered_log_dir(root.path(), release);
        assert!(local_start > 300 && local_start <= 400, "{local_start}");
        for offset in [
            0,
            99,
            100,
            150,
            179,
            180,
            249,
            250,
            260,
            299,
            300,
            local_start - 1,
        ] {
            let (v, code) = locate(&dir, offset);
            let remote = &v["remote"];
            assert_eq!(
                remote["localLogStartOffset"], local_start,
                "{release} {offset}"
            );
            assert_eq!(remote["logStartOffset"], LOG_START);
            assert_eq!(remote["partition"], format!("{ORDERS_ID}:orders-0"));
            assert_eq!(remote["metadataPartitionsRead"], serde_json::json!([0]));
            let served = remote["verdict"]["servedBy"]["id"]
                .as_str()
                .map(str::to_string);
            if offset < LOG_START {
                assert_eq!(remote["verdict"], "belowLogStart", "{release} {offset}");
            } else {
                let want = kafka_segment_for(release, offset);
                assert_eq!(served, want, "{release} {offset}: {remote}");
                if want.is_none() {
                    let held = &remote["verdict"]["notInRemoteStorage"]["heldBy"];
                    let kafka_held = kafka_listed(release).into_iter().find(|s| {
                        s["startOffset"].as_i64() <= Some(offset)
                            && Some(offset) <= s["endOffset"].as_i64()
                    });
                    match kafka_held {
                        Some(k) => {
                            assert_eq!(held["id"], k["id"], "{release} {offset}");
                            assert_eq!(held["state"], k["state"], "{release} {offset}");
                        }
                        None => assert_eq!(
                            remote["verdict"], "notInRemoteStorage",
                            "{release} {offset}"
                        ),
                    }
                }
            }
            assert_eq!(
                code,
                if served.is_some() { 0 } else { 1 },
                "{release} {offset}"
            );
        }
    }
}

/// A partition the metadata read does not name is said so, with the
/// metadata partition that would hold it; metadata elsewhere is read
/// with `--remote-log-metadata`; without metadata the answer is the local one.
#[test]
fn locate_says_where_the_remote_metadata_is_when_it_is_not_here() {
    use kseg::inspect::cluster::remote::placement::metadata_partition;
    let root = tempfile::tempdir().unwrap();
    let (dir, _) = tiered_log_dir(root.path(), "4.2");
    let other = root.path().join("orders-5");
    copy_dir(&dir, &other);
    let (v, code) = locate(&other, 300);
    assert_eq!(v["remote"]["verdict"], "noMetadata");
    let expected = metadata_partition(ORDERS_ID, 5, 50).unwrap();
    assert_eq!(v["remote"]["metadataPartitionByDefaultCount"], expected);
    assert!(
        v["message"].as_str().unwrap().ends_with(&format!(
            "(with the default 50 metadata partitions its segments are in __remote_log_metadata-{expected}): give the broker copy that has it with --remote-log-metadata"
        )),
        "{}",
        v["message"]
    );
    assert_eq!(code, 1);

    // Without its leader epochs the broker cannot look in remote storage.
    let checkpoint = dir.join("leader-epoch-checkpoint");
    let saved = std::fs::read(&checkpoint).unwrap();
    std::fs::remove_file(&checkpoint).unwrap();
    let (v, code) = locate(&dir, 300);
    assert_eq!(
        v["remote"]["verdict"]["noEpoch"],
        format!("{}: no such file", checkpoint.display())
    );
    assert_eq!(code, 1);
    std::fs::write(&checkpoint, saved).unwrap();

    let alone = tempfile::tempdir().unwrap();
    let moved = alone.path().join("orders-0");
    copy_dir(&dir, &moved);
    let (local, code) = locate(&moved, 300);
    assert!(local.get("remote").is_none(), "{local}");
    assert_eq!(code, 1);
    let metadata = root.path().join("__remote_log_metadata-0");
    let out = kseg([
        "locate",
        moved.to_str().unwrap(),
        "--offset",
        "300",
        "--remote-log-metadata",
        metadata.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).ends_with(&format!(
            "offset 300 is only in remote storage: segment AAAAAAAAQACAAAAAAAAAAw [250, 399], 15000 bytes, COPY_SEGMENT_FINISHED; its .log is orders-0-{ORDERS_ID}/250-AAAAAAAAQACAAAAAAAAAAw.log under LocalTieredStorage's directory, or orders-{ORDERS_ID}/0/00000000000000000250-AAAAAAAAQACAAAAAAAAAAw.log after the prefix in Aiven's tiered storage\n"
        )),
        "{}",
        stdout(&out)
    );
}

/// `retention-report` of `dir` in 2030 with local.retention.ms 1 h and
/// retention.ms unlimited, on a tiered topic if `tiered`.
fn retention_report(dir: &Path, tiered: bool, json: bool) -> std::process::Output {
    let mut args = vec![
        "retention-report",
        dir.to_str().unwrap(),
        "--now",
        "2030-01-01T00:00:00Z",
    ];
    if json {
        args.push("--json");
    }
    if tiered {
        args.extend(["--config", "remote.storage.enable=true"]);
    }
    args.extend([
        "--config",
        "local.retention.ms=3600000",
        "--config",
        "retention.ms=-1",
    ]);
    kseg(args)
}

/// Local retention of a tiered topic: local.retention.ms in place of
/// retention.ms, and only segments whose last offset is at or below the
/// highest offset in remote storage go (orders-0's highest finished
/// offset of its latest epoch, 3, in Kafka's cache: 399); the rest wait
/// for their upload and are said to.
#[test]
fn retention_of_a_tiered_topic_deletes_only_uploaded_local_segments() {
    for release in RELEASES {
        let root = tempfile::tempdir().unwrap();
        let (dir, local_start) = tiered_log_dir_from(root.path(), release, 300);
        let view: Value = serde_json::from_str(
            &std::fs::read_to_string(
                unpacked(release).join("internal-remote-log-metadata/kafka-view.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let highest = view["remoteLogMetadataCache"][format!("{ORDERS_ID}:orders-0")]
            ["highestOffsetForEpoch"]["3"]
            .as_i64()
            .unwrap();
        assert!(
            highest < 450,
            "below the log end: the epoch's own highest offset"
        );
        let out = retention_report(&dir, true, true);
        let lines = super::util::json_lines(&out);
        let report = &lines[0]["report"];
        let tiered = &report["tiered"];
        assert_eq!(tiered["highestOffsetInRemoteStorage"], highest, "{release}");
        assert_eq!(tiered["logStartOffset"][0], LOG_START);
        assert_eq!(tiered["uploads"], true);
        // [100, 249]'s delete started; [250, 399] is the one finished segment.
        assert_eq!(
            tiered["inNeitherTier"],
            serde_json::json!([[100, 249]]),
            "{release}"
        );
        let segments = report["segments"].as_array().unwrap();
        assert_eq!(segments[0]["baseOffset"], local_start);
        let mut deleted = Vec::new();
        let mut waiting = Vec::new();
        for (i, s) in segments.iter().enumerate() {
            let base = s["baseOffset"].as_i64().unwrap();
            let upper = segments
                .get(i + 1)
                .map_or(report["logEndOffset"].as_i64().unwrap(), |n| {
                    n["baseOffset"].as_i64().unwrap()
                });
            let uploaded = upper - 1 <= highest;
            assert_eq!(s["uploaded"], uploaded, "{release} {base}");
            if uploaded && waiting.is_empty() {
                deleted.push(base);
                assert_eq!(
                    s["deletedNowBy"], "deleteRetentionMsBreachedSegments",
                    "{release} {base}"
                );
            } else {
                waiting.push(base);
                assert!(s["deletedNowBy"].is_null(), "{release} {base}");
            }
        }
        assert!(
            deleted.len() >= 2 && !waiting.is_empty(),
            "{deleted:?} {waiting:?}"
        );
        assert_eq!(
            tiered["waitingForUpload"],
            serde_json::json!(waiting),
            "{release}"
        );
        let text = retention_report(&dir, true, false);
        let text = stdout(&text);
        assert!(
            text.lines()
                .next()
                .unwrap()
                .contains(&format!("; local log start offset {local_start} (")),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "  waiting for upload: local retention would delete {} segments",
                waiting.len()
            )),
            "{text}"
        );
        assert!(
            text.contains("  offsets 100..249 are in neither tier"),
            "{text}"
        );
        // retention.ms=-1 keeps everything of a topic that is not tiered.
        let plain = retention_report(&dir, false, true);
        let plain = &super::util::json_lines(&plain)[0]["report"];
        assert!(plain.get("tiered").is_none());
        assert!(
            plain["segments"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["deletedNowBy"].is_null() && s.get("uploaded").is_none())
        );
    }
}

/// `verify` of a tiered log dir names the offsets in neither tier: orders-0's
/// [100, 249] had its delete started, so from the log start offset 100 to
/// the one finished segment at 250 nothing serves them.
#[test]
fn verify_names_the_offsets_in_neither_tier() {
    let root = tempfile::tempdir().unwrap();
    let (dir, local_start) = tiered_log_dir(root.path(), "4.2");
    let out = kseg(["verify", root.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let want = format!(
        "{}: offsets 100..249 are in neither tier: above the log start offset 100 (log-start-offset-checkpoint), below the local log start offset {local_start}, in no finished remote segment of {ORDERS_ID}:orders-0: a fetch of them gets OFFSET_OUT_OF_RANGE",
        dir.display()
    );
    assert!(stdout(&out).lines().any(|l| l == want), "{}", stdout(&out));
    let json = kseg(["verify", "--json", dir.to_str().unwrap()]);
    let gaps: Vec<Value> = super::util::json_lines(&json)
        .into_iter()
        .filter(|l| l["type"] == "inNeitherTier")
        .collect();
    assert_eq!(gaps.len(), 1);
    assert_eq!(
        (
            gaps[0]["firstOffset"].as_i64(),
            gaps[0]["lastOffset"].as_i64()
        ),
        (Some(100), Some(249))
    );
    // Once the log start offset is past the gap, nothing is missing.
    std::fs::write(
        root.path().join("log-start-offset-checkpoint"),
        "0\n1\norders 0 250\n",
    )
    .unwrap();
    let clean = kseg(["verify", dir.to_str().unwrap()]);
    assert!(
        !stdout(&clean).contains("neither tier"),
        "{}",
        stdout(&clean)
    );
}
