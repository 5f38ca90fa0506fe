//! When retention deletes each segment and why it does not
//! (`UnifiedLog.deleteOldSegments` and its three rules, the active segment's
//! roll, `LogConfig`'s defaults), the cleaner's view of a compacted
//! topic, and the metadata log's own rule: deletion below snapshots
//! (`KafkaMetadataLog.maybeClean`).

pub mod config;
pub mod metadata_log;
pub mod remote_pass;
pub mod report;
pub mod rules;
pub mod settings;
pub mod tiered;
