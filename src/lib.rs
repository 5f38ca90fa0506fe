//! kseg: offline inspection and repair of Apache Kafka's on-disk logs.
//!
//! Layers, each using only the ones below it: [`mod@format`] (bytes to values),
//! [`schema`] (internal topics' records decoded by Kafka's message schemas),
//! [`logdir`] (files, segments, partitions), [`inspect`] (Kafka's decisions
//! computed, never applied), [`repair`] (the only code that writes into a
//! partition directory), [`render`] (text and JSON output), and [`fixture`]
//! (a deterministic writer of test partitions).
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
pub mod render;
pub mod repair;
pub mod schema;
