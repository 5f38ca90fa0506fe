//! Kafka's internal topics decoded from Kafka's own message schemas: the
//! schema files under `schemas/` are embedded and parsed once, and one
//! decoder walks any of them against a record's bytes, producing the JSON
//! Kafka's generated converters write. The topics' framings (record type
//! and version prefixes, metadata frames, control records) sit on top.
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

pub mod consumer_protocol;
pub mod control;
pub mod decode;
pub mod emit;
pub mod registry;
pub mod releases;
pub mod spec;
pub mod topics;
pub mod tree;

pub use control::{decode_control, decode_in_batch, decode_in_batch_text};
pub use decode::DecodeError;
pub use topics::{
    Decoded, DecodedRecord, InternalTopic, decode_record, decode_record_str, decode_record_text,
    newer_than_known,
};
