//! The `.txnindex` file: 34-byte entries, one per aborted transaction.

use super::cursor::Cursor;
use super::error::FormatError;

/// Size of one aborted-transaction entry.
pub const TXN_INDEX_ENTRY_SIZE: usize = 34;

/// One aborted transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTxn {
    /// Entry version; Kafka reads only the first byte of the int16.
    pub version: i8,
    /// Producer id.
    pub producer_id: i64,
    /// First offset of the transaction.
    pub first_offset: i64,
    /// Offset of the ABORT marker.
    pub last_offset: i64,
    /// Last stable offset when the abort was written.
    pub last_stable_offset: i64,
}

/// Parses all whole entries; a trailing partial entry is ignored, as Kafka does.
pub fn parse_txn_index(data: &[u8]) -> Result<Vec<AbortedTxn>, FormatError> {
    data.chunks_exact(TXN_INDEX_ENTRY_SIZE)
        .enumerate()
        .map(|(i, chunk)| {
            let mut c = Cursor::new(chunk, (i * TXN_INDEX_ENTRY_SIZE) as u64);
            let version = c.read_i8()?;
            c.read_i8()?;
            Ok(AbortedTxn {
                version,
                producer_id: c.read_i64()?,
                first_offset: c.read_i64()?,
                last_offset: c.read_i64()?,
                last_stable_offset: c.read_i64()?,
            })
        })
        .collect()
}

/// Encodes entries as Kafka writes them (version 0).
pub fn encode_txn_index(entries: &[AbortedTxn]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * TXN_INDEX_ENTRY_SIZE);
    for e in entries {
        out.extend_from_slice(&i16::from(e.version).to_be_bytes());
        for v in [
            e.producer_id,
            e.first_offset,
            e.last_offset,
            e.last_stable_offset,
        ] {
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
    out
}
