//! `kseg transactions`: the transaction coordinator's state and the
//! transactions open in the data partitions under PATH, hanging ones named.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use kseg::inspect::cluster::groups::replicas::pick_replicas;
use kseg::inspect::cluster::transactions::coordinator::CoordinatorTxns;
use kseg::inspect::cluster::transactions::coverage::{Coverage, PartitionCount};
use kseg::inspect::cluster::transactions::filter::TxnSummary;
use kseg::inspect::cluster::transactions::hanging::{Status, abort_spec, judge};
use kseg::inspect::cluster::transactions::open::{PartitionTxns, open_transactions};
use kseg::logdir::Partition;
use kseg::render::transactions::{
    IdReport, OpenReport, id_json, open_json, write_id_text, write_open_text, write_txn_summary,
};
use kseg::schema::InternalTopic;

use super::groups::{partitions, report};
use crate::cli::TransactionsArgs;
use crate::exit_code::ExitCode;

/// The PATHs' `__transaction_state` partitions (one replica each), their
/// data partitions, and the log dirs holding them.
fn sorted_partitions(
    args: &TransactionsArgs,
) -> anyhow::Result<(Vec<Partition>, Vec<Partition>, Vec<PathBuf>)> {
    let mut coordinator_partitions = Vec::new();
    let mut data = Vec::new();
    for (topic, p) in partitions(&args.paths)? {
        match topic {
            Some(InternalTopic::TransactionState) => coordinator_partitions.push(p),
            Some(InternalTopic::ClusterMetadata) => {}
            _ => data.push(p),
        }
    }
    let mut log_dirs: Vec<PathBuf> = coordinator_partitions
        .iter()
        .chain(&data)
        .map(Partition::log_dir)
        .chain(args.paths.iter().cloned())
        .collect();
    log_dirs.sort();
    log_dirs.dedup();
    let picked = pick_replicas(coordinator_partitions)?;
    for note in &picked.notes {
        eprintln!("kseg: {note}");
    }
    Ok((picked.kept, data, log_dirs))
}

/// Runs `kseg transactions`.
pub fn run(args: &TransactionsArgs) -> anyhow::Result<ExitCode> {
    let now = crate::time_arg::clock(args.now);
    let (coordinator_partitions, data, log_dirs) = sorted_partitions(args)?;
    let count = args
        .transaction_partitions
        .map_or_else(|| PartitionCount::find(&log_dirs), PartitionCount::given);
    let total: u64 = coordinator_partitions
        .iter()
        .chain(&data)
        .flat_map(|p| &p.segments)
        .map(|s| s.log_size())
        .sum();
    let bar = super::progress_bar(total, args.json);
    let mut code = ExitCode::Ok;
    let mut coordinator = CoordinatorTxns::default();
    for p in &coordinator_partitions {
        coordinator.load(p, &mut |bytes| bar.inc(bytes))?;
    }
    if !coordinator.problems.is_empty() || !count.warnings.is_empty() {
        code = ExitCode::Findings;
    }
    let coverage = Coverage::of(&coordinator, &count);
    bar.suspend(|| {
        report(&coordinator.problems, "");
        for w in &count.warnings {
            eprintln!("kseg: metadata log: {w}");
        }
        if let Coverage::Partial { read, count: n } = coverage {
            eprintln!(
                "kseg: {read} of {n} __transaction_state partitions read (N from {}): a producer whose transactional id is in another cannot be judged",
                count.source
            );
        }
    });
    let mut open = Vec::new();
    for p in &data {
        open.push(open_transactions(p)?);
        bar.inc(p.segments.iter().map(|s| s.log_size()).sum());
    }
    bar.finish_and_clear();
    let judged = judge_all(&open, &coordinator, &coverage, now, args);
    if judged.iter().any(|r| r.verdict.status == Status::Hanging) {
        code = code.max(ExitCode::Findings);
    }
    let filter = args.filter();
    let mut out = BufWriter::new(io::stdout().lock());
    if !args.json && args.transactional_id.is_empty() {
        let verdicts = judged.iter().map(|r| &r.verdict);
        write_txn_summary(
            &mut out,
            &TxnSummary::of(coordinator.ids.values(), verdicts),
        )?;
    }
    for (id, meta) in &coordinator.ids {
        if !filter.keeps_id(id, meta) {
            continue;
        }
        let r = IdReport {
            id,
            meta,
            now_ms: now,
        };
        if args.json {
            writeln!(out, "{}", id_json(&r))?;
        } else {
            write_id_text(&mut out, &r)?;
        }
    }
    if coordinator_partitions.is_empty() && !args.json {
        writeln!(
            out,
            "no __transaction_state partition here: whether an open transaction hangs cannot be told"
        )?;
    }
    for r in judged.iter().filter(|r| filter.keeps_open(&r.verdict)) {
        if args.json {
            writeln!(out, "{}", open_json(r))?;
        } else {
            write_open_text(&mut out, r)?;
        }
    }
    out.flush()?;
    Ok(code)
}

/// Every open transaction of `open` with kseg's verdict on it.
fn judge_all<'a>(
    open: &'a [PartitionTxns],
    coordinator: &CoordinatorTxns,
    coverage: &Coverage,
    now: i64,
    args: &TransactionsArgs,
) -> Vec<OpenReport<'a>> {
    let mut reports = Vec::new();
    for partition in open {
        let (topic, number) = match &partition.topic_partition {
            Some((t, n)) => (t.as_str(), *n),
            None => (partition.name.as_str(), 0),
        };
        for txn in &partition.open {
            let max = args.max_transaction_timeout_ms;
            let verdict = judge(txn, (topic, number), coordinator, coverage, now, max);
            reports.push(OpenReport {
                partition,
                txn,
                verdict,
                abort: abort_spec(txn, (topic, number)),
            });
        }
    }
    reports
}
