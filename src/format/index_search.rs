//! Kafka's index binary search (`AbstractIndex.largestLowerBoundSlotFor`),
//! with its "warm section" shortcut, recorded probe by probe.

/// Bytes of index entries Kafka treats as the warm tail of an index.
pub const WARM_SECTION_BYTES: usize = 8192;

/// How a lookup went: which slots were read and which one was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchTrace {
    /// The largest slot whose key is <= the target, `None` if there is none.
    pub slot: Option<usize>,
    /// Slots read, in order.
    pub probes: Vec<usize>,
    /// Whether the search stayed in the warm section at the end of the index.
    pub warm: bool,
    /// First slot of the warm section.
    pub first_hot_entry: usize,
}

/// Finds the largest slot in `0..entries` whose key (from `key_at`) is <=
/// `target`, exactly as Kafka's broker does.
pub fn largest_lower_bound(
    entries: usize,
    entry_size: usize,
    target: i64,
    key_at: impl Fn(usize) -> i64,
) -> SearchTrace {
    let warm_entries = WARM_SECTION_BYTES / entry_size;
    let first_hot_entry = entries.saturating_sub(1).saturating_sub(warm_entries);
    let mut trace = SearchTrace {
        slot: None,
        probes: Vec::new(),
        warm: false,
        first_hot_entry,
    };
    if entries == 0 {
        return trace;
    }
    let mut probe = |slot: usize, probes: &mut Vec<usize>| {
        probes.push(slot);
        key_at(slot)
    };
    if probe(first_hot_entry, &mut trace.probes) < target {
        trace.warm = true;
        trace.slot = Some(binary_search(
            first_hot_entry,
            entries - 1,
            target,
            &mut trace.probes,
            &mut probe,
        ));
        return trace;
    }
    if probe(0, &mut trace.probes) > target {
        return trace;
    }
    trace.slot = Some(binary_search(
        0,
        first_hot_entry,
        target,
        &mut trace.probes,
        &mut probe,
    ));
    trace
}

fn binary_search(
    mut lo: usize,
    mut hi: usize,
    target: i64,
    probes: &mut Vec<usize>,
    probe: &mut impl FnMut(usize, &mut Vec<usize>) -> i64,
) -> usize {
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let key = probe(mid, probes);
        if key > target {
            hi = mid - 1;
        } else if key < target {
            lo = mid;
        } else {
            return mid;
        }
    }
    lo
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn finds_floor_slot_or_none() {
        let keys = [10i64, 20, 30, 40];
        let at = |i: usize| keys[i];
        assert_eq!(largest_lower_bound(4, 8, 5, at).slot, None);
        assert_eq!(largest_lower_bound(4, 8, 10, at).slot, Some(0));
        assert_eq!(largest_lower_bound(4, 8, 25, at).slot, Some(1));
        assert_eq!(largest_lower_bound(4, 8, 99, at).slot, Some(3));
        assert_eq!(largest_lower_bound(0, 8, 99, at).slot, None);
    }

    #[test]
    fn takes_the_warm_branch_only_for_targets_past_the_first_hot_entry() {
        let keys: Vec<i64> = (0..5000).map(|i| i * 10).collect();
        let at = |i: usize| keys[i];
        let warm = largest_lower_bound(5000, 8, 49_000, at);
        assert!(warm.warm);
        assert_eq!(warm.first_hot_entry, 5000 - 1 - 1024);
        assert_eq!(warm.slot, Some(4900));
        let cold = largest_lower_bound(5000, 8, 100, at);
        assert!(!cold.warm);
        assert_eq!(cold.slot, Some(10));
        // A target equal to the first hot key is not "strictly below": cold path.
        let edge = largest_lower_bound(5000, 8, keys[warm.first_hot_entry], at);
        assert!(!edge.warm);
        assert_eq!(edge.slot, Some(warm.first_hot_entry));
    }
}
