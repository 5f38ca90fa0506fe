//! Every `$ kseg …` example in the README prints what the README shows
//! (a line `…` stands for any number of lines).

use std::path::Path;
use std::process::Command;

use super::util::{copy_dir, repo};

/// How the README names the shared corpus (see Set-up).
const CORPUS: &str = "../shared/corpus";

/// The examples: each command with the lines shown under it.
fn examples(readme: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for block in readme.split("```").skip(1).step_by(2) {
        let mut current: Option<(String, Vec<String>)> = None;
        for line in block.lines().skip(1) {
            if let Some(cmd) = line.strip_prefix("$ ") {
                out.extend(current.take());
                current = cmd
                    .starts_with("kseg ")
                    .then(|| (cmd.to_string(), Vec::new()));
            } else if let Some((_, expected)) = &mut current {
                expected.push(line.to_string());
            }
        }
        out.extend(current);
    }
    for (_, expected) in &mut out {
        while expected.last().is_some_and(|l| l.is_empty()) {
            expected.pop();
        }
    }
    out
}

/// Whether `actual` matches `expected`, where a line `…` skips ahead to the
/// next expected line (or to the end, when it is last).
fn matches(expected: &[String], actual: &[&str]) -> Result<(), String> {
    let mut at = 0;
    let mut lines = expected.iter().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "…" {
            let Some(next) = lines.peek() else {
                return Ok(());
            };
            at += actual[at..]
                .iter()
                .position(|a| a == next)
                .ok_or_else(|| format!("never printed: {next}"))?;
            continue;
        }
        match actual.get(at) {
            Some(a) if a == line => at += 1,
            other => return Err(format!("expected {line:?}, got {other:?}")),
        }
    }
    match actual.get(at) {
        None => Ok(()),
        Some(extra) => Err(format!("printed more: {extra:?}")),
    }
}

#[test]
fn every_readme_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 7, "found {} examples", examples.len());
    // The verify example runs on a copy with one byte zeroed, as the README says.
    let tmp = tempfile::tempdir().unwrap();
    let damaged = tmp.path().join("orders-0");
    copy_dir(&repo().join("testdata/orders-0"), &damaged);
    let log = damaged.join("00000000000000009344.log");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes[5000] = 0;
    std::fs::write(&log, bytes).unwrap();
    for (cmd, expected) in &examples {
        // Examples on the shared corpus run beside it, wherever KSEG_CORPUS puts it.
        let corpus = super::corpus::root().display().to_string();
        let cwd: &Path = if cmd.contains("testdata/") || cmd.contains(CORPUS) {
            &repo()
        } else {
            tmp.path()
        };
        let args: Vec<String> = cmd
            .split_whitespace()
            .skip(1)
            .map(|a| a.replace(CORPUS, &corpus))
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_kseg"))
            .current_dir(cwd)
            .args(&args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).replace(&corpus, CORPUS);
        let actual: Vec<&str> = stdout.trim_end_matches('\n').lines().collect();
        if let Err(why) = matches(expected, &actual) {
            panic!("README example `{cmd}`: {why}\n{stdout}");
        }
    }
}

#[test]
fn the_example_matcher_fails_on_a_wrong_line() {
    let expected = ["a".to_string(), "…".to_string(), "d".to_string()];
    assert!(matches(&expected, &["a", "b", "c", "d"]).is_ok());
    assert!(matches(&expected, &["a", "b"]).is_err());
    assert!(matches(&expected, &["x", "d"]).is_err());
    assert!(matches(&expected, &["a", "d", "e"]).is_err());
}
