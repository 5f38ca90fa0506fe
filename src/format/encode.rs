//! The inverse of the parsers: RecordBatch v2 bytes with correct CRCs, in
//! every codec. Used by the test-fixture writer, tests and fuzz seeds.

use super::crc::crc32c;
use std::io::Write;

use super::batch::{
    ATTR_CONTROL, ATTR_DELETE_HORIZON, ATTR_LOG_APPEND_TIME, ATTR_TRANSACTIONAL, Compression,
    LOG_OVERHEAD, TimestampType, V2_CRC_START,
};

/// A record to encode; its offset is the batch base offset plus its index.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecordSpec {
    /// Timestamp in epoch ms.
    pub timestamp: i64,
    /// Key, `None` for null.
    pub key: Option<Vec<u8>>,
    /// Value, `None` for null.
    pub value: Option<Vec<u8>>,
    /// Headers (key, value).
    pub headers: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

/// A batch to encode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchSpec {
    /// First offset.
    pub base_offset: i64,
    /// Leader epoch written into the header.
    pub partition_leader_epoch: i32,
    /// Codec for the records area.
    pub compression: Compression,
    /// CreateTime or LogAppendTime (then `append_time` is the max timestamp).
    pub timestamp_type: TimestampType,
    /// The broker's append time for LogAppendTime batches.
    pub append_time: i64,
    /// Transactional bit.
    pub transactional: bool,
    /// Control bit.
    pub control: bool,
    /// Producer id (-1 for none).
    pub producer_id: i64,
    /// Producer epoch (-1 for none).
    pub producer_epoch: i16,
    /// Base sequence (-1 for none).
    pub base_sequence: i32,
    /// Delete horizon (stored in baseTimestamp, attribute bit 6).
    pub delete_horizon_ms: Option<i64>,
    /// Records.
    pub records: Vec<RecordSpec>,
}

impl Default for BatchSpec {
    fn default() -> Self {
        Self {
            base_offset: 0,
            partition_leader_epoch: 0,
            compression: Compression::None,
            timestamp_type: TimestampType::CreateTime,
            append_time: -1,
            transactional: false,
            control: false,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            delete_horizon_ms: None,
            records: Vec::new(),
        }
    }
}

fn put_varint(out: &mut Vec<u8>, value: i64) {
    let mut v = ((value << 1) ^ (value >> 63)) as u64;
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_varint_bytes(out: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        None => put_varint(out, -1),
        Some(b) => {
            put_varint(out, b.len() as i64);
            out.extend_from_slice(b);
        }
    }
}

fn encode_record(out: &mut Vec<u8>, record: &RecordSpec, offset_delta: i64, base_timestamp: i64) {
    let mut body = vec![0u8];
    put_varint(&mut body, record.timestamp - base_timestamp);
    put_varint(&mut body, offset_delta);
    put_varint_bytes(&mut body, record.key.as_deref());
    put_varint_bytes(&mut body, record.value.as_deref());
    put_varint(&mut body, record.headers.len() as i64);
    for (key, value) in &record.headers {
        put_varint_bytes(&mut body, Some(key));
        put_varint_bytes(&mut body, value.as_deref());
    }
    put_varint(out, body.len() as i64);
    out.extend_from_slice(&body);
}

/// Compresses `raw` the way Kafka's Java producer frames each codec.
pub fn compress(compression: Compression, raw: &[u8]) -> Vec<u8> {
    match compression {
        Compression::None => raw.to_vec(),
        Compression::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            let _ = enc.write_all(raw);
            enc.finish().unwrap_or_default()
        }
        Compression::Snappy => {
            let mut out = b"\x82SNAPPY\x00\x00\x00\x00\x01\x00\x00\x00\x01".to_vec();
            for chunk in raw.chunks(32 * 1024) {
                let block = snap::raw::Encoder::new()
                    .compress_vec(chunk)
                    .unwrap_or_default();
                out.extend_from_slice(&(block.len() as u32).to_be_bytes());
                out.extend_from_slice(&block);
            }
            out
        }
        Compression::Lz4 => {
            let info = lz4_flex::frame::FrameInfo::new()
                .block_size(lz4_flex::frame::BlockSize::Max64KB)
                .block_mode(lz4_flex::frame::BlockMode::Independent);
            let mut enc = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
            let _ = enc.write_all(raw);
            enc.finish().unwrap_or_default()
        }
        Compression::Zstd => zstd::encode_all(raw, 3).unwrap_or_default(),
    }
}

/// Encodes one RecordBatch v2, CRC included.
pub fn encode_batch(spec: &BatchSpec) -> Vec<u8> {
    let first_ts = spec.records.first().map_or(-1, |r| r.timestamp);
    let base_timestamp = spec.delete_horizon_ms.unwrap_or(first_ts);
    let max_timestamp = match spec.timestamp_type {
        TimestampType::LogAppendTime => spec.append_time,
        _ => spec.records.iter().map(|r| r.timestamp).max().unwrap_or(-1),
    };
    let mut raw = Vec::new();
    for (i, record) in spec.records.iter().enumerate() {
        encode_record(&mut raw, record, i as i64, first_ts);
    }
    let area = compress(spec.compression, &raw);
    let mut attributes = i16::from(spec.compression.id());
    for (on, bit) in [
        (
            spec.timestamp_type == TimestampType::LogAppendTime,
            ATTR_LOG_APPEND_TIME,
        ),
        (spec.transactional, ATTR_TRANSACTIONAL),
        (spec.control, ATTR_CONTROL),
        (spec.delete_horizon_ms.is_some(), ATTR_DELETE_HORIZON),
    ] {
        if on {
            attributes |= bit;
        }
    }
    let mut out = Vec::with_capacity(61 + area.len());
    out.extend_from_slice(&spec.base_offset.to_be_bytes());
    out.extend_from_slice(&((49 + area.len()) as i32).to_be_bytes());
    out.extend_from_slice(&spec.partition_leader_epoch.to_be_bytes());
    out.push(2);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&attributes.to_be_bytes());
    out.extend_from_slice(&(spec.records.len().saturating_sub(1) as i32).to_be_bytes());
    out.extend_from_slice(&base_timestamp.to_be_bytes());
    out.extend_from_slice(&max_timestamp.to_be_bytes());
    out.extend_from_slice(&spec.producer_id.to_be_bytes());
    out.extend_from_slice(&spec.producer_epoch.to_be_bytes());
    out.extend_from_slice(&spec.base_sequence.to_be_bytes());
    out.extend_from_slice(&(spec.records.len() as i32).to_be_bytes());
    out.extend_from_slice(&area);
    let crc = crc32c(out.get(V2_CRC_START..).unwrap_or_default());
    if let Some(slot) = out.get_mut(LOG_OVERHEAD + 5..LOG_OVERHEAD + 9) {
        slot.copy_from_slice(&crc.to_be_bytes());
    }
    out
}

/// The records of an end-transaction marker batch (COMMIT or ABORT).
pub fn end_txn_marker(commit: bool, coordinator_epoch: i32, timestamp: i64) -> RecordSpec {
    let mut value = 0i16.to_be_bytes().to_vec();
    value.extend_from_slice(&coordinator_epoch.to_be_bytes());
    let mut key = 0i16.to_be_bytes().to_vec();
    key.extend_from_slice(&i16::from(commit).to_be_bytes());
    RecordSpec {
        timestamp,
        key: Some(key),
        value: Some(value),
        headers: Vec::new(),
    }
}
