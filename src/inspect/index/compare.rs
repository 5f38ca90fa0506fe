//! Compares an index file on disk with the one Kafka's recovery would build.

use crate::format::SummaryIter;
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::offset_index::OffsetIndex;
use crate::format::time_index::TimeIndex;
use crate::inspect::index::build::IndexBuild;

/// How an existing index relates to its rebuild.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexStatus {
    /// Byte-identical.
    Same,
    /// The file does not exist.
    Missing,
    /// Empty although the rebuild has entries (a `.timeindex` Kafka
    /// recreated empty after it was deleted).
    EmptyButLogHasData,
    /// The rebuilt entries followed by zeros: a preallocated active index,
    /// which Kafka trims when the segment rolls or closes.
    Preallocated {
        /// File length.
        file_size: u64,
    },
    /// Different entries.
    Differs {
        /// First slot that differs.
        slot: usize,
        /// Entries in the file.
        existing_entries: usize,
        /// Entries in the rebuild.
        rebuilt_entries: usize,
        /// Every existing entry still points at a batch start at or before
        /// its offset (as a follower's or the cleaner's chunked entries do),
        /// so lookups stay correct.
        consistent_with_log: bool,
    },
}

impl IndexStatus {
    /// Whether the file needs rewriting: it is missing, or differs from
    /// Kafka's rebuild in a way lookups would get wrong. A file consistent
    /// with the log (grouped differently, as a follower or the cleaner
    /// writes it) serves lookups correctly and is left as it is.
    pub fn needs_write(&self) -> bool {
        !matches!(
            self,
            Self::Same
                | Self::Preallocated { .. }
                | Self::Differs {
                    consistent_with_log: true,
                    ..
                }
        )
    }
}

/// Compares `existing` (None when missing) with `rebuilt`.
pub fn compare(existing: Option<&[u8]>, rebuilt: &[u8], entry_size: usize) -> IndexStatus {
    let Some(existing) = existing else {
        return IndexStatus::Missing;
    };
    if existing == rebuilt {
        return IndexStatus::Same;
    }
    if existing.is_empty() {
        return IndexStatus::EmptyButLogHasData;
    }
    if existing.len() > rebuilt.len()
        && existing.starts_with(rebuilt)
        && existing[rebuilt.len()..].iter().all(|&b| b == 0)
    {
        return IndexStatus::Preallocated {
            file_size: existing.len() as u64,
        };
    }
    let slot = existing
        .chunks(entry_size)
        .zip(rebuilt.chunks(entry_size))
        .position(|(a, b)| a != b)
        .unwrap_or(existing.len().min(rebuilt.len()) / entry_size);
    IndexStatus::Differs {
        slot,
        existing_entries: existing.len() / entry_size,
        rebuilt_entries: rebuilt.len() / entry_size,
        consistent_with_log: false,
    }
}

/// Whether every live entry of an offset index points at a batch start in
/// `log` whose base offset is at or below the entry's offset, with offsets
/// strictly increasing: correct for lookups even if grouped differently.
pub fn offset_index_consistent(index: &OffsetIndex<'_>, log: &[u8]) -> bool {
    let mut previous = i64::MIN;
    index.entries().all(|e| {
        let ok = e.offset > previous
            && SummaryIter::new(log, e.position.max(0) as u64, DEFAULT_DECOMPRESS_LIMIT)
                .next()
                .and_then(Result::ok)
                .is_some_and(|(_, s)| s.position == e.position as u64 && s.base_offset <= e.offset);
        previous = e.offset;
        ok
    })
}

/// Whether every live entry of a time index could have been written for
/// this log, however grouped: timestamps strictly increasing, offsets not
/// decreasing and inside the segment, no timestamp above the segment's
/// largest. (Entries grouped per appended chunk, as a follower or the cleaner
/// writes them before KAFKA-806, pass; garbage does not.)
pub fn time_index_consistent(index: &TimeIndex<'_>, build: &IndexBuild, base_offset: i64) -> bool {
    let mut previous: Option<(i64, i64)> = None;
    index.entries().all(|e| {
        let ok = e.offset >= base_offset
            && e.offset < build.next_offset
            && e.timestamp <= build.max_timestamp
            && previous.is_none_or(|(t, o)| e.timestamp > t && e.offset >= o);
        previous = Some((e.timestamp, e.offset));
        ok
    })
}
