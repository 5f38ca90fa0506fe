//! Damaged and unexpected input: every failure gets a message naming the
//! file (and byte position where there is one) and a non-zero exit code.

use std::path::Path;

use super::util::{classic, kseg, stderr, stdout};

fn copy(from: &Path, to: &Path) {
    std::fs::copy(from, to).unwrap();
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let out = kseg(["dump", "/nonexistent/00000000000000000000.log"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/nonexistent/00000000000000000000.log: does not exist"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_unknown_file_kind_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("notes.txt");
    std::fs::write(&path, "hello").unwrap();
    let out = kseg(["dump".as_ref(), path.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("notes.txt: not a file kind kseg can dump"));
}

#[test]
fn a_torn_last_batch_prints_everything_before_it_and_names_the_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("00000000000000018688.log");
    copy(&classic().join("00000000000000018688.log"), &log);
    let len = std::fs::metadata(&log).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(len - 100)
        .unwrap();
    let out = kseg(["dump".as_ref(), log.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let batches = stdout(&out)
        .lines()
        .filter(|l| l.starts_with("baseOffset:"))
        .count();
    assert_eq!(batches as u64, len / 897 - 1);
    assert!(
        stdout(&out).ends_with("Found 797 invalid bytes at the end of 00000000000000018688.log\n"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains(&format!(
            "at byte {}: batch of 897 bytes runs past the end",
            len - 897
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_zero_filled_tail_is_reported_not_a_crash() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("00000000000000018688.log");
    copy(&classic().join("00000000000000018688.log"), &log);
    let len = std::fs::metadata(&log).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(len + 4096)
        .unwrap();
    let out = kseg(["dump".as_ref(), "--json".as_ref(), log.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let last: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "trailingBytes");
    assert_eq!(last["position"], len);
    assert_eq!(last["length"], 4096);
    assert!(stderr(&out).contains("found record size 0 smaller than minimum record overhead (14)"));
}

#[test]
fn a_corrupt_batch_is_shown_invalid_and_the_dump_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("00000000000000018688.log");
    copy(&classic().join("00000000000000018688.log"), &log);
    let mut bytes = std::fs::read(&log).unwrap();
    bytes[897 + 100] ^= 0xff;
    std::fs::write(&log, &bytes).unwrap();
    let out = kseg(["dump".as_ref(), log.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = stdout(&out)
        .lines()
        .filter(|l| l.starts_with("baseOffset:"))
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), bytes.len() / 897);
    assert!(lines[1].ends_with("isvalid: false") && lines[2].ends_with("isvalid: true"));
}

#[test]
fn an_index_of_odd_size_is_flagged() {
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("00000000000000004672.index");
    let mut bytes = std::fs::read(classic().join("00000000000000004672.index")).unwrap();
    bytes.extend_from_slice(&[1, 2, 3]);
    std::fs::write(&index, &bytes).unwrap();
    let out = kseg(["dump".as_ref(), index.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("at byte 1864: file size 1867 is not a multiple of the 8-byte entry size"),
        "{}",
        stderr(&out)
    );
    let sanity = kseg([
        "dump".as_ref(),
        "--index-sanity-check".as_ref(),
        index.as_os_str(),
    ]);
    assert_eq!(sanity.status.code(), Some(1));
    assert!(
        stderr(&sanity).contains("found 1867 bytes which is neither positive nor a multiple of 8")
    );
}

#[test]
fn verify_index_only_reports_mismatches_like_kafka_dump_log() {
    let tmp = tempfile::tempdir().unwrap();
    for ext in ["log", "index"] {
        copy(
            &classic().join(format!("00000000000000004672.{ext}")),
            &tmp.path().join(format!("00000000000000004672.{ext}")),
        );
    }
    let index = tmp.path().join("00000000000000004672.index");
    let mut bytes = std::fs::read(&index).unwrap();
    bytes[3] += 1; // first entry: relative offset 23 -> 24
    std::fs::write(&index, &bytes).unwrap();
    let out = kseg([
        "dump".as_ref(),
        "--verify-index-only".as_ref(),
        index.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out).lines().count(), 1, "entries are not printed");
    assert!(
        stderr(&out).contains("  Index offset: 4696, log offset: 4695"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn dumping_a_timeindex_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let time = tmp.path().join("00000000000000004672.timeindex");
    copy(&classic().join("00000000000000004672.timeindex"), &time);
    let out = kseg(["dump".as_ref(), time.as_os_str()]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        1,
        "no .index appears beside it"
    );
}

#[test]
fn checkpoint_files_dump_instead_of_crashing() {
    let out = kseg([
        "dump".as_ref(),
        classic().join("leader-epoch-checkpoint").as_os_str(),
    ]);
    assert!(out.status.success());
    assert!(stdout(&out).ends_with("epoch: 0 startOffset: 0\n"));
}

#[test]
fn the_format_layer_touches_no_files_and_no_cli_crates() {
    for entry in std::fs::read_dir(super::util::repo().join("src/format")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for banned in ["std::fs", "anyhow", "clap", "println!", "eprintln!"] {
            assert!(
                !text.contains(banned),
                "{} mentions {banned}",
                path.display()
            );
        }
    }
}

/// Exit code and peak RSS (KiB) of one kseg run, as kseg itself reports it
/// (`KSEG_PEAK_RSS`): the child's own figure, whatever the test process holds.
fn peak_rss_kib(args: &[&std::ffi::OsStr]) -> (Option<i32>, i64) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kseg"))
        .args(args)
        .env("KSEG_PEAK_RSS", "1")
        .output()
        .unwrap();
    let err = stderr(&out);
    let line = err
        .lines()
        .find_map(|l| l.strip_prefix("kseg: peak RSS: "))
        .unwrap_or_else(|| panic!("no peak RSS: {err}"));
    (
        out.status.code(),
        line.trim_end_matches(" kB").trim().parse().unwrap(),
    )
}

#[test]
fn memory_stays_flat_on_a_large_file_of_garbage_batches() {
    // 256 MiB of 64 KiB "batches" that frame correctly but hold random bytes
    // in every codec: each must be reported, none may make memory grow.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("garbage-0");
    std::fs::create_dir(&dir).unwrap();
    let log = dir.join("00000000000000000000.log");
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut block = vec![0u8; 65536];
    for b in block.iter_mut() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *b = state as u8;
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(&log).unwrap());
    for i in 0..4096u32 {
        block[..8].copy_from_slice(&(i64::from(i) * 10).to_be_bytes());
        block[8..12].copy_from_slice(&(65536i32 - 12).to_be_bytes());
        block[16] = 2;
        block[22] = (i % 5) as u8;
        std::io::Write::write_all(&mut file, &block).unwrap();
    }
    drop(file);
    for args in [
        vec![
            "dump".as_ref(),
            "--deep-iteration".as_ref(),
            "--print-data-log".as_ref(),
            log.as_os_str(),
        ],
        vec!["verify".as_ref(), "--deep".as_ref(), dir.as_os_str()],
        vec![
            "rebuild-index".as_ref(),
            "--check".as_ref(),
            "--verify".as_ref(),
            dir.as_os_str(),
        ],
    ] {
        let (code, rss) = peak_rss_kib(&args);
        eprintln!("{args:?}: peak RSS {rss} KiB");
        assert_eq!(code, Some(1), "{args:?}: damage is a finding, not a crash");
        assert!(
            rss < 64 * 1024,
            "{args:?}: peak RSS {rss} KiB for a 256 MiB file"
        );
    }
}

/// A SIGBUS (a mapped file truncated by another process) ends kseg with a
/// message and exit code 2, not a crash. The signal is sent directly here:
/// a truncation cannot be timed against kseg's reads.
#[test]
fn a_sigbus_is_reported_with_exit_code_2() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let log = super::util::classic().join("00000000000000000000.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kseg"))
        .args(["dump", "--print-data-log", log.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once output arrives the handler is installed; kseg then fills the
    // pipe (megabytes of records) and waits for it to drain.
    let mut first = [0u8; 1];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: sends a signal to our own child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGBUS) }, 0);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{:?}", out.status);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("a file shrank while kseg was reading it (SIGBUS)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
