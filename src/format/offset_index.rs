//! The `.index` file: 8-byte entries of (relative offset, position).

use super::error::{FormatError, FormatErrorKind};
use super::index_search::{SearchTrace, largest_lower_bound};

/// Size of one offset-index entry.
pub const OFFSET_INDEX_ENTRY_SIZE: usize = 8;

/// One entry: an absolute offset and the byte position of the batch it points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetIndexEntry {
    /// Absolute offset (base offset + the stored relative offset).
    pub offset: i64,
    /// Byte position in the `.log`.
    pub position: i64,
}

/// A view over the bytes of an offset index of the segment at `base_offset`.
#[derive(Debug, Clone, Copy)]
pub struct OffsetIndex<'a> {
    data: &'a [u8],
    base_offset: i64,
}

/// Why Kafka's `OffsetIndex.sanityCheck` would reject a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetIndexSanityError {
    /// The last counted entry's offset is below the base offset.
    LastOffsetBelowBase {
        /// Last entry's absolute offset.
        last: i64,
        /// Segment base offset.
        base: i64,
    },
    /// The length is not a multiple of 8.
    SizeNotMultiple {
        /// File length.
        len: u64,
    },
}

impl<'a> OffsetIndex<'a> {
    /// Wraps the file bytes.
    pub fn new(data: &'a [u8], base_offset: i64) -> Self {
        Self { data, base_offset }
    }

    /// File length in bytes.
    pub fn file_size(&self) -> u64 {
        self.data.len() as u64
    }

    /// Entry count as the broker opens the file: length / 8, zeros included.
    pub fn kafka_entries(&self) -> usize {
        self.data.len() / OFFSET_INDEX_ENTRY_SIZE
    }

    /// Reads slot `i` (relative offset, position).
    pub fn raw_entry(&self, i: usize) -> Option<(i32, i32)> {
        let start = i.checked_mul(OFFSET_INDEX_ENTRY_SIZE)?;
        let bytes = self.data.get(start..start + OFFSET_INDEX_ENTRY_SIZE)?;
        let (rel, pos) = bytes.split_at(4);
        Some((
            i32::from_be_bytes(rel.try_into().ok()?),
            i32::from_be_bytes(pos.try_into().ok()?),
        ))
    }

    /// Slot `i` with an absolute offset.
    pub fn entry(&self, i: usize) -> Option<OffsetIndexEntry> {
        self.raw_entry(i).map(|(rel, pos)| OffsetIndexEntry {
            offset: self.base_offset.wrapping_add(i64::from(rel)),
            position: i64::from(pos),
        })
    }

    /// Real entries: up to the first slot after slot 0 whose relative offset
    /// is 0 (the zero tail of a preallocated index), as kafka-dump-log reads it.
    pub fn live_entries(&self) -> usize {
        (1..self.kafka_entries())
            .find(|&i| self.raw_entry(i).is_some_and(|(rel, _)| rel == 0))
            .unwrap_or(self.kafka_entries())
    }

    /// Iterates the live entries.
    pub fn entries(&self) -> impl Iterator<Item = OffsetIndexEntry> + '_ {
        (0..self.live_entries()).filter_map(|i| self.entry(i))
    }

    /// Kafka's sanity check (`OffsetIndex.sanityCheck`), in its order.
    pub fn sanity_check(&self) -> Result<(), OffsetIndexSanityError> {
        let n = self.kafka_entries();
        if n != 0 {
            if let Some(last) = self.entry(n - 1).filter(|e| e.offset < self.base_offset) {
                return Err(OffsetIndexSanityError::LastOffsetBelowBase {
                    last: last.offset,
                    base: self.base_offset,
                });
            }
        }
        if !self.data.len().is_multiple_of(OFFSET_INDEX_ENTRY_SIZE) {
            return Err(OffsetIndexSanityError::SizeNotMultiple {
                len: self.file_size(),
            });
        }
        Ok(())
    }

    /// The floor entry for `target` among the first `entries` slots, as the
    /// broker's `OffsetIndex.lookup` finds it (base offset, position 0 when none).
    pub fn lookup(&self, target: i64, entries: usize) -> (OffsetIndexEntry, SearchTrace) {
        let trace = largest_lower_bound(entries, OFFSET_INDEX_ENTRY_SIZE, target, |i| {
            self.entry(i).map_or(i64::MAX, |e| e.offset)
        });
        let entry = trace
            .slot
            .and_then(|i| self.entry(i))
            .unwrap_or(OffsetIndexEntry {
                offset: self.base_offset,
                position: 0,
            });
        (entry, trace)
    }

    /// An error for a file whose size is not a whole number of entries.
    pub fn size_error(&self) -> Option<FormatError> {
        (!self.data.len().is_multiple_of(OFFSET_INDEX_ENTRY_SIZE)).then(|| {
            FormatError::new(
                self.kafka_entries() as u64 * OFFSET_INDEX_ENTRY_SIZE as u64,
                FormatErrorKind::IndexSizeNotMultiple {
                    size: self.file_size(),
                    entry_size: OFFSET_INDEX_ENTRY_SIZE as u64,
                },
            )
        })
    }
}

impl OffsetIndexSanityError {
    /// Kafka's exception message for this failure, naming `path`.
    pub fn kafka_message(&self, path: &str) -> String {
        match self {
            Self::LastOffsetBelowBase { last, base } => format!(
                "Corrupt index found, index file {path} has non-zero size but the last offset is {last} which is less than the base offset {base}"
            ),
            Self::SizeNotMultiple { len } => format!(
                "Index file {path} is corrupt, found {len} bytes which is neither positive nor a multiple of 8"
            ),
        }
    }
}

/// Encodes entries as the `.index` bytes Kafka writes (trimmed).
pub fn encode_offset_index(base_offset: i64, entries: &[OffsetIndexEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * OFFSET_INDEX_ENTRY_SIZE);
    for e in entries {
        out.extend_from_slice(&(e.offset.wrapping_sub(base_offset) as i32).to_be_bytes());
        out.extend_from_slice(&(e.position as i32).to_be_bytes());
    }
    out
}
