//! `kseg report`: the page's tables equal the JSON of the commands it
//! names, and, in a real headless browser (Debian's chromium), the page
//! loads with no error and no request, and every picture draws its marks
//! in proportion to the numbers they carry.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use kseg::render::time::utc;

use super::util::{copy_dir, json_lines, kseg};

const NOW: &str = "2024-12-10T00:00:00Z";

/// A log dir holding a metadata log, a `__consumer_offsets` partition and
/// data partitions (which that metadata log does not know: stray replicas),
/// two of them a topic the groups commit to, so that their lag is known.
fn log_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir");
    let corpus = super::corpus::root();
    copy_dir(&corpus.join("multi-partition-logdir/logdir"), &dir);
    for (case, partition) in [
        ("internal-cluster-metadata", "__cluster_metadata-0"),
        ("internal-consumer-offsets", "__consumer_offsets-0"),
    ] {
        copy_dir(&corpus.join(case).join(partition), &dir.join(partition));
    }
    for committed in ["acme.orders-0", "acme.orders-1"] {
        copy_dir(&super::util::classic(), &dir.join(committed));
    }
    (tmp, dir)
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Every `table.numbers` of the page's markup: figure → rows of cells
/// (header row first).
fn tables(html: &str) -> Vec<(String, Vec<Vec<String>>)> {
    let mut out = Vec::new();
    for chunk in html
        .split("<table class=\"numbers\" data-figure=\"")
        .skip(1)
    {
        let (figure, rest) = chunk.split_once('"').unwrap();
        let body = rest.split("</table>").next().unwrap();
        let rows = body
            .split("<tr>")
            .skip(1)
            .map(|row| {
                row.split("<t")
                    .skip(1)
                    .filter(|c| c.starts_with('d') || c.starts_with('h'))
                    .map(|c| {
                        let text = c.split_once('>').unwrap().1;
                        unescape(text.split("</t").next().unwrap())
                    })
                    .collect()
            })
            .collect();
        out.push((figure.to_string(), rows));
    }
    out
}

fn table<'a>(all: &'a [(String, Vec<Vec<String>>)], figure: &str) -> &'a [Vec<String>] {
    let (_, rows) = all
        .iter()
        .find(|(f, _)| f == figure)
        .unwrap_or_else(|| panic!("no table {figure}"));
    &rows[1..]
}

fn int(v: &Value) -> String {
    v.as_i64().map_or("—".into(), |n| n.to_string())
}

fn time(v: &Value) -> String {
    v.as_i64().map_or("—".into(), utc)
}

fn run_json(args: &[&str], dir: &Path) -> Vec<Value> {
    let mut all: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    all.push(dir.as_os_str());
    let out = kseg(all);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {out:?}"
    );
    json_lines(&out)
}

fn report(dir: &Path) -> (PathBuf, String) {
    let page = dir.parent().unwrap().join("report.html");
    let out = kseg([
        "report".as_ref(),
        dir.as_os_str(),
        "-o".as_ref(),
        page.as_os_str(),
        "--now".as_ref(),
        NOW.as_ref(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    (page, html)
}

/// The rows the page must show, computed from the commands' JSON here.
fn expected(dir: &Path) -> Vec<(&'static str, Vec<Vec<String>>)> {
    let retention = run_json(&["retention-report", "--json", "--now", NOW], dir);
    let reports: Vec<&Value> = retention.iter().map(|l| &l["report"]).collect();
    let mut sizes: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            vec![
                r["partition"].as_str().unwrap().to_string(),
                int(&r["totalBytes"]),
                r["segments"].as_array().unwrap().len().to_string(),
                int(&r["logStartOffset"][0]),
                int(&r["logEndOffset"]),
            ]
        })
        .collect();
    sizes.sort_by_key(|r| std::cmp::Reverse(r[1].parse::<i64>().unwrap()));
    let segments = reports
        .iter()
        .flat_map(|r| {
            r["segments"].as_array().unwrap().iter().map(|g| {
                vec![
                    r["partition"].as_str().unwrap().to_string(),
                    int(&g["baseOffset"]),
                    int(&g["size"]),
                    time(&g["firstTimestamp"]),
                    time(&g["largestTimestamp"]),
                    time(&g["eligibleAt"]),
                    g["deletedNowBy"].as_str().unwrap_or("—").to_string(),
                ]
            })
        })
        .collect();
    let groups = run_json(&["groups", "--json"], dir);
    let lag = groups
        .iter()
        .filter(|g| g["group"].is_string())
        .flat_map(|g| {
            g["offsets"].as_array().unwrap().iter().map(|o| {
                vec![
                    g["group"].as_str().unwrap().to_string(),
                    g["state"].as_str().unwrap().to_string(),
                    o["topic"].as_str().unwrap().to_string(),
                    int(&o["partition"]),
                    int(&o["offset"]),
                    int(&o["logEndOffset"]),
                    int(&o["lag"]),
                ]
            })
        })
        .collect();
    let verify = run_json(&["verify", "--json", "--now", NOW], dir);
    let findings = verify
        .iter()
        .filter(|l| l["type"] == "partition")
        .map(|l| {
            let segs = l["plan"]["segments"].as_array().unwrap();
            let n = |a: &str| segs.iter().filter(|s| s["action"] == a).count().to_string();
            let dropped = l["plan"]["truncation"]["bytesDropped"]
                .as_i64()
                .unwrap_or(0);
            let unseen = l["plan"]["unseenDamage"].as_array().unwrap().len();
            let verdict = if dropped > 0 || n("delete") != "0" {
                "loses data"
            } else if unseen > 0 {
                "damage past what recovery reads"
            } else {
                "loses nothing"
            };
            vec![
                l["partition"].as_str().unwrap().to_string(),
                segs.len().to_string(),
                n("recover"),
                dropped.to_string(),
                n("delete"),
                unseen.to_string(),
                l["strayFiles"].as_array().unwrap().len().to_string(),
                verdict.to_string(),
            ]
        })
        .collect();
    let other = verify
        .iter()
        .filter(|l| l["type"] != "partition")
        .map(|l| {
            let what = l["message"].as_str().map(str::to_string);
            let what = what.unwrap_or_else(|| {
                let mut rest = l.clone();
                let o = rest.as_object_mut().unwrap();
                o.remove("type");
                o.remove("dir");
                rest.to_string()
            });
            vec![
                l["type"].as_str().unwrap().to_string(),
                l["dir"].as_str().unwrap().to_string(),
                what,
            ]
        })
        .collect();
    vec![
        ("sizes", sizes),
        ("retention", segments),
        ("lag", lag),
        ("findings", findings),
        ("other-findings", other),
    ]
}

/// The timeline's rows against `kseg history --json`: every applied
/// partition and broker event is a row, with the event's own values.
fn check_timeline(rows: &[Vec<String>], dir: &Path) {
    let events = run_json(&["history", "--json"], dir);
    let drawn: Vec<&Value> = events
        .iter()
        .filter(|e| e["aborted"] != true && e["openTransaction"] != true)
        .filter(|e| {
            let kind = e["kind"].as_str().unwrap();
            kind.starts_with("partition") || kind.starts_with("broker")
        })
        .collect();
    assert_eq!(rows.len(), drawn.len(), "one row an event");
    assert!(rows.len() > 50, "the case has many changes");
    for row in rows {
        let offset: i64 = row[1].parse().unwrap();
        let e = drawn.iter().find(|e| e["offset"] == offset).unwrap();
        assert_eq!(row[2], e["time"].as_str().unwrap(), "{row:?}");
        if let Some(topic) = e["topic"].as_str() {
            assert_eq!(row[0], format!("{topic}-{}", e["partition"]));
            assert_eq!(row[3], int(&e["leader"]));
            let isr: Vec<String> = e["isr"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.to_string())
                .collect();
            assert_eq!(row[4], isr.join(","));
        } else {
            assert_eq!(row[0], format!("broker {}", e["broker"]));
            let state = if e["kind"] == "brokerUnregistered" {
                "unregistered"
            } else if e["inControlledShutdown"] == true {
                "controlled shutdown"
            } else if e["fenced"] == true {
                "fenced"
            } else {
                "unfenced"
            };
            assert_eq!(row[3], state, "{row:?}");
        }
    }
}

#[test]
fn the_pages_numbers_are_the_commands_json() {
    let (_tmp, dir) = log_dir();
    let (_, html) = report(&dir);
    let all = tables(&html);
    for (figure, rows) in expected(&dir) {
        assert!(!rows.is_empty(), "{figure}: the case has rows");
        assert_eq!(table(&all, figure), rows.as_slice(), "{figure}");
    }
    check_timeline(table(&all, "timeline"), &dir);
    assert!(!html.contains("<script"), "the page runs no script");
    assert!(
        !html.contains(" src=") && !html.contains(" href="),
        "nothing to fetch"
    );
}

#[test]
fn a_command_that_cannot_run_leaves_its_figure_saying_why() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logdir");
    copy_dir(
        &super::corpus::root().join("multi-partition-logdir/logdir"),
        &dir,
    );
    let (_, html) = report(&dir);
    let lag = html.split("<section id=\"lag\">").nth(1).unwrap();
    let lag = lag.split("</section>").next().unwrap();
    assert!(lag.contains("not available:"), "{lag}");
    assert!(lag.contains("__consumer_offsets"), "{lag}");
    let timeline = html.split("<section id=\"timeline\">").nth(1).unwrap();
    assert!(
        timeline
            .split("</section>")
            .next()
            .unwrap()
            .contains("not available:")
    );
}

/// What the page's probe reports, read from chromium's serialised DOM.
fn probe(page: &Path, browser: &Path) -> Value {
    let html = std::fs::read_to_string(page).unwrap();
    // The probe is an inline script: the page's policy admits it, and
    // still blocks every request.
    let html = html.replacen(
        "style-src 'unsafe-inline'",
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'",
        1,
    );
    let probed = page.with_file_name("probed.html");
    let script = include_str!("report_probe.js");
    let html = html.replacen("</body>", &format!("<script>{script}</script></body>"), 1);
    std::fs::write(&probed, html).unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1240,2000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", probed.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let json = dom
        .split("<pre id=\"probe\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| panic!("no probe output: {}", String::from_utf8_lossy(&out.stderr)));
    serde_json::from_str(&unescape(json)).unwrap()
}

fn browser() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("KSEG_REQUIRE_BROWSER").is_none(),
            "KSEG_REQUIRE_BROWSER is set and no chromium is on PATH"
        );
        eprintln!("no chromium on PATH: the browser test does not run (.ci/run installs it)");
    }
    found
}

/// The figure's bars are `want`, in order, each as wide as its share of
/// the largest.
fn check_bars(figure: &Value, want: &[(String, i64)]) {
    let bars = figure["marks"].as_array().unwrap();
    assert_eq!(bars.len(), want.len(), "{figure}");
    let widest = bars
        .iter()
        .map(|m| m["width"].as_f64().unwrap())
        .fold(0.0, f64::max);
    let largest = want.iter().map(|w| w.1).max().unwrap() as f64;
    for (m, (lane, value)) in bars.iter().zip(want) {
        assert_eq!(m["lane"], lane.as_str());
        assert_eq!(m["value"], value.to_string());
        let share = *value as f64 / largest * widest;
        assert!(
            (m["width"].as_f64().unwrap() - share).abs() < 0.5,
            "{m} {value}"
        );
    }
}

#[test]
fn the_page_renders_in_a_headless_browser() {
    let Some(browser) = browser() else {
        return;
    };
    let (_tmp, dir) = log_dir();
    let (page, html) = report(&dir);
    let seen = probe(&page, &browser);
    assert_eq!(seen["errors"], serde_json::json!([]), "{seen}");
    assert_eq!(seen["requests"], 0, "nothing is fetched");
    let figures = seen["figures"].as_array().unwrap();
    let ids: Vec<&str> = figures.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "timeline-picture",
            "retention-picture",
            "sizes-picture",
            "lag-picture"
        ]
    );
    for f in figures {
        assert!(f["width"].as_f64().unwrap() > 1000.0, "{f}");
        let marks = f["marks"].as_array().unwrap();
        assert!(!marks.is_empty(), "{f}");
        for m in marks {
            assert!(m["width"].as_f64().unwrap() >= 1.0, "{m}");
            assert!(m["height"].as_f64().unwrap() >= 10.0, "{m}");
        }
    }
    // The bars' widths are in proportion to their numbers, and those are
    // the tables': each partition's bytes, each group's summed lag.
    let all = tables(&html);
    let sizes: Vec<(String, i64)> = table(&all, "sizes")
        .iter()
        .map(|r| (r[0].clone(), r[1].parse().unwrap()))
        .collect();
    check_bars(&figures[2], &sizes);
    let mut lag: Vec<(String, i64)> = Vec::new();
    for row in table(&all, "lag").iter().filter(|r| r[6] != "—") {
        match lag.iter_mut().find(|(g, _)| *g == row[0]) {
            Some((_, total)) => *total += row[6].parse::<i64>().unwrap(),
            None => lag.push((row[0].clone(), row[6].parse().unwrap())),
        }
    }
    lag.sort_by_key(|l| std::cmp::Reverse(l.1));
    assert!(!lag.is_empty() && lag[0].1 > 0, "{lag:?}");
    check_bars(&figures[3], &lag);
    // Each timeline mark is one row of its table, and the browser's tables
    // are the markup's.
    let timeline = table(&all, "timeline");
    let marks = figures[0]["marks"].as_array().unwrap();
    assert_eq!(marks.len(), timeline.len());
    for (m, row) in marks.iter().zip(timeline) {
        assert_eq!(
            (m["lane"].as_str().unwrap(), m["offset"].as_str().unwrap()),
            (row[0].as_str(), row[1].as_str())
        );
    }
    for t in seen["tables"].as_array().unwrap() {
        let figure = t["figure"].as_str().unwrap();
        let rows: Vec<Vec<String>> = serde_json::from_value(t["rows"].clone()).unwrap();
        let (_, markup) = all.iter().find(|(f, _)| f == figure).unwrap();
        assert_eq!(&rows, markup, "{figure}");
    }
}
