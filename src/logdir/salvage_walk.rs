//! Walking a `.log` through [`Salvager`]. A file of at least
//! [`MAP_AT_LEAST`] bytes is read through one mapping, a window at a time,
//! let go behind the walk ([`MappedReader::reading_every_byte`]); a smaller
//! one through one reused buffer, grown only for a batch larger than it
//! (and never past the walk's batch limit). Either way memory stays flat
//! however large the segment or the damage.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

use super::chunked::MAP_AT_LEAST;
use super::error::LogDirError;
use super::mapped_walk::MappedReader;
use crate::format::FileBatch;
use crate::format::resync::{DamagedRange, SalvageOptions, Salvager, Step};

/// Buffer size: as for the other streamed passes.
const CHUNK: usize = 256 << 10;

/// How much of a mapped file the walk looks at a call, at least: the
/// mapped walks' window (a huge page), so that a scan through damage stops
/// to ask for more bytes once every 2 MiB.
const MAPPED_WINDOW: usize = 2 << 20;

/// What the walk hands its visitor.
#[derive(Debug, Clone, Copy)]
pub enum Found<'a> {
    /// A batch that checks out.
    Batch(FileBatch<'a>),
    /// A damaged byte range.
    Damage(DamagedRange),
}

/// Calls `visit` with every batch and damaged range of the `.log` at
/// `path`, in file order, until it returns `Break`. Without
/// `options.salvage` the walk ends at the first damaged range (which then
/// runs to the end of the file).
pub fn walk_salvaging(
    path: &Path,
    options: SalvageOptions,
    visit: impl FnMut(Found<'_>) -> ControlFlow<()>,
) -> Result<(), LogDirError> {
    let io = |e| LogDirError::io(path, e);
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len >= MAP_AT_LEAST {
        walk_mapped(&file, options, visit).map_err(io)
    } else {
        walk_read(file, len, options, visit).map_err(io)
    }
}

/// [`walk_salvaging`] through a mapping of `file`: the walk is handed the
/// mapping from where it asks, [`MAPPED_WINDOW`] bytes or as many as it
/// asks for, so nothing is copied.
fn walk_mapped(
    file: &File,
    options: SalvageOptions,
    mut visit: impl FnMut(Found<'_>) -> ControlFlow<()>,
) -> std::io::Result<()> {
    let mut reader = MappedReader::reading_every_byte(file)?;
    let mut salvager = Salvager::new(options, reader.mapped_len());
    let (mut from, mut bytes) = (0u64, MAPPED_WINDOW);
    loop {
        let window = reader.read_at(from, bytes)?;
        let found = match salvager.step(window, from) {
            Step::Batch(batch) => Found::Batch(batch),
            Step::Damage(range) => Found::Damage(range),
            Step::End => return Ok(()),
            Step::NeedMore { from: at, bytes: n } => {
                from = at;
                bytes = usize::try_from(n).unwrap_or(usize::MAX).max(MAPPED_WINDOW);
                continue;
            }
        };
        if visit(found).is_break() {
            return Ok(());
        }
    }
}

/// [`walk_salvaging`] over the `len` bytes of `file`, read into one
/// reused buffer.
fn walk_read(
    mut file: File,
    len: u64,
    options: SalvageOptions,
    mut visit: impl FnMut(Found<'_>) -> ControlFlow<()>,
) -> std::io::Result<()> {
    let mut salvager = Salvager::new(options, len);
    let mut buf = vec![0u8; CHUNK.min(len as usize).max(1)];
    let mut filled = 0usize;
    let mut buf_start = 0u64;
    let mut file_at = 0u64;
    loop {
        let step = salvager.step(buf.get(..filled).unwrap_or_default(), buf_start);
        let (from, bytes) = match step {
            Step::Batch(batch) => {
                if visit(Found::Batch(batch)).is_break() {
                    return Ok(());
                }
                continue;
            }
            Step::Damage(range) => {
                if visit(Found::Damage(range)).is_break() {
                    return Ok(());
                }
                continue;
            }
            Step::End => return Ok(()),
            Step::NeedMore { from, bytes } => (from, bytes),
        };
        // Keep what is buffered from `from` on, move it to the front, read on.
        let keep_from = from.saturating_sub(buf_start) as usize;
        if from >= buf_start && keep_from <= filled {
            buf.copy_within(keep_from..filled, 0);
            filled -= keep_from;
        } else {
            filled = 0;
        }
        buf_start = from;
        let want = (bytes.min(len - from) as usize).max(CHUNK.min((len - from) as usize));
        if buf.len() < want {
            buf.resize(want, 0);
        }
        let read_at = buf_start + filled as u64;
        if read_at != file_at {
            file.seek(SeekFrom::Start(read_at))?;
            file_at = read_at;
        }
        let before = filled;
        while filled < buf.len() {
            let n = file.read(buf.get_mut(filled..).unwrap_or_default())?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        file_at += (filled - before) as u64;
        if filled < want {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file shrank while kseg was reading it",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::encode::{BatchSpec, RecordSpec, encode_batch};

    fn batch(base: i64, value_len: usize) -> Vec<u8> {
        encode_batch(&BatchSpec {
            base_offset: base,
            records: vec![RecordSpec {
                timestamp: 1,
                value: Some(vec![7; value_len]),
                ..RecordSpec::default()
            }],
            ..BatchSpec::default()
        })
    }

    /// Both walks, through a mapping and through a buffer, find what a
    /// walk over the whole file in one window finds, across window and
    /// buffer boundaries, big batches and damage.
    #[test]
    fn agrees_with_one_window_over_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut data = Vec::new();
        for i in 0..400 {
            data.extend(batch(i, if i % 100 == 7 { 600 << 10 } else { 3000 }));
            if i % 97 == 5 {
                data.extend(vec![0xa5u8; 70_000]);
            }
        }
        let path = dir.path().join("00000000000000000000.log");
        std::fs::write(&path, &data).unwrap();
        assert!(data.len() as u64 >= MAP_AT_LEAST);
        let options = SalvageOptions {
            salvage: true,
            base_offset: 0,
            next_segment: None,
            max_batch_bytes: 1 << 20,
        };
        let mut whole = Vec::new();
        let mut s = Salvager::new(options, data.len() as u64);
        loop {
            match s.step(&data, 0) {
                Step::Batch(b) => whole.push(Ok(b.position)),
                Step::Damage(d) => whole.push(Err((d.start, d.end))),
                Step::NeedMore { .. } => panic!("the whole file was given"),
                Step::End => break,
            }
        }
        assert_eq!(whole.iter().filter(|r| r.is_ok()).count(), 400);
        assert_eq!(whole.iter().filter(|r| r.is_err()).count(), 5);
        let mut mapped = Vec::new();
        walk_salvaging(&path, options, |found| {
            mapped.push(match found {
                Found::Batch(b) => Ok(b.position),
                Found::Damage(d) => Err((d.start, d.end)),
            });
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(mapped, whole);
        let mut streamed = Vec::new();
        let file = File::open(&path).unwrap();
        walk_read(file, data.len() as u64, options, |found| {
            streamed.push(match found {
                Found::Batch(b) => Ok(b.position),
                Found::Damage(d) => Err((d.start, d.end)),
            });
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(streamed, whole);
    }
}
