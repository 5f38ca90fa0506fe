//! What a segment's `.index` and `.timeindex` should hold, and whether the
//! files on disk hold it: the rebuild `LogSegment.recover` does (appending
//! an entry every `index.interval.bytes`, as `LogSegment.append` does), the
//! checks `OffsetIndex`/`TimeIndex.sanityCheck` and lookups rely on, and the
//! interval the topic was written with, inferred from the indexes Kafka
//! left.

pub mod build;
pub mod check;
pub mod compare;
pub mod entry_count;
pub mod health;
pub mod interval;
pub mod plan;
