//! `kseg retention-report` against the deletions Kafka's retention code made
//! at each recorded "now" (the corpus's retention case).

use serde_json::Value;

use super::corpus::cases;
use super::util::{kseg, stderr};

fn report(dir: &std::path::Path, outcome: &Value) -> Value {
    let out = kseg([
        "retention-report".to_string(),
        "--json".into(),
        format!("--now={}", outcome["nowMs"]),
        format!("--config=retention.ms={}", outcome["retention.ms"]),
        format!("--config=retention.bytes={}", outcome["retention.bytes"]),
        format!("--log-start-offset={}", outcome["logStartOffset"]),
        dir.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    line["report"].clone()
}

#[test]
fn retention_deletes_what_kafka_deleted_at_every_recorded_now() {
    let mut compared = 0;
    for case in cases() {
        let Some(outcomes) = case.view["retention"]["retentionOutcomes"].as_array() else {
            continue;
        };
        let p = &case.partitions()[0];
        for outcome in outcomes {
            let label = format!("{} now={}", outcome["label"], outcome["nowMs"]);
            let ours = report(&p.dir, outcome);
            for (kafka, mine) in outcome["segmentsBefore"]
                .as_array()
                .unwrap()
                .iter()
                .zip(ours["segments"].as_array().unwrap())
            {
                assert_eq!(kafka["baseOffset"], mine["baseOffset"], "{label}");
                assert_eq!(kafka["size"], mine["size"], "{label}");
                assert_eq!(
                    kafka["largestTimestamp"], mine["largestTimestamp"],
                    "{label}: largest timestamp of {}",
                    kafka["baseOffset"]
                );
            }
            let steps = ours["passNow"]["steps"].as_array().unwrap();
            for (kafka, mine) in outcome["steps"].as_array().unwrap().iter().zip(steps) {
                assert_eq!(kafka["rule"], mine["rule"], "{label}");
                assert_eq!(
                    kafka["deleted"], mine["deleted"],
                    "{label}: {}",
                    kafka["rule"]
                );
                if let Some(lso) = kafka.get("logStartOffsetAfterStep") {
                    assert_eq!(
                        lso, &mine["logStartOffsetAfter"],
                        "{label}: {} log start",
                        kafka["rule"]
                    );
                }
                assert_eq!(
                    kafka.get("rolledNewSegmentFirst").unwrap_or(&Value::Null),
                    &mine["rolledNewSegmentFirst"],
                    "{label}: roll"
                );
            }
            assert_eq!(
                outcome["segmentsAfter"], ours["passNow"]["segmentsAfter"],
                "{label}: segments after"
            );
            assert_eq!(
                outcome["logStartOffsetAfter"], ours["passNow"]["logStartOffsetAfter"],
                "{label}: log start after"
            );
            compared += 1;
        }
    }
    assert!(compared >= 10, "compared {compared} outcomes");
}

#[test]
fn classic_testdata_reports_five_segments_and_when_each_goes() {
    // Segment 0's newest batch is number 1167 (timestamp T0 + 11673 ms); 12 s
    // past 7 days it has just expired, segment 4672 (T0 + 23353) has not.
    let now = "1700604812000";
    let out = kseg([
        "retention-report",
        "--now",
        now,
        "--config",
        "retention.ms=604800000",
        super::util::classic().to_str().unwrap(),
    ]);
    let text = super::util::stdout(&out);
    assert!(
        text.starts_with("orders-0: 5 segments, 4485000 bytes"),
        "{text}"
    );
    // One line a segment, its cells two or more spaces apart.
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(2)
        .take(5)
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    let bases: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        bases,
        ["0", "4672", "9344", "14016", "18688 (active)"],
        "{text}"
    );
    assert_eq!(
        rows[0][1..5],
        [
            "4671",
            "1047696",
            "2023-11-14T22:13:20.003Z",
            "2023-11-14T22:13:31.673Z (time index)"
        ],
        "{text}"
    );
    assert!(rows[0][5].starts_with("deleted by a check now"), "{text}");
    assert!(
        text.contains("deletable from 2023-11-21T22:13:43.354Z"),
        "{text}"
    );
    assert!(
        text.contains("a retention check now deletes segments [0]"),
        "{text}"
    );
}

#[test]
fn compacted_topics_report_the_cleaners_view() {
    let case = cases().into_iter().find(|c| c.name == "compacted").unwrap();
    let p = &case.partitions()[0];
    let out = kseg([
        "retention-report".to_string(),
        "--json".into(),
        "--config=cleanup.policy=compact".into(),
        "--now=1700259200000".into(),
        p.dir.display().to_string(),
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let compaction = &report["report"]["compaction"];
    let last_pass = case.view["cleanerPasses"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    assert_eq!(
        compaction["firstDirtyOffset"],
        last_pass["cleanerOffsetCheckpointWritten"]
    );
    assert_eq!(compaction["firstDirtySource"], "cleaner-offset-checkpoint");
    let horizons: Vec<i64> = p.view["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["log"]["batches"].as_array().unwrap())
        .filter_map(|b| b["deleteHorizonMs"].as_i64())
        .collect();
    assert!(!horizons.is_empty());
    assert_eq!(compaction["batchesWithDeleteHorizon"], horizons.len());
    assert_eq!(
        compaction["earliestDeleteHorizon"],
        *horizons.iter().min().unwrap()
    );
    let steps = report["report"]["passNow"]["steps"].as_array().unwrap();
    assert_eq!(
        steps.len(),
        1,
        "compact only: just the log-start-offset rule"
    );
    assert!(
        report["report"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| !w.as_str().unwrap().contains("future")),
        "an empty segment's mtime is not a record timestamp"
    );
}

#[test]
fn future_timestamps_are_warned_about() {
    use kseg::fixture::{PartitionWriter, WriterConfig};
    use kseg::format::encode::{BatchSpec, RecordSpec};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("future-0");
    let mut w = PartitionWriter::create(&dir, WriterConfig::default()).unwrap();
    let record = |timestamp| RecordSpec {
        timestamp,
        value: Some(b"v".to_vec()),
        ..RecordSpec::default()
    };
    w.append(BatchSpec {
        records: vec![record(1_000)],
        ..BatchSpec::default()
    })
    .unwrap();
    w.append(BatchSpec {
        records: vec![record(10 * 86_400_000)],
        ..BatchSpec::default()
    })
    .unwrap();
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
    let out = kseg([
        "retention-report",
        "--json",
        "--now",
        "86400000",
        dir.to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = report["report"]["warnings"].to_string();
    assert!(warnings.contains("in the future"), "{warnings}");
}

fn report_for(dir: &std::path::Path, now: &str, configs: &[&str]) -> Value {
    let mut args = vec![
        "retention-report".to_string(),
        "--json".into(),
        format!("--now={now}"),
    ];
    args.extend(configs.iter().map(|c| format!("--config={c}")));
    args.push(dir.display().to_string());
    let out = kseg(args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice::<Value>(&out.stdout).unwrap()["report"].clone()
}

fn partition_with(batches: &[(i64, usize)], segment_bytes: u64) -> tempfile::TempDir {
    use kseg::fixture::{PartitionWriter, WriterConfig};
    use kseg::format::encode::{BatchSpec, RecordSpec};
    let tmp = tempfile::tempdir().unwrap();
    let mut w = PartitionWriter::create(
        &tmp.path().join("t-0"),
        WriterConfig {
            segment_bytes,
            index_interval_bytes: 4096,
        },
    )
    .unwrap();
    for &(timestamp, size) in batches {
        let record = RecordSpec {
            timestamp,
            value: Some(vec![b'v'; size]),
            ..RecordSpec::default()
        };
        w.append(BatchSpec {
            records: vec![record],
            ..BatchSpec::default()
        })
        .unwrap();
    }
    w.close("kseg-fixture-AAAAAAAAA").unwrap();
    tmp
}

#[test]
fn replayed_old_timestamps_are_deletable_at_once_and_say_so() {
    let day = 86_400_000i64;
    let now = 1_800_000_000_000i64;
    // Two closed segments written now, with records stamped 30 days ago.
    let tmp = partition_with(
        &[
            (now - 30 * day, 600),
            (now - 30 * day, 600),
            (now - 30 * day, 600),
            (now - 1000, 10),
        ],
        1300,
    );
    let report = report_for(
        &tmp.path().join("t-0"),
        &now.to_string(),
        &["retention.ms=604800000"],
    );
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains("far beyond retention.ms"), "{warnings}");
    let deleted = &report["passNow"]["steps"][2]["deleted"];
    assert_eq!(deleted.as_array().unwrap().len(), 2, "{report}");
}

#[test]
fn a_quiet_active_segment_outlives_retention_and_says_why() {
    let day = 86_400_000i64;
    let now = 1_800_000_000_000i64;
    // One batch 6 days ago opened the active segment; it rolls only 7 days
    // after that batch, on an append, while retention is 1 day.
    let tmp = partition_with(&[(now - 6 * day, 100)], 1 << 20);
    let report = report_for(
        &tmp.path().join("t-0"),
        &now.to_string(),
        &["retention.ms=86400000", "segment.ms=604800000"],
    );
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("only rolls on an append after"),
        "{warnings}"
    );
    // Retention itself rolls and deletes it once its newest record is older than retention.ms.
    assert_eq!(
        report["passNow"]["steps"][2]["rolledNewSegmentFirst"], 1,
        "{report}"
    );
}

/// Tables that grow with the log dir print compactly: a header line, then
/// one line a row, with no rule between rows.
#[test]
fn retention_tables_are_one_line_a_row() {
    let out = kseg([
        "retention-report",
        "--now",
        "2026-01-01T00:00:00Z",
        super::corpus::root()
            .join("multi-partition-logdir/logdir")
            .to_str()
            .unwrap(),
    ]);
    let text = super::util::stdout(&out);
    assert!(!text.contains("+--") && !text.contains("|--"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.starts_with("PARTITION "))
        .unwrap_or_else(|| panic!("{text}"));
    let names: Vec<&str> = lines[header + 1..header + 5]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        ["audit-0", "payments-0", "payments-1", "payments-2"],
        "{text}"
    );
    let segments = lines
        .iter()
        .position(|l| l.starts_with("SEGMENT "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(lines[segments + 1].starts_with("0 "), "{text}");
}
