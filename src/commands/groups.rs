//! `kseg groups`: the groups and committed offsets the group coordinator
//! loads from the `__consumer_offsets` partitions under PATH.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use kseg::inspect::cluster::capped::Capped;
use kseg::inspect::cluster::groups::filter::summarize;
use kseg::inspect::cluster::groups::lag::{consumer_log_ends, share_partition_ends};
use kseg::inspect::cluster::groups::load::LoadProblem;
use kseg::inspect::cluster::groups::replicas::pick_replicas;
use kseg::inspect::cluster::groups::shard::{Shard, ShareStateShard, load_shard, load_share_state};
use kseg::logdir::Partition;
use kseg::logdir::target::resolve;
use kseg::render::groups::{write_groups, write_groups_summary};
use kseg::render::share_state::write_share_states;
use kseg::schema::InternalTopic;

use crate::cli::GroupsArgs;
use crate::exit_code::ExitCode;

/// Every partition under `paths`, each once and whole (even when a PATH
/// names one of its segments), with the internal topic it belongs to.
pub fn partitions(paths: &[PathBuf]) -> anyhow::Result<Vec<(Option<InternalTopic>, Partition)>> {
    let mut found: BTreeMap<PathBuf, Partition> = BTreeMap::new();
    for path in paths {
        for target in resolve(path)? {
            let p = target.partition;
            found.entry(p.dir.clone()).or_insert(p);
        }
    }
    Ok(found
        .into_values()
        .map(|p| (InternalTopic::of_partition_dir(&p.name()), p))
        .collect())
}

/// Prints what a load kept on stderr, each prefixed, then how many more
/// there were.
pub fn report<T: std::fmt::Display>(list: &Capped<T>, prefix: &str) {
    for item in &list.items {
        eprintln!("kseg: {prefix}{item}");
    }
    if list.omitted > 0 {
        eprintln!("kseg: {prefix}… and {} more like these", list.omitted);
    }
}

/// PATHs for messages.
pub fn shown(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(" ")
}

/// Runs `kseg groups`.
pub fn run(args: &GroupsArgs) -> anyhow::Result<ExitCode> {
    let (offsets, share_state): (Vec<_>, Vec<_>) = partitions(&args.paths)?
        .into_iter()
        .filter(|(topic, _)| {
            matches!(
                topic,
                Some(InternalTopic::ConsumerOffsets | InternalTopic::ShareGroupState)
            )
        })
        .partition(|(topic, _)| *topic == Some(InternalTopic::ConsumerOffsets));
    if offsets.is_empty() && share_state.is_empty() {
        anyhow::bail!(
            "{}: no __consumer_offsets-N or __share_group_state-N partition directory here",
            shown(&args.paths)
        );
    }
    let picked = pick_replicas(offsets.into_iter().map(|(_, p)| p).collect())?;
    let share_state = pick_replicas(share_state.into_iter().map(|(_, p)| p).collect())?;
    for note in picked.notes.iter().chain(&share_state.notes) {
        eprintln!("kseg: {note}");
    }
    let total: u64 = picked
        .kept
        .iter()
        .chain(&share_state.kept)
        .flat_map(|p| &p.segments)
        .map(|s| s.log_size())
        .sum();
    let bar = super::progress_bar(total, args.json);
    let mut code = ExitCode::Ok;
    let mut shards: Vec<Shard> = Vec::new();
    for p in &picked.kept {
        let shard = load_shard(p, &mut |bytes| bar.inc(bytes))?;
        code = code.max(loaded(
            &bar,
            &shard.problems,
            &shard.state.notes,
            &shard.partition,
        ));
        shards.push(shard);
    }
    let mut share_shards: Vec<ShareStateShard> = Vec::new();
    for p in &share_state.kept {
        let shard = load_share_state(p, &mut |bytes| bar.inc(bytes))?;
        code = code.max(loaded(
            &bar,
            &shard.problems,
            &shard.state.notes,
            &shard.partition,
        ));
        share_shards.push(shard);
    }
    bar.finish_and_clear();
    let mut out = BufWriter::new(io::stdout().lock());
    let filter = args.filter();
    let ends = consumer_log_ends(&shards)?;
    let mut share_ends = Vec::new();
    for shard in &share_shards {
        share_ends.push(share_partition_ends(shard)?);
    }
    if !args.json && args.group.is_empty() {
        write_groups_summary(&mut out, &summarize(&shards, &ends, &share_shards))?;
    }
    let printed = write_groups(&mut out, &shards, &ends, &filter, args.json)?
        + write_share_states(&mut out, &share_shards, &share_ends, &filter, args.json)?;
    out.flush()?;
    if printed == 0 && !args.group.is_empty() {
        let ids = args.group.join(", ");
        eprintln!("kseg: no group {ids} in {}", shown(&args.paths));
        code = code.max(ExitCode::Findings);
    } else if printed == 0 && filter.narrows() {
        eprintln!("kseg: no group matches the filters");
    }
    Ok(code)
}

/// Reports what one partition's load kept; the load's problems make the
/// exit code `Findings`.
fn loaded(
    bar: &indicatif::ProgressBar,
    problems: &Capped<LoadProblem>,
    notes: &Capped<String>,
    partition: &str,
) -> ExitCode {
    bar.suspend(|| {
        report(problems, "");
        report(notes, &format!("{partition}: "));
    });
    if problems.is_empty() {
        ExitCode::Ok
    } else {
        ExitCode::Findings
    }
}
