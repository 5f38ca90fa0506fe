//! A KRaft node's own files judged as the node does at start, on copies
//! of the Kafka-written `internal-cluster-metadata` case:
//! `meta.properties` (alone, across the node's log dirs, and against the
//! metadata log's voter set), `bootstrap.checkpoint` (built from the
//! case's own batches), `quorum-state` against the voter set, and a
//! `leader-epoch-checkpoint` Kafka's reader rejects.

use std::path::{Path, PathBuf};

use super::metadata_log_damage::{copy, partition};
use super::util::{copy_dir, json_lines, kseg, stderr};

/// The directory id the case's voter set gives voter 3001.
const VOTER_3001_DIR: &str = "ewf_mJQfeV_Vv9hKVxCRrQ";

/// `verify --json`'s exit code and its `nodeFile` findings.
fn node_findings(dirs: &[&Path]) -> (Option<i32>, Vec<serde_json::Value>) {
    let mut args = vec!["verify".to_string(), "--json".to_string()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    let out = kseg(&args);
    let findings = json_lines(&out)
        .into_iter()
        .filter(|v| v["type"] == "nodeFile")
        .collect();
    (out.status.code(), findings)
}

fn write_meta(dir: &Path, text: &str) {
    std::fs::write(dir.join("meta.properties"), text).unwrap();
}

fn voter_3001(directory_id: Option<&str>) -> String {
    let mut text = "version=1\nnode.id=3001\ncluster.id=J8qXRwI-Qyi2G0guFTiuYw\n".to_string();
    if let Some(id) = directory_id {
        text.push_str(&format!("directory.id={id}\n"));
    }
    text
}

/// The one finding, checked for its file, outcome and words.
fn only(findings: &[serde_json::Value], file: &str, outcome: &str, says: &str) {
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = &findings[0];
    assert!(f["file"].as_str().unwrap().ends_with(file), "{f}");
    assert_eq!(f["outcome"], outcome, "{f}");
    assert!(f["problem"].as_str().unwrap().contains(says), "{f}");
}

#[test]
fn a_voter_with_its_own_directory_id_is_clean() {
    let (_tmp, dir) = copy();
    write_meta(&dir, &voter_3001(Some(VOTER_3001_DIR)));
    assert_eq!(node_findings(&[&dir]), (Some(0), vec![]));
}

/// KIP-853 knows a voter by node id and metadata log dir id: a reformatted
/// or copied dir makes the node an observer.
#[test]
fn a_voter_whose_metadata_dir_has_another_directory_id_leaves_the_quorum() {
    let (_tmp, dir) = copy();
    write_meta(&dir, &voter_3001(Some("H3KKO4NTRPaCWtEmm3vW7A")));
    let (code, findings) = node_findings(&[&dir]);
    assert_eq!(code, Some(1));
    only(&findings, "meta.properties", "leavesQuorum", VOTER_3001_DIR);
    assert!(
        findings[0]["problem"]
            .as_str()
            .unwrap()
            .contains("H3KKO4NTRPaCWtEmm3vW7A")
    );

    write_meta(&dir, &voter_3001(None));
    let (code, findings) = node_findings(&[&dir]);
    assert_eq!(code, Some(1));
    assert_eq!(findings.len(), 2, "{findings:#?}");
    assert_eq!(findings[0]["outcome"], "kafkaChangesFiles");
    assert_eq!(findings[1]["outcome"], "leavesQuorum");
}

#[test]
fn a_meta_properties_the_node_cannot_start_with_is_named() {
    let cases = [
        ("version=1\nnode.id=3001\n", "no cluster.id"),
        (
            "version=1\nnode.id=x\ncluster.id=c\n",
            "not a base-10 number",
        ),
        ("version=7\n", "not one Kafka knows"),
        ("cluster.id=c\n", "there is no node.id"),
        (
            "version=1\nnode.id=3001\ncluster.id=c\ndirectory.id=AAAAAAAAAAAAAAAAAAAAAA\n",
            "reserves",
        ),
    ];
    for (text, says) in cases {
        let (_tmp, dir) = copy();
        write_meta(&dir, text);
        let (code, findings) = node_findings(&[&dir]);
        assert_eq!(code, Some(1), "{text}");
        let f = findings
            .iter()
            .find(|f| f["outcome"] == "nodeFails")
            .unwrap_or_else(|| panic!("{text}: {findings:#?}"));
        assert!(f["problem"].as_str().unwrap().contains(says), "{text}: {f}");
    }
}

#[test]
fn a_log_dir_a_node_ran_in_without_meta_properties_stops_the_node() {
    let (_tmp, dir) = copy();
    assert_eq!(node_findings(&[&dir]), (Some(0), vec![]));
    std::fs::write(dir.join("recovery-point-offset-checkpoint"), "0\n0\n").unwrap();
    let (code, findings) = node_findings(&[&dir]);
    assert_eq!(code, Some(1));
    only(
        &findings,
        "meta.properties",
        "nodeFails",
        "No `meta.properties` found",
    );
}

/// One node's dirs share its cluster and node ids, never a directory id.
#[test]
fn the_log_dirs_of_one_node_must_agree() {
    let (tmp, dir) = copy();
    let data = tmp.path().join("data");
    copy_dir(&super::corpus::root().join("idempotent"), &data);
    write_meta(&dir, &voter_3001(Some(VOTER_3001_DIR)));
    let other =
        "version=1\nnode.id=3001\ncluster.id=another\ndirectory.id=H3KKO4NTRPaCWtEmm3vW7A\n";
    write_meta(&data, other);
    let (code, findings) = node_findings(&[&dir, &data]);
    assert_eq!(code, Some(1));
    only(
        &findings,
        "data/meta.properties",
        "nodeFails",
        "Invalid cluster.id",
    );

    write_meta(&data, &voter_3001(Some(VOTER_3001_DIR)));
    let (code, findings) = node_findings(&[&dir, &data]);
    assert_eq!(code, Some(1));
    only(
        &findings,
        "meta.properties",
        "nodeFails",
        "Duplicate directory ID",
    );
}

/// `bootstrap.checkpoint` made of the case's controller-activation batch
/// (the `FeatureLevelRecord` for `metadata.version` among its records),
/// as `kafka-storage format` writes such records, beside the
/// `meta.properties` the formatter writes with it.
fn write_bootstrap(dir: &Path) -> PathBuf {
    write_meta(dir, &voter_3001(Some(VOTER_3001_DIR)));
    let log = std::fs::read(partition(dir).join("00000000000000000000.log")).unwrap();
    let path = dir.join("bootstrap.checkpoint");
    std::fs::write(&path, &log[346..551]).unwrap();
    path
}

#[test]
fn a_bootstrap_checkpoint_that_reads_is_clean() {
    let (_tmp, dir) = copy();
    write_bootstrap(&dir);
    assert_eq!(node_findings(&[&dir]), (Some(0), vec![]));
}

#[test]
fn a_bootstrap_checkpoint_cut_before_its_metadata_version_stops_the_node() {
    let (_tmp, dir) = copy();
    let path = write_bootstrap(&dir);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..100]).unwrap();
    let (code, findings) = node_findings(&[&dir]);
    assert_eq!(code, Some(1));
    assert_eq!(findings.len(), 2, "{findings:#?}");
    assert_eq!(findings[0]["outcome"], "damagedNotRead");
    assert_eq!(findings[0]["position"], 0);
    only(
        &findings[1..],
        "bootstrap.checkpoint",
        "nodeFails",
        "no FeatureLevelRecord for metadata.version",
    );
}

/// The formatter's voter snapshot is not a bootstrap file: its KRaft
/// control records make the bootstrap reader throw.
#[test]
fn a_bootstrap_checkpoint_with_kraft_control_records_stops_the_node() {
    let (_tmp, dir) = copy();
    write_meta(&dir, &voter_3001(Some(VOTER_3001_DIR)));
    std::fs::copy(
        partition(&dir).join("00000000000000000000-0000000000.checkpoint"),
        dir.join("bootstrap.checkpoint"),
    )
    .unwrap();
    let (code, findings) = node_findings(&[&dir]);
    assert_eq!(code, Some(1));
    only(
        &findings,
        "bootstrap.checkpoint",
        "nodeFails",
        "does not take",
    );
}

/// The bootstrap reader checks no CRC: a damaged CRC is read past, and
/// matters only while the metadata log is empty.
#[test]
fn a_bootstrap_checkpoint_crc_mismatch_is_damage_kafka_reads_past() {
    let (_tmp, dir) = copy();
    let path = write_bootstrap(&dir);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[17] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    let (code, findings) = node_findings(&[&dir]);
    assert_eq!(code, Some(1));
    only(
        &findings,
        "bootstrap.checkpoint",
        "damagedNotRead",
        "does not check CRCs",
    );
}

/// A leader the latest voter set does not hold: the node starts
/// unattached; worth a note, not a failing verdict.
#[test]
fn a_quorum_state_leader_outside_the_voter_set_is_a_note() {
    let (_tmp, dir) = copy();
    std::fs::write(
        partition(&dir).join("quorum-state"),
        r#"{"leaderId":4000,"leaderEpoch":2,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}"#,
    )
    .unwrap();
    let (code, findings) = node_findings(&[&dir]);
    assert_eq!(code, Some(0));
    only(&findings, "quorum-state", "note", "[3000, 3001, 3002]");
}

/// Kafka's checkpoint reader rejects what it cannot parse: the metadata
/// log's node does not start, a data partition's log dir goes offline.
#[test]
fn a_leader_epoch_checkpoint_kafka_rejects_is_a_finding_not_an_error() {
    let (tmp, dir) = copy();
    // A leading space: Java's split gives an empty first field.
    std::fs::write(
        partition(&dir).join("leader-epoch-checkpoint"),
        "0\n1\n 1 0\n",
    )
    .unwrap();
    let out = kseg(["verify", "--json", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let partition = json_lines(&out)
        .into_iter()
        .find(|v| v["type"] == "partition")
        .unwrap();
    let e = &partition["leaderEpochCheckpointUnreadable"];
    assert_eq!(e["outcome"], "brokerFails", "{partition}");
    assert!(e["reason"].as_str().unwrap().contains("line 3"), "{e}");
    assert_eq!(partition["raftLog"]["findings"], serde_json::json!([]));

    let data = tmp.path().join("data");
    copy_dir(&super::corpus::root().join("idempotent"), &data);
    let epochs = std::fs::read_dir(&data)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("leader-epoch-checkpoint"))
        .find(|p| p.exists())
        .unwrap();
    std::fs::write(&epochs, "0\n2\n0 0\n\n").unwrap();
    let out = kseg(["verify", "--json", data.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let partition = json_lines(&out)
        .into_iter()
        .find(|v| v["type"] == "partition")
        .unwrap();
    assert_eq!(
        partition["leaderEpochCheckpointUnreadable"]["outcome"],
        "logDirOffline"
    );
}
