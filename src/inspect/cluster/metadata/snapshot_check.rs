//! Whether a KRaft snapshot (`<endOffset>-<epoch>.checkpoint`) reads as
//! the node's raft layer reads its latest snapshot at start: batch by
//! batch with the CRC checked (`KafkaRaftClient.initialize` →
//! `KRaftControlRecordStateMachine.maybeLoadSnapshot` →
//! `RecordsSnapshotReader` over `RecordsIterator`, CRC validation on), the
//! first batch a control batch opening with a `SnapshotHeader`. That
//! reader stops without a word at a batch cut short by the end of the
//! file, and never asks for the `SnapshotFooter` the writer puts last, so a
//! snapshot cut anywhere past its header loads as an image missing
//! everything after the cut.
//!
//! Only framing, CRCs and the control records are read here; the metadata
//! records themselves are decoded when the image is built
//! ([`super::load`]).

use std::ops::ControlFlow;
use std::path::Path;

use serde::Serialize;

use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::record::parse_control_record;
use crate::format::{ControlType, FileBatch, FormatError, FormatErrorKind};
use crate::logdir::LogDirError;
use crate::logdir::chunked::walk_batches;

/// What is wrong with a snapshot, as the raft layer meets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SnapshotDamage {
    /// The reader throws here (a CRC mismatch, a batch that is not a
    /// magic-2 batch, a size below the minimum, no header): reading the
    /// snapshot fails.
    Unreadable {
        /// Byte position in the file.
        position: u64,
        /// What is there.
        reason: String,
    },
    /// The reader stops here without an error (the file ends inside a
    /// batch, or before the footer): whatever followed is not loaded.
    Cut {
        /// Byte position in the file where reading stops.
        position: u64,
        /// What is there.
        reason: String,
    },
}

impl SnapshotDamage {
    /// The byte position the damage is at.
    pub fn position(&self) -> u64 {
        match self {
            Self::Unreadable { position, .. } | Self::Cut { position, .. } => *position,
        }
    }

    /// What is there, in words.
    pub fn reason(&self) -> &str {
        match self {
            Self::Unreadable { reason, .. } | Self::Cut { reason, .. } => reason,
        }
    }
}

/// How a snapshot's walk went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotRead {
    /// Batches that framed and passed their CRC, before any damage.
    pub batches: u64,
    /// The damage, if any.
    pub damage: Option<SnapshotDamage>,
    /// The partition leader epoch of its batches when they all agree (the
    /// writer stamps every batch with the snapshot's epoch).
    pub batch_epoch: Option<i32>,
}

/// Walks the snapshot at `path` as the raft layer reads it at start.
pub fn check_snapshot(path: &Path) -> Result<SnapshotRead, LogDirError> {
    let mut read = SnapshotRead {
        batches: 0,
        damage: None,
        batch_epoch: None,
    };
    let mut epochs = (None, true);
    let mut footer_seen = false;
    let mut end = 0u64;
    let mut scratch = Vec::new();
    let stopped = walk_batches(path, |batch| {
        end = batch.position + batch.size();
        match judge_batch(batch, read.batches == 0, &mut scratch) {
            Ok(footer) => {
                footer_seen = footer;
                read.batches += 1;
                if let Ok(header) = batch.header() {
                    let epoch = header.partition_leader_epoch;
                    epochs = match epochs {
                        (None, _) => (Some(epoch), true),
                        (Some(e), same) => (Some(e), same && e == epoch),
                    };
                }
                ControlFlow::Continue(())
            }
            Err(damage) => {
                read.damage = Some(damage);
                ControlFlow::Break(())
            }
        }
    })?;
    if read.damage.is_none() {
        read.damage = match stopped {
            Some(err) if read.batches == 0 => Some(SnapshotDamage::Unreadable {
                position: err.offset,
                reason: format!(
                    "the file ends inside its first batch ({}), so no SnapshotHeader is read and the metadata loader throws on the snapshot's timestamp",
                    err.kind
                ),
            }),
            Some(err) => Some(framing_damage(err)),
            None if read.batches == 0 => Some(SnapshotDamage::Unreadable {
                position: 0,
                reason: "the file holds no batch, so no SnapshotHeader".into(),
            }),
            None if !footer_seen => Some(SnapshotDamage::Cut {
                position: end,
                reason: "the file ends at a batch boundary before the SnapshotFooter".into(),
            }),
            None => None,
        };
    }
    read.batch_epoch = epochs.0.filter(|_| epochs.1);
    Ok(read)
}

/// Where the walk could not frame a batch: the end of the file inside a
/// batch is where Kafka's reader quietly stops; a size below the minimum
/// or a bad magic byte makes it throw.
pub(crate) fn framing_damage(err: FormatError) -> SnapshotDamage {
    let position = err.offset;
    let reason = format!("{}", err.kind);
    match err.kind {
        FormatErrorKind::Truncated { .. }
        | FormatErrorKind::BatchPastEnd { .. }
        | FormatErrorKind::TrailingBytes { .. } => SnapshotDamage::Cut {
            position,
            reason: format!("the file ends inside a batch ({reason})"),
        },
        _ => SnapshotDamage::Unreadable { position, reason },
    }
}

/// Checks one batch: a magic-2 batch whose CRC holds; the first one a
/// control batch opening with a `SnapshotHeader`. Returns whether the
/// batch holds the `SnapshotFooter`.
fn judge_batch(
    batch: &FileBatch<'_>,
    first: bool,
    scratch: &mut Vec<u8>,
) -> Result<bool, SnapshotDamage> {
    let unreadable = |position, reason: String| SnapshotDamage::Unreadable { position, reason };
    if batch.is_legacy() {
        return Err(unreadable(
            batch.position,
            format!(
                "a magic-{} message set where the raft reader takes only magic-2 batches",
                batch.magic
            ),
        ));
    }
    batch
        .ensure_valid()
        .map_err(|e| unreadable(e.offset, e.kind.to_string()))?;
    let header = batch
        .header()
        .map_err(|e| unreadable(e.offset, e.kind.to_string()))?;
    let is_control = header.is_control();
    if !is_control {
        return if first {
            Err(unreadable(
                batch.position,
                "the first batch is not a control batch with a SnapshotHeader".into(),
            ))
        } else {
            Ok(false)
        };
    }
    let decoded = batch.records(scratch, DEFAULT_DECOMPRESS_LIMIT);
    if let Some(e) = decoded.error {
        return Err(unreadable(e.offset, e.kind.to_string()));
    }
    let types: Vec<ControlType> = decoded
        .records
        .iter()
        .map(|r| parse_control_record(r).map(|c| c.control_type))
        .collect::<Result<_, _>>()
        .map_err(|e| unreadable(batch.position, e.kind.to_string()))?;
    if first && types.first() != Some(&ControlType::SnapshotHeader) {
        return Err(unreadable(
            batch.position,
            "the first control record is not a SnapshotHeader".into(),
        ));
    }
    Ok(types.contains(&ControlType::SnapshotFooter))
}
