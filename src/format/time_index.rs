//! The `.timeindex` file: 12-byte entries of (timestamp, relative offset).

use super::error::{FormatError, FormatErrorKind};
use super::index_search::{SearchTrace, largest_lower_bound};

/// Size of one time-index entry.
pub const TIME_INDEX_ENTRY_SIZE: usize = 12;

/// One entry: the largest timestamp seen before `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeIndexEntry {
    /// Timestamp in epoch milliseconds.
    pub timestamp: i64,
    /// Absolute offset.
    pub offset: i64,
}

/// A view over the bytes of a time index of the segment at `base_offset`.
#[derive(Debug, Clone, Copy)]
pub struct TimeIndex<'a> {
    data: &'a [u8],
    base_offset: i64,
}

/// Why Kafka's `TimeIndex.sanityCheck` would reject a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeIndexSanityError {
    /// The last counted entry's timestamp is below the first's.
    LastTimestampBelowFirst {
        /// Last timestamp.
        last: i64,
        /// First timestamp.
        first: i64,
    },
    /// The last counted entry's offset is below the base offset.
    LastOffsetBelowBase {
        /// Last offset.
        last: i64,
        /// Base offset.
        base: i64,
    },
    /// The length is not a multiple of 12.
    SizeNotMultiple {
        /// File length.
        len: u64,
    },
}

impl<'a> TimeIndex<'a> {
    /// Wraps the file bytes.
    pub fn new(data: &'a [u8], base_offset: i64) -> Self {
        Self { data, base_offset }
    }

    /// File length in bytes.
    pub fn file_size(&self) -> u64 {
        self.data.len() as u64
    }

    /// Entry count as the broker opens the file: length / 12.
    pub fn kafka_entries(&self) -> usize {
        self.data.len() / TIME_INDEX_ENTRY_SIZE
    }

    /// Slot `i` as (timestamp, relative offset).
    pub fn raw_entry(&self, i: usize) -> Option<(i64, i32)> {
        let start = i.checked_mul(TIME_INDEX_ENTRY_SIZE)?;
        let bytes = self.data.get(start..start + TIME_INDEX_ENTRY_SIZE)?;
        let (ts, rel) = bytes.split_at(8);
        Some((
            i64::from_be_bytes(ts.try_into().ok()?),
            i32::from_be_bytes(rel.try_into().ok()?),
        ))
    }

    /// Slot `i` with an absolute offset.
    pub fn entry(&self, i: usize) -> Option<TimeIndexEntry> {
        self.raw_entry(i).map(|(timestamp, rel)| TimeIndexEntry {
            timestamp,
            offset: self.base_offset.wrapping_add(i64::from(rel)),
        })
    }

    /// Real entries: up to the first slot after slot 0 whose relative offset is 0.
    pub fn live_entries(&self) -> usize {
        (1..self.kafka_entries())
            .find(|&i| self.raw_entry(i).is_some_and(|(_, rel)| rel == 0))
            .unwrap_or(self.kafka_entries())
    }

    /// Iterates the live entries.
    pub fn entries(&self) -> impl Iterator<Item = TimeIndexEntry> + '_ {
        (0..self.live_entries()).filter_map(|i| self.entry(i))
    }

    /// The last live entry, which is what the broker takes as a closed
    /// segment's largest timestamp.
    pub fn last_entry(&self) -> Option<TimeIndexEntry> {
        self.live_entries()
            .checked_sub(1)
            .and_then(|i| self.entry(i))
    }

    /// Kafka's sanity check (`TimeIndex.sanityCheck`), in its order.
    pub fn sanity_check(&self) -> Result<(), TimeIndexSanityError> {
        let n = self.kafka_entries();
        if n != 0 {
            let (first, last) = (self.entry(0), self.entry(n - 1));
            if let (Some(first), Some(last)) = (first, last) {
                if last.timestamp < first.timestamp {
                    return Err(TimeIndexSanityError::LastTimestampBelowFirst {
                        last: last.timestamp,
                        first: first.timestamp,
                    });
                }
                if last.offset < self.base_offset {
                    return Err(TimeIndexSanityError::LastOffsetBelowBase {
                        last: last.offset,
                        base: self.base_offset,
                    });
                }
            }
        }
        if !self.data.len().is_multiple_of(TIME_INDEX_ENTRY_SIZE) {
            return Err(TimeIndexSanityError::SizeNotMultiple {
                len: self.file_size(),
            });
        }
        Ok(())
    }

    /// The floor entry for timestamp `target` among the first `entries`
    /// slots; (-1, base offset) when there is none, as the broker answers.
    pub fn lookup(&self, target: i64, entries: usize) -> (TimeIndexEntry, SearchTrace) {
        let trace = largest_lower_bound(entries, TIME_INDEX_ENTRY_SIZE, target, |i| {
            self.entry(i).map_or(i64::MAX, |e| e.timestamp)
        });
        let entry = trace
            .slot
            .and_then(|i| self.entry(i))
            .unwrap_or(TimeIndexEntry {
                timestamp: -1,
                offset: self.base_offset,
            });
        (entry, trace)
    }

    /// An error for a file whose size is not a whole number of entries.
    pub fn size_error(&self) -> Option<FormatError> {
        (!self.data.len().is_multiple_of(TIME_INDEX_ENTRY_SIZE)).then(|| {
            FormatError::new(
                (self.kafka_entries() * TIME_INDEX_ENTRY_SIZE) as u64,
                FormatErrorKind::IndexSizeNotMultiple {
                    size: self.file_size(),
                    entry_size: TIME_INDEX_ENTRY_SIZE as u64,
                },
            )
        })
    }
}

impl TimeIndexSanityError {
    /// Kafka's exception message for this failure, naming `path`.
    pub fn kafka_message(&self, path: &str) -> String {
        match self {
            Self::LastTimestampBelowFirst { last, first } => format!(
                "Corrupt time index found, time index file ({path}) has non-zero size but the last timestamp is {last} which is less than the first timestamp {first}"
            ),
            Self::LastOffsetBelowBase { last, base } => format!(
                "Corrupt time index found, time index file ({path}) has non-zero size but the last offset is {last} which is less than the first offset {base}"
            ),
            Self::SizeNotMultiple { len } => format!(
                "Time index file {path} is corrupt, found {len} bytes which is neither positive nor a multiple of 12"
            ),
        }
    }
}

/// Encodes entries as the `.timeindex` bytes Kafka writes (trimmed).
pub fn encode_time_index(base_offset: i64, entries: &[TimeIndexEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * TIME_INDEX_ENTRY_SIZE);
    for e in entries {
        out.extend_from_slice(&e.timestamp.to_be_bytes());
        out.extend_from_slice(&(e.offset.wrapping_sub(base_offset) as i32).to_be_bytes());
    }
    out
}
