//! Records inside a batch: the v2 record layout (varints, headers) and the
//! control records that mark transaction ends.

use super::batch::{RecordBatchHeader, TimestampType, increment_sequence};
use super::cursor::Cursor;
use super::error::{FormatError, FormatErrorKind};

/// One record header: a UTF-8 key and an optional value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordHeader<'a> {
    /// Header key bytes (UTF-8 by contract).
    pub key: &'a [u8],
    /// Header value, `None` for null.
    pub value: Option<&'a [u8]>,
}

/// Legacy (magic 0/1) message facts that v2 records do not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyMessageInfo {
    /// Stored CRC32 of the message.
    pub crc: u32,
    /// Whether the stored CRC matches.
    pub is_valid: bool,
}

/// A decoded record of any magic, borrowing key, value and headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    /// Absolute offset.
    pub offset: i64,
    /// Timestamp (the batch's append time for LogAppendTime batches).
    pub timestamp: i64,
    /// Bytes the record occupies (v2: length varint + body; legacy: whole entry).
    pub size_in_bytes: u32,
    /// Key, `None` for null.
    pub key: Option<&'a [u8]>,
    /// Value, `None` for null (a tombstone).
    pub value: Option<&'a [u8]>,
    /// Headers in order (always empty before magic 2).
    pub headers: Vec<RecordHeader<'a>>,
    /// Producer sequence of this record, -1 when there is none.
    pub sequence: i32,
    /// Present for magic 0/1 messages.
    pub legacy: Option<LegacyMessageInfo>,
}

/// Decodes `count` v2 records from `data` (the raw or decompressed records
/// area). Returns the records decoded before any error, and the error.
pub fn parse_v2_records<'a>(
    header: &RecordBatchHeader,
    data: &'a [u8],
    base: u64,
) -> (Vec<Record<'a>>, Option<FormatError>) {
    let mut c = Cursor::new(data, base);
    let count = header.records_count;
    if count < 0 {
        return (
            Vec::new(),
            Some(c.error(FormatErrorKind::InvalidRecordCount(count))),
        );
    }
    let mut records = Vec::with_capacity((count as usize).min(data.len() / 7 + 1));
    for _ in 0..count {
        match parse_v2_record(header, &mut c) {
            Ok(record) => records.push(record),
            Err(err) => return (records, Some(err)),
        }
    }
    let leftover =
        (c.remaining() > 0).then(|| c.error(FormatErrorKind::RecordsRemaining { count }));
    (records, leftover)
}

fn parse_v2_record<'a>(
    header: &RecordBatchHeader,
    c: &mut Cursor<'a>,
) -> Result<Record<'a>, FormatError> {
    let start = c.position();
    let length = c.read_varint()?;
    if length < 0 {
        return Err(FormatError::new(
            start,
            FormatErrorKind::InvalidLength {
                what: "record",
                len: i64::from(length),
            },
        ));
    }
    let body_start = c.position();
    let body = c.read_bytes(length as usize)?;
    let mut b = Cursor::new(body, body_start);
    let _attributes = b.read_i8()?;
    let timestamp_delta = b.read_varlong()?;
    let offset_delta = b.read_varint()?;
    let key = b.read_varint_bytes("key")?;
    let value = b.read_varint_bytes("value")?;
    let header_count = b.read_varint()?;
    if header_count < 0 || header_count as usize > b.remaining() {
        return Err(b.error(FormatErrorKind::InvalidLength {
            what: "header count",
            len: i64::from(header_count),
        }));
    }
    let mut headers = Vec::with_capacity(header_count as usize);
    for _ in 0..header_count {
        let key = b.read_varint_bytes("header key")?.ok_or_else(|| {
            b.error(FormatErrorKind::InvalidLength {
                what: "header key",
                len: -1,
            })
        })?;
        let value = b.read_varint_bytes("header value")?;
        headers.push(RecordHeader { key, value });
    }
    if b.remaining() != 0 {
        return Err(FormatError::new(
            start,
            FormatErrorKind::RecordSizeMismatch {
                declared: i64::from(length),
                used: i64::from(length) - b.remaining() as i64,
            },
        ));
    }
    let timestamp = match header.timestamp_type() {
        TimestampType::LogAppendTime => header.max_timestamp,
        _ => header.base_timestamp.wrapping_add(timestamp_delta),
    };
    let sequence = if header.base_sequence >= 0 {
        increment_sequence(header.base_sequence, offset_delta)
    } else {
        -1
    };
    Ok(Record {
        offset: header.base_offset.wrapping_add(i64::from(offset_delta)),
        timestamp,
        size_in_bytes: (c.position() - start) as u32,
        key,
        value,
        headers,
        sequence,
        legacy: None,
    })
}

/// Type of a control record, from its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlType {
    /// Transaction aborted (0).
    Abort,
    /// Transaction committed (1).
    Commit,
    /// KRaft leader change (2).
    LeaderChange,
    /// KRaft snapshot header (3).
    SnapshotHeader,
    /// KRaft snapshot footer (4).
    SnapshotFooter,
    /// KRaft version (5).
    KraftVersion,
    /// KRaft voters (6).
    KraftVoters,
    /// Any other type id.
    Unknown(i16),
}

impl ControlType {
    /// Maps a type id to its type.
    pub fn from_id(id: i16) -> Self {
        match id {
            0 => Self::Abort,
            1 => Self::Commit,
            2 => Self::LeaderChange,
            3 => Self::SnapshotHeader,
            4 => Self::SnapshotFooter,
            5 => Self::KraftVersion,
            6 => Self::KraftVoters,
            other => Self::Unknown(other),
        }
    }

    /// Kafka's enum name (`UNKNOWN` for unknown ids).
    pub fn name(self) -> &'static str {
        match self {
            Self::Abort => "ABORT",
            Self::Commit => "COMMIT",
            Self::LeaderChange => "LEADER_CHANGE",
            Self::SnapshotHeader => "SNAPSHOT_HEADER",
            Self::SnapshotFooter => "SNAPSHOT_FOOTER",
            Self::KraftVersion => "KRAFT_VERSION",
            Self::KraftVoters => "KRAFT_VOTERS",
            Self::Unknown(_) => "UNKNOWN",
        }
    }

    /// The numeric id (Kafka prints it for non-marker control records).
    pub fn id(self) -> i16 {
        match self {
            Self::Abort => 0,
            Self::Commit => 1,
            Self::LeaderChange => 2,
            Self::SnapshotHeader => 3,
            Self::SnapshotFooter => 4,
            Self::KraftVersion => 5,
            Self::KraftVoters => 6,
            Self::Unknown(id) => id,
        }
    }
}

/// A decoded control record: its type and, for COMMIT/ABORT, the
/// coordinator epoch of the end-transaction marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlRecord {
    /// What the record marks.
    pub control_type: ControlType,
    /// Coordinator epoch of a COMMIT/ABORT marker.
    pub coordinator_epoch: Option<i32>,
}

/// Parses a control record from its key (version i16, type i16) and value.
pub fn parse_control_record(record: &Record<'_>) -> Result<ControlRecord, FormatError> {
    let offset = record.offset.max(0) as u64;
    let mut key = Cursor::new(record.key.unwrap_or_default(), 0);
    let err = |reason| FormatError::new(offset, FormatErrorKind::Invalid(reason));
    let version = key
        .read_i16()
        .map_err(|_| err("control record key shorter than 4 bytes"))?;
    if version < 0 {
        return Err(err("negative control record key version"));
    }
    let control_type = ControlType::from_id(
        key.read_i16()
            .map_err(|_| err("control record key shorter than 4 bytes"))?,
    );
    let coordinator_epoch = match control_type {
        ControlType::Abort | ControlType::Commit => {
            let mut value = Cursor::new(record.value.unwrap_or_default(), 0);
            let version = value
                .read_i16()
                .map_err(|_| err("end transaction marker shorter than 6 bytes"))?;
            if version < 0 {
                return Err(err("negative end transaction marker version"));
            }
            Some(
                value
                    .read_i32()
                    .map_err(|_| err("end transaction marker shorter than 6 bytes"))?,
            )
        }
        _ => None,
    };
    Ok(ControlRecord {
        control_type,
        coordinator_epoch,
    })
}
