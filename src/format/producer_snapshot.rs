//! Producer-state `.snapshot` files: version 1, CRC-32C, 46-byte entries.

use super::batch::decrement_sequence;
use super::crc::crc32c;
use super::cursor::Cursor;
use super::error::{FormatError, FormatErrorKind};

const ENTRY_SIZE: usize = 46;
const CRC_START: usize = 6;

/// One producer's state at the snapshot offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerEntry {
    /// Producer id.
    pub producer_id: i64,
    /// Producer epoch.
    pub producer_epoch: i16,
    /// Sequence of the producer's last batch's last record.
    pub last_sequence: i32,
    /// Last offset of that batch, -1 when none.
    pub last_offset: i64,
    /// lastOffset - baseOffset of that batch.
    pub offset_delta: i32,
    /// Max timestamp of that batch.
    pub timestamp: i64,
    /// Coordinator epoch of the last marker.
    pub coordinator_epoch: i32,
    /// First offset of the open transaction, -1 for none.
    pub current_txn_first_offset: i64,
}

impl ProducerEntry {
    /// Sequence of the first record of the last batch.
    pub fn first_sequence(&self) -> i32 {
        decrement_sequence(self.last_sequence, self.offset_delta)
    }

    /// First offset of the last batch.
    pub fn first_offset(&self) -> i64 {
        self.last_offset.wrapping_sub(i64::from(self.offset_delta))
    }

    /// Whether the entry carries batch metadata (Kafka omits it when lastOffset < 0).
    pub fn has_batch(&self) -> bool {
        self.last_offset >= 0
    }
}

/// A parsed snapshot file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerSnapshot {
    /// Stored CRC-32C.
    pub crc: u32,
    /// Producer entries in file order.
    pub entries: Vec<ProducerEntry>,
}

/// Parses a snapshot, checking version and CRC as Kafka does.
pub fn parse_producer_snapshot(data: &[u8]) -> Result<ProducerSnapshot, FormatError> {
    let mut c = Cursor::new(data, 0);
    let version = c.read_i16()?;
    if version != 1 {
        return Err(FormatError::new(
            0,
            FormatErrorKind::UnsupportedVersion(i64::from(version)),
        ));
    }
    let crc = c.read_u32()?;
    let computed = crc32c(data.get(CRC_START..).unwrap_or_default());
    if crc != computed {
        return Err(FormatError::new(
            2,
            FormatErrorKind::CrcMismatch {
                stored: crc,
                computed,
            },
        ));
    }
    let count = c.read_i32()?;
    if count < 0 || count as usize > c.remaining() / ENTRY_SIZE {
        return Err(c.error(FormatErrorKind::InvalidLength {
            what: "producer entry count",
            len: i64::from(count),
        }));
    }
    let entries = (0..count)
        .map(|_| read_entry(&mut c))
        .collect::<Result<Vec<_>, _>>()?;
    if c.remaining() != 0 {
        return Err(c.error(FormatErrorKind::Invalid(
            "bytes left after the producer entries",
        )));
    }
    Ok(ProducerSnapshot { crc, entries })
}

fn read_entry(c: &mut Cursor<'_>) -> Result<ProducerEntry, FormatError> {
    Ok(ProducerEntry {
        producer_id: c.read_i64()?,
        producer_epoch: c.read_i16()?,
        last_sequence: c.read_i32()?,
        last_offset: c.read_i64()?,
        offset_delta: c.read_i32()?,
        timestamp: c.read_i64()?,
        coordinator_epoch: c.read_i32()?,
        current_txn_first_offset: c.read_i64()?,
    })
}

/// Encodes a snapshot as Kafka writes it.
pub fn encode_producer_snapshot(entries: &[ProducerEntry]) -> Vec<u8> {
    let mut body = Vec::with_capacity(4 + entries.len() * ENTRY_SIZE);
    body.extend_from_slice(&(entries.len() as i32).to_be_bytes());
    for e in entries {
        body.extend_from_slice(&e.producer_id.to_be_bytes());
        body.extend_from_slice(&e.producer_epoch.to_be_bytes());
        body.extend_from_slice(&e.last_sequence.to_be_bytes());
        body.extend_from_slice(&e.last_offset.to_be_bytes());
        body.extend_from_slice(&e.offset_delta.to_be_bytes());
        body.extend_from_slice(&e.timestamp.to_be_bytes());
        body.extend_from_slice(&e.coordinator_epoch.to_be_bytes());
        body.extend_from_slice(&e.current_txn_first_offset.to_be_bytes());
    }
    let mut out = Vec::with_capacity(6 + body.len());
    out.extend_from_slice(&1i16.to_be_bytes());
    out.extend_from_slice(&crc32c(&body).to_be_bytes());
    out.extend_from_slice(&body);
    out
}
