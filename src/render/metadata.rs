//! `kseg metadata`: the metadata image as sections of tables, or as one
//! JSON object; and the stray replicas of a log dir.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use super::table::Compact;
use crate::inspect::cluster::metadata::configs::{ConfigMap, SetBy};
use crate::inspect::cluster::metadata::health::{
    HealthReport, Listed, PartitionFilter, PartitionHealth, Summary,
};
use crate::inspect::cluster::metadata::image::{Endpoint, MetadataImage, SupportedFeature};
use crate::inspect::cluster::metadata::load::LoadedImage;
use crate::inspect::cluster::metadata::replay::Transaction;
use crate::inspect::cluster::metadata::stray::{ReplicaMatch, StrayReason, StrayReport};

fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// What was replayed, in one line.
fn provenance(l: &LoadedImage) -> String {
    let snapshot = l.snapshot.as_ref().map(|s| {
        format!(
            "snapshot {} (offsets below {})",
            file_name(&s.path),
            s.end_offset
        )
    });
    let log = match (l.log_from, l.offset) {
        (Some(from), last) if last >= from => Some(format!("log offsets {from}..={last}")),
        (Some(from), _) => Some(format!("no log records from offset {from}")),
        (None, _) => None,
    };
    let what = [snapshot, log].into_iter().flatten().collect::<Vec<_>>();
    format!(
        "replayed {}; the image is as of offset {}",
        what.join(" then "),
        l.offset
    )
}

fn endpoints(e: &[Endpoint]) -> String {
    e.iter()
        .map(|e| format!("{}://{}:{}", e.name, e.host, e.port))
        .collect::<Vec<_>>()
        .join(", ")
}

fn list(v: &[i32]) -> String {
    format!("{v:?}")
}

fn set_by(s: SetBy) -> String {
    match s {
        SetBy::Snapshot { end_offset } => format!("snapshot {end_offset}"),
        SetBy::Log { offset } => format!("offset {offset}"),
    }
}

fn transaction_line(t: &Transaction) -> String {
    match &t.aborted {
        Some((at, reason)) => format!(
            "transaction {:?} begun at {} aborted at {at} ({reason}): its {} record(s) are not applied",
            t.name, t.begin, t.records
        ),
        None => format!(
            "transaction {:?} begun at {} is still open: its {} record(s) are not applied until it ends",
            t.name, t.begin, t.records
        ),
    }
}

/// The conditions that hold for a partition, in words ("" for none).
fn problems(h: &PartitionHealth) -> String {
    let mut out = Vec::new();
    if h.leaderless {
        out.push("leaderless".to_string());
    } else if h.unavailable {
        out.push("leader not live".to_string());
    }
    if h.under_replicated {
        out.push("under-replicated".to_string());
    }
    if h.under_min_isr {
        out.push(format!("under min ISR {}", h.min_insync_replicas));
    }
    out.join(", ")
}

fn write_summary(w: &mut dyn Write, s: &Summary) -> io::Result<()> {
    writeln!(
        w,
        "Summary: {} topics, {} partitions: {} offline, {} under-replicated, {} under min ISR, {} leaderless; {} brokers, {} fenced",
        s.topics,
        s.partitions,
        s.offline,
        s.under_replicated,
        s.under_min_isr,
        s.leaderless,
        s.brokers,
        s.brokers_fenced
    )
}

/// Which partitions the filter lists, in words.
fn filter_words(f: &PartitionFilter) -> String {
    let mut kinds = Vec::new();
    for (on, word) in [
        (f.under_replicated, "under-replicated"),
        (f.unavailable, "unavailable"),
        (f.under_min_isr, "under min ISR"),
    ] {
        if on {
            kinds.push(word);
        }
    }
    let mut out = String::new();
    if !kinds.is_empty() {
        out.push_str(&format!("; {}", kinds.join(" or ")));
    }
    if !f.topics.is_empty() {
        out.push_str(&format!("; topics {}", f.topics.join(", ")));
    }
    out
}

fn write_partitions(w: &mut dyn Write, r: &HealthReport, f: &PartitionFilter) -> io::Result<()> {
    writeln!(
        w,
        "Partitions ({} of {}{})",
        r.listed.len(),
        r.summary.partitions,
        filter_words(f)
    )?;
    if r.listed.is_empty() {
        return Ok(());
    }
    let mut table = Compact::new([
        "topic",
        "topic id",
        "partition",
        "leader",
        "leader epoch",
        "partition epoch",
        "replicas",
        "isr",
        "elr",
        "last known elr",
        "problems",
    ]);
    for l in &r.listed {
        let p = l.image;
        table.add_row([
            l.topic.to_string(),
            l.topic_id.to_string(),
            l.partition.to_string(),
            p.leader.to_string(),
            p.leader_epoch.to_string(),
            p.partition_epoch.to_string(),
            list(&p.replicas),
            list(&p.isr),
            list(&p.eligible_leader_replicas),
            list(&p.last_known_elr),
            problems(&l.health),
        ]);
    }
    table.write(w)
}

fn write_cluster(w: &mut dyn Write, image: &MetadataImage) -> io::Result<()> {
    writeln!(w, "Brokers ({})", image.brokers.len())?;
    let mut table = Compact::new([
        "id",
        "epoch",
        "fenced",
        "controlled shutdown",
        "rack",
        "endpoints",
        "log dirs",
    ]);
    for b in image.brokers.values() {
        let zk = if b.is_migrating_zk_broker {
            " (ZooKeeper broker, migrating)"
        } else {
            ""
        };
        table.add_row([
            b.id.to_string(),
            b.epoch.to_string(),
            b.fenced.to_string(),
            b.in_controlled_shutdown.to_string(),
            b.rack.clone().unwrap_or_default(),
            format!("{}{zk}", endpoints(&b.endpoints)),
            b.log_dirs.join(", "),
        ]);
    }
    table.write(w)?;
    if !image.controllers.is_empty() {
        writeln!(w, "Controllers ({})", image.controllers.len())?;
        for c in image.controllers.values() {
            writeln!(w, "  {}: {}", c.id, endpoints(&c.endpoints))?;
        }
    }
    Ok(())
}

fn write_rest(w: &mut dyn Write, image: &MetadataImage) -> io::Result<()> {
    writeln!(w, "Features")?;
    for (name, level) in &image.features {
        writeln!(w, "  {name} = {level}")?;
    }
    writeln!(w, "Client quotas ({})", image.client_quotas.len())?;
    for (entity, quotas) in &image.client_quotas {
        let who = entity
            .iter()
            .map(|(t, n)| format!("{t}={}", n.as_deref().unwrap_or("<default>")))
            .collect::<Vec<_>>()
            .join(",");
        for (key, value) in quotas {
            writeln!(w, "  {who}: {key} = {value}")?;
        }
    }
    writeln!(w, "ACLs: {}", image.acls.len())?;
    match &image.producer_ids {
        Some(p) => writeln!(
            w,
            "Producer ids: next block starts at {} (last block to broker {}, epoch {})",
            p.next_producer_id, p.broker_id, p.broker_epoch
        ),
        None => writeln!(w, "Producer ids: none handed out"),
    }
}

fn write_configs(w: &mut dyn Write, image: &MetadataImage, f: &PartitionFilter) -> io::Result<()> {
    let c = &image.configs;
    let mut table = Compact::new(["resource", "config", "value", "set at"]);
    let mut add = |resource: String, map: &ConfigMap| {
        for (name, v) in map {
            table.add_row([
                resource.clone(),
                name.clone(),
                v.value.clone(),
                set_by(v.set_by),
            ]);
        }
    };
    add("cluster default".into(), &c.cluster_default);
    for (broker, map) in &c.brokers {
        add(format!("broker {broker}"), map);
    }
    for (topic, map) in c.topics.iter().filter(|(t, _)| f.keeps_topic(t)) {
        add(format!("topic {topic}"), map);
    }
    for ((kind, name), map) in &image.other_configs {
        add(format!("resource type {kind} {name}"), map);
    }
    writeln!(w, "Configs")?;
    table.write(w)
}

/// Writes the image as text sections: what was replayed, the summary, the
/// brokers, the rest of the image, then the partitions and configs that
/// `f` keeps (those that grow with the cluster).
pub fn write_text(
    w: &mut dyn Write,
    l: &LoadedImage,
    report: &HealthReport,
    f: &PartitionFilter,
) -> io::Result<()> {
    let name = l.partition_dir.as_deref().map_or_else(
        || {
            l.snapshot
                .as_ref()
                .map(|s| s.path.display().to_string())
                .unwrap_or_default()
        },
        |d| d.display().to_string(),
    );
    writeln!(w, "{name}: {}", provenance(l))?;
    let r = &l.replayed;
    for t in r.aborted.iter().chain(&r.open_transaction) {
        writeln!(w, "  {}", transaction_line(t))?;
    }
    for refused in &r.refused.items {
        writeln!(
            w,
            "  record at {} ({}) not applied: {}",
            refused.at, refused.kind, refused.reason
        )?;
    }
    if r.refused.omitted > 0 {
        writeln!(w, "  and {} more records not applied", r.refused.omitted)?;
    }
    write_summary(w, &report.summary)?;
    write_cluster(w, &r.image)?;
    super::quorum::write_text(w, &r.quorum)?;
    write_rest(w, &r.image)?;
    write_partitions(w, report, f)?;
    write_configs(w, &r.image, f)
}

/// Writes the stray-replica findings of a log dir as text.
/// Nothing when the log dir holds no partition directory besides the metadata one.
pub fn write_strays_text(w: &mut dyn Write, log_dir: &str, s: &StrayReport) -> io::Result<()> {
    if s.replicas.is_empty() {
        return Ok(());
    }
    let node = s
        .node_id
        .map_or_else(|| "unknown broker".to_string(), |n| format!("broker {n}"));
    writeln!(
        w,
        "Partition directories of {log_dir} ({node}): {} matched, {} stray",
        s.replicas.len() - s.strays().count(),
        s.strays().count()
    )?;
    if let Some(why) = &s.node_id_missing {
        writeln!(w, "  no node id ({why}): replica lists are not checked")?;
    }
    for (r, reason) in s.strays() {
        let then = if reason.kafka_moves_aside() {
            "; the broker renames it …-stray on its next start"
        } else {
            ""
        };
        let id = r
            .topic_id
            .as_ref()
            .map_or_else(String::new, |id| format!(" (topic id {id})"));
        writeln!(
            w,
            "  {}{id}: {}: {reason}{then}",
            r.dir.display(),
            reason.label()
        )?;
    }
    Ok(())
}

fn config_json(map: &ConfigMap) -> Value {
    let mut out = Map::new();
    for (name, v) in map {
        let mut o = json!({"value": v.value});
        match v.set_by {
            SetBy::Snapshot { end_offset } => o["snapshotEndOffset"] = json!(end_offset),
            SetBy::Log { offset } => o["offset"] = json!(offset),
        }
        out.insert(name.clone(), o);
    }
    Value::Object(out)
}

fn endpoints_json(e: &[Endpoint]) -> Value {
    e.iter()
        .map(|e| json!({"name": e.name, "host": e.host, "port": e.port, "securityProtocol": e.security_protocol}))
        .collect()
}

fn features_json(f: &[SupportedFeature]) -> Value {
    f.iter()
        .map(
            |f| json!({"name": f.name, "minSupportedVersion": f.min, "maxSupportedVersion": f.max}),
        )
        .collect()
}

fn partition_json(l: &Listed) -> Value {
    let p = l.image;
    let h = &l.health;
    json!({
        "partition": l.partition, "leader": p.leader, "leaderEpoch": p.leader_epoch,
        "partitionEpoch": p.partition_epoch, "replicas": p.replicas, "isr": p.isr,
        "removingReplicas": p.removing_replicas, "addingReplicas": p.adding_replicas,
        "leaderRecoveryState": p.leader_recovery_state, "directories": p.directories,
        "eligibleLeaderReplicas": p.eligible_leader_replicas, "lastKnownElr": p.last_known_elr,
        "underReplicated": h.under_replicated, "unavailable": h.unavailable,
        "underMinIsr": h.under_min_isr, "leaderless": h.leaderless,
        "minInsyncReplicas": h.min_insync_replicas,
    })
}

/// The topics `f` keeps, each with the partitions it lists; a topic none
/// of whose partitions is listed is left out when conditions are chosen.
fn topics_json(image: &MetadataImage, r: &HealthReport, f: &PartitionFilter) -> Value {
    let mut topics: Vec<_> = image
        .topics
        .in_id_order()
        .filter(|t| f.keeps_topic(&t.name))
        .collect();
    topics.sort_by(|a, b| a.name.cmp(&b.name));
    let mut listed = r.listed.iter().peekable();
    let mut out = Vec::new();
    for t in topics {
        let mut partitions = Vec::new();
        while let Some(l) = listed.next_if(|l| l.topic == t.name) {
            partitions.push(partition_json(l));
        }
        if partitions.is_empty() && f.by_condition() {
            continue;
        }
        out.push(json!({"name": t.name, "topicId": t.id, "partitions": partitions}));
    }
    Value::Array(out)
}

fn cluster_json(image: &MetadataImage) -> (Value, Value) {
    let brokers = image
        .brokers
        .values()
        .map(|b| {
            json!({
                "id": b.id, "epoch": b.epoch, "incarnationId": b.incarnation_id, "fenced": b.fenced,
                "inControlledShutdown": b.in_controlled_shutdown, "rack": b.rack,
                "endpoints": endpoints_json(&b.endpoints), "logDirs": b.log_dirs,
                "isMigratingZkBroker": b.is_migrating_zk_broker, "features": features_json(&b.features),
            })
        })
        .collect();
    let controllers = image
        .controllers
        .values()
        .map(|c| {
            json!({"id": c.id, "incarnationId": c.incarnation_id, "zkMigrationReady": c.zk_migration_ready,
                   "endpoints": endpoints_json(&c.endpoints), "features": features_json(&c.features)})
        })
        .collect();
    (brokers, controllers)
}

fn transaction_json(t: &Transaction) -> Value {
    let at = |s: &SetBy| match s {
        SetBy::Log { offset } => json!(offset),
        SetBy::Snapshot { end_offset } => json!({"snapshotEndOffset": end_offset}),
    };
    json!({
        "name": t.name, "beginOffset": at(&t.begin), "records": t.records,
        "abortOffset": t.aborted.as_ref().map(|(s, _)| at(s)),
        "abortReason": t.aborted.as_ref().map(|(_, r)| r),
    })
}

/// The image as one JSON object, with the summary and the topics and
/// partitions `f` keeps; `strays` adds `strayReplicas`.
pub fn to_json(
    l: &LoadedImage,
    report: &HealthReport,
    f: &PartitionFilter,
    strays: Option<&StrayReport>,
) -> Value {
    let r = &l.replayed;
    let image = &r.image;
    let (brokers, controllers) = cluster_json(image);
    let quotas: Vec<Value> = image
        .client_quotas
        .iter()
        .map(|(entity, q)| {
            let entity: Vec<Value> = entity
                .iter()
                .map(|(t, n)| json!({"entityType": t, "entityName": n}))
                .collect();
            json!({"entity": entity, "quotas": q})
        })
        .collect();
    let c = &image.configs;
    let map_json = |m: &std::collections::BTreeMap<String, ConfigMap>| -> Value {
        m.iter()
            .map(|(k, v)| (k.clone(), config_json(v)))
            .collect::<Map<_, _>>()
            .into()
    };
    let mut out = json!({
        "partitionDir": l.partition_dir.as_ref().map(|d| d.display().to_string()),
        "snapshot": l.snapshot.as_ref().map(|s| json!({"file": file_name(&s.path), "endOffset": s.end_offset, "epoch": s.epoch})),
        "logFrom": l.log_from,
        "offset": l.offset,
        "atOffset": l.at_offset,
        "logEndOffset": l.log_end_offset,
        "records": r.records,
        "summary": report.summary,
        "topics": topics_json(image, report, f),
        "brokers": brokers,
        "controllers": controllers,
        "voters": super::quorum::voters_json(&r.quorum),
        "kraftVersion": super::quorum::kraft_version_json(&r.quorum),
        "features": image.features,
        "clientQuotas": quotas,
        "aclCount": image.acls.len(),
        "producerIds": image.producer_ids.map(|p| json!({"nextProducerId": p.next_producer_id, "brokerId": p.broker_id, "brokerEpoch": p.broker_epoch})),
        "configs": {
            "topics": map_json(&c.topics.iter().filter(|(t, _)| f.keeps_topic(t)).map(|(t, m)| (t.clone(), m.clone())).collect()),
            "brokers": map_json(&c.brokers),
            "clusterDefault": config_json(&c.cluster_default),
        },
        "abortedTransactions": r.aborted.iter().map(transaction_json).collect::<Vec<_>>(),
        "openTransaction": r.open_transaction.as_ref().map(transaction_json),
        "refused": r.refused.items.iter().map(|x| json!({"at": x.at.to_string(), "type": x.kind, "reason": x.reason})).collect::<Vec<_>>(),
        "warnings": l.warnings,
        "notes": l.notes,
    });
    if let Some(s) = strays {
        out["strayReplicas"] = strays_json(s);
        out["nodeId"] = json!(s.node_id);
    }
    out
}

/// One stray replica as a JSON object.
pub fn stray_json(r: &ReplicaMatch, reason: &StrayReason) -> Value {
    json!({
        "dir": r.dir.display().to_string(), "topic": r.topic, "partition": r.partition,
        "topicId": r.topic_id, "reason": reason.code(), "message": reason.to_string(),
        "kafkaMovesAside": reason.kafka_moves_aside(),
    })
}

/// The stray replicas as a JSON array.
pub fn strays_json(s: &StrayReport) -> Value {
    s.strays()
        .map(|(r, reason)| stray_json(r, reason))
        .collect()
}
