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
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn base64(bytes: &[u8]) -> String {
    crate::format::base64::standard(bytes)
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
    }
}
