//! What reading leaves in the page cache: `verify` drops the pages it
//! pulled in while a broker holds the log dir's lock (or when asked), and
//! keeps them otherwise, for the broker's own recovery to find.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::util::{LockKind, classic, copy_dir, hold_lock, kseg, stderr};

/// A copy of the classic partition under `<tmp>/logdir`, on the build's
/// file system (tmpfs cannot drop pages), and its `.log` files.
fn copy_on_disk() -> (tempfile::TempDir, PathBuf, Vec<PathBuf>) {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let log_dir = tmp.path().join("logdir");
    copy_dir(&classic(), &log_dir.join("orders-0"));
    let mut logs: Vec<PathBuf> = std::fs::read_dir(log_dir.join("orders-0"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    (tmp, log_dir, logs)
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

/// How many of the file's pages are cached.
fn cached_pages(path: &Path) -> usize {
    let file = File::open(path).unwrap();
    // SAFETY: never read; mapped only for mincore.
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    let mut vec = vec![0u8; map.len().div_ceil(page_size())];
    // SAFETY: one byte per page of the mapping.
    let rc = unsafe { libc::mincore(map.as_ptr() as *mut _, map.len(), vec.as_mut_ptr()) };
    assert_eq!(rc, 0);
    vec.iter().filter(|b| *b & 1 == 1).count()
}

fn evict(logs: &[PathBuf]) {
    for log in logs {
        let file = File::open(log).unwrap();
        file.sync_all().unwrap();
        // SAFETY: advisory syscall on a descriptor we own.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(cached_pages(log), 0, "{} stays cached", log.display());
    }
}

fn cached(logs: &[PathBuf]) -> Vec<usize> {
    logs.iter().map(|l| cached_pages(l)).collect()
}

#[test]
fn verify_drops_what_it_read_only_while_a_broker_holds_the_lock() {
    let (tmp, log_dir, logs) = copy_on_disk();
    let all: Vec<usize> = logs
        .iter()
        .map(|l| (std::fs::metadata(l).unwrap().len() as usize).div_ceil(page_size()))
        .collect();

    evict(&logs);
    let lock = hold_lock(tmp.path(), LockKind::Broker);
    let out = kseg(["verify", log_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("is held by process {}", std::process::id())),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        cached(&logs),
        vec![0; logs.len()],
        "a live broker's cache is left alone"
    );
    drop(lock);

    let out = kseg(["verify", log_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        cached(&logs),
        all,
        "a stopped broker's restart finds them cached"
    );

    evict(&logs);
    let out = kseg([
        "verify",
        "--page-cache",
        "restore",
        log_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(cached(&logs), vec![0; logs.len()]);
}

/// `rebuild-index` (`--check` and a real rebuild) drops again the pages its
/// walk pulled in, whether it reads headers with `pread` (a small `.log`) or
/// through a mapping (one of 1 MiB or more), and leaves cached pages cached.
#[test]
fn rebuild_index_leaves_the_page_cache_as_it_found_it() {
    use kseg::fixture::{PartitionWriter, WriterConfig, fixture_value};
    use kseg::format::encode::{BatchSpec, RecordSpec};
    let (tmp, log_dir, small_logs) = copy_on_disk();
    let big_dir = log_dir.join("big-0");
    let mut writer = PartitionWriter::create(
        &big_dir,
        WriterConfig {
            segment_bytes: 1 << 30,
            index_interval_bytes: 4096,
        },
    )
    .unwrap();
    for batch in 0..200 {
        let records = (0..4)
            .map(|i| RecordSpec {
                timestamp: 1_700_000_000_000 + batch,
                value: Some(fixture_value(batch * 4 + i, 2000)),
                ..RecordSpec::default()
            })
            .collect();
        writer
            .append(BatchSpec {
                records,
                ..BatchSpec::default()
            })
            .unwrap();
    }
    writer.close("kseg-fixture-AAAAAAAAA").unwrap();
    let big_log = big_dir.join("00000000000000000000.log");
    assert!(std::fs::metadata(&big_log).unwrap().len() >= 1 << 20);
    let mut logs = small_logs;
    logs.push(big_log);
    let all: Vec<usize> = logs
        .iter()
        .map(|l| (std::fs::metadata(l).unwrap().len() as usize).div_ceil(page_size()))
        .collect();
    let mut runs = 0;
    let mut rebuild = |command: &str| {
        // Each rewrite keeps its backups in a directory of its own.
        runs += 1;
        let backups = tmp.path().join(format!("backups-{runs}"));
        let out = kseg([
            "rebuild-index",
            command,
            "--backup-dir",
            backups.to_str().unwrap(),
            log_dir.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{command}: {}", stderr(&out));
    };
    for command in ["--check", "--force"] {
        evict(&logs);
        rebuild(command);
        assert_eq!(
            cached(&logs),
            vec![0; logs.len()],
            "{command}: cold before, cold after"
        );
        for log in &logs {
            let _ = std::fs::read(log).unwrap();
        }
        rebuild(command);
        assert_eq!(cached(&logs), all, "{command}: cached before, cached after");
    }
}
