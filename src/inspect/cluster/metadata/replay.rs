//! Records replayed in order into an image, with KIP-868 metadata
//! transactions as the broker's loader applies them
//! (`metadata/src/main/java/org/apache/kafka/image/loader/MetadataBatchLoader.java`):
//! the records after a `BeginTransactionRecord` are published only when its
//! `EndTransactionRecord` comes (`replay`, lines 219-233, and
//! `maybeFlushBatches`, 192-196: nothing is published while a transaction
//! is open); an `AbortTransactionRecord` publishes the image as it was
//! before the transaction (198-203). A Begin inside a transaction, or an
//! End or Abort outside one, is an error there (222, 232, 240); here it is
//! a refused record. The image is copied when a transaction begins, so the
//! memory is twice the live state at most, never the records.
//!
//! What kseg does not mirror: Kafka's loader keeps the aborted records in
//! its pending delta (only `resetToImage`, line 101, clears it), so when
//! another record or a new Begin follows the Abort in the same commit
//! handed to it (`MetadataLoader.handleCommit`, MetadataLoader.java:357-366,
//! one or more batches), `maybeFlushBatches` (204-212) or the Begin
//! (145-162) publishes that delta, aborted records included. Which batches
//! one commit holds is not on disk; kseg drops aborted records always, as
//! KIP-868 means.

use serde_json::Value;

use super::apply::apply;
use super::configs::SetBy;
use super::image::MetadataImage;
use super::quorum::Quorum;
use super::record::{MetadataRecord, types};
use crate::inspect::cluster::capped::Capped;
use crate::schema::tree::Node;

/// A metadata transaction: where it began, its name, how many records it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    /// Where its `BeginTransactionRecord` is.
    pub begin: SetBy,
    /// The name the Begin record gives.
    pub name: String,
    /// Metadata records inside it.
    pub records: u64,
    /// Where it was aborted, and why (for an aborted one).
    pub aborted: Option<(SetBy, String)>,
}

/// A record the image did not take, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedRecord {
    /// Where it is.
    pub at: SetBy,
    /// Its type (`PARTITION_CHANGE_RECORD`, …), or `?` if it did not decode.
    pub kind: String,
    /// Why.
    pub reason: String,
}

/// What replaying gave: the published image and how it came about.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replayed {
    /// The image as the loader would publish it.
    pub image: MetadataImage,
    /// Metadata records replayed (control records not counted).
    pub records: u64,
    /// A transaction still open at the end, whose records the image leaves out.
    pub open_transaction: Option<Transaction>,
    /// Transactions that were aborted, in order.
    pub aborted: Vec<Transaction>,
    /// Records the image refused (the first hundred, and a count).
    pub refused: Capped<RefusedRecord>,
    /// The KRaft voters and `kraft.version` from the control records.
    pub quorum: Quorum,
}

/// Applies records one at a time.
#[derive(Debug, Default)]
pub struct Replayer {
    out: Replayed,
    /// The image as published before the open transaction, and the transaction.
    before: Option<(MetadataImage, Transaction)>,
}

impl Replayer {
    /// A replayer starting from an empty image.
    pub fn new() -> Self {
        Self::default()
    }

    /// The image as the records so far made it, those of an open
    /// transaction included.
    pub fn image(&self) -> &MetadataImage {
        &self.out.image
    }

    /// The quorum state the control records so far give.
    pub fn quorum(&self) -> &Quorum {
        &self.out.quorum
    }

    /// How many records were refused so far.
    pub fn refused_count(&self) -> u64 {
        self.out.refused.items.len() as u64 + self.out.refused.omitted
    }

    /// Whether a metadata transaction is open.
    pub fn in_transaction(&self) -> bool {
        self.before.is_some()
    }

    fn refuse(&mut self, at: SetBy, kind: &str, reason: String) {
        self.out.refused.push(RefusedRecord {
            at,
            kind: kind.to_string(),
            reason,
        });
    }

    /// Replays one record: `value` is the decoded record, or why it did
    /// not decode.
    pub fn record(&mut self, value: Result<MetadataRecord<'_>, String>, at: SetBy) {
        self.out.records += 1;
        let record = match value {
            Ok(r) => r,
            Err(reason) => return self.refuse(at, "?", reason),
        };
        let (kind, data) = (record.kind, record.data);
        match record.api_key {
            types::BEGIN_TRANSACTION => self.begin(data, at),
            types::END_TRANSACTION => match self.before.take() {
                Some(_) => {}
                None => self.refuse(at, kind, "no transaction is open".into()),
            },
            types::ABORT_TRANSACTION => match self.before.take() {
                Some((image, mut txn)) => {
                    self.out.image = image;
                    let reason = data.get("reason").and_then(Node::as_str);
                    txn.aborted = Some((at, reason.unwrap_or_default().to_string()));
                    self.out.aborted.push(txn);
                }
                None => self.refuse(at, kind, "no transaction is open".into()),
            },
            _ => {
                if let Some((_, txn)) = &mut self.before {
                    txn.records += 1;
                }
                if let Err(reason) = apply(&mut self.out.image, record, at) {
                    self.refuse(at, kind, reason);
                }
            }
        }
    }

    /// Takes one KRaft control record: `key` and `value` are its decoded
    /// key (`{"controlType", …}`) and value (`{"version", "data"}`), or why
    /// it did not decode. A voters or version record that does not read
    /// is refused; the quorum keeps its previous value.
    pub fn control(&mut self, key: Option<&Value>, value: Result<&Value, String>, at: SetBy) {
        let kind = key
            .and_then(|k| k.get("controlType"))
            .and_then(Value::as_str)
            .unwrap_or("?");
        if !matches!(kind, "KRAFT_VOTERS" | "KRAFT_VERSION") {
            return;
        }
        let data = value.and_then(|v| v.get("data").ok_or_else(|| "no data".to_string()));
        let result = data.and_then(|d| self.out.quorum.control(kind, d, at));
        if let Err(reason) = result {
            self.refuse(at, kind, reason);
        }
    }

    fn begin(&mut self, data: Node<'_>, at: SetBy) {
        if let Some((_, open)) = &self.before {
            let reason = format!("a transaction is already open since {}", open.begin);
            return self.refuse(at, "BEGIN_TRANSACTION_RECORD", reason);
        }
        let name = data.get("name").and_then(Node::as_str).unwrap_or_default();
        let txn = Transaction {
            begin: at,
            name: name.to_string(),
            records: 0,
            aborted: None,
        };
        self.before = Some((self.out.image.clone(), txn));
    }

    /// The image as published: without the records of a transaction still open.
    pub fn finish(mut self) -> Replayed {
        if let Some((image, txn)) = self.before.take() {
            self.out.image = image;
            self.out.open_transaction = Some(txn);
        }
        self.out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::inspect::cluster::metadata::record::testing::{record, tree_of};

    fn run(records: &[serde_json::Value]) -> Replayed {
        let mut r = Replayer::new();
        for (offset, v) in records.iter().enumerate() {
            let (tree, piece) = tree_of(v);
            r.record(
                Ok(record(&tree, piece)),
                SetBy::Log {
                    offset: offset as i64,
                },
            );
        }
        r.finish()
    }

    fn config(name: &str, value: &str) -> serde_json::Value {
        json!({"type": "CONFIG_RECORD", "version": 0, "data": {
            "resourceType": 4, "resourceName": "", "name": name, "value": value}})
    }

    fn marker(kind: &str) -> serde_json::Value {
        json!({"type": kind, "version": 0, "data": {"name": "t", "reason": "r"}})
    }

    /// Records between Begin and End apply; between Begin and Abort they
    /// do not; one still open at the end is left out and reported.
    #[test]
    fn transactions_apply_at_end_only() {
        let r = run(&[
            config("a", "1"),
            marker("BEGIN_TRANSACTION_RECORD"),
            config("a", "2"),
            config("b", "2"),
            marker("ABORT_TRANSACTION_RECORD"),
            marker("BEGIN_TRANSACTION_RECORD"),
            config("c", "3"),
            marker("END_TRANSACTION_RECORD"),
            marker("BEGIN_TRANSACTION_RECORD"),
            config("d", "4"),
        ]);
        let d = &r.image.configs.cluster_default;
        assert_eq!(d["a"].value, "1");
        assert!(!d.contains_key("b") && !d.contains_key("d"));
        assert_eq!(d["c"].set_by, SetBy::Log { offset: 6 });
        assert_eq!(r.aborted.len(), 1);
        assert_eq!(r.aborted[0].records, 2);
        assert_eq!(
            r.open_transaction.as_ref().unwrap().begin,
            SetBy::Log { offset: 8 }
        );
        assert!(r.refused.is_empty());
    }

    /// An End or Abort with no transaction open, or a Begin inside one, is
    /// refused, as Kafka's loader throws on them; the records go on.
    #[test]
    fn misplaced_markers_are_refused() {
        let r = run(&[
            marker("END_TRANSACTION_RECORD"),
            marker("ABORT_TRANSACTION_RECORD"),
            marker("BEGIN_TRANSACTION_RECORD"),
            marker("BEGIN_TRANSACTION_RECORD"),
            config("a", "1"),
            marker("END_TRANSACTION_RECORD"),
        ]);
        let kinds: Vec<_> = r.refused.items.iter().map(|x| x.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "END_TRANSACTION_RECORD",
                "ABORT_TRANSACTION_RECORD",
                "BEGIN_TRANSACTION_RECORD"
            ]
        );
        assert_eq!(r.image.configs.cluster_default["a"].value, "1");
    }

    /// A change to a broker that is not registered, or with a stale epoch,
    /// is refused; refusals past the first hundred are counted.
    #[test]
    fn refusals_are_kept_bounded() {
        let change = json!({"type": "BROKER_REGISTRATION_CHANGE_RECORD", "version": 0,
            "data": {"brokerId": 9, "brokerEpoch": 1, "fenced": 1}});
        let r = run(&vec![change; 250]);
        assert_eq!(r.refused.items.len(), 100);
        assert_eq!(r.refused.omitted, 150);
        assert_eq!(r.refused.items[0].reason, "broker 9 is not registered");
    }
}
