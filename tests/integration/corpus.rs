//! The shared corpus: partition directories written by Apache Kafka's own
//! storage code, each with `kafka-view.json` (Kafka's reading of them).

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::Value;

/// One case of the corpus.
pub struct Case {
    /// Case name (directory).
    pub name: String,
    /// The case directory.
    pub dir: PathBuf,
    /// Parsed `kafka-view.json`.
    pub view: Value,
}

/// One partition of a case: its directory and Kafka's view of it.
pub struct PartitionCase<'a> {
    /// `case/partition` for messages.
    pub label: String,
    /// The partition directory.
    pub dir: PathBuf,
    /// The view's partition object.
    pub view: &'a Value,
}

/// The packed copy of the corpus carried in the repository.
pub fn packed_archive() -> PathBuf {
    super::util::repo().join("tests/corpus/kafka-corpus.tar.zst")
}

/// The corpus root: `$KSEG_CORPUS`, else `../shared/corpus` beside the repo
/// when it exists, else the packed copy unpacked (also with
/// `KSEG_CORPUS=packed`). Says on stderr, once, which one it reads.
pub fn root() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let shared = super::util::repo().join("../shared/corpus");
        let (root, which) = match std::env::var_os("KSEG_CORPUS") {
            Some(v) if v == "packed" => (unpacked(), "the packed copy (KSEG_CORPUS=packed)"),
            Some(v) => (PathBuf::from(v), "$KSEG_CORPUS"),
            None if shared.is_dir() => (shared, "../shared/corpus"),
            None => (unpacked(), "the packed copy (no ../shared/corpus here)"),
        };
        eprintln!("corpus: reading {which} at {}", root.display());
        root
    })
    .clone()
}

/// The packed copy, unpacked once under the target directory (into a
/// directory named by the archive's checksum, so a refreshed archive gets
/// its own, and renamed into place so parallel runs never see half of it).
pub fn unpacked() -> PathBuf {
    let bytes = std::fs::read(packed_archive()).expect("tests/corpus/kafka-corpus.tar.zst");
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = base.join(format!("kafka-corpus-{:08x}", crc32fast::hash(&bytes)));
    if !dir.is_dir() {
        let tmp = base.join(format!("kafka-corpus-unpacking-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let decoder = zstd::stream::read::Decoder::new(bytes.as_slice()).unwrap();
        tar::Archive::new(decoder).unpack(&tmp).unwrap();
        if std::fs::rename(&tmp, &dir).is_err() {
            // Another run got there first.
            let _ = std::fs::remove_dir_all(&tmp);
        }
    }
    dir.join("corpus")
}

/// Every case; fails when the corpus is missing or empty, so CI cannot pass
/// without reading it.
pub fn cases() -> Vec<Case> {
    let root = root();
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("corpus not found at {}: {e}", root.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| root.join(n).join("kafka-view.json").is_file())
        .collect();
    names.sort();
    assert!(
        names.len() >= 20,
        "expected the whole corpus at {}, found {} cases",
        root.display(),
        names.len()
    );
    names
        .into_iter()
        .map(|name| {
            let dir = root.join(&name);
            let text = std::fs::read_to_string(dir.join("kafka-view.json")).unwrap();
            Case {
                name,
                dir,
                view: serde_json::from_str(&text).unwrap(),
            }
        })
        .collect()
}

impl Case {
    /// The partitions the view describes (`partition`, or `partitions` of a log dir).
    pub fn partitions(&self) -> Vec<PartitionCase<'_>> {
        if let Some(p) = self.view.get("partition") {
            let dir = self.dir.join(p["dir"].as_str().unwrap());
            return vec![PartitionCase {
                label: format!("{}/{}", self.name, p["dir"].as_str().unwrap()),
                dir,
                view: p,
            }];
        }
        self.view["partitions"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(name, p)| PartitionCase {
                        label: format!("{}/{name}", self.name),
                        dir: self.dir.join("logdir").join(p["dir"].as_str().unwrap()),
                        view: p,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The log dir of a multi-partition case.
    pub fn log_dir(&self) -> Option<PathBuf> {
        self.view.get("partitions").map(|_| self.dir.join("logdir"))
    }
}

/// The bytes a view encodes as `{"utf8": …}` or `{"base64": …}` (or null).
pub fn view_bytes(v: &Value) -> Option<Vec<u8>> {
    if v.is_null() {
        return None;
    }
    if let Some(s) = v.get("utf8").and_then(Value::as_str) {
        return Some(s.as_bytes().to_vec());
    }
    let b64 = v
        .get("base64")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("unexpected bytes form {v}"));
    Some(decode_base64(b64))
}

/// Decodes standard base64.
pub fn decode_base64(s: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad base64 {s}"),
        }
    };
    let clean: Vec<u8> = s.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c) << (18 - 6 * i);
        }
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// `index.interval.bytes` of a case. The multi-partition case does not
/// record its topic config; its indexes were written with 512.
pub fn index_interval(case: &Case) -> u64 {
    match case.view["config"]["index.interval.bytes"].as_str() {
        Some(s) => s.parse().unwrap(),
        None if case.name == "multi-partition-logdir" => 512,
        None => 4096,
    }
}
