//! The replay that tells: [`History`] takes the log's records as the
//! [`Replayer`] does and hands each event to its caller as it comes,
//! holding back only those of an open metadata transaction.

use serde_json::Value;

use super::derive::Before;
use super::event::{Change, Event, Status};
use crate::format::BatchSummary;
use crate::inspect::cluster::metadata::configs::SetBy;
use crate::inspect::cluster::metadata::load::Replay;
use crate::inspect::cluster::metadata::record::{MetadataRecord, types};
use crate::inspect::cluster::metadata::replay::{Replayed, Replayer};

/// An event of an open transaction, and whether the transaction decides
/// it (control records are KRaft's own: no transaction touches them).
type Pending = (Event, bool);

/// A [`Replayer`] that says what each record changed.
pub struct History<F> {
    replayer: Replayer,
    emit: F,
    /// The append time of the batch being read.
    timestamp: i64,
    /// Its partition leader epoch.
    leader_epoch: i32,
    /// The leader of the last `LeaderChange` read.
    last_leader: Option<i32>,
    /// The events of the open metadata transaction.
    pending: Option<Vec<Pending>>,
}

impl<F> std::fmt::Debug for History<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History")
            .field("timestamp", &self.timestamp)
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

fn ids(list: Option<&Value>, field: &str) -> Vec<i32> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.get(field).and_then(Value::as_i64))
        .map(|v| v as i32)
        .collect()
}

impl<F: FnMut(Event)> History<F> {
    /// Events from the image `replayer` holds (the baseline), each handed
    /// to `emit`.
    pub fn new(replayer: Replayer, emit: F) -> Self {
        Self {
            replayer,
            emit,
            timestamp: -1,
            leader_epoch: -1,
            last_leader: None,
            pending: None,
        }
    }

    fn push(&mut self, offset: i64, change: Change, transactional: bool) {
        let event = Event {
            offset,
            timestamp: self.timestamp,
            change,
            status: Status::Applied,
        };
        match &mut self.pending {
            Some(pending) => pending.push((event, transactional)),
            None => (self.emit)(event),
        }
    }

    /// Hands on the open transaction's events, those it decides as `status`.
    fn flush(&mut self, status: Status) {
        for (mut event, transactional) in self.pending.take().unwrap_or_default() {
            if transactional {
                event.status = status;
            }
            (self.emit)(event);
        }
    }

    /// Ends the replay: the events of a transaction still open are handed
    /// on as [`Status::Open`]; the replay as [`Replayer::finish`] gives it.
    pub fn finish(mut self) -> Replayed {
        self.flush(Status::Open);
        self.replayer.finish()
    }

    fn marker(&mut self, record: MetadataRecord<'_>, at: SetBy) {
        let was_open = self.replayer.in_transaction();
        let aborts = record.api_key == types::ABORT_TRANSACTION;
        self.replayer.record(Ok(record), at);
        match (was_open, self.replayer.in_transaction(), aborts) {
            (false, true, _) => self.pending = Some(Vec::new()),
            (true, false, true) => self.flush(Status::Aborted),
            (true, false, _) => self.flush(Status::Applied),
            _ => {}
        }
    }
}

impl<F: FnMut(Event)> Replay for History<F> {
    fn batch(&mut self, batch: &BatchSummary) {
        self.timestamp = batch.max_timestamp;
        self.leader_epoch = batch.partition_leader_epoch;
    }

    fn record(&mut self, value: Result<MetadataRecord<'_>, String>, at: SetBy) {
        let (SetBy::Log { offset }, Ok(record)) = (at, &value) else {
            return self.replayer.record(value, at);
        };
        let record = *record;
        if record.kind.ends_with("_TRANSACTION_RECORD") {
            return self.marker(record, at);
        }
        let before = Before::of(self.replayer.image(), record.kind, record.data);
        let refused = self.replayer.refused_count();
        self.replayer.record(value, at);
        if self.replayer.refused_count() == refused {
            for change in before.changes(self.replayer.image()) {
                self.push(offset, change, true);
            }
        }
    }

    fn control(&mut self, key: Option<&Value>, value: Result<&Value, String>, at: SetBy) {
        let SetBy::Log { offset } = at else {
            return self.replayer.control(key, value, at);
        };
        let kind = key
            .and_then(|k| k.get("controlType"))
            .and_then(Value::as_str);
        let data = value.as_ref().ok().and_then(|v| v.get("data"));
        if let (Some("LEADER_CHANGE"), Some(data)) = (kind, data) {
            let leader = data.get("leaderId").and_then(Value::as_i64).unwrap_or(-1) as i32;
            let change = Change::ControllerElected {
                leader,
                previous_leader: self.last_leader.replace(leader),
                epoch: self.leader_epoch,
                granting_voters: ids(data.get("grantingVoters"), "voterId"),
            };
            return self.push(offset, change, false);
        }
        let quorum = self.replayer.quorum();
        let voters = |q: &crate::inspect::cluster::metadata::quorum::Quorum| {
            q.voters
                .as_ref()
                .map(|v| v.voters.iter().map(|v| v.id).collect::<Vec<_>>())
        };
        let (voters_before, version_before) = (voters(quorum), quorum.kraft_version.map(|v| v.0));
        self.replayer.control(key, value, at);
        let quorum = self.replayer.quorum();
        let (voters_now, version_now) = (voters(quorum), quorum.kraft_version.map(|v| v.0));
        if let Some(now) = voters_now.filter(|now| voters_before.as_ref() != Some(now)) {
            let change = Change::VotersChanged {
                voters: now,
                previous: voters_before,
            };
            self.push(offset, change, false);
        }
        if version_now != version_before {
            let change = Change::FeatureChanged {
                feature: "kraft.version".into(),
                level: version_now,
                previous: version_before,
            };
            self.push(offset, change, false);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::inspect::cluster::metadata::record::testing::{record, tree_of};

    fn config(value: &str) -> Value {
        json!({"type": "CONFIG_RECORD", "version": 0, "data": {
            "resourceType": 2, "resourceName": "t", "name": "retention.ms", "value": value}})
    }

    fn marker(kind: &str) -> Value {
        json!({"type": kind, "version": 0, "data": {"name": "n"}})
    }

    /// An aborted transaction's event is marked and its value is not the
    /// previous value of the next change; a committed one's events wait
    /// for its End; one open at the end is marked open.
    #[test]
    fn transactions_mark_and_hold_their_events() {
        let mut events = Vec::new();
        let mut h = History::new(Replayer::new(), |e| events.push(e));
        let records = [
            config("1"),
            marker("BEGIN_TRANSACTION_RECORD"),
            config("2"),
            marker("ABORT_TRANSACTION_RECORD"),
            config("3"),
            marker("BEGIN_TRANSACTION_RECORD"),
            config("4"),
            marker("END_TRANSACTION_RECORD"),
            marker("BEGIN_TRANSACTION_RECORD"),
            config("5"),
        ];
        for (offset, r) in records.iter().enumerate() {
            let (tree, piece) = tree_of(r);
            h.record(
                Ok(record(&tree, piece)),
                SetBy::Log {
                    offset: offset as i64,
                },
            );
        }
        let replayed = h.finish();
        let seen: Vec<_> = events
            .iter()
            .map(|e| match &e.change {
                Change::ConfigChanged {
                    value, previous, ..
                } => (e.offset, value.clone(), previous.clone(), e.status),
                other => panic!("{other:?}"),
            })
            .collect();
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            seen,
            [
                (0, s("1"), None, Status::Applied),
                (2, s("2"), s("1"), Status::Aborted),
                (4, s("3"), s("1"), Status::Applied),
                (6, s("4"), s("3"), Status::Applied),
                (9, s("5"), s("4"), Status::Open),
            ]
        );
        assert_eq!(
            replayed.image.configs.topics["t"]["retention.ms"].value,
            "4"
        );
    }

    /// A record the image refuses is no event.
    #[test]
    fn refused_records_make_no_event() {
        let mut events = Vec::new();
        let mut h = History::new(Replayer::new(), |e| events.push(e));
        let change = json!({"type": "PARTITION_CHANGE_RECORD", "version": 0,
            "data": {"topicId": "x", "partitionId": 0, "leader": 1}});
        let (tree, piece) = tree_of(&change);
        h.record(Ok(record(&tree, piece)), SetBy::Log { offset: 0 });
        assert_eq!(h.finish().refused.items.len(), 1);
        assert!(events.is_empty());
    }
}
