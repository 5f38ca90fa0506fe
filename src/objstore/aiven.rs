//! Aiven's tiered storage for Apache Kafka: a segment's `.rsm-manifest`
//! (JSON), the chunk index in it, and the `.log` object read back chunk by
//! chunk. The `.log` object is the segment cut in chunks of
//! `originalChunkSize` bytes (the last one shorter), each stored as it was,
//! as one zstd frame (`compression`), and AES-GCM encrypted behind a 12-byte
//! IV (`encryption`: the data key is wrapped with the cluster's RSA key, see
//! [`super::aiven_crypto`]). The `.indexes` object holds the segment's
//! indexes one after another, at the positions and sizes the manifest
//! gives, each encrypted on its own when the segment is.

use std::io::Read;

use base64::Engine;
use serde_json::Value;

use super::aiven_crypto::DataKey;

/// The most bytes a manifest's packed chunk sizes may unpack to (the
/// bound Aiven's own reader sets).
const MAX_CHUNK_SIZES: u64 = 10 << 20;

/// The largest chunk kseg accepts (Aiven's chunk size is an int; real ones are MiBs).
const MAX_CHUNK: u64 = 1 << 30;

/// A segment's manifest, as far as reading it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// Size of the segment's `.log` before it was cut in chunks.
    pub original_file_size: u64,
    /// Size of every chunk but the last, before its transform.
    pub original_chunk_size: u64,
    /// Each chunk's size as stored in the `.log` object, in order.
    pub transformed_chunks: Vec<u64>,
    /// Whether every chunk is one zstd frame.
    pub compression: bool,
    /// The `encryption` object (wrapped data key and AAD) when the chunks
    /// and the indexes are encrypted.
    pub encryption: Option<Value>,
    /// Each index's place in the `.indexes` object: (position, size), by
    /// kind: offset, timestamp, producer snapshot, leader epoch, transaction.
    pub indexes: [Option<(u64, u64)>; 5],
}

/// The indexes the manifest places, in [`Manifest::indexes`]' order.
pub const INDEX_KINDS: [&str; 5] = [
    "offset",
    "timestamp",
    "producerSnapshot",
    "leaderEpoch",
    "transaction",
];

/// A chunk of the segment: where it lies in the segment and in the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// Position in the segment.
    pub original_position: u64,
    /// Size in the segment.
    pub original_size: u64,
    /// Position in the `.log` object.
    pub transformed_position: u64,
    /// Size in the `.log` object.
    pub transformed_size: u64,
}

fn field<'v>(v: &'v Value, name: &str) -> Result<&'v Value, String> {
    v.get(name).ok_or_else(|| format!("no \"{name}\""))
}

fn size(v: &Value, name: &str) -> Result<u64, String> {
    field(v, name)?
        .as_u64()
        .ok_or_else(|| format!("\"{name}\" is not a size"))
}

/// Sizes in the binary form Aiven packs a variable chunk index in: a
/// 4-byte count; then for one value that value; for more a 4-byte base, a
/// byte giving each value's width, every value but the last as that many
/// big-endian bytes above the base, and the last value in 4 bytes.
pub fn decode_chunk_sizes(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let short = || "chunk sizes end early".to_string();
    let int = |at: usize| -> Result<u64, String> {
        let b: [u8; 4] = bytes
            .get(at..at + 4)
            .ok_or_else(short)?
            .try_into()
            .map_err(|_| short())?;
        u64::try_from(i32::from_be_bytes(b)).map_err(|_| "a negative chunk size".to_string())
    };
    let count = int(0)? as usize;
    match count {
        0 => return Ok(Vec::new()),
        1 => return Ok(vec![int(4)?]),
        _ => {}
    }
    let base = int(4)?;
    let width = *bytes.get(8).ok_or_else(short)? as usize;
    if !(1..=4).contains(&width) {
        return Err(format!("chunk sizes {width} bytes wide"));
    }
    let packed = 9 + (count - 1).checked_mul(width).ok_or_else(short)?;
    if bytes.len() < packed + 4 {
        return Err(short());
    }
    let mut sizes = Vec::with_capacity(count);
    for i in 0..count - 1 {
        let at = 9 + i * width;
        let value = bytes
            .get(at..at + width)
            .ok_or_else(short)?
            .iter()
            .fold(0u64, |acc, &b| acc << 8 | b as u64);
        sizes.push(base + value);
    }
    sizes.push(int(packed)?);
    Ok(sizes)
}

impl Manifest {
    /// Reads a manifest's JSON.
    pub fn parse(json: &[u8]) -> Result<Self, String> {
        let v: Value = serde_json::from_slice(json).map_err(|e| e.to_string())?;
        let index = field(&v, "chunkIndex")?;
        let original_file_size = size(index, "originalFileSize")?;
        let original_chunk_size = size(index, "originalChunkSize")?;
        if original_chunk_size == 0 || original_chunk_size > MAX_CHUNK {
            return Err(format!("a chunk size of {original_chunk_size}"));
        }
        let count = original_file_size.div_ceil(original_chunk_size);
        let transformed_chunks = match field(index, "type")?.as_str() {
            Some("fixed") => {
                let each = size(index, "transformedChunkSize")?;
                let last = size(index, "finalTransformedChunkSize")?;
                (0..count)
                    .map(|i| if i + 1 == count { last } else { each })
                    .collect()
            }
            Some("variable") => {
                let text = field(index, "transformedChunks")?
                    .as_str()
                    .ok_or("\"transformedChunks\" is not text")?;
                let packed = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|e| format!("transformedChunks: {e}"))?;
                let mut raw = Vec::new();
                zstd::stream::read::Decoder::new(packed.as_slice())
                    .and_then(|d| d.take(MAX_CHUNK_SIZES + 1).read_to_end(&mut raw))
                    .map_err(|e| format!("transformedChunks: {e}"))?;
                if raw.len() as u64 > MAX_CHUNK_SIZES {
                    return Err(format!(
                        "transformedChunks unpacks to more than {MAX_CHUNK_SIZES} bytes"
                    ));
                }
                decode_chunk_sizes(&raw)?
            }
            other => return Err(format!("a chunk index of type {other:?}")),
        };
        if transformed_chunks.len() as u64 != count {
            return Err(format!(
                "{} chunk sizes for {count} chunks of a {original_file_size}-byte segment",
                transformed_chunks.len()
            ));
        }
        let indexes = field(&v, "segmentIndexes")?;
        let place = |kind: &str| -> Result<Option<(u64, u64)>, String> {
            match indexes.get(kind) {
                None | Some(Value::Null) => Ok(None),
                Some(i) => Ok(Some((size(i, "position")?, size(i, "size")?))),
            }
        };
        Ok(Self {
            original_file_size,
            original_chunk_size,
            transformed_chunks,
            compression: field(&v, "compression")?.as_bool().unwrap_or(false),
            encryption: v.get("encryption").filter(|e| !e.is_null()).cloned(),
            indexes: [
                place(INDEX_KINDS[0])?,
                place(INDEX_KINDS[1])?,
                place(INDEX_KINDS[2])?,
                place(INDEX_KINDS[3])?,
                place(INDEX_KINDS[4])?,
            ],
        })
    }

    /// Every chunk, in order.
    pub fn chunks(&self) -> impl Iterator<Item = Chunk> + '_ {
        let mut original = 0u64;
        let mut transformed = 0u64;
        self.transformed_chunks.iter().map(move |&stored| {
            let size = self
                .original_chunk_size
                .min(self.original_file_size - original);
            let chunk = Chunk {
                original_position: original,
                original_size: size,
                transformed_position: transformed,
                transformed_size: stored,
            };
            original += size;
            transformed += stored;
            chunk
        })
    }

    /// Size of the `.log` object the chunks make.
    pub fn transformed_size(&self) -> u64 {
        self.transformed_chunks.iter().sum()
    }
}

/// The segment's bytes from a `.log` object in Aiven's layout, one chunk at
/// a time: memory holds one stored chunk and one restored one.
pub struct ChunkReader<R> {
    inner: R,
    sizes: std::vec::IntoIter<Chunk>,
    compression: bool,
    key: Option<DataKey>,
    stored: Vec<u8>,
    decrypted: Vec<u8>,
    restored: Vec<u8>,
    at: usize,
}

impl<R: Read> ChunkReader<R> {
    /// Reads `inner` (the `.log` object from its start) as `manifest` cut
    /// it, decrypting each chunk with `key` (which an encrypted segment needs).
    pub fn new(inner: R, manifest: &Manifest, key: Option<DataKey>) -> Result<Self, String> {
        if manifest.encryption.is_some() && key.is_none() {
            return Err("the segment is encrypted and no key was given".into());
        }
        Ok(Self {
            inner,
            sizes: manifest.chunks().collect::<Vec<_>>().into_iter(),
            compression: manifest.compression,
            key,
            stored: Vec::new(),
            decrypted: Vec::new(),
            restored: Vec::new(),
            at: 0,
        })
    }

    /// Reads and restores the next chunk; false at the end.
    fn next_chunk(&mut self) -> std::io::Result<bool> {
        let Some(chunk) = self.sizes.next() else {
            return Ok(false);
        };
        let bad = |what: String| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "chunk at byte {} of the object (segment bytes {}..{}): {what}",
                    chunk.transformed_position,
                    chunk.original_position,
                    chunk.original_position + chunk.original_size
                ),
            )
        };
        if chunk.transformed_size > MAX_CHUNK + (1 << 20) {
            return Err(bad(format!("{} bytes stored", chunk.transformed_size)));
        }
        self.stored.resize(chunk.transformed_size as usize, 0);
        self.inner.read_exact(&mut self.stored).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                bad("the object ends inside it".into())
            } else {
                e
            }
        })?;
        if let Some(key) = &self.key {
            key.decrypt_chunk(&self.stored, &mut self.decrypted)
                .map_err(bad)?;
            std::mem::swap(&mut self.stored, &mut self.decrypted);
        }
        if self.compression {
            self.restored.clear();
            let mut decoder = zstd::stream::read::Decoder::with_buffer(self.stored.as_slice())
                .map_err(|e| bad(e.to_string()))?
                .single_frame();
            (&mut decoder)
                .take(chunk.original_size + 1)
                .read_to_end(&mut self.restored)
                .map_err(|e| bad(format!("zstd: {e}")))?;
        } else {
            std::mem::swap(&mut self.stored, &mut self.restored);
        }
        if self.restored.len() as u64 != chunk.original_size {
            return Err(bad(format!(
                "restores to {} bytes, not {}",
                self.restored.len(),
                chunk.original_size
            )));
        }
        self.at = 0;
        Ok(true)
    }
}

impl<R: Read> Read for ChunkReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.restored.len() {
            if !self.next_chunk()? {
                return Ok(0);
            }
        }
        let rest = self.restored.get(self.at..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf.get_mut(..n)
            .unwrap_or_default()
            .copy_from_slice(rest.get(..n).unwrap_or_default());
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Aiven's binary form: count, base, width, packed values, last value.
    #[test]
    fn chunk_sizes_unpack() {
        assert_eq!(
            decode_chunk_sizes(&[0, 0, 0, 0]).unwrap(),
            Vec::<u64>::new()
        );
        assert_eq!(
            decode_chunk_sizes(&[0, 0, 0, 1, 0, 0, 1, 0]).unwrap(),
            vec![256]
        );
        // 3 values: base 1000, 2 bytes each: 1000+0x0102, 1000+0; last 77.
        let bytes = [0, 0, 0, 3, 0, 0, 3, 0xe8, 2, 1, 2, 0, 0, 0, 0, 0, 77];
        assert_eq!(decode_chunk_sizes(&bytes).unwrap(), vec![1258, 1000, 77]);
        assert!(decode_chunk_sizes(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode_chunk_sizes(&[0, 0, 0, 3, 0, 0, 3, 0xe8, 9]).is_err());
        assert!(decode_chunk_sizes(&[0xff, 0xff, 0xff, 0xff]).is_err());
    }

    /// A variable chunk index whose packed sizes unpack past Aiven's own
    /// bound is refused before it is decoded, and a chunk count that does
    /// not fit the segment is named.
    #[test]
    fn packed_chunk_sizes_are_bounded() {
        let manifest = |packed: &[u8], file_size: u64| {
            let text = base64::engine::general_purpose::STANDARD
                .encode(zstd::bulk::compress(packed, 3).unwrap());
            let json = serde_json::json!({
                "chunkIndex": {"type": "variable", "originalChunkSize": 4096,
                    "originalFileSize": file_size, "transformedChunks": text},
                "segmentIndexes": {}, "compression": true});
            Manifest::parse(json.to_string().as_bytes())
        };
        let huge = vec![0u8; (MAX_CHUNK_SIZES + 1) as usize];
        let err = manifest(&huge, 4096).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        // Two sizes for a one-chunk segment.
        let two = [0, 0, 0, 2, 0, 0, 0, 9, 1, 0, 0, 0, 0, 5];
        let err = manifest(&two, 4096).unwrap_err();
        assert!(err.contains("2 chunk sizes for 1 chunks"), "{err}");
        assert_eq!(manifest(&two, 5000).unwrap().transformed_chunks, vec![9, 5]);
    }
}
