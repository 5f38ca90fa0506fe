//! Checked-in generated files (completions, man pages, testdata) must match
//! what the current binary generates. Regenerate with
//! `KSEG_UPDATE_GOLDEN=1 cargo test --test integration generated`.

use std::path::Path;

use super::util::{kseg, repo};

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn check(what: &str, checked_in: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let out = kseg(["generate", what, "--out-dir", tmp.path().to_str().unwrap()]);
    assert!(out.status.success());
    match what {
        "testdata" => {
            for dir in [
                "orders-0",
                "diverge/b1",
                "diverge/b1/orders-0",
                "diverge/b2/orders-0",
            ] {
                compare(&tmp.path().join(dir), &repo().join(checked_in).join(dir));
            }
        }
        _ => compare(tmp.path(), &repo().join(checked_in)),
    }
}

/// The files directly in `fresh_dir` against those in `target`.
fn compare(fresh_dir: &Path, target: &Path) {
    let checked_in = target.display();
    if std::env::var_os("KSEG_UPDATE_GOLDEN").is_some() {
        let _ = std::fs::remove_dir_all(target);
        super::util::copy_dir(fresh_dir, target);
        return;
    }
    assert!(
        files(fresh_dir) == files(target),
        "{checked_in}/ is stale; rerun with KSEG_UPDATE_GOLDEN=1"
    );
}

#[test]
fn completions_are_up_to_date() {
    check("completions", "completions");
}

#[test]
fn man_pages_are_up_to_date() {
    check("man", "man");
}

#[test]
fn testdata_is_what_the_fixture_writer_writes() {
    check("testdata", "testdata");
}
