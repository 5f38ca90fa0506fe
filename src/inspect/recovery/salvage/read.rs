//! Reading one segment's records in offset order, either as Kafka's readers
//! do (the first damaged batch ends the read) or salvaging (past damage,
//! on from the next frame that validates). A batch whose CRC matches but
//! whose records do not decode counts as damage too: its bytes are the
//! damaged range.

use std::ops::ControlFlow;

use super::filter::RecordFilter;
use crate::format::resync::{DamagedRange, SalvageOptions};
use crate::format::{BatchSummary, FileBatch, Record};
use crate::logdir::salvage_walk::{Found, walk_salvaging};
use crate::logdir::{LogDirError, Segment};

/// How a segment is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Resynchronize past damage instead of stopping.
    pub salvage: bool,
    /// Largest batch, and largest decompressed batch, held in memory.
    pub max_batch_bytes: usize,
    /// The records wanted.
    pub filter: RecordFilter,
}

/// What reading a segment yields, in file order.
#[derive(Debug)]
pub enum Event<'e> {
    /// A batch that checks out.
    Batch {
        /// Its header facts.
        summary: &'e BatchSummary,
        /// The records the filter keeps (none when it skipped the batch).
        kept: &'e [Record<'e>],
        /// Records in the batch (decoded, or from the header when skipped).
        records: u64,
    },
    /// A damaged byte range (the last event, when not salvaging).
    Damage(DamagedRange),
}

/// Reads the segment (whose successor starts at `next_segment`, if any),
/// calling `visit` with each event until it returns `Break`.
pub fn read_segment(
    segment: &Segment,
    next_segment: Option<i64>,
    options: ReadOptions,
    mut visit: impl FnMut(Event<'_>) -> ControlFlow<()>,
) -> Result<(), LogDirError> {
    let walk = SalvageOptions {
        salvage: options.salvage,
        base_offset: segment.base_offset,
        next_segment,
        max_batch_bytes: options.max_batch_bytes as u64,
    };
    let mut scratch = Vec::new();
    walk_salvaging(&segment.log_path(), walk, |found| match found {
        Found::Damage(range) => visit(Event::Damage(range)),
        Found::Batch(batch) => read_batch(&batch, &options, &mut scratch, &mut visit),
    })
}

/// Decodes one batch (when the filter may keep any of it) and hands it on;
/// `Break` also when its records do not decode and the read is not salvaging.
fn read_batch(
    batch: &FileBatch<'_>,
    options: &ReadOptions,
    scratch: &mut Vec<u8>,
    visit: &mut impl FnMut(Event<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let limit = options.max_batch_bytes;
    let damage = |why| {
        Event::Damage(DamagedRange {
            start: batch.position,
            end: batch.position + batch.size(),
            why,
        })
    };
    let summary = match batch.summary(scratch, limit) {
        Ok(summary) => summary,
        Err(why) => {
            visit(damage(why))?;
            return if options.salvage {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            };
        }
    };
    if !options.filter.may_keep(&summary) {
        let records = summary.count.map_or_else(
            || (summary.last_offset - summary.base_offset + 1).max(0) as u64,
            |c| c.max(0) as u64,
        );
        return visit(Event::Batch {
            summary: &summary,
            kept: &[],
            records,
        });
    }
    let decoded = batch.records(scratch, limit);
    if let Some(why) = decoded.error {
        visit(damage(why))?;
        return if options.salvage {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        };
    }
    let records = decoded.records.len() as u64;
    let kept: Vec<Record<'_>> = decoded
        .records
        .into_iter()
        .filter(|r| options.filter.keeps(r))
        .collect();
    visit(Event::Batch {
        summary: &summary,
        kept: &kept,
        records,
    })
}
