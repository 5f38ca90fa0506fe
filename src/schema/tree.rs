//! Decoded messages in one reusable arena ([`Tree`]), for code that reads
//! a record's fields and keeps few of them: scalars, strings, arrays and
//! objects go into flat buffers that keep their capacity from one record
//! to the next, so a record costs no allocation once the buffers have
//! grown. A [`Node`] reads them as `serde_json::Value` would (`get`,
//! `as_str`, `as_i64`, …), and [`Node::to_value`] builds the `Value` the
//! [`super::emit::ValueEmitter`] builds, for what is kept.

use serde_json::Value;

use super::emit::Emitter;
use crate::format::base64;

/// One value of the arena; strings, arrays and objects are ranges of its
/// buffers.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slot {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    /// A range of the text buffer.
    Str(u32, u32),
    /// A range of the element buffer.
    Array(u32, u32),
    /// A range of the member buffer.
    Object(u32, u32),
}

/// An object member: its name's length and first eight bytes (which tell
/// most names apart, and are the whole of most), the rest of the name (a
/// range of the name buffer) and its value.
#[derive(Debug, Clone, Copy)]
struct Member {
    key: NameKey,
    rest: (u32, u32),
    value: u32,
}

/// A name's first eight bytes and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NameKey(u64, usize);

/// How many bytes of a name its [`NameKey`] holds.
const KEY_BYTES: usize = 8;

impl NameKey {
    #[inline]
    fn of(name: &str) -> Self {
        let mut first = [0u8; KEY_BYTES];
        let n = name.len().min(KEY_BYTES);
        if let (Some(to), Some(from)) = (first.get_mut(..n), name.as_bytes().get(..n)) {
            to.copy_from_slice(from);
        }
        Self(u64::from_le_bytes(first), name.len())
    }

    /// The name's bytes past the key's.
    #[inline]
    fn rest(name: &str) -> &[u8] {
        name.as_bytes().get(KEY_BYTES..).unwrap_or_default()
    }
}

/// The arena one record (or a few) is decoded into; a piece is the
/// position of its value.
#[derive(Debug, Default)]
pub struct Tree {
    slots: Vec<Slot>,
    elements: Vec<u32>,
    members: Vec<Member>,
    text: String,
    names: Vec<u8>,
}

/// Positions in the arena's buffers are 32-bit: a record is far smaller.
fn at(n: usize) -> u32 {
    n as u32
}

impl Tree {
    /// Empties the arena for the next record, keeping its capacity.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.elements.clear();
        self.members.clear();
        self.text.clear();
        self.names.clear();
    }

    /// The value at `piece`.
    #[inline]
    pub fn node(&self, piece: u32) -> Node<'_> {
        Node {
            tree: self,
            slot: self
                .slots
                .get(piece as usize)
                .copied()
                .unwrap_or(Slot::Null),
        }
    }

    fn push(&mut self, slot: Slot) -> u32 {
        self.slots.push(slot);
        at(self.slots.len() - 1)
    }

    /// Appends `write`'s text to the text buffer; its range.
    fn text_with(&mut self, write: impl FnOnce(&mut String)) -> (u32, u32) {
        let start = self.text.len();
        write(&mut self.text);
        (at(start), at(self.text.len()))
    }

    fn str_slot(&mut self, write: impl FnOnce(&mut String)) -> u32 {
        let (start, end) = self.text_with(write);
        self.push(Slot::Str(start, end))
    }

    fn text(&self, (start, end): (u32, u32)) -> &str {
        self.text
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    #[inline]
    fn rest(&self, m: &Member) -> &[u8] {
        let (start, end) = m.rest;
        self.names
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    /// A member's whole name.
    fn name(&self, m: &Member) -> String {
        let first = m.key.0.to_le_bytes();
        let mut bytes = first
            .get(..m.key.1.min(KEY_BYTES))
            .unwrap_or_default()
            .to_vec();
        bytes.extend_from_slice(self.rest(m));
        // The bytes of a `&str`, split and joined again.
        String::from_utf8(bytes).unwrap_or_default()
    }
}

impl Emitter for Tree {
    type Piece = u32;

    fn null(&mut self) -> u32 {
        self.push(Slot::Null)
    }
    fn bool(&mut self, v: bool) -> u32 {
        self.push(Slot::Bool(v))
    }
    fn int(&mut self, v: i64) -> u32 {
        self.push(Slot::Int(v))
    }
    fn uint(&mut self, v: u64) -> u32 {
        self.push(Slot::Uint(v))
    }
    fn float(&mut self, v: f64) -> u32 {
        // `Value::from` makes NaN and infinities null.
        match v.is_finite() {
            true => self.push(Slot::Float(v)),
            false => self.push(Slot::Null),
        }
    }
    fn string(&mut self, v: &str) -> u32 {
        self.str_slot(|t| t.push_str(v))
    }
    fn uuid(&mut self, bytes: &[u8]) -> u32 {
        self.str_slot(|t| base64::url_safe_unpadded_into(bytes, t))
    }
    fn base64(&mut self, bytes: &[u8]) -> u32 {
        self.str_slot(|t| base64::standard_into(bytes, t))
    }
    fn int_string(&mut self, v: i64) -> u32 {
        self.str_slot(|t| t.push_str(itoa::Buffer::new().format(v)))
    }
    fn value(&mut self, v: &Value) -> u32 {
        match v {
            Value::Null => self.null(),
            Value::Bool(b) => self.bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => self.uint(u),
                (_, Some(i), _) => self.int(i),
                (_, _, f) => self.float(f.unwrap_or(f64::NAN)),
            },
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                let items = items.iter().map(|item| self.value(item)).collect();
                self.array(items)
            }
            Value::Object(map) => {
                let members: Vec<(&str, u32)> = map
                    .iter()
                    .map(|(name, item)| (name.as_str(), self.value(item)))
                    .collect();
                self.object(members)
            }
        }
    }
    fn array(&mut self, items: Vec<u32>) -> u32 {
        let start = at(self.elements.len());
        self.elements.extend(items);
        let end = at(self.elements.len());
        self.push(Slot::Array(start, end))
    }
    fn object<'n>(&mut self, members: impl IntoIterator<Item = (&'n str, u32)>) -> u32 {
        let start = at(self.members.len());
        for (name, value) in members {
            let start = at(self.names.len());
            self.names.extend_from_slice(NameKey::rest(name));
            let rest = (start, at(self.names.len()));
            let key = NameKey::of(name);
            self.members.push(Member { key, rest, value });
        }
        let end = at(self.members.len());
        self.push(Slot::Object(start, end))
    }
    fn equals(&self, piece: &u32, v: &Value) -> bool {
        self.node(*piece).equals(v)
    }
}

/// A value of a [`Tree`], read as `serde_json::Value` reads.
#[derive(Debug, Clone, Copy)]
pub struct Node<'t> {
    tree: &'t Tree,
    slot: Slot,
}

/// The elements of an array [`Node`].
#[derive(Debug, Clone)]
pub struct Elements<'t> {
    tree: &'t Tree,
    positions: std::slice::Iter<'t, u32>,
}

impl<'t> Iterator for Elements<'t> {
    type Item = Node<'t>;

    fn next(&mut self) -> Option<Node<'t>> {
        self.positions.next().map(|&p| self.tree.node(p))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.positions.size_hint()
    }
}

impl ExactSizeIterator for Elements<'_> {}

/// The tree of [`Node::NULL`].
static EMPTY: Tree = Tree {
    slots: Vec::new(),
    elements: Vec::new(),
    members: Vec::new(),
    text: String::new(),
    names: Vec::new(),
};

impl Node<'static> {
    /// A null of no tree.
    pub const NULL: Node<'static> = Node {
        tree: &EMPTY,
        slot: Slot::Null,
    };
}

impl<'t> Node<'t> {
    #[inline]
    fn members(self) -> &'t [Member] {
        match self.slot {
            Slot::Object(start, end) => self
                .tree
                .members
                .get(start as usize..end as usize)
                .unwrap_or_default(),
            _ => &[],
        }
    }

    /// An object's member named `name`.
    #[inline]
    pub fn get(self, name: &str) -> Option<Node<'t>> {
        let key = NameKey::of(name);
        self.members()
            .iter()
            .find(|m| m.key == key && self.tree.rest(m) == NameKey::rest(name))
            .map(|m| self.tree.node(m.value))
    }

    /// A string's text.
    #[inline]
    pub fn as_str(self) -> Option<&'t str> {
        match self.slot {
            Slot::Str(start, end) => Some(self.tree.text((start, end))),
            _ => None,
        }
    }

    /// An integer that fits an `i64`.
    #[inline]
    pub fn as_i64(self) -> Option<i64> {
        match self.slot {
            Slot::Int(v) => Some(v),
            Slot::Uint(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    /// Any number, as an `f64`.
    pub fn as_f64(self) -> Option<f64> {
        match self.slot {
            Slot::Int(v) => Some(v as f64),
            Slot::Uint(v) => Some(v as f64),
            Slot::Float(v) => Some(v),
            _ => None,
        }
    }

    /// A boolean.
    pub fn as_bool(self) -> Option<bool> {
        match self.slot {
            Slot::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// Whether it is null.
    pub fn is_null(self) -> bool {
        self.slot == Slot::Null
    }

    /// An array's elements.
    pub fn as_array(self) -> Option<Elements<'t>> {
        match self.slot {
            Slot::Array(start, end) => Some(Elements {
                tree: self.tree,
                positions: self
                    .tree
                    .elements
                    .get(start as usize..end as usize)
                    .unwrap_or_default()
                    .iter(),
            }),
            _ => None,
        }
    }

    /// The `Value` of it, as [`super::emit::ValueEmitter`] builds it.
    pub fn to_value(self) -> Value {
        match self.slot {
            Slot::Null => Value::Null,
            Slot::Bool(b) => Value::Bool(b),
            Slot::Int(v) => Value::from(v),
            Slot::Uint(v) => Value::from(v),
            Slot::Float(v) => Value::from(v),
            Slot::Str(..) => Value::String(self.as_str().unwrap_or_default().to_string()),
            Slot::Array(..) => Value::Array(
                self.as_array()
                    .into_iter()
                    .flatten()
                    .map(Node::to_value)
                    .collect(),
            ),
            Slot::Object(..) => Value::Object(
                self.members()
                    .iter()
                    .map(|m| {
                        let name = self.tree.name(m);
                        (name, self.tree.node(m.value).to_value())
                    })
                    .collect(),
            ),
        }
    }

    /// Whether it is `v`, as `Value`'s `==` judges (numbers of one kind
    /// compare by value, object members in any order).
    pub fn equals(self, v: &Value) -> bool {
        match (self.slot, v) {
            (Slot::Null, Value::Null) => true,
            (Slot::Bool(a), Value::Bool(b)) => a == *b,
            (Slot::Int(_) | Slot::Uint(_) | Slot::Float(_), Value::Number(_)) => {
                self.to_value() == *v
            }
            (Slot::Str(..), Value::String(s)) => self.as_str() == Some(s.as_str()),
            (Slot::Array(..), Value::Array(items)) => self.as_array().is_some_and(|mine| {
                mine.len() == items.len() && mine.zip(items).all(|(a, b)| a.equals(b))
            }),
            (Slot::Object(..), Value::Object(map)) => {
                let members = self.members();
                members.len() == map.len()
                    && members.iter().all(|m| {
                        map.get(&self.tree.name(m))
                            .is_some_and(|b| self.tree.node(m.value).equals(b))
                    })
            }
            _ => false,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::emit::ValueEmitter;

    /// Builds one nested value with any emitter.
    fn build<E: Emitter>(e: &mut E) -> E::Piece {
        let items = vec![e.float(1.5), e.uint(u64::MAX), e.int(-3), e.float(f64::NAN)];
        let list = e.array(items);
        let id = e.uuid(&[7; 16]);
        let bytes = e.base64(b"kafka");
        let label = e.int_string(-12);
        let whole =
            e.value(&json!({"b": [1, "x", -2, 2.5], "a": null, "t": true, "schlüsselnamé": 1}));
        let empty = e.object([]);
        let (n, m) = (e.int(1), e.int(2));
        e.object([
            ("list", list),
            ("id", id),
            ("bytes", bytes),
            ("label", label),
            ("whole", whole),
            ("empty", empty),
            ("commitTimestamp", n),
            ("commitTimestampX", m),
        ])
    }

    #[test]
    fn a_tree_reads_and_converts_as_values_do() {
        let value = build(&mut ValueEmitter);
        let mut tree = Tree::default();
        let piece = build(&mut tree);
        let node = tree.node(piece);
        assert_eq!(node.to_value(), value);
        assert!(node.equals(&value));
        assert!(!node.equals(&json!({"list": []})));
        let whole = node.get("whole").unwrap();
        assert!(whole.get("a").unwrap().is_null());
        assert_eq!(whole.get("t").unwrap().as_bool(), Some(true));
        let b: Vec<Value> = whole
            .get("b")
            .unwrap()
            .as_array()
            .unwrap()
            .map(Node::to_value)
            .collect();
        assert_eq!(b, value["whole"]["b"].as_array().unwrap().clone());
        let list: Vec<Node<'_>> = node.get("list").unwrap().as_array().unwrap().collect();
        assert_eq!(list[1].as_i64(), value["list"][1].as_i64());
        assert_eq!(list[1].as_f64(), value["list"][1].as_f64());
        assert_eq!(list[2].as_i64(), Some(-3));
        assert_eq!(node.get("id").unwrap().as_str(), value["id"].as_str());
        assert_eq!(node.get("nope").map(Node::to_value), None);
        // Names longer than the key: told apart past their first bytes.
        assert_eq!(node.get("commitTimestampX").unwrap().as_i64(), Some(2));
        assert_eq!(node.get("commitTimestamp").unwrap().as_i64(), Some(1));
        assert!(node.get("commitTimestampY").is_none());
        assert_eq!(whole.get("schlüsselnamé").unwrap().as_i64(), Some(1));
        // Member order does not matter to equality, kind of number does.
        assert!(
            tree.node(piece)
                .get("whole")
                .unwrap()
                .equals(&json!({"t": true, "schlüsselnamé": 1, "a": null, "b": [1, "x", -2, 2.5]}))
        );
        assert!(!list[2].equals(&json!(-3.0)));
        tree.clear();
        assert!(tree.node(piece).is_null());
    }
}
