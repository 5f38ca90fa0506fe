//! One `__consumer_offsets` partition loaded: the coordinator shard's
//! state after its loader replays every record and marker
//! (`CoordinatorLoaderImpl.load` feeding `GroupCoordinatorShard`).

use std::path::PathBuf;

use super::load::{LoadEvent, LoadProblem, load_partition, load_partition_in_place};
use super::replay::CoordinatorState;
use super::share_state::ShareStateStore;
use crate::inspect::cluster::capped::Capped;
use crate::logdir::{LogDirError, Partition};
use crate::schema::InternalTopic;

/// A loaded `__consumer_offsets-N`.
#[derive(Debug, Clone)]
pub struct Shard {
    /// The partition directory's name.
    pub partition: String,
    /// The log dir holding it, where lag looks for data partitions.
    pub log_dir: PathBuf,
    /// What the coordinator holds.
    pub state: CoordinatorState,
    /// What did not read, with file and byte position.
    pub problems: Capped<LoadProblem>,
}

/// Loads `partition` (a `__consumer_offsets-N` directory).
pub fn load_shard(
    partition: &Partition,
    progress: &mut dyn FnMut(u64),
) -> Result<Shard, LogDirError> {
    let mut state = CoordinatorState::default();
    let problems = load_partition_in_place(
        partition,
        InternalTopic::ConsumerOffsets,
        progress,
        &mut |event| {
            match event {
            LoadEvent::Record {
                offset,
                producer_id,
                key,
                value,
                raw_value,
                ..
            } => state.apply(offset, producer_id, key, value, raw_value),
            LoadEvent::UnknownType {
                offset,
                record_type,
            } => state.notes.push(format!(
                "offset {offset}: record type {record_type} has no schema; Kafka skips it (unknown record type)"
            )),
            LoadEvent::Marker {
                producer_id,
                commit,
                ..
            } => {
                state.end_transaction(producer_id, commit);
            }
            // Coordinator records always have a key; the loader skips one without.
            LoadEvent::Keyless { .. } => {}
        }
        },
    )?;
    Ok(Shard {
        partition: partition.name(),
        log_dir: partition.log_dir(),
        state,
        problems,
    })
}

/// A loaded `__share_group_state-N`.
#[derive(Debug, Clone)]
pub struct ShareStateShard {
    /// The partition directory's name.
    pub partition: String,
    /// The log dir holding it, where lag looks for data partitions.
    pub log_dir: PathBuf,
    /// What the share coordinator holds.
    pub state: ShareStateStore,
    /// What did not read, with file and byte position.
    pub problems: Capped<LoadProblem>,
}

/// Loads `partition` (a `__share_group_state-N` directory) as the share
/// coordinator does; its records are never transactional.
pub fn load_share_state(
    partition: &Partition,
    progress: &mut dyn FnMut(u64),
) -> Result<ShareStateShard, LogDirError> {
    let mut state = ShareStateStore::default();
    let problems = load_partition(
        partition,
        InternalTopic::ShareGroupState,
        progress,
        &mut |event| {
            match event {
            LoadEvent::Record {
                offset, key, value, ..
            } => state.apply(offset, key, value),
            LoadEvent::UnknownType {
                offset,
                record_type,
            } => state.notes.push(format!(
                "offset {offset}: share-state record type {record_type} has no schema; Kafka skips it"
            )),
            LoadEvent::Marker { .. } | LoadEvent::Keyless { .. } => {}
        }
        },
    )?;
    Ok(ShareStateShard {
        partition: partition.name(),
        log_dir: partition.log_dir(),
        state,
        problems,
    })
}
