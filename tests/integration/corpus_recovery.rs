//! `kseg verify` and `kseg recover --apply` against Kafka's own recovery
//! (LogLoader and LogSegment.recover run on damaged copies in the corpus).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use kseg::inspect::producer::state::{BatchBudget, PRODUCER_BATCHES_IN_MEMORY};
use kseg::inspect::recovery::segment::{SegmentCheckOptions, check_segment};
use kseg::inspect::recovery::txn_index::TxnStart;
use kseg::logdir::{CachePolicy, Partition};

use super::corpus::{cases, index_interval};
use super::util::{copy_dir, kseg, stderr};

/// (recovery point, key in kafka-view.json, directory of Kafka's result)
const RUNS: [(i64, &str, &str); 2] = [
    (598, "brokerRestart", "after-kafka-recovery"),
    (0, "fullRecovery", "after-kafka-recovery-full"),
];

fn verify_json(dir: &Path, interval: u64, recovery_point: i64) -> (Value, Option<i32>) {
    let out = kseg([
        "verify".to_string(),
        "--json".into(),
        format!("--index-interval-bytes={interval}"),
        format!("--recovery-point={recovery_point}"),
        dir.display().to_string(),
    ]);
    let line = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_else(|| panic!("no output: {}", stderr(&out)))
        .to_string();
    (serde_json::from_str(&line).unwrap(), out.status.code())
}

fn check_verdict(label: &str, kafka: &Value, plan: &Value) {
    let result = &kafka["result"];
    assert_eq!(
        plan["logEndOffset"], result["nextOffset"],
        "{label}: log end offset"
    );
    for (file, truncated) in kafka["logBytesTruncated"].as_object().unwrap() {
        let base: i64 = file.trim_end_matches(".log").parse().unwrap();
        let ours = plan["segments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["baseOffset"] == base)
            .unwrap();
        match truncated {
            Value::Number(n) => {
                let cut = ours
                    .get("truncatedBytes")
                    .cloned()
                    .unwrap_or(Value::from(0));
                assert_eq!(&cut, truncated, "{label}: {file} bytes truncated ({n})");
            }
            Value::String(s) => {
                assert_eq!(ours["action"], "delete", "{label}: {file}: Kafka says {s}");
                assert_eq!(
                    format!("segment deleted ({} bytes)", ours["bytes"]),
                    *s,
                    "{label}: {file}"
                );
            }
            other => panic!("{label}: unexpected {other}"),
        }
    }
    match plan["truncation"].as_object() {
        Some(t) => {
            assert_eq!(
                t["segment"], result["nextOffsetSegmentBase"],
                "{label}: truncated segment"
            );
            assert_eq!(
                t["position"], result["nextOffsetRelativePosition"],
                "{label}: truncation position"
            );
            assert_eq!(
                t["firstLostOffset"], result["nextOffset"],
                "{label}: first lost offset"
            );
        }
        None => assert!(
            kafka["logBytesTruncated"]
                .as_object()
                .unwrap()
                .values()
                .all(|v| v == 0),
            "{label}: Kafka truncated"
        ),
    }
}

fn file_names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn check_apply(label: &str, case_dir: &Path, interval: u64, recovery_point: i64, result_dir: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir/events-0");
    copy_dir(&case_dir.join("events-0"), &dir);
    let backup = tmp.path().join("backup");
    let out = kseg([
        "recover".to_string(),
        "--apply".into(),
        format!("--index-interval-bytes={interval}"),
        format!("--recovery-point={recovery_point}"),
        format!("--backup-dir={}", backup.display()),
        dir.display().to_string(),
    ]);
    assert!(out.status.success(), "{label}: {}", stderr(&out));
    let kafka = case_dir.join(result_dir).join("events-0");
    // Every file, producer snapshots included, as Kafka's recovery left it.
    assert_eq!(
        file_names(&dir),
        file_names(&kafka),
        "{label}: files after recovery"
    );
    for name in file_names(&kafka) {
        assert!(
            std::fs::read(dir.join(&name)).unwrap() == std::fs::read(kafka.join(&name)).unwrap(),
            "{label}: {name} differs from Kafka's"
        );
    }
    let restored = kseg([
        "recover".to_string(),
        "--undo".into(),
        backup.display().to_string(),
    ]);
    assert!(restored.status.success(), "{label}: {}", stderr(&restored));
    assert_eq!(
        file_names(&dir),
        file_names(&case_dir.join("events-0")),
        "{label}: undo leaves exactly the original files"
    );
    for name in file_names(&case_dir.join("events-0")) {
        assert!(
            std::fs::read(dir.join(&name)).unwrap()
                == std::fs::read(case_dir.join("events-0").join(&name)).unwrap(),
            "{label}: undo of {name}"
        );
    }
}

#[test]
fn verify_predicts_and_recover_reproduces_kafkas_recovery_of_every_damaged_case() {
    let mut runs = 0;
    for case in cases() {
        if !case.dir.join("after-kafka-recovery").is_dir() {
            continue;
        }
        let interval = index_interval(&case);
        let dir = case.dir.join("events-0");
        for (recovery_point, key, result_dir) in RUNS {
            let label = format!("{} {key}", case.name);
            let (report, code) = verify_json(&dir, interval, recovery_point);
            check_verdict(&label, &case.view["recovery"][key], &report["plan"]);
            let loses_data = report["plan"]["truncation"].is_object();
            assert!(
                !loses_data || code == Some(1),
                "{label}: a truncation is a finding"
            );
            check_apply(&label, &case.dir, interval, recovery_point, result_dir);
            runs += 1;
        }
    }
    assert_eq!(runs, 14, "seven damaged cases, two recoveries each");
}

#[test]
fn per_segment_recovery_matches_logsegment_recover() {
    let mut compared = 0;
    for case in cases() {
        let Some(expected) = case.view["recovery"]["segmentRecover"].as_array() else {
            continue;
        };
        let partition = Partition::open(&case.dir.join("events-0")).unwrap();
        for (kafka, segment) in expected.iter().zip(&partition.segments) {
            assert_eq!(kafka["segment"], segment.base_offset);
            let options = SegmentCheckOptions {
                interval: index_interval(&case),
                deep: false,
                cache: CachePolicy::Keep,
                producer_batches_in_memory: PRODUCER_BATCHES_IN_MEMORY,
            };
            let budget = BatchBudget::new(options.producer_batches_in_memory);
            let check = check_segment(segment, &options, &budget, TxnStart::unknown()).unwrap();
            let label = format!("{} segment {}", case.name, segment.base_offset);
            assert_eq!(kafka["sizeBefore"], check.log_size, "{label}");
            assert_eq!(
                kafka["bytesTruncated"],
                check.bytes_to_truncate(),
                "{label}"
            );
            assert_eq!(kafka["validSizeAfter"], check.build.valid_bytes, "{label}");
            assert_eq!(
                kafka["offsetIndexEntries"], check.build.offset_entry_count,
                "{label}"
            );
            assert_eq!(
                kafka["timeIndexEntries"], check.build.time_entry_count,
                "{label}"
            );
            assert_eq!(kafka["readNextOffset"], check.build.next_offset, "{label}");
            compared += 1;
        }
    }
    assert!(compared >= 56, "compared {compared}");
}

#[test]
fn healthy_cases_verify_clean() {
    for case in cases() {
        if case.dir.join("after-kafka-recovery").is_dir() {
            continue;
        }
        let target = case
            .log_dir()
            .unwrap_or_else(|| case.partitions()[0].dir.clone());
        // Plain, and with every record decoded and checked against its batch.
        for extra in ["--recovery-point=0", "--deep"] {
            let out = kseg([
                "verify".to_string(),
                extra.to_string(),
                format!("--index-interval-bytes={}", index_interval(&case)),
                target.display().to_string(),
            ]);
            let (stdout, stderr) = (super::util::stdout(&out), stderr(&out));
            assert_eq!(
                out.status.code(),
                Some(0),
                "{} {extra}: {stdout}{stderr}",
                case.name
            );
        }
    }
}

#[test]
fn a_log_dir_reports_partitions_marked_for_deletion_and_its_checkpoints() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "multi-partition-logdir")
        .unwrap();
    let out = kseg([
        "verify".to_string(),
        case.log_dir().unwrap().display().to_string(),
    ]);
    let text = super::util::stdout(&out);
    let deleted = case.view["deleteMarkedDir"]["name"].as_str().unwrap();
    assert!(
        text.contains(&format!("{deleted}: marked for deletion")),
        "{text}"
    );
    assert!(text.contains("clean-shutdown marker found"), "{text}");
    assert_eq!(
        text.matches(": 3 segments").count() + text.matches(": 4 segments").count(),
        4,
        "four partitions: {text}"
    );
}

#[test]
fn stray_swap_cleaned_and_deleted_files_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir/events-0");
    copy_dir(&super::corpus::root().join("unclean-base/events-0"), &dir);
    for stray in [
        "00000000000000000089.log.swap",
        "00000000000000000175.log.cleaned",
        "00000000000000000000.index.deleted",
    ] {
        std::fs::write(dir.join(stray), b"x").unwrap();
    }
    let out = kseg([
        "verify".to_string(),
        "--index-interval-bytes=1024".into(),
        "--recovery-point=598".into(),
        dir.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(1), "stray files are findings");
    let text = super::util::stdout(&out);
    for stray in [
        "00000000000000000089.log.swap",
        "00000000000000000175.log.cleaned",
        "00000000000000000000.index.deleted",
    ] {
        assert!(
            text.contains(&format!(
                "stray file (Kafka deletes or renames it at start-up): {}",
                dir.join(stray).display()
            )),
            "{stray}: {text}"
        );
    }
}

/// Kafka's recovery rebuilds each recovered segment's `.txnindex` from
/// producer state (`LogSegment.recover`): a full recovery of the healthy
/// transactional case gives back Kafka's own files, and a missing, emptied
/// or shortened `.txnindex` comes back byte for byte.
#[test]
fn recovery_rebuilds_the_txnindex_kafka_wrote() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "transactional")
        .unwrap();
    let source = case.dir.join("txn-0");
    let txn_files: Vec<String> = file_names(&source)
        .into_iter()
        .filter(|n| n.ends_with(".txnindex"))
        .collect();
    assert_eq!(txn_files.len(), 2);
    for damage in ["none", "deleted", "emptied", "last entry dropped"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("logdir/txn-0");
        copy_dir(&source, &dir);
        for name in &txn_files {
            let path = dir.join(name);
            let bytes = std::fs::read(&path).unwrap();
            assert!(bytes.len() >= 2 * 34, "{name} has entries to lose");
            match damage {
                "deleted" => std::fs::remove_file(&path).unwrap(),
                "emptied" => std::fs::write(&path, b"").unwrap(),
                "last entry dropped" => std::fs::write(&path, &bytes[..bytes.len() - 34]).unwrap(),
                _ => {}
            }
        }
        let args = [
            "recover".to_string(),
            format!("--index-interval-bytes={}", index_interval(&case)),
            "--recovery-point=0".into(),
            "--json".into(),
            dir.display().to_string(),
        ];
        let dry = kseg(&args);
        let changes = damage != "none";
        assert_eq!(dry.status.code(), Some(i32::from(changes)), "{damage}");
        let plan = &super::util::json_lines(&dry)[0];
        let rewritten = plan["plan"]["txnIndexesWritten"].as_array().unwrap().len();
        assert_eq!(rewritten, if changes { 2 } else { 0 }, "{damage}");
        let mut apply = args.to_vec();
        apply.insert(1, "--apply".into());
        apply.insert(
            2,
            format!("--backup-dir={}", tmp.path().join("backup").display()),
        );
        let out = kseg(&apply);
        assert!(out.status.success(), "{damage}: {}", stderr(&out));
        for name in &txn_files {
            assert!(
                std::fs::read(dir.join(name)).unwrap() == std::fs::read(source.join(name)).unwrap(),
                "{damage}: {name} differs from Kafka's"
            );
        }
    }
}

/// A `.txnindex` that disagrees with the abort markers below the recovery
/// point is damage Kafka never repairs; verify names it.
#[test]
fn verify_finds_a_txnindex_that_disagrees_with_the_log() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "transactional")
        .unwrap();
    let name = "00000000000000000000.txnindex";
    let original = std::fs::read(case.dir.join("txn-0").join(name)).unwrap();
    let mut other_lso = original.clone();
    other_lso[33] ^= 1;
    let damages: [(&str, Option<Vec<u8>>, &str); 4] = [
        ("deleted", None, "no entry for producer"),
        (
            "last entry dropped",
            Some(original[..original.len() - 34].to_vec()),
            "no entry for producer",
        ),
        (
            "a torn entry",
            Some(original[..original.len() - 3].to_vec()),
            "not a whole number",
        ),
        (
            "another last stable offset",
            Some(other_lso),
            "the entry at byte 0 (producer 7122, offset 52) says first offset 25 and last stable offset 34; the log (ABORT marker at byte 3664 of the .log) gives 25 and 35",
        ),
    ];
    for (damage, bytes, expected) in damages {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("logdir/txn-0");
        copy_dir(&case.dir.join("txn-0"), &dir);
        match bytes {
            Some(b) => std::fs::write(dir.join(name), b).unwrap(),
            None => std::fs::remove_file(dir.join(name)).unwrap(),
        }
        // Recovery starts at the last segment: segment 0 is not looked at.
        let out = kseg([
            "verify",
            "--json",
            "--recovery-point=239",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{damage}");
        let report = &super::util::json_lines(&out)[0];
        let unseen = report["plan"]["unseenDamage"].as_array().unwrap();
        assert!(
            unseen.iter().any(|d| d["segment"] == 0
                && d["problem"].as_str().unwrap().contains("transaction index")
                && d["problem"].as_str().unwrap().contains(expected)),
            "{damage}: {unseen:?}"
        );
    }
    let out = kseg([
        "verify",
        "--recovery-point=239",
        case.dir.join("txn-0").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", super::util::stdout(&out));
}
