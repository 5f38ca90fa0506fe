//! A classic group's `GroupMetadataValue` as the coordinator's state keeps
//! it: the record's value bytes, decoded (member subscriptions and
//! assignments too) the first time it is read. A classic group's record is
//! replaced at every rebalance and only the last one is ever read, so a
//! replay copies bytes instead of building values it throws away, and the
//! state takes one allocation a group whatever the number of rebalances.

use std::sync::OnceLock;

use serde_json::Value;

use crate::schema::topics::decode_group_metadata;

/// A classic group's metadata: its value's bytes, or the data itself.
#[derive(Debug, Clone)]
pub struct ClassicData {
    /// The `GroupMetadataValue`'s bytes (empty when made from the data).
    bytes: Box<[u8]>,
    /// The data, decoded from the bytes when first read.
    data: OnceLock<Value>,
}

impl ClassicData {
    /// The metadata in a `GroupMetadataValue` record's value bytes, which
    /// decoded when the record was read.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Self {
            bytes: bytes.into(),
            data: OnceLock::new(),
        }
    }

    /// The metadata given as its decoded data.
    pub fn from_data(data: Value) -> Self {
        Self {
            bytes: Box::default(),
            data: OnceLock::from(data),
        }
    }

    /// The decoded data (`protocolType`, `generation`, `members`, …).
    pub fn data(&self) -> &Value {
        // The bytes decoded once already, when their record was replayed.
        self.data
            .get_or_init(|| decode_group_metadata(&self.bytes).unwrap_or_default())
    }
}

impl PartialEq for ClassicData {
    fn eq(&self, other: &Self) -> bool {
        self.data() == other.data()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Bytes decode as the record's value does, member protocols included.
    #[test]
    fn bytes_decode_when_read() {
        // GroupMetadataValue v0: protocol type "consumer", generation 3,
        // protocol "range", leader "m", no members.
        let mut v = vec![0, 0, 0, 8];
        v.extend_from_slice(b"consumer");
        v.extend_from_slice(&[0, 0, 0, 3, 0, 5]);
        v.extend_from_slice(b"range");
        v.extend_from_slice(&[0, 1, b'm', 0, 0, 0, 0]);
        let c = ClassicData::from_bytes(&v);
        assert_eq!(c.data()["protocolType"], "consumer");
        assert_eq!(c.data()["generation"], 3);
        let d = crate::schema::decode_record(
            crate::schema::InternalTopic::ConsumerOffsets,
            Some(&[0, 2, 0, 1, b'g']),
            Some(&v),
        );
        let crate::schema::Decoded::Json(whole) = d.value else {
            panic!("{:?}", d.value)
        };
        assert_eq!(c, ClassicData::from_data(whole["data"].clone()));
    }
}
