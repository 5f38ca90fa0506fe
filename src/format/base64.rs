//! Base64 as Kafka's tools print bytes: the standard alphabet with padding
//! (Jackson's binary values) and the URL-safe one without (`Uuid.toString`),
//! by the `base64` crate's engines.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

/// Standard base64 with padding.
pub fn standard(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// URL-safe base64 without padding, as Kafka prints a `Uuid`.
pub fn url_safe_unpadded(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes standard base64 (padding optional); `None` for any other
/// character.
pub fn decode_standard(text: &str) -> Option<Vec<u8>> {
    base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    )
    .decode(text)
    .ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn encodes_uuids_as_kafka_prints_them() {
        assert_eq!(url_safe_unpadded(&[0; 16]), "AAAAAAAAAAAAAAAAAAAAAA");
        assert_eq!(url_safe_unpadded(&[0xfb, 0xff]), "-_8");
        assert_eq!(standard(b"ud-1"), "dWQtMQ==");
        assert_eq!(decode_standard("dWQtMQ==").unwrap(), b"ud-1");
        assert_eq!(decode_standard("dWQtMQ").unwrap(), b"ud-1");
        assert_eq!(decode_standard(&standard(b"abc")).unwrap(), b"abc");
        assert_eq!(decode_standard("a-b"), None);
    }
}
