//! `kseg verify` on the bundled partition: what it notes beyond recovery.

use super::util::{classic, copy_dir, json_lines, kseg, stderr, stdout};

#[test]
fn a_missing_producer_snapshot_is_noted_but_is_not_a_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir/orders-0");
    copy_dir(&classic(), &dir);
    let out = kseg(["verify", "--json", dir.to_str().unwrap()]);
    assert_eq!(
        json_lines(&out)[0]["snapshotsMissing"],
        serde_json::json!([])
    );

    std::fs::remove_file(dir.join("00000000000000009344.snapshot")).unwrap();
    let out = kseg(["verify", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("no producer snapshot at segment bases [9344]"),
        "{}",
        stdout(&out)
    );
    let out = kseg(["verify", "--json", dir.to_str().unwrap()]);
    assert_eq!(
        json_lines(&out)[0]["snapshotsMissing"],
        serde_json::json!([9344])
    );
}

/// A `partition.metadata` the broker's reader rejects is a finding, with
/// what the broker does about it: an `IOException` (the zero UUID, a bad
/// line) takes the log dir offline, a topic id that is not a base64 UUID or
/// a missing line stops the broker's start.
#[test]
fn an_unreadable_partition_metadata_is_a_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir/orders-0");
    copy_dir(&classic(), &dir);
    let path = dir.to_str().unwrap();
    let out = kseg(["verify", "--json", path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(json_lines(&out)[0]["partitionMetadataUnreadable"].is_null());
    for (text, line, outcome) in [
        (
            "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n",
            2,
            "logDirOffline",
        ),
        (
            "version:0\ntopic_id: kseg-classic-AAAAAAAAA\n",
            1,
            "logDirOffline",
        ),
        (
            "version: 0\ntopic_id: kseg-classic-AAAAAAAA\n",
            2,
            "brokerFails",
        ),
        ("", 1, "brokerFails"),
    ] {
        std::fs::write(dir.join("partition.metadata"), text).unwrap();
        let out = kseg(["verify", "--json", path]);
        assert_eq!(out.status.code(), Some(1), "{text:?}: {}", stderr(&out));
        let found = &json_lines(&out)[0]["partitionMetadataUnreadable"];
        assert_eq!(found["line"], line, "{text:?}");
        assert_eq!(found["outcome"], outcome, "{text:?}");
        let out = kseg(["verify", path]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stdout(&out).contains("partition.metadata cannot be read"),
            "{}",
            stdout(&out)
        );
        let out = kseg(["dump", dir.join("partition.metadata").to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{text:?}");
        assert!(
            stderr(&out).contains(&format!("line {line}")),
            "{}",
            stderr(&out)
        );
    }
}

/// The KRaft metadata log is opened with the metadata topic's own id
/// (`AAAAAAAAAAAAAAAAAAAAAQ`); a `partition.metadata` there naming any
/// other id, valid as it is, makes `UnifiedLog.initializeTopicId` throw
/// `InconsistentTopicIdException`: the node does not start. A directory in
/// place of the file is an `IOException` to Kafka: for a data partition,
/// the log dir goes offline.
#[test]
fn the_metadata_log_holds_the_metadata_topic_id() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir/__cluster_metadata-0");
    copy_dir(
        &super::corpus::root().join("internal-cluster-metadata/__cluster_metadata-0"),
        &dir,
    );
    let path = dir.to_str().unwrap();
    let out = kseg(["verify", "--json", path]);
    assert!(
        json_lines(&out)[0]["partitionMetadataUnreadable"].is_null(),
        "{}",
        stderr(&out)
    );
    std::fs::write(
        dir.join("partition.metadata"),
        "version: 0\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZA\n",
    )
    .unwrap();
    let out = kseg(["verify", "--json", path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let found = &json_lines(&out)[0]["partitionMetadataUnreadable"];
    assert_eq!(found["outcome"], "brokerFails", "{found}");

    let data = tmp.path().join("logdir/orders-0");
    copy_dir(&classic(), &data);
    std::fs::remove_file(data.join("partition.metadata")).unwrap();
    std::fs::create_dir(data.join("partition.metadata")).unwrap();
    let out = kseg(["verify", "--json", data.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let found = &json_lines(&out)[0]["partitionMetadataUnreadable"];
    assert_eq!(found["outcome"], "logDirOffline", "{found}");
}

/// Without `partition.metadata` a KRaft broker takes a partition for a
/// stray replica at start and renames it `-stray`
/// (`LogManager.isStrayKraftReplica`: no topic id); the metadata log's
/// raft layer writes its own file again instead.
#[test]
fn a_missing_partition_metadata_makes_a_stray_replica() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir/orders-0");
    copy_dir(&classic(), &dir);
    std::fs::remove_file(dir.join("partition.metadata")).unwrap();
    let out = kseg(["verify", "--json", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let found = &json_lines(&out)[0]["partitionMetadataUnreadable"];
    assert_eq!(found["outcome"], "strayAtStart", "{found}");
    assert_eq!(found["line"], 0, "{found}");
    let out = kseg(["verify", dir.to_str().unwrap()]);
    assert!(
        stdout(&out).contains(
            "no partition.metadata: a KRaft broker takes the partition for a stray replica"
        ),
        "{}",
        stdout(&out)
    );

    let meta = tmp.path().join("logdir/__cluster_metadata-0");
    copy_dir(
        &super::corpus::root().join("internal-cluster-metadata/__cluster_metadata-0"),
        &meta,
    );
    std::fs::remove_file(meta.join("partition.metadata")).unwrap();
    let out = kseg(["verify", "--json", meta.to_str().unwrap()]);
    assert!(
        json_lines(&out)[0]["partitionMetadataUnreadable"].is_null(),
        "{}",
        stdout(&out)
    );
}
