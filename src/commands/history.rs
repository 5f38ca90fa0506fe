//! `kseg history`: every change of the metadata log as an event, printed
//! as the replay reads it.

use std::io::Write as _;

use std::collections::BTreeMap;
use std::path::PathBuf;

use kseg::inspect::cluster::history::partition_story::{leader_epoch_starts, partition_story};
use kseg::inspect::cluster::history::{Event, History};
use kseg::inspect::cluster::metadata::load::{
    ImageRequest, Loaded, Start, find_metadata_partition, replay_with,
};
use kseg::logdir::Partition;
use kseg::render::history::{new_leader_epoch, story_json, story_line, text_line, to_json};

use crate::cli::HistoryArgs;
use crate::exit_code::ExitCode;

/// The directory of the `--partition` asked for, when the path is a log
/// dir that holds it beside the metadata log, and its leader epochs.
fn data_partition(args: &HistoryArgs) -> anyhow::Result<Option<(PathBuf, BTreeMap<i32, i64>)>> {
    let Some((topic, id)) = &args.partition else {
        return Ok(None);
    };
    let dir = args.path.join(format!("{topic}-{id}"));
    if find_metadata_partition(&args.path).is_none() || !dir.is_dir() {
        return Ok(None);
    }
    let epochs = leader_epoch_starts(&Partition::open(&dir)?)?;
    Ok(Some((dir, epochs)))
}

/// Runs `kseg history`.
pub fn run(args: &HistoryArgs) -> anyhow::Result<ExitCode> {
    let filter = args.filter();
    let data = data_partition(args)?;
    let epoch_start = |event: &Event| {
        let (_, epochs) = data.as_ref()?;
        let epoch = new_leader_epoch(&event.change)?;
        Some((epoch, *epochs.get(&epoch)?))
    };
    let request = ImageRequest {
        at_offset: None,
        snapshot: args.snapshot.clone(),
        start: Start::Oldest,
    };
    let mut out = std::io::stdout().lock();
    let mut failed: Option<std::io::Error> = None;
    let mut printed = 0u64;
    let emit = |event: Event| {
        if failed.is_some() || !filter.keeps(&event) {
            return;
        }
        let start = epoch_start(&event);
        let written = if args.json {
            let mut v = to_json(&event);
            if let Some((_, offset)) = start {
                v["leaderEpochStartOffset"] = offset.into();
            }
            writeln!(out, "{v}")
        } else {
            let note = start.map_or(String::new(), |(epoch, offset)| {
                format!("; its files: leader epoch {epoch} starts at offset {offset}")
            });
            writeln!(out, "{}{note}", text_line(&event))
        };
        match written {
            Ok(()) => printed += 1,
            Err(e) => failed = Some(e),
        }
    };
    let Loaded {
        replayed: history,
        snapshot,
        offset,
        warnings: mut damage,
        notes,
        ..
    } = replay_with(&args.path, &request, &|_| {}, |r| History::new(r, emit))?;
    let replayed = history.finish();
    if let Some(e) = failed {
        return Err(e.into());
    }
    if let Some((dir, _)) = &data {
        let name = dir.display().to_string();
        let mut written = Ok(());
        let stopped = partition_story(dir, |e| {
            if written.is_ok() && filter.keeps_time(e.timestamp) {
                written = if args.json {
                    writeln!(out, "{}", story_json(&name, &e))
                } else {
                    writeln!(out, "{}", story_line(&name, &e))
                };
                printed += 1;
            }
        })?;
        written?;
        damage.extend(stopped);
    }
    if !args.json {
        let from = match &snapshot {
            Some(s) => format!(
                "the state of the snapshot {} (before offset {}; its records are not events)",
                s.path.display(),
                s.end_offset
            ),
            None => "an empty image".into(),
        };
        writeln!(
            out,
            "{printed} events through offset {}, from {from}",
            offset
        )?;
    }
    for w in damage.iter().chain(&notes) {
        eprintln!("kseg: {w}");
    }
    let refused = replayed.refused.items.len() as u64 + replayed.refused.omitted;
    if refused > 0 {
        eprintln!(
            "kseg: {refused} records the image refuses are no events (kseg metadata lists them)"
        );
    }
    Ok(if damage.is_empty() {
        ExitCode::Ok
    } else {
        ExitCode::Findings
    })
}
