//! `kseg dump` output: kafka-dump-log's lines, or one JSON object per item.

use std::borrow::Cow;
use std::io::{self, Write};

use crate::logdir::file_name::FileKind;
use serde_json::{Map, Value, json};

use super::OutputFormat;
use super::bytes::ByteEncoding;
use crate::format::checkpoint::{LeaderEpochEntry, OffsetCheckpointEntry};
use crate::format::offset_index::OffsetIndexEntry;
use crate::format::producer_snapshot::ProducerEntry;
use crate::format::time_index::TimeIndexEntry;
use crate::format::txn_index::AbortedTxn;
use crate::format::{BatchSummary, ControlRecord, ControlType, FormatError, Record};
use crate::schema::{DecodedRecord, InternalTopic};

use super::decoded::{self, KafkaJson};
use super::text_line::TextLine;

/// A record's key and value decoded as records of an internal topic, as
/// values or (for text output) as JSON text.
pub type DecodedAs<'d, P = Value> = Option<(InternalTopic, &'d DecodedRecord<P>)>;

/// What the record lines show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecordOptions {
    /// Print keys, values and header values.
    pub print_data: bool,
    /// Leave out offset, timestamp, sizes, sequence and headers.
    pub skip_metadata: bool,
}

/// Prints dump items in the chosen format.
pub struct DumpPrinter<W: Write> {
    out: W,
    format: OutputFormat,
    encoding: ByteEncoding,
    /// The batch line being built.
    line: TextLine,
}

fn optional_long(v: Option<i64>) -> String {
    v.map_or_else(
        || "OptionalLong.empty".to_string(),
        |v| format!("OptionalLong[{v}]"),
    )
}

impl<W: Write> DumpPrinter<W> {
    /// A printer writing to `out`.
    pub fn new(out: W, format: OutputFormat, encoding: ByteEncoding) -> Self {
        Self {
            out,
            format,
            encoding,
            line: TextLine::default(),
        }
    }

    /// Whether this prints text (where decoded records are wanted as
    /// JSON text, not values).
    pub fn prints_text(&self) -> bool {
        self.format == OutputFormat::Text
    }

    fn json(&mut self, kind: &str, mut fields: Map<String, Value>) -> io::Result<()> {
        fields.insert("type".into(), json!(kind));
        serde_json::to_writer(&mut self.out, &Value::Object(fields))?;
        writeln!(self.out)
    }

    fn obj(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    /// `Dumping <file>`.
    pub fn file(&mut self, path: &str, kind: &str) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(self.out, "Dumping {path}"),
            OutputFormat::Json => self.json("file", Self::obj(json!({"path": path, "kind": kind}))),
        }
    }

    /// The line under `Dumping`, e.g. `Log starting offset: N` (text only).
    pub fn header(&mut self, line: &str) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(self.out, "{line}"),
            OutputFormat::Json => Ok(()),
        }
    }

    /// One batch line; `is_valid` is the result of the CRC check.
    pub fn batch(&mut self, b: &BatchSummary, is_valid: bool) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => {
                let line = &mut self.line;
                if b.magic >= 2 {
                    line.str("baseOffset: ")
                        .int(b.base_offset)
                        .str(" lastOffset: ")
                        .int(b.last_offset)
                        .str(" count: ")
                        .int_or(b.count, "null")
                        .str(" baseSequence: ")
                        .int(b.base_sequence)
                        .str(" lastSequence: ")
                        .int(b.last_sequence)
                        .str(" producerId: ")
                        .int(b.producer_id)
                        .str(" producerEpoch: ")
                        .int(b.producer_epoch)
                        .str(" partitionLeaderEpoch: ")
                        .int(b.partition_leader_epoch)
                        .str(" isTransactional: ")
                        .bool(b.is_transactional)
                        .str(" isControl: ")
                        .bool(b.is_control)
                        .str(" deleteHorizonMs: ");
                    match b.delete_horizon_ms {
                        Some(ms) => line.str("OptionalLong[").int(ms).str("]"),
                        None => line.str("OptionalLong.empty"),
                    };
                } else {
                    line.str("offset: ").int(b.last_offset);
                }
                line.str(" position: ")
                    .int(b.position)
                    .str(" ")
                    .str(b.timestamp_type.name())
                    .str(": ")
                    .int(b.max_timestamp)
                    .str(" size: ")
                    .int(b.size)
                    .str(" magic: ")
                    .int(b.magic)
                    .str(" compresscodec: ")
                    .str(b.compression.name())
                    .str(" crc: ")
                    .int(b.crc)
                    .str(" isvalid: ")
                    .bool(is_valid)
                    .finish(&mut self.out)
            }
            OutputFormat::Json => self.json(
                "batch",
                Self::obj(json!({
                    "baseOffset": b.base_offset, "lastOffset": b.last_offset, "count": b.count,
                    "position": b.position, "size": b.size, "magic": b.magic, "crc": b.crc,
                    "isValid": is_valid, "compression": b.compression.name(),
                    "timestampType": b.timestamp_type.name(), "maxTimestamp": b.max_timestamp,
                    "baseTimestamp": b.base_timestamp, "producerId": b.producer_id,
                    "producerEpoch": b.producer_epoch, "baseSequence": b.base_sequence,
                    "lastSequence": b.last_sequence, "partitionLeaderEpoch": b.partition_leader_epoch,
                    "isTransactional": b.is_transactional, "isControl": b.is_control,
                    "deleteHorizonMs": b.delete_horizon_ms,
                })),
            ),
        }
    }

    fn bytes_value(&self, bytes: Option<&[u8]>) -> Value {
        bytes.map_or(Value::Null, |b| Value::String(self.encoding.render(b)))
    }

    /// One record line (`| offset: …`); `newer` says why a record that
    /// did not decode is newer than every release kseg knows.
    pub fn record<P: KafkaJson>(
        &mut self,
        b: &BatchSummary,
        r: &Record<'_>,
        control: Option<&Result<ControlRecord, FormatError>>,
        decoded_as: DecodedAs<'_, P>,
        opts: RecordOptions,
        newer: Option<&str>,
    ) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => self.record_text(b, r, control, decoded_as, opts, newer),
            OutputFormat::Json => {
                let headers: Vec<Value> = r
                    .headers
                    .iter()
                    .map(|h| json!({"key": String::from_utf8_lossy(h.key), "value": self.bytes_value(h.value)}))
                    .collect();
                let mut fields = Self::obj(json!({
                    "offset": r.offset, "timestamp": r.timestamp, "timestampType": b.timestamp_type.name(),
                    "sizeInBytes": r.size_in_bytes,
                    "keySize": r.key.map_or(-1, |k| k.len() as i64),
                    "valueSize": r.value.map_or(-1, |v| v.len() as i64),
                    "sequence": r.sequence, "key": self.bytes_value(r.key), "value": self.bytes_value(r.value),
                    "headers": headers,
                }));
                if let Some(info) = r.legacy {
                    fields.insert("isValid".into(), json!(info.is_valid));
                    fields.insert("crc".into(), json!(info.crc));
                }
                match control {
                    Some(Ok(c)) => {
                        fields.insert("controlType".into(), json!(c.control_type.name()));
                        fields.insert("controlTypeId".into(), json!(c.control_type.id()));
                        if let Some(epoch) = c.coordinator_epoch {
                            fields.insert("coordinatorEpoch".into(), json!(epoch));
                        }
                    }
                    Some(Err(e)) => {
                        fields.insert("controlError".into(), json!(e.to_string()));
                    }
                    None => {}
                }
                if let Some((_, d)) = decoded_as {
                    for (name, part, raw) in [("key", &d.key, r.key), ("value", &d.value, r.value)]
                    {
                        let (value, error) = decoded::json_member(part, raw, self.encoding);
                        fields.insert(name.into(), value);
                        if let Some(error) = error {
                            fields.insert(format!("{name}Error"), json!(error));
                        }
                    }
                }
                if let Some(newer) = newer {
                    fields.insert("newerThanKnown".into(), json!(newer));
                }
                self.json("record", fields)
            }
        }
    }

    fn record_text<P: KafkaJson>(
        &mut self,
        b: &BatchSummary,
        r: &Record<'_>,
        control: Option<&Result<ControlRecord, FormatError>>,
        decoded_as: DecodedAs<'_, P>,
        opts: RecordOptions,
        newer: Option<&str>,
    ) -> io::Result<()> {
        let mut prefix = "| ";
        if !opts.skip_metadata {
            write!(
                self.out,
                "| offset: {} {}: {} keySize: {} valueSize: {}",
                r.offset,
                b.timestamp_type.name(),
                r.timestamp,
                r.key.map_or(-1, |k| k.len() as i64),
                r.value.map_or(-1, |v| v.len() as i64)
            )?;
            prefix = " ";
            if b.magic >= 2 {
                let keys: Vec<String> = r
                    .headers
                    .iter()
                    .map(|h| String::from_utf8_lossy(h.key).into_owned())
                    .collect();
                write!(
                    self.out,
                    " sequence: {} headerKeys: [{}]",
                    r.sequence,
                    keys.join(",")
                )?;
            }
            if let Some(info) = r.legacy {
                write!(self.out, " isValid: {} crc: {}}}", info.is_valid, info.crc)?;
            }
            match control {
                Some(Ok(c)) => match (c.control_type, c.coordinator_epoch) {
                    (ControlType::Abort | ControlType::Commit, Some(epoch)) => write!(
                        self.out,
                        " endTxnMarker: {} coordinatorEpoch: {epoch}",
                        c.control_type.name()
                    )?,
                    (t, _) => match decoded_as.and_then(|(_, d)| decoded::control_text(t, d)) {
                        Some(text) => write!(self.out, " {text}")?,
                        None => write!(self.out, " controlType: {}({})", t.name(), t.id())?,
                    },
                },
                Some(Err(e)) => write!(self.out, " controlError: {e}")?,
                None => {}
            }
        }
        if opts.print_data && !b.is_control {
            let (key, payload, error) = match decoded_as {
                Some((topic, d)) => (
                    decoded::key_text(topic, d, r.key, self.encoding),
                    decoded::payload_text(topic, d, r.value, self.encoding),
                    decoded::error_text(d),
                ),
                None => (
                    r.key.map(|k| Cow::Owned(self.encoding.render(k))),
                    r.value.map(|v| Cow::Owned(self.encoding.render(v))),
                    None,
                ),
            };
            if let Some(key) = key {
                write!(self.out, "{prefix}key: {key}")?;
            }
            if let Some(payload) = payload {
                write!(self.out, " payload: {payload}")?;
            }
            if let Some(error) = error {
                write!(self.out, " decodeError: {error}")?;
            }
            if let Some(newer) = newer {
                write!(self.out, " newerThanKnown: {newer}")?;
            }
            if !r.headers.is_empty() {
                let headers: Vec<String> = r
                    .headers
                    .iter()
                    .map(|h| {
                        let value = h
                            .value
                            .map_or("null".to_string(), |v| self.encoding.render(v));
                        format!("{}={value}", String::from_utf8_lossy(h.key))
                    })
                    .collect();
                write!(self.out, " headers: [{}]", headers.join(","))?;
            }
        }
        writeln!(self.out)
    }

    /// A batch whose records could not be decoded; the dump goes on.
    pub fn record_error(&mut self, b: &BatchSummary, err: &FormatError) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(self.out, "| cannot decode records of batch at position {}: {err}", b.position),
            OutputFormat::Json => {
                self.json("recordError", Self::obj(json!({"position": b.position, "errorOffset": err.offset, "error": err.kind.to_string()})))
            }
        }
    }

    /// Bytes at the end of a `.log` that are not whole batches.
    pub fn trailing_bytes(
        &mut self,
        file_name: &str,
        position: u64,
        len: u64,
        reason: &FormatError,
        print_line: bool,
    ) -> io::Result<()> {
        match self.format {
            OutputFormat::Text if print_line => writeln!(
                self.out,
                "Found {len} invalid bytes at the end of {file_name}"
            ),
            OutputFormat::Text => Ok(()),
            OutputFormat::Json => self.json(
                "trailingBytes",
                Self::obj(
                    json!({"position": position, "length": len, "reason": reason.kind.to_string()}),
                ),
            ),
        }
    }

    /// `offset: N position: P`.
    pub fn index_entry(&mut self, e: &OffsetIndexEntry, slot: usize) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => {
                writeln!(self.out, "offset: {} position: {}", e.offset, e.position)
            }
            OutputFormat::Json => self.json(
                "indexEntry",
                Self::obj(json!({"slot": slot, "offset": e.offset, "position": e.position})),
            ),
        }
    }

    /// `timestamp: T offset: N`.
    pub fn time_index_entry(&mut self, e: &TimeIndexEntry, slot: usize) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => {
                writeln!(self.out, "timestamp: {} offset: {}", e.timestamp, e.offset)
            }
            OutputFormat::Json => self.json(
                "timeIndexEntry",
                Self::obj(json!({"slot": slot, "timestamp": e.timestamp, "offset": e.offset})),
            ),
        }
    }

    /// One aborted transaction.
    pub fn txn_entry(&mut self, t: &AbortedTxn) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(
                self.out,
                "version: {} producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}",
                t.version, t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset
            ),
            OutputFormat::Json => self.json(
                "abortedTxn",
                Self::obj(json!({"version": t.version, "producerId": t.producer_id, "firstOffset": t.first_offset,
                    "lastOffset": t.last_offset, "lastStableOffset": t.last_stable_offset})),
            ),
        }
    }

    /// One producer-state entry.
    pub fn producer_entry(&mut self, e: &ProducerEntry) -> io::Result<()> {
        let txn = (e.current_txn_first_offset >= 0).then_some(e.current_txn_first_offset);
        match self.format {
            OutputFormat::Text => {
                write!(
                    self.out,
                    "producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {} lastTimestamp: {} ",
                    e.producer_id,
                    e.producer_epoch,
                    e.coordinator_epoch,
                    optional_long(txn),
                    e.timestamp
                )?;
                if e.has_batch() {
                    write!(
                        self.out,
                        "firstSequence: {} lastSequence: {} lastOffset: {} offsetDelta: {} timestamp: {}",
                        e.first_sequence(),
                        e.last_sequence,
                        e.last_offset,
                        e.offset_delta,
                        e.timestamp
                    )?;
                }
                writeln!(self.out)
            }
            OutputFormat::Json => {
                let batch = e.has_batch().then(|| {
                    json!({"firstSeq": e.first_sequence(), "lastSeq": e.last_sequence, "firstOffset": e.first_offset(),
                        "lastOffset": e.last_offset, "offsetDelta": e.offset_delta, "timestamp": e.timestamp})
                });
                self.json(
                    "producer",
                    Self::obj(json!({"producerId": e.producer_id, "producerEpoch": e.producer_epoch,
                        "coordinatorEpoch": e.coordinator_epoch, "currentTxnFirstOffset": txn,
                        "lastTimestamp": e.timestamp, "batchMetadata": batch.into_iter().collect::<Vec<_>>()})),
                )
            }
        }
    }

    /// One offset-checkpoint line.
    pub fn offset_checkpoint_entry(&mut self, e: &OffsetCheckpointEntry) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(
                self.out,
                "topic: {} partition: {} offset: {}",
                e.topic, e.partition, e.offset
            ),
            OutputFormat::Json => self.json(
                "checkpointEntry",
                Self::obj(json!({"topic": e.topic, "partition": e.partition, "offset": e.offset})),
            ),
        }
    }

    /// One leader-epoch line.
    pub fn leader_epoch_entry(&mut self, e: &LeaderEpochEntry) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(
                self.out,
                "epoch: {} startOffset: {}",
                e.epoch, e.start_offset
            ),
            OutputFormat::Json => self.json(
                "leaderEpoch",
                Self::obj(json!({"epoch": e.epoch, "startOffset": e.start_offset})),
            ),
        }
    }

    /// One `key: value` property (partition.metadata, meta.properties, .kafka_cleanshutdown).
    pub fn property(&mut self, key: &str, value: &str) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(self.out, "{key}: {value}"),
            OutputFormat::Json => {
                self.json("property", Self::obj(json!({"key": key, "value": value})))
            }
        }
    }

    /// A `quorum-state` file: `member: value` lines, or one JSON object.
    pub fn quorum_state(&mut self, members: &Map<String, Value>) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => {
                for (key, value) in members {
                    match value {
                        Value::String(s) => writeln!(self.out, "{key}: {s}")?,
                        other => writeln!(self.out, "{key}: {other}")?,
                    }
                }
                Ok(())
            }
            OutputFormat::Json => self.json("quorumState", Self::obj(json!({"state": members}))),
        }
    }

    /// A free-form line (e.g. `<file> is empty.`, `<file> passed sanity check.`).
    pub fn note(&mut self, kind: &str, text: &str) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => writeln!(self.out, "{text}"),
            OutputFormat::Json => self.json(kind, Self::obj(json!({"message": text}))),
        }
    }

    /// Flushes the writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The line a `.log` dump opens with, from the base offset its `named`
/// ("file" or "object") name carries.
pub fn log_header(base: Option<i64>, named: &str) -> String {
    match base {
        Some(base) => format!("Log starting offset: {base}"),
        None => format!(
            "Log starting offset: unknown (the {named} name carries no base offset; every batch carries its own offsets)"
        ),
    }
}

/// The `kind` a JSON `file` line gives a file of this kind.
pub fn kind_name(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Log => "log",
        FileKind::KraftSnapshot => "kraftSnapshot",
        FileKind::OffsetIndex => "offsetIndex",
        FileKind::TimeIndex => "timeIndex",
        FileKind::TxnIndex => "txnIndex",
        FileKind::ProducerSnapshot => "producerSnapshot",
        FileKind::LeaderEpochCheckpoint => "leaderEpochCheckpoint",
        FileKind::OffsetCheckpoint => "offsetCheckpoint",
        FileKind::PartitionMetadata => "partitionMetadata",
        FileKind::MetaProperties => "metaProperties",
        FileKind::CleanShutdown => "cleanShutdown",
        FileKind::QuorumState => "quorumState",
        FileKind::Stray | FileKind::Unknown => "unknown",
    }
}
