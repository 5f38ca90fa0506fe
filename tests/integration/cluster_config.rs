//! Topic configs with the broker's precedence: the internal topics' own
//! rules with no metadata log, the metadata log's own deletion rule, and
//! configs taken from a metadata log by `retention-report`,
//! `rebuild-index`, `verify` and `kseg config`, checked against the
//! ConfigRecords of `internal-cluster-metadata`'s `kafka-view.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::util::{copy_dir, json_lines, kseg, stderr, stdout};

fn corpus(case: &str) -> PathBuf {
    super::corpus::root().join(case)
}

fn view(case: &str) -> Value {
    let text = std::fs::read_to_string(corpus(case).join("kafka-view.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Every record value of the view's log segments, with its offset.
fn log_records(view: &Value) -> Vec<(i64, Value)> {
    let mut out = Vec::new();
    for segment in view["partition"]["segments"].as_array().unwrap() {
        for batch in segment["log"]["batches"].as_array().unwrap() {
            for record in batch["records"].as_array().unwrap() {
                out.push((record["offset"].as_i64().unwrap(), record["value"].clone()));
            }
        }
    }
    out
}

/// The records of the view's snapshot `file`.
fn snapshot_records(view: &Value, file: &str) -> Vec<Value> {
    let snapshot = view["partition"]["kraftSnapshots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["file"] == file)
        .unwrap_or_else(|| panic!("no snapshot {file} in the view"));
    snapshot["records"]["batches"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["records"].as_array().unwrap().iter())
        .map(|r| r["value"].clone())
        .collect()
}

/// Where a topic override was set: in the snapshot, or at a log offset.
#[derive(Debug, Clone, PartialEq)]
enum SetAt {
    Snapshot,
    Offset(i64),
}

/// Topic overrides by topic and name, replayed by hand from the view: the
/// ConfigRecords of the latest snapshot (102), then those of the log from
/// offset 102, a null value deleting, records between a Begin and an
/// Abort transaction record dropped.
fn topic_overrides(view: &Value) -> BTreeMap<String, BTreeMap<String, (String, SetAt)>> {
    let mut out: BTreeMap<String, BTreeMap<String, (String, SetAt)>> = BTreeMap::new();
    let mut apply = |data: &Value, at: SetAt| {
        if data["resourceType"] != 2 {
            return;
        }
        let topic = data["resourceName"].as_str().unwrap().to_string();
        let name = data["name"].as_str().unwrap().to_string();
        match data["value"].as_str() {
            Some(v) => {
                out.entry(topic)
                    .or_default()
                    .insert(name, (v.to_string(), at));
            }
            None => {
                out.entry(topic).or_default().remove(&name);
            }
        }
    };
    for value in snapshot_records(view, "00000000000000000102-0000000002.checkpoint") {
        if value["type"] == "CONFIG_RECORD" {
            apply(&value["data"], SetAt::Snapshot);
        }
    }
    let mut pending: Option<Vec<(i64, Value)>> = None;
    for (offset, value) in log_records(view).into_iter().filter(|(o, _)| *o >= 102) {
        match value["type"].as_str() {
            Some("BEGIN_TRANSACTION_RECORD") => pending = Some(Vec::new()),
            Some("ABORT_TRANSACTION_RECORD") => pending = None,
            Some("END_TRANSACTION_RECORD") => {
                for (o, v) in pending.take().unwrap_or_default() {
                    apply(&v["data"], SetAt::Offset(o));
                }
            }
            Some("CONFIG_RECORD") => match &mut pending {
                Some(records) => records.push((offset, value)),
                None => apply(&value["data"], SetAt::Offset(offset)),
            },
            _ => {}
        }
    }
    out
}

/// The cluster-default broker ConfigRecords of the view (resource type 4, empty name).
fn cluster_defaults(view: &Value) -> BTreeMap<String, String> {
    log_records(view)
        .into_iter()
        .filter(|(_, v)| v["type"] == "CONFIG_RECORD")
        .map(|(_, v)| v["data"].clone())
        .filter(|d| d["resourceType"] == 4 && d["resourceName"] == "")
        .filter_map(|d| {
            Some((
                d["name"].as_str()?.to_string(),
                d["value"].as_str()?.to_string(),
            ))
        })
        .collect()
}

/// A log dir assembled from corpus copies: the metadata log, and data
/// partitions renamed to topics its TopicRecords name (with those topic
/// ids in `partition.metadata`), and `meta.properties` for node 2.
fn assembled(root: &Path) -> PathBuf {
    let dir = root.join("logdir");
    let ids = view("internal-cluster-metadata")["topicIds"].clone();
    copy_dir(
        &corpus("internal-cluster-metadata/__cluster_metadata-0"),
        &dir.join("__cluster_metadata-0"),
    );
    for (from, topic) in [
        ("retention/ret-0", "acme.orders"),
        ("compacted/keyed-0", "acme.payments"),
        ("multi-partition-logdir/logdir/payments-0", "acme.inventory"),
        ("multi-partition-logdir/logdir/audit-0", "acme.events"),
    ] {
        let to = dir.join(format!("{topic}-0"));
        copy_dir(&corpus(from), &to);
        std::fs::write(
            to.join("partition.metadata"),
            format!("version: 0\ntopic_id: {}\n", ids[topic].as_str().unwrap()),
        )
        .unwrap();
    }
    std::fs::write(dir.join("meta.properties"), "version=1\nnode.id=2\n").unwrap();
    dir
}

fn by_partition(lines: &[Value]) -> BTreeMap<String, Value> {
    lines
        .iter()
        .filter(|l| l["type"] == "partition")
        .map(|l| {
            (
                l["report"]["partition"].as_str().unwrap().to_string(),
                l.clone(),
            )
        })
        .collect()
}

#[test]
fn consumer_offsets_get_the_cleaners_view_with_the_policy_source() {
    let dir = corpus("internal-consumer-offsets/__consumer_offsets-0");
    let path = dir.display().to_string();
    let out = kseg([
        "retention-report",
        "--now",
        "2026-01-01T00:00:00Z",
        "--json",
        &path,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let line = &json_lines(&out)[0];
    let report = &line["report"];
    for segment in report["segments"].as_array().unwrap() {
        assert!(segment["deletedNowBy"].is_null(), "{segment}");
    }
    assert!(
        report["compaction"].is_object(),
        "the cleaner's view: {report}"
    );
    let policy = &line["configs"]["cleanup.policy"];
    assert_eq!(policy["value"], "compact");
    assert_eq!(policy["source"], "INTERNAL_TOPIC_RULE");
    assert_eq!(line["configs"]["segment.bytes"]["value"], "104857600");
    assert_eq!(
        line["configs"]["segment.bytes"]["synonym"],
        "offsets.topic.segment.bytes"
    );

    let text = stdout(&kseg([
        "retention-report",
        "--now",
        "2026-01-01T00:00:00Z",
        &path,
    ]));
    assert!(
        !text.contains("deleteRetentionMsBreachedSegments"),
        "{text}"
    );
    assert!(
        text.contains("cleanup.policy = compact (INTERNAL_TOPIC_RULE: the group coordinator creates __consumer_offsets with it)"),
        "{text}"
    );
    assert!(
        text.contains("cleanup.policy=compact: no time or size deletion"),
        "{text}"
    );

    // A flag still wins over the internal topic's rule.
    let out = kseg([
        "retention-report",
        "--now",
        "2026-01-01T00:00:00Z",
        "--json",
        "--config",
        "cleanup.policy=delete",
        &path,
    ]);
    let line = &json_lines(&out)[0];
    assert_eq!(line["configs"]["cleanup.policy"]["source"], "FLAG");
    assert!(line["report"]["compaction"].is_null());
}

#[test]
fn transaction_state_takes_its_segment_size_from_server_properties() {
    let tmp = tempfile::tempdir().unwrap();
    let props = tmp.path().join("server.properties");
    std::fs::write(
        &props,
        "transaction.state.log.segment.bytes=5000000\nlog.segment.bytes=1234\n",
    )
    .unwrap();
    let dir = corpus("internal-transaction-state/__transaction_state-0");
    let out = kseg([
        "retention-report".as_ref(),
        "--json".as_ref(),
        "--server-properties".as_ref(),
        props.as_os_str(),
        dir.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let configs = &json_lines(&out)[0]["configs"];
    assert_eq!(
        configs["segment.bytes"]["value"], "5000000",
        "not log.segment.bytes: {configs}"
    );
    assert_eq!(configs["segment.bytes"]["source"], "INTERNAL_TOPIC_RULE");
    assert_eq!(configs["cleanup.policy"]["value"], "compact");
}

/// The snapshot header's `lastContainedLogTimestamp` of the view's snapshot `file`.
fn snapshot_timestamp(view: &Value, file: &str) -> i64 {
    let snapshot = view["partition"]["kraftSnapshots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["file"] == file)
        .unwrap();
    snapshot["records"]["batches"][0]["records"][0]["value"]["data"]["lastContainedLogTimestamp"]
        .as_i64()
        .unwrap()
}

#[test]
fn the_metadata_log_is_deleted_below_snapshots_not_by_retention_ms() {
    let v = view("internal-cluster-metadata");
    let ts = snapshot_timestamp(&v, "00000000000000000000-0000000000.checkpoint");
    let bases: Vec<i64> = v["partition"]["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["baseOffset"].as_i64().unwrap())
        .collect();
    // Segments wholly below snapshot 102: those whose next segment starts at or below it.
    let below: Vec<i64> = bases
        .windows(2)
        .filter(|w| w[1] <= 102)
        .map(|w| w[0])
        .collect();
    assert!(!below.is_empty());
    let dir = corpus("internal-cluster-metadata/__cluster_metadata-0")
        .display()
        .to_string();
    let report = |now: i64, extra: &[&str]| {
        let mut args = vec![
            "retention-report".to_string(),
            "--json".into(),
            format!("--now={now}"),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        args.push(dir.clone());
        let out = kseg(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        json_lines(&out).remove(0)
    };
    // Seven days and a millisecond after the bootstrap snapshot's timestamp.
    let line = report(ts + 604_800_001, &[]);
    let m = &line["report"]["metadataLog"];
    assert_eq!(m["steps"][0]["rule"], "cleanSnapshotsRetentionMs");
    assert_eq!(m["steps"][0]["snapshotDeleted"], 0);
    assert_eq!(m["steps"][0]["logStartOffsetAfter"], 102);
    assert_eq!(m["steps"][0]["segmentsDeleted"], serde_json::json!(below));
    assert_eq!(m["snapshotsAfter"], serde_json::json!([102]));
    assert_eq!(line["configs"]["retention.ms"]["value"], "-1");
    assert_eq!(
        line["configs"]["retention.ms"]["source"],
        "INTERNAL_TOPIC_RULE"
    );
    assert_eq!(
        line["configs"]["metadata.max.retention.ms"]["source"],
        "DEFAULT_CONFIG"
    );
    for segment in line["report"]["segments"].as_array().unwrap() {
        let base = segment["baseOffset"].as_i64().unwrap();
        let expected = below.contains(&base).then_some("cleanSnapshotsRetentionMs");
        assert_eq!(segment["deletedNowBy"].as_str(), expected, "{segment}");
    }
    // Exactly seven days: kept (the rule is strict).
    let kept = report(ts + 604_800_000, &[]);
    assert_eq!(
        kept["report"]["metadataLog"]["steps"],
        serde_json::json!([])
    );
    // The size limit, given as a flag, deletes it at once.
    let by_size = report(ts, &["--config", "metadata.max.retention.bytes=1"]);
    let m = &by_size["report"]["metadataLog"];
    assert_eq!(m["steps"][0]["rule"], "cleanSnapshotsRetentionSize");
    assert_eq!(
        by_size["configs"]["metadata.max.retention.bytes"]["source"],
        "FLAG"
    );
    // Retention settings given on the command line (or in a --config-file
    // of server.properties) never reach the metadata log: Kafka fixes them.
    let out = kseg([
        "retention-report",
        "--json",
        &format!("--now={}", ts + 3_600_000),
        "--config",
        "log.retention.hours=1",
        "--config",
        "retention.bytes=1",
        &dir,
    ]);
    assert!(
        stderr(&out).contains("log.retention.hours: ignored for __cluster_metadata"),
        "{}",
        stderr(&out)
    );
    let line = json_lines(&out).remove(0);
    assert_eq!(
        line["configs"]["retention.ms"]["source"],
        "INTERNAL_TOPIC_RULE"
    );
    assert_eq!(line["configs"]["retention.bytes"]["value"], "-1");
    for segment in line["report"]["segments"].as_array().unwrap() {
        assert_eq!(segment["eligibleAt"], Value::Null, "{segment}");
    }
}

#[test]
fn retention_report_takes_topic_configs_from_the_metadata_log() {
    let v = view("internal-cluster-metadata");
    let overrides = topic_overrides(&v);
    let defaults = cluster_defaults(&v);
    assert!(defaults.contains_key("log.retention.hours"), "{defaults:?}");
    let tmp = tempfile::tempdir().unwrap();
    let dir = assembled(tmp.path());
    let path = dir.display().to_string();
    let out = kseg([
        "retention-report",
        "--now",
        "2026-01-01T00:00:00Z",
        "--json",
        &path,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    let partitions = by_partition(&lines);
    let retention_names = kseg::inspect::retention::config::RetentionConfig::TOPIC_SETTINGS;
    let mut checked = 0;
    for (topic, settings) in &overrides {
        let Some(line) = partitions.get(&format!("{topic}-0")) else {
            continue;
        };
        assert!(
            line["configsFrom"]
                .as_str()
                .unwrap()
                .contains("__cluster_metadata-0"),
            "{line}"
        );
        for (name, (value, at)) in settings {
            if !retention_names.contains(&name.as_str()) {
                continue;
            }
            let got = &line["configs"][name];
            assert_eq!(
                got["value"].as_str(),
                Some(value.as_str()),
                "{topic} {name}"
            );
            assert_eq!(got["source"], "DYNAMIC_TOPIC_CONFIG", "{topic} {name}");
            match at {
                SetAt::Snapshot => assert_eq!(got["snapshotEndOffset"], 102),
                SetAt::Offset(o) => assert_eq!(got["offset"], *o),
            }
            checked += 1;
        }
    }
    assert!(checked >= 4, "only {checked} settings checked");
    // acme.orders' retention.ms override was deleted after the snapshot,
    // and the cluster default log.retention.hours is not a dynamic broker
    // config: the broker drops it, so Kafka's default holds.
    assert!(!overrides["acme.orders"].contains_key("retention.ms"));
    let orders = &partitions["acme.orders-0"]["configs"]["retention.ms"];
    assert_eq!(orders["source"], "DEFAULT_CONFIG");
    assert_eq!(orders["value"], "604800000");
    // The compacted topic gets the cleaner's view, not time retention.
    let payments = &partitions["acme.payments-0"]["report"];
    assert!(payments["compaction"].is_object());
    assert_eq!(overrides["acme.payments"]["cleanup.policy"].0, "compact");

    let text = stdout(&kseg([
        "retention-report",
        "--now",
        "2026-01-01T00:00:00Z",
        &path,
    ]));
    assert!(
        text.contains("cleanup.policy = compact (DYNAMIC_TOPIC_CONFIG, metadata snapshot ending at offset 102)"),
        "{text}"
    );
    assert!(
        text.contains("ignored: log.retention.hours=72 (DYNAMIC_DEFAULT_BROKER_CONFIG"),
        "{text}"
    );

    // A flag still wins, for one topic.
    let out = kseg([
        "retention-report",
        "--now",
        "2026-01-01T00:00:00Z",
        "--json",
        "--config",
        "acme.payments:cleanup.policy=delete",
        &path,
    ]);
    let partitions = by_partition(&json_lines(&out));
    let payments = &partitions["acme.payments-0"];
    assert_eq!(payments["configs"]["cleanup.policy"]["source"], "FLAG");
    assert!(payments["report"]["compaction"].is_null());
    assert_eq!(
        partitions["acme.orders-0"]["configs"]["segment.bytes"]["source"],
        "DYNAMIC_TOPIC_CONFIG"
    );
}

#[test]
fn server_properties_are_the_static_layer_under_the_metadata_log() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = assembled(tmp.path());
    let props = tmp.path().join("server.properties");
    std::fs::write(
        &props,
        "log.retention.hours=24\nlog.segment.bytes=2000000\n",
    )
    .unwrap();
    let out = kseg([
        "config".as_ref(),
        "--json".as_ref(),
        "--server-properties".as_ref(),
        props.as_os_str(),
        dir.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    let topic = |name: &str| {
        lines
            .iter()
            .find(|l| l["topic"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    let events = topic("acme.events");
    assert_eq!(events["configs"]["retention.ms"]["value"], "86400000");
    assert_eq!(
        events["configs"]["retention.ms"]["source"],
        "STATIC_BROKER_CONFIG"
    );
    assert_eq!(
        events["configs"]["retention.ms"]["synonym"],
        "log.retention.hours"
    );
    assert_eq!(events["configs"]["segment.bytes"]["value"], "2000000");
    let orders = topic("acme.orders");
    assert_eq!(
        orders["configs"]["segment.bytes"]["source"],
        "DYNAMIC_TOPIC_CONFIG"
    );
    assert_eq!(orders["configs"]["segment.bytes"]["value"], "536870912");
    let metadata = topic("__cluster_metadata");
    assert_eq!(
        metadata["configs"]["segment.bytes"]["value"], "1073741824",
        "log.segment.bytes does not reach the metadata log"
    );
}

#[test]
fn kseg_config_lists_the_images_topics_and_the_log_dirs() {
    let v = view("internal-cluster-metadata");
    let overrides = topic_overrides(&v);
    let tmp = tempfile::tempdir().unwrap();
    let dir = assembled(tmp.path());
    let out = kseg(["config".as_ref(), "--json".as_ref(), dir.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    let topics: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "topic")
        .map(|l| l["topic"].as_str().unwrap())
        .collect();
    let deleted = v["deletedTopic"].as_str().unwrap();
    for (name, id) in v["topicIds"].as_object().unwrap() {
        let line = lines.iter().find(|l| l["topic"] == name.as_str());
        if name == deleted {
            assert!(line.is_none(), "{name} was removed: {topics:?}");
            continue;
        }
        let line = line.unwrap_or_else(|| panic!("{name} missing: {topics:?}"));
        assert_eq!(&line["topicId"], id);
        for (config, (value, _)) in overrides.get(name).into_iter().flatten() {
            assert_eq!(
                line["configs"][config]["value"].as_str(),
                Some(value.as_str())
            );
            assert_eq!(line["configs"][config]["source"], "DYNAMIC_TOPIC_CONFIG");
        }
    }
    assert!(
        topics.contains(&"__cluster_metadata"),
        "the log dir's partition: {topics:?}"
    );
    let ignored: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "ignoredBrokerConfig")
        .collect();
    assert_eq!(ignored.len(), 1);
    assert_eq!(ignored[0]["name"], "log.retention.hours");

    let text = stdout(&kseg([
        "config".as_ref(),
        "--topic".as_ref(),
        "acme.inventory".as_ref(),
        dir.as_os_str(),
    ]));
    assert!(
        text.contains("index.interval.bytes = 8192 (DYNAMIC_TOPIC_CONFIG"),
        "{text}"
    );
    assert!(text.contains("node.id 2"), "{text}");
    assert!(!text.contains("acme.orders"), "{text}");
}

/// Given the metadata partition itself (which `--help` offers as PATH),
/// `config` describes every topic its image names, as for the log dir, and
/// says so; its own topic is among them with its partition directory.
#[test]
fn kseg_config_on_the_metadata_partition_lists_every_topic_of_its_image() {
    let v = view("internal-cluster-metadata");
    let dir = corpus("internal-cluster-metadata/__cluster_metadata-0");
    let out = kseg(["config".as_ref(), "--json".as_ref(), dir.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    let deleted = v["deletedTopic"].as_str().unwrap();
    let expected: BTreeMap<String, Value> = v["topicIds"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(name, _)| name.as_str() != deleted)
        .map(|(name, id)| (name.clone(), id.clone()))
        .collect();
    let got: BTreeMap<String, Value> = lines
        .iter()
        .filter(|l| l["type"] == "topic" && l["topic"] != "__cluster_metadata")
        .map(|l| {
            (
                l["topic"].as_str().unwrap().to_string(),
                l["topicId"].clone(),
            )
        })
        .collect();
    assert_eq!(got, expected);
    let own = lines
        .iter()
        .find(|l| l["topic"] == "__cluster_metadata")
        .unwrap();
    assert_eq!(own["partitionDirs"], serde_json::json!([0]));
    assert!(
        stderr(&out).contains("is the metadata partition: every topic its image names"),
        "{}",
        stderr(&out)
    );
    let out = kseg(["config".as_ref(), dir.as_os_str()]);
    let text = stdout(&out);
    assert!(
        text.contains(
            "topics: every topic the metadata image names (PATH is the metadata partition"
        ),
        "{text}"
    );
    assert!(text.contains("\nacme.orders (topic id "), "{text}");
    // --topic still narrows it.
    let out = kseg([
        "config".as_ref(),
        "--json".as_ref(),
        "--topic".as_ref(),
        "acme.orders".as_ref(),
        dir.as_os_str(),
    ]);
    let lines = json_lines(&out);
    assert_eq!(
        lines.len(),
        1 + lines.iter().filter(|l| l["type"] != "topic").count()
    );
    assert_eq!(lines[0]["topic"], "acme.orders");
}

#[test]
fn rebuild_index_and_verify_take_index_interval_bytes_from_the_metadata_log() {
    let v = view("internal-cluster-metadata");
    let expected = &topic_overrides(&v)["acme.inventory"]["index.interval.bytes"].0;
    let tmp = tempfile::tempdir().unwrap();
    let dir = assembled(tmp.path());
    let interval_of = |lines: &[Value], partition: &str| {
        lines
            .iter()
            .find(|l| l["type"] == "indexInterval" && l["partition"] == partition)
            .unwrap_or_else(|| panic!("no interval for {partition}"))
            .clone()
    };
    let out = kseg([
        "rebuild-index".as_ref(),
        "--check".as_ref(),
        "--json".as_ref(),
        dir.as_os_str(),
    ]);
    let lines = json_lines(&out);
    let inventory = interval_of(&lines, "acme.inventory-0");
    assert_eq!(inventory["bytes"].to_string(), *expected);
    assert_eq!(inventory["source"]["kind"], "config");
    assert_eq!(inventory["source"]["configSource"], "DYNAMIC_TOPIC_CONFIG");
    assert_ne!(
        interval_of(&lines, "acme.orders-0")["source"]["kind"],
        "config",
        "no config sets it: inferred or Kafka's default"
    );
    let text = stdout(&kseg([
        "rebuild-index".as_ref(),
        "--check".as_ref(),
        dir.as_os_str(),
    ]));
    assert!(
        text.contains(&format!(
            "acme.inventory-0: index.interval.bytes {expected} (the topic's config: DYNAMIC_TOPIC_CONFIG, metadata snapshot ending at offset 102)"
        )),
        "{text}"
    );
    // The flag still wins.
    let out = kseg([
        "rebuild-index".as_ref(),
        "--check".as_ref(),
        "--json".as_ref(),
        "--index-interval-bytes".as_ref(),
        "4096".as_ref(),
        dir.as_os_str(),
    ]);
    let given = interval_of(&json_lines(&out), "acme.inventory-0");
    assert_eq!(given["bytes"], 4096);
    assert_eq!(given["source"]["kind"], "given");

    let text = stdout(&kseg([
        "verify".as_ref(),
        dir.join("acme.inventory-0").as_os_str(),
    ]));
    assert!(
        text.contains(&format!(
            "indexes rebuilt with index.interval.bytes {expected} (the topic's config: DYNAMIC_TOPIC_CONFIG"
        )),
        "{text}"
    );
}

#[test]
fn static_synonyms_follow_kafkas_preference_through_the_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let props = tmp.path().join("server.properties");
    let dir = corpus("retention/ret-0");
    let retention_ms = |text: &str| {
        std::fs::write(&props, text).unwrap();
        let out = kseg([
            "config".as_ref(),
            "--json".as_ref(),
            "--server-properties".as_ref(),
            props.as_os_str(),
            dir.as_os_str(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        json_lines(&out)[0]["configs"]["retention.ms"].clone()
    };
    let hours = retention_ms("log.retention.hours=72\n");
    assert_eq!(hours["value"], "259200000");
    assert_eq!(hours["synonym"], "log.retention.hours");
    assert_eq!(hours["source"], "STATIC_BROKER_CONFIG");
    let minutes = retention_ms("log.retention.hours=72\nlog.retention.minutes=30\n");
    assert_eq!(minutes["value"], "1800000");
    let ms =
        retention_ms("log.retention.minutes=30\nlog.retention.ms=5000\nlog.retention.hours=1\n");
    assert_eq!(ms["value"], "5000");
    assert_eq!(ms["synonym"], "log.retention.ms");
    let unlimited = retention_ms("log.retention.hours=-1\n");
    assert_eq!(unlimited["value"], "-1");
    let default = retention_ms("log.roll.hours=2\n");
    assert_eq!(default["source"], "DEFAULT_CONFIG");
    assert_eq!(default["value"], "604800000");
}
