//! Segments Aiven's own remote storage manager wrote (`tests/aiven`: five
//! configurations, chunked, zstd, encrypted, with a key prefix), served by
//! a real S3-compatible server: kseg reads the chunk index as Aiven's code
//! does, and dumps and verifies every segment in place exactly as the
//! Kafka-written file it was uploaded from.

use std::path::{Path, PathBuf};

use kseg::objstore::aiven::Manifest;
use serde_json::Value;

use super::s3_server::{Bucket, server};
use super::util::{kseg, stderr, stdout, unpacked_archive};

/// The unpacked cases.
fn cases() -> PathBuf {
    unpacked_archive("tests/aiven/aiven-rsm.tar.zst", "aiven-rsm")
}

/// Each configuration's directory and Kafka-side view.
fn configurations() -> Vec<(String, PathBuf, Value)> {
    let root = cases();
    let mut all: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("aiven-view.json").is_file())
        .map(|dir| {
            let view = serde_json::from_slice(&std::fs::read(dir.join("aiven-view.json")).unwrap())
                .unwrap();
            (
                dir.file_name().unwrap().to_str().unwrap().to_string(),
                dir,
                view,
            )
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(all.len(), 5);
    all
}

/// Every object of a configuration's storage, uploaded to `bucket` under its key.
fn upload(bucket: &Bucket<'_>, storage: &Path) {
    for entry in walkdir::WalkDir::new(storage) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let key = entry
                .path()
                .strip_prefix(storage)
                .unwrap()
                .to_str()
                .unwrap();
            bucket.put(key, std::fs::read(entry.path()).unwrap());
        }
    }
}

/// A segment's `.log` key, from the objects Aiven wrote.
fn log_key(segment: &Value) -> String {
    segment["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["key"].as_str().unwrap())
        .find(|k| k.ends_with(".log"))
        .unwrap()
        .to_string()
}

/// The manifest's chunk index, read by kseg, lists the chunks Aiven's
/// `ChunkIndex.chunks()` lists, fixed and variable alike.
#[test]
fn chunk_indexes_read_as_aiven_reads_them() {
    let mut kinds = std::collections::BTreeSet::new();
    for (name, _, view) in configurations() {
        for segment in view["segments"].as_array().unwrap() {
            let manifest = Manifest::parse(segment["manifestText"].as_str().unwrap().as_bytes())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let ours: Vec<Value> = manifest
                .chunks()
                .enumerate()
                .map(|(i, c)| {
                    serde_json::json!({"id": i, "originalPosition": c.original_position,
                        "originalSize": c.original_size, "transformedPosition": c.transformed_position,
                        "transformedSize": c.transformed_size})
                })
                .collect();
            assert_eq!(
                &Value::from(ours),
                &segment["chunks"],
                "{name} {}",
                segment["source"]
            );
            assert_eq!(
                manifest.compression,
                segment["compression"].as_bool().unwrap(),
                "{name}"
            );
            assert_eq!(
                manifest.encryption.is_some(),
                !segment["encryption"].is_null(),
                "{name}"
            );
            kinds.insert(segment["chunkIndexType"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(kinds.len(), 2, "{kinds:?}");
}

/// `kseg dump` of the local `input` and of `url` on S3 (with `keys`)
/// under `flags`: asserts the same stdout, the file's name aside, and the
/// same exit code; returns the remote run's stderr.
fn same_dump(input: &Path, url: &str, flags: &[&str], keys: &[&str]) -> String {
    let local = kseg(
        ["dump".as_ref()]
            .into_iter()
            .chain(flags.iter().map(|f| f.as_ref()))
            .chain([input.as_os_str()]),
    );
    let remote = server().kseg(
        ["dump"]
            .iter()
            .chain(flags)
            .chain(keys)
            .copied()
            .chain([url]),
    );
    let shown = std::path::absolute(input).unwrap().display().to_string();
    assert_eq!(
        stdout(&local)
            .replace(&shown, "<file>")
            .replace(&input.display().to_string(), "<file>"),
        stdout(&remote).replace(url, "<file>"),
        "{url} {flags:?}"
    );
    assert_eq!(local.status.code(), remote.status.code(), "{url} {flags:?}");
    stderr(&remote)
}

/// Every segment of a configuration, fetched from S3 with `keys` given,
/// dumps byte for byte as the Kafka-written file Aiven uploaded (batches,
/// records, JSON), and `verify --remote` finds each sound, its last offset
/// the one Kafka's segment metadata gives, its indexes those Kafka wrote.
fn dumps_and_verifies_as_its_input(
    bucket: &Bucket<'_>,
    name: &str,
    dir: &Path,
    view: &Value,
    keys: &[&str],
) {
    let s3 = server();
    for segment in view["segments"].as_array().unwrap() {
        let input = dir.join(segment["input"]["log"].as_str().unwrap());
        let key = log_key(segment);
        let url = bucket.url(&key);
        for flags in [
            &[][..],
            &["--deep-iteration", "--print-data-log"],
            &["--json"],
        ] {
            assert_eq!(same_dump(&input, &url, flags, keys), "", "{name} {key}");
        }
        dumps_indexes_as_its_input(bucket, dir, segment, keys);
    }
    let prefix = bucket.url("");
    let out = s3.kseg(["verify", "--json", "--remote", &prefix].iter().chain(keys));
    assert_eq!(out.status.code(), Some(0), "{name}: {}", stdout(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let checked: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "remoteSegment")
        .collect();
    assert_eq!(
        checked.len(),
        view["segments"].as_array().unwrap().len(),
        "{name}"
    );
    for segment in view["segments"].as_array().unwrap() {
        let url = bucket.url(&log_key(segment));
        let check = checked.iter().find(|c| c["url"] == url.as_str()).unwrap();
        let meta = &segment["metadata"];
        assert_eq!(check["findings"], Value::Array(vec![]), "{name} {url}");
        assert_eq!(check["layout"], "Aiven tiered storage");
        assert_eq!(check["baseOffset"], meta["startOffset"], "{name} {url}");
        assert_eq!(
            check["nextOffset"].as_i64().unwrap() - 1,
            meta["endOffset"].as_i64().unwrap(),
            "{name} {url}"
        );
        assert_eq!(check["size"], meta["segmentSizeInBytes"], "{name} {url}");
        assert_eq!(check["offsetIndex"]["state"], "ok", "{name} {url}");
        assert_eq!(check["timeIndex"]["state"], "ok", "{name} {url}");
    }
}

/// The segment's `.index` and `.timeindex`, asked for by those names
/// beside its `.log`, come from their ranges of the `.indexes` object and
/// dump as the Kafka-written files Aiven uploaded.
fn dumps_indexes_as_its_input(bucket: &Bucket<'_>, dir: &Path, segment: &Value, keys: &[&str]) {
    let s3 = server();
    let log = log_key(segment);
    let stem = log.strip_suffix(".log").unwrap();
    for (field, suffix) in [("offsetIndex", "index"), ("timeIndex", "timeindex")] {
        let input = dir.join(segment["input"][field].as_str().unwrap());
        let url = bucket.url(&format!("{stem}.{suffix}"));
        for flags in [&[][..], &["--json"]] {
            let note = same_dump(&input, &url, flags, keys);
            assert!(
                note.starts_with(&format!(
                    "kseg: {url}: Aiven tiered storage: read from {}",
                    bucket.url(&format!("{stem}.indexes bytes "))
                )),
                "{url}: {note}"
            );
        }
    }
    let indexes = bucket.url(&format!("{stem}.indexes"));
    let out = s3.kseg(["dump", indexes.as_str()]);
    assert_eq!(out.status.code(), Some(2), "{indexes}");
    assert!(
        stderr(&out).contains("dump the .index or .timeindex of the same name"),
        "{}",
        stderr(&out)
    );
}

/// Unencrypted segments (plain, zstd, the heuristic's mix) read in place.
#[test]
fn unencrypted_segments_dump_and_verify_in_place() {
    let s3 = server();
    let mut seen = 0;
    for (name, dir, view) in configurations() {
        if view["segments"][0]["encryption"].is_object() {
            continue;
        }
        let bucket = s3.bucket(&name);
        upload(&bucket, &dir.join("storage"));
        dumps_and_verifies_as_its_input(&bucket, &name, &dir, &view, &[]);
        seen += 1;
    }
    assert_eq!(seen, 3);
}

/// An encrypted segment without its key is named as such, with what
/// reading it needs, and a non-zero exit code; with the cluster's private
/// key (for any key pair, or for the one its manifest names) it reads as
/// the file it was.
#[test]
fn encrypted_segments_read_with_the_key_and_say_they_need_it() {
    let s3 = server();
    let mut seen = 0;
    for (name, dir, view) in configurations() {
        let Some(wrapped) = view["segments"][0]["manifest"]["encryption"]["dataKey"].as_str()
        else {
            continue;
        };
        let bucket = s3.bucket(&name);
        upload(&bucket, &dir.join("storage"));
        let segment = &view["segments"][0];
        let url = bucket.url(&log_key(segment));
        let out = s3.kseg(["dump", url.as_str()]);
        assert_ne!(out.status.code(), Some(0), "{name}");
        assert!(
            stderr(&out).contains(&url) && stderr(&out).contains("encrypted"),
            "{name}: {}",
            stderr(&out)
        );
        let out = s3.kseg(["verify", "--remote", &bucket.url("")]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(
            stdout(&out).contains("--aiven-private-key"),
            "{name}: {}",
            stdout(&out)
        );
        let pem = dir.join("rsa/private.pem").display().to_string();
        let any = format!("--aiven-private-key={pem}");
        dumps_and_verifies_as_its_input(&bucket, &name, &dir, &view, &[&any]);
        let id = wrapped.split_once(':').unwrap().0;
        let named = format!("--aiven-private-key={id}={pem}");
        dumps_and_verifies_as_its_input(&bucket, &name, &dir, &view, &[&named]);
        let other = format!("--aiven-private-key=another-{id}={pem}");
        let out = s3.kseg(["dump", other.as_str(), url.as_str()]);
        assert_ne!(out.status.code(), Some(0), "{name}");
        assert!(
            stderr(&out).contains(&format!("{id:?}")),
            "{name}: {}",
            stderr(&out)
        );
        seen += 1;
    }
    assert_eq!(seen, 2);
}

/// Damage inside the objects is found where it is: a flipped byte inside
/// a stored chunk fails the CRC of the batch it lands in (zstd frames carry
/// no checksum, so a compressed chunk restores to wrong bytes), a broken
/// zstd frame is named by its byte in the object, and an object cut short
/// disagrees with its manifest.
#[test]
fn damaged_objects_are_named_with_the_byte() {
    let s3 = server();
    for (name, dir, view) in configurations() {
        if name != "aiven-plain" && name != "aiven-zstd" {
            continue;
        }
        let segment = &view["segments"][0];
        let key = log_key(segment);
        let bytes = std::fs::read(dir.join("storage").join(&key)).unwrap();
        let bucket = s3.bucket(&format!("{name}-damaged"));
        // A byte in the second chunk's middle.
        let chunk = &segment["chunks"][1];
        let at = (chunk["transformedPosition"].as_u64().unwrap()
            + chunk["transformedSize"].as_u64().unwrap() / 2) as usize;
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x40;
        bucket.put(&key, flipped);
        let manifest_key = key.replace(".log", ".rsm-manifest");
        bucket.put(
            &manifest_key,
            std::fs::read(dir.join("storage").join(&manifest_key)).unwrap(),
        );
        let indexes_key = key.replace(".log", ".indexes");
        bucket.put(
            &indexes_key,
            std::fs::read(dir.join("storage").join(&indexes_key)).unwrap(),
        );
        let out = s3.kseg(["verify", "--remote", &bucket.url("")]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stdout(&out));
        let text = stdout(&out);
        assert!(
            text.contains("stops being valid batches at byte") && text.contains("crc mismatch"),
            "{name}: {text}"
        );
        if name == "aiven-zstd" {
            // The frame's magic number.
            let position = chunk["transformedPosition"].as_u64().unwrap();
            let mut broken = bytes.clone();
            broken[position as usize] ^= 0xff;
            bucket.put(&key, broken);
            let out = s3.kseg(["verify", "--remote", &bucket.url("")]);
            assert_eq!(out.status.code(), Some(1), "{name}: {}", stdout(&out));
            let text = stdout(&out);
            assert!(
                text.contains(&format!("chunk at byte {position} of the object")),
                "{name}: {text}"
            );
        }
        bucket.put(&key, bytes[..bytes.len() - 10].to_vec());
        let out = s3.kseg(["dump", &bucket.url(&key)]);
        assert_ne!(out.status.code(), Some(0));
        assert!(
            stderr(&out).contains("manifest's chunks add up to"),
            "{name}: {}",
            stderr(&out)
        );
    }
}
