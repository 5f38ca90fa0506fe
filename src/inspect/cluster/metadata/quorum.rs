//! The KRaft quorum's own state in the metadata log: the voter set of
//! KIP-853 (`VotersRecord`, control type 6, Kafka 3.8 on) and the
//! `kraft.version` (`KRaftVersionRecord`, control type 5). These are
//! control records, read by KRaft rather than by the metadata image
//! (`raft/src/main/java/org/apache/kafka/raft/internals/KRaftControlRecordStateMachine.java`,
//! `handleBatch`): each one replaces the previous value as of its offset,
//! a snapshot's as of the snapshot, and metadata transactions do not
//! touch them. With no `VotersRecord` the quorum is the static
//! `controller.quorum.voters` of the configuration (`VoterSetHistory.lastValue`).

use serde_json::Value;

use super::configs::SetBy;

/// A listener a voter is reached on (`VotersRecord.Endpoint`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoterEndpoint {
    /// Listener name.
    pub name: String,
    /// Host.
    pub host: String,
    /// Port.
    pub port: i64,
}

/// One voter (`VotersRecord.Voter`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Voter {
    /// Its node id.
    pub id: i32,
    /// Its metadata log directory id, as Kafka prints a `Uuid`.
    pub directory_id: String,
    /// Its controller listeners.
    pub endpoints: Vec<VoterEndpoint>,
    /// The `kraft.version` levels it supports: (min, max).
    pub kraft_version: (i16, i16),
}

/// The voter set as of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoterSet {
    /// Where the `VotersRecord` is.
    pub at: SetBy,
    /// The voters, in the record's order.
    pub voters: Vec<Voter>,
}

/// The quorum state the control records replayed so far give.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quorum {
    /// The latest voter set, `None` when no `VotersRecord` was read.
    pub voters: Option<VoterSet>,
    /// The latest `kraft.version` level and where it was set.
    pub kraft_version: Option<(i16, SetBy)>,
}

fn int(v: &Value, name: &str) -> Option<i64> {
    v.get(name).and_then(Value::as_i64)
}

fn text(v: &Value, name: &str) -> String {
    v.get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn voter(v: &Value) -> Result<Voter, String> {
    let id = int(v, "voterId").ok_or("a voter has no voterId")?;
    let range = v.get("kRaftVersionFeature").unwrap_or(&Value::Null);
    Ok(Voter {
        id: id as i32,
        directory_id: text(v, "voterDirectoryId"),
        endpoints: v
            .get("endpoints")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|e| VoterEndpoint {
                name: text(e, "name"),
                host: text(e, "host"),
                port: int(e, "port").unwrap_or(-1),
            })
            .collect(),
        kraft_version: (
            int(range, "minSupportedVersion").unwrap_or(0) as i16,
            int(range, "maxSupportedVersion").unwrap_or(0) as i16,
        ),
    })
}

impl Quorum {
    /// Takes one KRaft control record: `control_type` is its key's name
    /// (`KRAFT_VOTERS`, …) and `data` its decoded value's fields. Other
    /// control types change nothing here; a voters or version record
    /// without its fields is the error.
    pub fn control(&mut self, control_type: &str, data: &Value, at: SetBy) -> Result<(), String> {
        match control_type {
            "KRAFT_VOTERS" => {
                let voters = data
                    .get("voters")
                    .and_then(Value::as_array)
                    .ok_or("no voters array")?
                    .iter()
                    .map(voter)
                    .collect::<Result<Vec<_>, _>>()?;
                self.voters = Some(VoterSet { at, voters });
            }
            "KRAFT_VERSION" => {
                let level = int(data, "kRaftVersion").ok_or("no kRaftVersion field")?;
                self.kraft_version = Some((level as i16, at));
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The latest VotersRecord wins whole (a voter left out of it is no
    /// longer a voter); leader changes do not touch the set.
    #[test]
    fn the_latest_voters_record_is_the_set() {
        let mut q = Quorum::default();
        let set = |ids: &[i64]| {
            json!({"version": 0, "voters": ids.iter().map(|i| json!({
                "voterId": i, "voterDirectoryId": format!("dir{i}"),
                "endpoints": [{"name": "CONTROLLER", "host": format!("c{i}"), "port": 9093}],
                "kRaftVersionFeature": {"minSupportedVersion": 0, "maxSupportedVersion": 1}}))
                .collect::<Vec<_>>()})
        };
        q.control("KRAFT_VOTERS", &set(&[1, 2, 3]), SetBy::Log { offset: 2 })
            .unwrap();
        q.control(
            "LEADER_CHANGE",
            &json!({"leaderId": 1}),
            SetBy::Log { offset: 3 },
        )
        .unwrap();
        q.control("KRAFT_VOTERS", &set(&[1, 3]), SetBy::Log { offset: 9 })
            .unwrap();
        let v = q.voters.clone().unwrap();
        assert_eq!(v.at, SetBy::Log { offset: 9 });
        assert_eq!(v.voters.iter().map(|v| v.id).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(v.voters[1].directory_id, "dir3");
        assert_eq!(v.voters[1].endpoints[0].host, "c3");
        assert_eq!(v.voters[1].kraft_version, (0, 1));
        assert!(
            q.control("KRAFT_VERSION", &json!({}), SetBy::Log { offset: 10 })
                .is_err()
        );
    }
}
