//! What a path handed to `kseg dump` is: its kind by Kafka's own name for
//! it, else by its suffix (a renamed copy), else by its first bytes; and
//! the base offset its index entries are relative to, when known.

use std::io::Read;
use std::path::Path;

use super::error::LogDirError;
use super::file_name::{
    FileKind, SNIFF_LEN, classify_by_suffix, classify_contents, parse_base_offset, sniff,
};

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
        kind = sniff(&read_head(path).map_err(NotDumpable::Unreadable)?);
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

/// The first [`SNIFF_LEN`] bytes of a file.
fn read_head(path: &Path) -> Result<Vec<u8>, LogDirError> {
    let mut head = Vec::with_capacity(SNIFF_LEN);
    std::fs::File::open(path)
        .and_then(|f| f.take(SNIFF_LEN as u64).read_to_end(&mut head))
        .map_err(|e| LogDirError::io(path, e))?;
    Ok(head)
}
