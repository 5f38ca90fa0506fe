//! The internal topics kseg decodes, and how each frames its keys and
//! values around a schema-described message.

use std::ops::Range;

use serde_json::Value;

use super::consumer_protocol::decode_member_protocols;
use super::decode::{DecodeError, emit_message, write_message_text};
use super::emit::{Emitter, TextEmitter, ValueEmitter};
use super::registry::{Registry, key_version, registry};
use super::spec::MessageSpec;
use super::tree::Tree;
use crate::format::cursor::Cursor;

/// A Kafka internal topic with a decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InternalTopic {
    /// `__consumer_offsets`: the group coordinator's records.
    ConsumerOffsets,
    /// `__transaction_state`: the transaction coordinator's records.
    TransactionState,
    /// `__cluster_metadata`: KRaft metadata records.
    ClusterMetadata,
    /// `__share_group_state`: the share coordinator's records.
    ShareGroupState,
    /// `__remote_log_metadata`: tiered storage's segment metadata.
    RemoteLogMetadata,
}

impl InternalTopic {
    /// Every internal topic with a decoder.
    pub const ALL: [Self; 5] = [
        Self::ConsumerOffsets,
        Self::TransactionState,
        Self::ClusterMetadata,
        Self::ShareGroupState,
        Self::RemoteLogMetadata,
    ];

    /// The topic's name.
    pub fn topic_name(self) -> &'static str {
        match self {
            Self::ConsumerOffsets => "__consumer_offsets",
            Self::TransactionState => "__transaction_state",
            Self::ClusterMetadata => "__cluster_metadata",
            Self::ShareGroupState => "__share_group_state",
            Self::RemoteLogMetadata => "__remote_log_metadata",
        }
    }

    /// The topic a partition directory (`__consumer_offsets-7`) belongs to.
    pub fn of_partition_dir(dir_name: &str) -> Option<Self> {
        let (topic, partition) = dir_name.rsplit_once('-')?;
        if partition.is_empty() || !partition.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Self::ALL.into_iter().find(|t| t.topic_name() == topic)
    }

    /// The `schemas/` folder of the topic's record schemas.
    pub fn schema_folder(self) -> &'static str {
        match self {
            Self::ConsumerOffsets => "group-coordinator",
            Self::TransactionState => "transaction-coordinator",
            Self::ClusterMetadata => "metadata",
            Self::ShareGroupState => "share-coordinator",
            Self::RemoteLogMetadata => "storage",
        }
    }
}

/// A record's key or value, decoded: its JSON as a `Value`, or (`P =
/// String`, from [`decode_record_text`]) as compact JSON text.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded<P = Value> {
    /// Kafka's JSON of it.
    Json(P),
    /// A null value: a tombstone (or a null key where the topic has none).
    Null,
    /// Bytes this topic does not decode (a key of a metadata record).
    NotDecoded,
    /// It did not decode: why, and where.
    Failed(String),
}

/// One record's decoded key and value.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedRecord<P = Value> {
    /// The key.
    pub key: Decoded<P>,
    /// The value.
    pub value: Decoded<P>,
}

impl<P> Decoded<P> {
    /// The same, with the JSON mapped by `f`.
    pub fn map<Q>(self, f: impl FnOnce(P) -> Q) -> Decoded<Q> {
        match self {
            Self::Json(p) => Decoded::Json(f(p)),
            Self::Null => Decoded::Null,
            Self::NotDecoded => Decoded::NotDecoded,
            Self::Failed(reason) => Decoded::Failed(reason),
        }
    }
}

fn failed<P>(what: &str, err: impl std::fmt::Display) -> Decoded<P> {
    Decoded::Failed(format!("{what} {err}"))
}

/// The label of a wrapped message: `"type": "1"` or `"version": 3`.
#[derive(Clone, Copy)]
enum Label<'a> {
    Quoted(&'a str, i16),
    Number(&'a str, i16),
}

/// Decodes a message and wraps it as `{label: …, "data": …}`.
fn wrapped<E: Emitter>(
    spec: &MessageSpec,
    version: i16,
    c: &mut Cursor<'_>,
    label: Label<'_>,
    e: &mut E,
) -> Result<E::Piece, DecodeError> {
    // A text emitter takes a version without tagged fields as one text.
    let written = e.write_text(|out| {
        let start = out.len();
        let (name, n, quote) = match label {
            Label::Quoted(name, n) => (name, n, "\""),
            Label::Number(name, n) => (name, n, ""),
        };
        out.push_str("{\"");
        out.push_str(name);
        out.push_str("\":");
        out.push_str(quote);
        out.push_str(itoa::Buffer::new().format(n));
        out.push_str(quote);
        out.push_str(",\"data\":");
        let written = write_message_text(spec, version, c, out);
        match &written {
            Some(Ok(())) => out.push('}'),
            _ => out.truncate(start),
        }
        written
    });
    if let Some((piece, Some(written))) = written {
        return written.map(|()| piece);
    }
    let data = emit_message(spec, version, c, e)?;
    let (name, label) = match label {
        Label::Quoted(name, n) => (name, e.int_string(i64::from(n))),
        Label::Number(name, n) => (name, e.int(i64::from(n))),
    };
    Ok(e.object([(name, label), ("data", data)]))
}

/// The layout a coordinator value at `version` is decoded by: the newest
/// release's, unless it does not read the bytes to their end and an older
/// release's layout of that version does (Kafka changed some values of
/// unfinished features in place: consumer groups before 3.8, share groups
/// before 4.1).
fn value_layout<'r>(
    layouts: impl Iterator<Item = &'r MessageSpec>,
    version: i16,
    at: &Cursor<'_>,
) -> Option<&'r MessageSpec> {
    let mut layouts = layouts.peekable();
    let newest = layouts.next()?;
    if layouts.peek().is_none() {
        return Some(newest);
    }
    let reads_all = |spec: &MessageSpec| {
        let mut c = at.clone();
        emit_message(spec, version, &mut c, &mut ValueEmitter).is_ok() && c.remaining() == 0
    };
    if reads_all(newest) {
        return Some(newest);
    }
    Some(layouts.find(|s| reads_all(s)).unwrap_or(newest))
}

/// Whether a classic group's member protocol bytes are decoded in place
/// (as kafka-dump-log prints them) or left as base64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expand {
    MemberProtocols,
    Nothing,
}

/// A coordinator value: a 2-byte version and the value of `key_spec`'s
/// record type (whose layouts are `layouts`), wrapped as `{"version", "data"}`.
fn coordinator_value<'r, E: Emitter>(
    registry: &'r Registry,
    key_spec: &MessageSpec,
    layouts: impl Iterator<Item = &'r MessageSpec>,
    value: &[u8],
    expand: Expand,
    e: &mut E,
) -> Result<E::Piece, DecodeError> {
    let mut vc = Cursor::new(value, 0);
    let version = vc.read_i16()?;
    let spec = value_layout(layouts, version, &vc)
        .ok_or_else(|| DecodeError::new(0, format!("no value schema for {}", key_spec.name)))?;
    // kafka-dump-log 4.1 on labels every coordinator value's version
    // "version" (4.0 said "type" for a share-state value).
    let label = Label::Quoted("version", version);
    if spec.name != "GroupMetadataValue" || expand == Expand::Nothing {
        return wrapped(spec, version, &mut vc, label, e);
    }
    // Members' protocol bytes are decoded in place, on the values.
    let mut json = wrapped(spec, version, &mut vc, label, &mut ValueEmitter)?;
    if let Some(data) = json.get_mut("data") {
        decode_member_protocols(registry, data);
    }
    Ok(e.value(&json))
}

/// The `data` of a `__consumer_offsets` `GroupMetadataValue` (record type
/// 2) from its bytes, its members' protocol bytes decoded in place, as
/// [`decode_record`] gives it; `None` when it does not decode.
pub fn decode_group_metadata(value: &[u8]) -> Option<Value> {
    let registry = registry().ok()?;
    let folder = InternalTopic::ConsumerOffsets.schema_folder();
    let (key_spec, layouts) = registry.coordinator_type(folder, 2)?;
    let v = coordinator_value(
        registry,
        key_spec,
        layouts,
        value,
        Expand::MemberProtocols,
        &mut ValueEmitter,
    );
    v.ok()?.get_mut("data").map(Value::take)
}

/// A coordinator's record: a 2-byte record type and the key, a 2-byte
/// version and the value (`__consumer_offsets`, `__share_group_state`).
fn coordinator_record<E: Emitter>(
    registry: &Registry,
    topic: InternalTopic,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    expand: Expand,
    e: &mut E,
) -> DecodedRecord<E::Piece> {
    let folder = topic.schema_folder();
    let Some(key) = key else {
        return DecodedRecord {
            key: Decoded::Failed("the record has no key".into()),
            value: Decoded::NotDecoded,
        };
    };
    let mut kc = Cursor::new(key, 0);
    let key_spec = kc.read_i16().map_err(DecodeError::from).and_then(|t| {
        registry
            .coordinator_type(folder, t)
            .map(|(s, layouts)| (s, layouts, t))
            .ok_or_else(|| DecodeError::new(0, format!("unknown record type {t}")))
    });
    let (key_spec, layouts, record_type) = match key_spec {
        Ok(found) => found,
        Err(err) => {
            return DecodedRecord {
                key: failed("key", err),
                value: Decoded::NotDecoded,
            };
        }
    };
    let key_json = wrapped(
        key_spec,
        key_version(key_spec, record_type),
        &mut kc,
        Label::Quoted("type", record_type),
        e,
    );
    let value_json =
        value.map(|value| coordinator_value(registry, key_spec, layouts, value, expand, e));
    DecodedRecord {
        key: key_json.map_or_else(|e| failed("key", e), Decoded::Json),
        value: match value_json {
            None => Decoded::Null,
            Some(Ok(json)) => Decoded::Json(json),
            Some(Err(e)) => failed("value", e),
        },
    }
}

/// `__transaction_state`: a 2-byte version and the message, for key and value.
fn transaction_record<E: Emitter>(
    registry: &Registry,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    e: &mut E,
) -> DecodedRecord<E::Piece> {
    let folder = InternalTopic::TransactionState.schema_folder();
    let mut part = |bytes: &[u8], name: &str| -> Result<E::Piece, DecodeError> {
        let mut c = Cursor::new(bytes, 0);
        let version = c.read_i16()?;
        let spec = registry
            .by_name(folder, name)
            .ok_or_else(|| DecodeError::new(0, format!("no schema {name}")))?;
        wrapped(spec, version, &mut c, Label::Number("version", version), e)
    };
    let key = match key {
        None => Decoded::Failed("the record has no key".into()),
        Some(k) => part(k, "TransactionLogKey").map_or_else(|e| failed("key", e), Decoded::Json),
    };
    let value = match (value, &key) {
        (None, _) => Decoded::Null,
        (Some(_), Decoded::Failed(_)) => Decoded::NotDecoded,
        (Some(v), _) => {
            part(v, "TransactionLogValue").map_or_else(|e| failed("value", e), Decoded::Json)
        }
    };
    DecodedRecord { key, value }
}

/// A framed metadata record (`__cluster_metadata`, `__remote_log_metadata`):
/// unsigned varints frame version (1), record type and version, then the
/// record and nothing after it.
fn framed_record<E: Emitter>(
    registry: &Registry,
    folder: &str,
    value: &[u8],
    e: &mut E,
) -> Result<E::Piece, DecodeError> {
    let framed = framed_parts(registry, folder, value, e)?;
    let name = e.string(framed.type_name);
    let version = e.int(i64::from(framed.version));
    Ok(e.object([("type", name), ("version", version), ("data", framed.data)]))
}

/// A framed metadata record's parts: its record type and version, and its
/// data decoded into an emitter.
pub struct Framed<'r, P> {
    /// The record type (the schema's `apiKey`).
    pub api_key: i16,
    /// Its name, as Kafka's `MetadataRecordType` has it (`TOPIC_RECORD`).
    pub type_name: &'r str,
    /// The record's version.
    pub version: i16,
    /// The record's fields.
    pub data: P,
}

/// Reads a framed metadata record of `folder` (as `framed_record` reads it).
pub fn framed_parts<'r, E: Emitter>(
    registry: &'r Registry,
    folder: &str,
    value: &[u8],
    e: &mut E,
) -> Result<Framed<'r, E::Piece>, DecodeError> {
    let mut c = Cursor::new(value, 0);
    let frame = c.read_uvarint()?;
    if frame != 1 {
        return Err(DecodeError::new(
            0,
            format!("unknown frame version {frame} (only 1 is supported)"),
        ));
    }
    let at = c.position();
    let short = |n: u32, what: &str| {
        i16::try_from(n).map_err(|_| DecodeError::new(at, format!("{what} {n} is out of range")))
    };
    let api_key = short(c.read_uvarint()?, "record type")?;
    let version = short(c.read_uvarint()?, "version")?;
    let (spec, type_name) = registry
        .record_type(folder, api_key)
        .ok_or_else(|| DecodeError::new(at, format!("unknown record type {api_key}")))?;
    let data = emit_message(spec, version, &mut c, e)?;
    if c.remaining() > 0 {
        return Err(DecodeError::new(
            c.position(),
            format!("{} bytes after the {} record", c.remaining(), spec.name),
        ));
    }
    Ok(Framed {
        api_key,
        type_name,
        version,
        data,
    })
}

fn metadata_record<E: Emitter>(
    registry: &Registry,
    topic: InternalTopic,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    e: &mut E,
) -> DecodedRecord<E::Piece> {
    DecodedRecord {
        key: key.map_or(Decoded::Null, |_| Decoded::NotDecoded),
        value: value.map_or(Decoded::Null, |v| {
            framed_record(registry, topic.schema_folder(), v, e)
                .map_or_else(|e| failed("value", e), Decoded::Json)
        }),
    }
}

/// Decodes a data record (not a control record) of `topic`; never panics,
/// a record that does not decode says why.
pub fn decode_record(
    topic: InternalTopic,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> DecodedRecord {
    emit_record(
        topic,
        key,
        value,
        Expand::MemberProtocols,
        &mut ValueEmitter,
    )
}

/// [`decode_record`] as compact JSON text, the same text `Value`'s
/// `to_string` prints, written without building values (for printing many
/// records). `e` is scratch space, reused across records.
pub fn decode_record_text(
    topic: InternalTopic,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    e: &mut TextEmitter,
) -> DecodedRecord<String> {
    let d = decode_record_str(topic, key, value, e);
    DecodedRecord {
        key: d.key.map(str::to_string),
        value: d.value.map(str::to_string),
    }
}

/// [`decode_record_text`] with the texts left in `e` (emptied first),
/// borrowed from it until its next use: nothing is copied out.
pub fn decode_record_str<'e>(
    topic: InternalTopic,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    e: &'e mut TextEmitter,
) -> DecodedRecord<&'e str> {
    e.clear();
    let d = emit_record(topic, key, value, Expand::MemberProtocols, e);
    let e = &*e;
    let text = |piece: Range<usize>| e.text(&piece);
    DecodedRecord {
        key: d.key.map(text),
        value: d.value.map(text),
    }
}

/// [`decode_record`] into `tree` (emptied first): the decoded key and
/// value are positions there ([`Tree::node`]). A classic group's member
/// subscriptions and assignments are left as base64 (a reader that keeps
/// the value decodes its bytes with [`decode_group_metadata`]); every
/// other value is what [`decode_record`] gives.
pub fn decode_record_tree(
    topic: InternalTopic,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    tree: &mut Tree,
) -> DecodedRecord<u32> {
    tree.clear();
    emit_record(topic, key, value, Expand::Nothing, tree)
}

fn emit_record<E: Emitter>(
    topic: InternalTopic,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    expand: Expand,
    e: &mut E,
) -> DecodedRecord<E::Piece> {
    let registry = match registry() {
        Ok(r) => r,
        Err(e) => {
            return DecodedRecord {
                key: Decoded::Failed(e.to_string()),
                value: Decoded::Failed(e.to_string()),
            };
        }
    };
    match topic {
        InternalTopic::ConsumerOffsets | InternalTopic::ShareGroupState => {
            coordinator_record(registry, topic, key, value, expand, e)
        }
        InternalTopic::TransactionState => transaction_record(registry, key, value, e),
        InternalTopic::ClusterMetadata | InternalTopic::RemoteLogMetadata => {
            metadata_record(registry, topic, key, value, e)
        }
    }
}

/// Why a record that did not decode is newer than every release kseg
/// knows: its record type or version is in none of their schemas (`None`
/// when kseg knows both, and the record failed for another reason).
pub fn newer_than_known(
    topic: InternalTopic,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> Option<String> {
    let registry = registry().ok()?;
    let folder = topic.schema_folder();
    let short = |b: Option<&[u8]>| Cursor::new(b?, 0).read_i16().ok();
    let known = super::releases::newest_known();
    let beyond = |name: &str, version: i16, spec: Option<&MessageSpec>| {
        let newest = spec?.valid_versions.bounds()?.1;
        (version > newest).then(|| {
            format!("{name} version {version} is newer than any release kseg knows (the newest, {known}, writes up to {newest})")
        })
    };
    let unknown_type =
        |t: i16| format!("record type {t} is in no release kseg knows (the newest: {known})");
    match topic {
        InternalTopic::ConsumerOffsets | InternalTopic::ShareGroupState => {
            let t = short(key)?;
            let Some(key_spec) = registry.coordinator_key(folder, t) else {
                return Some(unknown_type(t));
            };
            let newest = registry
                .coordinator_values(folder, key_spec)
                .max_by_key(|s| s.valid_versions.bounds().map(|(_, high)| high));
            let name = newest.map_or("the value", |s| s.name.as_str());
            beyond(name, short(value)?, newest)
        }
        InternalTopic::TransactionState => {
            let key_spec = registry.by_name(folder, "TransactionLogKey");
            beyond("TransactionLogKey", short(key)?, key_spec).or_else(|| {
                let value_spec = registry.by_name(folder, "TransactionLogValue");
                beyond("TransactionLogValue", short(value)?, value_spec)
            })
        }
        InternalTopic::ClusterMetadata | InternalTopic::RemoteLogMetadata => {
            let mut c = Cursor::new(value?, 0);
            if c.read_uvarint().ok()? != 1 {
                return None;
            }
            let t = i16::try_from(c.read_uvarint().ok()?).ok()?;
            let version = i16::try_from(c.read_uvarint().ok()?).unwrap_or(i16::MAX);
            match registry.by_api_key(folder, t) {
                None => Some(unknown_type(t)),
                Some(spec) => beyond(&spec.name, version, Some(spec)),
            }
        }
    }
}

/// The name of a `transactionStatus` (Kafka's `TransactionState` ids).
pub fn transaction_state_name(id: i64) -> Option<&'static str> {
    const NAMES: [&str; 8] = [
        "Empty",
        "Ongoing",
        "PrepareCommit",
        "PrepareAbort",
        "CompleteCommit",
        "CompleteAbort",
        "Dead",
        "PrepareEpochFence",
    ];
    usize::try_from(id).ok().and_then(|i| NAMES.get(i).copied())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn partition_directories_name_their_topic() {
        assert_eq!(
            InternalTopic::of_partition_dir("__consumer_offsets-49"),
            Some(InternalTopic::ConsumerOffsets)
        );
        assert_eq!(
            InternalTopic::of_partition_dir("__cluster_metadata-0"),
            Some(InternalTopic::ClusterMetadata)
        );
        assert_eq!(InternalTopic::of_partition_dir("__consumer_offsets"), None);
        assert_eq!(InternalTopic::of_partition_dir("orders-0"), None);
        assert_eq!(
            InternalTopic::of_partition_dir("__consumer_offsets-x"),
            None
        );
    }

    #[test]
    fn an_unknown_record_type_is_named() {
        let d = decode_record(
            InternalTopic::ConsumerOffsets,
            Some(&[0x7f, 0xff, 0, 0]),
            Some(&[0, 0]),
        );
        assert_eq!(
            d.key,
            Decoded::Failed("key at byte 0: unknown record type 32767".into())
        );
        assert_eq!(d.value, Decoded::NotDecoded);
    }

    #[test]
    fn a_record_newer_than_every_known_release_says_so() {
        let known = super::super::releases::newest_known();
        let t = InternalTopic::ConsumerOffsets;
        assert_eq!(
            newer_than_known(t, Some(&[0x7f, 0xff, 0, 0]), Some(&[0, 0])),
            Some(format!(
                "record type 32767 is in no release kseg knows (the newest: {known})"
            ))
        );
        // An offset commit (type 1) with value version 9; 0-4 are known.
        let why = newer_than_known(t, Some(&[0, 1]), Some(&[0, 9])).unwrap();
        assert!(
            why.starts_with("OffsetCommitValue version 9 is newer than any release kseg knows"),
            "{why}"
        );
        assert!(why.ends_with("writes up to 4)"), "{why}");
        assert_eq!(newer_than_known(t, Some(&[0, 1]), Some(&[0, 4])), None);
        // A metadata record of type 9999, and a TopicRecord (2) at version 7.
        let m = InternalTopic::ClusterMetadata;
        assert!(
            newer_than_known(m, None, Some(&[1, 0x8f, 0x4e, 0]))
                .unwrap()
                .starts_with("record type 9999 ")
        );
        assert!(
            newer_than_known(m, None, Some(&[1, 2, 7]))
                .unwrap()
                .starts_with("TopicRecord version 7 ")
        );
        assert_eq!(newer_than_known(m, None, Some(&[1, 2, 0])), None);
    }

    #[test]
    fn a_value_of_an_older_layout_decodes_by_that_layout() {
        // ConsumerGroupTargetAssignmentMember (type 7): key GroupId "g",
        // MemberId "m"; value v0 as 3.6-3.7 wrote it (Error 0, no
        // partitions, MetadataVersion 1, empty MetadataBytes, no tags),
        // which 3.8 on lays out as TopicPartitions alone.
        let key = [0, 7, 0, 1, b'g', 0, 1, b'm'];
        let value = [0, 0, 0, 1, 0, 1, 1, 0];
        let d = decode_record(InternalTopic::ConsumerOffsets, Some(&key), Some(&value));
        assert_eq!(
            d.value,
            Decoded::Json(serde_json::json!({"version": "0", "data": {
                "error": 0, "topicPartitions": [], "metadataVersion": 1, "metadataBytes": ""}}))
        );
        // The newest layout of the same version still comes first.
        let value = [0, 0, 1, 0];
        let d = decode_record(InternalTopic::ConsumerOffsets, Some(&key), Some(&value));
        assert_eq!(
            d.value,
            Decoded::Json(serde_json::json!({"version": "0", "data": {"topicPartitions": []}}))
        );
    }

    #[test]
    fn a_metadata_frame_with_a_bad_version_is_refused() {
        let d = decode_record(InternalTopic::ClusterMetadata, None, Some(&[0, 2, 0]));
        assert_eq!(d.key, Decoded::Null);
        assert!(matches!(d.value, Decoded::Failed(ref r) if r.contains("frame version 0")));
        let d = decode_record(InternalTopic::ClusterMetadata, None, Some(&[1, 2, 0, 9]));
        assert_eq!(
            d.value,
            Decoded::Failed(
                "value at byte 3: field Name has length 8, but only 0 bytes are left".into()
            )
        );
    }
}
