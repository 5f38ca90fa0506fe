//! `kseg locate`: where an offset or a timestamp is, found the way the
//! broker finds it, with every step's numbers.

use kseg::inspect::locate::{
    EntryCount, RemoteFetch, log_start_offset, lookup_offset, lookup_timestamp, remote_fetch,
};
use kseg::logdir::Partition;
use kseg::logdir::target::resolve;
use kseg::render::OutputFormat;
use kseg::render::locate::{offset_trace, timestamp_trace};
use kseg::render::locate_tiered::with_remote;

use super::remote::remote_metadata;

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
    let Some((state, numbers)) = remote_metadata(&args.remote_log_metadata, &partition.log_dir())?
    else {
        return Ok(None);
    };
    Ok(remote_fetch(
        partition,
        offset,
        (local_start, args.log_start_offset),
        &state,
        numbers,
    ))
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
