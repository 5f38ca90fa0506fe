//! `export --salvage` and `kseg salvage` on damaged copies of corpus
//! partitions: exactly Kafka's records except those of the damaged batches.

use std::path::Path;

use serde_json::Value;

use super::corpus::cases;
use super::export::{ViewRecord, assert_same_records, view_records};
use super::util::{copy_dir, json_lines, kseg, stderr};

/// A batch of the view: its file, position, size and offsets.
#[derive(Debug, Clone)]
pub struct ViewBatch {
    pub file: String,
    pub position: u64,
    pub size: u64,
    pub base: i64,
    pub last: i64,
}

pub fn view_batches(view: &Value, pick: impl Fn(&Value) -> bool) -> Vec<ViewBatch> {
    let mut out = Vec::new();
    for segment in view["segments"].as_array().unwrap() {
        let file = segment["log"]["file"].as_str().unwrap();
        for b in segment["log"]["batches"].as_array().unwrap() {
            if pick(b) {
                out.push(ViewBatch {
                    file: file.to_string(),
                    position: b["position"].as_u64().unwrap(),
                    size: b["sizeInBytes"].as_u64().unwrap(),
                    base: b["baseOffset"].as_i64().unwrap(),
                    last: b["lastOffset"].as_i64().unwrap(),
                });
            }
        }
    }
    out
}

/// A copy of the case's partition, its view, and a temp dir keeping it.
pub fn copy_of(case_name: &str) -> (tempfile::TempDir, std::path::PathBuf, Value) {
    let case = cases().into_iter().find(|c| c.name == case_name).unwrap();
    let p = &case.partitions()[0];
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(p.dir.file_name().unwrap());
    copy_dir(&p.dir, &dir);
    (tmp, dir, p.view.clone())
}

pub fn damage(dir: &Path, file: &str, at: u64, bytes: &[u8]) {
    let path = dir.join(file);
    let mut data = std::fs::read(&path).unwrap();
    data[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
    std::fs::write(&path, data).unwrap();
}

pub fn flip(dir: &Path, file: &str, at: u64) {
    let data = std::fs::read(dir.join(file)).unwrap();
    damage(dir, file, at, &[data[at as usize] ^ 0x20]);
}

/// Deterministic garbage.
fn garbage(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// Checks `export --salvage` gives the view's records minus those of the
/// `lost` batches, `export` stops at the first of them naming file and
/// position, and `kseg salvage --json` reports their offsets as lost.
fn check(label: &str, dir: &Path, view: &Value, lost: &[ViewBatch]) {
    let partition = dir.file_name().unwrap().to_string_lossy().into_owned();
    let is_lost = |r: &ViewRecord| lost.iter().any(|b| r.batch == (b.file.clone(), b.position));
    let kafka = view_records(view);
    let kept: Vec<ViewRecord> = kafka.iter().filter(|r| !is_lost(r)).cloned().collect();
    assert!(kept.len() < kafka.len(), "{label}: the damage hit records");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "export".to_string(),
            "--include-control".into(),
            "--encoding".into(),
            "base64".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a.push(dir.display().to_string());
        a
    };
    let out = kseg(args(&["--salvage"]));
    assert_eq!(out.status.code(), Some(1), "{label}: {}", stderr(&out));
    assert_same_records(
        &format!("{label} salvage"),
        &json_lines(&out),
        &kept,
        &partition,
    );
    assert!(
        stderr(&out).contains("damaged"),
        "{label}: the report goes to stderr"
    );

    let first = &lost[0];
    let out = kseg(args(&[]));
    assert_eq!(out.status.code(), Some(1), "{label}");
    let at = format!("{}: at byte {}", first.file, first.position);
    assert!(
        stderr(&out).contains(&at),
        "{label}: {at} in {}",
        stderr(&out)
    );
    let before: Vec<ViewRecord> = kafka.iter().take_while(|r| !is_lost(r)).cloned().collect();
    assert_same_records(
        &format!("{label} strict"),
        &json_lines(&out),
        &before,
        &partition,
    );

    let out = kseg(["salvage", "--json", &dir.display().to_string()]);
    assert_eq!(out.status.code(), Some(1), "{label}");
    let report = &json_lines(&out)[0];
    let damages: Vec<&Value> = report["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["damages"].as_array().unwrap())
        .collect();
    assert_eq!(damages.len(), 1, "{label}: one damaged range: {report}");
    let d = damages[0];
    assert_eq!(
        d["start"].as_u64(),
        Some(first.position),
        "{label}: range start"
    );
    let last = lost.last().unwrap();
    assert_eq!(
        d["end"].as_u64(),
        Some(last.position + last.size),
        "{label}: range end"
    );
    assert_eq!(
        d["lostFirstOffset"].as_i64(),
        Some(first.base),
        "{label}: first offset lost"
    );
    assert_eq!(
        d["lostLastOffset"].as_i64(),
        Some(last.last),
        "{label}: last offset lost"
    );
    let cut = &report["kafkaCut"];
    assert_eq!(
        cut["position"].as_u64(),
        Some(first.position),
        "{label}: Kafka's cut"
    );
}

#[test]
fn a_flipped_byte_in_the_middle_of_a_segment() {
    let (_tmp, dir, view) = copy_of("unclean-base");
    let batches = view_batches(&view, |_| true);
    let target = batches
        .iter()
        .filter(|b| b.file == "00000000000000000175.log")
        .nth(15)
        .unwrap()
        .clone();
    flip(&dir, &target.file, target.position + target.size / 2);
    check("flipped byte", &dir, &view, &[target]);
}

#[test]
fn a_torn_range_over_two_batches() {
    let (_tmp, dir, view) = copy_of("unclean-base");
    let batches: Vec<ViewBatch> = view_batches(&view, |_| true)
        .into_iter()
        .filter(|b| b.file == "00000000000000000261.log")
        .collect();
    let (a, b) = (batches[10].clone(), batches[11].clone());
    let from = a.position + a.size / 3;
    let to = b.position + b.size / 2;
    damage(&dir, &a.file, from, &garbage((to - from) as usize, 7));
    check("torn range", &dir, &view, &[a, b]);
}

#[test]
fn zeros_in_the_middle() {
    let (_tmp, dir, view) = copy_of("unclean-base");
    let batches: Vec<ViewBatch> = view_batches(&view, |_| true)
        .into_iter()
        .filter(|b| b.file == "00000000000000000089.log")
        .collect();
    let lost = batches[5..8].to_vec();
    let from = lost[0].position + 10;
    let to = lost[2].position + 30;
    damage(&dir, &lost[0].file, from, &vec![0u8; (to - from) as usize]);
    check("zeros", &dir, &view, &lost);
}

#[test]
fn a_damaged_compressed_batch() {
    for codec in ["codec-gzip", "codec-lz4", "codec-snappy", "codec-zstd"] {
        let (_tmp, dir, view) = copy_of(codec);
        let batches = view_batches(&view, |b| b["count"].as_i64() > Some(2));
        let target = batches[batches.len() / 2].clone();
        flip(&dir, &target.file, target.position + target.size - 5);
        check(codec, &dir, &view, &[target]);
    }
}

#[test]
fn a_damaged_legacy_v1_wrapper() {
    let (_tmp, dir, view) = copy_of("legacy-v0-v1");
    let batches = view_batches(&view, |b| b["magic"] == 1 && b["compressionType"] == "lz4");
    let target = batches[3].clone();
    flip(&dir, &target.file, target.position + 40);
    check("legacy v1 wrapper", &dir, &view, &[target]);
}

#[test]
fn kafkas_own_damaged_case_salvages_all_but_the_flipped_batch() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "unclean-flipped-byte")
        .unwrap();
    let p = &case.partitions()[0];
    let lost = view_batches(p.view, |b| b["isValid"] == false);
    assert_eq!(lost.len(), 1);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("events-0");
    copy_dir(&p.dir, &dir);
    check("unclean-flipped-byte", &dir, p.view, &lost);
    let out = kseg(["salvage", &dir.display().to_string()]);
    let text = super::util::stdout(&out);
    assert!(text.contains("offsets 389..391 lost (3 offsets)"), "{text}");
    assert!(text.contains("deletes segments [427, 515, 598]"), "{text}");
}

#[test]
fn a_clean_partition_salvages_clean() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "transactional")
        .unwrap();
    let out = kseg(["salvage", &case.partitions()[0].dir.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(super::util::stdout(&out).contains("0 damaged ranges"));
}

#[test]
fn a_corrupted_batch_length_loses_only_its_batch() {
    // Kafka's reading of this case stops at the damage, so the healthy
    // copy it was made from says what the later batches hold.
    let base = cases()
        .into_iter()
        .find(|c| c.name == "unclean-base")
        .unwrap();
    let view = base.partitions()[0].view.clone();
    let case = cases()
        .into_iter()
        .find(|c| c.name == "unclean-huge-batch-length")
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("events-0");
    copy_dir(&case.partitions()[0].dir, &dir);
    let lost = view_batches(&view, |b| b["baseOffset"] == 636);
    assert_eq!(
        (lost[0].file.as_str(), lost[0].position),
        ("00000000000000000598.log", 3478)
    );
    check("huge batch length", &dir, &view, &lost);
}
