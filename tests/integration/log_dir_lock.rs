//! kseg holds the log dir's `.lock` while it writes, as a broker does: a
//! POSIX record lock, which Java's `FileChannel.tryLock` (Kafka's
//! `FileLock`) cannot take while kseg holds it.

use kseg::repair::LogDirLock;

use super::util::{classic, copy_dir, kseg, stderr};

#[test]
fn kseg_holds_the_lock_a_broker_would_need() {
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = tmp.path().join("logdir");
    copy_dir(&classic(), &log_dir.join("orders-0"));
    let held = LogDirLock::acquire(&log_dir).unwrap();
    assert!(
        log_dir.join(".lock").exists(),
        "created as the broker creates it"
    );
    let backup = tmp.path().join("backup");
    let recover = || {
        kseg([
            "recover",
            "--apply",
            "--backup-dir",
            backup.to_str().unwrap(),
            log_dir.to_str().unwrap(),
        ])
    };
    // Another process asks the way a broker's tryLock conflicts: F_GETLK.
    let out = recover();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("is locked by process {}", std::process::id())),
        "{}",
        stderr(&out)
    );
    drop(held);
    let out = recover();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
