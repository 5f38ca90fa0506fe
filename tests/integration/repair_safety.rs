//! What a repair leaves for the broker that starts next: every file kseg
//! writes or puts back keeps the owner, group and mode of the one it
//! replaces (a broker running as its own user must still open them); backup
//! paths are judged after resolving `..` and symlinks; the default backup
//! place is outside every log dir, even when kseg runs from inside one; and
//! a run that fails after changing files names the backup and the command
//! that undoes it.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::util::{classic, copy_dir, kseg, stderr, stdout};

const UID: u32 = 4321;
const GID: u32 = 8765;
const MODE: u32 = 0o640;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// `<tmp>/logdir/orders-0`, a copy of the bundled partition with one byte of
/// its middle segment zeroed (so recovery truncates, rebuilds and deletes),
/// every file owned by UID:GID with mode MODE.
fn broker_owned_copy(tmp: &Path) -> PathBuf {
    let partition = tmp.join("logdir/orders-0");
    copy_dir(&classic(), &partition);
    let log = partition.join("00000000000000009344.log");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes[5000] = 0;
    std::fs::write(&log, bytes).unwrap();
    for dir in [tmp.join("logdir"), partition.clone()] {
        std::os::unix::fs::chown(&dir, Some(UID), Some(GID)).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o750)).unwrap();
    }
    for entry in std::fs::read_dir(&partition).unwrap() {
        let path = entry.unwrap().path();
        std::os::unix::fs::chown(&path, Some(UID), Some(GID)).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(MODE)).unwrap();
    }
    partition
}

/// Every file under `dir` whose owner, group or mode is not UID, GID, MODE.
fn wrongly_owned(dir: &Path) -> Vec<String> {
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        if meta.is_file() && (meta.uid(), meta.gid(), meta.mode() & 0o7777) != (UID, GID, MODE) {
            wrong.push(format!(
                "{} {}:{} {:o}",
                entry.file_name().to_string_lossy(),
                meta.uid(),
                meta.gid(),
                meta.mode() & 0o7777
            ));
        }
    }
    wrong
}

#[test]
fn repairs_and_restores_keep_the_broker_users_ownership_and_mode() {
    if !is_root() {
        eprintln!("skipped: giving files another owner needs root (CI runs as root)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let partition = broker_owned_copy(tmp.path());
    let backup = tmp.path().join("backup");
    let out = kseg([
        "recover".as_ref(),
        "--apply".as_ref(),
        "--backup-dir".as_ref(),
        backup.as_os_str(),
        partition.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Recovery rewrote indexes, wrote a new producer snapshot and created
    // `.lock`: all as the broker's user, with the partition's mode.
    assert!(partition.join("00000000000000009364.snapshot").exists());
    assert_eq!(wrongly_owned(&partition), Vec::<String>::new());
    let lock = std::fs::metadata(tmp.path().join("logdir/.lock")).unwrap();
    assert_eq!((lock.uid(), lock.gid()), (UID, GID), ".lock");
    assert_eq!(
        lock.mode() & 0o7777,
        0o640,
        ".lock takes the directory's read and write bits"
    );
    let copies: Vec<PathBuf> = std::fs::read_dir(&backup)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "MANIFEST")
        .collect();
    assert!(copies.len() > 5, "{copies:?}");
    for copy in &copies {
        let meta = std::fs::metadata(copy).unwrap();
        assert_eq!(
            (meta.uid(), meta.gid(), meta.mode() & 0o7777),
            (UID, GID, MODE),
            "{copy:?}"
        );
    }

    // A restore puts back the deleted segments as the broker's user too,
    // even if something changed the owner of a file in the meantime.
    let index = partition.join("00000000000000000000.index");
    std::os::unix::fs::chown(&index, Some(0), Some(0)).unwrap();
    let out = kseg(["restore".as_ref(), backup.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(partition.join("00000000000000014016.log").exists());
    assert_eq!(wrongly_owned(&partition), Vec::<String>::new());

    // rebuild-index --force rewrites every index in place.
    let out = kseg([
        "rebuild-index".as_ref(),
        "--force".as_ref(),
        "--no-backup".as_ref(),
        partition.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(wrongly_owned(&partition), Vec::<String>::new());
}

/// Runs kseg with `args` from the directory `cwd`.
fn kseg_in(cwd: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kseg"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_backup_dir_given_with_dotdot_or_a_symlink_is_judged_where_it_really_is() {
    let tmp = tempfile::tempdir().unwrap();
    let logdir = tmp.path().join("logdir");
    copy_dir(&classic(), &logdir.join("orders-0"));
    std::fs::remove_file(logdir.join("orders-0/00000000000000000000.index")).unwrap();
    // `../bk` from inside the log dir is beside it, not inside it.
    let out = kseg_in(
        &logdir,
        &["rebuild-index", "--backup-dir", "../bk", "orders-0"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(tmp.path().join("bk/MANIFEST").exists());
    // A symlink outside pointing into the log dir is inside it.
    std::os::unix::fs::symlink(&logdir, tmp.path().join("alias")).unwrap();
    std::fs::remove_file(logdir.join("orders-0/00000000000000000000.index")).unwrap();
    let out = kseg_in(
        tmp.path(),
        &[
            "rebuild-index",
            "--backup-dir",
            "alias/bk",
            "logdir/orders-0",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("is inside log dir"),
        "{}",
        stderr(&out)
    );
    assert!(!logdir.join("bk").exists());
}

#[test]
fn run_from_inside_the_log_dir_the_default_backup_goes_beside_it_and_the_plan_says_where() {
    let tmp = tempfile::tempdir().unwrap();
    let logdir = tmp.path().join("logdir");
    copy_dir(&classic(), &logdir.join("orders-0"));
    std::fs::remove_file(logdir.join("orders-0/00000000000000004672.timeindex")).unwrap();
    let out = kseg_in(&logdir, &["recover", "--apply", "orders-0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let beside: Vec<PathBuf> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("kseg-backup-")
        })
        .collect();
    assert_eq!(beside.len(), 1, "{beside:?}");
    let text = stdout(&out);
    let named = beside[0].canonicalize().unwrap();
    assert!(
        text.contains(&format!(
            "backup: originals of the files this changes go to {}",
            named.display()
        )),
        "{text}"
    );
    assert!(!std::fs::read_dir(&logdir).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("kseg-backup-")
    }));
}

/// A command running kseg as the broker's user (UID:GID) from `tmp`, or
/// `None`, said on stderr, when that user cannot run it. The binary under
/// the clone may sit below a directory only its owner can enter (a clone
/// in `/root` or in a `mktemp -d`), so a copy in `tmp` is what runs; `tmp`
/// must already be the broker user's, as the tests make it.
fn as_broker(tmp: &Path) -> Option<Command> {
    let copy = tmp.join("kseg");
    std::fs::copy(env!("CARGO_BIN_EXE_kseg"), &copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    let command = || {
        let mut c = Command::new(&copy);
        c.uid(UID).gid(GID).current_dir(tmp);
        c
    };
    match command().arg("--version").output() {
        Ok(out) if out.status.success() => Some(command()),
        other => {
            eprintln!(
                "skipped: user {UID} cannot run {} (is a directory above it private?): {other:?}",
                copy.display()
            );
            None
        }
    }
}

#[test]
fn a_write_that_fails_midway_names_the_backup_and_the_restore_command() {
    if !is_root() {
        eprintln!("skipped: running kseg as another user needs root (CI runs as root)");
        return;
    }
    // The broker's user runs kseg on files it may not write, in directories
    // it may: the indexes of the first segments are replaced (a rename),
    // then truncating the damaged segment's `.log` is refused.
    let tmp = tempfile::tempdir().unwrap();
    let partition = broker_owned_copy(tmp.path());
    std::os::unix::fs::chown(tmp.path(), Some(UID), Some(GID)).unwrap();
    for entry in std::fs::read_dir(&partition).unwrap() {
        let path = entry.unwrap().path();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o440)).unwrap();
    }
    let backup = tmp.path().join("bk");
    let Some(mut broker) = as_broker(tmp.path()) else {
        return;
    };
    let out = broker
        .args([
            "recover".as_ref(),
            "--apply".as_ref(),
            "--backup-dir".as_ref(),
            backup.as_os_str(),
            partition.as_os_str(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("opening for truncation"), "{err}");
    assert!(
        err.contains(&format!(
            "some files were already changed; their originals are in {0}: `kseg restore {0}` puts them back",
            backup.display()
        )),
        "{err}"
    );
    let out = kseg(["restore".as_ref(), backup.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_file_whose_owner_kseg_cannot_keep_is_left_alone_with_no_temporary_file() {
    if !is_root() {
        eprintln!("skipped: running kseg as another user needs root (CI runs as root)");
        return;
    }
    // The directories belong to the broker's user, the files to root: run
    // as the broker's user, kseg could write them but not give them back
    // to root, so it refuses each one and leaves it as it was.
    let tmp = tempfile::tempdir().unwrap();
    let partition = tmp.path().join("logdir/orders-0");
    copy_dir(&classic(), &partition);
    for dir in [
        tmp.path().to_path_buf(),
        tmp.path().join("logdir"),
        partition.clone(),
    ] {
        std::os::unix::fs::chown(&dir, Some(UID), Some(GID)).unwrap();
    }
    let before = std::fs::read(partition.join("00000000000000000000.index")).unwrap();
    let Some(mut broker) = as_broker(tmp.path()) else {
        return;
    };
    let out = broker
        .args([
            "rebuild-index".as_ref(),
            "--force".as_ref(),
            "--no-backup".as_ref(),
            partition.as_os_str(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("giving the temporary file the owner and mode of"),
        "{}",
        stderr(&out)
    );
    let leftovers: Vec<_> = std::fs::read_dir(&partition)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".kseg-tmp"))
        .collect();
    assert_eq!(leftovers, Vec::<String>::new());
    let index = partition.join("00000000000000000000.index");
    assert_eq!(std::fs::metadata(&index).unwrap().uid(), 0);
    assert_eq!(std::fs::read(&index).unwrap(), before);
}
