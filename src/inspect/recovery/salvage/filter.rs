//! Which records a read keeps: an offset range, a timestamp range (both
//! inclusive) and whether control records count. Batches that can hold
//! none of them are told from their header, so they are not decoded.

use crate::format::{BatchSummary, Record};

/// The records asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordFilter {
    /// Smallest offset kept.
    pub from_offset: i64,
    /// Largest offset kept.
    pub to_offset: i64,
    /// Smallest timestamp kept.
    pub from_time: i64,
    /// Largest timestamp kept.
    pub to_time: i64,
    /// Keep control records (transaction markers, KRaft control records).
    pub include_control: bool,
}

impl Default for RecordFilter {
    fn default() -> Self {
        Self::everything()
    }
}

impl RecordFilter {
    /// Every record, control records included.
    pub fn everything() -> Self {
        Self {
            from_offset: i64::MIN,
            to_offset: i64::MAX,
            from_time: i64::MIN,
            to_time: i64::MAX,
            include_control: true,
        }
    }

    /// Whether the batch may hold a record kept, from its header alone.
    pub fn may_keep(&self, batch: &BatchSummary) -> bool {
        if batch.is_control && !self.include_control {
            return false;
        }
        if batch.last_offset < self.from_offset || batch.base_offset > self.to_offset {
            return false;
        }
        // A v2 header's max timestamp bounds its records' timestamps (all
        // equal it under LogAppendTime); legacy entries are decoded.
        !(batch.magic >= 2 && batch.max_timestamp < self.from_time)
    }

    /// Whether the record (of a batch [`Self::may_keep`] passed) is kept.
    pub fn keeps(&self, record: &Record<'_>) -> bool {
        (self.from_offset..=self.to_offset).contains(&record.offset)
            && (self.from_time..=self.to_time).contains(&record.timestamp)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;
    use crate::format::BatchIter;
    use crate::format::encode::{BatchSpec, RecordSpec, encode_batch};

    #[test]
    fn skips_batches_outside_the_ranges_and_control_batches() {
        let bytes = encode_batch(&BatchSpec {
            base_offset: 10,
            records: (0..3)
                .map(|i| RecordSpec {
                    timestamp: 100 + i,
                    ..RecordSpec::default()
                })
                .collect(),
            ..BatchSpec::default()
        });
        let batch = BatchIter::new(&bytes, 0).next().unwrap().unwrap();
        let mut summary = batch.summary(&mut Vec::new(), 1 << 20).unwrap();
        let f = |from_offset, to_offset, from_time| RecordFilter {
            from_offset,
            to_offset,
            from_time,
            ..RecordFilter::everything()
        };
        assert!(f(12, 20, 0).may_keep(&summary));
        assert!(!f(13, 20, 0).may_keep(&summary));
        assert!(!f(0, 9, 0).may_keep(&summary));
        assert!(f(0, 20, 102).may_keep(&summary));
        assert!(!f(0, 20, 103).may_keep(&summary));
        summary.is_control = true;
        assert!(
            !RecordFilter {
                include_control: false,
                ..RecordFilter::everything()
            }
            .may_keep(&summary)
        );
        let mut scratch = Vec::new();
        let records = batch.records(&mut scratch, 1 << 20).records;
        let kept: Vec<i64> = records
            .iter()
            .filter(|r| f(11, 20, 0).keeps(r))
            .map(|r| r.offset)
            .collect();
        assert_eq!(kept, [11, 12]);
    }
}
