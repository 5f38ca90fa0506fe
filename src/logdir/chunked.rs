//! Walking a `.log`: a file of at least [`MAP_AT_LEAST`] bytes is walked
//! through one mapping (see [`super::mapped_walk`]): whole batches for passes
//! that read every byte (CRC checks), batch headers only for those that need
//! no more. A smaller file is read through `read()` into one reused buffer,
//! or header by header with `pread`.

use std::fs::File;
use std::io::Read;
use std::ops::ControlFlow;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::error::LogDirError;
use super::mapped_walk::{MappedReader, walk_mapped};
use crate::format::batch::{LOG_OVERHEAD, MIN_ENTRY_SIZE, V2_HEADER_SIZE};
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::{
    BatchIter, BatchSummary, FileBatch, FormatError, FormatErrorKind, RecordBatchHeader,
};

/// Buffer size: small enough that CRCs run on data still in the CPU's L2 cache.
const CHUNK: usize = 256 << 10;

/// Files this big or bigger are walked through a mapping.
pub const MAP_AT_LEAST: u64 = 1 << 20;

/// Calls `visit` with every whole batch of the file at `path`, in order,
/// until it returns `Break`. Returns the framing error that ended the walk
/// (exactly what [`BatchIter`] over the whole file would yield), if any.
pub fn walk_batches(
    path: &Path,
    visit: impl FnMut(&FileBatch<'_>) -> ControlFlow<()>,
) -> Result<Option<FormatError>, LogDirError> {
    let io = |e| LogDirError::io(path, e);
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len >= MAP_AT_LEAST {
        walk_mapped(&file, visit).map_err(io)
    } else {
        walk_stream(file, len, visit).map_err(io)
    }
}

/// [`walk_batches`] over `len` bytes that `source` yields in order (a
/// file read with `read()`, a remote object's stream), through one reused buffer: memory holds
/// 256 KiB or the largest batch, whichever is bigger. A source that ends
/// early reads as a file that ends there.
pub fn walk_stream(
    mut source: impl Read,
    len: u64,
    mut visit: impl FnMut(&FileBatch<'_>) -> ControlFlow<()>,
) -> std::io::Result<Option<FormatError>> {
    // `buf[..filled]` holds file bytes from `buf_start`; the rest is spare room.
    let mut buf = vec![0u8; CHUNK.min(len as usize).max(1)];
    let mut filled = 0usize;
    let mut buf_start = 0u64;
    let mut eof = false;
    loop {
        while !eof && filled < buf.len() {
            let n = source.read(buf.get_mut(filled..).unwrap_or_default())?;
            filled += n;
            eof = n == 0;
        }
        let mut consumed = 0usize;
        let mut need = None;
        for item in BatchIter::in_chunk(buf.get(..filled).unwrap_or_default(), buf_start) {
            match item {
                Ok(batch) => {
                    consumed = (batch.position - buf_start) as usize + batch.bytes.len();
                    if visit(&batch).is_break() {
                        return Ok(None);
                    }
                }
                Err(err) => {
                    let wanted = match err.kind {
                        FormatErrorKind::TrailingBytes { .. } => Some(0),
                        FormatErrorKind::BatchPastEnd { size, .. }
                            if err.offset + size as u64 <= len =>
                        {
                            Some(size as usize)
                        }
                        _ => None,
                    };
                    match wanted.filter(|_| !eof) {
                        Some(size) => need = Some(size),
                        None => return Ok(Some(err)),
                    }
                }
            }
        }
        if eof && need.is_none() {
            return Ok(None);
        }
        buf.copy_within(consumed..filled, 0);
        filled -= consumed;
        buf_start += consumed as u64;
        if let Some(size) = need.filter(|&size| size > buf.len()) {
            buf.resize(size, 0);
        }
        if eof && consumed == 0 {
            return Ok(None);
        }
    }
}

/// Calls `visit` with the summary (or the header error) of every batch of
/// the file at `path`, reading only the 61-byte header of magic-2 batches
/// (whole entries for legacy ones, whose base offset may need the inner
/// messages), until it returns `Break`. Framing follows [`BatchIter`]
/// exactly; returns the framing error that ended the walk, if any. A file
/// of at least [`MAP_AT_LEAST`] bytes is read through a mapping, a smaller
/// one with `pread`.
pub fn walk_summaries(
    path: &Path,
    visit: impl FnMut(Result<BatchSummary, FormatError>) -> ControlFlow<()>,
) -> Result<Option<FormatError>, LogDirError> {
    let io = |e| LogDirError::io(path, e);
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len >= MAP_AT_LEAST {
        let source = MappedReader::new(&file).map_err(io)?;
        // The file as mapped: it may have shrunk since `metadata`.
        summaries(source.mapped_len(), source, visit).map_err(io)
    } else {
        let source = PreadReader {
            file: &file,
            buf: Vec::new(),
        };
        summaries(len, source, visit).map_err(io)
    }
}

/// Where a header walk reads its bytes: `len` bytes at `position`, never
/// past the end of the file.
trait ReadAt {
    fn read_at(&mut self, position: u64, len: usize) -> std::io::Result<&[u8]>;
}

impl ReadAt for MappedReader {
    fn read_at(&mut self, position: u64, len: usize) -> std::io::Result<&[u8]> {
        MappedReader::read_at(self, position, len)
    }
}

/// Reads with `pread` into one reused buffer.
struct PreadReader<'f> {
    file: &'f File,
    buf: Vec<u8>,
}

impl ReadAt for PreadReader<'_> {
    fn read_at(&mut self, position: u64, len: usize) -> std::io::Result<&[u8]> {
        self.buf.resize(len, 0);
        self.file.read_exact_at(&mut self.buf, position)?;
        Ok(&self.buf)
    }
}

/// [`walk_summaries`] over a file of `len` bytes read through `source`.
fn summaries(
    len: u64,
    mut source: impl ReadAt,
    mut visit: impl FnMut(Result<BatchSummary, FormatError>) -> ControlFlow<()>,
) -> std::io::Result<Option<FormatError>> {
    let mut scratch = Vec::new();
    let mut position = 0u64;
    while position < len {
        let rest = len - position;
        let head = source.read_at(position, rest.min(V2_HEADER_SIZE as u64) as usize)?;
        let fail = |kind| Ok(Some(FormatError::new(position, kind)));
        let (Some(size_bytes), Some(&magic)) = (head.get(8..12), head.get(16)) else {
            return fail(FormatErrorKind::TrailingBytes { len: rest });
        };
        let size = i32::from_be_bytes(size_bytes.try_into().unwrap_or_default());
        if size < MIN_ENTRY_SIZE {
            return fail(FormatErrorKind::RecordSizeTooSmall { size });
        }
        let total = LOG_OVERHEAD as u64 + size as u64;
        if total > rest {
            return fail(FormatErrorKind::BatchPastEnd {
                size: total as i64,
                available: rest,
            });
        }
        let summary = if magic as i8 >= 2 {
            let bytes = head
                .get(..total.min(V2_HEADER_SIZE as u64) as usize)
                .unwrap_or_default();
            RecordBatchHeader::parse(bytes, position)
                .and_then(|h| BatchSummary::from_v2_header(&h, position, total))
        } else {
            FileBatch {
                position,
                bytes: source.read_at(position, total as usize)?,
                magic: magic as i8,
            }
            .summary(&mut scratch, DEFAULT_DECOMPRESS_LIMIT)
        };
        if visit(summary).is_break() {
            return Ok(None);
        }
        position += total;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::encode::{BatchSpec, RecordSpec, encode_batch};

    fn batch(base: i64, value_len: usize) -> Vec<u8> {
        let records = vec![RecordSpec {
            timestamp: 1,
            value: Some(vec![7; value_len]),
            ..RecordSpec::default()
        }];
        encode_batch(&BatchSpec {
            base_offset: base,
            records,
            ..BatchSpec::default()
        })
    }

    /// An uncompressed magic-1 log entry at `offset`.
    fn legacy_entry(offset: i64, value_len: usize) -> Vec<u8> {
        let mut message = vec![1u8, 0];
        message.extend(1000i64.to_be_bytes());
        message.extend((-1i32).to_be_bytes());
        message.extend((value_len as i32).to_be_bytes());
        message.extend(vec![9u8; value_len]);
        let mut entry = offset.to_be_bytes().to_vec();
        entry.extend(((message.len() + 4) as i32).to_be_bytes());
        entry.extend(crc32fast::hash(&message).to_be_bytes());
        entry.extend(message);
        entry
    }

    /// The chunked walk sees the same batches and the same final error as a
    /// walk over the whole file, across chunk boundaries and big batches;
    /// so does the header walk, mapped (big files) and through `pread`
    /// (small ones).
    #[test]
    fn agrees_with_a_walk_over_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let legacy: Vec<u8> = (0..20).flat_map(|i| legacy_entry(i, 300)).collect();
        let mut big = legacy.clone();
        for i in 20..3000 {
            big.extend(batch(
                i,
                if i % 500 == 0 {
                    9 << 20
                } else {
                    4000 + (i as usize % 97)
                },
            ));
        }
        let mut small = legacy;
        small.extend((20..100).flat_map(|i| batch(i, 900 + i as usize)));
        assert!((small.len() as u64) < MAP_AT_LEAST && big.len() as u64 >= MAP_AT_LEAST);
        for (data, tail) in [&big, &small].into_iter().flat_map(|data| {
            [
                Vec::new(),
                vec![0u8; 5],
                vec![0u8; 40],
                batch(9999, 100)[..50].to_vec(),
            ]
            .map(|tail| (data, tail))
        }) {
            let mut file = data.clone();
            file.extend_from_slice(&tail);
            let path = dir.path().join("00000000000000000000.log");
            std::fs::write(&path, &file).unwrap();
            let whole: Vec<_> = BatchIter::new(&file, 0).collect();
            let expected: Vec<_> = whole
                .iter()
                .filter_map(|r| r.as_ref().ok())
                .map(|b| (b.position, b.bytes.len()))
                .collect();
            let final_error = whole.iter().find_map(|r| r.as_ref().err().copied());
            for mapped in [true, false] {
                let mut seen = Vec::new();
                let visit = |b: &FileBatch<'_>| {
                    seen.push((b.position, b.bytes.len()));
                    ControlFlow::Continue(())
                };
                let opened = File::open(&path).unwrap();
                let end = if mapped {
                    walk_mapped(&opened, visit)
                } else {
                    walk_stream(opened, file.len() as u64, visit)
                }
                .unwrap();
                assert_eq!(seen, expected, "mapped: {mapped}");
                assert_eq!(end, final_error, "mapped: {mapped}");
            }
            let mut summaries = Vec::new();
            let end = walk_summaries(&path, |s| {
                summaries.push(s.unwrap());
                ControlFlow::Continue(())
            })
            .unwrap();
            let mut scratch = Vec::new();
            let expected: Vec<_> = whole
                .iter()
                .filter_map(|r| r.as_ref().ok())
                .map(|b| b.summary(&mut scratch, 1 << 30).unwrap())
                .collect();
            assert_eq!(summaries, expected);
            assert_eq!(end, final_error);
        }
    }
}
