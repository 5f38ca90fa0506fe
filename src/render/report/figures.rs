//! The report's figures: each an SVG picture whose marks carry the
//! numbers they draw (`data-value`), and the table of those numbers.

use std::io::{self, Write};

use serde_json::Value;

use super::data::{ReportData, Section};
use super::markup::esc;
use super::timeline::{BrokerState, Lane, Leadership, Timeline};
use crate::render::recovery::SUMMARY_COLUMNS;
use crate::render::time::utc;

/// Width of every picture, and of its label column.
const WIDTH: f64 = 1120.0;
const LABEL: f64 = 200.0;
const LANE: f64 = 18.0;
/// Rows a picture draws at most; its table lists them all.
const MAX_BARS: usize = 60;
/// Leaders' colours, by node id.
/// None is the green, yellow or orange of a broker's states.
const PALETTE: [&str; 8] = [
    "#5b6b8c", "#3b6fb6", "#8e5bb5", "#1f9aa8", "#a3475b", "#b05fa0", "#7a5230", "#2f3a56",
];
/// Tables longer than this start folded.
const OPEN_ROWS: usize = 40;

fn int(v: &Value) -> String {
    v.as_i64().map_or("—".into(), |n| n.to_string())
}

fn time(v: &Value) -> String {
    v.as_i64().map_or("—".into(), utc)
}

/// Opens a figure's section; false (after saying why) when its command
/// gave nothing.
fn open(w: &mut impl Write, id: &str, title: &str, s: &Section) -> io::Result<bool> {
    writeln!(w, "<section id=\"{id}\"><h2>{}</h2>", esc(title))?;
    writeln!(
        w,
        "<p class=\"cmd\">from <code>{}</code></p>",
        esc(&s.command)
    )?;
    if let Some(e) = &s.error {
        writeln!(
            w,
            "<p class=\"error\">not available: {}</p></section>",
            esc(e)
        )?;
        return Ok(false);
    }
    Ok(true)
}

/// Writes the table of a figure's numbers; cells that parse as numbers are
/// right-aligned.
fn table(w: &mut impl Write, id: &str, head: &[&str], rows: &[Vec<String>]) -> io::Result<()> {
    writeln!(
        w,
        "<details{}><summary>the numbers ({} rows)</summary><table class=\"numbers\" data-figure=\"{id}\"><tr>",
        if rows.len() <= OPEN_ROWS { " open" } else { "" },
        rows.len()
    )?;
    for h in head {
        write!(w, "<th>{}</th>", esc(h))?;
    }
    writeln!(w, "</tr>")?;
    for row in rows {
        write!(w, "<tr>")?;
        for cell in row {
            let class = if cell.parse::<f64>().is_ok() {
                " class=\"n\""
            } else {
                ""
            };
            write!(w, "<td{class}>{}</td>", esc(cell))?;
        }
        writeln!(w, "</tr>")?;
    }
    writeln!(w, "</table></details>")
}

/// A linear time axis over `[from, to]` mapped onto the drawing area.
struct Axis {
    from: i64,
    to: i64,
}

impl Axis {
    fn new(from: i64, to: i64) -> Self {
        Self {
            from,
            to: to.max(from + 1),
        }
    }

    fn x(&self, t: i64) -> f64 {
        let f = (t.clamp(self.from, self.to) - self.from) as f64 / (self.to - self.from) as f64;
        LABEL + f * (WIDTH - LABEL - 10.0)
    }

    fn write(&self, w: &mut impl Write, y: f64) -> io::Result<()> {
        for i in 0..4 {
            let t = self.from + (self.to - self.from) * i / 3;
            let anchor = ["start", "middle", "middle", "end"][i as usize];
            writeln!(
                w,
                "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"0\" y2=\"{y}\" stroke=\"#d6dae3\"/>\
                 <text x=\"{x:.1}\" y=\"{ty}\" text-anchor=\"{anchor}\">{}</text>",
                utc(t),
                x = self.x(t),
                ty = y + 14.0
            )?;
        }
        Ok(())
    }
}

fn svg_open(w: &mut impl Write, id: &str, height: f64) -> io::Result<()> {
    writeln!(
        w,
        "<svg class=\"figure\" id=\"{id}-picture\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\">"
    )
}

fn label(w: &mut impl Write, y: f64, text: &str) -> io::Result<()> {
    writeln!(
        w,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
        LABEL - 6.0,
        y + LANE * 0.7,
        esc(text)
    )
}

/// The summary at the top: what the log dir holds and how much is wrong.
pub fn write_summary(w: &mut impl Write, data: &ReportData) -> io::Result<()> {
    let partitions = data
        .verify
        .lines
        .iter()
        .filter(|l| l["type"] == "partition")
        .count();
    let losing = data.verify.lines.iter().filter(|l| loses_data(l)).count();
    let other = data
        .verify
        .lines
        .iter()
        .filter(|l| l["type"] != "partition")
        .count();
    let bytes: i64 = partition_reports(&data.retention)
        .filter_map(|r| r["totalBytes"].as_i64())
        .sum();
    let groups = group_lines(&data.groups).count();
    writeln!(
        w,
        "<table class=\"numbers\" data-figure=\"summary\"><tr><th>partitions</th><th>bytes</th>\
         <th>partitions losing data on recovery</th><th>other findings</th><th>groups</th>\
         <th>metadata events</th></tr><tr><td class=\"n\">{partitions}</td><td class=\"n\">{bytes}</td>\
         <td class=\"n{}\">{losing}</td><td class=\"n\">{other}</td><td class=\"n\">{groups}</td>\
         <td class=\"n\">{}</td></tr></table>",
        if losing > 0 { " bad" } else { "" },
        data.timeline.events
    )
}

fn broker_colour(s: BrokerState) -> &'static str {
    match s {
        BrokerState::Unfenced => "#2e8b57",
        BrokerState::Fenced => "#c9a227",
        BrokerState::ShuttingDown => "#e07b39",
        BrokerState::Unregistered => "#9aa0ad",
    }
}

/// Draws one lane's steps; each lasts until the next (the last until the
/// end of the axis).
fn lane<T>(
    w: &mut impl Write,
    axis: &Axis,
    y: f64,
    name: &str,
    lane: &Lane<T>,
    draw: impl Fn(&T) -> (String, String, String),
) -> io::Result<()> {
    label(w, y, name)?;
    for (i, step) in lane.steps.iter().enumerate() {
        let end = lane.steps.get(i + 1).map_or(axis.to, |n| n.timestamp);
        let x = axis.x(step.timestamp);
        let width = (axis.x(end) - x).max(2.0);
        let (fill, text, tip) = draw(&step.state);
        writeln!(
            w,
            "<rect class=\"mark\" data-lane=\"{}\" data-offset=\"{}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{LANE}\" fill=\"{fill}\">\
             <title>{} offset {} at {}: {}</title></rect>",
            esc(name),
            step.offset,
            esc(name),
            step.offset,
            utc(step.timestamp),
            esc(&tip)
        )?;
        if width > 9.0 * text.len() as f64 {
            writeln!(
                w,
                "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#fff\">{}</text>",
                x + 3.0,
                y + LANE * 0.7,
                esc(&text)
            )?;
        }
    }
    Ok(())
}

fn leadership(l: &Leadership) -> (String, String, String) {
    let isr = format!("{:?}", l.isr);
    if l.leader < 0 {
        return (
            "#b3261e".into(),
            "none".into(),
            format!("no leader, ISR {isr}"),
        );
    }
    let colour = PALETTE[l.leader.rem_euclid(PALETTE.len() as i64) as usize];
    let fill = if l.isr.len() < l.replicas {
        format!("{colour}\" fill-opacity=\"0.5")
    } else {
        colour.to_string()
    };
    (
        fill,
        l.leader.to_string(),
        format!("leader {}, ISR {isr} of {} replicas", l.leader, l.replicas),
    )
}

/// The history's timeline: broker states, then each partition's leader
/// (its colour, the id written in) and ISR (pale while under-replicated).
pub fn write_timeline(w: &mut impl Write, s: &Section, t: &Timeline) -> io::Result<()> {
    if !open(w, "timeline", "Leadership, ISR and brokers over time", s)? {
        return Ok(());
    }
    let Some((from, to)) = t.span else {
        return writeln!(w, "<p>The metadata log records no events.</p></section>");
    };
    writeln!(
        w,
        "<p class=\"legend\"><span><i style=\"background:#2e8b57\"></i>broker unfenced</span>\
         <span><i style=\"background:#c9a227\"></i>fenced</span><span><i style=\"background:#e07b39\"></i>controlled shutdown</span>\
         <span><i style=\"background:#b3261e\"></i>no leader</span><span><i style=\"background:#3b6fb6;opacity:.5\"></i>\
         ISR smaller than the replicas</span> Partition bars are coloured by leader, its id written in. \
         {} events, {} of them in aborted or open metadata transactions (not drawn){}.</p>",
        t.events,
        t.not_applied,
        if t.partitions_omitted > 0 {
            format!(
                "; {} more partitions changed, not drawn (kseg history --partition shows one)",
                t.partitions_omitted
            )
        } else {
            String::new()
        }
    )?;
    let axis = Axis::new(from, to);
    let lanes = (t.brokers.len() + t.partitions.len()) as f64;
    let height = lanes * (LANE + 4.0) + 24.0;
    svg_open(w, "timeline", height)?;
    axis.write(w, height - 22.0)?;
    let mut y = 2.0;
    let mut rows = Vec::new();
    for (id, l) in &t.brokers {
        let name = format!("broker {id}");
        lane(w, &axis, y, &name, l, |s| {
            (broker_colour(*s).into(), String::new(), s.name().into())
        })?;
        rows.extend(l.steps.iter().map(|s| {
            vec![
                name.clone(),
                s.offset.to_string(),
                utc(s.timestamp),
                s.state.name().into(),
                String::new(),
            ]
        }));
        y += LANE + 4.0;
    }
    for (name, l) in &t.partitions {
        lane(w, &axis, y, name, l, leadership)?;
        rows.extend(l.steps.iter().map(|s| {
            let isr: Vec<String> = s.state.isr.iter().map(i64::to_string).collect();
            vec![
                name.clone(),
                s.offset.to_string(),
                utc(s.timestamp),
                s.state.leader.to_string(),
                isr.join(","),
            ]
        }));
        y += LANE + 4.0;
    }
    writeln!(w, "</svg>")?;
    table(
        w,
        "timeline",
        &["lane", "offset", "time", "leader or state", "isr"],
        &rows,
    )?;
    writeln!(w, "</section>")
}

fn partition_reports(s: &Section) -> impl Iterator<Item = &Value> {
    s.lines
        .iter()
        .filter(|l| l["type"] == "partition")
        .map(|l| &l["report"])
}

/// Each segment's data time span and the moment retention makes it
/// deletable, with the report's clock.
pub fn write_retention(w: &mut impl Write, s: &Section) -> io::Result<()> {
    if !open(
        w,
        "retention",
        "Retention: each segment's data and when it goes",
        s,
    )? {
        return Ok(());
    }
    let reports: Vec<&Value> = partition_reports(s).collect();
    let times = reports.iter().flat_map(|r| {
        let segs = r["segments"].as_array().into_iter().flatten();
        segs.flat_map(|g| {
            [
                &g["firstTimestamp"],
                &g["largestTimestamp"],
                &g["eligibleAt"],
            ]
        })
        .chain([&r["now"]])
        .filter_map(Value::as_i64)
        .filter(|&t| t >= 0)
    });
    let (from, to) = times.fold((i64::MAX, i64::MIN), |(a, b), t| (a.min(t), b.max(t)));
    writeln!(
        w,
        "<p class=\"legend\"><span><i style=\"background:#3b6fb6\"></i>a segment's records, first to largest timestamp</span>\
         <span><i style=\"background:#b3261e\"></i>deletable now</span><span>▏ the moment retention.ms makes it deletable</span>\
         <span><i style=\"background:#1d2330\"></i>the report's clock</span></p>"
    )?;
    let mut rows = Vec::new();
    if from <= to {
        let axis = Axis::new(from, to);
        let drawn = reports.len().min(MAX_BARS);
        let height = drawn as f64 * (LANE + 4.0) + 24.0;
        svg_open(w, "retention", height)?;
        axis.write(w, height - 22.0)?;
        for (i, r) in reports.iter().take(drawn).enumerate() {
            let y = 2.0 + i as f64 * (LANE + 4.0);
            write_segments(w, &axis, y, r)?;
        }
        if let Some(now) = reports.first().and_then(|r| r["now"].as_i64()) {
            writeln!(
                w,
                "<line class=\"now\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"0\" y2=\"{:.1}\" stroke=\"#1d2330\" stroke-dasharray=\"4 3\"/>",
                height - 22.0,
                x = axis.x(now)
            )?;
        }
        writeln!(w, "</svg>")?;
    }
    for r in &reports {
        for g in r["segments"].as_array().into_iter().flatten() {
            rows.push(vec![
                r["partition"].as_str().unwrap_or("").to_string(),
                int(&g["baseOffset"]),
                int(&g["size"]),
                time(&g["firstTimestamp"]),
                time(&g["largestTimestamp"]),
                time(&g["eligibleAt"]),
                g["deletedNowBy"].as_str().unwrap_or("—").to_string(),
            ]);
        }
    }
    table(
        w,
        "retention",
        &[
            "partition",
            "base offset",
            "bytes",
            "first timestamp",
            "largest timestamp",
            "deletable at",
            "deleted now by",
        ],
        &rows,
    )?;
    writeln!(w, "</section>")
}

fn write_segments(w: &mut impl Write, axis: &Axis, y: f64, r: &Value) -> io::Result<()> {
    let name = r["partition"].as_str().unwrap_or("");
    label(w, y, name)?;
    for g in r["segments"].as_array().into_iter().flatten() {
        let doomed = !g["deletedNowBy"].is_null();
        let fill = if doomed { "#b3261e" } else { "#3b6fb6" };
        let base = int(&g["baseOffset"]);
        if let (Some(a), Some(b)) = (g["firstTimestamp"].as_i64(), g["largestTimestamp"].as_i64()) {
            let x = axis.x(a);
            writeln!(
                w,
                "<rect class=\"mark\" data-lane=\"{n}\" data-offset=\"{base}\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{}\" fill=\"{fill}\">\
                 <title>{n} segment {base}: records {} to {}</title></rect>",
                y + 3.0,
                (axis.x(b) - x).max(2.0),
                LANE - 6.0,
                utc(a),
                utc(b),
                n = esc(name)
            )?;
        }
        if let Some(at) = g["eligibleAt"].as_i64() {
            writeln!(
                w,
                "<rect class=\"mark\" data-lane=\"{n}\" data-offset=\"{base}\" x=\"{:.1}\" y=\"{y:.1}\" width=\"2\" height=\"{LANE}\" fill=\"{fill}\">\
                 <title>{n} segment {base}: deletable by retention.ms at {}</title></rect>",
                axis.x(at) - 1.0,
                utc(at),
                n = esc(name)
            )?;
        }
    }
    Ok(())
}

/// Horizontal bars, widths in proportion to each `data-value`.
fn bars(w: &mut impl Write, id: &str, bars: &[(String, i64)]) -> io::Result<()> {
    let drawn = &bars[..bars.len().min(MAX_BARS)];
    let max = drawn.iter().map(|b| b.1).max().unwrap_or(0).max(1);
    let height = drawn.len() as f64 * (LANE + 4.0) + 4.0;
    svg_open(w, id, height)?;
    let span = WIDTH - LABEL - 110.0;
    for (i, (name, value)) in drawn.iter().enumerate() {
        let y = 2.0 + i as f64 * (LANE + 4.0);
        label(w, y, name)?;
        let width = *value as f64 / max as f64 * span;
        writeln!(
            w,
            "<rect class=\"mark bar\" data-lane=\"{n}\" data-value=\"{value}\" x=\"{LABEL}\" y=\"{y:.1}\" width=\"{width:.2}\" height=\"{LANE}\" fill=\"#3b6fb6\">\
             <title>{n}: {value}</title></rect><text x=\"{:.1}\" y=\"{:.1}\">{value}</text>",
            LABEL + width + 4.0,
            y + LANE * 0.7,
            n = esc(name)
        )?;
    }
    writeln!(w, "</svg>")?;
    if bars.len() > drawn.len() {
        writeln!(
            w,
            "<p>The {} largest drawn; the table lists all {}.</p>",
            drawn.len(),
            bars.len()
        )?;
    }
    Ok(())
}

/// Each partition's size on disk, largest first.
pub fn write_sizes(w: &mut impl Write, s: &Section) -> io::Result<()> {
    if !open(w, "sizes", "Partition sizes", s)? {
        return Ok(());
    }
    let mut reports: Vec<&Value> = partition_reports(s).collect();
    reports.sort_by_key(|r| std::cmp::Reverse(r["totalBytes"].as_i64().unwrap_or(0)));
    let named: Vec<(String, i64)> = reports
        .iter()
        .map(|r| {
            let name = r["partition"].as_str().unwrap_or("").to_string();
            (name, r["totalBytes"].as_i64().unwrap_or(0))
        })
        .collect();
    bars(w, "sizes", &named)?;
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            vec![
                r["partition"].as_str().unwrap_or("").to_string(),
                int(&r["totalBytes"]),
                r["segments"].as_array().map_or(0, Vec::len).to_string(),
                int(&r["logStartOffset"][0]),
                int(&r["logEndOffset"]),
            ]
        })
        .collect();
    table(
        w,
        "sizes",
        &[
            "partition",
            "bytes",
            "segments",
            "log start offset",
            "log end offset",
        ],
        &rows,
    )?;
    writeln!(w, "</section>")
}

fn group_lines(s: &Section) -> impl Iterator<Item = &Value> {
    s.lines.iter().filter(|l| l["group"].is_string())
}

/// Each group's lag summed over the partitions whose log end is known,
/// and every committed offset.
pub fn write_lag(w: &mut impl Write, s: &Section) -> io::Result<()> {
    if !open(w, "lag", "Consumer group lag", s)? {
        return Ok(());
    }
    let mut totals = Vec::new();
    let mut rows = Vec::new();
    for g in group_lines(s) {
        let name = g["group"].as_str().unwrap_or("").to_string();
        let offsets = g["offsets"].as_array().into_iter().flatten();
        let mut known = None;
        for o in offsets {
            if let Some(lag) = o["lag"].as_i64() {
                known = Some(known.unwrap_or(0) + lag);
            }
            rows.push(vec![
                name.clone(),
                g["state"].as_str().unwrap_or("").to_string(),
                o["topic"].as_str().unwrap_or("").to_string(),
                int(&o["partition"]),
                int(&o["offset"]),
                int(&o["logEndOffset"]),
                int(&o["lag"]),
            ]);
        }
        if let Some(total) = known {
            totals.push((name, total));
        }
    }
    if totals.is_empty() {
        writeln!(
            w,
            "<p>No lag is known: the partitions the groups commit to are not in this log dir.</p>"
        )?;
    } else {
        totals.sort_by_key(|t| std::cmp::Reverse(t.1));
        bars(w, "lag", &totals)?;
    }
    table(
        w,
        "lag",
        &[
            "group",
            "state",
            "topic",
            "partition",
            "committed offset",
            "log end offset",
            "lag",
        ],
        &rows,
    )?;
    writeln!(w, "</section>")
}

fn loses_data(l: &Value) -> bool {
    let plan = &l["plan"];
    l["type"] == "partition"
        && (plan["truncation"]["bytesDropped"].as_i64().unwrap_or(0) > 0
            || plan["segments"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|s| s["action"] == "delete"))
}

/// Every partition's recovery verdict, and every other finding of
/// `verify` (stray replicas, directories marked for deletion, node files).
pub fn write_findings(w: &mut impl Write, s: &Section) -> io::Result<()> {
    if !open(w, "findings", "What verify finds", s)? {
        return Ok(());
    }
    let mut rows = Vec::new();
    let mut other = Vec::new();
    for l in &s.lines {
        if l["type"] != "partition" {
            let mut rest = l.clone();
            let message = match rest["message"].as_str() {
                Some(m) => m.to_string(),
                None => {
                    if let Some(o) = rest.as_object_mut() {
                        o.remove("type");
                        o.remove("dir");
                    }
                    rest.to_string()
                }
            };
            other.push(vec![
                l["type"].as_str().unwrap_or("").to_string(),
                l["dir"].as_str().unwrap_or("").to_string(),
                message,
            ]);
            continue;
        }
        let plan = &l["plan"];
        let segments = plan["segments"].as_array().map_or(&[][..], Vec::as_slice);
        let count = |action: &str| segments.iter().filter(|s| s["action"] == action).count();
        let unseen = plan["unseenDamage"].as_array().map_or(0, Vec::len);
        let verdict = if loses_data(l) {
            "loses data"
        } else if unseen > 0 {
            "damage past what recovery reads"
        } else {
            "loses nothing"
        };
        rows.push(vec![
            l["partition"].as_str().unwrap_or("").to_string(),
            segments.len().to_string(),
            count("recover").to_string(),
            plan["truncation"]["bytesDropped"]
                .as_i64()
                .unwrap_or(0)
                .to_string(),
            count("delete").to_string(),
            unseen.to_string(),
            l["strayFiles"].as_array().map_or(0, Vec::len).to_string(),
            verdict.to_string(),
        ]);
    }
    let mut columns = SUMMARY_COLUMNS.to_vec();
    columns.push("on the next start");
    table(w, "findings", &columns, &rows)?;
    if !other.is_empty() {
        table(
            w,
            "other-findings",
            &["finding", "directory", "what"],
            &other,
        )?;
    }
    writeln!(w, "</section>")
}
