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
