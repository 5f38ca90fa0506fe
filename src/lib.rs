//! kseg: offline inspection and repair of Apache Kafka's on-disk logs.
//!
//! Layers, each using only the ones below it: [`mod@format`] (bytes to values),
//! [`schema`] (internal topics' records decoded by Kafka's message schemas),
//! [`logdir`] (files, segments, partitions), [`inspect`] (Kafka's decisions
//! computed, never applied), [`repair`] (the only code that writes into a
//! partition directory), [`render`] (text and JSON output), and [`fixture`]
//! (a deterministic writer of test partitions).
//!
//! Where things live. Anything that turns bytes into typed values, with no
//! file system access, sits in [`mod@format`], or beside it in [`schema`]:
//! Kafka's message schemas (the internal topics' keys and values, metadata
//! records, KRaft control records) and the decoder driven by them. Every question
//! kseg answers about those values is a folder of [`inspect`]: where an
//! offset is, what the indexes should hold, what recovery and retention do,
//! and, as internal topics are read, the state materialized from them
//! (consumer groups and offsets, transactions, the metadata image). No
//! module imports one that imports it back; a test checks it.
#![deny(
    missing_docs,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::dbg_macro
)]

pub mod fixture;
pub mod format;
pub mod inspect;
pub mod logdir;
pub mod objstore;
pub mod render;
pub mod repair;
pub mod schema;
