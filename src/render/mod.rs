//! Presentation only: kafka-dump-log text lines, NDJSON and tables, written
//! to a writer the caller hands in.

pub mod bytes;
pub mod decoded;
pub mod dump;
pub mod index_rebuild;
pub mod locate;
pub mod recovery;
pub mod retention;
pub mod time;

pub use bytes::ByteEncoding;
pub use dump::DumpPrinter;

/// How a command's results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// Human-readable lines (kafka-dump-log's format for `dump`).
    Text,
    /// Newline-delimited JSON objects with a `"type"` field.
    Json,
}

impl OutputFormat {
    /// JSON when a command's `--json` is set, text otherwise.
    pub fn json_if(json: bool) -> Self {
        if json { Self::Json } else { Self::Text }
    }
}
