//! Presentation only: kafka-dump-log text lines, NDJSON and tables, written
//! to a writer the caller hands in.

pub mod bytes;
pub mod config;
pub mod decoded;
pub mod dir_form;
pub mod diverge;
pub mod dump;
pub mod dump_index;
pub mod export;
pub mod export_parquet;
pub mod export_sink;
pub mod groups;
pub mod history;
pub mod index_rebuild;
pub mod locate;
pub mod locate_tiered;
pub mod metadata;
pub mod output_format;
pub mod quorum;
pub mod recovery;
pub mod remote;
pub mod remote_check;
pub mod report;
pub mod retention;
pub mod salvage;
pub mod share_state;
pub mod table;
pub mod text_line;
pub mod time;
pub mod transactions;

pub use bytes::ByteEncoding;
pub use dump::DumpPrinter;
pub use output_format::OutputFormat;
