//! `quorum-state`: the JSON object a KRaft replica keeps its election state
//! in (`FileQuorumStateStore`: leader, epoch, vote, `data_version`).

use serde_json::{Map, Value};

use super::error::{FormatError, FormatErrorKind};
use super::java::{first_decode_failure, java_lines, uuid_from_string};

/// The members of a `quorum-state` file, in the file's order.
pub fn parse_quorum_state(text: &str) -> Result<Map<String, Value>, FormatError> {
    let invalid = |reason| FormatError::new(0, FormatErrorKind::Invalid(reason));
    match serde_json::from_str(text) {
        Ok(Value::Object(members)) => Ok(members),
        Ok(_) => Err(invalid("quorum-state is not a JSON object")),
        Err(_) => Err(invalid("quorum-state is not JSON")),
    }
}

/// The election state a replica keeps in `quorum-state`, as its raft
/// layer reads it at start (`FileQuorumStateStore.readElectionState`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumState {
    /// `data_version`: 0 (static voters, before KIP-853) or 1.
    pub data_version: i16,
    /// The leader it knows of, or -1.
    pub leader_id: i32,
    /// The epoch it was in.
    pub leader_epoch: i32,
    /// The candidate it voted for in that epoch, or -1.
    pub voted_id: i32,
    /// Version 1: the directory id of that candidate (zero for none).
    pub voted_directory_id: Option<[u8; 16]>,
    /// Version 0: the voters, when the file lists them.
    pub current_voters: Option<Vec<i32>>,
}

/// Why a replica's raft layer cannot read `quorum-state`: every KRaft node
/// reads it as it starts, and this stops the start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct QuorumStateError(pub String);

/// The highest `data_version` Kafka reads (`FileQuorumStateStore`).
pub const HIGHEST_DATA_VERSION: i16 = 1;

/// Reads `quorum-state` by Kafka's rules: the first line, UTF-8, parsed
/// as one JSON value (what follows it is ignored) that must be an object
/// with a `data_version` from 0 to 1 (a value that is not a number counts
/// as 0, a number is cut to 16 bits); then every field of that version's
/// `QuorumStateData` must be there with its type (`int32` fields a JSON
/// integer in range, the directory id a base64 UUID string).
pub fn read_quorum_state(bytes: &[u8]) -> Result<QuorumState, QuorumStateError> {
    let fail = |reason: String| Err(QuorumStateError(reason));
    if first_decode_failure(bytes, 1).is_some() {
        return fail("the first line is not UTF-8 text".into());
    }
    let text = String::from_utf8_lossy(bytes);
    let Some(line) = java_lines(&text).next() else {
        return fail("the file is empty (EOFException)".into());
    };
    let value = match serde_json::Deserializer::from_str(line)
        .into_iter::<Value>()
        .next()
    {
        Some(Ok(v)) => v,
        None => return fail("the first line holds no JSON value".into()),
        Some(Err(e)) => return fail(format!("the first line is not JSON: {e}")),
    };
    let Value::Object(fields) = value else {
        return fail("the first line is JSON but not an object".into());
    };
    let Some(version) = fields.get("data_version") else {
        return fail("there is no data_version field".into());
    };
    let data_version = java_short_value(version);
    if !(0..=HIGHEST_DATA_VERSION).contains(&data_version) {
        return fail(format!(
            "data_version {data_version} is outside 0..={HIGHEST_DATA_VERSION}, the versions Kafka reads"
        ));
    }
    read_fields(&fields, data_version).map_err(QuorumStateError)
}

/// The fields of `QuorumStateData` at `version` (schema
/// raft/src/main/resources/common/message/QuorumStateData.json).
fn read_fields(fields: &Map<String, Value>, version: i16) -> Result<QuorumState, String> {
    let field = |name: &str| {
        fields.get(name).ok_or(format!(
            "field '{name}' is missing; it is mandatory in version {version}"
        ))
    };
    let int = |name: &str| field(name).and_then(|v| int32(name, v));
    let mut state = QuorumState {
        data_version: version,
        leader_id: int("leaderId")?,
        leader_epoch: int("leaderEpoch")?,
        voted_id: int("votedId")?,
        voted_directory_id: None,
        current_voters: None,
    };
    if version >= 1 {
        let id = field("votedDirectoryId")?;
        let text = id
            .as_str()
            .ok_or("field 'votedDirectoryId' is not a string".to_string())?;
        state.voted_directory_id = Some(
            uuid_from_string(text)
                .ok_or(format!("votedDirectoryId {text:?} is not a base64 UUID"))?,
        );
        return Ok(state);
    }
    field("clusterId")?
        .as_str()
        .ok_or("field 'clusterId' is not a string".to_string())?;
    if !field("appliedOffset")?.is_i64() {
        return Err("field 'appliedOffset' is not a 64-bit integer".into());
    }
    state.current_voters = match field("currentVoters")? {
        Value::Null => None,
        Value::Array(voters) => Some(
            voters
                .iter()
                .map(|v| {
                    v.get("voterId")
                        .ok_or("a voter has no 'voterId'".to_string())
                        .and_then(|id| int32("voterId", id))
                })
                .collect::<Result<_, _>>()?,
        ),
        _ => return Err("field 'currentVoters' is not an array".into()),
    };
    Ok(state)
}

/// A JSON integer that fits 32 bits, as `MessageUtil.jsonNodeToInt` takes
/// it (a string, a fraction or a bigger number is refused).
fn int32(name: &str, value: &Value) -> Result<i32, String> {
    value
        .as_i64()
        .and_then(|n| i32::try_from(n).ok())
        .ok_or(format!("field '{name}' is not a 32-bit integer: {value}"))
}

/// Jackson's `JsonNode.shortValue()`: a number cut to 16 bits, anything
/// else 0.
fn java_short_value(value: &Value) -> i16 {
    match value {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .map_or(0, |n| n as i16),
        _ => 0,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_election_state() {
        let state =
            parse_quorum_state(r#"{"leaderId":1,"leaderEpoch":2,"data_version":1}"#).unwrap();
        assert_eq!(
            state.keys().collect::<Vec<_>>(),
            ["leaderId", "leaderEpoch", "data_version"]
        );
        assert!(parse_quorum_state("[1]").is_err());
        assert!(parse_quorum_state("{").is_err());
    }

    #[test]
    fn reads_what_kafka_reads() {
        let v1 = r#"{"leaderId":3001,"leaderEpoch":2,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}"#;
        let state = read_quorum_state(v1.as_bytes()).unwrap();
        assert_eq!((state.leader_id, state.leader_epoch), (3001, 2));
        assert_eq!(state.voted_directory_id, Some([0; 16]));
        // Trailing text after the value, and later lines, are ignored.
        assert!(read_quorum_state(format!("{v1} trailing\nmore").as_bytes()).is_ok());
        let v0 = r#"{"clusterId":"c","leaderId":1,"leaderEpoch":5,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1},{"voterId":2}],"data_version":0}"#;
        assert_eq!(
            read_quorum_state(v0.as_bytes()).unwrap().current_voters,
            Some(vec![1, 2])
        );
    }

    #[test]
    fn refuses_what_kafka_refuses() {
        for bad in [
            "",
            "garbage{",
            "[1]",
            "{}",
            r#"{"data_version":2,"leaderId":1,"leaderEpoch":1,"votedId":-1}"#,
            r#"{"data_version":1,"leaderId":1,"leaderEpoch":1,"votedId":-1}"#,
            r#"{"data_version":1,"leaderId":"1","leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
            r#"{"data_version":1,"leaderId":4294967296,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
            r#"{"data_version":1,"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"not a uuid"}"#,
            // A data_version that is not a number counts as 0, whose fields are missing.
            r#"{"data_version":"1","leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        ] {
            assert!(read_quorum_state(bad.as_bytes()).is_err(), "{bad}");
        }
        assert!(read_quorum_state(b"{\"data_version\":1\xff}").is_err());
    }
}
