//! Where a remote segment's `.log` lies in the object layouts of the two
//! open-source remote storage managers, from its metadata alone: Kafka's
//! `LocalTieredStorage` (`<topic>-<partition>-<topicId>/<startOffset>-<segmentId>.log`
//! under its storage directory) and Aiven's tiered storage for Apache Kafka
//! (`<prefix><topic>-<topicId>/<partition>/<startOffset, 20 digits>-<segmentId>.log`;
//! a segment's custom metadata may name another key, which these do not read).

/// A segment's `.log` key in `LocalTieredStorage`'s layout.
pub fn local_tiered_storage(
    topic: &str,
    partition: i32,
    topic_id: &str,
    start: i64,
    segment: &str,
) -> String {
    format!("{topic}-{partition}-{topic_id}/{start}-{segment}.log")
}

/// A segment's `.log` key in Aiven's layout, under `prefix`.
pub fn aiven(
    prefix: &str,
    topic: &str,
    partition: i32,
    topic_id: &str,
    start: i64,
    segment: &str,
) -> String {
    format!("{prefix}{topic}-{topic_id}/{partition}/{start:020}-{segment}.log")
}
