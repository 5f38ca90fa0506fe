//! The KRaft metadata log's own files, judged as the node's raft layer
//! judges them when it starts (broker and controller alike: every KRaft
//! node opens the metadata log): its snapshots (`KafkaMetadataLog`'s
//! `recoverSnapshots` and `truncateToLatestSnapshot`, then the latest one
//! read with CRC checks by `KafkaRaftClient.initialize`), leftovers of
//! snapshots being written, and `quorum-state` (`FileQuorumStateStore`),
//! plus what `recover` may do about them offline.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::format::checkpoint::LeaderEpochEntry;
use crate::format::quorum_state::read_quorum_state;
use crate::inspect::cluster::metadata::load::{SnapshotFile, snapshots};
use crate::inspect::cluster::metadata::snapshot_check::{
    SnapshotDamage, SnapshotRead, check_snapshot,
};
use crate::logdir::mapped::read_small;
use crate::logdir::{LogDirError, Partition};

/// What the node does at start because of a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RaftOutcome {
    /// The node's start fails: its raft layer throws while it initializes.
    NodeFails,
    /// The node starts, but without data the files hold.
    LosesData,
    /// The node starts, but serves none of the partitions of this log dir.
    LogDirOffline,
    /// The node starts, but not as the voter the quorum counts on.
    LeavesQuorum,
    /// The node deletes or truncates files at start; nothing needed is lost.
    KafkaChangesFiles,
    /// The file is damaged but not read at start (an older snapshot).
    DamagedNotRead,
    /// Worth knowing; the start goes on as usual.
    Note,
}

impl RaftOutcome {
    /// Whether the finding makes the partition unclean (`verify` exits 1).
    pub fn counts(self) -> bool {
        self != Self::Note
    }

    /// The outcome in words.
    pub fn describe(self) -> &'static str {
        match self {
            Self::NodeFails => "the node (broker or controller) does not start",
            Self::LosesData => "the node starts without data these files hold",
            Self::LogDirOffline => "the node starts with this log dir offline",
            Self::LeavesQuorum => "the node starts, but not as the voter the quorum counts on",
            Self::KafkaChangesFiles => "the node changes these files at start",
            Self::DamagedNotRead => "damaged, but not read at start while a newer snapshot is",
            Self::Note => "note",
        }
    }
}

/// One finding about the metadata log's raft files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RaftFinding {
    /// The file.
    pub file: PathBuf,
    /// The byte position in it, where one applies.
    pub position: Option<u64>,
    /// What is wrong, and what Kafka does with it.
    pub problem: String,
    /// The consequence at start.
    pub outcome: RaftOutcome,
}

/// What `recover --apply` may do offline about a finding: move the file
/// into the backup (and so out of the partition).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveAside {
    /// The file moved.
    pub file: PathBuf,
    /// Why that is safe, or what it costs.
    pub because: String,
}

/// The raft layer's view of the metadata log's files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RaftLogCheck {
    /// Findings, file by file.
    pub findings: Vec<RaftFinding>,
    /// Files `recover --apply` moves into its backup.
    pub move_aside: Vec<MoveAside>,
}

impl RaftLogCheck {
    /// Whether no finding makes the partition unclean.
    pub fn is_clean(&self) -> bool {
        self.findings.iter().all(|f| !f.outcome.counts())
    }
}

/// The log as loading leaves it: where it starts and ends, its last epoch.
#[derive(Debug, Clone, Copy)]
pub struct LogBounds {
    /// The log start offset (the first segment's base offset).
    pub start: i64,
    /// The log end offset after recovery.
    pub end: i64,
    /// The epoch of the last leader epoch entry after recovery, if any.
    pub latest_epoch: Option<i32>,
    /// Whether `leader-epoch-checkpoint` read (when it does not, the node
    /// stops before the checks that compare epochs).
    pub epochs_known: bool,
}

impl LogBounds {
    /// The bounds of `partition` after a recovery that ends the log at
    /// `end` and keeps `leader_epochs` (`None`: the file does not read)
    /// less `removed`.
    pub fn after_recovery(
        partition: &Partition,
        end: i64,
        leader_epochs: Option<&[LeaderEpochEntry]>,
        removed: &[LeaderEpochEntry],
    ) -> Self {
        Self {
            start: partition.segments.first().map_or(0, |s| s.base_offset),
            end,
            latest_epoch: leader_epochs
                .unwrap_or_default()
                .iter()
                .rfind(|e| !removed.contains(e))
                .map(|e| e.epoch),
            epochs_known: leader_epochs.is_some(),
        }
    }
}

/// `quorum-state` is a few hundred bytes; more than this is not one.
const QUORUM_STATE_LIMIT: u64 = 1 << 20;

/// Checks the raft files of the metadata partition `partition`, whose log
/// loading leaves `bounds`.
pub fn check_raft_log(
    partition: &Partition,
    bounds: LogBounds,
) -> Result<RaftLogCheck, LogDirError> {
    let mut check = RaftLogCheck::default();
    partial_snapshots(&partition.dir, &mut check)?;
    let all = snapshots(&partition.dir)?;
    let (below, kept): (Vec<_>, Vec<_>) =
        all.into_iter().partition(|s| s.end_offset < bounds.start);
    for s in &below {
        check.findings.push(RaftFinding {
            file: s.path.clone(),
            position: None,
            problem: format!(
                "its end offset {} is below the log start offset {}: the node deletes it at start",
                s.end_offset, bounds.start
            ),
            outcome: RaftOutcome::KafkaChangesFiles,
        });
    }
    if bounds.start > 0 && !kept.iter().any(|s| s.end_offset >= bounds.start) {
        check.findings.push(RaftFinding {
            file: partition.dir.clone(),
            position: None,
            problem: format!(
                "the log starts at offset {} and no snapshot reaches it: the raft layer stops with \"Inconsistent snapshot state\"",
                bounds.start
            ),
            outcome: RaftOutcome::NodeFails,
        });
    }
    let reads = kept
        .iter()
        .map(|s| check_snapshot(&s.path).map(|r| (s, r)))
        .collect::<Result<Vec<_>, _>>()?;
    judge_snapshots(&reads, bounds, &mut check);
    if let Some(latest) = kept.last().filter(|_| bounds.epochs_known) {
        truncation_to_snapshot(latest, bounds, &mut check);
    }
    quorum_state(&partition.dir, bounds, &mut check)?;
    Ok(check)
}

/// `.checkpoint.part` files (a snapshot whose writing never finished): the
/// node deletes them at start (`KafkaMetadataLog.recoverSnapshots`).
/// `.checkpoint.deleted` ones, deleted there too, are already stray files
/// of the partition (every `.deleted` file is).
fn partial_snapshots(dir: &Path, check: &mut RaftLogCheck) -> Result<(), LogDirError> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| LogDirError::io(dir, e))? {
        let entry = entry.map_err(|e| LogDirError::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".checkpoint.part") {
            found.push(entry.path());
        }
    }
    found.sort();
    check
        .findings
        .extend(found.into_iter().map(|file| RaftFinding {
            file,
            position: None,
            problem: "a snapshot whose writing never finished: the node deletes it at start".into(),
            outcome: RaftOutcome::KafkaChangesFiles,
        }));
    Ok(())
}

/// Findings for each snapshot the node keeps, and which of the damaged
/// ones can go: a damaged snapshot is moved aside when a clean snapshot
/// newer than it stays, or when a clean older snapshot (or the log from
/// offset 0) and the log after it still build its image.
fn judge_snapshots(
    reads: &[(&SnapshotFile, SnapshotRead)],
    bounds: LogBounds,
    check: &mut RaftLogCheck,
) {
    let last = reads.len().saturating_sub(1);
    for (i, (s, read)) in reads.iter().enumerate() {
        if let Some(epoch) = read.batch_epoch.filter(|&e| e != s.epoch) {
            check.findings.push(RaftFinding {
                file: s.path.clone(),
                position: None,
                problem: format!(
                    "its batches carry epoch {epoch}, its name epoch {}; Kafka goes by the name",
                    s.epoch
                ),
                outcome: RaftOutcome::Note,
            });
        }
        let Some(damage) = &read.damage else {
            continue;
        };
        let (problem, outcome) = if i == last {
            latest_damage(damage)
        } else {
            (
                format!(
                    "{}; only the latest snapshot is read at start, so this one matters only if it becomes the latest",
                    damage.reason()
                ),
                RaftOutcome::DamagedNotRead,
            )
        };
        check.findings.push(RaftFinding {
            file: s.path.clone(),
            position: Some(damage.position()),
            problem,
            outcome,
        });
        if let Some(because) = replacement(reads, i, bounds) {
            check.move_aside.push(MoveAside {
                file: s.path.clone(),
                because,
            });
        }
    }
}

/// What a damaged latest snapshot does to the node's start.
fn latest_damage(damage: &SnapshotDamage) -> (String, RaftOutcome) {
    match damage {
        SnapshotDamage::Unreadable { reason, .. } => (
            format!(
                "{reason}: the raft layer reads the latest snapshot, CRCs checked, as it initializes, and throws"
            ),
            RaftOutcome::NodeFails,
        ),
        SnapshotDamage::Cut { reason, .. } => (
            format!(
                "{reason}: the raft layer stops reading there without an error, so the node loads an image missing every record after it (topics, brokers, configs it held are gone from the node's view)"
            ),
            RaftOutcome::LosesData,
        ),
    }
}

/// Why the damaged snapshot `reads[i]` can be moved aside with nothing
/// lost, or `None` when it cannot.
fn replacement(
    reads: &[(&SnapshotFile, SnapshotRead)],
    i: usize,
    bounds: LogBounds,
) -> Option<String> {
    let (damaged, _) = reads.get(i)?;
    if let Some((newer, _)) = reads.iter().skip(i + 1).find(|(_, r)| r.damage.is_none()) {
        return Some(format!(
            "the newer snapshot {} is clean and is the one read",
            newer.path.display()
        ));
    }
    if damaged.end_offset > bounds.end {
        return None;
    }
    let older = reads
        .iter()
        .take(i)
        .rfind(|(s, r)| r.damage.is_none() && s.end_offset >= bounds.start);
    match older {
        Some((s, _)) => Some(format!(
            "the older snapshot {} (end offset {}) and the log from there (to {}) hold the same image",
            s.path.display(),
            s.end_offset,
            bounds.end
        )),
        None if bounds.start == 0 => Some(format!(
            "the log from offset 0 (to {}) holds the same image",
            bounds.end
        )),
        None => None,
    }
}

/// `truncateToLatestSnapshot`: a latest snapshot of a later epoch than the
/// log's last, or of the same epoch past the log end, makes the node
/// delete the whole log and start it at the snapshot's end offset.
fn truncation_to_snapshot(latest: &SnapshotFile, bounds: LogBounds, check: &mut RaftLogCheck) {
    let epoch = bounds.latest_epoch.unwrap_or(0);
    let truncates =
        latest.epoch > epoch || (latest.epoch == epoch && latest.end_offset > bounds.end);
    if !truncates {
        return;
    }
    let lost = bounds.end > latest.end_offset;
    let problem = format!(
        "the latest snapshot (epoch {}, end offset {}) is past the log (last epoch {epoch}, end offset {}): the node deletes every segment and starts the log at offset {}{}",
        latest.epoch,
        latest.end_offset,
        bounds.end,
        latest.end_offset,
        if lost {
            format!(
                ", dropping offsets {}..{} that no snapshot holds",
                latest.end_offset, bounds.end
            )
        } else {
            String::new()
        }
    );
    check.findings.push(RaftFinding {
        file: latest.path.clone(),
        position: None,
        problem,
        outcome: if lost {
            RaftOutcome::LosesData
        } else {
            RaftOutcome::KafkaChangesFiles
        },
    });
}

/// `quorum-state`: read as the raft layer reads it; a file it cannot read
/// stops the start. With it moved aside the node starts with no election
/// state, in the log's latest epoch, having voted for nobody.
fn quorum_state(
    dir: &Path,
    bounds: LogBounds,
    check: &mut RaftLogCheck,
) -> Result<(), LogDirError> {
    let path = dir.join("quorum-state");
    if !path.exists() {
        return Ok(());
    }
    let bytes = read_small(&path, QUORUM_STATE_LIMIT)?;
    match read_quorum_state(&bytes) {
        Err(e) => {
            check.findings.push(RaftFinding {
                file: path.clone(),
                position: Some(0),
                problem: format!(
                    "{e}: FileQuorumStateStore cannot read the election state, and the raft layer stops"
                ),
                outcome: RaftOutcome::NodeFails,
            });
            check.move_aside.push(MoveAside {
                file: path,
                because: "without it the node starts in the log's latest epoch having voted for nobody; if it had voted in a later epoch it could vote again in that epoch, so start it once the quorum has a leader, or restore the file".into(),
            });
        }
        Ok(_) if !bounds.epochs_known => {}
        Ok(state) => {
            let log_epoch = bounds.latest_epoch.unwrap_or(0);
            if state.leader_epoch < log_epoch {
                check.findings.push(RaftFinding {
                    file: path,
                    position: None,
                    problem: format!(
                        "its epoch {} is below the log's latest epoch {log_epoch}: the node starts unattached in epoch {log_epoch}",
                        state.leader_epoch
                    ),
                    outcome: RaftOutcome::Note,
                });
            }
        }
    }
    Ok(())
}
