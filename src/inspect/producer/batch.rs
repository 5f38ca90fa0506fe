//! The facts producer state takes from one batch with a producer id, shared
//! by the producer-state replay, transaction tracking and segment checks.

use crate::format::record::{ControlType, parse_control_record};
use crate::format::{BatchSummary, FileBatch};

/// What producer state takes from a batch that carries a producer id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerBatch {
    /// Byte position of the batch.
    pub position: u64,
    /// Byte position just after it.
    pub end: u64,
    /// Producer id.
    pub producer_id: i64,
    /// Producer epoch.
    pub producer_epoch: i16,
    /// First offset.
    pub base_offset: i64,
    /// Last offset.
    pub last_offset: i64,
    /// Sequence of the last record.
    pub last_sequence: i32,
    /// Max timestamp.
    pub max_timestamp: i64,
    /// Transactional bit.
    pub is_transactional: bool,
    /// Control bit.
    pub is_control: bool,
    /// Coordinator epoch, when the batch is a COMMIT or ABORT marker.
    pub end_marker: Option<i32>,
    /// The batch is an ABORT marker.
    pub aborts: bool,
}

impl ProducerBatch {
    /// The producer facts of `batch`, or `None` when it has no producer id
    /// (or is a legacy message, which producer state ignores).
    pub fn of(batch: &FileBatch<'_>, s: &BatchSummary) -> Option<Self> {
        if s.producer_id < 0 || s.magic < 2 {
            return None;
        }
        let marker = s
            .is_control
            .then(|| {
                let mut scratch = Vec::new();
                let decoded = batch.records(&mut scratch, 1 << 20);
                decoded
                    .records
                    .first()
                    .and_then(|r| parse_control_record(r).ok())
                    .filter(|m| matches!(m.control_type, ControlType::Abort | ControlType::Commit))
                    .and_then(|m| {
                        Some((m.coordinator_epoch?, m.control_type == ControlType::Abort))
                    })
            })
            .flatten();
        Some(Self {
            position: s.position,
            end: s.position + s.size,
            producer_id: s.producer_id,
            producer_epoch: s.producer_epoch,
            base_offset: s.base_offset,
            last_offset: s.last_offset,
            last_sequence: s.last_sequence,
            max_timestamp: s.max_timestamp,
            is_transactional: s.is_transactional,
            is_control: s.is_control,
            end_marker: marker.map(|(epoch, _)| epoch),
            aborts: marker.is_some_and(|(_, aborts)| aborts),
        })
    }
}
