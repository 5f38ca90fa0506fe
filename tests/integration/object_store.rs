//! Remote segments read in place from a real S3-compatible server
//! (`s3_server`): a segment Kafka wrote, stored as Kafka's
//! `LocalTieredStorage` stores it, dumps exactly as the file on disk.

use super::corpus;
use super::s3_server::server;
use super::util::{kseg, stderr, stdout};

/// A topic id and segment id in the shapes Kafka prints them.
const TOPIC_ID: &str = "Ms7kW9S0QpW4y1rHuwh8ZQ";
const SEGMENT_ID: &str = "Xk3vN1bRTgC0fm0yZ3q2_A";

/// Every Kafka-written data segment of the corpus (internal topics too).
fn corpus_segments() -> Vec<std::path::PathBuf> {
    let mut logs = Vec::new();
    for case in corpus::cases() {
        for part in case.partitions() {
            for entry in std::fs::read_dir(&part.dir).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "log") {
                    logs.push(path);
                }
            }
        }
    }
    logs.sort();
    logs
}

/// kseg's output with the named file's own line (`Dumping …`, and the
/// path in messages) replaced, so a local and a remote dump compare.
fn without_name(text: &str, name: &str) -> String {
    text.replace(name, "<segment>")
}

/// Every corpus segment, uploaded to S3 in LocalTieredStorage's layout,
/// dumps byte for byte as the local file does (plain, deep with records,
/// and as JSON), with the same stderr and exit code.
#[test]
fn a_remote_segment_dumps_as_the_file_on_disk() {
    let s3 = server();
    let bucket = s3.bucket("lts");
    let logs = corpus_segments();
    assert!(logs.len() > 20, "{} segments", logs.len());
    for (i, log) in logs.iter().enumerate() {
        let base: i64 = log.file_stem().unwrap().to_str().unwrap().parse().unwrap();
        let key = format!("orders-{i}-{TOPIC_ID}/{base}-{SEGMENT_ID}.log");
        bucket.put(&key, std::fs::read(log).unwrap());
        let url = bucket.url(&key);
        // Remote objects carry no partition directory to tell an internal
        // topic by; its records are decoded only when a flag asks.
        let dir = log.parent().unwrap().file_name().unwrap().to_str().unwrap();
        let raw: &[&str] = if dir.starts_with("__") {
            &["--no-decode"]
        } else {
            &[]
        };
        for flags in [
            &[][..],
            &["--deep-iteration", "--print-data-log"],
            &["--json"],
        ] {
            let flags: Vec<&str> = flags.iter().chain(raw).copied().collect();
            let local = kseg(
                ["dump"]
                    .iter()
                    .chain(&flags)
                    .map(|s| s.as_ref())
                    .chain([log.as_os_str()]),
            );
            let remote = s3.kseg(["dump"].iter().chain(&flags).copied().chain([url.as_str()]));
            let shown = std::path::absolute(log).unwrap();
            let local_text = |o: String| {
                without_name(&o, &shown.display().to_string())
                    .replace(&log.display().to_string(), "<segment>")
                    .replace(log.file_name().unwrap().to_str().unwrap(), "<name>")
            };
            let remote_text = |o: String| {
                without_name(&o, &url).replace(&format!("{base}-{SEGMENT_ID}.log"), "<name>")
            };
            for (what, of) in [("stdout", stdout as fn(&_) -> _), ("stderr", stderr)] {
                assert_eq!(
                    local_text(of(&local)),
                    remote_text(of(&remote)),
                    "{} {flags:?} {what}",
                    log.display()
                );
            }
            assert_eq!(
                local.status.code(),
                remote.status.code(),
                "{}",
                log.display()
            );
        }
    }
}

/// A remote segment's `.index` and `.timeindex` in LocalTieredStorage's
/// layout dump as the files on disk do (their entries; the cross-check
/// against the `.log` is verify's for a remote segment).
#[test]
fn remote_indexes_dump_as_the_files_on_disk() {
    let s3 = server();
    let bucket = s3.bucket("lts-index");
    let mut seen = 0;
    for (i, log) in corpus_segments().iter().enumerate() {
        let base: i64 = log.file_stem().unwrap().to_str().unwrap().parse().unwrap();
        let key = format!("orders-{i}-{TOPIC_ID}/{base}-{SEGMENT_ID}");
        bucket.put(&format!("{key}.log"), std::fs::read(log).unwrap());
        for suffix in ["index", "timeindex"] {
            let Ok(bytes) = std::fs::read(log.with_extension(suffix)) else {
                continue;
            };
            bucket.put(&format!("{key}.{suffix}"), bytes);
            let url = bucket.url(&format!("{key}.{suffix}"));
            let file = log.with_extension(suffix);
            let local = kseg(["dump".as_ref(), file.as_os_str()]);
            let remote = s3.kseg(["dump", url.as_str()]);
            let shown = std::path::absolute(&file).unwrap().display().to_string();
            assert_eq!(
                stdout(&local)
                    .replace(&shown, "<index>")
                    .replace(&file.display().to_string(), "<index>"),
                stdout(&remote).replace(&url, "<index>"),
                "{}",
                file.display()
            );
            // What the local dump says of the index itself comes first;
            // its cross-check against the .log follows.
            let local_err = stderr(&local).replace(&file.display().to_string(), "<index>");
            let remote_err = stderr(&remote).replace(&url, "<index>");
            assert!(
                local_err.starts_with(&remote_err),
                "{url}: {remote_err} / {local_err}"
            );
            seen += 1;
        }
    }
    assert!(seen > 40, "{seen} indexes");
}

/// A missing object, a missing bucket and a key that is not a segment file are
/// each named, with a non-zero exit code.
#[test]
fn what_is_not_there_is_named() {
    let s3 = server();
    let bucket = s3.bucket("empty");
    for (url, says) in [
        (bucket.url("t-0-x/0-y.log"), "does not exist"),
        (
            "s3://no-such-bucket/t-0-x/0-y.log".to_string(),
            "s3://no-such-bucket/t-0-x/0-y.log",
        ),
        (
            bucket.url("t-0-x/0-y.txnindex"),
            "not a remote segment's .log object",
        ),
    ] {
        let out = s3.kseg(["dump", url.as_str()]);
        assert_ne!(out.status.code(), Some(0), "{url}");
        assert!(stderr(&out).contains(&url), "{url}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{url}: {}", stderr(&out));
    }
}

/// An index whose segment has no `.log` object names the `.log` it looked for.
#[test]
fn an_index_without_its_log_names_the_log() {
    let s3 = server();
    let bucket = s3.bucket("no-log");
    bucket.put("t-0-x/0-y.index", vec![0; 8]);
    let out = s3.kseg(["dump", bucket.url("t-0-x/0-y.index").as_str()]);
    assert_ne!(out.status.code(), Some(0));
    let want = format!("{}: does not exist", bucket.url("t-0-x/0-y.log"));
    assert!(stderr(&out).contains(&want), "{}", stderr(&out));
}

/// An object cut short reads like a file cut short: the same batches, the
/// same finding at the same byte.
#[test]
fn a_truncated_object_reads_as_a_truncated_file() {
    let s3 = server();
    let bucket = s3.bucket("torn");
    let log = corpus::root().join("codec-zstd/codec-0/00000000000000000000.log");
    let bytes = std::fs::read(&log).unwrap();
    let cut = bytes.len() - 100;
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("00000000000000000000.log");
    std::fs::write(&local, &bytes[..cut]).unwrap();
    let key = format!("t-0-{TOPIC_ID}/0-{SEGMENT_ID}.log");
    bucket.put(&key, bytes[..cut].to_vec());
    let url = bucket.url(&key);
    let on_disk = kseg(["dump".as_ref(), local.as_os_str()]);
    let remote = s3.kseg(["dump", url.as_str()]);
    let name = local.display().to_string();
    let local_text =
        |t: String| without_name(&t, &name).replace("00000000000000000000.log", "<name>");
    let remote_text =
        |t: String| without_name(&t, &url).replace(&format!("0-{SEGMENT_ID}.log"), "<name>");
    assert_eq!(local_text(stdout(&on_disk)), remote_text(stdout(&remote)));
    assert_eq!(local_text(stderr(&on_disk)), remote_text(stderr(&remote)));
    assert!(
        stderr(&remote).contains("not batches"),
        "{}",
        stderr(&remote)
    );
    assert_eq!(remote.status.code(), Some(1));
}

/// `verify --remote` on every corpus partition's segments, stored with
/// their indexes in LocalTieredStorage's layout on S3: each segment's
/// valid bytes and next offset are those the local check of the same
/// files finds, and a segment has findings exactly where the local walk
/// stops (the flipped byte of `unclean-flipped-byte` at the same byte).
#[test]
fn verify_remote_agrees_with_the_local_walk() {
    let s3 = server();
    let bucket = s3.bucket("lts-verify");
    let mut expected = Vec::new();
    for (i, log) in corpus_segments().iter().enumerate() {
        let base: i64 = log.file_stem().unwrap().to_str().unwrap().parse().unwrap();
        let key = format!("p{i:03}-0-{TOPIC_ID}/{base}-{SEGMENT_ID}");
        bucket.put(&format!("{key}.log"), std::fs::read(log).unwrap());
        for suffix in ["index", "timeindex"] {
            if let Ok(bytes) = std::fs::read(log.with_extension(suffix)) {
                bucket.put(&format!("{key}.{suffix}"), bytes);
            }
        }
        let local = kseg([
            "verify".as_ref(),
            "--json".as_ref(),
            log.parent().unwrap().as_os_str(),
        ]);
        let plan = stdout(&local)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|v| v["type"] == "partition")
            .unwrap();
        let segment = plan["plan"]["segments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["baseOffset"] == base)
            .cloned();
        expected.push((bucket.url(&format!("{key}.log")), log.clone(), segment));
    }
    let out = s3.kseg(["verify", "--json", "--remote", &bucket.url("")]);
    let checks: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut stopped = 0;
    for (url, log, segment) in &expected {
        let check = checks.iter().find(|c| c["url"] == url.as_str()).unwrap();
        // Segments recovery would not walk (below the recovery point, or
        // after a clean shutdown) have no walk to compare with.
        let Some(segment) = segment.as_ref().filter(|s| !s["validBytes"].is_null()) else {
            continue;
        };
        assert_eq!(
            check["validBytes"],
            segment["validBytes"],
            "{}",
            log.display()
        );
        assert_eq!(
            check["nextOffset"],
            segment["nextOffset"],
            "{}",
            log.display()
        );
        let findings = check["findings"].as_array().unwrap();
        if let Some(stop) = segment["stoppedBy"].as_str() {
            stopped += 1;
            let at = stop.split(':').next().unwrap();
            assert!(
                findings
                    .iter()
                    .any(|f| f.as_str().unwrap().contains(&format!("{at} of"))),
                "{}: {findings:?} vs {stop}",
                log.display()
            );
        }
    }
    assert!(stopped >= 3, "{stopped} damaged segments");
    assert_eq!(out.status.code(), Some(1));
}
