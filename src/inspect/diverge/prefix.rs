//! Whether the log a follower keeps really is the leader's: below the
//! truncation point Kafka assumes both hold the same batches and never
//! compares them. Compared here batch by batch (offsets, CRC, size); the
//! first that differs is a silent divergence replication will never repair.

use std::collections::BTreeMap;

use serde::Serialize;

use super::batch::ReplicaBatch;

/// Where a batch sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchPlace {
    /// Base offset of its segment.
    pub segment: i64,
    /// Byte position in the segment.
    pub position: u64,
    /// Last offset.
    pub last_offset: i64,
    /// Size in bytes.
    pub size: u64,
    /// Stored CRC.
    pub crc: u32,
}

impl BatchPlace {
    fn of(b: &ReplicaBatch) -> Self {
        Self {
            segment: b.segment,
            position: b.position,
            last_offset: b.last_offset,
            size: b.size,
            crc: b.crc,
        }
    }
}

/// The first batch below the truncation point that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Divergence {
    /// Its base offset.
    pub base_offset: i64,
    /// The follower's batch.
    pub follower: BatchPlace,
    /// The leader's batch at that base offset (`None`: no batch starts there).
    pub leader: Option<BatchPlace>,
    /// What differs, in words.
    pub what: String,
}

/// What was compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrefixCheck {
    /// Batches compared.
    pub batches_compared: u64,
    /// Follower batches below the leader's log start, not comparable.
    pub below_leader_start: u64,
    /// The first difference.
    pub first_divergence: Option<Divergence>,
}

fn difference(f: &ReplicaBatch, l: &ReplicaBatch) -> Option<String> {
    let mut what = Vec::new();
    if f.last_offset != l.last_offset {
        what.push(format!(
            "last offset {} vs {}",
            f.last_offset, l.last_offset
        ));
    }
    if f.size != l.size {
        what.push(format!("size {} vs {}", f.size, l.size));
    }
    if f.crc != l.crc {
        what.push(format!("crc {} vs {}", f.crc, l.crc));
    }
    (!what.is_empty()).then(|| what.join(", "))
}

/// Compares the follower's batches ending below `truncation_offset` with
/// the leader's.
pub fn check_prefix(
    follower: &[ReplicaBatch],
    leader: &[ReplicaBatch],
    leader_log_start: i64,
    truncation_offset: i64,
) -> PrefixCheck {
    let by_base: BTreeMap<i64, &ReplicaBatch> = leader.iter().map(|b| (b.base_offset, b)).collect();
    let mut check = PrefixCheck {
        batches_compared: 0,
        below_leader_start: 0,
        first_divergence: None,
    };
    for f in follower
        .iter()
        .take_while(|b| b.last_offset < truncation_offset)
    {
        if f.base_offset < leader_log_start {
            check.below_leader_start += 1;
            continue;
        }
        check.batches_compared += 1;
        let l = by_base.get(&f.base_offset).copied();
        let what = match l {
            None => Some("the leader has no batch starting at this offset".to_string()),
            Some(l) => difference(f, l),
        };
        if let Some(what) = what {
            check.first_divergence = Some(Divergence {
                base_offset: f.base_offset,
                follower: BatchPlace::of(f),
                leader: l.map(BatchPlace::of),
                what,
            });
            break;
        }
    }
    check
}
