//! What each replica of a partition truncates when it follows the leader,
//! and exactly which records that loses: after an unclean leader election,
//! or when brokers come back from a crash in the wrong order, the followers
//! cut their logs to match the new leader, and Kafka logs only the offset.
//!
//! Mirrors `LeaderEpochFileCache` (the epoch cache, `assign`,
//! `endOffsetFor`, `truncateFromEnd`/`truncateFromStart`) and
//! `AbstractFetcherThread` (`truncateToEpochEndOffsets`,
//! `getOffsetTruncationState`, KIP-279's repeated request), with each
//! replica's log taken as `LogLoader` leaves it (see [`crate::inspect::recovery`]).
//! Beyond Kafka: the check that the kept prefix really is common, and the
//! lost records split by the high watermark. Nothing here writes.

pub mod analysis;
pub mod batch;
pub mod epoch_cache;
pub mod epoch_source;
pub mod lost;
pub mod prefix;
pub mod replica;
pub mod truncation;

pub use analysis::{DivergeError, DivergeReport, FollowerReport, analyze};
pub use batch::ReplicaBatch;
pub use replica::{Replica, load_replica};
