//! Reading an internal topic's partition as a coordinator's loader does
//! (`CoordinatorLoaderImpl.load`): every batch from the first segment to
//! the last, each data record decoded by [`crate::schema::decode_record`]
//! (in place, into one reused [`Tree`], for [`load_partition_in_place`])
//! and handed on with its batch's producer id, each COMMIT or ABORT marker
//! handed on as the end of that producer's transaction. Only one batch is
//! in memory at a time; what does not read is reported with its file and
//! byte position. Reading stops at the first damaged batch (one that does
//! not frame, fails its CRC or whose records do not parse) and at bytes
//! that are not a batch: the broker's log recovery truncates the log there
//! and deletes the segments after it before a coordinator loads
//! (`LogLoader.recoverLog`,
//! storage/src/main/java/org/apache/kafka/storage/internals/log/LogLoader.java:487-491),
//! so the state is the one of the records before it.

use std::ops::ControlFlow;

use serde_json::Value;

use crate::format::FileBatch;
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::record::{ControlType, parse_control_record};
use crate::inspect::cluster::capped::Capped;
use crate::logdir::chunked::walk_batches;
use crate::logdir::{LogDirError, Partition};
use crate::schema::topics::{decode_group_metadata, decode_record_tree};
use crate::schema::tree::{Node, Tree};
use crate::schema::{Decoded, InternalTopic};

/// One step of a coordinator's load; `J` is how the decoded JSON is
/// handed on (`serde_json` values, or [`Node`]s of the load's [`Tree`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadEvent<'a, J> {
    /// A data record: its offset, its batch's producer id (-1 outside a
    /// transaction), its key's JSON and its value's data (`None`: a tombstone).
    Record {
        /// Offset of the record.
        offset: i64,
        /// The batch's producer id.
        producer_id: i64,
        /// The decoded key (`{"type"|"version", "data"}`).
        key: J,
        /// The decoded value's `data`, `None` for a tombstone.
        value: Option<J>,
        /// The value's version (its first two bytes), `None` for a tombstone.
        value_version: Option<i16>,
        /// The value's bytes as the log holds them, `None` for a tombstone.
        raw_value: Option<&'a [u8]>,
    },
    /// A record whose key's type (`__consumer_offsets`) or version
    /// (`__transaction_state`) no schema describes, which Kafka's loader
    /// skips.
    UnknownType {
        /// Offset of the record.
        offset: i64,
        /// The key's record type or version.
        record_type: i16,
    },
    /// A record without a key, as `__remote_log_metadata` writes them:
    /// its offset and its decoded value (`{"type"|"version", "data"}`).
    Keyless {
        /// Offset of the record.
        offset: i64,
        /// The decoded value.
        value: J,
    },
    /// A COMMIT (`commit`) or ABORT marker.
    Marker {
        /// Offset of the marker.
        offset: i64,
        /// The producer whose transaction it ends.
        producer_id: i64,
        /// COMMIT rather than ABORT.
        commit: bool,
    },
}

/// Where a load stopped reading or skipped something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadProblem {
    /// The `.log` file.
    pub file: String,
    /// Byte position in it.
    pub position: u64,
    /// What is wrong there.
    pub what: String,
}

impl std::fmt::Display for LoadProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: at byte {}: {}", self.file, self.position, self.what)
    }
}

struct Walk<'v> {
    topic: InternalTopic,
    file: String,
    problems: Capped<LoadProblem>,
    scratch: Vec<u8>,
    tree: Tree,
    visit: &'v mut dyn FnMut(LoadEvent<'_, Node<'_>>),
    /// One past the last offset read.
    next_offset: Option<i64>,
    /// Reading stopped at damage.
    stopped: bool,
}

impl Walk<'_> {
    fn problem(&mut self, position: u64, what: String) {
        self.problems.push(LoadProblem {
            file: self.file.clone(),
            position,
            what,
        });
    }

    /// Damage at `position`: the load stops there.
    fn stop(&mut self, position: u64, what: impl std::fmt::Display, cut: &str) {
        let reached = self.next_offset.map_or("no record".to_string(), |n| {
            format!("the records before offset {n}")
        });
        self.problem(
            position,
            format!("{what}; {cut}, so the state loaded is that of {reached}"),
        );
        self.stopped = true;
    }

    fn batch(&mut self, batch: &FileBatch<'_>) -> ControlFlow<()> {
        const TRUNCATES: &str =
            "Kafka's log recovery truncates the log here and deletes the segments after it";
        let summary = match batch.summary(&mut self.scratch, DEFAULT_DECOMPRESS_LIMIT) {
            Ok(s) => s,
            Err(e) => {
                self.stop(e.offset, e.kind, TRUNCATES);
                return ControlFlow::Break(());
            }
        };
        if let Err(e) = batch.ensure_valid() {
            self.stop(summary.position, e.kind, TRUNCATES);
            return ControlFlow::Break(());
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let decoded = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
        if let Some(e) = &decoded.error {
            let what = format!(
                "records of the batch at byte {}: {}",
                summary.position, e.kind
            );
            let offset = e.offset;
            drop(decoded);
            self.scratch = scratch;
            self.stop(
                offset,
                what,
                "the batch's CRC holds, so recovery keeps it, and Kafka's loader fails on it",
            );
            return ControlFlow::Break(());
        }
        for record in &decoded.records {
            if summary.is_control {
                let Ok(marker) = parse_control_record(record) else {
                    continue;
                };
                let commit = match marker.control_type {
                    ControlType::Commit => true,
                    ControlType::Abort => false,
                    _ => continue,
                };
                (self.visit)(LoadEvent::Marker {
                    offset: record.offset,
                    producer_id: summary.producer_id,
                    commit,
                });
                continue;
            }
            let d = decode_record_tree(self.topic, record.key, record.value, &mut self.tree);
            let node = |piece: &u32| self.tree.node(*piece);
            let (key, value) = match (&d.key, &d.value) {
                (Decoded::Null, Decoded::Json(v)) => {
                    (self.visit)(LoadEvent::Keyless {
                        offset: record.offset,
                        value: node(v),
                    });
                    continue;
                }
                (Decoded::Json(k), Decoded::Json(v)) => (node(k), node(v).get("data")),
                (Decoded::Json(k), Decoded::Null) => (node(k), None),
                (Decoded::Failed(_), _) if unknown_record_type(self.topic, record.key) => {
                    (self.visit)(LoadEvent::UnknownType {
                        offset: record.offset,
                        record_type: record_type(record.key).unwrap_or(-1),
                    });
                    continue;
                }
                (Decoded::Failed(why), _) | (_, Decoded::Failed(why)) => {
                    let why = why.clone();
                    self.problem(
                        summary.position,
                        format!(
                            "the record at offset {} does not decode ({why}); Kafka's loader fails here, kseg skips it",
                            record.offset
                        ),
                    );
                    continue;
                }
                _ => continue,
            };
            (self.visit)(LoadEvent::Record {
                offset: record.offset,
                producer_id: summary.producer_id,
                key,
                value,
                value_version: value.and(record_type(record.value)),
                raw_value: value.and(record.value),
            });
        }
        drop(decoded);
        self.scratch = scratch;
        self.next_offset = Some(summary.last_offset.saturating_add(1));
        ControlFlow::Continue(())
    }
}

/// The 2-byte record type (or version) a coordinator record's key or
/// value opens with.
fn record_type(key: Option<&[u8]>) -> Option<i16> {
    let bytes = key?.get(..2)?;
    Some(i16::from_be_bytes([bytes[0], bytes[1]]))
}

/// Whether `key` is of a type Kafka's loader skips: a `__consumer_offsets`
/// record type no schema describes (its serde throws
/// `UnknownRecordTypeException` and the loader skips the record,
/// core/src/main/scala/kafka/coordinator/group/CoordinatorLoaderImpl.scala:172-175),
/// or a `__transaction_state` key version outside `TransactionLogKey`'s
/// (an `UnknownKey`, skipped by `TransactionStateManager.loadTransactionMetadata`,
/// core/src/main/scala/kafka/coordinator/transaction/TransactionLog.scala:96-106).
fn unknown_record_type(topic: InternalTopic, key: Option<&[u8]>) -> bool {
    let (Some(t), Ok(registry)) = (record_type(key), crate::schema::registry::registry()) else {
        return false;
    };
    let folder = topic.schema_folder();
    match topic {
        InternalTopic::ConsumerOffsets => registry.coordinator_key(folder, t).is_none(),
        InternalTopic::TransactionState => registry
            .by_name(folder, "TransactionLogKey")
            .is_some_and(|spec| !spec.valid_versions.contains(t)),
        _ => false,
    }
}

/// Reads every segment of `partition` in order as records of `topic`,
/// calling `visit` for each record and marker, its JSON as values, and
/// `progress` with the bytes of each segment read; returns the problems met.
pub fn load_partition(
    partition: &Partition,
    topic: InternalTopic,
    progress: &mut dyn FnMut(u64),
    visit: &mut dyn FnMut(LoadEvent<'_, &Value>),
) -> Result<Capped<LoadProblem>, LogDirError> {
    load_partition_in_place(partition, topic, progress, &mut |event| match event {
        LoadEvent::Record {
            offset,
            producer_id,
            key,
            value,
            value_version,
            raw_value,
        } => {
            // The tree leaves a classic group's member protocols as bytes.
            let classic = topic == InternalTopic::ConsumerOffsets
                && key.get("type").and_then(Node::as_str) == Some("2");
            let value = match (classic, raw_value) {
                (true, Some(raw)) => decode_group_metadata(raw),
                _ => value.map(Node::to_value),
            };
            visit(LoadEvent::Record {
                offset,
                producer_id,
                key: &key.to_value(),
                value: value.as_ref(),
                value_version,
                raw_value,
            })
        }
        LoadEvent::Keyless { offset, value } => visit(LoadEvent::Keyless {
            offset,
            value: &value.to_value(),
        }),
        LoadEvent::UnknownType {
            offset,
            record_type,
        } => visit(LoadEvent::UnknownType {
            offset,
            record_type,
        }),
        LoadEvent::Marker {
            offset,
            producer_id,
            commit,
        } => visit(LoadEvent::Marker {
            offset,
            producer_id,
            commit,
        }),
    })
}

/// [`load_partition`], the JSON handed on as [`Node`]s of a tree reused
/// from record to record (read what is needed; [`Node::to_value`] what is kept).
pub fn load_partition_in_place(
    partition: &Partition,
    topic: InternalTopic,
    progress: &mut dyn FnMut(u64),
    visit: &mut dyn FnMut(LoadEvent<'_, Node<'_>>),
) -> Result<Capped<LoadProblem>, LogDirError> {
    let mut walk = Walk {
        topic,
        file: String::new(),
        problems: Capped::default(),
        scratch: Vec::new(),
        tree: Tree::default(),
        visit,
        next_offset: None,
        stopped: false,
    };
    for segment in &partition.segments {
        let path = segment.log_path();
        walk.file = path.display().to_string();
        let end = walk_batches(&path, |batch| walk.batch(batch))?;
        if let Some(err) = end.filter(|_| !walk.stopped) {
            walk.stop(
                err.offset,
                format_args!("{}: not a batch", err.kind),
                "Kafka's log recovery truncates the log here and deletes the segments after it (see `kseg verify`)",
            );
        }
        progress(segment.log_size());
        if walk.stopped {
            break;
        }
    }
    Ok(walk.problems)
}
