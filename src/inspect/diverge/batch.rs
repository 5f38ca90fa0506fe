//! One batch of a replica's log, as its header tells it: the facts the
//! truncation, the common-prefix check and the lost-records count use.

use serde::Serialize;

/// One batch of a replica's log, from its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaBatch {
    /// Base offset of the segment holding it.
    pub segment: i64,
    /// Byte position in that segment.
    pub position: u64,
    /// Size in bytes.
    pub size: u64,
    /// First offset.
    pub base_offset: i64,
    /// Last offset.
    pub last_offset: i64,
    /// Records (header count; 1 for a legacy entry).
    pub records: u64,
    /// Stored CRC.
    pub crc: u32,
    /// Magic byte.
    pub magic: i8,
    /// Leader epoch that appended it.
    pub partition_leader_epoch: i32,
    /// Producer id (-1 for none).
    pub producer_id: i64,
    /// Transactional bit.
    pub is_transactional: bool,
    /// Control bit.
    pub is_control: bool,
    /// First record's timestamp (-1 when unknown).
    pub first_timestamp: i64,
    /// Max timestamp.
    pub max_timestamp: i64,
}
