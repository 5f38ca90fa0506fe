//! Where Kafka finds an offset or a timestamp, step by step, as its read
//! path does (`LogSegment.translateOffset`, `OffsetIndex.lookup`,
//! `LogSegment.findOffsetByTimestamp`, `TimeIndex.lookup`): the floor
//! segment, the offset-index binary search, the batch-header scan; and the
//! `offsetsForTimes` path by timestamp. Every step keeps the numbers it used, as plain data that
//! `render::locate` prints as text or JSON.

mod bounds;
mod by_offset;
mod by_timestamp;
mod segment;
pub mod segment_time;
mod tiered;

pub use crate::inspect::index::entry_count::EntryCount;
pub use bounds::{SourcedOffset, log_end_offset, log_start_offset};
pub use by_offset::{FoundBatch, OffsetLookup, OffsetVerdict, RecordAt, lookup_offset};
pub use by_timestamp::{TimestampLookup, TimestampSegment, lookup_timestamp};
pub use segment::{
    BatchRef, IndexStep, ScanStep, TimestampAnswer, find_by_timestamp, locate_in_segment,
    next_offset, scan_next_segment, time_index_step,
};
pub use tiered::{
    RemoteFetch, RemoteVerdict, in_neither_tier, leader_epochs, remote_fetch, remote_partition_key,
    tiered_log_start,
};
