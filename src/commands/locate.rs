//! `kseg locate`: where an offset or a timestamp is, found the way the
//! broker finds it, with every step's numbers.

use std::path::PathBuf;

use kseg::inspect::cluster::remote::RemoteLogState;
use kseg::inspect::cluster::remote::load::load_remote_partition;
use kseg::inspect::locate::{
    EntryCount, RemoteFetch, log_start_offset, lookup_offset, lookup_timestamp, remote_fetch,
};
use kseg::logdir::Partition;
use kseg::logdir::target::resolve;
use kseg::render::OutputFormat;
use kseg::render::locate::{offset_trace, timestamp_trace};
use kseg::render::locate_tiered::with_remote;
use kseg::schema::InternalTopic;

use super::groups::{partitions, report};

use crate::cli::LocateArgs;
use crate::exit_code::ExitCode;

/// Runs `kseg locate`.
pub fn run(args: &LocateArgs) -> anyhow::Result<ExitCode> {
    let partition = one_partition(&args.dir)?;
    let (log_start, _) = log_start_offset(&partition, args.log_start_offset)?;
    let count = if args.as_opened {
        EntryCount::AsOpened
    } else {
        EntryCount::Live
    };
    let (trace, served) = match (args.offset, args.timestamp) {
        (Some(offset), _) => {
            let lookup = lookup_offset(&partition, offset, log_start, count)?;
            let trace = offset_trace(&lookup, args.deep);
            match tiered(&partition, offset, args)? {
                Some(fetch) => (with_remote(trace, offset, &fetch), fetch.is_served()),
                None => (trace, lookup.verdict.is_served()),
            }
        }
        (None, Some(time)) => {
            let lookup = lookup_timestamp(&partition, time, log_start, count)?;
            (timestamp_trace(&lookup), lookup.is_served())
        }
        (None, None) => anyhow::bail!("give --offset or --timestamp"),
    };
    let format = OutputFormat::json_if(args.json);
    trace.write(&mut std::io::stdout().lock(), format)?;
    Ok(if served {
        ExitCode::Ok
    } else {
        ExitCode::Findings
    })
}

/// The remote lookup of `offset` when it is below the local log start and
/// `__remote_log_metadata` partitions are found (in `--remote-log-metadata`,
/// else beside the partition); `None` otherwise.
fn tiered(
    partition: &Partition,
    offset: i64,
    args: &LocateArgs,
) -> anyhow::Result<Option<RemoteFetch>> {
    let (local_start, _) = log_start_offset(partition, None)?;
    if offset >= local_start {
        return Ok(None);
    }
    let paths = if args.remote_log_metadata.is_empty() {
        metadata_dirs_beside(partition)
    } else {
        args.remote_log_metadata.clone()
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
    Ok(remote_fetch(
        partition,
        offset,
        (local_start, args.log_start_offset),
        &state,
        numbers,
    ))
}

/// The `__remote_log_metadata-N` directories in the partition's log dir.
fn metadata_dirs_beside(partition: &Partition) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(partition.log_dir()) else {
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

/// The partition PATH names: a partition directory, or a `.log` in one
/// (the lookup runs over the whole partition, as the broker's does).
fn one_partition(path: &std::path::Path) -> anyhow::Result<Partition> {
    let mut targets = resolve(path)?;
    match targets.len() {
        1 => Ok(targets.remove(0).partition),
        n => anyhow::bail!(
            "{}: a log dir of {n} partitions; locate looks in one, so give its partition directory",
            path.display()
        ),
    }
}
