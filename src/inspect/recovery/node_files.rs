//! A KRaft node's own files in its log dirs, judged as the node judges
//! them as it starts (broker and controller alike,
//! `KafkaRaftServer.initializeLogDirs`): each dir's `meta.properties`
//! (`MetaPropertiesEnsemble.Loader` and `verify`: one cluster id and one
//! node id across the dirs, a directory id per dir that is neither
//! reserved nor shared), the metadata log dir's `bootstrap.checkpoint`
//! (`BootstrapDirectory.read`), and that node's identity against the
//! metadata log's latest voter set (KIP-853: a voter is a node id with
//! the directory id of its metadata log dir) and its `quorum-state`
//! against that set (`QuorumState.initialize`).

use std::path::{Path, PathBuf};

use crate::format::java::uuid_from_string;
use crate::format::meta_properties::{
    MetaProperties, is_reserved_directory_id, read_meta_properties,
};
use crate::format::quorum_state::{QuorumState, read_quorum_state};
use crate::inspect::cluster::metadata::bootstrap_check::check_bootstrap;
use crate::inspect::cluster::metadata::quorum::VoterSet;
use crate::inspect::cluster::metadata::snapshot_check::SnapshotDamage;
use crate::inspect::recovery::raft_log::{RaftFinding, RaftOutcome};
use crate::logdir::LogDirError;
use crate::logdir::mapped::read_small;
use crate::logdir::properties_file::read_properties;

/// Files a broker writes at the top of a log dir once it has run there;
/// with one of them present, the dir is one a node has started in.
const RUN_MARKERS: [&str; 5] = [
    "recovery-point-offset-checkpoint",
    "log-start-offset-checkpoint",
    "replication-offset-checkpoint",
    "cleaner-offset-checkpoint",
    "bootstrap.checkpoint",
];

/// Larger than any `quorum-state`.
const SMALL_FILE_LIMIT: u64 = 1 << 20;

/// The metadata log as the node's identity is checked against it.
#[derive(Debug, Clone, Copy)]
pub struct MetadataLogView<'a> {
    /// The `__cluster_metadata-0` directory.
    pub partition_dir: &'a Path,
    /// Its latest voter set, when a `VotersRecord` was read.
    pub voters: Option<&'a VoterSet>,
    /// Whether the log holds no record (the bootstrap records then seed it).
    pub empty: bool,
}

/// Checks the node files of `log_dirs` (the dirs of one node), the one
/// holding `metadata` being the metadata log dir.
pub fn check_node_files(
    log_dirs: &[PathBuf],
    metadata: Option<MetadataLogView<'_>>,
) -> Result<Vec<RaftFinding>, LogDirError> {
    let mut findings = Vec::new();
    let metadata_dir = metadata.and_then(|m| m.partition_dir.parent().map(Path::to_path_buf));
    let mut read = Vec::new();
    for dir in log_dirs {
        let is_metadata_dir = metadata_dir.as_deref() == Some(dir.as_path());
        if let Some(props) = meta_properties(dir, is_metadata_dir, &mut findings)? {
            read.push((dir.join("meta.properties"), props));
        }
    }
    agreement(&read, &mut findings);
    if let (Some(view), Some(dir)) = (metadata, &metadata_dir) {
        let props = read
            .iter()
            .find(|(path, _)| path.parent() == Some(dir.as_path()));
        if let (Some(voters), Some((path, props))) = (view.voters, props) {
            voter_identity(path, props, voters, &mut findings);
        }
        if let Some(voters) = view.voters {
            quorum_state_voters(view.partition_dir, voters, &mut findings)?;
        }
        let bootstrap = dir.join("bootstrap.checkpoint");
        if bootstrap.is_file() {
            bootstrap_findings(&bootstrap, view.empty, &mut findings)?;
        }
    }
    Ok(findings)
}

fn finding(
    file: &Path,
    position: Option<u64>,
    problem: String,
    outcome: RaftOutcome,
) -> RaftFinding {
    RaftFinding {
        file: file.to_path_buf(),
        position,
        problem,
        outcome,
    }
}

/// Reads `dir/meta.properties` as the loader does, with findings for a
/// file the node cannot start with.
fn meta_properties(
    dir: &Path,
    is_metadata_dir: bool,
    findings: &mut Vec<RaftFinding>,
) -> Result<Option<MetaProperties>, LogDirError> {
    let path = dir.join("meta.properties");
    if !path.exists() {
        if RUN_MARKERS.iter().any(|m| dir.join(m).exists()) {
            findings.push(finding(
                &path,
                None,
                "there is none in a log dir a node has run in: a KRaft node does not start until the dir is formatted again (\"No `meta.properties` found\")".into(),
                RaftOutcome::NodeFails,
            ));
        }
        return Ok(None);
    }
    let props = match read_meta_properties(&read_properties(&path)?) {
        Ok(p) => p,
        Err(e) => {
            let (what, outcome) = if is_metadata_dir {
                (
                    "this is the metadata log dir, so the node does not start (\"Cannot continue\")",
                    RaftOutcome::NodeFails,
                )
            } else {
                (
                    "the node counts this log dir as failed and serves none of its partitions",
                    RaftOutcome::LogDirOffline,
                )
            };
            findings.push(finding(&path, Some(0), format!("{e}: {what}"), outcome));
            return Ok(None);
        }
    };
    let missing = match (props.node_id, &props.cluster_id) {
        (None, _) => Some("node.id (or broker.id in a version 0 file)"),
        (_, None) => Some("cluster.id"),
        _ => None,
    };
    if let Some(name) = missing {
        findings.push(finding(
            &path,
            None,
            format!("there is no {name}: a KRaft node does not start"),
            RaftOutcome::NodeFails,
        ));
    }
    match &props.directory_id {
        Some((text, id)) if is_reserved_directory_id(id) => findings.push(finding(
            &path,
            None,
            format!("directory.id {text} is one of the ids Kafka reserves: the node does not start"),
            RaftOutcome::NodeFails,
        )),
        Some(_) => {}
        None => findings.push(finding(
            &path,
            None,
            "there is no directory.id: the node (Kafka 3.7 and later) gives the dir a new random one and rewrites the file at start".into(),
            RaftOutcome::KafkaChangesFiles,
        )),
    }
    Ok(Some(props))
}

/// One cluster id and one node id across the node's dirs, and no
/// directory id twice.
fn agreement(read: &[(PathBuf, MetaProperties)], findings: &mut Vec<RaftFinding>) {
    let Some((first_path, first)) = read.first() else {
        return;
    };
    for (path, props) in read.iter().skip(1) {
        if let (Some(a), Some(b)) = (&first.cluster_id, &props.cluster_id)
            && a != b
        {
            findings.push(finding(
                path,
                None,
                format!(
                    "cluster.id {b} is not the {a} of {}: the node does not start (\"Invalid cluster.id\")",
                    first_path.display()
                ),
                RaftOutcome::NodeFails,
            ));
        }
        if let (Some(a), Some(b)) = (first.node_id, props.node_id)
            && a != b
        {
            findings.push(finding(
                path,
                None,
                format!(
                    "node.id {b} is not the {a} of {}: the node does not start (\"Stored node id … doesn't match\")",
                    first_path.display()
                ),
                RaftOutcome::NodeFails,
            ));
        }
    }
    for (i, (path, props)) in read.iter().enumerate() {
        let Some((text, id)) = &props.directory_id else {
            continue;
        };
        let earlier = read.iter().take(i).find(|(_, p)| {
            p.directory_id
                .as_ref()
                .is_some_and(|(_, other)| other == id)
        });
        if let Some((other, _)) = earlier {
            findings.push(finding(
                path,
                None,
                format!(
                    "directory.id {text} is also the id of {}: the node does not start (\"Duplicate directory ID\")",
                    other.display()
                ),
                RaftOutcome::NodeFails,
            ));
        }
    }
}

/// A voter is known by its node id and its metadata log dir's directory
/// id: a node listed in the voter set whose metadata log dir carries
/// another id (a reformatted disk, a copied dir) starts as an observer.
fn voter_identity(
    path: &Path,
    props: &MetaProperties,
    voters: &VoterSet,
    findings: &mut Vec<RaftFinding>,
) {
    let Some(node_id) = props.node_id else {
        return;
    };
    let Some(voter) = voters.voters.iter().find(|v| v.id == node_id) else {
        return;
    };
    let listed = uuid_from_string(&voter.directory_id);
    let zero = Some([0u8; 16]);
    if listed.is_none() || listed == zero {
        return;
    }
    let (problem, outcome) = match &props.directory_id {
        Some((_, id)) if Some(*id) == listed => return,
        Some((text, _)) => (
            format!(
                "node {node_id} is a voter whose metadata log dir has directory id {} in the voter set ({}), but this dir's directory.id is {text}: the node starts as an observer, and the quorum counts voter {node_id} as missing until it is removed and added again",
                voter.directory_id, voters.at
            ),
            RaftOutcome::LeavesQuorum,
        ),
        None => (
            format!(
                "node {node_id} is a voter with directory id {} in the voter set ({}), but this file has no directory.id: the node writes a new random one at start and joins as an observer, not as voter {node_id}",
                voter.directory_id, voters.at
            ),
            RaftOutcome::LeavesQuorum,
        ),
    };
    findings.push(finding(path, None, problem, outcome));
}

/// `quorum-state` against the latest voter set: a leader outside it makes
/// the node start unattached rather than following; a version 0 file's
/// own voter list is not used once the log carries a voter set.
fn quorum_state_voters(
    partition_dir: &Path,
    voters: &VoterSet,
    findings: &mut Vec<RaftFinding>,
) -> Result<(), LogDirError> {
    let path = partition_dir.join("quorum-state");
    if !path.is_file() {
        return Ok(());
    }
    let Ok(state) = read_quorum_state(&read_small(&path, SMALL_FILE_LIMIT)?) else {
        // An unreadable file is judged with the metadata log's raft files.
        return Ok(());
    };
    let ids: Vec<i32> = voters.voters.iter().map(|v| v.id).collect();
    let QuorumState {
        leader_id,
        leader_epoch,
        current_voters,
        ..
    } = state;
    if leader_id >= 0 && !ids.contains(&leader_id) {
        findings.push(finding(
            &path,
            None,
            format!(
                "its leader {leader_id} (epoch {leader_epoch}) is not in the latest voter set {ids:?} ({}): the node starts unattached and finds the leader through the bootstrap servers",
                voters.at
            ),
            RaftOutcome::Note,
        ));
    }
    if let Some(listed) = current_voters.filter(|l| !l.is_empty()) {
        let (mut a, mut b) = (listed.clone(), ids.clone());
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            findings.push(finding(
                &path,
                None,
                format!(
                    "it lists voters {listed:?}, the log's latest voter set is {ids:?} ({}): Kafka 3.8 and later go by the log's; 3.6 and 3.7 compared the file's list with controller.quorum.voters and did not start when they differed",
                    voters.at
                ),
                RaftOutcome::Note,
            ));
        }
    }
    Ok(())
}

/// `bootstrap.checkpoint` as the node reads it at every start.
fn bootstrap_findings(
    path: &Path,
    log_empty: bool,
    findings: &mut Vec<RaftFinding>,
) -> Result<(), LogDirError> {
    let read = check_bootstrap(path)?;
    let used = if log_empty {
        "the metadata log is empty, so these records are what the first active controller writes"
    } else {
        "its records are used only while the metadata log is empty, which it is not"
    };
    if let Some(position) = read.crc_mismatch {
        findings.push(finding(
            path,
            Some(position),
            format!("a batch's CRC does not match; the bootstrap reader does not check CRCs and takes its records as they are; {used}"),
            if log_empty {
                RaftOutcome::LosesData
            } else {
                RaftOutcome::DamagedNotRead
            },
        ));
    }
    match &read.damage {
        Some(SnapshotDamage::Unreadable { position, reason }) => {
            findings.push(finding(
                path,
                Some(*position),
                format!("{reason}: reading the bootstrap metadata throws"),
                RaftOutcome::NodeFails,
            ));
            return Ok(());
        }
        Some(SnapshotDamage::Cut { position, reason }) => findings.push(finding(
            path,
            Some(*position),
            format!("{reason}: the reader stops there without an error; {used}"),
            if log_empty {
                RaftOutcome::LosesData
            } else {
                RaftOutcome::DamagedNotRead
            },
        )),
        None => {}
    }
    match read.metadata_version {
        None => findings.push(finding(
            path,
            None,
            format!(
                "no FeatureLevelRecord for metadata.version among its {} records: the node does not start",
                read.records
            ),
            RaftOutcome::NodeFails,
        )),
        Some(level) if level < 4 => findings.push(finding(
            path,
            None,
            format!("metadata.version level {level} is below 4 (3.3-IV0), the lowest a bootstrap may set: the node does not start"),
            RaftOutcome::NodeFails,
        )),
        Some(level) if level < 7 => findings.push(finding(
            path,
            None,
            format!("metadata.version level {level} is below 7 (3.3-IV3), the lowest Kafka 4.0 and later know: a 4.x node does not start"),
            RaftOutcome::NodeFails,
        )),
        Some(_) => {}
    }
    Ok(())
}
