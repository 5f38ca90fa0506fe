//! Whether every coordinator partition was read. A transactional id lives
//! in `__transaction_state` partition abs(hashCode(id)) % N
//! (`TransactionStateManager.partitionFor`,
//! core/src/main/scala/kafka/coordinator/transaction/TransactionStateManager.scala:416),
//! which no producer id tells, so "no id has this producer" holds only
//! when all N partitions were read. N is the `__transaction_state` topic's
//! partition count in the log dir's metadata image, else
//! `transaction.state.log.num.partitions`'s default, 50
//! (transaction-coordinator/src/main/java/org/apache/kafka/coordinator/transaction/TransactionLogConfig.java:32).

use std::path::{Path, PathBuf};

use super::coordinator::CoordinatorTxns;
use crate::inspect::cluster::metadata::image::MetadataImage;
use crate::inspect::cluster::metadata::load::{find_metadata_partition, load_image};
use crate::schema::InternalTopic;

/// `transaction.state.log.num.partitions`' default.
pub const DEFAULT_TRANSACTION_PARTITIONS: i32 = 50;

/// How many `__transaction_state` partitions there are, and how kseg knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionCount {
    /// N.
    pub count: i32,
    /// Where N came from, in words.
    pub source: String,
    /// What building the metadata image N came from met (a damaged
    /// snapshot skipped for an older one, a log that stops early).
    pub warnings: Vec<String>,
}

impl PartitionCount {
    /// N from the first of `log_dirs` holding `__cluster_metadata-0` whose
    /// image has the topic, else the default (the source says why), with
    /// the warnings of every image read on the way.
    pub fn find(log_dirs: &[PathBuf]) -> Self {
        let topic = InternalTopic::TransactionState.topic_name();
        let mut why = "no __cluster_metadata-0 in the log dir".to_string();
        let mut warnings = Vec::new();
        for dir in log_dirs {
            if find_metadata_partition(dir).is_none() {
                continue;
            }
            match load_image(dir, None) {
                Ok(loaded) => {
                    warnings.extend(loaded.warnings);
                    if let Some(found) = Self::of_image(&loaded.replayed.image, dir) {
                        return Self { warnings, ..found };
                    }
                    why = format!(
                        "the metadata image in {} has no {topic} topic",
                        dir.display()
                    );
                }
                Err(e) => why = format!("the metadata image did not load ({e})"),
            }
        }
        Self {
            warnings,
            ..Self::default_because(&why)
        }
    }

    /// N as the metadata image of `log_dir` has it, if it has the topic.
    pub fn of_image(image: &MetadataImage, log_dir: &Path) -> Option<Self> {
        let t = image
            .topics
            .by_name(InternalTopic::TransactionState.topic_name())?;
        Some(Self {
            count: i32::try_from(t.partitions.len()).unwrap_or(i32::MAX),
            source: format!("the metadata image in {}", log_dir.display()),
            warnings: Vec::new(),
        })
    }

    /// N as given on the command line.
    pub fn given(count: i32) -> Self {
        Self {
            count,
            source: "--transaction-partitions".into(),
            warnings: Vec::new(),
        }
    }

    /// The default count, with the reason it is used.
    pub fn default_because(why: &str) -> Self {
        Self {
            count: DEFAULT_TRANSACTION_PARTITIONS,
            source: format!("transaction.state.log.num.partitions' default, as {why}"),
            warnings: Vec::new(),
        }
    }
}

/// How much of the coordinator's state was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Coverage {
    /// Every partition 0..N-1.
    Complete,
    /// Only `read` of `count`.
    Partial {
        /// Partitions of 0..N-1 read.
        read: usize,
        /// N.
        count: i32,
    },
}

impl Coverage {
    /// What `coordinator` read, against `count`.
    pub fn of(coordinator: &CoordinatorTxns, count: &PartitionCount) -> Self {
        let read = (0..count.count)
            .filter(|n| coordinator.read.contains_key(n))
            .count();
        if i32::try_from(read).is_ok_and(|r| r == count.count) {
            Self::Complete
        } else {
            Self::Partial {
                read,
                count: count.count,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_only_when_every_partition_is_read() {
        let mut c = CoordinatorTxns::default();
        let two = PartitionCount::given(2);
        c.read.insert(0, "a".into());
        assert_eq!(
            Coverage::of(&c, &two),
            Coverage::Partial { read: 1, count: 2 }
        );
        c.read.insert(5, "x".into());
        assert_eq!(
            Coverage::of(&c, &two),
            Coverage::Partial { read: 1, count: 2 }
        );
        c.read.insert(1, "b".into());
        assert_eq!(Coverage::of(&c, &two), Coverage::Complete);
        assert_eq!(PartitionCount::default_because("x").count, 50);
    }

    #[test]
    fn the_count_is_the_topics_partitions_in_the_image() {
        use crate::inspect::cluster::metadata::topics::{PartitionImage, TopicImage};
        let partition = PartitionImage::led_by(1);
        let mut image = MetadataImage::default();
        let dir = Path::new("/l");
        assert_eq!(PartitionCount::of_image(&image, dir), None);
        let mut topic = TopicImage {
            name: "__transaction_state".into(),
            id: "id".into(),
            partitions: Default::default(),
        };
        for n in 0..3 {
            topic.partitions.insert(n, partition.clone());
        }
        image.topics.insert(topic);
        let found = PartitionCount::of_image(&image, dir)
            .unwrap_or_else(|| PartitionCount::default_because("-"));
        assert_eq!(found.count, 3);
        assert!(found.source.contains("metadata image in /l"));
    }
}
