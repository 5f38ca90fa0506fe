//! Checks Kafka's own recovery never makes: offsets that go backwards
//! between batches, record counts that do not fit the offset range, leader
//! epochs, and with `deep` every record decoded against its batch header.

use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::{BatchIter, BatchSummary, FileBatch, TimestampType};

/// Anomalies listed per segment before the rest are only counted.
const LISTED: usize = 20;

/// What a header walk (and, with `deep`, a record walk) found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchAudit {
    /// First batch's base offset.
    pub first_offset: Option<i64>,
    /// Problems, in words, with their byte positions (the first few).
    pub anomalies: Vec<String>,
    /// Problems beyond those listed.
    pub more_anomalies: usize,
    /// Leader epochs in order of first appearance with the base offset of
    /// the first batch carrying each (the way Kafka assigns its epoch cache).
    pub epoch_starts: Vec<(i32, i64)>,
}

impl BatchAudit {
    fn note(&mut self, text: String) {
        if self.anomalies.len() < LISTED {
            self.anomalies.push(text);
        } else {
            self.more_anomalies += 1;
        }
    }
}

/// Walks the whole batches of `log`; `deep` decodes every record too.
pub fn audit_batches(log: &[u8], deep: bool) -> BatchAudit {
    let mut auditor = BatchAuditor::new(deep);
    let mut scratch = Vec::new();
    for batch in BatchIter::new(log, 0).map_while(Result::ok) {
        let summary = batch.summary(&mut scratch, DEFAULT_DECOMPRESS_LIMIT).ok();
        if !auditor.push(&batch, summary.as_ref()) {
            break;
        }
    }
    auditor.finish()
}

/// [`audit_batches`] one batch at a time.
#[derive(Debug)]
pub struct BatchAuditor {
    audit: BatchAudit,
    previous_last: Option<i64>,
    scratch: Vec<u8>,
    deep: bool,
}

impl BatchAuditor {
    /// An auditor; `deep` decodes every record.
    pub fn new(deep: bool) -> Self {
        Self {
            audit: BatchAudit::default(),
            previous_last: None,
            scratch: Vec::new(),
            deep,
        }
    }

    /// Takes the next batch with its summary (`None` when its header cannot
    /// be read); false then, and the walk ends there.
    pub fn push(&mut self, batch: &FileBatch<'_>, summary: Option<&BatchSummary>) -> bool {
        let Some(s) = summary else {
            return false;
        };
        let deep = self.deep;
        self.audit.first_offset.get_or_insert(s.base_offset);
        if let Some(prev) = self.previous_last.filter(|&p| s.base_offset <= p) {
            self.audit.note(format!("at byte {}: batch {}..{} does not start after the previous batch's last offset {prev}", s.position, s.base_offset, s.last_offset));
        }
        if s.last_offset < s.base_offset {
            self.audit.note(format!(
                "at byte {}: last offset {} is below base offset {}",
                s.position, s.last_offset, s.base_offset
            ));
        }
        if let Some(count) = s.count.filter(|&c| {
            c < 0 || i64::from(c) > s.last_offset.wrapping_sub(s.base_offset).wrapping_add(1)
        }) {
            self.audit.note(format!(
                "at byte {}: {count} records cannot fit offsets {}..{}",
                s.position, s.base_offset, s.last_offset
            ));
        }
        if s.magic >= 2
            && s.partition_leader_epoch >= 0
            && self
                .audit
                .epoch_starts
                .last()
                .is_none_or(|&(e, _)| s.partition_leader_epoch > e)
        {
            self.audit
                .epoch_starts
                .push((s.partition_leader_epoch, s.base_offset));
        }
        if deep {
            check_records(&mut self.audit, batch, s, &mut self.scratch);
        }
        self.previous_last = Some(s.last_offset);
        true
    }

    /// What the walk found.
    pub fn finish(self) -> BatchAudit {
        self.audit
    }
}

fn check_records(
    audit: &mut BatchAudit,
    batch: &FileBatch<'_>,
    s: &BatchSummary,
    scratch: &mut Vec<u8>,
) {
    let decoded = batch.records(scratch, DEFAULT_DECOMPRESS_LIMIT);
    if let Some(err) = decoded.error {
        audit.note(format!(
            "batch at byte {}: records cannot be decoded: {err}",
            s.position
        ));
        return;
    }
    if let Some(count) = s.count.filter(|&c| c as usize != decoded.records.len()) {
        audit.note(format!(
            "batch at byte {}: header says {count} records, {} decoded",
            s.position,
            decoded.records.len()
        ));
    }
    for r in &decoded.records {
        if r.offset < s.base_offset || r.offset > s.last_offset {
            audit.note(format!(
                "batch at byte {}: record offset {} outside {}..{}",
                s.position, r.offset, s.base_offset, s.last_offset
            ));
        }
        if s.timestamp_type == TimestampType::CreateTime
            && s.magic >= 2
            && r.timestamp > s.max_timestamp
        {
            audit.note(format!(
                "batch at byte {}: record {} has timestamp {} above the batch max {}",
                s.position, r.offset, r.timestamp, s.max_timestamp
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::encode::{BatchSpec, RecordSpec, encode_batch};

    fn batch(base: i64, n: usize) -> Vec<u8> {
        let records = (0..n)
            .map(|i| RecordSpec {
                timestamp: 1000 + i as i64,
                ..RecordSpec::default()
            })
            .collect();
        encode_batch(&BatchSpec {
            base_offset: base,
            records,
            ..BatchSpec::default()
        })
    }

    #[test]
    fn flags_offsets_that_go_backwards() {
        let mut log = batch(10, 3);
        log.extend(batch(11, 2));
        let audit = audit_batches(&log, true);
        assert_eq!(audit.first_offset, Some(10));
        assert_eq!(audit.anomalies.len(), 1, "{:?}", audit.anomalies);
        assert!(
            audit.anomalies[0].contains("does not start after the previous batch's last offset 12")
        );
    }

    #[test]
    fn deep_mode_catches_a_header_count_that_lies() {
        let mut log = batch(0, 3);
        // recordsCount @57: claim 2 records while 3 are stored (the CRC is not rechecked here).
        log[60] = 2;
        assert!(audit_batches(&log, false).anomalies.is_empty());
        let deep = audit_batches(&log, true);
        assert!(
            deep.anomalies
                .iter()
                .any(|a| a.contains("records cannot be decoded") || a.contains("header says 2")),
            "{:?}",
            deep.anomalies
        );
    }

    #[test]
    fn records_leader_epoch_starts() {
        let mut log = batch(0, 2);
        let mut spec = BatchSpec {
            base_offset: 2,
            partition_leader_epoch: 3,
            ..BatchSpec::default()
        };
        spec.records = vec![RecordSpec::default()];
        log.extend(encode_batch(&spec));
        assert_eq!(
            audit_batches(&log, false).epoch_starts,
            vec![(0, 0), (3, 2)]
        );
    }
}
