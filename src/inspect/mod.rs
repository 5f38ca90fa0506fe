//! Kafka's decisions computed as plain data: lookups, index checks, index
//! rebuilds, recovery plans and retention verdicts. Nothing here writes.

pub mod batch_audit;
pub mod entry_count;
pub mod index_build;
pub mod index_check;
pub mod index_compare;
pub mod index_health;
pub mod index_interval;
pub mod index_plan;
pub mod locate;
pub mod partition_check;
pub mod producer_batch;
pub mod producer_state;
pub mod recovery;
pub mod retention;
pub mod retention_config;
pub mod retention_report;
pub mod segment_check;
pub mod segment_time;
pub mod snapshot_plan;
pub mod txn_check;
pub mod txn_state;
