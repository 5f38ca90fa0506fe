//! One decoder for every schema: walks a message's fields against the bytes
//! and writes the JSON Kafka's generated `*JsonConverter.write` writes
//! (field names in camel case, absent versions left out, tagged fields only
//! when they differ from their default, bytes as base64, uuids as Kafka's
//! `Uuid.toString`). Every length is checked against the bytes left before
//! anything is allocated; every error names its byte position.

use serde_json::{Value, json};

use super::emit::{Emitter, ValueEmitter, write_json_str};
use super::spec::{Field, FieldType, MessageSpec};
use crate::format::FormatError;
use crate::format::base64;
use crate::format::cursor::Cursor;

/// A record that does not parse with its schema, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte {position}: {reason}")]
pub struct DecodeError {
    /// Byte position in the key or value where the problem was found.
    pub position: u64,
    /// What was wrong.
    pub reason: String,
}

impl DecodeError {
    /// An error at `position`.
    pub fn new(position: u64, reason: impl Into<String>) -> Self {
        Self {
            position,
            reason: reason.into(),
        }
    }
}

impl From<FormatError> for DecodeError {
    fn from(err: FormatError) -> Self {
        Self::new(err.offset, err.kind.to_string())
    }
}

/// Decodes one message of `spec` at `version` from the cursor, leaving the
/// cursor after it.
pub fn decode_message(
    spec: &MessageSpec,
    version: i16,
    c: &mut Cursor<'_>,
) -> Result<Value, DecodeError> {
    emit_message(spec, version, c, &mut ValueEmitter)
}

/// Decodes one message of `spec` at `version` from the cursor into `e`,
/// leaving the cursor after it.
pub fn emit_message<E: Emitter>(
    spec: &MessageSpec,
    version: i16,
    c: &mut Cursor<'_>,
    e: &mut E,
) -> Result<E::Piece, DecodeError> {
    if !spec.valid_versions.contains(version) {
        return Err(DecodeError::new(
            c.position(),
            format!("{} has no version {version}", spec.name),
        ));
    }
    let walk = Walk {
        spec,
        version,
        flexible: spec.flexible_versions.contains(version),
    };
    // A version without tagged fields prints its members in the order
    // they are read: a text emitter takes them straight into its buffer.
    if !walk.flexible {
        if let Some((piece, written)) = e.write_text(|out| walk.write_struct(c, &spec.fields, out))
        {
            return written.map(|()| piece);
        }
    }
    walk.read_struct(c, &spec.fields, e)
}

/// [`emit_message`] as JSON text appended to `out`, when `version` is one
/// of `spec`'s and not flexible (so no field is tagged and members print
/// in the order they are read); `None`, reading and writing nothing, for
/// any other version.
pub fn write_message_text(
    spec: &MessageSpec,
    version: i16,
    c: &mut Cursor<'_>,
    out: &mut String,
) -> Option<Result<(), DecodeError>> {
    let plain = spec.valid_versions.contains(version) && !spec.flexible_versions.contains(version);
    plain.then(|| {
        let walk = Walk {
            spec,
            version,
            flexible: false,
        };
        walk.write_struct(c, &spec.fields, out)
    })
}

/// The state of one message's walk.
struct Walk<'s> {
    spec: &'s MessageSpec,
    version: i16,
    flexible: bool,
}

impl Walk<'_> {
    fn is_tagged(&self, field: &Field) -> bool {
        self.flexible && field.tagged_versions.contains(self.version)
    }

    fn read_struct<E: Emitter>(
        &self,
        c: &mut Cursor<'_>,
        fields: &[Field],
        e: &mut E,
    ) -> Result<E::Piece, DecodeError> {
        let present = |f: &Field| f.versions.contains(self.version);
        // Most structs have a few fields: their pieces wait on the stack.
        let mut on_stack: [Option<E::Piece>; 16] = std::array::from_fn(|_| None);
        let mut on_heap: Vec<Option<E::Piece>>;
        let values = match on_stack.get_mut(..fields.len()) {
            Some(values) => values,
            None => {
                on_heap = (0..fields.len()).map(|_| None).collect();
                &mut on_heap
            }
        };
        for (slot, field) in values.iter_mut().zip(fields) {
            if present(field) && !self.is_tagged(field) {
                *slot = Some(self.read_field(c, field, false, e)?);
            }
        }
        let mut unknown = Vec::new();
        if self.flexible {
            let at = c.position();
            let count = c.read_uvarint()?;
            if count as usize > c.remaining() {
                return Err(DecodeError::new(
                    at,
                    format!("{count} tagged fields, but {} bytes left", c.remaining()),
                ));
            }
            for _ in 0..count {
                let tag = c.read_uvarint()?;
                let size = c.read_uvarint()?;
                let start = c.position();
                let data = c.read_bytes(size as usize)?;
                let known = fields
                    .iter()
                    .position(|f| f.tag == Some(tag) && present(f) && self.is_tagged(f));
                match known.and_then(|i| Some((values.get_mut(i)?, fields.get(i)?))) {
                    Some((slot, field)) => {
                        let mut inner = Cursor::new(data, start);
                        *slot = Some(self.read_field(&mut inner, field, true, e)?);
                        if inner.remaining() != 0 {
                            return Err(DecodeError::new(
                                inner.position(),
                                format!(
                                    "tagged field {} leaves {} of its {size} bytes unread",
                                    field.name,
                                    inner.remaining()
                                ),
                            ));
                        }
                    }
                    None => {
                        let tag = e.uint(u64::from(tag));
                        let data = e.base64(data);
                        unknown.push(e.object([("tag", tag), ("data", data)]));
                    }
                }
            }
        }
        for (field, value) in fields.iter().zip(values.iter_mut()) {
            if self.is_tagged(field)
                && value
                    .as_ref()
                    .is_some_and(|v| e.equals(v, &self.default_value(field)))
            {
                *value = None;
            }
        }
        let unknown = (!unknown.is_empty()).then(|| e.array(unknown));
        let members = fields
            .iter()
            .zip(values.iter_mut())
            .filter_map(|(field, value)| Some((field.json_name.as_str(), value.take()?)))
            .chain(unknown.map(|u| ("_unknownTaggedFields", u)));
        Ok(e.object(members))
    }

    /// A field's value; a nullable struct's presence is a byte, or an
    /// unsigned varint when the field is tagged.
    fn read_field<E: Emitter>(
        &self,
        c: &mut Cursor<'_>,
        field: &Field,
        tagged: bool,
        e: &mut E,
    ) -> Result<E::Piece, DecodeError> {
        let nullable = field.nullable_versions.contains(self.version);
        if let (FieldType::Struct(_), true) = (&field.ty, nullable) {
            let present = if tagged {
                c.read_uvarint()? > 0
            } else {
                c.read_i8()? >= 0
            };
            if !present {
                return Ok(e.null());
            }
        }
        self.read_value(c, field, &field.ty, nullable, e)
    }

    /// A length (of a string, bytes or array): -1 for null.
    fn read_length(&self, c: &mut Cursor<'_>, wide: bool) -> Result<i64, DecodeError> {
        Ok(match (self.flexible, wide) {
            (true, _) => i64::from(c.read_uvarint()?) - 1,
            (false, true) => i64::from(c.read_i32()?),
            (false, false) => i64::from(c.read_i16()?),
        })
    }

    /// Reads a length and checks it: `None` for null (an error unless
    /// `nullable`), else a length no larger than the bytes left.
    fn checked_length(
        &self,
        c: &mut Cursor<'_>,
        field: &Field,
        wide: bool,
        nullable: bool,
    ) -> Result<Option<usize>, DecodeError> {
        let at = c.position();
        let len = self.read_length(c, wide)?;
        if len < 0 {
            return if nullable && len == -1 {
                Ok(None)
            } else {
                Err(DecodeError::new(
                    at,
                    format!("non-nullable field {} has length {len}", field.name),
                ))
            };
        }
        if len as u64 > c.remaining() as u64 {
            return Err(DecodeError::new(
                at,
                format!(
                    "field {} has length {len}, but only {} bytes are left",
                    field.name,
                    c.remaining()
                ),
            ));
        }
        Ok(Some(len as usize))
    }

    /// A value of type `ty` (the field's, or its array's element type); a
    /// struct's presence byte has been read by [`Self::read_field`].
    fn read_value<E: Emitter>(
        &self,
        c: &mut Cursor<'_>,
        field: &Field,
        ty: &FieldType,
        nullable: bool,
        e: &mut E,
    ) -> Result<E::Piece, DecodeError> {
        Ok(match ty {
            FieldType::Bool => e.bool(c.read_i8()? != 0),
            FieldType::Int8 => e.int(i64::from(c.read_i8()?)),
            FieldType::Int16 => e.int(i64::from(c.read_i16()?)),
            FieldType::Uint16 => e.uint(u64::from(c.read_i16()? as u16)),
            FieldType::Int32 => e.int(i64::from(c.read_i32()?)),
            FieldType::Uint32 => e.uint(u64::from(c.read_u32()?)),
            FieldType::Int64 => e.int(c.read_i64()?),
            FieldType::Float64 => e.float(f64::from_bits(c.read_i64()? as u64)),
            FieldType::Uuid => e.uuid(c.read_bytes(16)?),
            FieldType::String => match self.checked_length(c, field, false, nullable)? {
                None => e.null(),
                Some(len) => {
                    let bytes = c.read_bytes(len)?;
                    // Valid UTF-8 (nearly every string) needs no copy.
                    match std::str::from_utf8(bytes) {
                        Ok(text) => e.string(text),
                        Err(_) => e.string(&String::from_utf8_lossy(bytes)),
                    }
                }
            },
            FieldType::Bytes | FieldType::Records => {
                match self.checked_length(c, field, true, nullable)? {
                    None => e.null(),
                    Some(len) => e.base64(c.read_bytes(len)?),
                }
            }
            FieldType::Array(element) => match self.checked_length(c, field, true, nullable)? {
                None => e.null(),
                Some(count) => {
                    let mut items = Vec::with_capacity(count);
                    for _ in 0..count {
                        // Array elements are never null; only the array may be.
                        items.push(self.read_value(c, field, element, false, e)?);
                    }
                    e.array(items)
                }
            },
            FieldType::Struct(name) => {
                let fields = self.spec.struct_fields(field).ok_or_else(|| {
                    DecodeError::new(c.position(), format!("unknown struct type {name}"))
                })?;
                self.read_struct(c, fields, e)?
            }
        })
    }

    /// [`Self::read_struct`] of a version that is not flexible (so none of
    /// its fields is tagged) as JSON text appended to `out`, each member
    /// written as it is read: the same text [`TextEmitter`] assembles from
    /// the pieces, with the same reads and so the same errors.
    ///
    /// [`TextEmitter`]: super::emit::TextEmitter
    fn write_struct(
        &self,
        c: &mut Cursor<'_>,
        fields: &[Field],
        out: &mut String,
    ) -> Result<(), DecodeError> {
        out.push('{');
        let mut first = true;
        for field in fields.iter().filter(|f| f.versions.contains(self.version)) {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&field.json_label);
            let nullable = field.nullable_versions.contains(self.version);
            if let (FieldType::Struct(_), true) = (&field.ty, nullable) {
                if c.read_i8()? < 0 {
                    out.push_str("null");
                    continue;
                }
            }
            self.write_value(c, field, &field.ty, nullable, out)?;
        }
        out.push('}');
        Ok(())
    }

    /// [`Self::read_value`] as JSON text appended to `out` ([`Self::write_struct`]).
    fn write_value(
        &self,
        c: &mut Cursor<'_>,
        field: &Field,
        ty: &FieldType,
        nullable: bool,
        out: &mut String,
    ) -> Result<(), DecodeError> {
        let int = |out: &mut String, v: i64| {
            out.push_str(itoa::Buffer::new().format(v));
        };
        match ty {
            FieldType::Bool => {
                let text = if c.read_i8()? != 0 { "true" } else { "false" };
                out.push_str(text);
            }
            FieldType::Int8 => int(out, i64::from(c.read_i8()?)),
            FieldType::Int16 => int(out, i64::from(c.read_i16()?)),
            FieldType::Uint16 => int(out, i64::from(c.read_i16()? as u16)),
            FieldType::Int32 => int(out, i64::from(c.read_i32()?)),
            FieldType::Uint32 => int(out, i64::from(c.read_u32()?)),
            FieldType::Int64 => int(out, c.read_i64()?),
            FieldType::Float64 => {
                let v = Value::from(f64::from_bits(c.read_i64()? as u64));
                out.push_str(&v.to_string());
            }
            FieldType::Uuid => write_json_str(out, &base64::url_safe_unpadded(c.read_bytes(16)?)),
            FieldType::String => match self.checked_length(c, field, false, nullable)? {
                None => out.push_str("null"),
                Some(len) => {
                    let bytes = c.read_bytes(len)?;
                    match std::str::from_utf8(bytes) {
                        Ok(text) => write_json_str(out, text),
                        Err(_) => write_json_str(out, &String::from_utf8_lossy(bytes)),
                    }
                }
            },
            FieldType::Bytes | FieldType::Records => {
                match self.checked_length(c, field, true, nullable)? {
                    None => out.push_str("null"),
                    Some(len) => write_json_str(out, &base64::standard(c.read_bytes(len)?)),
                }
            }
            FieldType::Array(element) => match self.checked_length(c, field, true, nullable)? {
                None => out.push_str("null"),
                Some(count) => {
                    out.push('[');
                    for i in 0..count {
                        if i > 0 {
                            out.push(',');
                        }
                        // Array elements are never null; only the array may be.
                        self.write_value(c, field, element, false, out)?;
                    }
                    out.push(']');
                }
            },
            FieldType::Struct(name) => {
                let fields = self.spec.struct_fields(field).ok_or_else(|| {
                    DecodeError::new(c.position(), format!("unknown struct type {name}"))
                })?;
                self.write_struct(c, fields, out)?;
            }
        }
        Ok(())
    }

    /// The value a field has when the bytes do not carry it, as Kafka's
    /// JSON converters compare it (a tagged field equal to it is not written).
    fn default_value(&self, field: &Field) -> Value {
        let number = |d: &Value| {
            d.as_i64()
                .or_else(|| d.as_str().and_then(|s| s.parse::<i64>().ok()))
                .unwrap_or(0)
        };
        match (&field.default, &field.ty) {
            // A JSON null default is no default (Kafka reads it as a missing string).
            (Some(Value::String(s)), _) if s == "null" => Value::Null,
            (Some(d), FieldType::Bool) => Value::Bool(d == &Value::Bool(true) || d == "true"),
            (Some(d), FieldType::Float64) => json!(
                d.as_f64()
                    .or_else(|| d.as_str().and_then(|s| s.parse().ok()))
                    .unwrap_or(0.0)
            ),
            (Some(Value::String(s)), FieldType::String) => Value::String(s.clone()),
            (
                Some(d),
                FieldType::Int8
                | FieldType::Int16
                | FieldType::Uint16
                | FieldType::Int32
                | FieldType::Uint32
                | FieldType::Int64,
            ) => json!(number(d)),
            (_, FieldType::Bool) => Value::Bool(false),
            (_, FieldType::Float64) => json!(0.0),
            (_, FieldType::Uuid) => Value::String(base64::url_safe_unpadded(&[0; 16])),
            (_, FieldType::String | FieldType::Bytes | FieldType::Records) => {
                Value::String(String::new())
            }
            (_, FieldType::Array(_)) => Value::Array(Vec::new()),
            (_, FieldType::Struct(_)) if field.default == Some(Value::String("null".into())) => {
                Value::Null
            }
            (_, FieldType::Struct(_)) => {
                let fields = self.spec.struct_fields(field).unwrap_or_default();
                Value::Object(
                    fields
                        .iter()
                        .filter(|f| f.versions.contains(self.version) && !self.is_tagged(f))
                        .map(|f| (f.json_name.clone(), self.default_value(f)))
                        .collect(),
                )
            }
            (_, _) => json!(0),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn spec(fields: &str, flexible: &str) -> MessageSpec {
        MessageSpec::parse(&format!(
            r#"{{"type":"data","name":"T","validVersions":"0-1","flexibleVersions":"{flexible}","fields":{fields}}}"#
        ))
        .unwrap()
    }

    fn decode(spec: &MessageSpec, version: i16, bytes: &[u8]) -> Result<Value, DecodeError> {
        decode_message(spec, version, &mut Cursor::new(bytes, 0))
    }

    #[test]
    fn fields_outside_their_versions_are_neither_read_nor_written() {
        let s = spec(
            r#"[{"name":"A","type":"int16","versions":"0+"},{"name":"B","type":"int32","versions":"1+"}]"#,
            "none",
        );
        assert_eq!(decode(&s, 0, &[0, 7]).unwrap(), json!({"a": 7}));
        assert_eq!(
            decode(&s, 1, &[0, 7, 0, 0, 0, 9]).unwrap(),
            json!({"a": 7, "b": 9})
        );
    }

    #[test]
    fn compact_lengths_and_tagged_fields_in_flexible_versions() {
        let s = spec(
            r#"[{"name":"Name","type":"string","versions":"0+","nullableVersions":"0+"},
                {"name":"Epoch","type":"int32","versions":"1+","taggedVersions":"1+","tag":0,"default":-1}]"#,
            "1+",
        );
        // "ab", then one tagged field (tag 0, 4 bytes: 5), then one unknown tag 7.
        let bytes = [3, b'a', b'b', 2, 0, 4, 0, 0, 0, 5, 7, 1, 0xff];
        assert_eq!(
            decode(&s, 1, &bytes).unwrap(),
            json!({"name": "ab", "epoch": 5, "_unknownTaggedFields": [{"tag": 7, "data": "/w=="}]})
        );
        // Null name; the tagged field at its default is not written.
        assert_eq!(
            decode(&s, 1, &[0, 1, 0, 4, 0xff, 0xff, 0xff, 0xff]).unwrap(),
            json!({"name": null})
        );
    }

    #[test]
    fn a_length_past_the_end_is_an_error_with_its_position() {
        let s = spec(r#"[{"name":"A","type":"[]int32","versions":"0+"}]"#, "none");
        let err = decode(&s, 0, &[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1]).unwrap_err();
        assert_eq!(err.position, 0);
        assert!(err.reason.contains("only 4 bytes are left"), "{err}");
        let err = decode(&s, 0, &[0, 0, 0, 2, 0, 0, 0, 1, 0]).unwrap_err();
        assert_eq!(err.position, 8);
    }

    #[test]
    fn null_in_a_non_nullable_field_is_an_error() {
        let s = spec(r#"[{"name":"A","type":"string","versions":"0+"}]"#, "none");
        assert!(decode(&s, 0, &[0xff, 0xff]).is_err());
        assert!(
            decode(&s, 2, &[0, 0])
                .unwrap_err()
                .reason
                .contains("no version 2")
        );
    }
}
