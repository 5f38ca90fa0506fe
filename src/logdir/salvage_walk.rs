//! Streaming a `.log` through [`Salvager`]: one reused buffer, grown only
//! for a batch larger than it (and never past the walk's batch limit), so
//! memory stays flat however large the segment or the damage.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

use super::error::LogDirError;
use crate::format::FileBatch;
use crate::format::resync::{DamagedRange, SalvageOptions, Salvager, Step};

/// Buffer size: as for the other streamed passes.
const CHUNK: usize = 256 << 10;

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
    mut visit: impl FnMut(Found<'_>) -> ControlFlow<()>,
) -> Result<(), LogDirError> {
    let io = |e| LogDirError::io(path, e);
    let mut file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
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
            file.seek(SeekFrom::Start(read_at)).map_err(io)?;
            file_at = read_at;
        }
        let before = filled;
        while filled < buf.len() {
            let n = file
                .read(buf.get_mut(filled..).unwrap_or_default())
                .map_err(io)?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        file_at += (filled - before) as u64;
        if filled < want {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file shrank while kseg was reading it",
            )));
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

    /// The streamed walk finds what a walk over the whole file in one
    /// window finds, across buffer boundaries, big batches and damage.
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
        let options = SalvageOptions {
            salvage: true,
            base_offset: 0,
            next_segment: None,
            max_batch_bytes: 1 << 20,
        };
        let mut streamed = Vec::new();
        walk_salvaging(&path, options, |found| {
            streamed.push(match found {
                Found::Batch(b) => Ok(b.position),
                Found::Damage(d) => Err((d.start, d.end)),
            });
            ControlFlow::Continue(())
        })
        .unwrap();
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
        assert_eq!(streamed, whole);
        assert_eq!(whole.iter().filter(|r| r.is_ok()).count(), 400);
        assert_eq!(whole.iter().filter(|r| r.is_err()).count(), 5);
    }
}
