//! `kseg groups`: the groups and committed offsets the group coordinator
//! loads from the `__consumer_offsets` partitions under PATH.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use kseg::inspect::cluster::capped::Capped;
use kseg::inspect::cluster::groups::lag::{PartitionEnd, log_end_offsets};
use kseg::inspect::cluster::groups::offsets::TopicPartition;
use kseg::inspect::cluster::groups::replicas::pick_replicas;
use kseg::inspect::cluster::groups::shard::{Shard, load_shard};
use kseg::logdir::Partition;
use kseg::logdir::target::resolve;
use kseg::render::groups::{GroupReport, group_json, write_group_text};
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

/// The log end offsets of the data partitions the shards hold offsets
/// for, by log dir: each partition is opened once, however many shards
/// hold its groups' offsets.
fn log_ends(
    shards: &[Shard],
) -> anyhow::Result<BTreeMap<&Path, BTreeMap<TopicPartition, PartitionEnd>>> {
    let mut wanted: BTreeMap<&Path, Vec<&TopicPartition>> = BTreeMap::new();
    for shard in shards {
        let offsets = &shard.state.offsets;
        let committed = offsets.committed.values().flat_map(BTreeMap::keys);
        let pending = offsets
            .pending
            .values()
            .flat_map(|g| g.values())
            .flat_map(BTreeMap::keys);
        wanted
            .entry(&shard.log_dir)
            .or_default()
            .extend(committed.chain(pending));
    }
    let mut ends = BTreeMap::new();
    for (log_dir, tps) in wanted {
        ends.insert(log_dir, log_end_offsets(log_dir, tps)?);
    }
    Ok(ends)
}

/// Runs `kseg groups`.
pub fn run(args: &GroupsArgs) -> anyhow::Result<ExitCode> {
    let partitions: Vec<Partition> = partitions(&args.paths)?
        .into_iter()
        .filter(|(topic, _)| *topic == Some(InternalTopic::ConsumerOffsets))
        .map(|(_, p)| p)
        .collect();
    if partitions.is_empty() {
        anyhow::bail!(
            "{}: no __consumer_offsets-N partition directory here",
            shown(&args.paths)
        );
    }
    let picked = pick_replicas(partitions)?;
    for note in &picked.notes {
        eprintln!("kseg: {note}");
    }
    let partitions = picked.kept;
    let total: u64 = partitions
        .iter()
        .flat_map(|p| &p.segments)
        .map(|s| s.log_size())
        .sum();
    let bar = super::progress_bar(total, args.json);
    let mut shards: Vec<Shard> = Vec::new();
    let mut code = ExitCode::Ok;
    for p in &partitions {
        let shard = load_shard(p, &mut |bytes| bar.inc(bytes))?;
        if !shard.problems.is_empty() {
            code = ExitCode::Findings;
        }
        bar.suspend(|| {
            report(&shard.problems, "");
            report(&shard.state.notes, &format!("{}: ", shard.partition));
        });
        shards.push(shard);
    }
    bar.finish_and_clear();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut printed = 0usize;
    let ends = log_ends(&shards)?;
    let no_ends = BTreeMap::new();
    for shard in &shards {
        let s = &shard.state;
        let log_ends = ends.get(shard.log_dir.as_path()).unwrap_or(&no_ends);
        let mut ids: Vec<&str> = s.groups.keys().map(String::as_str).collect();
        ids.extend(s.offsets.groups());
        ids.sort_unstable();
        ids.dedup();
        for id in ids
            .into_iter()
            .filter(|id| args.group.as_deref().is_none_or(|g| g == *id))
        {
            let pending: Vec<_> = s
                .offsets
                .pending
                .iter()
                .filter_map(|(producer, groups)| Some((*producer, groups.get(id)?)))
                .flat_map(|(producer, offsets)| {
                    offsets.iter().map(move |(tp, o)| (producer, tp, o))
                })
                .collect();
            let report = GroupReport {
                id,
                shard: &shard.partition,
                group: s.groups.get(id),
                offsets: s.offsets.committed.get(id),
                pending: &pending,
                log_ends,
            };
            if args.json {
                writeln!(out, "{}", group_json(&report))?;
            } else {
                write_group_text(&mut out, &report)?;
            }
            printed += 1;
        }
    }
    out.flush()?;
    if printed == 0 {
        if let Some(g) = &args.group {
            eprintln!("kseg: no group {g} in {}", shown(&args.paths));
            code = code.max(ExitCode::Findings);
        }
    }
    Ok(code)
}
