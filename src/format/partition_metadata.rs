//! `partition.metadata`: a partition's file version and topic id, read by
//! the rules of Kafka's own reader (`PartitionMetadataReadBuffer`,
//! `Uuid.fromString`), including what the broker does when a file breaks
//! them. A broker in KRaft mode reads the file of every partition as it
//! loads the log dir at start.

use super::error::{FormatError, FormatErrorKind};
use super::java::{first_decode_failure, java_lines, uuid_from_string};

/// Contents of `partition.metadata`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionMetadata {
    /// File version (0; Kafka takes any version of at least 0).
    pub version: i32,
    /// Topic id in Kafka's base64 form, as written in the file.
    pub topic_id: String,
}

/// What a broker's start does with a `partition.metadata` it cannot read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum UnreadableOutcome {
    /// The reader fails with an `IOException`: the broker marks the whole
    /// log dir offline (every partition in it stops being served here) and
    /// goes on.
    LogDirOffline,
    /// The reader fails with another exception (a topic id that is not a
    /// base64 UUID, a missing line), or the metadata log's file names
    /// another topic: the exception escapes log loading and the broker
    /// does not start.
    BrokerFails,
    /// There is no file: a broker in KRaft mode takes the partition for a
    /// stray replica at start (`LogManager.isStrayKraftReplica`) and
    /// renames its directory `…-stray`; it is not served.
    StrayAtStart,
}

impl UnreadableOutcome {
    /// The outcome in words.
    pub fn describe(self) -> &'static str {
        match self {
            Self::LogDirOffline => {
                "the broker takes this whole log dir offline at start (KafkaStorageException); a broker with no other log dir, or whose metadata log is in it, halts"
            }
            Self::BrokerFails => "the broker does not start (the exception escapes log loading)",
            Self::StrayAtStart => {
                "a KRaft broker takes the partition for a stray replica at start and renames its directory `-stray` (LogManager.isStrayKraftReplica): it is not served"
            }
        }
    }
}

/// Why Kafka's reader rejects a `partition.metadata` (or finds none), and
/// what follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionMetadataError {
    /// The 1-based line the reader was on (0: no file to read).
    pub line: u32,
    /// What it found there.
    pub reason: &'static str,
    /// What the broker does about it.
    pub outcome: UnreadableOutcome,
}

impl std::fmt::Display for PartitionMetadataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        write!(f, "{}: {}", self.reason, self.outcome.describe())
    }
}

impl From<PartitionMetadataError> for FormatError {
    fn from(e: PartitionMetadataError) -> Self {
        FormatError::new(
            0,
            FormatErrorKind::MalformedLine {
                line: e.line,
                reason: e.reason,
            },
        )
    }
}

/// Reads `partition.metadata` as Kafka does: a first line split at `:`
/// plus whitespace into exactly two parts, the second an `int` of at least
/// 0; a second line split the same way, the second part a topic id that
/// decodes (URL-safe base64) to 16 bytes, not all zero. Later lines are
/// ignored; keys are not looked at.
pub fn read_partition_metadata(bytes: &[u8]) -> Result<PartitionMetadata, PartitionMetadataError> {
    use UnreadableOutcome::{BrokerFails, LogDirOffline};
    let fail = |line, reason, outcome| PartitionMetadataError {
        line,
        reason,
        outcome,
    };
    if let Some(line) = first_decode_failure(bytes, 2) {
        return Err(fail(line, "not UTF-8 text", LogDirOffline));
    }
    let text = String::from_utf8_lossy(bytes);
    let mut lines = java_lines(&text);
    let version = lines
        .next()
        .ok_or(fail(1, "the file is empty", BrokerFails))?;
    let [_, version] =
        split_colon_space(version).ok_or(fail(1, "expected '<key>: <version>'", LogDirOffline))?;
    let version =
        parse_java_int(version).ok_or(fail(1, "the version is not a number", LogDirOffline))?;
    if version < 0 {
        return Err(fail(1, "unrecognized version", LogDirOffline));
    }
    let topic_id = lines
        .next()
        .ok_or(fail(2, "no topic id line", BrokerFails))?;
    let [_, topic_id] = split_colon_space(topic_id).ok_or(fail(
        2,
        "expected '<key>: <topic id>'",
        LogDirOffline,
    ))?;
    let uuid = uuid_from_string(topic_id).ok_or(fail(
        2,
        "the topic id is not a base64 UUID",
        BrokerFails,
    ))?;
    if uuid == [0; 16] {
        return Err(fail(2, "the topic id is the zero UUID", LogDirOffline));
    }
    Ok(PartitionMetadata {
        version,
        topic_id: topic_id.to_string(),
    })
}

/// The KRaft metadata log's own topic id (`Uuid.METADATA_TOPIC_ID`), the
/// one its `partition.metadata` must hold: the raft layer opens the log
/// with it, and a file naming another id fails the open
/// (`InconsistentTopicIdException`).
pub const METADATA_TOPIC_ID: [u8; 16] = {
    let mut id = [0; 16];
    id[15] = 1;
    id
};

/// Whether `topic_id` (as written in the file) is [`METADATA_TOPIC_ID`].
pub fn is_metadata_topic_id(topic_id: &str) -> bool {
    uuid_from_string(topic_id) == Some(METADATA_TOPIC_ID)
}

/// [`read_partition_metadata`] for text already in hand, its failure as a
/// format error.
pub fn parse_partition_metadata(text: &str) -> Result<PartitionMetadata, FormatError> {
    read_partition_metadata(text.as_bytes()).map_err(FormatError::from)
}

/// Java's `Pattern.compile(":\\s+").split(line)` when it yields exactly two
/// parts (trailing empty parts are dropped, as Java drops them).
fn split_colon_space(line: &str) -> Option<[&str; 2]> {
    let is_space = |c: char| matches!(c, ' ' | '\t' | '\u{b}' | '\u{c}' | '\n' | '\r');
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while let Some(at) = line.get(i..).and_then(|s| s.find(':')).map(|at| at + i) {
        let after = line.get(at + 1..).unwrap_or_default();
        let spaces = after.len() - after.trim_start_matches(is_space).len();
        if spaces == 0 {
            i = at + 1;
            continue;
        }
        parts.push(line.get(start..at).unwrap_or_default());
        start = at + 1 + spaces;
        i = start;
    }
    parts.push(line.get(start..).unwrap_or_default());
    while parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    match parts.as_slice() {
        [a, b] => Some([a, b]),
        _ => None,
    }
}

/// Java's `Integer.parseInt`: an optional sign and ASCII digits, in range.
/// (Java also takes other Unicode decimal digits; no writer puts them in
/// this file.)
fn parse_java_int(s: &str) -> Option<i32> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::UnreadableOutcome::{BrokerFails, LogDirOffline};
    use super::*;
    use crate::format::java::FILL;

    fn outcome(text: &[u8]) -> Result<String, (u32, UnreadableOutcome)> {
        read_partition_metadata(text)
            .map(|m| m.topic_id)
            .map_err(|e| (e.line, e.outcome))
    }

    /// What Kafka's broker reads and what it does with the rest, case by
    /// case as `PartitionMetadataReadBuffer.read` and `Uuid.fromString`
    /// decide.
    #[test]
    fn reads_as_kafka_reads() {
        let id = "bx9Y4Vw3QwCqJ8hM2m5dZA";
        let good = format!("version: 0\ntopic_id: {id}\n");
        assert_eq!(outcome(good.as_bytes()), Ok(id.to_string()));
        // Keys are not looked at; CRLF and no final newline are fine; a
        // later line is ignored; padding is accepted.
        for text in [
            format!("v: 0\r\nid: {id}"),
            format!("version: 0\ntopic_id: {id}==\nmore: lines\n"),
            format!("version:  +1\ntopic_id:\t{id}\n"),
            format!("version: 0: \ntopic_id: {id}\n"),
        ] {
            assert!(outcome(text.as_bytes()).is_ok(), "{text:?}");
        }
        let cases: [(&[u8], u32, UnreadableOutcome); 14] = [
            (b"", 1, BrokerFails),
            (b"version: 0\n", 2, BrokerFails),
            (
                b"version:0\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZA\n",
                1,
                LogDirOffline,
            ),
            (
                b"version: 0 \ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZA\n",
                1,
                LogDirOffline,
            ),
            (
                b"version: x\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZA\n",
                1,
                LogDirOffline,
            ),
            (
                b"version: -1\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZA\n",
                1,
                LogDirOffline,
            ),
            (
                b"version: 99999999999\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZA\n",
                1,
                LogDirOffline,
            ),
            (b"version: 0\ntopic_id: \n", 2, LogDirOffline),
            (
                b"version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n",
                2,
                LogDirOffline,
            ),
            (
                b"version: 0\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZ\n",
                2,
                BrokerFails,
            ),
            (
                b"version: 0\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZA=\n",
                2,
                BrokerFails,
            ),
            (
                b"version: 0\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5d+A\n",
                2,
                BrokerFails,
            ),
            (
                b"version: 0\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZAAA\n",
                2,
                BrokerFails,
            ),
            (
                b"version: 0\ntopic_id: bx9Y4Vw3Q\xffwCqJ8hM2m5dZA\n",
                1,
                LogDirOffline,
            ),
        ];
        for (text, line, expected) in cases {
            assert_eq!(
                outcome(text),
                Err((line, expected)),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn splits_lines_as_java() {
        assert_eq!(split_colon_space("a: b"), Some(["a", "b"]));
        assert_eq!(split_colon_space(": b"), Some(["", "b"]));
        assert_eq!(split_colon_space("a:b: c"), Some(["a:b", "c"]));
        assert_eq!(split_colon_space("a: b: c"), None);
        assert_eq!(split_colon_space("a: "), None);
        assert_eq!(
            java_lines("a\r\nb\rc\n\nd").collect::<Vec<_>>(),
            ["a", "b", "c", "", "d"]
        );
        assert_eq!(java_lines("a\n").collect::<Vec<_>>(), ["a"]);
    }

    /// Java's first `BufferedReader` fill decodes 8192 chars, not 8192
    /// bytes: with two-byte characters early in the file the whole file is
    /// decoded at once (StreamDecoder reads on while the char buffer has
    /// room and the file has bytes), so a bad byte past byte 8192 still
    /// throws MalformedInputException, an IOException.
    #[test]
    fn first_fill_is_8192_chars_not_bytes() {
        let mut text = b"version: 0\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZA\n".to_vec();
        text.extend("\u{e9}".repeat(5000).as_bytes());
        text.push(0xff);
        assert!(text.len() > FILL);
        assert_eq!(outcome(&text), Err((1, LogDirOffline)));
        // Past the fill that holds the second line's end, nothing is read.
        let mut text = b"version: 0\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZA\n".to_vec();
        text.extend(b"x".repeat(FILL));
        text.push(0xff);
        assert_eq!(outcome(&text), Ok("bx9Y4Vw3QwCqJ8hM2m5dZA".to_string()));
    }

    /// A line that runs past the first fill makes Java decode the next
    /// one; a bad byte there fails the read with an IOException before the
    /// topic id is parsed.
    #[test]
    fn later_fills_are_checked_too() {
        let mut text = b"version:".to_vec();
        text.extend(b" ".repeat(9000));
        text.extend(b"0\ntopic_id: bx9Y4Vw3QwCqJ8hM2m5dZ\xff\n");
        assert!(matches!(outcome(&text), Err((_, LogDirOffline))));
    }
}
