//! Remote segments' own retention against Kafka's decisions: each case of
//! `tests/expiration/` is a log dir just before one run of Kafka 4.2's
//! remote-log expiration task, and `expiration-view.json` what that run
//! deleted, why, and the log start offset it set. `kseg retention-report`
//! must give the same segments in the same order for the same reasons.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::util::{json_lines, kseg, stdout, unpacked_archive};

/// The settings of a case `retention-report` reads.
const SETTINGS: [&str; 7] = [
    "cleanup.policy",
    "remote.storage.enable",
    "segment.bytes",
    "retention.ms",
    "retention.bytes",
    "local.retention.ms",
    "local.retention.bytes",
];

fn cases() -> Vec<(PathBuf, Value)> {
    let root = unpacked_archive("tests/expiration/rlm-expiration.tar.zst", "rlm-expiration");
    let mut cases: Vec<(PathBuf, Value)> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expiration-view.json").is_file())
        .map(|p| {
            let view = std::fs::read_to_string(p.join("expiration-view.json")).unwrap();
            (p, serde_json::from_str(&view).unwrap())
        })
        .collect();
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(cases.len(), 9, "{}", root.display());
    cases
}

/// `retention-report --json` of the case's data partition at Kafka's
/// clock, with the case's settings and `retention.bytes` replaced by
/// `retention_bytes` if given.
fn report(case: &Path, view: &Value, retention_bytes: Option<&str>) -> Value {
    let mut args: Vec<String> = vec![
        "retention-report".into(),
        case.display().to_string(),
        "--topic".into(),
        view["topic"].as_str().unwrap().into(),
        "--now".into(),
        view["nowMs"].to_string(),
        "--json".into(),
    ];
    for name in SETTINGS {
        let value = match (name, retention_bytes) {
            ("retention.bytes", Some(v)) => v,
            _ => view["topicConfigGiven"][name].as_str().unwrap(),
        };
        args.extend(["--config".into(), format!("{name}={value}")]);
    }
    let out = kseg(&args);
    let lines = json_lines(&out);
    let reports: Vec<&Value> = lines.iter().filter(|l| l.get("report").is_some()).collect();
    assert_eq!(reports.len(), 1, "{}", stdout(&out));
    reports[0]["report"].clone()
}

/// kseg's name of the reason Kafka logged for a deletion.
fn rule(kafka: &str) -> &'static str {
    match kafka {
        "retention-time" => "retentionMs",
        "retention-size" => "retentionBytes",
        "log-start-offset" => "logStartOffset",
        "leader-epoch-cache-truncation" => "belowEarliestEpoch",
        "retry-of-delete-segment-started" => "deleteRetry",
        other => panic!("reason {other}"),
    }
}

/// Kafka's deletions in order, each once (a segment the task lists under
/// two epochs below the earliest is deleted twice), with their reasons.
fn kafka_deleted(pass: &Value) -> Vec<(String, &'static str)> {
    let mut deleted: Vec<(String, &'static str)> = Vec::new();
    for id in pass["deleteLogSegmentDataCalls"].as_array().unwrap() {
        let id = id.as_str().unwrap();
        if deleted.iter().all(|(d, _)| d != id) {
            deleted.push((id.to_string(), rule(pass["reasons"][id].as_str().unwrap())));
        }
    }
    deleted
}

fn kseg_deleted(remote_pass: &Value) -> Vec<(String, &'static str)> {
    remote_pass["deleted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let r = d[1].as_str().unwrap();
            let known = [
                "retentionMs",
                "retentionBytes",
                "logStartOffset",
                "belowEarliestEpoch",
                "deleteRetry",
            ];
            let r = known.into_iter().find(|k| *k == r).unwrap_or("unknown");
            (d[0].as_str().unwrap().to_string(), r)
        })
        .collect()
}

#[test]
fn remote_retention_deletes_what_kafkas_expiration_task_deletes() {
    for (case, view) in cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        assert!(view["pass"]["error"].is_null(), "{name}");
        let report = report(&case, &view, None);
        let tiered = &report["tiered"];
        let before = &view["before"];
        assert_eq!(
            tiered["highestOffsetInRemoteStorage"], before["highestOffsetInRemoteStorage"],
            "{name}"
        );
        assert_eq!(
            tiered["logStartOffset"][0], before["logStartOffset"],
            "{name}"
        );
        let pass = &tiered["remotePass"];
        assert_eq!(
            pass["onlyLocalBytes"], before["onlyLocalLogSegmentsSize"],
            "{name}"
        );
        assert_eq!(
            kseg_deleted(pass),
            kafka_deleted(&view["pass"]),
            "{name}: {pass}"
        );
        assert_eq!(
            pass["remoteLogStartOffset"], view["pass"]["remoteLogStartOffset"],
            "{name}"
        );
        // Every segment the cache listed, with Kafka's lineage verdict.
        let kafka: Vec<(&Value, &Value)> = view["remoteSegmentsBefore"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (&s["id"], &s["withinLeaderEpochLineage"]))
            .collect();
        let ours: Vec<(&Value, &Value)> = pass["segments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (&s["id"], &s["inLineage"]))
            .collect();
        assert_eq!(ours, kafka, "{name}");
        if let Some(checks) = view.get("retentionSizeChecks") {
            assert_eq!(pass["retainedBytes"], checks["totalSize"], "{name}");
            assert_eq!(pass["breachedBytes"], checks["breach"], "{name}");
        }
    }
}

/// Where Kafka ran a case again with retention.bytes a few bytes either
/// side, kseg gives the same outcome: the segments deleted, and the
/// remote log start offset.
#[test]
fn retention_bytes_a_few_bytes_either_side_moves_as_kafka_moves() {
    let mut seen = 0;
    for (case, view) in cases() {
        let Some(outcomes) = view["retentionSizeChecks"]["kafkaWithRetentionBytes"].as_object()
        else {
            continue;
        };
        let labels: Vec<(&str, &str)> = view["remoteSegmentsBefore"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["id"].as_str().unwrap(), s["label"].as_str().unwrap()))
            .collect();
        let kafka_reason = |r: &str| match r {
            "retentionMs" => "retention-time",
            "retentionBytes" => "retention-size",
            other => panic!("{other}"),
        };
        for (bytes, kafka) in outcomes {
            let pass = report(&case, &view, Some(bytes))["tiered"]["remotePass"].clone();
            let deleted: Vec<String> = kseg_deleted(&pass)
                .into_iter()
                .map(|(id, r)| {
                    let label = labels.iter().find(|(i, _)| *i == id).unwrap().1;
                    format!("{label} ({})", kafka_reason(r))
                })
                .collect();
            let ours = match pass["remoteLogStartOffset"].as_i64() {
                Some(o) => format!(
                    "deleted {}; remote log start offset {o}",
                    deleted.join(", ")
                ),
                None if deleted.is_empty() => {
                    "nothing deleted; remote log start offset not updated".to_string()
                }
                None => format!("deleted {}", deleted.join(", ")),
            };
            let kafka = kafka.as_str().unwrap();
            assert_eq!(
                kafka.split("; logStartOffset").next().unwrap(),
                ours,
                "{} retention.bytes={bytes}",
                case.display()
            );
            seen += 1;
        }
    }
    assert!(seen >= 6, "{seen}");
}
