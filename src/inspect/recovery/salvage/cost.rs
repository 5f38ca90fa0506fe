//! What keeping the data after a cut costs, told by the batches around the
//! cuts: transactions whose end marker may have sat in a cut range (they
//! would hold the last stable offset back, as Kafka's
//! `ProducerStateManager` keeps them ongoing), idempotent producers whose
//! sequence now jumps across a cut, and leader epochs whose first offsets
//! were cut.

use std::collections::BTreeMap;

use super::read::Event;
use super::report::SalvageReport;
use crate::format::checkpoint::LeaderEpochEntry;

/// A transaction that spans a cut: its COMMIT or ABORT marker may have
/// been in the cut range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenTransaction {
    /// Its producer.
    pub producer_id: i64,
    /// The producer's epoch.
    pub producer_epoch: i16,
    /// Its first offset kept.
    pub first_offset: i64,
    /// The offset of the next marker of the producer kept after the cut,
    /// which then ends everything since `first_offset`; `None`: none
    /// follows, and the transaction holds the last stable offset at
    /// `first_offset`.
    pub ended_by: Option<i64>,
}

/// An idempotent producer whose sequence jumps across a cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SequenceGap {
    /// The producer.
    pub producer_id: i64,
    /// Its epoch and last sequence kept before the cut.
    pub before: (i16, i32),
    /// Its epoch and first sequence kept after the cut (a new epoch starts
    /// at sequence 0).
    pub after: (i16, i32),
    /// Offset of the batch after the cut.
    pub offset_after: i64,
}

/// Everything keeping the data after the cuts costs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CutCost {
    /// Transactions that span a cut.
    pub open_transactions: Vec<OpenTransaction>,
    /// Producers whose sequence jumps across a cut.
    pub sequence_gaps: Vec<SequenceGap>,
    /// Leader-epoch entries whose start offset was cut.
    pub epochs_starting_in_cuts: Vec<LeaderEpochEntry>,
}

#[derive(Debug, Clone, Copy)]
struct ProducerSeen {
    epoch: i16,
    last_sequence: i32,
    /// Cuts seen before this producer's last batch.
    cuts: u64,
}

/// Follows a partition's events, in order, to tell [`CutCost`].
#[derive(Debug, Default)]
pub struct CostTracker {
    cuts: u64,
    producers: BTreeMap<i64, ProducerSeen>,
    /// Open transactions: producer -> (epoch, first offset, cuts before it).
    open: BTreeMap<i64, (i16, i64, u64)>,
    spanning: Vec<OpenTransaction>,
    gaps: Vec<SequenceGap>,
}

impl CostTracker {
    /// Takes the next event of the partition.
    pub fn event(&mut self, event: &Event<'_>) {
        let summary = match event {
            Event::Damage(_) => {
                self.cuts += 1;
                return;
            }
            Event::Batch { summary, .. } => summary,
        };
        let producer = summary.producer_id;
        if producer < 0 {
            return;
        }
        if summary.is_control {
            if let Some((epoch, first, cuts)) = self.open.remove(&producer) {
                if cuts < self.cuts {
                    self.spanning.push(OpenTransaction {
                        producer_id: producer,
                        producer_epoch: epoch,
                        first_offset: first,
                        ended_by: Some(summary.base_offset),
                    });
                }
            }
        } else if summary.is_transactional {
            self.open.entry(producer).or_insert((
                summary.producer_epoch,
                summary.base_offset,
                self.cuts,
            ));
        }
        if summary.base_sequence < 0 {
            return;
        }
        if let Some(seen) = self.producers.get(&producer) {
            let continues = if seen.epoch == summary.producer_epoch {
                seen.last_sequence.wrapping_add(1) == summary.base_sequence
                    || (seen.last_sequence == i32::MAX && summary.base_sequence == 0)
            } else {
                summary.base_sequence == 0
            };
            if seen.cuts < self.cuts && !continues {
                self.gaps.push(SequenceGap {
                    producer_id: producer,
                    before: (seen.epoch, seen.last_sequence),
                    after: (summary.producer_epoch, summary.base_sequence),
                    offset_after: summary.base_offset,
                });
            }
        }
        self.producers.insert(
            producer,
            ProducerSeen {
                epoch: summary.producer_epoch,
                last_sequence: summary.last_sequence,
                cuts: self.cuts,
            },
        );
    }

    /// The cost, once every event was seen; `epochs`: the partition's
    /// leader-epoch entries, checked against the report's lost offsets.
    pub fn finish(self, report: &SalvageReport, epochs: &[LeaderEpochEntry]) -> CutCost {
        let total_cuts = self.cuts;
        let lost: Vec<(i64, Option<i64>)> = report
            .segments
            .iter()
            .flat_map(|s| &s.damages)
            .map(|d| (d.lost.first, d.lost.last))
            .collect();
        let mut open_transactions = self.spanning;
        open_transactions.extend(
            self.open
                .into_iter()
                .filter(|&(_, (_, _, cuts))| cuts < total_cuts)
                .map(
                    |(producer_id, (producer_epoch, first_offset, _))| OpenTransaction {
                        producer_id,
                        producer_epoch,
                        first_offset,
                        ended_by: None,
                    },
                ),
        );
        CutCost {
            open_transactions,
            sequence_gaps: self.gaps,
            epochs_starting_in_cuts: epochs
                .iter()
                .filter(|e| {
                    lost.iter().any(|&(first, last)| {
                        e.start_offset >= first && last.is_none_or(|l| e.start_offset <= l)
                    })
                })
                .copied()
                .collect(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;
    use crate::format::encode::{BatchSpec, RecordSpec, encode_batch};
    use crate::format::resync::DamagedRange;
    use crate::format::{BatchIter, BatchSummary, FormatError, FormatErrorKind};
    use crate::inspect::recovery::salvage::ReportBuilder;
    use crate::logdir::Segment;

    fn summary(base: i64, producer: i64, sequence: i32, transactional: bool) -> BatchSummary {
        let bytes = encode_batch(&BatchSpec {
            base_offset: base,
            producer_id: producer,
            producer_epoch: 0,
            base_sequence: sequence,
            transactional,
            records: vec![RecordSpec::default()],
            ..BatchSpec::default()
        });
        let batch = BatchIter::new(&bytes, 0).next().unwrap().unwrap();
        batch.summary(&mut Vec::new(), 1 << 20).unwrap()
    }

    #[test]
    fn names_open_transactions_sequence_gaps_and_cut_epochs() {
        let cut = Event::Damage(DamagedRange {
            start: 100,
            end: 200,
            why: FormatError::new(100, FormatErrorKind::Invalid("x")),
        });
        let batches = [
            summary(0, 7, 0, true),
            summary(1, 8, 0, false),
            summary(3, 8, 2, false),
            summary(4, 9, 0, false),
        ];
        let mut tracker = CostTracker::default();
        let mut report = ReportBuilder::new("p-0");
        report.begin_segment(&Segment::new(std::path::Path::new("/nonexistent"), 0));
        let events = [
            Event::Batch {
                summary: &batches[0],
                kept: &[],
                records: 1,
            },
            Event::Batch {
                summary: &batches[1],
                kept: &[],
                records: 1,
            },
            cut,
            Event::Batch {
                summary: &batches[2],
                kept: &[],
                records: 1,
            },
            Event::Batch {
                summary: &batches[3],
                kept: &[],
                records: 1,
            },
        ];
        for e in &events {
            tracker.event(e);
            report.event(e);
        }
        report.end_segment(None);
        let epochs = [
            LeaderEpochEntry {
                epoch: 0,
                start_offset: 0,
            },
            LeaderEpochEntry {
                epoch: 1,
                start_offset: 2,
            },
        ];
        let cost = tracker.finish(&report.finish(), &epochs);
        assert_eq!(
            cost.open_transactions,
            [OpenTransaction {
                producer_id: 7,
                producer_epoch: 0,
                first_offset: 0,
                ended_by: None
            }]
        );
        assert_eq!(
            cost.sequence_gaps,
            [SequenceGap {
                producer_id: 8,
                before: (0, 0),
                after: (0, 2),
                offset_after: 3
            }]
        );
        assert_eq!(cost.epochs_starting_in_cuts, [epochs[1]]);
    }
}
