//! Helpers: run the kseg binary, find the shared corpus.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the kseg binary with `args`.
pub fn kseg<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_kseg"))
        .args(args)
        .output()
        .expect("kseg runs")
}

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Parses NDJSON output.
pub fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The classic bundled partition.
pub fn classic() -> PathBuf {
    repo().join("testdata/orders-0")
}

/// Copies a directory tree (for tests that change files).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            let mut perms = std::fs::metadata(&target).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&target, perms).unwrap();
        }
    }
}

/// How a process can hold `<root>/logdir/.lock`.
#[derive(Clone, Copy, Debug)]
pub enum LockKind {
    /// A POSIX record lock on the whole file: what Kafka's `FileLock`
    /// (Java's `FileChannel.tryLock`) takes on Linux.
    Broker,
    /// An exclusive `flock`.
    Flock,
}

/// Takes `<root>/logdir/.lock` the given way; held until the file closes.
pub fn hold_lock(root: &std::path::Path, kind: LockKind) -> File {
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(root.join("logdir/.lock"))
        .unwrap();
    let rc = match kind {
        LockKind::Broker => {
            // SAFETY: a zeroed C struct, then F_SETLK on a descriptor we own.
            let mut request: libc::flock = unsafe { std::mem::zeroed() };
            request.l_type = libc::F_WRLCK as libc::c_short;
            request.l_whence = libc::SEEK_SET as libc::c_short;
            unsafe { libc::fcntl(lock.as_raw_fd(), libc::F_SETLK, &request) }
        }
        // SAFETY: flock on an open descriptor we own.
        LockKind::Flock => unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
    };
    assert_eq!(rc, 0, "{kind:?}");
    lock
}

/// What kseg says about a lock held the given way by this test process.
pub fn lock_message(kind: LockKind) -> String {
    match kind {
        LockKind::Broker => format!(
            "is locked by process {} (a Kafka broker?)",
            std::process::id()
        ),
        LockKind::Flock => "is locked by a running process (flock)".into(),
    }
}

/// Load inputs for library-level checks: the given recovery point, and a
/// clock at which no producer has expired.
pub fn load_at(recovery_point: Option<i64>) -> kseg::inspect::recovery::partition::LoadInputs {
    kseg::inspect::recovery::partition::LoadInputs {
        recovery_point,
        expiry: kseg::inspect::producer::state::ProducerExpiry {
            now_ms: 0,
            expiration_ms: i64::MAX,
        },
    }
}

/// One release's cases (`tests/releases/<release>.tar.zst`), unpacked once under the target directory (into a
/// directory named by the archive's checksum, renamed into place so
/// parallel runs never see half of it).
pub fn unpacked(release: &str) -> PathBuf {
    unpacked_archive(&format!("tests/releases/{release}.tar.zst"), release)
}

/// The archive at `archive` (relative to the repository) unpacked once
/// under the target directory, by its checksum; returns its `top` directory.
pub fn unpacked_archive(archive: &str, top: &str) -> PathBuf {
    let archive = repo().join(archive);
    let bytes = std::fs::read(&archive).unwrap_or_else(|e| panic!("{}: {e}", archive.display()));
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = base.join(format!(
        "kseg-unpacked-{top}-{:08x}",
        crc32fast::hash(&bytes)
    ));
    if !dir.is_dir() {
        // Tests of one process unpack in parallel threads: each its own.
        static UNPACKING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let tmp = base.join(format!(
            "kseg-unpacking-{top}-{}-{}",
            std::process::id(),
            UNPACKING.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&tmp);
        let decoder = zstd::stream::read::Decoder::new(bytes.as_slice()).unwrap();
        tar::Archive::new(decoder).unpack(&tmp).unwrap();
        if std::fs::rename(&tmp, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
    }
    dir.join(top)
}
