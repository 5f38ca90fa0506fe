//! Dumps of the small files: `.txnindex`, producer snapshots, checkpoints,
//! `partition.metadata`, `meta.properties` and `quorum-state`.

use std::path::Path;

use kseg::format::checkpoint::{parse_leader_epoch_checkpoint, parse_offset_checkpoint};
use kseg::format::partition_metadata::read_partition_metadata;
use kseg::format::producer_snapshot::parse_producer_snapshot;
use kseg::format::properties::parse_properties;
use kseg::format::quorum_state::parse_quorum_state;
use kseg::format::txn_index::parse_txn_index;
use kseg::logdir::file_name::FileKind;
use kseg::logdir::mapped::{INDEX_READ_LIMIT, read_small};

use super::Printer;
use crate::exit_code::ExitCode;

pub(super) fn dump_txn_index(path: &Path, printer: &mut Printer<'_>) -> anyhow::Result<ExitCode> {
    let bytes = read_small(path, INDEX_READ_LIMIT)?;
    let entries =
        parse_txn_index(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    for entry in &entries {
        printer.txn_entry(entry)?;
    }
    let partial = bytes.len() % kseg::format::txn_index::TXN_INDEX_ENTRY_SIZE;
    if partial != 0 {
        eprintln!(
            "kseg: {}: {partial} trailing bytes do not make a whole entry (Kafka ignores them)",
            path.display()
        );
        return Ok(ExitCode::Findings);
    }
    Ok(ExitCode::Ok)
}

pub(super) fn dump_snapshot(path: &Path, printer: &mut Printer<'_>) -> anyhow::Result<ExitCode> {
    let bytes = read_small(path, INDEX_READ_LIMIT)?;
    match parse_producer_snapshot(&bytes) {
        Ok(snapshot) => {
            for entry in &snapshot.entries {
                printer.producer_entry(entry)?;
            }
            Ok(ExitCode::Ok)
        }
        Err(err) => {
            eprintln!("kseg: {}: corrupt producer snapshot {err}", path.display());
            Ok(ExitCode::Findings)
        }
    }
}

pub(super) fn dump_text_file(
    path: &Path,
    kind: FileKind,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let bytes = read_small(path, 64 << 20)?;
    let text = String::from_utf8_lossy(&bytes);
    let bad = |e: kseg::format::FormatError| anyhow::anyhow!("{}: {e}", path.display());
    match kind {
        FileKind::LeaderEpochCheckpoint => {
            let entries = parse_leader_epoch_checkpoint(&text).map_err(bad)?;
            for e in &entries {
                printer.leader_epoch_entry(e)?;
            }
            if entries.is_empty() {
                printer.note("empty", &empty_checkpoint("leader-epoch checkpoint", &text))?;
            }
        }
        FileKind::OffsetCheckpoint => {
            let entries = parse_offset_checkpoint(&text).map_err(bad)?;
            for e in &entries {
                printer.offset_checkpoint_entry(e)?;
            }
            if entries.is_empty() {
                printer.note("empty", &empty_checkpoint("offset checkpoint", &text))?;
            }
        }
        FileKind::PartitionMetadata => {
            let meta = read_partition_metadata(&bytes)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            printer.property("version", &meta.version.to_string())?;
            printer.property("topic_id", &meta.topic_id)?;
        }
        FileKind::MetaProperties => {
            for (key, value) in parse_properties(&text) {
                printer.property(&key, &value)?;
            }
        }
        FileKind::QuorumState => printer.quorum_state(&parse_quorum_state(&text).map_err(bad)?)?,
        _ => printer.note("cleanShutdown", text.trim())?,
    }
    Ok(ExitCode::Ok)
}

/// What a checkpoint with no entries is, in words: Kafka reads an empty
/// file, and a header with a count of 0, as no entries.
fn empty_checkpoint(kind: &str, text: &str) -> String {
    if text.trim().is_empty() {
        format!("an empty file, which Kafka reads as having no entries ({kind})")
    } else {
        format!("no entries ({kind})")
    }
}
