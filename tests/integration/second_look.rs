//! What a new user hit on a second look: record counts on torn and
//! unframable tails, paths that are devices or FIFOs, `locate` on a
//! `.log`, ages in the future, per-topic settings in a log dir, and the
//! small messages that said too little.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::corpus::root;
use super::util::{classic, copy_dir, json_lines, kseg, stderr, stdout};

fn verdict(case: &str) -> String {
    let out = kseg([
        "verify".as_ref(),
        root().join(case).join("events-0").as_os_str(),
    ]);
    stdout(&out)
        .lines()
        .find(|l| l.contains("verdict:"))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_torn_or_unframable_tail_counts_what_its_header_claims_as_a_lower_bound() {
    // The batch at 6365 (offsets 667..670, 4 records) is cut in the middle.
    assert!(
        verdict("unclean-torn-tail").ends_with("158 bytes and at least 4 records dropped"),
        "{}",
        verdict("unclean-torn-tail")
    );
    // Batch 636 claims 0x7ffffff0 bytes: its header still counts 1 record,
    // and whatever follows it cannot be framed, so the count is a bound.
    assert!(
        verdict("unclean-huge-batch-length").ends_with("3204 bytes and at least 1 records dropped"),
        "{}",
        verdict("unclean-huge-batch-length")
    );
    // A zero-filled tail was never written: nothing is lost, exactly.
    assert!(
        verdict("unclean-zero-tail").ends_with("4608 bytes and 0 records dropped"),
        "{}",
        verdict("unclean-zero-tail")
    );
    let out = kseg([
        "verify".as_ref(),
        "--json".as_ref(),
        root().join("unclean-torn-tail/events-0").as_os_str(),
    ]);
    let plan = json_lines(&out)
        .into_iter()
        .find(|v| v["plan"]["truncation"].is_object())
        .expect("a partition line with a truncation");
    assert_eq!(plan["plan"]["truncation"]["recordsDropped"], 4);
    assert_eq!(plan["plan"]["truncation"]["recordsDroppedAtLeast"], true);
}

/// Runs kseg with `args`, killed after 10 s: a read that blocks fails the
/// test instead of hanging it.
fn kseg_bounded(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kseg"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("kseg {args:?} blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn devices_and_fifos_are_named_for_what_they_are_and_never_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("pipe.log");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let fifo = fifo.to_str().unwrap();
    for (args, what) in [
        (
            vec!["verify", "/dev/null"],
            "/dev/null: is a character device: not a regular file",
        ),
        (
            vec!["rebuild-index", "/dev/null"],
            "/dev/null: is a character device: not a regular file",
        ),
        (
            vec!["verify", fifo],
            "pipe.log: is a FIFO: not a regular file",
        ),
        (
            vec!["dump", fifo],
            "pipe.log: is a FIFO: not a regular file",
        ),
        (
            vec!["dump", "/dev/null"],
            "/dev/null: is a character device: not a regular file",
        ),
        (
            vec!["retention-report", fifo],
            "pipe.log: is a FIFO: not a regular file",
        ),
        (
            vec!["locate", "--offset", "0", fifo],
            "pipe.log: is a FIFO: not a regular file",
        ),
    ] {
        let (code, err) = kseg_bounded(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(what), "{args:?}: {err}");
    }
}

#[test]
fn locate_on_a_log_looks_in_its_partition() {
    let log = classic().join("00000000000000000000.log");
    let by_log = kseg([
        "locate".as_ref(),
        "--offset".as_ref(),
        "4730".as_ref(),
        log.as_os_str(),
    ]);
    let by_dir = kseg([
        "locate".as_ref(),
        "--offset".as_ref(),
        "4730".as_ref(),
        classic().as_os_str(),
    ]);
    assert_eq!(by_log.status.code(), Some(0), "{}", stderr(&by_log));
    assert_eq!(stdout(&by_log), stdout(&by_dir));
}

#[test]
fn retention_report_says_in_the_future_and_takes_settings_by_topic() {
    // A log dir of the compacted case and the bundled delete-policy topic.
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("compacted"), tmp.path());
    copy_dir(&classic(), &tmp.path().join("orders-0"));
    let dir = tmp.path().to_str().unwrap();
    // --now before the bundled data was written: its records are in the future.
    let out = kseg(["retention-report", "--now", "2023-11-14T22:00:00Z", dir]);
    let text = stdout(&out);
    let negative = text
        .match_indices(" -")
        .any(|(at, _)| text[at + 2..].starts_with(|c: char| c.is_ascii_digit()));
    assert!(!negative, "a negative age: {text}");
    assert!(text.contains("in the future"), "{text}");
    // One config for a compacted and a delete topic: the compacted one is
    // called out, and the warning names the per-topic form that fixes it.
    assert!(
        text.contains("warning: keyed-0 has an entry in cleaner-offset-checkpoint, so its topic is compacted, but the settings applied here have no compact in cleanup.policy; pass --config keyed:cleanup.policy=compact"),
        "{text}"
    );
    let out = kseg([
        "retention-report",
        "--now",
        "2023-11-14T22:00:00Z",
        "--config",
        "keyed:cleanup.policy=compact",
        dir,
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!text.contains("warning: keyed-0 has an entry"), "{text}");
    let keyed = text.split("orders-0:").next().unwrap();
    let orders = text.split("orders-0:").nth(1).unwrap();
    assert!(
        keyed.contains("cleaner:"),
        "the compact view for keyed-0: {keyed}"
    );
    assert!(
        !orders.contains("cleaner:"),
        "orders keeps delete: {orders}"
    );
    let out = kseg(["retention-report", "--config", "keyed:no.such=1", dir]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--config keyed:no.such"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn small_messages_say_enough() {
    // The time-index trace keeps the "Corrupt index found" note the
    // offset trace and --json have.
    let garbage = root().join("unclean-index-garbage/events-0");
    let out = kseg([
        "locate".as_ref(),
        "--as-opened".as_ref(),
        "--timestamp".as_ref(),
        "1700000001100".as_ref(),
        garbage.as_os_str(),
    ]);
    assert!(
        stdout(&out).contains("3. offset index: Corrupt index found"),
        "{}",
        stdout(&out)
    );
    // A partition without indexes: every segment is recovered, and the
    // count says why.
    let tmp = tempfile::tempdir().unwrap();
    let partition = tmp.path().join("orders-0");
    copy_dir(&classic(), &partition);
    for entry in std::fs::read_dir(&partition).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "index") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let out = kseg(["verify".as_ref(), partition.as_os_str()]);
    assert!(
        stdout(&out).contains("(0 here, and 5 more for a missing .index)"),
        "{}",
        stdout(&out)
    );
    // `<PATHS>...` in verify's usage.
    let out = kseg(["verify", "--help"]);
    assert!(
        stdout(&out).contains("Usage: kseg verify [OPTIONS] <PATHS>..."),
        "{}",
        stdout(&out)
    );
    // An empty checkpoint says what it is.
    let empty = tmp.path().join("recovery-point-offset-checkpoint");
    std::fs::write(&empty, b"").unwrap();
    let out = kseg(["dump".as_ref(), empty.as_os_str()]);
    assert!(
        stdout(&out)
            .contains("an empty file, which Kafka reads as having no entries (offset checkpoint)"),
        "{}",
        stdout(&out)
    );
}
