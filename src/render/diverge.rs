//! `kseg diverge`: per replica its log and epochs, per follower the
//! truncation step by step, the common-prefix check and what it loses; or
//! one JSON object per follower with the same facts.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::format::checkpoint::LeaderEpochEntry;
use crate::inspect::diverge::epoch_cache::{EndOffsetCase, EpochEndOffset};
use crate::inspect::diverge::lost::{LostRecords, LostSpan};
use crate::inspect::diverge::prefix::{BatchPlace, PrefixCheck};
use crate::inspect::diverge::truncation::{TruncationRule, TruncationStep};
use crate::inspect::diverge::{DivergeReport, FollowerReport, Replica};

use super::OutputFormat;
use super::time::utc;

fn epochs_text(entries: &[LeaderEpochEntry]) -> String {
    let parts: Vec<String> = entries
        .iter()
        .map(|e| format!("{}@{}", e.epoch, e.start_offset))
        .collect();
    format!("[{}]", parts.join(", "))
}

fn leader_answer_text(requested: i32, a: &EpochEndOffset) -> String {
    match a.case {
        EndOffsetCase::Latest => format!(
            "epoch {requested} is its latest, so its log end offset {}",
            a.end_offset
        ),
        EndOffsetCase::Floor => format!(
            "epoch {}, end offset {} (its largest epoch <= {requested} is {}; the next starts at {})",
            a.epoch, a.end_offset, a.epoch, a.end_offset
        ),
        EndOffsetCase::BelowFirst => format!(
            "epoch {requested}, end offset {} ({requested} is below all its epochs; the first starts at {})",
            a.end_offset, a.end_offset
        ),
        EndOffsetCase::NoHigherEpoch => format!(
            "UNDEFINED (it knows no epoch above {requested}, and {requested} is not its latest: a copy taken before it recorded the epoch it was elected in?)"
        ),
        EndOffsetCase::RequestedUndefined => "UNDEFINED (no epoch asked)".to_string(),
    }
}

fn decision_text(s: &TruncationStep) -> String {
    let leader_end = s.leader_answer.map_or(-1, |a| a.end_offset);
    let answered = s.leader_answer.map_or(-1, |a| a.epoch);
    let own = s.follower_answer;
    match s.rule {
        TruncationRule::NoEpochHighWatermark => format!(
            "the follower knows no leader epoch: truncate to its high watermark {}",
            s.truncate_to
        ),
        TruncationRule::UndefinedOffsetHighWatermark => format!(
            "truncate to its initial fetch offset, its high watermark {}",
            s.truncate_to
        ),
        TruncationRule::UnknownEpochAskAgain => format!(
            "the follower does not know epoch {answered} (its largest epoch below is {}, ending at {}): truncate to min({}, log end {}) = {} and ask again (KIP-279)",
            own.map_or(-1, |o| o.epoch),
            own.map_or(-1, |o| o.end_offset),
            own.map_or(-1, |o| o.end_offset),
            s.log_end_before,
            s.truncate_to
        ),
        TruncationRule::SameEpoch => format!(
            "follower's end offset for epoch {answered} is {}: truncate to min({leader_end}, {}, log end {}) = {}",
            own.map_or(-1, |o| o.end_offset),
            own.map_or(-1, |o| o.end_offset),
            s.log_end_before,
            s.truncate_to
        ),
        TruncationRule::BelowFollowerEpochs => format!(
            "the follower's cache has no end offset for epoch {answered}: truncate to min({leader_end}, log end {}) = {}",
            s.log_end_before, s.truncate_to
        ),
    }
}

fn step_line(n: usize, s: &TruncationStep) -> String {
    let asked = match (s.requested_epoch, &s.leader_answer) {
        (Some(e), Some(a)) => format!(
            "asks for epoch {e} (its latest); leader answers {}; ",
            leader_answer_text(e, a)
        ),
        _ => String::new(),
    };
    let effect = if s.log_end_after < s.log_end_before {
        format!(" -> log end {} -> {}", s.log_end_before, s.log_end_after)
    } else {
        " -> nothing cut".to_string()
    };
    let removed = if s.epochs_removed.is_empty() {
        String::new()
    } else {
        format!("; epochs removed {}", epochs_text(&s.epochs_removed))
    };
    format!("  {n}. {asked}{}{effect}{removed}", decision_text(s))
}

fn place_text(p: &BatchPlace) -> String {
    format!(
        "segment {:020} byte {} (size {}, crc {})",
        p.segment, p.position, p.size, p.crc
    )
}

fn prefix_line(prefix: &PrefixCheck, truncation: i64) -> String {
    let skipped = if prefix.below_leader_start > 0 {
        format!(
            " ({} below the leader's log start not comparable)",
            prefix.below_leader_start
        )
    } else {
        String::new()
    };
    match &prefix.first_divergence {
        None => format!(
            "  common prefix: {} batches below {truncation} compared with the leader's (offsets, CRC, size): identical{skipped}",
            prefix.batches_compared
        ),
        Some(d) => format!(
            "  SILENT DIVERGENCE below the truncation point, at batch {}..{}: {}; follower {}, leader {}; Kafka will never repair it",
            d.base_offset,
            d.follower.last_offset,
            d.what,
            place_text(&d.follower),
            d.leader.as_ref().map_or("none".to_string(), place_text)
        ),
    }
}

fn span_text(s: &LostSpan) -> String {
    match (s.first_offset, s.last_offset) {
        (Some(a), Some(b)) => format!(
            "{} records in {} batch{}, {} bytes, offsets {a}..{b}",
            s.records,
            s.batches,
            if s.batches == 1 { "" } else { "es" },
            s.bytes
        ),
        _ => "nothing".to_string(),
    }
}

fn lost_lines(lost: &LostRecords) -> Vec<String> {
    if lost.all.batches == 0 {
        return vec!["  lost: nothing".to_string()];
    }
    let mut lines = vec![format!(
        "  lost: {}; epochs {:?}; producer ids {:?}; timestamps {} .. {}",
        span_text(&lost.all),
        lost.epochs,
        lost.producer_ids,
        lost.first_timestamp.map_or("?".to_string(), utc),
        lost.last_timestamp.map_or("?".to_string(), utc),
    )];
    match (&lost.committed, lost.high_watermark) {
        (Some(c), Some(hw)) => {
            lines.push(format!(
                "  committed (below its high watermark {hw}, acknowledged to acks=all producers): {}",
                span_text(c)
            ));
            lines.push(format!(
                "  never committed (at or past {hw}): {}",
                span_text(&lost.uncommitted)
            ));
            lines.push(
                "  (the checkpoint trails the live high watermark by up to replica.high.watermark.checkpoint.interval.ms, 5 s by default: more may have been committed)"
                    .to_string(),
            );
        }
        _ => lines.push(
            "  no replication-offset-checkpoint entry: committed or not is unknown".to_string(),
        ),
    }
    for t in &lost.transactions_cut {
        let hangs = if t.open_on_leader {
            format!(
                "; the leader has no marker for it either: a hanging transaction there, read_committed consumers stop at offset {} until a later marker of producer {} closes it or it is aborted (KIP-664: kafka-transactions.sh find-hanging, abort)",
                t.first_offset, t.producer_id
            )
        } else {
            String::new()
        };
        let marker = t
            .lost_marker_offset
            .map_or("its marker was never written".to_string(), |o| {
                format!("its marker at offset {o} is lost")
            });
        lines.push(format!(
            "  transaction of producer {} begun at offset {} is cut in the middle: {marker}{hangs}",
            t.producer_id, t.first_offset
        ));
    }
    lines
}

fn replica_line(r: &Replica, role: &str) -> Vec<String> {
    let range = if r.log_end_offset > r.log_start_offset {
        format!(
            "offsets {}..{} (log end offset {})",
            r.log_start_offset,
            r.log_end_offset - 1,
            r.log_end_offset
        )
    } else {
        format!("empty (log end offset {})", r.log_end_offset)
    };
    let hw = r.high_watermark.map_or(
        "unknown (no replication-offset-checkpoint entry)".to_string(),
        |h| h.to_string(),
    );
    let mut lines = vec![format!(
        "{role} {}: {range}, high watermark {hw}, epochs {} {}",
        r.dir.display(),
        epochs_text(r.epochs.cache.entries()),
        r.epochs.describe()
    )];
    lines.extend(r.recovery_note.iter().map(|n| format!("  {n}")));
    lines
}

fn follower_lines(report: &DivergeReport, f: &FollowerReport) -> Vec<String> {
    let r = &report.replicas[f.replica];
    let t = &f.truncation;
    let mut lines = vec![format!(
        "follower {} follows {}:",
        r.dir.display(),
        report.replicas[report.leader].dir.display()
    )];
    lines.extend(t.steps.iter().enumerate().map(|(i, s)| step_line(i + 1, s)));
    lines.push(format!(
        "  truncation offset {}: keeps the offsets below, fetches from there",
        t.truncation_offset
    ));
    lines.push(prefix_line(&f.prefix, t.truncation_offset));
    lines.extend(lost_lines(&f.lost));
    lines
}

/// The text report.
pub fn text_lines(report: &DivergeReport) -> Vec<String> {
    let leader = &report.replicas[report.leader];
    let mut lines = vec![format!(
        "{}: {} replicas; leader {} ({})",
        leader.partition.name(),
        report.replicas.len(),
        leader.dir.display(),
        report.leader_reason
    )];
    for (i, r) in report.replicas.iter().enumerate() {
        lines.extend(replica_line(
            r,
            if i == report.leader {
                "leader"
            } else {
                "replica"
            },
        ));
    }
    for f in &report.followers {
        lines.extend(follower_lines(report, f));
    }
    lines
}

fn step_json(n: usize, s: &TruncationStep) -> Value {
    let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
    v["text"] = json!(step_line(n, s).trim_start());
    v
}

/// One JSON object per follower.
pub fn follower_json(report: &DivergeReport, f: &FollowerReport) -> Value {
    let r = &report.replicas[f.replica];
    let leader = &report.replicas[report.leader];
    let lost = &f.lost;
    json!({
        "type": "follower",
        "replica": r.dir.display().to_string(),
        "leader": leader.dir.display().to_string(),
        "leaderReason": report.leader_reason,
        "logStartOffset": r.log_start_offset,
        "logEndOffset": r.log_end_offset,
        "highWatermark": r.high_watermark,
        "epochs": r.epochs.cache,
        "epochSource": r.epochs.source,
        "epochsInBatchesDisagree": r.epochs.batches_disagree,
        "recoveryNote": r.recovery_note,
        "truncationOffset": f.truncation.truncation_offset,
        "steps": f.truncation.steps.iter().enumerate().map(|(i, s)| step_json(i + 1, s)).collect::<Vec<_>>(),
        "lostRecords": lost.all.records,
        "lostCommittedRecords": lost.committed.map(|c| c.records),
        "lostUncommittedRecords": lost.uncommitted.records,
        "lost": lost,
        "commonPrefix": {
            "batchesCompared": f.prefix.batches_compared,
            "belowLeaderStart": f.prefix.below_leader_start,
        },
        "firstDivergentBatch": f.prefix.first_divergence,
    })
}

/// Writes the report as text lines or NDJSON.
pub fn write_report(
    out: &mut impl Write,
    report: &DivergeReport,
    format: OutputFormat,
) -> io::Result<()> {
    match format {
        OutputFormat::Text => text_lines(report)
            .iter()
            .try_for_each(|l| writeln!(out, "{l}")),
        OutputFormat::Json => report.followers.iter().try_for_each(|f| {
            serde_json::to_writer(&mut *out, &follower_json(report, f))?;
            writeln!(out)
        }),
    }
}
