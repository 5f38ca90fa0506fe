//! `kseg metadata`: the KRaft voters and `kraft.version` the metadata
//! log's control records give, as text lines and JSON members.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::inspect::cluster::metadata::configs::SetBy;
use crate::inspect::cluster::metadata::quorum::Quorum;

fn at_json(at: SetBy) -> Value {
    match at {
        SetBy::Snapshot { end_offset } => json!({"snapshotEndOffset": end_offset}),
        SetBy::Log { offset } => json!({"offset": offset}),
    }
}

/// Writes the voter set (each voter's id, directory id and listeners)
/// and the `kraft.version`, or that the quorum is the static one.
pub fn write_text(w: &mut dyn Write, q: &Quorum) -> io::Result<()> {
    match &q.voters {
        Some(set) => {
            writeln!(w, "Voters ({}, set at {})", set.voters.len(), set.at)?;
            for v in &set.voters {
                let endpoints = v
                    .endpoints
                    .iter()
                    .map(|e| format!("{}://{}:{}", e.name, e.host, e.port))
                    .collect::<Vec<_>>()
                    .join(", ");
                writeln!(
                    w,
                    "  {} directory {}: {endpoints} (kraft.version {}..={})",
                    v.id, v.directory_id, v.kraft_version.0, v.kraft_version.1
                )?;
            }
        }
        None => writeln!(
            w,
            "Voters: no VotersRecord replayed; the quorum is the static controller.quorum.voters of the configuration"
        )?,
    }
    if let Some((level, at)) = q.kraft_version {
        writeln!(w, "kraft.version {level} (set at {at})")?;
    }
    Ok(())
}

/// `{"at", "voters": [{"id", "directoryId", "endpoints", "kraftVersion"}]}`,
/// or null with no `VotersRecord`.
pub fn voters_json(q: &Quorum) -> Value {
    q.voters.as_ref().map_or(Value::Null, |set| {
        let voters: Vec<Value> = set
            .voters
            .iter()
            .map(|v| {
                json!({
                    "id": v.id, "directoryId": v.directory_id,
                    "endpoints": v.endpoints.iter().map(|e| json!({"name": e.name, "host": e.host, "port": e.port})).collect::<Vec<_>>(),
                    "kraftVersion": {"minSupportedVersion": v.kraft_version.0, "maxSupportedVersion": v.kraft_version.1},
                })
            })
            .collect();
        json!({"at": at_json(set.at), "voters": voters})
    })
}

/// `{"level", "at"}`, or null with no `KRaftVersionRecord`.
pub fn kraft_version_json(q: &Quorum) -> Value {
    q.kraft_version.map_or(
        Value::Null,
        |(level, at)| json!({"level": level, "at": at_json(at)}),
    )
}
