//! `kseg dump` on the bundled testdata and on damaged inputs.

use super::util::{classic, json_lines, kseg, stderr, stdout};

#[test]
fn dumps_the_classic_index_like_kafka_dump_log() {
    let out = kseg(
        [
            classic().join("00000000000000004672.index").as_os_str(),
            "dump".as_ref(),
        ]
        .iter()
        .rev(),
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("Dumping ") && lines[0].ends_with("00000000000000004672.index"));
    assert_eq!(
        &lines[1..4],
        [
            "offset: 4695 position: 4485",
            "offset: 4715 position: 8970",
            "offset: 4735 position: 13455"
        ]
    );
    assert_eq!(lines.len(), 1 + 233);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn batch_lines_have_kafka_dump_log_fields_in_order() {
    let out = kseg([
        "dump".as_ref(),
        "--max-bytes".as_ref(),
        "1794".as_ref(),
        classic().join("00000000000000000000.log").as_os_str(),
    ]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1], "Log starting offset: 0");
    assert_eq!(
        lines.len(),
        4,
        "--max-bytes keeps whole batches only: {text}"
    );
    assert!(lines[2].starts_with(
        "baseOffset: 0 lastOffset: 3 count: 4 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000003 size: 897 magic: 2 compresscodec: none crc: "
    ), "{}", lines[2]);
    assert!(lines[2].ends_with(" isvalid: true"));
}

#[test]
fn json_keeps_integers_as_numbers() {
    let out = kseg([
        "dump".as_ref(),
        "--json".as_ref(),
        "--max-bytes".as_ref(),
        "897".as_ref(),
        classic().join("00000000000000004672.log").as_os_str(),
    ]);
    let lines = json_lines(&out);
    let batch = lines.iter().find(|l| l["type"] == "batch").unwrap();
    assert_eq!(batch["baseOffset"], 4672);
    assert!(batch["crc"].is_u64());
    assert_eq!(batch["deleteHorizonMs"], serde_json::Value::Null);
}

#[test]
fn deep_iteration_lists_compaction_gaps_like_kafka_dump_log() {
    let log = super::corpus::root().join("compacted/keyed-0/00000000000000000715.log");
    let out = kseg([
        "dump".as_ref(),
        "--deep-iteration".as_ref(),
        log.as_os_str(),
    ]);
    let offsets: Vec<i64> = stdout(&out)
        .lines()
        .filter_map(|l| l.strip_prefix("| offset: "))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    let gaps: Vec<String> = offsets
        .windows(2)
        .filter(|w| w[1] != w[0] + 1)
        .map(|w| format!("  {} is followed by {}", w[0], w[1]))
        .collect();
    assert!(!gaps.is_empty());
    let err = stderr(&out);
    assert!(err.contains("Non-consecutive offsets in "), "{err}");
    assert_eq!(
        err.lines().skip(1).map(String::from).collect::<Vec<_>>(),
        gaps
    );
}

#[test]
fn stray_and_kraft_snapshot_files_dump_as_record_batches() {
    let tmp = tempfile::tempdir().unwrap();
    let source = classic().join("00000000000000018688.log");
    let deleted = tmp.path().join("00000000000000018688.log.deleted");
    let snapshot = tmp
        .path()
        .join("00000000000000000042-0000000003.checkpoint");
    std::fs::copy(&source, &deleted).unwrap();
    std::fs::copy(&source, &snapshot).unwrap();
    let out = kseg(["dump".as_ref(), deleted.as_os_str(), snapshot.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("Log starting offset: 18688\nbaseOffset: 18688 lastOffset: 18691"),
        "{text}"
    );
    assert!(
        text.contains("Snapshot end offset: 42, epoch: 3\nbaseOffset: 18688"),
        "{text}"
    );
}
