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

fn malformed(line: usize, reason: &'static str) -> FormatError {
    FormatError::new(
        0,
        FormatErrorKind::MalformedLine {
            line: line as u32,
            reason,
        },
    )
}

/// Splits a checkpoint into its entry lines, checking version 0 and the count.
fn entry_lines(text: &str) -> Result<Vec<Vec<&str>>, FormatError> {
    let mut lines = text.lines();
    let Some(version) = lines.next() else {
        return Ok(Vec::new());
    };
    let version: i64 = version
        .trim()
        .parse()
        .map_err(|_| malformed(1, "expected a version number"))?;
    if version != 0 {
        return Err(FormatError::new(
            0,
            FormatErrorKind::UnsupportedVersion(version),
        ));
    }
    let count: usize = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| malformed(2, "expected an entry count"))?;
    let entries: Vec<Vec<&str>> = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    if entries.len() != count {
        return Err(malformed(3, "entry count does not match the count line"));
    }
    Ok(entries)
}

/// Parses an offset checkpoint (recovery point, log start, high watermark, cleaner).
pub fn parse_offset_checkpoint(text: &str) -> Result<Vec<OffsetCheckpointEntry>, FormatError> {
    entry_lines(text)?
        .into_iter()
        .enumerate()
        .map(|(i, fields)| match fields.as_slice() {
            [topic, partition, offset] => Ok(OffsetCheckpointEntry {
                topic: (*topic).to_string(),
                partition: partition
                    .parse()
                    .map_err(|_| malformed(i + 3, "expected a partition number"))?,
                offset: offset
                    .parse()
                    .map_err(|_| malformed(i + 3, "expected an offset"))?,
            }),
            _ => Err(malformed(i + 3, "expected '<topic> <partition> <offset>'")),
        })
        .collect()
}

/// Parses `leader-epoch-checkpoint`.
pub fn parse_leader_epoch_checkpoint(text: &str) -> Result<Vec<LeaderEpochEntry>, FormatError> {
    entry_lines(text)?
        .into_iter()
        .enumerate()
        .map(|(i, fields)| match fields.as_slice() {
            [epoch, start] => Ok(LeaderEpochEntry {
                epoch: epoch
                    .parse()
                    .map_err(|_| malformed(i + 3, "expected an epoch"))?,
                start_offset: start
                    .parse()
                    .map_err(|_| malformed(i + 3, "expected an offset"))?,
            }),
            _ => Err(malformed(i + 3, "expected '<epoch> <startOffset>'")),
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
