//! What survives past the batch where Kafka's recovery stops? Kafka's log
//! loading (`LogLoader`, `LogSegment.recover`) truncates a segment at the
//! first batch that fails its checks and deletes every later segment; its
//! readers (`FileLogInputStream`, `FileRecords`) stop there too. This
//! folder reads a partition either that way (stopping at the first damaged
//! batch) or salvaging: past damage it resynchronizes at the next frame
//! that validates (`format::resync`), and it reports each damaged byte
//! range, the offsets lost in it, what was kept after it, and the segments
//! Kafka would delete.

pub mod cost;
pub mod filter;
pub mod partition;
pub mod read;
pub mod report;

pub use cost::{CostTracker, CutCost};
pub use filter::RecordFilter;
pub use partition::{partition_name, read_partition};
pub use read::{Event, ReadOptions, read_segment};
pub use report::{Damage, KafkaCut, LostOffsets, ReportBuilder, SalvageReport, SegmentSalvage};
