//! What a path handed to `kseg dump` is: its kind by Kafka's own name for
//! it, else by its suffix (a renamed copy), else by its first bytes; and
//! the base offset its index entries are relative to, when known.

use std::io::Read;
use std::path::Path;

use super::error::LogDirError;
use super::file_name::{FileKind, classify_by_suffix, classify_contents, parse_base_offset};
use super::file_type::special_kind_of;
use crate::format::batch::{LOG_OVERHEAD, V2_HEADER_SIZE};
use crate::format::checkpoint::{parse_leader_epoch_checkpoint, parse_offset_checkpoint};
use crate::format::partition_metadata::parse_partition_metadata;
use crate::format::properties::parse_properties;
use crate::format::read_frame;

/// How much of a file whose name tells nothing is read to tell its kind:
/// enough for a batch header, and the whole of any checkpoint or
/// properties file kseg would take it for.
pub const SNIFF_LEN: usize = 64 << 10;

/// A file kseg can dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identified {
    /// What it holds.
    pub kind: FileKind,
    /// The segment's base offset: given by the caller, or from a name as
    /// Kafka writes it; `None` for a renamed copy.
    pub base_offset: Option<i64>,
}

/// Why a path cannot be dumped.
#[derive(Debug, thiserror::Error)]
pub enum NotDumpable {
    /// Nothing is there.
    #[error("does not exist")]
    Missing,
    /// A directory, not a file.
    #[error("is a directory; dump takes files")]
    Directory,
    /// Neither the name nor the first bytes tell what it is.
    #[error("not a file kind kseg can dump: neither its name nor its first bytes tell what it is")]
    Unknown,
    /// A device, FIFO or socket, which kseg never opens.
    #[error("is {0}: not a regular file")]
    NotRegular(&'static str),
    /// Its first bytes could not be read.
    #[error(transparent)]
    Unreadable(LogDirError),
}

/// Identifies `path`; `given_base` (the user's) wins over the name's.
pub fn identify(path: &Path, given_base: Option<i64>) -> Result<Identified, NotDumpable> {
    if !path.exists() {
        return Err(NotDumpable::Missing);
    }
    if path.is_dir() {
        return Err(NotDumpable::Directory);
    }
    if let Some(kind) = special_kind_of(path) {
        return Err(NotDumpable::NotRegular(kind));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let by_name = classify_contents(&name);
    let mut kind = by_name;
    if matches!(kind, FileKind::Unknown | FileKind::Stray) {
        kind = classify_by_suffix(&name);
    }
    if kind == FileKind::Unknown {
        let head = read_head(path).map_err(NotDumpable::Unreadable)?;
        kind = sniff(&head, head.len() < SNIFF_LEN);
    }
    if kind == FileKind::Unknown {
        return Err(NotDumpable::Unknown);
    }
    let named_base = parse_base_offset(&name).filter(|_| by_name == kind);
    Ok(Identified {
        kind,
        base_offset: given_base.or(named_base),
    })
}

/// The kind `head`, a file's first bytes (`whole`: all of it), shows: a
/// batch or legacy message frame (magic 0 to 2, a non-negative offset, a
/// size that holds a header), else a checkpoint, `partition.metadata` or
/// `meta.properties` that parses as one. Indexes are plain arrays and are
/// never guessed.
pub fn sniff(head: &[u8], whole: bool) -> FileKind {
    if let Ok(frame) = read_frame(head, 0) {
        let smallest = if frame.magic == 2 {
            V2_HEADER_SIZE - LOG_OVERHEAD
        } else {
            0
        };
        if (0..=2).contains(&frame.magic) && frame.offset >= 0 && frame.size as usize >= smallest {
            return FileKind::Log;
        }
    }
    let Some(text) = whole.then(|| std::str::from_utf8(head).ok()).flatten() else {
        return FileKind::Unknown;
    };
    if parse_partition_metadata(text).is_ok() {
        FileKind::PartitionMetadata
    } else if parse_offset_checkpoint(text).is_ok() {
        FileKind::OffsetCheckpoint
    } else if parse_leader_epoch_checkpoint(text).is_ok() {
        FileKind::LeaderEpochCheckpoint
    } else if parse_properties(text)
        .iter()
        .any(|(key, _)| key == "cluster.id" || key == "node.id")
    {
        FileKind::MetaProperties
    } else {
        FileKind::Unknown
    }
}

/// The first [`SNIFF_LEN`] bytes of a file.
fn read_head(path: &Path) -> Result<Vec<u8>, LogDirError> {
    let mut head = Vec::with_capacity(SNIFF_LEN);
    std::fs::File::open(path)
        .and_then(|f| f.take(SNIFF_LEN as u64).read_to_end(&mut head))
        .map_err(|e| LogDirError::io(path, e))?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_batches_and_the_text_files_dump_parses() {
        let mut batch = vec![0u8; 61];
        batch[8..12].copy_from_slice(&49i32.to_be_bytes());
        batch[16] = 2;
        assert_eq!(sniff(&batch, true), FileKind::Log);
        batch[8..12].copy_from_slice(&48i32.to_be_bytes());
        assert_eq!(
            sniff(&batch, true),
            FileKind::Unknown,
            "too small for a v2 header"
        );
        batch[16] = 1;
        assert_eq!(sniff(&batch, true), FileKind::Log, "a legacy message");
        batch[16] = 7;
        assert_eq!(sniff(&batch, true), FileKind::Unknown);
        assert_eq!(sniff(b"0\n1\n0 0\n", true), FileKind::LeaderEpochCheckpoint);
        assert_eq!(
            sniff(b"0\n1\norders 0 42\n", true),
            FileKind::OffsetCheckpoint
        );
        assert_eq!(
            sniff(b"0\n2\norders 0 42\n", true),
            FileKind::Unknown,
            "count 2, one entry"
        );
        assert_eq!(
            sniff(b"0\n1\norders 0 42\n", false),
            FileKind::Unknown,
            "not all of it"
        );
        assert_eq!(
            sniff(b"version: 0\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZA\n", true),
            FileKind::PartitionMetadata
        );
        assert_eq!(
            sniff(b"#\nnode.id=1\nversion=1\n", true),
            FileKind::MetaProperties
        );
        assert_eq!(sniff(b"hello", true), FileKind::Unknown);
        assert_eq!(sniff(&[0xff; 8], true), FileKind::Unknown);
    }
}
