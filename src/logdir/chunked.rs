//! Walking a `.log`: for passes that read every byte (CRC checks), a file of
//! at least [`MAP_AT_LEAST`] bytes is walked through one mapping (see
//! [`super::mapped_walk`]), and a smaller one is read through `read()` into
//! one reused buffer; passes that need only batch headers read header by
//! header with `pread`.

use std::fs::File;
use std::io::Read;
use std::ops::ControlFlow;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::error::LogDirError;
use super::mapped_walk::walk_mapped;
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
        walk_read(file, len, visit).map_err(io)
    }
}

/// [`walk_batches`] through `read()` into one reused buffer.
fn walk_read(
    mut file: File,
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
            let n = file.read(buf.get_mut(filled..).unwrap_or_default())?;
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
/// exactly; returns the framing error that ended the walk, if any.
pub fn walk_summaries(
    path: &Path,
    mut visit: impl FnMut(Result<BatchSummary, FormatError>) -> ControlFlow<()>,
) -> Result<Option<FormatError>, LogDirError> {
    let io = |e| LogDirError::io(path, e);
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut header = [0u8; V2_HEADER_SIZE];
    let mut entry = Vec::new();
    let mut scratch = Vec::new();
    let mut position = 0u64;
    while position < len {
        let rest = len - position;
        let head = header
            .get_mut(..rest.min(V2_HEADER_SIZE as u64) as usize)
            .unwrap_or_default();
        file.read_exact_at(head, position).map_err(io)?;
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
            entry.resize(total as usize, 0);
            file.read_exact_at(&mut entry, position).map_err(io)?;
            FileBatch {
                position,
                bytes: &entry,
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

    /// The chunked walk sees the same batches and the same final error as a
    /// walk over the whole file, across chunk boundaries and big batches.
    #[test]
    fn agrees_with_a_walk_over_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut data = Vec::new();
        for i in 0..3000 {
            data.extend(batch(
                i,
                if i % 500 == 0 {
                    9 << 20
                } else {
                    4000 + (i as usize % 97)
                },
            ));
        }
        for tail in [
            Vec::new(),
            vec![0u8; 5],
            vec![0u8; 40],
            batch(9999, 100)[..50].to_vec(),
        ] {
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
                    walk_read(opened, file.len() as u64, visit)
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
