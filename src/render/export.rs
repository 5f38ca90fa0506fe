//! `kseg export` output: one NDJSON object per record, or the plain
//! `KEY<separator>VALUE` lines that `kafka-console-producer` (with
//! `parse.key=true`) and `kcat -K` read back.

use std::io::{self, Write};

use serde::Serialize;

use super::bytes::ByteEncoding;
use crate::format::{BatchSummary, ControlRecord, Record};

/// One record with what its batch says about it.
#[derive(Debug, Clone, Copy)]
pub struct ExportedRecord<'r> {
    /// The partition directory's name.
    pub partition: &'r str,
    /// Its batch's header facts.
    pub batch: &'r BatchSummary,
    /// The record.
    pub record: &'r Record<'r>,
    /// The control record it is, in a control batch.
    pub control: Option<&'r ControlRecord>,
}

impl ExportedRecord<'_> {
    /// The record's sequence number as Kafka's clients give it: its
    /// batch's base sequence plus its offset delta, wrapping past
    /// `i32::MAX` to 0; -1 when the batch has none.
    pub fn sequence(&self) -> i32 {
        if self.batch.base_sequence < 0 {
            return -1;
        }
        let delta = self.record.offset - self.batch.base_offset;
        let wrapped = (i64::from(self.batch.base_sequence) + delta).rem_euclid(1 << 31);
        i32::try_from(wrapped).unwrap_or(-1)
    }
}

/// The line form's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineForm {
    /// Between key and value (console producer's `key.separator`, kcat's `-K`).
    pub separator: String,
    /// Stands for a null key or value (console producer's `null.marker`);
    /// without one, null keys and values cannot be written.
    pub null_marker: Option<String>,
}

/// Why a record cannot be written as a line that reads back as itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("offset {offset}: {why}")]
pub struct Unrepresentable {
    /// The record's offset.
    pub offset: i64,
    /// What stands in the way.
    pub why: String,
}

/// Bytes as a JSON string in some encoding, with the hex-fallback mark.
struct Encoded {
    text: Option<String>,
    hex_fallback: bool,
}

impl Encoded {
    fn new(bytes: Option<&[u8]>, encoding: ByteEncoding) -> Self {
        match bytes {
            None => Self {
                text: None,
                hex_fallback: false,
            },
            Some(bytes) => {
                let (text, hex_fallback) = encoding.render_marked(bytes);
                Self {
                    text: Some(text),
                    hex_fallback,
                }
            }
        }
    }

    /// `"hex"` when UTF-8 fell back to hex.
    fn mark(&self) -> Option<&'static str> {
        self.hex_fallback.then_some("hex")
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HeaderLine {
    key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key_encoding: Option<&'static str>,
    value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_encoding: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RecordLine<'r> {
    partition: &'r str,
    offset: i64,
    timestamp: i64,
    timestamp_type: &'static str,
    key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key_encoding: Option<&'static str>,
    value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_encoding: Option<&'static str>,
    headers: Vec<HeaderLine>,
    producer_id: i64,
    producer_epoch: i16,
    sequence: i32,
    partition_leader_epoch: i32,
    is_transactional: bool,
    is_control: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    control_type: Option<&'static str>,
}

/// Writes `r` as one JSON object and a newline. Key, value and header
/// values are strings in `encoding` (`null` stays null); with UTF-8, bytes
/// that are not valid UTF-8 are written in hex and marked by a sibling
/// `"keyEncoding": "hex"` / `"valueEncoding": "hex"` field. Header keys are
/// text (hex and marked the same way if they are not UTF-8).
pub fn write_json(
    out: &mut impl Write,
    r: &ExportedRecord<'_>,
    encoding: ByteEncoding,
) -> io::Result<()> {
    let key = Encoded::new(r.record.key, encoding);
    let value = Encoded::new(r.record.value, encoding);
    let headers = r
        .record
        .headers
        .iter()
        .map(|h| {
            let key = Encoded::new(Some(h.key), ByteEncoding::Utf8);
            let value = Encoded::new(h.value, encoding);
            HeaderLine {
                key_encoding: key.mark(),
                key: key.text,
                value_encoding: value.mark(),
                value: value.text,
            }
        })
        .collect();
    let line = RecordLine {
        partition: r.partition,
        offset: r.record.offset,
        timestamp: r.record.timestamp,
        timestamp_type: r.batch.timestamp_type.name(),
        key_encoding: key.mark(),
        key: key.text,
        value_encoding: value.mark(),
        value: value.text,
        headers,
        producer_id: r.batch.producer_id,
        producer_epoch: r.batch.producer_epoch,
        sequence: r.sequence(),
        partition_leader_epoch: r.batch.partition_leader_epoch,
        is_transactional: r.batch.is_transactional,
        is_control: r.batch.is_control,
        control_type: r.control.map(|c| c.control_type.name()),
    };
    serde_json::to_writer(&mut *out, &line)?;
    writeln!(out)
}

impl LineForm {
    /// Writes `r` as `KEY<separator>VALUE` and a newline, or says why it
    /// cannot: a key or value that is not UTF-8 or holds a line break, a key
    /// holding the separator (readers split at its first occurrence, so a
    /// value may hold it), a null without a null marker, or a key or value
    /// equal to the marker. Nothing is written then. Headers are not part of
    /// the line.
    pub fn write(
        &self,
        out: &mut impl Write,
        r: &ExportedRecord<'_>,
    ) -> io::Result<Result<(), Unrepresentable>> {
        let offset = r.record.offset;
        let refuse = |why: String| Ok(Err(Unrepresentable { offset, why }));
        let key = match self.text("key", r.record.key) {
            Ok(key) => key,
            Err(why) => return refuse(why),
        };
        if r.record.key.is_some() && key.contains(self.separator.as_str()) {
            return refuse(format!(
                "the key {key:?} holds the separator {:?}",
                self.separator
            ));
        }
        let value = match self.text("value", r.record.value) {
            Ok(value) => value,
            Err(why) => return refuse(why),
        };
        writeln!(out, "{key}{}{value}", self.separator)?;
        Ok(Ok(()))
    }

    fn text<'b>(&'b self, what: &str, bytes: Option<&'b [u8]>) -> Result<&'b str, String> {
        let Some(bytes) = bytes else {
            return self
                .null_marker
                .as_deref()
                .ok_or_else(|| format!("the {what} is null (pass --null-marker)"));
        };
        let text = std::str::from_utf8(bytes)
            .map_err(|_| format!("the {what} is not valid UTF-8 (use the JSON form)"))?;
        if text.contains(['\n', '\r']) {
            return Err(format!("the {what} holds a line break (use the JSON form)"));
        }
        if self.null_marker.as_deref() == Some(text) {
            return Err(format!("the {what} equals the null marker"));
        }
        Ok(text)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;
    use crate::format::BatchIter;
    use crate::format::encode::{BatchSpec, RecordSpec, encode_batch};
    use serde_json::Value;

    fn one(key: Option<&[u8]>, value: Option<&[u8]>, f: impl FnOnce(&ExportedRecord<'_>)) {
        let bytes = encode_batch(&BatchSpec {
            base_offset: 7,
            records: vec![RecordSpec {
                timestamp: 5,
                key: key.map(<[u8]>::to_vec),
                value: value.map(<[u8]>::to_vec),
                headers: vec![(b"h".to_vec(), Some(vec![0xff]))],
            }],
            ..BatchSpec::default()
        });
        let batch = BatchIter::new(&bytes, 0).next().unwrap().unwrap();
        let summary = batch.summary(&mut Vec::new(), 1 << 20).unwrap();
        let mut scratch = Vec::new();
        let records = batch.records(&mut scratch, 1 << 20).records;
        f(&ExportedRecord {
            partition: "t-0",
            batch: &summary,
            record: &records[0],
            control: None,
        });
    }

    #[test]
    fn json_marks_hex_fallback_and_keeps_null() {
        one(None, Some(&[0xc3, 0x28]), |r| {
            let mut out = Vec::new();
            write_json(&mut out, r, ByteEncoding::Utf8).unwrap();
            let v: Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(v["key"], Value::Null);
            assert_eq!(v["value"], "c328");
            assert_eq!(v["valueEncoding"], "hex");
            assert!(v.get("keyEncoding").is_none());
            assert_eq!(v["headers"][0]["value"], "ff");
            assert_eq!(v["headers"][0]["valueEncoding"], "hex");
            assert_eq!(v["offset"], 7);
        });
    }

    #[test]
    fn lines_refuse_what_would_not_read_back() {
        let form = LineForm {
            separator: "\t".into(),
            null_marker: None,
        };
        let line = |key: Option<&[u8]>, value: Option<&[u8]>, form: &LineForm| {
            let mut result = None;
            one(key, value, |r| {
                let mut out = Vec::new();
                let outcome = form.write(&mut out, r).unwrap();
                result = Some(outcome.map(|()| String::from_utf8(out).unwrap()));
            });
            result.unwrap()
        };
        assert_eq!(line(Some(b"k"), Some(b"a\tb"), &form).unwrap(), "k\ta\tb\n");
        assert!(line(Some(b"k\t"), Some(b"v"), &form).is_err());
        assert!(line(Some(b"k"), Some(b"a\nb"), &form).is_err());
        assert!(line(Some(b"k"), Some(&[0xff]), &form).is_err());
        assert!(line(None, Some(b"v"), &form).is_err());
        let marked = LineForm {
            null_marker: Some("<null>".into()),
            ..form
        };
        assert_eq!(line(None, None, &marked).unwrap(), "<null>\t<null>\n");
        assert!(line(Some(b"<null>"), None, &marked).is_err());
    }
}
