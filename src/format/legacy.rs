//! Legacy message sets, magic 0 and 1: one message per log entry, CRC32 over
//! the message, and compressed "wrapper" messages whose value holds an inner
//! message set (with relative inner offsets in magic 1). Read-only.

use super::batch::{Compression, LOG_OVERHEAD, TimestampType};
use super::cursor::Cursor;
use super::error::{FormatError, FormatErrorKind};
use super::record::{LegacyMessageInfo, Record};

/// Offset of the magic byte within a message (after its 4-byte CRC).
const MESSAGE_CRC_LEN: usize = 4;

/// One legacy message with its log-entry framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyMessage<'a> {
    /// Entry offset: the message's offset, or the last inner offset of a wrapper.
    pub offset: i64,
    /// Whole entry size: 12 + the size field.
    pub entry_size: u64,
    /// Stored CRC32 of the message.
    pub crc: u32,
    /// 0 or 1.
    pub magic: i8,
    /// Attribute byte (codec in bits 0-2, timestamp type in bit 3 for v1).
    pub attributes: i8,
    /// v1 timestamp; -1 for magic 0.
    pub timestamp: i64,
    /// Key, `None` for null.
    pub key: Option<&'a [u8]>,
    /// Value (the compressed inner set for a wrapper), `None` for null.
    pub value: Option<&'a [u8]>,
    /// Whether the stored CRC matches CRC32 of the message bytes.
    pub is_valid: bool,
}

impl<'a> LegacyMessage<'a> {
    /// The codec named by attribute bits 0-2.
    pub fn compression(&self) -> Result<Compression, FormatErrorKind> {
        Compression::from_id((self.attributes & 0x07) as u8)
    }

    /// NoTimestampType for magic 0, else CreateTime or LogAppendTime.
    pub fn timestamp_type(&self) -> TimestampType {
        match (self.magic, self.attributes & 0x08 != 0) {
            (0, _) => TimestampType::NoTimestampType,
            (_, true) => TimestampType::LogAppendTime,
            (_, false) => TimestampType::CreateTime,
        }
    }

    fn info(&self) -> LegacyMessageInfo {
        LegacyMessageInfo {
            crc: self.crc,
            is_valid: self.is_valid,
        }
    }

    /// This message seen as a record (an uncompressed entry is its own record).
    pub fn as_record(&self) -> Record<'a> {
        Record {
            offset: self.offset,
            timestamp: self.timestamp,
            size_in_bytes: self.entry_size as u32,
            key: self.key,
            value: self.value,
            headers: Vec::new(),
            sequence: -1,
            legacy: Some(self.info()),
        }
    }
}

/// Parses the log entry (offset, size, message) that starts `entry`.
pub fn parse_legacy_entry(entry: &[u8], position: u64) -> Result<LegacyMessage<'_>, FormatError> {
    let mut c = Cursor::new(entry, position);
    let offset = c.read_i64()?;
    let size = c.read_i32()?;
    let message = c.read_bytes(size.max(0) as usize)?;
    let message_start = position + LOG_OVERHEAD as u64;
    let mut m = Cursor::new(message, message_start);
    let crc = m.read_u32()?;
    let magic = m.read_i8()?;
    if !(0..=1).contains(&magic) {
        return Err(FormatError::new(
            message_start + 4,
            FormatErrorKind::UnknownMagic(magic),
        ));
    }
    let attributes = m.read_i8()?;
    let timestamp = if magic == 1 { m.read_i64()? } else { -1 };
    let key = read_i32_bytes(&mut m, "key")?;
    let value = read_i32_bytes(&mut m, "value")?;
    let computed = crc32fast::hash(message.get(MESSAGE_CRC_LEN..).unwrap_or_default());
    Ok(LegacyMessage {
        offset,
        entry_size: LOG_OVERHEAD as u64 + size.max(0) as u64,
        crc,
        magic,
        attributes,
        timestamp,
        key,
        value,
        is_valid: crc == computed,
    })
}

fn read_i32_bytes<'a>(
    c: &mut Cursor<'a>,
    what: &'static str,
) -> Result<Option<&'a [u8]>, FormatError> {
    let at = c.position();
    let len = c.read_i32()?;
    c.read_sized(at, i64::from(len), what)
}

/// Decodes the inner message set of a compressed wrapper, already
/// decompressed into `inner`, into records with absolute offsets.
pub fn parse_legacy_inner<'a>(
    wrapper: &LegacyMessage<'_>,
    inner: &'a [u8],
    position: u64,
) -> (Vec<Record<'a>>, Option<FormatError>) {
    let mut messages = Vec::new();
    let mut rest = inner;
    let mut error = None;
    while !rest.is_empty() {
        match parse_legacy_entry(rest, position) {
            Ok(message) if message.compression() != Ok(Compression::None) => {
                error = Some(FormatError::new(
                    position,
                    FormatErrorKind::Invalid("inner messages must not be compressed"),
                ));
                break;
            }
            Ok(message) => {
                rest = rest.get(message.entry_size as usize..).unwrap_or_default();
                messages.push(message);
            }
            Err(err) => {
                error = Some(FormatError::new(position, err.kind));
                break;
            }
        }
    }
    let last_inner = messages.last().map_or(0, |m| m.offset);
    let base = match wrapper.magic {
        1 if wrapper.offset != 0 => {
            if wrapper.offset < last_inner {
                return (
                    Vec::new(),
                    Some(FormatError::new(
                        position,
                        FormatErrorKind::Invalid(
                            "wrapper offset is less than the last inner offset",
                        ),
                    )),
                );
            }
            wrapper.offset.wrapping_sub(last_inner)
        }
        _ => 0,
    };
    let append_time = wrapper.timestamp_type() == TimestampType::LogAppendTime;
    let records = messages
        .iter()
        .map(|m| {
            let mut record = m.as_record();
            record.offset = base.wrapping_add(m.offset);
            if m.magic == 1 && append_time {
                record.timestamp = wrapper.timestamp;
            }
            record
        })
        .collect();
    if messages.is_empty() && error.is_none() {
        error = Some(FormatError::new(
            position,
            FormatErrorKind::Invalid("compressed message set has no inner records"),
        ));
    }
    (records, error)
}
