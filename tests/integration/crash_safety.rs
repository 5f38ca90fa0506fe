//! Kill `recover --apply` at every crash point of every write: each file
//! must then be its old or its new version, and the backup must put the
//! original bytes back exactly.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use super::corpus::root;
use super::util::copy_dir;

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_crash_point_leaves_old_or_new_files_and_a_complete_backup() {
    let case = root().join("unclean-flipped-byte");
    let original = files(&case.join("events-0"));
    let recovered = files(&case.join("after-kafka-recovery-full/events-0"));
    let mut crashes = 0;
    for n in 1..2000 {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("logdir/events-0");
        copy_dir(&case.join("events-0"), &dir);
        let backup = tmp.path().join("backup");
        let status = Command::new(env!("CARGO_BIN_EXE_kseg"))
            .args([
                "recover",
                "--apply",
                "--index-interval-bytes=1024",
                "--recovery-point=0",
            ])
            .arg(format!("--backup-dir={}", backup.display()))
            .arg(&dir)
            .env("KSEG_CRASH_AFTER", n.to_string())
            .output()
            .unwrap()
            .status;
        let now = files(&dir);
        for (name, bytes) in &now {
            if name.ends_with(".kseg-tmp") {
                continue;
            }
            let old = original.get(name) == Some(bytes);
            let new = recovered.get(name) == Some(bytes);
            assert!(
                old || new,
                "crash point {n}: {name} is neither its old nor its new version"
            );
        }
        for name in original.keys() {
            assert!(
                now.contains_key(name)
                    || !recovered.contains_key(name)
                    || name.ends_with(".snapshot"),
                "crash point {n}: {name} vanished"
            );
        }
        if status.code() == Some(0) {
            assert!(crashes > 10, "only {crashes} crash points were reached");
            return;
        }
        assert_eq!(status.code(), Some(99), "crash point {n}");
        crashes += 1;
        if backup.join("MANIFEST").exists() {
            let out = Command::new(env!("CARGO_BIN_EXE_kseg"))
                .arg("restore")
                .arg(&backup)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "crash point {n}: restore failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_eq!(
            files(&dir),
            original,
            "crash point {n}: the backup did not restore the original bytes"
        );
    }
    panic!("recover --apply never finished");
}

/// A `.log` that changes between the check and the write (only possible
/// with `--ignore-lock`) stops the recovery before that segment is touched.
#[test]
fn a_log_changed_since_it_was_checked_is_not_written() {
    use kseg::inspect::producer::state::PRODUCER_BATCHES_IN_MEMORY;
    use kseg::inspect::recovery::partition::check_partition;
    use kseg::inspect::recovery::segment::SegmentCheckOptions;
    use kseg::logdir::{CachePolicy, Partition};
    use kseg::repair::backup::LazyBackup;
    use kseg::repair::recovery::apply_recovery;

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir/events-0");
    copy_dir(&root().join("unclean-torn-tail/events-0"), &dir);
    let partition = Partition::open(&dir).unwrap();
    let options = SegmentCheckOptions {
        interval: 1024,
        deep: false,
        cache: CachePolicy::Keep,
        producer_batches_in_memory: PRODUCER_BATCHES_IN_MEMORY,
    };
    let report = check_partition(
        &partition,
        &options,
        &super::util::load_at(Some(0)),
        &|_| {},
    )
    .unwrap();
    let first = &partition.segments[0].log_path();
    // Another writer flips a byte inside the first batch's CRC coverage.
    let mut bytes = std::fs::read(first).unwrap();
    bytes[100] ^= 0xFF;
    std::fs::write(first, &bytes).unwrap();
    let before = files(&dir);
    let mut backup = LazyBackup::new(tmp.path().join("backup"), false);
    let err = apply_recovery(
        &dir,
        &report.plan,
        &report.checks,
        &report.snapshots,
        &report.state.leader_epochs,
        1024,
        &mut backup,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("changed since it was checked"),
        "{err}"
    );
    assert_eq!(files(&dir), before, "nothing in the partition changed");
}
