//! How keys, values and header values are shown: UTF-8 text, hex or base64.

/// The encoding used to show raw bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ByteEncoding {
    /// UTF-8 text; bytes that are not valid UTF-8 fall back to hex.
    #[default]
    Utf8,
    /// Lower-case hex.
    Hex,
    /// Standard base64 with padding.
    Base64,
}

impl ByteEncoding {
    /// Renders `bytes` in this encoding.
    pub fn render(self, bytes: &[u8]) -> String {
        match self {
            Self::Utf8 => match std::str::from_utf8(bytes) {
                Ok(s) => s.to_string(),
                Err(_) => hex(bytes),
            },
            Self::Hex => hex(bytes),
            Self::Base64 => base64(bytes),
        }
    }

    /// Renders `bytes` in this encoding, and says whether UTF-8 fell back
    /// to hex (the bytes are not valid UTF-8), so that output can mark it.
    pub fn render_marked(self, bytes: &[u8]) -> (String, bool) {
        match (self, std::str::from_utf8(bytes)) {
            (Self::Utf8, Ok(s)) => (s.to_string(), false),
            (Self::Utf8, Err(_)) => (hex(bytes), true),
            _ => (self.render(bytes), false),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_the_standard_alphabets() {
        assert_eq!(
            ByteEncoding::Base64.render(&[0xde, 0xad, 0xbe, 0xef, 0x00]),
            "3q2+7wA="
        );
        assert_eq!(ByteEncoding::Base64.render(b"AAAAAQ"), "QUFBQUFR");
        assert_eq!(ByteEncoding::Base64.render(&[0, 0, 0, 1]), "AAAAAQ==");
        assert_eq!(ByteEncoding::Hex.render(&[0xde, 0x01]), "de01");
        assert_eq!(ByteEncoding::Utf8.render(&[0xff, 0x41]), "ff41");
        assert_eq!(ByteEncoding::Utf8.render(b"key-1"), "key-1");
        assert_eq!(
            ByteEncoding::Utf8.render_marked(&[0xff]),
            ("ff".to_string(), true)
        );
        assert_eq!(
            ByteEncoding::Utf8.render_marked(b"k"),
            ("k".to_string(), false)
        );
        assert_eq!(
            ByteEncoding::Hex.render_marked(b"k"),
            ("6b".to_string(), false)
        );
    }
}
