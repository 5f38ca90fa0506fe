//! How the Java readers Kafka uses take text apart: `BufferedReader`'s
//! lines and its decoding of UTF-8 a fill at a time, and `Uuid.fromString`.
//! Kafka's small text files (`partition.metadata`, `quorum-state`) are read
//! through them, so a file is readable exactly when these rules say so.

use super::base64::decode_url_safe;

/// How many UTF-16 units one `BufferedReader` fill decodes.
pub(crate) const FILL: usize = 8192;

/// Where Java's reader of the file (`Files.newBufferedReader`, UTF-8,
/// failing on malformed input) meets a byte sequence that is not UTF-8
/// before it has the first `lines` lines: the line it is reading then. It
/// decodes a fill of 8192 UTF-16 units at a time, so bytes past the last
/// line's end fail it too when they are in the fill that holds that end.
pub(crate) fn first_decode_failure(bytes: &[u8], lines: u32) -> Option<u32> {
    let (valid, bad) = match std::str::from_utf8(bytes) {
        Ok(all) => (all, false),
        Err(e) => (
            std::str::from_utf8(bytes.get(..e.valid_up_to()).unwrap_or_default())
                .unwrap_or_default(),
            true,
        ),
    };
    let mut units = 0usize;
    let mut ends = 0u32;
    // The line being read when the current fill began, and where the
    // reader stops filling once the last line wanted has ended.
    let mut fill_line = 1u32;
    let mut stop_at = usize::MAX;
    let mut previous = '\0';
    for c in valid.chars() {
        if units >= stop_at {
            return None;
        }
        if units.is_multiple_of(FILL) {
            fill_line = (ends + 1).min(lines);
        }
        // `\r\n` ends one line.
        if c == '\n' && previous != '\r' || c == '\r' {
            ends += 1;
            if ends == lines {
                stop_at = (units / FILL + 1) * FILL;
            }
        }
        previous = c;
        units += c.len_utf16();
    }
    if !bad || units >= stop_at {
        return None;
    }
    if units.is_multiple_of(FILL) {
        fill_line = (ends + 1).min(lines);
    }
    Some(fill_line)
}

/// Lines as Java's `readLine` returns them: ended by `\n`, `\r` or `\r\n`;
/// a last line without an end counts, an empty end does not.
pub(crate) fn java_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let s = rest.take().filter(|s| !s.is_empty())?;
        match s.find(['\n', '\r']) {
            Some(i) => {
                let skip = if s.get(i..i + 2) == Some("\r\n") {
                    2
                } else {
                    1
                };
                rest = s.get(i + skip..);
                s.get(..i)
            }
            None => Some(s),
        }
    })
}

/// `Uuid.fromString`: at most 24 characters of URL-safe base64 (padding
/// allowed, as Java's decoder allows it) decoding to exactly 16 bytes.
pub(crate) fn uuid_from_string(s: &str) -> Option<[u8; 16]> {
    if s.encode_utf16().count() > 24 {
        return None;
    }
    let decoded = decode_url_safe(s)?;
    decoded.try_into().ok()
}
