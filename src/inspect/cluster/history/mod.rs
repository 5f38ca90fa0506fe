//! What happened, when: every change the metadata log records, as one
//! event in log order with its offset and its batch's append time
//! (`kseg history`). Built on the metadata replay ([`super::metadata`]):
//! [`recorder::History`] hands each record to the [`Replayer`] and
//! [`mod@derive`] compares the entity the record touches (a partition, a
//! broker, a config…) before and after it went in, so the "previous"
//! values are the image's own. Records inside a metadata transaction wait
//! for its end: a committed one's events come out as usual, an aborted
//! one's marked aborted, and the image they came from is the one before
//! the transaction. Nothing is kept but the image (and the open
//! transaction's events).
//!
//! [`Replayer`]: super::metadata::replay::Replayer

pub mod derive;
pub mod event;
pub mod filter;
pub mod partition_story;
pub mod recorder;

pub use event::{Change, Event, Status};
pub use filter::HistoryFilter;
pub use recorder::History;
