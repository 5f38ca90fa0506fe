//! Reading a partition (or the one segment a PATH named) segment by
//! segment, forwarding every event and building the salvage report.

use std::ops::ControlFlow;

use super::read::{Event, ReadOptions, read_segment};
use super::report::{ReportBuilder, SalvageReport};
use crate::logdir::target::Target;
use crate::logdir::{LogDirError, PageCacheGuard, Segment};

/// The partition directory's name, as exports and reports show it.
pub fn partition_name(target: &Target) -> String {
    target
        .partition
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| target.partition.name())
}

/// Reads the target's segments in order, calling `visit` with each event
/// (and its segment) until it returns `Break`; without salvaging, the read
/// also ends after the first damaged range. Segments wholly below the
/// filter's first offset are not read, and the read ends at the first batch
/// past its last offset (offsets only grow along a partition). Pages read
/// are dropped from the page cache again unless they were cached before.
pub fn read_partition(
    target: &Target,
    options: ReadOptions,
    mut visit: impl FnMut(&Segment, Event<'_>) -> ControlFlow<()>,
) -> Result<SalvageReport, LogDirError> {
    let mut report = ReportBuilder::new(&partition_name(target));
    let segments = &target.partition.segments;
    for (i, segment) in segments.iter().enumerate() {
        if target
            .only_segment
            .is_some_and(|b| b != segment.base_offset)
        {
            continue;
        }
        let next_base = segments.get(i + 1).map(|s| s.base_offset);
        let filter = options.filter;
        if next_base.is_some_and(|n| n <= filter.from_offset) {
            continue;
        }
        if segment.base_offset > filter.to_offset {
            break;
        }
        let _cache = PageCacheGuard::open(&segment.log_path())?;
        report.begin_segment(segment);
        let mut stop = false;
        read_segment(segment, next_base, options, |event| {
            if let Event::Batch { summary, .. } = &event {
                if summary.base_offset > filter.to_offset {
                    stop = true;
                    return ControlFlow::Break(());
                }
            }
            report.event(&event);
            stop |= matches!(event, Event::Damage(_)) && !options.salvage;
            let flow = visit(segment, event);
            stop |= flow.is_break();
            flow
        })?;
        report.end_segment(next_base);
        if stop {
            break;
        }
    }
    Ok(report.finish())
}
