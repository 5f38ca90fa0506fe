//! The transaction coordinator's state as it loads it from
//! `__transaction_state` (`TransactionStateManager.loadTransactionMetadata`):
//! the latest `TransactionLogValue` of each transactional id, a tombstone
//! removing the id.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::inspect::cluster::capped::Capped;
use crate::inspect::cluster::groups::load::{LoadEvent, LoadProblem, load_partition};
use crate::logdir::{LogDirError, Partition};
use crate::schema::InternalTopic;
use crate::schema::topics::transaction_state_name;

/// One transactional id's metadata, as the coordinator keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnMetadata {
    /// The producer id.
    pub producer_id: i64,
    /// The producer epoch.
    pub producer_epoch: i16,
    /// The state, by Kafka's name (`Unknown(n)` for an id no version names).
    pub state: String,
    /// The partitions in the transaction, as topic and partition.
    pub partitions: Vec<(String, i32)>,
    /// `transactionTimeoutMs`.
    pub timeout_ms: i64,
    /// `transactionStartTimestampMs`.
    pub start_timestamp: i64,
    /// `transactionLastUpdateTimestampMs`.
    pub last_update_timestamp: i64,
    /// The offset of the record it was read from.
    pub record_offset: i64,
    /// Transactions v2 (KIP-890, `TransactionLogValue` v1's tagged
    /// fields): what the value says, `None` for a v0 value.
    pub v2: Option<TxnV2Fields>,
}

/// The fields `TransactionLogValue` v1 adds for transactions v2 (KIP-890),
/// each as the record says it (-1 or 0 where it is left at its default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxnV2Fields {
    /// The producer id before the last epoch overflow (`PreviousProducerId`).
    pub previous_producer_id: i64,
    /// The producer id the next epoch bump moves to (`NextProducerId`).
    pub next_producer_id: i64,
    /// The epoch going with it (`NextProducerEpoch`).
    pub next_producer_epoch: i16,
    /// The client's transaction version: 2 when the producer speaks
    /// transactions v2 (`ClientTransactionVersion`; 0 when unset).
    pub client_transaction_version: i64,
}

/// States in which the coordinator still has markers to write to the
/// transaction's partitions (`DescribeTransactions` lists them).
pub const IN_FLIGHT: [&str; 4] = [
    "Ongoing",
    "PrepareCommit",
    "PrepareAbort",
    "PrepareEpochFence",
];

impl TxnMetadata {
    /// Reads a decoded `TransactionLogValue`'s data, of value version
    /// `version` (v1 on carries [`TxnV2Fields`]).
    pub fn from_value(record_offset: i64, version: i64, data: &Value) -> Self {
        let int = |name: &str| data.get(name).and_then(Value::as_i64).unwrap_or(-1);
        let status = int("transactionStatus");
        let partitions = data
            .get("transactionPartitions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .flat_map(|tp| {
                let topic = tp.get("topic").and_then(Value::as_str).unwrap_or_default();
                tp.get("partitionIds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_i64)
                    .filter_map(move |p| Some((topic.to_string(), i32::try_from(p).ok()?)))
            })
            .collect();
        Self {
            producer_id: int("producerId"),
            producer_epoch: i16::try_from(int("producerEpoch")).unwrap_or(-1),
            state: transaction_state_name(status)
                .map_or_else(|| format!("Unknown({status})"), str::to_string),
            partitions,
            timeout_ms: int("transactionTimeoutMs"),
            start_timestamp: int("transactionStartTimestampMs"),
            last_update_timestamp: int("transactionLastUpdateTimestampMs"),
            record_offset,
            v2: (version >= 1).then(|| TxnV2Fields {
                previous_producer_id: int("previousProducerId"),
                next_producer_id: int("nextProducerId"),
                next_producer_epoch: i16::try_from(int("nextProducerEpoch")).unwrap_or(-1),
                client_transaction_version: data
                    .get("clientTransactionVersion")
                    .and_then(Value::as_i64)
                    .unwrap_or(0),
            }),
        }
    }

    /// Whether the coordinator will still write a marker to `topic`-`partition`.
    pub fn in_flight_on(&self, topic: &str, partition: i32) -> bool {
        IN_FLIGHT.contains(&self.state.as_str())
            && self
                .partitions
                .iter()
                .any(|(t, p)| t == topic && *p == partition)
    }
}

/// The transactional ids of the `__transaction_state` partitions read.
#[derive(Debug, Clone, Default)]
pub struct CoordinatorTxns {
    /// Each id's latest metadata.
    pub ids: BTreeMap<String, TxnMetadata>,
    /// The `__transaction_state` partitions read: number to directory.
    pub read: BTreeMap<i32, String>,
    /// What did not read, with file and byte position.
    pub problems: Capped<LoadProblem>,
}

impl CoordinatorTxns {
    /// Adds one `__transaction_state-N` partition.
    pub fn load(
        &mut self,
        partition: &Partition,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), LogDirError> {
        let ids = &mut self.ids;
        let problems = load_partition(
            partition,
            InternalTopic::TransactionState,
            progress,
            &mut |event| {
                let LoadEvent::Record {
                    offset,
                    key,
                    value,
                    value_version,
                    ..
                } = event
                else {
                    return;
                };
                let Some(id) = key
                    .get("data")
                    .and_then(|d| d.get("transactionalId"))
                    .and_then(Value::as_str)
                else {
                    return;
                };
                match value {
                    None => {
                        ids.remove(id);
                    }
                    Some(data) => {
                        let version = i64::from(value_version.unwrap_or(0));
                        let meta = TxnMetadata::from_value(offset, version, data);
                        ids.insert(id.to_string(), meta);
                    }
                }
            },
        )?;
        self.problems.append(problems);
        let number = partition.topic_partition.as_ref().map_or(-1, |(_, n)| *n);
        self.read
            .insert(number, partition.dir.display().to_string());
        Ok(())
    }

    /// The transactional id whose current producer is `producer_id`.
    pub fn by_producer(&self, producer_id: i64) -> Option<(&str, &TxnMetadata)> {
        self.ids
            .iter()
            .find(|(_, m)| m.producer_id == producer_id)
            .map(|(id, m)| (id.as_str(), m))
    }
}
