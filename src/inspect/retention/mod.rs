//! When retention deletes each segment and why it does not
//! (`UnifiedLog.deleteOldSegments` and its three rules, the active segment's
//! roll, `LogConfig`'s defaults), and the cleaner's view of a compacted
//! topic.

pub mod config;
pub mod report;
pub mod rules;
