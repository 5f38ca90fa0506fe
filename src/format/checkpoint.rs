//! Kafka's text checkpoint files: a version line, a count line, then one
//! entry per line (offset checkpoints and `leader-epoch-checkpoint`).

use super::error::{FormatError, FormatErrorKind};

/// One `<topic> <partition> <offset>` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCheckpointEntry {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
    /// Offset.
    pub offset: i64,
}

/// One `<epoch> <startOffset>` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaderEpochEntry {
    /// Leader epoch.
    pub epoch: i32,
    /// First offset written in that epoch.
    pub start_offset: i64,
}

fn malformed((line, at): (usize, u64), reason: &'static str) -> FormatError {
    FormatError::new(
        at,
        FormatErrorKind::MalformedLine {
            line: line as u32,
            reason,
        },
    )
}

/// A checkpoint's entry lines, each with its line number, after checking
/// version 0 and that the count line matches, read as Kafka's
/// `CheckpointFile.CheckpointReadBuffer` reads them: the version and count
/// lines are plain base-10 integers (no spaces), a file that ends before
/// either holds no entries, and every line after the count is an entry (a
/// blank one too). The text is walked twice (to count, then to yield)
/// rather than collected.
fn entry_lines(text: &str) -> Result<impl Iterator<Item = ((usize, u64), &str)>, FormatError> {
    let mut lines = numbered_lines(text);
    let Some((_, version)) = lines.next() else {
        return Ok(None.into_iter().flatten());
    };
    let version: i32 = version
        .parse()
        .map_err(|_| malformed((1, 0), "expected a version number"))?;
    if version != 0 {
        return Err(FormatError::new(
            0,
            FormatErrorKind::UnsupportedVersion(i64::from(version)),
        ));
    }
    let Some((at, count)) = lines.next() else {
        return Ok(None.into_iter().flatten());
    };
    let count: usize = count
        .parse()
        .map_err(|_| malformed(at, "expected an entry count"))?;
    if lines.clone().count() != count {
        let first = lines
            .clone()
            .next()
            .map_or((3, text.len() as u64), |(at, _)| at);
        return Err(malformed(
            first,
            "entry count does not match the count line",
        ));
    }
    Ok(Some(lines).into_iter().flatten())
}

/// The lines of `text` as Java's `BufferedReader.readLine` reads them
/// (ended by `\n`, `\r` or `\r\n`; a last line without an ending
/// counts), each with its 1-based number and the byte it starts at.
fn numbered_lines(text: &str) -> JavaLines<'_> {
    JavaLines {
        text,
        at: 0,
        number: 0,
    }
}

/// The iterator [`numbered_lines`] returns.
#[derive(Clone)]
struct JavaLines<'t> {
    text: &'t str,
    at: usize,
    number: usize,
}

impl<'t> Iterator for JavaLines<'t> {
    type Item = ((usize, u64), &'t str);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.text.get(self.at..).filter(|r| !r.is_empty())?;
        let start = self.at;
        let (line, ending) = match rest.find(['\n', '\r']) {
            None => (rest, 0),
            Some(i) => {
                let crlf = rest.get(i..i + 2) == Some("\r\n");
                (rest.get(..i).unwrap_or_default(), if crlf { 2 } else { 1 })
            }
        };
        self.at = start + line.len() + ending;
        self.number += 1;
        Some(((self.number, start as u64), line))
    }
}

/// The fields of `line` when there are exactly `N`, split as Java splits
/// on `\s+`: a line starting with whitespace has an empty first field,
/// trailing whitespace is dropped.
fn fields<const N: usize>(line: &str) -> Option<[&str; N]> {
    let java_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\x0B' | '\x0C' | '\r');
    let line = line.trim_end_matches(java_space);
    let mut split = line.split(java_space).filter(|f| !f.is_empty());
    if line.starts_with(java_space) {
        return None;
    }
    let mut out = [""; N];
    for slot in &mut out {
        *slot = split.next()?;
    }
    split.next().is_none().then_some(out)
}

/// One `<topic> <partition> <offset>` line, borrowed from the file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetCheckpointLine<'t> {
    /// Topic name.
    pub topic: &'t str,
    /// Partition number.
    pub partition: i32,
    /// Offset.
    pub offset: i64,
}

/// The entries of an offset checkpoint in file order, borrowed from `text`
/// (nothing is allocated per entry), after its version and count lines are
/// checked; each entry line that does not parse yields an error.
pub fn offset_checkpoint_lines(
    text: &str,
) -> Result<impl Iterator<Item = Result<OffsetCheckpointLine<'_>, FormatError>>, FormatError> {
    Ok(entry_lines(text)?.map(|(n, line)| {
        let [topic, partition, offset] =
            fields(line).ok_or_else(|| malformed(n, "expected '<topic> <partition> <offset>'"))?;
        Ok(OffsetCheckpointLine {
            topic,
            partition: partition
                .parse()
                .map_err(|_| malformed(n, "expected a partition number"))?,
            offset: offset
                .parse()
                .map_err(|_| malformed(n, "expected an offset"))?,
        })
    }))
}

/// Parses an offset checkpoint (recovery point, log start, high watermark, cleaner).
pub fn parse_offset_checkpoint(text: &str) -> Result<Vec<OffsetCheckpointEntry>, FormatError> {
    offset_checkpoint_lines(text)?
        .map(|line| {
            line.map(|l| OffsetCheckpointEntry {
                topic: l.topic.to_string(),
                partition: l.partition,
                offset: l.offset,
            })
        })
        .collect()
}

/// Parses `leader-epoch-checkpoint`.
pub fn parse_leader_epoch_checkpoint(text: &str) -> Result<Vec<LeaderEpochEntry>, FormatError> {
    entry_lines(text)?
        .map(|(n, line)| {
            let [epoch, start] =
                fields(line).ok_or_else(|| malformed(n, "expected '<epoch> <startOffset>'"))?;
            Ok(LeaderEpochEntry {
                epoch: epoch
                    .parse()
                    .map_err(|_| malformed(n, "expected an epoch"))?,
                start_offset: start
                    .parse()
                    .map_err(|_| malformed(n, "expected an offset"))?,
            })
        })
        .collect()
}

/// Renders an offset checkpoint in Kafka's format.
pub fn encode_offset_checkpoint(entries: &[OffsetCheckpointEntry]) -> String {
    let mut out = format!("0\n{}\n", entries.len());
    for e in entries {
        out.push_str(&format!("{} {} {}\n", e.topic, e.partition, e.offset));
    }
    out
}

/// Renders a leader-epoch checkpoint in Kafka's format.
pub fn encode_leader_epoch_checkpoint(entries: &[LeaderEpochEntry]) -> String {
    let mut out = format!("0\n{}\n", entries.len());
    for e in entries {
        out.push_str(&format!("{} {}\n", e.epoch, e.start_offset));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn reads_offset_checkpoints_and_rejects_bad_counts() {
        let parsed = parse_offset_checkpoint("0\n2\naudit 0 108\npayments 1 121\n").unwrap();
        assert_eq!(
            parsed[1],
            OffsetCheckpointEntry {
                topic: "payments".into(),
                partition: 1,
                offset: 121
            }
        );
        assert!(parse_offset_checkpoint("").unwrap().is_empty());
        assert!(parse_offset_checkpoint("0\n3\na 0 1\n").is_err());
        assert!(parse_offset_checkpoint("1\n0\n").is_err());
    }

    /// A bad entry is named by its line in the file; as Kafka's reader
    /// takes them, a blank line is an entry (a malformed one), an entry
    /// needs exactly its fields, and one may not start with whitespace.
    #[test]
    fn names_the_line_of_a_bad_entry() {
        let line_of = |text: &str| match parse_offset_checkpoint(text).unwrap_err().kind {
            FormatErrorKind::MalformedLine { line, .. } => line,
            other => panic!("{other:?}"),
        };
        assert_eq!(line_of("0\n2\na 0 1\nb x 2\n"), 4);
        assert_eq!(line_of("0\n3\na 0 1\n\nb 0 2\n"), 4);
        assert_eq!(line_of("0\n2\na 0 1\n\nb 0 2\n"), 3);
        assert_eq!(line_of("0\n1\na 0 1 9\n"), 3);
        assert_eq!(line_of("0\n1\na 0\n"), 3);
        assert_eq!(line_of("0\n1\n b 3 7\n"), 3);
        assert_eq!(line_of(" 0\n0\n"), 1);
        assert_eq!(line_of("0\n 0\n"), 2);
        assert!(parse_leader_epoch_checkpoint("0\n1\n0 0 0\n").is_err());
        let lines: Vec<_> = offset_checkpoint_lines("0\n2\na 0 1\nb  3\t7 \n")
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            lines,
            [
                OffsetCheckpointLine {
                    topic: "a",
                    partition: 0,
                    offset: 1
                },
                OffsetCheckpointLine {
                    topic: "b",
                    partition: 3,
                    offset: 7
                }
            ]
        );
    }

    /// Errors name the byte the line starts at; lines end as Java's
    /// `readLine` ends them (`\n`, `\r\n` or a lone `\r`).
    #[test]
    fn errors_name_their_byte_and_lines_end_as_in_java() {
        let err = parse_leader_epoch_checkpoint("0\n1\n 1 0\n").unwrap_err();
        assert_eq!(err.offset, 4);
        let err = parse_offset_checkpoint("0\r\n2\r\na 0 1\r\nb x 2\r\n").unwrap_err();
        assert_eq!(err.offset, 13);
        let err = parse_offset_checkpoint("0\nx\n").unwrap_err();
        assert_eq!(err.offset, 2);
        for text in ["0\r\n1\r\n5 7\r\n", "0\r1\r5 7", "0\n1\n5 7"] {
            let entries = parse_leader_epoch_checkpoint(text).unwrap();
            assert_eq!(
                entries,
                [LeaderEpochEntry {
                    epoch: 5,
                    start_offset: 7
                }],
                "{text:?}"
            );
        }
    }

    /// A file that ends after its version line, or is empty, holds no
    /// entries, as Kafka reads it.
    #[test]
    fn a_file_without_a_count_line_is_empty() {
        assert!(parse_offset_checkpoint("0\n").unwrap().is_empty());
        assert!(parse_leader_epoch_checkpoint("").unwrap().is_empty());
    }

    #[test]
    fn leader_epoch_round_trips() {
        let entries = [
            LeaderEpochEntry {
                epoch: 0,
                start_offset: 0,
            },
            LeaderEpochEntry {
                epoch: 1,
                start_offset: 38,
            },
        ];
        let text = encode_leader_epoch_checkpoint(&entries);
        assert_eq!(text, "0\n2\n0 0\n1 38\n");
        assert_eq!(parse_leader_epoch_checkpoint(&text).unwrap(), entries);
    }
}
