//! One replica per coordinator partition: when PATHs hold the same
//! `__consumer_offsets-N` or `__transaction_state-N` in several log dirs,
//! the one with the highest log end offset is the one loaded (the most a
//! leader could have written), and the others are named as set aside.

use std::collections::BTreeMap;

use crate::inspect::locate::log_end_offset;
use crate::logdir::{LogDirError, Partition};

/// The replicas kept, one per partition name, and a note for each set aside.
#[derive(Debug)]
pub struct Picked {
    /// One partition per `topic-partition`, in name order.
    pub kept: Vec<Partition>,
    /// Which replica was kept over which, with their log end offsets.
    pub notes: Vec<String>,
}

/// Keeps, of the partitions sharing a directory name, the one with the
/// highest log end offset (the first given on a tie).
pub fn pick_replicas(partitions: Vec<Partition>) -> Result<Picked, LogDirError> {
    let mut by_name: BTreeMap<String, Vec<(i64, Partition)>> = BTreeMap::new();
    for p in partitions {
        let end = log_end_offset(&p)?;
        by_name.entry(p.name()).or_default().push((end, p));
    }
    let mut picked = Picked {
        kept: Vec::new(),
        notes: Vec::new(),
    };
    for (name, mut replicas) in by_name {
        let best = replicas
            .iter()
            .enumerate()
            .max_by_key(|(i, (end, _))| (*end, std::cmp::Reverse(*i)))
            .map_or(0, |(i, _)| i);
        let (end, kept) = replicas.swap_remove(best);
        for (other_end, other) in &replicas {
            picked.notes.push(format!(
                "{name}: two replicas; loading {} (log end offset {end}), not {} (log end offset {other_end})",
                kept.dir.display(),
                other.dir.display()
            ));
        }
        picked.kept.push(kept);
    }
    Ok(picked)
}
