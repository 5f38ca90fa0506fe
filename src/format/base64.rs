//! Base64 as Kafka's tools print bytes: the standard alphabet with padding
//! (Jackson's binary values) and the URL-safe one without (`Uuid.toString`),
//! by the `base64` crate's engines; and URL-safe text read back as Java
//! reads it (`Uuid.fromString`).

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

/// [`standard`], appended to `out`.
pub fn standard_into(bytes: &[u8], out: &mut String) {
    STANDARD.encode_string(bytes, out);
}

/// [`url_safe_unpadded`], appended to `out`.
pub fn url_safe_unpadded_into(bytes: &[u8], out: &mut String) {
    URL_SAFE_NO_PAD.encode_string(bytes, out);
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

/// Decodes URL-safe base64 as Java's `Base64.getUrlDecoder().decode` does
/// (so as `Uuid.fromString` reads a topic id): every character in the URL-safe
/// alphabet up to optional `=` padding that completes the last 4-character
/// unit, nothing after it, and no last unit of a single character. (The
/// `base64` crate's optional padding also takes a short `xx=`, which Java
/// refuses.)
pub fn decode_url_safe(text: &str) -> Option<Vec<u8>> {
    let input = text.as_bytes();
    let value = |b: u8| -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(input.len() * 3 / 4);
    let mut bits = 0u32;
    let mut in_unit = 0;
    let mut rest = input.iter();
    while let Some(&b) = rest.next() {
        if b == b'=' {
            // `xx==` and `xxx=` end the input; any other padding is wrong.
            let ends = match in_unit {
                2 => rest.next() == Some(&b'='),
                3 => true,
                _ => false,
            };
            if !ends || rest.next().is_some() {
                return None;
            }
            break;
        }
        bits = bits << 6 | value(b)?;
        in_unit += 1;
        if in_unit == 4 {
            out.extend_from_slice(&bits.to_be_bytes()[1..]);
            bits = 0;
            in_unit = 0;
        }
    }
    match in_unit {
        0 => {}
        1 => return None,
        2 => out.push((bits >> 4) as u8),
        _ => out.extend_from_slice(&((bits >> 2) as u16).to_be_bytes()),
    }
    Some(out)
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

    /// Padding as Java takes it: optional, but when present it completes
    /// the last unit and ends the text; a last unit of one character fails.
    #[test]
    fn decodes_url_safe_as_java() {
        assert_eq!(decode_url_safe("YWJj").unwrap(), b"abc");
        assert_eq!(decode_url_safe("YWI").unwrap(), b"ab");
        assert_eq!(decode_url_safe("YWI=").unwrap(), b"ab");
        assert_eq!(decode_url_safe("YQ==").unwrap(), b"a");
        assert_eq!(decode_url_safe("YQ").unwrap(), b"a");
        assert_eq!(decode_url_safe("-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(
            decode_url_safe(&url_safe_unpadded(&[7; 16])).unwrap(),
            [7; 16]
        );
        for bad in ["Y", "YQ=", "YQ=x", "Y===", "YQ==YQ==", "Y+Q=", "YQ\u{e9}"] {
            assert_eq!(decode_url_safe(bad), None, "{bad:?}");
        }
    }
}
