//! The salvage report of a partition, built from the events of reading its
//! segments: each damaged byte range with the offsets lost in it (told by
//! the offsets of the batches around it, or by the next segment's base
//! offset), what was kept after it, and what Kafka's recovery would cut.

use std::path::PathBuf;

use super::read::Event;
use crate::format::FormatError;
use crate::logdir::Segment;

/// Offsets that sat in a damaged range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LostOffsets {
    /// First offset lost: one past the last offset before the range.
    pub first: i64,
    /// Last offset lost: one before the next offset known after the range
    /// (the next batch kept, else the next segment's base offset); `None`
    /// when nothing after the range tells it.
    pub last: Option<i64>,
}

impl LostOffsets {
    /// How many offsets, when known (0 when the range hid none).
    pub fn count(&self) -> Option<u64> {
        self.last
            .map(|last| (last.saturating_sub(self.first).saturating_add(1)).max(0) as u64)
    }
}

/// The offsets, batches and records kept in a stretch of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Kept {
    /// Batches kept.
    pub batches: u64,
    /// Records in them.
    pub records: u64,
    /// First and last offset kept.
    pub offsets: Option<(i64, i64)>,
}

impl Kept {
    fn add(&mut self, base: i64, last: i64, records: u64) {
        self.batches += 1;
        self.records += records;
        self.offsets = Some(
            self.offsets
                .map_or((base, last), |(first, _)| (first, last)),
        );
    }
}

/// One damaged byte range of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damage {
    /// First damaged byte.
    pub start: u64,
    /// First byte after the range.
    pub end: u64,
    /// Why the batch at `start` was refused.
    pub why: FormatError,
    /// Offsets lost in it.
    pub lost: LostOffsets,
    /// What was kept after it, up to the next damage or the segment's end.
    pub kept_after: Kept,
}

/// What reading one segment kept and lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentSalvage {
    /// Base offset (from the file name).
    pub base_offset: i64,
    /// The `.log`.
    pub file: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Everything kept in it.
    pub kept: Kept,
    /// Its damaged ranges, in file order.
    pub damages: Vec<Damage>,
}

/// Where Kafka's recovery would stop, and what it would throw away that a
/// salvage keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KafkaCut {
    /// The segment it truncates.
    pub segment: i64,
    /// The byte it truncates at.
    pub position: u64,
    /// Later segments it deletes.
    pub deleted_segments: Vec<i64>,
    /// Bytes of those segments.
    pub deleted_bytes: u64,
    /// Records past the cut (in the truncated segment and the deleted ones)
    /// that the salvage keeps.
    pub records_kept_past_cut: u64,
}

/// The salvage report of one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SalvageReport {
    /// The partition directory's name.
    pub partition: String,
    /// Its segments read, in order.
    pub segments: Vec<SegmentSalvage>,
}

impl SalvageReport {
    /// No damage found.
    pub fn is_clean(&self) -> bool {
        self.segments.iter().all(|s| s.damages.is_empty())
    }

    /// What Kafka's recovery does on reaching the first damage: it
    /// truncates there and deletes every later segment.
    pub fn kafka_cut(&self) -> Option<KafkaCut> {
        let (at, segment) = self
            .segments
            .iter()
            .enumerate()
            .find(|(_, s)| !s.damages.is_empty())?;
        let first = segment.damages.first()?;
        let later = self.segments.get(at + 1..).unwrap_or_default();
        let in_segment: u64 = segment.damages.iter().map(|d| d.kept_after.records).sum();
        Some(KafkaCut {
            segment: segment.base_offset,
            position: first.start,
            deleted_segments: later.iter().map(|s| s.base_offset).collect(),
            deleted_bytes: later.iter().map(|s| s.size).sum(),
            records_kept_past_cut: in_segment + later.iter().map(|s| s.kept.records).sum::<u64>(),
        })
    }
}

/// Collects a partition's report while its segments are read.
#[derive(Debug)]
pub struct ReportBuilder {
    report: SalvageReport,
    /// The last offset seen in the current segment (its base - 1 at first).
    last_offset: i64,
    /// Damages of the current segment still waiting for the next offset.
    open: Vec<usize>,
}

impl ReportBuilder {
    /// A report for the partition named `partition`.
    pub fn new(partition: &str) -> Self {
        Self {
            report: SalvageReport {
                partition: partition.to_string(),
                segments: Vec::new(),
            },
            last_offset: -1,
            open: Vec::new(),
        }
    }

    /// Starts the next segment.
    pub fn begin_segment(&mut self, segment: &Segment) {
        self.report.segments.push(SegmentSalvage {
            base_offset: segment.base_offset,
            file: segment.log_path(),
            size: segment.log_size(),
            kept: Kept::default(),
            damages: Vec::new(),
        });
        self.last_offset = segment.base_offset.saturating_sub(1);
        self.open.clear();
    }

    /// Takes one event of the current segment.
    pub fn event(&mut self, event: &Event<'_>) {
        let Some(segment) = self.report.segments.last_mut() else {
            return;
        };
        match event {
            Event::Batch {
                summary, records, ..
            } => {
                for &i in &self.open {
                    if let Some(d) = segment.damages.get_mut(i) {
                        d.lost.last = Some(summary.base_offset.saturating_sub(1));
                    }
                }
                self.open.clear();
                segment
                    .kept
                    .add(summary.base_offset, summary.last_offset, *records);
                if let Some(d) = segment.damages.last_mut() {
                    d.kept_after
                        .add(summary.base_offset, summary.last_offset, *records);
                }
                self.last_offset = summary.last_offset;
            }
            Event::Damage(range) => {
                if let Some(previous) = segment
                    .damages
                    .last_mut()
                    .filter(|d| d.end == range.start && d.kept_after.batches == 0)
                {
                    previous.end = range.end;
                    return;
                }
                self.open.push(segment.damages.len());
                segment.damages.push(Damage {
                    start: range.start,
                    end: range.end,
                    why: range.why,
                    lost: LostOffsets {
                        first: self.last_offset.saturating_add(1),
                        last: None,
                    },
                    kept_after: Kept::default(),
                });
            }
        }
    }

    /// Ends the current segment; `next_base`: the next segment's base
    /// offset, which bounds the offsets lost at its end.
    pub fn end_segment(&mut self, next_base: Option<i64>) {
        if let Some(segment) = self.report.segments.last_mut() {
            for &i in &self.open {
                if let Some(d) = segment.damages.get_mut(i) {
                    d.lost.last = next_base.map(|n| n.saturating_sub(1));
                }
            }
        }
        self.open.clear();
    }

    /// The report.
    pub fn finish(self) -> SalvageReport {
        self.report
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;
    use crate::format::resync::DamagedRange;
    use crate::format::{BatchSummary, FormatErrorKind};

    fn summary(base: i64, last: i64) -> BatchSummary {
        let s = crate::format::encode::encode_batch(&crate::format::encode::BatchSpec {
            base_offset: base,
            records: vec![Default::default()],
            ..Default::default()
        });
        let batch = crate::format::BatchIter::new(&s, 0)
            .next()
            .unwrap()
            .unwrap();
        let mut summary = batch.summary(&mut Vec::new(), 1 << 20).unwrap();
        summary.last_offset = last;
        summary
    }

    fn damage(start: u64, end: u64) -> Event<'static> {
        Event::Damage(DamagedRange {
            start,
            end,
            why: FormatError::new(start, FormatErrorKind::Invalid("x")),
        })
    }

    #[test]
    fn lost_offsets_come_from_the_neighbours_or_the_next_segment() {
        let dir = std::path::Path::new("/nonexistent");
        let mut b = ReportBuilder::new("p-0");
        b.begin_segment(&Segment::new(dir, 10));
        let (s1, s2) = (summary(10, 12), summary(16, 19));
        b.event(&Event::Batch {
            summary: &s1,
            kept: &[],
            records: 3,
        });
        b.event(&damage(100, 200));
        b.event(&damage(200, 300));
        b.event(&Event::Batch {
            summary: &s2,
            kept: &[],
            records: 4,
        });
        b.event(&damage(400, 500));
        b.end_segment(Some(30));
        b.begin_segment(&Segment::new(dir, 30));
        b.event(&damage(0, 50));
        b.end_segment(None);
        let report = b.finish();
        let d = &report.segments[0].damages;
        assert_eq!(d.len(), 2, "adjacent ranges merge");
        assert_eq!((d[0].start, d[0].end), (100, 300));
        assert_eq!(
            d[0].lost,
            LostOffsets {
                first: 13,
                last: Some(15)
            }
        );
        assert_eq!(d[0].kept_after.records, 4);
        assert_eq!(
            d[1].lost,
            LostOffsets {
                first: 20,
                last: Some(29)
            }
        );
        assert_eq!(d[1].lost.count(), Some(10));
        let tail = &report.segments[1].damages[0];
        assert_eq!(
            tail.lost,
            LostOffsets {
                first: 30,
                last: None
            }
        );
        let cut = report.kafka_cut().unwrap();
        assert_eq!((cut.segment, cut.position), (10, 100));
        assert_eq!(cut.deleted_segments, [30]);
        assert_eq!(cut.records_kept_past_cut, 4);
    }
}
