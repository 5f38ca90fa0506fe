//! The whole question for a set of replicas: check they are one
//! topic-partition, pick the leader, and for each follower its truncation,
//! the common-prefix check below it and what it loses.

use super::lost::{LostRecords, lost_records};
use super::prefix::{PrefixCheck, check_prefix};
use super::replica::Replica;
use super::truncation::{FollowerTruncation, FollowerView, LeaderView, truncate_follower};

/// Why replicas cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum DivergeError {
    /// Fewer than two replicas.
    #[error("give at least two replica directories of the same partition")]
    TooFew,
    /// Two directories are not the same topic-partition.
    #[error("{0}")]
    NotSamePartition(String),
}

/// What one follower does.
#[derive(Debug, Clone)]
pub struct FollowerReport {
    /// Index of the follower among the replicas.
    pub replica: usize,
    /// Its truncation, step by step.
    pub truncation: FollowerTruncation,
    /// The common-prefix check below the truncation point.
    pub prefix: PrefixCheck,
    /// What it loses.
    pub lost: LostRecords,
}

/// The answer for a replica set.
#[derive(Debug, Clone)]
pub struct DivergeReport {
    /// The replicas, in the order given.
    pub replicas: Vec<Replica>,
    /// Index of the leader.
    pub leader: usize,
    /// How the leader was chosen, in words.
    pub leader_reason: String,
    /// One report per follower, in order.
    pub followers: Vec<FollowerReport>,
}

/// Errors unless every replica has the first one's directory name and topic id.
pub fn check_same_partition(replicas: &[Replica]) -> Result<(), DivergeError> {
    let Some((first, rest)) = replicas.split_first() else {
        return Err(DivergeError::TooFew);
    };
    if rest.is_empty() {
        return Err(DivergeError::TooFew);
    }
    for r in rest {
        if let (Some(a), Some(b)) = (
            &first.partition.topic_partition,
            &r.partition.topic_partition,
        ) && a != b
        {
            return Err(DivergeError::NotSamePartition(format!(
                "{} is partition {}-{} but {} is {}-{}: not replicas of one partition",
                first.dir.display(),
                a.0,
                a.1,
                r.dir.display(),
                b.0,
                b.1
            )));
        }
        if let (Some(a), Some(b)) = (&first.topic_id, &r.topic_id)
            && a != b
        {
            return Err(DivergeError::NotSamePartition(format!(
                "{} has topic id {a} but {} has {b} (partition.metadata): not the same topic (deleted and recreated?)",
                first.dir.display(),
                r.dir.display()
            )));
        }
    }
    Ok(())
}

/// The replica Kafka would most plausibly have elected: the highest latest
/// leader epoch, then the largest log end offset, then the first given.
pub fn choose_leader(replicas: &[Replica]) -> (usize, String) {
    let key = |r: &Replica| {
        (
            r.epochs.cache.latest_epoch().unwrap_or(-1),
            r.log_end_offset,
        )
    };
    let best = replicas
        .iter()
        .enumerate()
        .fold(None::<(usize, (i32, i64))>, |best, (i, r)| match best {
            Some((_, k)) if k >= key(r) => best,
            _ => Some((i, key(r))),
        });
    let (index, (epoch, leo)) = best.unwrap_or((0, (-1, 0)));
    (
        index,
        format!(
            "chosen: the highest latest leader epoch ({epoch}), then the largest log end offset ({leo}); pass --leader to choose"
        ),
    )
}

/// Analyses every follower against `leader` (`None`: [`choose_leader`]).
pub fn analyze(
    replicas: Vec<Replica>,
    leader: Option<usize>,
) -> Result<DivergeReport, DivergeError> {
    check_same_partition(&replicas)?;
    let (leader, leader_reason) = match leader {
        Some(i) if i < replicas.len() => (i, "given with --leader".to_string()),
        _ => choose_leader(&replicas),
    };
    let l = &replicas[leader];
    let view = LeaderView {
        epochs: &l.epochs.cache,
        log_end_offset: l.log_end_offset,
    };
    let followers = replicas
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != leader)
        .map(|(i, f)| {
            let truncation = truncate_follower(
                view,
                FollowerView {
                    epochs: &f.epochs.cache,
                    batches: &f.batches,
                    log_end_offset: f.log_end_offset,
                    fetch_offset: f.high_watermark.unwrap_or(f.log_start_offset),
                },
            );
            let t = truncation.truncation_offset;
            FollowerReport {
                replica: i,
                prefix: check_prefix(&f.batches, &l.batches, l.log_start_offset, t),
                lost: lost_records(&f.batches, t, f.high_watermark, &l.batches),
                truncation,
            }
        })
        .collect();
    Ok(DivergeReport {
        replicas,
        leader,
        leader_reason,
        followers,
    })
}
