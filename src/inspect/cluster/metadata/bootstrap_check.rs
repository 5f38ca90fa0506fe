//! Whether `bootstrap.checkpoint` reads as a KRaft node reads it at every
//! start (`KafkaRaftServer.initializeLogDirs` → `BootstrapDirectory.read`
//! in the metadata log dir, broker and controller alike): batch by batch
//! through `BatchFileReader`, which checks no CRC and stops without a
//! word at a batch the file cuts short; control records other than a
//! leader change, snapshot header or footer, and metadata records that
//! do not deserialize, make it throw; and `BootstrapMetadata.fromRecords`
//! throws when no `FeatureLevelRecord` sets `metadata.version`. Its
//! records seed the log only when the metadata log is empty.

use std::ops::ControlFlow;
use std::path::Path;

use super::snapshot_check::{SnapshotDamage, framing_damage};
use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::format::record::parse_control_record;
use crate::format::{ControlType, FileBatch};
use crate::logdir::LogDirError;
use crate::logdir::chunked::walk_batches;
use crate::schema::{Decoded, InternalTopic, decode_record};

/// How `bootstrap.checkpoint` reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BootstrapRead {
    /// Metadata records read before any damage.
    pub records: u64,
    /// The `metadata.version` level its last `FeatureLevelRecord` for it sets.
    pub metadata_version: Option<i64>,
    /// Where the reading throws or stops.
    pub damage: Option<SnapshotDamage>,
    /// The first batch whose CRC does not match (Kafka reads it anyway).
    pub crc_mismatch: Option<u64>,
}

/// Reads the `bootstrap.checkpoint` at `path` as the node does at start.
pub fn check_bootstrap(path: &Path) -> Result<BootstrapRead, LogDirError> {
    let mut read = BootstrapRead::default();
    let mut scratch = Vec::new();
    let stopped = walk_batches(path, |batch| {
        match read_batch(batch, &mut read, &mut scratch) {
            Ok(()) => ControlFlow::Continue(()),
            Err(damage) => {
                read.damage = Some(damage);
                ControlFlow::Break(())
            }
        }
    })?;
    if read.damage.is_none() {
        read.damage = stopped.map(framing_damage);
    }
    Ok(read)
}

/// Reads one batch's records into `read`.
fn read_batch(
    batch: &FileBatch<'_>,
    read: &mut BootstrapRead,
    scratch: &mut Vec<u8>,
) -> Result<(), SnapshotDamage> {
    let unreadable = |position, reason: String| SnapshotDamage::Unreadable { position, reason };
    if batch.is_legacy() {
        return Err(unreadable(
            batch.position,
            format!(
                "a magic-{} message set where the reader takes only magic-2 batches",
                batch.magic
            ),
        ));
    }
    if read.crc_mismatch.is_none() && batch.ensure_valid().is_err() {
        read.crc_mismatch = Some(batch.position);
    }
    let header = batch
        .header()
        .map_err(|e| unreadable(e.offset, e.kind.to_string()))?;
    let decoded = batch.records(scratch, DEFAULT_DECOMPRESS_LIMIT);
    if let Some(e) = decoded.error {
        return Err(unreadable(e.offset, e.kind.to_string()));
    }
    for record in &decoded.records {
        if header.is_control() {
            let control = parse_control_record(record)
                .map_err(|e| unreadable(batch.position, e.kind.to_string()))?;
            if !matches!(
                control.control_type,
                ControlType::LeaderChange
                    | ControlType::SnapshotHeader
                    | ControlType::SnapshotFooter
            ) {
                return Err(unreadable(
                    batch.position,
                    format!(
                        "a {:?} control record at offset {}, a type the bootstrap reader does not take",
                        control.control_type, record.offset
                    ),
                ));
            }
            continue;
        }
        let value =
            match decode_record(InternalTopic::ClusterMetadata, record.key, record.value).value {
                Decoded::Json(v) => v,
                Decoded::Failed(reason) => {
                    return Err(unreadable(
                        batch.position,
                        format!(
                            "the record at offset {} does not deserialize ({reason})",
                            record.offset
                        ),
                    ));
                }
                Decoded::Null | Decoded::NotDecoded => {
                    return Err(unreadable(
                        batch.position,
                        format!("the record at offset {} has no value", record.offset),
                    ));
                }
            };
        read.records += 1;
        let data = value.get("data");
        let is_feature = value.get("type").and_then(|t| t.as_str()) == Some("FEATURE_LEVEL_RECORD");
        let name = data.and_then(|d| d.get("name")).and_then(|n| n.as_str());
        if is_feature && name == Some("metadata.version") {
            read.metadata_version = data
                .and_then(|d| d.get("featureLevel"))
                .and_then(|l| l.as_i64());
        }
    }
    Ok(())
}
