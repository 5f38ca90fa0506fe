//! `kseg report`: one self-contained HTML page drawn from the `--json`
//! output of `verify`, `retention-report`, `groups` and `history` on a log
//! dir. Inline CSS and SVG only (no script, nothing fetched), so it opens
//! anywhere once copied off the broker. Each figure names the command its
//! numbers come from and lists them in a table beneath the picture.

pub mod data;
pub mod figures;
pub mod markup;
pub mod page;
pub mod timeline;

pub use data::{ReportData, Section};
pub use page::write_report;
pub use timeline::Timeline;
