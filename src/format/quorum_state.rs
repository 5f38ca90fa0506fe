//! `quorum-state`: the JSON object a KRaft replica keeps its election state
//! in (`FileQuorumStateStore`: leader, epoch, vote, `data_version`).

use serde_json::{Map, Value};

use super::error::{FormatError, FormatErrorKind};

/// The members of a `quorum-state` file, in the file's order.
pub fn parse_quorum_state(text: &str) -> Result<Map<String, Value>, FormatError> {
    let invalid = |reason| FormatError::new(0, FormatErrorKind::Invalid(reason));
    match serde_json::from_str(text) {
        Ok(Value::Object(members)) => Ok(members),
        Ok(_) => Err(invalid("quorum-state is not a JSON object")),
        Err(_) => Err(invalid("quorum-state is not JSON")),
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
}
