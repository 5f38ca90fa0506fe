//! `kseg remote`: tiered storage's remote segments per partition, replayed
//! from the `__remote_log_metadata` partitions under PATH.

use std::io::Write;
use std::path::{Path, PathBuf};

use kseg::inspect::cluster::remote::RemoteLogState;
use kseg::inspect::cluster::remote::load::load_remote_partition;
use kseg::inspect::locate::{
    in_neither_tier, log_start_offset, remote_partition_key, tiered_log_start,
};
use kseg::logdir::Partition;
use kseg::logdir::target::resolve;
use kseg::render::remote::write_remote;
use kseg::schema::InternalTopic;

use super::groups::{partitions, report};
use crate::cli::RemoteArgs;
use crate::exit_code::ExitCode;

/// Whether the partition key `topicId:topic-partition` is of one of `topics`.
fn of_topics(key: &str, topics: &[String]) -> bool {
    let name = key.split_once(':').map_or(key, |(_, tp)| tp);
    let topic = name.rsplit_once('-').map_or(name, |(t, _)| t);
    topics.is_empty() || topics.iter().any(|t| t == topic)
}

/// Tiered storage's metadata for commands that answer across tiers: the
/// `__remote_log_metadata-N` partitions under `paths`, else those in
/// `log_dir`, replayed (what did not read is said on stderr), with their
/// partition numbers; `None` when there are none.
pub fn remote_metadata(
    paths: &[PathBuf],
    log_dir: &Path,
) -> anyhow::Result<Option<(RemoteLogState, Vec<i32>)>> {
    let paths = if paths.is_empty() {
        metadata_dirs_in(log_dir)
    } else {
        paths.to_vec()
    };
    let metadata: Vec<Partition> = partitions(&paths)?
        .into_iter()
        .filter(|(t, _)| *t == Some(InternalTopic::RemoteLogMetadata))
        .map(|(_, p)| p)
        .collect();
    if metadata.is_empty() {
        return Ok(None);
    }
    let mut state = RemoteLogState::default();
    for p in &metadata {
        let (problems, refused) = load_remote_partition(p, &mut state)?;
        report(&problems, "");
        refused.iter().for_each(|why| eprintln!("kseg: {why}"));
    }
    let numbers = metadata
        .iter()
        .filter_map(|p| p.topic_partition.as_ref().map(|(_, n)| *n))
        .collect();
    Ok(Some((state, numbers)))
}

/// The `__remote_log_metadata-N` directories in `log_dir`.
fn metadata_dirs_in(log_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(log_dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                    InternalTopic::of_partition_dir(n) == Some(InternalTopic::RemoteLogMetadata)
                })
        })
        .collect();
    dirs.sort();
    dirs
}

/// `verify`'s tiered storage check: for every partition under `paths`
/// that `__remote_log_metadata` in its log dir names, the offsets in
/// neither tier (above the log start offset, below the local log start,
/// in no finished remote segment), printed as findings; returns whether
/// there were any.
pub fn verify_tiers(paths: &[PathBuf], json: bool) -> anyhow::Result<bool> {
    let mut out = std::io::stdout().lock();
    let mut found = false;
    let mut dirs: Vec<(PathBuf, Partition)> = Vec::new();
    for path in paths {
        // Only where a log dir at or above the path holds metadata.
        if path
            .ancestors()
            .take(3)
            .all(|d| metadata_dirs_in(d).is_empty())
        {
            continue;
        }
        for target in resolve(path)? {
            dirs.push((target.log_dir(), target.partition));
        }
    }
    let mut loaded: Option<(PathBuf, Option<RemoteLogState>)> = None;
    for (log_dir, partition) in dirs {
        if InternalTopic::of_partition_dir(&partition.name()).is_some()
            || partition.segments.is_empty()
        {
            continue;
        }
        if loaded.as_ref().is_none_or(|(d, _)| *d != log_dir) {
            let state = remote_metadata(&[], &log_dir)?.map(|(s, _)| s);
            loaded = Some((log_dir.clone(), state));
        }
        let Some((_, Some(state))) = &loaded else {
            continue;
        };
        let Some(key) = remote_partition_key(&partition) else {
            continue;
        };
        let Some(remote) = state.partitions.get(&key) else {
            continue;
        };
        let (local_start, _) = log_start_offset(&partition, None)?;
        let (log_start, from) = tiered_log_start(&partition, None, Some(remote), local_start);
        for (first, last) in in_neither_tier(remote, log_start, local_start) {
            found = true;
            if json {
                let v = serde_json::json!({"type": "inNeitherTier", "dir": partition.dir.display().to_string(),
                    "partition": key, "firstOffset": first, "lastOffset": last,
                    "logStartOffset": log_start, "logStartOffsetSource": from, "localLogStartOffset": local_start});
                writeln!(out, "{v}")?;
            } else {
                writeln!(
                    out,
                    "{}: offsets {first}..{last} are in neither tier: above the log start offset {log_start} ({from}), below the local log start offset {local_start}, in no finished remote segment of {key}: a fetch of them gets OFFSET_OUT_OF_RANGE",
                    partition.dir.display()
                )?;
            }
        }
    }
    Ok(found)
}

/// Runs `kseg remote`.
pub fn run(args: &RemoteArgs) -> anyhow::Result<ExitCode> {
    let found: Vec<_> = partitions(&args.paths)?
        .into_iter()
        .filter(|(t, _)| *t == Some(InternalTopic::RemoteLogMetadata))
        .map(|(_, p)| p)
        .collect();
    if found.is_empty() {
        anyhow::bail!("no __remote_log_metadata-N partition under the paths given");
    }
    let mut state = RemoteLogState::default();
    let mut unread = false;
    for p in &found {
        let (problems, refused) = load_remote_partition(p, &mut state)?;
        report(&problems, "");
        for why in &refused {
            eprintln!("kseg: {why}");
        }
        unread |= !problems.items.is_empty() || !refused.is_empty();
    }
    let mut out = std::io::stdout().lock();
    let stuck = write_remote(
        &mut out,
        &state,
        &|key| of_topics(key, &args.topic),
        args.json,
    )?;
    if !args.json {
        writeln!(
            out,
            "{} partitions with remote segments, {stuck} stuck; {} records not applied (from {} __remote_log_metadata partitions)",
            state.partitions.len(),
            state.dropped.len(),
            found.len()
        )?;
    }
    Ok(if stuck > 0 || !state.dropped.is_empty() || unread {
        ExitCode::Findings
    } else {
        ExitCode::Ok
    })
}
