//! The KRaft metadata log's own files damaged as a power loss or a bad
//! copy leaves them, on copies of the Kafka-written
//! `internal-cluster-metadata` case: what `verify` says the node does,
//! what `recover` moves aside, and the image `metadata` still builds.

use std::path::{Path, PathBuf};

use super::util::{copy_dir, json_lines, kseg, stderr, stdout};

const LATEST: &str = "00000000000000000102-0000000002.checkpoint";

/// A writable copy of the case's log dir in a fresh temp dir.
pub fn copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir");
    copy_dir(
        &super::corpus::root().join("internal-cluster-metadata"),
        &dir,
    );
    (tmp, dir)
}

/// The case's `__cluster_metadata-0` in a copy.
pub fn partition(dir: &Path) -> PathBuf {
    dir.join("__cluster_metadata-0")
}

fn flip_byte(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0xff;
    std::fs::write(path, bytes).unwrap();
}

/// The raft findings `verify --json` reports for the metadata partition.
fn raft_findings(dir: &Path) -> (Option<i32>, Vec<serde_json::Value>) {
    let out = kseg(["verify", "--json", dir.to_str().unwrap()]);
    let findings = json_lines(&out)
        .into_iter()
        .filter(|v| v["type"] == "partition")
        .flat_map(|v| {
            v["raftLog"]["findings"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    (out.status.code(), findings)
}

#[test]
fn the_undamaged_case_has_no_raft_findings() {
    let (_tmp, dir) = copy();
    assert_eq!(raft_findings(&dir), (Some(0), vec![]));
}

#[test]
fn a_flipped_byte_in_the_latest_snapshot_stops_the_node() {
    let (_tmp, dir) = copy();
    flip_byte(&partition(&dir).join(LATEST), 2500);
    let (code, findings) = raft_findings(&dir);
    assert_eq!(code, Some(1));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["outcome"], "nodeFails");
    assert_eq!(findings[0]["position"], 323);
    assert!(findings[0]["file"].as_str().unwrap().ends_with(LATEST));
}

#[test]
fn a_snapshot_cut_short_is_a_finding() {
    for (len, outcome) in [(100, "nodeFails"), (4000, "losesData")] {
        let (_tmp, dir) = copy();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(partition(&dir).join(LATEST))
            .unwrap();
        file.set_len(len).unwrap();
        let (code, findings) = raft_findings(&dir);
        assert_eq!(code, Some(1), "cut at {len}");
        assert_eq!(
            findings[0]["outcome"], outcome,
            "cut at {len}: {findings:?}"
        );
    }
}

#[test]
fn a_quorum_state_kafka_cannot_read_stops_the_node() {
    let (_tmp, dir) = copy();
    std::fs::write(partition(&dir).join("quorum-state"), "garbage{").unwrap();
    let (code, findings) = raft_findings(&dir);
    assert_eq!(code, Some(1));
    assert_eq!(findings[0]["outcome"], "nodeFails");
    assert!(
        findings[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("quorum-state")
    );
}

#[test]
fn a_partial_snapshot_is_deleted_at_start() {
    let (_tmp, dir) = copy();
    std::fs::write(
        partition(&dir).join("00000000000000000150-0000000002.checkpoint.part"),
        b"x",
    )
    .unwrap();
    let (code, findings) = raft_findings(&dir);
    assert_eq!(code, Some(1));
    assert_eq!(findings[0]["outcome"], "kafkaChangesFiles");
}

#[test]
fn a_snapshot_of_a_later_epoch_than_the_log_truncates_it() {
    let (_tmp, dir) = copy();
    let p = partition(&dir);
    std::fs::rename(
        p.join(LATEST),
        p.join("00000000000000000102-0000000009.checkpoint"),
    )
    .unwrap();
    let (code, findings) = raft_findings(&dir);
    assert_eq!(code, Some(1));
    assert!(
        findings.iter().any(|f| f["outcome"] == "losesData"
            && f["problem"]
                .as_str()
                .unwrap()
                .contains("deletes every segment")),
        "{findings:?}"
    );
}

#[test]
fn metadata_builds_the_image_from_an_older_snapshot_when_the_latest_is_damaged() {
    let (_tmp, dir) = copy();
    let good = kseg(["metadata", "--json", dir.to_str().unwrap()]);
    assert_eq!(good.status.code(), Some(0));
    flip_byte(&partition(&dir).join(LATEST), 2500);
    let out = kseg(["metadata", "--json", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains(LATEST) && stderr(&out).contains("skipped"));
    let (good, fell_back): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&stdout(&good)).unwrap(),
        serde_json::from_str(&stdout(&out)).unwrap(),
    );
    for key in ["topics", "offset", "features", "producerIds", "aclCount"] {
        assert_eq!(good[key], fell_back[key], "{key}");
    }
    // --snapshot names the damaged one: an error, not a quiet fallback.
    let named = partition(&dir).join(LATEST);
    let out = kseg([
        "metadata",
        dir.to_str().unwrap(),
        "--snapshot",
        named.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn recover_moves_a_damaged_snapshot_aside_into_its_backup() {
    let (tmp, dir) = copy();
    flip_byte(&partition(&dir).join(LATEST), 2500);
    let backup = tmp.path().join("backup");
    let out = kseg([
        "recover",
        dir.to_str().unwrap(),
        "--apply",
        "--backup-dir",
        backup.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!partition(&dir).join(LATEST).exists());
    assert_eq!(raft_findings(&dir), (Some(0), vec![]));
    let out = kseg(["metadata", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let undo = kseg(["recover", "--undo", backup.to_str().unwrap()]);
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    assert!(partition(&dir).join(LATEST).exists());
}

/// Every command that builds the image from the log dir's metadata log
/// says which damaged snapshot it skipped and exits 1, as `metadata` does.
#[test]
fn every_command_reading_the_image_exits_1_when_it_skips_a_damaged_snapshot() {
    let (_tmp, dir) = copy();
    let d = dir.to_str().unwrap();
    let commands: [&[&str]; 3] = [
        &["config", d],
        &["transactions", d],
        &["retention-report", "--now", "2025-01-01T00:00:00Z", d],
    ];
    for args in commands {
        let out = kseg(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    flip_byte(&partition(&dir).join(LATEST), 2500);
    for args in commands {
        let out = kseg(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(LATEST) && stderr(&out).contains("skipped"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}
