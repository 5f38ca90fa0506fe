//! A remote segment's objects: which layout stores it, its `.log` bytes as
//! one stream, and its offset and time indexes.

use std::io::Read;

use object_store::path::Path;

use super::aiven::{ChunkReader, Manifest};
use super::aiven_crypto::{DataKey, KeyRing};
use super::client::ObjectClient;
use crate::logdir::LogDirError;
use crate::logdir::mapped::INDEX_READ_LIMIT;

/// The largest manifest kseg reads.
const MANIFEST_LIMIT: u64 = 64 << 20;

/// How a remote segment's files are stored.
#[derive(Debug)]
pub enum RemoteLayout {
    /// Kafka's `LocalTieredStorage`: each file as it was, its suffix kept
    /// (`.log`, `.index`, `.timeindex`, …).
    LocalTieredStorage,
    /// Aiven's: a chunked `.log`, a `.rsm-manifest` and one `.indexes`;
    /// with the segment's data key when it is encrypted, or why there is none.
    Aiven(Box<Manifest>, Option<Result<DataKey, String>>),
}

/// An index of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// The `.index`.
    Offset,
    /// The `.timeindex`.
    Time,
}

/// One remote segment, found by its `.log` object.
#[derive(Debug)]
pub struct RemoteSegmentObject {
    /// The `.log` object's key.
    pub log: Path,
    /// The base offset its name starts with (`<offset>-<segment id>.log`).
    pub base_offset: Option<i64>,
    /// The segment's size in bytes (as the broker wrote it, before any chunking).
    pub size: u64,
    /// How it is stored.
    pub layout: RemoteLayout,
}

/// The sibling of a `.log` key with another suffix.
fn sibling(log: &Path, suffix: &str) -> Path {
    let text = log.as_ref();
    Path::from(format!(
        "{}{suffix}",
        text.strip_suffix(".log").unwrap_or(text)
    ))
}

/// For an `.index` or `.timeindex` key: the `.log` key of its segment,
/// and which index it is.
pub fn index_log_key(key: &Path) -> Option<(Path, IndexKind)> {
    [
        (".index", IndexKind::Offset),
        (".timeindex", IndexKind::Time),
    ]
    .into_iter()
    .find_map(|(suffix, kind)| {
        let stem = key.as_ref().strip_suffix(suffix)?;
        Some((Path::from(format!("{stem}.log")), kind))
    })
}

/// The base offset a remote segment's object name starts with.
pub fn name_base_offset(key: &Path) -> Option<i64> {
    let name = key.filename()?;
    let digits = name.split(['-', '.']).next()?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

impl RemoteSegmentObject {
    /// The segment whose `.log` object is `log`; Aiven's layout when a
    /// `.rsm-manifest` lies beside it, its data key unwrapped with `keys`
    /// when it is encrypted.
    pub fn open(client: &ObjectClient, log: &Path, keys: &KeyRing) -> Result<Self, LogDirError> {
        if !log.as_ref().ends_with(".log") {
            return Err(LogDirError::io(
                std::path::Path::new(&client.url(log)),
                std::io::Error::other(
                    "not a remote segment's .log object (`kseg verify --remote` takes a prefix)",
                ),
            ));
        }
        let manifest_key = sibling(log, ".rsm-manifest");
        let stored = client.size(log)?;
        let (size, layout) = if let Some(json) = client.read_small(&manifest_key, MANIFEST_LIMIT)? {
            let manifest = Manifest::parse(&json).map_err(|why| {
                LogDirError::io(
                    std::path::Path::new(&client.url(&manifest_key)),
                    std::io::Error::new(std::io::ErrorKind::InvalidData, why),
                )
            })?;
            if manifest.transformed_size() != stored {
                return Err(LogDirError::io(
                    std::path::Path::new(&client.url(log)),
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!(
                            "{stored} bytes, but its manifest's chunks add up to {}",
                            manifest.transformed_size()
                        ),
                    ),
                ));
            }
            let key = manifest.encryption.as_ref().map(|e| {
                keys.data_key(e).map_err(|why| {
                    format!("the segment is encrypted (Aiven's encryption.enabled): {why}; pass --aiven-private-key [ID=]PEM")
                })
            });
            (
                manifest.original_file_size,
                RemoteLayout::Aiven(Box::new(manifest), key),
            )
        } else {
            (stored, RemoteLayout::LocalTieredStorage)
        };
        Ok(Self {
            log: log.clone(),
            base_offset: name_base_offset(log),
            size,
            layout,
        })
    }

    /// The layout's name, as printed.
    pub fn layout_name(&self) -> &'static str {
        match self.layout {
            RemoteLayout::LocalTieredStorage => "LocalTieredStorage",
            RemoteLayout::Aiven(..) => "Aiven tiered storage",
        }
    }

    /// The segment's bytes, streamed.
    pub fn reader<'c>(&self, client: &'c ObjectClient) -> Result<Box<dyn Read + 'c>, LogDirError> {
        let stream = client.stream(&self.log)?;
        Ok(match &self.layout {
            RemoteLayout::LocalTieredStorage => Box::new(stream),
            RemoteLayout::Aiven(manifest, key) => {
                let fail = |why: String| {
                    LogDirError::io(
                        std::path::Path::new(&client.url(&self.log)),
                        std::io::Error::other(why),
                    )
                };
                let key = key.clone().transpose().map_err(fail)?;
                Box::new(ChunkReader::new(stream, manifest, key).map_err(fail)?)
            }
        })
    }

    /// An index's bytes and the URL they come from; `None` when the
    /// segment has none of that kind.
    pub fn index(
        &self,
        client: &ObjectClient,
        kind: IndexKind,
    ) -> Result<Option<(Vec<u8>, String)>, LogDirError> {
        match &self.layout {
            RemoteLayout::LocalTieredStorage => {
                let key = sibling(
                    &self.log,
                    match kind {
                        IndexKind::Offset => ".index",
                        IndexKind::Time => ".timeindex",
                    },
                );
                Ok(client
                    .read_small(&key, INDEX_READ_LIMIT)?
                    .map(|bytes| (bytes, client.url(&key))))
            }
            RemoteLayout::Aiven(manifest, data_key) => {
                let key = sibling(&self.log, ".indexes");
                let url = client.url(&key);
                let Some((position, size)) = manifest.indexes[match kind {
                    IndexKind::Offset => 0,
                    IndexKind::Time => 1,
                }] else {
                    return Ok(None);
                };
                if size > INDEX_READ_LIMIT {
                    return Err(LogDirError::io(
                        std::path::Path::new(&url),
                        std::io::Error::other(format!("an index of {size} bytes")),
                    ));
                }
                let fail = |why: String| {
                    LogDirError::io(std::path::Path::new(&url), std::io::Error::other(why))
                };
                let stored = client.read_range(&key, position..position + size)?;
                // An empty index is stored as no bytes, encrypted or not.
                let bytes = match data_key {
                    Some(data_key) if !stored.is_empty() => {
                        let data_key = data_key.as_ref().map_err(|why| fail(why.clone()))?;
                        let mut plain = Vec::new();
                        data_key.decrypt_chunk(&stored, &mut plain).map_err(fail)?;
                        plain
                    }
                    _ => stored,
                };
                Ok(Some((
                    bytes,
                    format!("{url} bytes {position}..{}", position + size),
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_key_names_its_segments_log() {
        let key = |k: &str| index_log_key(&Path::from(k)).map(|(l, i)| (l.to_string(), i));
        assert_eq!(
            key("t/0-id.index"),
            Some(("t/0-id.log".into(), IndexKind::Offset))
        );
        assert_eq!(
            key("t/0-id.timeindex"),
            Some(("t/0-id.log".into(), IndexKind::Time))
        );
        assert_eq!(key("t/0-id.indexes"), None);
        assert_eq!(key("t/0-id.txnindex"), None);
    }

    #[test]
    fn base_offsets_come_from_both_layouts_names() {
        let key = |s: &str| name_base_offset(&Path::from(s));
        assert_eq!(key("orders-0-AbC/120-RxY.log"), Some(120));
        assert_eq!(
            key("p/orders-AbC/0/00000000000000000120-RxY.log"),
            Some(120)
        );
        assert_eq!(key("p/orders-AbC/0/00000000000000000000.log"), Some(0));
        assert_eq!(key("p/x-RxY.log"), None);
        assert_eq!(
            sibling(&Path::from("a/1-x.log"), ".index"),
            Path::from("a/1-x.index")
        );
    }
}
