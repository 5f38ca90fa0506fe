//! `kseg transactions`: each transactional id's state in the coordinator,
//! and each transaction open in a data partition with what kseg concludes
//! about it, as text or as NDJSON.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::time::{age, duration, utc};
use crate::inspect::cluster::transactions::coordinator::{TxnMetadata, TxnV2Fields};
use crate::inspect::cluster::transactions::filter::TxnSummary;
use crate::inspect::cluster::transactions::hanging::{AbortSpec, Status, Verdict};
use crate::inspect::cluster::transactions::open::{OpenTxn, PartitionTxns};

/// One transactional id, as printed.
#[derive(Debug, Clone, Copy)]
pub struct IdReport<'a> {
    /// The id.
    pub id: &'a str,
    /// Its metadata.
    pub meta: &'a TxnMetadata,
    /// The clock, to tell whether an `Ongoing` transaction has timed out.
    pub now_ms: i64,
}

impl IdReport<'_> {
    /// `Ongoing` past `transactionStartTimestampMs + transactionTimeoutMs`:
    /// the coordinator aborts it once it runs
    /// (`TransactionStateManager.timedOutTransactions`).
    fn timed_out(&self) -> bool {
        self.meta.state == "Ongoing"
            && self
                .meta
                .start_timestamp
                .saturating_add(self.meta.timeout_ms)
                < self.now_ms
    }
}

/// The transactional id as one JSON object.
pub fn id_json(r: &IdReport<'_>) -> Value {
    let m = r.meta;
    let partitions: Vec<Value> = m
        .partitions
        .iter()
        .map(|(t, p)| json!({"topic": t, "partition": p}))
        .collect();
    json!({
        "transactionalId": r.id,
        "producerId": m.producer_id,
        "producerEpoch": m.producer_epoch,
        "state": m.state,
        "partitions": partitions,
        "timeoutMs": m.timeout_ms,
        "txnStartTimestamp": m.start_timestamp,
        "txnLastUpdateTimestamp": m.last_update_timestamp,
        "timedOut": r.timed_out(),
        "recordOffset": m.record_offset,
        "transactionVersion": m.v2.map_or(0, |v| v.client_transaction_version),
        "previousProducerId": m.v2.map(|v| v.previous_producer_id),
        "nextProducerId": m.v2.map(|v| v.next_producer_id),
        "nextProducerEpoch": m.v2.map(|v| v.next_producer_epoch),
    })
}

/// What a v1 `TransactionLogValue` adds, in words: the client's
/// transaction version and the producer ids around an epoch overflow.
fn v2_text(v: &TxnV2Fields) -> String {
    let mut parts = vec![match v.client_transaction_version {
        2 => "transactions v2 (KIP-890: the epoch is bumped at every commit or abort)".to_string(),
        n => format!("transaction version {n}"),
    }];
    if v.previous_producer_id >= 0 {
        parts.push(format!("previous producer {}", v.previous_producer_id));
    }
    if v.next_producer_id >= 0 {
        parts.push(format!(
            "next producer {} epoch {}",
            v.next_producer_id, v.next_producer_epoch
        ));
    }
    parts.join(", ")
}

/// The transactional id in words.
pub fn write_id_text(w: &mut impl Write, r: &IdReport<'_>) -> io::Result<()> {
    let m = r.meta;
    let partitions: Vec<String> = m
        .partitions
        .iter()
        .map(|(t, p)| format!("{t}-{p}"))
        .collect();
    let partitions = if partitions.is_empty() {
        String::new()
    } else {
        format!(", partitions {}", partitions.join(" "))
    };
    writeln!(
        w,
        "{}: producer {} epoch {}, {}{partitions}, timeout {}, started {}, last update {}",
        r.id,
        m.producer_id,
        m.producer_epoch,
        m.state,
        duration(m.timeout_ms),
        utc(m.start_timestamp),
        utc(m.last_update_timestamp)
    )?;
    if let Some(v2) = m.v2.filter(|v| {
        v.client_transaction_version >= 2 || v.previous_producer_id >= 0 || v.next_producer_id >= 0
    }) {
        writeln!(w, "  {}", v2_text(&v2))?;
    }
    if r.timed_out() {
        writeln!(
            w,
            "  past its timeout ({} since it started): the coordinator aborts it once it runs",
            duration(r.now_ms - m.start_timestamp)
        )?;
    }
    Ok(())
}

/// The summary line printed before the transactional ids.
pub fn write_txn_summary(w: &mut impl Write, s: &TxnSummary) -> io::Result<()> {
    let states: Vec<String> = s.by_state.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let states = if states.is_empty() {
        String::new()
    } else {
        format!(" ({})", states.join(", "))
    };
    let unknown = if s.unknown > 0 {
        format!(", {} not judged", s.unknown)
    } else {
        String::new()
    };
    writeln!(
        w,
        "Summary: {} transactional ids{states}; {} open transactions in the data partitions read, {} hanging{unknown}",
        s.ids(),
        s.open,
        s.hanging
    )
}

/// One open transaction, as printed.
#[derive(Debug, Clone)]
pub struct OpenReport<'a> {
    /// The partition it is open in.
    pub partition: &'a PartitionTxns,
    /// The transaction.
    pub txn: &'a OpenTxn,
    /// What kseg concludes.
    pub verdict: Verdict,
    /// What `kafka-transactions.sh abort` needs (presented as the fix only
    /// when it hangs).
    pub abort: AbortSpec,
}

/// The command that aborts it on a broker of 3.0 or later.
fn abort_command(a: &AbortSpec) -> String {
    format!(
        "kafka-transactions.sh --bootstrap-server <broker> abort --topic {} --partition {} --start-offset {}",
        a.topic, a.partition, a.start_offset
    )
}

/// The open transaction as `{"openTransaction": {…}}`.
pub fn open_json(r: &OpenReport<'_>) -> Value {
    let a = &r.abort;
    json!({"openTransaction": {
        "topic": a.topic,
        "partition": a.partition,
        "producerId": r.txn.producer_id,
        "producerEpoch": r.txn.producer_epoch,
        "firstOffset": r.txn.first_offset,
        "lastTimestamp": r.txn.last_timestamp,
        "ageMs": r.verdict.age_ms,
        "lastStableOffset": r.partition.last_stable_offset,
        "logEndOffset": r.partition.log_end_offset,
        "highWatermark": r.partition.high_watermark,
        "transactionalId": r.verdict.transactional_id,
        "hanging": match r.verdict.status {
            Status::Hanging => Value::Bool(true),
            Status::NotHanging => Value::Bool(false),
            Status::Unknown => Value::Null,
        },
        "verdict": r.verdict.status.name(),
        "reason": r.verdict.reason,
        "abort": {
            "topic": a.topic,
            "partition": a.partition,
            "startOffset": a.start_offset,
            "producerId": a.producer_id,
            "producerEpoch": a.producer_epoch,
            "coordinatorEpoch": a.coordinator_epoch,
            "command": (r.verdict.status == Status::Hanging).then(|| abort_command(a)),
        },
    }})
}

/// The open transaction in words.
pub fn write_open_text(w: &mut impl Write, r: &OpenReport<'_>) -> io::Result<()> {
    let t = r.txn;
    let p = r.partition;
    writeln!(
        w,
        "open transaction in {}: producer {} epoch {} from offset {}, last write {} ({}); the last stable offset is held at {} (log end {})",
        p.name,
        t.producer_id,
        t.producer_epoch,
        t.first_offset,
        utc(t.last_timestamp),
        age(r.verdict.age_ms),
        p.last_stable_offset,
        p.log_end_offset
    )?;
    let verdict = match r.verdict.status {
        Status::Hanging => "HANGING",
        Status::NotHanging => "not hanging",
        Status::Unknown => "UNKNOWN",
    };
    writeln!(w, "  {verdict}: {}", r.verdict.reason)?;
    let a = &r.abort;
    match r.verdict.status {
        Status::Hanging => {
            writeln!(w, "  abort it: {}", abort_command(a))?;
            writeln!(
                w,
                "  (brokers before 3.0: --producer-id {} --producer-epoch {} --coordinator-epoch {} instead of --start-offset)",
                a.producer_id, a.producer_epoch, a.coordinator_epoch
            )?;
        }
        Status::Unknown => writeln!(
            w,
            "  if it does hang, abort would need --topic {} --partition {} --start-offset {} (before 3.0: --producer-id {} --producer-epoch {} --coordinator-epoch {})",
            a.topic,
            a.partition,
            a.start_offset,
            a.producer_id,
            a.producer_epoch,
            a.coordinator_epoch
        )?,
        Status::NotHanging => {}
    }
    Ok(())
}
