//! Control records of the internal topics, decoded: end-transaction markers
//! (a 2-byte version and the coordinator epoch) and the KRaft control
//! records (leader change, snapshot header and footer, kraft.version,
//! voters), each its schema's message, which starts with its own version.

use std::borrow::Cow;

use serde_json::{Value, json};

use super::decode::{DecodeError, decode_message};
use super::emit::TextEmitter;
use super::registry::registry;
use super::topics::{Decoded, DecodedRecord, InternalTopic, decode_record, decode_record_str};
use crate::format::ControlType;
use crate::format::cursor::Cursor;

/// The `clients/` schema of a KRaft control record type.
pub fn control_schema(control_type: ControlType) -> Option<&'static str> {
    match control_type {
        ControlType::LeaderChange => Some("LeaderChangeMessage"),
        ControlType::SnapshotHeader => Some("SnapshotHeaderRecord"),
        ControlType::SnapshotFooter => Some("SnapshotFooterRecord"),
        ControlType::KraftVersion => Some("KRaftVersionRecord"),
        ControlType::KraftVoters => Some("VotersRecord"),
        ControlType::Abort | ControlType::Commit | ControlType::Unknown(_) => None,
    }
}

/// The version Kafka reads every KRaft control record at
/// (`ControlRecordUtils`' `*_CURRENT_VERSION`); the record carries its own
/// `Version` field.
const CONTROL_READ_VERSION: i16 = 0;

fn control_value(control_type: ControlType, value: &[u8]) -> Result<Value, DecodeError> {
    let mut c = Cursor::new(value, 0);
    if let ControlType::Abort | ControlType::Commit = control_type {
        c.read_i16()?;
        let epoch = c.read_i32()?;
        return Ok(json!({"controlType": control_type.name(), "coordinatorEpoch": epoch}));
    }
    let name = control_schema(control_type).ok_or_else(|| {
        DecodeError::new(0, format!("unknown control type {}", control_type.name()))
    })?;
    let spec = registry()
        .map_err(|e| DecodeError::new(0, e))?
        .by_name("clients", name)
        .ok_or_else(|| DecodeError::new(0, format!("no schema {name}")))?;
    let data = decode_message(spec, CONTROL_READ_VERSION, &mut c)?;
    let version = data
        .get("version")
        .cloned()
        .unwrap_or(json!(CONTROL_READ_VERSION));
    Ok(json!({"version": version, "data": data}))
}

/// Decodes a control record's key (`{"version", "type", "controlType"}`)
/// and value.
pub fn decode_control(key: Option<&[u8]>, value: Option<&[u8]>) -> DecodedRecord {
    let mut kc = Cursor::new(key.unwrap_or_default(), 0);
    let parsed = kc.read_i16().and_then(|v| Ok((v, kc.read_i16()?)));
    let (version, type_id) = match parsed {
        Ok(found) => found,
        Err(e) => {
            return DecodedRecord {
                key: Decoded::Failed(format!("control key {e}")),
                value: Decoded::NotDecoded,
            };
        }
    };
    let control_type = ControlType::from_id(type_id);
    DecodedRecord {
        key: Decoded::Json(
            json!({"version": version, "type": type_id, "controlType": control_type.name()}),
        ),
        value: value.map_or(Decoded::Null, |v| {
            control_value(control_type, v).map_or_else(
                |e| Decoded::Failed(format!("control value {e}")),
                Decoded::Json,
            )
        }),
    }
}

/// A record of a batch of `topic`: a control record (`is_control`, the
/// batch's attribute) by its control schemas, else a data record of the
/// topic.
pub fn decode_in_batch(
    topic: InternalTopic,
    is_control: bool,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> DecodedRecord {
    if is_control {
        decode_control(key, value)
    } else {
        decode_record(topic, key, value)
    }
}

/// [`decode_in_batch`] as compact JSON text (`e` is reused scratch space,
/// which a data record's texts are borrowed from).
pub fn decode_in_batch_text<'e>(
    topic: InternalTopic,
    is_control: bool,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    e: &'e mut TextEmitter,
) -> DecodedRecord<Cow<'e, str>> {
    if is_control {
        let d = decode_control(key, value);
        DecodedRecord {
            key: d.key.map(|v| Cow::Owned(v.to_string())),
            value: d.value.map(|v| Cow::Owned(v.to_string())),
        }
    } else {
        let d = decode_record_str(topic, key, value, e);
        DecodedRecord {
            key: d.key.map(Cow::Borrowed),
            value: d.value.map(Cow::Borrowed),
        }
    }
}
