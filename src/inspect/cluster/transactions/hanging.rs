//! Whether an open transaction hangs, by the rule of `kafka-transactions.sh
//! find-hanging` (`TransactionsCommand.FindHangingTransactionsCommand`): a
//! transaction whose producer last wrote more than the maximum
//! transaction timeout ago is a candidate, and it hangs when the
//! coordinator has no transactional id with that producer id, or has one
//! whose transaction does not (or no longer) include the partition. What
//! `kafka-transactions.sh abort` then needs comes with it.

use super::coordinator::CoordinatorTxns;
use super::coverage::Coverage;
use super::open::OpenTxn;

/// Kafka's default `transaction.max.timeout.ms` (15 minutes), which
/// `find-hanging --max-transaction-timeout` also defaults to.
pub const DEFAULT_MAX_TRANSACTION_TIMEOUT_MS: i64 = 900_000;

/// The arguments of `kafka-transactions.sh abort` for one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbortSpec {
    /// `--topic`.
    pub topic: String,
    /// `--partition`.
    pub partition: i32,
    /// `--start-offset` (brokers 3.0 and later need only this).
    pub start_offset: i64,
    /// `--producer-id` (older brokers).
    pub producer_id: i64,
    /// `--producer-epoch` (older brokers).
    pub producer_epoch: i16,
    /// `--coordinator-epoch` (older brokers): the producer's last marker's,
    /// 0 when it has none, as the tool substitutes for -1.
    pub coordinator_epoch: i32,
}

/// kseg's answer to "does it hang?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// No marker will come unless someone aborts it.
    Hanging,
    /// The coordinator will end it, or find-hanging does not count it yet.
    NotHanging,
    /// Some coordinator partition was not read: the transactional id of
    /// the producer may be in it.
    Unknown,
}

impl Status {
    /// The status in words (`hanging`, `not hanging`, `unknown`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Hanging => "hanging",
            Self::NotHanging => "not hanging",
            Self::Unknown => "unknown",
        }
    }
}

/// What kseg concludes about one open transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Open for longer than the maximum timeout by its producer's last write.
    pub age_ms: i64,
    /// Whether it hangs.
    pub status: Status,
    /// Why, in words.
    pub reason: String,
    /// The transactional id the coordinator has for the producer, if any.
    pub transactional_id: Option<String>,
}

/// Judges `txn`, open in `topic`-`partition`, at `now_ms` against the
/// coordinator state read from the log dir, of which `coverage` says how
/// much of the `__transaction_state` partitions it holds.
pub fn judge(
    txn: &OpenTxn,
    (topic, partition): (&str, i32),
    coordinator: &CoordinatorTxns,
    coverage: &Coverage,
    now_ms: i64,
    max_timeout_ms: i64,
) -> Verdict {
    let age_ms = now_ms.saturating_sub(txn.last_timestamp);
    let found = coordinator.by_producer(txn.producer_id);
    let transactional_id = found.map(|(id, _)| id.to_string());
    let in_flight = found.is_some_and(|(_, m)| m.in_flight_on(topic, partition));
    let coordinator_says = match found {
        None if coordinator.read.is_empty() => {
            "no __transaction_state partition is in this log dir".to_string()
        }
        None => match coordinator.read.keys().collect::<Vec<_>>().as_slice() {
            [n] => format!(
                "no transactional id in __transaction_state-{n} has producer id {}",
                txn.producer_id
            ),
            read => format!(
                "no transactional id in the {} __transaction_state partitions read has producer id {}",
                read.len(),
                txn.producer_id
            ),
        },
        Some((id, m)) if in_flight => format!(
            "the coordinator has {id} {} with this partition: it will write the marker",
            m.state
        ),
        Some((id, m)) => format!(
            "the coordinator has {id} (producer {} epoch {}) {} without this partition",
            m.producer_id, m.producer_epoch, m.state
        ),
    };
    let old = age_ms > max_timeout_ms;
    let status = match coverage {
        _ if !old || in_flight => Status::NotHanging,
        Coverage::Complete => Status::Hanging,
        Coverage::Partial { .. } => Status::Unknown,
    };
    let mut reason = if old {
        format!(
            "its producer has been idle longer than the maximum transaction timeout ({max_timeout_ms} ms); {coordinator_says}"
        )
    } else {
        format!(
            "its producer wrote within the maximum transaction timeout ({max_timeout_ms} ms), so find-hanging does not count it yet; {coordinator_says}"
        )
    };
    if let (Status::Unknown, Coverage::Partial { read, count }) = (status, coverage) {
        reason.push_str(&format!(
            "; unknown: {read} of {count} coordinator partitions read, and the producer's transactional id may be in another"
        ));
    }
    Verdict {
        age_ms,
        status,
        reason,
        transactional_id,
    }
}

/// The `kafka-transactions.sh abort` arguments for `txn`.
pub fn abort_spec(txn: &OpenTxn, (topic, partition): (&str, i32)) -> AbortSpec {
    AbortSpec {
        topic: topic.to_string(),
        partition,
        start_offset: txn.first_offset,
        producer_id: txn.producer_id,
        producer_epoch: txn.producer_epoch,
        coordinator_epoch: txn.coordinator_epoch.max(0),
    }
}

#[cfg(test)]
mod tests {
    use super::super::coordinator::TxnMetadata;
    use super::*;

    fn txn() -> OpenTxn {
        OpenTxn {
            producer_id: 7,
            producer_epoch: 2,
            first_offset: 10,
            last_timestamp: 1_000,
            coordinator_epoch: -1,
        }
    }

    fn coordinator(state: &str, partitions: Vec<(String, i32)>) -> CoordinatorTxns {
        let mut c = CoordinatorTxns::default();
        c.read.insert(0, "__transaction_state-0".into());
        c.ids.insert(
            "t".into(),
            TxnMetadata {
                producer_id: 7,
                producer_epoch: 2,
                state: state.into(),
                partitions,
                timeout_ms: 60_000,
                start_timestamp: 0,
                last_update_timestamp: 0,
                record_offset: 0,
                v2: None,
            },
        );
        c
    }

    #[test]
    fn an_old_transaction_the_coordinator_lacks_hangs_only_when_every_partition_was_read() {
        const MAX: i64 = DEFAULT_MAX_TRANSACTION_TIMEOUT_MS;
        let now = 1_000 + MAX + 1;
        let tp = ("a", 0);
        let partial = Coverage::Partial { read: 1, count: 50 };
        let none = Coverage::Partial { read: 0, count: 50 };
        let all = Coverage::Complete;
        let empty = CoordinatorTxns::default();
        assert_eq!(
            judge(&txn(), tp, &empty, &none, now, MAX).status,
            Status::Unknown
        );
        let done = coordinator("CompleteCommit", vec![]);
        assert_eq!(
            judge(&txn(), tp, &done, &all, now, MAX).status,
            Status::Hanging
        );
        let v = judge(&txn(), tp, &done, &partial, now, MAX);
        assert_eq!(v.status, Status::Unknown);
        assert!(
            v.reason
                .contains("unknown: 1 of 50 coordinator partitions read"),
            "{}",
            v.reason
        );
        let ongoing = coordinator("Ongoing", vec![("a".into(), 0)]);
        assert_eq!(
            judge(&txn(), tp, &ongoing, &partial, now, MAX).status,
            Status::NotHanging
        );
        assert_eq!(
            judge(&txn(), tp, &done, &all, 2_000, MAX).status,
            Status::NotHanging
        );
        assert_eq!(abort_spec(&txn(), tp).coordinator_epoch, 0);
    }
}
