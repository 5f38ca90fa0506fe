//! `kseg rebuild-index` writing: byte-identical output, backups, restore,
//! the broker lock and `--check` exit codes.

use super::corpus::root;
use super::util::{LockKind, copy_dir, hold_lock, kseg, lock_message, stderr};

fn damaged_copy(case: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir").join("events-0");
    copy_dir(&root().join(case).join("events-0"), &dir);
    (tmp, dir)
}

#[test]
fn rewrites_a_deleted_index_byte_for_byte_and_restores_the_original() {
    let (tmp, dir) = damaged_copy("unclean-index-deleted");
    let index = dir.join("00000000000000000089.index");
    let check = kseg([
        "rebuild-index",
        "--check",
        "--index-interval-bytes",
        "1024",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(check.status.code(), Some(1), "a missing index is a finding");
    let backup = tmp.path().join("backup");
    let out = kseg([
        "rebuild-index",
        "--index-interval-bytes",
        "1024",
        "--backup-dir",
        backup.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let kafka = std::fs::read(
        root()
            .join("unclean-index-deleted/after-kafka-recovery/events-0/00000000000000000089.index"),
    )
    .unwrap();
    assert_eq!(std::fs::read(&index).unwrap(), kafka);
    let again = kseg([
        "rebuild-index",
        "--check",
        "--index-interval-bytes",
        "1024",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        super::util::stdout(&again)
    );
    let restored = kseg(["restore", backup.to_str().unwrap()]);
    assert!(restored.status.success(), "{}", stderr(&restored));
    assert!(
        !index.exists(),
        "restore removes a file that did not exist before"
    );
}

#[test]
fn refuses_to_write_while_the_log_dir_is_locked() {
    for kind in [LockKind::Broker, LockKind::Flock] {
        let (tmp, dir) = damaged_copy("unclean-index-garbage");
        let lock = hold_lock(tmp.path(), kind);
        let before = std::fs::read(dir.join("00000000000000000089.index")).unwrap();
        let backup = tmp.path().join("backup");
        let args = [
            "rebuild-index",
            "--index-interval-bytes",
            "1024",
            "--backup-dir",
            backup.to_str().unwrap(),
            dir.to_str().unwrap(),
        ];
        let out = kseg(args);
        assert_eq!(out.status.code(), Some(2), "{kind:?}");
        assert!(
            stderr(&out).contains(&lock_message(kind)),
            "{kind:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read(dir.join("00000000000000000089.index")).unwrap(),
            before
        );
        assert!(!backup.exists(), "nothing is written, not even a backup");
        drop(lock);
        let out = kseg(args);
        assert_eq!(out.status.code(), Some(0), "{kind:?}: {}", stderr(&out));
        assert_ne!(
            std::fs::read(dir.join("00000000000000000089.index")).unwrap(),
            before,
            "once the lock is released the index is rebuilt"
        );
        let rebuilt = std::fs::read(dir.join("00000000000000000089.index")).unwrap();
        let lock = hold_lock(tmp.path(), kind);
        let restore = kseg(["restore", backup.to_str().unwrap()]);
        assert_eq!(restore.status.code(), Some(2), "{kind:?}");
        assert!(stderr(&restore).contains(&lock_message(kind)));
        assert_eq!(
            std::fs::read(dir.join("00000000000000000089.index")).unwrap(),
            rebuilt,
            "restore, too, leaves a locked log dir alone"
        );
        drop(lock);
        let restore = kseg(["restore", backup.to_str().unwrap()]);
        assert_eq!(restore.status.code(), Some(0), "{}", stderr(&restore));
        assert_eq!(
            std::fs::read(dir.join("00000000000000000089.index")).unwrap(),
            before
        );
    }
}

#[test]
fn refuses_a_backup_dir_inside_the_log_dir() {
    let (tmp, dir) = damaged_copy("unclean-index-garbage");
    let backup = tmp.path().join("logdir/kseg-backup");
    let out = kseg([
        "rebuild-index",
        "--backup-dir",
        backup.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!backup.exists());
}

#[test]
fn verify_stops_a_rebuild_at_a_bad_crc_as_recovery_would() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("orders-0");
    copy_dir(&super::util::classic(), &dir);
    let log = dir.join("00000000000000009344.log");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes[5000] ^= 0xff; // inside the batch at 4485 (offsets 9364..9367)
    std::fs::write(&log, &bytes).unwrap();
    let headers_only = kseg(["rebuild-index", "--check", dir.to_str().unwrap()]);
    assert_eq!(
        headers_only.status.code(),
        Some(0),
        "without --verify only headers are read: {}",
        super::util::stdout(&headers_only)
    );
    let out = kseg([
        "rebuild-index",
        "--check",
        "--verify",
        log.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("rebuild stops at byte 4485 (recovery would truncate here): crc mismatch"),
        "{}",
        stderr(&out)
    );
    assert!(
        super::util::stdout(&out).contains(
            "00000000000000009344.index: differs from entry 0 (233 entries on disk, 0 rebuilt)"
        ),
        "{}",
        super::util::stdout(&out)
    );
}

#[test]
fn recover_is_a_dry_run_unless_applied_and_refuses_a_locked_log_dir() {
    let (tmp, dir) = damaged_copy("unclean-torn-tail");
    let before: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    let dry = kseg(["recover", "--recovery-point=598", dir.to_str().unwrap()]);
    assert_eq!(dry.status.code(), Some(1), "a truncation is a finding");
    assert!(super::util::stdout(&dry).contains("dry run: nothing was changed"));
    let _lock = hold_lock(tmp.path(), LockKind::Broker);
    let backup = tmp.path().join("backup");
    let out = kseg([
        "recover",
        "--apply",
        "--recovery-point=598",
        "--backup-dir",
        backup.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&lock_message(LockKind::Broker)),
        "{}",
        stderr(&out)
    );
    let after: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(before, after);
    assert!(!backup.exists());
}
