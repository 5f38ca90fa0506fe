//! What is wrong with an index file, as a segment check finds it.

use serde::Serialize;

/// What is wrong with an index file, if anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "state", content = "detail")]
pub enum IndexHealth {
    /// Present and consistent with the log.
    Ok,
    /// The file does not exist.
    Missing,
    /// Present but empty while the log has data (a recreated `.timeindex`).
    EmptyWithData,
    /// Kafka's own sanity check rejects it.
    FailsSanityCheck(String),
    /// Entries that do not agree with the log (the first one is described).
    Inconsistent(String),
}

impl IndexHealth {
    /// Whether the index is usable as it is.
    pub fn is_ok(&self) -> bool {
        matches!(self, Self::Ok)
    }
}
