//! `kseg locate --json` against every lookup Kafka recorded in the corpus.

use serde_json::Value;

use super::corpus::cases;
use super::util::kseg;

fn locate(dir: &std::path::Path, lookups: &Value, flag: &str, target: &Value) -> Value {
    let log_start = &lookups["logStartOffset"];
    // Lookups on files opened as they are (not a running broker) search
    // every index slot, preallocated zeros included.
    let as_opened = lookups["segmentsFrom"]
        .as_str()
        .unwrap()
        .starts_with("LogSegment.open");
    let out = kseg([
        "locate".to_string(),
        if as_opened { "--as-opened" } else { "--deep" }.into(),
        "--json".into(),
        format!("--log-start-offset={log_start}"),
        format!("--{flag}={target}"),
        dir.display().to_string(),
    ]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{flag} {target}: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn check_offset_lookup(label: &str, kafka: &Value, ours: &Value) {
    let label = format!("{label} offset {}", kafka["targetOffset"]);
    if kafka["segment"].is_null() {
        assert!(
            ours.get("segment").is_none(),
            "{label}: no segment expected"
        );
        return;
    }
    assert_eq!(kafka["segment"], ours["segment"], "{label}: segment");
    assert_eq!(
        kafka["indexFloorEntry"]["offset"], ours["index"]["floorOffset"],
        "{label}: index floor offset"
    );
    assert_eq!(
        kafka["indexFloorEntry"]["position"], ours["index"]["floorPosition"],
        "{label}: index floor position"
    );
    if kafka.get("error").is_some() {
        assert!(
            ours.get("error").is_some(),
            "{label}: Kafka's scan failed, ours must report it"
        );
        return;
    }
    let found = &ours["scan"]["found"];
    match kafka["translateOffset"].as_object() {
        None => assert!(found.is_null(), "{label}: nothing in this segment"),
        Some(t) => {
            assert_eq!(t["position"], found["position"], "{label}: batch position");
            for f in ["baseOffset", "lastOffset", "sizeInBytes"] {
                assert_eq!(t["batch"][f], found[f], "{label}: batch {f}");
            }
        }
    }
    if let Some(next) = kafka.get("servedByNextSegment").and_then(Value::as_object) {
        let ours_next = &ours["servedByNextSegment"];
        assert_eq!(
            next["segment"], ours_next["segment"],
            "{label}: next segment"
        );
        for f in ["baseOffset", "lastOffset", "position", "sizeInBytes"] {
            assert_eq!(
                next["batch"][f], ours_next["found"][f],
                "{label}: next segment batch {f}"
            );
        }
    }
}

fn check_timestamp_lookup(label: &str, kafka: &Value, ours: &Value) {
    let label = format!("{label} timestamp {}", kafka["targetTimestamp"]);
    if kafka["segment"].is_null() {
        assert!(
            ours["result"].is_null() && ours.get("segment").is_none(),
            "{label}: Kafka found no segment"
        );
        return;
    }
    assert_eq!(kafka["segment"], ours["segment"], "{label}: segment");
    assert_eq!(
        kafka["timeIndexFloorEntry"]["timestamp"], ours["timeIndex"]["floorKey"],
        "{label}: time index floor"
    );
    assert_eq!(
        kafka["timeIndexFloorEntry"]["offset"], ours["timeIndex"]["floorOffset"],
        "{label}: time index floor offset"
    );
    assert_eq!(
        kafka["findOffsetByTimestamp"], ours["result"],
        "{label}: answer"
    );
}

#[test]
fn locate_matches_every_lookup_kafka_recorded() {
    let (mut offsets, mut timestamps) = (0, 0);
    for case in cases() {
        for p in case.partitions() {
            let lookups = &p.view["lookups"];
            for kafka in lookups["offsetLookups"].as_array().unwrap() {
                check_offset_lookup(
                    &p.label,
                    kafka,
                    &locate(&p.dir, lookups, "offset", &kafka["targetOffset"]),
                );
                offsets += 1;
            }
            for kafka in lookups["timestampLookups"].as_array().unwrap() {
                check_timestamp_lookup(
                    &p.label,
                    kafka,
                    &locate(&p.dir, lookups, "timestamp", &kafka["targetTimestamp"]),
                );
                timestamps += 1;
            }
        }
    }
    eprintln!("compared {offsets} offset lookups and {timestamps} timestamp lookups");
    assert!(offsets > 500 && timestamps > 300, "{offsets} {timestamps}");
}

#[test]
fn classic_example_finds_4730_in_batch_4728_at_12558() {
    let out = kseg([
        "locate",
        "--json",
        "--offset",
        "4730",
        super::util::classic().to_str().unwrap(),
    ]);
    let trace: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(trace["segment"], 4672);
    assert_eq!(trace["index"]["floorOffset"], 4715);
    assert_eq!(trace["index"]["floorPosition"], 8970);
    assert_eq!(trace["scan"]["visited"].as_array().unwrap().len(), 5);
    assert_eq!(trace["result"]["batch"]["position"], 12558);
    assert!(out.status.success());
}
