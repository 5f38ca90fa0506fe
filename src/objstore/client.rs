//! One connection to an object store, named by a URL (`s3://bucket/key`,
//! `gs://…`, `az://…`, `file:///…`), with blocking calls over a private
//! single-threaded runtime. Credentials and endpoints come from the usual
//! environment (`AWS_ACCESS_KEY_ID`, `AWS_ENDPOINT`, `GOOGLE_SERVICE_ACCOUNT`,
//! `AZURE_STORAGE_ACCOUNT_NAME`, …), as each store's own tools read them.

use std::io::Read;
use std::ops::Range;
use std::path::Path as FsPath;
use std::sync::Arc;

use bytes::{Buf, Bytes};
use futures::StreamExt;
use futures::stream::BoxStream;
use object_store::path::Path;
use object_store::{ObjectMeta, ObjectStore};

use crate::logdir::LogDirError;

/// URL schemes kseg reads objects from.
const SCHEMES: [&str; 8] = ["s3", "s3a", "gs", "az", "abfs", "abfss", "azure", "file"];

/// Whether `arg` names an object by URL rather than a local path.
pub fn is_object_url(arg: &str) -> bool {
    arg.split_once("://")
        .is_some_and(|(scheme, _)| SCHEMES.contains(&scheme))
}

/// An object store and the URL prefix its keys are printed under.
pub struct ObjectClient {
    runtime: tokio::runtime::Runtime,
    store: Arc<dyn ObjectStore>,
    /// `scheme://bucket/` (or `file:///`): a key's URL is this followed by the key.
    base: String,
}

/// The error for `url`, as every log-dir error is reported: by name.
fn failed(url: &str, err: impl std::fmt::Display) -> LogDirError {
    LogDirError::io(FsPath::new(url), std::io::Error::other(err.to_string()))
}

/// An object-store error on `url`; a missing object reads as missing.
fn store_error(url: &str, err: object_store::Error) -> LogDirError {
    match err {
        object_store::Error::NotFound { .. } => LogDirError::io(
            FsPath::new(url),
            std::io::Error::from(std::io::ErrorKind::NotFound),
        ),
        err => failed(url, err),
    }
}

impl ObjectClient {
    /// Connects to the store `url` names; returns it and the key the URL
    /// names within it (a whole object, or a prefix).
    pub fn connect(url: &str) -> Result<(Self, Path), LogDirError> {
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| failed(url, "not an object URL"))?;
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        let store: Arc<dyn ObjectStore> = match scheme {
            "s3" | "s3a" => Arc::new(
                object_store::aws::AmazonS3Builder::from_env()
                    .with_url(url)
                    .build()
                    .map_err(|e| failed(url, e))?,
            ),
            "gs" => Arc::new(
                object_store::gcp::GoogleCloudStorageBuilder::from_env()
                    .with_url(url)
                    .build()
                    .map_err(|e| failed(url, e))?,
            ),
            "file" => Arc::new(object_store::local::LocalFileSystem::new()),
            _ => Arc::new(
                object_store::azure::MicrosoftAzureBuilder::from_env()
                    .with_url(url)
                    .build()
                    .map_err(|e| failed(url, e))?,
            ),
        };
        let (base, key) = if scheme == "file" {
            let key = Path::from_absolute_path(rest).map_err(|e| failed(url, e))?;
            ("file:///".to_string(), key)
        } else {
            let key = Path::parse(key.trim_end_matches('/')).map_err(|e| failed(url, e))?;
            (format!("{scheme}://{bucket}/"), key)
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| LogDirError::io(FsPath::new(url), e))?;
        Ok((
            Self {
                runtime,
                store,
                base,
            },
            key,
        ))
    }

    /// The URL of `key` in this store.
    pub fn url(&self, key: &Path) -> String {
        format!("{}{key}", self.base)
    }

    /// The object's size in bytes.
    pub fn size(&self, key: &Path) -> Result<u64, LogDirError> {
        let meta = self
            .runtime
            .block_on(self.store.head(key))
            .map_err(|e| store_error(&self.url(key), e))?;
        Ok(meta.size)
    }

    /// The whole object, `None` when there is no such object; refused when
    /// it is bigger than `limit` bytes (manifests and indexes, never segments).
    pub fn read_small(&self, key: &Path, limit: u64) -> Result<Option<Vec<u8>>, LogDirError> {
        let size = match self.runtime.block_on(self.store.head(key)) {
            Ok(meta) => meta.size,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(store_error(&self.url(key), e)),
        };
        if size > limit {
            return Err(failed(
                &self.url(key),
                format!("{size} bytes, more than the {limit} kseg reads whole"),
            ));
        }
        self.read_range(key, 0..size).map(Some)
    }

    /// `range` of the object's bytes.
    pub fn read_range(&self, key: &Path, range: Range<u64>) -> Result<Vec<u8>, LogDirError> {
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let bytes = self
            .runtime
            .block_on(self.store.get_range(key, range))
            .map_err(|e| store_error(&self.url(key), e))?;
        Ok(bytes.to_vec())
    }

    /// The object's bytes as a stream: one request, read as it arrives.
    pub fn stream(&self, key: &Path) -> Result<ObjectStream<'_>, LogDirError> {
        let url = self.url(key);
        let result = self
            .runtime
            .block_on(self.store.get(key))
            .map_err(|e| store_error(&url, e))?;
        Ok(ObjectStream {
            runtime: &self.runtime,
            body: result.into_stream(),
            pending: Bytes::new(),
        })
    }

    /// Every object under `prefix` (a directory-like prefix), sorted by key.
    pub fn list(&self, prefix: &Path) -> Result<Vec<ObjectMeta>, LogDirError> {
        let prefix = (!prefix.as_ref().is_empty()).then_some(prefix);
        let mut all: Vec<ObjectMeta> = self
            .runtime
            .block_on(async {
                let mut listing = self.store.list(prefix);
                let mut all = Vec::new();
                while let Some(meta) = listing.next().await {
                    all.push(meta);
                }
                all.into_iter().collect::<Result<Vec<_>, _>>()
            })
            .map_err(|e| store_error(&self.url(prefix.unwrap_or(&Path::default())), e))?;
        all.sort_by(|a, b| a.location.cmp(&b.location));
        Ok(all)
    }
}

/// An object's bytes as they arrive, read with blocking calls; holds at
/// most the transfer's current piece.
pub struct ObjectStream<'c> {
    runtime: &'c tokio::runtime::Runtime,
    body: BoxStream<'static, object_store::Result<Bytes>>,
    pending: Bytes,
}

impl Read for ObjectStream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pending.is_empty() {
            match self.runtime.block_on(self.body.next()) {
                None => return Ok(0),
                Some(Ok(piece)) => self.pending = piece,
                Some(Err(e)) => return Err(std::io::Error::other(e)),
            }
        }
        let n = buf.len().min(self.pending.len());
        buf.get_mut(..n)
            .unwrap_or_default()
            .copy_from_slice(self.pending.get(..n).unwrap_or_default());
        self.pending.advance(n);
        Ok(n)
    }
}
