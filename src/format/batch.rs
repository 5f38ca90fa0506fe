//! RecordBatch v2 header (61 bytes), attribute bits and CRC-32C, plus the
//! shared vocabulary (compression, timestamp type) of every magic.

use super::crc::crc32c;
use super::cursor::Cursor;
use super::error::{FormatError, FormatErrorKind};

/// Bytes before every log entry's payload: offset (8) + size (4).
pub const LOG_OVERHEAD: usize = 12;
/// Bytes up to and including the magic byte, common to all magics.
pub const HEADER_SIZE_UP_TO_MAGIC: usize = 17;
/// Size of the fixed RecordBatch v2 header.
pub const V2_HEADER_SIZE: usize = 61;
/// Offset of the attributes field, where the v2 CRC starts.
pub const V2_CRC_START: usize = 21;
/// Smallest legal size field of a log entry (Kafka's `RECORD_OVERHEAD_V0`).
pub const MIN_ENTRY_SIZE: i32 = 14;

/// Compression codec of a batch (attribute bits 0-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// No compression.
    None,
    /// gzip (RFC 1952).
    Gzip,
    /// snappy, xerial-framed or raw.
    Snappy,
    /// LZ4 frame.
    Lz4,
    /// Zstandard frame.
    Zstd,
}

impl Compression {
    /// Decodes attribute bits 0-2.
    pub fn from_id(id: u8) -> Result<Self, FormatErrorKind> {
        match id {
            0 => Ok(Self::None),
            1 => Ok(Self::Gzip),
            2 => Ok(Self::Snappy),
            3 => Ok(Self::Lz4),
            4 => Ok(Self::Zstd),
            other => Err(FormatErrorKind::UnknownCompression(other)),
        }
    }

    /// The attribute id of this codec.
    pub fn id(self) -> u8 {
        self as u8
    }

    /// Kafka's lower-case name (`CompressionType.name`).
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Gzip => "gzip",
            Self::Snappy => "snappy",
            Self::Lz4 => "lz4",
            Self::Zstd => "zstd",
        }
    }
}

/// Which clock a batch's timestamps come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampType {
    /// Magic 0: no timestamps at all.
    NoTimestampType,
    /// Producer-supplied timestamps.
    CreateTime,
    /// Broker-assigned append time.
    LogAppendTime,
}

impl TimestampType {
    /// Kafka's enum name, as kafka-dump-log prints it.
    pub fn name(self) -> &'static str {
        match self {
            Self::NoTimestampType => "NoTimestampType",
            Self::CreateTime => "CreateTime",
            Self::LogAppendTime => "LogAppendTime",
        }
    }
}

/// Attribute bit: timestamp type is LogAppendTime.
pub const ATTR_LOG_APPEND_TIME: i16 = 0x08;
/// Attribute bit: transactional batch.
pub const ATTR_TRANSACTIONAL: i16 = 0x10;
/// Attribute bit: control batch.
pub const ATTR_CONTROL: i16 = 0x20;
/// Attribute bit: baseTimestamp holds the delete horizon (KIP-534).
pub const ATTR_DELETE_HORIZON: i16 = 0x40;

/// The 61-byte RecordBatch v2 header, field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordBatchHeader {
    /// @0: first offset of the batch.
    pub base_offset: i64,
    /// @8: bytes after this field; batch size is this plus 12.
    pub batch_length: i32,
    /// @12: leader epoch that appended the batch (not covered by the CRC).
    pub partition_leader_epoch: i32,
    /// @16: format version, 2.
    pub magic: i8,
    /// @17: CRC-32C of bytes 21..end.
    pub crc: u32,
    /// @21: attribute bits (only the low byte is used).
    pub attributes: i16,
    /// @23: lastOffset - baseOffset.
    pub last_offset_delta: i32,
    /// @27: timestamp of the first record, or the delete horizon.
    pub base_timestamp: i64,
    /// @35: largest record timestamp (or the append time).
    pub max_timestamp: i64,
    /// @43: producer id, -1 for none.
    pub producer_id: i64,
    /// @51: producer epoch, -1 for none.
    pub producer_epoch: i16,
    /// @53: sequence of the first record, -1 for none.
    pub base_sequence: i32,
    /// @57: number of records.
    pub records_count: i32,
}

impl RecordBatchHeader {
    /// Parses the header from the start of `batch`, which sits at `position`.
    pub fn parse(batch: &[u8], position: u64) -> Result<Self, FormatError> {
        if batch.len() < V2_HEADER_SIZE {
            return Err(FormatError::new(
                position,
                FormatErrorKind::BatchTooSmall {
                    size: batch.len() as u64,
                    minimum: V2_HEADER_SIZE as u64,
                },
            ));
        }
        let mut c = Cursor::new(batch, position);
        Ok(Self {
            base_offset: c.read_i64()?,
            batch_length: c.read_i32()?,
            partition_leader_epoch: c.read_i32()?,
            magic: c.read_i8()?,
            crc: c.read_u32()?,
            attributes: c.read_i16()?,
            last_offset_delta: c.read_i32()?,
            base_timestamp: c.read_i64()?,
            max_timestamp: c.read_i64()?,
            producer_id: c.read_i64()?,
            producer_epoch: c.read_i16()?,
            base_sequence: c.read_i32()?,
            records_count: c.read_i32()?,
        })
    }

    /// Kafka reads only the low byte of the attributes.
    fn attr(&self) -> i16 {
        self.attributes & 0xff
    }

    /// The codec named by attribute bits 0-2.
    pub fn compression(&self) -> Result<Compression, FormatErrorKind> {
        Compression::from_id((self.attr() & 0x07) as u8)
    }

    /// CreateTime or LogAppendTime (bit 3).
    pub fn timestamp_type(&self) -> TimestampType {
        if self.attr() & ATTR_LOG_APPEND_TIME != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    /// Bit 4.
    pub fn is_transactional(&self) -> bool {
        self.attr() & ATTR_TRANSACTIONAL != 0
    }

    /// Bit 5.
    pub fn is_control(&self) -> bool {
        self.attr() & ATTR_CONTROL != 0
    }

    /// Bit 6: the delete horizon, which is then stored in baseTimestamp.
    pub fn delete_horizon_ms(&self) -> Option<i64> {
        (self.attr() & ATTR_DELETE_HORIZON != 0).then_some(self.base_timestamp)
    }

    /// baseOffset + lastOffsetDelta.
    pub fn last_offset(&self) -> i64 {
        self.base_offset
            .wrapping_add(i64::from(self.last_offset_delta))
    }

    /// Sequence of the last record, wrapping past i32::MAX as Kafka does.
    pub fn last_sequence(&self) -> i32 {
        if self.base_sequence == -1 {
            -1
        } else {
            increment_sequence(self.base_sequence, self.last_offset_delta)
        }
    }
}

/// Kafka's `DefaultRecordBatch.incrementSequence`: wraps to 0 after
/// i32::MAX. Java int arithmetic wraps, so garbage deltas wrap here too.
pub fn increment_sequence(sequence: i32, increment: i32) -> i32 {
    if sequence > i32::MAX.wrapping_sub(increment) {
        increment
            .wrapping_sub(i32::MAX.wrapping_sub(sequence))
            .wrapping_sub(1)
    } else {
        sequence.wrapping_add(increment)
    }
}

/// Kafka's `DefaultRecordBatch.decrementSequence`.
pub fn decrement_sequence(sequence: i32, decrement: i32) -> i32 {
    if sequence < decrement {
        i32::MAX
            .wrapping_sub(decrement.wrapping_sub(sequence))
            .wrapping_add(1)
    } else {
        sequence.wrapping_sub(decrement)
    }
}

/// CRC-32C of a whole v2 batch's bytes from the attributes to the end.
pub fn compute_v2_crc(batch: &[u8]) -> u32 {
    crc32c(batch.get(V2_CRC_START..).unwrap_or_default())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn sequence_arithmetic_wraps_like_kafka() {
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(increment_sequence(5, 3), 8);
        assert_eq!(decrement_sequence(0, 1), i32::MAX);
        assert_eq!(decrement_sequence(10, 3), 7);
    }

    #[test]
    fn rejects_a_header_shorter_than_61_bytes() {
        let err = RecordBatchHeader::parse(&[0u8; 60], 7).unwrap_err();
        assert_eq!(err.offset, 7);
        assert!(matches!(
            err.kind,
            FormatErrorKind::BatchTooSmall { size: 60, .. }
        ));
    }
}
