//! Which groups `kseg groups` lists (as `kafka-consumer-groups.sh
//! --list --state` and `--type` choose them), and the summary of all of
//! them printed first.

use std::collections::BTreeMap;

use super::lag::{ConsumerLogEnds, PartitionEnd};
use super::offsets::{CommittedOffset, TopicPartition};
use super::shard::{Shard, ShareStateShard};
use super::state::Group;

/// The groups asked for; every list empty (and `lagging` false) keeps all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupFilter {
    /// Only these group ids.
    pub ids: Vec<String>,
    /// Only groups in these states (Kafka's names, any case).
    pub states: Vec<String>,
    /// Only groups of these types (`classic`, `consumer`, `share`, `streams`).
    pub types: Vec<String>,
    /// Only groups with a committed offset behind its partition's log end.
    pub lagging: bool,
}

/// The sum of a group's lag over the partitions whose log end is known,
/// and how many those are.
pub fn total_lag(
    offsets: Option<&BTreeMap<TopicPartition, CommittedOffset>>,
    ends: &BTreeMap<TopicPartition, PartitionEnd>,
) -> (i64, usize) {
    offsets
        .into_iter()
        .flatten()
        .filter_map(|(tp, o)| Some(ends.get(tp)?.log_end_offset.saturating_sub(o.offset)))
        .fold((0, 0), |(sum, n), lag| (sum.saturating_add(lag), n + 1))
}

impl GroupFilter {
    /// Whether only some groups are asked for.
    pub fn narrows(&self) -> bool {
        !self.ids.is_empty() || !self.states.is_empty() || !self.types.is_empty() || self.lagging
    }

    /// Whether the id alone is one asked for (share-partitions are
    /// chosen by their group's id).
    pub fn keeps_id(&self, id: &str) -> bool {
        self.ids.is_empty() || self.ids.iter().any(|g| g == id)
    }

    /// Whether group `id` (`None` when only offsets remain for it, which
    /// Kafka lists as an `Empty` classic group) with `lag` is listed.
    pub fn keeps(&self, id: &str, group: Option<&Group>, lag: i64) -> bool {
        let (type_name, state) =
            group.map_or(("classic", "Empty"), |g| (g.group_type.name(), g.state()));
        self.keeps_id(id)
            && (self.states.is_empty() || self.states.iter().any(|s| s.eq_ignore_ascii_case(state)))
            && (self.types.is_empty()
                || self.types.iter().any(|t| t.eq_ignore_ascii_case(type_name)))
            && (!self.lagging || lag > 0)
    }
}

/// How many groups there are of each type and in each state, with their
/// committed offsets and lag.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupsSummary {
    /// Groups by type name.
    pub by_type: BTreeMap<&'static str, usize>,
    /// Groups by state name.
    pub by_state: BTreeMap<&'static str, usize>,
    /// Committed offsets.
    pub offsets: usize,
    /// Lag summed over the offsets whose partition's log end is known.
    pub lag: i64,
    /// How many offsets that is.
    pub measured: usize,
    /// Share-partitions with delivery state.
    pub share_partitions: usize,
}

impl GroupsSummary {
    /// Counts one group.
    pub fn add(&mut self, group: Option<&Group>, offsets: usize, lag: (i64, usize)) {
        let (type_name, state) =
            group.map_or(("classic", "Empty"), |g| (g.group_type.name(), g.state()));
        *self.by_type.entry(type_name).or_default() += 1;
        *self.by_state.entry(state).or_default() += 1;
        self.offsets += offsets;
        self.lag = self.lag.saturating_add(lag.0);
        self.measured += lag.1;
    }

    /// How many groups were counted.
    pub fn groups(&self) -> usize {
        self.by_type.values().sum()
    }
}

/// The ids of a shard's groups, and of ids with offsets but no group
/// record, each once, sorted.
pub fn group_ids(shard: &Shard) -> Vec<&str> {
    let s = &shard.state;
    let mut ids: Vec<&str> = s.groups.keys().map(String::as_str).collect();
    ids.extend(s.offsets.groups());
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The summary of every group and share-partition loaded.
pub fn summarize(
    shards: &[Shard],
    ends: &ConsumerLogEnds<'_>,
    share: &[ShareStateShard],
) -> GroupsSummary {
    let mut summary = GroupsSummary::default();
    let no_ends = BTreeMap::new();
    for shard in shards {
        let s = &shard.state;
        let log_ends = ends.get(shard.log_dir.as_path()).unwrap_or(&no_ends);
        for id in group_ids(shard) {
            let offsets = s.offsets.committed.get(id);
            let lag = total_lag(offsets, log_ends);
            summary.add(s.groups.get(id), offsets.map_or(0, BTreeMap::len), lag);
        }
    }
    summary.share_partitions = share.iter().map(|s| s.state.partitions.len()).sum();
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::cluster::groups::state::GroupType;

    #[test]
    fn filters_combine_and_match_any_case() {
        let consumer = Group::new(GroupType::Consumer);
        let f = GroupFilter {
            states: vec!["empty".into()],
            types: vec!["CONSUMER".into()],
            ..GroupFilter::default()
        };
        assert!(f.keeps("g", Some(&consumer), 0));
        assert!(!f.keeps("g", None, 0), "offsets alone are a classic group");
        let lagging = GroupFilter {
            lagging: true,
            ..GroupFilter::default()
        };
        assert!(!lagging.keeps("g", None, 0) && lagging.keeps("g", None, 3));
        let mut s = GroupsSummary::default();
        s.add(Some(&consumer), 2, (5, 2));
        s.add(None, 1, (0, 0));
        assert_eq!(
            (s.groups(), s.by_type["classic"], s.by_state["Empty"], s.lag),
            (2, 1, 2, 5)
        );
    }
}
