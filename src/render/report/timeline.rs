//! The history's timeline: each partition's leader and ISR, and each
//! broker's state, as steps in time, folded from `kseg history --json`
//! events one at a time (nothing else of the history is kept).

use std::collections::BTreeMap;

use serde_json::Value;

/// Partitions drawn at most; the rest are counted.
pub const MAX_PARTITION_LANES: usize = 60;
/// Steps kept a lane at most; later ones are counted.
pub const MAX_STEPS_PER_LANE: usize = 400;

/// One state a lane enters at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct Step<T> {
    /// The metadata log offset of the event.
    pub offset: i64,
    /// Its batch's append time (epoch ms).
    pub timestamp: i64,
    /// The state from then on.
    pub state: T,
}

/// A partition's registration as the timeline draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct Leadership {
    /// The leader (-1: none).
    pub leader: i64,
    /// The in-sync replicas.
    pub isr: Vec<i64>,
    /// How many replicas it has.
    pub replicas: usize,
}

/// A broker's registration state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokerState {
    /// Registered, fenced.
    Fenced,
    /// Registered, unfenced.
    Unfenced,
    /// In controlled shutdown.
    ShuttingDown,
    /// Unregistered.
    Unregistered,
}

impl BrokerState {
    /// Its name in the page.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fenced => "fenced",
            Self::Unfenced => "unfenced",
            Self::ShuttingDown => "controlled shutdown",
            Self::Unregistered => "unregistered",
        }
    }
}

/// One lane: its steps, and how many more were left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane<T> {
    /// The steps kept, in log order.
    pub steps: Vec<Step<T>>,
    /// Steps past [`MAX_STEPS_PER_LANE`].
    pub omitted: u64,
}

impl<T> Default for Lane<T> {
    fn default() -> Self {
        Self {
            steps: Vec::new(),
            omitted: 0,
        }
    }
}

impl<T> Lane<T> {
    fn push(&mut self, offset: i64, timestamp: i64, state: T) {
        if self.steps.len() < MAX_STEPS_PER_LANE {
            self.steps.push(Step {
                offset,
                timestamp,
                state,
            });
        } else {
            self.omitted += 1;
        }
    }
}

/// The timeline of a metadata log's history.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Timeline {
    /// Events read (applied or not).
    pub events: u64,
    /// Events of aborted or still open metadata transactions (not drawn).
    pub not_applied: u64,
    /// The first and last event's append time.
    pub span: Option<(i64, i64)>,
    /// Each drawn partition (`topic-N`), in name order.
    pub partitions: BTreeMap<String, Lane<Leadership>>,
    /// Partitions with events past [`MAX_PARTITION_LANES`].
    pub partitions_omitted: u64,
    /// Each broker's lane.
    pub brokers: BTreeMap<i64, Lane<BrokerState>>,
}

fn ids(v: &Value) -> Vec<i64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default()
}

impl Timeline {
    /// Folds in one event of `kseg history --json`.
    pub fn add(&mut self, event: &Value) {
        self.events += 1;
        if event["aborted"] == true || event["openTransaction"] == true {
            self.not_applied += 1;
            return;
        }
        let (Some(offset), Some(ts)) = (event["offset"].as_i64(), event["timestamp"].as_i64())
        else {
            return;
        };
        self.span = Some(self.span.map_or((ts, ts), |(a, b)| (a.min(ts), b.max(ts))));
        let broker = event["broker"].as_i64();
        match (event["kind"].as_str().unwrap_or(""), broker) {
            ("partitionCreated" | "partitionChanged", _) => self.partition(event, offset, ts),
            ("brokerRegistered", Some(id)) => {
                let state = if event["fenced"] == true {
                    BrokerState::Fenced
                } else {
                    BrokerState::Unfenced
                };
                self.brokers.entry(id).or_default().push(offset, ts, state);
            }
            ("brokerFenced" | "brokerUnfenced", Some(id)) => {
                let state = if event["inControlledShutdown"] == true {
                    BrokerState::ShuttingDown
                } else if event["fenced"] == true {
                    BrokerState::Fenced
                } else {
                    BrokerState::Unfenced
                };
                self.brokers.entry(id).or_default().push(offset, ts, state);
            }
            ("brokerUnregistered", Some(id)) => {
                let lane = self.brokers.entry(id).or_default();
                lane.push(offset, ts, BrokerState::Unregistered);
            }
            _ => {}
        }
    }

    fn partition(&mut self, event: &Value, offset: i64, ts: i64) {
        let (Some(topic), Some(id)) = (event["topic"].as_str(), event["partition"].as_i64()) else {
            return;
        };
        let name = format!("{topic}-{id}");
        if !self.partitions.contains_key(&name) {
            if self.partitions.len() >= MAX_PARTITION_LANES {
                self.partitions_omitted += 1;
                return;
            }
            self.partitions.insert(name.clone(), Lane::default());
        }
        let state = Leadership {
            leader: event["leader"].as_i64().unwrap_or(-1),
            isr: ids(&event["isr"]),
            replicas: event["replicas"].as_array().map_or(0, Vec::len),
        };
        if let Some(lane) = self.partitions.get_mut(&name) {
            lane.push(offset, ts, state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn folds_partition_and_broker_steps_and_skips_aborted_events() {
        let mut t = Timeline::default();
        t.add(
            &json!({"offset": 3, "timestamp": 10, "kind": "partitionCreated", "topic": "a",
            "partition": 0, "leader": 1, "isr": [1, 2], "replicas": [1, 2]}),
        );
        t.add(
            &json!({"offset": 4, "timestamp": 20, "kind": "brokerFenced", "broker": 2,
            "fenced": true, "inControlledShutdown": false}),
        );
        t.add(
            &json!({"offset": 5, "timestamp": 30, "kind": "partitionChanged", "topic": "a",
            "partition": 0, "leader": 1, "isr": [1], "replicas": [1, 2], "aborted": true}),
        );
        assert_eq!(t.events, 3);
        assert_eq!(t.not_applied, 1);
        assert_eq!(t.span, Some((10, 20)));
        let lane = &t.partitions["a-0"];
        assert_eq!(lane.steps.len(), 1);
        assert_eq!(lane.steps[0].state.isr, vec![1, 2]);
        assert_eq!(t.brokers[&2].steps[0].state, BrokerState::Fenced);
    }

    #[test]
    fn caps_lanes_and_steps() {
        let mut t = Timeline::default();
        for i in 0..(MAX_PARTITION_LANES as i64 + 2) {
            t.add(
                &json!({"offset": i, "timestamp": i, "kind": "partitionCreated", "topic": "t",
                "partition": i, "leader": 1, "isr": [1], "replicas": [1]}),
            );
        }
        assert_eq!(t.partitions.len(), MAX_PARTITION_LANES);
        assert_eq!(t.partitions_omitted, 2);
        for i in 0..(MAX_STEPS_PER_LANE as i64 + 3) {
            t.add(&json!({"offset": i, "timestamp": i, "kind": "brokerUnregistered", "broker": 7}));
        }
        assert_eq!(t.brokers[&7].steps.len(), MAX_STEPS_PER_LANE);
        assert_eq!(t.brokers[&7].omitted, 3);
    }
}
