//! What the report is drawn from: each command's JSON.

use serde_json::Value;

use super::timeline::Timeline;

/// What one command gave the report.
#[derive(Debug, Default, Clone)]
pub struct Section {
    /// The command line, as a reader can run it again.
    pub command: String,
    /// Its JSON objects, in order.
    pub lines: Vec<Value>,
    /// Why it gave nothing, when it failed.
    pub error: Option<String>,
}

/// Everything the page shows.
#[derive(Debug, Default, Clone)]
pub struct ReportData {
    /// The log dir reported on.
    pub log_dir: String,
    /// kseg's version.
    pub version: String,
    /// `kseg verify --json`.
    pub verify: Section,
    /// `kseg retention-report --json`.
    pub retention: Section,
    /// `kseg groups --json`.
    pub groups: Section,
    /// `kseg history --json`, whose events are folded into `timeline`
    /// (its `lines` stay empty).
    pub history: Section,
    /// The history's timeline.
    pub timeline: Timeline,
}
