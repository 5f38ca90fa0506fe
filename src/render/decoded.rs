//! Decoded internal-topic records as `kseg dump` prints them: the JSON
//! members of a record object, and kafka-dump-log's ` key: … payload: …`
//! texts (JSON for the coordinators and metadata, the transaction log's
//! own `transaction_metadata::…` form, `<DELETE>` for a tombstone).

use std::borrow::Cow;

use serde_json::Value;

use super::bytes::ByteEncoding;
use crate::format::ControlType;
use crate::schema::topics::transaction_state_name;
use crate::schema::{Decoded, DecodedRecord, InternalTopic};

/// Kafka's JSON of a decoded key or value, held as a `Value` or as its
/// compact text.
pub trait KafkaJson {
    /// The JSON as a value.
    fn to_value(&self) -> Cow<'_, Value>;
    /// The JSON as compact text.
    fn text(&self) -> Cow<'_, str>;
}

impl KafkaJson for Value {
    fn to_value(&self) -> Cow<'_, Value> {
        Cow::Borrowed(self)
    }
    fn text(&self) -> Cow<'_, str> {
        Cow::Owned(self.to_string())
    }
}

impl KafkaJson for Cow<'_, str> {
    fn text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
    fn to_value(&self) -> Cow<'_, Value> {
        // The text comes from the decoder's own writer, so it always parses.
        Cow::Owned(serde_json::from_str(self).unwrap_or(Value::Null))
    }
}

impl KafkaJson for String {
    fn text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
    fn to_value(&self) -> Cow<'_, Value> {
        // The text comes from the decoder's own writer, so it always parses.
        Cow::Owned(serde_json::from_str(self).unwrap_or(Value::Null))
    }
}

/// A record's key or value in a JSON record object, and why it did not
/// decode (for a `keyError`/`valueError` member).
pub fn json_member<P: KafkaJson>(
    decoded: &Decoded<P>,
    raw: Option<&[u8]>,
    encoding: ByteEncoding,
) -> (Value, Option<String>) {
    let raw_value = || raw.map_or(Value::Null, |b| Value::String(encoding.render(b)));
    match decoded {
        Decoded::Json(v) => (v.to_value().into_owned(), None),
        Decoded::Null => (Value::Null, None),
        Decoded::NotDecoded => (raw_value(), None),
        Decoded::Failed(reason) => (raw_value(), Some(reason.clone())),
    }
}

fn field<'v>(data: &'v Value, name: &str) -> &'v Value {
    data.get(name).unwrap_or(&Value::Null)
}

/// The transaction log value as kafka-dump-log prints it.
fn transaction_payload(value: &Value) -> String {
    let data = field(value, "data");
    let status = field(data, "transactionStatus").as_i64();
    let state = status.and_then(transaction_state_name).map_or_else(
        || format!("Unknown({})", status.unwrap_or(-1)),
        str::to_string,
    );
    let partitions: Vec<String> = if state == "Empty" {
        Vec::new()
    } else {
        field(data, "transactionPartitions")
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|tp| {
                let topic = field(tp, "topic").as_str().unwrap_or_default().to_string();
                field(tp, "partitionIds")
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(move |p| format!("{topic}-{p}"))
            })
            .collect()
    };
    format!(
        "producerId:{},producerEpoch:{},state={state},partitions=[{}],txnLastUpdateTimestamp={},txnTimeoutMs={}",
        field(data, "producerId"),
        field(data, "producerEpoch"),
        partitions.join(","),
        field(data, "transactionLastUpdateTimestampMs"),
        field(data, "transactionTimeoutMs"),
    )
}

/// The text after ` key: `, `None` when no key is printed.
pub fn key_text<'d, P: KafkaJson>(
    topic: InternalTopic,
    d: &'d DecodedRecord<P>,
    raw: Option<&[u8]>,
    encoding: ByteEncoding,
) -> Option<Cow<'d, str>> {
    match &d.key {
        Decoded::Json(v) if topic == InternalTopic::TransactionState => Some(Cow::Owned(format!(
            "transaction_metadata::transactionalId={}",
            field(field(&v.to_value(), "data"), "transactionalId")
                .as_str()
                .unwrap_or_default()
        ))),
        Decoded::Json(v) => Some(v.text()),
        Decoded::Null => None,
        Decoded::NotDecoded | Decoded::Failed(_) => raw.map(|b| Cow::Owned(encoding.render(b))),
    }
}

/// The text after ` payload: `, `None` when no payload is printed.
pub fn payload_text<'d, P: KafkaJson>(
    topic: InternalTopic,
    d: &'d DecodedRecord<P>,
    raw: Option<&[u8]>,
    encoding: ByteEncoding,
) -> Option<Cow<'d, str>> {
    match &d.value {
        Decoded::Json(v) if topic == InternalTopic::TransactionState => {
            Some(Cow::Owned(transaction_payload(&v.to_value())))
        }
        Decoded::Json(v) => Some(v.text()),
        Decoded::Null => Some(Cow::Borrowed("<DELETE>")),
        Decoded::NotDecoded | Decoded::Failed(_) => raw.map(|b| Cow::Owned(encoding.render(b))),
    }
}

/// Why the key or value did not decode (` decodeError: …`).
pub fn error_text<P>(d: &DecodedRecord<P>) -> Option<String> {
    let reasons: Vec<&str> = [&d.key, &d.value]
        .into_iter()
        .filter_map(|part| match part {
            Decoded::Failed(reason) => Some(reason.as_str()),
            _ => None,
        })
        .collect();
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

/// kafka-dump-log's text for a KRaft control record with a JSON form
/// (` SnapshotHeader {…}`, ` KRaftVoters {…}`), from its decoded value.
pub fn control_text<P: KafkaJson>(
    control_type: ControlType,
    d: &DecodedRecord<P>,
) -> Option<String> {
    let label = match control_type {
        ControlType::SnapshotHeader => "SnapshotHeader",
        ControlType::SnapshotFooter => "SnapshotFooter",
        ControlType::KraftVersion => "KRaftVersion",
        ControlType::KraftVoters => "KRaftVoters",
        _ => return None,
    };
    match &d.value {
        Decoded::Json(v) => v
            .to_value()
            .get("data")
            .map(|data| format!("{label} {data}")),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_transaction_log_prints_as_kafka_dump_log_prints_it() {
        let d = DecodedRecord {
            key: Decoded::Json(json!({"version": 0, "data": {"transactionalId": "t1"}})),
            value: Decoded::Json(json!({"version": 1, "data": {
                "producerId": 7, "producerEpoch": 2, "transactionTimeoutMs": 60000, "transactionStatus": 1,
                "transactionPartitions": [{"topic": "a", "partitionIds": [0, 3]}],
                "transactionLastUpdateTimestampMs": 99, "transactionStartTimestampMs": 98}})),
        };
        let t = InternalTopic::TransactionState;
        let enc = ByteEncoding::Utf8;
        assert_eq!(
            key_text(t, &d, None, enc).unwrap(),
            "transaction_metadata::transactionalId=t1"
        );
        assert_eq!(
            payload_text(t, &d, None, enc).unwrap(),
            "producerId:7,producerEpoch:2,state=Ongoing,partitions=[a-0,a-3],txnLastUpdateTimestamp=99,txnTimeoutMs=60000"
        );
    }

    #[test]
    fn a_failed_record_prints_its_raw_bytes_and_the_reason() {
        let d: DecodedRecord = DecodedRecord {
            key: Decoded::Failed("key at byte 0: unknown record type 99".into()),
            value: Decoded::NotDecoded,
        };
        let t = InternalTopic::ConsumerOffsets;
        assert_eq!(
            key_text(t, &d, Some(b"k"), ByteEncoding::Utf8).unwrap(),
            "k"
        );
        assert_eq!(
            payload_text(t, &d, Some(b"v"), ByteEncoding::Hex).unwrap(),
            "76"
        );
        assert_eq!(
            error_text(&d).unwrap(),
            "key at byte 0: unknown record type 99"
        );
        let (value, error) = json_member(&d.key, Some(b"k"), ByteEncoding::Base64);
        assert_eq!((value, error.is_some()), (json!("aw=="), true));
    }
}
