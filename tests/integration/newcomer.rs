//! What a new user runs into first: renamed copies of segment files,
//! missing paths, error messages, and retention-report under each
//! cleanup.policy.

use std::path::Path;

use super::corpus::root;
use super::util::{kseg, stderr, stdout};

/// The dump's lines after its `Dumping …` header.
fn body(out: &std::process::Output) -> Vec<String> {
    stdout(out).lines().skip(1).map(str::to_string).collect()
}

fn seed() -> std::path::PathBuf {
    root().join("seed-order-demo/orders-0")
}

fn copy_as(tmp: &Path, original: &str, name: &str) -> String {
    let to = tmp.join(name);
    std::fs::copy(seed().join(original), &to).unwrap();
    to.display().to_string()
}

#[test]
fn a_renamed_log_dumps_like_the_original_with_its_base_offset_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["copy.log", "copy.log.deleted", "no-suffix-at-all"] {
        let copy = copy_as(tmp.path(), "00000000000000004672.log", name);
        let original = kseg([
            "dump",
            "--deep-iteration",
            seed().join("00000000000000004672.log").to_str().unwrap(),
        ]);
        let renamed = kseg(["dump", "--deep-iteration", &copy]);
        assert_eq!(
            renamed.status.code(),
            Some(0),
            "{name}: {}",
            stderr(&renamed)
        );
        let (original, renamed) = (body(&original), body(&renamed));
        assert_eq!(original[0], "Log starting offset: 4672");
        assert!(
            renamed[0].starts_with("Log starting offset: unknown"),
            "{name}: {}",
            renamed[0]
        );
        assert_eq!(original[1..], renamed[1..], "{name}");
    }
}

#[test]
fn a_renamed_index_dumps_relative_offsets_or_takes_its_base_offset() {
    let tmp = tempfile::tempdir().unwrap();
    for (original, name) in [
        ("00000000000000004672.index", "broken.index"),
        ("00000000000000004672.timeindex", "seg.timeindex"),
    ] {
        let copy = copy_as(tmp.path(), original, name);
        let kafka = body(&kseg(["dump", seed().join(original).to_str().unwrap()]));
        let given = kseg(["dump", "--base-offset", "4672", &copy]);
        assert_eq!(given.status.code(), Some(0), "{name}: {}", stderr(&given));
        assert_eq!(body(&given), kafka, "{name}");
        let relative = kseg(["dump", &copy]);
        assert_eq!(relative.status.code(), Some(0), "{name}");
        assert!(
            stderr(&relative).contains("the file name carries no base offset"),
            "{name}: {}",
            stderr(&relative)
        );
        // offset N is printed as N - 4672.
        let shifted: Vec<String> = kafka
            .iter()
            .map(|line| {
                let (head, rest) = line.split_once("offset: ").unwrap();
                let digits = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
                let relative = rest[..digits].parse::<i64>().unwrap() - 4672;
                format!("{head}offset: {relative}{}", &rest[digits..])
            })
            .collect();
        assert_eq!(body(&relative), shifted, "{name}");
    }
}

#[test]
fn a_missing_path_is_named_missing_and_the_other_paths_still_dump() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = copy_as(tmp.path(), "00000000000000004672.index", "good.index");
    let out = kseg(["dump", "/nonexistent/00000000000000000000.log", &copy]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/nonexistent/00000000000000000000.log: does not exist"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains(&format!("Dumping {copy}")));
    assert!(stdout(&out).contains("position: 4485"));
}

/// The clauses of an error line, split where kseg joins them.
fn repeated_clause(line: &str) -> Option<String> {
    let clauses: Vec<&str> = line.split(": ").map(str::trim).collect();
    clauses
        .iter()
        .enumerate()
        .find(|(i, c)| c.len() > 2 && clauses[i + 1..].contains(c))
        .map(|(_, c)| c.to_string())
}

#[test]
fn no_error_message_repeats_a_clause() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let garbage = tmp.path().join("garbage-0");
    std::fs::create_dir(&garbage).unwrap();
    std::fs::write(garbage.join("00000000000000000000.log"), [0xffu8; 100]).unwrap();
    let renamed = copy_as(tmp.path(), "00000000000000004672.log", "copy.log");
    let readme = root().join("seed-order-demo/README.txt");
    let bad_paths = [
        "/nonexistent".to_string(),
        "/nonexistent/00000000000000000000.log".to_string(),
        readme.display().to_string(),
        empty.display().to_string(),
        garbage.display().to_string(),
        renamed,
    ];
    let backup = tmp.path().join("backup").display().to_string();
    let mut checked = 0;
    for path in &bad_paths {
        let commands: [Vec<&str>; 7] = [
            vec!["dump", path],
            vec!["locate", "--offset", "0", path],
            vec!["verify", path],
            vec!["recover", path],
            vec!["rebuild-index", "--check", path],
            vec!["rebuild-index", "--backup-dir", &backup, path],
            vec!["retention-report", path],
        ];
        for args in commands {
            let out = kseg(&args);
            for line in stderr(&out).lines() {
                assert_eq!(repeated_clause(line), None, "{args:?}: {line}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "only {checked} error lines were produced");
    assert_eq!(
        repeated_clause("kseg: /x: expected a dir: expected a dir"),
        Some("expected a dir".into())
    );
}

/// retention-report's text for the compacted case under `policy`, long
/// after its data was written.
fn report(policy: &str) -> String {
    let out = kseg([
        "retention-report",
        "--now",
        "2030-01-01T00:00:00Z",
        "--config",
        &format!("cleanup.policy={policy}"),
        root().join("compacted/keyed-0").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn retention_report_warns_only_what_the_cleanup_policy_does() {
    let age_warning = "deletable at once";
    let cleaner_fate = "cleaner: segment 00000000000000000715: its newest record is 2239d 46m old; compaction removes records by key, not by age";
    let compact = report("compact");
    assert!(!compact.contains(age_warning), "{compact}");
    assert!(!compact.contains("retention rolls it itself"), "{compact}");
    assert!(compact.contains("no time or size deletion"), "{compact}");
    assert!(
        compact.contains(&format!(
            "{cleaner_fate} (the newest record of each key stays, tombstones go after delete.retention.ms): already compacted"
        )),
        "{compact}"
    );
    let delete = report("delete");
    assert!(delete.contains(age_warning), "{delete}");
    assert!(!delete.contains("cleaner:"), "{delete}");
    let both = report("compact,delete");
    assert!(both.contains(age_warning), "{both}");
    assert!(both.contains(cleaner_fate), "{both}");
    assert!(both.contains("retention rolls it itself"), "{both}");
}
