//! Classic consumer groups' member subscription and assignment bytes,
//! decoded in place as kafka-dump-log's offsets decoder does: only for
//! groups whose protocol type is `consumer`; bytes that do not decode stay
//! base64.

use serde_json::Value;

use super::decode::decode_message;
use super::registry::Registry;
use crate::format::base64;
use crate::format::cursor::Cursor;

/// The protocol type whose member bytes are the consumer protocol's.
const CONSUMER: &str = "consumer";

/// The member fields that carry consumer protocol bytes, and their schemas.
pub const MEMBER_PROTOCOLS: [(&str, &str); 2] = [
    ("subscription", "ConsumerProtocolSubscription"),
    ("assignment", "ConsumerProtocolAssignment"),
];

/// A 2-byte version and the `schema` message, or `None` if it does not decode.
fn decode_embedded(registry: &Registry, schema: &str, encoded: &Value) -> Option<Value> {
    let bytes = base64::decode_standard(encoded.as_str()?)?;
    let spec = registry.by_name("clients", schema)?;
    let mut c = Cursor::new(&bytes, 0);
    let version = c.read_i16().ok()?;
    decode_message(spec, version, &mut c).ok()
}

/// Replaces each member's `subscription` and `assignment` in a decoded
/// `GroupMetadataValue`'s data with their decoded form.
pub fn decode_member_protocols(registry: &Registry, data: &mut Value) {
    if data.get("protocolType").and_then(Value::as_str) != Some(CONSUMER) {
        return;
    }
    let Some(members) = data.get_mut("members").and_then(Value::as_array_mut) else {
        return;
    };
    for member in members {
        for (field, schema) in MEMBER_PROTOCOLS {
            let Some(slot) = member.get_mut(field) else {
                continue;
            };
            if let Some(decoded) = decode_embedded(registry, schema, slot) {
                *slot = decoded;
            }
        }
    }
}
