//! Writing commands as scripts use them: back to back in one directory,
//! with no `--index-interval-bytes`, and failing with messages that name
//! the step and the path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::corpus::{cases, index_interval, root};
use super::util::{copy_dir, json_lines, kseg, stderr, stdout};

/// Runs kseg in `cwd` (where default backup directories go).
fn kseg_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kseg"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("kseg runs")
}

/// The backup directory a writing command named on its last line.
fn backup_named(out: &Output) -> PathBuf {
    let text = stdout(out);
    let line = text
        .lines()
        .find(|l| l.contains("kseg-backup-"))
        .unwrap_or_else(|| panic!("no backup named in {text}"));
    let start = line.find("kseg-backup-").unwrap();
    let name: String = line[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != ')')
        .collect();
    PathBuf::from(name)
}

/// A log dir under `root` holding a copy of `case`'s `events-0` as `name`.
fn copy_partition(root: &Path, case: &str, name: &str) -> PathBuf {
    let dir = root.join("logdir").join(name);
    copy_dir(&super::corpus::root().join(case).join("events-0"), &dir);
    dir
}

#[test]
fn writing_commands_in_a_loop_each_keep_their_own_backup() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let garbage_a = copy_partition(cwd, "unclean-index-garbage", "events-0");
    let garbage_b = copy_partition(cwd, "unclean-index-garbage", "events-1");
    let torn = copy_partition(cwd, "unclean-torn-tail", "events-2");
    let index = "00000000000000000089.index";
    let before_a = std::fs::read(garbage_a.join(index)).unwrap();
    let before_b = std::fs::read(garbage_b.join(index)).unwrap();
    let torn_log = torn.join("00000000000000000598.log");
    let before_torn = std::fs::read(&torn_log).unwrap();
    // Back to back, well within one second of each other.
    let runs = [
        kseg_in(cwd, &["rebuild-index", garbage_a.to_str().unwrap()]),
        kseg_in(cwd, &["rebuild-index", garbage_b.to_str().unwrap()]),
        kseg_in(cwd, &["recover", "--apply", torn.to_str().unwrap()]),
    ];
    let mut backups = Vec::new();
    for out in &runs {
        assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
        backups.push(cwd.join(backup_named(out)));
    }
    backups.sort();
    backups.dedup();
    assert_eq!(
        backups.len(),
        3,
        "one backup directory per run: {backups:?}"
    );
    assert_ne!(std::fs::read(garbage_a.join(index)).unwrap(), before_a);
    assert_ne!(std::fs::read(&torn_log).unwrap(), before_torn);
    for out in &runs {
        let restore = kseg_in(cwd, &["restore", backup_named(out).to_str().unwrap()]);
        assert_eq!(restore.status.code(), Some(0), "{}", stderr(&restore));
    }
    assert_eq!(std::fs::read(garbage_a.join(index)).unwrap(), before_a);
    assert_eq!(std::fs::read(garbage_b.join(index)).unwrap(), before_b);
    assert_eq!(std::fs::read(&torn_log).unwrap(), before_torn);
}

#[test]
fn with_no_flag_the_inferred_interval_reproduces_every_index_kafka_wrote() {
    for case in cases() {
        if case.name.starts_with("unclean-") && case.name != "unclean-base" {
            continue;
        }
        for p in case.partitions() {
            let out = kseg([
                "rebuild-index",
                "--check",
                "--json",
                p.dir.to_str().unwrap(),
            ]);
            assert_eq!(out.status.code(), Some(0), "{}: {}", p.label, stdout(&out));
            let lines = json_lines(&out);
            let interval = lines
                .iter()
                .find(|l| l["type"] == "indexInterval")
                .unwrap_or_else(|| panic!("{}: no indexInterval line", p.label));
            if interval["source"]["kind"] == "inferred" {
                assert_eq!(
                    interval["bytes"].as_u64(),
                    Some(index_interval(&case)),
                    "{}: {interval}",
                    p.label
                );
            }
            // The cleaner (compacted) and appends of many legacy messages at
            // once (legacy-v0-v1) index per chunk, not per batch: consistent
            // with the log, and left alone.
            let cleaned = ["compacted", "legacy-v0-v1"].contains(&case.name.as_str());
            for line in lines.iter().filter(|l| l["type"] == "index") {
                let status = line["status"].as_str().unwrap();
                assert!(
                    status == "OK"
                        || status.starts_with("OK, preallocated")
                        || (cleaned && status.ends_with("consistent with the log (grouped as a follower or the cleaner writes it)")),
                    "{}: {line}",
                    p.label
                );
                assert_eq!(line["action"], "", "{}: {line}", p.label);
            }
        }
    }
}

#[test]
fn with_no_flag_a_lost_or_garbage_index_is_rebuilt_as_kafka_rebuilt_it() {
    for case in ["unclean-index-deleted", "unclean-index-garbage"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = copy_partition(tmp.path(), case, "events-0");
        let out = kseg([
            "rebuild-index",
            "--backup-dir",
            tmp.path().join("backup").to_str().unwrap(),
            dir.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{case}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("index.interval.bytes 1024 (inferred from"),
            "{case}: {}",
            stdout(&out)
        );
        let name = "00000000000000000089.index";
        let kafka = root()
            .join(case)
            .join("after-kafka-recovery-full/events-0")
            .join(name);
        assert_eq!(
            std::fs::read(dir.join(name)).unwrap(),
            std::fs::read(kafka).unwrap(),
            "{case}"
        );
    }
}

#[test]
fn an_index_consistent_with_the_log_is_kept_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir/orders-0");
    copy_dir(&root().join("seed-order-demo/orders-0"), &dir);
    let index = dir.join("00000000000000004672.index");
    let kafka = std::fs::read(&index).unwrap();
    // Every other entry dropped: sparser, as a follower's chunked appends
    // leave it, and still right for every lookup.
    let sparse: Vec<u8> = kafka.chunks(8).step_by(2).flatten().copied().collect();
    std::fs::write(&index, &sparse).unwrap();
    let check = kseg(["rebuild-index", "--check", dir.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    assert!(
        stdout(&check).contains("consistent with the log"),
        "{}",
        stdout(&check)
    );
    let backup = tmp.path().join("backup");
    let write = kseg([
        "rebuild-index",
        "--backup-dir",
        backup.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert_eq!(write.status.code(), Some(0), "{}", stderr(&write));
    assert_eq!(std::fs::read(&index).unwrap(), sparse, "left as it is");
    let forced = kseg([
        "rebuild-index",
        "--force",
        "--backup-dir",
        tmp.path().join("backup2").to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert_eq!(std::fs::read(&index).unwrap(), kafka, "--force rewrites it");
}

#[test]
fn a_failed_write_names_the_step_and_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_partition(tmp.path(), "unclean-index-garbage", "events-0");
    let taken = tmp.path().join("taken");
    std::fs::create_dir(&taken).unwrap();
    let out = kseg([
        "rebuild-index",
        "--backup-dir",
        taken.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.contains(&format!(
            "creating the backup directory {}: File exists",
            taken.display()
        )),
        "{message}"
    );
    // A directory where the temporary file must go: creating it fails,
    // for root too.
    let squatter = dir.join(".00000000000000000089.index.kseg-tmp");
    std::fs::create_dir(&squatter).unwrap();
    let out = kseg([
        "rebuild-index",
        "--backup-dir",
        tmp.path().join("backup").to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.contains(&format!("creating temporary file {}: ", squatter.display())),
        "{message}"
    );
}

/// verify's JSON plan of `dir` at recovery point 0, with `flag` added.
fn plan(dir: &Path, flag: Option<String>) -> (serde_json::Value, serde_json::Value) {
    let mut args = vec![
        "verify".to_string(),
        "--json".into(),
        "--recovery-point".into(),
        "0".into(),
        "--now".into(),
        "2023-11-15T00:00:00Z".into(),
    ];
    args.extend(flag);
    args.push(dir.display().to_string());
    let out = kseg(&args);
    let partition = json_lines(&out)
        .into_iter()
        .find(|l| l["type"] == "partition")
        .unwrap_or_else(|| panic!("{}: {}", dir.display(), stderr(&out)));
    (
        partition["plan"].clone(),
        partition["indexInterval"].clone(),
    )
}

#[test]
fn verify_with_no_flag_plans_the_recovery_it_plans_with_the_topics_interval() {
    for case in cases() {
        for p in case.partitions() {
            let (given, _) = plan(
                &p.dir,
                Some(format!("--index-interval-bytes={}", index_interval(&case))),
            );
            let (auto, interval) = plan(&p.dir, None);
            assert_eq!(auto, given, "{}: {interval}", p.label);
        }
    }
}

#[test]
fn a_writing_run_that_changes_nothing_leaves_no_backup_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let healthy = copy_partition(cwd, "unclean-base", "events-0");
    let rebuild = kseg_in(cwd, &["rebuild-index", healthy.to_str().unwrap()]);
    assert_eq!(rebuild.status.code(), Some(0), "{}", stderr(&rebuild));
    assert!(
        !stdout(&rebuild).contains("kseg-backup-"),
        "{}",
        stdout(&rebuild)
    );
    // After a clean shutdown recovery changes nothing.
    let copy = cwd.join("logdir/orders-0");
    copy_dir(
        &root().join("seed-order-demo-clean-shutdown/orders-0"),
        &copy,
    );
    std::fs::write(cwd.join("logdir/.kafka_cleanshutdown"), "").unwrap();
    let recover = kseg_in(cwd, &["recover", "--apply", copy.to_str().unwrap()]);
    assert_eq!(recover.status.code(), Some(0), "{}", stderr(&recover));
    assert!(
        stdout(&recover).contains("nothing needed changing, so no backup was made"),
        "{}",
        stdout(&recover)
    );
    let leftovers: Vec<_> = std::fs::read_dir(cwd)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("kseg-backup-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
