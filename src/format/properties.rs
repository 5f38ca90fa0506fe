//! `partition.metadata` (version + topic id) and `meta.properties` (Java
//! properties) text files.

use super::error::{FormatError, FormatErrorKind};

/// Contents of `partition.metadata`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionMetadata {
    /// File version (0).
    pub version: i32,
    /// Topic id in Kafka's base64 form.
    pub topic_id: String,
}

/// Parses `partition.metadata`.
pub fn parse_partition_metadata(text: &str) -> Result<PartitionMetadata, FormatError> {
    let mut lines = text.lines();
    let mut field = |n: u32, name: &str| -> Result<String, FormatError> {
        let line = lines.next().unwrap_or_default();
        let (key, value) = line.split_once(':').ok_or(FormatError::new(
            0,
            FormatErrorKind::MalformedLine {
                line: n,
                reason: "expected '<key>: <value>'",
            },
        ))?;
        if key.trim() != name {
            return Err(FormatError::new(
                0,
                FormatErrorKind::MalformedLine {
                    line: n,
                    reason: "unexpected key",
                },
            ));
        }
        Ok(value.trim().to_string())
    };
    let version = field(1, "version")?.parse().map_err(|_| {
        FormatError::new(
            0,
            FormatErrorKind::MalformedLine {
                line: 1,
                reason: "expected a version number",
            },
        )
    })?;
    let topic_id = field(2, "topic_id")?;
    Ok(PartitionMetadata { version, topic_id })
}

/// Parses a Java properties file into key/value pairs in file order
/// (comments and blank lines skipped; `=` or `:` separators).
pub fn parse_properties(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('!'))
        .map(|l| match l.find(['=', ':']) {
            Some(i) => (
                l.get(..i).unwrap_or_default().trim().to_string(),
                l.get(i + 1..).unwrap_or_default().trim().to_string(),
            ),
            None => (l.to_string(), String::new()),
        })
        .collect()
}
