//! `kseg recover --salvage`: after `--apply` the partition verifies clean,
//! `export` without `--salvage` gives what `export --salvage` gave before,
//! the costs are named, and `kseg restore` puts every byte back.

use std::path::Path;

use super::salvage::{ViewBatch, copy_of, flip, view_batches};
use super::util::{kseg, stderr, stdout};

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
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

/// Damages `target` in a copy of `case`, salvages it with recover, and
/// checks the outcome; returns the dry run's text.
fn recover_and_check(case: &str, pick: impl Fn(&[ViewBatch]) -> ViewBatch) -> String {
    let (_tmp, dir, view) = copy_of(case);
    let target = pick(&view_batches(&view, |_| true));
    flip(&dir, &target.file, target.position + target.size / 2);
    let before = files(&dir);
    let path = dir.display().to_string();
    let salvaged = kseg(["export", "--include-control", "--salvage", &path]);
    assert_eq!(salvaged.status.code(), Some(1), "{case}");

    let dry = kseg(["recover", "--salvage", &path]);
    assert_eq!(dry.status.code(), Some(1), "{case}: {}", stderr(&dry));
    assert_eq!(files(&dir), before, "{case}: a dry run changes nothing");

    let elsewhere = tempfile::tempdir().unwrap();
    let backup = elsewhere.path().join("backup");
    let out = kseg([
        "recover",
        "--salvage",
        "--apply",
        "--backup-dir",
        &backup.display().to_string(),
        &path,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{case}: {}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).contains(&format!("cut {} bytes out of", target.size)),
        "{case}: {}",
        stdout(&out)
    );

    let verify = kseg(["verify", &path]);
    assert_eq!(verify.status.code(), Some(0), "{case}: {}", stdout(&verify));
    let exported = kseg(["export", "--include-control", &path]);
    assert_eq!(
        exported.status.code(),
        Some(0),
        "{case}: {}",
        stderr(&exported)
    );
    assert_eq!(
        stdout(&exported),
        stdout(&salvaged),
        "{case}: the same records"
    );
    let again = kseg(["salvage", &path]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{case}: nothing left to salvage"
    );

    let restored = kseg(["restore", &backup.display().to_string()]);
    assert_eq!(
        restored.status.code(),
        Some(0),
        "{case}: {}",
        stderr(&restored)
    );
    assert_eq!(files(&dir), before, "{case}: restore puts every byte back");
    stdout(&dry)
}

#[test]
fn a_flipped_byte_is_cut_out_and_everything_after_it_kept() {
    let dry = recover_and_check("unclean-base", |b| b[120].clone());
    assert!(dry.contains("only this broker's copy changes"), "{dry}");
    recover_and_check("codec-snappy", |b| b[b.len() / 2].clone());
    recover_and_check("legacy-v0-v1", |b| b[95].clone());
}

#[test]
fn a_cut_commit_marker_names_its_producer_and_the_marker_that_now_ends_it() {
    let (_tmp, dir, view) = copy_of("transactional");
    let markers = view_batches(&view, |b| b["isControl"] == true);
    let marker = &markers[markers.len() / 2];
    let producer = view["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["log"]["batches"].as_array().unwrap())
        .find(|b| {
            b["position"].as_u64() == Some(marker.position)
                && b["baseOffset"].as_i64() == Some(marker.base)
        })
        .unwrap()["producerId"]
        .as_i64()
        .unwrap();
    flip(&dir, &marker.file, marker.position + marker.size - 3);
    let out = stdout(&kseg(["recover", "--salvage", &dir.display().to_string()]));
    assert!(
        out.contains(&format!("WARNING txn-0: producer {producer} "))
            && out.contains("its COMMIT or ABORT marker may have been cut")
            && out.contains("now ends everything from offset 86"),
        "{out}"
    );
}

#[test]
fn a_cut_idempotent_batch_names_the_sequence_gap() {
    let (_tmp, dir, view) = copy_of("idempotent");
    let batches = view_batches(&view, |_| true);
    let target = &batches[batches.len() / 2];
    flip(&dir, &target.file, target.position + target.size / 2);
    let out = stdout(&kseg(["recover", "--salvage", &dir.display().to_string()]));
    assert!(
        out.contains("WARNING idem-0: producer 6100 resumes at epoch 1 sequence 2 (offset 258)"),
        "{out}"
    );
}
