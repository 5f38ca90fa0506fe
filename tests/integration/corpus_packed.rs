//! The packed copy of the corpus (`tests/corpus/kafka-corpus.tar.zst`,
//! what a fresh clone's tests read) holds exactly what `../shared/corpus`
//! holds, file for file and byte for byte, whenever both are here.
//! Modification times are not compared: `../shared/corpus` is copied onto
//! each machine when it is prepared, so its files carry that moment, not
//! Kafka's, and no corpus fact depends on them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::corpus::unpacked;
use super::util::repo;

/// Every file under `root`, by path relative to it, with its bytes.
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let relative = e.path().strip_prefix(root).unwrap().to_path_buf();
            (relative, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

#[test]
fn the_packed_corpus_is_the_shared_corpus() {
    let shared = repo().join("../shared/corpus");
    let packed = files(&unpacked());
    assert!(packed.len() > 1000, "{} files packed", packed.len());
    if !shared.is_dir() {
        eprintln!("no ../shared/corpus here: only the packed copy was read");
        return;
    }
    let shared = files(&shared);
    let missing: Vec<_> = shared.keys().filter(|p| !packed.contains_key(*p)).collect();
    let extra: Vec<_> = packed.keys().filter(|p| !shared.contains_key(*p)).collect();
    let differ: Vec<_> = shared
        .iter()
        .filter(|(p, v)| packed.get(*p).is_some_and(|w| w != *v))
        .map(|(p, _)| p)
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty() && differ.is_empty(),
        "tests/corpus/kafka-corpus.tar.zst is stale (run scripts/pack-corpus.sh): missing {missing:?}, extra {extra:?}, different {differ:?}"
    );
}
