//! `kseg groups` and `kseg transactions` on big clusters: a summary line
//! first, and filters that narrow the listing (as `kafka-consumer-groups.sh
//! --state/--type` and `kafka-transactions.sh list` choose).

use std::collections::BTreeMap;

use serde_json::Value;

use super::corpus::root;
use super::util::{json_lines, kseg, stderr, stdout};

const OFFSETS: &str = "internal-consumer-offsets/__consumer_offsets-0";

/// Every group `kseg groups --json` lists, by id.
fn all_groups(args: &[&str]) -> BTreeMap<String, Value> {
    let dir = root().join(OFFSETS);
    let mut full = vec!["groups", "--json"];
    full.extend_from_slice(args);
    full.push(dir.to_str().unwrap());
    let out = kseg(full);
    json_lines(&out)
        .into_iter()
        .map(|g| (g["group"].as_str().unwrap().to_string(), g))
        .collect()
}

#[test]
fn the_groups_summary_counts_what_the_listing_shows() {
    let groups = all_groups(&[]);
    let mut by_type: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_state: BTreeMap<String, usize> = BTreeMap::new();
    let mut offsets = 0;
    for g in groups.values() {
        *by_type
            .entry(g["type"].as_str().unwrap_or("classic").to_string())
            .or_default() += 1;
        *by_state
            .entry(g["state"].as_str().unwrap_or("Empty").to_string())
            .or_default() += 1;
        offsets += g["offsets"].as_array().unwrap().len();
    }
    let join = |m: &BTreeMap<String, usize>| {
        m.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = stdout(&kseg(["groups", root().join(OFFSETS).to_str().unwrap()]));
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "Summary: {} groups ({}; {}), {offsets} committed offsets",
            groups.len(),
            join(&by_type),
            join(&by_state)
        )
    );
}

#[test]
fn groups_are_chosen_by_id_state_type_and_lag() {
    let all = all_groups(&[]);
    assert!(all.len() >= 4, "{all:?}");
    for (flag, field) in [("--state", "state"), ("--type", "type")] {
        let values: Vec<&str> = all.values().filter_map(|g| g[field].as_str()).collect();
        let wanted = values[0];
        let arg = if flag == "--state" {
            wanted.to_lowercase()
        } else {
            wanted.to_string()
        };
        let kept = all_groups(&[flag, &arg]);
        let expected: Vec<&String> = all
            .iter()
            .filter(|(_, g)| g[field].as_str() == Some(wanted))
            .map(|(id, _)| id)
            .collect();
        assert_eq!(kept.keys().collect::<Vec<_>>(), expected, "{flag} {arg}");
        assert!(kept.len() < all.len(), "{flag} {arg} narrows nothing");
    }
    let ids: Vec<&String> = all.keys().take(2).collect();
    let kept = all_groups(&["--group", ids[0], "--group", ids[1]]);
    assert_eq!(kept.keys().collect::<Vec<_>>(), ids);
    // Nothing is behind without a data partition in the log dir.
    assert!(all_groups(&["--lagging"]).is_empty());
    let out = kseg([
        "groups",
        "--lagging",
        root().join(OFFSETS).to_str().unwrap(),
    ]);
    assert!(out.status.success() && stderr(&out).contains("no group matches the filters"));
}

const TXN: &str = "internal-transaction-state/__transaction_state-0";

/// Every transactional id `kseg transactions --json` lists, with its state.
fn ids(args: &[&str]) -> BTreeMap<String, String> {
    let dir = root().join(TXN);
    let mut full = vec!["transactions", "--json"];
    full.extend_from_slice(args);
    full.push(dir.to_str().unwrap());
    json_lines(&kseg(full))
        .into_iter()
        .filter_map(|o| {
            let id = o.get("transactionalId")?.as_str()?.to_string();
            Some((id, o["state"].as_str()?.to_string()))
        })
        .collect()
}

#[test]
fn transactions_are_summarised_then_chosen_by_id_and_state() {
    let all = ids(&[]);
    let mut by_state: BTreeMap<&str, usize> = BTreeMap::new();
    for state in all.values() {
        *by_state.entry(state).or_default() += 1;
    }
    let states: Vec<String> = by_state.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let text = stdout(&kseg(["transactions", root().join(TXN).to_str().unwrap()]));
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with(&format!(
            "Summary: {} transactional ids ({}); ",
            all.len(),
            states.join(", ")
        )),
        "{first}"
    );
    let (state, _) = by_state.iter().min_by_key(|(_, n)| **n).unwrap();
    let kept = ids(&["--state", &state.to_uppercase()]);
    assert!(!kept.is_empty() && kept.len() < all.len());
    assert!(kept.values().all(|s| s == state), "{kept:?}");
    let some: Vec<&String> = all.keys().take(2).collect();
    let kept = ids(&["--transactional-id", some[0], "--transactional-id", some[1]]);
    assert_eq!(kept.keys().collect::<Vec<_>>(), some);
    assert!(ids(&["--hanging"]).is_empty());
}

/// The partitions `kseg retention-report --json` lists for a log dir.
fn retention(args: &[&str]) -> Vec<Value> {
    let dir = root().join("multi-partition-logdir/logdir");
    let mut full = vec![
        "retention-report",
        "--json",
        "--now",
        "2023-11-15T00:00:00Z",
    ];
    full.extend_from_slice(args);
    full.push(dir.to_str().unwrap());
    json_lines(&kseg(full))
        .into_iter()
        .map(|o| o["report"].clone())
        .collect()
}

fn names(reports: &[Value]) -> Vec<&str> {
    reports
        .iter()
        .map(|r| r["partition"].as_str().unwrap())
        .collect()
}

#[test]
fn retention_report_lists_only_the_topics_and_partitions_asked_for() {
    let all = retention(&[]);
    assert!(all.len() >= 4, "{:?}", names(&all));
    let audit = retention(&["--topic", "audit"]);
    assert_eq!(names(&audit), ["audit-0"]);
    // payments-0's log-start-offset-checkpoint (35) is past its first
    // segment: deleteLogStartOffsetBreachedSegments takes it at once,
    // while a day after the writes retention.ms has deleted nothing else.
    let deletable = retention(&["--deletable-now"]);
    assert_eq!(names(&deletable), ["payments-0"]);
    let with_warnings = retention(&["--with-warnings"]);
    let expected: Vec<&str> = all
        .iter()
        .filter(|r| !r["warnings"].as_array().unwrap().is_empty())
        .map(|r| r["partition"].as_str().unwrap())
        .collect();
    assert_eq!(names(&with_warnings), expected);
}
