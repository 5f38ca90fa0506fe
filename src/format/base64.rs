//! Base64 as Kafka's tools print bytes: the standard alphabet with padding
//! (Jackson's binary values) and the URL-safe one without (`Uuid.toString`).

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn encode(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                let sextet = ((n >> (18 - 6 * i)) & 63) as usize;
                out.push(char::from(alphabet.get(sextet).copied().unwrap_or(b'A')));
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64 with padding.
pub fn standard(bytes: &[u8]) -> String {
    encode(bytes, STANDARD, true)
}

/// URL-safe base64 without padding, as Kafka prints a `Uuid`.
pub fn url_safe_unpadded(bytes: &[u8]) -> String {
    encode(bytes, URL_SAFE, false)
}

/// Decodes standard base64 (padding optional); `None` for any other character.
pub fn decode_standard(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.trim_end_matches('=').bytes() {
        let sextet = STANDARD.iter().position(|&a| a == c)? as u32;
        acc = (acc << 6) | sextet;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
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
        assert_eq!(decode_standard(&standard(b"abc")).unwrap(), b"abc");
        assert_eq!(decode_standard("a-b"), None);
    }
}
