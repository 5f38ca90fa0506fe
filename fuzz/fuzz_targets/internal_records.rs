//! Internal topics' records from arbitrary bytes: the dispatch by record
//! type, version and API key, the schema-driven decoder under it, control
//! records, and the text kseg prints for each. Input: a topic selector
//! byte, a key-length byte, the key, then the value.
#![no_main]

use kseg::format::ControlType;
use kseg::render::ByteEncoding;
use kseg::render::decoded::{control_text, error_text, key_text, payload_text};
use kseg::schema::{InternalTopic, decode_control, decode_record};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [selector, key_len, rest @ ..] = data else {
        return;
    };
    let topic = InternalTopic::ALL[usize::from(*selector) % InternalTopic::ALL.len()];
    let split = usize::from(*key_len).min(rest.len());
    let (key, value) = rest.split_at(split);
    let key = (selector & 0x40 == 0).then_some(key);
    let value = (selector & 0x80 == 0).then_some(value);
    let decoded = if selector & 0x20 != 0 {
        let d = decode_control(key, value);
        let control = key.and_then(|k| k.get(2..4)).map_or(0, |t| i16::from_be_bytes([t[0], t[1]]));
        let _ = control_text(ControlType::from_id(control), &d);
        d
    } else {
        decode_record(topic, key, value)
    };
    let _ = key_text(topic, &decoded, key, ByteEncoding::Base64);
    let _ = payload_text(topic, &decoded, value, ByteEncoding::Utf8);
    let _ = error_text(&decoded);
});
