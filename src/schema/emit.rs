//! Where a decoded message goes: into `serde_json` values ([`ValueEmitter`],
//! for code that reads the fields), or straight into JSON text
//! ([`TextEmitter`], for printing), with the same bytes `Value`'s compact
//! `to_string` would print and no map or key allocated per field.

use std::ops::Range;

use serde_json::{Map, Value};

use crate::format::base64;

/// Builds the JSON of one message, piece by piece: scalars first, then the
/// arrays and objects holding them.
pub trait Emitter {
    /// One value made by this emitter.
    type Piece;

    /// JSON null.
    fn null(&mut self) -> Self::Piece;
    /// A boolean.
    fn bool(&mut self, v: bool) -> Self::Piece;
    /// A signed integer.
    fn int(&mut self, v: i64) -> Self::Piece;
    /// An unsigned integer.
    fn uint(&mut self, v: u64) -> Self::Piece;
    /// A float (NaN and infinities are null, as `serde_json` has them).
    fn float(&mut self, v: f64) -> Self::Piece;
    /// A string.
    fn string(&mut self, v: &str) -> Self::Piece;
    /// A uuid as Kafka's `Uuid.toString` prints it (URL-safe base64).
    fn uuid(&mut self, bytes: &[u8]) -> Self::Piece {
        self.string(&base64::url_safe_unpadded(bytes))
    }
    /// Bytes as standard base64, as Jackson prints binary values.
    fn base64(&mut self, bytes: &[u8]) -> Self::Piece {
        self.string(&base64::standard(bytes))
    }
    /// An integer written as a string (`"3"`), as Kafka labels versions.
    fn int_string(&mut self, v: i64) -> Self::Piece;
    /// A whole value already built.
    fn value(&mut self, v: &Value) -> Self::Piece;
    /// An array of pieces.
    fn array(&mut self, items: Vec<Self::Piece>) -> Self::Piece;
    /// An object of the given members, in this order; names never need
    /// escaping in JSON.
    fn object<'n>(
        &mut self,
        members: impl IntoIterator<Item = (&'n str, Self::Piece)>,
    ) -> Self::Piece;
    /// Whether a piece is the JSON value `v` (as `Value`'s `==` judges it).
    fn equals(&self, piece: &Self::Piece, v: &Value) -> bool;
    /// For an emitter that writes JSON text into one buffer
    /// ([`TextEmitter`]): lets `write` append a value's text to that buffer
    /// directly, and gives the piece it wrote with `write`'s result. `None`
    /// (without calling `write`) for an emitter that builds values: its
    /// caller emits the value piece by piece instead.
    fn write_text<R>(&mut self, write: impl FnOnce(&mut String) -> R) -> Option<(Self::Piece, R)> {
        let _ = write;
        None
    }
}

/// Appends `v` to `buf` as a JSON string: copied as it is when nothing in
/// it needs escaping (names, ids, most values), else escaped by
/// `serde_json`.
pub fn write_json_str(buf: &mut String, v: &str) {
    if v.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        buf.push('"');
        buf.push_str(v);
        buf.push('"');
    } else {
        buf.push_str(&Value::from(v).to_string());
    }
}

/// Emits `serde_json` values.
#[derive(Debug, Default)]
pub struct ValueEmitter;

impl Emitter for ValueEmitter {
    type Piece = Value;

    fn null(&mut self) -> Value {
        Value::Null
    }
    fn bool(&mut self, v: bool) -> Value {
        Value::Bool(v)
    }
    fn int(&mut self, v: i64) -> Value {
        Value::from(v)
    }
    fn uint(&mut self, v: u64) -> Value {
        Value::from(v)
    }
    fn float(&mut self, v: f64) -> Value {
        Value::from(v)
    }
    fn string(&mut self, v: &str) -> Value {
        Value::String(v.to_string())
    }
    fn int_string(&mut self, v: i64) -> Value {
        Value::String(v.to_string())
    }
    fn value(&mut self, v: &Value) -> Value {
        v.clone()
    }
    fn array(&mut self, items: Vec<Value>) -> Value {
        Value::Array(items)
    }
    fn object<'n>(&mut self, members: impl IntoIterator<Item = (&'n str, Value)>) -> Value {
        let mut map = Map::new();
        for (name, value) in members {
            map.insert(name.to_string(), value);
        }
        Value::Object(map)
    }
    fn equals(&self, piece: &Value, v: &Value) -> bool {
        piece == v
    }
}

/// Emits compact JSON text into one buffer; a piece is the byte range of
/// its text there. The buffer is a `String`, so a piece's text is there
/// without checking it again. An array or object is written after the pieces it
/// copies, which stay where they are until [`TextEmitter::clear`], so the
/// buffer holds a message's text about as many times as it nests.
#[derive(Debug, Default)]
pub struct TextEmitter {
    buf: String,
}

impl TextEmitter {
    /// The text of a piece.
    pub fn text(&self, piece: &Range<usize>) -> &str {
        self.buf.get(piece.clone()).unwrap_or_default()
    }

    /// Empties the buffer for the next message, keeping its capacity.
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    fn push_json(&mut self, v: impl serde::Serialize) -> Range<usize> {
        let start = self.buf.len();
        // These values always serialize.
        if let Ok(text) = serde_json::to_string(&v) {
            self.buf.push_str(&text);
        }
        start..self.buf.len()
    }

    /// JSON text written as it is: `null`, `true`, `false` and integers,
    /// which `serde_json` writes the same way (its integers are `itoa`'s).
    fn push_literal(&mut self, text: &str) -> Range<usize> {
        let start = self.buf.len();
        self.buf.push_str(text);
        start..self.buf.len()
    }

    /// A JSON string ([`write_json_str`]).
    fn push_str(&mut self, v: &str) {
        write_json_str(&mut self.buf, v);
    }

    /// Appends `open`, the pieces joined by commas (each after its
    /// label, if any) and `close`.
    fn assemble<'p>(
        &mut self,
        open: char,
        pieces: impl Iterator<Item = (Option<&'p str>, Range<usize>)>,
        close: char,
    ) -> Range<usize> {
        let start = self.buf.len();
        self.buf.push(open);
        for (i, (label, piece)) in pieces.enumerate() {
            if i > 0 {
                self.buf.push(',');
            }
            if let Some(label) = label {
                // Member names are schema field names (letters, digits and
                // `_`, checked when a schema is read) or kseg's own.
                self.buf.push('"');
                self.buf.push_str(label);
                self.buf.push_str("\":");
            }
            self.buf.extend_from_within(piece);
        }
        self.buf.push(close);
        start..self.buf.len()
    }
}

impl Emitter for TextEmitter {
    type Piece = Range<usize>;

    fn null(&mut self) -> Range<usize> {
        self.push_literal("null")
    }
    fn bool(&mut self, v: bool) -> Range<usize> {
        self.push_literal(if v { "true" } else { "false" })
    }
    fn int(&mut self, v: i64) -> Range<usize> {
        self.push_literal(itoa::Buffer::new().format(v))
    }
    fn uint(&mut self, v: u64) -> Range<usize> {
        self.push_literal(itoa::Buffer::new().format(v))
    }
    fn float(&mut self, v: f64) -> Range<usize> {
        self.push_json(Value::from(v))
    }
    fn string(&mut self, v: &str) -> Range<usize> {
        let start = self.buf.len();
        self.push_str(v);
        start..self.buf.len()
    }
    fn int_string(&mut self, v: i64) -> Range<usize> {
        let start = self.buf.len();
        self.buf.push('"');
        self.buf.push_str(itoa::Buffer::new().format(v));
        self.buf.push('"');
        start..self.buf.len()
    }
    fn value(&mut self, v: &Value) -> Range<usize> {
        self.push_json(v)
    }
    fn array(&mut self, items: Vec<Range<usize>>) -> Range<usize> {
        self.assemble('[', items.into_iter().map(|p| (None, p)), ']')
    }
    fn object<'n>(
        &mut self,
        members: impl IntoIterator<Item = (&'n str, Range<usize>)>,
    ) -> Range<usize> {
        self.assemble(
            '{',
            members.into_iter().map(|(name, p)| (Some(name), p)),
            '}',
        )
    }
    fn equals(&self, piece: &Range<usize>, v: &Value) -> bool {
        self.buf
            .get(piece.clone())
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
            .is_some_and(|parsed| parsed == *v)
    }
    fn write_text<R>(&mut self, write: impl FnOnce(&mut String) -> R) -> Option<(Range<usize>, R)> {
        let start = self.buf.len();
        let result = write(&mut self.buf);
        Some((start..self.buf.len(), result))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Builds the same nested value with both emitters.
    fn build<E: Emitter>(e: &mut E) -> E::Piece {
        let a = e.int(-3);
        let _not_named = e.string("not named");
        let items = vec![
            e.float(1.5),
            e.string("q\"\u{1}é\\"),
            e.string("plain é"),
            e.uint(u64::MAX),
            e.string("\u{7f}"),
        ];
        let list = e.array(items);
        let empty = e.object([]);
        let n = e.null();
        let t = e.bool(true);
        let nan = e.float(f64::NAN);
        let label = e.int_string(-12);
        let whole = e.value(&serde_json::json!({"b": [1, "x"], "a": null}));
        // Members named out of the order they were made in.
        e.object([
            ("list", list),
            ("a", a),
            ("empty", empty),
            ("n", n),
            ("t", t),
            ("nan", nan),
            ("whole", whole),
            ("label", label),
        ])
    }

    #[test]
    fn text_is_what_the_values_print() {
        let value = build(&mut ValueEmitter);
        let mut text = TextEmitter::default();
        let piece = build(&mut text);
        assert_eq!(text.text(&piece), value.to_string());
        assert_eq!(piece.end, text.buf.len());
        assert!(text.equals(&piece, &value));
        assert!(!text.equals(&piece, &Value::Null));
    }
}
