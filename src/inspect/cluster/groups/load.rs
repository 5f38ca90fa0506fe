//! Reading an internal topic's partition as a coordinator's loader does
//! (`CoordinatorLoaderImpl.load`): every batch from the first segment to
//! the last, each data record decoded by [`crate::schema::decode_record`]
//! and handed on with its batch's producer id, each COMMIT or ABORT marker
//! handed on as the end of that producer's transaction. Only one batch is
//! in memory at a time; what does not read is reported with its file and
//! byte position, and reading goes on past it where it can.

use std::ops::ControlFlow;
use std::path::Path;

use serde_json::Value;

use crate::format::FileBatch;
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::record::{ControlType, parse_control_record};
use crate::inspect::cluster::capped::Capped;
use crate::logdir::chunked::walk_batches;
use crate::logdir::{LogDirError, Partition};
use crate::schema::{Decoded, InternalTopic, decode_record};

/// One step of a coordinator's load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadEvent<'a> {
    /// A data record: its offset, its batch's producer id (-1 outside a
    /// transaction), its key's JSON and its value's data (`None`: a tombstone).
    Record {
        /// Offset of the record.
        offset: i64,
        /// The batch's producer id.
        producer_id: i64,
        /// The decoded key (`{"type"|"version", "data"}`).
        key: &'a Value,
        /// The decoded value's `data`, `None` for a tombstone.
        value: Option<&'a Value>,
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
    visit: &'v mut dyn FnMut(LoadEvent<'_>),
}

impl Walk<'_> {
    fn problem(&mut self, position: u64, what: String) {
        self.problems.push(LoadProblem {
            file: self.file.clone(),
            position,
            what,
        });
    }

    fn batch(&mut self, batch: &FileBatch<'_>) {
        let summary = match batch.summary(&mut self.scratch, DEFAULT_DECOMPRESS_LIMIT) {
            Ok(s) => s,
            Err(e) => {
                self.problem(e.offset, format!("{}; batch skipped", e.kind));
                return;
            }
        };
        if !batch.is_valid() {
            self.problem(
                summary.position,
                "the batch's CRC does not match (the loader does not check CRCs; replayed as read)"
                    .to_string(),
            );
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let decoded = batch.records(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
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
            let d = decode_record(self.topic, record.key, record.value);
            let (key, value) = match (&d.key, &d.value) {
                (Decoded::Json(k), Decoded::Json(v)) => (k, v.get("data")),
                (Decoded::Json(k), Decoded::Null) => (k, None),
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
            });
        }
        if let Some(e) = decoded.error {
            self.problem(
                e.offset,
                format!(
                    "records of the batch at byte {}: {}",
                    summary.position, e.kind
                ),
            );
        }
        drop(decoded);
        self.scratch = scratch;
    }
}

/// Reads every segment of `partition` in order as records of `topic`,
/// calling `visit` for each record and marker and `progress` with the
/// bytes of each segment read; returns the problems met.
pub fn load_partition(
    partition: &Partition,
    topic: InternalTopic,
    progress: &mut dyn FnMut(u64),
    visit: &mut dyn FnMut(LoadEvent<'_>),
) -> Result<Capped<LoadProblem>, LogDirError> {
    let mut walk = Walk {
        topic,
        file: String::new(),
        problems: Capped::default(),
        scratch: Vec::new(),
        visit,
    };
    for segment in &partition.segments {
        let path = segment.log_path();
        walk.file = path.display().to_string();
        let end = walk_batches(&path, |batch| {
            walk.batch(batch);
            ControlFlow::Continue(())
        })?;
        if let Some(err) = end {
            walk.problem(
                err.offset,
                format!(
                    "{}; the bytes from there to the end of the segment are not batches (Kafka's recovery truncates them; see `kseg verify`)",
                    err.kind
                ),
            );
        }
        progress(file_len(&path));
    }
    Ok(walk.problems)
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}
