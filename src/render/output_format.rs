//! The two forms every command prints in.

/// How a command's results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// Human-readable lines (kafka-dump-log's format for `dump`).
    Text,
    /// Newline-delimited JSON objects with a `"type"` field.
    Json,
}

impl OutputFormat {
    /// JSON when a command's `--json` is set, text otherwise.
    pub fn json_if(json: bool) -> Self {
        if json { Self::Json } else { Self::Text }
    }
}
