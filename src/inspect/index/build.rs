//! The `.index` and `.timeindex` Kafka's `LogSegment.recover` builds for a
//! segment, computed from the `.log` alone: the recipe for a byte-identical
//! rebuild, and the first batch recovery would truncate at.

use std::ops::ControlFlow;
use std::path::Path;

use crate::format::batches::{BatchIter, BatchSummary, FileBatch};
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::offset_index::{OffsetIndexEntry, encode_offset_index};
use crate::format::time_index::{TimeIndexEntry, encode_time_index};
use crate::format::{FormatError, FormatErrorKind};
use crate::logdir::LogDirError;
use crate::logdir::chunked::{walk_batches, walk_summaries};

/// Kafka's default `index.interval.bytes`.
pub const DEFAULT_INDEX_INTERVAL_BYTES: u64 = 4096;

/// Why the walk stopped before the end of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The bytes at the position do not frame a batch (torn write, zeros,
    /// a corrupt length field, fewer than 17 bytes).
    Framing(FormatError),
    /// The batch fails Kafka's `ensureValid` (size or CRC).
    Invalid(FormatError),
    /// Offsets go backwards at an index point: Kafka's recovery throws
    /// `InvalidOffsetException` and empties the whole segment.
    InvalidOffset {
        /// Position of the batch.
        position: u64,
        /// Its last offset.
        offset: i64,
        /// The previous index entry's offset.
        previous: i64,
    },
    /// A last offset that does not fit the segment's relative int32 offsets:
    /// Kafka splits the segment instead of truncating it.
    OffsetOverflow {
        /// Position of the batch.
        position: u64,
        /// Its last offset.
        offset: i64,
    },
}

impl StopReason {
    /// Byte position where the walk stopped.
    pub fn position(&self) -> u64 {
        match self {
            Self::Framing(e) | Self::Invalid(e) => e.offset,
            Self::InvalidOffset { position, .. } | Self::OffsetOverflow { position, .. } => {
                *position
            }
        }
    }

    /// The reason in words.
    pub fn describe(&self) -> String {
        match self {
            Self::Framing(e) | Self::Invalid(e) => e.kind.to_string(),
            Self::InvalidOffset {
                offset, previous, ..
            } => format!("last offset {offset} is not above the previous index entry's {previous}"),
            Self::OffsetOverflow { offset, .. } => {
                format!("offset {offset} does not fit the segment's 32-bit relative offsets")
            }
        }
    }

    /// Whether Kafka stops silently here (no exception): a batch running
    /// past the end of the file or fewer than 17 trailing bytes.
    pub fn is_silent(&self) -> bool {
        matches!(
            self,
            Self::Framing(FormatError {
                kind: FormatErrorKind::BatchPastEnd { .. } | FormatErrorKind::TrailingBytes { .. },
                ..
            })
        )
    }
}

/// The indexes of one segment as Kafka's recovery would write them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexBuild {
    /// Offset-index entries (only the last one from a counting builder).
    pub offset_entries: Vec<OffsetIndexEntry>,
    /// Time-index entries, including the final one recovery appends (only
    /// the last one from a counting builder).
    pub time_entries: Vec<TimeIndexEntry>,
    /// How many offset-index entries the rebuilt `.index` holds.
    pub offset_entry_count: usize,
    /// How many time-index entries the rebuilt `.timeindex` holds.
    pub time_entry_count: usize,
    /// Bytes of whole, valid batches from the start of the file.
    pub valid_bytes: u64,
    /// Batches walked.
    pub batches: u64,
    /// Records in those batches (v2 header counts; 1 per legacy entry).
    pub records: u64,
    /// Offset after the last valid batch (the base offset when there is none).
    pub next_offset: i64,
    /// Largest batch max timestamp (-1 when none).
    pub max_timestamp: i64,
    /// Last offset of the first batch that reached it.
    pub offset_of_max_timestamp: i64,
    /// Why the walk stopped early, if it did.
    pub stop: Option<StopReason>,
    /// Offset after the last valid magic-2 batch: where recovery leaves the
    /// producer state's map end.
    pub last_v2_next_offset: Option<i64>,
}

impl IndexBuild {
    fn add_offset_entry(&mut self, entry: OffsetIndexEntry, keep: bool) {
        if !keep {
            self.offset_entries.clear();
        }
        self.offset_entries.push(entry);
        self.offset_entry_count += 1;
    }

    fn add_time_entry(&mut self, entry: TimeIndexEntry, keep: bool) {
        if !keep {
            self.time_entries.clear();
        }
        self.time_entries.push(entry);
        self.time_entry_count += 1;
    }

    /// The trimmed `.index` bytes.
    pub fn offset_index_bytes(&self, base_offset: i64) -> Vec<u8> {
        encode_offset_index(base_offset, &self.offset_entries)
    }

    /// The trimmed `.timeindex` bytes.
    pub fn time_index_bytes(&self, base_offset: i64) -> Vec<u8> {
        encode_time_index(base_offset, &self.time_entries)
    }
}

/// Walks `log` as `LogSegment.recover` does. With `verify_crc` each batch
/// must pass Kafka's `ensureValid`; without it only headers are read.
pub fn build_indexes(log: &[u8], base_offset: i64, interval: u64, verify_crc: bool) -> IndexBuild {
    let mut builder = IndexBuilder::new(base_offset, interval, verify_crc);
    for item in BatchIter::new(log, 0) {
        match item {
            Ok(batch) => {
                if !builder.push(&batch) {
                    break;
                }
            }
            Err(err) => {
                builder.framing_ended(err);
                break;
            }
        }
    }
    builder.finish()
}

/// [`build_indexes`] straight from the file, streamed (never held whole):
/// headers only, or every byte when `verify_crc`.
pub fn build_indexes_from_file(
    path: &Path,
    base_offset: i64,
    interval: u64,
    verify_crc: bool,
) -> Result<IndexBuild, LogDirError> {
    let mut builder = IndexBuilder::new(base_offset, interval, verify_crc);
    let end = if verify_crc {
        walk_batches(path, |batch| {
            if builder.push(batch) {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        })?
    } else {
        walk_summaries(path, |s| {
            if builder.push_summary(s.as_ref().map_err(|e| *e)) {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        })?
    };
    if let Some(err) = end {
        builder.framing_ended(err);
    }
    Ok(builder.finish())
}

/// [`build_indexes`] one batch at a time, for walks that feed batches from
/// elsewhere (a chunked read).
#[derive(Debug)]
pub struct IndexBuilder {
    build: IndexBuild,
    base_offset: i64,
    interval: u64,
    verify_crc: bool,
    keep_entries: bool,
    last_entry_position: u64,
    scratch: Vec<u8>,
}

impl IndexBuilder {
    /// A builder for the segment at `base_offset`.
    pub fn new(base_offset: i64, interval: u64, verify_crc: bool) -> Self {
        Self::with_entries(base_offset, interval, verify_crc, true)
    }

    /// A builder that counts index entries instead of keeping them (memory
    /// stays flat however long the segment).
    pub fn counting(base_offset: i64, interval: u64, verify_crc: bool) -> Self {
        Self::with_entries(base_offset, interval, verify_crc, false)
    }

    fn with_entries(base_offset: i64, interval: u64, verify_crc: bool, keep_entries: bool) -> Self {
        let build = IndexBuild {
            next_offset: base_offset,
            max_timestamp: -1,
            offset_of_max_timestamp: -1,
            ..IndexBuild::default()
        };
        Self {
            build,
            base_offset,
            interval,
            verify_crc,
            keep_entries,
            last_entry_position: 0,
            scratch: Vec::new(),
        }
    }

    /// Whether recovery stopped at an earlier batch.
    pub fn stopped(&self) -> bool {
        self.build.stop.is_some()
    }

    /// Takes the next batch; false once recovery would stop here.
    pub fn push(&mut self, batch: &FileBatch<'_>) -> bool {
        let summary = batch.summary(&mut self.scratch, DEFAULT_DECOMPRESS_LIMIT);
        self.push_summarized(batch, summary.as_ref().map_err(|e| *e))
    }

    /// Takes the next batch with the summary the caller already read of it.
    pub fn push_summarized(
        &mut self,
        batch: &FileBatch<'_>,
        summary: Result<&BatchSummary, FormatError>,
    ) -> bool {
        let checked = match summary {
            _ if !self.verify_crc => summary,
            // The summary holds the v2 header's CRC: no second read of it.
            Ok(s) if !batch.is_legacy() => {
                debug_assert_eq!(s.position, batch.position, "another batch's summary");
                batch.ensure_v2_crc(s.crc).map(|()| s)
            }
            _ => batch.ensure_valid().and(summary),
        };
        self.push_summary(checked)
    }

    /// Takes the next batch's header facts (or why they cannot be read);
    /// CRCs are the caller's business. False once recovery stops.
    pub fn push_summary(&mut self, summary: Result<&BatchSummary, FormatError>) -> bool {
        if self.stopped() {
            return false;
        }
        if let Err(reason) = summary
            .map_err(StopReason::Invalid)
            .and_then(|s| self.step(s))
        {
            self.build.stop = Some(reason);
        }
        !self.stopped()
    }

    /// The walk ended at bytes that do not frame as a batch.
    pub fn framing_ended(&mut self, err: crate::format::FormatError) {
        if !self.stopped() {
            self.build.stop = Some(StopReason::Framing(err));
        }
    }

    /// Adds recovery's closing time-index entry and returns the result.
    pub fn finish(mut self) -> IndexBuild {
        let b = &mut self.build;
        let last_time = b.time_entries.last().map_or(-1, |e| e.timestamp);
        if b.max_timestamp > last_time {
            let entry = TimeIndexEntry {
                timestamp: b.max_timestamp,
                offset: b.offset_of_max_timestamp,
            };
            b.add_time_entry(entry, self.keep_entries);
        }
        self.build
    }
}

impl IndexBuilder {
    /// Recovery's per-batch rule, on a batch's header facts.
    fn step(&mut self, s: &BatchSummary) -> Result<(), StopReason> {
        let keep = self.keep_entries;
        let b = &mut self.build;
        let relative = s.last_offset.wrapping_sub(self.base_offset);
        if !(0..=i64::from(i32::MAX)).contains(&relative) {
            return Err(StopReason::OffsetOverflow {
                position: s.position,
                offset: s.last_offset,
            });
        }
        if s.max_timestamp > b.max_timestamp {
            b.max_timestamp = s.max_timestamp;
            b.offset_of_max_timestamp = s.last_offset;
        }
        if s.position - self.last_entry_position > self.interval {
            if let Some(prev) = b
                .offset_entries
                .last()
                .filter(|e| e.offset >= s.last_offset)
            {
                return Err(StopReason::InvalidOffset {
                    position: s.position,
                    offset: s.last_offset,
                    previous: prev.offset,
                });
            }
            b.add_offset_entry(
                OffsetIndexEntry {
                    offset: s.last_offset,
                    position: s.position as i64,
                },
                keep,
            );
            let last_time = b.time_entries.last().map_or(-1, |e| e.timestamp);
            if b.max_timestamp > last_time {
                let entry = TimeIndexEntry {
                    timestamp: b.max_timestamp,
                    offset: b.offset_of_max_timestamp,
                };
                b.add_time_entry(entry, keep);
            }
            self.last_entry_position = s.position;
        }
        b.valid_bytes = s.position + s.size;
        b.batches += 1;
        b.records += s.count.map_or(1, |c| c.max(0) as u64);
        b.next_offset = s.last_offset.wrapping_add(1);
        if s.magic >= 2 {
            b.last_v2_next_offset = Some(b.next_offset);
        }
        Ok(())
    }
}
