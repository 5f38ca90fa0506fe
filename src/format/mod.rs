//! Kafka's on-disk formats: bytes in, typed values or [`FormatError`] out.
//! No file system access, no printing; every parser works on `&[u8]`.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

pub mod base64;
pub mod batch;
pub mod batches;
pub mod checkpoint;
pub mod codec;
pub mod crc;
pub mod cursor;
pub mod encode;
pub mod error;
pub mod index_search;
pub mod java;
pub mod legacy;
pub mod meta_properties;
pub mod offset_index;
pub mod partition_metadata;
pub mod producer_snapshot;
pub mod properties;
pub mod quorum_state;
pub mod record;
pub mod resync;
pub mod time_index;
pub mod txn_index;

pub use batch::{Compression, RecordBatchHeader, TimestampType};
pub use batches::{
    BatchIter, BatchSummary, DecodedRecords, FileBatch, Frame, SummaryIter, read_frame,
};
pub use error::{FormatError, FormatErrorKind};
pub use record::{ControlRecord, ControlType, Record, RecordHeader};
