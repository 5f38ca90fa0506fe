//! The page around the figures: head, style, summary, sections.

use std::io::{self, Write};

use super::data::ReportData;
use super::figures;
use super::markup::esc;

/// The page's style: light, print-friendly, no external fonts.
const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1180px;color:#1d2330;padding:0 1em}\
h1{font-size:22px}h2{font-size:18px;margin-top:2em;border-bottom:1px solid #d6dae3}\
code{background:#f1f3f7;padding:0 3px;border-radius:3px}.cmd{color:#5a6273}\
table{border-collapse:collapse;margin:.5em 0;font-variant-numeric:tabular-nums}\
td,th{border:1px solid #d6dae3;padding:2px 8px;text-align:left}th{background:#f1f3f7}\
td.n{text-align:right}.bad{color:#b3261e;font-weight:600}.ok{color:#1e7a3c}\
svg{display:block;margin:.5em 0;background:#fbfcfe;border:1px solid #e3e6ee}\
svg text{font:11px system-ui,sans-serif;fill:#1d2330}.error{color:#b3261e}\
summary{cursor:pointer;color:#37507d}.legend span{display:inline-block;margin-right:1.2em}\
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}";

/// Writes the whole page.
pub fn write_report(w: &mut impl Write, data: &ReportData) -> io::Result<()> {
    let title = format!("kseg report: {}", data.log_dir);
    writeln!(
        w,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>{}</title><style>{STYLE}</style></head><body>",
        esc(&title)
    )?;
    writeln!(w, "<h1>{}</h1>", esc(&title))?;
    writeln!(
        w,
        "<p class=\"cmd\">Written by kseg {} from the JSON of the commands named under each figure; \
         run them on the log dir for every detail.</p>",
        esc(&data.version)
    )?;
    figures::write_summary(w, data)?;
    figures::write_timeline(w, &data.history, &data.timeline)?;
    figures::write_retention(w, &data.retention)?;
    figures::write_sizes(w, &data.retention)?;
    figures::write_lag(w, &data.groups)?;
    figures::write_findings(w, &data.verify)?;
    writeln!(w, "</body></html>")
}
